"""Socket Mode: the real AsyncSocketModeHandler connects (apps.connections.open -> websocket)
to the fake Slack on 127.0.0.1, receives envelopes, acks them and the adapter calls the core."""

from __future__ import annotations

import asyncio
import json
import time
from types import SimpleNamespace
from urllib.parse import parse_qsl

from slack_sdk.web.async_client import AsyncWebClient

from bot.core.models import ThreadRef
from bot.slack.app import build_slack_app, serve, use_socket_mode
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.scripted_core import ScriptedCore


async def wait_until(predicate, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)


def test_socket_mode_selection():
    assert use_socket_mode(SimpleNamespace(slack_app_token="xapp-1"))
    assert not use_socket_mode(SimpleNamespace(slack_app_token=None))
    assert not use_socket_mode(SimpleNamespace(slack_app_token=""))


async def test_socket_mode_slash_command_and_event(fake_slack):
    core = ScriptedCore()
    settings = SimpleNamespace(slack_app_token="xapp-1-test", slack_admin_user_ids="")
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url)
    app = build_slack_app(core, settings, client=client)  # no signing secret needed
    stop = asyncio.Event()
    task = asyncio.create_task(serve(app, settings, stop=stop))
    try:
        opened = await fake_slack.wait_for("apps.connections.open")
        assert opened[0].authorization == "Bearer xapp-1-test"
        slash = dict(parse_qsl(sr.slash_body("optimize")))
        await fake_slack.socket_send({"envelope_id": "env-1", "type": "slash_commands",
                                      "payload": slash, "accepts_response_payload": True})
        await wait_until(lambda: any(a.get("envelope_id") == "env-1"
                                     for a in fake_slack.socket_acks))
        await fake_slack.wait_for("chat.postMessage", 3)
        assert core.calls[0][3] == ("optimize", {"text": ""})
        event = json.loads(sr.event_body(sr.mention("<@UBOT> hi", ts="1700000500.000001"),
                                         event_id="EvSock"))
        for attempt in (0, 1):  # Slack re-sends the same event_id when it thinks it was lost
            await fake_slack.socket_send({"envelope_id": f"env-ev{attempt}", "type": "events_api",
                                          "payload": event, "retry_attempt": attempt,
                                          "retry_reason": "timeout" if attempt else "",
                                          "accepts_response_payload": False})
        await wait_until(lambda: len(core.calls) >= 2)
        await wait_until(lambda: {"env-ev0", "env-ev1"} <= {a.get("envelope_id")
                                                            for a in fake_slack.socket_acks})
        await asyncio.sleep(0.2)
        assert [c[0] for c in core.calls] == ["command", "message"]
        assert core.calls[1][1] == ThreadRef("slack", "T111", "C1", "1700000500.000001")
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


async def test_http_mode_serve_verifies_signatures_and_stops(fake_slack):
    import socket

    import aiohttp

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    core = ScriptedCore()
    settings = SimpleNamespace(slack_app_token=None, slack_port=port, slack_host="127.0.0.1",
                               slack_signing_secret=sr.SECRET, slack_admin_user_ids="")
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url)
    app = build_slack_app(core, settings, client=client)  # no app token: HTTP mode
    stop = asyncio.Event()
    task = asyncio.create_task(serve(app, settings, stop=stop))
    url = f"http://127.0.0.1:{port}/slack/events"
    try:
        body = sr.slash_body("help", response_url=fake_slack.response_url())
        async with aiohttp.ClientSession() as session:
            for _ in range(100):  # wait for the server to listen
                try:
                    async with session.post(url, data=body, headers=sr.signed_headers(
                            body, secret="bad")) as resp:
                        assert resp.status == 401
                    break
                except aiohttp.ClientConnectorError:
                    await asyncio.sleep(0.05)
            async with session.post(url, data=body, headers=sr.signed_headers(body)) as resp:
                assert resp.status == 200
        await wait_until(lambda: core.calls)
        assert core.calls[0][3] == ("help", {"text": ""})
        assert fake_slack.named("apps.connections.open") == []
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


def test_http_mode_without_signing_secret_is_a_config_error():
    """No combination builds an HTTP app that would answer every request 401."""
    import pytest

    core = ScriptedCore()
    client = AsyncWebClient(token="xoxb-test", base_url="http://127.0.0.1:9/api/")
    for settings in (SimpleNamespace(slack_app_token=None, slack_signing_secret=None),
                     SimpleNamespace(slack_app_token="", slack_signing_secret="")):
        with pytest.raises(ValueError, match="SLACK_SIGNING_SECRET"):
            build_slack_app(core, settings, client=client)
    with pytest.raises(ValueError, match="SLACK_SIGNING_SECRET"):
        build_slack_app(core, SimpleNamespace(slack_app_token="xapp-1"), client=client,
                        socket_mode=False)
    assert build_slack_app(core, SimpleNamespace(slack_app_token="xapp-1"), client=client)


async def test_socket_mode_stop_while_slack_is_unreachable():
    """connect_async retries forever when Slack cannot be reached: SIGTERM (stop) must still
    end `fanvise run slack`."""
    client = AsyncWebClient(token="xoxb-test", base_url="http://127.0.0.1:9/api/")
    settings = SimpleNamespace(slack_app_token="xapp-1-test", slack_admin_user_ids="")
    app = build_slack_app(ScriptedCore(), settings, client=client)
    stop = asyncio.Event()
    task = asyncio.create_task(serve(app, settings, stop=stop))
    await asyncio.sleep(0.5)
    assert not task.done()
    stop.set()
    await asyncio.wait_for(task, 5)


async def test_tokens_slack_refuses_stop_the_start(fake_slack):
    """A revoked/invalid token is a clear configuration error at start (naming the variable,
    never its value) instead of Socket Mode retrying forever or HTTP failing every request."""
    import pytest

    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url)
    settings = SimpleNamespace(slack_app_token="xapp-1-revoked-value", slack_admin_user_ids="")
    app = build_slack_app(ScriptedCore(), settings, client=client)
    fake_slack.fail_with = {"apps.connections.open": "invalid_auth"}
    with pytest.raises(ValueError, match=r"SLACK_APP_TOKEN \(invalid_auth\)") as info:
        await asyncio.wait_for(serve(app, settings, stop=asyncio.Event()), 10)
    assert "revoked-value" not in str(info.value)
    fake_slack.fail_with = {"auth.test": "token_revoked"}
    http = SimpleNamespace(slack_app_token=None, slack_signing_secret="s", slack_port=0,
                           slack_host="127.0.0.1", slack_admin_user_ids="")
    app = build_slack_app(ScriptedCore(), http, client=client)
    with pytest.raises(ValueError, match=r"SLACK_BOT_TOKEN \(token_revoked\)"):
        await asyncio.wait_for(serve(app, http, stop=asyncio.Event()), 10)
