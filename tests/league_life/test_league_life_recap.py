"""The weekly recap's figures against an independent computation from the demo's recorded
box scores: ESPN's served totals, an assignment solver's optimal lineups (scipy's
linear_sum_assignment, not the matroid greedy the recap uses), and the trophy rules."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from fantasy.constants import SLOT_IR, STARTING_SLOTS
from fantasy.demo import open_demo_client
from fantasy.league_life import DayEntry, PeriodBox, TeamPeriod, build_recap, load_period
from fantasy.league_life.allplay import all_play
from fantasy.models import Matchup, MatchupSide
from fantasy.optimizer.lineup import SlotLayout

PERIOD = 14  # the last finished period on the demo's default day (Wed Jan 25, 2023)


def oracle_day(rows: list[tuple[float, list[int]]], counts: dict[int, int]) -> float:
    """Best lineup value by a max-weight assignment of players to slot copies, each player
    also free to sit (a bench column of his own)."""
    cols = [s for s, n in sorted(counts.items()) if s in STARTING_SLOTS for _ in range(n)]
    if not rows:
        return 0.0
    n = len(rows)
    w = np.full((n, len(cols) + n), -1e9)
    for i, (value, elig) in enumerate(rows):
        for j, s in enumerate(cols):
            if s in elig:
                w[i, j] = value
        w[i, len(cols) + i] = 0.0
    r, c = linear_sum_assignment(w, maximize=True)
    return float(w[r, c].sum())


async def _recap(variant: str):
    client = open_demo_client(variant)
    try:
        lg = await client.get_league()
        box = await load_period(client, lg, PERIOD)
        layout = SlotLayout.from_counts(lg.settings.lineup_slot_counts)
        recap = build_recap(box, layout, categories=lg.settings.categories,
                            reverse=lg.settings.reverse_categories,
                            today_sp=lg.current_scoring_period)
        return client.demo, lg, box, recap
    finally:
        await client.aclose()


async def test_points_recap_equals_box_scores_and_an_assignment_solver() -> None:
    demo, lg, box, recap = await _recap("points")
    weights = lg.settings.scoring_weights
    counts = lg.settings.lineup_slot_counts
    sps = lg.settings.matchup_periods[PERIOD]
    assert recap.finished and len(recap.results) == 6 and len(box.teams) == 12
    for tid, tp in box.teams.items():
        actual = optimal = 0.0
        for sp in sps:
            rows = []
            for pid, slot in demo.lineup_on(tid, sp).items():
                game = demo.base["players"][str(pid)]["by_sp"].get(sp)
                if game is None:
                    continue
                pts = sum(w * float(game[1].get(str(s), 0.0)) for s, w in weights.items())
                if slot in STARTING_SLOTS:
                    actual += pts
                if slot != SLOT_IR:
                    rows.append((pts, list(demo._eligible(pid))))
            optimal += oracle_day(rows, counts)
        eff = recap.efficiency[tid]
        # the recap's actual equals ESPN's served total and the recorded games' points
        assert eff.actual == pytest.approx(tp.points, abs=0.05 * len(sps))
        assert eff.actual == pytest.approx(actual, abs=1e-6)
        assert eff.optimal == pytest.approx(optimal, abs=1e-6)
        assert eff.optimal >= eff.actual and 0 < eff.pct <= 1.0
        assert eff.pct == pytest.approx(actual / optimal)
    # results and all-play from the served totals
    scores = {t: tp.points for t, tp in box.teams.items()}
    ap = all_play(scores)
    assert recap.all_play == ap
    assert sum(r.wins for r in ap.values()) == sum(r.losses for r in ap.values())
    high = recap.trophy("high")
    assert high is not None and high.value == max(scores.values())
    assert set(high.team_ids) == {t for t, s in scores.items() if s == max(scores.values())}
    lucky = recap.trophy("luckiest")
    winners = [r.winner_id for r in recap.results if r.winner_id is not None]
    assert lucky is not None and lucky.value == min(ap[w].wins for w in winners)
    best = recap.trophy("best_manager")
    worst = recap.trophy("worst_manager")
    pcts = {t: e.pct for t, e in recap.efficiency.items()}
    assert best is not None and worst is not None
    assert best.team_ids == (max(pcts, key=pcts.__getitem__),)
    assert worst.team_ids == (min(pcts, key=pcts.__getitem__),)


async def test_category_recap_counts_games_started_against_the_most_startable() -> None:
    demo, lg, box, recap = await _recap("categories")
    counts = lg.settings.lineup_slot_counts
    sps = lg.settings.matchup_periods[PERIOD]
    for tid in box.teams:
        started = most = 0.0
        for sp in sps:
            rows = []
            for pid, slot in demo.lineup_on(tid, sp).items():
                if demo.base["players"][str(pid)]["by_sp"].get(sp) is None:
                    continue
                started += slot in STARTING_SLOTS
                if slot != SLOT_IR:
                    rows.append((1.0, list(demo._eligible(pid))))
            most += oracle_day(rows, counts)
        eff = recap.efficiency[tid]
        assert eff.unit == "games"
        assert (eff.actual, eff.optimal) == (started, most)
    # each result names the categories each side won, from ESPN's served category results
    for r in recap.results:
        served = next(m for m in box.matchups if m.home.team_id == r.home_id)
        won = {c for c, res in served.home.categories.items() if res.result == "WIN"}
        lost = {c for c, res in served.home.categories.items() if res.result == "LOSS"}
        assert set(r.home_categories) == won and set(r.away_categories) == lost
        assert r.home_score == served.home.wins and r.away_score == served.home.losses
    tie = next(r for r in recap.results if r.winner_id is None)  # 8 vs 12 tied 4-4
    closest = recap.trophy("closest")
    assert closest is not None and tie.home_id not in closest.team_ids
    assert tie.away_id not in closest.team_ids


def _side(tid: int, points: float, days: dict[int, tuple[DayEntry, ...]] | None = None
          ) -> MatchupSide:
    return MatchupSide(team_id=tid, points=points)


def _box(scores: list[tuple[int, float, int | None, float]],
         days: dict[int, dict[int, tuple[DayEntry, ...]]] | None = None) -> PeriodBox:
    matchups, teams = [], {}
    for i, (h, hs, a, as_) in enumerate(scores):
        hm = _side(h, hs)
        am = _side(a, as_) if a is not None else None
        matchups.append(Matchup(id=i, matchup_period=1, home=hm, away=am))
        if am is None:
            continue
        teams[h] = TeamPeriod(h, a, hm, (days or {}).get(h, {}))
        teams[a] = TeamPeriod(a, h, am, (days or {}).get(a, {}))
    return PeriodBox(1, (1,), tuple(m for m in matchups if m.away is not None), teams, False)


LAYOUT = SlotLayout.from_counts({0: 1, 11: 1, 12: 2})


def test_trophy_rules_ties_shared_and_byes_left_out() -> None:
    # 1 and 2 tie at 100; 3 beats 4 by 1; 5 beats 6 by 1 (closest win shared); 7 on a bye
    box = _box([(1, 100.0, 2, 100.0), (3, 90.0, 4, 89.0), (5, 120.0, 6, 119.0),
                (7, 500.0, None, 0.0)])
    recap = build_recap(box, LAYOUT)
    assert 7 not in recap.all_play and all(7 not in t.team_ids for t in recap.trophies)
    tie = recap.results[0]
    assert tie.winner_id is None and tie.margin == 0
    closest = recap.trophy("closest")
    assert closest is not None and closest.team_ids == (3, 5) and closest.value == 1.0
    assert recap.trophy("high").team_ids == (5,)
    # luckiest: the winner with the fewest all-play wins (3: beats 4 only)
    assert recap.all_play[3].text() == "1-4" and recap.trophy("luckiest").team_ids == (3,)
    # unluckiest: the loser with the most all-play wins (6: 119 beats all but 5)
    assert recap.all_play[6].text() == "4-1" and recap.trophy("unluckiest").team_ids == (6,)
    assert recap.all_play[1].text() == "2-2-1"
    # nobody had a player with a game: efficiency "—", no manager trophies
    assert all(e.pct is None and e.pct_text() == "—" for e in recap.efficiency.values())
    assert recap.trophy("best_manager") is None and recap.trophy("worst_manager") is None


def test_all_ties_give_no_closest_win_and_shared_scores() -> None:
    recap = build_recap(_box([(1, 50.0, 2, 50.0), (3, 50.0, 4, 50.0)]), LAYOUT)
    assert recap.trophy("closest") is None and recap.trophy("blowout") is None
    assert recap.trophy("high").team_ids == (1, 2, 3, 4) == recap.trophy("low").team_ids
    assert recap.trophy("luckiest") is None


def test_efficiency_counts_a_multi_position_player_once_and_never_above_100() -> None:
    # one PG and one UT slot; Jokic-like player eligible everywhere scores 60, a PG 10,
    # a C 30 who sat: the best lineup is 60 + 30 = 90, the lineup set got 60 + 10 = 70
    e = lambda pid, slot, elig, pts: DayEntry(pid, f"p{pid}", slot, elig, True, pts)  # noqa: E731
    day = (e(1, 0, (0, 11, 12), 60.0), e(2, 11, (0, 11, 12), 10.0), e(3, 12, (4, 11, 12), 30.0),
           e(4, SLOT_IR, (4, 11, 12, 13), 99.0))
    box = _box([(1, 70.0, 2, 10.0)], days={1: {1: day}})
    recap = build_recap(box, LAYOUT)
    eff = recap.efficiency[1]
    assert (eff.actual, eff.optimal, eff.left_on_bench) == (70.0, 90.0, 20.0)
    assert eff.pct_text() == "77.8%"
