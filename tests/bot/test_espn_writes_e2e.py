"""Writes end to end through the real chat libraries: discord.py against the fake Discord
server and slack-bolt served over HTTP against the fake Slack API, on the real app (ChatCore,
runtime, graphs, app DB). A "Set this lineup" tap and an approval go out as transaction POSTs
of exactly the documented shape (reference/espn-api.md section 9), recorded at the wire: the
demo league's transport serves ESPN's endpoint."""

from __future__ import annotations

import copy
import json
from typing import Any

import httpx
import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.app import FanViseApp
from bot.core.handoff import WritesConfig
from bot.discord.app import build_discord_bot
from bot.settings import Settings
from bot.slack.app import build_slack_app, serve_http
from fantasy.demo.league import DemoTransport
from tests.bot.harness import discord_events as ev
from tests.bot.harness import fake_discord as fd
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.links import link
from tests.bot.harness.servers import wait_for
from tests.bot.test_slack_e2e import Running, actions

TOKEN = "fake.discord.token"
ALEX = 540000000000000021   # Hoop Dreamers (team 1)
COMMON = {"isLeagueManager", "teamId", "type", "memberId", "scoringPeriodId", "executionType",
          "items"}


class Wire(DemoTransport):
    """The demo's ESPN endpoint, recording every transaction POST body."""

    def __init__(self, league: Any) -> None:
        super().__init__(league)
        self.bodies: list[dict[str, Any]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            self.bodies.append(json.loads(request.content))
        return await super().handle_async_request(request)


def record_writes(app: FanViseApp) -> Wire:
    wire = Wire(app.espn.demo)
    app.core.writes_config = WritesConfig(transport=wire)
    return wire


def check_lineup_body(body: dict[str, Any], app: FanViseApp, kind: str = "LINEUP") -> None:
    demo = app.espn.demo
    assert set(body) == COMMON
    assert body["type"] == kind and body["executionType"] == "EXECUTE"
    assert body["isLeagueManager"] is False and body["teamId"] == 1
    assert body["memberId"] == "{DEMO-MEMBER-01}"  # the team's owner
    assert (body["scoringPeriodId"] == demo.today_sp) == (kind == "LINEUP")
    assert body["items"]
    for item in body["items"]:
        assert set(item) == {"playerId", "type", "fromLineupSlotId", "toLineupSlotId"}
        assert item["type"] == "LINEUP" and item["fromLineupSlotId"] != item["toLineupSlotId"]


def check_move_body(body: dict[str, Any]) -> None:
    assert set(body) == COMMON | ({"bidAmount"} if body["type"] == "WAIVER" else set())
    assert body["type"] in ("FREEAGENT", "WAIVER") and body["executionType"] == "EXECUTE"
    assert body["isLeagueManager"] is False and body["teamId"] == 1
    adds = [i for i in body["items"] if i["type"] == "ADD"]
    drops = [i for i in body["items"] if i["type"] == "DROP"]
    assert len(adds) == 1 and set(adds[0]) == {"playerId", "type", "toTeamId"}
    assert adds[0]["toTeamId"] == 1
    assert all(set(d) == {"playerId", "type", "fromTeamId"} and d["fromTeamId"] == 1
               for d in drops)


def buttons(msg: dict[str, Any]) -> list[dict[str, Any]]:
    return fd.controls(msg)


def message_with(fake: fd.FakeDiscord, channel: int, label: str) -> dict[str, Any] | None:
    for m in fake.channel_messages(channel):
        if any(b.get("label") == label for b in buttons(m)):
            return m
    return None


async def test_discord_set_this_lineup_and_the_rest_of_the_week(fake_discord, tmp_path):
    app = await FanViseApp.open(Settings(data_dir=tmp_path))
    wire = record_writes(app)
    await link(app.core, "discord", fd.GUILD_ID, ALEX, 1)
    bot = build_discord_bot(app.core, app.settings, application_id=fd.APP_ID,
                            sync_commands=False)
    await bot.login(TOKEN)
    try:
        ev.send(bot, fake_discord, ev.slash("lineup", ALEX))
        # /lineup is personal: a private answer in the channel, no thread
        thread_id = fd.CHANNEL_ID
        card = copy.deepcopy(await wait_for(
            lambda: message_with(fake_discord, thread_id, "Post to channel")))
        assert card["flags"] & 64 and not fake_discord.threads
        labels = [b["label"] for b in buttons(card)]
        assert labels == ["Set this lineup", "Set the rest of the week", "Post to channel"]
        thread = fd.text_channel()
        today = next(b for b in buttons(card) if b["label"] == "Set this lineup")
        ev.send(bot, fake_discord, ev.click(today["custom_id"], ALEX, card, thread))
        await wait_for(lambda: wire.bodies)
        [body] = wire.bodies
        check_lineup_body(body, app)
        done = await wait_for(lambda: [m for m in fake_discord.channel_messages(thread_id)
                                       if "Lineup set" in str(m["embeds"])])
        assert done
        rows = await app.app_db.writes()
        assert [r.status for r in rows] == ["done"] and rows[0].kind == "LINEUP"
        assert rows[0].actor == f"discord:{ALEX}" and rows[0].verification["read"] == "mRoster"
        # the rest of the week: each later day as FUTURE_ROSTER, read for that day first
        week = next(b for b in buttons(card) if b["label"] == "Set the rest of the week")
        ev.send(bot, fake_discord, ev.click(week["custom_id"], ALEX, card, thread))
        await wait_for(lambda: len(wire.bodies) > 1 and any(
            "rest of the week" in (r.json.get("content") or "")
            for r in fake_discord.find("POST", r"^/webhooks/")))
        future = wire.bodies[1:]
        assert future and all(b["scoringPeriodId"] > app.espn.demo.today_sp for b in future)
        for b in future:
            check_lineup_body(b, app, "FUTURE_ROSTER")
        days = [b["scoringPeriodId"] for b in future]
        assert days == sorted(set(days))  # one POST per day at most, in order
        # a second tap on "Set this lineup" sends nothing more
        n = len(wire.bodies)
        ev.send(bot, fake_discord, ev.click(today["custom_id"], ALEX, card, thread))
        await wait_for(lambda: any("already set" in (r.json.get("content") or "")
                                   for r in fake_discord.find("POST", r"^/webhooks/")))
        assert len(wire.bodies) == n
    finally:
        await bot.close()
        await app.close()


async def test_slack_set_this_lineup(fake_slack, tmp_path):
    app = await FanViseApp.open(Settings(data_dir=tmp_path))
    wire = record_writes(app)
    await link(app.core, "slack", sr.TEAM, "U_REQ", 1)
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url)
    bolt = build_slack_app(app.core, app.settings, client=client, signing_secret=sr.SECRET,
                           socket_mode=False)
    run = Running(app, await serve_http(bolt, host="127.0.0.1", port=0))
    try:
        # /fanvise lineup is personal: answered privately (its response_url)
        assert await run.post(sr.slash_body("lineup",
                                            response_url=fake_slack.response_url())) == 200

        def lineup_card() -> tuple[dict[str, Any], dict[str, Any]] | None:
            for m in fake_slack.responses:
                for a in actions(m):
                    if a["text"]["text"] == "Set this lineup":
                        return m, a
            return None
        msg, button = await wait_for(lineup_card)
        assert await run.post(sr.block_action_body(
            button["action_id"], clicker="U_REQ", message_ts="1700000009.000001",
            thread_ts="", ephemeral={"message": {"text": msg["text"], "blocks": msg["blocks"]},
                                     "response_url": fake_slack.response_url("fix")})) == 200
        await wait_for(lambda: wire.bodies)
        [body] = wire.bodies
        check_lineup_body(body, app)
        await wait_for(lambda: [m for m in fake_slack.responses
                                if m["rid"] == "fix" and "Lineup set" in str(m.get("blocks"))])
    finally:
        await run.close()
