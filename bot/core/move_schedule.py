"""The move schedule: an approved plan's later moves are made on their own day.

When a plan card is decided, today's approved moves are made at once (the matchup optimizer
graph) and each approved move dated later comes back as a `scheduled` outcome
(`fantasy.move_card.MoveOutcome`). `MoveSchedule.schedule` stores those in the app DB
(`move_schedule`, one row per card and spot) before the card is closed; on each move's day,
before that day's first game, the scheduler's move job (`run_due`) makes it:

1. claim the row (`scheduled` -> `making`, one winner across processes);
2. check again on a fresh league read with the optimizer: it is the move's day, the player to
   drop is on the roster (a streaming chain: the earlier move that adds him was made), the
   player to add is still free and not OUT, and the move still gains over the rest of the
   schedule (`OptimizerService.weekly_plan` with the remaining moves, each on its day);
3. make it: the demo league makes it dated that day; a live league (FanVise does not write
   to ESPN yet) gets a reminder in the card's thread with the hand-off steps and the add-page
   link, and the move waits for ESPN like any hand-off (`bot.core.handoff`);
4. record the outcome, redraw the card in its message (each move: scheduled for Thu, done,
   skipped by you, not possible with the reason), mark it shown.

When the check fails the move is not made: the card says why and the owner gets a message
in the card's thread with the optimizer's best choice now; a later move of its chain is not
possible either (it would drop a player who never came).

Crash safety (the patterns of `bot.core.approvals` / `bot.core.recovery`): a row is claimed
before the move is made; a row a crash left `making` is read back (`recover`): the team's
roster on the move's day says whether it was made (applied) or not (released: the next pass
checks and makes it); a finished row whose card was not redrawn yet is redrawn then.

The demo league has its own clock: `advance` (the `/advance` command) moves its date forward
one day at a time and makes each day's due moves on that day, so the days' games count for
the roster of that day.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING, Any

from bot.core.commands import invocation, split_args
from bot.core.errors import InvalidInput
from bot.core.models import OutgoingMessage, ThreadRef, UserRef
from bot.core.render import mention
from bot.core.surface import ChatSurface
from fantasy.formatting import day_text, gain_text, season_effect_text
from fantasy.move_card import MoveCard, MoveOutcome
from fantasy.moves import Move, move_text
from fantasy.moves import PlayerRef as MovePlayer
from fantasy.optimizer.season import is_core_drop
from fantasy.schedule import EASTERN
from fantasy.week_plan import WeekMove
from storage.app_db import MAKING, SCHEDULED, CardRow, ScheduledMove
from storage.crashpoint import crash_point

if TYPE_CHECKING:
    from bot.core.service import ChatCore

log = logging.getLogger(__name__)

#: A live league's move is due from this time (US/Eastern) of its day...
MORNING = time(8, 0)
#: ...or this long before the day's first game when that is earlier.
BEFORE_FIRST_GAME = timedelta(hours=1)
#: `/advance` moves the demo's date at most this many days at once.
MAX_ADVANCE_DAYS = 60
LIVE_ONLY = ("The date only moves on the demo league: a live league follows the real "
             "calendar, and its scheduled moves come due on their day.")


@dataclass
class MadeMove:
    """What the move job did with one scheduled move (for the `/advance` reply)."""

    row: ScheduledMove
    outcome: MoveOutcome
    changed: bool = False  # not made because something changed (the owner was told)


@dataclass
class _Check:
    """The re-check of one due move: `reason` is empty when it may be made."""

    reason: str = ""
    best: str = ""  # the optimizer's best choice now (a changed situation)


def _gain_text(g: float, unit: str) -> str:
    """This matchup's effect of a move: '+12 fantasy points this week' / in words."""
    text = gain_text(g, unit)
    return text + " this week" if "point" in unit else text


def outcome_of(row: ScheduledMove) -> MoveOutcome:
    """The card outcome of a scheduled move's row (`making` still reads as scheduled)."""
    status = SCHEDULED if row.status == MAKING else row.status
    return MoveOutcome.of({
        "move_id": row.move_id, "plan_move_id": row.plan_move_id, "status": status,
        "day": row.day, "note": row.note,
        "drop": {"id": row.drop_id, "name": row.drop_name},
        "add": {"id": row.add_id, "name": row.add_name}, "line": row.line,
        "expected_gain": row.expected_gain, "gain_unit": row.gain_unit,
        "drop_to_ir": row.drop_to_ir})


def as_move(row: ScheduledMove) -> Move:
    """A scheduled move as a plan `Move` (its day, players and the gain its card gave it)."""
    return Move(move_id=row.move_id, day=date.fromisoformat(row.day),
                drop=MovePlayer(id=row.drop_id, name=row.drop_name),
                add=MovePlayer(id=row.add_id, name=row.add_name),
                gain=float(row.expected_gain or 0.0), drop_to_ir=bool(row.drop_to_ir))


