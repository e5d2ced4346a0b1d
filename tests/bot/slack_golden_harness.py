"""Shared pieces of the Slack golden-payload tests: the real FanViseApp (demo league, offline
model) behind the real slack-bolt app served on 127.0.0.1, against tests/bot/harness's fake
Slack Web API, and the payloads it received, normalised for comparison with a golden file
(ts counters and the fake's port replaced by placeholders; everything else as sent)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import aiohttp
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.app import FanViseApp
from bot.settings import Settings
from bot.slack.app import build_slack_app, serve_http
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.links import link

GOLDEN = Path(__file__).parent / "golden_slack"
#: FANVISE_UPDATE_GOLDEN=1 rewrites the golden files (review the diff before committing)
UPDATE = os.environ.get("FANVISE_UPDATE_GOLDEN") == "1"


class Running:
    """FanViseApp (None: a stand-in core) + bolt app served on an ephemeral port."""

    def __init__(self, app: FanViseApp | None, runner: Any) -> None:
        self.app, self.runner = app, runner
        self.url = f"http://127.0.0.1:{runner.addresses[0][1]}/slack/events"

    async def post(self, body: str, *, json_body: bool = False,
                   headers: dict[str, str] | None = None, **sign: Any) -> int:
        """Send `body` signed as Slack signs it (`sign`: signed_headers' secret / ts);
        returns the HTTP status."""
        ctype = "application/json" if json_body else "application/x-www-form-urlencoded"
        hdrs = {**sr.signed_headers(body, content_type=ctype, **sign), **(headers or {})}
        async with aiohttp.ClientSession() as s, s.post(self.url, data=body.encode(),
                                                        headers=hdrs) as r:
            return r.status

    async def close(self) -> None:
        await self.runner.cleanup()
        if self.app is not None:
            await self.app.close()


async def start(fake: Any, data_dir: Path, *, variant: str = "points") -> Running:
    """The real app on the demo league (`variant`), U_REQ linked to team 1."""
    app = await FanViseApp.open(Settings(data_dir=data_dir, demo_variant=variant))
    await link(app.core, "slack", sr.TEAM, "U_REQ", 1)
    # every answer is the immediate reply, however loaded the machine: the goldens hold no
    # "your answer is ready" direct message (tests/bot/test_quiet_channels.py tests it)
    app.core.notify_after = 1e9
    client = AsyncWebClient(token="xoxb-test", base_url=fake.base_url)
    bolt = build_slack_app(app.core, app.settings, client=client, signing_secret=sr.SECRET,
                           socket_mode=False)
    return Running(app, await serve_http(bolt, host="127.0.0.1", port=0))


def normalise(value: Any, port: int) -> Any:
    """A payload with the fake's ts counters and port replaced (stable across runs)."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    text = re.sub(r"1700000000\.\d{6}", "<ts>", text)
    text = text.replace(f"127.0.0.1:{port}", "<fake>")
    text = re.sub(r"Fetched (<!date\^\d+\^[^|]*\|[^>]*>|\w{3} \w{3} \d{1,2} \d\d:\d\d [A-Z]{3,4})",
                  "Fetched <date>", text)  # a player report's time of day: the clock
    text = re.sub(r"(?<![0-9a-f])[0-9a-f]{12}(?![0-9a-f])", "<id>", text)  # card, share ids
    return json.loads(text)


def check_golden(name: str, value: Any, port: int) -> None:
    """Compare `value` (normalised) with tests/bot/golden_slack/<name>.json."""
    got = normalise(value, port)
    path = GOLDEN / f"{name}.json"
    if UPDATE or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(got, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    assert got == json.loads(path.read_text()), f"{name}: payload differs from {path.name}"


def actions(msg: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for b in (msg.get("blocks") or []) if b["type"] == "actions"
            for e in b["elements"]]
