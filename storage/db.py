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
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

BUSY_TIMEOUT_MS = 30_000

Params = Sequence[Any] | dict[str, Any]


class Database:
    """A single aiosqlite connection guarded by an asyncio.Lock."""

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
        conn.row_factory = sqlite3.Row
        await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if spath != ":memory:":
            await conn.execute("PRAGMA journal_mode = WAL")
        await conn.execute("PRAGMA synchronous = NORMAL")
        await conn.execute("PRAGMA foreign_keys = ON")
        await conn.commit()
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
