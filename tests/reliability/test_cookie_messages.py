"""Issue 12 defect 7: a chat message carrying ESPN cookies is refused, never echoed, stored,
checkpointed or logged. Real FanViseApp (ChatCore, runtime, checkpoints, app DB, demo league)
behind the real discord.py / slack-bolt adapters, against the fake Discord / Slack servers
(tests/bot/harness); only the chat platforms are fake.

After each scenario a secret scan covers: every request the bot sent to the platform, every
file of the data directory (app DB and checkpoint SQLite files, WAL included) and every log
record of every logger at DEBUG, read raw (no redaction filter: the values must never reach
a log call at all).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from pathlib import Path
from typing import Any

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.app import FanViseApp
from bot.discord.app import build_discord_bot
from bot.settings import Settings
from bot.slack.app import build_slack_app, serve_http
from tests.bot.harness import discord_events as ev
from tests.bot.harness import fake_discord as fd
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.servers import wait_for as poll_until

TOKEN = "fake.discord.token"
REQUESTER = 510000000000000001
S2 = "AEB" + "q7ZkX2p9" * 16  # 131 characters, like a real espn_s2
SWID = "{12345678-ABCD-4321-9876-0123456789AB}"
SECRETS = (S2, SWID, SWID[1:-1], S2[:40])


wait_for = functools.partial(poll_until, timeout=30.0)


def assert_no_cookie(where: str, text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"a cookie value leaked into {where}"


def scan_data_dir(data_dir: Path) -> None:
    files = [p for p in data_dir.rglob("*") if p.is_file()]
    assert any(p.name == "checkpoints.sqlite" for p in files), files
    assert any(p.name == "fanvise.sqlite" for p in files), files
    for path in files:
        raw = path.read_bytes()
        for secret in SECRETS:
            assert secret.encode() not in raw, f"a cookie value is stored in {path.name}"


def scan_logs(caplog: pytest.LogCaptureFixture) -> None:
    assert caplog.records, "nothing was logged: the DEBUG capture is not working"
    for rec in caplog.records:
        assert_no_cookie(f"log record {rec.name}", rec.getMessage() + (rec.exc_text or ""))


def debug_logs(caplog: pytest.LogCaptureFixture) -> None:
    """Every logger at DEBUG, captured raw at the root (no redaction filter)."""
    caplog.set_level(logging.DEBUG)
    for name in ("discord", "slack_bolt", "slack_sdk", "bot", "agents", "storage", "fantasy",
                 "langgraph", "aiosqlite"):
        caplog.set_level(logging.DEBUG, logger=name)


DISCORD_MESSAGES = [
    f"/link team=1 espn_s2={S2} swid={SWID}",
    f"link team=1 s2={S2} swid={SWID}",
    f"link team=1 espn_s2={S2}",
]


async def test_discord_thread_messages_with_cookies_are_refused_and_deleted(
        fake_discord, tmp_path, caplog):
    debug_logs(caplog)
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path))
    bot = build_discord_bot(app.core, app.settings, application_id=fd.APP_ID,
                            sync_commands=False)
    await bot.login(TOKEN)
    try:
        ev.feed(bot, "GUILD_CREATE", ev.guild_create([fd.text_channel()]))
        tid = fd.next_id()
        fake_discord.threads[tid] = fd.thread_channel(tid, "ask: who should I start?")
        for i, text in enumerate(DISCORD_MESSAGES, start=1):
            msg = ev.message_create(tid, REQUESTER, text)
            ev.feed(bot, "MESSAGE_CREATE", msg)
            # the member's message is deleted, and the bot answers the member only
            await fake_discord.wait_for("DELETE", rf"^/channels/{tid}/messages/{msg['id']}$")
            posts = await fake_discord.wait_for("POST", rf"^/channels/{tid}/messages$", count=i)
            assert len(posts) == i, "more than one reply to a refused message"
            reply = posts[-1].json
            content = reply["content"]
            assert content.startswith(f"<@{REQUESTER}> ")
            # no thread message can be ephemeral on Discord: the reply pings only that member
            assert reply["allowed_mentions"]["parse"] == []
            assert reply["allowed_mentions"].get("users") in ([str(REQUESTER)], [REQUESTER])
            assert "did not read, store or repeat it" in content
            assert "I deleted it" in content and "`/link`" in content
            assert "only visible to you" in content
            assert not reply.get("embeds") and not reply.get("components")
        await asyncio.sleep(0.3)  # nothing else may follow (no turn, no "Linked you")
        assert len(fake_discord.find("POST", rf"^/channels/{tid}/messages$")) == len(
            DISCORD_MESSAGES)
        assert not fake_discord.find("POST", "/threads$")
        links = await app.db.fetchall("SELECT * FROM league_links")
        assert links == []
        assert_no_cookie("a request to Discord", repr([r.json for r in fake_discord.requests]))
    finally:
        await bot.close()
        await app.close()
    scan_data_dir(tmp_path)
    scan_logs(caplog)


async def slack_bot(fake_slack, data_dir: Path) -> tuple[FanViseApp, Any, Any]:
    """A real FanViseApp behind slack-bolt over HTTP (the fake Slack API behind it): the
    app, the server runner and `post(body, json_body=False)`, which sends a signed request
    and returns the HTTP status."""
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=data_dir))
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url)
    bolt = build_slack_app(app.core, app.settings, client=client, signing_secret=sr.SECRET,
                           socket_mode=False)
    runner = await serve_http(bolt, host="127.0.0.1", port=0)
    url = f"http://127.0.0.1:{runner.addresses[0][1]}/slack/events"

    async def post(body: str, *, json_body: bool = False) -> int:
        import aiohttp
        ctype = "application/json" if json_body else "application/x-www-form-urlencoded"
        async with aiohttp.ClientSession() as s, s.post(
                url, data=body.encode(), headers=sr.signed_headers(body, content_type=ctype)) as r:
            return r.status

    return app, runner, post


async def test_slack_commands_and_mentions_with_cookies_are_refused_privately(
        fake_slack, tmp_path, caplog):
    debug_logs(caplog)
    app, runner, post = await slack_bot(fake_slack, tmp_path)
    try:
        # typos of the private /link: they would become public questions ("<@U> asked: ...")
        commands = [f"/link team=1 espn_s2={S2} swid={SWID}", f"team=1 espn_s2={S2}"]
        for i, text in enumerate(commands, start=1):
            body = sr.slash_body(text, response_url=fake_slack.response_url(f"r{i}"))
            assert await post(body) == 200
            replies = await wait_for(lambda i=i: len(fake_slack.responses) >= i
                                     and fake_slack.responses)
            reply = replies[i - 1]
            assert reply["rid"] == f"r{i}"
            assert reply.get("response_type", "ephemeral") == "ephemeral"
            assert "did not read, store or repeat it" in reply["text"]
            assert "Delete that message now" in reply["text"]
            assert "`/fanvise link`" in reply["text"]  # Slack's syntax: it has no /link
        # a mention carrying the undocumented s2= alias: refused with a private reply
        event = sr.mention(f"<@UBOT> link team=1 s2={S2} swid={SWID}", ts="1700000000.000100")
        assert await post(sr.event_body(event, event_id="Ev1"), json_body=True) == 200
        eph = await wait_for(lambda: fake_slack.named("chat.postEphemeral"))
        assert eph[0].body["user"] == "U_REQ"
        assert "did not read, store or repeat it" in eph[0].body["text"]
        await asyncio.sleep(0.3)
        # nothing public: no "<@U> asked:" header, no thread, no answer
        assert not fake_slack.named("chat.postMessage")
        assert not fake_slack.messages
        assert len(fake_slack.responses) == len(commands)
        assert await app.db.fetchall("SELECT * FROM league_links") == []
        assert_no_cookie("a Slack API call", repr([c.body for c in fake_slack.calls]))
        assert_no_cookie("a response_url post", repr(fake_slack.responses))
    finally:
        await runner.cleanup()
        await app.close()
    scan_data_dir(tmp_path)
    scan_logs(caplog)
