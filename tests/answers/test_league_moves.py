"""League activity asked about the whole league, with no recent moves listed by ESPN (the
demo): the most active teams from ESPN's season counters, apart from the standings."""

from __future__ import annotations

from agents.answers.league_facts import answer_league_activity
from agents.shared.deps import AgentDeps, load_context
from agents.understanding import understand
from agents.understanding.league_context import understanding_context
from agents.understanding.request import Intent


async def test_league_wide_activity_lists_the_most_active_teams(deps: AgentDeps) -> None:
    req = understand("has anyone in the league made a trade", await understanding_context(deps))
    assert req.intent == Intent.LEAGUE_ACTIVITY
    text = (await answer_league_activity(deps, req)).text
    ctx = await load_context(deps)
    top = max(ctx.league.teams, key=lambda t: (t.transactions.acquisitions, t.transactions.trades))
    lines = text.splitlines()
    assert lines[1].startswith("Most moves this season (ESPN's counters): ")
    assert f"{top.name} {top.transactions.acquisitions} adds" in lines[1]
    assert "standings" not in text.lower()


async def test_my_own_moves_stay_about_my_team(deps: AgentDeps) -> None:
    req = understand("what adds did i make lately", await understanding_context(deps))
    text = (await answer_league_activity(deps, req)).text
    ctx = await load_context(deps)
    assert f"{ctx.my_team.name} this season:" in text and "Most moves" not in text
