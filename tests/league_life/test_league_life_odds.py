"""Playoff odds: seeded (the same seed gives the same table), every table sums to the playoff
spots × 100%, "clinched" / "eliminated" only from the exact bound (a simulated 100% or 0%
shows as ">99.9%" / "<0.1%"), "not computable" with no game left, and the demo's records
equal ESPN's served standings."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot.console.adapter import ConsoleSurface
from bot.core.app import FanViseApp
from bot.core.models import ThreadRef, UserRef
from bot.settings import Settings
from fantasy.demo import open_demo_client
from fantasy.league_life.odds import Game, Record, bounds, league_inputs, simulate
from fantasy.league_life.projection import league_projector

USER = UserRef("console", "bob", "Bob")
THREAD = ThreadRef("console", "local", "console", "s1")


def _table(odds) -> dict[int, float]:
    return {t.team_id: t.playoff for t in odds.teams}


def test_seeded_sums_and_bounds() -> None:
    records = {1: Record(10, 0), 2: Record(9, 1), 3: Record(5, 5), 4: Record(1, 9),
               5: Record(0, 10)}
    games = [Game(11, 1, 2, 0.6), Game(11, 3, 4, 0.7), Game(12, 1, 3, 0.5),
             Game(12, 2, 5, 0.99)]
    a = simulate(records, games, 2, seed=7, simulations=2000)
    b = simulate(records, games, 2, seed=7, simulations=2000)
    c = simulate(records, games, 2, seed=8, simulations=2000)
    assert _table(a) == _table(b) and a.teams == b.teams
    assert sum(_table(c).values()) == pytest.approx(2.0)
    assert sum(_table(a).values()) == pytest.approx(2.0)
    for t in a.teams:
        assert sum(t.seeds) == pytest.approx(t.playoff)
    clinched, eliminated = bounds(records, games, 2)
    # 1 (10-0, 2 left): at worst 10-2; only 2 (at best 11-1) can reach it; 2 (9-1): at
    # worst 9-3, only 1 can reach it (3 at best 7-5): both clinched for two spots
    assert clinched == {1, 2} and a.team(1).text() == "clinched"
    assert eliminated == {3, 4, 5} and a.team(5).text() == "eliminated"
    # a simulated 0 that the bound does not rule out: "<0.1%", not "eliminated"
    records = {1: Record(10, 0), 2: Record(8, 2), 3: Record(8, 2), 4: Record(1, 9),
               5: Record(0, 10)}
    games = [Game(11, 2, 5, 1.0), Game(11, 3, 4, 0.0), Game(11, 1, 4, 0.5)]
    odds = simulate(records, games, 2, seed=2, simulations=1000)
    clinched, eliminated = bounds(records, games, 2)
    assert clinched == {1} and eliminated == {4, 5}
    assert odds.team(3).playoff == 0.0 and odds.team(3).text() == "<0.1%"
    assert odds.team(2).playoff == 1.0 and odds.team(2).text() == ">99.9%"


def test_simulated_certainty_is_not_clinched() -> None:
    records = {1: Record(9, 1), 2: Record(8, 2), 3: Record(1, 9)}
    odds = simulate(records, [Game(11, 1, 2, 1.0), Game(11, 3, 2, 0.0)], 1, seed=1,
                    simulations=500)
    # 1 wins in every simulation, but 2 (8-2, two left) could still reach 10-2 > 9-2
    assert odds.team(1).playoff == 1.0
    clinched, _ = bounds(records, [Game(11, 1, 2, 1.0), Game(11, 3, 2, 0.0)], 1)
    assert 1 not in clinched and odds.team(1).text() == ">99.9%"


def test_no_game_left_is_not_computable() -> None:
    odds = simulate({1: Record(5, 5), 2: Record(5, 5)}, [], 1)
    assert not odds.computable and odds.teams == []


@pytest.mark.parametrize("variant", ["points", "categories"])
async def test_demo_records_match_espn_and_the_table_sums(variant: str) -> None:
    client = open_demo_client(variant)
    try:
        league = await client.get_league()
        records, h2h, games = league_inputs(league, await league_projector(client, league))
        for t in league.teams:
            r = records[t.id]
            assert (r.wins, r.losses, r.ties) == (t.record.wins, t.record.losses, t.record.ties)
        assert len(games) == 6 * (league.settings.regular_season_matchup_periods
                                  - league.current_matchup_period + 1)
        odds = simulate(records, games, league.settings.playoff_team_count, h2h=h2h,
                        rule=league.settings.playoff_seeding_rule, seed=3, simulations=2000)
        assert sum(_table(odds).values()) == pytest.approx(league.settings.playoff_team_count)
        assert all(0 < sum(h2h.get((a.id, b.id), 0) + h2h.get((b.id, a.id), 0)
                           for b in league.teams if b.id != a.id) for a in league.teams)
    finally:
        await client.aclose()


async def test_odds_command(tmp_path: Path) -> None:
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path))
    try:
        out = io.StringIO()
        await app.core.handle_command(ConsoleSurface(out, live=False), THREAD, USER, "odds", {})
        text = out.getvalue()
        assert "10,000 simulations (seed " in text and "top 4 by record" in text
        assert "ties: head-to-head record, then points for" in text
        assert "1. Full Court Press (11-3): " in text
        _, first, _ = await app.core.league_life.odds(seed=11)
        _, again, _ = await app.core.league_life.odds(seed=11)
        assert first.teams == again.teams
        assert sum(t.playoff for t in first.teams) == pytest.approx(4.0)
    finally:
        await app.close()


@pytest.mark.parametrize("variant", ["points", "categories"])
async def test_preview_command(tmp_path: Path, variant: str) -> None:
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path,
                                         demo_variant=variant))
    try:
        out = io.StringIO()
        await app.core.handle_command(ConsoleSurface(out, live=False), THREAD, USER,
                                      "preview", {})
        text = out.getvalue()
        assert "Matchup 15 preview · Jan 23 – Jan 29" in text
        lines = [x for x in text.splitlines() if x.startswith("• ")]
        assert len(lines) == 6 and all("games left" in x for x in lines)
        if variant == "points":
            assert "• Hoop Dreamers 1,442 vs 1,717 Full Court Press · 26 vs 34 games left" in text
        else:
            assert "Hoop Dreamers 2–7 Full Court Press in categories" in text
        assert " 0% " not in text and "100%" not in text
    finally:
        await app.close()
