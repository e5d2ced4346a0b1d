"""Property tests: the exact move plan (fantasy.optimizer.plan.best_plan) equals independent
optima on random instances: one PuLP/CBC time-indexed model without pruning
(multimove.plan_moves, 320 instances incl. games caps, protected players, late first days and
realistic per-game values where dominance pruning bites) and brute force over every plan
(120 tiny instances).  Every plan is also checked for feasibility."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from fantasy.optimizer.lineup import solve_day
from fantasy.optimizer.multimove import plan_moves
from fantasy.optimizer.plan import apply_steps, best_plan, evaluate_members, prune_pool
from fantasy.optimizer.synthetic import make_league

N_PULP = 320
N_BRUTE = 120
TOL = 2e-3  # the tie-break moves an optimum by at most ~1e-3 value units


def _instance(seed: int):
    rng = np.random.default_rng(seed)
    n_roster = int(rng.integers(6, 14))
    lg = make_league(seed, n_roster=n_roster, n_fa=int(rng.integers(4, 16)),
                     n_days=int(rng.integers(2, 8)))
    values = lg.values.copy()
    if rng.random() < 0.5:  # realistic: one per-game value x games (dominance prunes)
        ppg = values.max(axis=1, initial=0.0)
        values = np.where(lg.plays, ppg[:, None], 0.0)
        values = np.round(values / 5.0) * 5.0  # ties too
    k = int(rng.integers(1, 5))
    first_day = int(rng.integers(0, 2)) if values.shape[1] > 2 else 0
    protected = {int(i) for i in rng.choice(n_roster, size=int(rng.integers(0, 4)),
                                            replace=False)}
    slot_caps = games_cap = None
    r = rng.random()
    if r < 0.2:
        slot_caps = {int(t): int(rng.integers(0, 2 * values.shape[1]))
                     for t in rng.choice(len(lg.layout.caps), size=2, replace=False)}
    elif r < 0.35:
        games_cap = int(rng.integers(5, 10 * values.shape[1]))
    return lg, values, k, first_day, protected, slot_caps, games_cap


def _check_feasible(sol, lg, values, k, first_day, protected):
    assert len(sol.steps) <= k
    added: set[int] = set()
    for s in sol.steps:
        assert s.day >= first_day
        assert s.drop not in protected
        assert s.add in lg.pool and s.add not in added
        added.add(s.add)
    members = apply_steps(lg.roster, sol.steps, values.shape[1])
    for d, mem in enumerate(members):
        assert len(mem) == len(lg.roster)
        assert sorted(mem) == sorted(sol.members[d])
    return members


@pytest.mark.parametrize("chunk", range(8))
def test_plan_equals_pulp_model(chunk):
    per = N_PULP // 8
    for seed in range(chunk * per, (chunk + 1) * per):
        lg, values, k, first_day, protected, slot_caps, games_cap = _instance(41_000 + seed)
        sol = best_plan(values, lg.masks, lg.layout.caps, lg.keys, lg.roster, lg.pool, k,
                        first_day=first_day, protected=protected, slot_caps=slot_caps,
                        games_cap=games_cap)
        ref = plan_moves(values, lg.masks, lg.layout.caps, lg.keys, lg.roster, lg.pool, k,
                         first_day=first_day, protected=protected, slot_caps=slot_caps,
                         games_cap=games_cap)
        assert sol.status in ("Optimal", "NoMovesPossible") and ref.status in (
            "Optimal", "NoMovesPossible"), (seed, sol.status, ref.status)
        assert abs(sol.base_total - ref.base_total) < 1e-6, seed
        assert abs(sol.total - ref.total) < TOL, (seed, sol.total, ref.total)
        members = _check_feasible(sol, lg, values, k, first_day, protected)
        value, _ = evaluate_members(values, lg.masks, lg.layout.caps, lg.keys, members,
                                    slot_caps=slot_caps, games_cap=games_cap)
        assert abs(value - sol.total) < 1e-6, seed
        if sol.steps:  # no move is worth nothing
            assert sol.gain > 0


def _brute(values, masks, caps, keys, roster, pool, k, first_day, protected):
    n_days = values.shape[1]
    memo: dict = {}

    def day_value(mem, d):
        rows = sorted(mem)
        return solve_day([float(values[i, d]) for i in rows], [masks[i] for i in rows], caps,
                         [keys[i] for i in rows])[0]

    def go(d, mem, used, left):
        if d == n_days:
            return 0.0
        key = (d, mem, used, left)
        if key in memo:
            return memo[key]
        best = -1.0
        options = [(mem, used, left)]
        if d >= first_day and left:
            droppable = [i for i in mem if i not in protected]
            free = [y for y in pool if y not in used]
            for s in range(1, left + 1):
                for out in itertools.combinations(droppable, s):
                    for inn in itertools.combinations(free, s):
                        options.append((frozenset(mem - set(out)) | frozenset(inn),
                                        used | frozenset(inn), left - s))
        for m2, u2, l2 in options:
            best = max(best, day_value(m2, d) + go(d + 1, m2, u2, l2))
        memo[key] = best
        return best

    return go(0, frozenset(roster), frozenset(), k)


def test_plan_equals_brute_force_on_tiny_instances():
    for seed in range(N_BRUTE):
        rng = np.random.default_rng(77_000 + seed)
        n_roster, n_fa, n_days = int(rng.integers(2, 5)), int(rng.integers(1, 4)), 3
        caps = [int(rng.integers(0, 2)) for _ in range(3)] + [1]
        n = n_roster + n_fa
        masks = [int(rng.integers(1, 16)) for _ in range(n)]
        values = np.where(rng.random((n, n_days)) < 0.6,
                          np.round(rng.uniform(1, 30, (n, n_days))), 0.0)
        roster, pool = list(range(n_roster)), list(range(n_roster, n))
        keys = list(range(100, 100 + n))
        k = int(rng.integers(1, 3))
        first_day = int(rng.integers(0, 2))
        protected = {0} if rng.random() < 0.3 else set()
        sol = best_plan(values, masks, caps, keys, roster, pool, k, first_day=first_day,
                        protected=protected)
        ref = _brute(values, masks, caps, keys, roster, pool, k, first_day, protected)
        assert abs(sol.total - ref) < TOL, (seed, sol.total, ref)


def test_pruning_keeps_the_optimum_and_shrinks_realistic_pools():
    shrunk = []
    for seed in range(20):
        lg = make_league(88_000 + seed, n_fa=60)
        values = np.where(lg.plays, lg.values.max(axis=1)[:, None], 0.0)
        for k in (1, 3):
            kept = prune_pool(values, lg.masks, lg.pool, k)
            if k == 1:
                shrunk.append(len(kept) / len(lg.pool))
            a = best_plan(values, lg.masks, lg.layout.caps, lg.keys, lg.roster, lg.pool, k)
            b = best_plan(values, lg.masks, lg.layout.caps, lg.keys, lg.roster, lg.pool, k,
                          prune=False)
            assert abs(a.total - b.total) < TOL
    assert float(np.median(shrunk)) < 0.6


def test_streaming_chain_and_move_days():
    """Two days, one roster spot: the best plan adds A for day 0 and swaps A for B on day 1
    (a chain: B replaces the player added the day before)."""
    masks = [1, 1, 1]
    values = np.array([[1.0, 1.0], [10.0, 0.0], [0.0, 10.0]])
    sol = best_plan(values, masks, [1], [1, 2, 3], [0], [1, 2], 2)
    assert [(s.day, s.drop, s.add) for s in sol.steps] == [(0, 0, 1), (1, 1, 2)]
    assert sol.total == 20.0 and sol.base_total == 2.0
    one = best_plan(values, masks, [1], [1, 2, 3], [0], [1, 2], 1)
    assert one.total == 11.0 and [(s.day, s.drop) for s in one.steps] in ([(0, 0)], [(1, 0)])


def test_drop_waits_for_the_day_it_is_needed():
    """The dropped player keeps his game on day 0; the add happens on day 1."""
    values = np.array([[5.0, 0.0, 0.0], [0.0, 0.0, 9.0]])
    sol = best_plan(values, [1, 1], [1], [1, 2], [0], [1], 1)
    assert [(s.day, s.drop, s.add) for s in sol.steps] == [(2, 0, 1)]
    assert sol.total == 14.0
