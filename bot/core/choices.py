"""Suggestions for command options (`Option.autocomplete` in bot.core.commands): league
players, lineup days and time zones. Teams are the linking feature's (`Linking.team_choices`).
Discord shows them as autocomplete, Slack as a select where one exists.
"""

from __future__ import annotations

import logging
import zoneinfo
from datetime import date, timedelta
from functools import lru_cache
from typing import Any

from bot.core.models import Choice
from fantasy.formatting import day_text

log = logging.getLogger(__name__)

#: Discord shows at most 25 suggestions
MAX_CHOICES = 25


@lru_cache(maxsize=1)
def _zones() -> tuple[str, ...]:
    zones = sorted(z for z in zoneinfo.available_timezones()
                   if "/" in z and not z.startswith(("Etc/", "SystemV/", "posix/", "right/")))
    common = ("America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles",
              "America/Toronto", "Europe/London", "Europe/Berlin", "Australia/Sydney")
    return tuple(dict.fromkeys([*common, *zones]))


def timezone_choices(query: str) -> list[Choice]:
    """IANA zones whose name contains every word of `query` ("new york" -> New_York),
    the common US zones first."""
    words = [w for w in (query or "").lower().replace("_", " ").split() if w]
    out = [z for z in _zones() if all(w in z.lower().replace("_", " ") for w in words)]
    return [Choice(z, z) for z in out[:MAX_CHOICES]]


def day_choices(today: date, query: str) -> list[Choice]:
    """today, tomorrow and the next five days by weekday name, filtered by `query`."""
    days = [("today", today), ("tomorrow", today + timedelta(days=1))]
    days += [(d.strftime("%A").lower(), d) for d in (today + timedelta(days=i)
                                                       for i in range(2, 7))]
    q = (query or "").strip().lower()
    return [Choice(f"{name} ({day_text(d)})", name if name in ("today", "tomorrow")
                   else d.isoformat())
            for name, d in days if not q or q in name or q in d.isoformat()]


async def player_choices(espn: Any, query: str) -> list[Choice]:
    """League players (rostered first, then free agents) whose name matches `query`."""
    from fantasy.player_resolver import name_key

    q = name_key(query or "")
    if espn is None:
        return []
    try:
        league = await espn.get_league()
    except Exception as exc:  # noqa: BLE001 - suggestions are optional
        log.info("no player suggestions (%s)", type(exc).__name__)
        return []
    seen: dict[int, tuple[str, str]] = {}
    for team in league.teams:
        for entry in team.roster:
            p = entry.player
            seen.setdefault(p.id, (p.name, getattr(team, "name", "")))
    try:
        for p in await espn.get_free_agents(size=150):
            seen.setdefault(p.id, (p.name, "free agent"))
    except Exception as exc:  # noqa: BLE001
        log.info("no free-agent suggestions (%s)", type(exc).__name__)
    out = [(name, where) for name, where in seen.values() if not q or q in name_key(name)]
    out.sort(key=lambda nw: (not name_key(nw[0]).startswith(q), nw[0]))
    return [Choice(f"{name} · {where}"[:100], name) for name, where in out[:MAX_CHOICES]]


__all__ = ["MAX_CHOICES", "day_choices", "player_choices", "timezone_choices"]
