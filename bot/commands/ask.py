"""`fanvise ask "..."`: one question to the FanVise runtime from the terminal.

Runs on the demo league by default (or the live league from FANVISE_ESPN_LEAGUE_ID /
--league-id), prints live progress lines and, when the optimizer asks for approval, numbered
choices read from stdin (`--yes` approves all, `--no` declines all, for scripts).
Checkpoints and demo state live in the data dir (--data-dir, $FANVISE_DATA_DIR or
./fanvise-data), so a follow-up `fanvise ask` continues the same console conversation; the
news store in `<data dir>/chroma` (filled by `fanvise news ingest`) is used when present.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer

from bot.commands._league_source import (
    DataDirOpt,
    DemoVariantOpt,
    LeagueIdOpt,
    LeagueSource,
    SeasonOpt,
    SourceError,
    TeamIdOpt,
    VariantAliasOpt,
    data_dir,
    demo_variant_of,
    fail,
)
from fantasy.moves import text_of

DEFAULT_CONVERSATION = "console:cli"
#: Longest question accepted (the chat surfaces' limit, bot.core.service.MAX_QUESTION).
MAX_QUESTION = 2000


def format_move(k: int, move: dict[str, Any]) -> str:
    """One numbered line describing a proposed move."""
    extras = []
    if move.get("expected_gain") is not None:
        extras.append(f"gain {move['expected_gain']}")
    if move.get("games") is not None:
        extras.append(f"{move['games']} games")
    if move.get("confidence"):
        extras.append(f"confidence {move['confidence']}")
    what = move.get("line") or text_of(move)
    if move.get("alternative_of"):  # a plan card's choice: another player for a spot
        what += " (instead of the plan's pick for that spot)"
    line = f"  {k}) approve move {k}: {what}"
    if extras:
        line += f" ({', '.join(extras)})"
    reasons = move.get("reasons") or []
    if reasons:
        line += "\n       " + "; ".join(str(r) for r in reasons[:3])
    return line


def parse_choice(raw: str, moves: list[dict[str, Any]]) -> str | dict[str, str] | None:
    """'1' / '1,3' -> those moves approved; n+1 or 'all' -> approve all; n+2, 'no' or 'd'
    -> decline; None when the input is not understood."""
    n = len(moves)
    t = raw.strip().lower()
    if t in ("a", "all", "y", "yes", str(n + 1)):
        return "approve"
    if t in ("d", "decline", "n", "no", str(n + 2)):
        return "decline"
    try:
        picks = {int(x) for x in t.replace(" ", ",").split(",") if x}
    except ValueError:
        return None
    if not picks or not all(1 <= p <= n for p in picks):
        return None
    return {str(m.get("move_id")): ("approve" if k in picks else "decline")
            for k, m in enumerate(moves, 1)}


def _prompt_choice(moves: list[dict[str, Any]]) -> str | dict[str, str] | None:
    n = len(moves)
    for _ in range(3):
        try:
            raw = input(f"Choose 1-{n} (comma-separated), {n + 1} = approve all, "
                        f"{n + 2} = decline: ")
        except EOFError:
            return None
        choice = parse_choice(raw, moves)
        if choice is not None:
            return choice
        typer.echo("  Not understood; type a move number, 'all' or 'decline'.")
    return None


async def run_ask(question: str, *, source: LeagueSource, root: Path, team_id: int | None,
                  conversation: str, user: str, auto: str | None) -> int:
    """Run one question through the runtime; returns the exit code."""
    from agents.runtime import FanViseRuntime
    from agents.shared.types import Answer, ApprovalRequest, Notice, Progress

    client = source.open_client()
    code = 0
    news = None
    if (root / "chroma").is_dir():  # after `fanvise news ingest`
        try:
            import os

            from storage.news_store import NewsStore

            news = NewsStore(root, google_api_key=os.environ.get("GOOGLE_API_KEY") or None)
        except Exception as exc:  # noqa: BLE001 - answers still work without news
            typer.echo(f"(news store unavailable: {type(exc).__name__}; answering without news)")
    try:
        rt = await FanViseRuntime.open(root, espn=client, my_team_id=team_id, news=news)
        try:
            events = rt.ask(conversation, question, user_id=user, team_id=team_id)
            while True:
                request: ApprovalRequest | None = None
                last = ""
                async for ev in events:
                    if isinstance(ev, Progress):
                        if ev.text != last:
                            typer.echo(f"... {ev.text}")
                            last = ev.text
                    elif isinstance(ev, ApprovalRequest):
                        request = ev
                    elif isinstance(ev, Answer):
                        typer.echo(ev.text)
                    elif isinstance(ev, Notice):
                        typer.echo(("error: " if ev.level == "error" else "") + ev.text,
                                   err=ev.level == "error")
                        code = 1 if ev.level == "error" else code
                if request is None:
                    break
                typer.echo(f"\n{request.title}")
                if request.summary:
                    typer.echo(request.summary)
                for k, move in enumerate(request.moves, 1):
                    typer.echo(format_move(k, move))
                n = len(request.moves)
                typer.echo(f"  {n + 1}) approve all\n  {n + 2}) decline")
                decision = auto or await asyncio.to_thread(_prompt_choice, request.moves)
                if decision is None:
                    typer.echo("No decision: the approval stays pending.")
                    break
                events = rt.decide(request.run_thread_id, request.interrupt_id, decision,
                                   user_id=user)
        finally:
            await rt.close()
    finally:
        await client.aclose()
    return code


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
        user: Annotated[str, typer.Option("--user", help="Who is asking")] = "console-user",
    ) -> None:
        """Ask FanVise a question (live progress; numbered approval choices)."""
        if yes and no:
            raise fail("use either --yes or --no, not both")
        if not question.strip():
            raise fail("the question is empty")
        if len(question) > MAX_QUESTION:
            raise fail(f"the question is too long ({len(question)} characters); the limit is "
                       f"{MAX_QUESTION}")
        root = data_dir_opt or data_dir()
        try:
            v = demo_variant_of(demo_variant, variant)
            source = LeagueSource.from_options(league_id=league_id, season=season,
                                               demo_variant=v)
            if source.is_demo:
                source = LeagueSource.from_options(
                    league_id=league_id, season=season, demo_variant=v,
                    state_path=root / f"demo-state-{source.demo_variant}.json")
        except SourceError as exc:
            raise fail(str(exc)) from None
        auto = "approve" if yes else "decline" if no else None
        try:
            code = asyncio.run(run_ask(question, source=source, root=root, team_id=team_id,
                                       conversation=conversation, user=user, auto=auto))
        except KeyError as exc:
            raise fail(str(exc).strip("'\"")) from None
        except (ValueError, LookupError) as exc:
            raise fail(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - never a traceback in the terminal
            from fantasy.espn.errors import EspnError

            if isinstance(exc, EspnError):
                raise fail(f"{exc} [{source.describe()}]") from None
            raise fail(f"unexpected {type(exc).__name__}") from None
        if code:
            raise typer.Exit(code=code)
