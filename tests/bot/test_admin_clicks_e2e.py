"""Issue 25 item 9 through the real platforms: who may press a move card's buttons, with the
real discord.py client (against the fake Discord server) and the real slack-bolt app
served over HTTP (against the fake Slack Web API), on the real core and demo league.

- a member who is neither the requester nor the team's owner: refused privately;
- a server / workspace admin: refused for Approve plan and for one move's Approve, and
  allowed Skip all (a clean-up: every move declined, nothing made for the team);
- a double click of the admin's Skip all: decided once, the second told "already decided";
- an expired interaction: on Discord a click whose interaction token Discord no longer
  accepts still gets its answer (in the thread, mentioning the clicker); on Slack a
  replayed click older than five minutes is rejected before anything runs.
(bot/core alone: tests/reliability/test_card_authority.py.)
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.core.app import FanViseApp
from bot.settings import Settings
from bot.slack.app import build_slack_app, serve_http
from tests.bot.harness import discord_events as ev
from tests.bot.harness import fake_discord as fd
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.links import link
from tests.bot.harness.servers import wait_for
from tests.bot.test_chat_faults_e2e import dead_token
from tests.bot.test_discord_e2e import (
    REQUESTER,
    STRANGER,
    buttons,
    card_message,
    ephemerals,
    open_bot,
)
from tests.bot.test_slack_e2e import Running, actions, card_ts, context_text

ADMIN = 510000000000000009
ADMIN_ONLY_SKIP = "As an admin you can only skip this whole card"


async def audit_of(app: FanViseApp, user_id: str) -> list[str]:
    rows = await app.db.fetchall("SELECT result FROM audit WHERE user_id=? ORDER BY rowid",
                                 (user_id,))
    return [r["result"] for r in rows]


async def test_discord_admin_may_only_skip_all_once(fake_discord, tmp_path) -> None:
    app, bot = await open_bot(tmp_path)
    try:
        ev.send(bot, fake_discord, ev.slash("optimize", REQUESTER))
        thread_id = (await wait_for(lambda: list(fake_discord.threads)))[0]
        card = await wait_for(lambda: card_message(fake_discord, thread_id), timeout=30)
        thread = fd.thread_channel(thread_id, "optimize")
        ids = [b["custom_id"] for b in buttons(card)]
        approve_all = next(i for i in ids if i.startswith("fv:approveall:"))
        skip_all = next(i for i in ids if i.startswith("fv:declineall:"))
        approve_one = next(i for i in ids if i.startswith("fv:approve:"))
        drawn = fake_discord.messages[int(card["id"])]["components"]

        # the wrong user: refused privately
        ev.send(bot, fake_discord, ev.click(approve_all, STRANGER, card, thread))
        refusal = await wait_for(lambda: ephemerals(fake_discord))
        assert "can decide" in refusal[-1] and ADMIN_ONLY_SKIP not in refusal[-1]
        # an admin (Manage Server) may not approve the plan nor one move
        for cid in (approve_all, approve_one):
            n = len(ephemerals(fake_discord))
            ev.send(bot, fake_discord, ev.click(cid, ADMIN, card, thread, admin=True))
            said = await wait_for(lambda n=n: ephemerals(fake_discord)[n:])
            assert ADMIN_ONLY_SKIP in said[0], said
        # an expired interaction token: the refusal still reaches the admin, in the thread
        fake_discord.on_request = dead_token(401, 50027, "Invalid Webhook Token")
        ev.send(bot, fake_discord, ev.click(approve_all, ADMIN, card, thread, admin=True))
        late = await wait_for(lambda: [m for m in fake_discord.channel_messages(thread_id)
                                       if f"<@{ADMIN}>" in (m.get("content") or "")])
        assert ADMIN_ONLY_SKIP in late[0]["content"]
        fake_discord.on_request = None
        assert fake_discord.messages[int(card["id"])]["components"] == drawn
        assert not [c for c in app.espn.demo.changes if c.kind == "move"]

        # the admin's Skip all, clicked twice at once: the card closes once, nothing made
        n = len(ephemerals(fake_discord))
        ev.send(bot, fake_discord, ev.click(skip_all, ADMIN, card, thread, admin=True))
        ev.send(bot, fake_discord, ev.click(skip_all, ADMIN, card, thread, admin=True))
        closed = await wait_for(lambda: (
            all(b.get("disabled") or b.get("url") for b in buttons(
                fake_discord.messages[int(card["id"])]))
            and "Decided by" in fd.message_text(fake_discord.messages[int(card["id"])])))
        assert closed
        text = fd.message_text(fake_discord.messages[int(card["id"])])
        assert "Decided by user9: " in text and "skipped by you" in text \
            and "applied" not in text.split("Decided by", 1)[1].split("\n")[0]
        dup = await wait_for(lambda: ephemerals(fake_discord)[n:])
        assert "already decided" in dup[0]
        results = await audit_of(app, str(ADMIN))
        assert results.count("admin clean-up") == 1 and results.count("already-decided") == 1
        assert results.count("refused") == 3  # Approve plan, one move, the expired token's
        (row,) = await app.db.fetchall("SELECT status, decided_by FROM cards")
        assert (row["status"], row["decided_by"]) == ("declined", str(ADMIN))
        assert not [c for c in app.espn.demo.changes if c.kind == "move"]
        # the requester's late click changes nothing
        n = len(ephemerals(fake_discord))
        ev.send(bot, fake_discord, ev.click(approve_all, REQUESTER,
                                            fake_discord.messages[int(card["id"])], thread))
        assert "already decided" in (await wait_for(lambda: ephemerals(fake_discord)[n:]))[0]
        assert not [c for c in app.espn.demo.changes if c.kind == "move"]
    finally:
        await bot.close()
        await app.close()


def slack_ephemerals(fake: Any, user: str) -> list[str]:
    return [c.body["text"] for c in fake.named("chat.postEphemeral") if c.body["user"] == user]


async def test_slack_admin_may_only_skip_all_once(fake_slack, tmp_path) -> None:
    app = await FanViseApp.open(Settings(data_dir=tmp_path))
    await link(app.core, "slack", sr.TEAM, "U_REQ", 1)
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url)
    bolt = build_slack_app(app.core, app.settings, client=client, signing_secret=sr.SECRET,
                           socket_mode=False, admin_user_ids="U_ADMIN")
    run = Running(app, await serve_http(bolt, host="127.0.0.1", port=0))
    try:
        assert await run.post(sr.slash_body("optimize")) == 200
        ts = await wait_for(lambda: card_ts(fake_slack), timeout=30)
        root_ts = fake_slack.messages[ts]["thread_ts"]
        ids = [a["action_id"] for a in actions(fake_slack.messages[ts])]
        approve_all = next(i for i in ids if i.startswith("fv:approveall:"))
        skip_all = next(i for i in ids if i.startswith("fv:declineall:"))
        approve_one = next(i for i in ids if i.startswith("fv:approve:"))

        def click(action: str, who: str) -> str:
            return sr.block_action_body(action, clicker=who, message_ts=ts, thread_ts=root_ts)

        # the wrong user: refused privately
        assert await run.post(click(approve_all, "U_OTHER")) == 200
        said = await wait_for(lambda: slack_ephemerals(fake_slack, "U_OTHER"))
        assert "can decide" in said[0] and ADMIN_ONLY_SKIP not in said[0]
        # a workspace admin may not approve the plan nor one move
        for n, cid in enumerate((approve_all, approve_one)):
            assert await run.post(click(cid, "U_ADMIN")) == 200
            said = await wait_for(lambda n=n: slack_ephemerals(fake_slack, "U_ADMIN")[n:])
            assert ADMIN_ONLY_SKIP in said[0], said
        assert actions(fake_slack.messages[ts])  # still pending
        # an expired interaction: a Skip all replayed 10 minutes late is rejected unread
        calls = len(fake_slack.calls)
        assert await run.post(click(skip_all, "U_ADMIN"), ts=int(time.time()) - 600) == 401
        await asyncio.sleep(0.3)
        assert len(fake_slack.calls) == calls and actions(fake_slack.messages[ts])

        # the admin's Skip all, clicked twice at once: the card closes once, nothing made
        statuses = await asyncio.gather(run.post(click(skip_all, "U_ADMIN")),
                                        run.post(click(skip_all, "U_ADMIN")))
        assert statuses == [200, 200]
        msg = await wait_for(lambda: (not actions(fake_slack.messages[ts])
                                      and "Decided by" in context_text(fake_slack.messages[ts])
                                      and fake_slack.messages[ts]))
        footer = context_text(msg)
        # the decider is mentioned (Slack shows the member), never a raw handle
        assert "Decided by <@U_ADMIN>: " in footer and "skipped by you" in footer \
            and "applied" not in footer, footer
        dup = await wait_for(lambda: slack_ephemerals(fake_slack, "U_ADMIN")[2:])
        assert "already decided" in dup[0]
        results = await audit_of(app, "U_ADMIN")
        assert results.count("admin clean-up") == 1 and results.count("already-decided") == 1
        assert results.count("refused") == 2
        (row,) = await app.db.fetchall("SELECT status, decided_by FROM cards")
        assert (row["status"], row["decided_by"]) == ("declined", "U_ADMIN")
        assert not [c for c in app.espn.demo.changes if c.kind == "move"]
    finally:
        await run.close()
