"""Assemble one FanVise process from Settings: Database, AppDB, ESPN client, runtime, ChatCore.

    app = await FanViseApp.open(settings)     # demo league + offline model without config
    ...  adapters call app.core ...
    await app.close()                         # closes runtime, ESPN client and the DB

Opening twice on the same data dir (a restart) sees the same cards, links, schedules and
checkpoints.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from bot.core.commands import commands_help
from bot.core.handoff import WritesConfig
from bot.core.progress import WorkspaceBudget
from bot.core.service import ChatCore
from bot.settings import Settings
from storage.app_db import AppDB
from storage.backend import open_database
from storage.db import Database
from storage.shared_budget import SharedWorkspaceBudget

log = logging.getLogger(__name__)

APP_DB_FILE = "fanvise.sqlite"


async def open_espn(settings: Settings, cache: Any, app_db: AppDB | None = None) -> Any:
    """The league client: demo (state in the data dir) or live (cookies from env, else from
    a `/link` that stored them encrypted)."""
    from fantasy.espn.factory import open_league_client

    if settings.is_demo:
        return open_league_client(
            demo_variant=settings.demo_variant, cache=cache,
            state_path=settings.data_dir / f"demo-state-{settings.demo_variant}.json")
    s2, swid = settings.secret("espn_s2"), settings.secret("espn_swid")
    if not (s2 and swid) and app_db is not None and settings.espn_league_id is not None:
        stored = await app_db.cookies_for_league(settings.espn_league_id)
        if stored:
            s2, swid = stored
    kwargs: dict[str, Any] = {"turn_wait": settings.espn_wait}
    if settings.espn_base_url:
        kwargs["base_url"] = settings.espn_base_url
    return open_league_client(league_id=settings.espn_league_id, season=settings.espn_season,
                              espn_s2=s2, swid=swid, cache=cache, **kwargs)


def open_news(settings: Settings) -> Any:
    """The news store when `<data_dir>/chroma` exists (after `fanvise news ingest`), else
    None: answers then work without news."""
    if not (settings.data_dir / "chroma").is_dir():
        return None
    try:
        from storage.news_store import NewsStore
        return NewsStore(settings.data_dir, google_api_key=settings.secret("google_api_key"))
    except Exception as exc:  # noqa: BLE001 - news is optional
        log.warning("news store unavailable: %s", type(exc).__name__)
        return None


@dataclass
class FanViseApp:
    """Everything one process needs; `close()` releases it all."""

    settings: Settings
    db: Database
    app_db: AppDB
    espn: Any
    runtime: Any
    core: ChatCore
    _closed: bool = field(default=False, repr=False)

    @classmethod
    async def open(cls, settings: Settings, *, model: Any = None,
                   clock: Callable[[], float] = time.monotonic,
                   sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                   now: Callable[[], datetime] = lambda: datetime.now(UTC),
                   edit_interval: float | None = None,
                   runtime_kwargs: dict[str, Any] | None = None,
                   warm_up: bool = False) -> FanViseApp:
        """Open the data dir (created if needed) and build the core. `runtime_kwargs` go to
        `FanViseRuntime.open` (e.g. `optimizer_graph_builder`). `warm_up=True`: do the
        first turn's one-time work before returning (`FanViseRuntime.warm_up`: router model,
        graph imports and compiles, plan solver, the league's first read and parse), as a
        bot does before it serves; off by default (tests open many apps and count ESPN
        requests)."""
        from agents.runtime import FanViseRuntime
        from storage.cache import TTLCache

        settings.register_secrets()
        data_dir = settings.data_dir
        data_dir.mkdir(parents=True, exist_ok=True)
        db = await open_database(settings.secret("database_url") or data_dir / APP_DB_FILE)
        espn = runtime = None
        try:
            app_db = await AppDB.open(db, secret_key=settings.secret("secret_key"))
            espn = await open_espn(settings, TTLCache(db), app_db)
            if model is None and settings.google_api_key is not None:
                from agents.shared.llm import make_model
                model = make_model(settings)
            news = open_news(settings)
            runtime = await FanViseRuntime.open(data_dir, espn=espn, model=model, news=news,
                                                my_team_id=settings.team_id,
                                                database_url=settings.secret("database_url"),
                                                commands_text=commands_help(),
                                                **(runtime_kwargs or {}))
            budget = (SharedWorkspaceBudget(app_db, settings.slack_updates_per_minute)
                      if db.dialect == "postgres"  # one budget for every process
                      else WorkspaceBudget(per_minute=settings.slack_updates_per_minute,
                                           clock=clock))
            core = ChatCore(runtime, app_db, espn=espn, default_team_id=settings.team_id,
                            min_edit_interval=(edit_interval if edit_interval is not None
                                               else settings.edit_interval),
                            budget=budget, clock=clock, sleep=sleep,
                            llm_per_minute=settings.llm_per_minute,
                            llm_burst=settings.llm_burst, now=now)
            core.prelock.minutes = settings.prelock_minutes
            core.writes_config = WritesConfig.from_settings(settings)
            if warm_up:
                took = await runtime.warm_up()
                log.info("warm-up: %s", ", ".join(f"{k} {v:.2f}s" for k, v in took.items()))
        except BaseException:
            if runtime is not None:
                await runtime.close()
            if espn is not None:
                await espn.aclose()
            await db.close()
            raise
        return cls(settings, db, app_db, espn, runtime, core)

    async def close(self) -> None:
        """Close the runtime (checkpoints), the ESPN client and the app DB (idempotent)."""
        if self._closed:
            return
        self._closed = True
        try:
            await self.runtime.close()
        finally:
            try:
                await self.espn.aclose()
            finally:
                await self.db.close()

    async def __aenter__(self) -> FanViseApp:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


__all__ = ["APP_DB_FILE", "FanViseApp", "open_espn", "open_news"]
