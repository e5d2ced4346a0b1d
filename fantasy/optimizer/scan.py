"""Move scan for points leagues: the exact gain of every (drop X, add Y) pair.

gain(X, Y) = optimal weekly plan value of (roster - X + Y) - optimal weekly plan value of roster,
over days first_day..end (the move takes effect on first_day; earlier days are unchanged).

Exact pruning (no approximation):
* a day where neither X nor Y plays adds 0;
* a day where only X plays depends on (day, X) only, only Y on (day, Y): cached;
* if X plays but was not started in the base lineup, removing him changes nothing, and
  (roster - X + Y) equals (roster + Y) on that day (greedy rejects X: adding Y only grows the
  span of the players placed before him).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fantasy.optimizer.lineup import place
from fantasy.optimizer.week import plan_week


class DayEvaluator:
    """Optimal lineups for subsets of players on one day, with players pre-sorted by value."""

    def __init__(self, values: np.ndarray, masks: Sequence[int], caps: Sequence[int],
                 keys: Sequence[int]):
        self.values = values
        self.caps = list(caps)
        self.keys = list(keys)
        n_types = len(caps)
        self.elig = [[t for t in range(n_types) if (m >> t) & 1 and caps[t] > 0] for m in masks]

    def order(self, members: Sequence[int], d: int) -> list[int]:
        v = self.values
        return sorted((i for i in members if v[i, d] > 0), key=lambda i: (-v[i, d], self.keys[i]))

    def insert(self, order: list[int], y: int, d: int) -> list[int]:
        v, k = self.values, self.keys
        key = (-v[y, d], k[y])
        pos = 0
        while pos < len(order) and (-v[order[pos], d], k[order[pos]]) < key:
            pos += 1
        return order[:pos] + [y] + order[pos:]

    def starters(self, order: Sequence[int]) -> list[int]:
        return [i for occ in place(order, self.elig, self.caps) for i in occ]


@dataclass
class PointsScan:
    """gains[a, b] / starts_delta[a, b] for dropping drop_ids[a] and adding add_ids[b]."""

    base_total: float
    base_starts: int
    drop_ids: list[int]
    add_ids: list[int]
    gains: np.ndarray
    starts_delta: np.ndarray
    n_solves: int


def scan_points(values: np.ndarray, masks: Sequence[int], caps: Sequence[int],
                keys: Sequence[int], roster: Sequence[int], drops: Sequence[int],
                adds: Sequence[int], *, first_day: int = 0,
                games_cap: int | None = None) -> PointsScan:
    """Exact gains of every (drop, add) pair.  `values` has shape (players, days); roster, drops
    and adds are row indices (drops a subset of roster, adds disjoint from roster)."""
    values = np.asarray(values, dtype=float)
    drops, adds, roster = list(drops), list(adds), list(roster)
    if games_cap is not None:
        return _scan_with_cap(values, masks, caps, keys, roster, drops, adds, first_day, games_cap)
    n_days = values.shape[1]
    ev = DayEvaluator(values, masks, caps, keys)
    gains = np.zeros((len(drops), len(adds)))
    sdelta = np.zeros((len(drops), len(adds)), dtype=int)
    base_total, base_starts, n_solves = 0.0, 0, 0
    for d in range(n_days):
        order = ev.order(roster, d)
        st = ev.starters(order)
        n_solves += 1
        b_val = float(values[st, d].sum()) if st else 0.0
        base_total += b_val
        base_starts += len(st)
        if d < first_day:
            continue
        started = set(st)
        cy: dict[int, tuple[float, int]] = {}

        for a, x in enumerate(drops):
            px = values[x, d] > 0
            x_starts = x in started
            if px and x_starts:
                rest = [i for i in order if i != x]
                s = ev.starters(rest)
                n_solves += 1
                only_x = (float(values[s, d].sum()) - b_val, len(s) - len(st))
                for b, y in enumerate(adds):
                    if values[y, d] > 0:
                        s2 = ev.starters(ev.insert(rest, y, d))
                        n_solves += 1
                        gains[a, b] += float(values[s2, d].sum()) - b_val
                        sdelta[a, b] += len(s2) - len(st)
                    else:
                        gains[a, b] += only_x[0]
                        sdelta[a, b] += only_x[1]
            else:  # X absent from the optimal lineup: the day's result is (roster + Y)
                for b, y in enumerate(adds):
                    if values[y, d] > 0:
                        if b not in cy:
                            s = ev.starters(ev.insert(order, y, d))
                            cy[b] = (float(values[s, d].sum()), len(s))
                            n_solves += 1
                        v, k = cy[b]
                        gains[a, b] += v - b_val
                        sdelta[a, b] += k - len(st)
    return PointsScan(base_total, base_starts, [keys[i] for i in drops], [keys[i] for i in adds],
                      gains, sdelta, n_solves)


def _scan_with_cap(values, masks, caps, keys, roster, drops, adds, first_day, games_cap):
    """With a total games cap the days couple: evaluate each pair's whole week (still exact)."""
    base = plan_week(values[roster].tolist(), [masks[i] for i in roster], caps,
                     [keys[i] for i in roster], games_cap=games_cap)
    gains = np.zeros((len(drops), len(adds)))
    sdelta = np.zeros((len(drops), len(adds)), dtype=int)
    for a, x in enumerate(drops):
        members = [i for i in roster if i != x]
        rows = values[members].tolist()
        xrow = values[x].copy()
        xrow[first_day:] = 0.0
        for b, y in enumerate(adds):
            yrow = values[y].copy()
            yrow[:first_day] = 0.0
            plan = plan_week(rows + [xrow.tolist(), yrow.tolist()],
                             [masks[i] for i in members] + [masks[x], masks[y]], caps,
                             [keys[i] for i in members] + [keys[x], keys[y]], games_cap=games_cap)
            gains[a, b] = plan.total - base.total
            sdelta[a, b] = plan.starts - base.starts
    return PointsScan(base.total, base.starts, [keys[i] for i in drops], [keys[i] for i in adds],
                      gains, sdelta, 1 + len(drops) * len(adds))
