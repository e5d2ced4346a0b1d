"""Acting on ESPN for a member: writes through ESPN's transaction endpoint, or the hand-off.

ESPN's own apps make every roster change through one private endpoint
(`fantasy.espn.writes`). `EspnWrites` (one per ChatCore, `writes_of(core)`) decides whether
FanVise may write for a member and does it:

- the demo league always writes (its transport serves the endpoint with ESPN's rules);
- a live league writes only when the deployment enables it (FANVISE_ESPN_WRITES=1), the
  member opted in (`/link writes:on`) and linked their own ESPN cookies: the team's owner,
  by their own cookies; nobody else's cookies ever act for a team. With
  FANVISE_ESPN_WRITES_DRY_RUN=1 the exact payloads are shown instead of sent;
- every write is journaled in the app DB (`espn_writes`, through the writer) and made at
  most once per key.

Without writes an approved move on a live league is a hand-off: the member makes it on
ESPN (the card shows the steps and a link to the player's add page) and its outcome is
"waiting for ESPN". On the next league read this module compares each waiting move with the
rosters and updates the card and the audit:

- done: the added player is on the member's team and the dropped one is not (in the IR
  slot, for a move to IR) -> applied ✅;
- player taken: the added player is on another team -> "not possible: X was claimed by T";
- still pending: nothing changed yet -> the card keeps waiting.

`reconcile(league, cards)` is pure (tested alone); `check_handoffs(core, surface, thread)`
reads the league once and applies it to the waiting cards of one conversation (ChatCore calls
it at the start of a turn in that conversation, i.e. on the member's next league read).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from bot.core.commands import invocation
from bot.core.render import move_label, plan_card_status
from fantasy.constants import SLOT_IR
from fantasy.espn.errors import EspnWriteError
from fantasy.espn.writes import DRY_RUN, Credentials, EspnWriter, WriteOutcome, writer_for
from fantasy.moves import text_of

log = logging.getLogger(__name__)

WAITING = "waiting"
#: a move whose write was never sent: a read FanVise makes first failed
NOT_MADE_READ = ("not made: ESPN did not answer FanVise's read before the change, so nothing "
                 "was sent; approve it again later or make it on ESPN")
#: card statuses that may hold moves waiting for ESPN
DECIDED = ("approved", "partial")


@dataclass(frozen=True)
class HandoffChange:
    """One waiting move whose state the league read settled."""

    card_id: str
    move_index: int
    move_id: str
    result: str  # "done" | "taken"
    note: str


def reconcile(league: Any, card: Any) -> tuple[dict[str, dict[str, Any]], list[HandoffChange]]:
    """The card's outcomes after a league read, and what changed (nothing: still pending)."""
    outcomes = {k: dict(v) for k, v in ((card.result or {}).get("outcomes") or {}).items()}
    changes: list[HandoffChange] = []
    team = league.team(card.team_id) if card.team_id is not None else None
    if team is None:
        return outcomes, changes
    mine = {e.player.id for e in team.roster}
    slots = {e.player.id: e.lineup_slot_id for e in team.roster}
    for i, m in enumerate(card.moves):
        mid = str(m.get("move_id"))
        oc = outcomes.get(mid)
        if not oc or oc.get("status") != WAITING:
            continue
        drop, add = int(m["drop"]["id"]), int(m["add"]["id"])
        # a move to IR keeps the leaving player, in the IR slot
        gone = (slots.get(drop) == SLOT_IR) if m.get("drop_to_ir") else drop not in mine
        if add in mine and gone:
            oc.update(status="applied", note=f"done on ESPN: {text_of(m)}")
            changes.append(HandoffChange(card.card_id, i, mid, "done", oc["note"]))
            continue
        owner = league.team_of_player(add)
        if owner is not None and owner.id != card.team_id:
            oc.update(status="failed", note=f"{m['add']['name']} was claimed by {owner.name}")
            changes.append(HandoffChange(card.card_id, i, mid, "taken", oc["note"]))
    return outcomes, changes


