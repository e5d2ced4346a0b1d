"""Quiet channels (issue 35, Deliver 2): nothing a member asks with a slash command appears
in the channel, through the real slack-bolt and discord.py code over the fake servers with
the real ChatCore on the demo league.

- Slack: the conversation's root names the command and what the conversation is, never the
  command's text ("*Question* · `/fanvise ask`"); nothing posted publicly quotes it.
- Discord: the conversation is a private thread (no "FanVise started a thread: <name>" in
  the channel) named by what it is and whose ("Question · <member>"), never by the text.
"""

from __future__ import annotations

from tests.bot.harness import discord_events as ev
from tests.bot.harness import fake_discord as fd
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.servers import wait_for
from tests.bot.test_platform_chat import (
    REQUESTER,
    TEAM_1,
    _discord,
    _quiet,
    _send,
    _slack,
    _strings,
)

QUESTION = "would trading for a backup center help my rebounding this week"
FOCUS = "REB BLK"


def _public_slack_texts(fake) -> list[str]:
    """Every text FanVise showed the channel (posts and edits; ephemerals left out)."""
    return [s for c in fake.calls if c.method in ("chat.postMessage", "chat.update")
            for s in _strings(c.body)]


async def test_slack_conversation_root_never_quotes_the_command(fake_slack, tmp_path):
    run = await _slack(fake_slack, tmp_path)
    try:
        assert await run.post(sr.slash_body(f"ask {QUESTION}",
                                            response_url=fake_slack.response_url())) == 200
        await wait_for(lambda: len(fake_slack.messages) >= 2, timeout=60)
        await _quiet(lambda: len(fake_slack.calls))
        root = next(iter(fake_slack.messages.values()))
        assert root["text"] == "*Question* · `/fanvise ask`"
        replies = [m for m in fake_slack.messages.values() if m.get("thread_ts")]
        assert replies, "the answer is in the conversation's thread"
        shown = "\n".join(_public_slack_texts(fake_slack)).lower()
        assert QUESTION not in shown and "backup center" not in shown

        assert await run.post(sr.slash_body(f"optimize {FOCUS}",
                                            response_url=fake_slack.response_url())) == 200
        await wait_for(lambda: any(m.get("text") == f"*Matchup review · {TEAM_1}* · "
                                   "`/fanvise optimize`" for m in fake_slack.messages.values()),
                       timeout=60)
        await _quiet(lambda: len(fake_slack.calls))
        roots = [m["text"] for m in fake_slack.messages.values() if not m.get("thread_ts")]
        assert all(FOCUS not in t for t in roots), roots
    finally:
        await run.close()


async def test_discord_conversations_are_private_threads_named_without_the_question(
        fake_discord, tmp_path):
    app, bot = await _discord(tmp_path)
    try:
        _send(bot, fake_discord, ev.slash("ask", REQUESTER, {"question": QUESTION}))
        thread_id = (await wait_for(lambda: list(fake_discord.threads), timeout=60))[0]
        thread = fake_discord.threads[thread_id]
        assert thread["type"] == 12  # private: nothing about it in the channel
        assert thread["name"].startswith("Question · ")
        assert "backup center" not in thread["name"] and "rebounding" not in thread["name"]
        assert REQUESTER in fake_discord.thread_members.get(thread_id, [])
        await wait_for(lambda: fake_discord.channel_messages(thread_id), timeout=60)
        await _quiet(lambda: len(fake_discord.requests))
        in_channel = [fd.message_text(m) for m in fake_discord.messages.values()
                      if int(m["channel_id"]) == fd.CHANNEL_ID and not m["flags"] & 64]
        assert not [t for t in in_channel if "backup center" in t.lower()], in_channel

        _send(bot, fake_discord, ev.slash("optimize", REQUESTER, {"focus": FOCUS}))
        await wait_for(lambda: len(fake_discord.threads) > 1, timeout=60)
        named = [t["name"] for t in fake_discord.threads.values()]
        assert f"Matchup review · {TEAM_1}" in named and all(FOCUS not in n for n in named)
        assert all(t["type"] == 12 for t in fake_discord.threads.values())
    finally:
        await bot.close()
        await app.close()


# ------------------------------------------------------- a slow private answer notifies

async def test_slack_slow_private_answer_notifies_its_member_by_direct_message(
        fake_slack, tmp_path):
    run = await _slack(fake_slack, tmp_path)
    try:
        run.app.core.notify_after = 1e9  # the immediate reply: the member is looking
        assert await run.post(sr.slash_body("lineup",
                                            response_url=fake_slack.response_url())) == 200
        await wait_for(lambda: fake_slack.responses, timeout=60)
        await _quiet(lambda: len(fake_slack.calls) + len(fake_slack.responses))
        assert not [c for c in fake_slack.named("chat.postMessage")
                    if c.body.get("channel") == "U_REQ"]
        run.app.core.notify_after = 0.0  # every answer is late: an ephemeral notifies nobody
        assert await run.post(sr.slash_body("matchup",
                                            response_url=fake_slack.response_url())) == 200
        told = await wait_for(lambda: [c for c in fake_slack.named("chat.postMessage")
                                       if c.body.get("channel") == "U_REQ"], timeout=60)
        assert told[0].body["text"] == (f"Your `/fanvise matchup` answer is ready in "
                                        f"<#{sr.CHANNEL}> (only you can see it).")
    finally:
        await run.close()


async def test_discord_slow_private_answer_notifies_its_member_by_direct_message(
        fake_discord, tmp_path):
    app, bot = await _discord(tmp_path)
    try:
        app.core.notify_after = 1e9
        _send(bot, fake_discord, ev.slash("matchup", REQUESTER))
        await fake_discord.wait_for("PATCH", r"/messages/\d+$", timeout=60)  # Post to channel
        await _quiet(lambda: len(fake_discord.requests))
        assert not fake_discord.dms
        app.core.notify_after = 0.0
        _send(bot, fake_discord, ev.slash("lineup", REQUESTER))
        dm = await wait_for(lambda: next(iter(fake_discord.dms), None), timeout=60)
        assert fake_discord.dms[dm] == REQUESTER
        note = await wait_for(lambda: fake_discord.channel_messages(dm), timeout=30)
        assert note[0]["content"] == (f"Your `/lineup` answer is ready in <#{fd.CHANNEL_ID}> "
                                      "(only you can see it).")
    finally:
        await bot.close()
        await app.close()
