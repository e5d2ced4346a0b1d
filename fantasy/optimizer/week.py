"""Weekly plan: optimal daily lineups over the remaining days of a matchup.

Inputs are plain arrays: `values[i][d]` = projected value of player i on day d (0 when he does not
play or is unavailable), `masks[i]` = slot-type bitmask (see lineup.SlotLayout.mask), `caps` =
starting slots per type, `keys[i]` = player id used to break ties.

* no limits: the week separates into independent days, each solved exactly (lineup.place);
* a total games cap (starts left in the matchup): the direct sum of the daily transversal
  matroids truncated at the cap is still a matroid, so greedy over all player-days by value, with
  per-day augmenting paths, is exact;
* per-slot games caps (ESPN lineupSlotStatLimits on stat 42): a matroid intersection, solved
  with one PuLP (CBC) model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulp

from fantasy.optimizer.lineup import place
from fantasy.optimizer.solver import cbc


@dataclass
class WeekPlan:
    """assignments[d][i] = slot-type index of player i on day d (-1 = not started)."""

    total: float
    assignments: list[list[int]]
    day_totals: list[float]

    @property
    def starts(self) -> int:
        return sum(1 for day in self.assignments for t in day if t >= 0)


def _elig(masks: Sequence[int], caps: Sequence[int]) -> list[list[int]]:
    return [[t for t in range(len(caps)) if (m >> t) & 1 and caps[t] > 0] for m in masks]


def plan_week(values: Sequence[Sequence[float]], masks: Sequence[int], caps: Sequence[int],
              keys: Sequence[int] | None = None, games_cap: int | None = None) -> WeekPlan:
    """Exact weekly plan, optionally with a cap on total starts (fast path, no solver)."""
    n = len(values)
    n_days = len(values[0]) if n else 0
    keys = list(range(n)) if keys is None else list(keys)
    elig = _elig(masks, caps)
    assignments = [[-1] * n for _ in range(n_days)]
    if games_cap is None:
        for d in range(n_days):
            day_values = [row[d] for row in values]
            order = sorted((i for i in range(n) if day_values[i] > 0),
                           key=lambda i: (-day_values[i], keys[i]))
            for t, occ in enumerate(place(order, elig, caps)):
                for i in occ:
                    assignments[d][i] = t
    else:
        _plan_with_cap(values, elig, caps, keys, max(int(games_cap), 0), assignments)
    day_totals = [sum(values[i][d] for i in range(n) if assignments[d][i] >= 0)
                  for d in range(n_days)]
    return WeekPlan(sum(day_totals), assignments, day_totals)


def _plan_with_cap(values, elig, caps, keys, cap, assignments) -> None:
    n_days = len(assignments)
    n_types = len(caps)
    items = sorted(((i, d) for d in range(n_days) for i in range(len(values))
                    if values[i][d] > 0), key=lambda it: (-values[it[0]][it[1]], it[1], keys[it[0]]))
    occ: list[list[list[int]]] = [[[] for _ in range(n_types)] for _ in range(n_days)]

    def augment(o: list[list[int]], i: int, seen: list[bool]) -> bool:
        for t in elig[i]:
            if len(o[t]) < caps[t]:
                o[t].append(i)
                return True
        for t in elig[i]:
            if seen[t]:
                continue
            seen[t] = True
            for q in o[t]:
                if augment(o, q, seen):
                    o[t].remove(q)
                    o[t].append(i)
                    return True
        return False

    used = 0
    for i, d in items:
        if used >= cap:
            break
        if augment(occ[d], i, [False] * n_types):
            used += 1
    for d in range(n_days):
        for t, members in enumerate(occ[d]):
            for i in members:
                assignments[d][i] = t


def plan_week_pulp(values: Sequence[Sequence[float]], masks: Sequence[int], caps: Sequence[int],
                   games_cap: int | None = None, slot_caps: Mapping[int, int] | None = None,
                   relax: bool = False) -> WeekPlan:
    """One PuLP (CBC) model for the whole week; `slot_caps` maps slot-type index -> max starts.

    Needed for per-slot games caps; also the test oracle for plan_week.
    """
    n = len(values)
    n_days = len(values[0]) if n else 0
    elig = _elig(masks, caps)
    prob = pulp.LpProblem("week", pulp.LpMaximize)
    cat = pulp.LpContinuous if relax else pulp.LpBinary
    x: dict[tuple[int, int, int], pulp.LpVariable] = {}
    for d in range(n_days):
        for i in range(n):
            if values[i][d] > 0:
                for t in elig[i]:
                    x[i, d, t] = prob.add_variable(f"x_{i}_{d}_{t}", 0, 1, cat=cat)
    if not x:
        return WeekPlan(0.0, [[-1] * n for _ in range(n_days)], [0.0] * n_days)
    prob += pulp.lpSum(float(values[i][d]) * v for (i, d, _), v in x.items())
    by_id: dict[tuple[int, int], list] = {}
    by_dt: dict[tuple[int, int], list] = {}
    by_t: dict[int, list] = {}
    for (i, d, t), v in x.items():
        by_id.setdefault((i, d), []).append(v)
        by_dt.setdefault((d, t), []).append(v)
        by_t.setdefault(t, []).append(v)
    for vs in by_id.values():
        if len(vs) > 1:
            prob += pulp.lpSum(vs) <= 1
    for (_, t), vs in by_dt.items():
        if len(vs) > caps[t]:
            prob += pulp.lpSum(vs) <= caps[t]
    if games_cap is not None:
        prob += pulp.lpSum(x.values()) <= max(int(games_cap), 0)
    for t, cap in (slot_caps or {}).items():
        if t in by_t:
            prob += pulp.lpSum(by_t[t]) <= max(int(cap), 0)
    status = prob.solve(cbc())
    if pulp.LpStatus[status] != "Optimal":
        raise RuntimeError(f"week model not solved: {pulp.LpStatus[status]}")
    assignments = [[-1] * n for _ in range(n_days)]
    for (i, d, t), v in x.items():
        if (v.value() or 0.0) > 0.5:
            assignments[d][i] = t
    day_totals = [sum(values[i][d] for i in range(n) if assignments[d][i] >= 0)
                  for d in range(n_days)]
    return WeekPlan(sum(day_totals), assignments, day_totals)