async def settle_claims(core: Any, card: Any) -> None:
    """Read back what FanVise wrote for a card's waiting moves (`make_card_moves`): a
    waiver claim ESPN failed or canceled makes its move not possible with ESPN's status (an
    executed one is left to `reconcile`: the roster shows it); a write whose outcome was
    unknown (no answer, no read back, or a crash mid-POST) is settled by reading the roster
    back: done -> applied, nothing changed -> not made; still unclear -> left for the next
    read. Never raises."""
    outs = (card.result or {}).get("outcomes") or {}
    # the key of the write that made it (a claim the optimizer run put in on the demo), or
    # the card's key of a move `make_card_moves` / the scheduler made
    base = {k: o.get("write_key") or f"card:{card.card_id}:{o.get('move_id') or k}"
            for k, o in outs.items() if o.get("status") == WAITING}
    if not base or card.team_id is None:
        return
    try:
        from fantasy.espn.writes import SENDING, UNKNOWN
        rows, unsure = {}, {}
        for k, key in base.items():
            claim = await core.db.write_get(f"{key}:claim")
            if claim is not None and claim.status == "pending":
                rows[k] = claim
            for rec in (claim, await core.db.write_get(key)):
                if rec is not None and rec.status in (SENDING, UNKNOWN):
                    unsure[k] = rec
                    break
        if not rows and not unsure:
            return
        w = writes_of(core)
        access = await w.card_access(card)
        if not access.allowed:
            return
        league = await core.espn.get_league()
        writer = w.writer(int(card.team_id), access)
        changed = False
        try:
            for k, rec in unsure.items():
                got = await writer.settle(rec.key)
                if got is None or got.status in (SENDING, UNKNOWN):
                    continue
                changed = True
                if got.status == "failed":
                    outs[k] = {**outs[k], "status": "not_possible",
                               "note": "not made: ESPN shows no change (read back after it "
                                       "did not answer)"}
                elif got.status == "pending":
                    rows[k] = got
                    outs[k] = {**outs[k], "note": "claim put in (read back)"}
                else:
                    outs[k] = {**outs[k], "status": "applied",
                               "note": "done on ESPN (read back after it did not answer)",
                               "steps": []}
            if rows:
                sps = list(range(min(r.scoring_period for r in rows.values()),
                                 league.current_scoring_period + 1))
                for k, rec in rows.items():
                    rec = await writer.claim_result(rec.key, scoring_periods=sps)
                    if rec.status == "failed":
                        outs[k] = {**outs[k], "status": "not_possible",
                                   "note": f"ESPN's waivers did not give him to you "
                                           f"({rec.error})"}
                        changed = True
        finally:
            await writer.aclose()
        if changed:
            from fantasy.move_card import MoveOutcome
            result = {**(card.result or {}), "outcomes": outs}
            status = plan_card_status(card.moves, card.decisions,
                                      {k: MoveOutcome.of(v).to_json() for k, v in outs.items()})
            await core.db.finish_card(card.card_id, status=status, result=result)
    except Exception as exc:  # noqa: BLE001 - the next read tries again
        log.warning("write read back skipped: %s", type(exc).__name__)


async def settle_scheduled(core: Any, surface: Any, mine: Any) -> int:
    """Scheduled moves made on their day whose write's outcome was unknown (no answer and
    no read back: the row is `waiting`) are settled by reading ESPN back: made -> applied,
    nothing changed -> not possible ("not made"); unclear -> left for the next read. Their
    cards are redrawn. Returns how many were settled. Never raises."""
    from fantasy.espn.writes import SENDING, UNKNOWN
    settled = 0
    try:
        for row in await core.db.scheduled_moves_in(WAITING):
            key = f"card:{row.card_id}:{row.move_id}"
            rec = await core.db.write_get(key)
            if rec is None or rec.status not in (SENDING, UNKNOWN):
                continue  # a hand-off, or a write whose outcome is known
            card = await core.db.get_card(row.card_id)
            if card is None or card.team_id is None or not mine(card):
                continue
            w = writes_of(core)
            access = await w.card_access(card)
            if not access.allowed:
                continue
            writer = w.writer(int(card.team_id), access)
            try:
                got = await writer.settle(key)
            finally:
                await writer.aclose()
            if got is None or got.status in (SENDING, UNKNOWN):
                continue
            status, note = (("applied", "made (read back after ESPN did not answer)")
                            if got.status == "done" else
                            ("not_possible", "not made: ESPN shows no change (read back "
                             "after it did not answer)"))
            await core.db.finish_scheduled_move(row.card_id, row.plan_move_id, status=status,
                                                note=note)
            await core.moves.redraw(surface, card.card_id)
            settled += 1
    except Exception as exc:  # noqa: BLE001 - the next read tries again
        log.warning("scheduled write read back skipped: %s", type(exc).__name__)
    return settled


