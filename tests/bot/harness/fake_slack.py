"""A fake of the Slack Web API (and the Socket Mode websocket) on 127.0.0.1.

The real ``slack_sdk.AsyncWebClient`` is pointed at it with ``base_url``. It records every call,
keeps posted messages so ``chat.update`` on a deleted message fails with ``message_not_found``,
returns 429 on demand, and serves ``apps.connections.open`` + a websocket so the real
``AsyncSocketModeHandler`` can connect. Adapted from
shared/reference/chat-harness/proto/mock_slack_api.py.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

TEAM_ID = "T111"
BOT_USER_ID = "UBOT"


@dataclass
class Call:
    """One Web API call: method name, decoded body, Authorization header."""

    method: str
    body: dict[str, Any]
    authorization: str | None
    at: float = field(default_factory=time.monotonic)  # when it arrived


@dataclass
class FakeSlack:
    """Records calls; stores messages by ts; optional Socket Mode websocket."""

    calls: list[Call] = field(default_factory=list)
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)
    deleted: set[str] = field(default_factory=set)
    fail_next: dict[str, int] = field(default_factory=dict)  # method -> number of 429s
    fail_with: dict[str, str] = field(default_factory=dict)  # method -> Slack error code
    retry_after: int = 1
    socket_acks: list[dict[str, Any]] = field(default_factory=list)
    responses: list[dict[str, Any]] = field(default_factory=list)  # response_url posts
    # fault injection: called with each recorded call; a returned response is sent instead
    # (e.g. an HTTP 500, or a message deleted just before this chat.update)
    on_call: Callable[[Call], web.Response | None] | None = None
    _ts: Any = field(default_factory=lambda: itertools.count(1))

    async def start(self) -> str:
        """Serve on an ephemeral port; returns the Web API base URL (…/api/)."""
        app = web.Application()
        app.router.add_route("GET", "/socket", self._socket)
        app.router.add_route("POST", "/response/{rid}", self._response)
        app.router.add_route("*", "/api/{method}", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]
        self._ws: web.WebSocketResponse | None = None
        self._ws_ready = asyncio.Event()
        return f"http://127.0.0.1:{self.port}/api/"

    async def stop(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        await self._runner.cleanup()

    def named(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method == method]

    async def wait_for(self, method: str, count: int = 1, timeout: float = 10.0) -> list[Call]:
        """Wait until at least `count` calls of `method` arrived."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while len(self.named(method)) < count:
            if loop.time() > deadline:
                raise AssertionError(f"expected {count} {method} calls, got "
                                     f"{[(c.method, c.body.get('text')) for c in self.calls]}")
            await asyncio.sleep(0.02)
        return self.named(method)

    # ------------------------------------------------------------------ socket mode
    async def socket_send(self, envelope: dict[str, Any], timeout: float = 10.0) -> None:
        """Push a Socket Mode envelope to the connected client."""
        await asyncio.wait_for(self._ws_ready.wait(), timeout)
        assert self._ws is not None
        await self._ws.send_str(json.dumps(envelope))

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self._ws = ws
        await ws.send_str(json.dumps({"type": "hello", "num_connections": 1,
                                      "debug_info": {"host": "fake"},
                                      "connection_info": {"app_id": "A1"}}))
        self._ws_ready.set()
        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                self.socket_acks.append(json.loads(msg.data))
        return ws

    def response_url(self, rid: str = "r1") -> str:
        """A slash command response_url served by this fake."""
        return f"http://127.0.0.1:{self.port}/response/{rid}"

    async def _response(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.responses.append({"rid": request.match_info["rid"], **body})
        return web.Response(text="ok")

    # ------------------------------------------------------------------ web api
    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        if request.content_type == "application/json":
            body = await request.json()
        else:
            body = dict(await request.post())
        body = {**request.query, **body}  # GET methods (conversations.*) send a query
        for key in ("blocks", "attachments"):
            if isinstance(body.get(key), str):
                body[key] = json.loads(body[key])
        self.calls.append(Call(method, body, request.headers.get("Authorization")))
        if self.on_call is not None:
            injected = self.on_call(self.calls[-1])
            if injected is not None:
                return injected
        if self.fail_next.get(method):
            self.fail_next[method] -= 1
            return web.json_response({"ok": False, "error": "ratelimited"}, status=429,
                                     headers={"Retry-After": str(self.retry_after)})
        if method in self.fail_with:
            return web.json_response({"ok": False, "error": self.fail_with[method]})
        if method == "auth.test":
            return web.json_response({"ok": True, "url": "https://x.slack.com/", "team": "T",
                                      "user": "fanvise", "team_id": TEAM_ID,
                                      "user_id": BOT_USER_ID, "bot_id": "BBOT"})
        if method == "apps.connections.open":
            return web.json_response({"ok": True, "url": f"ws://127.0.0.1:{self.port}/socket"})
        if method == "chat.postMessage":
            ts = f"1700000000.{next(self._ts):06d}"
            self.messages[ts] = {"channel": body.get("channel"), "ts": ts,
                                 "thread_ts": body.get("thread_ts"), "text": body.get("text"),
                                 "blocks": body.get("blocks")}
            return web.json_response({"ok": True, "channel": body.get("channel"), "ts": ts,
                                      "message": {"text": body.get("text"), "ts": ts,
                                                  "thread_ts": body.get("thread_ts")}})
        if method in ("chat.startStream", "chat.appendStream", "chat.stopStream"):
            return self._stream(method, body)
        if method == "chat.update":
            ts = body.get("ts")
            if ts not in self.messages or ts in self.deleted:
                return web.json_response({"ok": False, "error": "message_not_found"})
            self.messages[ts].update({"text": body.get("text"), "blocks": body.get("blocks")})
            return web.json_response({"ok": True, "channel": body.get("channel"), "ts": ts,
                                      "text": body.get("text")})
        if method == "chat.delete":
            self.deleted.add(body.get("ts"))
            return web.json_response({"ok": True})
        if method == "chat.postEphemeral":
            return web.json_response({"ok": True, "message_ts": "1700000000.999999"})
        if method in ("conversations.replies", "conversations.history"):
            # a thread's messages (its root first) or the channel's own; `oldest` is not
            # applied (this fake's ts are counters, not times)
            root = body.get("ts")
            found = [{"type": "message", "ts": m["ts"], "thread_ts": m["thread_ts"],
                      "text": m["text"], "bot_id": "BBOT", "user": BOT_USER_ID}
                     for m in self.messages.values()
                     if m["channel"] == body.get("channel") and m["ts"] not in self.deleted
                     and ((m["ts"] == root or m["thread_ts"] == root) if root
                          else not m["thread_ts"])]
            return web.json_response({"ok": True, "messages": found, "has_more": False})
        return web.json_response({"ok": True})

    def _stream(self, method: str, body: dict[str, Any]) -> web.Response:
        """Slack's streamed messages: startStream makes the message, appendStream and
        stopStream add their markdown (`markdown_text` or markdown_text chunks)."""
        chunks = body.get("chunks")
        if isinstance(chunks, str):
            chunks = json.loads(chunks)
        text = (body.get("markdown_text") or "") + "".join(
            c.get("text", "") for c in chunks or [] if c.get("type") == "markdown_text")
        if method == "chat.startStream":
            ts = f"1700000000.{next(self._ts):06d}"
            self.messages[ts] = {"channel": body.get("channel"), "ts": ts,
                                 "thread_ts": body.get("thread_ts"), "text": text,
                                 "blocks": None, "streaming": True}
            return web.json_response({"ok": True, "channel": body.get("channel"), "ts": ts})
        ts = body.get("ts")
        if ts not in self.messages:
            return web.json_response({"ok": False, "error": "message_not_found"})
        msg = self.messages[ts]
        msg["text"] = (msg["text"] or "") + text
        if method == "chat.stopStream":
            msg["streaming"] = False
            if body.get("blocks"):
                msg["blocks"] = body["blocks"]
        return web.json_response({"ok": True, "channel": body.get("channel"), "ts": ts})
