"""`fanvise chat` and `fanvise run discord|slack|console`: start FanVise on a chat surface.

Configuration comes from env / .env (bot.settings.Settings). Without any configuration it
runs on the embedded demo league with the offline model. Shutdown (EOF, quit, Ctrl-C,
SIGTERM) stops the scheduler and closes the runtime, ESPN client and database.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError

from bot.commands._league_source import (
    DataDirOpt,
    DemoVariantOpt,
    LeagueIdOpt,
    SeasonOpt,
    TeamIdOpt,
)

log = logging.getLogger("fanvise.run")


class Surface(StrEnum):
    """Where to run."""

    console = "console"
    discord = "discord"
    slack = "slack"


def _settings(data_dir: Path | None, **league: Any) -> Any:
    """Settings from env / .env; the command line's options (not None) win."""
    from bot.settings import Settings

    overrides = {k: v for k, v in league.items() if v is not None}
    if data_dir:
        overrides["data_dir"] = data_dir
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        lines = [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
        typer.echo("error: bad configuration: " + "; ".join(lines), err=True)
        raise typer.Exit(code=2) from None


def preflight(data_dir: Path) -> None:
    """Fail fast, before anything starts, on a data directory FanVise cannot use: not a
    writable folder, a full disk, or a damaged SQLite file in it (app DB, checkpoints).
    Raises `storage.db.DatabaseFileError` (one line naming the path and what to do)."""
    from storage.db import check_data_dir, check_database_file

    check_data_dir(data_dir)
    for path in sorted(Path(data_dir).glob("*.sqlite")):
        what = {"fanvise.sqlite": "app database",
                "checkpoints.sqlite": "checkpoints database"}.get(path.name, "database")
        check_database_file(path, what)


async def _open_app(settings: Any, *, warm_up: bool = False) -> Any:
    """FanViseApp.open, with a storage failure turned into one clear line. `warm_up`: do
    the first turn's one-time work (models, graphs, league parse) before serving."""
    import sqlite3

    from bot.core.app import FanViseApp
    from storage.db import DatabaseFileError

    try:
        return await FanViseApp.open(settings, warm_up=warm_up)
    except (sqlite3.Error, OSError) as exc:
        from fantasy.redact import redact
        log.debug("start-up storage failure", exc_info=True)
        raise DatabaseFileError(
            f"could not open the data in {settings.data_dir} ({type(exc).__name__}: "
            f"{redact(str(exc))}); check that the folder is writable and the disk is not "
            "full, or move damaged *.sqlite files away") from None


def _banner(app: Any) -> str:
    s = app.settings
    league = (f"demo league ({s.demo_variant})" if s.is_demo
              else f"ESPN league {s.espn_league_id}")
    mode = "offline mode (no GOOGLE_API_KEY)" if getattr(app.runtime, "offline", False) \
        else "Gemini"
    return (f"FanVise chat: {league}, {mode}. Ask a question, type /help, a number to pick "
            "a choice, or quit.")


def _install_signals(stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError, ValueError):
            pass


async def _serve(surface: Surface, settings: Any, *, session: str = "local",
                 stop: asyncio.Event | None = None) -> int:
    """Run one surface until EOF (console) or `stop` / SIGTERM / SIGINT; always closes."""
    from bot.scheduler import DailyScheduler

    if surface is Surface.discord:
        settings.require("discord_token")
    elif surface is Surface.slack:
        settings.require("slack_bot_token")
        from bot.slack.app import check_slack_mode
        check_slack_mode(settings)
    # a bot warms up before it serves, so the first member's answer is not the slow one
    app = await _open_app(settings, warm_up=surface is not Surface.console)
    scheduler: DailyScheduler | None = None
    takeover: asyncio.Task[None] | None = None
    maintenance = asyncio.create_task(_maintenance(app), name="fanvise-retention")
    from bot.commands.health import heartbeat_loop
    heartbeat = asyncio.create_task(heartbeat_loop(app, surface.value), name="fanvise-heartbeat")
    try:
        if surface is Surface.console:
            from bot.console.adapter import ConsoleSurface, prepare_router, run_console

            con = ConsoleSurface(sys.stdout)
            # One local user on their own machine; `printf '...' | fanvise chat` scripts ask
            # many questions in a row: the per-user limit protects shared bots only.
            app.core.rate_limit = False
            scheduler = DailyScheduler(app.app_db, lambda s: app.core.post_daily(con, s),
                                       platforms={"console"},
                                       alerts=lambda s: app.core.prelock_check(con, s),
                                       alert_window=app.core.prelock.window,
                                       moves=lambda: app.core.moves.run_due({"console": con}),
                                       league=lambda: app.core.league_life.run_due(
                                           {"console": con}))
            app.core.on_schedule_change = scheduler.reload
            await scheduler.start()
            con._write(_banner(app))
            await prepare_router(con, getattr(app.runtime, "offline", True))
            takeover = _start_takeover(app, lambda: {"console": con}, settings)
            # a request a restart interrupted is finished beside new input, not before it
            await run_console(app.core, stdin=sys.stdin, session=session, surface=con,
                              recover=lambda: app.core.recover({"console": con}))
            return 0
        stop = stop or asyncio.Event()
        _install_signals(stop)
        if surface is Surface.discord:
            from bot.discord.app import build_discord_bot

            bot = build_discord_bot(app.core, settings)

            async def post_discord(s: Any) -> str:
                await bot.wait_until_ready()
                return await app.core.post_daily(bot.surface, s)

            async def alert_discord(s: Any) -> int:
                await bot.wait_until_ready()
                return await app.core.prelock_check(bot.surface, s)

            async def moves_discord() -> Any:
                await bot.wait_until_ready()
                return await app.core.moves.run_due({"discord": bot.surface})

            async def league_discord() -> Any:
                await bot.wait_until_ready()
                return await app.core.league_life.run_due({"discord": bot.surface})

            scheduler = DailyScheduler(app.app_db, post_discord, platforms={"discord"},
                                       alerts=alert_discord,
                                       alert_window=app.core.prelock.window,
                                       moves=moves_discord, league=league_discord)
            app.core.on_schedule_change = scheduler.reload
            await scheduler.start()
            async def recover_discord() -> None:
                await bot.wait_until_ready()
                await app.core.recover({"discord": bot.surface})
                await _takeover(app, lambda: {"discord": bot.surface}, settings)

            recovery = asyncio.create_task(recover_discord())
            runner = asyncio.create_task(bot.start(settings.secret("discord_token")))
            stopper = asyncio.create_task(stop.wait())
            done, _ = await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
            await bot.close()
            stopper.cancel()
            recovery.cancel()
            if runner in done and runner.exception() is not None:
                raise runner.exception()  # type: ignore[misc]
            return 0
        from bot.slack.app import build_slack_app, serve
        from bot.slack.surface import SlackSurface

        client = None
        if settings.slack_api_url:
            from slack_sdk.web.async_client import AsyncWebClient
            client = AsyncWebClient(token=settings.secret("slack_bot_token"),
                                    base_url=settings.slack_api_url)
        slack = build_slack_app(app.core, settings, client=client)
        scheduler = DailyScheduler(
            app.app_db, lambda s: app.core.post_daily(SlackSurface(slack.client), s),
            platforms={"slack"},
            alerts=lambda s: app.core.prelock_check(SlackSurface(slack.client), s),
            alert_window=app.core.prelock.window,
            moves=lambda: app.core.moves.run_due({"slack": SlackSurface(slack.client)}),
            league=lambda: app.core.league_life.run_due({"slack": SlackSurface(slack.client)}))
        app.core.on_schedule_change = scheduler.reload
        await scheduler.start()
        await app.core.recover({"slack": SlackSurface(slack.client)})
        takeover = _start_takeover(app, lambda: {"slack": SlackSurface(slack.client)},
                                   settings)
        await serve(slack, settings, stop=stop)
        return 0
    finally:
        maintenance.cancel()
        heartbeat.cancel()
        if takeover is not None:
            takeover.cancel()
        if scheduler is not None:
            await scheduler.stop()
        await app.close()
        log.info("FanVise stopped cleanly")


def shares_database(app: Any) -> bool:
    """True when the app's tables live in a database other processes share (Postgres)."""
    return getattr(getattr(app.app_db, "db", None), "dialect", "sqlite") == "postgres"


def _start_takeover(app: Any, surfaces: Callable[[], dict[str, Any]], settings: Any
                    ) -> asyncio.Task[None] | None:
    """The periodic takeover pass (see `takeover_loop`) as a task; None on SQLite."""
    if not shares_database(app):
        return None
    return asyncio.create_task(takeover_loop(app, surfaces, every=settings.takeover_every),
                               name="fanvise-takeover")


async def _takeover(app: Any, surfaces: Callable[[], dict[str, Any]], settings: Any) -> None:
    if shares_database(app):
        await takeover_loop(app, surfaces, every=settings.takeover_every)


async def takeover_loop(app: Any, surfaces: Callable[[], dict[str, Any]], *,
                        every: float) -> None:
    """Postgres only (several processes, one database): every `every` seconds
    (FANVISE_TAKEOVER_EVERY, default 60), take over the runs, cards and turns of another
    instance that died (its heartbeat is older than storage.processes.PROCESS_STALE_AFTER):
    `ChatCore.recover(takeover=True)`, which never touches this process's own in-flight
    work and takes turns with the other processes' passes (one lease). Start-up recovery
    covers this process's previous incarnation; on SQLite (one process per file) nothing
    else can die with work in the file, so this does not run. Failures are logged, never
    fatal."""
    while True:
        await asyncio.sleep(every)
        try:
            n = await app.core.recover(surfaces(), takeover=True)
            if n:
                log.info("takeover: finished %d run(s) of a stopped instance", n)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001
            log.warning("takeover pass failed: %s", type(exc).__name__)


async def _maintenance(app: Any, *, first: float = 3600.0, every: float = 86400.0,
                       max_idle_days: float = 30.0) -> None:
    """Retention: prune idle checkpoint threads (runtime.prune) an hour after start, then
    daily. Failures are logged, never fatal."""
    await asyncio.sleep(first)
    while True:
        try:
            stats = await app.runtime.prune(max_idle_days=max_idle_days)
            log.info("retention: %s", stats)
        except Exception as exc:  # noqa: BLE001
            log.warning("retention failed: %s", type(exc).__name__)
        await asyncio.sleep(every)


def _run(surface: Surface, data_dir: Path | None, session: str, **league: Any) -> None:
    from bot.logging_setup import setup_logging

    settings = _settings(data_dir, **league)
    settings.register_secrets()
    level = settings.log_level
    if surface is Surface.console and level == "INFO":
        level = "WARNING"  # keep the chat readable; FANVISE_LOG_LEVEL=DEBUG still works
    setup_logging(level, settings.log_format)
    from storage.db import DatabaseFileError

    try:
        preflight(settings.data_dir)
        asyncio.run(_serve(surface, settings, session=session))
    except DatabaseFileError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=1) from None
    except KeyboardInterrupt:
        typer.echo("\nbye", err=True)
    except ValueError as exc:
        from fantasy.redact import redact
        typer.echo(f"error: {redact(str(exc))}", err=True)
        raise typer.Exit(code=2) from None
    except Exception as exc:  # noqa: BLE001 - one clear line, never a traceback with secrets
        from fantasy.redact import redact
        log.debug("fatal", exc_info=True)
        typer.echo(f"error: {type(exc).__name__}: {redact(str(exc))}", err=True)
        raise typer.Exit(code=1) from None