def rows_for(card: CardRow, outcomes: Iterable[MoveOutcome | Mapping[str, Any]]
             ) -> list[ScheduledMove]:
    """The schedule rows of a decided card's `scheduled` outcomes, in timeline order.
    `needs`: a streaming chain, the player an earlier move of the card adds and this one
    drops (it can be made only once that move was); `drop_to_ir` from the outcome's record
    or the card's move (an OUT player moved to the IR slot, not released)."""
    moves = {str(m.get("move_id")): m for m in card.moves}
    order = {k: i for i, k in enumerate(moves)}
    raw = [dict(o) if isinstance(o, Mapping) else o.to_json() for o in outcomes]
    every = [MoveOutcome.of(r) for r in raw]
    adds = {o.add.id for o in every if o.add is not None and o.status != "skipped"}
    rows = []
    for rec, o in zip(raw, every, strict=True):
        if o.status != SCHEDULED or o.day is None or o.drop is None or o.add is None:
            continue
        key = o.plan_move_id or o.move_id
        to_ir = bool(rec.get("drop_to_ir") or (moves.get(o.move_id) or {}).get("drop_to_ir"))
        rows.append(ScheduledMove(
            card_id=card.card_id, plan_move_id=key, move_id=o.move_id,
            seq=order.get(key, order.get(o.move_id, len(order))),
            team_id=int(card.team_id or 0), day=o.day.isoformat(), drop_id=o.drop.id,
            drop_name=o.drop.name, add_id=o.add.id, add_name=o.add.name,
            needs=o.drop.id if o.drop.id in adds else None, drop_to_ir=to_ir, line=o.line,
            expected_gain=o.expected_gain, gain_unit=o.gain_unit))
    rows.sort(key=lambda r: (r.day, r.seq))
    return rows


