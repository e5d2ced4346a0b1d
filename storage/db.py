"""One aiosqlite connection per process, serialised by an asyncio.Lock.

Usage::

    db = await Database.open(path)          # WAL, busy_timeout 30 s, synchronous NORMAL
    await db.execute("INSERT ...", (a, b))
    row = await db.fetchone("SELECT ...", (a,))
    async with db.transaction():            # several statements atomically
        await db.execute(..., commit=False)
    await db.close()

Every helper takes the lock, so concurrent tasks never interleave statements on the
shared connection. Rows are `sqlite3.Row` (index or column-name access).

Start-up checks (synchronous, no worker thread, nothing created): `check_data_dir(dir)`
(a writable folder with free space) and `check_database_file(path)` (missing, or a readable
SQLite file that passes `PRAGMA quick_check`) raise `DatabaseFileError` with one line that
names the file and what to do.
"""

from __future__ import annotations

import asyncio
import errno
import os
import sqlite3
import tempfile
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

BUSY_TIMEOUT_MS = 30_000

Params = Sequence[Any] | dict[str, Any]

#: Bytes written (then removed) to check that the data directory has room for SQLite.
SPACE_PROBE_BYTES = 64 * 1024

_DIR_HINT = "point FANVISE_DATA_DIR or --data-dir to a writable folder"


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


class Database:
    """A single aiosqlite connection guarded by an asyncio.Lock.

    `dialect` and `row_lock` are shared with `storage.postgres.PgDatabase` (the other
    back end, see storage.backend): SQLite needs no row lock, as one process holds the file
    and every transaction takes the connection's lock.
    """

    dialect = "sqlite"
    row_lock = ""

    def __init__(self, conn: aiosqlite.Connection, path: str) -> None:
        self._conn = conn
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
        conn = await aiosqlite.connect(spath, timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            conn.row_factory = sqlite3.Row
            await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if spath != ":memory:":
                await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute("PRAGMA synchronous = NORMAL")
            await conn.execute("PRAGMA foreign_keys = ON")
            await conn.commit()
        except BaseException:
            # a garbage/read-only file fails here: stop aiosqlite's (non-daemon) worker
            # thread, or the process never exits
            await conn.close()
            raise
        return cls(conn, spath)

    @property
    def connection(self) -> aiosqlite.Connection:
        """The raw connection (take `self.lock` before using it directly)."""
        return self._conn

    @asynccontextmanager
    async def _locked(self) -> AsyncIterator[None]:
        if self._in_tx:
            # Inside `transaction()` of this very task: the lock is already held.
            yield
            return
        async with self.lock:
            yield

    async def execute(self, sql: str, params: Params = (), *, commit: bool = True) -> int:
        """Run one statement; returns the affected row count (commits unless in a transaction)."""
        async with self._locked():
            cur = await self._conn.execute(sql, params)
            count = cur.rowcount
            await cur.close()
            if commit and not self._in_tx:
                await self._conn.commit()
            return count

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        """Run one statement for many parameter rows and commit."""
        async with self._locked():
            await self._conn.executemany(sql, rows)
            if not self._in_tx:
                await self._conn.commit()

    async def executescript(self, script: str) -> None:
        """Run a multi-statement script (schema setup) and commit."""
        async with self._locked():
            await self._conn.executescript(script)
            await self._conn.commit()

    async def fetchone(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """First row of a query, or None."""
        async with self._locked():
            async with self._conn.execute(sql, params) as cur:
                return await cur.fetchone()

    async def fetchall(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """All rows of a query."""
        async with self._locked():
            async with self._conn.execute(sql, params) as cur:
                return list(await cur.fetchall())

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
                await self._conn.commit()
            except BaseException:
                await self._conn.rollback()
                raise
            finally:
                self._tx_owner = None

    async def close(self) -> None:
        """Close the connection (idempotent)."""
        async with self.lock:
            try:
                await self._conn.close()
            except ValueError:
                pass

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