SessionOpt = Annotated[str, typer.Option(
    "--session", help="Console conversation name; the same name continues it")]


def register(app: typer.Typer) -> None:
    """Add `fanvise run` and `fanvise chat` to the root app."""

    @app.command("run")
    def run_cmd(surface: Annotated[Surface, typer.Argument(help="console, discord or slack")],
                data_dir: DataDirOpt = None, session: SessionOpt = "local",
                league_id: LeagueIdOpt = None, season: SeasonOpt = None,
                demo_variant: DemoVariantOpt = None, team_id: TeamIdOpt = None) -> None:
        """Run FanVise on a chat surface (config from env / .env, options win; see
        docs/running.md)."""
        _run(surface, data_dir, session, espn_league_id=league_id, espn_season=season,
             demo_variant=demo_variant, team_id=team_id)

    @app.command("chat")
    def chat_cmd(data_dir: DataDirOpt = None, session: SessionOpt = "local",
                 league_id: LeagueIdOpt = None, season: SeasonOpt = None,
                 demo_variant: DemoVariantOpt = None, team_id: TeamIdOpt = None) -> None:
        """Chat with FanVise in the terminal (demo league + offline model by default).
        Same as `fanvise run console`."""
        _run(Surface.console, data_dir, session, espn_league_id=league_id,
             espn_season=season, demo_variant=demo_variant, team_id=team_id)