def waiting(card: Any) -> bool:
    """True when a decided card has moves waiting for ESPN."""
    outs = (card.result or {}).get("outcomes") or {}
    return card.status in DECIDED and any(o.get("status") == WAITING for o in outs.values())


async def check_handoffs(core: Any, surface: Any, thread: Any = None, *,
                         workspace: tuple[str, str] | None = None) -> list[HandoffChange]:
    """Settle the waiting moves of this conversation's cards (or, with `workspace`
    (platform, workspace id), of every card there: the daily digest does it, after waivers
    process) against one league read; edit each changed card in place and audit every settled
    move. Never raises (a failed read leaves the cards waiting for the next one)."""
    if core.espn is None:
        return []  # (the demo's only waiting moves are waiver claims: read back the same way)

    def mine(c: Any) -> bool:
        if workspace is not None:
            return (c.platform, c.workspace_id) == workspace
        return c.conversation_id == thread.conversation_id
    await settle_scheduled(core, surface, mine)
    try:
        cards = [c for status in DECIDED for c in await core.db.cards_by_status(status)
                 if mine(c) and waiting(c)]
        if not cards:
            return []
        league = await core.espn.get_league()
    except Exception as exc:  # noqa: BLE001 - a hand-off check never stops a turn
        log.warning("hand-off check skipped: %s", type(exc).__name__)
        return []
    done: list[HandoffChange] = []
    for card in cards:
        before = json.dumps(card.result, sort_keys=True, default=str)
        await settle_claims(core, card)
        card = await core.db.get_card(card.card_id) or card
        settled = json.dumps(card.result, sort_keys=True, default=str) != before
        outcomes, changes = reconcile(league, card)
        if not changes and not settled:
            continue
        if changes:
            result = {**(card.result or {}), "outcomes": outcomes}
            status = plan_card_status(card.moves, card.decisions, outcomes)
            await core.db.finish_card(card.card_id, status=status, result=result)
        for ch in changes:
            await core.db.audit(card_id=card.card_id, run_thread_id=card.run_thread_id,
                                platform=card.platform, user_id=card.decided_by or "",
                                user_name=card.decided_by_name or "", decision="approve",
                                result=f"espn:{ch.result}", move_index=ch.move_index,
                                move_id=ch.move_id, move_label=move_label(card.moves[
                                    ch.move_index]))
        fresh = await core.db.get_card(card.card_id) or card
        try:
            await core.edit_card(surface, fresh)
            await core.db.mark_card_shown(card.card_id)
        except Exception as exc:  # noqa: BLE001 - the audit holds it; the card catches up
            log.warning("could not update a hand-off card: %s", type(exc).__name__)
        done += changes
    return done


# ---------------------------------------------------------------------- writes


@dataclass(frozen=True)
class WritesConfig:
    """The deployment's write settings (bot.settings: FANVISE_ESPN_WRITES...)."""

    enabled: bool = False
    dry_run: bool = False
    write_base_url: str | None = None
    #: an httpx transport for the writer (tests: the fake ESPN at the wire)
    transport: Any = None

    @classmethod
    def from_settings(cls, settings: Any) -> WritesConfig:
        return cls(enabled=bool(getattr(settings, "espn_writes", False)),
                   dry_run=bool(getattr(settings, "espn_writes_dry_run", False)),
                   write_base_url=getattr(settings, "espn_writes_base_url", None) or None)


