"""The exact move plan: the best drop/add moves for the rest of a matchup, each with its day.

A plan is a set of roster changes under the acquisition limit: on day d a rostered player (or a
free agent added earlier, a streaming chain) leaves and a free agent joins; the roster never
grows.  Its value is the sum over the remaining days of that day's optimal lineup (the exact
max-weight assignment of lineup.py), optionally under per-slot games-played caps and a total
starts cap.  Protected players stay all week; a free agent is added at most once.

Solved exactly in two steps:

1. **Dominance pruning** (exact): free agent y can be removed when at least `max_adds` other
   kept free agents z each have eligibility ⊇ y's and value ≥ y's on every plannable day.
   A plan uses at most max_adds free agents, so if it uses y at least one such z is unused,
   and putting z into y's stint (same days, same slots) is worth at least as much.  Candidates
   are examined best first, and dominators must themselves be kept, so pruning is safe.
2. **One time-indexed MILP** on what remains (scipy's HiGHS, in process: optimizer.highs):
   binary on[i, d] (player i on the roster on day d) and add[y, d]; continuous lineup
   variables x[i, d, t], which are integral for fixed rosters (the lineup part, including
   the games caps, is a network flow).  The MIP gap is 0.

**Rest of the season** (optional `keep_value`, fantasy.optimizer.season): each row on the
roster on the last day earns keep_value[row] (his rest-of-season value above replacement), so
dropping a core player for a one-week gain is judged against what he is worth after the
matchup; a free agent added and dropped within the plan earns and costs nothing beyond his
roster spot.  `ir_rows` (OUT players eligible for a free IR slot) may leave the active roster
for the IR instead of being released: they keep their keep_value, at most `ir_slots` of them,
and the spot they free takes an add with no drop.  The roster stays full every day: each
departure is paired with an add on its day.

A tiny tie-break in the objective keeps rostered players until the day their replacement
is needed (so each drop happens on its add's day) and refuses moves worth nothing; it moves
the optimum by at most ~1e-3 of a value unit.  The test oracle is multimove.plan_moves
(the same plan as one PuLP/CBC model, no pruning) and brute force on tiny instances.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from fantasy.optimizer import highs
from fantasy.optimizer.lineup import place, solve_day

KEEP_ROSTER = 1e-5   # per rostered-player-day kept: drop as late as the add allows
KEEP_ADDED = 0.5e-5  # per added-player-day
ADD_COST = 1e-4      # per acquisition: never spend one on a move worth nothing


@dataclass(frozen=True)
class PlanStep:
    """One move of a plan: on `day` (index into the planning days) `drop` leaves and `add`
    joins.  drop/add are row indices into the value arrays."""

    day: int
    drop: int
    add: int
    to_ir: bool = False  # the leaving player goes to the IR slot instead of being released


@dataclass
class PlanSolution:
    """Exact plan: `total` = value of the remaining days with the moves, `base_total` without.
    `members[d]` = rows on the roster on day d; `starts` = player-days started."""

    base_total: float
    total: float
    steps: list[PlanStep] = field(default_factory=list)
    members: list[list[int]] = field(default_factory=list)
    starts: int = 0
    base_starts: int = 0
    status: str = "Optimal"
    pool_size: int = 0
    pruned_pool_size: int = 0
    keep_total: float = 0.0
    base_keep: float = 0.0

    @property
    def gain(self) -> float:
        """The gain in this matchup (lineup value only)."""
        return self.total - self.base_total

    @property
    def season_gain(self) -> float:
        """The rest-of-season effect: terminal keep value with the plan minus without."""
        return self.keep_total - self.base_keep

    @property
    def objective_gain(self) -> float:
        """What the plan maximises: this matchup's gain plus the rest-of-season effect."""
        return self.gain + self.season_gain


