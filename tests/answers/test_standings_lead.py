"""Standings lead with what a standings question is after: who is first, where you are,
and where your opponent (or the team asked about) stands, then the table."""

from __future__ import annotations

from agents.answers.league import answer_standings
from agents.shared.deps import AgentDeps, load_context
from agents.understanding.request import Intent, Request, TeamRef


async def test_the_leader_and_my_place_come_before_the_table(deps: AgentDeps) -> None:
    ctx = await load_context(deps)
    reply = await answer_standings(deps, Request(intent=Intent.STANDINGS, text="who leads"))
    first = reply.text.splitlines()[0]
    top = reply.report["standings"][0]
    assert first.startswith(f"{top['team']} lead the league at {top['record']}")
    mine = next(r for r in reply.report["standings"] if r["team"] == ctx.my_team.name)
    rank = mine["rank"]
    assert f"You ({ctx.my_team.name}) are {rank}" in first and mine["record"] in first
    assert reply.text.splitlines()[1].startswith("**") and "standings" in reply.text


async def test_a_named_team_is_placed_first(deps: AgentDeps) -> None:
    reply = await answer_standings(deps, Request(
        intent=Intent.STANDINGS, text="where are the bench mob",
        team=TeamRef(kind="other", name="Bench Mob")))
    row = next(r for r in reply.report["standings"] if r["team"] == "Bench Mob")
    assert reply.text.startswith(f"Bench Mob is {row['rank']}")