@dataclass(frozen=True)
class WriteAccess:
    """Whether FanVise may write to a team for a member, and with what. `why` says what the
    member can do when it may not (never a secret)."""

    allowed: bool
    why: str = ""
    credentials: Credentials | None = field(default=None, repr=False)
    demo: bool = False
    dry_run: bool = False
    actor: str = ""
    auto_lineup: bool = False
    #: where the member is (platform, workspace, user): a refusal of their cookies is noted
    member: tuple[str, str, str] = ("", "", "")


@dataclass
class LineupWrite:
    """What setting a lineup did, per day: the outcomes, the error that stopped it (ESPN's
    reason) and the payloads of a dry run."""

    outcomes: list[WriteOutcome] = field(default_factory=list)
    error: EspnWriteError | None = None
    days: list[date] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def dry_run(self) -> bool:
        return any(o.status == DRY_RUN for o in self.outcomes)

    @property
    def changed(self) -> int:
        """How many days were changed (or would be, in a dry run)."""
        return sum(1 for o in self.outcomes if o.status in ("done", DRY_RUN))

    def payloads_text(self) -> str:
        """The exact payloads of a dry run (memberId masked), one JSON per line."""
        return "\n".join(json.dumps(o.body, separators=(",", ":")) for o in self.outcomes
                         if o.status == DRY_RUN)


def lineup_starters(opt: Any, team_id: int, day: date) -> tuple[dict[int, int],
                                                                 dict[int, int]]:
    """({player id: slot} of the optimal starters on `day`, {slot: count} of the league's
    starting slots): the writer places them against the slots ESPN has for that day and
    moves nobody else who may stay (`fantasy.espn.writes.plan_lineup`)."""
    res = opt.daily_lineup(team_id, day)
    caps = dict(zip(opt.layout.slot_ids, opt.layout.caps, strict=True))
    return {s.player_id: s.slot_id for s in res.starters}, caps


