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

- done: the added player is on the member's team and the dropped one is not -> applied ✅;
- player taken: the added player is on another team -> "not possible: X was claimed by T";
- still pending: nothing changed yet -> the card keeps waiting.

`reconcile(league, cards)` is pure (tested alone); `check_handoffs(core, surface, thread)`
reads the league once and applies it to the waiting cards of one conversation (ChatCore calls
it at the start of a turn in that conversation, i.e. on the member's next league read).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from bot.core.commands import invocation
from bot.core.render import move_label, plan_card_status
from fantasy.espn.errors import EspnWriteError
from fantasy.espn.writes import DRY_RUN, Credentials, EspnWriter, WriteOutcome, writer_for
from fantasy.moves import text_of

log = logging.getLogger(__name__)

WAITING = "waiting"
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
    for i, m in enumerate(card.moves):
        mid = str(m.get("move_id"))
        oc = outcomes.get(mid)
        if not oc or oc.get("status") != WAITING:
            continue
        drop, add = int(m["drop"]["id"]), int(m["add"]["id"])
        if add in mine and drop not in mine:
            oc.update(status="applied", note=f"done on ESPN: {text_of(m)}")
            changes.append(HandoffChange(card.card_id, i, mid, "done", oc["note"]))
            continue
        owner = league.team_of_player(add)
        if owner is not None and owner.id != card.team_id:
            oc.update(status="failed", note=f"{m['add']['name']} was claimed by {owner.name}")
            changes.append(HandoffChange(card.card_id, i, mid, "taken", oc["note"]))
    return outcomes, changes


def waiting(card: Any) -> bool:
    """True when a decided card has moves waiting for ESPN."""
    outs = (card.result or {}).get("outcomes") or {}
    return card.status in DECIDED and any(o.get("status") == WAITING for o in outs.values())


async def check_handoffs(core: Any, surface: Any, thread: Any) -> list[HandoffChange]:
    """Settle the waiting moves of this conversation's cards against one league read; edit
    each changed card in place and audit every settled move. Never raises (a failed read
    leaves the cards waiting for the next one)."""
    if getattr(core.espn, "demo", None) is not None or core.espn is None:
        return []  # the demo league applies moves itself
    try:
        cards = [c for status in DECIDED for c in await core.db.cards_by_status(status)
                 if c.conversation_id == thread.conversation_id and waiting(c)]
        if not cards:
            return []
        league = await core.espn.get_league()
    except Exception as exc:  # noqa: BLE001 - a hand-off check never stops a turn
        log.warning("hand-off check skipped: %s", type(exc).__name__)
        return []
    done: list[HandoffChange] = []
    for card in cards:
        outcomes, changes = reconcile(league, card)
        if not changes:
            continue
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
        return WriteAccess(True, credentials=Credentials(*creds), actor=actor,
                           auto_lineup=auto, dry_run=self.config.dry_run)

    def writer(self, team_id: int, access: WriteAccess) -> EspnWriter:
        """The writer acting for `team_id` with `access`'s credentials (journaled in the app
        DB; `storage.crashpoint` names the points on both sides of the POST)."""
        from storage.crashpoint import crash_point
        cfg = self.config
        return writer_for(self.core.espn, team_id=team_id, credentials=access.credentials,
                          journal=self.core.db, dry_run=access.dry_run,
                          transport=cfg.transport, write_base_url=cfg.write_base_url,
                          crash=crash_point)

    async def after_write(self) -> None:
        """Drop cached league reads so the next answer shows the change."""
        try:
            await self.core.espn.invalidate_cache()
        except Exception as exc:  # noqa: BLE001 - stale reads heal with their TTL
            log.warning("cache not invalidated after a write: %s", type(exc).__name__)

    async def set_lineups(self, access: WriteAccess, team_id: int, *, key: str,
                          days: list[date] | None = None, opt: Any = None) -> LineupWrite:
        """Write the optimal lineup of each of `days` (default: the league's today): LINEUP
        today, FUTURE_ROSTER later, each built from the slots ESPN has for that day. Stops
        at the first refusal (`error`, ESPN's reason); days already written stay written."""
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
                starters, caps = lineup_starters(opt, team_id, day)
                out.outcomes.append(await writer.set_lineup(
                    team_id, starters=starters, slot_caps=caps, scoring_period=sp,
                    current_period=current, key=f"{key}:sp{sp}", actor=access.actor))
        except EspnWriteError as exc:
            out.error = exc
        finally:
            await writer.aclose()
            if out.changed and not out.dry_run:
                await self.after_write()
        return out


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
        EspnWriteOutcomeUnknown,
        EspnWritesDisabled,
    )
    reason = exc.reason.rstrip(".")
    if isinstance(exc, EspnLineupLocked):
        return f"ESPN says: {reason}. Today's lineup is locked; later days can still be set."
    if isinstance(exc, EspnCredentialsExpired):
        return (f"ESPN refused your cookies ({reason}): link again privately with fresh "
                "`espn_s2` and `SWID`.")
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
           "check_handoffs", "failure_text", "lineup_starters", "reconcile", "waiting",
           "writes_of"]
