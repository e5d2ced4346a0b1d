"""The week plan answer: "what's the plan for this week?", "what moves do I have lined up",
"remind me what I approved". The member's approved moves of this matchup by day with what
happened to each, the lineup changes the plan needs (the added players who start), and what
the plan projects for the rest of the matchup against the roster without the moves still to
be made. All figures come from the exact optimizer (fantasy/), the moves from the week plan
(`AgentDeps.week_moves`, `AgentDeps.scheduled`)."""

from __future__ import annotations

from agents.answers.types import Offer, Reply
from agents.shared.deps import (
    AgentDeps,
    load_context,
    optimizer_for,
    scheduled_moves,
    weekly_plan_of,
)
from agents.understanding.request import Intent, Request
from fantasy.espn.errors import EspnError
from fantasy.espn.messages import espn_trouble
from fantasy.formatting import categories_text, day_text, one_decimal, weekday_text, whole
from fantasy.week_plan import WeekMove

#: What each status of a plan's move reads as.
_STATUS = {"scheduled": "scheduled: made that morning after a re-check",
           "making": "being made now", "applied": "done", "waiting": "waiting for ESPN",
           "not_possible": "not made", "skipped": "skipped by you"}


def move_status_text(m: WeekMove) -> str:
    """'scheduled: made that morning after a re-check' / 'not made: <why>'."""
    text = _STATUS.get(m.status, m.status)
    if m.status in ("not_possible", "waiting") and m.note:
        text += f": {m.note}"
    return text


async def answer_week_plan(deps: AgentDeps, request: Request) -> Reply:
    """The team's week plan: moves by day with status, lineup changes, projected total."""
    try:
        ctx = await load_context(deps)
        if ctx.my_team is None:
            return Reply(text="Link your ESPN team first (`/link team=<id>`), then ask again.",
                         report={"error": "no_team"})
        svc = await optimizer_for(deps)
    except EspnError as exc:
        return Reply(text=espn_trouble(exc), report={"error": str(exc)})
    league, me = ctx.league, ctx.my_team
    today = deps.today_date()
    days = league.matchup_dates()
    first = days[0] if days else today
    moves = ([m for m in await deps.week_moves(me.id, first) if m.day in set(days)]
             if deps.week_moves is not None else [])
    look = Offer(label="Look for moves", request=Request.command(
        Intent.MATCHUP_ANALYSIS, text="look for moves for my matchup"))
    period = league.current_matchup_period
    if not moves:
        return Reply(text=(f"{me.name} has no approved moves for matchup {period}: nothing is "
                           "scheduled. Ask \"review my matchup\" for a plan card; the moves "
                           "you approve there are made on their days."),
                     report={"team": me.name, "matchup_period": period, "moves": []},
                     offers=[look], tool_calls=["week_plan"])
    lines = [f"**{me.name}: your plan for matchup {period}** "
             f"({len(moves)} approved move{'s' if len(moves) != 1 else ''})"]
    for d in sorted({m.day for m in moves}):
        for m in (x for x in moves if x.day == d):
            lines.append(f"{day_text(d)}: {m.text()} ({move_status_text(m)})")
    planned = await scheduled_moves(deps, me.id)
    free = {p.id for p in svc.free_agents}
    planned = [m for m in planned if m.add.id in free]
    added = {m.add.id for m in moves if m.counts}
    starts = []
    for d in league.remaining_dates(today=today):
        lu = svc.daily_lineup(me.id, d, planned=planned)
        for s in lu.starters:
            if s.player_id in added:
                starts.append(f"{weekday_text(d)}: {s.name} at {s.slot}")
    if starts:
        lines.append("Lineups the plan sets (each added player who starts): "
                     + "; ".join(starts) + ".")
    report = {"team": me.name, "matchup_period": period,
              "moves": [{"day": m.day.isoformat(), "move": m.text(), "status": m.status}
                        for m in moves], "lineup_starts": starts}
    base = weekly_plan_of(svc, me.id)
    if planned:
        with_plan = svc.weekly_plan(me.id, moves=[(m.drop.id, m.add.id, m.day)
                                                  for m in planned])
        if league.settings.is_points:
            a, b = float(with_plan.total_points or 0.0), float(base.total_points or 0.0)
            lines.append(f"Projected for the rest of the matchup: {whole(a)} fantasy points with "
                         f"the moves still to come vs {whole(b)} without them "
                         f"({whole(a - b, signed=True)}); projected final "
                         f"{whole(with_plan.projected_final_points or 0.0)} vs "
                         f"{whole(with_plan.opponent_projected_points or 0.0)}.")
        else:
            a = float(with_plan.expected_categories_won or 0.0)
            b = float(base.expected_categories_won or 0.0)
            lines.append(f"Projected: {one_decimal(a)} expected categories won with the moves "
                         f"still to come vs {one_decimal(b)} without them ({categories_text(a - b)}"
                         ").")
        report.update(projected=a, without=b)
    else:
        lines.append("Every approved move of this matchup is settled: nothing is left to make.")
    return Reply(text="\n".join(lines), report=report, offers=[look],
                 tool_calls=["week_plan", "weekly_plan"])


__all__ = ["answer_week_plan", "move_status_text"]