class EspnWrites:
    """Writes for the members of one ChatCore (module docstring)."""

    def __init__(self, core: Any) -> None:
        self.core = core

    @property
    def config(self) -> WritesConfig:
        return getattr(self.core, "writes_config", None) or WritesConfig()

    @property
    def demo(self) -> Any:
        return getattr(self.core.espn, "demo", None)

    async def card_access(self, card: Any) -> WriteAccess:
        """`access` for a card's writes: its team, for the member who decided it (else the
        requester)."""
        return await self.access(card.platform, card.workspace_id,
                                 card.decided_by or card.requester_id, int(card.team_id or 0))

    async def access(self, platform: str, workspace_id: str, user_id: str,
                     team_id: int) -> WriteAccess:
        """May FanVise write to `team_id` for this member? The demo league: yes. A live
        league: writes on for the deployment, the member's own link is to that team, they
        opted in and their cookies are stored."""
        actor = f"{platform}:{user_id}"
        if self.core.espn is None:
            return WriteAccess(False, "no league is configured", actor=actor)
        writes_on, auto = await self.core.db.write_prefs(platform, workspace_id, user_id)
        if self.demo is not None:
            return WriteAccess(True, demo=True, actor=actor, auto_lineup=auto,
                               dry_run=self.config.dry_run)
        if not self.config.enabled:
            return WriteAccess(False, "this FanVise does not write to ESPN (its admin can "
                               "turn that on with FANVISE_ESPN_WRITES=1)", actor=actor)
        link = await self.core.db.get_link(platform, workspace_id, user_id)
        if link is None or link.team_id != team_id or (
                self.core.league_id is not None and link.league_id != self.core.league_id):
            return WriteAccess(False, "only the team's owner can have FanVise change it",
                               actor=actor)
        if not writes_on:
            return WriteAccess(False, "you have not turned writes on: "
                               f"`{invocation('link', 'writes:on', platform)}`", actor=actor)
        creds = link.cookies()
        if creds is None:
            return WriteAccess(False, "FanVise has no ESPN cookies of yours: link them "
                               "privately with `/link espn_s2=… swid=…`", actor=actor)
        refused = await self.core.db.cookies_refused_at(platform, workspace_id, user_id)
        if refused is not None and link.linked_at <= refused:
            return WriteAccess(False, "ESPN refused your cookies on a write: link again "
                               "privately with fresh `espn_s2` and `SWID` "
                               f"(`{invocation('link', 'espn_s2=… swid=…', platform)}`)",
                               actor=actor)
        owner = await self.owner_check(team_id, creds[1])
        if owner:
            return WriteAccess(False, owner, actor=actor)
        return WriteAccess(True, credentials=Credentials(*creds), actor=actor,
                           auto_lineup=auto, dry_run=self.config.dry_run,
                           member=(platform, workspace_id, user_id))

    async def owner_check(self, team_id: int, swid: str) -> str:
        """"" when `swid` (a member's cookie) is one of the team's owners on ESPN (the
        league's team `owners`), else why not, in words for the member (never the SWID)."""
        try:
            team = (await self.core.espn.get_league()).team(team_id)
        except Exception as exc:  # noqa: BLE001 - no write without the check
            log.info("owner check: no league read (%s)", type(exc).__name__)
            return ("FanVise could not read the team's owners from ESPN to check your "
                    "cookies: try again in a minute")
        if team is None:
            return f"team {team_id} is not in this league"
        owners = {swid_key(o) for o in getattr(team, "owner_ids", None) or []}
        if swid_key(swid) not in owners:
            return (f"the ESPN cookies you linked are not those of an owner of {team.name} "
                    "on ESPN (their SWID is not one of the team's owners): FanVise writes "
                    "only with the team owner's own cookies")
        return ""

    def writer(self, team_id: int, access: WriteAccess) -> EspnWriter:
        """The writer acting for `team_id` with `access`'s credentials (journaled in the app
        DB; `storage.crashpoint` names the points on both sides of the POST; paced with
        other processes through the app DB's token bucket of the league)."""
        from fantasy.espn.writes import MIN_INTERVAL
        from storage.crashpoint import crash_point
        cfg = self.config
        bucket = f"espn-writes:{self.core.league_id}"

        async def shared_pace() -> float:  # 300 ms apart across processes (one database)
            return await self.core.db.take_token(bucket, capacity=1.0,
                                                 per_minute=60.0 / MIN_INTERVAL)
        return writer_for(self.core.espn, team_id=team_id, credentials=access.credentials,
                          journal=self.core.db, dry_run=access.dry_run,
                          transport=cfg.transport, write_base_url=cfg.write_base_url,
                          crash=crash_point, shared_pace=shared_pace)

    def run_writer(self, team_id: int, actor: str) -> EspnWriter:
        """The writer of an optimizer run's approval-time moves (`AgentDeps.writer`): this
        same construction (app DB journal, crash points, shared pacing) for the demo league,
        whose team owner the demo writes as. A live league's approvals are made by
        `make_card_moves` with the decider's own access, never by a run."""
        if self.demo is None:
            from fantasy.espn.errors import EspnWritesDisabled
            raise EspnWritesDisabled("a run writes only to the demo league",
                                     code="NOT_DEMO", reason="live moves need the owner's access")
        return self.writer(team_id, WriteAccess(True, demo=True, actor=actor,
                                                dry_run=self.config.dry_run))

    async def settle_move(self, access: WriteAccess, team_id: int, key: str) -> None:
        """Journal what ESPN did with the writes of a move a crash interrupted (`key`, its IR
        step and its claim): read back, never sent again (`EspnWriter.settle`)."""
        writer = self.writer(team_id, access)
        try:
            for k in (f"{key}:ir", key, f"{key}:claim"):
                await writer.settle(k)
        finally:
            await writer.aclose()

    async def after_write(self) -> None:
        """Drop cached league reads so the next answer shows the change."""
        try:
            await self.core.espn.invalidate_cache()
        except Exception as exc:  # noqa: BLE001 - stale reads heal with their TTL
            log.warning("cache not invalidated after a write: %s", type(exc).__name__)

    async def make_move(self, access: WriteAccess, team_id: int, *, add_id: int,
                        add_name: str, drop_id: int | None, drop_name: str, key: str,
                        drop_to_ir: bool = False,
                        exclude: frozenset[int] | set[int] = frozenset()) -> dict[str, Any]:
        """Make one approved move today (`fantasy.espn.writes.make_move`); returns the
        outcome fields for a `MoveOutcome`: status applied / waiting (a claim put in, or
        ESPN's answer unknown) / not_possible with ESPN's reason and the next best choice
        (never a player in `exclude`: the other adds of the same card; none when ESPN
        refused the cookies, which any other move would need too). A move never sent (a
        read before it failed) is "not made"."""
        from fantasy.espn.errors import (
            EspnCredentialsExpired,
            EspnError,
            EspnWriteNotSent,
            EspnWriteOutcomeUnknown,
        )
        from fantasy.espn.writes import make_move
        espn = self.core.espn
        try:
            sp = (await espn.get_league()).current_scoring_period
        except EspnError:
            return {"status": "not_possible", "note": NOT_MADE_READ}
        writer = self.writer(team_id, access)
        writer.names.update({add_id: add_name, **({drop_id: drop_name} if drop_id else {})})
        try:
            res = await make_move(writer, team_id, add_id, drop_id, scoring_period=sp, key=key,
                                  actor=access.actor, drop_to_ir=drop_to_ir)
        finally:
            await writer.aclose()
        if res.status in ("done", "pending") or isinstance(res.error, EspnWriteOutcomeUnknown):
            await self.after_write()  # an unknown outcome too: the next read must be fresh
        if res.status == "done":
            return {"status": "applied", "note": "done on ESPN", "steps": []}
        if res.status == "pending":
            return {"status": "waiting", "note": res.note,
                    "steps": [f"Claim put in on ESPN for {add_name}: made when waivers "
                              "process, if he is still there."]}
        if res.status == DRY_RUN:
            body = "; ".join(json.dumps(o.body, separators=(",", ":")) for o in res.outcomes)
            return {"status": "waiting", "note": "dry run",
                    "steps": [f"Dry run: FanVise would send {body}"]}
        if isinstance(res.error, EspnWriteOutcomeUnknown):
            return {"status": "waiting", "note": "unknown",
                    "steps": [failure_text(res.error)]}
        if isinstance(res.error, EspnWriteNotSent):
            return {"status": "not_possible", "note": NOT_MADE_READ}
        if isinstance(res.error, EspnCredentialsExpired):
            # the next best would need the same cookies: none offered
            await self.cookies_refused(access)
            return {"status": "not_possible", "note": failure_text(res.error).rstrip(".")}
        nxt = await self.next_best(team_id, exclude={add_id, *exclude})
        note = res.note.rstrip(".") + (f". Next best: {nxt}" if nxt else "")
        return {"status": "not_possible", "note": note}

    async def cookies_refused(self, access: WriteAccess) -> None:
        """ESPN refused the member's cookies (401/403): no later write with them (their
        scheduled moves are handed to them) until they link again."""
        platform, workspace, user = access.member
        if access.demo or not user:
            return
        try:
            await self.core.db.refuse_cookies(platform, workspace, user)
        except Exception as exc:  # noqa: BLE001 - the write's own answer still says it
            log.warning("could not note refused cookies: %s", type(exc).__name__)

    async def next_best(self, team_id: int, exclude: set[int]) -> str:
        """The optimizer's best move now for a team, other than with `exclude`d players: the
        first move of its plan with the team's other scheduled moves fixed (never one of
        them again, never a drop of a player they already drop)."""
        from bot.core.digest import league_optimizer
        try:
            opt = await league_optimizer(self.core.espn, team_id)
            planned = [m for m in await self.core.moves.planned(team_id)
                       if m.add.id not in exclude]
            plan = opt.move_plan(team_id, planned=planned, exclude_adds=sorted(exclude))
        except Exception as exc:  # noqa: BLE001 - the failure reason is enough on its own
            log.info("no next best move: %s", type(exc).__name__)
            return ""
        return plan.moves[0].text() if plan.moves else ""

    async def set_lineups(self, access: WriteAccess, team_id: int, *, key: str,
                          days: list[date] | None = None, opt: Any = None,
                          planned: Mapping[date, Mapping[int, int]] | None = None
                          ) -> LineupWrite:
        """Write the optimal lineup of each of `days` (default: the league's today): LINEUP
        today, FUTURE_ROSTER later, each built from the slots ESPN has for that day. Stops
        at the first refusal (`error`, ESPN's reason); days already written stay written.
        `planned`: the starters ({player id: slot id}) a week plan assumes on some of the
        days (`fantasy.week_plan`), written as they are instead of solving the day again."""
        from bot.core.digest import league_optimizer
        if opt is None:
            opt = await league_optimizer(self.core.espn, team_id)
        today = opt.today
        days = days or [today]
        current = opt.schedule.scoring_period_for(today)
        out = LineupWrite(days=list(days))
        writer = self.writer(team_id, access)
        writer.names.update({e.player.id: e.player.name
                             for e in opt.league.team(team_id).roster})
        try:
            for day in days:
                sp = opt.schedule.scoring_period_for(day)
                if planned is not None and day in planned:
                    starters = dict(planned[day])
                    caps = dict(zip(opt.layout.slot_ids, opt.layout.caps, strict=True))
                else:
                    starters, caps = lineup_starters(opt, team_id, day)
                out.outcomes.append(await writer.set_lineup(
                    team_id, starters=starters, slot_caps=caps, scoring_period=sp,
                    current_period=current, key=f"{key}:sp{sp}", actor=access.actor))
        except EspnWriteError as exc:
            out.error = exc
        finally:
            await writer.aclose()
            from fantasy.espn.errors import EspnWriteOutcomeUnknown
            if (out.changed and not out.dry_run) or isinstance(out.error,
                                                                EspnWriteOutcomeUnknown):
                await self.after_write()
        from fantasy.espn.errors import EspnCredentialsExpired
        if isinstance(out.error, EspnCredentialsExpired):
            await self.cookies_refused(access)
        return out


