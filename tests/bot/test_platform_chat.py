"""Platform-correct chat (issue 15, item 4), through the real slack-bolt and discord.py code
over the fake servers, with the REAL ChatCore, runtime and graphs on the demo league:

- every help, hint and error text names commands as the platform has them: no Slack text
  names a command other than `/fanvise` (agents write `/link team=<id>`: the Slack surface
  rewrites it), and every `/name` a Discord text mentions is a registered command;
- the card is a NEW message that mentions the requester (`<@id>`, kept as a mention on
  Slack), "Requested by <@id>" on Slack; the progress message becomes a one-line summary;
- the run's last progress facts stay on the card as a context line;
- thread titles say what the thread is (Discord thread name; Slack's root message);
- Slack asks for confirmation before an approval that drops a player.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import discord
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.app import FanViseApp
from bot.core.progress import progress_facts
from bot.discord.app import build_discord_bot
from bot.settings import Settings
from bot.slack.app import build_slack_app, serve_http
from tests.bot.harness import discord_events as ev
from tests.bot.harness import fake_discord as fd
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.servers import wait_for
from tests.bot.test_slack_e2e import Running, actions

TOKEN = "fake.discord.token"
REQUESTER = 510000000000000001
NEWCOMER = 510000000000000003
TEAM_1 = "Hoop Dreamers"  # the demo league's team 1

#: a command reference: "/word" not inside a word, a path or a URL
_COMMAND_REF = re.compile(r"(?<![\w/.:<>-])/([A-Za-z][\w-]*)")
_URL = re.compile(r"<?https?://[^\s>|)]+")
#: payload keys whose values are ids, not text shown to people
_NOT_TEXT = {"action_id", "value", "url", "block_id", "custom_id", "channel", "ts", "thread_ts",
             "user", "response_url", "id", "token", "type", "style", "application_id",
             "channel_id", "guild_id", "emoji", "color"}


def _strings(obj: Any, key: str = "") -> list[str]:
    """Every text a chat payload shows (recursively), ids and URLs left out."""
    if isinstance(obj, str):
        return [] if key in _NOT_TEXT else [obj]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in _strings(v, k)]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v, key)]
    return []


def command_refs(texts: list[str]) -> list[tuple[str, str]]:
    """(command, the text naming it) for every `/word` in `texts`."""
    return [(m.group(1), t) for t in texts for m in _COMMAND_REF.finditer(_URL.sub(" ", t))]


def _settings(data_dir: Any) -> Settings:
    return Settings(data_dir=data_dir, llm_per_minute=600, llm_burst=50)


async def _link(app: FanViseApp, platform: str, workspace: str, user: str, team: int) -> None:
    await app.core.db.set_link(platform=platform, workspace_id=workspace, user_id=user,
                               league_id=app.core.league_id or 0, season=app.core.season,
                               team_id=team)


async def _quiet(count: Any, *, settle: float = 1.5, timeout: float = 60.0) -> None:
    """Wait until `count()` (the calls seen) stops growing for `settle` seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    last, since = count(), loop.time()
    while loop.time() < end:
        await asyncio.sleep(0.1)
        now = count()
        if now != last:
            last, since = now, loop.time()
        elif loop.time() - since >= settle:
            return


def test_progress_facts_keep_the_numbers() -> None:
    lines = ["Reading your request...", "Analyzing your roster...",
             "Checking the schedule: 31 player-games left for you vs 34 for Full Court "
             "Press...", "Checking injuries: everyone is healthy...",
             "Exact plan: 3 move(s), Plan: 900 fantasy points...",
             "Validated 8 of 8 move(s) against the exact weekly plan...",
             "Waiting for your approval of 3 move(s)..."]
    assert progress_facts(lines) == ("31 player-games left for you vs 34 for Full Court Press"
                                     " · Validated 8 of 8 move(s) against the exact weekly "
                                     "plan")
    assert progress_facts(["Thinking…", "Reading your request..."]) == ""


# ---------------------------------------------------------------------------- Slack

async def _slack(fake: Any, data_dir: Any) -> Running:
    app = await FanViseApp.open(_settings(data_dir))
    await _link(app, "slack", sr.TEAM, "U_REQ", 1)
    client = AsyncWebClient(token="xoxb-test", base_url=fake.base_url)
    bolt = build_slack_app(app.core, app.settings, client=client, signing_secret=sr.SECRET,
                           socket_mode=False)
    return Running(app, await serve_http(bolt, host="127.0.0.1", port=0))


def _slack_texts(fake: Any) -> list[str]:
    return [s for c in fake.calls for s in _strings(c.body)] + \
        [s for r in fake.responses for s in _strings(r)]


