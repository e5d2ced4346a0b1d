""""N weeks ago" is that many matchups back, and a core player asked about as hurt while ESPN
lists him healthy is held as healthy (both variants, the demo league)."""

from __future__ import annotations

from datetime import date

from agents.answers.league_facts import answer_past_matchup
from agents.shared.deps import AgentDeps, load_context
from agents.understanding import understand
from agents.understanding.league_context import understanding_context
from agents.understanding.request import Intent
from fantasy.outlook import hold_or_stream


async def test_two_weeks_ago_is_two_matchups_back(deps: AgentDeps) -> None:
    ctx = await understanding_context(deps)
    league = (await load_context(deps)).league
    for text, back in (("what was my score two weeks ago", 2), ("how did i do last week", 1)):
        req = understand(text, ctx)
        assert req.intent == Intent.PAST_MATCHUP
        reply = await answer_past_matchup(deps, req)
        assert reply.text.startswith(f"Matchup {league.current_matchup_period - back} ")


def test_a_healthy_core_player_is_not_called_day_to_day() -> None:
    args = dict(expected_return=None, today=date(2023, 1, 25), games_left=2, expected_games=2.0,
                value_per_game=30.0, roster_rank=1, roster_size=13, streamer_value=40.0,
                ir_slot_free=False)
    assert hold_or_stream(status="ACTIVE", **args).reason.endswith("ESPN lists him healthy")
    assert hold_or_stream(status="DAY_TO_DAY", **args).reason.endswith("only day-to-day")
