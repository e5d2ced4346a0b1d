"""HiGHS, the MILP solver behind scipy.optimize.milp, without importing scipy.optimize.

`import scipy.optimize` costs 0.3-0.45 s per process (it pulls in scipy.linalg, scipy.fft,
numpy.f2py, ...); the move plan needs only HiGHS, which scipy ships as the extension module
`scipy.optimize._highspy._core` (5 ms to load).  `solve` loads that module from scipy's own
files (registered under its own name, so a later `import scipy.optimize` reuses it) and does
exactly what `scipy.optimize.milp` (scipy/optimize/_milp.py and _highspy/_highs_wrapper.py)
does with the same arguments: the same column-wise matrix, bounds, integrality and options
passed to the same HiGHS, so the same solution, bit for bit (tests/optimizer/test_highs.py
checks it against milp).  When the module is not where scipy 1.15-1.17 keep it, `solve`
falls back to scipy.optimize.milp.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

_CORE = "scipy.optimize._highspy._core"
_lock = threading.Lock()
_core: Any = None
_core_failed = False


@dataclass
class MilpResult:
    """status as scipy.optimize.milp reports it (0 optimal, 1 time/iteration limit, 2
    infeasible, 3 unbounded, 4 other); x = solution (None when there is none)."""

    status: int
    x: np.ndarray | None


def _load_core() -> Any:
    """scipy's HiGHS extension module, loaded once (None when it cannot be)."""
    global _core, _core_failed
    if _core is not None or _core_failed:
        return _core
    with _lock:
        if _core is not None or _core_failed:
            return _core
        mod = sys.modules.get(_CORE)
        if mod is None:
            try:
                spec = importlib.util.find_spec("scipy")
                roots = list(spec.submodule_search_locations or []) if spec else []
                path = None
                for root in roots:
                    folder = os.path.join(root, "optimize", "_highspy")
                    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
                        cand = os.path.join(folder, "_core" + suffix)
                        if os.path.exists(cand):
                            path = cand
                            break
                    if path:
                        break
                if path is None:
                    raise ImportError("scipy's HiGHS module not found")
                loader = importlib.machinery.ExtensionFileLoader(_CORE, path)
                mspec = importlib.util.spec_from_file_location(_CORE, path, loader=loader)
                if mspec is None:
                    raise ImportError("no spec for scipy's HiGHS module")
                mod = importlib.util.module_from_spec(mspec)
                sys.modules[_CORE] = mod  # one copy per process: scipy.optimize reuses it
                try:
                    loader.exec_module(mod)
                except BaseException:
                    sys.modules.pop(_CORE, None)
                    raise
            except Exception:  # noqa: BLE001 - any failure: use scipy.optimize.milp
                _core_failed = True
                return None
        needed = ("HighsLp", "_Highs", "HighsOptions", "MatrixFormat", "HighsVarType",
                  "HighsModelStatus", "HighsStatus", "kHighsInf")
        if not all(hasattr(mod, n) for n in needed):
            _core_failed = True
            return None
        _core = mod
        return _core


