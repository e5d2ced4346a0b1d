"""ESPN faults through the real EspnClient against a 127.0.0.1 server: retries, circuit
breaker (fail fast, half-open probe), stale cache with its age, typed clear messages,
and no cookie in any message or log line even when the server echoes it."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Iterator

import pytest

from fantasy.espn import (
    EspnAccessDenied,
    EspnClient,
    EspnConnectionError,
    EspnError,
    EspnMalformedResponse,
    EspnRateLimited,
    EspnServerError,
    EspnTimeout,
)
from fantasy.espn.circuit import CLOSED, HALF_OPEN, OPEN, CircuitBreaker, EspnCircuitOpen
from storage.cache import TTLCache
from storage.db import Database
from tests.reliability.fake_espn import BRUNSON, ESPN_S2, SWID, FakeEspn

FAULTS: list[tuple[str | int, type[EspnError], str]] = [
    (401, EspnAccessDenied, "cookies expired"),
    (403, EspnAccessDenied, "league is private"),
    (429, EspnRateLimited, "rate limit"),
    (500, EspnServerError, "HTTP 500"),
    (503, EspnServerError, "HTTP 503"),
    ("timeout", EspnTimeout, "did not answer in time"),
    ("garbage", EspnMalformedResponse, "malformed"),
    ("reset", EspnConnectionError, "could not reach ESPN"),
]


class Clock:
    def __init__(self, t: float = 1_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def espn() -> Iterator[FakeEspn]:
    with FakeEspn() as fake:
        yield fake


@pytest.fixture
async def cache(tmp_path) -> AsyncIterator[tuple[TTLCache, Clock]]:
    db = await Database.open(tmp_path / "fanvise.sqlite")
    clock = Clock()
    try:
        yield TTLCache(db, clock=clock), clock
    finally:
        await db.close()


def client_for(fake: FakeEspn, *, cache=None, breaker: CircuitBreaker | None = None,
               timeout: float = 2.0) -> EspnClient:
    async def no_sleep(_: float) -> None:
        return None

    return EspnClient(1234, 2023, espn_s2=ESPN_S2, swid=SWID, base_url=fake.base_url,
                      cache=cache, circuit=breaker, max_retries=1, backoff=0.0,
                      sleep=no_sleep, timeout=timeout)


def assert_clean(text: str) -> None:
    assert ESPN_S2 not in text and SWID not in text
    assert SWID.strip("{}") not in text and ESPN_S2[:30] not in text


@pytest.mark.parametrize(("mode", "etype", "phrase"), FAULTS, ids=[str(f[0]) for f in FAULTS])
async def test_fault_stale_cache_then_circuit_then_recovery(espn, cache, caplog, mode, etype,
                                                            phrase) -> None:
    caplog.set_level(logging.DEBUG)
    ttl_cache, cache_clock = cache
    espn.delay = 0.6
    breaker_clock = Clock()
    breaker = CircuitBreaker(failure_threshold=3, cooldown=30.0, clock=breaker_clock)
    client = client_for(espn, cache=ttl_cache, breaker=breaker, timeout=0.3)
    try:
        (fresh,) = await client.get_player_cards([BRUNSON])
        assert fresh.name == "Jalen Brunson" and client.last_fetch_info.source == "network"
        assert any(ESPN_S2 in c and SWID in c for c in espn.cookies)  # cookies were sent

        cache_clock.t += 4000  # every cached entry is now expired
        espn.mode = mode
        attempts = 1 if mode in (401, 403, "garbage") else 2  # auth/garbage: no retry
        for i in range(3):  # each call: its attempts, then the stale copy
            hits = espn.hits
            (p,) = await client.get_player_cards([BRUNSON])
            assert p.name == "Jalen Brunson"
            info = client.last_fetch_info
            assert info.stale and info.age_seconds == pytest.approx(4000)
            assert phrase in info.error and espn.hits - hits == attempts
            assert_clean(info.error)
            assert breaker.status().consecutive_failures == i + 1
        assert breaker.state == OPEN

        hits = espn.hits
        (p,) = await client.get_player_cards([BRUNSON])  # fail fast: ESPN not called
        assert espn.hits == hits and p.name == "Jalen Brunson"
        info = client.last_fetch_info
        opened = "refused access" if mode in (401, 403) else "is not responding"
        assert info.stale and f"ESPN {opened}" in info.error and "30 s" in info.error
        assert phrase in info.error  # the message names the underlying failure

        # Without a cached copy the typed circuit error surfaces.
        bare = client_for(espn, breaker=breaker)
        with pytest.raises(EspnCircuitOpen) as ei:
            await bare.get_player_cards([BRUNSON])
        assert ei.value.retry_in == pytest.approx(30.0) and espn.hits == hits
        # after 401/403s it is still an access error (callers explain expired cookies)
        assert isinstance(ei.value, EspnAccessDenied) == (mode in (401, 403))
        assert_clean(str(ei.value))
        await bare.aclose()

        # Cool-down over, ESPN back: one probe closes the circuit, answers are fresh.
        breaker_clock.t += 31
        assert breaker.state == HALF_OPEN
        espn.mode = "ok"
        (p,) = await client.get_player_cards([BRUNSON])
        assert breaker.state == CLOSED and client.last_fetch_info.source == "network"
    finally:
        await client.aclose()
    assert_clean(caplog.text)
    assert "circuit open" in caplog.text


@pytest.mark.parametrize(("mode", "etype", "phrase"), FAULTS[:5], ids=[str(f[0]) for f in FAULTS[:5]])
async def test_fault_without_cache_is_typed_and_clean(espn, mode, etype, phrase) -> None:
    espn.mode = mode
    client = client_for(espn)
    with pytest.raises(etype) as ei:
        await client.get_player_cards([BRUNSON])
    assert phrase in str(ei.value)
    assert_clean(str(ei.value) + repr(ei.value) + repr(client))
    await client.aclose()


async def test_failed_probe_reopens_for_a_full_cooldown(espn) -> None:
    clock = Clock()
    breaker = CircuitBreaker(failure_threshold=2, cooldown=10.0, clock=clock)
    client = client_for(espn, breaker=breaker)
    espn.mode = 500
    for _ in range(2):
        with pytest.raises(EspnServerError):
            await client.get_player_cards([BRUNSON])
    with pytest.raises(EspnCircuitOpen, match="in 10 s"):
        await client.get_player_cards([BRUNSON])
    clock.t += 10
    hits = espn.hits
    with pytest.raises(EspnServerError):  # the probe goes out and fails
        await client.get_player_cards([BRUNSON])
    assert espn.hits == hits + 2 and breaker.state == OPEN
    clock.t += 5
    with pytest.raises(EspnCircuitOpen, match="in 5 s"):
        await client.get_player_cards([BRUNSON])
    await client.aclose()


async def test_half_open_lets_exactly_one_probe_through(espn) -> None:
    clock = Clock()
    breaker = CircuitBreaker(failure_threshold=1, cooldown=5.0, clock=clock)
    client = client_for(espn, breaker=breaker)
    espn.mode = 503
    with pytest.raises(EspnServerError):
        await client.get_player_cards([BRUNSON])
    clock.t += 6
    espn.mode, espn.delay = "timeout", 0.3  # a slow but successful probe
    hits = espn.hits
    results = await asyncio.gather(*(client.get_player_cards([BRUNSON]) for _ in range(8)),
                                   return_exceptions=True)
    ok = [r for r in results if isinstance(r, list)]
    refused = [r for r in results if isinstance(r, EspnCircuitOpen)]
    assert len(ok) == 1 and len(refused) == 7
    assert all("try ESPN again shortly" in str(r) for r in refused)
    assert breaker.state == CLOSED
    assert espn.hits - hits == 2  # the probe's card request + the schedule (calendar)
    await client.aclose()


async def test_not_found_is_an_answer_not_an_outage(espn) -> None:
    breaker = CircuitBreaker(failure_threshold=1, cooldown=60.0)
    client = client_for(espn, breaker=breaker)
    espn.mode = 404
    for _ in range(3):
        with pytest.raises(EspnError, match="no such league"):
            await client.get_league()
    assert breaker.state == CLOSED
    await client.aclose()


async def test_cancelled_probe_does_not_wedge_the_circuit(espn) -> None:
    clock = Clock()
    breaker = CircuitBreaker(failure_threshold=1, cooldown=5.0, clock=clock)
    client = client_for(espn, breaker=breaker)
    espn.mode = 500
    with pytest.raises(EspnServerError):
        await client.get_player_cards([BRUNSON])
    clock.t += 6
    espn.mode, espn.delay = "timeout", 1.0
    task = asyncio.create_task(client.get_player_cards([BRUNSON]))
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    espn.mode = "ok"
    (p,) = await client.get_player_cards([BRUNSON])  # the next request may probe
    assert p.id == BRUNSON and breaker.state == CLOSED
    await client.aclose()


def test_breaker_validates_arguments() -> None:
    with pytest.raises(ValueError):
        CircuitBreaker(failure_threshold=0)
    with pytest.raises(ValueError):
        CircuitBreaker(cooldown=-1)


async def test_shape_error_with_echoed_cookie_does_not_leak(espn, caplog) -> None:
    """A 200 whose fields echo the cookie (proxy/captive portal) must not put it into the
    'unexpected response shape' message."""
    caplog.set_level(logging.DEBUG)
    espn.mode = "shape"
    client = client_for(espn)
    try:
        await client.get_player_cards([BRUNSON])
    except EspnError as exc:
        assert_clean(str(exc) + repr(exc))
    await client.aclose()
    assert_clean(caplog.text)


# --------------------------------------------------------------------------- what the tools say


async def test_tools_report_stale_age_and_circuit_to_the_model(cache) -> None:
    """A live league served over a real socket: during an outage the tools answer from the
    stale cache and say how old it is; with the circuit open and nothing cached they give a
    clear ESPN error naming the retry time."""
    from agents.shared.deps import AgentDeps
    from agents.shared.tool_registry import build_tools, tools_by_name
    from fantasy.demo.league import DemoLeague

    ttl_cache, cache_clock = cache
    league = DemoLeague("points")
    breaker_clock = Clock()
    with FakeEspn(league=league) as fake:
        client = EspnClient(league.league_id, league.season, espn_s2=ESPN_S2, swid=SWID,
                            base_url=fake.base_url, cache=ttl_cache, max_retries=0,
                            today=lambda: league.today,
                            circuit=CircuitBreaker(2, 30.0, clock=breaker_clock))
        deps = AgentDeps(espn=client, news=None, model=None, today=lambda: league.today,
                         my_team_id=1)
        tools = tools_by_name(build_tools(deps))
        ok = await tools["get_my_roster"].ainvoke({})
        assert "error" not in ok and ok["freshness"]["stale"] is False and ok["players"]

        cache_clock.t += 600
        fake.mode = 503
        for _ in range(3):
            deps.reset_context()
            res = await tools["get_my_roster"].ainvoke({})
            assert [p["id"] for p in res["players"]] == [p["id"] for p in ok["players"]]
            fr = res["freshness"]
            assert fr["stale"] is True and fr["age_seconds"] == pytest.approx(600, abs=1)
            assert "showing a cached copy 600s old" in fr["note"]
        assert client.circuit.state == OPEN
        assert "ESPN is not responding" in fr["note"]  # the last one never called ESPN

        deps.reset_context()
        await ttl_cache.invalidate_prefix("")  # nothing cached any more
        res = await tools["get_my_roster"].ainvoke({})
        assert res["error_type"] == "espn_error" and res["espn_error"] == "EspnCircuitOpen"
        assert "try ESPN again in 30 s" in res["error"]
        assert_clean(json.dumps(res))
        await client.aclose()


async def test_runtime_message_for_open_circuit_keeps_the_cause(espn) -> None:
    """What the user reads: expired cookies stay 'refused access ... cookies', an outage
    stays 'not answering', even when the circuit answers instead of ESPN."""
    from agents.runtime import espn_notice

    for mode, words in ((401, "cookies"), (500, "not answering")):
        espn.mode = mode
        client = client_for(espn, breaker=CircuitBreaker(1, 60.0))
        with pytest.raises(EspnError):
            await client.get_player_cards([BRUNSON])
        with pytest.raises(EspnCircuitOpen) as ei:
            await client.get_player_cards([BRUNSON])
        assert words in espn_notice(ei.value).text
        await client.aclose()
