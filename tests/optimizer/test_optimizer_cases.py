"""Hand-checked small cases and edge cases of the optimizer core."""

from __future__ import annotations

import numpy as np

from fantasy.optimizer.categories import Category, Matchup, expected_wins, win_probabilities
from fantasy.optimizer.lineup import Candidate, SlotLayout, best_lineup, solve_day
from fantasy.optimizer.multimove import plan_moves
from fantasy.optimizer.scan import scan_points
from fantasy.optimizer.synthetic import DEFAULT_COUNTS
from fantasy.optimizer.week import plan_week

LAYOUT = SlotLayout.from_counts(DEFAULT_COUNTS)
PG, SG, SF, PF, C = (0, 5, 8, 11, 12, 13), (1, 5, 7, 8, 11, 12, 13), (2, 6, 7, 8, 10, 11, 12, 13), \
    (3, 6, 8, 9, 10, 11, 12, 13), (4, 9, 10, 11, 12, 13)


def both(a, b):
    return tuple(sorted(set(a) | set(b)))


def test_layout_from_espn_counts_ignores_bench_and_ir():
    lay = SlotLayout.from_counts({"0": 1, "5": 1, "11": 2, "12": 3, "13": 1, "7": 0})
    assert lay.slot_ids == (0, 5, 11)
    assert lay.caps == (1, 1, 2)
    assert lay.mask([12, 13]) == 0


def test_greedy_trap_is_solved_exactly():
    # Small layout PG, C, UT.  Greedy puts the 40-pt PF/C big at UT first and... the exact
    # answer must start all three: big at C, guard at PG, wing at UT.
    lay = SlotLayout.from_counts({0: 1, 4: 1, 11: 1})
    cands = [Candidate(1, 40.0, both(PF, C)), Candidate(2, 30.0, PG), Candidate(3, 25.0, SF)]
    out = best_lineup(cands, lay)
    assert out.total == 95.0
    assert out.starters == {0: [2], 4: [1], 11: [3]}


def test_augmenting_path_moves_earlier_starter():
    # Slots G and UT.  A (PG/SG, 30) then B (PG only... mask G+UT, 25) then C (C, 20): with
    # naive filling A takes G, B takes UT, C sits: 55.  Same here since C fits only UT; but if
    # C were worth more than B the path must move B.  Check 30 + 28 with C=28.
    lay = SlotLayout.from_counts({5: 1, 11: 1})
    cands = [Candidate(1, 30.0, both(PG, SG)), Candidate(2, 25.0, PG), Candidate(3, 28.0, C)]
    out = best_lineup(cands, lay)
    assert out.total == 58.0
    assert out.starters == {5: [1], 11: [3]}
    bench = {b.player_id: b.reason for b in out.bench}
    assert bench[2].startswith("outscored by")
    assert "G, UT" in bench[2]


def test_bench_reasons():
    cands = [Candidate(1, 0.0, PG, plays=False, name="Idle"),
             Candidate(2, 0.0, SG, injury_status="OUT", name="Hurt"),
             Candidate(3, 35.0, C, on_ir=True, name="Stashed"),
             Candidate(4, 20.0, PG, name="Starter")]
    out = best_lineup(cands, LAYOUT)
    reasons = {b.player_id: b.reason for b in out.bench}
    assert reasons == {1: "no game", 2: "injured OUT", 3: "on IR"}
    assert out.starters[0] == [4]


def test_nobody_plays_and_only_ir():
    assert best_lineup([], LAYOUT).total == 0.0
    out = best_lineup([Candidate(i, 10.0, PG, on_ir=True) for i in range(3)], LAYOUT)
    assert out.total == 0.0 and len(out.bench) == 3
    assert solve_day([], [], list(LAYOUT.caps)) == (0.0, [])


def test_more_players_than_slots():
    cands = [Candidate(i, 50.0 - i, both(PG, SG)) for i in range(15)]
    out = best_lineup(cands, LAYOUT)
    # guards fit PG, SG, G and 3 UT = 6 starters: the six best
    assert sorted(out.starter_ids()) == [0, 1, 2, 3, 4, 5]
    assert out.total == sum(50.0 - i for i in range(6))
    assert len(out.bench) == 9


def test_week_plan_hand_case_and_games_cap():
    # one UT slot, two players over two days
    values = [[10.0, 0.0], [8.0, 6.0]]
    masks = [1, 1]
    assert plan_week(values, masks, [1]).total == 16.0
    capped = plan_week(values, masks, [1], games_cap=1)
    assert capped.total == 10.0 and capped.starts == 1
    assert plan_week(values, masks, [1], games_cap=0).total == 0.0


