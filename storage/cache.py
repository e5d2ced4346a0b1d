"""TTL cache on the app Database (SQLite) with stale-while-error support.

Design:
- Values are JSON (the raw ESPN responses), stored with `stored_at` and `expires_at`
  (NULL = never expires, used for finished game logs / final box scores).
- `get()` returns only fresh values. `get_entry()` also returns expired ones as a
  `CacheEntry` with `fresh` and `age_seconds`, so a caller whose upstream fails can serve
  the old copy marked stale. `get_or_fetch()` does exactly that and returns a
  `CachedResult(value, stale, age_seconds, from_cache, error)`.
- Keys are namespaced strings ("espn:<host>:<league>:<season>:<kind>:<hash>");
  `invalidate_prefix()` drops a namespace (the demo league does this after a move).
- The clock is injectable (`clock=lambda: t`) so tests control expiry.
- Decoded values of recently read keys are kept in memory (at most `memo_size` rows and
  `memo_bytes` of their JSON text, least recently used dropped first, so many small rows such
  as player cards do not push out the league) and reused while the row's `stored_at` is
  unchanged, so a hit costs one small query instead of decoding megabytes
  of JSON on every turn, and no query at all within `recheck_after` seconds (default 1 s)
  of the last one: writes by this process are seen at once (they go through this object),
  a row changed by another process (several processes on one Postgres database) within
  that second. Concurrent hits of one key share that query (one in flight per
  key; a write, delete or invalidation of the key in this process starts a new one).
  Values are shared between readers: treat them as read-only.
  Each remembered row also has a `derived` dict (`CacheEntry.derived`) where a reader keeps
  what it built from the value (the ESPN client keeps its parsed League, schedule and player
  lists there); it lives exactly as long as the row is unchanged in memory: a write, a delete,
  an invalidation or a row changed by another process starts a new one.

TTL constants follow DESIGN.md: rosters/matchups 45 s, free agents 5 min, player status
15 min, schedule 1 h, finished game logs forever (`FOREVER` = None).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from storage.db import Database

TTL_ROSTERS = 45.0
TTL_MATCHUPS = 45.0
TTL_FREE_AGENTS = 300.0
TTL_PLAYER_STATUS = 900.0
TTL_SCHEDULE = 3600.0
FOREVER: float | None = None
#: Seconds a remembered row is trusted before its version is read again (see TTLCache).
RECHECK_AFTER = 1.0

SCHEMA = """
CREATE TABLE IF NOT EXISTS espn_cache (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    stored_at REAL NOT NULL,
    expires_at REAL
);
CREATE INDEX IF NOT EXISTS espn_cache_expires ON espn_cache(expires_at);
"""


@dataclass(frozen=True)
class CacheEntry:
    """A stored value with its timing. `fresh` is False once `expires_at` has passed."""

    key: str
    value: Any
    stored_at: float
    expires_at: float | None
    now: float
    #: Objects built from `value` by readers, shared while the row is unchanged (see module doc).
    derived: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def fresh(self) -> bool:
        """True while the TTL has not run out (always True for FOREVER entries)."""
        return self.expires_at is None or self.now < self.expires_at

    @property
    def age_seconds(self) -> float:
        """Seconds since the value was stored."""
        return max(0.0, self.now - self.stored_at)


@dataclass(frozen=True)
class CachedResult:
    """Result of `get_or_fetch`: `stale` is True when the fetch failed and an expired copy
    was served instead; `error` then holds the failure's message."""

    value: Any
    stale: bool = False
    age_seconds: float = 0.0
    from_cache: bool = False
    error: str | None = None


@dataclass
class _Remembered:
    """A decoded row kept in memory: its `stored_at` (the row's version), `expires_at`,
    the value, what readers derived from it, and when the row was last seen unchanged."""

    stored_at: float
    expires_at: float | None
    value: Any
    derived: dict[Any, Any]
    checked_at: float


