"""fantasy.optimizer.highs runs scipy's HiGHS without importing scipy.optimize: the same
models give scipy.optimize.milp's status and solution bit for bit, and a plan process
never imports scipy.optimize."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from fantasy.optimizer import highs
from fantasy.optimizer.plan import best_plan
from fantasy.optimizer.synthetic import make_league


def _capture_models(monkeypatch) -> list[tuple]:
    """Every model the plan engine solves on a set of random instances (its solve args)."""
    models: list[tuple] = []
    real = highs.solve

    def spy(*args, **kwargs):
        models.append((args, kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(highs, "solve", spy)
    for seed in range(40):
        rng = np.random.default_rng(seed)
        lg = make_league(7_000 + seed, n_roster=int(rng.integers(6, 14)),
                         n_fa=int(rng.integers(4, 30)), n_days=int(rng.integers(2, 8)))
        values = lg.values.copy()
        if seed % 2:
            values = np.where(lg.plays, values.max(axis=1)[:, None], 0.0)
            values = np.round(values / 5.0) * 5.0  # ties
        slot_caps = ({0: int(rng.integers(0, 6)), 2: int(rng.integers(0, 6))}
                     if seed % 5 == 0 else None)
        games_cap = int(rng.integers(5, 30)) if seed % 7 == 0 else None
        best_plan(values, lg.masks, lg.layout.caps, lg.keys, lg.roster, lg.pool,
                  int(rng.integers(2, 5)), first_day=int(seed % 3 == 0),
                  protected={lg.roster[0]} if seed % 4 == 0 else set(),
                  slot_caps=slot_caps, games_cap=games_cap)
    monkeypatch.undo()
    return models


def test_same_status_and_solution_as_scipy_milp(monkeypatch):
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_array

    models = _capture_models(monkeypatch)
    assert len(models) >= 40
    for args, kwargs in models:
        cost, integ, lb, ub, rows, cols, data, rlo, rhi = args
        got = highs.solve(*args, **kwargs)
        constraints = []
        if rlo:
            a = coo_array((data, (rows, cols)), shape=(len(rlo), len(cost))).tocsr()
            constraints = [LinearConstraint(a, np.array(rlo), np.array(rhi))]
        options = {"disp": False, "mip_rel_gap": kwargs["mip_rel_gap"]}
        if kwargs.get("time_limit") is not None:
            options["time_limit"] = float(kwargs["time_limit"])
        ref = milp(np.array(cost), integrality=np.array(integ), bounds=Bounds(lb, ub),
                   constraints=constraints, options=options)
        assert got.status == ref.status
        assert (got.x is None) == (ref.x is None)
        if ref.x is not None:
            assert np.array_equal(got.x, ref.x)  # bit for bit


def test_infeasible_and_empty_models():
    # x0 + x1 >= 3 with binaries: infeasible (scipy's status 2)
    res = highs.solve([1.0, 1.0], [1, 1], [0, 0], [1, 1], [0, 0], [0, 1], [1.0, 1.0],
                      [3.0], [np.inf])
    assert res.status == 2 and res.x is None
    res = highs.solve([-1.0, -2.0], [1, 0], [0, 0], [1, 1], [], [], [], [], [])
    assert res.status == 0 and np.array_equal(res.x, [1.0, 1.0])


def test_csc_sorts_by_column_then_row_and_sums_duplicates():
    indptr, indices, data = highs.csc([1, 0, 1, 0], [0, 1, 0, 0], [1.0, 2.0, 3.0, 4.0], 2, 3)
    assert indptr.tolist() == [0, 2, 3, 3]
    assert indices.tolist() == [0, 1, 0]
    assert data.tolist() == [4.0, 4.0, 2.0]


@pytest.mark.parametrize("then_scipy", [False, True])
def test_plan_process_does_not_import_scipy_optimize(then_scipy):
    """A move plan loads HiGHS alone; scipy.optimize imported later reuses the same module."""
    code = (
        "import sys\n"
        "import numpy as np\n"
        "from fantasy.optimizer.plan import best_plan\n"
        "from fantasy.optimizer.synthetic import make_league\n"
        "lg = make_league(5, n_fa=20)\n"
        "sol = best_plan(lg.values, lg.masks, lg.layout.caps, lg.keys, lg.roster, lg.pool, 3)\n"
        "assert sol.status == 'Optimal', sol.status\n"
        "assert 'scipy.optimize._highspy._core' in sys.modules\n"
        "assert 'scipy.optimize' not in sys.modules, 'scipy.optimize imported'\n"
    )
    if then_scipy:
        code += (
            "from scipy.optimize import milp\n"
            "res = milp(np.array([-1.0]), integrality=np.array([1]), bounds=(0, 1))\n"
            "assert res.status == 0 and res.x[0] == 1.0\n"
            "sol2 = best_plan(lg.values, lg.masks, lg.layout.caps, lg.keys, lg.roster,\n"
            "                 lg.pool, 3)\n"
            "assert sol2.steps == sol.steps and sol2.total == sol.total\n"
        )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