def csc(rows: list[int], cols: list[int], data: list[float], n_rows: int, n_cols: int
        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indptr, indices, data) of the column-wise matrix with these (row, col, value)
    entries, as scipy builds it (`coo_array(...).tocsr()` then csc: entries of a column by
    row; duplicate entries summed)."""
    r = np.asarray(rows, dtype=np.int64)
    c = np.asarray(cols, dtype=np.int64)
    v = np.asarray(data, dtype=np.float64)
    if len(r):
        key = c * max(n_rows, 1) + r
        order = np.argsort(key, kind="stable")
        key, r, c, v = key[order], r[order], c[order], v[order]
        first = np.ones(len(key), dtype=bool)
        first[1:] = key[1:] != key[:-1]
        if not first.all():  # duplicates: summed (in COO order, as scipy sums them)
            group = np.cumsum(first) - 1
            summed = np.zeros(int(group[-1]) + 1)
            np.add.at(summed, group, v)
            r, c, v = r[first], c[first], summed
    counts = np.bincount(c, minlength=n_cols) if len(c) else np.zeros(n_cols, dtype=np.int64)
    indptr = np.zeros(n_cols + 1, dtype=np.int32)
    np.cumsum(counts, out=indptr[1:])
    return indptr, r.astype(np.int32), v


def solve(cost: list[float], integrality: list[int], lb: list[float], ub: list[float],
          rows: list[int], cols: list[int], data: list[float], rlo: list[float],
          rhi: list[float], *, mip_rel_gap: float = 0.0, time_limit: float | None = None
          ) -> MilpResult:
    """min cost @ x  s.t.  rlo <= A x <= rhi, lb <= x <= ub, x[j] integral where
    integrality[j] (A given by its (rows, cols, data) entries), as scipy.optimize.milp with
    options {"disp": False, "mip_rel_gap": mip_rel_gap, "time_limit": time_limit}."""
    n_cols, n_rows = len(cost), len(rlo)
    core = _load_core()
    if core is None:
        return _solve_scipy(cost, integrality, lb, ub, rows, cols, data, rlo, rhi,
                            mip_rel_gap, time_limit)
    h = core
    c = np.asarray(cost, dtype=np.float64)
    integ = np.asarray(integrality, dtype=np.uint8)
    indptr, indices, values = csc(rows, cols, data, n_rows, n_cols)
    lp = h.HighsLp()
    lp.num_col_ = n_cols
    lp.num_row_ = n_rows
    lp.a_matrix_.num_col_ = n_cols
    lp.a_matrix_.num_row_ = n_rows
    lp.a_matrix_.format_ = h.MatrixFormat.kColwise
    lp.col_cost_ = c
    lp.col_lower_ = np.asarray(lb, dtype=np.float64)
    lp.col_upper_ = np.asarray(ub, dtype=np.float64)
    lp.row_lower_ = np.asarray(rlo, dtype=np.float64)
    lp.row_upper_ = np.asarray(rhi, dtype=np.float64)
    lp.a_matrix_.start_ = indptr
    lp.a_matrix_.index_ = indices
    lp.a_matrix_.value_ = values
    if integ.size > 0:
        lp.integrality_ = [h.HighsVarType(i) for i in integ]
    highs = h._Highs()
    opts = h.HighsOptions()
    opts.log_to_console = False
    opts.mip_rel_gap = float(mip_rel_gap)
    if time_limit is not None:
        opts.time_limit = float(time_limit)
    if highs.passOptions(opts) == h.HighsStatus.kError:
        return MilpResult(4, None)
    if highs.passModel(lp) == h.HighsStatus.kError:
        return MilpResult(2, None)  # kModelError, as milp reports it
    if highs.run() == h.HighsStatus.kError:
        return MilpResult(_status(h, highs.getModelStatus()), None)
    status = highs.getModelStatus()
    info = highs.getInfo()
    limits = (h.HighsModelStatus.kTimeLimit, h.HighsModelStatus.kIterationLimit,
              h.HighsModelStatus.kSolutionLimit)
    is_mip = bool(integ.sum() > 0)
    if is_mip:
        failed = (status not in (h.HighsModelStatus.kOptimal, *limits)
                  or (status in limits and info.objective_function_value == h.kHighsInf))
    else:
        failed = status != h.HighsModelStatus.kOptimal
    if failed:
        return MilpResult(_status(h, status), None)
    return MilpResult(_status(h, status), np.array(highs.getSolution().col_value))


def _status(h: Any, status: Any) -> int:
    """scipy's status number for a HiGHS model status (_linprog_highs)."""
    s = h.HighsModelStatus
    if status == s.kOptimal:
        return 0
    if status in (s.kTimeLimit, s.kIterationLimit):
        return 1
    if status in (s.kInfeasible, s.kModelError):
        return 2
    if status == s.kUnbounded:
        return 3
    return 4


def _solve_scipy(cost, integrality, lb, ub, rows, cols, data, rlo, rhi, mip_rel_gap,
                 time_limit) -> MilpResult:
    from scipy.optimize import Bounds, LinearConstraint, milp  # noqa: PLC0415 - fallback
    from scipy.sparse import coo_array  # noqa: PLC0415

    constraints = []
    if rlo:
        a = coo_array((data, (rows, cols)), shape=(len(rlo), len(cost))).tocsr()
        constraints = [LinearConstraint(a, np.array(rlo), np.array(rhi))]
    options: dict[str, object] = {"disp": False, "mip_rel_gap": mip_rel_gap}
    if time_limit is not None:
        options["time_limit"] = float(time_limit)
    res = milp(np.array(cost), integrality=np.array(integrality), bounds=Bounds(lb, ub),
               constraints=constraints, options=options)
    return MilpResult(int(res.status), res.x if res.x is not None else None)


__all__ = ["MilpResult", "csc", "solve"]