async def make_card_moves(core: Any, card: Any, user: Any, outcomes: list[Any]) -> list[Any]:
    """Approvals act: the `waiting` outcomes of a decided card on a live league (today's
    approved moves the graph handed off) are made on ESPN when the member who decided may
    have FanVise write for that team (`EspnWrites.access`): each becomes applied (done),
    waiting with "claim put in" (a waiver player), or not possible with ESPN's reason and
    the next best choice. Without access the hand-off stays. Each move is written at most
    once (key `card:<card id>:<move id>`, also after a crash or a second click)."""
    from fantasy.move_card import MoveOutcome
    # hand-offs only (nothing sent yet): a claim the run already put in (its `write_key`)
    # is waiting for waivers, never made a second time
    waiting_now = [o for o in outcomes if o.status == WAITING and o.add is not None
                   and not o.write_key]
    if not waiting_now or card.team_id is None:
        return outcomes
    w = writes_of(core)
    access = await w.access(user.platform, card.workspace_id, user.user_id, int(card.team_id))
    if not access.allowed:
        return outcomes
    made: dict[str, Any] = {}
    adds = card_adds(card)
    for k, o in enumerate(waiting_now):
        if k:  # ESPN may have refused the member's cookies: the rest stay with the member
            access = await w.access(user.platform, card.workspace_id, user.user_id,
                                    int(card.team_id))
            if not access.allowed:
                break
        key = f"card:{card.card_id}:{o.move_id}"
        res = await w.make_move(access, int(card.team_id), add_id=o.add.id, add_name=o.add.name,
                                drop_id=o.drop.id if o.drop else None,
                                drop_name=o.drop.name if o.drop else "", key=key,
                                drop_to_ir=_to_ir(card, o.move_id), exclude=adds)
        made[o.move_id] = MoveOutcome.of({**o.to_json(), **res, "write_key": key})
    return [made.get(o.move_id, o) for o in outcomes]


