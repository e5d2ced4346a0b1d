"""One SQLite connection per process on its own worker thread, serialised by an asyncio.Lock.

Usage::

    db = await Database.open(path)          # WAL, busy_timeout 30 s, synchronous NORMAL
    await db.execute("INSERT ...", (a, b))
    row = await db.fetchone("SELECT ...", (a,))
    async with db.transaction():            # several statements atomically
        await db.execute(..., commit=False)
    await db.close()

Every helper is one hop to the connection's thread, which runs calls in order; a
transaction holds the lock, and other tasks' statements wait for it, so they never
interleave with a transaction's statements. Rows are `sqlite3.Row` (index or column-name access).

Start-up checks (synchronous, no worker thread, nothing created): `check_data_dir(dir)`
(a writable folder with free space) and `check_database_file(path)` (missing, or a readable
SQLite file that passes `PRAGMA quick_check`) raise `DatabaseFileError` with one line that
names the file and what to do.

A statement that waited the whole busy timeout because another connection (another process)
holds the file locked raises `DatabaseBusy`, whose message names the file and is safe to show
to a user (the chat core and the runtime show it instead of "something went wrong").
"""

from __future__ import annotations

import asyncio
import errno
import os
import sqlite3
import tempfile
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from queue import SimpleQueue
from typing import Any, TypeVar

BUSY_TIMEOUT_MS = 30_000

Params = Sequence[Any] | dict[str, Any]
T = TypeVar("T")

#: Bytes written (then removed) to check that the data directory has room for SQLite.
SPACE_PROBE_BYTES = 64 * 1024

_DIR_HINT = "point FANVISE_DATA_DIR or --data-dir to a writable folder"


class DatabaseBusy(sqlite3.OperationalError):
    """Another connection held the database file locked for the whole busy timeout. The
    message names the file (not its folder) and is safe to show; `path` is the full path."""

    def __init__(self, path: str, waited: float | None = None) -> None:
        self.path = path
        held = f" for {waited:g} s" if waited else ""
        super().__init__(
            f"The database file {Path(path).name} is busy: another program has held it "
            f"locked{held} (a second FanVise on the same data directory, a backup or an open "
            "sqlite3 shell?). Nothing was changed; please try again in a moment.")


