"""Small pure functions behind the deterministic answers: player value for the rest of a
matchup, category results, recent form, and the hold-or-stream rule.

Value per game
    Points leagues: projected fantasy points per game (`fantasy.projections.project`).
    Category leagues: the sum over the scored (or named) categories of the projected
    per-game stat divided by that stat's spread over the league's player pool
    (`category_scales`), negative for reverse categories (TO); percentages count as impact,
    makes above the pool's rate times attempts.  Counting stats are not centred, so every
    game a player plays adds value and "games left x value per game" never rewards sitting.

Rest-of-matchup value = expected games left (games x probability he plays) x value per game.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from fantasy.constants import (
    NINE_CAT_STATS,
    OUT_STATUSES,
    PERCENTAGE_STATS,
    REVERSE_STATS,
    STAT_IDS,
    UNCERTAIN_STATUSES,
)
from fantasy.models import League, Player, ProSchedule
from fantasy.projections import Projection, claimable_dates, play_probability, project

#: Out players expected back within this many days are worth holding when they matter.
HOLD_DAYS = 14
#: The stats a form table shows, in order (ESPN ids): PTS REB AST STL BLK 3PM TO MIN.
FORM_STATS: tuple[int, ...] = (0, 6, 3, 2, 1, 17, 11)


# --------------------------------------------------------------------------- categories


def category_scales(pool: Iterable[Mapping[int, float]], stats: Sequence[int]) -> dict[int, float]:
    """Spread (population standard deviation) of each stat's per-game value over `pool`
    (per-game raw stats by stat id); percentages use the impact makes - rate x attempts.
    Never 0 (falls back to 1)."""
    rows = list(pool)
    out: dict[int, float] = {}
    rates = pool_rates(rows, stats)
    for s in stats:
        xs = [_stat_term(r, s, rates) for r in rows]
        if not xs:
            out[s] = 1.0
            continue
        mean = sum(xs) / len(xs)
        sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs))
        out[s] = sd if sd > 1e-9 else 1.0
    return out


def pool_rates(pool: Iterable[Mapping[int, float]], stats: Sequence[int]) -> dict[int, float]:
    """League rate of each percentage stat in `stats` over the pool (makes / attempts)."""
    rows = list(pool)
    out: dict[int, float] = {}
    for s in stats:
        if s in PERCENTAGE_STATS:
            made, att = PERCENTAGE_STATS[s]
            a = sum(r.get(att, 0.0) for r in rows)
            out[s] = sum(r.get(made, 0.0) for r in rows) / a if a > 0 else 0.0
    return out


def _stat_term(per_game: Mapping[int, float], stat_id: int, rates: Mapping[int, float]) -> float:
    if stat_id in PERCENTAGE_STATS:
        made, att = PERCENTAGE_STATS[stat_id]
        return per_game.get(made, 0.0) - rates.get(stat_id, 0.0) * per_game.get(att, 0.0)
    return per_game.get(stat_id, 0.0)


def category_value(per_game: Mapping[int, float], stats: Sequence[int],
                   scales: Mapping[int, float], rates: Mapping[int, float],
                   reverse: Iterable[int] = REVERSE_STATS) -> float:
    """Value per game in a category league (see module docstring)."""
    rev = set(reverse)
    total = 0.0
    for s in stats:
        term = _stat_term(per_game, s, rates) / scales.get(s, 1.0)
        total += -term if s in rev else term
    return total


def category_result(mine: float | None, theirs: float | None, reverse: bool = False,
                    tol: float = 1e-9) -> str:
    """"win", "loss" or "tie" of one category (lower wins when `reverse`)."""
    if mine is None or theirs is None:
        return "tie"
    if abs(mine - theirs) <= tol:
        return "tie"
    ahead = mine < theirs if reverse else mine > theirs
    return "win" if ahead else "loss"


def tally(results: Iterable[str]) -> tuple[int, int, int]:
    """(wins, losses, ties) of category results."""
    rs = list(results)
    return rs.count("win"), rs.count("loss"), rs.count("tie")


# --------------------------------------------------------------------------- form


@dataclass(frozen=True)
class FormSummary:
    """Averages over the last games against the season's (stat id -> per game)."""

    games: int
    recent: dict[int, float]
    season: dict[int, float]
    recent_points: float | None = None
    season_points: float | None = None

    def trend(self, stat_id: int) -> float:
        """Recent minus season per-game value of a stat (percentages: difference of rates)."""
        return self.recent.get(stat_id, 0.0) - self.season.get(stat_id, 0.0)


