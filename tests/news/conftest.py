"""Fixtures for news tests: a real 127.0.0.1 HTTP server serving feeds, demo players."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from fantasy.demo.league import load_base


class FeedServer:
    """Routes path -> (status, content-type, body, delay seconds)."""

    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, str, bytes, float]] = {}
        self.hits: list[str] = []
        routes, hits = self.routes, self.hits

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server API
                hits.append(self.path)
                status, ctype, body, delay = routes.get(
                    self.path, (404, "text/plain", b"not found", 0.0))
                if delay:
                    time.sleep(delay)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def add(self, path: str, body: bytes | str, status: int = 200,
            ctype: str = "application/rss+xml", delay: float = 0.0) -> str:
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.routes[path] = (status, ctype, data, delay)
        return self.url(path)


@pytest.fixture
def feed_server() -> Iterator[FeedServer]:
    server = FeedServer()
    server.thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()


@pytest.fixture(scope="session")
def demo_players() -> list[tuple[int, str]]:
    """(player_id, full_name) of every player in the demo league."""
    return [(int(pid), e["player"]["fullName"]) for pid, e in load_base()["players"].items()]