def prune_pool(values: np.ndarray, masks: Sequence[int], pool: Sequence[int], max_adds: int,
               *, first_day: int = 0, keys: Sequence[int] | None = None,
               keep_value: Sequence[float] | np.ndarray | None = None,
               sticky: Collection[int] = ()) -> list[int]:
    """The free agents an optimal plan may need (exact dominance pruning, module docstring;
    with keep_value a dominator's keep value must be >= too; a sticky dominator, who may not
    leave once added, dominates only sticky free agents).

    Without keep values, free agents with no value on any plannable day are dropped too
    (adding one gains nothing); with them, such a free agent may still be a season upgrade.
    """
    if max_adds <= 0 or not len(pool):
        return []
    v = np.asarray(values, dtype=float)[:, first_day:]
    kv = np.zeros(len(v)) if keep_value is None else np.asarray(keep_value, dtype=float)
    keys = list(range(len(v))) if keys is None else keys
    cands = [y for y in pool if keep_value is not None or v[y].max(initial=0.0) > 0]
    cands.sort(key=lambda y: (-float(v[y].sum() + kv[y]), keys[y]))
    kept: list[int] = []
    kept_vals = np.zeros((len(cands), v.shape[1]))
    kept_masks = np.zeros(len(cands), dtype=np.int64)
    kept_keep = np.zeros(len(cands))
    kept_sticky = np.zeros(len(cands), dtype=bool)
    sticky = set(sticky)
    for y in cands:
        n = len(kept)
        if n >= max_adds:
            dom = (kept_vals[:n] >= v[y][None, :]).all(axis=1)
            dom &= (kept_masks[:n] & masks[y]) == masks[y]
            dom &= kept_keep[:n] >= kv[y]
            if y not in sticky:
                dom &= ~kept_sticky[:n]
            if int(dom.sum()) >= max_adds:
                continue
        kept_vals[n] = v[y]
        kept_masks[n] = masks[y]
        kept_keep[n] = kv[y]
        kept_sticky[n] = y in sticky
        kept.append(y)
    return kept


def terminal_value(last_members: Collection[int], roster: Sequence[int],
                   keep_value: Sequence[float] | np.ndarray | None, ir_rows: Collection[int] = ()) -> float:
    """The rest-of-season value of the roster at the end of the horizon: keep_value of each
    row on it, plus that of IR candidates who left it for the IR (they are still owned)."""
    if keep_value is None:
        return 0.0
    kv = np.asarray(keep_value, dtype=float)
    last = set(last_members)
    total = 0.0
    for i in sorted(last):
        total += float(kv[i])
    for p in sorted(set(ir_rows)):
        if p in set(roster) and p not in last:
            total += float(kv[p])
    return total


class DayLineups:
    """The optimal lineup of each (day, roster) on one values array, each solved once.

    A day's lineup depends only on the players with a positive value that day (solve_day
    never starts anyone else), so rosters that differ only in players who do not play share
    one solve: evaluating many plans that differ in one player and a few days (a move's
    alternatives, a plan's prefixes) solves each distinct day once.  Same computation as
    solve_day on the same players in the same order, so the same starters and the same sums,
    bit for bit."""

    def __init__(self, values: np.ndarray, masks: Sequence[int], caps: Sequence[int],
                 keys: Sequence[int]):
        self.values = np.asarray(values, dtype=float)
        self.cols = self.values.T.tolist()  # cols[d][i]: Python floats, as solve_day sums them
        self.caps = list(caps)
        self.keys = list(keys)
        n_types = len(self.caps)
        self.elig = [[t for t in range(n_types) if (m >> t) & 1 and self.caps[t] > 0]
                     for m in masks]
        self._memo: dict[tuple[int, tuple[int, ...]], tuple[list[int], float, int]] = {}

    def day(self, d: int, members: Collection[int]) -> tuple[list[int], float, int]:
        """(starters in slot-type order, value, starts) of day d's optimal lineup."""
        col = self.cols[d]
        playing = tuple(i for i in sorted(members) if col[i] > 0)
        hit = self._memo.get((d, playing))
        if hit is None:
            keys = self.keys
            order = sorted(playing, key=lambda i: (-col[i], keys[i]))
            starters = [i for occ in place(order, self.elig, self.caps) for i in occ]
            total = 0.0
            for i in starters:
                total += col[i]
            hit = self._memo[d, playing] = (starters, total, len(starters))
        return hit


