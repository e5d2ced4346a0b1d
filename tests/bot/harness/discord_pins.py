"""Discord's pin routes for the fake Discord server (`FakeDiscord`), through its
`on_request` hook so fake_discord.py stays as it is:

    serve_pins(fake_discord)          # PUT/DELETE /channels/{c}/messages/pins/{m}
    fake_discord.pinned               # {channel id: [message ids]}

discord.py 2.7 pins with PUT /channels/{channel}/messages/pins/{message} (204)."""

from __future__ import annotations

import re
from typing import Any

from aiohttp import web

from tests.bot.harness.fake_discord import FakeDiscord, Req, jr

_PIN = re.compile(r"^/channels/(\d+)/(?:messages/)?pins/(\d+)$")


def serve_pins(fake: FakeDiscord) -> FakeDiscord:
    """Answer pin requests (chained before any `on_request` already set)."""
    before = fake.on_request
    pinned: dict[int, list[int]] = {}
    fake.pinned = pinned  # type: ignore[attr-defined]

    def handle(req: Req) -> web.Response | None:
        m = _PIN.match(req.path)
        if m and req.method in ("PUT", "DELETE"):
            cid, mid = int(m[1]), int(m[2])
            msg: dict[str, Any] | None = fake.messages.get(mid)
            if msg is None or mid in fake.deleted:
                return jr({"message": "Unknown Message", "code": 10008}, status=404)
            ids = pinned.setdefault(cid, [])
            if req.method == "PUT" and mid not in ids:
                ids.append(mid)
            elif req.method == "DELETE" and mid in ids:
                ids.remove(mid)
            msg["pinned"] = mid in ids
            return web.Response(status=204)
        return before(req) if before is not None else None

    fake.on_request = handle
    return fake