class MoveSchedule:
    """The move schedule of decided cards (see the module docstring)."""

    def __init__(self, core: ChatCore) -> None:
        self.core = core

    # ------------------------------------------------------------------ storing

    async def schedule(self, card: CardRow, outcomes: Iterable[MoveOutcome | Mapping[str, Any]]
                       ) -> list[MoveOutcome]:
        """Store the `scheduled` outcomes of a decided card (once: a recovery finishing the
        same card keeps the rows as they are) and return the outcomes with what the
        schedule really did to each (a move already made on its day reads applied)."""
        given = list(outcomes)
        ocs = [MoveOutcome.of(dict(o)) if isinstance(o, Mapping) else o for o in given]
        rows = rows_for(card, given)
        if rows and card.team_id is None:
            log.warning("card %s has scheduled moves but no team: not scheduled", card.card_id)
            return ocs
        if rows:
            await self.core.db.schedule_moves(rows)
        stored = {r.plan_move_id: r for r in await self.core.db.scheduled_moves(card.card_id)}
        return [outcome_of(stored[o.plan_move_id or o.move_id])
                if (o.plan_move_id or o.move_id) in stored else o for o in ocs]

    async def planned(self, team_id: int) -> list[Move]:
        """The team's approved moves still to be made, from today on, by day: what every
        answer about this week counts as planned (`AgentDeps.scheduled`: the card, /lineup,
        the digest, the matchup answers). They are the team's week plan's open moves (its
        one home, `fantasy.week_plan`); a team whose decided card left no plan (its league
        could not be read then) has its schedule's rows."""
        today = self.league_day()
        plan = await self.core.db.current_week_plan(int(team_id))
        if plan is not None and plan.last_day is not None and plan.last_day >= today:
            return [m.as_move() for m in plan.open_moves() if m.day >= today]
        rows = await self.core.db.open_scheduled_moves(int(team_id),
                                                       from_day=today.isoformat())
        return [as_move(r) for r in rows]

    async def week_moves(self, team_id: int, since: date) -> list[WeekMove]:
        """The team's approved moves dated `since` or later, whatever their status: its
        stored week plan's moves when it has one, else its schedule's rows (the moves
        approved for a later day)."""
        stored = await self.core.db.current_week_plan(int(team_id))
        if stored is not None and any(m.day >= since for m in stored.moves):
            return [m for m in stored.moves if m.day >= since]
        rows = await self.core.db.open_scheduled_moves(int(team_id),
                                                       from_day=since.isoformat(), every=True)
        out = []
        for r in rows:
            oc = outcome_of(r)
            out.append(WeekMove(
                card_id=r.card_id, plan_move_id=r.plan_move_id, move_id=r.move_id,
                day=date.fromisoformat(r.day), drop=MovePlayer(id=r.drop_id, name=r.drop_name),
                add=MovePlayer(id=r.add_id, name=r.add_name), drop_to_ir=r.drop_to_ir,
                status=oc.status, note=r.note, expected_gain=r.expected_gain,
                gain_unit=r.gain_unit, in_schedule=True))
        return out

    # ------------------------------------------------------------------ the move job

    def league_day(self) -> date:
        return self.core.league_today()

    async def due_now(self, now: datetime | None = None) -> bool:
        """True when today's moves are due: the demo at once (its clock has no hours), a
        live league from MORNING or BEFORE_FIRST_GAME before the first game if earlier."""
        if self.is_demo:
            return True
        now = (now or self.core.now()).astimezone(EASTERN)
        due = datetime.combine(self.league_day(), MORNING, tzinfo=EASTERN)
        first = await self.core.prelock._first_game()  # the league day's first game
        if first is not None:
            due = min(due, first.astimezone(EASTERN) - BEFORE_FIRST_GAME)
        return now >= due

    @property
    def is_demo(self) -> bool:
        return getattr(self.core.espn, "demo", None) is not None

    async def run_due(self, surfaces: Mapping[str, ChatSurface], *,
                      now: datetime | None = None) -> list[MadeMove]:
        """Make every move due today (and any whose day passed unmade: not made blindly, the
        owner hears) on the cards of the given platforms, in day and timeline order; then
        set the lineups the teams' week plans assume from today (`bot.core.week_plan`). A
        live league's day is ESPN's current scoring period: the league is read first (a
        cached read), so a pass never works on the day of the last answer's read."""
        await self._read_league_day()
        done = await self._run_due_moves(surfaces, now=now)
        await self._lineups(now)
        return done

    async def _read_league_day(self) -> None:
        """A live league: read the league (cached) so `league_day` is ESPN's day now; a
        failed read keeps the day of the last read (the move job checks again next pass)."""
        if self.is_demo:
            return
        get_league = getattr(self.core.espn, "get_league", None)
        if get_league is None:
            return
        try:
            await get_league()
        except Exception as exc:  # noqa: BLE001 - ESPN down: the last read's day stands
            log.warning("league read before the move job failed: %s", type(exc).__name__)

    async def _lineups(self, now: datetime | None) -> None:
        """Today's lineups of the week plans, once today's moves are due (and made)."""
        plans = getattr(self.core, "week_plans", None)
        if plans is None:
            return
        today = self.league_day()
        try:
            if not await self.core.db.week_plans_through(""):
                return  # no team has a plan (nor had one this season: week_plan's rule)
            if not await self.due_now(now):
                return
            await plans.run_due(today)
        except Exception as exc:  # noqa: BLE001 - the next pass sets them
            log.warning("week plan lineups not set: %s: %s", type(exc).__name__, exc)

    async def _run_due_moves(self, surfaces: Mapping[str, ChatSurface], *,
                             now: datetime | None = None) -> list[MadeMove]:
        today = self.league_day()
        rows = await self.core.db.due_moves(today.isoformat(), orphaned_only=True)
        if not rows:
            return []
        if any(r.day == today.isoformat() for r in rows) and not await self.due_now(now):
            rows = [r for r in rows if r.day < today.isoformat()]
        done: list[MadeMove] = []
        for row in rows:
            card = await self.core.db.get_card(row.card_id)
            surface = surfaces.get(card.platform) if card is not None else None
            if card is None or surface is None:
                continue  # another process's platform: its own move job makes it
            try:
                made = await self._make(surface, card, row, today)
            except Exception as exc:  # noqa: BLE001 - one move never stops the others
                log.error("scheduled move %s of card %s failed: %s: %s", row.plan_move_id,
                          row.card_id, type(exc).__name__, exc)
                continue
            if made is not None:
                done.append(made)
        return done

    async def _make(self, surface: ChatSurface, card: CardRow, row: ScheduledMove,
                    today: date) -> MadeMove | None:
        """Claim, check, make (or remind) and record one due move; redraw its card."""
        if not await self.core.db.claim_scheduled_move(row.card_id, row.plan_move_id):
            return None  # another pass or process has it
        crash_point("schedule:claimed")
        try:
            check = await self._check(card, row, today)
        except Exception:  # noqa: BLE001 - nothing was made: the next pass checks again
            await self.core.db.release_scheduled_move(row.card_id, row.plan_move_id)
            raise
        if check.reason:
            await self._not_made(card, row, check.reason)
            crash_point("schedule:finished")
            await self._tell_changed(surface, card, row, check)
            await self.redraw(surface, card.card_id)
            fresh = (await self.core.db.scheduled_moves(card.card_id))
            mine = next(r for r in fresh if r.plan_move_id == row.plan_move_id)
            return MadeMove(mine, outcome_of(mine), changed=True)
        status, note, handed_off = await self._make_through_espn(card, row)
        crash_point("schedule:made")
        await self.core.db.finish_scheduled_move(row.card_id, row.plan_move_id, status=status,
                                                 note=note)
        crash_point("schedule:finished")
        await self._audit(card, row, status)
        if status == "not_possible":
            await self._cascade(card, row)
        if status == "waiting" and handed_off:
            await self._remind(surface, card, row)
        await self.redraw(surface, card.card_id)
        fresh = await self.core.db.scheduled_moves(card.card_id)
        mine = next(r for r in fresh if r.plan_move_id == row.plan_move_id)
        return MadeMove(mine, self._with_handoff(outcome_of(mine)))

    async def _make_through_espn(self, card: CardRow, row: ScheduledMove
                                 ) -> tuple[str, str, bool]:
        """Make the move through ESPN's transaction endpoint (`bot.core.handoff`): the demo
        league's, or ESPN's for an owner who turned writes on with their own cookies; once
        per card and move, also after a crash (the write's key). (status, note, handed off):
        a live owner without writes gets the hand-off (a reminder with the steps)."""
        from bot.core.handoff import writes_of
        writes = writes_of(self.core)
        team = int(card.team_id or 0)
        access = await writes.card_access(card)
        when = day_text(date.fromisoformat(row.day))
        if not access.allowed:
            return "waiting", f"due {when}", True
        res = await writes.make_move(access, team, add_id=row.add_id, add_name=row.add_name,
                                     drop_id=row.drop_id, drop_name=row.drop_name,
                                     key=f"card:{card.card_id}:{row.move_id}",
                                     drop_to_ir=row.drop_to_ir)
        if res["status"] == "applied":
            return "applied", f"made {when}", False
        if res["status"] == "waiting":
            return "waiting", " ".join(res.get("steps") or [res.get("note", "")]), False
        return "not_possible", str(res.get("note") or "ESPN refused it"), False

    async def _not_made(self, card: CardRow, row: ScheduledMove, reason: str) -> None:
        await self.core.db.finish_scheduled_move(row.card_id, row.plan_move_id,
                                                 status="not_possible", note=reason)
        await self._audit(card, row, "not_possible")
        await self._cascade(card, row)

    async def _audit(self, card: CardRow, row: ScheduledMove, status: str) -> None:
        """The audit row of a scheduled move made (or not) on its day, for who decided."""
        await self.core.db.audit(
            card_id=card.card_id, run_thread_id=card.run_thread_id, platform=card.platform,
            user_id=card.decided_by or card.requester_id,
            user_name=card.decided_by_name or card.requester_name, decision="approve",
            result=f"scheduled:{status}", move_id=row.move_id,
            move_label=move_text(row.drop_name, row.add_name, capital=True))

    async def _cascade(self, card: CardRow, row: ScheduledMove) -> None:
        """Later moves of the card that drop the player this move was to add cannot be made."""
        for later in await self.core.db.scheduled_moves(card.card_id):
            if later.status == SCHEDULED and later.needs == row.add_id and later.seq > row.seq:
                if await self.core.db.claim_scheduled_move(later.card_id, later.plan_move_id):
                    await self._not_made(card, later, f"{row.add_name} was not added: the "
                                                      "move that adds him was not made")

    # ------------------------------------------------------------------ the check

    async def _check(self, card: CardRow, row: ScheduledMove, today: date) -> _Check:
        """Why the move must not be made now ("" when it may), from a fresh league read
        (raises when the league cannot be read: never made blindly, checked again later)."""
        day = date.fromisoformat(row.day)
        team_id = int(card.team_id or 0)
        if day < today:
            return await self._changed(team_id, row, f"its day ({day_text(day)}) passed "
                                                     "before it could be made")
        svc = await self._optimizer(team_id, row.add_id)  # EspnError: checked next pass
        league = svc.league
        team = league.team(team_id)
        roster = {e.player.id for e in team.roster}
        if row.drop_id not in roster:
            why = (f"{row.drop_name} is not on your roster: the move that adds him was not "
                   "made" if row.needs is not None else
                   f"{row.drop_name} is no longer on your roster")
            return await self._changed(team_id, row, why, svc=svc)
        owner = league.team_of_player(row.add_id)
        if owner is not None:
            why = (f"{row.add_name} is already on your roster" if owner.id == team_id
                   else f"{row.add_name} was claimed by {owner.name}")
            return await self._changed(team_id, row, why, svc=svc)
        fa = {p.id: p for p in svc.free_agents}
        add = fa.get(row.add_id)
        if add is None:
            return await self._changed(team_id, row, f"{row.add_name} is no longer available",
                                       svc=svc)
        from fantasy.constants import OUT_STATUSES
        if add.injury_status in OUT_STATUSES:
            return await self._changed(team_id, row, f"{row.add_name} is "
                                       f"{add.injury_status.replace('_', ' ')} now", svc=svc)
        core = svc.core_players(team_id)
        drop = next((e.player for e in team.roster if e.player.id == row.drop_id), None)
        per_game = svc.value_per_game([p for p in (drop, add) if p is not None])
        if is_core_drop(row.drop_id, row.add_id, to_ir=row.drop_to_ir, core=core,
                        per_game=per_game):
            why = core[row.drop_id].removeprefix("core: ")
            return await self._changed(team_id, row, f"{row.drop_name} has become one of your "
                                       f"core players: {why}", svc=svc)
        gain = await self._gain(svc, card, row)
        planned = float(row.expected_gain or 0.0)  # 0: made for the rest of the season
        if gain is not None and gain <= 1e-9 < planned:
            return await self._changed(team_id, row, "it no longer gains: "
                                       f"{_gain_text(gain, row.gain_unit)} with the latest "
                                       "projections", svc=svc)
        return _Check()

    async def _optimizer(self, team_id: int, add_id: int) -> Any:
        """A fresh optimizer of the league (its free agents include `add_id` when free)."""
        from agents.shared.deps import AgentDeps, optimizer_for

        deps = AgentDeps.for_client(self.core.espn, model=None,  # type: ignore[arg-type]
                                    my_team_id=team_id)
        svc = await optimizer_for(deps, refresh=True)
        if all(p.id != add_id for p in svc.free_agents):
            svc = await optimizer_for(deps, refresh=True, fa_size=400)
        return svc

    async def _gain(self, svc: Any, card: CardRow, row: ScheduledMove) -> float | None:
        """What the move adds to the rest of the schedule (its card's moves still to make,
        each on its day): the plan with it against the plan without it and the moves that
        need it. None when the schedule cannot be valued (then the move is made)."""
        team_id = int(card.team_id or 0)
        rest = [r for r in await self.core.db.scheduled_moves(card.card_id)
                if r.status in (SCHEDULED, MAKING) and (r.day, r.seq) >= (row.day, row.seq)]
        rest = _feasible(rest, svc, team_id)
        if all(r.plan_move_id != row.plan_move_id for r in rest):
            return None
        drop_out = {row.plan_move_id}
        for r in rest:  # a chain hanging on this move goes with it
            if r.needs is not None and any(x.add_id == r.needs and x.plan_move_id in drop_out
                                           for x in rest):
                drop_out.add(r.plan_move_id)
        dated = [(r.drop_id, r.add_id, date.fromisoformat(r.day)) for r in rest]
        without = [(r.drop_id, r.add_id, date.fromisoformat(r.day)) for r in rest
                   if r.plan_move_id not in drop_out]
        try:
            with_it = svc.weekly_plan(team_id, moves=dated)
            base = svc.weekly_plan(team_id, moves=without)
        except ValueError as exc:
            log.info("schedule of card %s not valued: %s", card.card_id, exc)
            return None
        return _value(with_it) - _value(base)

    async def _changed(self, team_id: int, row: ScheduledMove, reason: str, *,
                       svc: Any = None) -> _Check:
        """A changed situation: the reason, and the optimizer's best choice now."""
        best = ""
        try:
            if svc is None:
                svc = await self._optimizer(team_id, row.add_id)
            taken = {r.add_id for r in await self.core.db.scheduled_moves(row.card_id)
                     if r.status == SCHEDULED}  # players the schedule still adds
            best = _best_choice(svc, team_id, row, taken)
        except Exception as exc:  # noqa: BLE001 - the reason alone still goes out
            log.warning("no best choice for a changed move: %s", type(exc).__name__)
        return _Check(reason=reason, best=best)

    # ------------------------------------------------------------------ messages

    async def _tell_changed(self, surface: ChatSurface, card: CardRow, row: ScheduledMove,
                            check: _Check) -> None:
        """The owner's message in the card's thread: not made, why, the best choice now."""
        day = date.fromisoformat(row.day)
        who = mention(card.platform, card.requester_id, card.requester_name)
        what = move_text(row.drop_name, row.add_name, to_ir=row.drop_to_ir)
        text = (f"{who}, {day:%a}'s move was not made: "
                f"{what}. {check.reason[:1].upper()}{check.reason[1:]}.")
        if check.best:
            text += f"\n{check.best}"
        await self._post(surface, card, OutgoingMessage(
            text, mentions=(card.requester_id,) if who.startswith("<@") else ()))

    async def _remind(self, surface: ChatSurface, card: CardRow, row: ScheduledMove) -> None:
        """A live league: today is the move's day; the owner makes it on ESPN."""
        oc = self._with_handoff(outcome_of(row))
        who = mention(card.platform, card.requester_id, card.requester_name)
        what = move_text(row.drop_name, row.add_name, to_ir=row.drop_to_ir)
        lines = [f"{who}, today ({day_text(date.fromisoformat(row.day))}) is the day for "
                 f"this move: {what}. FanVise cannot make it on ESPN for you; before the "
                 "first game:"]
        lines += [f"{k}. {s}" for k, s in enumerate(oc.steps, start=1)]
        if oc.espn_link:
            lines.append(oc.espn_link)
        needs = await self._lineup_needs(card, date.fromisoformat(row.day))
        if needs:
            lines.append(f"Then set today's lineup as your plan assumes: {needs}.")
        await self._post(surface, card, OutgoingMessage(
            "\n".join(lines), mentions=(card.requester_id,) if who.startswith("<@") else ()))

    async def _lineup_needs(self, card: CardRow, day: date) -> str:
        """The lineup changes the team's week plan needs on `day` when FanVise does not set
        its lineups ("" when it does, or there is no plan)."""
        if card.team_id is None:
            return ""
        try:
            plan = await self.core.db.current_week_plan(int(card.team_id))
        except Exception as exc:  # noqa: BLE001 - the move's reminder goes out anyway
            log.warning("no week plan for the reminder: %s", type(exc).__name__)
            return ""
        if plan is None or plan.writes:
            return ""
        return plan.needs_text(day)

    async def _post(self, surface: ChatSurface, card: CardRow, msg: OutgoingMessage) -> None:
        from bot.core.approvals import card_thread
        from bot.core.progress import post_retrying

        await post_retrying(surface, card_thread(card), msg, sleep=self.core.sleep)

    def _with_handoff(self, oc: MoveOutcome) -> MoveOutcome:
        """A waiting (live) outcome with the hand-off steps and the add-page link."""
        if oc.status != "waiting" or oc.drop is None or oc.add is None:
            return oc
        if not oc.note.startswith("due "):  # made through ESPN: a claim put in, a dry run
            return oc.model_copy(update={"steps": [oc.note]})
        from agents.matchup_optimizer.graph import ESPN_PLAYER_ADD_URL, handoff_steps

        link = ESPN_PLAYER_ADD_URL.format(league_id=self.core.league_id, player_id=oc.add.id)
        when = f" on {day_text(oc.day)}" if oc.day else ""
        steps = handoff_steps(oc.drop.name, oc.add.name, when, to_ir=oc.drop_to_ir)
        return oc.model_copy(update={"espn_link": link, "steps": steps})

    # ------------------------------------------------------------------ the card

    async def redraw(self, surface: ChatSurface | None, card_id: str) -> None:
        """Put the schedule's state of each move into the card's outcomes and redraw the
        card in its message (then mark it shown)."""
        card = await self.core.db.get_card(card_id)
        if card is None:
            return
        rows = await self.core.db.scheduled_moves(card_id)
        outcomes = {k: dict(v) for k, v in ((card.result or {}).get("outcomes") or {}).items()}
        for r in rows:
            oc = self._with_handoff(outcome_of(r)).to_json()
            key = next((k for k, v in outcomes.items()
                        if k in (r.move_id, r.plan_move_id)
                        or v.get("plan_move_id") == r.plan_move_id), r.move_id)
            outcomes[key] = {**outcomes.get(key, {}), **oc}
        status = MoveCard.from_moves(card.moves, decisions=card.decisions,
                                     outcomes=outcomes).status()
        await self.core.db.finish_card(card_id, status=status,
                                       result={**(card.result or {}), "outcomes": outcomes})
        if surface is not None:
            fresh = await self.core.db.get_card(card_id) or card
            try:
                await self.core.approvals.edit_card(surface, fresh)
            except Exception as exc:  # noqa: BLE001 - the row stays unshown: redrawn later
                log.warning("could not redraw card %s: %s", card_id, type(exc).__name__)
                return
            await self.core.db.mark_card_shown(card_id)
            await self.core.db.mark_schedule_shown(card_id)

    # ------------------------------------------------------------------ recovery

    async def recover(self, surfaces: Mapping[str, ChatSurface], *,
                      takeover: bool = False) -> int:
        """After a restart: each move a crash left `making` is read back (the team's roster
        on its day: made -> applied; not made -> back to scheduled), each card whose message
        does not show its moves' state is redrawn, and the moves due now are made.
        `takeover`: only the rows of another instance that died (the periodic pass of a
        live Postgres process). Returns the number of moves read back."""
        n = 0
        orphans = {"takeover": True} if takeover else {"orphaned_only": True}
        for row in await self.core.db.scheduled_moves_in(MAKING, **orphans):
            card = await self.core.db.get_card(row.card_id)
            if card is None:
                continue
            made = await self._made_on_day(card, row)
            if made is None:
                continue  # cannot tell: left claimed, never made blindly
            if made:  # its write, if journaled unsettled, is read back (never resent)
                await self._settle_write(card, row)
                await self.core.db.finish_scheduled_move(
                    row.card_id, row.plan_move_id, status="applied",
                    note=f"made {day_text(date.fromisoformat(row.day))}")
            else:
                await self.core.db.release_scheduled_move(row.card_id, row.plan_move_id)
            n += 1
        for card_id in await self.core.db.unshown_schedule_cards():
            card = await self.core.db.get_card(card_id)
            if card is not None:
                await self.redraw(surfaces.get(card.platform), card_id)
        await self.run_due(surfaces)  # a released move of today: checked and made now
        return n

    async def _settle_write(self, card: CardRow, row: ScheduledMove) -> None:
        from bot.core.handoff import writes_of
        writes = writes_of(self.core)
        team = int(card.team_id or 0)
        access = await writes.card_access(card)
        if not access.allowed:
            return
        try:
            await writes.settle_move(access, team, f"card:{card.card_id}:{row.move_id}")
        except Exception as exc:  # noqa: BLE001 - the roster shows it made; the row stays
            log.warning("scheduled move's write not settled: %s", type(exc).__name__)

    async def _made_on_day(self, card: CardRow, row: ScheduledMove) -> bool | None:
        """Was the move made? The team's roster on the move's day: the dropped player gone
        and the added one there (a later move of a chain does not hide it). None when the
        league cannot tell (a live league's roster is read on the next league read)."""
        demo = getattr(self.core.espn, "demo", None)
        if demo is None:
            return False  # a live league's move is a reminder: posting it again is harmless
        return demo.move_made(int(card.team_id or 0), date.fromisoformat(row.day),
                              row.drop_id, row.add_id, to_ir=row.drop_to_ir)

    # ------------------------------------------------------------------ the demo's date

    async def advance(self, target: date, surfaces: Mapping[str, ChatSurface]
                      ) -> list[MadeMove]:
        """Move the demo's date forward to `target` one day at a time, making each day's due
        moves on that day (InvalidInput: not the demo, backward, past the season)."""
        from fantasy.demo import DemoError

        demo = getattr(self.core.espn, "demo", None)
        if demo is None:
            raise InvalidInput(LIVE_ONLY)
        if target <= demo.today:
            raise InvalidInput(f"The demo's date only moves forward: today is "
                               f"{day_text(demo.today)}.")
        if target > demo.last_day:
            raise InvalidInput(f"The demo season ends {day_text(demo.last_day)}: pick a day "
                               "up to then.")
        made: list[MadeMove] = []
        made += await self.run_due(surfaces)  # anything due today that a crash left
        day = demo.today
        while day < target:
            day += timedelta(days=1)
            try:
                demo.advance_to(day)
            except DemoError as exc:
                raise InvalidInput(f"The demo's date could not move: {exc}.") from None
            made += await self.run_due(surfaces)
            await self.core.league_life.run_due(surfaces)  # the league posts of that day
        return made

    async def cmd_advance(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                          args: dict[str, Any]) -> None:
        """`/advance [days|date]`: move the demo's date (default one day) and make the
        scheduled moves of the days passed, each on its day."""
        demo = getattr(self.core.espn, "demo", None)
        if demo is None:
            raise InvalidInput(LIVE_ONLY)
        before = demo.today
        target = parse_target(" ".join(split_args(args)[1]) or str(args.get("days") or ""),
                              before, thread.platform)
        made = await self.advance(target, {thread.platform: surface})
        # claims put in earlier processed on the days passed: their cards say what waivers did
        from bot.core.handoff import check_handoffs
        await check_handoffs(self.core, surface, workspace=(thread.platform,
                                                            thread.workspace_id))
        lines = [f"Demo date: {day_text(demo.today)} (was {day_text(before)})."]
        for m in made:
            what = move_text(m.row.drop_name, m.row.add_name, to_ir=m.row.drop_to_ir)
            day = date.fromisoformat(m.row.day)
            if m.outcome.status == "applied":
                lines.append(f"{day:%a}: made: {what}.")
            else:
                lines.append(f"{day:%a}: not made: {what}: {m.outcome.note}.")
        if not made:
            lines.append("No scheduled move was due.")
        team_id = await self.core.link.team_for(user, thread.platform)
        if team_id is not None:
            lines += await self.lineup_lines(int(team_id), before, demo.today,
                                             platform=thread.platform)
        if getattr(surface, "start_thread", None) is not None:  # Discord: a command thread
            thread = await self.core.turns.ensure_thread(
                surface, thread, user, f"/advance {target}", f"Demo date · {day_text(target)}")
        await self.core.turns.post_split(surface, thread, OutgoingMessage("\n".join(lines)))


    async def lineup_lines(self, team_id: int, after: date, through: date, *,
                           platform: str = "console") -> list[str]:
        """What the team's week plans did to the lineups of the days after `after` through
        `through` (`/advance`): the days FanVise set, those left to the member, those ESPN
        refused (with its reason). [] when no plan covers those days."""
        set_days: list[date] = []
        member: list[date] = []
        refused: list[str] = []
        for plan in await self.core.db.week_plans_through((after + timedelta(days=1))
                                                          .isoformat()):
            if plan.team_id != team_id:
                continue
            for lu in plan.lineups:
                if not after < lu.day <= through:
                    continue
                if lu.status == "set":
                    set_days.append(lu.day)
                elif lu.status == "member":
                    member.append(lu.day)
                elif lu.status == "not_set":
                    refused.append(f"{lu.day:%a} ({lu.note or 'refused'})")
        out = []
        if set_days:
            out.append("Lineups set from your week plan: "
                       + ", ".join(f"{d:%a}" for d in sorted(set_days)) + ".")
        if member:
            from bot.core.commands import invocation
            out.append(f"Lineups for you to set (your week plan's starters; "
                       f"{invocation('lineup', '', platform)} shows them): "
                       + ", ".join(f"{d:%a}" for d in sorted(member)) + ".")
        if refused:
            out.append("Lineups not set: " + "; ".join(refused) + ".")
        return out


