"""One FanVise storage process of the two-process race tests (tests/storage/
test_two_processes.py). Run as `python -m tests.storage.race_worker MODE URL START_AT TAG ARG`;
it opens the shared Postgres database like a bot process does, waits until START_AT (Unix
time) so both processes start together, does MODE and prints one JSON line.

Modes:
- `claims N`: a click on each of N cards (`AppDB.claim_card`, then the audit row and the
  run's decision as ChatCore does): which cards this process won;
- `daily N`: N channels' daily posts due now, through `bot.scheduler.DailyScheduler`: the
  posts this process sent;
- `events N`: Slack event ids 0..N-1 through `bot.slack.store.EventDeduper`: the ids this
  process handled;
- `budget SECONDS`: as many Slack edits as `SharedWorkspaceBudget` allows in SECONDS.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from datetime import UTC, datetime
from typing import Any


async def _claims(app: Any, store: Any, n: int, tag: str) -> dict[str, Any]:
    won: list[str] = []
    for i in range(n):
        card_id = f"card{i:04d}"
        if await app.claim_card(card_id, user_id=f"U-{tag}", user_name=tag,
                                decisions={"0": "approve"}):
            won.append(card_id)
            await store.record_decision(f"run{i:04d}", f"U-{tag}", {"m": "approve"},
                                        interrupt_id="i1", status="resuming")
            await app.audit(card_id=card_id, run_thread_id=f"run{i:04d}", platform="slack",
                            user_id=f"U-{tag}", user_name=tag, decision="approve",
                            result="applied")
        else:
            await app.audit(card_id=card_id, run_thread_id=f"run{i:04d}", platform="slack",
                            user_id=f"U-{tag}", user_name=tag, decision="approve",
                            result="already-decided")
    return {"won": won}


async def _daily(app: Any, n: int, tag: str) -> dict[str, Any]:
    from bot.scheduler import DailyScheduler

    sent: list[str] = []

    async def poster(s: Any) -> str:
        await asyncio.sleep(0.01)
        sent.append(s.channel_key)
        return f"msg-{tag}-{s.channel_key}"

    now = datetime(2026, 11, 24, 14, 5, tzinfo=UTC)  # 09:05 in New York, fire time 09:00
    sched = DailyScheduler(app, poster, platforms={"slack"}, now=lambda: now)
    await sched.reload()
    await sched.run_due()
    return {"sent": sent}


async def _events(db: Any, n: int) -> dict[str, Any]:
    from bot.slack.store import EventDeduper

    dedup = EventDeduper(db)
    handled = [i for i in range(n) if await dedup.first_seen(f"Ev{i}")]
    return {"handled": handled}


async def _budget(app: Any, seconds: float) -> dict[str, Any]:
    from storage.shared_budget import SharedWorkspaceBudget

    budget = SharedWorkspaceBudget(app, per_minute=60.0, burst=5.0, poll=0.01)
    edits = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        wait = budget.reserve("T1")
        if wait <= 0:
            edits += 1
        else:
            await asyncio.sleep(min(wait, max(0.0, end - time.monotonic())))
    return {"edits": edits}


async def main(mode: str, url: str, start_at: float, tag: str, arg: str) -> None:
    from storage.app_db import AppDB
    from storage.backend import open_checkpoint_store, open_database

    db = await open_database(url)
    store = await open_checkpoint_store(url) if mode == "claims" else None
    try:
        app = await AppDB.open(db)
        await asyncio.sleep(max(0.0, start_at - time.time()))
        t0 = time.time()
        if mode == "claims":
            out = await _claims(app, store, int(arg), tag)
        elif mode == "daily":
            out = await _daily(app, int(arg), tag)
        elif mode == "events":
            out = await _events(db, int(arg))
        elif mode == "budget":
            out = await _budget(app, float(arg))
        else:
            raise SystemExit(f"unknown mode {mode}")
        out["started"] = t0
        out["ended"] = time.time()
        print(json.dumps(out), flush=True)
    finally:
        if store is not None:
            await store.close()
        await db.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5]))