def evaluate_members(values: np.ndarray, masks: Sequence[int], caps: Sequence[int],
                     keys: Sequence[int], members: Sequence[Collection[int]], *,
                     slot_caps: Mapping[int, int] | None = None,
                     games_cap: int | None = None,
                     lineups: DayLineups | None = None) -> tuple[float, int]:
    """(value, starts) of the optimal lineups when the roster on day d is members[d].
    lineups: a DayLineups on the same values, masks, caps and keys (days solved once)."""
    values = np.asarray(values, dtype=float)
    if slot_caps or games_cap is not None:
        sol = _milp(values, masks, caps, roster=[], pool=[], max_adds=0, first_day=len(members),
                    protected=(), slot_caps=slot_caps, games_cap=games_cap,
                    fixed_members=members, time_limit=None)
        return sol.total, sol.starts
    total, starts = 0.0, 0
    for d, mem in enumerate(members):
        if not mem:
            continue
        if lineups is not None:
            _, t, n = lineups.day(d, mem)
            total += t
            starts += n
            continue
        rows = sorted(mem)
        t, assign = solve_day([float(values[i, d]) for i in rows], [masks[i] for i in rows], caps,
                              [keys[i] for i in rows])
        total += t
        starts += sum(1 for a in assign if a >= 0)
    return total, starts


def best_plan(values: np.ndarray, masks: Sequence[int], caps: Sequence[int],
              keys: Sequence[int], roster: Sequence[int], pool: Sequence[int], max_adds: int, *,
              first_day: int = 0, protected: Collection[int] = (),
              slot_caps: Mapping[int, int] | None = None, games_cap: int | None = None,
              prune: bool = True, time_limit: float | None = 30.0,
              keep_value: Sequence[float] | np.ndarray | None = None,
              ir_rows: Collection[int] = (), ir_slots: int = 0,
              sticky_adds: Collection[int] = (),
              fixed: Sequence[PlanStep] = ()) -> PlanSolution:
    """Best plan with at most `max_adds` acquisitions on days first_day.. (module docstring).

    values: (players, days) projected value, 0 when he does not play or cannot (OUT);
    roster/pool: row indices (pool = free agents that may be added; leave OUT players out);
    protected: roster rows that may not be dropped; slot_caps: slot-type index -> starts left;
    games_cap: total starts left.
    keep_value: (players,) rest-of-season value above replacement earned by each row on the
    roster on the last day (fantasy.optimizer.season.season_values(...).keep_value; same unit
    as values); None = this matchup only.  ir_rows: roster rows that may move to the IR
    (OUT, IR-eligible) instead of being released, at most ir_slots of them; such a step has
    to_ir=True.  sticky_adds: free agents who, once added, stay to the end (core-level
    players, season.SeasonValues.core_adds).  The plan maximises total + keep_total; `gain` is this matchup's part,
    `season_gain` the rest of the season's; a plan is returned only when their sum is > 0.
    fixed: moves already decided (an approved schedule), made on their days whatever the
    plan: their drops and adds are neither planned nor offered again, they do not count
    against `max_adds`, and `base_total` / `base_keep` are the values with them (the plan's
    gain is over the schedule); the returned steps are the new moves only.
    """
    values = np.asarray(values, dtype=float)
    fixed = sorted((PlanStep(max(s.day, first_day), s.drop, s.add, s.to_ir) for s in fixed),
                   key=lambda s: s.day)
    fixed_rows = {r for s in fixed for r in (s.drop, s.add)}
    roster = list(roster)
    pool = [y for y in pool if y not in set(roster) and y not in fixed_rows]
    protected = [i for i in protected if i not in fixed_rows]
    ir_rows = [i for i in ir_rows if i not in fixed_rows]
    n_days = values.shape[1]
    kv = None if keep_value is None else np.asarray(keep_value, dtype=float)
    ir = [p for p in dict.fromkeys(ir_rows) if p in set(roster) and p not in set(protected)]
    ir_slots = max(int(ir_slots), 0) if ir else 0
    if not ir_slots:
        ir = []
    base_members = apply_steps(roster, fixed, n_days)
    base_total, base_starts = evaluate_members(values, masks, caps, keys, base_members,
                                               slot_caps=slot_caps, games_cap=games_cap)
    gone_ir = ir + [s.drop for s in fixed if s.to_ir]  # still owned, in the IR slot
    base_keep = terminal_value(base_members[-1], roster, kv, gone_ir)
    max_adds = max(int(max_adds), 0)
    droppable = [i for i in roster if i not in set(protected) and i not in fixed_rows]
    sticky = [y for y in sticky_adds if y in set(pool)]
    kept = (prune_pool(values, masks, pool, max_adds, first_day=first_day, keys=keys,
                       keep_value=kv, sticky=sticky) if prune else list(pool))
    out = PlanSolution(base_total, base_total, [], base_members, base_starts, base_starts,
                       "NoMovesPossible", len(pool), len(kept), base_keep, base_keep)
    if max_adds == 0 or not kept or not droppable or first_day >= n_days:
        return out
    if max_adds == 1 and not slot_caps and games_cap is None and kv is None and not ir \
            and not fixed:
        sol = _best_single(values, masks, caps, keys, roster, droppable, kept, first_day)
    elif max_adds == 1 and not slot_caps and games_cap is None:
        sol = _one_move(values, masks, caps, keys, roster, droppable, kept, first_day,
                        keep_value=kv, ir_rows=ir, fixed=fixed)
    else:
        sol = _milp(values, masks, caps, roster, kept, max_adds, first_day, set(protected),
                    slot_caps, games_cap, None, time_limit, keep_value=kv, ir_rows=ir,
                    ir_slots=ir_slots, sticky=sticky,
                    forced=_forced(roster, fixed, n_days, first_day))
    if sol.status != "Optimal":
        out.status = sol.status
        return out
    sol.keep_total = terminal_value(sol.members[-1], roster, kv, gone_ir) if sol.members \
        else base_keep
    sol.base_keep = base_keep
    if sol.total + sol.keep_total <= base_total + base_keep + 1e-9 or not sol.steps:
        out.status = "Optimal"
        return out
    sol.base_total, sol.base_starts = base_total, base_starts
    sol.pool_size, sol.pruned_pool_size = len(pool), len(kept)
    return sol