def revise_answers(final: list[Any], before: list[Any], after: list[Any]) -> list[Any]:
    """The run's answer events with each move's line as `make_card_moves` left it: a move
    made on ESPN no longer reads "Waiting for ESPN: ... steps", and the hand-off note goes
    when nothing is left to make by hand (the lines are `MoveOutcome.line_text`, as the graph
    wrote them)."""
    import dataclasses

    from agents.matchup_optimizer.prompts import LIVE_HANDOFF_NOTE
    from agents.shared.types import Answer

    def line(o: Any) -> str:
        a = o.to_json()
        return o.line_text(a["line"] if o.status == "applied" and a.get("line") else text_of(a))

    def revise(text: str) -> str:
        for old, new in zip(before, after, strict=False):
            if old != new:
                text = text.replace(line(old), line(new))
        if not any(o.status == "waiting" and o.note.startswith("waiting for ESPN")
                   for o in after):
            text = text.replace("\n" + LIVE_HANDOFF_NOTE, "").replace(LIVE_HANDOFF_NOTE, "")
        return text
    return [dataclasses.replace(e, text=revise(e.text)) if isinstance(e, Answer) else e
            for e in final]


def card_adds(card: Any) -> frozenset[int]:
    """The players a card's moves add (a next best never offers one of them)."""
    out = set()
    for m in card.moves or []:
        try:
            out.add(int(m["add"]["id"]))
        except (KeyError, TypeError, ValueError):
            continue
    return frozenset(out)