async def test_slack_texts_name_only_fanvise_and_the_card_mentions_the_requester(
        fake_slack, tmp_path):
    run = await _slack(fake_slack, tmp_path)
    try:
        # the card: a new message in the thread, mentioning the requester
        assert await run.post(sr.slash_body("optimize",
                                            response_url=fake_slack.response_url())) == 200
        card_ts = await wait_for(lambda: next(
            (ts for ts, m in fake_slack.messages.items() if actions(m)), None), timeout=30)
        root_ts, progress_ts = list(fake_slack.messages)[:2]
        root = fake_slack.messages[root_ts]
        assert root["text"] == f"*Matchup review · {TEAM_1}* · `/fanvise optimize`"  # no "asked"
        card = fake_slack.messages[card_ts]
        assert card_ts not in (root_ts, progress_ts) and card["thread_ts"] == root_ts
        # a mention that pings (not neutralised to "@U_REQ"), in the text that notifies
        assert card["text"].startswith("<@U_REQ>, review these moves")
        assert card["blocks"][0]["text"]["text"].startswith("<@U_REQ>, review these moves")
        context = " ".join(e["text"] for b in card["blocks"] if b["type"] == "context"
                           for e in b["elements"])
        assert "Requested by <@U_REQ>" in context and "U_MEN" not in context
        assert re.search(r"\d+ player-games left for you vs \d+ for ", context), context
        # the card was posted as a message of its own (which notifies), then drawn into it
        posts = [c for c in fake_slack.named("chat.postMessage") if c.body.get("thread_ts")]
        assert "<@U_REQ>, review these moves" in posts[-1].body["text"]
        progress = fake_slack.messages[progress_ts]
        assert re.fullmatch(rf"Plan ready: \d+ moves? for {TEAM_1} ↓", progress["text"]), \
            progress["text"]
        # Slack asks before an approval, saying exactly what the click does: Approve #1 only
        # marks the move (it was "This drops X … Go ahead?" though nothing was dropped);
        # Approve plan decides the card and makes the moves now
        buttons = {a["text"]["text"]: a for a in actions(card) if a["type"] == "button"}
        approve = buttons["Approve #1"]
        assert approve["confirm"]["text"]["text"].startswith("Marks #1 (")
        assert "nothing is made until" in approve["confirm"]["text"]["text"]
        assert approve["confirm"]["confirm"]["text"] and approve["confirm"]["deny"]["text"]
        plan_dialog = buttons["Approve plan"]["confirm"]["text"]["text"]
        assert plan_dialog.startswith("Decides the card: makes ") and "schedules" in plan_dialog
        assert "confirm" not in buttons["Skip all"]

        # a broad set of commands, questions and errors
        commands = ["help", "link", "link not-a-team-at-all", "lineup someday",
                    "lineup tomorrow", "player", "player 123", "ask", "ask what can you do?",
                    "ask how do I link my team?", "ask how do I approve moves?",
                    "stream " + "x" * 201, "optimize " + "x" * 201, "daily",
                    "daily 25:99 Mars/Base", "bogus words", "player Jalen Brunson",
                    "ask who should I start tomorrow?"]
        for text in commands:
            assert await run.post(sr.slash_body(
                text, response_url=fake_slack.response_url())) == 200
        for text in ("optimize", "lineup", "ask am I winning this week?"):  # not linked
            assert await run.post(sr.slash_body(
                text, user="U_NEW", response_url=fake_slack.response_url())) == 200
        for i, q in enumerate(("what can you do", "how do I link my team", "help")):
            body = sr.event_body(sr.mention(f"<@UBOT> {q}", ts=f"1700002000.00000{i}"),
                                 event_id=f"EvPlat{i}")
            assert await run.post(body, json_body=True) == 200
        await _quiet(lambda: len(fake_slack.calls) + len(fake_slack.responses))
    finally:
        await run.close()
    texts = _slack_texts(fake_slack)
    refs = command_refs(texts)
    assert {name for name, _ in refs} == {"fanvise"}, \
        [(n, t[:160]) for n, t in refs if n != "fanvise"]
    said = "\n".join(texts)
    for hint in ("/fanvise lineup tomorrow", "/fanvise player Jarrett Allen", "/fanvise link",
                 "/fanvise ask"):
        assert hint in said, hint  # the hints are there, in Slack's syntax


# ---------------------------------------------------------------------------- Discord

async def _discord(data_dir: Any) -> tuple[FanViseApp, discord.Client]:
    app = await FanViseApp.open(_settings(data_dir))
    await _link(app, "discord", str(fd.GUILD_ID), str(REQUESTER), 1)
    bot = build_discord_bot(app.core, app.settings, application_id=fd.APP_ID,
                            sync_commands=False)
    await bot.login(TOKEN)
    return app, bot


