"""Multi-move plan: up to k (drop, add) moves and the day each happens, under the acquisition
limit, as ONE PuLP (CBC) model (a time-indexed streaming plan, no pruning).

The product uses fantasy.optimizer.plan.best_plan (exact, much faster); this model is its test
oracle and the benchmark's baseline.

Variables: on[i, d] (player i on the roster on day d), add[y, d] (free agent y acquired on day d),
x[i, d, t] (player i starts in slot type t on day d).  Rostered players can only leave (once);
a free agent can join once and may be dropped again later (a streaming stint).  Roster size never
exceeds today's; protected players stay all week.  A tiny reward for keeping players on the
roster makes each drop happen on the day of its add, so drops and adds pair up by day.

The rest of the season (as plan.best_plan): `keep_value[i]` is earned by each row on the roster
on the last day; `ir_rows` may leave for the IR (keeping their keep value), at most `ir_slots`;
`sticky_adds` stay once added.
The roster stays full every day (a drop needs an add).  `total` is the lineup value of the
matchup, `keep_total` the terminal value.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import numpy as np
import pulp

from fantasy.optimizer.solver import cbc
from fantasy.optimizer.week import plan_week, plan_week_pulp


@dataclass
class PlannedMove:
    day: int
    drop: int  # player key (id)
    add: int


@dataclass
class MultiMovePlan:
    base_total: float
    total: float
    moves: list[PlannedMove] = field(default_factory=list)
    status: str = "Optimal"
    keep_total: float = 0.0
    base_keep: float = 0.0

    @property
    def gain(self) -> float:
        return self.total - self.base_total

    @property
    def objective_gain(self) -> float:
        """This matchup's gain plus the rest-of-season effect."""
        return self.gain + self.keep_total - self.base_keep


