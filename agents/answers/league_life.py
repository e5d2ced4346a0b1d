"""Answers about the league race: the power rankings ("who's the best team right now?") and
the playoff odds ("what are my playoff chances?"), the same tables the league channel gets
(fantasy.league_life.reports), led by the asker's own line when their team is known."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents.answers.types import Reply
from fantasy.espn.errors import EspnError
from fantasy.espn.messages import espn_trouble
from fantasy.league_life.reports import odds_report, rankings_report

if TYPE_CHECKING:  # pragma: no cover - typing only
    from agents.shared.deps import AgentDeps
    from agents.understanding.request import Request


async def answer_power_rankings(deps: AgentDeps, request: Request) -> Reply:
    """The power rankings with their formula, parts and movement."""
    try:
        league = await deps.espn.get_league()
        rows, text = await rankings_report(deps.espn, league)
    except EspnError as exc:
        return Reply(text=espn_trouble(exc), report={"error": str(exc)})
    mine = next((r for r in rows if r.team_id == deps.my_team_id), None)
    lead = ""
    if mine is not None:
        name = league.team(mine.team_id).name
        lead = f"{name} is #{mine.rank} of {len(rows)} in the power rankings.\n\n"
    return Reply(text=lead + text, report={"rankings": [
        {"rank": r.rank, "team_id": r.team_id, "score": round(r.score, 4)} for r in rows]},
        tool_calls=["power_rankings"])


async def answer_playoff_odds(deps: AgentDeps, request: Request) -> Reply:
    """The playoff odds table, the asker's odds and most likely seed first."""
    try:
        league = await deps.espn.get_league()
        odds, text = await odds_report(deps.espn, league)
    except EspnError as exc:
        return Reply(text=espn_trouble(exc), report={"error": str(exc)})
    mine = odds.team(deps.my_team_id) if deps.my_team_id is not None else None
    lead = ""
    if mine is not None:
        name = league.team(mine.team_id).name
        lead = f"{name}: playoff odds {mine.text()}.\n\n"
    return Reply(text=lead + text, report={"odds": [
        {"team_id": t.team_id, "playoff": t.playoff} for t in odds.teams]},
        tool_calls=["playoff_odds"])
