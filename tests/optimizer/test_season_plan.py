"""The season-aware plan (plan.best_plan with keep_value and the IR option) equals independent
optima: the PuLP/CBC model (multimove.plan_moves, same terminal term, no pruning) on random
instances built from season.season_values, and brute force over every plan on tiny ones.
Plus the season module's own arithmetic (replacements, keep values, core)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from fantasy.optimizer.lineup import solve_day
from fantasy.optimizer.multimove import plan_moves
from fantasy.optimizer.plan import (
    ADD_COST,
    KEEP_ADDED,
    KEEP_ROSTER,
    PlanStep,
    _forced,
    _milp,
    _one_move,
    apply_steps,
    best_plan,
    evaluate_members,
    prune_pool,
    terminal_value,
)
from fantasy.optimizer.season import replacement_levels, season_values
from fantasy.optimizer.synthetic import make_league

TOL = 2e-3


def _season_instance(seed: int):
    rng = np.random.default_rng(seed)
    lg = make_league(seed, n_roster=int(rng.integers(6, 13)), n_fa=int(rng.integers(4, 14)),
                     n_days=int(rng.integers(2, 7)))
    values = lg.values.copy()
    ppg = values.max(axis=1, initial=0.0)
    games = rng.integers(0, 30, len(ppg)).astype(float)
    sv = season_values(ppg, games, lg.masks, lg.roster, lg.pool,
                       position_mask=0b11111, core_top_n=int(rng.integers(0, 4)))
    ir = [int(rng.choice(lg.roster))] if rng.random() < 0.5 else []
    for p in ir:  # an OUT player: no games this matchup
        values[p] = 0.0
    k = int(rng.integers(1, 4))
    return lg, values, sv, ir, k


@pytest.mark.parametrize("chunk", range(4))
def test_season_plan_equals_pulp_model(chunk):
    for seed in range(chunk * 30, (chunk + 1) * 30):
        lg, values, sv, ir, k = _season_instance(52_000 + seed)
        protected = set(sv.core) - set(ir)
        sticky = sv.core_adds if seed % 2 else list(lg.pool[::3])
        sol = best_plan(values, lg.masks, lg.layout.caps, lg.keys, lg.roster, lg.pool, k,
                        protected=protected, keep_value=sv.keep_value, ir_rows=ir,
                        ir_slots=1, sticky_adds=sticky)
        ref = plan_moves(values, lg.masks, lg.layout.caps, lg.keys, lg.roster, lg.pool, k,
                         protected=protected, keep_value=sv.keep_value, ir_rows=ir,
                         ir_slots=1, sticky_adds=sticky)
        assert ref.status == "Optimal", (seed, ref.status)
        assert abs(sol.base_total - ref.base_total) < 1e-6
        assert abs(sol.base_keep - ref.base_keep) < 1e-6
        got = sol.total + sol.keep_total if sol.steps else sol.base_total + sol.base_keep
        assert abs(got - (ref.total + ref.keep_total)) < TOL, (seed, got, ref.total,
                                                               ref.keep_total)
        members = apply_steps(lg.roster, sol.steps, values.shape[1])
        for s in sol.steps:
            assert s.drop not in protected and s.drop not in set(sticky)
            assert s.to_ir == (s.drop in ir)
        if sol.steps:
            assert sol.objective_gain > 0
            assert abs(sol.keep_total - terminal_value(members[-1], lg.roster, sv.keep_value,
                                                       ir)) < 1e-9
            assert all(len(m) == len(lg.roster) for m in members)


def _model_objective(sol, base_total, keep, ir, n_days):
    """The time-indexed model's objective (maximised) of a one-move solution, tie-break
    included, relative to doing nothing (base_total: the lineups' value with no new move)."""
    if not sol.steps:
        return 0.0
    (s,) = sol.steps
    keep_term = keep[s.add] - (0.0 if s.drop in ir else keep[s.drop])
    return ((sol.total - base_total + keep_term) - (KEEP_ROSTER - KEEP_ADDED) * (n_days - s.day)
            - ADD_COST)


def test_one_move_enumeration_is_the_model_optimum():
    """With one acquisition best_plan enumerates (drop, add, day) instead of solving the MILP:
    same objective as HiGHS on the same model, and the same move whenever the optimum is
    unique (an exact tie, e.g. two zero-value bench players to drop, may go either way).
    Half the instances have an approved move fixed on its day (a week plan's schedule)."""
    checked = same = 0
    for seed in range(80):
        rng = np.random.default_rng(71_000 + seed)
        lg = make_league(seed, n_roster=int(rng.integers(6, 14)),
                         n_fa=int(rng.integers(4, 30)), n_days=int(rng.integers(2, 8)))
        values = lg.values.copy()
        ppg = values.max(axis=1, initial=0.0)
        games = rng.integers(0, 30, len(ppg)).astype(float)
        sv = season_values(ppg, games, lg.masks, lg.roster, lg.pool, position_mask=0b11111,
                           core_top_n=int(rng.integers(0, 4)))
        keep = np.asarray(sv.keep_value, dtype=float) + rng.uniform(0, 1e-3, len(ppg))
        ir = [int(rng.choice(lg.roster))] if rng.random() < 0.5 else []
        for p in ir:
            values[p] = 0.0
        n_days = values.shape[1]
        first = int(rng.integers(0, n_days))
        protected = set(sv.core) - set(ir)
        fixed: list[PlanStep] = []
        if seed % 2:  # an approved move: a replaceable player out for a free agent
            out = [i for i in lg.roster if i not in protected and i not in ir]
            if out:
                fixed = [PlanStep(int(rng.integers(first, n_days)), int(rng.choice(out)),
                                  int(lg.pool[0]))]
        rows = {r for st in fixed for r in (st.drop, st.add)}
        protected -= rows
        ir = [p for p in ir if p not in rows]
        drops = [i for i in lg.roster if i not in protected and i not in rows]
        pool = prune_pool(values, lg.masks, [y for y in lg.pool if y not in rows], 1,
                          first_day=first, keys=lg.keys, keep_value=keep)
        fast = _one_move(values, lg.masks, lg.layout.caps, lg.keys, list(lg.roster), drops,
                         pool, first, keep_value=keep, ir_rows=ir, fixed=fixed)
        ref = _milp(values, lg.masks, lg.layout.caps, list(lg.roster), pool, 1, first,
                    protected, None, None, None, None, keep_value=keep, ir_rows=ir,
                    ir_slots=1 if ir else 0, forced=_forced(lg.roster, fixed, n_days, first))
        base_total, _ = evaluate_members(values, lg.masks, lg.layout.caps, lg.keys,
                                         apply_steps(lg.roster, fixed, n_days))
        a = _model_objective(fast, base_total, keep, set(ir), n_days)
        b = max(_model_objective(ref, base_total, keep, set(ir), n_days), 0.0)
        assert abs(a - b) < 1e-7, (seed, fast.steps, ref.steps, a, b)
        checked += 1
        same += [(s.day, s.drop, s.add, s.to_ir) for s in fast.steps] == \
            [(s.day, s.drop, s.add, s.to_ir) for s in ref.steps] or (not fast.steps and b <= 0)
        if fast.steps:
            assert [sorted(m) for m in fast.members] == [sorted(m) for m in ref.members]
        via = best_plan(values, lg.masks, lg.layout.caps, lg.keys, lg.roster, lg.pool, 1,
                        first_day=first, protected=protected, keep_value=keep, ir_rows=ir,
                        ir_slots=1, fixed=fixed)
        assert [(s.day, s.drop, s.add) for s in via.steps] == \
            [(s.day, s.drop, s.add) for s in fast.steps]
    assert same == checked  # keep values jittered: the optimum is unique


def _brute(values, masks, caps, keys, roster, pool, k, protected, keep, ir, ir_slots,
           sticky=()):
    n_days = values.shape[1]
    memo: dict = {}

    def day_value(mem, d):
        rows = sorted(mem)
        return solve_day([float(values[i, d]) for i in rows], [masks[i] for i in rows], caps,
                         [keys[i] for i in rows])[0]

    def go(d, mem, used, left, ir_left):
        if d == n_days:
            return sum(keep[i] for i in mem) + sum(keep[p] for p in ir if p not in mem)
        key = (d, mem, used, left, ir_left)
        if key in memo:
            return memo[key]
        options = [(mem, used, left, ir_left)]
        if left:
            droppable = [i for i in mem if i not in protected and i not in sticky]
            free = [y for y in pool if y not in used]
            for s in range(1, left + 1):
                for out in itertools.combinations(droppable, s):
                    n_ir = sum(1 for i in out if i in ir)
                    if n_ir > ir_left:
                        continue
                    for inn in itertools.combinations(free, s):
                        options.append((frozenset(mem - set(out)) | frozenset(inn),
                                        used | frozenset(inn), left - s, ir_left - n_ir))
        best = max(day_value(m2, d) + go(d + 1, m2, u2, l2, i2) for m2, u2, l2, i2 in options)
        memo[key] = best
        return best

    return go(0, frozenset(roster), frozenset(), k, ir_slots)


def test_season_plan_equals_brute_force_on_tiny_instances():
    for seed in range(80):
        rng = np.random.default_rng(93_000 + seed)
        n_roster, n_fa, n_days = int(rng.integers(2, 5)), int(rng.integers(1, 4)), 3
        caps = [int(rng.integers(0, 2)) for _ in range(3)] + [1]
        n = n_roster + n_fa
        masks = [int(rng.integers(1, 16)) for _ in range(n)]
        values = np.where(rng.random((n, n_days)) < 0.6,
                          np.round(rng.uniform(1, 30, (n, n_days))), 0.0)
        roster, pool = list(range(n_roster)), list(range(n_roster, n))
        keep = np.round(rng.uniform(-40, 40, n))
        keep[pool] = -np.abs(keep[pool])  # free agents: at most replacement
        ir = [0] if rng.random() < 0.5 else []
        if ir:
            values[0] = 0.0
        k = int(rng.integers(1, 3))
        protected = {1} if rng.random() < 0.3 and n_roster > 1 else set()
        sticky = set(pool[:1]) if rng.random() < 0.5 else set()
        sol = best_plan(values, masks, caps, list(range(100, 100 + n)), roster, pool, k,
                        protected=protected, keep_value=keep, ir_rows=ir, ir_slots=1,
                        sticky_adds=sticky)
        ref = _brute(values, masks, caps, list(range(100, 100 + n)), roster, pool, k,
                     protected, keep, ir, 1, sticky)
        got = sol.total + sol.keep_total if sol.steps else sol.base_total + sol.base_keep
        assert abs(got - ref) < TOL, (seed, got, ref)


def test_replacement_is_the_best_free_agent_at_his_positions():
    # bits: 0 = PG, 1 = C, 2 = UT (not a position)
    masks = [0b101, 0b110, 0b101, 0b110, 0b100]
    ros = [300.0, 500.0, 250.0, 200.0, 900.0]  # rows 2, 3, 4 are free agents
    rep, rep_ros = replacement_levels(ros, masks, [0, 1], [2, 3, 4], position_mask=0b011)
    assert list(rep[:2]) == [2, 3]  # row 4 (UT only, best overall) fills neither position
    assert list(rep_ros[:2]) == [250.0, 200.0]


def test_keep_values_and_core():
    ppg = np.array([40.0, 30.0, 22.0, 31.0, 29.0])
    games = np.array([30.0, 30.0, 30.0, 30.0, 10.0])
    masks = [1, 1, 1, 1, 1]
    sv = season_values(ppg, games, masks, [0, 1, 2], [3, 4], core_top_n=1)
    assert sv.replacement[0] == 3  # 31 x 30 beats 29 x 10
    assert sv.keep_value[0] == pytest.approx(40 * 30 - 31 * 30)
    assert sv.keep_value[2] == 0.0  # below replacement: costs nothing to drop
    # a free agent's replacement is the best other one: 3 is worth 31 x 30 - 29 x 10 kept
    assert sv.replacement[3] == 4 and sv.keep_value[3] == pytest.approx(31 * 30 - 29 * 10)
    assert sv.keep_value[4] == 0.0
    assert sv.above_per_game(2) == pytest.approx(22 - 31)
    assert sv.core == [0] and sv.replaceable == [1, 2]


def test_a_one_week_gain_does_not_buy_a_core_player():
    """A streamer gains 20 this week over player 0, whose rest of season is worth 100 above
    replacement: without the season term the plan drops him, with it the plan keeps him and
    drops player 1 (5 above replacement, who plays no game this week) instead."""
    values = np.array([[10.0, 10.0], [0.0, 0.0], [20.0, 20.0]])
    masks = [1, 1, 1]
    week = best_plan(values, masks, [1], [1, 2, 3], [0, 1], [2], 1)
    assert [(s.drop, s.add) for s in week.steps] == [(0, 2)]
    keep = np.array([100.0, 5.0, 0.0])
    season = best_plan(values, masks, [1], [1, 2, 3], [0, 1], [2], 1, keep_value=keep)
    assert [(s.drop, s.add) for s in season.steps] == [(1, 2)]
    assert season.season_gain == pytest.approx(-5.0) and season.gain == pytest.approx(20.0)


def test_ir_frees_a_spot_before_any_drop():
    """An OUT player who may go to the IR leaves for it: the add needs no drop and nobody's
    season value is lost."""
    values = np.array([[0.0, 0.0], [10.0, 10.0], [15.0, 15.0]])
    masks = [1, 1, 1]
    keep = np.array([500.0, 50.0, 0.0])
    sol = best_plan(values, masks, [2], [1, 2, 3], [0, 1], [2], 1, keep_value=keep,
                    ir_rows=[0], ir_slots=1)
    assert [(s.drop, s.add, s.to_ir) for s in sol.steps] == [(0, 2, True)]
    assert sol.season_gain == 0.0 and sol.gain == pytest.approx(30.0)
    no_ir = best_plan(values, masks, [2], [1, 2, 3], [0, 1], [2], 1, keep_value=keep)
    assert not no_ir.steps  # every drop costs more than the streamer's 30


def test_core_counts_per_game_stars_and_a_buffer():
    """An injured star with few games left is core by value per game; a player within
    CORE_BUFFER of the last core player per game is core too; the rest are replaceable."""
    ppg = np.array([50.0, 40.0, 30.0, 29.0, 20.0, 25.0])
    games = np.array([5.0, 30.0, 30.0, 30.0, 30.0, 30.0])
    masks = [1] * 6
    sv = season_values(ppg, games, masks, [0, 1, 2, 3, 4], [5], core_top_n=2, margin=100.0)
    assert 0 in sv.core and 1 in sv.core  # 0: top 2 per game, not by ROS value (250 < 900)
    assert 2 in sv.core  # top 2 by ROS value
    assert sv.replaceable == [3, 4]  # 29 < 0.95 x 40 (the 2nd best per game)
    buf = season_values(ppg, games, masks, [0, 1, 2, 3, 4], [5], core_top_n=3, margin=100.0)
    assert 3 in buf.core and 4 not in buf.core  # 29 >= 0.95 x 30
