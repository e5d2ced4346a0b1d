"""Load benchmark: N concurrent conversations through bot/core on one data dir.

    python benchmarks/load.py --conversations 50 --turns 1000
    python benchmarks/load.py --conversations 200 --turns 1000 --workspaces 1

One FanVise process as `bot/core/app.FanViseApp` assembles it (app DB + ESPN cache on one
SQLite connection, LangGraph checkpoints on another, demo league, offline model), driven by
an in-memory recording chat surface. Each conversation is a chat thread whose user sends
its next message when the previous answer arrived; all conversations run at once. Mixed
questions: player research, help, free agents, lineup, open questions and (every 10th turn)
a matchup review that may end in an approval card, which the requester then approves.

Prints: turns, errors (exceptions + error replies + ERROR log records), "database is
locked" occurrences, throughput, p50/p95/max latency per turn, and the checkpoint DB size
after the run, before and after the retention prune (`runtime.prune`).
Per-user LLM rate limits are lifted (one user per conversation would hit them by design);
the per-workspace edit budget is real unless --no-budget.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.core.app import FanViseApp  # noqa: E402
from bot.core.models import OutgoingMessage, ThreadRef, UserRef  # noqa: E402
from bot.settings import Settings  # noqa: E402

QUESTIONS = [
    "Is Jalen Brunson playing tonight?",
    "hello",
    "Who are the best free agents at center this week?",
    "What's the latest on Jordan Poole?",
    "/lineup tomorrow",
    "How many games does my team have left this week?",
    "Is Jarrett Allen injured?",
    "Who is leading my matchup?",
    "Should I pick up Tyus Jones?",
    "Review my matchup and suggest moves",
]
ERROR_MARKERS = ("something went wrong", "could not be processed", "Traceback")


@dataclass
class RecordingSurface:
    """An in-memory ChatSurface: records posts, edits and ephemeral messages."""

    max_text: int = 2000
    posts: dict[str, tuple[ThreadRef, OutgoingMessage]] = field(default_factory=dict)
    edits: int = 0
    ephemerals: list[tuple[str, str]] = field(default_factory=list)
    _n: int = 0

    async def post(self, thread: ThreadRef, msg: OutgoingMessage) -> str:
        self._n += 1
        mid = f"m{self._n}"
        self.posts[mid] = (thread, msg)
        return mid

    async def edit(self, thread: ThreadRef, message_id: str, msg: OutgoingMessage) -> None:
        self.edits += 1
        self.posts[message_id] = (thread, msg)

    async def ephemeral(self, thread: ThreadRef, user: UserRef, text: str) -> None:
        self.ephemerals.append((user.user_id, text))

    def texts(self) -> list[str]:
        """Every visible text (messages, card titles/fields/footers, ephemerals)."""
        out = [t for _, t in self.ephemerals]
        for _, msg in self.posts.values():
            out.append(msg.text)
            for c in msg.cards:
                out += [c.title, c.text, c.footer] + [f"{a} {b}" for a, b in c.fields]
        return out


class _Counter(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.errors: list[str] = []
        self.locked = 0

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage() + (self.format(record) if record.exc_info else "")
        if "database is locked" in text:
            self.locked += 1
        if record.levelno >= logging.ERROR:
            self.errors.append(f"{record.name}: {record.getMessage()[:200]}")


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


async def approve_new_cards(app: FanViseApp, surface: RecordingSurface, thread: ThreadRef,
                            user: UserRef, before: set[str]) -> int:
    """Click "Approve all" on every card drawn in `thread` since `before`; returns clicks."""
    clicks = 0
    for mid in sorted(set(surface.posts) - before):
        if surface.posts[mid][0] != thread:
            continue  # another conversation's message
        for card in surface.posts[mid][1].cards:
            ok = [b for b in card.buttons if b.custom_id.startswith("fv:approveall")]
            if ok:
                await app.core.handle_click(surface, thread, user, ok[0].custom_id, mid)
                clicks += 1
    return clicks


async def run(conversations: int, turns: int, data_dir: Path, *, workspaces: int,
              budget: bool) -> dict[str, float | int | str]:
    """Run the load and return the figures."""
    counter = _Counter()
    logging.getLogger().addHandler(counter)
    settings = Settings(data_dir=data_dir, llm_per_minute=1e9, llm_burst=1e9,
                        edit_interval=0.2,
                        slack_updates_per_minute=40.0 if budget else 1e9)
    app = await FanViseApp.open(settings)
    surface = RecordingSurface()
    latencies: list[float] = []
    card_latencies: list[float] = []  # turns that drew a card, including the approve click
    exceptions: list[str] = []
    clicks = 0

    async def conversation(i: int, n_turns: int) -> None:
        nonlocal clicks
        thread = ThreadRef("bench", f"W{i % workspaces}", "C1", f"t{i}")
        user = UserRef("bench", f"u{i}", f"User {i}")
        for k in range(n_turns):
            text = QUESTIONS[(i + k) % len(QUESTIONS)]
            t0 = time.perf_counter()
            clicked = False
            try:
                before = set(surface.posts)
                await app.core.handle_message(surface, thread, user, text)
                n = await approve_new_cards(app, surface, thread, user, before)
                clicks += n
                clicked = n > 0
            except Exception as exc:  # noqa: BLE001
                exceptions.append(f"{type(exc).__name__}: {exc}"[:200])
            (card_latencies if clicked else latencies).append(time.perf_counter() - t0)

    per = [turns // conversations + (1 if i < turns % conversations else 0)
           for i in range(conversations)]
    t0 = time.perf_counter()
    await asyncio.gather(*(conversation(i, n) for i, n in enumerate(per) if n))
    wall = time.perf_counter() - t0

    ckpt = data_dir / "checkpoints.sqlite"
    size_after_run = _size(ckpt)
    t1 = time.perf_counter()
    # as the next day's retention job sees it: ended runs are older than a day by then
    pruned = await app.runtime.prune(max_idle_days=30, ended_run_days=0)
    prune_s = time.perf_counter() - t1
    size_after_prune = _size(ckpt)
    app_db_size = _size(data_dir / "fanvise.sqlite")
    await app.close()
    logging.getLogger().removeHandler(counter)

    answer_latencies = list(latencies)
    latencies = latencies + card_latencies
    error_replies = [t for t in surface.texts() if any(m in t for m in ERROR_MARKERS)]
    locked = counter.locked + sum("database is locked" in e for e in exceptions)
    return {
        "conversations": conversations, "turns": len(latencies), "clicks": clicks,
        "workspaces": workspaces, "edit_budget": "40/min/workspace" if budget else "off",
        "exceptions": len(exceptions), "error_replies": len(error_replies),
        "error_logs": len(counter.errors), "database_is_locked": locked,
        "wall_s": round(wall, 2), "turns_per_s": round(len(latencies) / wall, 2),
        "p50_ms": round(_pct(latencies, 0.50) * 1e3, 1),
        "p95_ms": round(_pct(latencies, 0.95) * 1e3, 1),
        "max_ms": round(max(latencies, default=0) * 1e3, 1),
        "mean_ms": round(statistics.fmean(latencies) * 1e3, 1) if latencies else 0.0,
        "answer_turns_p50_p95_ms": f"{_pct(answer_latencies, 0.5) * 1e3:.0f} / "
                                   f"{_pct(answer_latencies, 0.95) * 1e3:.0f}",
        "card_turns_p50_p95_ms": f"{_pct(card_latencies, 0.5) * 1e3:.0f} / "
                                 f"{_pct(card_latencies, 0.95) * 1e3:.0f} (ask + approve click)",
        "edits": surface.edits,
        "ckpt_bytes_after_run": size_after_run, "ckpt_bytes_after_prune": size_after_prune,
        "prune_s": round(prune_s, 2), "prune_rows_deleted": pruned.get("rows_deleted", 0),
        "app_db_bytes": app_db_size,
        "first_errors": "; ".join((exceptions + counter.errors + error_replies)[:3]),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--conversations", "-n", type=int, default=50)
    ap.add_argument("--turns", "-t", type=int, default=1000)
    ap.add_argument("--workspaces", "-w", type=int, default=0,
                    help="spread conversations over K workspaces (default: one each)")
    ap.add_argument("--no-budget", action="store_true",
                    help="lift the per-workspace edit budget (40 edits/min, all platforms)")
    ap.add_argument("--data-dir", type=Path, default=None, help="default: a temp dir, removed")
    args = ap.parse_args(argv)
    os.environ.pop("GOOGLE_API_KEY", None)  # the offline model, always
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    tmp = args.data_dir is None
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="fanvise-load-"))
    try:
        res = asyncio.run(run(args.conversations, args.turns, data_dir,
                              workspaces=args.workspaces or args.conversations,
                              budget=not args.no_budget))
    finally:
        if tmp:
            shutil.rmtree(data_dir, ignore_errors=True)
    width = max(len(k) for k in res)
    for k, v in res.items():
        print(f"{k:<{width}}  {v}")
    return 0 if res["exceptions"] == 0 and res["database_is_locked"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
