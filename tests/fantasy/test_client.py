"""EspnClient against fakes at the wire: httpx.MockTransport and a real 127.0.0.1 server."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from fantasy.espn import (
    EspnAccessDenied,
    EspnClient,
    EspnConnectionError,
    EspnMalformedResponse,
    EspnNotFound,
    EspnRateLimited,
    EspnServerError,
    EspnTimeout,
)

DATA = Path(__file__).parents[1] / "data"
CARD = (DATA / "league_2023_playerCard.json").read_bytes()
SCHEDULE = (DATA / "league_2023_pro_schedule.json").read_bytes()
S2, SWID = "AEBsecretS2value%2Bxyz", "{SECRET-SWID-1234}"


class Recorder:
    def __init__(self, responses: list[Callable[[httpx.Request], httpx.Response]]) -> None:
        self.responses = responses
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        fn = self.responses[min(len(self.requests), len(self.responses)) - 1]
        return fn(request)


def status(code: int, **kw) -> Callable[[httpx.Request], httpx.Response]:
    return lambda req: httpx.Response(code, **kw)


def ok(body: bytes) -> Callable[[httpx.Request], httpx.Response]:
    return lambda req: httpx.Response(200, content=body)


def by_view(req: httpx.Request) -> httpx.Response:
    views = req.url.params.get_list("view")
    return httpx.Response(200, content=SCHEDULE if "proTeamSchedules_wl" in views else CARD)


def make(handler, sleeps: list[float] | None = None, **kw) -> EspnClient:
    async def fake_sleep(s: float) -> None:
        if sleeps is not None:
            sleeps.append(s)

    kw.setdefault("espn_s2", S2)
    kw.setdefault("swid", SWID)
    kw.setdefault("retry_jitter", 0.0)  # exact backoff here; jitter: test_client_cache.py
    return EspnClient(1234, 2023, transport=httpx.MockTransport(handler), sleep=fake_sleep, **kw)


def assert_no_secrets(text: str) -> None:
    assert S2 not in text and SWID not in text and "secret" not in text.lower()


@pytest.mark.parametrize("code", [401, 403])
async def test_access_denied(code: int) -> None:
    rec = Recorder([status(code)])
    client = make(rec)
    with pytest.raises(EspnAccessDenied) as ei:
        await client.get_league()
    assert "league is private or cookies expired" in str(ei.value)
    assert ei.value.status == code and len(rec.requests) == 1  # no retry on auth errors
    assert_no_secrets(str(ei.value) + repr(ei.value) + repr(client))
    await client.aclose()


async def test_not_found() -> None:
    client = make(Recorder([status(404)]))
    with pytest.raises(EspnNotFound, match="no such league/season"):
        await client.get_league()
    await client.aclose()


async def test_429_then_success_retries_with_backoff() -> None:
    sleeps: list[float] = []
    rec = Recorder([status(429), status(429), by_view])
    client = make(rec, sleeps, backoff=0.5)
    (p,) = await client.get_player_cards([3934672])
    assert p.name == "Jalen Brunson"
    assert sleeps == [0.5, 1.0]  # exponential backoff
    assert client.last_fetch_info is not None and client.last_fetch_info.source == "network"
    await client.aclose()


async def test_429_honours_retry_after_and_gives_up() -> None:
    sleeps: list[float] = []
    rec = Recorder([status(429, headers={"Retry-After": "3"})])
    client = make(rec, sleeps, max_retries=2)
    with pytest.raises(EspnRateLimited):
        await client.get_league()
    assert sleeps == [3.0, 3.0] and len(rec.requests) == 3
    await client.aclose()


async def test_500_exhausts_retries() -> None:
    sleeps: list[float] = []
    rec = Recorder([status(500)])
    client = make(rec, sleeps, max_retries=3, backoff=0.1)
    with pytest.raises(EspnServerError) as ei:
        await client.get_league()
    assert len(rec.requests) == 4 and sleeps == pytest.approx([0.1, 0.2, 0.4])
    assert ei.value.status == 500
    await client.aclose()


async def test_500_then_ok() -> None:
    rec = Recorder([status(502), by_view])
    client = make(rec)
    assert (await client.get_player_cards([3934672]))[0].id == 3934672
    await client.aclose()


async def test_timeout() -> None:
    def boom(req: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=req)

    rec = Recorder([boom])
    client = make(rec, max_retries=1)
    with pytest.raises(EspnTimeout):
        await client.get_league()
    assert len(rec.requests) == 2
    await client.aclose()


async def test_garbage_json_names_the_view() -> None:
    client = make(Recorder([ok(b"<html>oops</html>")]))
    with pytest.raises(EspnMalformedResponse, match="kona_playercard"):
        await client.get_player_cards([1])
    await client.aclose()


async def test_wrong_shape_names_the_view() -> None:
    client = make(Recorder([ok(b'{"unexpected": true}')]))
    with pytest.raises(EspnMalformedResponse, match="kona_player_info"):
        await client.get_free_agents()
    await client.aclose()


async def test_cookies_only_when_both_given() -> None:
    rec = Recorder([by_view])
    both = make(rec)
    await both.get_player_cards([3934672])
    cookie = rec.requests[0].headers.get("cookie", "")
    assert f"espn_s2={S2}" in cookie and f"SWID={SWID}" in cookie
    assert both.authenticated and "authenticated=True" in repr(both)
    assert_no_secrets(repr(both))
    await both.aclose()

    rec2 = Recorder([by_view])
    only_s2 = make(rec2, swid=None)
    await only_s2.get_player_cards([3934672])
    assert "cookie" not in rec2.requests[0].headers
    assert not only_s2.authenticated
    await only_s2.aclose()


async def test_request_shapes() -> None:
    rec = Recorder([ok(b'{"players": []}')])
    client = make(rec)
    assert await client.get_free_agents(slot=0, size=30) == []
    req = rec.requests[0]
    assert req.url.path == "/apis/v3/games/fba/seasons/2023/segments/0/leagues/1234"
    assert req.url.params.get_list("view") == ["kona_player_info"]
    flt = json.loads(req.headers["x-fantasy-filter"])["players"]
    assert flt["filterSlotIds"] == {"value": [0]} and flt["limit"] == 30
    assert flt["filterStatus"] == {"value": ["FREEAGENT", "WAIVERS"]}
    assert flt["sortPercOwned"]["sortAsc"] is False
    await client.aclose()


async def test_box_score_request_has_filter_and_period() -> None:
    body = (DATA / "league_2023_box_score_h2h_points.json").read_bytes()

    def handler(req: httpx.Request) -> httpx.Response:
        if "proTeamSchedules_wl" in req.url.params.get_list("view"):
            return httpx.Response(200, content=SCHEDULE)
        return httpx.Response(200, content=body)

    rec = Recorder([handler])
    client = make(rec)
    ms = await client.get_box_scores(16, 109)
    assert ms[0].home.points == 896.0 and ms[0].away.points == 901.0
    box = rec.requests[0]
    assert box.url.params.get_list("view") == ["mMatchupScore", "mScoreboard"]
    assert box.url.params["scoringPeriodId"] == "109"
    assert json.loads(box.headers["x-fantasy-filter"]) == {
        "schedule": {"filterMatchupPeriodIds": {"value": [16]}}}
    await client.aclose()


# --------------------------------------------------------------------------- real socket


class _Handler(BaseHTTPRequestHandler):
    routes: dict[str, tuple[int, bytes, float]] = {}
    seen_cookies: list[str] = []

    def do_GET(self) -> None:  # noqa: N802
        self.seen_cookies.append(self.headers.get("Cookie", ""))
        key = "card" if "kona_playercard" in self.path else (
            "schedule" if "proTeamSchedules_wl" in self.path else "league")
        code, body, delay = self.routes.get(key, (404, b"{}", 0.0))
        if delay:
            time.sleep(delay)
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout test)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def server() -> Iterator[tuple[str, type[_Handler]]]:
    handler = type("H", (_Handler,), {"routes": {}, "seen_cookies": []})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/apis/v3/games/fba/", handler
    finally:
        httpd.shutdown()
        httpd.server_close()


async def test_real_http_server_round_trip(server) -> None:
    base, handler = server
    handler.routes.update({"card": (200, CARD, 0.0), "schedule": (200, SCHEDULE, 0.0),
                           "league": (401, b"{}", 0.0)})
    client = EspnClient(1234, 2023, espn_s2=S2, swid=SWID, base_url=base, max_retries=0)
    (p,) = await client.get_player_cards([3934672])
    assert p.name == "Jalen Brunson" and p.game_log[-1].scoring_period == 107
    assert any(S2 in c for c in handler.seen_cookies)
    with pytest.raises(EspnAccessDenied) as ei:
        await client.get_league()
    assert_no_secrets(str(ei.value))
    await client.aclose()


async def test_real_http_server_timeout(server) -> None:
    base, handler = server
    handler.routes["league"] = (200, b"{}", 1.0)
    client = EspnClient(1, 2023, base_url=base, timeout=0.2, max_retries=0)
    with pytest.raises(EspnTimeout):
        await client.get_league()
    await client.aclose()


async def test_unreachable_host_is_a_connection_error() -> None:
    client = EspnClient(1, 2023, base_url="http://127.0.0.1:9/apis/v3/games/fba/",
                        max_retries=0, timeout=2.0)
    with pytest.raises(EspnConnectionError):
        await client.get_league()
    await client.aclose()
