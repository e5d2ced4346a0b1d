"""A whole FanVise bot process (FanViseApp: ChatCore, runtime, matchup optimizer, demo
league) on a shared Postgres database, for the two-process approval race: the ops of
tests/reliability/core_driver.py plus `at:UNIX_TIME` (sleep until then, so two processes
click at the same instant). Run as
`python -m tests.storage.bot_race_worker DATABASE_URL DATA_DIR OP...`."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

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
        emit({"kind": "ready", "pid": os.getpid()})
        for op in ops:
            if op.startswith("at:"):
                await asyncio.sleep(max(0.0, float(op[3:]) - time.time()))
                emit({"kind": "go", "at": time.time()})
                continue
            await run_op(app, surface, op)
        emit({"kind": "end"})
        return 0
    finally:
        await app.close()


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
