"""`fanvise set-lineup`: write a team's optimal lineup to its league through ESPN's
transaction endpoint (fantasy.espn.writes), today's or every later day of the matchup.

    fanvise set-lineup --team-id 1 --dry-run            # the demo league: print the bodies
    fanvise set-lineup --team-id 1 --week               # the demo: set each later day
    FANVISE_ESPN_WRITES=1 ESPN_S2=… ESPN_SWID=… fanvise set-lineup --league-id 123 --team-id 4

A live league needs the team owner's own cookies (ESPN_S2 / ESPN_SWID) and
FANVISE_ESPN_WRITES=1; `--dry-run` (or FANVISE_ESPN_WRITES_DRY_RUN=1) prints the exact
payloads (memberId masked) and sends nothing. Writes are journaled in the data directory's
app database, so a rerun never sends one twice (docs/espn-writes.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from bot.commands._league_source import (
    DataDirOpt,
    DemoTodayOpt,
    DemoVariantOpt,
    LeagueIdOpt,
    LeagueSource,
    SeasonOpt,
    TeamIdOpt,
    data_dir,
    fail,
    run_league_command,
)
from fantasy.espn.client import EspnClient
from fantasy.espn.errors import EspnWriteError
from fantasy.espn.writes import Credentials, writer_for
from fantasy.formatting import day_text

DryRunOpt = Annotated[bool, typer.Option(
    "--dry-run", help="Print the exact transaction bodies instead of sending them "
                      "(env FANVISE_ESPN_WRITES_DRY_RUN).")]
WeekOpt = Annotated[bool, typer.Option(
    "--week", help="Set each later day of the matchup (FUTURE_ROSTER) instead of today.")]


def set_lineup(team_id: TeamIdOpt = None, week: WeekOpt = False, dry_run: DryRunOpt = False,
               league_id: LeagueIdOpt = None, season: SeasonOpt = None,
               demo_variant: DemoVariantOpt = None, demo_today: DemoTodayOpt = None,
               data: DataDirOpt = None) -> None:
    """Write the team's optimal lineup (today, or --week: each later day) through ESPN's
    transaction endpoint; --dry-run prints the payloads instead."""
    from bot.settings import load_settings
    settings = load_settings()
    dry_run = dry_run or settings.espn_writes_dry_run
    team = team_id or settings.team_id or (1 if (league_id or settings.espn_league_id) is None
                                           else None)
    if team is None:
        raise fail("Which team? --team-id (the number after teamId= in your team's URL).")
    root = Path(data or data_dir())

    def source() -> LeagueSource:
        return LeagueSource.from_options(league_id=league_id, season=season,
                                         demo_variant=demo_variant, demo_today=demo_today,
                                         root=root)

    async def body(client: EspnClient, src: LeagueSource) -> None:
        live = getattr(client, "demo", None) is None
        creds = None
        if live:
            if not src.has_cookies:
                raise fail("A live league needs the team owner's own cookies: ESPN_S2 and "
                           "ESPN_SWID.")
            if not (settings.espn_writes or dry_run):
                raise fail("Writes to ESPN are off: set FANVISE_ESPN_WRITES=1 (or use "
                           "--dry-run).")
            creds = Credentials(str(src.espn_s2), str(src.swid))
        await _set(client, int(team), week=week, dry_run=dry_run, creds=creds, root=root,
                   write_base_url=settings.espn_writes_base_url)

    run_league_command(source, body)


async def _set(client: EspnClient, team_id: int, *, week: bool, dry_run: bool,
               creds: Credentials | None, root: Path, write_base_url: str | None) -> None:
    from agents.shared.deps import AgentDeps, optimizer_for
    from bot.core.handoff import lineup_starters
    from storage.app_db import AppDB
    from storage.db import Database

    console = Console(width=140)
    deps = AgentDeps.for_client(client, model=None, my_team_id=team_id)  # type: ignore[arg-type]
    opt = await optimizer_for(deps, refresh=True)
    today = opt.today
    days = [d for d in opt.league.remaining_dates(today=today) if d > today] if week \
        else [today]
    if not days:
        console.print("No later days left in this matchup.")
        return
    root.mkdir(parents=True, exist_ok=True)
    db = await Database.open(root / "fanvise.sqlite")
    try:
        journal = await AppDB.open(db)
        from storage.crashpoint import crash_point
        writer = writer_for(client, team_id=team_id, credentials=creds, journal=journal,
                            dry_run=dry_run, write_base_url=write_base_url, crash=crash_point)
        writer.names.update({e.player.id: e.player.name
                             for e in opt.league.team(team_id).roster})
        current = opt.schedule.scoring_period_for(today)
        try:
            for day in days:
                sp = opt.schedule.scoring_period_for(day)
                starters, caps = lineup_starters(opt, team_id, day)
                out = await writer.set_lineup(
                    team_id, starters=starters, slot_caps=caps, scoring_period=sp,
                    current_period=current, key=f"cli:lineup:{team_id}:{today}:sp{sp}",
                    actor="cli")
                _show(console, day, out, writer.names)
        except EspnWriteError as exc:
            raise fail(f"ESPN refused the lineup: {exc.reason}") from None
        finally:
            await writer.aclose()
    finally:
        await db.close()


def _show(console: Console, day: Any, out: Any, names: dict[int, str]) -> None:
    when = day_text(day)
    if out.status == "dry_run":
        console.print(f"{when}: dry run, would send:")
        console.print(escape(json.dumps(out.body, indent=1)), soft_wrap=True)
    elif out.transaction is None and out.status == "done":
        console.print(f"{when}: already made by an earlier attempt (read back); nothing sent.")
    elif out.status == "noop":
        console.print(f"{when}: already the best lineup; nothing sent.")
    else:
        console.print(f"{when}: {escape(out.transaction.describe(names))} -> {out.status}"
                      + (" (verified)" if out.verified else ""))


def register(app: typer.Typer) -> None:
    """Add `set-lineup` to the root app."""
    app.command("set-lineup")(set_lineup)


__all__ = ["register", "set_lineup"]
