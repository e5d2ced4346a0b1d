"""LangGraph checkpoints in SQLite: one long-lived connection per process, on its own thread.

    store = await CheckpointStore.open(data_dir / "checkpoints.sqlite")
    graph = builder.compile(checkpointer=store.saver)
    ...
    await store.close()          # closes the connection and ends its thread

Besides LangGraph's own `checkpoints` / `writes` tables the file holds `fanvise_runs`, one
row per approval-gated workflow run (run_thread_id, conversation_id, status, requester,
team_id, intent, created, updated, decided_by, decision), so the runtime can list pending
approvals and find runs that crashed mid-flight; its SQL and the retention that reads it are
`storage.runs.RunsTable`, shared with the Postgres store. The saver's calls and ours all run
on the connection's one thread (`storage.db.SqliteWorker`), one hop each, so the connection
is never used concurrently.

Retention (SQLite stores the full state in every checkpoint, so growth is quadratic):
`prune_thread` keeps only the newest checkpoint per namespace (a thread paused at an
interrupt still resumes), `delete_idle_threads` drops threads whose newest checkpoint is
older than N days, and `vacuum` gives the space back to the file system.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
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
from storage.runs import RUN_STATUSES, RUNS_DDL, RunRecord, RunsTable, checkpoint_id_time

log = logging.getLogger(__name__)

#: Busy timeout (seconds) of the connection; the aiosqlite default is 5 s.
BUSY_TIMEOUT_S = 30.0


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


class CheckpointStore(RunsTable):
    """The process-wide checkpoint saver, its connection's thread and the runs table (whose
    methods are `storage.runs.RunsTable`'s; each of its statements is one hop here).

    `storage.postgres.PgCheckpointStore` has the same methods on AsyncPostgresSaver;
    `storage.backend.open_checkpoint_store` picks one."""

    dialect = "sqlite"

    def __init__(self, worker: SqliteWorker, saver: ThreadSqliteSaver, path: Path) -> None:
        self.worker = worker
        self.saver = saver
        self.path = path
        self._closed = False

    @classmethod
    async def open(cls, path: Path | str, *, busy_timeout: float | None = None
                   ) -> CheckpointStore:
        """Open (create) the checkpoint database with one connection and set up all tables
        (`busy_timeout` seconds, default BUSY_TIMEOUT_S)."""
        busy_timeout = BUSY_TIMEOUT_S if busy_timeout is None else busy_timeout
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(p), timeout=busy_timeout, check_same_thread=False)
        worker = SqliteWorker(conn, path=str(p), busy_timeout=busy_timeout)
        saver = ThreadSqliteSaver(conn, worker)

        def setup(c: sqlite3.Connection) -> None:
            saver.setup()  # WAL + LangGraph tables
            c.execute("PRAGMA synchronous=NORMAL")
            c.executescript(RUNS_DDL)
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

    async def close(self) -> None:
        """Close the connection (idempotent)."""
        if self._closed:
            return
        self._closed = True
        await self.worker.close()

    async def _write(self, sql: str, args: Sequence[Any] = ()) -> int:
        """One statement and its commit, in one hop; returns the affected row count."""
        def fn(c: sqlite3.Connection) -> int:
            n = c.execute(sql, args).rowcount
            c.commit()
            return n
        return await self.worker.call(fn)

    async def _write_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        def fn(c: sqlite3.Connection) -> None:
            c.executemany(sql, rows)
            c.commit()
        await self.worker.call(fn)

    async def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """One statement's rows in one hop (committed when it wrote: UPDATE ... RETURNING)."""
        def fn(c: sqlite3.Connection) -> list[tuple[Any, ...]]:
            rows = c.execute(sql, args).fetchall()
            if c.in_transaction:
                c.commit()
            return rows
        return await self.worker.call(fn)

    def _owner_filter(self, *, takeover: bool) -> tuple[str, tuple[Any, ...]] | None:
        """One process per SQLite file: every run is an orphan, none another instance's."""
        return None if takeover else ("", ())

    @asynccontextmanager
    async def lease(self, name: str, *, ttl: float = 120.0) -> AsyncIterator[None]:
        """Hold `name` against other processes (see PgCheckpointStore.lease). Nothing to
        do here: a SQLite file is used by one process, whose asyncio locks suffice."""
        yield

    # ------------------------------------------------------------------ retention

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


__all__ = ["BUSY_TIMEOUT_S", "CheckpointStore", "RUN_STATUSES", "RunRecord",
           "checkpoint_id_time"]