class TTLCache:
    """JSON TTL cache stored in the `espn_cache` table of a Database."""

    #: `set(..., decoded=True)` is supported (the ESPN client keeps response bodies decoded).
    keeps_decoded = True
    #: `set(..., text=...)` is supported (the ESPN client passes the body's own JSON text).
    keeps_text = True

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time,
                 memo_size: int = 256, memo_bytes: int = 16 * 2**20,
                 recheck_after: float = RECHECK_AFTER) -> None:
        self.db = db
        self.clock = clock
        #: Seconds a remembered row is served without asking the database whether another
        #: process changed it (this process's own writes are seen at once); 0 = every read.
        self.recheck_after = recheck_after
        self._ready = False
        self.memo_size = memo_size
        #: Budget of the remembered rows' JSON text (decoded values take a few times more).
        self.memo_bytes = memo_bytes
        self._memo: OrderedDict[str, _Remembered] = OrderedDict()
        self._memo_sizes: dict[str, int] = {}
        self._memo_total = 0
        #: Decoded values being written by `set(decoded=True)`: (stored_at, value, expires_at,
        #: derived). A reader of the key during the write gets this value (the newest this
        #: process has) instead of decoding the row again (up to a megabyte of JSON).
        self._writing: dict[str, tuple[float, Any, float | None, dict[Any, Any]]] = {}
        #: In-flight `(stored_at, expires_at)` queries of remembered keys, shared by the
        #: readers that arrive while one runs (see `_row_version`).
        self._checking: dict[str, asyncio.Future[tuple[float, float | None] | None]] = {}

    async def _ensure(self) -> None:
        if not self._ready:
            await self.db.executescript(SCHEMA)
            self._ready = True

    async def get_entry(self, key: str) -> CacheEntry | None:
        """The stored entry (fresh or expired), or None."""
        await self._ensure()
        writing = self._writing.get(key)
        if writing is not None:
            stored_at, value, expires_at, derived = writing
            return CacheEntry(key=key, value=value, stored_at=stored_at, expires_at=expires_at,
                              now=self.clock(), derived=derived)
        memo = self._memo.get(key)
        if memo is not None:
            now = self.clock()
            if 0.0 <= now - memo.checked_at < self.recheck_after:
                self._memo.move_to_end(key)
                return CacheEntry(key=key, value=memo.value, stored_at=memo.stored_at,
                                  expires_at=memo.expires_at, now=now, derived=memo.derived)
            version = await self._row_version(key)
            if version is not None and version[0] == memo.stored_at:
                # another task may have evicted or dropped the key during the await
                if self._memo.get(key) is memo:
                    self._memo.move_to_end(key)
                    memo.expires_at, memo.checked_at = version[1], now
                return CacheEntry(key=key, value=memo.value, stored_at=version[0],
                                  expires_at=version[1], now=self.clock(),
                                  derived=memo.derived)
        row = await self.db.fetchone(
            "SELECT value, stored_at, expires_at FROM espn_cache WHERE key = ?", (key,))
        if row is None:
            self._forget(key)
            return None
        value = json.loads(row["value"])
        derived = self._remember(key, row["stored_at"], row["expires_at"], value,
                                 len(row["value"]))
        return CacheEntry(key=key, value=value, stored_at=row["stored_at"],
                          expires_at=row["expires_at"], now=self.clock(), derived=derived)

    async def _row_version(self, key: str) -> tuple[float, float | None] | None:
        """The row's (stored_at, expires_at), None when it is gone. Readers arriving while
        a query of the key runs share it (it started after they last saw the key change
        in this process, as their own query would have; a cancelled reader does not cancel
        it for the others)."""
        pending = self._checking.get(key)
        if pending is None:
            pending = asyncio.ensure_future(self._query_version(key))
            self._checking[key] = pending

            def done(f: asyncio.Future[Any], key: str = key) -> None:
                if self._checking.get(key) is f:
                    del self._checking[key]
                if not f.cancelled():
                    f.exception()  # retrieved: a failure nobody awaits is not logged

            pending.add_done_callback(done)
        return await asyncio.shield(pending)

    async def _query_version(self, key: str) -> tuple[float, float | None] | None:
        row = await self.db.fetchone(
            "SELECT stored_at, expires_at FROM espn_cache WHERE key = ?", (key,))
        return None if row is None else (row["stored_at"], row["expires_at"])

    def _remember(self, key: str, stored_at: float, expires_at: float | None, value: Any,
                  size: int, derived: dict[Any, Any] | None = None) -> dict[Any, Any]:
        derived = {} if derived is None else derived
        if self.memo_size <= 0 or size > self.memo_bytes:
            self._forget(key)
            return derived
        self._forget(key)
        self._memo[key] = _Remembered(stored_at, expires_at, value, derived, self.clock())
        self._memo_sizes[key] = size
        self._memo_total += size
        while self._memo and (len(self._memo) > self.memo_size
                              or self._memo_total > self.memo_bytes):
            self._forget(next(iter(self._memo)))
        return derived

    def _forget(self, key: str) -> None:
        self._checking.pop(key, None)  # later readers query the changed row themselves
        self._memo.pop(key, None)
        self._memo_total -= self._memo_sizes.pop(key, 0)
        if not self._memo:  # nothing remembered: no size left to count
            self._memo_sizes.clear()
            self._memo_total = 0

    async def get(self, key: str) -> Any | None:
        """The value when present and fresh, else None."""
        entry = await self.get_entry(key)
        return entry.value if entry is not None and entry.fresh else None

    async def set(self, key: str, value: Any, ttl: float | None, *,
                  decoded: bool = False, text: str | None = None) -> CacheEntry:
        """Store a JSON-able value for `ttl` seconds (None = forever); returns its entry.

        `decoded=True` says `value` is exactly what decoding its JSON gives (plain dicts with
        string keys, lists, str, numbers, bools, None; e.g. a parsed HTTP body) and that the
        caller will not change it: it is then kept in memory as the decoded copy, so the next
        read needs no decoding. Otherwise the stored copy is decoded once on the next read.
        `text`: the JSON text `value` was decoded from (an HTTP body), stored as it is
        instead of encoding `value` again.
        """
        await self._ensure()
        now = self.clock()
        expires = None if ttl is None else now + ttl
        self._forget(key)
        if text is None:
            text = json.dumps(value, separators=(",", ":"))
        writing: tuple[float, Any, float | None, dict[Any, Any]] | None = (
            (now, value, expires, {}) if decoded else None)
        if writing is not None:
            self._writing[key] = writing
        try:
            await self.db.execute(
                "INSERT INTO espn_cache(key, value, stored_at, expires_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value, "
                "stored_at = excluded.stored_at, expires_at = excluded.expires_at",
                (key, text, now, expires),
            )
        finally:
            if writing is not None and self._writing.get(key) is writing:
                del self._writing[key]
        # a concurrent set of the same key may have landed meanwhile: its row wins, and
        # the next read sees a stored_at other than `now` and decodes that row
        derived = (self._remember(key, now, expires, value, len(text), writing[3])
                   if writing is not None else {})
        return CacheEntry(key=key, value=value, stored_at=now, expires_at=expires, now=now,
                          derived=derived)

    async def delete(self, key: str) -> None:
        """Remove one key."""
        await self._ensure()
        self._forget(key)
        self._writing.pop(key, None)
        await self.db.execute("DELETE FROM espn_cache WHERE key = ?", (key,))

    async def invalidate_prefix(self, prefix: str) -> int:
        """Remove every key starting with `prefix`; returns how many."""
        await self._ensure()
        for k in [k for k in self._memo if k.startswith(prefix)]:
            self._forget(k)
        for k in [k for k in self._writing if k.startswith(prefix)]:
            del self._writing[k]
        like = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        return await self.db.execute(
            "DELETE FROM espn_cache WHERE key LIKE ? ESCAPE '\\'", (like,))

    async def purge_expired(self, older_than: float = 7 * 86400) -> int:
        """Delete entries expired for more than `older_than` seconds (keeps stale fallbacks)."""
        await self._ensure()
        cutoff = self.clock() - older_than
        for k in [k for k, m in self._memo.items()
                  if m.expires_at is not None and m.expires_at < cutoff]:
            self._forget(k)
        return await self.db.execute(
            "DELETE FROM espn_cache WHERE expires_at IS NOT NULL AND expires_at < ?", (cutoff,))

    async def get_or_fetch(
        self,
        key: str,
        ttl: float | None,
        fetch: Callable[[], Awaitable[Any]],
        *,
        fallback_on: tuple[type[BaseException], ...] = (Exception,),
    ) -> CachedResult:
        """Fresh cached value, else `fetch()` and store; when `fetch` raises one of
        `fallback_on` and an expired copy exists, return that copy marked stale."""
        entry = await self.get_entry(key)
        if entry is not None and entry.fresh:
            return CachedResult(entry.value, stale=False, age_seconds=entry.age_seconds,
                                from_cache=True)
        try:
            value = await fetch()
        except fallback_on as exc:
            if entry is None:
                raise
            return CachedResult(entry.value, stale=True, age_seconds=entry.age_seconds,
                                from_cache=True, error=str(exc))
        await self.set(key, value, ttl)
        return CachedResult(value)


__all__ = [
    "FOREVER", "TTL_FREE_AGENTS", "TTL_MATCHUPS", "TTL_PLAYER_STATUS", "TTL_ROSTERS",
    "RECHECK_AFTER", "TTL_SCHEDULE", "CacheEntry", "CachedResult", "TTLCache",
]
