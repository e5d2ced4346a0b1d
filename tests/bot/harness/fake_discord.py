"""A small fake of the Discord REST API (v10) on 127.0.0.1 for the real discord.py client.

discord.py builds every URL from ``discord.http.Route.BASE`` (HTTPClient and the interaction
webhook adapter), so pointing that class attribute at this server redirects all REST traffic.
Gateway events are not sent over a websocket: tests feed raw gateway payloads to
``client._connection.parsers[...]`` (what the gateway reader calls), so the library's own
Interaction / CommandTree / ViewStore / DynamicItem code runs. Adapted from
shared/reference/chat-harness/proto/fake_discord.py.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import discord
from aiohttp import WSMsgType, web

APP_ID = 900000000000000001
BOT_ID = 900000000000000002
GUILD_ID = 800000000000000001
CHANNEL_ID = 700000000000000001
EVERYONE_PERMS = "68608"  # view channel, send messages, read history

_gen = itertools.count(1)
#: MessageFlags.IS_COMPONENTS_V2: the message is drawn from its components alone
COMPONENTS_V2 = 1 << 15


def controls(msg: dict[str, Any]) -> list[dict[str, Any]]:
    """A message's buttons and menus in order, from legacy action rows or from a Components
    V2 layout (containers, sections and rows nested)."""
    out: list[dict[str, Any]] = []

    def walk(items: list[dict[str, Any]]) -> None:
        for c in items:
            if c.get("type") in (2, 3, 5, 6, 7, 8):
                out.append(c)
            if c.get("accessory"):
                walk([c["accessory"]])
            walk(c.get("components") or [])

    walk(msg.get("components") or [])
    return out


def message_text(msg: dict[str, Any]) -> str:
    """Everything a message shows as text: its content, embeds and V2 text displays."""
    parts = [msg.get("content") or "", json.dumps(msg.get("embeds") or [])]

    def walk(items: list[dict[str, Any]]) -> None:
        for c in items:
            if c.get("type") == 10:
                parts.append(c.get("content") or "")
            walk(c.get("components") or [])

    walk(msg.get("components") or [])
    return "\n".join(parts)


def next_id() -> int:
    """A fresh snowflake for "now" (interactions older than 15 min count as expired)."""
    return discord.utils.time_snowflake(dt.datetime.now(dt.UTC)) + next(_gen)


def jr(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """JSON response with the exact Content-Type discord.py expects (no charset suffix)."""
    return web.Response(body=json.dumps(data).encode(), status=status,
                        headers={"Content-Type": "application/json", **(headers or {})})


BOT_USER = {"id": str(BOT_ID), "username": "fanvise", "discriminator": "0", "global_name": None,
            "avatar": None, "bot": True, "flags": 0}


def user(uid: int, name: str = "user") -> dict[str, Any]:
    """A Discord user payload."""
    return {"id": str(uid), "username": name, "discriminator": "0", "global_name": name,
            "avatar": None}


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


def text_channel(cid: int = CHANNEL_ID, name: str = "fantasy") -> dict[str, Any]:
    """A guild text channel payload."""
    return {"id": str(cid), "type": 0, "guild_id": str(GUILD_ID), "name": name, "position": 0,
            "permission_overwrites": [], "nsfw": False, "parent_id": None,
            "rate_limit_per_user": 0, "topic": None, "last_message_id": None, "flags": 0}


def thread_channel(tid: int, name: str, *, parent: int = CHANNEL_ID,
                   owner: int = BOT_ID, kind: int = 11) -> dict[str, Any]:
    """A thread payload (`kind` 11 public, 12 private)."""
    return {"id": str(tid), "type": kind, "guild_id": str(GUILD_ID), "parent_id": str(parent),
            "name": name, "owner_id": str(owner), "last_message_id": None, "message_count": 0,
            "member_count": 1, "rate_limit_per_user": 0, "flags": 0,
            "thread_metadata": {"archived": False, "auto_archive_duration": 1440,
                                "archive_timestamp": now_iso(), "locked": False}}


class _Ids:
    """Iterator of fresh snowflakes (for messages and threads the fake creates)."""

    def __iter__(self) -> _Ids:
        return self

    def __next__(self) -> int:
        return next_id()


@dataclass
class Req:
    """One request the fake received."""

    method: str
    path: str
    query: dict[str, str]
    json: Any
    auth: str | None
    at: float = field(default_factory=time.monotonic)  # when it arrived


@dataclass
class FakeDiscord:
    """Records every request; keeps messages, threads and interaction originals in memory."""

    requests: list[Req] = field(default_factory=list)
    messages: dict[int, dict[str, Any]] = field(default_factory=dict)
    threads: dict[int, dict[str, Any]] = field(default_factory=dict)
    deleted: set[int] = field(default_factory=set)
    originals: dict[str, int] = field(default_factory=dict)  # interaction token -> message id
    interaction_channels: dict[str, int] = field(default_factory=dict)  # interaction id -> channel
    #: component interaction id -> the message clicked (its @original)
    interaction_messages: dict[str, int] = field(default_factory=dict)
    ratelimit_next: dict[str, int] = field(default_factory=dict)  # "METHOD path-prefix" -> n
    retry_after: float = 0.5
    forbid_threads: bool = False  # answer thread creation with 403 Missing Permissions
    thread_members: dict[int, list[int]] = field(default_factory=dict)  # thread -> added users
    dms: dict[int, int] = field(default_factory=dict)  # DM channel -> its member
    # tokens whose deferred response still shows "thinking…": like Discord, the first
    # followup then resolves it and keeps the defer's visibility (its own flags are ignored)
    loading: set[str] = field(default_factory=set)
    identifies: list[dict[str, Any]] = field(default_factory=list)  # IDENTIFY payloads
    gateway_guilds: list[dict[str, Any]] = field(default_factory=list)  # GUILD_CREATE after READY
    # fault injection: called with each recorded request; a returned response is sent instead
    # (e.g. 404 Unknown Webhook for an expired interaction token)
    on_request: Callable[[Req], web.Response | None] | None = None
    _ids: Any = field(default_factory=lambda: _Ids())

    async def start(self) -> str:
        """Serve on an ephemeral port; returns the API base URL for Route.BASE."""
        app = web.Application()
        app.router.add_route("GET", "/gateway", self._gateway)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        self.gateway_url = f"ws://127.0.0.1:{port}/gateway"
        self._ws: web.WebSocketResponse | None = None
        self._seq = 0
        self._ready = asyncio.Event()
        return f"http://127.0.0.1:{port}/api/v10"

    async def stop(self) -> None:
        if self._ws is not None and not self._ws.closed:
            await self._ws.close()
        await self._runner.cleanup()

    # ------------------------------------------------------------------ gateway
    async def dispatch(self, event: str, data: dict[str, Any], timeout: float = 10.0) -> None:
        """Send a gateway DISPATCH (op 0) to the connected client, as Discord does."""
        await asyncio.wait_for(self._ready.wait(), timeout)
        assert self._ws is not None
        self._seq += 1
        await self._ws.send_str(json.dumps({"op": 0, "t": event, "s": self._seq, "d": data}))

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        """HELLO -> IDENTIFY -> READY (+ GUILD_CREATE); heartbeats acked. Text frames only
        (discord.py decompresses binary frames and parses text frames as they are)."""
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self._ws = ws
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 41250}}))
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                continue
            payload = json.loads(msg.data)
            if payload["op"] == 1:
                await ws.send_str(json.dumps({"op": 11}))
            elif payload["op"] == 2:
                self.identifies.append(payload["d"])
                self._seq += 1
                ready = {"v": 10, "user": BOT_USER, "session_id": "fake-session",
                         "resume_gateway_url": self.gateway_url, "shard": [0, 1],
                         "guilds": [{"id": g["id"], "unavailable": True}
                                    for g in self.gateway_guilds],
                         "application": {"id": str(APP_ID), "flags": 0}}
                await ws.send_str(json.dumps({"op": 0, "t": "READY", "s": self._seq,
                                              "d": ready}))
                for guild in self.gateway_guilds:
                    self._seq += 1
                    await ws.send_str(json.dumps({"op": 0, "t": "GUILD_CREATE", "s": self._seq,
                                                  "d": guild}))
                self._ready.set()
        return ws

    def find(self, method: str, pattern: str) -> list[Req]:
        """Requests whose path matches the regex `pattern` (re.search)."""
        return [r for r in self.requests if r.method == method and re.search(pattern, r.path)]

    async def wait_for(self, method: str, pattern: str, count: int = 1,
                       timeout: float = 10.0) -> list[Req]:
        """Wait until at least `count` matching requests arrived."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while len(self.find(method, pattern)) < count:
            if loop.time() > end:
                seen = [(r.method, r.path) for r in self.requests]
                raise AssertionError(f"{method} /{pattern}/ x{count}; got {seen}")
            await asyncio.sleep(0.02)
        return self.find(method, pattern)

    def channel_messages(self, channel_id: int) -> list[dict[str, Any]]:
        """Live (not deleted) messages of a channel, oldest first."""
        return [m for mid, m in self.messages.items()
                if m["channel_id"] == str(channel_id) and mid not in self.deleted]

    # ------------------------------------------------------------------ payloads
    def _message(self, channel_id: int, body: dict[str, Any], *, interaction: bool = False,
                 ephemeral: bool = False) -> dict[str, Any]:
        mid = next(self._ids)
        msg = {"id": str(mid), "channel_id": str(channel_id), "guild_id": str(GUILD_ID),
               "type": 20 if interaction else 0, "content": body.get("content") or "",
               "author": BOT_USER, "attachments": [], "embeds": body.get("embeds") or [],
               "mentions": [], "mention_roles": [], "mention_everyone": False, "pinned": False,
               "tts": False, "timestamp": now_iso(), "edited_timestamp": None,
               "flags": (body.get("flags") or 0) | (64 if ephemeral else 0),
               "components": body.get("components") or [],
               "application_id": str(APP_ID) if interaction else None}
        self.messages[mid] = msg
        return msg

    def _edit(self, mid: int, body: dict[str, Any]) -> web.Response:
        if mid not in self.messages or mid in self.deleted:
            return jr({"message": "Unknown Message", "code": 10008}, status=404)
        msg = self.messages[mid]
        for k in ("content", "embeds", "components", "flags"):
            if k in body and body[k] is not None:
                msg[k] = body[k]
        if (body.get("flags") or 0) & COMPONENTS_V2:  # Discord keeps no content or embeds
            msg["content"], msg["embeds"] = "", []
        msg["edited_timestamp"] = now_iso()
        return jr(msg)

    def _rate_limited(self, method: str, path: str) -> web.Response | None:
        for key, n in list(self.ratelimit_next.items()):
            m, prefix = key.split(" ", 1)
            if n and method == m and path.startswith(prefix):
                self.ratelimit_next[key] = n - 1
                # discord.py treats a 429 as a route limit only with a `Via` header.
                return jr({"message": "You are being rate limited.",
                           "retry_after": self.retry_after, "global": False}, status=429,
                          headers={"Via": "1.1 google",
                                   "Retry-After": str(int(self.retry_after) + 1),
                                   "X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "0",
                                   "X-RateLimit-Reset-After": str(self.retry_after),
                                   "X-RateLimit-Bucket": "fakebucket", "X-RateLimit-Scope": "user"})
        return None

    # ------------------------------------------------------------------ routing
    async def _handle(self, request: web.Request) -> web.Response:  # noqa: C901
        path = "/" + request.match_info["tail"]
        body = None
        if request.can_read_body:
            if request.content_type == "application/json":
                body = await request.json()
            elif request.content_type.startswith("multipart/"):
                form = await request.post()
                body = json.loads(form["payload_json"]) if "payload_json" in form else {}
        self.requests.append(Req(request.method, path, dict(request.query), body,
                                 request.headers.get("Authorization")))
        if self.on_request is not None:
            injected = self.on_request(self.requests[-1])
            if injected is not None:
                return injected
        limited = self._rate_limited(request.method, path)
        if limited is not None:
            return limited
        p = path.split("/")[1:]
        m = request.method
        if m == "GET" and path == "/users/@me":
            return jr(BOT_USER)
        if m == "POST" and path == "/users/@me/channels":  # a DM with a member
            member = int(body["recipient_id"])
            did = next((d for d, u in self.dms.items() if u == member), None) or next(self._ids)
            self.dms[did] = member
            return jr({"id": str(did), "type": 1, "last_message_id": None, "recipients": [
                {"id": str(member), "username": "member", "discriminator": "0",
                 "avatar": None}]})
        if m == "GET" and path == "/oauth2/applications/@me":
            return jr({"id": str(APP_ID), "name": "fanvise", "description": "", "icon": None,
                       "bot_public": True, "bot_require_code_grant": False,
                       "owner": user(1, "owner"), "verify_key": "00", "flags": 0, "team": None,
                       "rpc_origins": [], "interactions_endpoint_url": None})
        if m == "PUT" and p[0] == "applications" and p[-1] == "commands":
            return jr([{**c, "id": str(next(self._ids)), "application_id": str(APP_ID),
                        "version": "1", "type": c.get("type", 1)} for c in body])
        if m == "POST" and p[0] == "interactions" and p[-1] == "callback":
            return self._callback(p[1], p[2], body)
        if p[0] == "webhooks":  # /webhooks/{app}/{token}[/messages/{id|@original}]
            token = p[2]
            if len(p) == 5:
                mid = self.originals.get(token) if p[4] == "@original" else int(p[4])
                if mid is None:
                    return jr({"message": "Unknown Webhook", "code": 10015}, status=404)
                if m == "GET":
                    return jr(self.messages[mid])
                if m == "PATCH":
                    if p[4] == "@original":
                        self.loading.discard(token)
                    return self._edit(mid, body)
                if m == "DELETE":
                    if p[4] == "@original":
                        self.loading.discard(token)
                    self.deleted.add(mid)
                    return web.Response(status=204)
            if len(p) == 3 and m == "POST" and token in self.loading:  # resolves "thinking"
                self.loading.discard(token)
                return self._edit(self.originals[token], {**body, "flags": None})
            if len(p) == 3 and m == "POST":  # followup
                ephemeral = bool((body.get("flags") or 0) & 64)
                channel = self.interaction_channels.get(token, CHANNEL_ID)
                return jr(self._message(channel, body, interaction=True, ephemeral=ephemeral))
        if p[0] == "channels":
            cid = int(p[1])
            if m == "GET" and len(p) == 2:
                if cid in self.threads:
                    return jr(self.threads[cid])
                return jr(text_channel(cid))
            new_thread = m == "POST" and p[-1] == "threads" and len(p) in (3, 5)
            if new_thread and self.forbid_threads:  # on a message, or without one (len 3)
                return jr({"message": "Missing Permissions", "code": 50013}, status=403)
            if m == "PUT" and len(p) == 4 and p[2] == "thread-members":
                self.thread_members.setdefault(cid, []).append(int(p[3]))
                return web.Response(status=204)
            if new_thread:
                tid = next(self._ids)
                self.threads[tid] = thread_channel(tid, body["name"], parent=cid,
                                                   kind=int(body.get("type") or 11))
                self.threads[tid]["thread_metadata"]["auto_archive_duration"] = body.get(
                    "auto_archive_duration", 1440)
                if self._ready.is_set():  # Discord announces new threads on the gateway
                    asyncio.get_running_loop().create_task(
                        self.dispatch("THREAD_CREATE", {**self.threads[tid], "newly_created": True}))
                return jr(self.threads[tid])
            if m == "POST" and len(p) == 3 and p[2] == "messages":
                return jr(self._message(cid, body))
            if m == "GET" and len(p) == 3 and p[2] == "messages":  # history, newest first
                after = int(request.query.get("after") or 0)
                limit = int(request.query.get("limit") or 50)
                found = [msg for msg in self.channel_messages(cid) if int(msg["id"]) > after
                         and not msg["flags"] & 64]
                return jr(sorted(found, key=lambda x: -int(x["id"]))[:limit])
            if m == "PATCH" and len(p) == 4 and p[2] == "messages":
                return self._edit(int(p[3]), body)
            if m == "DELETE" and len(p) == 4 and p[2] == "messages":
                self.deleted.add(int(p[3]))
                return web.Response(status=204)
        return jr({"message": f"fake: unhandled {m} {path}", "code": 0}, status=404)

    def _callback(self, interaction_id: str, token: str, body: dict[str, Any]) -> web.Response:
        itype = body["type"]
        data = body.get("data") or {}
        ephemeral = bool((data.get("flags") or 0) & 64)
        resp: dict[str, Any] = {"interaction": {
            "id": interaction_id, "type": 2, "response_message_loading": itype == 5,
            "response_message_ephemeral": ephemeral}}
        channel = self.interaction_channels.get(interaction_id, CHANNEL_ID)
        self.interaction_channels[token] = channel
        if itype in (4, 5):  # CHANNEL_MESSAGE_WITH_SOURCE / DEFERRED_CHANNEL_MESSAGE
            msg = self._message(channel, data, interaction=True, ephemeral=ephemeral)
            self.originals[token] = int(msg["id"])
            if itype == 5:
                self.loading.add(token)
            resp["interaction"]["response_message_id"] = msg["id"]
            resp["resource"] = {"type": itype, "message": msg}
        elif itype in (6, 7):  # DEFERRED_UPDATE_MESSAGE / UPDATE_MESSAGE (component)
            resp["resource"] = {"type": itype}
            if interaction_id in self.interaction_messages:  # @original: the clicked message
                self.originals[token] = self.interaction_messages[interaction_id]
        return jr(resp)
