"""A whole FanVise bot process (FanViseApp: ChatCore, runtime, matchup optimizer, demo
league) on a shared Postgres database, for the two-process approval race: the ops of
tests/reliability/core_driver.py plus `at:UNIX_TIME` (sleep until then, so two processes
click at the same instant), `takeover:SECONDS` (start bot/commands/run.py's periodic
takeover pass, as `fanvise run` does on Postgres) and `waitfile:PATH` (wait until the test
creates PATH; at most 180 s). Run as
`python -m tests.storage.bot_race_worker DATABASE_URL DATA_DIR OP...`."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

from bot.commands.run import takeover_loop
from bot.core.app import FanViseApp
from bot.settings import Settings
from tests.reliability.core_driver import PrintingSurface, emit, run_op


async def main(argv: list[str]) -> int:
    url, data_dir, ops = argv[0], Path(argv[1]), argv[2:]
    settings = Settings(data_dir=data_dir, database_url=url, secret_key="test passphrase",
                        llm_per_minute=1e6, llm_burst=1e6, slack_updates_per_minute=1e6)
    app = await FanViseApp.open(settings, edit_interval=0.0)
    try:
        surface = PrintingSurface()
        tasks: list[asyncio.Task[None]] = []
        emit({"kind": "ready", "pid": os.getpid()})
        for op in ops:
            if op.startswith("at:"):
                await asyncio.sleep(max(0.0, float(op[3:]) - time.time()))
                emit({"kind": "go", "at": time.time()})
                continue
            if op.startswith("takeover:"):
                tasks.append(asyncio.create_task(takeover_loop(
                    app, lambda: {"discord": surface}, every=float(op[9:]))))
                emit({"kind": "takeover-started", "at": time.time()})
                continue
            if op.startswith("waitfile:"):
                deadline = time.time() + 180.0
                while not Path(op[9:]).exists() and time.time() < deadline:
                    await asyncio.sleep(0.1)
                continue
            await run_op(app, surface, op)
        for task in tasks:
            task.cancel()
        emit({"kind": "end"})
        return 0
    finally:
        await app.close()


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
