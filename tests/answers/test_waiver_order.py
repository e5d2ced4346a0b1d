"""The league's waiver order, from ESPN's waiverRank (both variants, the demo league): asked in
several words, the answer leads with the member's place and lists every team in order."""

from __future__ import annotations

import pytest

from agents.answers.league_facts import answer_league_settings, waiver_order_line
from agents.shared.deps import AgentDeps, load_context
from agents.understanding import understand
from agents.understanding.league_context import understanding_context
from agents.understanding.request import Intent
from fantasy.espn.parse import parse_team


@pytest.mark.parametrize("text", ["whats the waiver order", "what's my priority on waivers",
                                  "who's first in line for waiver claims"])
async def test_waiver_order_from_data(deps: AgentDeps, text: str) -> None:
    req = understand(text, await understanding_context(deps))
    assert req.intent == Intent.LEAGUE_SETTINGS
    reply = await answer_league_settings(deps, req)
    ctx = await load_context(deps)
    teams = sorted(ctx.league.teams, key=lambda t: t.waiver_rank or 0)
    assert [t.waiver_rank for t in teams] == list(range(1, len(teams) + 1))
    first = reply.text.splitlines()[0]
    assert first.startswith(f"Waiver order: you ({ctx.my_team.name}) are ")
    assert first.index(f"1. {teams[0].name}") < first.index(f"2. {teams[1].name}")


def test_no_waiver_rank_no_order_line() -> None:
    team = parse_team({"id": 3, "name": "No Rank"}, 2023)
    assert team.waiver_rank is None
    assert parse_team({"id": 3, "name": "R", "waiverRank": 5}, 2023).waiver_rank == 5


async def test_the_demo_orders_waivers_by_reverse_standings(deps: AgentDeps) -> None:
    ctx = await load_context(deps)
    worst = min(ctx.league.teams, key=lambda t: (t.record.wins + t.record.ties / 2,
                                                   t.record.points_for))
    assert worst.waiver_rank == 1
    line = waiver_order_line(ctx.league, None)
    assert line is not None and line.startswith(f"Waiver order: 1. {worst.name},")
