"""Run the season backtest's baselines and summarise every strategy, FanVise's product run
included: win rates with their counts, season scores, sign tests."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from fantasy.backtest.data import SeasonData
from fantasy.backtest.knowledge import Knowledge
from fantasy.backtest.sim import League, Strategy, TeamSeason, simulate
from fantasy.backtest.strategies import LineupsOnly, StreamingRule

#: FanVise's row: the product run (benchmarks/product_run.py), not a simulated strategy.
FANVISE = "fanvise"
#: The simulated baselines, by name.
STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "streaming rule": StreamingRule,
    "lineups only": LineupsOnly,
}
#: Every row in print order.
ORDER: tuple[str, ...] = (FANVISE, *STRATEGIES)
#: The demo serves a day's score once the day is over and its season ends on the last day
#: of period 20, so period 20 is never finished there: 11-19 are the periods it scores whole.
PERIODS = range(11, 20)


def run_teams(data: SeasonData, variant: str, teams: Iterable[int],
              periods: Sequence[int] = PERIODS, strategies: Iterable[str] = tuple(STRATEGIES),
              know: Knowledge | None = None) -> list[TeamSeason]:
    """Every (team, baseline) season of one variant; a fresh strategy object per season."""
    league = League(data, know or Knowledge(data), variant)
    return [simulate(league, t, list(periods), STRATEGIES[s]()) for t in teams
            for s in strategies]


@dataclass(frozen=True)
class Summary:
    """One strategy in one variant over its team-seasons (means per team-season)."""

    variant: str
    strategy: str
    seasons: int
    matchups: int
    wins: float
    season_score: float
    acquisitions: float
    core_drops: int
    core_streamer_drops: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.matchups if self.matchups else 0.0


def summarise(results: Iterable[TeamSeason]) -> list[Summary]:
    """Summaries by (variant, strategy), in ORDER within each variant."""
    groups: dict[tuple[str, str], list[TeamSeason]] = {}
    for r in results:
        groups.setdefault((r.variant, r.strategy), []).append(r)
    out = []
    for (variant, strategy), rs in sorted(groups.items(), key=lambda kv: (
            kv[0][0] != "points", ORDER.index(kv[0][1]) if kv[0][1] in ORDER else len(ORDER))):
        n = len(rs)
        out.append(Summary(variant, strategy, n, sum(len(r.results) for r in rs),
                           sum(x.won for r in rs for x in r.results),
                           sum(r.season_score for r in rs) / n,
                           sum(r.acquisitions for r in rs) / n, sum(r.core_drops for r in rs),
                           sum(r.core_streamer_drops for r in rs)))
    return out


@dataclass(frozen=True)
class SignTest:
    """Paired matchups (same team, same period) of two strategies: how many `a` scored more
    in (points, or categories won), fewer, the same; the two-sided exact sign test's p."""

    better: int
    worse: int
    ties: int

    @property
    def p(self) -> float:
        n, k = self.better + self.worse, min(self.better, self.worse)
        if n == 0:
            return 1.0
        tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
        return min(1.0, 2 * tail)

    def text(self) -> str:
        return (f"sign test p={self.p:.3f} ({self.better} matchups better, {self.worse} "
                f"worse, {self.ties} even)")


def sign_test(a: Iterable[TeamSeason], b: Iterable[TeamSeason]) -> SignTest:
    """`a` against `b` on the matchups both played (paired by variant, team, period)."""
    score = {(r.variant, r.team_id, x.period): x.mine for r in b for x in r.results}
    better = worse = ties = 0
    for r in a:
        for x in r.results:
            other = score.get((r.variant, r.team_id, x.period))
            if other is None:
                continue
            if x.mine > other:
                better += 1
            elif x.mine < other:
                worse += 1
            else:
                ties += 1
    return SignTest(better, worse, ties)


def last_line(summaries: Sequence[Summary]) -> str:
    """`season: fanvise W% | streaming rule W% | lineups only W% (matchup win rate, N
    team-seasons, both variants)`: win rates over all matchups of all variants run."""
    rate: dict[str, str] = {}
    for s in ORDER:
        mine = [x for x in summaries if x.strategy == s]
        games = sum(x.matchups for x in mine)
        rate[s] = f"{100 * sum(x.wins for x in mine) / games:.0f}%" if games else "n/a"
    seasons = max((sum(x.seasons for x in summaries if x.strategy == s) for s in ORDER),
                  default=0)
    variants = {x.variant for x in summaries}
    which = "both variants" if len(variants) > 1 else f"{next(iter(variants), 'no')} variant"
    return (f"season: fanvise {rate[FANVISE]} | streaming rule {rate['streaming rule']} | "
            f"lineups only {rate['lineups only']} (matchup win rate, {seasons} team-seasons, "
            f"{which})")


__all__ = ["FANVISE", "ORDER", "PERIODS", "STRATEGIES", "SignTest", "Summary", "last_line",
           "run_teams", "sign_test", "summarise"]
