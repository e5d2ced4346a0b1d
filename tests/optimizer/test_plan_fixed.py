"""The exact move plan with moves already scheduled (`best_plan(..., fixed=...)`): the week
plan's approved moves are made on their days whatever a new plan says. On random instances:
re-planning with part of an optimal plan fixed finds the same optimum (fixed + new moves are
a plan under the same limit, and the optimum's other moves complete it), never plans a fixed
move's players again, and values the schedule alone as `base_total`."""

from __future__ import annotations

import numpy as np
import pytest

from fantasy.optimizer.plan import PlanStep, apply_steps, best_plan, evaluate_members
from fantasy.optimizer.synthetic import make_league

TOL = 2e-3  # the tie-break moves an optimum by at most ~1e-3 value units


@pytest.mark.parametrize("seed", range(60))
def test_replan_with_fixed_moves_keeps_the_optimum(seed):
    rng = np.random.default_rng(1000 + seed)
    lg = make_league(seed, n_roster=int(rng.integers(6, 12)), n_fa=int(rng.integers(4, 12)),
                     n_days=int(rng.integers(3, 7)))
    values, n_days = lg.values, lg.values.shape[1]
    k = int(rng.integers(2, 5))
    full = best_plan(values, lg.masks, lg.layout.caps, lg.keys, lg.roster, lg.pool, k)
    dropped = {s.drop for s in full.steps}
    plain = [s for s in full.steps if s.drop in lg.roster and s.add not in dropped]
    if not plain:
        pytest.skip("no move outside a streaming chain to fix")
    fixed = plain[: max(1, len(plain) // 2)]
    again = best_plan(values, lg.masks, lg.layout.caps, lg.keys, lg.roster, lg.pool,
                      k - len(fixed), fixed=fixed)
    sched, _ = evaluate_members(values, lg.masks, lg.layout.caps, lg.keys,
                                apply_steps(lg.roster, fixed, n_days))
    assert again.base_total == pytest.approx(sched)
    assert again.total == pytest.approx(full.total, abs=TOL)
    rows = {r for s in fixed for r in (s.drop, s.add)}
    assert not {r for s in again.steps for r in (s.drop, s.add)} & rows
    members = apply_steps(lg.roster, [*fixed, *again.steps], n_days)
    assert [sorted(m) for m in members] == [sorted(m) for m in again.members]
    assert len(again.steps) <= k - len(fixed)


def test_a_fixed_move_is_never_undone():
    """Even when the fixed move is a bad one, the new plan keeps it (the member approved it)."""
    lg = make_league(7, n_roster=8, n_fa=6, n_days=5)
    values = lg.values.copy()
    best_fa = max(lg.pool, key=lambda y: values[y].sum())
    worst_fa = min(lg.pool, key=lambda y: values[y].sum())
    star = max(lg.roster, key=lambda i: values[i].sum())
    fixed = [PlanStep(1, star, worst_fa)]  # drop the best player for the worst free agent
    sol = best_plan(values, lg.masks, lg.layout.caps, lg.keys, lg.roster, lg.pool, 2,
                    fixed=fixed)
    for d, mem in enumerate(sol.members or apply_steps(lg.roster, fixed, 5)):
        assert (star in mem) == (d < 1)
        assert (worst_fa in mem) == (d >= 1)
    assert all(s.add != worst_fa and s.drop != star for s in sol.steps)
    assert best_fa not in {s.drop for s in sol.steps}
