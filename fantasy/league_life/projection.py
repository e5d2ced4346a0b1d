"""Projected matchup-period scores from each team's exact daily plans with no moves, and the
win probability of a matchup (the preview's model, which the power rankings' and the
playoff odds' projections share).

A team's plan for a day is the exact best lineup (`fantasy.optimizer.lineup.solve_day`) of
its roster today (the IR slot left out) at each player's projected value if his team plays
that day: projected fantasy points per game (`fantasy.projections.project`) times the chance
he plays (`play_probability`: injury status and return date). In a category league the plan
starts the most games (a game is worth 1, ties go to the player with more minutes per game)
and the period's projected stat totals are those starters' projected per-game stats.

Win probability, points: the remaining points of a side are Normal with mean its plan's
total and variance Σ (CV × value)² over its planned starts plus (PROJECTION_ERROR × its
remaining total)²; P(win) = Φ(Δ mean / √(var₁ + var₂)). Categories: each category's win
probability from `fantasy.optimizer.categories.win_probabilities` (the optimizer's own
model), then the chance of winning more categories than the opponent, exactly
(Poisson-binomial).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

import numpy as np

from fantasy.constants import PERCENTAGE_STATS, SLOT_IR, STAT_MIN
from fantasy.models import League, Player, ProSchedule
from fantasy.optimizer.categories import DEFAULT_DISPERSION, Category, win_probabilities
from fantasy.optimizer.categories import Matchup as CatMatchup
from fantasy.optimizer.lineup import SlotLayout, solve_day
from fantasy.projections import Projection, play_probability, project, raw_stat_columns

#: per-game points spread: standard deviation = CV × the projected points of that game
CV = 0.35
#: the projections' own error over a period: sd = PROJECTION_ERROR × the remaining total
PROJECTION_ERROR = 0.10


@dataclass(frozen=True)
class PeriodProjection:
    """A team's matchup period: what it has (`actual_*`, ESPN's served so far) and what its
    plan with no moves adds (`remaining_*`, `variance` of the remaining points, expected
    `games_left` started)."""

    team_id: int
    period: int
    actual_points: float = 0.0
    remaining_points: float = 0.0
    variance: float = 0.0
    games_left: float = 0.0
    actual_stats: dict[int, float] = field(default_factory=dict)
    remaining_stats: dict[int, float] = field(default_factory=dict)

    @property
    def final_points(self) -> float:
        """Projected final points."""
        return self.actual_points + self.remaining_points

    def final_stats(self) -> dict[int, float]:
        """Projected final raw stat totals (category leagues)."""
        keys = set(self.actual_stats) | set(self.remaining_stats)
        return {k: self.actual_stats.get(k, 0.0) + self.remaining_stats.get(k, 0.0)
                for k in keys}


def category_values(raw: Mapping[int, float], categories: Iterable[int]) -> dict[int, float]:
    """Category values (percentages as makes / attempts) from raw stat totals."""
    out = {}
    for c in categories:
        if c in PERCENTAGE_STATS:
            made, att = PERCENTAGE_STATS[c]
            a = raw.get(att, 0.0)
            out[c] = raw.get(made, 0.0) / a if a > 0 else 0.0
        else:
            out[c] = raw.get(c, 0.0)
    return out


@dataclass(frozen=True)
class RosterPlan:
    """What a roster's exact daily best lineups with no moves add over some days: points,
    their variance, games started (expected), raw stat totals (category leagues) and each
    player's expected starts."""

    points: float
    variance: float
    games: float
    stats: dict[int, float]
    starts: dict[int, float]


