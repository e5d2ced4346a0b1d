"""The projections behind rankings, odds and previews: each remaining day's plan is the exact
best lineup (checked against scipy's assignment solver), and the win probabilities are a
proper model (complementary, a large lead near certain)."""

from __future__ import annotations

import pytest

from fantasy.constants import SLOT_IR
from fantasy.demo import open_demo_client
from fantasy.league_life.projection import Projector, match_probability
from fantasy.projections import play_probability, project
from tests.league_life.test_league_life_recap import oracle_day


async def test_remaining_points_are_exact_daily_plans() -> None:
    client = open_demo_client("points")
    try:
        league = await client.get_league()
        schedule = await client.get_pro_schedule()
        pr = Projector(league, schedule)
        period = league.current_matchup_period
        days = [d for d in league.matchup_dates(period) if d >= league.today]
        for team in league.teams[:4]:
            want = 0.0
            for d in days:
                playing = schedule.teams_playing_on(d)
                rows = []
                for e in team.roster:
                    if e.lineup_slot_id == SLOT_IR:
                        continue
                    p = e.player
                    v = max(project(p, as_of=league.today).points(
                        league.settings.scoring_weights), 0.0)
                    v *= play_probability(p, d) if p.pro_team_id in playing else 0.0
                    rows.append((v, list(p.eligible_slots)))
                want += oracle_day(rows, league.settings.lineup_slot_counts)
            got = pr.period(team.id, period)
            assert got.remaining_points == pytest.approx(want, abs=1e-6)
            side = league.current_matchup(team.id).side_for(team.id)
            assert got.actual_points == side.points > 0
        a, b = pr.period(1, period), pr.period(league.opponent_of(1).id, period)
        pa, _ = pr.win_probability(a, b)
        pb, _ = pr.win_probability(b, a)
        assert pa + pb == pytest.approx(1.0) and 0 < pa < 1
    finally:
        await client.aclose()


def test_match_probability_is_exact() -> None:
    assert match_probability([0.5, 0.5]) == pytest.approx((0.25, 0.5))
    assert match_probability([1.0, 1.0, 0.0]) == pytest.approx((1.0, 0.0))
    win, tie = match_probability([0.6] * 9)
    lose, _ = match_probability([0.4] * 9)
    assert tie == 0.0 and win + lose == pytest.approx(1.0) and win > 0.6
