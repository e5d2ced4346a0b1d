"""Scoring period <-> calendar date mapping, derived from ESPN's pro schedule.

In fba one scoring period (SP) is one US/Eastern calendar day. The date of SP 1 (the
"anchor") changes by season, so it is always derived from data: from the games of
`proTeamSchedules_wl` (every game carries both `scoringPeriodId` and `date`), or, failing
that, from a known (today, current scoring period) pair. It is never hard-coded.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

#: ESPN's scoring day boundary.
EASTERN = ZoneInfo("America/New_York")

#: Days per ESPN matchup "week" index (scheduleSettings.matchupPeriods lists week indices).
DAYS_PER_WEEK = 7


def espn_ms_to_datetime(ms: int | float) -> datetime:
    """ESPN epoch milliseconds -> aware datetime in US/Eastern."""
    return datetime.fromtimestamp(ms / 1000, tz=EASTERN)


def espn_ms_to_date(ms: int | float) -> date:
    """ESPN epoch milliseconds -> the US/Eastern calendar date (the scoring day)."""
    return espn_ms_to_datetime(ms).date()


def date_to_espn_ms(d: date, hour: int = 19, minute: int = 0) -> int:
    """A US/Eastern local time on `d` as ESPN epoch milliseconds."""
    dt = datetime(d.year, d.month, d.day, hour, minute, tzinfo=EASTERN)
    return int(dt.timestamp() * 1000)


def today_eastern(now: datetime | None = None) -> date:
    """Today's scoring date (US/Eastern)."""
    return (now or datetime.now(tz=EASTERN)).astimezone(EASTERN).date()


def week_scoring_periods(week: int) -> list[int]:
    """Scoring periods of ESPN week index `week` (1-based): SP 7(w-1)+1 ... 7w.

    This is inferred from the 2023 fixtures (matchup 16 = SP 106-112), not an API field.
    """
    start = DAYS_PER_WEEK * (week - 1) + 1
    return list(range(start, start + DAYS_PER_WEEK))


def matchup_periods_to_scoring_periods(
    matchup_periods: dict[int, list[int]], final_scoring_period: int | None = None
) -> dict[int, list[int]]:
    """Map `scheduleSettings.matchupPeriods` (period -> week indices) to period -> SPs."""
    out: dict[int, list[int]] = {}
    for period, weeks in sorted(matchup_periods.items()):
        sps = [sp for w in weeks for sp in week_scoring_periods(w)]
        if final_scoring_period is not None:
            sps = [sp for sp in sps if sp <= final_scoring_period]
        out[period] = sps
    return out


@dataclass(frozen=True)
class ScoringCalendar:
    """Bidirectional SP <-> date mapping: SP n is `anchor + (n - 1)` days."""

    anchor: date
    first_scoring_period: int = 1
    final_scoring_period: int | None = None

    def date_for(self, scoring_period: int) -> date:
        """Calendar date (US/Eastern) of a scoring period."""
        return self.anchor + timedelta(days=scoring_period - 1)

    def scoring_period_for(self, d: date) -> int:
        """Scoring period of a calendar date (may be < 1 or > final outside the season)."""
        return (d - self.anchor).days + 1

    def dates_for(self, scoring_periods: Iterable[int]) -> list[date]:
        """Dates of several scoring periods, in the given order."""
        return [self.date_for(sp) for sp in scoring_periods]

    def in_season(self, d: date) -> bool:
        """True when `d` falls between the first and final scoring period."""
        sp = self.scoring_period_for(d)
        if sp < self.first_scoring_period:
            return False
        return self.final_scoring_period is None or sp <= self.final_scoring_period

    @classmethod
    def from_games(
        cls, pairs: Iterable[tuple[int, date]], final_scoring_period: int | None = None
    ) -> ScoringCalendar:
        """Derive the anchor from (scoringPeriodId, date) pairs of real games.

        Uses the most common `date - (sp - 1)` so one odd record cannot move the anchor.
        Raises ValueError when no games are given.
        """
        votes: Counter[date] = Counter()
        max_sp = 0
        for sp, d in pairs:
            votes[d - timedelta(days=sp - 1)] += 1
            max_sp = max(max_sp, sp)
        if not votes:
            raise ValueError("cannot derive the scoring-period calendar: no games")
        anchor = votes.most_common(1)[0][0]
        return cls(anchor=anchor, final_scoring_period=final_scoring_period or max_sp)

    @classmethod
    def from_current(
        cls, today: date, current_scoring_period: int, final_scoring_period: int | None = None
    ) -> ScoringCalendar:
        """Derive the anchor from a known (today, current scoring period) pair."""
        anchor = today - timedelta(days=current_scoring_period - 1)
        return cls(anchor=anchor, final_scoring_period=final_scoring_period)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "anchor": self.anchor.isoformat(),
            "first_scoring_period": self.first_scoring_period,
            "final_scoring_period": self.final_scoring_period,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScoringCalendar:
        """Inverse of `to_dict`."""
        return cls(
            anchor=date.fromisoformat(data["anchor"]),
            first_scoring_period=data.get("first_scoring_period", 1),
            final_scoring_period=data.get("final_scoring_period"),
        )
