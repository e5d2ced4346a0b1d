"""storage.cache.TTLCache and the client's stale-while-error behaviour."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from fantasy.espn import EspnClient, EspnNotFound, EspnServerError
from storage.cache import RECHECK_AFTER, TTL_FREE_AGENTS, TTLCache
from storage.db import Database

DATA = Path(__file__).parents[1] / "data"
CARD = (DATA / "league_2023_playerCard.json").read_bytes()
SCHEDULE = (DATA / "league_2023_pro_schedule.json").read_bytes()


class Clock:
    def __init__(self, t: float = 1_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
async def cache(tmp_path: Path):
    db = await Database.open(tmp_path / "cache.sqlite")
    clock = Clock()
    yield TTLCache(db, clock=clock), clock
    await db.close()


async def test_hit_and_expiry(cache) -> None:
    c, clock = cache
    await c.set("espn:x:1", {"a": [1, 2]}, 45)
    assert await c.get("espn:x:1") == {"a": [1, 2]}
    clock.t += 44
    assert (await c.get_entry("espn:x:1")).fresh
    clock.t += 2
    assert await c.get("espn:x:1") is None
    entry = await c.get_entry("espn:x:1")
    assert entry is not None and not entry.fresh and entry.age_seconds == 46
    await c.set("espn:forever", 1, None)
    clock.t += 10**9
    assert await c.get("espn:forever") == 1


async def test_namespaces_and_invalidate(cache) -> None:
    c, _ = cache
    await c.set("espn:a:1", 1, 100)
    await c.set("espn:a:2", 2, 100)
    await c.set("espn:b:1", 3, 100)
    await c.set("espn:a_x", 4, 100)  # '_' must not act as a LIKE wildcard
    assert await c.invalidate_prefix("espn:a:") == 2
    assert await c.get("espn:a:1") is None and await c.get("espn:b:1") == 3
    assert await c.get("espn:a_x") == 4


async def test_get_or_fetch_stale_fallback(cache) -> None:
    c, clock = cache
    calls = []

    async def fetch():
        calls.append(1)
        return {"n": len(calls)}

    r = await c.get_or_fetch("k", TTL_FREE_AGENTS, fetch)
    assert r.value == {"n": 1} and not r.stale and not r.from_cache
    r = await c.get_or_fetch("k", TTL_FREE_AGENTS, fetch)
    assert r.from_cache and len(calls) == 1
    clock.t += 301

    async def failing():
        raise ConnectionError("espn down")

    r = await c.get_or_fetch("k", TTL_FREE_AGENTS, failing)
    assert r.stale and r.value == {"n": 1} and r.age_seconds == 301 and "espn down" in r.error
    with pytest.raises(ConnectionError):
        await c.get_or_fetch("missing", 10, failing)
    await c.purge_expired(older_than=0)
    assert await c.get_entry("k") is None


async def test_client_uses_cache_and_serves_stale_with_age(cache) -> None:
    c, clock = cache
    state = {"fail": False, "n": 0}

    def handler(req: httpx.Request) -> httpx.Response:
        state["n"] += 1
        if state["fail"]:
            return httpx.Response(503)
        if "proTeamSchedules_wl" in req.url.params.get_list("view"):
            return httpx.Response(200, content=SCHEDULE)
        return httpx.Response(200, content=CARD)

    async def no_sleep(_: float) -> None:
        return None

    client = EspnClient(1234, 2023, transport=httpx.MockTransport(handler), cache=c,
                        sleep=no_sleep, max_retries=1)
    (p,) = await client.get_player_cards([3934672])
    assert client.last_fetch_info.source == "network" and state["n"] == 2  # card + schedule
    (p2,) = await client.get_player_cards([3934672])
    assert p2 == p and state["n"] == 2 and client.last_fetch_info.source == "cache"
    clock.t += 16 * 60  # player status TTL is 15 min
    state["fail"] = True
    (p3,) = await client.get_player_cards([3934672])
    info = client.last_fetch_info
    assert p3.name == "Jalen Brunson"
    assert info.stale and info.age_seconds == 960 and "503" in info.error
    # Without a cached copy the error surfaces.
    with pytest.raises(EspnServerError):
        await client.get_player_cards([1])
    await client.aclose()


async def test_not_found_is_never_masked_by_stale_copy(cache) -> None:
    c, clock = cache
    state = {"code": 200}

    def handler(req: httpx.Request) -> httpx.Response:
        if state["code"] != 200:
            return httpx.Response(state["code"])
        if "proTeamSchedules_wl" in req.url.params.get_list("view"):
            return httpx.Response(200, content=SCHEDULE)
        return httpx.Response(200, content=CARD)

    client = EspnClient(1, 2023, transport=httpx.MockTransport(handler), cache=c)
    await client.get_player_cards([3934672])
    clock.t += 10_000
    state["code"] = 404
    with pytest.raises(EspnNotFound):
        await client.get_player_cards([3934672])
    await client.aclose()


async def test_decoded_values_are_reused_until_the_row_changes(cache, monkeypatch) -> None:
    """A hit reuses the decoded value while `stored_at` is unchanged; a write (by this cache,
    another cache on the same file, a delete or an invalidation) is always seen."""
    import storage.cache as mod

    c, clock = cache
    decodes = 0
    real_loads = mod.json.loads

    def counting_loads(text: str) -> object:
        nonlocal decodes
        decodes += 1
        return real_loads(text)

    monkeypatch.setattr(mod.json, "loads", counting_loads)
    await c.set("espn:x:big", {"v": 1}, 45)
    first = (await c.get_entry("espn:x:big")).value
    again = (await c.get_entry("espn:x:big")).value
    assert first == {"v": 1} and again is first and decodes == 1
    clock.t += 50  # expired entries are served from memory too (stale-while-error)
    assert not (await c.get_entry("espn:x:big")).fresh and decodes == 1

    other = TTLCache(c.db, clock=lambda: clock.t + 1)  # another writer on the same file
    await other.set("espn:x:big", {"v": 2}, 45)
    clock.t += RECHECK_AFTER  # seen once this process asks again (TTLCache.recheck_after)
    assert (await c.get_entry("espn:x:big")).value == {"v": 2} and decodes == 2
    await c.set("espn:x:big", {"v": 3}, 45)
    assert (await c.get_entry("espn:x:big")).value == {"v": 3}
    await c.invalidate_prefix("espn:x:")
    assert await c.get_entry("espn:x:big") is None
    await other.set("espn:x:big", {"v": 4}, 45)
    await c.delete("espn:x:big")
    assert await c.get_entry("espn:x:big") is None


async def test_memo_is_bounded(cache) -> None:
    c, _clock = cache
    c.memo_size = 3
    for i in range(10):
        await c.set(f"espn:k:{i}", i, 45)
        assert (await c.get_entry(f"espn:k:{i}")).value == i
    assert list(c._memo) == ["espn:k:7", "espn:k:8", "espn:k:9"]


async def test_memo_dropped_by_another_task_during_the_lookup(cache) -> None:
    """The key leaves the memo (eviction, a write) while a reader awaits its row: the reader
    still answers (a load run hit KeyError here)."""
    c, _clock = cache
    await c.set("espn:x:k", {"v": 1}, 45)
    assert (await c.get_entry("espn:x:k")).value == {"v": 1}  # now memoised
    real = c.db.fetchone

    async def fetch_and_evict(sql: str, params: tuple = ()) -> object:
        row = await real(sql, params)
        c._memo.clear()  # what a concurrent set()/eviction does during the await
        return row

    c.db.fetchone = fetch_and_evict  # type: ignore[method-assign]
    try:
        entry = await c.get_entry("espn:x:k")
    finally:
        c.db.fetchone = real  # type: ignore[method-assign]
    assert entry is not None and entry.value == {"v": 1}
