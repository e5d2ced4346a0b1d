"""Async ESPN fantasy-basketball (fba) read client.

One `httpx.AsyncClient`; cookies espn_s2/SWID only when both are given, sent as a
per-request header and only to ESPN's own hosts (the base URL's origin and https
`*.espn.com`); redirects are followed by hand, and one to another host or to a sign-in page
is treated as expired credentials (`EspnAccessDenied`), never followed. Retries with
exponential backoff and jitter on 429/5xx/timeouts/connection errors (Retry-After is
honoured as sent); typed errors (`fantasy.espn.errors`) whose messages never contain cookies.

Caching (optional): pass any object with `get_entry(key)`, `set(key, value, ttl)` and
`invalidate_prefix(prefix)` (e.g. `storage.cache.TTLCache`). Raw JSON responses are
cached per request under `"{cache_namespace}:{kind}:{hash}"` (kinds that never change with
league state use `static_namespace` when set: the demo league's pro schedule and player
universe survive its moves). When ESPN fails and an expired copy exists, the copy is used
("stale-while-error"). How fresh the last answer was is in `client.last_fetch_info` (a
`FetchInfo`: source "network" | "cache" | "stale", age_seconds, error), set by every public
method (the stalest of its requests).

Parsed objects: when the cache's entries carry a `derived` dict (TTLCache does), the parsed
League, ProSchedule, box scores and player lists are kept there, so a hit returns the same
objects without decoding or parsing while the cache row is unchanged. Every parsed object is
read-only (`fantasy.espn.readonly.freeze`), cached or not: callers share them and must copy
to change one. Lists returned by the player methods are fresh lists of shared players.

After a change (a new cache row), players whose JSON is unchanged keep their parsed, frozen
objects (`parse.PlayerMemo`): a league snapshot after one move shares them with the one
before, so only what the move changed is parsed and frozen again.

Single flight: concurrent misses of one key in one client make one ESPN request; the others
wait for its outcome (value, stale copy or error).

A turn's wait is bounded: inside `with espn_turn():` (the chat core opens one per message
and command) a client with `turn_wait` set spends at most that many seconds waiting on ESPN
over all of the turn's requests, retries and single-flight waits included. When the bound
runs out a request fails with `EspnTimeout`, so the turn answers from the cache (a stale
copy, with its age) or says ESPN is not answering; later requests of that turn do not wait
at all.

The demo league uses this same class with `transport=DemoTransport(...)`.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import hashlib
import http.cookiejar
import json
import logging
import random
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol
from urllib.parse import urlsplit

import httpx

from fantasy.constants import ESPN_READS_BASE_URL
from fantasy.espn import parse
from fantasy.espn.circuit import CircuitBreaker, EspnCircuitOpen
from fantasy.espn.errors import (
    EspnAccessDenied,
    EspnConnectionError,
    EspnError,
    EspnMalformedResponse,
    EspnNotFound,
    EspnRateLimited,
    EspnServerError,
    EspnTimeout,
)
from fantasy.espn.readonly import freeze
from fantasy.models import ActivityItem, League, Matchup, Player, ProSchedule
from fantasy.redact import register_secret
from fantasy.schedule import ScoringCalendar, today_eastern

log = logging.getLogger(__name__)

LEAGUE_VIEWS: tuple[str, ...] = ("mTeam", "mRoster", "mMatchup", "mSettings", "mStandings")
BOX_SCORE_VIEWS: tuple[str, ...] = ("mMatchupScore", "mScoreboard")
ACTIVITY_MESSAGE_TYPES: list[int] = [178, 180, 179, 239, 181, 244, 188]


class ResponseCache(Protocol):
    """What the client needs from a cache (storage.cache.TTLCache implements it)."""

    async def get_entry(self, key: str) -> Any | None: ...  # .value .fresh .age_seconds

    async def set(self, key: str, value: Any, ttl: float | None, *,
                  decoded: bool = False) -> Any: ...  # the stored entry (.derived)
    # a cache whose `keeps_text` is true also takes `text=` (the JSON `value` was decoded
    # from, stored as it is): TTLCache

    async def invalidate_prefix(self, prefix: str) -> int: ...


@dataclass(frozen=True)
class CachePolicy:
    """TTLs in seconds per kind of request (None = forever)."""

    league: float | None = 45.0
    box_scores: float | None = 45.0
    final_box_scores: float | None = None
    free_agents: float | None = 300.0
    player_cards: float | None = 900.0
    schedule: float | None = 3600.0
    players: float | None = 3600.0
    activity: float | None = 45.0


@dataclass(frozen=True)
class FetchInfo:
    """Where the last answer came from. `stale` answers carry the ESPN error message."""

    source: str = "network"  # "network" | "cache" | "stale"
    age_seconds: float = 0.0
    error: str | None = None
    kinds: tuple[str, ...] = field(default_factory=tuple)
    #: When the data was fetched from ESPN (epoch seconds, the cache's clock); None = now.
    stored_at: float | None = None

    @property
    def stale(self) -> bool:
        """True when an expired cached copy was served because ESPN failed."""
        return self.source == "stale"


#: How many request keys `EspnClient._key` remembers (then it starts again).
_KEYS_KEPT = 512
#: How many parsed objects `EspnClient._first_naming` remembers.
_NAMED_KEPT = 8

#: Request kinds whose responses never change with league state (see `static_namespace`).
STATIC_KINDS: frozenset[str] = frozenset({"schedule", "players"})


@dataclass(frozen=True)
class _Body:
    """A decoded JSON response body and its text (None when it was not UTF-8 text)."""

    data: Any
    text: str | None = None


@dataclass(frozen=True)
class _Response:
    """Decoded JSON of one request, its freshness, and the cache row's `derived` dict
    (None when there is no cache row to keep parsed objects next to)."""

    data: Any
    info: FetchInfo
    derived: dict[Any, Any] | None = None


#: Errors after which a stale cached copy may be served (not NotFound: that is final).
_STALE_OK = (EspnRateLimited, EspnServerError, EspnTimeout, EspnConnectionError,
             EspnMalformedResponse, EspnAccessDenied, EspnCircuitOpen)

_RANK = {"network": 0, "cache": 1, "stale": 2}

#: Redirect hops followed (within ESPN) before giving up.
MAX_REDIRECTS = 5
#: Hosts that may receive the ESPN cookies (besides the configured base URL's origin).
ESPN_COOKIE_DOMAIN = "espn.com"


def _decode(resp: httpx.Response) -> _Body:
    """A 200 response's JSON body: decoded from its UTF-8 text, kept with it (what a cache
    stores); a body that is not UTF-8 is decoded as httpx does, without its text."""
    try:
        text = resp.content.decode("utf-8")
    except UnicodeDecodeError:
        return _Body(resp.json())
    try:
        return _Body(json.loads(text), text)
    except json.JSONDecodeError:
        return _Body(resp.json())  # e.g. a byte-order mark: httpx's own decoding decides


def _no_cookie_jar() -> http.cookiejar.CookieJar:
    """A jar that accepts and returns nothing: cookies never persist across requests."""
    return http.cookiejar.CookieJar(policy=http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))


def _is_sign_in(url: httpx.URL) -> bool:
    path = url.path.lower()
    return any(w in path for w in ("login", "signin", "sign-in", "/auth", "oneid"))

#: Fetches of the public call running in the current task (ContextVar, so concurrent
#: calls in different tasks never mix their freshness info).
_CALL_INFOS: contextvars.ContextVar[list[tuple[str, FetchInfo]] | None] = contextvars.ContextVar(
    "espn_call_infos", default=None)


#: Event-loop time at which the current turn started waiting on ESPN (None: not in a turn).
_TURN_START: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "espn_turn_start", default=None)


@contextlib.contextmanager
def espn_turn() -> Iterator[None]:
    """Mark one user turn (call inside a running event loop): every client with a
    `turn_wait` bounds the turn's total wait on ESPN from here. A nested turn keeps the
    outer one's start; tasks started inside inherit it."""
    if _TURN_START.get() is not None:
        yield
        return
    token = _TURN_START.set(asyncio.get_running_loop().time())
    try:
        yield
    finally:
        _TURN_START.reset(token)


