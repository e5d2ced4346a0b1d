"""What a manager knows on the morning of a day, and the values every strategy reads from it.

A `Morning` is built from three slices of the season and nothing else: the box scores before
the day, the injury statuses of the day (no return dates), and the public schedule. Its
projections are FanVise's own (`fantasy.projections.project`: season / last 15 days / game
log blend) on Player objects whose stats windows are rebuilt from those box scores, so they
never read the projection window or any later game. Availability is
`fantasy.projections.play_probability` on the day's status with no return date (OUT plays no
game in the window).

Per-game values (the same for every strategy; what the streaming rule ranks, what the top-5
count ranks, and in points what lineups start):
* points: projected fantasy points per game under the league's scoring;
* categories: the sum over the nine categories of the per-game impact
  (`focus.per_game_impact`: counting stats, TO negated, makes above the league rate for
  percentages) in z units over the league's players, shifted so the weakest player with games
  is worth 0.1 (every player who plays is worth starting over an empty slot).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

import numpy as np

from fantasy.backtest.data import COL, STATS, STATUSES, SeasonData
from fantasy.constants import PERCENTAGE_STATS, stat_name
from fantasy.models import GameLogEntry, LeagueSettings, Player, StatLine
from fantasy.optimizer.categories import DEFAULT_DISPERSION, Category
from fantasy.optimizer.focus import per_game_impact
from fantasy.projections import LOG_GAMES, play_probability, project

LAST_DAYS = 15  # the "last 15" window: games in [day - 15, day)


@dataclass(frozen=True)
class Morning:
    """Known on the morning of scoring period `sp`. per_game: (players, STATS) projected raw
    stats per game; games: games played before the day; status: the day's injury status;
    prob: probability he plays a scheduled game, from that status alone."""

    sp: int
    day: date
    per_game: np.ndarray
    games: np.ndarray
    status: tuple[str, ...]
    prob: np.ndarray


def build_morning(sp: int, day: date, ids: list[int], box_before: np.ndarray,
                  played_before: np.ndarray, status_today: np.ndarray,
                  dates: dict[int, date]) -> Morning:
    """The morning of `sp` from the box scores before it (box_before[:, s] for s < sp) and
    the statuses of the day: FanVise's projection of every player."""
    n = len(ids)
    per_game = np.zeros((n, len(STATS)))
    games = played_before.sum(axis=1)
    prob = np.zeros(n)
    status = tuple(STATUSES[int(c)] for c in status_today)
    first_recent = max(sp - LAST_DAYS, 0)
    for i in range(n):
        sps = np.flatnonzero(played_before[i])
        player = Player(id=ids[i], name=str(ids[i]), injury_status=status[i])
        if len(sps):
            rows = box_before[i, sps]
            recent = rows[sps >= first_recent]
            player.stats["season"] = StatLine(averages=_line(rows.mean(axis=0)),
                                              games_played=len(sps))
            if len(recent):
                player.stats["last_15"] = StatLine(averages=_line(recent.mean(axis=0)),
                                                   games_played=len(recent))
            player.game_log = [GameLogEntry(int(s), dates.get(int(s)), _line(box_before[i, s]))
                               for s in sps[-LOG_GAMES:]]
            pg = project(player, as_of=day).per_game
            per_game[i] = [pg.get(s, 0.0) for s in STATS]
        prob[i] = play_probability(player, day)
    return Morning(sp, day, per_game, games, status, prob)


def _line(row: np.ndarray) -> dict[int, float]:
    return {s: float(v) for s, v in zip(STATS, row, strict=True)}


def categories(settings: LeagueSettings) -> list[Category]:
    """The league's scored categories over the STATS columns (as the optimizer models them)."""
    rev = settings.reverse_categories
    out = []
    for s in settings.categories:
        name = stat_name(s)
        if s in PERCENTAGE_STATS:
            made, att = PERCENTAGE_STATS[s]
            out.append(Category(name, COL[made], COL[att], s in rev))
        else:
            out.append(Category(name, COL[s], None, s in rev, DEFAULT_DISPERSION.get(name, 1.5)))
    return out


@dataclass
class Knowledge:
    """Mornings of one season, each built once and only from what its day allows, and the
    per-game values of each variant (`value(variant, sp)`)."""

    data: SeasonData
    _mornings: dict[int, Morning] = field(default_factory=dict)
    _values: dict[tuple[str, int], np.ndarray] = field(default_factory=dict)

    def morning(self, sp: int) -> Morning:
        """What is known on the morning of sp (built from box scores before sp)."""
        m = self._mornings.get(sp)
        if m is None:
            d = self.data
            m = self._mornings[sp] = build_morning(
                sp, d.dates[sp], d.ids, d.box[:, :sp], d.played[:, :sp], d.status[:, sp],
                {s: v for s, v in d.dates.items() if s < sp})
        return m

    def value(self, variant: str, sp: int) -> np.ndarray:
        """Per-game value of every player on the morning of sp (module docstring)."""
        key = (variant, sp)
        v = self._values.get(key)
        if v is None:
            v = self._values[key] = per_game_value(self.data.settings[variant],
                                                   self.morning(sp))
        return v

    def playing(self, sp: int, day_sp: int) -> np.ndarray:
        """Expected games on day_sp of every player as known on the morning of sp: his NBA
        team plays (public schedule) times his probability to play from sp's status."""
        d = self.data
        return d.team_games[d.pro_team, day_sp] * self.morning(sp).prob


def per_game_value(settings: LeagueSettings, m: Morning) -> np.ndarray:
    """Points: projected fantasy points per game; categories: shifted z value per game."""
    if settings.is_points:
        w = np.array([settings.scoring_weights.get(s, 0.0) for s in STATS])
        return np.maximum(m.per_game @ w, 0.0)
    has = m.games > 0
    x = per_game_impact(m.per_game, categories(settings))
    sd = x[has].std(axis=0) if has.any() else np.ones(x.shape[1])
    z = (x / np.where(sd > 1e-9, sd, 1.0)).sum(axis=1)
    floor = z[has].min() if has.any() else 0.0
    return np.where(has, z - floor + 0.1, 0.0)


__all__ = ["Knowledge", "Morning", "build_morning", "categories", "per_game_value"]
