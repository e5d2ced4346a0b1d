"""Soak: one FanVise process serving conversations in rounds for a long time; prints per
round the process RSS, checkpoint / app DB sizes, turns/s, errors, and runs the retention
prune every `--prune-every` rounds, so growth (memory, disk) shows up as a trend.

    python benchmarks/soak.py --rounds 10 --turns 200 --conversations 20

Same stack and surface as benchmarks/load.py (FanViseApp, offline model, demo league); every
card drawn is approved by its requester. Each prune stands for the daily retention job, so
runs that ended before it count as a day old (`ended_run_days=0`).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from load import QUESTIONS, _size, approve_new_cards  # noqa: E402

from benchmarks.common import ERROR_MARKERS, RecordingSurface, link_members  # noqa: E402
from bot.core.app import FanViseApp  # noqa: E402
from bot.core.models import ThreadRef, UserRef  # noqa: E402
from bot.settings import Settings  # noqa: E402


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def soak(rounds: int, turns: int, conversations: int, prune_every: int,
               data_dir: Path) -> int:
    """Run the rounds; returns the number of failed turns."""
    app = await FanViseApp.open(Settings(data_dir=data_dir, llm_per_minute=1e9, llm_burst=1e9,
                                         slack_updates_per_minute=1e9), edit_interval=0.0)
    failures = 0
    # members link before asking (an unlinked chat member gets the link prompt)
    await link_members(app, [(f"W{i}", UserRef("soak", f"u{i}")) for i in range(conversations)])
    print("round  turns/s  failed  rss_mb  ckpt_mb  app_db_mb  pruned")
    try:
        for r in range(1, rounds + 1):
            surface = RecordingSurface()
            failed = 0

            async def conv(i: int, n: int, rnd: int = r, s: RecordingSurface = surface) -> None:
                nonlocal failed
                thread = ThreadRef("soak", f"W{i}", "C", f"t{i}")
                user = UserRef("soak", f"u{i}")
                for k in range(n):
                    try:
                        before = set(s.posts)
                        await app.core.handle_message(
                            s, thread, user, QUESTIONS[(i + k + rnd) % len(QUESTIONS)])
                        await approve_new_cards(app, s, thread, user, before)
                    except Exception:  # noqa: BLE001
                        failed += 1

            per = [turns // conversations + (i < turns % conversations)
                   for i in range(conversations)]
            t0 = time.perf_counter()
            await asyncio.gather(*(conv(i, n) for i, n in enumerate(per)))
            rate = turns / (time.perf_counter() - t0)
            failed += sum(any(m in t for m in ERROR_MARKERS) for t in surface.texts())
            failures += failed
            pruned = ""
            if r % prune_every == 0:
                # each prune stands for the daily job: runs that ended are a day old by then
                res = await app.runtime.prune(max_idle_days=30, ended_run_days=0)
                pruned = (f"{res['rows_deleted']} rows, {res['ended_runs_deleted']} ended runs,"
                          f" {res['pending_runs_expired']} expired")
            print(f"{r:5d}  {rate:7.2f}  {failed:6d}  {_rss_mb():6.0f}  "
                  f"{_size(data_dir / 'checkpoints.sqlite') / 2**20:7.1f}  "
                  f"{_size(data_dir / 'fanvise.sqlite') / 2**20:9.1f}  {pruned}", flush=True)
    finally:
        await app.close()
    return failures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--turns", type=int, default=200)
    ap.add_argument("--conversations", type=int, default=20)
    ap.add_argument("--prune-every", type=int, default=2)
    ap.add_argument("--data-dir", type=Path, default=None)
    args = ap.parse_args(argv)
    os.environ.pop("GOOGLE_API_KEY", None)
    tmp = args.data_dir is None
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="fanvise-soak-"))
    try:
        failed = asyncio.run(soak(args.rounds, args.turns, args.conversations,
                                  args.prune_every, data_dir))
    finally:
        if tmp:
            shutil.rmtree(data_dir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
