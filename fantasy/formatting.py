"""One style for the dates and numbers members read, in every answer and card.

- Dates: "Thu Jan 26" (`day_text`), on the league's clock: pass the league's day, never
  the machine's. A weekday alone: "Thu" (`weekday_text`).
- Fantasy points in move lines and totals: whole points ("+67 fantasy points"); per-game
  averages: one decimal ("43.9").
- Category leagues: the effect of a move in words ("wins 0.5 more categories on average"),
  never the optimizer's units or z-scores.

Everything here is pure and imports nothing of the project, so fantasy/, agents/ and bot/
all use it.
"""

from __future__ import annotations

from datetime import date, datetime

POINTS = "fantasy points"


def day_text(d: date | datetime) -> str:
    """A day as members read it: "Thu Jan 26" (no zero padding, no year)."""
    return f"{d:%a} {d:%b} {d.day}"


def day_text_of(value: str | date | datetime | None) -> str:
    """`day_text` of a date or an ISO date string ("2023-02-04" -> "Sat Feb 4"); text that
    is not a date is returned as it is ("" for None)."""
    if value is None:
        return ""
    if isinstance(value, date):
        return day_text(value)
    try:
        return day_text(date.fromisoformat(str(value)[:10]))
    except ValueError:
        return str(value)


def weekday_text(d: date | datetime) -> str:
    """The weekday alone: "Thu"."""
    return f"{d:%a}"


def month_day_text(d: date | datetime) -> str:
    """A day without its weekday, for a date further away: "Feb 4"."""
    return f"{d:%b} {d.day}"


def plural(n: int, word: str, many: str | None = None) -> str:
    """A count with its word in the right number: "1 day", "5 days", "2 games" (`many`
    for an irregular plural), never "day(s)"."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


#: ESPN's injury statuses as members read them ("DAY_TO_DAY" -> "day-to-day")
_STATUS_WORDS = {"ACTIVE": "healthy", "OUT": "out", "DAY_TO_DAY": "day-to-day",
                 "QUESTIONABLE": "questionable", "PROBABLE": "probable", "DOUBTFUL": "doubtful",
                 "GTD": "game-time decision", "INJURY_RESERVE": "injured reserve",
                 "SUSPENSION": "suspended", "UNKNOWN": "unknown", "": "unknown"}


def status_text(status: str | None) -> str:
    """An ESPN injury status in plain words: "day-to-day", "out", "healthy" (never the raw
    value "DAY_TO_DAY")."""
    raw = str(status or "").strip().upper()
    return _STATUS_WORDS.get(raw, raw.replace("_", " ").lower())


def recommendation_text(value: str | None, *, capital: bool = False) -> str:
    """A player report's recommendation as a word: "ACTIVE" (keep him active) -> "start",
    "MONITOR" -> "monitor", "DROP" -> "drop"."""
    raw = str(value or "").strip().upper()
    return word_text("start" if raw == "ACTIVE" else raw, capital=capital)


def word_text(value: str | None, *, capital: bool = False) -> str:
    """A stored code as a word: "MONITOR" -> "monitor", "MEDIUM" -> "medium" ("Medium" with
    `capital`); "" for None."""
    text = str(value or "").replace("_", " ").strip().lower()
    return text[:1].upper() + text[1:] if capital else text


def whole(x: float, *, signed: bool = False) -> str:
    """A number rounded to a whole: "67", "+67" (`signed`), "0" (never "-0" or "+0")."""
    n = round(float(x))
    if n == 0:
        return "0"
    return f"{n:+d}" if signed else f"{n:d}"


def one_decimal(x: float, *, signed: bool = False) -> str:
    """A per-game average: "43.9", "+2.5" (`signed`), "0.0" (never "-0.0")."""
    v = round(float(x), 1)
    if v == 0:
        return "0.0"
    return f"{v:+.1f}" if signed else f"{v:.1f}"


def points_text(x: float, *, signed: bool = True, suffix: str = "") -> str:
    """Fantasy points in a move line or total: "+67 fantasy points" (whole points);
    `suffix`: " this week", " rest of season". One point is "1 fantasy point"."""
    n = whole(x, signed=signed)
    return f"{n} {POINTS if n.lstrip('+-') != '1' else POINTS[:-1]}{suffix}"


def _count(x: float) -> str:
    """0.5 -> "0.5", 1.0 -> "1", 2.5 -> "2.5"."""
    v = round(abs(float(x)), 1)
    return f"{v:.0f}" if v == int(v) else f"{v:.1f}"


def categories_text(g: float) -> str:
    """A change in expected categories won, in words: "wins 1 more category on average",
    "wins 0.5 fewer categories on average", "about the same categories won"."""
    v = round(float(g), 1)
    if v == 0:
        return "about the same categories won"
    n = _count(v)
    noun = "category" if n == "1" else "categories"
    return f"wins {n} {'more' if v > 0 else 'fewer'} {noun} on average"


def categories_won_text(x: float, of: int) -> str:
    """Expected categories won of all: "3.2 of 9 categories"."""
    return f"{one_decimal(x)} of {of} categories"


def gain_text(g: float, unit: str) -> str:
    """A move's effect in its unit: fantasy points (whole) or categories (in words); any
    other unit with one decimal."""
    if "categor" in unit:
        return categories_text(g)
    if "point" in unit:
        return points_text(g)
    return f"{one_decimal(g, signed=True)} {unit}".strip()


def total_text(v: float, unit: str) -> str:
    """A plan's total in its unit, without the unit: whole fantasy points ("1009"), one
    decimal for categories won ("2.2")."""
    return whole(v) if "point" in unit else one_decimal(v)


def season_effect_text(g: float, unit: str) -> str:
    """A rest-of-season effect: "+12 fantasy points rest of season" (whole points), or in
    words in a category league ("stronger for the rest of the season")."""
    return points_text(g, suffix=" rest of season") if "point" in unit \
        else season_value_text(g)


def season_value_text(g: float) -> str:
    """A rest-of-season effect in a category league, in words (the optimizer's category
    value has no unit a member knows): "stronger for the rest of the season"."""
    if abs(g) < 0.05:
        return "about the same for the rest of the season"
    return ("stronger" if g > 0 else "weaker") + " for the rest of the season"


__all__ = ["POINTS", "categories_text", "categories_won_text", "day_text", "gain_text", "month_day_text",
           "one_decimal", "points_text", "season_effect_text", "season_value_text", "total_text",
           "weekday_text", "whole"]
