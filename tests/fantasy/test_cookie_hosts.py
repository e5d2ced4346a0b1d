"""Issue 12 #6: espn_s2/SWID go only to ESPN's own hosts, per request; a redirect to another
host or a login page is expired credentials (EspnAccessDenied), never followed with cookies.

Real sockets: an "ESPN" on 127.0.0.1 that answers 302 to a second server on another port
(a different host for cookies, as httpx's jar ignores ports), and httpx.MockTransport at the
wire for the real ESPN host names."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from fantasy.espn import EspnAccessDenied, EspnClient

DATA = Path(__file__).parents[1] / "data"
CARD = (DATA / "league_2023_playerCard.json").read_bytes()
SCHEDULE = (DATA / "league_2023_pro_schedule.json").read_bytes()
S2 = "AEBk2s9TestOnlyHostCookie%2BVVbq3Zx7%2FkQm1Yp0Lr8HsWnE4aJcTf6uDgIo5Nv%3D%3Dabcdef0123"
SWID = "{1E3A1C2B-4D5F-4A6B-9C8D-0E1F2A3B4C5D}"
BRUNSON = 3934672


class _Server:
    """A 127.0.0.1 server recording Cookie headers; `redirect_to` makes it answer 302."""

    def __init__(self) -> None:
        self.cookies: list[str] = []
        self.redirect_to: str | None = None
        self.set_cookie: str | None = None
        srv = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                srv.cookies.append(self.headers.get("Cookie", ""))
                if srv.redirect_to is not None:
                    self.send_response(302)
                    self.send_header("Location", srv.redirect_to + self.path)
                    if srv.set_cookie:
                        self.send_header("Set-Cookie", srv.set_cookie)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = SCHEDULE if "proTeamSchedules_wl" in self.path else CARD
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def servers() -> Iterator[tuple[_Server, _Server]]:
    espn, other = _Server(), _Server()
    try:
        yield espn, other
    finally:
        espn.close()
        other.close()


async def test_redirect_to_another_host_sends_no_cookie_and_is_access_denied(servers) -> None:
    espn, other = servers
    espn.redirect_to = other.origin
    client = EspnClient(1234, 2023, espn_s2=S2, swid=SWID, max_retries=2, backoff=0.0,
                        base_url=espn.origin + "/apis/v3/games/fba/")
    for _ in range(3):
        with pytest.raises(EspnAccessDenied) as ei:
            await client.get_player_cards([BRUNSON])
        assert "expired" in str(ei.value) and S2 not in str(ei.value)
    await client.aclose()
    assert espn.cookies and all(S2 in c and SWID in c for c in espn.cookies)
    assert not any(S2 in c or SWID in c for c in other.cookies)


async def test_set_cookie_from_espn_is_not_sent_to_the_redirect_host(servers) -> None:
    espn, other = servers
    espn.redirect_to = other.origin
    espn.set_cookie = "espn_auth=tracked; Path=/"
    client = EspnClient(1234, 2023, espn_s2=S2, swid=SWID, max_retries=0,
                        base_url=espn.origin + "/apis/v3/games/fba/")
    with pytest.raises(EspnAccessDenied):
        await client.get_player_cards([BRUNSON])
    espn.redirect_to = None
    (p,) = await client.get_player_cards([BRUNSON])  # ESPN itself still works afterwards
    assert p.name == "Jalen Brunson"
    await client.aclose()
    assert all("espn_auth" not in c and S2 not in c for c in other.cookies)


def _mock(handler_log: list[httpx.Request], location: str | None,
          redirect_host: str = "lm-api-reads.fantasy.espn.com") -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        handler_log.append(request)
        if request.url.host == redirect_host and location is not None:
            return httpx.Response(302, headers={"Location": location})
        views = request.url.params.get_list("view")
        return httpx.Response(200, content=SCHEDULE if "proTeamSchedules_wl" in views else CARD)
    return httpx.MockTransport(handler)


@pytest.mark.parametrize("location", [
    "https://evil.example.com/apis/v3/games/fba/seasons/2023",
    "https://registerdisney.go.com/jgc/v8/client/ESPN-ONESITE.WEB-PROD/guest/login",
    "https://www.espn.com/login?redirect=fantasy",
    "https://espn.com.evil.example/apis",
    "http://lm-api-reads.fantasy.espn.com/apis/v3/games/fba/seasons/2023",  # https -> http
])
async def test_redirect_off_espn_or_to_login_is_expired_credentials(location: str) -> None:
    seen: list[httpx.Request] = []
    client = EspnClient(1234, 2023, espn_s2=S2, swid=SWID, max_retries=0,
                        transport=_mock(seen, location))
    with pytest.raises(EspnAccessDenied) as ei:
        await client.get_player_cards([BRUNSON])
    await client.aclose()
    assert "cookies expired" in str(ei.value) and location not in str(ei.value)
    for req in seen:
        has_cookie = S2 in req.headers.get("cookie", "")
        assert has_cookie == (req.url.host.endswith(".espn.com") and req.url.scheme == "https"
                              and "login" not in req.url.path), req.url


async def test_redirect_within_espn_keeps_cookies_and_works() -> None:
    seen: list[httpx.Request] = []
    location = "https://fantasy.espn.com/apis/v3/games/fba/seasons/2023/segments/0/leagues/1234"
    client = EspnClient(1234, 2023, espn_s2=S2, swid=SWID, max_retries=0,
                        transport=_mock(seen, location))
    (p,) = await client.get_player_cards([BRUNSON])
    await client.aclose()
    assert p.name == "Jalen Brunson"
    hosts = [r.url.host for r in seen]  # the cards and the pro schedule, each redirected once
    assert hosts == ["lm-api-reads.fantasy.espn.com", "fantasy.espn.com"] * 2
    assert all(S2 in r.headers.get("cookie", "") for r in seen)


async def test_redirect_loop_is_bounded() -> None:
    seen: list[httpx.Request] = []
    location = "https://lm-api-reads.fantasy.espn.com/apis/v3/games/fba/seasons/2023/x"
    client = EspnClient(1234, 2023, espn_s2=S2, swid=SWID, max_retries=0,
                        transport=_mock(seen, location))
    with pytest.raises(Exception) as ei:
        await client.get_player_cards([BRUNSON])
    await client.aclose()
    assert len(seen) <= 6 and S2 not in str(ei.value)


async def test_no_client_wide_cookie_jar() -> None:
    """The cookies are a per-request header, not a jar that any redirect or caller reuses."""
    client = EspnClient(1234, 2023, espn_s2=S2, swid=SWID, transport=_mock([], None))
    assert not list(client._http.cookies.jar)
    await client.aclose()
