"""Manager efficiency: what a team's lineups got against the best lineups it could have set.

Optimal = the sum over the period's days of the exact best lineup (`fantasy.optimizer.lineup`,
the max-weight assignment of that day's players to the league's starting slots) from the
players on the roster that day at their actual points. A player in the IR slot that day is
not counted (starting him needed a roster move). Actual = the points of the day's starters,
so actual ≤ optimal always (the lineup set is one of the lineups the optimum considers), and
efficiency = actual / optimal, "—" (None) when the optimum is 0.

In a category league no single number sums the categories: efficiency is games started over
the most games that could have been started (the best lineup with every game worth one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from fantasy.league_life.boxscores import DayEntry
from fantasy.optimizer.lineup import SlotLayout, solve_day


@dataclass(frozen=True)
class Efficiency:
    """A team's period: actual and optimal (points, or games started in category leagues)."""

    team_id: int
    actual: float
    optimal: float
    unit: str  # "points" | "games"

    @property
    def pct(self) -> float | None:
        """actual / optimal (at most 1.0); None when the optimum is 0."""
        if self.optimal <= 0:
            return None
        return min(1.0, max(self.actual, 0.0) / self.optimal)

    @property
    def left_on_bench(self) -> float:
        """What the best lineups had over the lineups set (points or games)."""
        return max(0.0, self.optimal - self.actual)

    def pct_text(self) -> str:
        """"93.4%", or "—" when there was nothing to start."""
        p = self.pct
        return "—" if p is None else f"{p * 100:.1f}%"


def day_optimum(entries: Sequence[DayEntry], layout: SlotLayout, *, games: bool = False
                ) -> float:
    """The best lineup's value of one day: points (or games with `games`) of the best
    starters among the day's players who played and were not in the IR slot."""
    pool = [e for e in entries if e.played and not e.on_ir]
    values = [1.0 if games else e.points for e in pool]
    masks = [layout.mask(e.eligible_slots) for e in pool]
    total, _ = solve_day(values, masks, layout.caps, [e.player_id for e in pool])
    return total


def day_actual(entries: Sequence[DayEntry], *, games: bool = False) -> float:
    """What the day's starters got: their points (or their games with `games`)."""
    return sum((1.0 if games else e.points) for e in entries if e.started and e.played)


def team_efficiency(team_id: int, days: Mapping[int, Sequence[DayEntry]], layout: SlotLayout,
                    *, categories: bool = False) -> Efficiency:
    """A team's efficiency over the given days (scoring period -> that day's entries)."""
    actual = sum(day_actual(d, games=categories) for d in days.values())
    optimal = sum(day_optimum(d, layout, games=categories) for d in days.values())
    return Efficiency(team_id, round(actual, 6), round(optimal, 6),
                      "games" if categories else "points")