def _best_single(values: np.ndarray, masks: Sequence[int], caps: Sequence[int],
                 keys: Sequence[int], roster: list[int], drops: list[int], adds: list[int],
                 first_day: int) -> PlanSolution:
    """One acquisition, no games caps: the days separate, so the exact per-day gains of every
    (drop, add) pair (scan.scan_points on each day) summed from each possible move day give
    the best (drop, add, day) directly.  Same tie-break as the model: the latest day."""
    from fantasy.optimizer.scan import scan_points  # noqa: PLC0415 - scan imports week

    n_days = values.shape[1]
    per_day = [scan_points(values[:, d:d + 1], masks, caps, keys, roster, drops, adds).gains
               for d in range(first_day, n_days)]
    best: tuple[float, int, int, int] | None = None
    suffix = np.zeros((len(drops), len(adds)))
    for k in range(len(per_day) - 1, -1, -1):
        suffix = suffix + per_day[k]
        ia, ib = np.unravel_index(int(np.argmax(suffix)), suffix.shape)
        g = float(suffix[ia, ib])
        if g > ADD_COST and (best is None or g > best[0] + KEEP_ROSTER):
            best = (g, first_day + k, int(ia), int(ib))
    if best is None:
        return PlanSolution(0.0, 0.0, status="Optimal")
    _, day, a, b = best
    steps = [PlanStep(day, drops[a], adds[b])]
    members = apply_steps(roster, steps, n_days)
    total, starts = evaluate_members(values, masks, caps, keys, members)
    return PlanSolution(total, total, steps, members, starts, starts, "Optimal")


