"""`fanvise ask "..."`: one question to FanVise from the terminal, through the same chat
core as `fanvise chat` (bot.console.adapter.run_console): the same credential guard (cookies
in a message are refused and never stored), the same answer and the same card with its
numbered choices, read from stdin (`--yes` presses the card's approve-all button, `--no`
its skip-all, for scripts).

Runs on the demo league by default (or the live league from FANVISE_ESPN_LEAGUE_ID /
--league-id). Checkpoints, app data and demo state live in the data dir (--data-dir,
$FANVISE_DATA_DIR or ./fanvise-data); `--conversation NAME` is the console session, so a
follow-up `fanvise ask` (or `fanvise chat --session NAME`) continues it.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Annotated, Any

import typer

from bot.commands._league_source import (
    DataDirOpt,
    DemoVariantOpt,
    LeagueIdOpt,
    SeasonOpt,
    SourceError,
    TeamIdOpt,
    VariantAliasOpt,
    demo_variant_of,
    fail,
)

DEFAULT_CONVERSATION = "cli"
#: Longest question accepted (the chat surfaces' limit, bot.core.service.MAX_QUESTION).
MAX_QUESTION = 2000


async def run_ask(question: str, *, settings: Any, session: str, user: str | None,
                  decide: str | None) -> int:
    """Ask one question through the chat core on the console; returns the exit code."""
    from bot.commands.run import _open_app
    from bot.console.adapter import ConsoleSurface, prepare_router, run_console

    app = await _open_app(settings)
    try:
        surface = ConsoleSurface(sys.stdout)
        app.core.rate_limit = False  # one local user on their own machine, like `chat`
        await prepare_router(surface, getattr(app.runtime, "offline", True))
        # a request a restart interrupted is finished beside this one, not before it
        await run_console(app.core, stdin=sys.stdin, session=session, user_name=user,
                          surface=surface, first=question, decide=decide,
                          recover=lambda: app.core.recover({"console": surface}))
    finally:
        await app.close()
    return 0


def register(app: typer.Typer) -> None:
    """Add `fanvise ask` to the root app."""

    @app.command("ask")
    def ask(
        question: Annotated[str, typer.Argument(help="Your question, e.g. \"Review my matchup\"")],
        data_dir_opt: DataDirOpt = None,
        league_id: LeagueIdOpt = None,
        season: SeasonOpt = None,
        demo_variant: DemoVariantOpt = None,
        variant: VariantAliasOpt = None,
        team_id: TeamIdOpt = None,
        yes: Annotated[bool, typer.Option("--yes", help="Approve all proposed moves")] = False,
        no: Annotated[bool, typer.Option("--no", help="Decline all proposed moves")] = False,
        conversation: Annotated[str, typer.Option(
            "--conversation", help="Conversation id (keeps history between runs)")
        ] = DEFAULT_CONVERSATION,
        user: Annotated[str | None, typer.Option(
            "--user", help="Who is asking (default: your login name, as in `fanvise chat`)")
        ] = None,
    ) -> None:
        """Ask FanVise one question, as in `fanvise chat` (live progress; a card's numbered
        choices from stdin)."""
        if yes and no:
            raise fail("use either --yes or --no, not both")
        if not question.strip():
            raise fail("the question is empty")
        if len(question) > MAX_QUESTION:
            raise fail(f"the question is too long ({len(question)} characters); the limit is "
                       f"{MAX_QUESTION}")
        from bot.commands.run import _settings, preflight
        from bot.logging_setup import setup_logging
        from storage.db import DatabaseFileError

        try:
            v = demo_variant_of(demo_variant, variant)
        except SourceError as exc:
            raise fail(str(exc)) from None
        settings = _settings(data_dir_opt, espn_league_id=league_id, espn_season=season,
                             demo_variant=v, team_id=team_id)
        settings.register_secrets()
        setup_logging("WARNING" if settings.log_level == "INFO" else settings.log_level,
                      settings.log_format)
        decide = "approve" if yes else "decline" if no else None
        session = conversation.removeprefix("console:") or DEFAULT_CONVERSATION
        try:
            preflight(settings.data_dir)
            code = asyncio.run(run_ask(question, settings=settings, session=session,
                                       user=user, decide=decide))
        except DatabaseFileError as exc:
            raise fail(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - never a traceback in the terminal
            from fantasy.redact import redact

            raise fail(f"{type(exc).__name__}: {redact(str(exc))}") from None
        if code:
            raise typer.Exit(code=code)