def recent_averages(games: Sequence[Mapping[int, float]],
                    stats: Sequence[int] = FORM_STATS) -> dict[int, float]:
    """Per-game averages over game stat lines; percentages as total makes / attempts."""
    out: dict[int, float] = {}
    n = len(games)
    if not n:
        return out
    for s in stats:
        if s in PERCENTAGE_STATS:
            made, att = PERCENTAGE_STATS[s]
            a = sum(g.get(att, 0.0) for g in games)
            out[s] = sum(g.get(made, 0.0) for g in games) / a if a > 0 else 0.0
        else:
            out[s] = sum(g.get(s, 0.0) for g in games) / n
    return out


def form_summary(games: Sequence[Mapping[int, float]], season: Mapping[int, float],
                 stats: Sequence[int] = FORM_STATS, *,
                 game_points: Sequence[float | None] = (),
                 season_points: float | None = None) -> FormSummary:
    """Last games (raw stat lines) against season per-game averages (`season`: stat id ->
    per game, percentages as rates)."""
    recent = recent_averages(games, stats)
    pts = [p for p in game_points if p is not None]
    return FormSummary(len(games), recent, {s: float(season.get(s, 0.0)) for s in stats},
                       sum(pts) / len(pts) if pts else None, season_points)


def form_word(summary: FormSummary) -> str:
    """"hot", "cold" or "steady": fantasy points (or the sum of relative changes of the
    counting stats) 15% above / below the season."""
    if summary.games == 0:
        return "no recent games"
    if summary.recent_points is not None and summary.season_points:
        rel = summary.recent_points / summary.season_points - 1
    else:
        rels = [summary.recent[s] / summary.season[s] - 1 for s in summary.recent
                if s not in PERCENTAGE_STATS and s not in REVERSE_STATS
                and summary.season.get(s, 0) > 0.5]
        rel = sum(rels) / len(rels) if rels else 0.0
    if rel >= 0.15:
        return "hot"
    if rel <= -0.15:
        return "cold"
    return "steady"


# --------------------------------------------------------------------------- hold or stream


@dataclass(frozen=True)
class HoldOrStream:
    """The hold-or-stream call for one injured player, and why."""

    decision: str          # "hold" | "stream" | "ir"
    reason: str


def out_days(status: str, expected_return: date | None, today: date) -> int | None:
    """Days until an OUT player is expected back (0 when not out; None when unknown)."""
    if status not in OUT_STATUSES:
        return 0
    if expected_return is None:
        return None
    return max((expected_return - today).days, 0)


