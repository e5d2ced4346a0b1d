"""One style for dates and numbers (fantasy.formatting), and the plan's wording built on it."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from fantasy.formatting import (
    categories_text,
    day_text,
    day_text_of,
    gain_text,
    one_decimal,
    plural,
    points_text,
    season_value_text,
    whole,
)


def test_days_read_like_thu_jan_26_without_padding_or_year() -> None:
    assert day_text(date(2023, 1, 26)) == "Thu Jan 26"
    assert day_text(date(2023, 2, 4)) == "Sat Feb 4"
    assert day_text(datetime(2026, 11, 27, 9, 30)) == "Fri Nov 27"


def test_whole_points_and_one_decimal_averages() -> None:
    assert points_text(66.67, suffix=" this week") == "+67 fantasy points this week"
    assert points_text(-5.3) == "-5 fantasy points"
    assert points_text(-1.0) == "-1 fantasy point"
    assert points_text(0.4) == "0 fantasy points"  # never "+0" or "-0"
    assert whole(-0.2, signed=True) == "0" and whole(1256.5) in ("1256", "1257")
    assert one_decimal(43.94) == "43.9" and one_decimal(-0.04) == "0.0"


@pytest.mark.parametrize("g, text", [
    (0.54, "wins 0.5 more categories on average"),
    (1.04, "wins 1 more category on average"),
    (-0.24, "wins 0.2 fewer categories on average"),
    (2.0, "wins 2 more categories on average"),
    (0.03, "about the same categories won"),
])
def test_category_effects_in_words(g: float, text: str) -> None:
    assert categories_text(g) == text
    assert gain_text(g, "expected categories won") == text


def test_no_optimizer_units_in_category_wording() -> None:
    for g in (-3.0, -0.3, 0.0, 0.3, 3.0):
        for text in (categories_text(g), season_value_text(g)):
            assert "z-score" not in text and "category value" not in text
            assert "." not in text.replace("0.", "").rstrip(".")  # at most one decimal
    assert season_value_text(1.15) == "stronger for the rest of the season"
    assert season_value_text(-1.15) == "weaker for the rest of the season"


def test_day_text_of_reads_iso_dates_and_leaves_other_text() -> None:
    assert day_text_of("2023-02-04") == "Sat Feb 4"
    assert day_text_of("2023-02-04T00:00:00") == "Sat Feb 4"
    assert day_text_of(date(2023, 1, 26)) == "Thu Jan 26"
    assert day_text_of("day to day") == "day to day" and day_text_of(None) == ""


def test_plural_never_writes_a_maybe_plural() -> None:
    assert [plural(n, "day") for n in (0, 1, 5)] == ["0 days", "1 day", "5 days"]
    assert plural(2, "injury", "injuries") == "2 injuries"
