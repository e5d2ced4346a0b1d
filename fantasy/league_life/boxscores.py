"""A matchup period's box scores, read day by day from ESPN's box-score view.

For every scoring period (day) of the matchup period, ESPN's `mMatchupScore` view with that
`scoringPeriodId` lists each team's roster of the day with its lineup slots and each player's
game of the day (points and stats). That is everything the recap needs: each team's actual
points (its starters' games), the players it could have started instead (efficiency) and
the totals ESPN serves for the matchup (results, all-play, trophies).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fantasy.constants import SLOT_IR, STARTING_SLOTS
from fantasy.models import League, Matchup, MatchupSide


@dataclass(frozen=True)
class DayEntry:
    """One rostered player on one day: his slot, his ESPN slots, and his game if he played
    (`played`; `points` are his fantasy points in a points league, `stats` his raw stats)."""

    player_id: int
    name: str
    slot: int
    eligible_slots: tuple[int, ...]
    played: bool
    points: float = 0.0
    stats: dict[int, float] = field(default_factory=dict)

    @property
    def started(self) -> bool:
        """In a starting slot that day (bench and IR do not count)."""
        return self.slot in STARTING_SLOTS

    @property
    def on_ir(self) -> bool:
        """In the IR slot that day (not available to start without a roster move)."""
        return self.slot == SLOT_IR


@dataclass(frozen=True)
class TeamPeriod:
    """One team's matchup period: ESPN's served side (total points, categories) and its
    roster day by day (scoring period -> entries). `opponent_id` is None on a bye."""

    team_id: int
    opponent_id: int | None
    side: MatchupSide
    days: dict[int, tuple[DayEntry, ...]]

    @property
    def points(self) -> float:
        """ESPN's served total for the period (points leagues)."""
        return self.side.points


@dataclass(frozen=True)
class PeriodBox:
    """A finished (or running) matchup period: its scoring periods, the matchups as ESPN
    serves them and each team's days."""

    period: int
    scoring_periods: tuple[int, ...]
    matchups: tuple[Matchup, ...]
    teams: dict[int, TeamPeriod]
    categories: bool

    def finished(self, today_sp: int) -> bool:
        """True when the period's last day is over (its last games are final)."""
        return self.scoring_periods[-1] < today_sp


def _entries(side: MatchupSide, sp: int) -> tuple[DayEntry, ...]:
    out = []
    for e in side.lineup:
        game = next((g for g in e.player.game_log if g.scoring_period == sp), None)
        out.append(DayEntry(
            player_id=e.player.id, name=e.player.name, slot=e.lineup_slot_id,
            eligible_slots=tuple(e.player.eligible_slots), played=game is not None,
            points=float(game.applied_points or 0.0) if game is not None else 0.0,
            stats=dict(game.stats) if game is not None else {}))
    return tuple(out)


async def load_period(client: Any, league: League, period: int) -> PeriodBox:
    """Read matchup period `period` of `league` through `client` (an `EspnClient`): the
    served matchups, and every day's box score up to today (a day not yet played has no
    games). Raises ValueError for a period the league does not have."""
    sps = league.settings.matchup_periods.get(period)
    if not sps:
        raise ValueError(f"matchup period {period} does not exist in this league "
                         f"(1-{max(league.settings.matchup_periods or {0: []})})")
    served = [m for m in league.matchups if m.matchup_period == period]
    days: dict[int, dict[int, tuple[DayEntry, ...]]] = {}
    for sp in sps:
        if sp >= league.current_scoring_period:
            break
        for m in await client.get_box_scores(period, sp):
            for side in (m.home, m.away):
                if side is not None:
                    days.setdefault(side.team_id, {})[sp] = _entries(side, sp)
    teams: dict[int, TeamPeriod] = {}
    for m in served:
        if m.away is None:
            continue  # a bye: no game, left out of results and trophies
        for side, opp in ((m.home, m.away), (m.away, m.home)):
            teams[side.team_id] = TeamPeriod(side.team_id, opp.team_id, side,
                                             days.get(side.team_id, {}))
    categories = not league.settings.is_points
    return PeriodBox(period, tuple(sps), tuple(m for m in served if m.away is not None),
                     teams, categories)
