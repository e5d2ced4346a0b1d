"""Where a command's league comes from: the demo league, or a live ESPN league.

Reusable by every command: `LeagueSource.from_options(...)` merges CLI options with the
environment and `.env` (FANVISE_ESPN_LEAGUE_ID, FANVISE_ESPN_SEASON, ESPN_S2, ESPN_SWID,
FANVISE_DATA_DIR), `source.open_client()` returns an `EspnClient`, and
`run_league_command(source, fn)` runs an async body with clean error handling: a clear
one-line message and exit code 1, never a traceback, never the cookies.

The league options every command takes are defined here once (`LeagueIdOpt`, `SeasonOpt`,
`DemoVariantOpt`, `DemoTodayOpt`, `TeamIdOpt`, `DataDirOpt`), so a flag is spelled and typed
the same in `league`, `team`, `free-agents`, `ask`, `chat`, `run` and `news`.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from bot.settings import check_league_id
from fantasy.espn.client import EspnClient
from fantasy.espn.errors import EspnError
from fantasy.espn.factory import open_league_client

T = TypeVar("T")

ENV_LEAGUE_ID = "FANVISE_ESPN_LEAGUE_ID"
ENV_SEASON = "FANVISE_ESPN_SEASON"
ENV_S2 = "ESPN_S2"
ENV_SWID = "ESPN_SWID"
ENV_DATA_DIR = "FANVISE_DATA_DIR"
ENV_DEMO_VARIANT = "FANVISE_DEMO_VARIANT"
#: The demo league's scoring variants.
DEMO_VARIANTS = ("points", "categories")
#: Optional override of the ESPN reads host (proxies, local test servers).
ENV_BASE_URL = "FANVISE_ESPN_BASE_URL"


class SourceError(ValueError):
    """Bad league options (message is safe to print)."""


# The CLI's league options, one spelling and type for every command.
LeagueIdOpt = Annotated[int | None, typer.Option(
    "--league-id", help="ESPN league id, the number after leagueId= in the league's URL "
                        "(env FANVISE_ESPN_LEAGUE_ID). Omit for the demo league.")]
SeasonOpt = Annotated[int | None, typer.Option(
    "--season", help="Season = year the NBA season ends, e.g. 2026 for 2025-26 "
                     "(env FANVISE_ESPN_SEASON; default: the current one).")]
DemoVariantOpt = Annotated[str | None, typer.Option(
    "--demo-variant", help="Demo league scoring: points or categories "
                           "(env FANVISE_DEMO_VARIANT; default points).")]
#: The old spelling of --demo-variant (`fanvise ask --variant`), still accepted, not shown.
VariantAliasOpt = Annotated[str | None, typer.Option(
    "--variant", hidden=True, help="Same as --demo-variant.")]
DemoTodayOpt = Annotated[str | None, typer.Option(
    "--demo-today", help="Demo league 'today' (YYYY-MM-DD, default 2023-01-25).")]
TeamIdOpt = Annotated[int | None, typer.Option(
    "--team-id", help="Your ESPN team id, the number after teamId= in your team's URL "
                      "(env FANVISE_TEAM_ID).")]
DataDirOpt = Annotated[Path | None, typer.Option(
    "--data-dir", help="Data directory (env FANVISE_DATA_DIR, default ./fanvise-data).")]


def demo_variant_of(value: str | None, alias: str | None = None,
                    env: Mapping[str, str] | None = None) -> str:
    """--demo-variant (or its old spelling --variant), else FANVISE_DEMO_VARIANT, else
    points; raises SourceError for another value."""
    env = environment() if env is None else env
    variant = (value or alias or env.get(ENV_DEMO_VARIANT) or "points").strip().lower()
    if variant not in DEMO_VARIANTS:
        raise SourceError(f"--demo-variant must be points or categories, not {shown(variant)}")
    return variant


def environment() -> dict[str, str]:
    """The process environment over the `.env` file in the working directory, as
    `fanvise run` reads its settings (bot.settings.Settings): the environment wins."""
    values: dict[str, str] = {}
    if Path(".env").is_file():
        from dotenv import dotenv_values

        values = {k: v for k, v in dotenv_values(".env").items() if v is not None}
    values.update(os.environ)
    return values


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    """The data directory ($FANVISE_DATA_DIR or ./fanvise-data)."""
    env = environment() if env is None else env
    return Path(env.get(ENV_DATA_DIR) or "fanvise-data")


@dataclass(frozen=True)
class LeagueSource:
    """Resolved league options. `repr` never shows cookie values."""

    league_id: int | None = None
    season: int | None = None
    espn_s2: str | None = None
    swid: str | None = None
    demo_variant: str = "points"
    demo_today: date | None = None
    state_path: Path | None = None
    base_url: str | None = None

    def __repr__(self) -> str:
        return (f"LeagueSource(league_id={self.league_id}, season={self.season}, "
                f"cookies={'set' if self.has_cookies else 'none'}, "
                f"demo_variant={self.demo_variant!r}, demo_today={self.demo_today})")

    @property
    def is_demo(self) -> bool:
        """True when no league id was given (the embedded demo league is used)."""
        return self.league_id is None

    @property
    def has_cookies(self) -> bool:
        """True when both espn_s2 and SWID are set."""
        return bool(self.espn_s2 and self.swid)

    @classmethod
    def from_options(
        cls,
        *,
        league_id: int | str | None = None,
        season: int | str | None = None,
        demo_variant: str | None = None,
        demo_today: str | date | None = None,
        state_path: Path | str | None = None,
        env: Mapping[str, str] | None = None,
        root: Path | str | None = None,
    ) -> LeagueSource:
        """Merge options with the environment and `.env`; raises SourceError on bad
        values. `root`: the data directory (--data-dir) holding the demo state, else
        FANVISE_DATA_DIR's."""
        env = environment() if env is None else env
        raw_id = league_id if league_id not in (None, "") else env.get(ENV_LEAGUE_ID)
        raw_season = season if season not in (None, "") else env.get(ENV_SEASON)
        lid = _as_int(raw_id, "league id") if raw_id not in (None, "") else None
        if lid is not None:
            try:
                check_league_id(lid)
            except ValueError as exc:
                raise SourceError(str(exc)) from None
        ssn = _as_int(raw_season, "season") if raw_season not in (None, "") else None
        if ssn is not None and not 2000 <= ssn <= 2100:
            raise SourceError(f"season {ssn} looks wrong; use the year the NBA season ends, "
                              "e.g. 2025 for 2024-25")
        today: date | None
        if isinstance(demo_today, date) or demo_today is None:
            today = demo_today
        else:
            try:
                today = date.fromisoformat(demo_today.strip())
            except ValueError:
                raise SourceError(f"--demo-today must be a date like 2023-01-25, "
                                  f"not {shown(demo_today)}") from None
        variant = demo_variant_of(demo_variant, env=env)
        if state_path is None and lid is None:
            state_path = Path(root or data_dir(env)) / f"demo-state-{variant}.json"
        return cls(
            league_id=lid,
            season=ssn,
            espn_s2=env.get(ENV_S2) or None,
            swid=env.get(ENV_SWID) or None,
            demo_variant=variant,
            demo_today=today,
            state_path=Path(state_path) if state_path else None,
            base_url=env.get(ENV_BASE_URL) or None,
        )

    def open_client(self, cache: Any = None, **client_kwargs: Any) -> EspnClient:
        """Open the league client (demo or live)."""
        if self.base_url and not self.is_demo:
            client_kwargs.setdefault("base_url", self.base_url)
        return open_league_client(
            league_id=self.league_id, season=self.season, espn_s2=self.espn_s2,
            swid=self.swid, demo_variant=self.demo_variant, demo_today=self.demo_today,
            cache=cache, state_path=self.state_path, **client_kwargs)

    def describe(self) -> str:
        """One line for humans, e.g. "demo league (points)" / "ESPN league 123 (2025)"."""
        if self.is_demo:
            return f"demo league ({self.demo_variant})"
        auth = "private, cookies set" if self.has_cookies else "public, no cookies"
        return f"ESPN league {self.league_id} ({self.season or 'current season'}, {auth})"