def swid_key(swid: str) -> str:
    """A SWID as compared: no braces, no spaces, upper case."""
    return str(swid or "").strip().strip("{}").strip().upper()


def _to_ir(card: Any, move_id: str) -> bool:
    m = next((m for m in card.moves if str(m.get("move_id")) == move_id), None)
    return bool(m and m.get("drop_to_ir"))


def writes_of(core: Any) -> EspnWrites:
    """The one `EspnWrites` of a ChatCore."""
    w = getattr(core, "_espn_writes", None)
    if w is None:
        w = EspnWrites(core)
        core._espn_writes = w
    return w


def failure_text(exc: EspnWriteError) -> str:
    """What a member reads when ESPN refused a write (ESPN's reason, then what to do)."""
    from fantasy.espn.errors import (
        EspnCredentialsExpired,
        EspnLineupLocked,
        EspnMovesLimitReached,
        EspnPlayerUnavailable,
        EspnRosterFull,
        EspnStaleSlot,
        EspnWriteNotSent,
        EspnWriteOutcomeUnknown,
        EspnWritesDisabled,
    )
    reason = exc.reason.rstrip(".")
    if isinstance(exc, EspnLineupLocked):
        return f"ESPN says: {reason}. Today's lineup is locked; later days can still be set."
    if isinstance(exc, EspnCredentialsExpired):
        return (f"ESPN refused your cookies ({reason}): link again privately with fresh "
                "`espn_s2` and `SWID` (`/link espn_s2=… swid=…`).")
    if isinstance(exc, EspnWriteNotSent):
        return ("Not made: ESPN did not answer FanVise's read before the change, so nothing "
                "was sent. Try again in a minute.")
    if isinstance(exc, EspnRosterFull):
        return f"ESPN says: {reason}. Drop someone (or move an injured player to IR) first."
    if isinstance(exc, EspnPlayerUnavailable):
        return f"ESPN says: {reason}."
    if isinstance(exc, EspnMovesLimitReached):
        return f"ESPN says: {reason}. No more adds this matchup."
    if isinstance(exc, EspnStaleSlot):
        return f"ESPN says: {reason}. Your lineup changed on ESPN meanwhile: ask again."
    if isinstance(exc, EspnWriteOutcomeUnknown):
        return ("ESPN did not answer and FanVise could not confirm whether the change was "
                "made: check your team on ESPN before trying again.")
    if isinstance(exc, EspnWritesDisabled):
        return f"FanVise did not write to ESPN: {reason}."
    return f"ESPN refused the change: {reason}."


__all__ = ["EspnWrites", "HandoffChange", "LineupWrite", "WriteAccess", "WritesConfig",
           "check_handoffs", "failure_text", "lineup_starters", "make_card_moves", "revise_answers",
           "settle_claims", "settle_scheduled", "reconcile", "waiting",
           "writes_of"]