def _send(bot: discord.Client, fake: fd.FakeDiscord, payload: dict[str, Any]) -> None:
    fake.interaction_channels[payload["id"]] = int(payload["channel_id"])
    ev.feed(bot, "INTERACTION_CREATE", payload)


async def test_discord_texts_name_registered_commands_and_threads_say_what_they_are(
        fake_discord, tmp_path):
    app, bot = await _discord(tmp_path)
    try:
        registered = {c.name for c in bot.tree.get_commands()}
        assert {"link", "lineup", "optimize", "player"} <= registered
        _send(bot, fake_discord, ev.slash("optimize", REQUESTER))
        thread_id = (await wait_for(lambda: list(fake_discord.threads)))[0]
        assert fake_discord.threads[thread_id]["name"] == f"Matchup review · {TEAM_1}"
        card = await wait_for(lambda: next((m for m in fake_discord.channel_messages(thread_id)
                                            if fd.controls(m)), None), timeout=30)
        first = fake_discord.channel_messages(thread_id)[0]
        assert first["id"] != card["id"]  # the card is a new message...
        assert card["components"][0]["content"].startswith(  # ...a ping, above the card
            f"<@{REQUESTER}>, review these moves")
        posted = [r.json for r in fake_discord.find("POST", rf"^/channels/{thread_id}/messages$")]
        assert any(p.get("content", "").startswith(f"<@{REQUESTER}>") for p in posted)
        assert re.fullmatch(rf"Plan ready: \d+ moves? for {TEAM_1} ↓",
                            fake_discord.messages[int(first["id"])]["content"])
        footer = card["components"][-1]["components"][-1]["content"]  # small text (-#)
        assert re.search(r"\d+ player-games left for you vs \d+ for ", footer), footer
        assert "Requested by " in footer and "<@" not in footer  # embed footers: plain text

        def shared(word: str) -> bool:  # personal commands answer privately, no thread
            return any(word in fd.message_text(m) and m["flags"] & 64 and any(
                c.get("label") == "Post to channel" for c in fd.controls(m))
                for m in fake_discord.messages.values())

        _send(bot, fake_discord, ev.slash("player", REQUESTER, {"name": "Jalen Brunson"}))
        await wait_for(lambda: shared("Brunson"), timeout=30)
        _send(bot, fake_discord, ev.slash("lineup", REQUESTER, {"day": "tomorrow"}))
        await wait_for(lambda: shared("Thu Jan 26"), timeout=30)
        for name, options in [("help", {}), ("link", {}), ("lineup", {"day": "someday"}),
                              ("player", {"name": "123"}), ("ask", {"question": "what can "
                                                                    "you do?"}),
                              ("ask", {"question": "how do I link my team?"}),
                              ("stream", {"focus": "x" * 201}), ("daily", {}),
                              ("ask", {"question": "who should I start tomorrow?"})]:
            _send(bot, fake_discord, ev.slash(name, REQUESTER, options))
        for name in ("optimize", "lineup"):
            _send(bot, fake_discord, ev.slash(name, NEWCOMER))
        await _quiet(lambda: len(fake_discord.requests))
    finally:
        await bot.close()
        await app.close()
    texts = [s for r in fake_discord.requests if r.method in ("POST", "PATCH")
             and isinstance(r.json, (dict, list)) for s in _strings(r.json)]
    refs = command_refs(texts)
    assert refs, "no hint named a command"
    assert {n for n, _ in refs} <= registered, \
        [(n, t[:160]) for n, t in refs if n not in registered]
    assert not any(n == "fanvise" for n, _ in refs)


async def test_a_long_message_keeps_its_mentions_on_slack(fake_slack, tmp_path) -> None:
    """A message split into several posts (post_split) keeps the ids it mentions on purpose:
    on Slack each part still pings `<@U_ALEX>` instead of showing a neutralised `@U_ALEX`."""
    from bot.core.models import OutgoingMessage, ThreadRef
    from bot.slack.surface import SlackSurface

    app = await FanViseApp.open(Settings(data_dir=tmp_path))
    try:
        surface = SlackSurface(AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url))
        text = "\n".join(f"<@U_ALEX> line {i}: " + "x" * 80 for i in range(80))
        await app.core.turns.post_split(surface, ThreadRef("slack", "T1", "C1", ""),
                                        OutgoingMessage(text, mentions=("U_ALEX",)))
        posts = fake_slack.named("chat.postMessage")
        assert len(posts) >= 2
        for call in posts:
            body = str(call.body)
            assert "<@U_ALEX>" in body and "@U_ALEX line" not in body.replace("<@U_ALEX>", "")
    finally:
        await app.close()
