"""Calendar derivation and the constant tables."""

from __future__ import annotations

from datetime import date

import pytest

from fantasy.constants import (
    NINE_CAT_STATS,
    SLOT_ACCEPTS,
    STATS_MAP,
    InjuryStatus,
    ScoringType,
    injury_label,
    parse_slot,
    pro_team_abbrev,
    pro_team_id,
    slot_name,
)
from fantasy.schedule import (
    ScoringCalendar,
    espn_ms_to_date,
    matchup_periods_to_scoring_periods,
    week_scoring_periods,
)


def test_calendar_from_games_and_current() -> None:
    cal = ScoringCalendar.from_games([(2, date(2025, 10, 22)), (10, date(2025, 10, 30)),
                                      (3, date(2025, 10, 24))])  # one odd record is outvoted
    assert cal.anchor == date(2025, 10, 21) and cal.final_scoring_period == 10
    assert cal.date_for(1) == date(2025, 10, 21) and cal.scoring_period_for(date(2025, 11, 1)) == 12
    assert ScoringCalendar.from_current(date(2023, 1, 25), 101).anchor == date(2022, 10, 17)
    assert ScoringCalendar.from_dict(cal.to_dict()) == cal
    with pytest.raises(ValueError):
        ScoringCalendar.from_games([])


def test_espn_dates_are_eastern() -> None:
    # 2022-10-19 00:30 UTC is still the evening of Oct 18 in New York.
    assert espn_ms_to_date(1666139400000) == date(2022, 10, 18)


def test_week_mapping() -> None:
    assert week_scoring_periods(16) == list(range(106, 113))
    assert matchup_periods_to_scoring_periods({21: [21, 22]}, 150)[21] == list(range(141, 151))


def test_constants() -> None:
    assert STATS_MAP[0] == "PTS" and STATS_MAP[19] == "FG%" and STATS_MAP[42] == "GP"
    assert set(NINE_CAT_STATS) == {0, 6, 3, 2, 1, 17, 19, 20, 11}
    assert SLOT_ACCEPTS[8] == {0, 1, 2, 3} and SLOT_ACCEPTS[10] == {2, 3, 4}
    assert parse_slot("util") == 11 and parse_slot("g/f") == 8 and parse_slot(" pg ") == 0
    assert slot_name(12) == "BE" and slot_name(99) == "slot 99"
    with pytest.raises(ValueError, match="unknown lineup slot"):
        parse_slot("QB")
    assert pro_team_abbrev(18) == "NYK" and pro_team_id("NY") == 18 and pro_team_id("utah") == 26
    assert InjuryStatus("DAY_TO_DAY") is InjuryStatus.DAY_TO_DAY
    assert injury_label("OUT") == "O" and injury_label("ACTIVE") == "" and injury_label(None) == ""
    assert ScoringType.from_espn("H2H_POINTS") is ScoringType.POINTS
    assert ScoringType.from_espn("ROTO").is_categories