def is_busy(exc: BaseException) -> bool:
    """True for SQLite's "database is locked" / "database table is locked" errors."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return isinstance(exc, sqlite3.OperationalError) and "is locked" in str(exc)


class DatabaseFileError(Exception):
    """A data directory or database file that FanVise cannot use; the message is one line
    naming the path and what to do."""


def check_data_dir(path: str | Path) -> None:
    """Create `path` if needed and check it is a writable folder with some free space."""
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise DatabaseFileError(f"the data directory {folder} is not a folder; {_DIR_HINT}")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".fanvise-probe-") as fh:
            fh.write(b"\0" * SPACE_PROBE_BYTES)
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            raise DatabaseFileError(
                f"no space left on the disk holding the data directory {folder}; free some "
                f"space (the disk is full) or {_DIR_HINT} on another disk") from None
        reason = exc.strerror or type(exc).__name__
        raise DatabaseFileError(
            f"the data directory {folder} is not writable ({reason}); fix its permissions "
            f"or {_DIR_HINT}") from None


def check_database_file(path: str | Path, what: str = "database") -> None:
    """Check an existing SQLite file can be read and is not damaged (`PRAGMA quick_check`).

    A missing file is fine (it is created on open). Opens read-only: nothing is written.
    """
    p = Path(path)
    if not p.exists():
        return
    reason = ""
    try:
        if not p.is_file():
            raise sqlite3.DatabaseError("not a file")
        conn = sqlite3.connect(p.resolve().as_uri() + "?mode=ro", uri=True, timeout=5.0)
        try:
            rows = conn.execute("PRAGMA quick_check").fetchall()
        finally:
            conn.close()
        if [tuple(r) for r in rows] != [("ok",)]:
            reason = "damaged: " + str(rows[0][0])[:80] if rows else "damaged"
    except sqlite3.Error as exc:
        reason = str(exc) or type(exc).__name__
    if reason:
        raise DatabaseFileError(
            f"the {what} {p} is not a usable SQLite database ({reason}); move it away "
            f"(FanVise then starts with a new one) or restore a backup")


class SqliteWorker:
    """One sqlite3 connection used only by one worker thread; `call(fn)` runs `fn(conn)`
    there and returns its result in one hop (aiosqlite takes a hop per cursor step: execute,
    fetch, close, commit). Calls run in the order they were made. With `path`, a call that
    failed on the busy timeout raises `DatabaseBusy` naming that file."""

    #: Name of the worker threads (tests look for leftovers).
    THREAD_NAME = "fanvise-sqlite"

    def __init__(self, conn: sqlite3.Connection, *, path: str | None = None,
                 busy_timeout: float | None = None) -> None:
        self._conn = conn
        self.path = path
        self.busy_timeout = busy_timeout
        self._queue: SimpleQueue[tuple[asyncio.AbstractEventLoop, asyncio.Future[Any],
                                       Callable[[sqlite3.Connection], Any]] | None] = \
            SimpleQueue()
        self._stopped = False
        self._thread = threading.Thread(target=self._work, name=self.THREAD_NAME,
                                        daemon=True)
        self._thread.start()

    def _work(self) -> None:
        while (item := self._queue.get()) is not None:
            loop, fut, fn = item
            try:
                result = fn(self._conn)
            except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
                if self.path and not isinstance(exc, DatabaseBusy) and is_busy(exc):
                    exc = DatabaseBusy(self.path, self.busy_timeout)
                _settle(loop, fut, None, exc)
            else:
                _settle(loop, fut, result, None)
        self._conn.close()

    async def call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn(connection)` on the worker thread."""
        if self._stopped:
            raise ValueError("the database connection is closed")
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[T] = loop.create_future()
        self._queue.put_nowait((loop, fut, fn))
        return await fut

    async def close(self) -> None:
        """`stop()` without blocking the event loop (the queued calls still run)."""
        await asyncio.get_running_loop().run_in_executor(None, self.stop)

    def stop(self) -> None:
        """Close the connection after the calls already queued, and end the thread."""
        if not self._stopped:
            self._stopped = True
            self._queue.put_nowait(None)
        self._thread.join()


def _settle(loop: asyncio.AbstractEventLoop, fut: asyncio.Future[Any], result: Any,
            exc: BaseException | None) -> None:
    def done() -> None:
        if fut.done():  # the awaiting task was cancelled meanwhile
            return
        if exc is not None:
            fut.set_exception(exc)
        else:
            fut.set_result(result)
    try:
        loop.call_soon_threadsafe(done)
    except RuntimeError:  # the loop was closed meanwhile: nobody waits for this result
        pass


def _run(sql: str, params: Params, commit: bool) -> Callable[[sqlite3.Connection], int]:
    def fn(conn: sqlite3.Connection) -> int:
        cur = conn.execute(sql, params)
        try:
            count = cur.rowcount
        finally:
            cur.close()
        if commit:
            conn.commit()
        return count
    return fn