class Projector:
    """Projects every team's matchup periods from one league snapshot (projections are
    made once per player)."""

    def __init__(self, league: League, schedule: ProSchedule, today: date | None = None) -> None:
        self.league = league
        self.schedule = schedule
        self.today = today or league.today
        self.settings = league.settings
        self.layout = SlotLayout.from_counts(self.settings.lineup_slot_counts)
        self.points = self.settings.is_points
        self.columns = raw_stat_columns(self.settings.categories) if not self.points else []
        self._proj: dict[int, Projection] = {}
        self._periods: dict[tuple[int, int], PeriodProjection] = {}

    def _projection(self, p: Player) -> Projection:
        if p.id not in self._proj:
            self._proj[p.id] = project(p, as_of=self.today)
        return self._proj[p.id]

    def _players(self, team_id: int) -> list[Player]:
        return [e.player for e in self.league.team(team_id).roster if e.lineup_slot_id != SLOT_IR]

    def period(self, team_id: int, period: int) -> PeriodProjection:
        """A team's projection of one matchup period (actual so far from ESPN's served
        matchup when the period has started)."""
        key = (team_id, period)
        if key not in self._periods:
            self._periods[key] = self._period(team_id, period)
        return self._periods[key]

    def _period(self, team_id: int, period: int) -> PeriodProjection:
        sps = self.settings.matchup_periods[period]
        days = [self.league.calendar.date_for(sp) for sp in sps]
        plan = self.plan(self._players(team_id), [d for d in days if d >= self.today])
        actual_points, actual_stats = 0.0, {}
        m = next((x for x in self.league.matchups
                  if x.matchup_period == period and x.involves(team_id)), None)
        side = m.side_for(team_id) if m is not None else None
        if side is not None and period <= self.league.current_matchup_period:
            actual_points = side.points
            actual_stats = {c: r.score for c, r in side.categories.items()}
        return PeriodProjection(team_id, period, actual_points, plan.points,
                                plan.variance, plan.games, actual_stats, plan.stats)

    def season_days(self) -> list[date]:
        """The days from today to the end of the league's season (every matchup period,
        the playoffs' included)."""
        sps = sorted({sp for sps in self.settings.matchup_periods.values() for sp in sps})
        days = [self.league.calendar.date_for(sp) for sp in sps]
        return [d for d in days if d >= self.today]

    def plan(self, players: Sequence[Player], days: Iterable[date]) -> RosterPlan:
        """What `players` (a roster without its IR slot) add over `days` when the exact best
        lineup starts each day at projected values and no moves are made."""
        players = list(players)
        masks = [self.layout.mask(p.eligible_slots) for p in players]
        keys = [p.id for p in players]
        weights = self.settings.scoring_weights
        ppg = [max(self._projection(p).points(weights), 0.0) for p in players]
        remaining = var = games = 0.0
        stats = np.zeros(len(self.columns))
        per_game = np.array([[self._projection(p).per_game.get(c, 0.0) for c in self.columns]
                             for p in players]) if self.columns and players else None
        minutes = [min(self._projection(p).per_game.get(STAT_MIN, 0.0), 48.0) for p in players]
        started: dict[int, float] = {p.id: 0.0 for p in players}
        for d in days:
            playing = self.schedule.teams_playing_on(d)
            prob = [play_probability(p, d) if p.pro_team_id in playing else 0.0
                    for p in players]
            if self.points:
                values = [ppg[i] * prob[i] for i in range(len(players))]
            else:
                values = [prob[i] * (1.0 + minutes[i] / 1000.0) for i in range(len(players))]
            total, assign = solve_day(values, masks, self.layout.caps, keys)
            for i, t in enumerate(assign):
                if t < 0:
                    continue
                games += prob[i]
                started[players[i].id] += prob[i]
                if self.points:
                    var += (CV * ppg[i]) ** 2 * prob[i]
                elif per_game is not None:
                    stats += per_game[i] * prob[i]
            if self.points:
                remaining += total
        var += (PROJECTION_ERROR * remaining) ** 2
        return RosterPlan(remaining, var, games,
                          {c: float(v) for c, v in zip(self.columns, stats, strict=True)},
                          started)

    def points_per_game(self, p: Player) -> float:
        """A player's projected fantasy points per game (0 at worst)."""
        return max(self._projection(p).points(self.settings.scoring_weights), 0.0)

    def period_all(self, period: int) -> dict[int, PeriodProjection]:
        """Every team's projection of one period: {team id: projection}."""
        return {t.id: self.period(t.id, period) for t in self.league.teams}

    def periods(self, periods: Iterable[int]) -> dict[int, dict[int, PeriodProjection]]:
        """Every team's projection of each period: {period: {team id: projection}}."""
        return {p: {t.id: self.period(t.id, p) for t in self.league.teams} for p in periods}

    def categories(self) -> list[Category]:
        """The league's categories over this projector's raw stat columns."""
        col = {s: k for k, s in enumerate(self.columns)}
        rev = self.settings.reverse_categories
        out = []
        from fantasy.constants import STATS_MAP
        for s in self.settings.categories:
            name = STATS_MAP.get(s, str(s))
            if s in PERCENTAGE_STATS:
                made, att = PERCENTAGE_STATS[s]
                out.append(Category(name, col[made], col[att], s in rev))
            else:
                out.append(Category(name, col[s], None, s in rev,
                                    DEFAULT_DISPERSION.get(name, 1.5)))
        return out

    def win_probability(self, a: PeriodProjection, b: PeriodProjection) -> tuple[float, float]:
        """(P(a wins), P(tie)) of a matchup between two projections (the module's model)."""
        if self.points:
            sd = math.sqrt(a.variance + b.variance)
            diff = a.final_points - b.final_points
            if sd <= 1e-9:
                return (1.0, 0.0) if diff > 0 else (0.0, 0.0) if diff < 0 else (0.0, 1.0)
            return 0.5 * (1.0 + math.erf(diff / (sd * math.sqrt(2.0)))), 0.0
        return match_probability(self.category_probabilities(a, b))

    def category_probabilities(self, a: PeriodProjection, b: PeriodProjection) -> list[float]:
        """P(a wins each category) of a matchup (category leagues; the optimizer's model)."""
        cats = self.categories()
        vec = lambda d: np.array([d.get(c, 0.0) for c in self.columns])  # noqa: E731
        cm = CatMatchup(vec(a.actual_stats), vec(b.actual_stats), vec(b.remaining_stats))
        return [float(x) for x in win_probabilities(cats, vec(a.remaining_stats), cm)]


