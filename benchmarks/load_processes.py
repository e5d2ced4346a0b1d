"""Load across processes: several FanVise processes on one Postgres database.

    python benchmarks/load_processes.py --database-url postgresql://... --processes 2
    python benchmarks/load_processes.py --local-postgres --processes 2    # throwaway server

Each process is a whole FanVise app (`bot.core.app.FanViseApp` with FANVISE_DATABASE_URL:
app tables, ESPN cache and LangGraph checkpoints in Postgres; demo league; offline model)
driven by an in-memory chat surface. Three rounds, each process a separate OS process:

1. setup (one process): `--cards` members link a team and ask for a matchup review, each in
   a thread of their own: that many approval cards wait in the database;
2. turns (all processes at once): `--conversations` conversations per process, each
   sending the next question when the answer arrived, `--turns` turns per process in all
   (player research, help, free agents, lineup, open questions);
3. race (all processes at once): every process gets the requester's "Approve all" click
   on every card at the same instant, as when a chat platform delivers one click to two
   bot processes.

Prints: turns, turns/s over the turns round (all processes together), p50/p95 latency,
errors (exceptions, error replies and ERROR log records, all processes), clicks, and
double applies: cards that more than one process applied (the audit table and the
processes' replies must both say each card was applied once). Exit code 1 when there were
errors or double applies. The database URL's password is never printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import (  # noqa: E402
    ERROR_MARKERS,
    PLAIN_QUESTIONS,
    link_members,
    percentile,
)

ALREADY = "already decided"


@dataclass
class Surface:
    """An in-memory ChatSurface recording what FanVise shows."""

    max_text: int = 2000
    posts: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    ephemerals: list[tuple[str, str]] = field(default_factory=list)
    _n: int = 0

    async def post(self, thread: Any, msg: Any) -> str:
        self._n += 1
        mid = f"{os.getpid()}-{self._n}"
        self.posts[mid] = (thread, msg)
        return mid

    async def edit(self, thread: Any, message_id: str, msg: Any) -> None:
        self.posts[message_id] = (thread, msg)

    async def ephemeral(self, thread: Any, user: Any, text: str) -> None:
        self.ephemerals.append((user.user_id, text))

    async def delete_message(self, thread: Any, message_id: str) -> bool:
        self.posts.pop(message_id, None)
        return True

    def texts(self) -> list[str]:
        out = [t for _, t in self.ephemerals]
        for _, msg in self.posts.values():
            out.append(msg.text)
            for c in msg.cards:
                out += [c.title, c.text, c.footer]
        return out


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(f"{record.name}: {record.getMessage()[:200]}")


async def _open(url: str, data_dir: Path) -> Any:
    from bot.core.app import FanViseApp
    from bot.settings import Settings

    settings = Settings(data_dir=data_dir, database_url=url, secret_key="bench passphrase",
                        llm_per_minute=1e9, llm_burst=1e9, slack_updates_per_minute=1e9,
                        edit_interval=0.2)
    return await FanViseApp.open(settings)


def _user(i: int) -> Any:
    from bot.core.models import UserRef

    return UserRef("bench", f"u{i}", f"Member {i}")


def _thread(i: int, prefix: str) -> Any:
    from bot.core.models import ThreadRef

    return ThreadRef("bench", "W1", "C1", f"{prefix}{i}")


async def worker_setup(url: str, data_dir: Path, cards: int) -> dict[str, Any]:
    """Link `cards` members and leave one pending card each."""
    app = await _open(url, data_dir)
    try:
        surface = Surface()
        for i in range(cards):
            thread, user = _thread(i, "card"), _user(i)
            await app.core.handle_command(surface, thread, user, "link",
                                          {"text": f"team={i % 8 + 1}"})
            await app.core.handle_command(surface, thread, user, "optimize", {})
        rows = await app.app_db.fetchall("SELECT card_id FROM cards WHERE status='pending'")
        return {"cards": len(rows)}
    finally:
        await app.close()


async def worker_turns(url: str, data_dir: Path, conversations: int, turns: int,
                       start_at: float, tag: str) -> dict[str, Any]:
    """`turns` questions over `conversations` concurrent conversations."""
    errors = _Errors()
    logging.getLogger().addHandler(errors)
    app = await _open(url, data_dir)
    surface = Surface()
    latencies: list[float] = []
    exceptions: list[str] = []
    try:
        # members link before asking (an unlinked member gets the link prompt)
        await link_members(app, [("W1", _user(1000 + i)) for i in range(conversations)])
        await asyncio.sleep(max(0.0, start_at - time.time()))
        t0 = time.time()

        async def conversation(i: int, n: int) -> None:
            thread, user = _thread(i, f"{tag}-t"), _user(1000 + i)
            for k in range(n):
                s = time.perf_counter()
                try:
                    await app.core.handle_message(surface, thread, user,
                                                  PLAIN_QUESTIONS[(i + k) % len(PLAIN_QUESTIONS)])
                except Exception as exc:  # noqa: BLE001
                    exceptions.append(f"{type(exc).__name__}: {exc}"[:200])
                latencies.append(time.perf_counter() - s)

        per = [turns // conversations + (1 if i < turns % conversations else 0)
               for i in range(conversations)]
        await asyncio.gather(*(conversation(i, n) for i, n in enumerate(per) if n))
        t1 = time.time()
    finally:
        await app.close()
        logging.getLogger().removeHandler(errors)
    replies = [t for t in surface.texts() if any(m in t for m in ERROR_MARKERS)]
    return {"turns": len(latencies), "started": t0, "ended": t1, "latencies": latencies,
            "errors": len(exceptions) + len(replies) + len(errors.records),
            "error_samples": (exceptions + replies + errors.records)[:5]}


async def worker_race(url: str, data_dir: Path, start_at: float) -> dict[str, Any]:
    """The requester's "Approve all" on every card of the setup, at `start_at`."""
    errors = _Errors()
    logging.getLogger().addHandler(errors)
    app = await _open(url, data_dir)
    surface = Surface()
    applied: list[str] = []
    exceptions: list[str] = []
    try:
        rows = await app.app_db.fetchall(
            "SELECT card_id, message_id, thread_id, requester_id FROM cards ORDER BY card_id")
        await asyncio.sleep(max(0.0, start_at - time.time()))
        t0 = time.time()
        for r in rows:
            before = len(surface.ephemerals)
            i = int(r["requester_id"][1:])
            try:
                await app.core.handle_click(surface, _thread(i, "card"), _user(i),
                                            f"fv:approveall:{r['card_id']}",
                                            r["message_id"] or "")
            except Exception as exc:  # noqa: BLE001
                exceptions.append(f"{type(exc).__name__}: {exc}"[:200])
                continue
            if not any(ALREADY in t for _, t in surface.ephemerals[before:]):
                applied.append(r["card_id"])
        t1 = time.time()
    finally:
        await app.close()
        logging.getLogger().removeHandler(errors)
    return {"clicks": len(rows), "applied": applied, "started": t0, "ended": t1,
            "errors": len(exceptions) + len(errors.records),
            "error_samples": (exceptions + errors.records)[:5]}


