"""TTLCache: concurrent hits of one remembered key share one (stored_at, expires_at) query;
a write, delete or invalidation of the key in this process, or a row changed by another
process, is still seen by the next reader; a cancelled reader does not fail the others.
Within `recheck_after` of a check, a remembered row is served with no query at all (the
query-sharing tests set it to 0, so every read checks)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from storage.cache import RECHECK_AFTER, TTLCache
from storage.db import Database


@pytest.fixture
async def db(tmp_path: Path):
    d = await Database.open(tmp_path / "cache.sqlite")
    yield d
    await d.close()


def _count(c: TTLCache) -> list[str]:
    seen: list[str] = []
    query = c._query_version

    async def counted(key: str):
        seen.append(key)
        return await query(key)

    c._query_version = counted  # type: ignore[method-assign]
    return seen


async def test_concurrent_hits_share_one_query(db) -> None:
    c = TTLCache(db, recheck_after=0)
    await c.set("k", {"v": 1}, 45, decoded=True)
    seen = _count(c)
    entries = await asyncio.gather(*(c.get_entry("k") for _ in range(10)))
    assert [e.value for e in entries] == [{"v": 1}] * 10
    assert seen == ["k"]
    await c.get_entry("k")  # the next, later reader queries again
    assert seen == ["k", "k"]


async def test_changes_are_seen_by_the_next_reader(db) -> None:
    c = TTLCache(db, recheck_after=0)
    other = TTLCache(db, clock=lambda: 2e9)  # another process on the same table
    await c.set("k", {"v": 1}, 45, decoded=True)
    await c.get_entry("k")
    await other.set("k", {"v": 2}, 45)
    assert (await c.get_entry("k")).value == {"v": 2}
    reading = asyncio.ensure_future(c.get_entry("k"))
    await asyncio.sleep(0)  # its query is in flight
    await c.set("k", {"v": 3}, 45, decoded=True)
    assert (await c.get_entry("k")).value == {"v": 3}
    await reading
    await c.delete("k")
    assert await c.get_entry("k") is None


async def test_a_cancelled_reader_does_not_fail_the_others(db) -> None:
    c = TTLCache(db, recheck_after=0)
    await c.set("k", {"v": 1}, 45, decoded=True)
    first = asyncio.ensure_future(c.get_entry("k"))
    second = asyncio.ensure_future(c.get_entry("k"))
    await asyncio.sleep(0)
    first.cancel()
    assert (await second).value == {"v": 1}
    with pytest.raises(asyncio.CancelledError):
        await first


async def test_a_recently_checked_row_is_served_without_a_query(db) -> None:
    """The default: one version query per key and second at most; this process's writes
    are seen at once, another process's once the second has passed."""
    t = [1000.0]
    c = TTLCache(db, clock=lambda: t[0])
    assert c.recheck_after == RECHECK_AFTER > 0
    await c.set("k", {"v": 1}, 45, decoded=True)
    seen = _count(c)
    for _ in range(5):
        assert (await c.get_entry("k")).value == {"v": 1}
    assert seen == []
    await c.set("k", {"v": 2}, 45, decoded=True)  # this process: seen at once
    assert (await c.get_entry("k")).value == {"v": 2} and seen == []
    other = TTLCache(db, clock=lambda: t[0] + 0.5)  # another process on the same table
    await other.set("k", {"v": 3}, 45)
    assert (await c.get_entry("k")).value == {"v": 2}  # within the second
    t[0] += RECHECK_AFTER
    assert (await c.get_entry("k")).value == {"v": 3} and seen == ["k"]
    entry = await c.get_entry("k")
    assert entry.fresh and entry.expires_at == t[0] - RECHECK_AFTER + 0.5 + 45