def _one_move(values: np.ndarray, masks: Sequence[int], caps: Sequence[int],
              keys: Sequence[int], roster: list[int], drops: list[int], adds: list[int],
              first_day: int, *, keep_value: np.ndarray | None,
              ir_rows: Collection[int], fixed: Sequence[PlanStep] = ()) -> PlanSolution:
    """The time-indexed model's optimum with one acquisition and no games caps, enumerated.

    With one acquisition a plan is one (drop, add, day) or nothing: the roster stays full, so
    the add's day is the drop's, and the added player stays (leaving would need a second
    add).  Its objective in the model is the lineup gain of the days from the move on (the
    exact per-day gains of every pair, scan.scan_points, summed from each day), plus the
    terminal keep values (the add's, minus the drop's unless he goes to the IR: an IR row is
    still owned), plus the model's tie-break (KEEP_ROSTER per day the drop stays, KEEP_ADDED
    per day the add is there, ADD_COST).  The best of them, when it beats doing nothing, is
    the model's solution (same objective, so the same move; sticky adds and the IR slot
    count cannot bind with one add).  `fixed` (best_plan's approved moves, already on their
    days): each day's roster is the one they make, and the solution's rosters include them;
    their rows are neither dropped nor added (best_plan leaves them out of drops and adds).
    Milliseconds where HiGHS takes seconds on the same model (its LP bound is weak when one
    add is allowed)."""
    from fantasy.optimizer.scan import scan_points  # noqa: PLC0415 - scan imports week

    n_days = values.shape[1]
    kv = np.zeros(values.shape[0]) if keep_value is None else keep_value
    ir = set(ir_rows)
    if not drops or not adds or first_day >= n_days:
        return PlanSolution(0.0, 0.0, status="Optimal")
    kv_add = np.array([float(kv[y]) for y in adds])
    kv_drop = np.array([0.0 if x in ir else float(kv[x]) for x in drops])
    terminal = kv_add[None, :] - kv_drop[:, None]
    best: tuple[float, int, int, int] | None = None
    suffix = np.zeros((len(drops), len(adds)))
    base = apply_steps(roster, fixed, n_days)
    for d in range(n_days - 1, first_day - 1, -1):  # later days first: ties go to the later
        suffix = suffix + scan_points(values[:, d:d + 1], masks, caps, keys, base[d], drops,
                                      adds).gains
        obj = suffix + terminal - (KEEP_ROSTER - KEEP_ADDED) * (n_days - d) - ADD_COST
        ia, ib = np.unravel_index(int(np.argmax(obj)), obj.shape)
        g = float(obj[ia, ib])
        if g > 0 and (best is None or g > best[0]):
            best = (g, d, int(ia), int(ib))
    if best is None:
        return PlanSolution(0.0, 0.0, status="Optimal")
    _, day, a, b = best
    steps = [PlanStep(day, drops[a], adds[b], drops[a] in ir)]
    members = apply_steps(roster, [*fixed, *steps], n_days)
    total, starts = evaluate_members(values, masks, caps, keys, members)
    return PlanSolution(total, total, steps, members, starts, starts, "Optimal")


