"""TTLCache's `derived` dict (what readers build from a value) and `set(decoded=True)`."""

from __future__ import annotations

from pathlib import Path

import pytest

import storage.cache as cache_mod
from storage.cache import RECHECK_AFTER, TTLCache
from storage.db import Database


@pytest.fixture
async def db(tmp_path: Path):
    d = await Database.open(tmp_path / "cache.sqlite")
    yield d
    await d.close()


async def test_derived_lives_while_the_row_is_unchanged(db) -> None:
    t = [1000.0]
    c = TTLCache(db, clock=lambda: t[0])
    await c.set("k", {"v": 1}, 45)
    first = await c.get_entry("k")
    first.derived["parsed"] = object()
    assert (await c.get_entry("k")).derived is first.derived
    t[0] += 100  # expired but unchanged: still the same row (stale-while-error serves it)
    assert (await c.get_entry("k")).derived is first.derived

    other = TTLCache(db, clock=lambda: t[0] + 1)  # another process writes the row
    await other.set("k", {"v": 2}, 45)
    t[0] += RECHECK_AFTER  # seen once this process asks again (see TTLCache.recheck_after)
    assert "parsed" not in (await c.get_entry("k")).derived
    for change in (lambda: c.set("k", {"v": 3}, 45), lambda: c.delete("k"),
                   lambda: c.invalidate_prefix("k")):
        await c.set("k", {"v": 4}, 45)
        (await c.get_entry("k")).derived["parsed"] = 1
        await change()
        entry = await c.get_entry("k")
        assert entry is None or "parsed" not in entry.derived


async def test_a_decoded_set_is_read_back_without_decoding(db, monkeypatch) -> None:
    c = TTLCache(db)
    decodes = []
    real = cache_mod.json.loads
    monkeypatch.setattr(cache_mod.json, "loads", lambda s: decodes.append(1) or real(s))
    value = {"teams": [{"id": 1}]}
    stored = await c.set("k", value, 45, decoded=True)
    stored.derived["parsed"] = "league"
    entry = await c.get_entry("k")
    assert entry.value is value and entry.derived == {"parsed": "league"} and not decodes
    await c.set("j", {"x": (1, 2)}, 45)  # not declared decoded: read back from the row
    assert (await c.get_entry("j")).value == {"x": [1, 2]} and decodes == [1]