def parse_target(raw: str, today: date, platform: str = "discord") -> date:
    """The day `/advance` moves to: nothing = tomorrow, a number of days ("3", "2 days"), a
    date or a day word ("sunday", "2023-01-29"). InvalidInput (with the ways to write it) otherwise."""
    raw = (raw or "").strip().lower()
    if not raw:
        return today + timedelta(days=1)
    count = re.fullmatch(r"\+?(\d+)\s*(?:d|days?)?", raw)
    if count:
        n = int(count.group(1))
        if not 1 <= n <= MAX_ADVANCE_DAYS:
            raise InvalidInput(f"Advance by 1 to {MAX_ADVANCE_DAYS} days.")
        return today + timedelta(days=n)
    from agents.understanding.entities import extract_day

    ref = extract_day(raw, today)
    if ref is not None and ref.date is not None:
        return date.fromisoformat(ref.date)
    ways = [f"`{invocation('advance', a, platform)}`" for a in ("", "3", "sunday", "2023-01-29")]
    raise InvalidInput(f"Use {', '.join(ways[:-1])} or {ways[-1]}.")


def _value(res: Any) -> float:
    v = res.total_points if res.total_points is not None else res.expected_categories_won
    return float(v or 0.0)


def _feasible(rows: list[ScheduledMove], svc: Any, team_id: int) -> list[ScheduledMove]:
    """The rows the league can still value in order: each add a free agent, each drop on
    the roster or added by a kept earlier row."""
    fa = {p.id for p in svc.free_agents}
    roster = {e.player.id for e in svc.league.team(team_id).roster}
    kept: list[ScheduledMove] = []
    for r in rows:
        if r.add_id in fa and (r.drop_id in roster or any(k.add_id == r.drop_id for k in kept)):
            kept.append(r)
    return kept


