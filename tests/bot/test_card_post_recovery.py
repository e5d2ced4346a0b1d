"""Issue 25 item 5: a bot killed between posting a card's message and storing its id. The
restarted bot finds the message it posted (Discord channel history, Slack thread replies)
and draws the card into it: no second "<@member>, review these moves:" (no second ping), no
message left without its card. Real FanViseApp behind the real discord.py client / Slack
surface, against the fake platforms (tests/bot/harness); the crash is the database state
a kill at `card:post-sent` leaves (the SIGKILL sweep itself: tests/reliability).
"""

from __future__ import annotations

import time

from slack_sdk.web.async_client import AsyncWebClient

from bot.core.app import FanViseApp
from bot.core.models import OutgoingMessage, ThreadRef
from bot.discord.app import build_discord_bot
from bot.settings import Settings
from bot.slack.surface import SlackSurface
from tests.bot.harness import discord_events as ev
from tests.bot.harness import fake_discord as fd
from tests.bot.harness.links import link
from tests.bot.harness.servers import wait_for
from tests.bot.test_discord_e2e import REQUESTER, TOKEN, card_message

HEAD = "review these moves"


async def open_bot(data_dir) -> tuple[FanViseApp, object]:
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=data_dir, edit_interval=0.2))
    await link(app.core, "discord", fd.GUILD_ID, REQUESTER, 1)
    bot = build_discord_bot(app.core, app.settings, application_id=fd.APP_ID,
                            sync_commands=False)
    await bot.login(TOKEN)
    return app, bot


def head_posts(fake: fd.FakeDiscord, thread_id: int) -> list[dict]:
    return [r.json for r in fake.find("POST", rf"^/channels/{thread_id}/messages$")
            if HEAD in (r.json.get("content") or "")]


async def test_discord_restart_adopts_the_card_message_a_kill_left_without_an_id(
        fake_discord, tmp_path) -> None:
    app, bot = await open_bot(tmp_path)
    try:
        ev.send(bot, fake_discord, ev.slash("optimize", REQUESTER))
        thread_id = (await wait_for(lambda: list(fake_discord.threads)))[0]
        card = await wait_for(lambda: card_message(fake_discord, thread_id), timeout=30)
        mid = card["id"]
        assert len(head_posts(fake_discord, thread_id)) == 1
    finally:
        await bot.close()
        await app.close()
    # what a kill right after the post leaves: the head posted, its id and the card not
    # stored, the intent recorded a moment before
    fake_discord.messages[int(mid)].update(embeds=[], components=[], flags=0,
                                           content=f"<@{REQUESTER}>, {HEAD}:")
    app, bot = await open_bot(tmp_path)
    try:
        await app.db.execute("UPDATE cards SET message_id=NULL, shown=0, posting_at=?",
                             (time.time() - 2,))
        await app.core.recover({"discord": bot.surface})
        assert len(head_posts(fake_discord, thread_id)) == 1, "the requester was pinged again"
        drawn = fake_discord.messages[int(mid)]
        assert fd.controls(drawn) and "**1. " in fd.message_text(drawn), \
            "the card was not drawn into it"
        (row,) = await app.db.fetchall("SELECT message_id, shown FROM cards")
        assert row["message_id"] == mid and row["shown"] == 1
        heads = [m for m in fake_discord.channel_messages(thread_id)
                 if HEAD in fd.message_text(m)]
        assert [m["id"] for m in heads] == [mid]
    finally:
        await bot.close()
        await app.close()


async def test_discord_find_messages_matches_text_author_and_time(fake_discord,
                                                                  tmp_path) -> None:
    app, bot = await open_bot(tmp_path)
    try:
        tid = fd.next_id()
        thread = ThreadRef("discord", str(fd.GUILD_ID), str(fd.CHANNEL_ID), str(tid))
        head = OutgoingMessage(f"<@{REQUESTER}>, {HEAD}:", mentions=(str(REQUESTER),))
        since = time.time()
        first = await bot.surface.post(thread, head)
        await bot.surface.post(thread, OutgoingMessage("something else"))
        second = await bot.surface.post(thread, head)
        assert await bot.surface.find_messages(thread, head, since) == [second, first]
        assert await bot.surface.find_messages(thread, head, time.time() + 60) == []
        other = ThreadRef("discord", str(fd.GUILD_ID), str(fd.CHANNEL_ID), str(fd.next_id()))
        assert await bot.surface.find_messages(other, head, since) == []
    finally:
        await bot.close()
        await app.close()


async def test_slack_find_messages_matches_the_thread_and_the_text(fake_slack) -> None:
    surface = SlackSurface(AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url))
    root = await surface.post(ThreadRef("slack", "T1", "C1", ""), OutgoingMessage("root"))
    thread = ThreadRef("slack", "T1", "C1", root)
    head = OutgoingMessage(f"<@U_REQ>, {HEAD}:", mentions=("U_REQ",))
    first = await surface.post(thread, head)
    await surface.post(thread, OutgoingMessage("something else"))
    second = await surface.post(thread, head)
    assert await surface.find_messages(thread, head, time.time()) == [second, first]
    call = fake_slack.named("conversations.replies")[-1]
    assert call.body["ts"] == root and float(call.body["oldest"]) > 1.7e9
    elsewhere = ThreadRef("slack", "T1", "C2", root)
    assert await surface.find_messages(elsewhere, head, time.time()) == []
