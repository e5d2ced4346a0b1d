"""Exact daily lineup: max-weight assignment of the players who play that day to the starting slots.

Players that can start together form a transversal matroid (a player's value does not depend on
the slot), so placing players one by one in order of (-value, player_id), each through an
augmenting path that may move earlier starters, is provably optimal (see
shared/reference/optimizer.md).  Pure Python, a few microseconds per day.

Slots are ESPN lineup slot ids: 0 PG, 1 SG, 2 SF, 3 PF, 4 C, 5 G, 6 F, 7 SG/SF, 8 G/F, 9 PF/C,
10 F/C, 11 UT, 12 BE (bench), 13 IR.  Bench and IR never start.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fantasy.constants import OUT_STATUSES, SLOT_BENCH, SLOT_IR, STARTING_SLOTS, slot_name

BENCH_SLOT = SLOT_BENCH
IR_SLOT = SLOT_IR
STARTING_SLOT_IDS: tuple[int, ...] = tuple(sorted(STARTING_SLOTS))


@dataclass(frozen=True)
class SlotLayout:
    """The league's starting slots: ESPN slot ids (ascending) and how many of each."""

    slot_ids: tuple[int, ...]
    caps: tuple[int, ...]

    @classmethod
    def from_counts(cls, counts: Mapping[int, int] | Mapping[str, int]) -> SlotLayout:
        """Build from ESPN `lineupSlotCounts` ({"0": 1, ..., "11": 3, "12": 3, "13": 1})."""
        pairs = sorted((int(k), int(v)) for k, v in counts.items())
        kept = [(s, c) for s, c in pairs if s in STARTING_SLOT_IDS and c > 0]
        return cls(tuple(s for s, _ in kept), tuple(c for _, c in kept))

    @property
    def n_starters(self) -> int:
        return sum(self.caps)

    def mask(self, eligible_slots: Iterable[int]) -> int:
        """Bitmask over this layout's slot indices that a player with these ESPN slots may fill."""
        allowed = set(eligible_slots)
        return sum(1 << k for k, s in enumerate(self.slot_ids) if s in allowed)

    def type_list(self, mask: int) -> list[int]:
        """Slot-type indices (into slot_ids/caps) set in mask, most specific (lowest id) first."""
        return [k for k in range(len(self.slot_ids)) if (mask >> k) & 1]


def place(order: Sequence[int], elig: Sequence[Sequence[int]], caps: Sequence[int]
          ) -> list[list[int]]:
    """Core matroid greedy. `order` = player indices already sorted best first (all with value > 0);
    `elig[i]` = slot-type indices player i may fill.  Returns occupants per slot type."""
    n_types = len(caps)
    occ: list[list[int]] = [[] for _ in range(n_types)]
    room = sum(caps)

    def augment(i: int, seen: list[bool]) -> bool:
        el = elig[i]
        for t in el:
            if len(occ[t]) < caps[t]:
                occ[t].append(i)
                return True
        for t in el:
            if seen[t]:
                continue
            seen[t] = True
            for q in occ[t]:
                if augment(q, seen):
                    occ[t].remove(q)
                    occ[t].append(i)
                    return True
        return False

    for i in order:
        if room == 0:
            break
        if augment(i, [False] * n_types):
            room -= 1
    return occ


def solve_day(values: Sequence[float], masks: Sequence[int], caps: Sequence[int],
              keys: Sequence[int] | None = None) -> tuple[float, list[int]]:
    """Optimal lineup value and assignment (slot-type index per player, -1 = bench).

    Ties are broken by (-value, keys[i]) (keys default to the index), so results are deterministic.
    """
    n = len(values)
    if keys is None:
        keys = range(n)
    elig = [[t for t in range(len(caps)) if (m >> t) & 1 and caps[t] > 0] for m in masks]
    order = sorted((i for i in range(n) if values[i] > 0), key=lambda i: (-values[i], keys[i]))
    occ = place(order, elig, caps)
    assign = [-1] * n
    total = 0.0
    for t, members in enumerate(occ):
        for i in members:
            assign[i] = t
            total += values[i]
    return total, assign


@dataclass(frozen=True)
class Candidate:
    """One rostered player on one day. value = projected value if he plays (0 when he does not)."""

    player_id: int
    value: float
    eligible_slots: tuple[int, ...]
    plays: bool = True
    injury_status: str | None = None
    on_ir: bool = False
    name: str = ""


@dataclass
class BenchEntry:
    """A player the best lineup sits, and why (`reason`). Outscored at his slots, the why's
    parts: the starters who keep him out, weakest first, with their values to one decimal
    (`outscored_by`, at most three), how many more do, and his eligible slots."""

    player_id: int
    name: str
    value: float
    reason: str
    outscored_by: list[tuple[str, float]] = field(default_factory=list)
    more_outscoring: int = 0
    eligible_at: list[str] = field(default_factory=list)


@dataclass
class DayLineup:
    """starters: ESPN slot id -> player ids (in slot order); bench with the reason each sits."""

    starters: dict[int, list[int]] = field(default_factory=dict)
    bench: list[BenchEntry] = field(default_factory=list)
    total: float = 0.0

    def starter_ids(self) -> set[int]:
        return {p for ids in self.starters.values() for p in ids}


