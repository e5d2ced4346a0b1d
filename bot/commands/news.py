"""`fanvise news ingest [--feed URL ...] [--demo]`, `fanvise news search TEXT`, `fanvise news player NAME`.

News lives in `<data dir>/chroma` (--data-dir, env FANVISE_DATA_DIR, default ./fanvise-data).
Embeddings are offline (MiniLM) unless GOOGLE_API_KEY is set. Players are tagged against the
league's player list (the demo league by default; a live league with --league-id or
FANVISE_ESPN_LEAGUE_ID). When that list cannot be loaded, items are stored untagged.
"""

from __future__ import annotations

import asyncio
import os
from datetime import date
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from bot.commands._league_source import (
    DataDirOpt,
    LeagueIdOpt,
    LeagueSource,
    SeasonOpt,
    SourceError,
    data_dir,
    fail,
    shown,
)
from fantasy.formatting import plural
from storage.news_ingest import DEFAULT_FEEDS, IngestReport, ingest_feeds, load_demo_news
from storage.news_store import NewsItem, NewsStore

news_app = typer.Typer(no_args_is_help=True, help="Player news: ingest RSS feeds, search.")


def _console() -> Console:
    return Console(width=140)


def _open_store(dir_: Path | None) -> NewsStore:
    base = dir_ if dir_ is not None else data_dir()
    try:
        return NewsStore(base, google_api_key=os.environ.get("GOOGLE_API_KEY") or None)
    except Exception as exc:  # noqa: BLE001 - clear message, never a traceback
        raise fail(f"cannot open the news store in {base}: {type(exc).__name__}: {exc}") from None


async def _league_players(source: LeagueSource) -> list[tuple[int, str]]:
    client = source.open_client()
    try:
        return [(p.id, p.name) for p in await client.get_all_players()]
    finally:
        await client.aclose()


def _players_or_warn(source: LeagueSource, console: Console) -> list[tuple[int, str]]:
    try:
        return asyncio.run(_league_players(source))
    except Exception as exc:  # noqa: BLE001 - ingest still works untagged
        console.print(f"[yellow]warning: could not load players for tagging "
                      f"({escape(source.describe())}:"
                      f" {type(exc).__name__}); items are stored untagged[/]", highlight=False)
        return []


def _print_report(console: Console, report: IngestReport, store: NewsStore) -> None:
    console.print(escape(report.summary()), highlight=False)
    console.print(escape(f"store: {plural(store.count(), 'item')} in {store.path} "
                         f"({store.collection_name})"),
                  highlight=False)


@news_app.command("ingest")
def ingest(
    feed: Annotated[list[str] | None, typer.Option(
        "--feed", help="RSS/Atom feed URL (repeatable). Default: ESPN and Rotowire NBA news.")
    ] = None,
    demo: Annotated[bool, typer.Option(
        "--demo", help="Load the recorded demo-league feeds (offline).")] = False,
    data_dir_: DataDirOpt = None,
    league_id: LeagueIdOpt = None,
    season: SeasonOpt = None,
    timeout: Annotated[float, typer.Option("--timeout", min=0.5, max=120,
                                           help="Per-feed timeout, seconds.")] = 10.0,
) -> None:
    """Fetch feeds, tag players, store new items (idempotent)."""
    console = _console()
    try:
        source = LeagueSource.from_options(league_id=league_id, season=season)
    except SourceError as exc:
        raise fail(str(exc)) from None
    if demo and not source.is_demo:
        raise fail("--demo loads the demo league's news; do not combine it with --league-id")
    store = _open_store(data_dir_)
    players = _players_or_warn(source, console)
    reports: list[IngestReport] = []
    if demo:
        reports.append(asyncio.run(load_demo_news(store, players)))
    if feed or not demo:
        reports.append(asyncio.run(ingest_feeds(store, list(feed or DEFAULT_FEEDS), players,
                                                timeout=timeout)))
    for rep in reports:
        _print_report(console, rep, store)
    if all(r.failed and r.fetched == 0 for r in reports):
        raise typer.Exit(code=1)


def _table(title: str, items: list[NewsItem], scores: bool) -> Table:
    table = Table(title=title, title_justify="left", show_lines=False)
    for col in ("Published (UTC)", "Source", "Players", "Title"):
        table.add_column(col)
    if scores:
        table.add_column("Score", justify="right")
    for it in items:
        title = escape(it.title)
        if it.suspicious:
            title = "[red]" + escape("[suspicious]") + "[/] " + title
        row = [it.published_at.strftime("%Y-%m-%d %H:%M"), f"{escape(it.source)} ({it.trust:.2f})",
               escape(", ".join(it.player_names)) or "-", title]
        if scores:
            row.append(f"{it.score:.3f}" if it.score is not None else "-")
        table.add_row(*row)
    return table


def _since(value: str | None) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        raise fail(f"--since must be a date like 2023-01-20, not {shown(value)}") from None


@news_app.command("search")
def search(
    text: Annotated[str, typer.Argument(help="Topic, e.g. 'ankle injury' or 'trade rumours'.")],
    limit: Annotated[int, typer.Option("--limit", min=1, max=50)] = 5,
    since: Annotated[str | None, typer.Option("--since", help="Only items on/after YYYY-MM-DD.")
                     ] = None,
    player: Annotated[str | None, typer.Option("--player", help="Only items about this player "
                                                                "(name or ESPN id).")] = None,
    data_dir_: DataDirOpt = None,
) -> None:
    """Semantic news search (similarity + recency + source trust)."""
    if not text.strip():
        raise fail("give a search text, e.g. fanvise news search 'ankle injury'")
    since_d = _since(since)
    store = _open_store(data_dir_)
    console = _console()
    if store.count() == 0:
        console.print("No news stored yet. Run `fanvise news ingest` (or `--demo`) first.")
        return
    items = store.search(text, limit=limit, since=since_d, player=player)
    if not items:
        console.print(f"No news matches {escape(shown(text))}.", highlight=False)
        return
    console.print(_table(f"News for {escape(shown(text))}", items, scores=True))


@news_app.command("player")
def player_news(
    name: Annotated[str, typer.Argument(help="Player full name or ESPN id.")],
    limit: Annotated[int, typer.Option("--limit", min=1, max=50)] = 5,
    data_dir_: DataDirOpt = None,
) -> None:
    """News tagged with one player, newest first."""
    store = _open_store(data_dir_)
    items = store.news_for_player(name.strip(), limit=limit)
    console = _console()
    if not items:
        console.print(f"No news tagged with {escape(shown(name))}.", highlight=False)
        return
    console.print(_table(f"News about {escape(shown(name, 200))}", items, scores=False))


def register(app: typer.Typer) -> None:
    """Add `news ingest`, `news search` and `news player` to the root app."""
    app.add_typer(news_app, name="news")


__all__ = ["ingest", "player_news", "register", "search"]