def _best_choice(svc: Any, team_id: int, row: ScheduledMove, taken: set[int]) -> str:
    """The optimizer's best choice now for a move that cannot be made: for the same drop
    while he is still on the roster, the best free agent the schedule does not already add
    (`taken`), judged on this matchup plus the rest of the season as a card for "drop X for
    Y" would be; else the first move of a new plan."""
    roster = {e.player.id for e in svc.league.team(team_id).roster}
    if row.drop_id in roster:
        scan = svc.scan_moves(team_id, top=8, drops=[row.drop_id])
        for m in scan.moves:
            if m.add.id in taken:
                continue
            ev = svc.evaluate_move(team_id, row.drop_id, m.add.id, drop_name=row.drop_name,
                                   add_name=m.add.name)
            if ev.verdict != "gain":
                continue
            effects = [_gain_text(float(ev.expected_gain or 0.0), row.gain_unit)]
            if abs(ev.season_effect) >= 0.05:
                effects.append(season_effect_text(ev.season_effect, row.gain_unit))
            return (f"Best choice now: {move_text(row.drop_name, m.add.name)} "
                    f"({', '.join(effects)}). Say \"drop {row.drop_name} for {m.add.name}\" "
                    "to get a card for it.")
        return (f"Best choice now: keep {row.drop_name}: no free agent is worth more for the "
                "rest of the matchup and the season.")
    plan = svc.move_plan(team_id, exclude_adds=sorted(taken))
    if plan.moves:
        return (f"Best choice now: {plan.move_line(plan.moves[0])}. Ask \"review my "
                "matchup\" for a new plan card.")
    return "Best choice now: no move: none improves your lineups for the rest of the matchup."


__all__ = ["MadeMove", "MoveSchedule", "outcome_of", "parse_target", "rows_for"]
