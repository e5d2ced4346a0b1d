"""`fanvise run`'s periodic takeover pass (bot/commands/run.py): on Postgres it calls
`ChatCore.recover(..., takeover=True)` every FANVISE_TAKEOVER_EVERY seconds and survives a
failing pass; on SQLite it does not run at all. The two-process SIGKILL test is in
test_two_processes.py."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from bot.commands.run import _start_takeover, shares_database, takeover_loop
from bot.settings import Settings


class _Core:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    async def recover(self, surfaces: dict[str, Any], *, takeover: bool = False) -> int:
        self.calls.append({"surfaces": surfaces, "takeover": takeover})
        if len(self.calls) == 2:
            raise RuntimeError("database blip")  # logged; the next pass still runs
        return 0


def _app(dialect: str) -> Any:
    return SimpleNamespace(core=_Core(), app_db=SimpleNamespace(db=SimpleNamespace(
        dialect=dialect)))


def test_the_interval_is_a_setting(monkeypatch) -> None:
    assert Settings().takeover_every == 60.0
    monkeypatch.setenv("FANVISE_TAKEOVER_EVERY", "15")
    assert Settings().takeover_every == 15.0


async def test_on_sqlite_nothing_new_runs() -> None:
    app = _app("sqlite")
    assert not shares_database(app)
    assert _start_takeover(app, lambda: {"slack": object()}, Settings()) is None
    assert app.core.calls == []


async def test_on_postgres_recovery_runs_periodically_in_takeover_mode() -> None:
    app = _app("postgres")
    assert shares_database(app)
    surface = object()
    task = asyncio.create_task(takeover_loop(app, lambda: {"slack": surface}, every=0.02))
    try:
        for _ in range(200):
            if len(app.core.calls) >= 3:
                break
            await asyncio.sleep(0.01)
    finally:
        task.cancel()
    assert len(app.core.calls) >= 3  # a failing pass did not stop the loop
    assert all(c["takeover"] and c["surfaces"] == {"slack": surface} for c in app.core.calls)
    settings = Settings(takeover_every=1.0)
    started = _start_takeover(app, lambda: {}, settings)
    assert started is not None
    started.cancel()