def test_scan_hand_case_and_empty_pool():
    # roster: A (PG, plays day 0 for 10), B (C, plays both days for 5); FA Y (C, 9 and 9)
    values = np.array([[10.0, 0.0], [5.0, 5.0], [9.0, 9.0]])
    masks = [LAYOUT.mask(PG), LAYOUT.mask(C), LAYOUT.mask(C)]
    res = scan_points(values, masks, LAYOUT.caps, [1, 2, 3], [0, 1], [0, 1], [2])
    assert res.base_total == 20.0
    # drop A add Y: day0 5+9, day1 5+9 -> 28 (+8); drop B add Y: day0 10+9, day1 9 -> 28 (+8)
    assert res.gains[:, 0].tolist() == [8.0, 8.0]
    assert res.starts_delta[:, 0].tolist() == [1, 0]
    empty = scan_points(values, masks, LAYOUT.caps, [1, 2, 3], [0, 1], [0, 1], [])
    assert empty.gains.shape == (2, 0)


def test_multimove_k0_and_no_pool():
    values = np.array([[10.0, 0.0], [9.0, 9.0]])
    masks = [LAYOUT.mask(PG), LAYOUT.mask(C)]
    p = plan_moves(values, masks, LAYOUT.caps, [1, 2], [0], [1], 0)
    assert p.moves == [] and p.gain == 0.0
    p = plan_moves(values, masks, LAYOUT.caps, [1, 2], [0], [], 3)
    assert p.moves == [] and p.gain == 0.0


def test_multimove_picks_day_of_add():
    # roster of one UT slot + one bench: R1 plays day 0 only (10), R2 plays day 0 (4).
    # FA F1 plays days 1-2 (8 each).  Best: drop R2 on day 1, add F1 -> 10 + 16.
    lay = SlotLayout.from_counts({11: 1})
    values = np.array([[10.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 8.0, 8.0], [0.0, 0.0, 3.0]])
    masks = [1, 1, 1, 1]
    p = plan_moves(values, masks, lay.caps, [1, 2, 3, 4], [0, 1], [2, 3], 1)
    assert abs(p.total - 26.0) < 1e-6
    assert len(p.moves) == 1 and p.moves[0].add == 3
    assert p.moves[0].drop in (1, 2)


def test_categories_reverse_and_decided():
    cats = [Category("PTS", 0, dispersion=6.0), Category("TO", 1, reverse=True, dispersion=1.3),
            Category("FG%", 2, 3)]
    m = Matchup(np.array([500.0, 10.0, 200.0, 400.0]), np.array([100.0, 50.0, 150.0, 400.0]),
                np.array([10.0, 2.0, 5.0, 10.0]))
    p = win_probabilities(cats, np.array([10.0, 2.0, 5.0, 10.0]), m)
    assert p[0] > 0.999 and p[1] > 0.999  # far ahead in PTS, far fewer TO: decided wins
    assert p[2] > 0.999  # 205/410 vs 155/410
    m2 = Matchup(np.zeros(4), np.zeros(4), np.array([100.0, 10.0, 40.0, 90.0]))
    lo = expected_wins(cats, np.array([90.0, 12.0, 38.0, 90.0]), m2)
    hi = expected_wins(cats, np.array([110.0, 8.0, 42.0, 90.0]), m2)
    assert hi > lo


def test_bench_reason_parts_word_the_reason() -> None:
    """An outscored player's reason comes with its parts (who outscores him, at which
    slots), so an answer words the values its own way instead of editing the reason."""
    from fantasy.optimizer.lineup import Candidate, best_lineup, outscored_reason

    layout = SlotLayout.from_counts({"0": 1, "5": 1})  # PG, G
    cands = [Candidate(1, 12.34, (0, 5), name="A"), Candidate(2, 14.0, (0, 5), name="B"),
             Candidate(3, 9.5, (0, 5), name="C")]
    out = best_lineup(cands, layout)
    sits = next(b for b in out.bench if b.player_id == 3)
    assert sits.reason == "outscored by A (12.3), B (14.0) at eligible slots PG, G"
    assert sits.outscored_by == [("A", 12.3), ("B", 14.0)] and sits.eligible_at == ["PG", "G"]
    assert outscored_reason(sits.outscored_by, 0, sits.eligible_at) == sits.reason
    assert outscored_reason(sits.outscored_by, 2, ["PG"], "fpts") == \
        "outscored by A (12.3 fpts), B (14.0 fpts) and 2 more at eligible slots PG"
    assert outscored_reason(sits.outscored_by, 0, ["PG"], None) == \
        "outscored by A, B at eligible slots PG"
