"""End to end on Slack: the real slack-bolt app served over HTTP on 127.0.0.1 + adapter + the
REAL ChatCore, runtime, LangGraph graphs and app DB on the demo league (offline model),
against the fake Slack Web API, with requests signed like Slack signs them.

/fanvise optimize -> ack -> thread -> progress chat.update (<= 1/s) -> card with buttons ->
stranger refused (ephemeral) -> restart (new app + new core, same data dir) -> requester
approves the old card (applied once, also under a double click) -> a retried event
(same event_id, X-Slack-Retry-Num) is handled once -> a bad signature is rejected.
"""

from __future__ import annotations

import asyncio
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.core.app import FanViseApp
from bot.settings import Settings
from bot.slack.app import build_slack_app, serve_http
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.links import link
from tests.bot.harness.servers import wait_for
from tests.bot.slack_golden_harness import Running, start
from tests.reliability.test_gemini_faults import FakeGemini


def actions(msg: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for b in (msg.get("blocks") or []) if b["type"] == "actions" for e in b["elements"]]


def card_ts(fake) -> str | None:
    return next((ts for ts, m in fake.messages.items() if actions(m)), None)


def ephemerals(fake, user: str) -> list[str]:
    return [c.body["text"] for c in fake.named("chat.postEphemeral") if c.body["user"] == user]


async def test_slack_end_to_end(fake_slack, tmp_path):
    run = await start(fake_slack, tmp_path)
    try:
        assert await run.post(sr.slash_body("optimize")) == 200
        ts = await wait_for(lambda: card_ts(fake_slack))
        root_ts = next(iter(fake_slack.messages))
        card = fake_slack.messages[ts]
        assert card["thread_ts"] == root_ts
        updates = [c for c in fake_slack.named("chat.update") if c.body["ts"] == ts]
        # <= 1 progress edit/s; the final state (the card) goes out at once
        gaps = [b.at - a.at for a, b in zip(updates[:-1], updates[1:-1], strict=False)]
        assert updates and all(g >= 0.9 for g in gaps), gaps
        ids = [a["action_id"] for a in actions(card)]
        approve_all = next(i for i in ids if i.startswith("fv:approveall:"))
        assert await run.post(sr.block_action_body(
            approve_all, clicker="U_OTHER", message_ts=ts, thread_ts=root_ts)) == 200
        refusal = await wait_for(lambda: ephemerals(fake_slack, "U_OTHER"))
        assert "can decide" in refusal[0]
        assert actions(fake_slack.messages[ts])  # still pending
    finally:
        await run.close()

    run = await start(fake_slack, tmp_path)  # restart on the same data dir
    try:
        click = sr.block_action_body(approve_all, clicker="U_REQ", message_ts=ts,
                                     thread_ts=root_ts)
        statuses = await asyncio.gather(run.post(click), run.post(click))  # double click
        assert statuses == [200, 200]
        await wait_for(lambda: not actions(fake_slack.messages[ts])
                       and "Decided by" in str(fake_slack.messages[ts]["blocks"]))
        dup = await wait_for(lambda: ephemerals(fake_slack, "U_REQ"))
        assert "already decided" in dup[0]
        moves = [c for c in run.app.espn.demo.changes if c.kind == "move"]
        assert len(moves) >= 1
        rows = await run.app.db.fetchall("SELECT result FROM audit WHERE user_id='U_REQ'")
        assert [r["result"] for r in rows].count("already-decided") == 1

        # a mention, then Slack's retry of the same event: answered once
        mention = sr.mention("<@UBOT> How is Jarrett Allen doing?", ts="1700001000.000001")
        body = sr.event_body(mention, event_id="EvE2E")
        assert await run.post(body, json_body=True) == 200
        assert await run.post(body, json_body=True,
                              headers={"X-Slack-Retry-Num": "1",
                                       "X-Slack-Retry-Reason": "http_timeout"}) == 200
        in_thread = await wait_for(lambda: [
            m for m in fake_slack.messages.values()
            if m["thread_ts"] == "1700001000.000001" and "Allen" in str(m["blocks"])])
        await asyncio.sleep(1.0)
        progress_posts = [c for c in fake_slack.named("chat.postMessage")
                          if c.body.get("thread_ts") == "1700001000.000001"]
        assert len(progress_posts) == len(in_thread) == 1
        # a bad signature is rejected before anything runs
        n = len(fake_slack.calls)
        assert await run.post(sr.slash_body("optimize"), secret="wrong") == 401
        await asyncio.sleep(0.2)
        assert len(fake_slack.calls) == n
        assert [c for c in run.app.espn.demo.changes if c.kind == "move"] == moves
    finally:
        await run.close()


def context_text(msg: dict[str, Any]) -> str:
    return " ".join(e.get("text", "") for b in (msg.get("blocks") or [])
                    if b["type"] == "context" for e in b["elements"])


