"""LangGraph checkpoints in SQLite: one long-lived connection per process, on its own thread.

    store = await CheckpointStore.open(data_dir / "checkpoints.sqlite")
    graph = builder.compile(checkpointer=store.saver)
    ...
    await store.close()          # closes the connection and ends its thread

Besides LangGraph's own `checkpoints` / `writes` tables the file holds `fanvise_runs`, one
row per approval-gated workflow run (run_thread_id, conversation_id, status, requester,
team_id, intent, created, updated, decided_by, decision), so the runtime can list pending approvals and find runs
that crashed mid-flight. The saver's calls and ours all run on the connection's one thread
(`storage.db.SqliteWorker`), one hop each, so the connection is never used concurrently.

Retention (SQLite stores the full state in every checkpoint, so growth is quadratic):
`prune_thread` keeps only the newest checkpoint per namespace (a thread paused at an
interrupt still resumes), `delete_idle_threads` drops threads whose newest checkpoint is
older than N days, and `vacuum` gives the space back to the file system.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    DeltaChannelHistory,
)
from langgraph.checkpoint.sqlite import SqliteSaver

from storage.crashpoint import writes_saved
from storage.db import SqliteWorker

log = logging.getLogger(__name__)

#: Busy timeout (seconds) of the connection; the aiosqlite default is 5 s.
BUSY_TIMEOUT_S = 30.0
#: Offset between the UUID epoch (1582-10-15) and the Unix epoch, in 100 ns intervals.
_UUID_EPOCH_OFFSET = 0x01B21DD213814000

RUN_STATUSES = ("running", "pending", "resuming", "done", "failed", "expired")

_RUNS_DDL = """
CREATE TABLE IF NOT EXISTS fanvise_runs (
    run_thread_id   TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    workflow        TEXT NOT NULL DEFAULT 'matchup_optimizer',
    intent          TEXT NOT NULL DEFAULT '',
    status          TEXT NOT NULL,
    requester       TEXT NOT NULL DEFAULT '',
    team_id         INTEGER,
    created         REAL NOT NULL,
    updated         REAL NOT NULL,
    decided_by      TEXT NOT NULL DEFAULT '',
    decision        TEXT NOT NULL DEFAULT '',
    decided_interrupt TEXT NOT NULL DEFAULT '',
    input           TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS fanvise_runs_conv ON fanvise_runs (conversation_id, status);
CREATE INDEX IF NOT EXISTS fanvise_runs_status ON fanvise_runs (status);
"""


@dataclass(frozen=True)
class RunRecord:
    """One approval-gated workflow run."""

    run_thread_id: str
    conversation_id: str
    workflow: str
    intent: str
    status: str
    requester: str
    team_id: int | None
    created: float
    updated: float
    decided_by: str = ""
    decision: str = ""  # JSON {move_id: "approve"|"decline"} of the last decision
    decided_interrupt: str = ""  # the interrupt that decision answers
    input: str = ""  # JSON input of the run (re-run after a crash before its 1st checkpoint)

    def decisions(self) -> dict[str, str]:
        """The recorded decision as {move_id: "approve"|"decline"} ({} when none)."""
        try:
            out = json.loads(self.decision) if self.decision else {}
        except ValueError:
            return {}
        return out if isinstance(out, dict) else {}

    def run_input(self) -> dict[str, Any] | None:
        """The run's recorded input, or None."""
        try:
            out = json.loads(self.input) if self.input else None
        except ValueError:
            return None
        return out if isinstance(out, dict) else None


def checkpoint_id_time(checkpoint_id: str) -> float | None:
    """Unix time encoded in a LangGraph checkpoint id (a UUIDv6), or None if not a v6 id."""
    try:
        u = uuid.UUID(checkpoint_id)
    except (ValueError, TypeError):
        return None
    if u.version != 6:
        return None
    ticks = (u.time_low << 28) | (u.time_mid << 12) | (u.time_hi_version & 0x0FFF)
    return (ticks - _UUID_EPOCH_OFFSET) / 1e7


class ThreadSqliteSaver(SqliteSaver):
    """LangGraph's `SqliteSaver` with its async methods: each runs the sync method on the
    connection's own thread (`storage.db.SqliteWorker`), one hop per call.

    `AsyncSqliteSaver` takes an asyncio lock and then a hop per cursor step (cursor,
    execute, fetch, close, commit); under load every hop waits for a turn of the event
    loop while the lock is held, so the checkpoint lock was held 88% of a load run's wall
    time (20 conversations) and became the queue. Calls here run in the order they were
    made, one at a time, on the worker's thread; nothing waits on an asyncio lock.

    One crash point (tests): `writes:<node>` right after a node's writes are committed and
    before the step's next checkpoint (LangGraph then lists the node in the snapshot's
    `tasks` but not in `next`; recovery must go on from there)."""

    def __init__(self, conn: sqlite3.Connection, worker: SqliteWorker) -> None:
        super().__init__(conn)
        self.worker = worker

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return await self.worker.call(lambda _c: self.get_tuple(config))

    async def alist(self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None,
                    before: RunnableConfig | None = None, limit: int | None = None
                    ) -> AsyncIterator[CheckpointTuple]:
        found = await self.worker.call(lambda _c: list(
            self.list(config, filter=filter, before=before, limit=limit)))
        for item in found:
            yield item

    async def aput(self, config: RunnableConfig, checkpoint: Checkpoint,
                   metadata: CheckpointMetadata, new_versions: ChannelVersions
                   ) -> RunnableConfig:
        return await self.worker.call(
            lambda _c: self.put(config, checkpoint, metadata, new_versions))

    async def aput_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]],
                          task_id: str, task_path: str = "") -> None:
        await self.worker.call(lambda _c: self.put_writes(config, writes, task_id, task_path))
        writes_saved(task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        await self.worker.call(lambda _c: self.delete_thread(thread_id))

    async def aget_delta_channel_history(self, *, config: RunnableConfig,
                                         channels: Sequence[str]
                                         ) -> Mapping[str, DeltaChannelHistory]:
        return await self.worker.call(
            lambda _c: self.get_delta_channel_history(config=config, channels=channels))


class CheckpointStore:
    """The process-wide checkpoint saver, its connection's thread and the runs table.

    `storage.postgres.PgCheckpointStore` has the same methods on AsyncPostgresSaver;
    `storage.backend.open_checkpoint_store` picks one."""

    dialect = "sqlite"

    def __init__(self, worker: SqliteWorker, saver: ThreadSqliteSaver, path: Path) -> None:
        self.worker = worker
        self.saver = saver
        self.path = path
        self._closed = False

    @classmethod
    async def open(cls, path: Path | str, *, busy_timeout: float = BUSY_TIMEOUT_S
                   ) -> CheckpointStore:
        """Open (create) the checkpoint database with one connection and set up all tables."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(p), timeout=busy_timeout, check_same_thread=False)
        worker = SqliteWorker(conn)
        saver = ThreadSqliteSaver(conn, worker)

        def setup(c: sqlite3.Connection) -> None:
            saver.setup()  # WAL + LangGraph tables
            c.execute("PRAGMA synchronous=NORMAL")
            c.executescript(_RUNS_DDL)
            for col in ("decided_by", "decision", "decided_interrupt", "input"):
                try:  # tables made before these columns
                    c.execute(f"ALTER TABLE fanvise_runs ADD COLUMN {col} TEXT "
                              "NOT NULL DEFAULT ''")
                except sqlite3.OperationalError as exc:
                    if "duplicate column" not in str(exc):
                        raise
            c.commit()

        try:
            await worker.call(setup)
        except BaseException:
            worker.stop()
            raise
        return cls(worker, saver, p)

    @property
    def closed(self) -> bool:
        """True after `close()`."""
        return self._closed

    async def close(self) -> None:
        """Close the connection (idempotent)."""
        if self._closed:
            return
        self._closed = True
        await asyncio.get_running_loop().run_in_executor(None, self.worker.stop)

    async def _write(self, sql: str, args: Any = ()) -> int:
        """One statement and its commit, in one hop; returns the affected row count."""
        def fn(c: sqlite3.Connection) -> int:
            n = c.execute(sql, args).rowcount
            c.commit()
            return n
        return await self.worker.call(fn)

    async def _rows(self, sql: str, args: Any = ()) -> list[tuple[Any, ...]]:
        return await self.worker.call(lambda c: c.execute(sql, args).fetchall())

    async def ping(self) -> None:
        """One query (health check)."""
        await self._rows("SELECT 1")

    @asynccontextmanager
    async def lease(self, name: str, *, ttl: float = 120.0) -> AsyncIterator[None]:
        """Hold `name` against other processes (see PgCheckpointStore.lease). Nothing to
        do here: a SQLite file is used by one process, whose asyncio locks suffice."""
        yield

    # ------------------------------------------------------------------ runs table

    async def record_run(self, run_thread_id: str, conversation_id: str, *, status: str,
                         requester: str = "", team_id: int | None = None, intent: str = "",
                         workflow: str = "matchup_optimizer",
                         run_input: dict[str, Any] | None = None) -> None:
        """Insert (or replace) a run row; `run_input` (JSON-able) lets recovery start the
        run again when a crash came before its first checkpoint."""
        now = time.time()
        await self._write(
            "INSERT OR REPLACE INTO fanvise_runs (run_thread_id, conversation_id, workflow,"
            " intent, status, requester, team_id, created, updated, input)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (run_thread_id, conversation_id, workflow, intent, _check_status(status),
             requester, team_id, now, now,
             json.dumps(run_input, default=str) if run_input is not None else ""))

    async def set_run_status(self, run_thread_id: str, status: str) -> None:
        """Update a run's status."""
        await self._write(
            "UPDATE fanvise_runs SET status = ?, updated = ? WHERE run_thread_id = ?",
            (_check_status(status), time.time(), run_thread_id))

    async def record_decision(self, run_thread_id: str, user_id: str,
                              decisions: dict[str, str], *, interrupt_id: str = "",
                              status: str | None = None) -> None:
        """Record who decided which interrupt of a run and what, durably (one commit,
        with the new `status`) before the decision is acted on: recovery finishes it."""
        await self._write(
            "UPDATE fanvise_runs SET decided_by = ?, decision = ?, decided_interrupt = ?,"
            " status = COALESCE(?, status), updated = ? WHERE run_thread_id = ?",
            (user_id, json.dumps(decisions, sort_keys=True), interrupt_id,
             _check_status(status) if status is not None else None, time.time(),
             run_thread_id))

    async def get_run(self, run_thread_id: str) -> RunRecord | None:
        """The run row, or None."""
        rows = await self._select("WHERE run_thread_id = ?", (run_thread_id,))
        return rows[0] if rows else None

    async def list_runs(self, *, statuses: tuple[str, ...] | None = None,
                        conversation_id: str | None = None,
                        orphaned_only: bool = False, takeover: bool = False
                        ) -> list[RunRecord]:
        """Runs filtered by status and conversation, oldest first. `orphaned_only` (runs
        no other live process drives) changes nothing here: one process per SQLite file;
        `takeover` (runs of another instance that died) gives none."""
        if takeover:
            return []
        where, args = [], []
        if statuses:
            where.append(f"status IN ({','.join('?' * len(statuses))})")
            args.extend(statuses)
        if conversation_id is not None:
            where.append("conversation_id = ?")
            args.append(conversation_id)
        clause = ("WHERE " + " AND ".join(where)) if where else ""
        return await self._select(clause + " ORDER BY created", tuple(args))

    async def _select(self, clause: str, args: tuple[Any, ...]) -> list[RunRecord]:
        rows = await self._rows(
            "SELECT run_thread_id, conversation_id, workflow, intent, status, requester,"
            " team_id, created, updated, decided_by, decision, decided_interrupt, input"
            f" FROM fanvise_runs {clause}", args)
        return [RunRecord(*r) for r in rows]

    # ------------------------------------------------------------------ retention

    async def thread_ids(self) -> list[str]:
        """Every thread id that has checkpoints."""
        return [r[0] for r in await self._rows("SELECT DISTINCT thread_id FROM checkpoints")]

    async def prune_thread(self, thread_id: str, *, drop_subgraphs: bool = False) -> int:
        """Keep only the newest checkpoint per namespace of a thread; returns rows deleted.

        `drop_subgraphs=True` also deletes every nested-graph namespace (only safe when the
        thread is not mid-run, e.g. a conversation thread after its turn finished).
        """
        def fn(c: sqlite3.Connection) -> int:
            n = 0
            if drop_subgraphs:
                n += c.execute(
                    "DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_ns != ''",
                    (thread_id,)).rowcount
            n += c.execute(
                "DELETE FROM checkpoints WHERE thread_id = :t AND checkpoint_id NOT IN"
                " (SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = :t"
                "  GROUP BY checkpoint_ns)", {"t": thread_id}).rowcount
            n += c.execute(
                "DELETE FROM writes WHERE thread_id = :t AND (checkpoint_ns, checkpoint_id)"
                " NOT IN (SELECT checkpoint_ns, checkpoint_id FROM checkpoints"
                "  WHERE thread_id = :t)", {"t": thread_id}).rowcount
            c.commit()
            return n
        return await self.worker.call(fn)

    async def thread_last_activity(self) -> dict[str, float]:
        """thread_id -> Unix time of its newest checkpoint."""
        rows = await self._rows(
            "SELECT thread_id, max(checkpoint_id) FROM checkpoints GROUP BY thread_id")
        out: dict[str, float] = {}
        for tid, cid in rows:
            t = checkpoint_id_time(cid)
            if t is not None:
                out[tid] = t
        return out

    async def delete_idle_threads(self, max_idle_days: float, *, now: float | None = None
                                  ) -> list[str]:
        """Delete threads (and their run rows) idle longer than `max_idle_days`."""
        cutoff = (now if now is not None else time.time()) - max_idle_days * 86400.0
        idle = [tid for tid, t in (await self.thread_last_activity()).items() if t < cutoff]
        for tid in idle:
            await self.saver.adelete_thread(tid)

        def fn(c: sqlite3.Connection) -> None:
            if idle:
                c.executemany("DELETE FROM fanvise_runs WHERE run_thread_id = ?",
                              [(t,) for t in idle])
            # run rows whose checkpoints are gone and that are old
            c.execute("DELETE FROM fanvise_runs WHERE updated < ? AND run_thread_id NOT IN"
                      " (SELECT DISTINCT thread_id FROM checkpoints)", (cutoff,))
            c.commit()
        await self.worker.call(fn)
        return idle

    async def delete_finished_run_threads(self, older_than_days: float, *,
                                          now: float | None = None) -> list[str]:
        """Delete the checkpoints of runs that ended ("done"/"failed") more than
        `older_than_days` ago; their run rows stay, so a late click still reads
        "already decided". Returns the thread ids deleted."""
        cutoff = (now if now is not None else time.time()) - older_than_days * 86400.0
        ended = [r[0] for r in await self._rows(
            "SELECT run_thread_id FROM fanvise_runs WHERE status IN ('done', 'failed')"
            " AND updated < ? AND run_thread_id IN (SELECT DISTINCT thread_id FROM"
            " checkpoints)", (cutoff,))]
        for tid in ended:
            await self.saver.adelete_thread(tid)
        return ended

    async def expire_pending_runs(self, older_than_days: float, *,
                                  now: float | None = None) -> list[str]:
        """Runs waiting for approval longer than `older_than_days`: mark them "expired" and
        delete their checkpoints (the moves were planned for a week long gone). Returns the
        thread ids expired."""
        cutoff = (now if now is not None else time.time()) - older_than_days * 86400.0
        stale = [r[0] for r in await self._rows(
            "SELECT run_thread_id FROM fanvise_runs WHERE status = 'pending'"
            " AND updated < ?", (cutoff,))]
        for tid in stale:
            await self.set_run_status(tid, "expired")
            await self.saver.adelete_thread(tid)
        return stale

    async def vacuum(self) -> None:
        """VACUUM and truncate the WAL (run off-peak: the connection's thread is busy
        meanwhile)."""
        def fn(c: sqlite3.Connection) -> None:
            c.commit()
            c.execute("VACUUM")
            c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        await self.worker.call(fn)

    async def size_bytes(self) -> int:
        """Bytes used by the database pages (page_count * page_size)."""
        def fn(c: sqlite3.Connection) -> int:
            pages = c.execute("PRAGMA page_count").fetchone()[0]
            size = c.execute("PRAGMA page_size").fetchone()[0]
            return int(pages) * int(size)
        return await self.worker.call(fn)


def _check_status(status: str) -> str:
    if status not in RUN_STATUSES:
        raise ValueError(f"unknown run status {status!r}")
    return status


__all__ = ["BUSY_TIMEOUT_S", "CheckpointStore", "RUN_STATUSES", "RunRecord",
           "checkpoint_id_time"]
