"""A number of games in a free-agent question is a filter ("any centers with 3 games left"),
not how many players to list (both variants, the demo league)."""

from __future__ import annotations

from agents.answers.league import answer_free_agents
from agents.shared.deps import AgentDeps
from agents.understanding import understand
from agents.understanding.league_context import understanding_context
from agents.understanding.request import Intent


async def test_games_left_filters_the_list(deps: AgentDeps) -> None:
    ctx = await understanding_context(deps)
    req = understand("any centers with 3 games left", ctx)
    assert (req.intent, req.position, req.min_games, req.count) == \
        (Intent.FREE_AGENT_SCAN, "C", 3, None)
    reply = await answer_free_agents(deps, req)
    rows = reply.report["free_agents"]
    assert len(rows) > 3  # 3 was never the count
    assert all(r["games_left"] >= 3 and "C" in r["positions"] for r in rows)
    assert "with 3+ games left" in reply.text.splitlines()[0]


async def test_no_one_with_that_many_games_says_the_most_there_is(deps: AgentDeps) -> None:
    ctx = await understanding_context(deps)
    req = understand("show me guards with 7 games remaining", ctx)
    assert req.min_games == 7
    reply = await answer_free_agents(deps, req)
    assert not reply.report["free_agents"]
    assert "No free agent matches that" in reply.text
    assert "The most games any of them has left this matchup is" in reply.text
