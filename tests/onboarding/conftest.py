"""Fixtures for the onboarding tests: a private ESPN league on 127.0.0.1 (the demo league's
recorded data served as ESPN would, cookies required) and a clean environment, plus the
fake Discord / Slack servers of tests/bot/harness."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from tests.bot.harness.servers import fake_discord, fake_slack  # noqa: E402, F401 (fixtures)

LEAGUE_ID = 20230125
SEASON = 2023
# Realistic shapes: espn_s2 a long URL-encoded string, SWID a braced GUID.
ESPN_S2 = "AEBk2s9OnboardingFakeCookie%2BVVbq3Zx7%2FkQm1Yp0Lr8HsWnE4aJcTf6uDgIo5Nv%3D%3DAECf0b"
#: the SWID of team 1's owner (Alex Rivera) in the served league
SWID = "{7E3A1C2B-4D5F-4A6B-9C8D-0E1F2A3B4C01}"
OTHER_SWID = "{7E3A1C2B-4D5F-4A6B-9C8D-0E1F2A3B4CFF}"
CONFIG_VARS = ("FANVISE_ESPN_LEAGUE_ID", "FANVISE_ESPN_SEASON", "FANVISE_TEAM_ID", "ESPN_S2",
               "ESPN_SWID", "FANVISE_ESPN_BASE_URL", "FANVISE_SECRET_KEY", "DISCORD_TOKEN",
               "DISCORD_GUILD_ID", "DISCORD_MESSAGE_CONTENT", "SLACK_BOT_TOKEN",
               "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_API_URL",
               "SLACK_ADMIN_USER_IDS", "GOOGLE_API_KEY", "FANVISE_DATABASE_URL",
               "FANVISE_ESPN_WRITES", "FANVISE_DEMO_VARIANT")


def member_swid(k: int) -> str:
    """The GUID the served league gives member k (the demo's `{DEMO-MEMBER-0k}`)."""
    return SWID[:-3] + f"{k:02X}" + "}"


@dataclass
class PrivateEspn:
    """A private ESPN league: 401 without the right cookies, 404 for another league."""

    base_url: str = ""
    private: bool = True
    cookies: list[str] = field(default_factory=list)


def _guid_members(body: bytes) -> bytes:
    text = body.decode()
    for k in range(1, 21):
        text = text.replace(f"{{DEMO-MEMBER-{k:02d}}}", member_swid(k))
    return text.encode()


@pytest.fixture
def espn() -> Iterator[PrivateEspn]:
    """The demo league (points) behind a local HTTP server that acts as ESPN's fba API."""
    from fantasy.demo import DemoLeague
    from fantasy.demo.league import DemoTransport

    league = DemoLeague("points")
    state = PrivateEspn()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            cookie = self.headers.get("Cookie", "")
            state.cookies.append(cookie)
            ok_cookie = f"espn_s2={ESPN_S2}" in cookie and "SWID=" in cookie
            in_league = "/leagues/" in self.path
            if in_league and f"/leagues/{LEAGUE_ID}" not in self.path:
                code, body = 404, b'{"messages": ["not found"]}'
            elif in_league and state.private and not ok_cookie:
                code, body = 401, b'{"messages": ["You are not authorized to view this League."]}'
            else:
                req = httpx.Request("GET", "http://127.0.0.1" + self.path,
                                    headers={k.lower(): v for k, v in self.headers.items()})
                data = DemoTransport(league)._route(req)
                if data is None:
                    code, body = 404, b'{"messages": ["not found"]}'
                else:
                    raw = data if isinstance(data, bytes) else (
                        data.encode() if isinstance(data, str)
                        else json.dumps(data, separators=(",", ":")).encode())
                    code, body = 200, _guid_members(raw)
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    state.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/apis/v3/games/fba/"
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def live_env(espn: PrivateEspn, tmp_path, monkeypatch) -> PrivateEspn:
    """A complete live configuration for the served league (no chat tokens), run from an
    empty folder (no .env)."""
    for var in CONFIG_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FANVISE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("FANVISE_ESPN_BASE_URL", espn.base_url)
    monkeypatch.setenv("FANVISE_ESPN_LEAGUE_ID", str(LEAGUE_ID))
    monkeypatch.setenv("FANVISE_ESPN_SEASON", str(SEASON))
    monkeypatch.setenv("ESPN_S2", ESPN_S2)
    monkeypatch.setenv("ESPN_SWID", SWID)
    monkeypatch.setenv("FANVISE_TEAM_ID", "1")
    monkeypatch.setenv("FANVISE_SECRET_KEY", "an onboarding test passphrase")
    return espn
