"""Power rankings, with the formula the post prints:

    power = 0.5 × season all-play % + 0.2 × all-play % over the last three finished periods
            + 0.3 × projected all-play % over the rest of the season

all-play % = (wins + ½ ties) / games against every other team's score of each period
(`fantasy.league_life.allplay`). The season and recent parts use the finished periods'
served scores; the projected part uses each remaining period's projected scores (the
current period: its served score so far plus the plan's rest; `projection`). Ties are
broken by points for, then team id. A part without a period to count (no finished period
yet, or none left) is left out and the others' weights are scaled to sum to 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from fantasy.league_life.allplay import AllPlayRecord, all_play

WEIGHTS = (0.5, 0.2, 0.3)  # season, last three periods, rest of season (projected)
RECENT_PERIODS = 3

#: a period's scores: team id -> points (points leagues) or -> {category: value}
PeriodScores = Mapping[int, float] | Mapping[int, Mapping[int, float]]


@dataclass(frozen=True)
class RankingRow:
    """One team's power ranking, its three parts (all-play records) and its movement."""

    team_id: int
    rank: int
    score: float
    season: AllPlayRecord
    recent: AllPlayRecord
    projected: AllPlayRecord
    points_for: float
    previous_rank: int | None = None

    @property
    def movement(self) -> int | None:
        """Places up (positive) or down since the previous rankings; None without them."""
        return None if self.previous_rank is None else self.previous_rank - self.rank


def _records(periods: Sequence[PeriodScores], categories: Sequence[int],
             reverse: set[int]) -> dict[int, AllPlayRecord]:
    out: dict[int, AllPlayRecord] = {}
    for scores in periods:
        if not scores:
            continue
        first = next(iter(scores.values()))
        if isinstance(first, Mapping):
            recs = all_play(category_totals=scores,  # type: ignore[arg-type]
                            categories=categories, reverse=reverse)
        else:
            recs = all_play(scores)  # type: ignore[arg-type]
        for t, r in recs.items():
            out[t] = out.get(t, AllPlayRecord()) + r
    return out


def power_score(season: float | None, recent: float | None, projected: float | None) -> float:
    """The formula on the three parts (fractions 0..1; a None part is left out and the
    other weights scaled to sum to 1)."""
    parts = [(w, p) for w, p in zip(WEIGHTS, (season, recent, projected), strict=True)
             if p is not None]
    total = sum(w for w, _ in parts)
    return sum(w * p for w, p in parts) / total if total else 0.0


def _rank(finished: Sequence[PeriodScores], projected: Sequence[PeriodScores],
          points_for: Mapping[int, float], categories: Sequence[int], reverse: set[int],
          teams: Sequence[int]) -> list[tuple[int, float, AllPlayRecord, AllPlayRecord,
                                             AllPlayRecord]]:
    season = _records(finished, categories, reverse)
    recent = _records(finished[-RECENT_PERIODS:], categories, reverse)
    ros = _records(projected, categories, reverse)
    rows = []
    for t in teams:
        s, r, p = (season.get(t, AllPlayRecord()), recent.get(t, AllPlayRecord()),
                   ros.get(t, AllPlayRecord()))
        rows.append((t, power_score(s.pct, r.pct, p.pct), s, r, p))
    rows.sort(key=lambda x: (-round(x[1], 12), -points_for.get(x[0], 0.0), x[0]))
    return rows


def power_rankings(finished: Sequence[PeriodScores], projected: Sequence[PeriodScores],
                   points_for: Mapping[int, float], *, categories: Sequence[int] = (),
                   reverse: set[int] | None = None, teams: Sequence[int] | None = None
                   ) -> list[RankingRow]:
    """The rankings from the finished periods' scores (oldest first), the remaining
    periods' projected scores and each team's points for (the first tie-break). Movement is
    against the same formula without the last finished period."""
    rev = set(reverse or ())
    ids = sorted(teams if teams is not None else
                 {t for s in (*finished, *projected) for t in s})
    now = _rank(finished, projected, points_for, categories, rev, ids)
    before = {t: i + 1 for i, (t, *_) in enumerate(
        _rank(finished[:-1], projected, points_for, categories, rev, ids))} \
        if len(finished) > 1 else {}
    return [RankingRow(t, i + 1, score, s, r, p, points_for.get(t, 0.0), before.get(t))
            for i, (t, score, s, r, p) in enumerate(now)]
