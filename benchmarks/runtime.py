"""Runtime benchmark: `python benchmarks/runtime.py [--turns N]` prints latency and storage.

One FanViseRuntime on a temporary data dir (demo league, offline model): one long
conversation of N turns cycling through the question kinds, then matchup reviews that end in
an approval card which is approved. Prints per-kind ask latency (p50/p95), decide latency,
the checkpoint file size along the conversation (bounded by per-turn keep-latest pruning and
stored-history compaction) and the effect of `runtime.prune()`.
Targets: p50 of an offline chat turn under 1.5 s on the uncached demo league (rendering the
demo league's ESPN JSON, ~0.6 s per league fetch, dominates; a live bot has the ESPN TTL
cache), decide well under a second, checkpoint size flat in the number of turns.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.runtime import FanViseRuntime  # noqa: E402
from agents.shared.types import Answer, ApprovalRequest  # noqa: E402

QUESTIONS = [
    ("help", "hello"),
    ("research", "Is Jalen Brunson playing tonight?"),
    ("open", "Who will win the title?"),
    ("lineup", "I have 11 players active Thursday, who sits?"),
    ("free_agents", "Best free agent centers?"),
]
TARGET_P50_MS = 1500.0


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def _size(d: Path) -> int:
    return sum(p.stat().st_size for p in d.glob("checkpoints.sqlite*"))


async def run(turns: int, reviews: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        t0 = time.perf_counter()
        rt = await FanViseRuntime.open(data)
        print(f"open: {(time.perf_counter() - t0) * 1000:.0f} ms (demo league, offline model)")
        lat: dict[str, list[float]] = defaultdict(list)
        sizes: list[tuple[int, int]] = []
        try:
            for k in range(turns):
                kind, q = QUESTIONS[k % len(QUESTIONS)]
                t = time.perf_counter()
                evs = [e async for e in rt.ask("bench:conv", q, user_id="u")]
                lat[kind].append((time.perf_counter() - t) * 1000)
                assert isinstance(evs[-1], (Answer, ApprovalRequest)), evs[-1]
                if (k + 1) % max(1, turns // 5) == 0:
                    sizes.append((k + 1, await rt.store.size_bytes()))
            dec: list[float] = []
            for r in range(reviews):
                t = time.perf_counter()
                evs = [e async for e in rt.ask(f"bench:rev{r}", "Review my matchup", user_id="u")]
                lat["review->card"].append((time.perf_counter() - t) * 1000)
                req = evs[-1]
                if not isinstance(req, ApprovalRequest):
                    continue
                t = time.perf_counter()
                [e async for e in rt.decide(req.run_thread_id, req.interrupt_id, "decline",
                                            user_id="u")]
                dec.append((time.perf_counter() - t) * 1000)
            print(f"\n{'kind':<14}{'n':>5}{'p50 ms':>10}{'p95 ms':>10}")
            for kind, v in lat.items():
                print(f"{kind:<14}{len(v):>5}{statistics.median(v):>10.0f}{_pct(v, 0.95):>10.0f}")
            if dec:
                print(f"{'decide':<14}{len(dec):>5}{statistics.median(dec):>10.0f}"
                      f"{_pct(dec, 0.95):>10.0f}")
            print("\ncheckpoint DB pages along one conversation (turn: size; the WAL file "
                  "is bounded separately by SQLite's auto-checkpoint):")
            print("  " + ", ".join(f"{n}: {s / 1024:.0f} KiB" for n, s in sizes))
            stats = await rt.prune(max_idle_days=30)
            print(f"prune: {stats}  files before close {_size(data) / 1024:.0f} KiB "
                  "(after VACUUM + wal_checkpoint(TRUNCATE))")
            worst = max(statistics.median(v) for k, v in lat.items() if k != "review->card")
            verdict = "OK" if worst < TARGET_P50_MS else "SLOW"
            print(f"\nworst chat p50 {worst:.0f} ms vs target {TARGET_P50_MS:.0f} ms: {verdict}")
        finally:
            await rt.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--turns", type=int, default=40)
    ap.add_argument("--reviews", type=int, default=3)
    args = ap.parse_args()
    asyncio.run(run(args.turns, args.reviews))


if __name__ == "__main__":
    main()
