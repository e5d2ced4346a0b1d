"""The weekly recap: every result, the trophies and manager efficiency of one matchup period.

Trophies (a team without a game that period is left out of all of them; teams level on a
trophy's measure share it):
* high score and low score;
* biggest blowout: the largest winning margin;
* closest win: the smallest margin above 0 (a tied matchup is a tie, never a close win);
* luckiest: the winner with the fewest all-play wins that period; unluckiest: the loser with
  the most (each shown with its all-play record);
* best and worst manager by efficiency (`fantasy.league_life.efficiency`); the worst's line
  says what sat on the bench.

In a category league a team's score is the categories it won, the margin is categories won
minus lost, and efficiency counts games started.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from fantasy.league_life.allplay import AllPlayRecord, all_play
from fantasy.league_life.boxscores import PeriodBox
from fantasy.league_life.efficiency import Efficiency, team_efficiency
from fantasy.optimizer.lineup import SlotLayout


@dataclass(frozen=True)
class Result:
    """One matchup's result. Scores are points, or categories won in a category league
    (`home_categories` / `away_categories`: the stat ids each side won). winner_id None: a
    tie (or not finished)."""

    home_id: int
    away_id: int
    home_score: float
    away_score: float
    winner_id: int | None
    home_categories: tuple[int, ...] = ()
    away_categories: tuple[int, ...] = ()
    tied_categories: tuple[int, ...] = ()

    @property
    def margin(self) -> float:
        """The winning margin (0 for a tie)."""
        return abs(self.home_score - self.away_score)

    @property
    def loser_id(self) -> int | None:
        """The losing team (None for a tie)."""
        if self.winner_id is None:
            return None
        return self.away_id if self.winner_id == self.home_id else self.home_id

    def score_of(self, team_id: int) -> float:
        """A side's score."""
        return self.home_score if team_id == self.home_id else self.away_score


@dataclass(frozen=True)
class Trophy:
    """A trophy and the team(s) sharing it; `value` is the measure (score, margin, all-play
    wins, efficiency)."""

    key: str  # high | low | blowout | closest | luckiest | unluckiest | best_manager | worst_manager
    title: str
    team_ids: tuple[int, ...]
    value: float


@dataclass
class Recap:
    """A matchup period's recap (see the module docstring)."""

    period: int
    categories: bool
    finished: bool
    results: list[Result]
    trophies: list[Trophy]
    all_play: dict[int, AllPlayRecord]
    efficiency: dict[int, Efficiency]
    team_names: dict[int, str] = field(default_factory=dict)
    category_names: dict[int, str] = field(default_factory=dict)

    def trophy(self, key: str) -> Trophy | None:
        """The trophy called `key`, or None when nobody earned it (e.g. no closest win when
        every matchup was a tie)."""
        return next((t for t in self.trophies if t.key == key), None)


def _extremes(values: Mapping[int, float], pick: Callable[..., float], key: str, title: str,
              ndigits: int = 6) -> Trophy | None:
    if not values:
        return None
    best = pick(round(v, ndigits) for v in values.values())
    tied = tuple(sorted(t for t, v in values.items() if round(v, ndigits) == best))
    return Trophy(key, title, tied, best)


def _results(box: PeriodBox, categories: list[int], reverse: set[int]) -> list[Result]:
    out = []
    for m in box.matchups:
        assert m.away is not None
        h, a = m.home, m.away
        if box.categories:
            hc, ac, tc = [], [], []
            for c in categories:
                x = h.categories.get(c)
                y = a.categories.get(c)
                xs, ys = (x.score if x else 0.0), (y.score if y else 0.0)
                if xs == ys:
                    tc.append(c)
                elif (xs < ys) == (c in reverse):
                    hc.append(c)
                else:
                    ac.append(c)
            hs, as_ = float(len(hc)), float(len(ac))
        else:
            hc, ac, tc = [], [], []
            hs, as_ = round(h.points, 2), round(a.points, 2)
        winner = h.team_id if hs > as_ else a.team_id if as_ > hs else None
        out.append(Result(h.team_id, a.team_id, hs, as_, winner, tuple(hc), tuple(ac),
                          tuple(tc)))
    return out


def build_recap(box: PeriodBox, layout: SlotLayout, *, categories: list[int] | None = None,
                reverse: set[int] | None = None, today_sp: int | None = None,
                team_names: Mapping[int, str] | None = None,
                category_names: Mapping[int, str] | None = None) -> Recap:
    """The recap of a period read by `load_period`. `categories` / `reverse`: the scored
    categories of a category league (ignored in points leagues); `today_sp` tells whether
    the period is finished (default: it is)."""
    cats = list(categories or [])
    rev = set(reverse or ())
    results = _results(box, cats, rev)
    if box.categories:
        totals = {t: {c: r.score for c, r in tp.side.categories.items()}
                  for t, tp in box.teams.items()}
        ap = all_play(category_totals=totals, categories=cats, reverse=rev)
    else:
        ap = all_play({t: round(tp.points, 2) for t, tp in box.teams.items()})
    eff = {t: team_efficiency(t, tp.days, layout, categories=box.categories)
           for t, tp in box.teams.items()}
    scores = {t: r.score_of(t) for r in results for t in (r.home_id, r.away_id)}
    trophies: list[Trophy] = []
    for tr in (_extremes(scores, max, "high", "High score"),
               _extremes(scores, min, "low", "Low score")):
        if tr is not None:
            trophies.append(tr)
    decided = [r for r in results if r.winner_id is not None]
    margins = {r.winner_id: r.margin for r in decided if r.winner_id is not None}
    for tr in (_extremes(margins, max, "blowout", "Biggest blowout"),
               _extremes(margins, min, "closest", "Closest win")):
        if tr is not None:
            trophies.append(tr)
    winners = {r.winner_id: float(ap[r.winner_id].wins) for r in decided
               if r.winner_id is not None}
    losers = {r.loser_id: float(ap[r.loser_id].wins) for r in decided if r.loser_id is not None}
    for tr in (_extremes(winners, min, "luckiest", "Luckiest"),
               _extremes(losers, max, "unluckiest", "Unluckiest")):
        if tr is not None:
            trophies.append(tr)
    pcts = {t: e.pct for t, e in eff.items() if e.pct is not None}
    best = _extremes({t: p for t, p in pcts.items() if p is not None}, max, "best_manager",
                     "Best manager", ndigits=4)
    worst = _extremes({t: p for t, p in pcts.items() if p is not None}, min, "worst_manager",
                      "Worst manager", ndigits=4)
    if best is not None:
        trophies.append(best)
    if worst is not None and (best is None or worst.value < best.value):
        trophies.append(worst)
    finished = today_sp is None or box.finished(today_sp)
    return Recap(box.period, box.categories, finished, results, trophies, ap, eff,
                 dict(team_names or {}), dict(category_names or {}))