def best_lineup(candidates: Sequence[Candidate], layout: SlotLayout) -> DayLineup:
    """Exact optimal lineup for one day with a reason for every benched player."""
    startable = [c for c in candidates
                 if c.plays and not c.on_ir and c.value > 0
                 and (c.injury_status or "").upper() not in OUT_STATUSES]
    masks = [layout.mask(c.eligible_slots) for c in startable]
    vals = [c.value for c in startable]
    keys = [c.player_id for c in startable]
    total, assign = solve_day(vals, masks, layout.caps, keys)
    out = DayLineup(total=total)
    by_type: dict[int, list[int]] = {}
    for k, t in enumerate(assign):
        if t >= 0:
            by_type.setdefault(t, []).append(k)
    for t, slot_id in enumerate(layout.slot_ids):
        ks = sorted(by_type.get(t, []), key=lambda k: (-vals[k], keys[k]))
        out.starters[slot_id] = [startable[k].player_id for k in ks]
    started = out.starter_ids()
    label = {c.player_id: (c.name or str(c.player_id)) for c in candidates}
    for c in sorted(candidates, key=lambda c: (-c.value, c.player_id)):
        if c.player_id in started:
            continue
        out.bench.append(_bench_entry(c, layout, out.starters, label,
                                      {s.player_id: s.value for s in startable}))
    return out


def outscored_reason(outscored_by: Sequence[Sequence[Any]], more: int,
                     eligible_at: Sequence[str], unit: str | None = "") -> str:
    """"outscored by A (12.3), B (14.0) and 2 more at eligible slots PG, G": each starter's
    value followed by `unit` ("" none, "fpts" -> "(12.3 fpts)"), or no values (None)."""
    def one(name: Any, value: Any) -> str:
        if unit is None:
            return str(name)
        return f"{name} ({float(value):.1f}{' ' + unit if unit else ''})"
    who = ", ".join(one(n, v) for n, v in outscored_by)
    tail = f" and {more} more" if more else ""
    return f"outscored by {who}{tail} at eligible slots {', '.join(eligible_at)}"


def _bench_entry(c: Candidate, layout: SlotLayout, starters: Mapping[int, list[int]],
                 label: Mapping[int, str], value_of: Mapping[int, float]) -> BenchEntry:
    def sits(reason: str) -> BenchEntry:
        return BenchEntry(c.player_id, c.name, c.value, reason)
    status = (c.injury_status or "").upper()
    if c.on_ir:
        return sits("on IR")
    if status in OUT_STATUSES:
        return sits(f"injured {status}")
    if not c.plays:
        return sits("no game")
    if c.value <= 0:
        return sits("no projected value")
    slots = [s for s in layout.slot_ids if s in set(c.eligible_slots)]
    if not slots:
        return sits("not eligible for any starting slot")
    # Optimality guarantees every occupant of an eligible slot is worth at least c.value.
    blockers = sorted({p for s in slots for p in starters.get(s, [])},
                      key=lambda p: (value_of[p], p))
    by = [(label[p], round(value_of[p], 1)) for p in blockers[:3]]
    more = max(0, len(blockers) - 3)
    where = [slot_name(s) for s in slots]
    return BenchEntry(c.player_id, c.name, c.value, outscored_reason(by, more, where),
                      outscored_by=by, more_outscoring=more, eligible_at=where)


def keep_slots(starters: Mapping[int, Sequence[int]], eligible: Mapping[int, Iterable[int]],
               current: Mapping[int, int], layout: SlotLayout) -> dict[int, list[int]]:
    """The same starters placed so that as many as possible stay in their current slot.

    `starters` is a valid assignment (slot id -> player ids), `eligible` each starter's ESPN
    slots, `current` each player's slot now. Every optimal lineup has the same starters (a
    player's value does not depend on the slot), but many placements: the one that moves the
    fewest of them is the one a member should set. Exact: a min-cost assignment (cost 1 per
    starter not in his current slot) by successive shortest augmenting paths; the slot types
    are few, so this is microseconds. Players within a slot keep their order in `starters`.
    """
    ids = layout.slot_ids
    type_of = {s: k for k, s in enumerate(ids)}
    players = [p for s in ids for p in starters.get(s, ())]
    n_types = len(ids)

    def cost(p: int, t: int) -> int:
        return 0 if current.get(p) == ids[t] else 1

    elig = {p: sorted({type_of[s] for s in eligible.get(p, ()) if s in type_of})
            for p in players}
    at: dict[int, int] = {}
    occ: list[list[int]] = [[] for _ in range(n_types)]
    for p in players:
        inf = float("inf")
        dist = [inf] * n_types
        pred: list[tuple[int, int] | None] = [None] * n_types  # (from type, moved player)
        for t in elig[p]:
            dist[t] = cost(p, t)
        for _ in range(n_types):  # Bellman-Ford over slot types (no negative cycles: SSP)
            changed = False
            for u in range(n_types):
                if dist[u] == inf:
                    continue
                for q in occ[u]:
                    for t in elig[q]:
                        d = dist[u] + cost(q, t) - cost(q, u)
                        if t != u and d < dist[t]:
                            dist[t], pred[t], changed = d, (u, q), True
            if not changed:
                break
        ends = [t for t in range(n_types) if dist[t] < inf and len(occ[t]) < layout.caps[t]]
        if not ends:  # cannot happen for a valid assignment; keep the given one
            return {s: list(starters.get(s, ())) for s in ids}
        t = min(ends, key=lambda k: (dist[k], k))
        for _ in range(n_types):  # walk back: each moved player goes one type further
            step = pred[t]
            if step is None:
                break
            u, q = step
            occ[u].remove(q)
            occ[t].append(q)
            at[q] = t
            t = u
        occ[t].append(p)
        at[p] = t
    rank = {p: i for i, p in enumerate(players)}
    return {s: sorted(occ[k], key=rank.__getitem__) for k, s in enumerate(ids)}