# ---------------------------------------------------------------------------- parent


def _spawn(args: list[str]) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker", *args],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _collect(procs: list[subprocess.Popen[str]], url: str) -> list[dict[str, Any]]:
    from storage.db_url import redact_url

    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=3600)
        lines = [x for x in stdout.splitlines() if x.startswith("{")]
        if p.returncode != 0 or not lines:
            tail = stderr.strip().splitlines()[-3:]
            raise SystemExit("a worker failed: " + " | ".join(tail).replace(url,
                                                                               redact_url(url)))
        out.append(json.loads(lines[-1]))
    return out


async def _audit_applies(url: str) -> tuple[int, int]:
    """(cards whose claim was won more than once, already-decided audit rows)."""
    from storage.backend import open_database

    db = await open_database(url)
    try:
        rows = await db.fetchall("SELECT card_id, result FROM audit")
        cards = await db.fetchall("SELECT card_id, status FROM cards")
    finally:
        await db.close()
    decided = Counter(r["card_id"] for r in rows if r["result"] == "already-decided")
    return sum(1 for c in cards if c["status"] == "deciding"), sum(decided.values())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--database-url", help="postgresql://... (an empty database is best)")
    ap.add_argument("--local-postgres", action="store_true",
                    help="start a throwaway PostgreSQL server on 127.0.0.1 (needs initdb)")
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--conversations", type=int, default=10, help="per process")
    ap.add_argument("--turns", type=int, default=100, help="per process")
    ap.add_argument("--cards", type=int, default=8, help="cards raced in the last round")
    ap.add_argument("--worker", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    ns = ap.parse_args(argv)
    if ns.worker:
        return _worker(ns.worker)
    server = None
    if ns.local_postgres:
        from tests.storage.pg_server import PgServer

        server = PgServer.start()
        url = server.create_database("bench")
    elif ns.database_url:
        url = ns.database_url
    else:
        ap.error("--database-url or --local-postgres is required")
    from storage.db_url import check_database_url, redact_url

    check_database_url(url)
    base = Path(tempfile.mkdtemp(prefix="fanvise-loadproc-"))
    try:
        print(f"{ns.processes} processes on {redact_url(url)}: {ns.conversations} "
              f"conversations and {ns.turns} turns each, then {ns.cards} cards raced",
              flush=True)
        setup_dir = base / "setup"
        [setup] = _collect([_spawn(["setup", url, str(setup_dir), str(ns.cards)])], url)
        dirs = []
        for k in range(ns.processes):
            d = base / f"p{k}"
            shutil.copytree(setup_dir, d)  # the demo league's state as the cards saw it
            dirs.append(d)
        start = time.time() + 10.0
        turns = _collect([_spawn(["turns", url, str(d), str(ns.conversations), str(ns.turns),
                                  str(start), f"p{k}"]) for k, d in enumerate(dirs)], url)
        start = time.time() + 10.0
        races = _collect([_spawn(["race", url, str(d), str(start)]) for d in dirs], url)
        deciding, already_rows = asyncio.run(_audit_applies(url))
    finally:
        shutil.rmtree(base, ignore_errors=True)
        if server is not None:
            server.stop()
    n_turns = sum(t["turns"] for t in turns)
    wall = max(t["ended"] for t in turns) - min(t["started"] for t in turns)
    lat = [x for t in turns for x in t["latencies"]]
    errors = sum(t["errors"] for t in turns) + sum(r["errors"] for r in races)
    applied = Counter(c for r in races for c in r["applied"])
    double = sum(1 for n in applied.values() if n > 1)
    never = setup["cards"] - len(applied)
    clicks = sum(r["clicks"] for r in races)
    expected_already = clicks - len(applied)
    if already_rows != expected_already or deciding:
        double = max(double, 1)  # the audit disagrees with the replies
    print(f"turns: {n_turns} in {wall:.1f} s = {n_turns / wall if wall else 0:.1f} turns/s "
          f"(p50 {percentile(lat, 0.5) * 1000:.0f} ms, p95 {percentile(lat, 0.95) * 1000:.0f} ms)")
    print(f"errors: {errors}")
    for sample in [s for t in turns + races for s in t["error_samples"]][:5]:
        print(f"  {sample}")
    print(f"clicks: {clicks} on {setup['cards']} cards; applied once: "
          f"{sum(1 for n in applied.values() if n == 1)}, not applied: {never}, "
          f"already-decided replies audited: {already_rows}/{expected_already}")
    print(f"double applies: {double}")
    return 1 if errors or double or never else 0


def _worker(args: list[str]) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    kind, url, data_dir = args[0], args[1], Path(args[2])
    if kind == "setup":
        out = asyncio.run(worker_setup(url, data_dir, int(args[3])))
    elif kind == "turns":
        out = asyncio.run(worker_turns(url, data_dir, int(args[3]), int(args[4]),
                                       float(args[5]), args[6]))
    elif kind == "race":
        out = asyncio.run(worker_race(url, data_dir, float(args[3])))
    else:
        raise SystemExit(f"unknown worker {kind}")
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