def hold_or_stream(*, status: str, expected_return: date | None, today: date,
                   games_left: int, expected_games: float, value_per_game: float,
                   roster_rank: int, roster_size: int, streamer_value: float | None,
                   ir_slot_free: bool) -> HoldOrStream:
    """Hold, stream (drop for a streamer) or move to IR and stream, for an injured player.

    * OUT and IR-eligible with an IR slot free: move him to IR and stream the spot (nothing
      is lost).
    * A core player (top half of the roster by value per game) is held unless he is out
      with no return date or back only after HOLD_DAYS.
    * Otherwise compare what he is expected to give for the rest of the matchup (expected
      games x value per game) with the best healthy streamer's rest-of-matchup value;
      stream when the streamer gives more, hold when he does.
    """
    core = roster_rank <= max(roster_size // 2, 1)
    days = out_days(status, expected_return, today)
    his = expected_games * value_per_game
    if status in OUT_STATUSES and ir_slot_free and status in ("OUT", "INJURY_RESERVE"):
        return HoldOrStream("ir", "he's OUT and your IR slot is free: move him there and use "
                                  "the roster spot for a streamer, no drop needed")
    if core and (days is not None and days <= HOLD_DAYS):
        why = ("he's one of your best players" if days else
               "he's one of your best players and only day-to-day"
               if status in UNCERTAIN_STATUSES else
               "he's one of your best players and ESPN lists him healthy")
        return HoldOrStream("hold", why)
    if core and days is None:
        return HoldOrStream("hold", "he's one of your best players; with no return date yet, "
                                    "keep him and stream another bench spot")
    if core:
        return HoldOrStream("hold", f"he's one of your best players, but out about {days} "
                                    "days: stream a bench spot around him")
    if streamer_value is None:
        return HoldOrStream("hold", "no healthy free agent would do better")
    if streamer_value > his:
        if status in UNCERTAIN_STATUSES and games_left:
            return HoldOrStream("stream", "a healthy streamer is projected to give more than "
                                          "his coin-flip games")
        return HoldOrStream("stream", "a healthy streamer is projected to give more for the "
                                      "rest of the matchup")
    return HoldOrStream("hold", "he's still projected to give more than the best streamer")


# --------------------------------------------------------------------------- valuer


class Valuer:
    """Rest-of-matchup value of players on one league snapshot (see module docstring).

    `categories` (ESPN names, e.g. ["BLK"]) restricts the category value to those stats, in
    points leagues too (then `fpts` still gives the points effect). `pool` sets the category
    scales (default: every rostered player plus `extra`)."""

    def __init__(self, league: League, schedule: ProSchedule, dates: Sequence[date],
                 today: date, *, categories: Sequence[str] = (),
                 extra: Iterable[Player] = ()) -> None:
        self.league, self.schedule, self.today = league, schedule, today
        self.dates = list(dates)
        self.settings = league.settings
        self._proj: dict[int, Projection] = {}
        named = [STAT_IDS[c.upper()] for c in categories if c.upper() in STAT_IDS]
        self.named = named
        if named:
            self.stats = named
        elif self.settings.is_points:
            self.stats = []
        else:
            self.stats = list(self.settings.categories) or list(NINE_CAT_STATS)
        self.reverse = set(self.settings.reverse_categories) | (REVERSE_STATS & set(self.stats))
        self.by_points = self.settings.is_points and not named
        pool = [p for t in league.teams for p in t.players] + list(extra)
        rows = [self.projection(p).per_game for p in pool]
        self.rates = pool_rates(rows, self.stats)
        self.scales = category_scales(rows, self.stats)
        self._pool = list({p.id: p for p in pool}.values())
        self._pool_order: list[float] | None = None

    def projection(self, p: Player) -> Projection:
        """Projected per-game stats (cached)."""
        if p.id not in self._proj:
            self._proj[p.id] = project(p, as_of=self.today)
        return self._proj[p.id]

    def fpts(self, p: Player) -> float | None:
        """Fantasy points per game (points leagues), else None."""
        if not self.settings.is_points:
            return None
        return max(self.projection(p).points(self.settings.scoring_weights), 0.0)

    def per_game(self, p: Player) -> float:
        """Value per game: fantasy points, or the category value of the (named) categories."""
        if self.by_points:
            return self.fpts(p) or 0.0
        return category_value(self.projection(p).per_game, self.stats, self.scales,
                              self.rates, self.reverse)

    def league_rank(self, p: Player) -> int:
        """His rank by value per game among the league's players this Valuer knows (every
        rostered player and `extra`; 1 = best): how members read a category value."""
        if self._pool_order is None:
            self._pool_order = sorted(-self.per_game(q) for q in self._pool)
        return bisect_left(self._pool_order, -self.per_game(p)) + 1

    def games(self, p: Player, dates: Sequence[date] | None = None) -> int:
        """Games his NBA team plays on the dates (default: the rest of the matchup); a
        waiver player's only once his claim clears."""
        if not p.pro_team_id:
            return 0
        return self.schedule.count_games(
            p.pro_team_id, claimable_dates(p, self.dates if dates is None else dates))

    def expected_games(self, p: Player) -> float:
        """Games left x the probability he plays each (injury status, return date)."""
        if not p.pro_team_id:
            return 0.0
        return sum(play_probability(p, g.date)
                   for g in self.schedule.games_for_team(p.pro_team_id,
                                                         claimable_dates(p, self.dates)))

    def rest_value(self, p: Player) -> float:
        """Expected games left x value per game."""
        return self.expected_games(p) * self.per_game(p)

    def stat(self, p: Player, stat_id: int) -> float:
        """Projected per game of one stat (percentages as rates)."""
        return self.projection(p).stat(stat_id)


__all__ = ["Valuer", "FORM_STATS", "FormSummary", "HOLD_DAYS", "HoldOrStream", "category_result",
           "category_scales", "category_value", "form_summary", "form_word", "hold_or_stream",
           "out_days", "pool_rates", "recent_averages", "tally"]
