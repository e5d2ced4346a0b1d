"""Valuers shared by turns on the same league snapshot.

A `fantasy.outlook.Valuer` projects every rostered player and the free-agent pool when it is
built (~12-20 ms for the demo league). The ESPN client keeps its parsed League, schedule
and free-agent objects while their cache rows are unchanged, so consecutive turns ask for
a Valuer over the very same objects: `shared_valuer` returns the one built for them
(compared by identity; a new snapshot, another day, window or category set is a new one).
Its projections of players outside the pool are kept per player object, so a refreshed
player list is projected again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date
from typing import Any

from fantasy.models import League, Player, ProSchedule
from fantasy.outlook import Projection, Valuer

#: Valuers kept (most recent last).
KEPT = 8


class _SharedValuer(Valuer):
    """A Valuer whose projections of players outside its pool are memoised per object."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        self._seen: dict[int, Player] = {}
        self._pool_ids: frozenset[int] | None = None  # while building: Valuer's own memo
        super().__init__(*args, **kw)
        self._pool_ids = frozenset(self._proj)

    def projection(self, p: Player) -> Projection:
        if self._pool_ids is None:
            return super().projection(p)
        if p.id in self._proj and (p.id in self._pool_ids or self._seen.get(p.id) is p):
            return self._proj[p.id]
        self._proj.pop(p.id, None)
        self._seen[p.id] = p
        return super().projection(p)


_KEPT: list[tuple[tuple[Any, ...], tuple[Player, ...], Valuer]] = []


def shared_valuer(league: League, schedule: ProSchedule, dates: Sequence[date], today: date,
                  *, categories: Sequence[str] = (), extra: Iterable[Player] = ()) -> Valuer:
    """`Valuer(league, schedule, dates, today, categories=..., extra=...)`, shared while the
    objects are the same."""
    extra = tuple(extra)
    key = (id(league), id(schedule), tuple(dates), today, tuple(categories))
    for k, ex, val in _KEPT:
        if (k == key and val.league is league and val.schedule is schedule
                and len(ex) == len(extra) and all(a is b for a, b in zip(ex, extra, strict=True))):
            return val
    val = _SharedValuer(league, schedule, dates, today, categories=categories, extra=extra)
    _KEPT.append((key, extra, val))
    del _KEPT[:-KEPT]
    return val


__all__ = ["shared_valuer"]
