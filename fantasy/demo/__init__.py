"""The embedded demo league: recorded ESPN-shaped data replayed through EspnClient.

    client = open_demo_client("points")          # an EspnClient (client.demo = DemoLeague)
    league = await client.get_league()
    client.demo.apply_move(1, drop_id, add_id)   # later requests see the move
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from fantasy.demo.league import (
    DEMO_BASE_URL,
    VARIANTS,
    DemoError,
    DemoLeague,
    DemoTransport,
    load_base,
)
from fantasy.espn.client import EspnClient

DEFAULT_TODAY = date(2023, 1, 25)
DEMO_SEASON = 2023
#: Team id of "you" in the demo league.
DEMO_USER_TEAM_ID = 1


def demo_league_id() -> int:
    """League id of the demo league."""
    return int(load_base()["league_id"])


def open_demo_client(variant: str = "points", today: date | None = None, cache: Any = None,
                     state_path: Path | None = None, **client_kwargs: Any) -> EspnClient:
    """An EspnClient wired to the demo league (`client.demo` is its DemoLeague handle)."""
    league = DemoLeague(variant=variant, today=today, state_path=state_path)
    client = EspnClient(league.league_id, league.season, transport=DemoTransport(league),
                        cache=cache, base_url=DEMO_BASE_URL, max_retries=0,
                        today=lambda: league.today, **client_kwargs)
    client.demo = league
    league.attach_client(client)
    return client


__all__ = [
    "DEFAULT_TODAY", "DEMO_BASE_URL", "DEMO_SEASON", "DEMO_USER_TEAM_ID", "VARIANTS",
    "DemoError", "DemoLeague", "DemoTransport", "demo_league_id", "open_demo_client",
]
