"""Issue 26 (Deliver 7): category leagues hear league ranks and words, never a category value
(a sum of z-scores); points leagues keep their fantasy points."""

from __future__ import annotations

import re

from agents.answers.league import answer_free_agents
from agents.answers.lineup import lineup_view
from agents.answers.valuers import shared_valuer
from agents.shared.deps import AgentDeps, load_context
from agents.understanding.request import Intent, Request

_RAW = re.compile(r"-?\d+\.\d+ category value|value -?\d+\.\d+")


async def test_league_rank_orders_the_league_by_value_per_game(deps: AgentDeps) -> None:
    ctx = await load_context(deps, with_free_agents=True, fa_size=150)
    val = shared_valuer(ctx.league, ctx.schedule,
                        ctx.league.remaining_dates(today=deps.today_date()),
                        deps.today_date(), extra=ctx.free_agents or [])
    players = [p for t in ctx.league.teams for p in t.players]
    best = max(players, key=lambda p: val.per_game(p))
    worst = min(players, key=lambda p: val.per_game(p))
    assert val.league_rank(best) == 1
    assert val.league_rank(worst) > val.league_rank(best)
    ranked = sorted(players, key=lambda p: -val.per_game(p))
    assert [val.league_rank(p) for p in ranked] == sorted(val.league_rank(p) for p in ranked)


async def test_weakest_players_and_free_agents_speak_ranks_not_z_scores(deps: AgentDeps) -> None:
    ctx = await load_context(deps, with_free_agents=True, fa_size=150)
    cut = await answer_free_agents(deps, Request(intent=Intent.FREE_AGENT_SCAN, action="drop",
                                                 text="ok so who do i cut"))
    scan = await answer_free_agents(deps, Request(intent=Intent.FREE_AGENT_SCAN,
                                                  text="best free agents"))
    for text in (cut.text, scan.text):
        assert not _RAW.search(text), text
    if ctx.league.settings.is_points:
        assert " fantasy points" in cut.text
    else:
        assert "league rank by category value per game" in cut.text
        assert re.search(r"#\d+, ", cut.text), cut.text


def test_category_lineup_card_ranks_the_day_players() -> None:
    res = {"date": "2023-01-26", "value_unit": "category value (linearised expected "
           "categories won)", "slots": ["PG", "C"],
           "starters": [{"slot": "PG", "player_id": 1, "name": "A", "value": 0.08},
                        {"slot": "C", "player_id": 2, "name": "B", "value": 0.13}],
           "bench": [{"player_id": 3, "name": "D", "value": 0.05,
                      "reason": "outscored by A (0.1) at eligible slots PG",
                      "outscored_by": [["A", 0.1]], "more_outscoring": 0,
                      "eligible_at": ["PG"]},
                     {"player_id": 4, "name": "E", "value": 0.2, "reason": "no game"}],
           "changes": []}
    text = lineup_view(res).text()
    assert "PG: A · #2 of 3 available" in text and "C: B · #1 of 3 available" in text
    assert "D (#3 of 3 available): outscored by A at eligible slots PG" in text
    assert not _RAW.search(text) and "0.1" not in text.split("Sitting:")[1]
