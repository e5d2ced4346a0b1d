"""Carrying out a team's week plan (`fantasy.week_plan.WeekPlan`): built when a card is
decided, stored, and its lineups set day by day.

- `WeekPlans.record(card, outcomes)`: when a card of moves is decided (bot.core.approvals),
  the team's week plan for the matchup is built from the decided moves (made now, scheduled
  for later, handed off) and the team's earlier plan of the matchup (a re-plan updates the
  one plan: `WeekPlan.replan`), with the lineup of each remaining day those moves lead to
  (`OptimizerService.weekly_plan` with the moves still to make, each on its day), and stored
  (`AppDB.put_week_plan`). Approving the moves approves those lineups: FanVise then sets
  the lineups it can set now.
- `WeekPlans.set_lineups(plan, today)`: the lineups of today and each later day before the
  next move still to make (LINEUP today, FUTURE_ROSTER later), through the one writer
  (`bot.core.handoff.EspnWrites.set_lineups`), when FanVise may write for the member who
  approved (the demo always). Each day's lineup is the plan's when the roster that day is
  the one the plan assumed; otherwise (a move not made, a player gone) the day is solved
  again with the exact daily lineup. Where FanVise may not write, the days are marked
  "member" and `WeekPlan.needs_text` says what to start on which day (the card and the move
  reminders show it).
- `WeekPlans.run_due(today)`: the scheduler's pass (bot.core.move_schedule runs it after each
  day's moves, `/advance` included): each plan with a lineup of today not set yet gets it
  set, and the days after it up to its next move.
- `WeekPlans.keep(...)`: a plan request whose answer is "no roster move improves your team"
  still makes the team's week plan: no moves, the best lineup of each remaining day, set
  like any plan's (`keep_text` says so in the answer).
- The season rule: a team whose member has a week plan FanVise carries out (writes on, the
  demo always) keeps getting its best lineup set on every later day no plan covers: the
  daily pass makes that matchup's plan without moves (`run_due`), so the players added in
  earlier weeks never sit on the bench because nobody asked this week.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import date
from typing import TYPE_CHECKING, Any, Literal

from fantasy.move_card import MoveOutcome
from fantasy.moves import PlayerRef
from fantasy.week_plan import DayLineup, LineupSlot, WeekMove, WeekPlan
from storage.app_db import CardRow

if TYPE_CHECKING:
    from bot.core.service import ChatCore

log = logging.getLogger(__name__)

#: The outcomes of a decided card that are part of the week plan (made, on their way, or
#: refused: the plan says what happened); skipped moves are not.
_IN_PLAN = ("applied", "waiting", "scheduled", "not_possible")


def week_moves(card: CardRow, outcomes: Iterable[MoveOutcome]) -> list[WeekMove]:
    """The week plan's moves of a decided card, from its outcomes (each with the card move's
    day, IR flag and gain when the outcome lacks them)."""
    by_id = {str(m.get("move_id")): m for m in card.moves}
    out = []
    for o in outcomes:
        if o.status not in _IN_PLAN or o.drop is None or o.add is None:
            continue
        m = by_id.get(o.move_id) or by_id.get(o.plan_move_id) or {}
        day = o.day or (date.fromisoformat(str(m["day"])) if m.get("day") else None)
        if day is None:
            continue
        gain = o.expected_gain if o.expected_gain is not None else m.get("expected_gain")
        out.append(WeekMove(
            card_id=card.card_id, plan_move_id=o.plan_move_id or o.move_id, move_id=o.move_id,
            day=day, drop=PlayerRef(id=o.drop.id, name=o.drop.name),
            add=PlayerRef(id=o.add.id, name=o.add.name),
            drop_to_ir=bool(o.drop_to_ir or m.get("drop_to_ir")), status=o.status,
            note=o.note, expected_gain=float(gain) if gain is not None else None,
            gain_unit=o.gain_unit or str(m.get("gain_unit") or ""),
            in_schedule=o.status == "scheduled"))
    return out


def fill_slots(starters: dict[int, int], active: Iterable[Any], layout: Any
               ) -> dict[int, int]:
    """`starters` ({player id: slot id}) with every starting slot they leave empty taken
    by an eligible player of the active roster who does not start (he has no game that
    day, so the total is the same): no slot stays empty after a move to IR or a drop."""
    out = dict(starters)
    room = {sid: cap - sum(1 for s in out.values() if s == sid)
            for sid, cap in zip(layout.slot_ids, layout.caps, strict=True)}
    from fantasy.constants import OUT_STATUSES
    for p in sorted(active, key=lambda p: p.injury_status in OUT_STATUSES):
        if p.id in out:
            continue
        slot = next((sid for sid in layout.slot_ids
                     if room.get(sid, 0) > 0 and sid in p.eligible_slots), None)
        if slot is not None:
            out[p.id] = slot
            room[slot] -= 1
    return out


class WeekPlans:
    """The week plans of one ChatCore's teams (module docstring)."""

    def __init__(self, core: ChatCore) -> None:
        self.core = core

    # ------------------------------------------------------------------ building

    async def _optimizer(self, team_id: int, adds: Iterable[int]) -> Any:
        """A fresh optimizer of the league whose free agents include `adds` when free."""
        from agents.shared.deps import AgentDeps, optimizer_for

        deps = AgentDeps.for_client(self.core.espn, model=None,  # type: ignore[arg-type]
                                    my_team_id=team_id)
        svc = await optimizer_for(deps, refresh=True)
        fa = {p.id for p in svc.free_agents}
        if any(a not in fa for a in adds):
            svc = await optimizer_for(deps, refresh=True, fa_size=400)
        return svc

    async def _writes(self, platform: str, workspace_id: str, member: str,
                      team_id: int) -> Any:
        from bot.core.handoff import writes_of
        return await writes_of(self.core).access(platform, workspace_id, member, team_id)

    def lineups(self, svc: Any, team_id: int, moves: list[WeekMove], today: date
                ) -> tuple[list[DayLineup], float]:
        """The lineup of each remaining day under the plan's moves not yet on the roster
        (scheduled ones from their day on; a handed-off move of today from today) and the
        plan's total, from a fresh league read (moves made are in the roster). Raises
        ValueError when a move cannot be valued (its added player is no longer free, its
        dropped one gone)."""
        from fantasy.constants import SLOT_IR
        team = svc.league.team(team_id)
        rostered = {e.player.id for e in team.roster}
        active = {e.player.id for e in team.roster if e.lineup_slot_id != SLOT_IR}
        pending = [m for m in moves if (m.open and m.day >= today) or
                   (m.status == "waiting" and m.add.id not in rostered)]
        res = svc.weekly_plan(team_id, moves=[(m.drop.id, m.add.id, max(m.day, today))
                                              for m in pending])
        out = []
        for d in res.days:
            roster = set(active)
            for m in sorted(pending, key=lambda m: m.day):
                if max(m.day, today) <= d.date:
                    roster.discard(m.drop.id)
                    roster.add(m.add.id)
            out.append(DayLineup(
                day=d.date, scoring_period=svc.schedule.scoring_period_for(d.date),
                starters=[LineupSlot(player=PlayerRef(id=s.player_id, name=s.name),
                                     slot_id=s.slot_id, value=float(s.value))
                          for s in d.starters],
                value=float(d.value), roster=sorted(roster)))
        total = res.total_points if res.total_points is not None else \
            float(res.expected_categories_won or 0.0)
        return out, float(total)

    async def record(self, card: CardRow, outcomes: Iterable[MoveOutcome]) -> WeekPlan | None:
        """Build, store and start carrying out the team's week plan after a card of moves
        was decided (module docstring). None when the card has no team or no move in the
        plan and the team has no plan of the matchup yet. Never raises for a league read or
        a write (the card's outcome stands; the scheduler sets the lineups later)."""
        if card.team_id is None or self.core.espn is None:
            return None
        team_id = int(card.team_id)
        new_moves = week_moves(card, outcomes)
        try:
            return await self._record(card, team_id, new_moves)
        except Exception as exc:  # noqa: BLE001 - the decided card stands without a plan
            log.warning("week plan of card %s not recorded: %s: %s", card.card_id,
                        type(exc).__name__, exc)
            return None

    async def _record(self, card: CardRow, team_id: int, new_moves: list[WeekMove]
                      ) -> WeekPlan | None:
        today = self.core.league_today()
        svc = await self._optimizer(team_id, [m.add.id for m in new_moves if m.open])
        period = int(svc.league.current_matchup_period)
        before = await self.core.db.current_week_plan(team_id, period)
        if not new_moves and before is None:
            return None
        kept = [m for m in (before.moves if before is not None else [])
                if m.card_id != card.card_id and m.counts]
        moves = sorted([*kept, *new_moves], key=lambda m: m.day)
        try:
            lineups, total = self.lineups(svc, team_id, moves, today)
        except ValueError as exc:  # a kept move can no longer be made: valued without it
            log.info("week plan of team %s: %s", team_id, exc)
            lineups, total = self.lineups(svc, team_id, [m for m in moves if not m.open],
                                          today)
        member = card.decided_by or card.requester_id
        access = await self._writes(card.platform, card.workspace_id, member, team_id)
        scoring: Literal["points", "categories"] = "points" if svc.is_points else "categories"
        unit = "fantasy points" if svc.is_points else "expected categories won"
        approved = sum(float(m.expected_gain or 0.0) for m in new_moves if m.counts)
        focus: list[str] = []
        if card.plan:  # what the card promised: its plan's totals, for the approved moves
            from fantasy.moves import Plan
            card_plan = Plan.model_validate(card.plan)
            baseline = card_plan.base_value
            scoring, unit, focus = card_plan.scoring, card_plan.unit, \
                list(card_plan.focus_categories)
        else:  # a card of ranked moves: the week's lineups less what its moves add
            baseline = total - approved
        new = WeekPlan.build(
            team_id=team_id, matchup_period=period, scoring=scoring, unit=unit,
            planned_on=today, card_id=card.card_id, moves=new_moves, lineups=lineups,
            projected_total=baseline + approved, baseline_total=baseline,
            writes=bool(access.allowed and not access.dry_run), platform=card.platform,
            workspace_id=card.workspace_id, member_id=member, focus_categories=focus)
        plan = before.replan(new) if before is not None else new
        await self.core.db.put_week_plan(plan)
        return await self.set_lineups(plan, today, svc=svc, access=access)

    # ------------------------------------------------------------------ lineups

    async def set_lineups(self, plan: WeekPlan, today: date, *, svc: Any = None,
                          access: Any = None) -> WeekPlan:
        """Set the plan's lineups of today and the later days before its next move still
        to make (module docstring); store and return the plan with each day's status."""
        days = plan.lineup_days(today)
        if not days:
            return plan
        if access is None:
            access = await self._writes(plan.platform, plan.workspace_id, plan.member_id,
                                        plan.team_id)
        if svc is None:
            svc = await self._optimizer(plan.team_id, ())
        from fantasy.constants import SLOT_IR
        team = svc.league.team(plan.team_id)
        if not access.allowed or access.dry_run:
            slots = {e.player.id: e.lineup_slot_id for e in team.roster}
            for d in days:
                plan = plan.with_lineup_status(d, "member", plan.needs_text(
                    d, slots if d == today else None))
            if plan.planned_on == today:  # the card: the starts of the players it adds
                added = plan.added_ids()
                text = plan.changes_text(slots, only=added)
                if text and any(n.player.id not in added for n in plan.lineup_changes(slots)):
                    from bot.core.commands import invocation
                    text += ("; and each day's best lineup ("
                             f"{invocation('lineup', '', plan.platform or 'discord')} shows it)")
                plan = plan.model_copy(update={"member_lineups": text})
            plan = plan.model_copy(update={"writes": False})
            await self.core.db.put_week_plan(plan)
            return plan
        active = {e.player.id for e in team.roster if e.lineup_slot_id != SLOT_IR}
        # the roster of each day before the next move is today's: the plan's lineup when it
        # is the roster the plan assumed, else the day is solved again (the default)
        from bot.core.handoff import lineup_starters
        planned = {}
        for d in days:
            lu = plan.lineup_on(d)
            starters = lu.assignment() if lu is not None and lu.matches(active) else \
                lineup_starters(svc, plan.team_id, d)[0]
            planned[d] = fill_slots(starters, [e.player for e in team.roster
                                               if e.player.id in active], svc.layout)
        from bot.core.handoff import failure_text, writes_of
        todo = list(days)
        while todo:
            res = await writes_of(self.core).set_lineups(
                access, plan.team_id, key=f"weekplan:{plan.team_id}:{plan.write_key}",
                days=todo, opt=svc, planned=planned)
            for d in res.days[:len(res.outcomes)]:
                plan = plan.with_lineup_status(d, "set")
            todo = todo[len(res.outcomes):]
            if res.error is None or not todo:
                break
            plan = plan.with_lineup_status(todo[0], "not_set", failure_text(res.error))
            if todo[0] != today:
                for d in todo[1:]:  # the refusal stands for the later days too
                    plan = plan.with_lineup_status(d, "not_set", failure_text(res.error))
                break
            # today's lineup refused (its games started: locked): the later days, a
            # FUTURE_ROSTER each, can still be set
            todo = todo[1:]
        await self.core.db.put_week_plan(plan)
        return plan

    # ------------------------------------------------------------------ no move

    async def keep(self, platform: str, workspace_id: str, member: str, team_id: int
                   ) -> WeekPlan | None:
        """The team's week plan after a plan request drew no move ("No roster move improves
        your team..."): the matchup's plan when it has approved moves (it stands; its lineups
        go on being set), else a plan without moves whose lineups are the best of each
        remaining day, stored and set now where FanVise writes for `member`. None when the
        league cannot be read (the answer stands without a plan)."""
        if self.core.espn is None:
            return None
        try:
            today = self.core.league_today()
            svc = await self._optimizer(int(team_id), ())
            period = int(svc.league.current_matchup_period)
            before = await self.core.db.current_week_plan(int(team_id), period)
            if before is not None and before.card_ids:
                return before
            access = await self._writes(platform, workspace_id, member, int(team_id))
            return await self._keep(svc, int(team_id), today, period, access,
                                    platform=platform, workspace_id=workspace_id,
                                    member=member)
        except Exception as exc:  # noqa: BLE001 - the answer stands without a plan
            log.warning("week plan without moves of team %s not made: %s: %s", team_id,
                        type(exc).__name__, exc)
            return None

    async def _keep(self, svc: Any, team_id: int, today: date, period: int, access: Any, *,
                    platform: str, workspace_id: str, member: str) -> WeekPlan:
        """Store a week plan without moves for the rest of the matchup and set its lineups."""
        lineups, total = self.lineups(svc, team_id, [], today)
        plan = WeekPlan.build(
            team_id=team_id, matchup_period=period,
            scoring="points" if svc.is_points else "categories",
            unit="fantasy points" if svc.is_points else "expected categories won",
            planned_on=today, card_id="", moves=[], lineups=lineups,
            projected_total=total, baseline_total=total,
            writes=bool(access.allowed and not access.dry_run), platform=platform,
            workspace_id=workspace_id, member_id=member)
        await self.core.db.put_week_plan(plan)
        return await self.set_lineups(plan, today, svc=svc, access=access)

    @staticmethod
    def keep_text(plan: WeekPlan) -> str:
        """What the no-move answer says about the week plan it made: FanVise sets the best
        lineup of each day (and of each day no plan covers for the rest of the season), or,
        where it may not write, the member does."""
        from bot.core.commands import invocation
        lineup = invocation("lineup", "", plan.platform or "console")
        n = len(plan.open_moves())
        lead = ("Your week plan: no moves" if not plan.moves else
                f"Your week plan stands ({n} move(s) still to make)" if n else
                "Your week plan stands (its moves are made)")
        if plan.writes:
            return (f"{lead}; FanVise sets your best lineup each day of this matchup, and on "
                    "every later day of the season that no plan of yours covers "
                    f"({lineup} shows the day's lineup).")
        link = invocation("link", "writes:on", plan.platform or "console")
        return (f"{lead}; start your best lineup each day ({lineup} shows it). FanVise sets "
                f"it for you once you turn writes on (`{link}`).")

    # ------------------------------------------------------------------ the daily pass

    async def run_due(self, today: date | None = None) -> list[WeekPlan]:
        """The scheduler's daily pass: every plan whose lineup of today is not set yet gets
        it (and the days after it up to its next move) set; a team whose latest plan FanVise
        carries out and that no plan covers today gets the matchup's plan without moves
        (the season rule, module docstring). Returns the plans changed."""
        today = today or self.core.league_today()
        out = []
        plans = await self.core.db.week_plans_through(today.isoformat())
        for plan in plans:
            lu = plan.lineup_on(today)
            if lu is None or lu.status in ("set", "member"):
                continue
            if any(m.open and m.day <= today for m in plan.moves):
                continue  # today's move is not made yet: its lineup follows it
            try:
                out.append(await self.set_lineups(plan, today))
            except Exception as exc:  # noqa: BLE001 - one team never stops the others
                log.warning("lineups of team %s not set: %s: %s", plan.team_id,
                            type(exc).__name__, exc)
        covered = {p.team_id for p in plans if p.lineup_on(today) is not None}
        for last in await self.uncovered(today, covered):
            try:
                svc = await self._optimizer(last.team_id, ())
                access = await self._writes(last.platform, last.workspace_id,
                                            last.member_id, last.team_id)
                if not access.allowed or access.dry_run:
                    continue  # writes turned off since: the member sets his lineups
                out.append(await self._keep(
                    svc, last.team_id, today, int(svc.league.current_matchup_period), access,
                    platform=last.platform, workspace_id=last.workspace_id,
                    member=last.member_id))
            except Exception as exc:  # noqa: BLE001 - one team never stops the others
                log.warning("lineups of team %s not kept: %s: %s", last.team_id,
                            type(exc).__name__, exc)
        return out

    async def uncovered(self, today: date, covered: Iterable[int] = ()) -> list[WeekPlan]:
        """The latest week plan of each team that FanVise carries out (writes on) whose
        plans cover no day from `today` on (not in `covered`): the teams whose lineups the
        season rule keeps setting."""
        skip = set(covered)
        latest: dict[int, WeekPlan] = {}
        for p in await self.core.db.week_plans_through(""):
            if p.last_day is None:
                continue
            if p.last_day >= today:
                skip.add(p.team_id)
            elif p.team_id not in latest or p.matchup_period > latest[p.team_id].matchup_period:
                latest[p.team_id] = p
        return [p for t, p in sorted(latest.items()) if t not in skip and p.writes]


__all__ = ["WeekPlans", "fill_slots", "week_moves"]
