"""All-play records: each team's score of a period against every other team's score.

all-play % = (wins + ½ ties) / games, where a team plays every other team that had a game
that period (a team on a bye is left out). In a points league a game is won by the higher
score; in a category league by winning more of the scored categories than the other team
(each category compared on the two period totals, lower wins for a reversed one such as TO).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class AllPlayRecord:
    """A team's record against every other team's score over some periods."""

    wins: int = 0
    losses: int = 0
    ties: int = 0

    @property
    def games(self) -> int:
        """Games counted (wins, losses and ties)."""
        return self.wins + self.losses + self.ties

    @property
    def pct(self) -> float | None:
        """(wins + ½ ties) / games; None without a game."""
        return (self.wins + self.ties / 2) / self.games if self.games else None

    def __add__(self, other: AllPlayRecord) -> AllPlayRecord:
        return AllPlayRecord(self.wins + other.wins, self.losses + other.losses,
                             self.ties + other.ties)

    def text(self) -> str:
        """"9-2" or "8-2-1" (ties only when there are any)."""
        tail = f"-{self.ties}" if self.ties else ""
        return f"{self.wins}-{self.losses}{tail}"


def compare_categories(mine: Mapping[int, float], theirs: Mapping[int, float],
                       categories: Collection[int], reverse: Collection[int]) -> tuple[int, int]:
    """(categories I win, categories they win) of two period totals (ties count for
    neither)."""
    won = lost = 0
    for c in categories:
        a, b = mine.get(c, 0.0), theirs.get(c, 0.0)
        if a == b:
            continue
        better = a < b if c in reverse else a > b
        won, lost = (won + 1, lost) if better else (won, lost + 1)
    return won, lost


def all_play(scores: Mapping[int, float] | None = None, *,
             category_totals: Mapping[int, Mapping[int, float]] | None = None,
             categories: Collection[int] = (), reverse: Collection[int] = ()
             ) -> dict[int, AllPlayRecord]:
    """One period's all-play record of every team: from `scores` (team id -> points) in a
    points league, or from `category_totals` (team id -> stat id -> period total) with the
    scored `categories` and the `reverse` ones in a category league."""
    if (scores is None) == (category_totals is None):
        raise ValueError("give either scores or category_totals")
    teams = sorted(scores if scores is not None else category_totals)  # type: ignore[arg-type]
    out: dict[int, AllPlayRecord] = {}
    for t in teams:
        w = lo = ti = 0
        for u in teams:
            if u == t:
                continue
            if scores is not None:
                a, b = scores[t], scores[u]
            else:
                assert category_totals is not None
                a, b = compare_categories(category_totals[t], category_totals[u],
                                          categories, reverse)
            if a > b:
                w += 1
            elif a < b:
                lo += 1
            else:
                ti += 1
        out[t] = AllPlayRecord(w, lo, ti)
    return out
