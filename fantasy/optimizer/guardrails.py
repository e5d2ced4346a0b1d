"""Guardrails for drop suggestions: who must never be dropped, and acquisitions left.

Protected (never suggested as a drop), each with a reason shown to the user as a HOLD:
* the configurable untouchable list;
* stars: the team's top STAR_TOP_N players by projected per-game value (injuries ignored), or
  anyone owned in at least STAR_OWNED_PCT % of ESPN leagues;
* injured players (OUT/IR) whose expected return date falls within HOLD_WINDOW_DAYS of today;
* players in the IR slot (dropping them frees no active roster spot for an add).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import date, timedelta

from fantasy.constants import OUT_STATUSES, SLOT_IR
from fantasy.models import LeagueSettings, Team

STAR_TOP_N = 3
STAR_OWNED_PCT = 90.0
HOLD_WINDOW_DAYS = 14


@dataclass(frozen=True)
class Protection:
    player_id: int
    reason: str


def protected_players(team: Team, per_game_value: Mapping[int, float], today: date, *,
                      untouchable: Collection[int] = (), star_top_n: int = STAR_TOP_N,
                      star_owned_pct: float = STAR_OWNED_PCT,
                      hold_window_days: int = HOLD_WINDOW_DAYS) -> dict[int, Protection]:
    """Player id -> why he may not be dropped (first matching rule wins)."""
    out: dict[int, Protection] = {}
    ranked = sorted(team.roster, key=lambda e: (-per_game_value.get(e.player.id, 0.0),
                                                e.player.id))
    top = {e.player.id: k + 1 for k, e in enumerate(ranked[:star_top_n])}
    horizon = today + timedelta(days=hold_window_days)
    for e in team.roster:
        p = e.player
        if p.id in untouchable:
            out[p.id] = Protection(p.id, "on the untouchable list")
        elif p.id in top:
            out[p.id] = Protection(p.id, f"star: #{top[p.id]} on the roster by projected value "
                                         f"({per_game_value.get(p.id, 0.0):.1f} per game)")
        elif p.percent_owned >= star_owned_pct:
            out[p.id] = Protection(p.id, f"star: owned in {p.percent_owned:.0f}% of leagues")
        elif p.injury_status in OUT_STATUSES and p.expected_return_date is not None \
                and p.expected_return_date <= horizon:
            out[p.id] = Protection(p.id, f"HOLD: {p.injury_status}, expected back "
                                         f"{p.expected_return_date.isoformat()} (within "
                                         f"{hold_window_days} days)")
        elif e.lineup_slot_id == SLOT_IR:
            out[p.id] = Protection(p.id, "in the IR slot (dropping him frees no active spot)")
    return out


@dataclass(frozen=True)
class AcquisitionBudget:
    limit: int | None  # None = unlimited
    used: int
    remaining: int | None

    def describe(self) -> str:
        if self.remaining is None:
            return "no acquisition limit"
        return f"{self.remaining} of {self.limit} acquisitions left this matchup"


def acquisition_budget(settings: LeagueSettings, team: Team, matchup_period: int
                       ) -> AcquisitionBudget:
    """Acquisitions left in the matchup (and season, when the league caps the season)."""
    limit = settings.acquisition_limit_for(matchup_period)
    used = team.acquisitions_used(matchup_period)
    remaining = None if limit is None else max(limit - used, 0)
    season = settings.acquisition.season_limit
    if season is not None and season >= 0:
        left = max(season - team.transactions.acquisitions, 0)
        if remaining is None or left < remaining:
            limit, used, remaining = season, team.transactions.acquisitions, left
    return AcquisitionBudget(limit, used, remaining)
