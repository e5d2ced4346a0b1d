"""Roster and schedule answers: one league tool each, rendered as text."""

from __future__ import annotations

from agents.answers.types import ListedPlayer, Reply
from agents.shared.deps import AgentDeps
from agents.shared.llm import render_tool_result
from agents.shared.tool_registry import FanviseTools
from agents.understanding.request import Request


async def answer_roster(deps: AgentDeps, request: Request) -> Reply:
    """Who is on my team, my opponent's or another named team: slots, injuries, games left."""
    tools = FanviseTools(deps)
    if request.team.kind == "opponent":
        name, result = "get_opponent_roster", await tools.get_opponent_roster()
    elif request.team.kind == "other" and request.team.name:
        name, result = "get_team_roster", await tools.get_team_roster(request.team.name)
    else:
        name, result = "get_my_roster", await tools.get_my_roster()
    listed = [ListedPlayer(player_id=int(p["id"]), name=str(p["name"]))
              for p in result.get("players") or [] if isinstance(p, dict) and "id" in p]
    return Reply(text=render_tool_result(name, result), report=None, listed=listed,
                 tool_calls=[name])


async def answer_schedule(deps: AgentDeps, request: Request) -> Reply:
    """Games left this matchup, by day and by player (mine, my opponent's or a named team)."""
    team = {"opponent": "opponent", "other": request.team.name or "mine"}.get(
        request.team.kind, "mine")
    result = await FanviseTools(deps).get_schedule(team)
    return Reply(text=render_tool_result("get_schedule", result), tool_calls=["get_schedule"])


__all__ = ["answer_roster", "answer_schedule"]