class Database:
    """A single SQLite connection on its own worker thread; `transaction()` holds an
    asyncio.Lock that single statements wait for only while a transaction is open.

    Each helper is one hop to the worker thread (statement, rows and commit together).
    `dialect` and `row_lock` are shared with `storage.postgres.PgDatabase` (the other
    back end, see storage.backend): SQLite needs no row lock, as one process holds the file
    and every transaction takes the connection's lock.
    """

    dialect = "sqlite"
    row_lock = ""

    def __init__(self, worker: SqliteWorker, path: str) -> None:
        self._worker = worker
        self.path = path
        self.lock = asyncio.Lock()
        self._tx_owner: asyncio.Task[Any] | None = None

    @property
    def _in_tx(self) -> bool:
        return self._tx_owner is not None and self._tx_owner is asyncio.current_task()

    @classmethod
    async def open(cls, path: str | Path) -> Database:
        """Open (creating parent folders) with WAL, busy_timeout 30 s, synchronous NORMAL.

        `":memory:"` opens a private in-memory database (no WAL).
        """
        spath = str(path)
        if spath != ":memory:":
            Path(spath).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(spath, timeout=BUSY_TIMEOUT_MS / 1000,
                               check_same_thread=False)
        conn.row_factory = sqlite3.Row
        worker = SqliteWorker(conn, path=None if spath == ":memory:" else spath,
                              busy_timeout=BUSY_TIMEOUT_MS / 1000)

        def setup(c: sqlite3.Connection) -> None:
            c.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if spath != ":memory:":
                c.execute("PRAGMA journal_mode = WAL")
            c.execute("PRAGMA synchronous = NORMAL")
            c.execute("PRAGMA foreign_keys = ON")
            c.commit()

        try:
            await worker.call(setup)
        except BaseException:
            worker.stop()  # a garbage/read-only file fails here
            raise
        return cls(worker, spath)

    @asynccontextmanager
    async def _locked(self) -> AsyncIterator[None]:
        """Where a single statement may go to the worker: at once unless another task's
        `transaction()` holds the lock. The worker runs calls in the order they are made
        and a call is queued before its first await, so a statement queued while no
        transaction is open runs whole before any later transaction's first statement."""
        if self._in_tx or not self.lock.locked():
            # Inside `transaction()` of this very task (the lock is already held), or no
            # transaction open
            yield
            return
        async with self.lock:
            yield

    async def execute(self, sql: str, params: Params = (), *, commit: bool = True) -> int:
        """Run one statement; returns the affected row count (commits unless in a transaction)."""
        async with self._locked():
            return await self._worker.call(_run(sql, params, commit and not self._in_tx))

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        """Run one statement for many parameter rows and commit."""
        rows = list(rows)
        commit = not self._in_tx

        def fn(conn: sqlite3.Connection) -> None:
            conn.executemany(sql, rows)
            if commit:
                conn.commit()

        async with self._locked():
            await self._worker.call(fn)

    async def executescript(self, script: str) -> None:
        """Run a multi-statement script (schema setup) and commit."""
        def fn(conn: sqlite3.Connection) -> None:
            conn.executescript(script)
            conn.commit()

        async with self._locked():
            await self._worker.call(fn)

    async def fetchone(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """First row of a query, or None."""
        def fn(conn: sqlite3.Connection) -> sqlite3.Row | None:
            cur = conn.execute(sql, params)
            try:
                return cur.fetchone()
            finally:
                cur.close()

        async with self._locked():
            return await self._worker.call(fn)

    async def fetchall(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """All rows of a query."""
        def fn(conn: sqlite3.Connection) -> list[sqlite3.Row]:
            cur = conn.execute(sql, params)
            try:
                return list(cur.fetchall())
            finally:
                cur.close()

        async with self._locked():
            return await self._worker.call(fn)

    async def columns(self, table: str) -> set[str]:
        """Column names of a table (empty when it does not exist)."""
        return {r["name"] for r in await self.fetchall(f"PRAGMA table_info({table})")}

    async def ping(self) -> None:
        """One query (health check)."""
        await self.fetchone("SELECT 1")

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Database]:
        """Hold the lock for several statements; commit at the end, roll back on error."""
        async with self.lock:
            self._tx_owner = asyncio.current_task()
            try:
                yield self
                await self._worker.call(sqlite3.Connection.commit)
            except BaseException:
                await self._worker.call(sqlite3.Connection.rollback)
                raise
            finally:
                self._tx_owner = None

    async def close(self) -> None:
        """Close the connection (idempotent)."""
        async with self.lock:
            await self._worker.close()

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
