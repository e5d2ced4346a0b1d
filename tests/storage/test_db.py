"""storage.db.Database: pragmas, helpers, transactions, concurrency."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from storage.db import Database


async def test_open_sets_pragmas(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "sub" / "app.sqlite")
    try:
        assert (await db.fetchone("PRAGMA journal_mode"))[0] == "wal"
        assert (await db.fetchone("PRAGMA busy_timeout"))[0] == 30000
        assert (await db.fetchone("PRAGMA synchronous"))[0] == 1  # NORMAL
    finally:
        await db.close()
    assert (tmp_path / "sub" / "app.sqlite").exists()


async def test_helpers_and_transaction(tmp_path: Path) -> None:
    async with await Database.open(tmp_path / "a.sqlite") as db:
        await db.executescript("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER);")
        assert await db.execute("INSERT INTO t VALUES (?, ?)", ("a", 1)) == 1
        await db.executemany("INSERT INTO t VALUES (?, ?)", [("b", 2), ("c", 3)])
        row = await db.fetchone("SELECT v FROM t WHERE k = ?", ("b",))
        assert row["v"] == 2
        with pytest.raises(RuntimeError):
            async with db.transaction():
                await db.execute("INSERT INTO t VALUES (?, ?)", ("d", 4))
                raise RuntimeError("abort")
        assert [r["k"] for r in await db.fetchall("SELECT k FROM t ORDER BY k")] == ["a", "b", "c"]
        async with db.transaction():
            await db.execute("UPDATE t SET v = v + 10")
            await db.execute("DELETE FROM t WHERE k = 'a'")
        assert [tuple(r) for r in await db.fetchall("SELECT k, v FROM t ORDER BY k")] == [
            ("b", 12), ("c", 13)]


async def test_concurrent_tasks_are_serialised(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "c.sqlite")
    await db.executescript("CREATE TABLE n (i INTEGER);")

    async def writer(i: int) -> None:
        async with db.transaction():
            await db.execute("INSERT INTO n VALUES (?)", (i,))
            await asyncio.sleep(0)
            await db.execute("INSERT INTO n VALUES (?)", (-i,))

    await asyncio.gather(*(writer(i) for i in range(1, 21)), *(db.fetchall("SELECT * FROM n")
                                                             for _ in range(5)))
    rows = [r[0] for r in await db.fetchall("SELECT i FROM n")]
    assert len(rows) == 40 and sum(rows) == 0
    # Each transaction's two inserts are adjacent: nothing interleaved.
    assert all(rows[k] == -rows[k + 1] for k in range(0, 40, 2))
    await db.close()
    await db.close()  # idempotent
