"""A change to the demo league's rosters or lineups, from a given scoring period on: a move
(the member's own, or another manager's scripted one) or a lineup change. The league keeps
them in order (`DemoLeague._commit`) and renders every response from them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class _Change:
    kind: str  # "move" | "lineup"
    team_id: int
    sp: int
    drop: int | None = None
    add: int | None = None
    slots: dict[int, int] | None = None
    #: how another manager's scripted move was made ("fa", "waiver", "trade";
    #: fantasy.demo.scripted); "" for the member's own
    via: str = ""

    def key(self) -> tuple[Any, ...]:
        """The change's content, hashable (render caches are keyed by it, never by id)."""
        return (self.kind, self.team_id, self.sp, self.drop, self.add,
                tuple(sorted((self.slots or {}).items())), self.via)


__all__ = ["_Change"]
