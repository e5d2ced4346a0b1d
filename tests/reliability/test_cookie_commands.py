"""Issue 25 item 1: a slash command whose text carries ESPN cookies never writes them
anywhere public. Discord's public commands used to edit their response to "<@user> asked:
/ask link team=1 espn_s2=AEB…" before the core noticed the cookies; now the one credential
guard (bot.core.commands.carries_credentials) runs before the adapter defers, so the whole
exchange is private. Real FanViseApp behind the real discord.py / slack-bolt adapters against
the fake Discord / Slack servers; every request to the platform, every data file and every
DEBUG log record is scanned for the cookie values.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.core.app import FanViseApp
from bot.core.commands import COMMANDS, carries_credentials
from bot.discord.app import build_discord_bot
from bot.settings import Settings
from tests.bot.harness import discord_events as ev
from tests.bot.harness import fake_discord as fd
from tests.bot.harness import slack_requests as sr
from tests.reliability.test_cookie_messages import (
    REQUESTER,
    S2,
    SWID,
    TOKEN,
    assert_no_cookie,
    debug_logs,
    scan_data_dir,
    scan_logs,
    slack_bot,
    wait_for,
)

#: cookie values the way members typed them
SHAPES = [f"link team=1 espn_s2={S2} swid={SWID}", f"my espn_s2 is {S2}",
          f"tatum espn_s2={S2} swid={SWID}", f"C {SWID}", f"today s2={S2}", f"AST swid={SWID}"]
#: every public command that takes text (from the command table: a new one is covered too),
#: its first text option carrying cookie values, its other required options a plain word
#: (Discord sends no command without them); /ask twice
PUBLIC_TEXT = [c for c in COMMANDS if not c.private and any(o.kind == "text" for o in c.options)]
CASES = [(c.name, {**{o.name: "brunson" for o in c.options if o.required},
                   next(o.name for o in c.options if o.kind == "text"): SHAPES[i % len(SHAPES)]})
         for i, c in enumerate(PUBLIC_TEXT)] + [("ask", {"question": SHAPES[1]})]


def test_the_commands_of_the_report_are_covered() -> None:
    assert {"ask", "player", "stream", "lineup", "optimize"} <= {n for n, _ in CASES}


def test_guard_is_the_cores() -> None:
    assert carries_credentials("ask", {"question": f"x espn_s2={S2}"})
    assert carries_credentials("daily", {"timezone": SWID})
    assert not carries_credentials("link", {"espn_s2": S2, "swid": SWID})  # its own options
    assert not carries_credentials("ask", {"question": "who should I start?"})


@pytest.mark.parametrize(("name", "options"), CASES, ids=[f"{n}-{i}" for i, (n, _)
                                                           in enumerate(CASES)])
async def test_discord_command_with_cookies_is_private_from_the_start(
        fake_discord, tmp_path, caplog, name, options):
    debug_logs(caplog)
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path))
    bot = build_discord_bot(app.core, app.settings, application_id=fd.APP_ID,
                            sync_commands=False)
    await bot.login(TOKEN)
    try:
        ev.feed(bot, "GUILD_CREATE", ev.guild_create([fd.text_channel()]))
        iid = ev.send(bot, fake_discord, ev.slash(name, REQUESTER, options))
        (callback,) = await fake_discord.wait_for("POST", rf"^/interactions/{iid}/")
        # deferred as ephemeral: the "thinking…" response is the member's only
        assert callback.json["type"] == 5
        assert (callback.json.get("data") or {}).get("flags", 0) & 64, callback.json
        replies = await wait_for(lambda: [m for m in fake_discord.messages.values()
                                          if "did not read, store or repeat it"
                                          in (m.get("content") or "")])
        await asyncio.sleep(0.3)  # nothing else may follow
        assert len(replies) == 1
        sent = [r for r in fake_discord.requests if r.method in ("POST", "PATCH")]
        # nothing public: no header, no thread, no channel message, no answer
        assert not fake_discord.find("POST", "/threads$")
        assert not fake_discord.find("POST", r"^/channels/\d+/messages$")
        assert not [r for r in sent if "asked:" in repr(r.json)]
        for mid, msg in fake_discord.messages.items():
            if mid not in fake_discord.deleted:
                assert msg.get("flags", 0) & 64, f"a public message: {msg.get('content')!r}"
        assert_no_cookie("a request to Discord", repr([r.json for r in fake_discord.requests]))
        assert await app.db.fetchall("SELECT * FROM league_links") == []
    finally:
        await bot.close()
        await app.close()
    scan_data_dir(tmp_path)
    scan_logs(caplog)


async def test_slack_public_commands_with_cookies_answer_privately(fake_slack, tmp_path,
                                                                   caplog):
    debug_logs(caplog)
    app, runner, post = await slack_bot(fake_slack, tmp_path)
    try:
        for i, (name, options) in enumerate(CASES, start=1):
            text = f"{name} {' '.join(str(v) for v in options.values())}"
            body = sr.slash_body(text, response_url=fake_slack.response_url(f"r{i}"))
            assert await post(body) == 200
            replies = await wait_for(lambda i=i: len(fake_slack.responses) >= i
                                     and fake_slack.responses)
            reply = replies[i - 1]
            assert reply["rid"] == f"r{i}"
            assert reply.get("response_type", "ephemeral") == "ephemeral"
            assert "did not read, store or repeat it" in reply["text"]
        await asyncio.sleep(0.3)
        assert not fake_slack.named("chat.postMessage")
        assert not fake_slack.messages
        assert len(fake_slack.responses) == len(CASES)
        assert_no_cookie("a Slack API call", repr([c.body for c in fake_slack.calls]))
        assert_no_cookie("a response_url post", repr(fake_slack.responses))
    finally:
        await runner.cleanup()
        await app.close()
    scan_data_dir(tmp_path)
    scan_logs(caplog)
