"""Property tests: the fast exact optimizer equals independent optima (scipy LSA, PuLP/CBC)."""

from __future__ import annotations

import numpy as np
import pulp
import pytest
from scipy.optimize import linear_sum_assignment

from fantasy.optimizer.categories import expected_wins, plan_categories, scan_categories
from fantasy.optimizer.lineup import solve_day
from fantasy.optimizer.multimove import plan_moves
from fantasy.optimizer.scan import scan_points
from fantasy.optimizer.solver import cbc
from fantasy.optimizer.synthetic import make_league, nine_cats, random_day
from fantasy.optimizer.week import plan_week, plan_week_pulp

N_DAILY_LSA = 1200
N_DAILY_PULP = 200


def lsa_value(values, masks, caps) -> float:
    cols = [t for t in range(len(caps)) for _ in range(caps[t])]
    if not values or not cols:
        return 0.0
    w = np.array([[((m >> t) & 1) * max(v, 0.0) for t in cols] for v, m in zip(values, masks, strict=True)])
    r, c = linear_sum_assignment(w, maximize=True)
    return float(w[r, c].sum())


def pulp_value(values, masks, caps) -> float:
    prob = pulp.LpProblem("day", pulp.LpMaximize)
    x = {(i, t): prob.add_variable(f"x_{i}_{t}", cat=pulp.LpBinary)
         for i in range(len(values)) for t in range(len(caps))
         if (masks[i] >> t) & 1 and caps[t] > 0 and values[i] > 0}
    if not x:
        return 0.0
    prob += pulp.lpSum(values[i] * v for (i, _), v in x.items())
    for i in range(len(values)):
        prob += pulp.lpSum(v for (j, _), v in x.items() if j == i) <= 1
    for t in range(len(caps)):
        prob += pulp.lpSum(v for (_, s), v in x.items() if s == t) <= caps[t]
    prob.solve(cbc())
    return float(pulp.value(prob.objective) or 0.0)


def check_feasible(values, masks, caps, assign) -> float:
    used = [0] * len(caps)
    total = 0.0
    for v, m, a in zip(values, masks, assign, strict=True):
        if a >= 0:
            assert (m >> a) & 1, "ineligible slot"
            assert v > 0
            used[a] += 1
            total += v
    assert all(u <= c for u, c in zip(used, caps, strict=True)), "slot over capacity"
    return total


def test_daily_equals_lsa_on_1200_seeded_instances():
    checked = 0
    for seed in range(N_DAILY_LSA):
        rng = np.random.default_rng(10_000 + seed)
        family = seed % 3  # realistic / all 13 play / random slots and eligibility
        n = 13 if family == 1 else None
        v, m, c = random_day(rng, n_players=n, stress=family == 2)
        total, assign = solve_day(v, m, c)
        assert abs(check_feasible(v, m, c, assign) - total) < 1e-9
        assert abs(total - lsa_value(v, m, c)) < 1e-6, seed
        checked += 1
    assert checked == N_DAILY_LSA


def test_daily_equals_pulp_on_subset():
    for seed in range(N_DAILY_PULP):
        rng = np.random.default_rng(50_000 + seed)
        v, m, c = random_day(rng, n_players=int(rng.integers(5, 16)), stress=seed % 2 == 0)
        assert abs(solve_day(v, m, c)[0] - pulp_value(v, m, c)) < 1e-6, seed


def test_deterministic_tie_break_by_key():
    # two identical players for one slot: the lower key starts, whatever the input order
    caps = [1]
    assert solve_day([10.0, 10.0], [1, 1], caps, keys=[7, 3])[1] == [-1, 0]
    assert solve_day([10.0, 10.0], [1, 1], caps, keys=[3, 7])[1] == [0, -1]