def _milp(values: np.ndarray, masks: Sequence[int], caps: Sequence[int], roster: list[int],
          pool: list[int], max_adds: int, first_day: int, protected: Collection[int],
          slot_caps: Mapping[int, int] | None, games_cap: int | None,
          fixed_members: Sequence[Collection[int]] | None,
          time_limit: float | None, *, keep_value: np.ndarray | None = None,
          ir_rows: Sequence[int] = (), ir_slots: int = 0,
          sticky: Collection[int] = (),
          forced: Mapping[int, Sequence[bool]] | None = None) -> PlanSolution:
    """The time-indexed model.  With fixed_members, the rosters are given (evaluation only).
    keep_value / ir_rows / ir_slots / sticky: best_plan's (the rest-of-season terms).
    forced: rows whose presence is decided on every day (best_plan's `fixed` moves: the
    dropped player on until his day, the added one from his): constants of the model."""
    n_days = values.shape[1]
    elig = [[t for t in range(len(caps)) if (m >> t) & 1 and caps[t] > 0] for m in masks]
    lb: list[float] = []
    ub: list[float] = []
    cost: list[float] = []
    integ: list[int] = []

    def var(lo: float, hi: float, c: float, is_int: bool) -> int:
        lb.append(lo)
        ub.append(hi)
        cost.append(c)
        integ.append(1 if is_int else 0)
        return len(lb) - 1

    # on[(i, d)]: a variable index, or the constant True (always on).  Absent = off.
    on: dict[tuple[int, int], int | bool] = {}
    forced = dict(forced or {})
    if fixed_members is not None:
        for d, mem in enumerate(fixed_members):
            for i in mem:
                on[i, d] = True
        members_all = sorted({i for mem in fixed_members for i in mem})
    else:
        prot = set(protected)
        for i in roster:
            if i in forced:
                continue
            for d in range(n_days):
                on[i, d] = True if (i in prot or d < first_day) else var(0, 1, -KEEP_ROSTER, True)
        for y in pool:
            for d in range(first_day, n_days):
                on[y, d] = var(0, 1, -KEEP_ADDED, True)
        for i, days in forced.items():  # absent = off
            for d, there in enumerate(days):
                if there:
                    on[i, d] = True
        members_all = roster + pool + [i for i in forced if i not in set(roster)]
    add: dict[tuple[int, int], int] = {}
    for y in pool:
        for d in range(first_day, n_days):
            add[y, d] = var(0, 1, ADD_COST, True)
    x: dict[tuple[int, int, int], int] = {}
    for d in range(n_days):
        for i in members_all:
            if (i, d) in on and values[i, d] > 0:
                for t in elig[i]:
                    x[i, d, t] = var(0, 1, -float(values[i, d]), False)
    rows: list[int] = []
    cols: list[int] = []
    data: list[float] = []
    rlo: list[float] = []
    rhi: list[float] = []

    def con(terms: list[tuple[int, float]], lo: float, hi: float) -> None:
        r = len(rlo)
        for j, a in terms:
            rows.append(r)
            cols.append(j)
            data.append(a)
        rlo.append(lo)
        rhi.append(hi)

    inf = np.inf
    for i in roster:  # a rostered player leaves once, for good
        if i in (forced or {}):
            continue  # decided on every day: constants
        for d in range(first_day + 1, n_days):
            a, b = on[i, d], on[i, d - 1]
            if a is not True and b is not True:
                con([(a, 1.0), (b, -1.0)], -inf, 0.0)
    for y in pool:  # a free agent joins once (a stint); he may leave again
        for d in range(first_day, n_days):
            terms = [(on[y, d], 1.0), (add[y, d], -1.0)]
            if d > first_day:
                terms.append((on[y, d - 1], -1.0))
            con(terms, -inf, 0.0)
        con([(add[y, d], 1.0) for d in range(first_day, n_days)], -inf, 1.0)
        if y in set(sticky):  # once added, he stays
            for d in range(first_day + 1, n_days):
                con([(on[y, d - 1], 1.0), (on[y, d], -1.0)], -inf, 0.0)
    if add:
        con([(j, 1.0) for j in add.values()], -inf, float(max_adds))
    if fixed_members is None:
        for d in range(first_day, n_days):  # the roster stays full: a drop needs an add
            const = sum(1 for i in members_all if on.get((i, d)) is True)
            terms = [(on[i, d], 1.0) for i in roster + pool
                     if (i, d) in on and on[i, d] is not True]
            if terms:
                con(terms, float(len(roster) - const), float(len(roster) - const))
        last = n_days - 1
        ir_set = set(ir_rows)
        if keep_value is not None:  # the terminal rest-of-season value
            for i in roster + pool:
                o = on.get((i, last))
                if i in ir_set or o is None or o is True or keep_value[i] == 0:
                    continue
                cost[o] -= float(keep_value[i])
        if ir_set:  # at most ir_slots of them leave (to the IR)
            con([(on[p, last], 1.0) for p in ir_rows if on[p, last] is not True],
                float(len(ir_rows) - ir_slots), inf)
    by_id: dict[tuple[int, int], list[int]] = {}
    by_dt: dict[tuple[int, int], list[int]] = {}
    by_t: dict[int, list[int]] = {}
    for (i, d, t), j in x.items():
        by_id.setdefault((i, d), []).append(j)
        by_dt.setdefault((d, t), []).append(j)
        by_t.setdefault(t, []).append(j)
    for (i, d), js in by_id.items():
        o = on[i, d]
        if o is True:
            if len(js) > 1:
                con([(j, 1.0) for j in js], -inf, 1.0)
        else:
            con([(j, 1.0) for j in js] + [(o, -1.0)], -inf, 0.0)
    for (_, t), js in by_dt.items():
        if len(js) > caps[t]:
            con([(j, 1.0) for j in js], -inf, float(caps[t]))
    for t, cap in (slot_caps or {}).items():
        if t in by_t and len(by_t[t]) > cap:
            con([(j, 1.0) for j in by_t[t]], -inf, float(max(int(cap), 0)))
    if games_cap is not None and len(x) > games_cap:
        con([(j, 1.0) for j in x.values()], -inf, float(max(int(games_cap), 0)))

    n_var = len(lb)
    if n_var == 0:
        return PlanSolution(0.0, 0.0, [], [sorted(m) for m in (fixed_members or [])], 0, 0,
                            "Optimal")
    res = highs.solve(cost, integ, lb, ub, rows, cols, data, rlo, rhi, mip_rel_gap=0.0,
                      time_limit=time_limit)
    if res.status != 0 or res.x is None:
        return PlanSolution(0.0, 0.0, status={1: "TimeLimit", 2: "Infeasible"}.get(
            res.status, f"SolverStatus{res.status}"))
    sol = res.x

    def is_on(i: int, d: int) -> bool:
        o = on.get((i, d))
        return o is True or (o is not None and sol[o] > 0.5)

    members = [[i for i in members_all if is_on(i, d)] for d in range(n_days)]
    total = 0.0
    starts = 0
    for (i, d, _), j in x.items():
        if sol[j] > 0.5:
            total += float(values[i, d])
            starts += 1
    steps: list[PlanStep] = []
    if fixed_members is None:
        mine = set(forced or {})  # the fixed moves' rows come and go on their own days
        for d in range(first_day, n_days):
            prev = set(roster) if d == 0 else set(members[d - 1])
            now = set(members[d])
            steps += _pair(sorted(prev - now - mine), sorted(now - prev - mine), d, masks,
                           set(ir_rows))
    return PlanSolution(total, total, steps, members, starts, starts, "Optimal")


