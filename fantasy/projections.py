"""Per-player projections from the league's own scoring, and injury-aware availability.

Per-game stats are a recency-weighted blend of three sources (weights renormalised over the
sources a player has; a source with fewer than MIN_GAMES games counts half):

=================  ======  ===================================================
source             weight  what
=================  ======  ===================================================
season             0.45    `stats["season"]` per-game averages
last 15 days       0.35    `stats["last_15"]` per-game averages
game log           0.20    exponentially weighted mean of the last 10 games,
                           half-life 5 games (most recent weighs most)
=================  ======  ===================================================

With none of them, ESPN's season projection (`stats["projected"]`) is used; with nothing at
all the player projects 0.

Percentages are never averaged: FG% / FT% come from expected makes and attempts.

Availability (probability the player plays a scheduled game), documented here:
OUT / IR / suspended -> 0 until the expected return date when known (then 1), for the whole
window otherwise; DOUBTFUL 0.25; DAY_TO_DAY, QUESTIONABLE and GTD 0.5; PROBABLE 0.85;
ACTIVE 1.0.  The expected value of a game is P(play) x the per-game value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date

from fantasy.constants import OUT_STATUSES, PERCENTAGE_STATS
from fantasy.models import LeagueSettings, Player, StatLine

WINDOW_WEIGHTS: dict[str, float] = {"season": 0.45, "last_15": 0.35, "game_log": 0.20}
MIN_GAMES = 3
LOG_GAMES = 10
LOG_HALF_LIFE = 5.0
PLAY_PROBABILITY: dict[str, float] = {
    "ACTIVE": 1.0, "PROBABLE": 0.85, "DAY_TO_DAY": 0.5, "QUESTIONABLE": 0.5, "GTD": 0.5,
    "DOUBTFUL": 0.25,
}


@dataclass
class Projection:
    """Expected per-game raw stats (stat id -> value) and how many games back them."""

    player_id: int
    per_game: dict[int, float] = field(default_factory=dict)
    games: int = 0
    sources: dict[str, float] = field(default_factory=dict)

    def stat(self, stat_id: int) -> float:
        """Expected per-game value of a counting stat; percentages as makes / attempts."""
        if stat_id in PERCENTAGE_STATS:
            made, att = PERCENTAGE_STATS[stat_id]
            a = self.per_game.get(att, 0.0)
            return self.per_game.get(made, 0.0) / a if a > 0 else 0.0
        return self.per_game.get(stat_id, 0.0)

    def points(self, weights: Mapping[int, float]) -> float:
        """Fantasy points per game under the league's scoring weights."""
        return sum(w * self.per_game.get(s, 0.0) for s, w in weights.items())


def _complete(pg: dict[int, float]) -> dict[int, float]:
    """Fill derivable stats a source may omit: REB = OREB + DREB, PTS = 2 FGM + FTM + 3PM."""
    if 6 not in pg and (4 in pg or 5 in pg):
        pg[6] = pg.get(4, 0.0) + pg.get(5, 0.0)
    if 0 not in pg and 13 in pg:
        pg[0] = 2 * pg[13] + pg.get(15, 0.0) + pg.get(17, 0.0)
    return pg


def _line_per_game(line: StatLine) -> dict[int, float]:
    if line.averages:
        return _complete(dict(line.averages))
    if line.totals and line.games_played > 0:
        return _complete({s: v / line.games_played for s, v in line.totals.items()})
    return {}


def _log_per_game(player: Player, as_of: date | None = None) -> tuple[dict[int, float], int]:
    games = sorted((g for g in player.game_log if g.stats
                    and (as_of is None or g.date is None or g.date < as_of)),
                   key=lambda g: g.scoring_period, reverse=True)[:LOG_GAMES]
    if not games:
        return {}, 0
    out: dict[int, float] = {}
    wsum = 0.0
    for k, g in enumerate(games):
        w = 0.5 ** (k / LOG_HALF_LIFE)
        wsum += w
        for s, v in g.stats.items():
            out[s] = out.get(s, 0.0) + w * v
    return _complete({s: v / wsum for s, v in out.items()}), len(games)


def project(player: Player, as_of: date | None = None) -> Projection:
    """Blend season / last-15 / game-log per-game stats (see module docstring); game-log
    entries dated on or after `as_of` are ignored."""
    parts: list[tuple[str, dict[int, float], float]] = []
    season = player.stat_line("season")
    last15 = player.stat_line("last_15")
    for name, line in (("season", season), ("last_15", last15)):
        pg = _line_per_game(line)
        if pg:
            w = WINDOW_WEIGHTS[name] * (0.5 if 0 < line.games_played < MIN_GAMES else 1.0)
            parts.append((name, pg, w))
    log, n_log = _log_per_game(player, as_of)
    if log:
        parts.append(("game_log", log,
                      WINDOW_WEIGHTS["game_log"] * (0.5 if n_log < MIN_GAMES else 1.0)))
    games = max(season.games_played, n_log)
    if not parts:
        proj = _line_per_game(player.stat_line("projected"))
        if not proj:
            return Projection(player.id)
        return Projection(player.id, {s: v for s, v in proj.items() if s not in PERCENTAGE_STATS},
                          player.stat_line("projected").games_played, {"projected": 1.0})
    total_w = sum(w for _, _, w in parts)
    keys: set[int] = set().union(*(pg.keys() for _, pg, _ in parts))
    per_game = {s: sum(w * pg.get(s, 0.0) for _, pg, w in parts) / total_w
                for s in keys if s not in PERCENTAGE_STATS}
    return Projection(player.id, per_game, games, {n: w / total_w for n, _, w in parts})


def play_probability(player: Player, day: date) -> float:
    """Probability the player plays a scheduled game on `day` (see module docstring)."""
    status = (player.injury_status or "ACTIVE").upper()
    if status in OUT_STATUSES:
        ret = player.expected_return_date
        return 1.0 if ret is not None and day >= ret else 0.0
    return PLAY_PROBABILITY.get(status, 1.0)


def claim_clears(player: Player) -> date | None:
    """The first day a free agent on waivers can play for the team that claims him (the
    day his claim processes); None when he can be added at once (or is not on waivers)."""
    if (player.status or "").upper() == "WAIVERS":
        return player.waiver_process_date
    return None


def claimable_dates(player: Player, dates: Iterable[date]) -> list[date]:
    """The dates on which he could play for a team that adds him now: a waiver player's
    games before his claim clears do not count (everywhere games left are counted)."""
    clears = claim_clears(player)
    return [d for d in dates if clears is None or d >= clears]


def points_per_game(projection: Projection, settings: LeagueSettings) -> float:
    """Fantasy points per game from the league's scoring items."""
    return projection.points(settings.scoring_weights)


def raw_stat_columns(category_ids: Iterable[int]) -> list[int]:
    """Raw stat ids needed to evaluate categories: counting stats, and makes/attempts of
    percentage categories."""
    cols: list[int] = []
    for s in category_ids:
        for r in (PERCENTAGE_STATS[s] if s in PERCENTAGE_STATS else (s,)):
            if r not in cols:
                cols.append(r)
    return cols