def _as_int(value: Any, what: str) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        raise SourceError(f"{what} must be a number, not {shown(value)}") from None


#: Longest user argument echoed back in a message (longer ones are clipped with an ellipsis).
MAX_ECHO = 60
#: Longest error message printed (a safety net; messages quote clipped arguments).
MAX_MESSAGE = 1000


def shown(value: Any, limit: int = MAX_ECHO) -> str:
    """A user argument for a message: quoted like repr, clipped to `limit` characters."""
    text = str(value)
    if len(text) > limit:
        text = text[: limit - 1] + "\u2026"
    return repr(text)


def fail(message: str, console: Console | None = None) -> typer.Exit:
    """Print `error: message` to stderr (literally: user text is never Rich markup) and
    return a typer.Exit(1) to raise."""
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 1] + "\u2026"
    (console or Console(stderr=True)).print(f"[bold red]error:[/] {escape(message)}",
                                            highlight=False)
    return typer.Exit(code=1)


def run_league_command(
    source_factory: Callable[[], LeagueSource],
    body: Callable[[EspnClient, LeagueSource], Awaitable[T]],
) -> T:
    """Resolve the source, open the client, run `body`, close; errors -> message + exit 1."""
    try:
        source = source_factory()
    except SourceError as exc:
        raise fail(str(exc)) from None

    async def _run() -> T:
        client = source.open_client()
        try:
            return await body(client, source)
        finally:
            await client.aclose()

    try:
        return asyncio.run(_run())
    except typer.Exit:
        raise
    except EspnError as exc:
        raise fail(f"{exc} [{source.describe()}]") from None
    except (ValueError, KeyError, LookupError) as exc:
        raise fail(str(exc).strip("'\"")) from None
    except Exception as exc:  # noqa: BLE001 - a CLI must not print tracebacks
        raise fail(f"unexpected {type(exc).__name__}: {exc}") from None


__all__ = [
    "DEMO_VARIANTS", "ENV_BASE_URL", "ENV_DATA_DIR", "ENV_DEMO_VARIANT", "ENV_LEAGUE_ID", "ENV_S2",
    "ENV_SEASON", "ENV_SWID", "DataDirOpt", "DemoTodayOpt", "DemoVariantOpt", "LeagueIdOpt",
    "LeagueSource", "SeasonOpt", "SourceError", "TeamIdOpt", "VariantAliasOpt", "data_dir",
    "demo_variant_of", "environment", "fail", "run_league_command", "shown",
]
