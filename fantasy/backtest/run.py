"""Run the season backtest and summarise it: each managed team under each strategy."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from fantasy.backtest.data import SeasonData
from fantasy.backtest.knowledge import Knowledge
from fantasy.backtest.sim import League, Strategy, TeamSeason, simulate
from fantasy.backtest.strategies import FanVisePlan, LineupsOnly, StreamingRule

#: The strategies in the order they are printed, by name.
STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "fanvise": FanVisePlan,
    "streaming rule": StreamingRule,
    "lineups only": LineupsOnly,
}
#: For comparison only (`--compare`): FanVise's plan before issue 22 (this matchup alone,
#: top 3 protected), and the season-aware plan with every move made on its day unchecked.
MATCHUP_ONLY = "fanvise, matchup only"
NO_CHECK = "fanvise, no day check"
EXTRA_STRATEGIES: dict[str, Callable[[], Strategy]] = {
    MATCHUP_ONLY: lambda: FanVisePlan(name=MATCHUP_ONLY, season=False),
    NO_CHECK: lambda: FanVisePlan(name=NO_CHECK, recheck=False),
}
PERIODS = range(11, 21)


def run_teams(data: SeasonData, variant: str, teams: Iterable[int],
              periods: Sequence[int] = PERIODS, strategies: Iterable[str] = tuple(STRATEGIES),
              know: Knowledge | None = None) -> list[TeamSeason]:
    """Every (team, strategy) season of one variant; a fresh strategy object per season."""
    league = League(data, know or Knowledge(data), variant)
    make = STRATEGIES | EXTRA_STRATEGIES
    return [simulate(league, t, list(periods), make[s]()) for t in teams for s in strategies]


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
    """Summaries by (variant, strategy), in STRATEGIES order within each variant."""
    groups: dict[tuple[str, str], list[TeamSeason]] = {}
    for r in results:
        groups.setdefault((r.variant, r.strategy), []).append(r)
    order = list(STRATEGIES) + list(EXTRA_STRATEGIES)
    out = []
    for (variant, strategy), rs in sorted(groups.items(), key=lambda kv: (
            kv[0][0] != "points", order.index(kv[0][1]) if kv[0][1] in order else len(order))):
        n = len(rs)
        out.append(Summary(variant, strategy, n, sum(len(r.results) for r in rs),
                           sum(x.won for r in rs for x in r.results),
                           sum(r.season_score for r in rs) / n,
                           sum(r.acquisitions for r in rs) / n, sum(r.core_drops for r in rs),
                           sum(r.core_streamer_drops for r in rs)))
    return out


def last_line(summaries: Sequence[Summary]) -> str:
    """`season: fanvise W% | streaming rule W% | lineups only W% (matchup win rate, N
    team-seasons, both variants)`: win rates over all matchups of all variants run."""
    rate: dict[str, str] = {}
    for s in STRATEGIES:
        mine = [x for x in summaries if x.strategy == s]
        games = sum(x.matchups for x in mine)
        rate[s] = f"{100 * sum(x.wins for x in mine) / games:.0f}%" if games else "n/a"
    seasons = max((sum(x.seasons for x in summaries if x.strategy == s) for s in STRATEGIES),
                  default=0)
    variants = {x.variant for x in summaries}
    which = "both variants" if len(variants) > 1 else f"{next(iter(variants), 'no')} variant"
    return (f"season: fanvise {rate['fanvise']} | streaming rule {rate['streaming rule']} | "
            f"lineups only {rate['lineups only']} (matchup win rate, {seasons} team-seasons, "
            f"{which})")


__all__ = ["EXTRA_STRATEGIES", "MATCHUP_ONLY", "NO_CHECK", "PERIODS", "STRATEGIES", "Summary", "last_line", "run_teams", "summarise"]