def plan_moves(values: np.ndarray, masks: Sequence[int], caps: Sequence[int],
               keys: Sequence[int], roster: Sequence[int], pool: Sequence[int], max_adds: int,
               *, first_day: int = 0, protected: Collection[int] = (),
               adds_on_first_day_only: bool = False,
               slot_caps: dict[int, int] | None = None, games_cap: int | None = None,
               time_limit: float | None = 20.0, keep_value: Sequence[float] | None = None,
               ir_rows: Collection[int] = (), ir_slots: int = 0,
               sticky_adds: Collection[int] = ()) -> MultiMovePlan:
    """Best plan with at most `max_adds` acquisitions from `first_day` on.

    values: (players, days) projected value (0 = does not play); roster/pool: row indices;
    protected: row indices that may not be dropped; slot_caps: slot-type index -> starts
    left (games-played limits); games_cap: total starts left.  `total` is the model's own
    lineup value (caps included).  keep_value / ir_rows / ir_slots: see the module docstring.
    """
    values = np.asarray(values, dtype=float)
    roster, pool = list(roster), list(pool)
    protected = set(protected)
    kv = np.zeros(len(values)) if keep_value is None else np.asarray(keep_value, dtype=float)
    ir = [p for p in dict.fromkeys(ir_rows) if p in roster and p not in protected]
    ir_slots = max(int(ir_slots), 0) if ir else 0
    if not ir_slots:
        ir = []
    base_keep = float(sum(kv[i] for i in roster))
    n_days = values.shape[1]
    if slot_caps or games_cap is not None:
        base = plan_week_pulp(values[roster].tolist(), [masks[i] for i in roster], caps,
                              games_cap=games_cap, slot_caps=slot_caps)
    else:
        base = plan_week(values[roster].tolist(), [masks[i] for i in roster], caps,
                         [keys[i] for i in roster])
    max_adds = max(int(max_adds), 0)
    if max_adds == 0 or not pool or first_day >= n_days or not roster:
        return MultiMovePlan(base.total, base.total, [], "NoMovesPossible", base_keep, base_keep)
    elig = [[t for t in range(len(caps)) if (m >> t) & 1 and caps[t] > 0] for m in masks]
    vmax = float(values[roster + pool].max()) if values.size else 0.0
    eps = max(vmax, 1e-9) * 1e-6
    prob = pulp.LpProblem("moves", pulp.LpMaximize)
    days = range(n_days)
    on: dict[tuple[int, int], pulp.LpVariable | int] = {}
    for i in roster:
        for d in days:
            on[i, d] = 1 if (i in protected or d < first_day) else prob.add_variable(
                f"on_{i}_{d}", cat=pulp.LpBinary)
    add: dict[tuple[int, int], pulp.LpVariable] = {}
    add_days = [first_day] if adds_on_first_day_only else list(range(first_day, n_days))
    for y in pool:
        for d in days:
            on[y, d] = prob.add_variable(f"on_{y}_{d}", cat=pulp.LpBinary) if d >= first_day else 0
        for d in add_days:
            add[y, d] = prob.add_variable(f"add_{y}_{d}", cat=pulp.LpBinary)
    for i in roster:
        for d in range(max(first_day, 1), n_days):
            if isinstance(on[i, d], pulp.LpVariable):
                prob += on[i, d] <= on[i, d - 1]
    for y in pool:
        for d in range(first_day, n_days):
            prev = on[y, d - 1] if d > 0 else 0
            prob += on[y, d] - prev <= add.get((y, d), 0)
        prob += pulp.lpSum(add[y, d] for d in add_days) <= 1
        if y in set(sticky_adds):  # once added, he stays
            for d in range(first_day + 1, n_days):
                prob += on[y, d] >= on[y, d - 1]
    prob += pulp.lpSum(add.values()) <= max_adds
    for d in range(first_day, n_days):
        prob += pulp.lpSum(on[i, d] for i in roster + pool) == len(roster)
    last = n_days - 1
    if ir:
        prob += pulp.lpSum(on[p, last] for p in ir) >= len(ir) - ir_slots
    terminal = [float(kv[i]) * on[i, last] for i in roster + pool
                if i not in set(ir) and kv[i] != 0]
    obj = []
    xs_all: list[tuple[float, pulp.LpVariable]] = []
    by_slot: dict[int, list] = {}
    for d in days:
        by_t: dict[int, list] = {}
        for i in roster + pool:
            if values[i, d] <= 0 or (isinstance(on[i, d], int) and on[i, d] == 0):
                continue
            xs = []
            for t in elig[i]:
                v = prob.add_variable(f"x_{i}_{d}_{t}", 0, 1, cat=pulp.LpBinary)
                xs.append(v)
                by_t.setdefault(t, []).append(v)
                by_slot.setdefault(t, []).append(v)
                obj.append(float(values[i, d]) * v)
                xs_all.append((float(values[i, d]), v))
            if xs:
                prob += pulp.lpSum(xs) <= on[i, d]
        for t, vs in by_t.items():
            if len(vs) > caps[t]:
                prob += pulp.lpSum(vs) <= caps[t]
    for t, cap in (slot_caps or {}).items():
        if t in by_slot:
            prob += pulp.lpSum(by_slot[t]) <= max(int(cap), 0)
    if games_cap is not None:
        prob += pulp.lpSum(v for _, v in xs_all) <= max(int(games_cap), 0)
    keep = [on[i, d] for i in roster + pool for d in range(first_day, n_days)
            if isinstance(on[i, d], pulp.LpVariable)]
    prob += (pulp.lpSum(obj) + pulp.lpSum(terminal) + eps * pulp.lpSum(keep)
             - 10 * eps * pulp.lpSum(add.values()))
    solver = cbc(time_limit)
    status = pulp.LpStatus[prob.solve(solver)]
    if status != "Optimal":
        return MultiMovePlan(base.total, base.total, [], status, base_keep, base_keep)

    def val(e) -> float:
        return float(e) if isinstance(e, int) else float(e.value() or 0.0)

    adds = sorted((d, keys[y]) for (y, d), v in add.items() if val(v) > 0.5)
    drops = []
    for i in roster + pool:
        for d in range(max(first_day, 1), n_days):
            if val(on[i, d - 1]) > 0.5 and val(on[i, d]) < 0.5:
                drops.append((d, keys[i]))
        if first_day == 0 and i in roster and val(on[i, 0]) < 0.5:
            drops.append((0, keys[i]))
    drops.sort()
    moves = [PlannedMove(da, dk, ak) for (da, ak), (_, dk) in zip(adds, drops, strict=False)]
    total = sum(w for w, v in xs_all if val(v) > 0.5)
    keep_total = sum(float(kv[i]) for i in roster + pool
                     if val(on[i, last]) > 0.5 or i in set(ir))
    return MultiMovePlan(base.total, total, moves, status, keep_total, base_keep)
