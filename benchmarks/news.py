"""News benchmark: `python benchmarks/news.py [--items N]` prints embedding and query figures.

Offline MiniLM (numpy) embedding throughput at batch sizes 1/8/32, single-query latency,
then a NewsStore in a temporary directory filled with N synthetic news items (built from the
demo feed's texts with varied players and dates): ingest rate, `search` and
`news_for_player` latency (medians and p95). Targets are the interactive budgets of a chat
answer (a tool call should stay far below a second).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fantasy.demo.league import load_base  # noqa: E402
from storage.embeddings import default_encoder  # noqa: E402
from storage.news_ingest import load_demo_news  # noqa: E402
from storage.news_store import NewsItem, NewsStore  # noqa: E402

TARGETS_MS = {"query_embed": 50.0, "search": 250.0, "news_for_player": 100.0}
TEMPLATES = [
    "{p} (ankle) is questionable for tonight's game",
    "{p} out at least two weeks with a hamstring strain",
    "{p} cleared to play after missing three games",
    "{p} scores 35 points with eight threes in a road win",
    "Trade rumours: rival teams have called about {p}",
    "{p} day-to-day with back soreness, will test it in warmups",
    "{p} might rest on the second night of a back-to-back",
    "{p} posts a triple-double as his team snaps a losing streak",
]


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def timed(fn, reps: int) -> list[float]:
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def synthetic_items(n: int, players: list[tuple[int, str]], seed: int = 7) -> list[NewsItem]:
    rng = random.Random(seed)
    t0 = datetime(2023, 1, 25, 12, tzinfo=UTC)
    items = []
    for i in range(n):
        pid, name = rng.choice(players)
        title = rng.choice(TEMPLATES).format(p=name)
        items.append(NewsItem.create(
            title=title, summary=f"{title}. Coach said more details would come later.",
            url=f"https://bench.example/{i}", source=rng.choice(["ESPN", "Rotowire"]),
            published_at=t0 - timedelta(hours=rng.uniform(0, 24 * 30)), trust=0.85,
            player_ids=[pid], player_names=[name]))
    return items


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--items", type=int, default=1000, help="store size for query timings")
    args = ap.parse_args()
    players = [(int(k), v["player"]["fullName"]) for k, v in load_base()["players"].items()]
    enc = default_encoder()
    t = time.perf_counter()
    enc.load()
    print(f"MiniLM weights load: {(time.perf_counter() - t) * 1e3:.0f} ms")

    sentences = [n.title for n in synthetic_items(256, players, seed=1)]
    enc.encode(sentences[:8])  # warm-up
    print("Embedding throughput (offline numpy MiniLM, 256 news titles):")
    for bs in (1, 8, 32):
        subset = sentences if bs > 1 else sentences[:64]
        t = time.perf_counter()
        enc.encode(subset, batch_size=bs)
        dt = time.perf_counter() - t
        print(f"  batch {bs:>2}: {len(subset) / dt:7.1f} sentences/s")
    q = timed(lambda: enc.encode(["Ja Morant ankle injury update"]), 20)
    print(f"  single query embed: median {statistics.median(q):.1f} ms, p95 {pct(q, .95):.1f} ms"
          f"  (target < {TARGETS_MS['query_embed']:.0f} ms)")

    with tempfile.TemporaryDirectory() as tmp:
        store = NewsStore(tmp)
        t = time.perf_counter()
        report = asyncio.run(load_demo_news(store, players))
        print(f"\nDemo feed ingest (3 feeds, {report.fetched} items, tagging + embedding + upsert):"
              f" {(time.perf_counter() - t) * 1e3:.0f} ms")
        items = synthetic_items(args.items, players)
        t = time.perf_counter()
        store.add_items(items)
        dt = time.perf_counter() - t
        print(f"Upsert {len(items)} items: {dt:.1f} s ({len(items) / dt:.0f} items/s); "
              f"store has {store.count()} items")
        topics = ["ankle injury", "trade rumours", "cleared to play", "rest on back-to-back",
                  "three-point shooting night", "hamstring strain out two weeks"]
        s = timed(lambda: store.search(random.choice(topics), limit=5), 30)
        names = [n for _, n in random.sample(players, 30)]
        it = iter(names * 2)
        p = timed(lambda: store.news_for_player(next(it), limit=5), 30)
        print(f"search(topic, limit=5): median {statistics.median(s):.1f} ms, p95 {pct(s, .95):.1f}"
              f" ms  (target < {TARGETS_MS['search']:.0f} ms)")
        print(f"news_for_player(name, limit=5): median {statistics.median(p):.1f} ms, p95 "
              f"{pct(p, .95):.1f} ms  (target < {TARGETS_MS['news_for_player']:.0f} ms)")
        ok = (statistics.median(q) < TARGETS_MS["query_embed"]
              and statistics.median(s) < TARGETS_MS["search"]
              and statistics.median(p) < TARGETS_MS["news_for_player"])
        print("\nall targets met" if ok else "\nSOME TARGETS MISSED")


if __name__ == "__main__":
    main()