async def test_slack_card_after_decline_and_per_move_decisions(fake_slack, tmp_path):
    """Block Kit buttons cannot be disabled: a decided card shows what happened in place of
    its buttons (Decided by ...: n applied, m skipped by you), and a per-move click removes
    only the buttons (and the menu) of the move it decided."""
    run = await start(fake_slack, tmp_path)
    try:
        assert await run.post(sr.slash_body("optimize")) == 200
        ts = await wait_for(lambda: card_ts(fake_slack))
        root_ts = fake_slack.messages[ts]["thread_ts"]
        ids = [a["action_id"] for a in actions(fake_slack.messages[ts])]
        per_move = [i for i in ids if i.startswith("fv:approve:")]
        assert len(per_move) >= 2
        # approve move #2: its buttons and its menu go, the card stays open
        assert await run.post(sr.block_action_body(per_move[1], clicker="U_REQ",
                                                   message_ts=ts, thread_ts=root_ts)) == 200
        await wait_for(lambda: per_move[1] not in [a["action_id"] for a in
                                                   actions(fake_slack.messages[ts])])
        skip_rest = next(a["action_id"] for a in actions(fake_slack.messages[ts])
                         if a["action_id"].startswith("fv:declineall:"))
        assert await run.post(sr.block_action_body(skip_rest, clicker="U_REQ",
                                                   message_ts=ts, thread_ts=root_ts)) == 200
        msg = await wait_for(lambda: (not actions(fake_slack.messages[ts])
                                      and "by <@U_REQ>" in context_text(fake_slack.messages[ts])
                                      and fake_slack.messages[ts]))
        assert "Decided by <@U_REQ>: 1 applied" in context_text(msg)  # a mention, no handle
        assert "u_req" not in str(msg["blocks"])
        assert "skipped by you" in context_text(msg)
    finally:
        await run.close()

    run = await start(fake_slack, tmp_path / "second")
    try:
        fake_slack.messages.clear()
        assert await run.post(sr.slash_body("optimize")) == 200
        ts = await wait_for(lambda: card_ts(fake_slack))
        root_ts = fake_slack.messages[ts]["thread_ts"]
        decline_all = next(a["action_id"] for a in actions(fake_slack.messages[ts])
                           if a["action_id"].startswith("fv:declineall:"))
        assert await run.post(sr.block_action_body(decline_all, clicker="U_REQ",
                                                   message_ts=ts, thread_ts=root_ts)) == 200
        msg = await wait_for(lambda: (not actions(fake_slack.messages[ts])
                                      and "Decided by" in context_text(fake_slack.messages[ts])
                                      and fake_slack.messages[ts]))
        assert "skipped by you" in context_text(msg) and "applied" not in context_text(msg)
        assert not [c for c in run.app.espn.demo.changes if c.kind == "move"]
    finally:
        await run.close()


async def test_slack_refused_commands_leave_no_orphan_message(fake_slack, tmp_path):
    """Real core: bad /fanvise player, a too-long question and the rate limit are refused
    privately (response_url) before any "<user> asked" root is posted."""
    # the limit protects the model: a configured one (Gemini, faked at the wire)
    gemini = FakeGemini(["Start your five best players today."])
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path, llm_burst=1,
                                         llm_per_minute=1), model=gemini.model(retries=0))
    await link(app.core, "slack", sr.TEAM, "U_REQ", 1)
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url)
    bolt = build_slack_app(app.core, app.settings, client=client, signing_secret=sr.SECRET,
                           socket_mode=False)
    run = Running(app, await serve_http(bolt, host="127.0.0.1", port=0))
    try:
        for i, (text, why) in enumerate([("player 123", "letters"),
                                         ("ask " + "x" * 2001, "keep questions under")], 1):
            url = fake_slack.response_url()
            assert await run.post(sr.slash_body(text, response_url=url)) == 200
            await wait_for(lambda i=i: len(fake_slack.responses) >= i)
            assert why in fake_slack.responses[-1]["text"]
        assert fake_slack.named("chat.postMessage") == []
        # accepted: root + thread; the next question hits the rate limit: nothing posted
        assert await run.post(sr.slash_body("who should I start today?")) == 200
        await wait_for(lambda: any("Daily lineup" in str(m["blocks"]) + m.get("text", "")
                                   for m in fake_slack.messages.values()))
        roots = [c for c in fake_slack.named("chat.postMessage") if not c.body.get("thread_ts")]
        url = fake_slack.response_url()
        assert await run.post(sr.slash_body("and tomorrow?", response_url=url)) == 200
        await wait_for(lambda: len(fake_slack.responses) >= 3)
        assert "asking quickly" in fake_slack.responses[-1]["text"]
        await asyncio.sleep(0.3)
        assert [c for c in fake_slack.named("chat.postMessage")
                if not c.body.get("thread_ts")] == roots and len(roots) == 1
    finally:
        await run.close()