def match_probability(category_probs: Sequence[float]) -> tuple[float, float]:
    """(P(win more categories than lose), P(as many)) when each category is won with its
    probability independently (each category is won or lost)."""
    n = len(category_probs)
    dist = [1.0] + [0.0] * n  # dist[k] = P(k categories won)
    for p in category_probs:
        new = [0.0] * (n + 1)
        for k, q in enumerate(dist):
            if q:
                new[k] += q * (1 - p)
                new[k + 1] += q * p
        dist = new
    win = sum(q for k, q in enumerate(dist) if k > n - k)
    tie = sum(q for k, q in enumerate(dist) if k == n - k)
    return win, tie


async def league_projector(client: object, league: League) -> Projector:
    """A projector of `league` with the pro schedule read through `client` (EspnClient)."""
    schedule = await client.get_pro_schedule()  # type: ignore[attr-defined]
    return Projector(league, schedule)


def served_scores(league: League, period: int) -> dict[int, float] | dict[int, dict[int, float]]:
    """A period's scores as ESPN serves them: points, or each team's category values (a
    team without a game that period is left out)."""
    out: dict = {}
    for m in league.matchups:
        if m.matchup_period != period or m.away is None:
            continue
        for side in (m.home, m.away):
            if league.settings.is_points:
                out[side.team_id] = side.points
            else:
                out[side.team_id] = {c: r.score for c, r in side.categories.items()
                                     if c in set(league.settings.categories)}
    return out


def projected_scores(proj: Mapping[int, PeriodProjection], league: League
                     ) -> dict[int, float] | dict[int, dict[int, float]]:
    """A period's projected scores of every team (the all-play input)."""
    if league.settings.is_points:
        return {t: p.final_points for t, p in proj.items()}
    return {t: category_values(p.final_stats(), league.settings.categories)
            for t, p in proj.items()}
