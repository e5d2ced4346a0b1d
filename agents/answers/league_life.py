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


async def answer_trade(deps: AgentDeps, request: Request) -> Reply:
    """A trade's verdict for both sides from the exact optimizer (fantasy.league_life.trade),
    or the specific reason it cannot be analysed as asked."""
    from agents.shared.deps import load_context
    from fantasy.league_life.projection import Projector
    from fantasy.league_life.text import trade_text
    from fantasy.league_life.trade import TradeProblem, analyze_trade, split_trade

    named = [(p.player_id, p.name or p.words) for p in request.resolved_players()
             if p.player_id is not None and not p.carried]
    drop = request.move.drop if request.move is not None else None
    drops = {drop.player_id} if drop is not None and drop.resolved else set()
    trade_named = [(pid, name) for pid, name in named if pid not in drops]
    try:
        ctx = await load_context(deps, with_free_agents=True, fa_size=100)
    except EspnError as exc:
        return Reply(text=espn_trouble(exc), report={"error": str(exc)})
    league = ctx.league
    split = split_trade(league, trade_named, my_team_id=deps.my_team_id)
    if isinstance(split, TradeProblem):
        return Reply(text=split.message, report={"trade_problem": split.code},
                     tool_calls=["trade_analysis"])
    team_a, gives_a, team_b, gives_b = split
    named_drops = [e.player for t in (team_a, team_b) for e in t.roster
                   if e.player.id in drops]
    projector = Projector(league, ctx.schedule)
    analysis = analyze_trade(league, projector, team_a, gives_a, team_b, gives_b,
                             ctx.free_agents or [], named_drops=named_drops)
    return Reply(text=trade_text(analysis, deps.my_team_id), report={"trade": [
        {"team_id": s.team_id, "verdict": s.verdict, "change": round(s.change, 1),
         "drops": [p.id for p in s.drops], "adds": [p.id for p in s.adds]}
        for s in analysis.sides]}, tool_calls=["trade_analysis"])
