"""One place every entry point opens its league client: the demo league or a live one.

Reads nothing from the environment: callers (CLI, bot settings) pass the values.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from fantasy.espn.client import EspnClient
from fantasy.schedule import today_eastern


def default_season(today: date | None = None) -> int:
    """ESPN's season id for a date: the year the NBA season ends (Oct-Dec -> next year)."""
    d = today or today_eastern()
    return d.year + 1 if d.month >= 10 else d.year


def open_league_client(
    *,
    league_id: int | None = None,
    season: int | None = None,
    espn_s2: str | None = None,
    swid: str | None = None,
    demo_variant: str = "points",
    demo_today: date | None = None,
    cache: Any = None,
    state_path: Path | None = None,
    **client_kwargs: Any,
) -> EspnClient:
    """The demo client when `league_id` is None, else a live `EspnClient`.

    Live: cookies are used only when both `espn_s2` and `swid` are given; `season`
    defaults to the current NBA season. Demo: `demo_variant` ("points" | "categories"),
    `demo_today` (default 2023-01-25) and `state_path` (persists demo moves).
    """
    if league_id is None:
        from fantasy.demo import open_demo_client

        return open_demo_client(demo_variant, today=demo_today, cache=cache,
                                state_path=state_path, **client_kwargs)
    return EspnClient(int(league_id), int(season or default_season()), espn_s2=espn_s2 or None,
                      swid=swid or None, cache=cache, **client_kwargs)


__all__ = ["default_season", "open_league_client"]