@pytest.fixture
def wire(monkeypatch) -> Any:
    """Every transaction POST any demo transport serves (the graph's writer makes its own)."""
    seen = type("Seen", (), {"bodies": []})()
    serve = DemoTransport.handle_async_request

    async def recording(self: DemoTransport, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            seen.bodies.append(json.loads(request.content))
        return await serve(self, request)
    monkeypatch.setattr(DemoTransport, "handle_async_request", recording)
    return seen


async def test_discord_approval_goes_through_the_transaction_endpoint(fake_discord, tmp_path,
                                                                       wire):
    app = await FanViseApp.open(Settings(data_dir=tmp_path))
    await link(app.core, "discord", fd.GUILD_ID, ALEX, 1)
    bot = build_discord_bot(app.core, app.settings, application_id=fd.APP_ID,
                            sync_commands=False)
    await bot.login(TOKEN)
    try:
        ev.send(bot, fake_discord, ev.slash("optimize", ALEX))
        thread_id = (await wait_for(lambda: list(fake_discord.threads)))[0]

        def card() -> dict[str, Any] | None:
            for m in fake_discord.channel_messages(thread_id):
                if any(b["custom_id"].startswith("fv:approveall:") for b in buttons(m)):
                    return m
            return None
        msg = await wait_for(card)
        approve = next(b["custom_id"] for b in buttons(msg)
                       if b["custom_id"].startswith("fv:approveall:"))
        thread = fd.thread_channel(thread_id, "optimize")
        ev.send(bot, fake_discord, ev.click(approve, ALEX, msg, thread))
        await wait_for(lambda: "Decided by" in fd.message_text(
            fake_discord.messages[int(msg["id"])]))
        moves = [b for b in wire.bodies if b["type"] in ("FREEAGENT", "WAIVER")]
        assert moves, "no approved move went through the transaction endpoint"
        for b in moves:
            check_move_body(b)
            assert b["memberId"] == "{DEMO-MEMBER-01}"
            assert b["scoringPeriodId"] == app.espn.demo.today_sp
        made = [c for c in app.espn.demo.changes if c.kind == "move"]
        assert len(made) == len([b for b in moves if b["type"] == "FREEAGENT"])
    finally:
        await bot.close()
        await app.close()


async def test_slack_approval_goes_through_the_transaction_endpoint(fake_slack, tmp_path, wire):
    app = await FanViseApp.open(Settings(data_dir=tmp_path))
    await link(app.core, "slack", sr.TEAM, "U_REQ", 1)
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url)
    bolt = build_slack_app(app.core, app.settings, client=client, signing_secret=sr.SECRET,
                           socket_mode=False)
    run = Running(app, await serve_http(bolt, host="127.0.0.1", port=0))
    try:
        assert await run.post(sr.slash_body("optimize")) == 200

        def card() -> tuple[str, str] | None:
            for ts, m in fake_slack.messages.items():
                for a in actions(m):
                    if a["action_id"].startswith("fv:approveall:"):
                        return ts, a["action_id"]
            return None
        ts, approve_all = await wait_for(card)
        root = fake_slack.messages[ts].get("thread_ts") or ts
        assert await run.post(sr.block_action_body(approve_all, clicker="U_REQ",
                                                   message_ts=ts, thread_ts=root)) == 200
        await wait_for(lambda: "Decided by" in str(fake_slack.messages[ts]["blocks"]))
        moves = [b for b in wire.bodies if b["type"] in ("FREEAGENT", "WAIVER")]
        assert moves
        for b in moves:
            check_move_body(b)
            assert b["memberId"] == "{DEMO-MEMBER-01}"
    finally:
        await run.close()