@pytest.mark.parametrize("seed", range(24))
def test_week_games_cap_equals_pulp(seed):
    lg = make_league(200_000 + seed, n_roster=13 + 2 * (seed % 2), n_fa=0)
    rng = np.random.default_rng(seed)
    full = plan_week(lg.values.tolist(), lg.masks, lg.layout.caps, lg.keys)
    cap = int(rng.integers(max(full.starts // 2, 1), full.starts + 2))
    fast = plan_week(lg.values.tolist(), lg.masks, lg.layout.caps, lg.keys, games_cap=cap)
    ref = plan_week_pulp(lg.values.tolist(), lg.masks, lg.layout.caps, games_cap=cap)
    assert fast.starts <= cap
    assert abs(fast.total - ref.total) < 1e-6
    if seed % 4 == 0:  # LP relaxation of the weekly assignment is integral (TU)
        lp = plan_week_pulp(lg.values.tolist(), lg.masks, lg.layout.caps, relax=True)
        assert abs(lp.total - full.total) < 1e-6


def test_per_slot_caps_model_respects_caps():
    lg = make_league(4242, n_fa=0)
    free = plan_week_pulp(lg.values.tolist(), lg.masks, lg.layout.caps)
    util = lg.layout.slot_ids.index(11)
    capped = plan_week_pulp(lg.values.tolist(), lg.masks, lg.layout.caps, slot_caps={util: 5})
    assert sum(1 for day in capped.assignments for t in day if t == util) <= 5
    assert capped.total <= free.total + 1e-9


def _week_lsa(lg, members, first_day=0, x=None, y=None):
    tot = 0.0
    for d in range(lg.values.shape[1]):
        mem = list(members)
        if x is not None and d >= first_day:
            mem = [i for i in mem if i != x] + [y]
        ps = [i for i in mem if lg.values[i, d] > 0]
        tot += lsa_value([float(lg.values[i, d]) for i in ps], [lg.masks[i] for i in ps],
                         list(lg.layout.caps))
    return tot


@pytest.mark.parametrize("seed", range(12))
def test_points_scan_equals_lsa_recompute(seed):
    lg = make_league(300_000 + seed, n_roster=13, n_fa=30, n_ir=seed % 3)
    first = seed % 3
    res = scan_points(lg.values, lg.masks, lg.layout.caps, lg.keys, lg.roster, lg.roster,
                      lg.pool, first_day=first)
    base = _week_lsa(lg, lg.roster)
    assert abs(res.base_total - base) < 1e-6
    rng = np.random.default_rng(seed)
    pairs = [(int(rng.integers(13)), int(rng.integers(30))) for _ in range(25)]
    best = np.unravel_index(np.argmax(res.gains), res.gains.shape)
    for a, b in pairs + [tuple(int(v) for v in best)]:
        g = _week_lsa(lg, lg.roster, first, lg.roster[a], lg.pool[b]) - base
        assert abs(g - res.gains[a, b]) < 1e-6, (seed, a, b)


@pytest.mark.parametrize("seed", range(4))
def test_points_scan_with_games_cap_matches_pulp(seed):
    lg = make_league(310_000 + seed, n_fa=6)
    cap = 28
    res = scan_points(lg.values, lg.masks, lg.layout.caps, lg.keys, lg.roster, lg.roster,
                      lg.pool, games_cap=cap)
    base = plan_week_pulp(lg.values[lg.roster].tolist(), [lg.masks[i] for i in lg.roster],
                          lg.layout.caps, games_cap=cap).total
    for a, b in [(0, 0), (5, 3), (12, 5)]:
        mem = [i for i in lg.roster if i != a] + [lg.pool[b]]
        v = plan_week_pulp(lg.values[mem].tolist(), [lg.masks[i] for i in mem], lg.layout.caps,
                           games_cap=cap).total
        assert abs((v - base) - res.gains[a, b]) < 1e-6


@pytest.mark.parametrize("seed", range(8))
def test_category_scan_equals_direct_evaluation(seed):
    lg = make_league(400_000 + seed, n_fa=20)
    cats = nine_cats()
    res = scan_categories(cats, lg.stats, lg.plays, lg.masks, lg.layout.caps, lg.keys,
                          lg.roster, lg.roster, lg.pool, lg.matchup)
    rng = np.random.default_rng(seed)
    for _ in range(15):
        a, b = int(rng.integers(13)), int(rng.integers(20))
        mem = [i for i in lg.roster if i != a] + [lg.pool[b]]
        plan = plan_categories(lg.stats, lg.plays, lg.masks, lg.layout.caps, lg.keys, mem,
                               res.weights)
        e = expected_wins(cats, plan.total, lg.matchup)
        assert abs((e - res.base_expected) - res.gains[a, b]) < 1e-9
        assert abs(res.cat_delta[a, b].sum() - res.gains[a, b]) < 1e-9


@pytest.mark.parametrize("seed", range(6))
def test_multimove_k1_on_first_day_equals_scan_best(seed):
    lg = make_league(500_000 + seed, n_fa=15)
    protected = {0, 1}
    drops = [i for i in lg.roster if i not in protected]
    scan = scan_points(lg.values, lg.masks, lg.layout.caps, lg.keys, lg.roster, drops, lg.pool)
    plan = plan_moves(lg.values, lg.masks, lg.layout.caps, lg.keys, lg.roster, lg.pool, 1,
                      protected=protected, adds_on_first_day_only=True)
    assert abs(plan.gain - max(scan.gains.max(), 0.0)) < 1e-6
    assert all(m.drop not in {lg.keys[i] for i in protected} for m in plan.moves)
    plan2 = plan_moves(lg.values, lg.masks, lg.layout.caps, lg.keys, lg.roster, lg.pool, 2,
                       protected=protected)
    assert plan2.gain >= plan.gain - 1e-6
    assert len(plan2.moves) <= 2


def test_category_scan_decided_categories_contribute_nothing():
    from fantasy.optimizer.categories import Matchup

    lg = make_league(777, n_fa=20)
    cats = nine_cats()
    cur = np.zeros(lg.stats.shape[2])
    cur[0] = 5000.0  # PTS: already far ahead -> decided win
    m = Matchup(cur, np.zeros_like(cur), lg.matchup.opp_remaining)
    res = scan_categories(cats, lg.stats, lg.plays, lg.masks, lg.layout.caps, lg.keys,
                          lg.roster, lg.roster, lg.pool, m)
    assert res.base_probs[0] > 0.999999
    assert np.abs(res.cat_delta[:, :, 0]).max() < 1e-6
    assert abs(res.weights[0]) < 1e-9  # no lineup weight on a decided category
