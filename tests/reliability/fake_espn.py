"""A fake ESPN fba server on 127.0.0.1 for the reliability tests (real sockets, real client).

`FakeEspn.mode` selects what every request gets: "ok" (recorded fixtures by view), an HTTP
status code (401/403/429/500/503; the body echoes the request's Cookie header, like a
careless proxy would), "timeout" (answers after `delay` s), "garbage" (200 with HTML that
echoes the cookie), "shape" (200 JSON whose player id is the echoed cookie) or "reset"
(closes the socket without answering).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

DATA = Path(__file__).parents[1] / "data"
CARD = (DATA / "league_2023_playerCard.json").read_bytes()
SCHEDULE = (DATA / "league_2023_pro_schedule.json").read_bytes()
BRUNSON = 3934672

# Realistic shapes: espn_s2 is a long URL-encoded base64 string, SWID a braced GUID.
ESPN_S2 = ("AEBk2s9TestOnlyFakeCookie%2BVVbq3Zx7%2FkQm1Yp0Lr8HsWnE4aJcTf6uDgIo5Nv%3D%3D"
           "AECf0b7e1d2c3a4958677f8e9d0c1b2a3948576abcdef0123456789TESTONLYx")
SWID = "{7E3A1C2B-4D5F-4A6B-9C8D-0E1F2A3B4C5D}"


class FakeEspn:
    """Threaded HTTP server; read `.base_url`, set `.mode`, inspect `.hits` / `.cookies`."""

    def __init__(self, league: object | None = None) -> None:
        #: A fantasy.demo DemoLeague: "ok" then serves it like ESPN would (a live league).
        self.league = league
        self.mode: str | int = "ok"
        self.delay = 1.0
        self.hits = 0
        self.cookies: list[str] = []
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                with fake._lock:
                    fake.hits += 1
                cookie = self.headers.get("Cookie", "")
                fake.cookies.append(cookie)
                mode = fake.mode
                if mode == "reset":
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                if mode == "timeout":
                    time.sleep(fake.delay)
                    mode = "ok"
                if mode == "ok" and fake.league is not None:
                    code, body = fake._serve_league(self.path, dict(self.headers))
                    ctype = "application/json"
                elif mode == "ok":
                    body = SCHEDULE if "proTeamSchedules_wl" in self.path else CARD
                    code, ctype = 200, "application/json"
                elif mode == "garbage":
                    body = f"<html><body>Oops {cookie}</body></html>".encode()
                    code, ctype = 200, "text/html"
                elif mode == "shape":
                    body = json.dumps({"players": [{"id": cookie, "player": {
                        "id": cookie, "fullName": cookie}}]}).encode()
                    code, ctype = 200, "application/json"
                else:
                    body = json.dumps({"error": f"denied for cookie {cookie}"}).encode()
                    code, ctype = int(mode), "application/json"
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(body)))
                    if code == 429:
                        self.send_header("Retry-After", "0")
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args: object) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def _serve_league(self, path: str, headers: dict[str, str]) -> tuple[int, bytes]:
        import httpx

        from fantasy.demo.league import DemoTransport

        req = httpx.Request("GET", "http://127.0.0.1" + path,
                            headers={k.lower(): v for k, v in headers.items()})
        body = DemoTransport(self.league)._route(req)
        if body is None:
            return 404, b'{"messages": ["not found"]}'
        if isinstance(body, bytes | str):  # a response the demo kept encoded (its disk cache)
            return 200, body.encode() if isinstance(body, str) else body
        return 200, json.dumps(body, separators=(",", ":")).encode()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/apis/v3/games/fba/"

    def __enter__(self) -> FakeEspn:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