class EspnClient:
    """Read-only async client for one ESPN fba league and season."""

    def __init__(
        self,
        league_id: int,
        season: int,
        *,
        espn_s2: str | None = None,
        swid: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        cache: ResponseCache | None = None,
        timeout: float = 10.0,
        max_retries: int = 3,
        backoff: float = 0.5,
        retry_jitter: float = 0.5,
        rng: Callable[[], float] = random.random,
        base_url: str = ESPN_READS_BASE_URL,
        cache_policy: CachePolicy | None = None,
        cache_namespace: str | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        today: Callable[[], date] = today_eastern,
        circuit: CircuitBreaker | None = None,
        turn_wait: float | None = None,
    ) -> None:
        #: Seconds one turn (`espn_turn`) may wait on ESPN in all; None: no bound.
        self.turn_wait = None if turn_wait is None else max(0.0, float(turn_wait))
        #: Fails fast after repeated ESPN failures (fantasy.espn.circuit); one per client.
        self.circuit = circuit or CircuitBreaker()
        self.league_id = int(league_id)
        self.season = int(season)
        self._authenticated = bool(espn_s2 and swid)
        # Sent per request, only to ESPN's own hosts (`_cookie_ok`); never in a client jar.
        self._cookie_header = f"espn_s2={espn_s2}; SWID={swid}" if self._authenticated else ""
        register_secret(espn_s2)  # masked by fantasy.redact in errors, logs and chat
        register_secret(swid)
        if not base_url.endswith("/"):
            base_url += "/"
        self.base_url = base_url
        self._http = httpx.AsyncClient(
            base_url=base_url,
            transport=transport,
            timeout=timeout,
            cookies=_no_cookie_jar(),
            headers={"Accept": "application/json", "User-Agent": "fanvise/0.1"},
            follow_redirects=False,  # followed by hand in `_fetch`, cookies per hop
        )
        self._base_origin = (self._http.base_url.scheme, self._http.base_url.netloc)
        self.cache = cache
        self.cache_policy = cache_policy or CachePolicy()
        host = urlsplit(base_url).netloc or "espn"
        self.cache_namespace = cache_namespace or f"espn:{host}:{self.league_id}:{self.season}"
        #: Namespace of STATIC_KINDS when they must outlive `cache_namespace` (the demo league
        #: starts a new namespace per move); None = `cache_namespace`.
        self.static_namespace: str | None = None
        self.max_retries = max(0, int(max_retries))
        self.backoff = float(backoff)
        #: Each backoff delay is shortened by a random part of up to this fraction ("equal
        #: jitter"), so clients that failed together do not retry in lockstep.
        self.retry_jitter = min(1.0, max(0.0, float(retry_jitter)))
        self._rng = rng
        self._inflight: dict[str, asyncio.Task[_Response]] = {}
        #: Seconds one request may take; callers that must not wait on ESPN for long (start-up)
        #: bound their whole read with it (retries included).
        self.timeout = float(timeout)
        self._sleep = sleep
        self._today = today
        self.last_fetch_info: FetchInfo | None = None
        self._calendar: ScoringCalendar | None = None
        self._status: dict[str, Any] = {}
        #: the league's date as of the last league read (`league_today`)
        self._league_today: date | None = None
        self._player_names: dict[int, str] = {}
        #: Parsed objects whose player names are in `_player_names` already (by identity;
        #: a cached parse is handed out again and again while its row is unchanged).
        self._named: list[Any] = []
        #: Cache keys of requests made so far (see `_key`).
        self._keys: dict[tuple[str, str, str | None, str], str] = {}
        #: Parsed players of earlier responses, shared by the next parse while their JSON is
        #: unchanged (a league after one move re-parses only the changed rosters' players).
        self._player_memo = parse.PlayerMemo()
        #: The DemoLeague handle when this client serves the demo league (else None).
        self.demo: Any = None

    def __repr__(self) -> str:
        return (f"EspnClient(league_id={self.league_id}, season={self.season}, "
                f"authenticated={self._authenticated}, base_url={self.base_url!r})")

    @property
    def authenticated(self) -> bool:
        """True when espn_s2 and SWID cookies are configured (values are never exposed)."""
        return self._authenticated

    async def aclose(self) -> None:
        """Stop the fetches still running and close the HTTP client."""
        pending = [t for t in self._inflight.values() if not t.done()]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        await self._http.aclose()

    async def __aenter__(self) -> EspnClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # ------------------------------------------------------------------ paths

    @property
    def league_path(self) -> str:
        """Relative URL of the league resource."""
        return f"seasons/{self.season}/segments/0/leagues/{self.league_id}"

    @property
    def season_path(self) -> str:
        """Relative URL of the season resource."""
        return f"seasons/{self.season}"

    # ------------------------------------------------------------------ HTTP

    def _wait_left(self) -> float | None:
        """Seconds the current turn may still wait on ESPN (None: unbounded)."""
        start = _TURN_START.get()
        if self.turn_wait is None or start is None:
            return None
        return start + self.turn_wait - asyncio.get_running_loop().time()

    def _out_of_wait(self, view: str) -> EspnTimeout:
        return EspnTimeout(f"ESPN did not answer within {self.turn_wait:g} s ({view})",
                           view=view)

    async def _bounded(self, make: Callable[[], Awaitable[Any]], view: str) -> Any:
        """`await make()` within what is left of the turn's wait (EspnTimeout after it;
        not started at all once the turn has waited its bound)."""
        left = self._wait_left()
        if left is None:
            return await make()
        if left <= 0:
            raise self._out_of_wait(view)
        try:
            async with asyncio.timeout(left):
                return await make()
        except TimeoutError:
            raise self._out_of_wait(view) from None

    async def _request(self, path: str, params: Sequence[tuple[str, Any]],
                       fantasy_filter: dict[str, Any] | None, view: str) -> _Body:
        self.circuit.before_request(view)  # raises EspnCircuitOpen while open
        try:
            data = await self._send(path, params, fantasy_filter, view)
        except EspnError as exc:
            self.circuit.record_failure(exc)
            raise
        except BaseException:
            self.circuit.release_probe()
            raise
        self.circuit.record_success()
        return data

    async def _send(self, path: str, params: Sequence[tuple[str, Any]],
                    fantasy_filter: dict[str, Any] | None, view: str) -> _Body:
        headers = {}
        if fantasy_filter is not None:
            headers["x-fantasy-filter"] = json.dumps(fantasy_filter, separators=(",", ":"))
        last: EspnError | None = None
        for attempt in range(self.max_retries + 1):
            delay = self.backoff * (2 ** attempt) * (1.0 - self.retry_jitter * self._rng())
            try:
                resp = await self._fetch(path, params, headers, view)
            except httpx.TimeoutException:
                last = EspnTimeout(f"ESPN did not answer in time ({view})", view=view)
            except httpx.TransportError as exc:
                last = EspnConnectionError(
                    f"could not reach ESPN ({view}): {type(exc).__name__}", view=view)
            else:
                status = resp.status_code
                if status == 200:
                    try:
                        return _decode(resp)
                    except (json.JSONDecodeError, UnicodeDecodeError, ValueError):
                        raise EspnMalformedResponse(
                            f"ESPN sent a malformed (non-JSON) response for view {view}",
                            status=status, view=view) from None
                if status in (401, 403):
                    hint = "" if self._authenticated else " (no espn_s2/SWID cookies given)"
                    raise EspnAccessDenied(
                        f"ESPN denied access (HTTP {status}): league is private or cookies "
                        f"expired{hint}", status=status, view=view)
                if status == 404:
                    raise EspnNotFound(
                        f"ESPN says no such league/season (league {self.league_id}, "
                        f"season {self.season})", status=status, view=view)
                if status == 429:
                    last = EspnRateLimited(f"ESPN rate limit hit (HTTP 429, {view})",
                                           status=status, view=view)
                    retry_after = resp.headers.get("Retry-After", "")
                    if retry_after.isascii() and retry_after.replace(".", "", 1).isdigit():
                        delay = min(float(retry_after), 30.0)
                elif status >= 500:
                    last = EspnServerError(f"ESPN server error (HTTP {status}, {view})",
                                           status=status, view=view)
                else:
                    raise EspnServerError(f"unexpected HTTP {status} from ESPN ({view})",
                                          status=status, view=view)
            if attempt < self.max_retries:
                log.debug("ESPN %s failed (%s); retry %d in %.2fs", view, last, attempt + 1, delay)
                await self._sleep(delay)
        assert last is not None
        raise last

    def _cookie_ok(self, url: httpx.URL) -> bool:
        """May this URL receive the ESPN cookies? The base URL's origin, or https ESPN."""
        if (url.scheme, url.netloc) == self._base_origin:
            return True
        host = (url.host or "").lower()
        return url.scheme == "https" and (
            host == ESPN_COOKIE_DOMAIN or host.endswith("." + ESPN_COOKIE_DOMAIN))

    async def _fetch(self, path: str, params: Sequence[tuple[str, Any]],
                     headers: dict[str, str], view: str) -> httpx.Response:
        """GET with cookies only for ESPN's hosts, following redirects within ESPN only."""
        url = self._http.build_request("GET", path, params=list(params)).url
        for _ in range(MAX_REDIRECTS + 1):
            hop = dict(headers)
            if self._cookie_header and self._cookie_ok(url):
                hop["Cookie"] = self._cookie_header
            resp = await self._http.get(url, headers=hop)
            if not resp.is_redirect:
                return resp
            await resp.aclose()
            target = url.join(resp.headers.get("Location", ""))
            if not self._cookie_ok(target) or _is_sign_in(target):
                hint = "" if self._authenticated else " (no espn_s2/SWID cookies given)"
                raise EspnAccessDenied(
                    f"ESPN redirected to a sign-in page or another site (HTTP "
                    f"{resp.status_code}): league is private or cookies expired{hint}",
                    status=resp.status_code, view=view)
            url = target
        raise EspnServerError(f"ESPN redirected too many times ({view})", view=view)

    def _key(self, kind: str, path: str, params: Sequence[tuple[str, Any]],
             fantasy_filter: dict[str, Any] | None) -> str:
        # a turn asks for the same few requests again and again: their keys are remembered
        # by the request as written (repr is cheap; sorted JSON and SHA-1 are not) and the
        # namespaces (the demo league moves to a new one after each change)
        seen = (kind, self.cache_namespace, self.static_namespace,
                repr((path, params, fantasy_filter)))
        hit = self._keys.get(seen)
        if hit is not None:
            return hit
        raw = json.dumps([path, [list(p) for p in params], fantasy_filter], sort_keys=True,
                         default=str)
        namespace = self.cache_namespace
        if kind in STATIC_KINDS and self.static_namespace:
            namespace = self.static_namespace
        key = f"{namespace}:{kind}:{hashlib.sha1(raw.encode()).hexdigest()[:20]}"
        if len(self._keys) >= _KEYS_KEPT:
            self._keys.clear()
        self._keys[seen] = key
        return key

    async def _get(self, kind: str, path: str, params: Sequence[tuple[str, Any]],
                   fantasy_filter: dict[str, Any] | None, ttl: float | None) -> _Response:
        view = ",".join(v for k, v in params if k == "view") or kind
        if self.cache is None:
            body = await self._bounded(
                lambda: self._request(path, params, fantasy_filter, view), view)
            resp = _Response(body.data, FetchInfo("network"))
        else:
            key = self._key(kind, path, params, fantasy_filter)
            entry = await self.cache.get_entry(key)
            if entry is not None and entry.fresh:
                resp = _Response(entry.value, FetchInfo(
                    "cache", entry.age_seconds, stored_at=getattr(entry, "stored_at", None)),
                    getattr(entry, "derived", None))
            else:
                try:
                    resp = await self._single_flight(key, lambda: self._refresh(
                        key, entry, path, params, fantasy_filter, view, ttl), view=view)
                except _STALE_OK as exc:  # waited out another caller's request
                    if entry is None:
                        raise
                    resp = self._stale(entry, exc, view)
        self._record(kind, resp.info)
        return resp

    async def _single_flight(self, key: str, fetch: Callable[[], Awaitable[_Response]], *,
                             view: str = "") -> _Response:
        """`fetch()` once for concurrent callers of one key; they all share its outcome.
        The fetch runs as its own task, outside any turn: a caller that stops waiting (its
        turn's bound ran out, or it was cancelled) leaves it running, so its answer still
        fills the cache for the next turn and the callers still waiting."""
        while True:
            pending = self._inflight.get(key)
            if pending is None:
                pending = self._start_fetch(key, fetch)
            try:
                return await self._bounded(functools.partial(asyncio.shield, pending),
                                           view or key)
            except asyncio.CancelledError:
                if not pending.cancelled():
                    raise  # this caller was cancelled, not the fetch (closed client)

    def _start_fetch(self, key: str,
                     fetch: Callable[[], Awaitable[_Response]]) -> asyncio.Task[_Response]:
        context = contextvars.copy_context()
        context.run(_TURN_START.set, None)  # the fetch itself is not bounded by a turn
        task: asyncio.Task[_Response] = asyncio.get_running_loop().create_task(
            fetch(), context=context)  # type: ignore[arg-type]

        def done(t: asyncio.Task[_Response]) -> None:
            if not t.cancelled():
                t.exception()  # nobody may wait: a failure is retrieved, not logged
            if self._inflight.get(key) is t:
                del self._inflight[key]

        task.add_done_callback(done)
        self._inflight[key] = task
        return task

    async def _refresh(self, key: str, entry: Any, path: str,
                       params: Sequence[tuple[str, Any]], fantasy_filter: dict[str, Any] | None,
                       view: str, ttl: float | None) -> _Response:
        """Fetch from ESPN and store; on a failure, the expired `entry` (stale) if any."""
        assert self.cache is not None
        try:
            body = await self._request(path, params, fantasy_filter, view)
        except _STALE_OK as exc:
            if entry is None:
                raise
            return self._stale(entry, exc, view)
        decoded = bool(getattr(self.cache, "keeps_decoded", False))
        if body.text is not None and getattr(self.cache, "keeps_text", False):
            # the body's own text is stored: encoding the decoded body again costs as much
            # as decoding it (a league is about a megabyte)
            stored = await self.cache.set(key, body.data, ttl, decoded=decoded,
                                          text=body.text)  # type: ignore[call-arg]
        else:
            stored = await self.cache.set(key, body.data, ttl, decoded=decoded)
        return _Response(body.data, FetchInfo("network"), getattr(stored, "derived", None))

    @staticmethod
    def _stale(entry: Any, exc: Exception, view: str) -> _Response:
        """The expired cache `entry` served because ESPN failed with `exc`."""
        log.warning("ESPN %s failed (%s); serving cached copy %.0fs old", view, exc,
                    entry.age_seconds)
        return _Response(entry.value, FetchInfo(
            "stale", entry.age_seconds, str(exc), stored_at=getattr(entry, "stored_at", None)),
            getattr(entry, "derived", None))

    def _parsed(self, resp: _Response, slot: Any, view: str, fn: Callable[[], Any]) -> Any:
        """The read-only result of `fn()` (a parse of `resp.data`), built once per cache
        row and `slot` (what else the parse depends on) when the row can keep it."""
        derived = resp.derived
        if derived is not None:
            hit = derived.get(slot)
            if hit is not None:
                return hit
        obj = freeze(self._parse(view, fn))
        if derived is not None:
            derived[slot] = obj
        return obj

    def _first_naming(self, parsed: Any) -> bool:
        """True the first time (of late) a parsed league / player list is seen: its player
        names then go to `_player_names` (the names of activity items). Seen objects are kept
        by identity, so a new parse (a new cache row) is always named."""
        if any(o is parsed for o in self._named):
            return False
        self._named.append(parsed)
        del self._named[:-_NAMED_KEPT]
        return True

    def _record(self, kind: str, info: FetchInfo) -> None:
        infos = _CALL_INFOS.get()
        if infos is not None:
            infos.append((kind, info))

    def _begin(self) -> contextvars.Token[list[tuple[str, FetchInfo]] | None]:
        return _CALL_INFOS.set([])

    def _finish(self, token: contextvars.Token[list[tuple[str, FetchInfo]] | None]) -> None:
        infos = _CALL_INFOS.get() or []
        _CALL_INFOS.reset(token)
        if not infos:
            return
        worst = max((i for _, i in infos), key=lambda i: (_RANK[i.source], i.age_seconds))
        self.last_fetch_info = FetchInfo(worst.source, worst.age_seconds, worst.error,
                                         tuple(k for k, _ in infos), worst.stored_at)

    async def invalidate_cache(self) -> int:
        """Drop every cached response of this client's namespaces."""
        if self.cache is None:
            return 0
        dropped = await self.cache.invalidate_prefix(self.cache_namespace + ":")
        if self.static_namespace:
            dropped += await self.cache.invalidate_prefix(self.static_namespace + ":")
        return dropped

    def _parse(self, view: str, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except EspnError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise EspnMalformedResponse(
                f"unexpected ESPN response shape for view {view} ({type(exc).__name__}: {exc})",
                view=view) from None

    # ------------------------------------------------------------------ public API

    async def get_pro_schedule(self) -> ProSchedule:
        """NBA schedule of the season (`proTeamSchedules_wl`), cached 1 h."""
        token = self._begin()
        try:
            return await self._pro_schedule()
        finally:
            self._finish(token)

    async def _pro_schedule(self) -> ProSchedule:
        resp = await self._get("schedule", self.season_path, [("view", "proTeamSchedules_wl")],
                               None, self.cache_policy.schedule)
        sched: ProSchedule = self._parsed(resp, "schedule", "proTeamSchedules_wl",
                                          lambda: parse.parse_pro_schedule(resp.data, self.season))
        self._calendar = sched.calendar
        return sched

    async def calendar(self) -> ScoringCalendar:
        """The SP <-> date calendar (from the pro schedule; fetched once per client)."""
        if self._calendar is None:
            await self._pro_schedule()
        assert self._calendar is not None
        return self._calendar

    def league_today(self) -> date:
        """The league's "today": the one clock of chat, the commands and the doctor. The
        demo league's own date; for a live league the date of ESPN's current scoring period
        as of the last league read (US/Eastern today before the first one), so every answer
        reads the day the league itself is on."""
        if self.demo is not None:
            return self.demo.today
        return self._league_today or self._today()

    async def get_league(self) -> League:
        """League settings, teams, rosters, standings and all matchups (cached 45 s)."""
        token = self._begin()
        try:
            resp = await self._get("league", self.league_path,
                                   [("view", v) for v in LEAGUE_VIEWS], None,
                                   self.cache_policy.league)
            try:
                cal: ScoringCalendar | None = await self.calendar()
            except EspnError as exc:
                log.warning("pro schedule unavailable (%s); deriving calendar from today", exc)
                cal = None
            today = None if cal else self._today()
            league: League = self._parsed(
                resp, ("league", cal, today), ",".join(LEAGUE_VIEWS),
                lambda: parse.parse_league(resp.data, league_id=self.league_id,
                                           season=self.season, calendar=cal, today=today,
                                           memo=self._player_memo))
            self._league_today = league.today
            self._status = {"scoring_period": league.current_scoring_period,
                            "matchup_period": league.current_matchup_period,
                            "final_scoring_period": league.settings.final_scoring_period}
            if self._first_naming(league):
                self._player_names.update({e.player.id: e.player.name
                                           for t in league.teams for e in t.roster})
            return league
        finally:
            self._finish(token)

    async def get_box_scores(self, matchup_period: int, scoring_period: int) -> list[Matchup]:
        """Box scores of a matchup period as of a scoring period (lineups of that day).

        Cached 45 s, or forever once the period is known to be over.
        """
        token = self._begin()
        try:
            flt = {"schedule": {"filterMatchupPeriodIds": {"value": [matchup_period]}}}
            params = [("view", v) for v in BOX_SCORE_VIEWS] + [("scoringPeriodId", scoring_period)]
            cur_mp = self._status.get("matchup_period")
            final = cur_mp is not None and matchup_period < cur_mp
            ttl = self.cache_policy.final_box_scores if final else self.cache_policy.box_scores
            resp = await self._get("box", self.league_path, params, flt, ttl)
            cal = await self._calendar_or_none()
            return list(self._parsed(
                resp, ("box", cal, matchup_period), ",".join(BOX_SCORE_VIEWS),
                lambda: parse.parse_box_scores(resp.data, self.season, cal, matchup_period)))
        finally:
            self._finish(token)

    async def _calendar_or_none(self) -> ScoringCalendar | None:
        try:
            return await self.calendar()
        except EspnError:
            return None

    async def get_free_agents(
        self,
        *,
        slot: int | None = None,
        size: int = 50,
        statuses: Iterable[str] = ("FREEAGENT", "WAIVERS"),
        scoring_period: int | None = None,
    ) -> list[Player]:
        """Free agents / waiver players (`kona_player_info`), most-owned first (cached 5 min)."""
        token = self._begin()
        try:
            flt = {"players": {
                "filterStatus": {"value": list(statuses)},
                "filterSlotIds": {"value": [slot] if slot is not None else []},
                "limit": int(size),
                "sortPercOwned": {"sortPriority": 1, "sortAsc": False},
                "sortDraftRanks": {"sortPriority": 100, "sortAsc": True, "value": "STANDARD"},
            }}
            params: list[tuple[str, Any]] = [("view", "kona_player_info")]
            sp = scoring_period or self._status.get("scoring_period")
            if sp:
                params.append(("scoringPeriodId", sp))
            resp = await self._get("free_agents", self.league_path, params, flt,
                                   self.cache_policy.free_agents)
            cal = await self._calendar_or_none()

            def most_owned_first() -> list[Player]:
                found = parse.parse_players_response(resp.data, self.season, cal,
                                                     self._player_memo, "free_agents")
                found.sort(key=lambda p: p.percent_owned, reverse=True)
                return found

            players: list[Player] = self._parsed(resp, ("free_agents", cal), "kona_player_info",
                                                 most_owned_first)
            if self._first_naming(players):
                self._player_names.update({p.id: p.name for p in players})
            return players[:size]
        finally:
            self._finish(token)

    async def get_player_cards(self, ids: Iterable[int]) -> list[Player]:
        """Player cards (`kona_playercard`): injury status and per-game logs (cached 15 min)."""
        token = self._begin()
        try:
            wanted = sorted({int(i) for i in ids})
            if not wanted:
                return []
            final_sp = self._status.get("final_scoring_period") or 200
            flt = {"players": {
                "filterIds": {"value": wanted},
                "filterStatsForTopScoringPeriodIds": {
                    "value": final_sp,
                    "additionalValue": [f"00{self.season}", f"10{self.season}"],
                },
            }}
            resp = await self._get("cards", self.league_path, [("view", "kona_playercard")], flt,
                                   self.cache_policy.player_cards)
            cal = await self._calendar_or_none()
            players: list[Player] = self._parsed(
                resp, ("cards", cal), "kona_playercard",
                lambda: parse.parse_players_response(resp.data, self.season, cal,
                                                     self._player_memo, "cards"))
            if self._first_naming(players):
                self._player_names.update({p.id: p.name for p in players})
            return list(players)
        finally:
            self._finish(token)

    async def get_all_players(self) -> list[Player]:
        """Every active NBA player of the season (`players_wl`; no stats), cached 1 h."""
        token = self._begin()
        try:
            resp = await self._get("players", f"{self.season_path}/players",
                                   [("view", "players_wl")], {"filterActive": {"value": True}},
                                   self.cache_policy.players)
            return list(self._parsed(resp, "players", "players_wl",
                                     lambda: parse.parse_player_list(resp.data, self.season)))
        finally:
            self._finish(token)

    def writer(self, team_id: int, **kwargs: Any) -> Any:
        """The write path of this client's league acting for `team_id`: an
        `fantasy.espn.writes.EspnWriter` (the demo's endpoint, or ESPN's write host with the
        team owner's `credentials=`); see `fantasy.espn.writes.writer_for`."""
        from fantasy.espn.writes import writer_for
        return writer_for(self, team_id=team_id, **kwargs)

    async def get_recent_activity(self, limit: int = 25) -> list[ActivityItem]:
        """Recent adds/drops/trades (`kona_league_communication`), newest first."""
        token = self._begin()
        try:
            flt = {"topics": {
                "filterType": {"value": ["ACTIVITY_TRANSACTIONS"]},
                "limit": int(limit),
                "limitPerMessageSet": {"value": int(limit)},
                "offset": 0,
                "sortMessageDate": {"sortPriority": 1, "sortAsc": False},
                "sortFor": {"sortPriority": 2, "sortAsc": False},
                "filterIncludeMessageTypeIds": {"value": ACTIVITY_MESSAGE_TYPES},
            }}
            resp = await self._get("activity", f"{self.league_path}/communication/",
                                   [("view", "kona_league_communication")], flt,
                                   self.cache_policy.activity)
            # names come from what this client has seen so far: parsed per call, not cached
            items = freeze(self._parse("kona_league_communication",
                                       lambda: parse.parse_activity(resp.data,
                                                                    self._player_names)))
            return list(items[:limit])
        finally:
            self._finish(token)


__all__ = ["CachePolicy", "EspnClient", "FetchInfo", "ResponseCache"]