def _forced(roster: Sequence[int], fixed: Sequence[PlanStep], n_days: int,
            first_day: int) -> dict[int, list[bool]]:
    """Each fixed move's rows, on or off on every day: the roster under the fixed moves
    alone (each made on its day, none before the first plannable day)."""
    if not fixed:
        return {}
    steps = [PlanStep(max(s.day, first_day), s.drop, s.add, s.to_ir) for s in fixed]
    members = apply_steps(roster, steps, n_days)
    rows = {r for s in steps for r in (s.drop, s.add)}
    return {r: [r in set(m) for m in members] for r in rows}


def _pair(drops: list[int], adds: list[int], day: int, masks: Sequence[int],
          ir_rows: Collection[int] = ()) -> list[PlanStep]:
    """Pair the day's drops with its adds: most shared eligibility first (the same roster
    spot, as a member sees it), then row order.  A leaving IR candidate goes to the IR."""
    out: list[PlanStep] = []
    left = list(drops)
    for y in adds:
        if not left:
            break
        x = max(left, key=lambda i: (bin(masks[i] & masks[y]).count("1"), -i))
        left.remove(x)
        out.append(PlanStep(day, x, y, x in ir_rows))
    return out


def apply_steps(roster: Sequence[int], steps: Sequence[PlanStep], n_days: int
                ) -> list[list[int]]:
    """Roster rows per day when `steps` are made (each from its day on)."""
    members = []
    cur = list(roster)
    by_day: dict[int, list[PlanStep]] = {}
    for s in steps:
        by_day.setdefault(s.day, []).append(s)
    for d in range(n_days):
        for s in by_day.get(d, []):
            if s.drop in cur:
                cur.remove(s.drop)
            cur.append(s.add)
        members.append(list(cur))
    return members


__all__ = ["DayLineups", "PlanSolution", "PlanStep", "apply_steps", "best_plan",
           "evaluate_members", "prune_pool", "terminal_value"]
