"""Local timestamps in chat text: one token, converted per platform.

The core writes Discord's native token `<t:EPOCH:STYLE>` (`discord_ts`) into platform-neutral
text, card fields and footers. Discord shows it in each reader's own time zone; Slack gets
its `<!date^EPOCH^FORMAT|FALLBACK>` token (`to_slack`); the console a readable local time
(`to_plain`). Styles as Discord defines them: t T (time), d D (date), f F s S (date and time),
R (relative; "2 minutes ago" on Discord).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, tzinfo

#: `<t:1763913970>` or `<t:1763913970:R>`.
TOKEN_RE = re.compile(r"<t:(-?\d{1,12})(?::([tTdDfFsSR]))?>")
STYLES = "tTdDfFsSR"

#: Discord style -> Slack date format ({date_num} 2014-02-18, {date} February 18th, 2014,
#: {date_short} Feb 18, 2014, {date_long} Tuesday, February 18th, 2014, *_pretty: "today" /
#: "yesterday" where it applies, {time} 6:39 PM or 18:39 as the reader prefers).
_SLACK_FORMATS = {
    "t": "{time}", "T": "{time_secs}", "d": "{date_num}", "D": "{date}",
    "f": "{date} {time}", "F": "{date_long} {time}", "s": "{date_short} {time}",
    "S": "{date_short} {time_secs}", "R": "{date_short_pretty} {time}",
}
#: Discord style -> strftime for the console (and Slack's fallback, in UTC).
_PLAIN_FORMATS = {
    "t": "%H:%M", "T": "%H:%M:%S", "d": "%Y-%m-%d", "D": "%b %d, %Y",
    "f": "%b %d, %Y %H:%M", "F": "%a %b %d, %Y %H:%M", "s": "%Y-%m-%d %H:%M",
    "S": "%Y-%m-%d %H:%M:%S", "R": "%a %b %d %H:%M",
}


def epoch_of(dt: datetime | str | float | int) -> int:
    """Seconds since the epoch of a datetime (naive = UTC), an ISO string or a number."""
    if isinstance(dt, (int, float)):
        return int(dt)
    if isinstance(dt, str):
        dt = datetime.fromisoformat(dt.strip().replace("Z", "+00:00"))
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return int(dt.timestamp())


def discord_ts(dt: datetime | str | float | int, style: str = "R") -> str:
    """The token `<t:EPOCH:STYLE>` for `dt` (see `epoch_of`). Raises ValueError for an
    unknown style or an unparsable string."""
    if style not in STYLES or len(style) != 1:
        raise ValueError(f"unknown timestamp style {style!r}")
    return f"<t:{epoch_of(dt)}:{style}>"


def _when(m: re.Match[str]) -> tuple[datetime, str] | None:
    try:
        return datetime.fromtimestamp(int(m.group(1)), UTC), m.group(2) or "f"
    except (OverflowError, OSError, ValueError):
        return None  # out of range: left as it is


def _utc_text(when: datetime, style: str) -> str:
    return when.strftime(_PLAIN_FORMATS[style]) + " UTC"


def to_slack(text: str) -> str:
    """Every `<t:EPOCH:STYLE>` in `text` -> `<!date^EPOCH^FORMAT|FALLBACK>` (fallback: UTC)."""
    def sub(m: re.Match[str]) -> str:
        got = _when(m)
        if got is None:
            return m.group(0)
        when, style = got
        return f"<!date^{m.group(1)}^{_SLACK_FORMATS[style]}|{_utc_text(when, style)}>"
    return TOKEN_RE.sub(sub, text or "")


def to_plain(text: str, tz: tzinfo | None = None) -> str:
    """Every `<t:EPOCH:STYLE>` in `text` -> readable time in `tz` (None: this machine's local
    time zone), with the zone's name: "Sun Nov 23 17:06 CET"."""
    def sub(m: re.Match[str]) -> str:
        got = _when(m)
        if got is None:
            return m.group(0)
        when, style = got
        local = when.astimezone(tz) if tz is not None else when.astimezone()
        zone = local.tzname() or ""
        return local.strftime(_PLAIN_FORMATS[style]) + (f" {zone}" if zone else "")
    return TOKEN_RE.sub(sub, text or "")


def to_utc_text(text: str) -> str:
    """Every token -> its UTC text (for places that show no markup: Slack plain_text)."""
    return to_plain(text, UTC)


def first_time(text: str) -> datetime | None:
    """The instant of the first token in `text`, or None."""
    m = TOKEN_RE.search(text or "")
    got = _when(m) if m else None
    return got[0] if got else None


__all__ = ["STYLES", "TOKEN_RE", "discord_ts", "epoch_of", "first_time", "to_plain",
           "to_slack", "to_utc_text"]
