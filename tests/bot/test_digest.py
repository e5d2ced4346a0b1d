"""The daily post as a league digest, through the real discord.py and slack-bolt over the fake
servers, on the real app and demo league: one post per channel mentioning every owner linked
in that workspace with their own lineup fixes, best move and ESPN team link; pinned on
Discord when the schedule says so; follow-ups in its thread reach FanVise on both platforms.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from slack_sdk.web.async_client import AsyncWebClient

from bot.core.app import FanViseApp
from bot.core.digest import OwnerEntry, render_digest
from bot.core.models import ThreadRef, UserRef
from bot.discord.app import build_discord_bot
from bot.scheduler import DailyScheduler
from bot.settings import Settings
from bot.slack.app import build_slack_app, serve_http
from bot.slack.store import ThreadRegistry
from bot.slack.surface import SlackSurface
from storage.app_db import DailySchedule
from tests.bot.harness import discord_events as ev
from tests.bot.harness import fake_discord as fd
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.discord_pins import serve_pins
from tests.bot.harness.servers import wait_for
from tests.bot.test_scheduler import Recorder
from tests.bot.test_slack_e2e import Running

NY = ZoneInfo("America/New_York")
TOKEN = "fake.discord.token"
ADMIN = 520000000000000001
ALEX = 520000000000000011     # Hoop Dreamers (team 1)
JORDAN = 520000000000000012   # Splash Bros Inc (team 2)
ELSEWHERE = 520000000000000013  # linked in another server: not in this digest


def at(h: int, m: int, day: int = 23) -> datetime:
    return datetime(2026, 11, day, h, m, 5, tzinfo=NY).astimezone(UTC)


async def link(app: FanViseApp, platform: str, workspace: str, user: Any, team: int) -> None:
    await app.app_db.set_link(platform=platform, workspace_id=workspace, user_id=str(user),
                              league_id=app.core.league_id, season=app.core.season,
                              team_id=team)


def embed_text(e: dict[str, Any]) -> str:
    return "\n".join([e.get("title") or "", e.get("description") or "",
                      *(f"{f['name']}\n{f['value']}" for f in e.get("fields") or []),
                      (e.get("footer") or {}).get("text", "")])


# ---------------------------------------------------------------------------- rendering

def _entry(tid: int, uid: str, fixes: list[str], move: str | None = None) -> OwnerEntry:
    return OwnerEntry(tid, [uid], f"Team {tid}", f"Owner {tid}", fixes, move,
                      f"https://fantasy.espn.com/basketball/team?leagueId=1&teamId={tid}")


def test_each_digest_button_sits_under_its_owners_card_and_names_the_team() -> None:
    """Discord draws a message's buttons under all of its cards: an owner card with a button
    ends its message, so two owners' "Set lineup" buttons never share a row."""
    from bot.core.models import Button
    entries = [_entry(t, f"U{t}", [f"Start player {t} at UT"]) for t in (1, 2, 3)]
    for e in entries[:2]:
        e.buttons.append(Button(f"Set lineup: {e.team_name}", f"fv:approve:{e.team_id:012x}",
                                "primary"))
    msgs = render_digest(entries, platform="discord", day=date(2023, 1, 25), max_text=2000)
    for m in msgs:
        with_buttons = [c for c in m.cards if c.buttons]
        assert len(with_buttons) <= 1 and (not with_buttons or m.cards[-1] is with_buttons[0])
    labels = [b.label for m in msgs for c in m.cards for b in c.buttons]
    assert labels == ["Set lineup: Team 1", "Set lineup: Team 2"]
    slack = render_digest(entries, platform="slack", day=date(2023, 1, 25), max_text=3000)
    assert len([c for m in slack for c in m.cards]) == 3


def test_render_all_set_one_line_and_split_within_max_text() -> None:
    day = date(2023, 1, 25)
    entries = [_entry(t, f"U{t}", [f"Start player {t}{k} at UT " + "x" * 200
                                   for k in range(4)], "Best move: drop A, add B")
               for t in range(1, 13)] + [_entry(13, "U13", []), _entry(14, "U14", [])]
    for platform, max_text in (("discord", 2000), ("slack", 3000)):
        msgs = render_digest(entries, platform=platform, day=day, max_text=max_text)
        assert len(msgs) > 1  # 12 cards do not go in one message
        assert all(len(m.text) <= max_text for m in msgs)
        assert all(len(m.cards) <= 5 for m in msgs)
        assert all(len(c.text) <= max_text for m in msgs for c in m.cards)
        everything = "\n".join([m.text for m in msgs] + [c.text + c.footer for m in msgs
                                                         for c in m.cards])
        for t in range(1, 15):
            assert f"<@U{t}>" in everything
        assert "✅" in everything and "Team 13: nothing to fix" in everything
        # every mention in the first message's text, and listed in its `mentions` (what
        # Slack's renderer lets ping); the other messages mention no one on purpose
        assert all(f"<@U{t}>" in msgs[0].text for t in range(1, 15))
        assert set(msgs[0].mentions) == {f"U{t}" for t in range(1, 15)}
        assert all(m.mentions == () for m in msgs[1:])
        assert not any(c.title == "All set" for m in msgs for c in m.cards)
        if platform == "slack":  # a Slack card names its owner in its footer (a card's
            # text neutralises mentions there), a Discord card in its text
            assert all("<@" not in c.text for m in msgs for c in m.cards)
            assert all(c.footer.startswith("For <@U") for m in msgs for c in m.cards)
        else:
            assert all(c.text.startswith("<@U") for m in msgs for c in m.cards)


async def test_daily_command_pin_setting_and_no_links_line(tmp_path) -> None:
    app = await FanViseApp.open(Settings(data_dir=tmp_path), now=lambda: at(9, 0))
    rec = Recorder()
    channel = ThreadRef("slack", "T1", "C1", "")
    admin = UserRef("slack", "UADM", "Admin", is_admin=True)
    try:
        await app.core.handle_command(rec, channel, admin, "daily",
                                      {"text": "09:30 America/New_York pin"})
        [s] = await app.app_db.schedules()
        assert (s.hhmm, s.tz, s.pin) == ("09:30", "America/New_York", True)
        assert "pinned" in rec.posts[-1][1].text
        await app.core.handle_command(rec, channel, admin, "daily", {})
        assert "pinned" in rec.private[-1][1] and "every linked owner" in rec.private[-1][1]
        await app.core.handle_command(rec, channel, admin, "daily",
                                      {"time": "10:00", "timezone": "Europe/London"})
        assert not (await app.app_db.schedules())[0].pin
        # nobody linked in this workspace: the digest says how to link, Slack's way
        rec.posts.clear()
        await app.core.post_daily(rec, s)
        [(_, msg)] = rec.posts
        assert "/fanvise link" in msg.text and "linked" in msg.text
        assert await app.app_db.digest_teams(s.channel_key, "2023-01-25") == []
    finally:
        await app.close()


# ---------------------------------------------------------------------------- Discord

async def test_discord_digest_mentions_each_owner_pins_and_opens_a_thread(fake_discord,
                                                                          tmp_path):
    serve_pins(fake_discord)
    clock = [at(9, 0)]
    app = await FanViseApp.open(Settings(data_dir=tmp_path), now=lambda: clock[0])
    bot = build_discord_bot(app.core, app.settings, application_id=fd.APP_ID,
                            sync_commands=False)
    await bot.login(TOKEN)
    try:
        guild = str(fd.GUILD_ID)
        await link(app, "discord", guild, ALEX, 1)
        await link(app, "discord", guild, JORDAN, 2)
        await link(app, "discord", "800000000000000999", ELSEWHERE, 3)
        # an admin turns the digest on, pinned, with the real /daily slash command
        ev.feed(bot, "INTERACTION_CREATE", ev.slash(
            "daily", ADMIN, {"time": "09:30 pin", "timezone": "America/New_York"}, admin=True))
        [sched] = await _schedules(app)
        assert sched.pin and sched.hhmm == "09:30"

        scheduler = DailyScheduler(app.app_db, lambda s: app.core.post_daily(bot.surface, s),
                                   now=lambda: clock[0])
        await scheduler.reload()
        clock[0] = at(9, 30)
        assert await scheduler.run_due() == [sched.channel_key]
        posted = [m for m in fake_discord.channel_messages(fd.CHANNEL_ID)
                  if m["embeds"] or "Daily lineup digest ·" in m["content"]]
        first = posted[0]
        # mentions in the content (they ping), for the linked owners of this server only
        assert f"<@{ALEX}>" in first["content"] and f"<@{JORDAN}>" in first["content"]
        assert str(ELSEWHERE) not in str(posted)
        embeds = [e for m in posted for e in m["embeds"]]
        alex = next(embed_text(e) for e in embeds if e["title"].startswith("Hoop Dreamers"))
        jordan = next(embed_text(e) for e in embeds if e["title"].startswith("Splash Bros"))
        # each owner's card: their mention, their own fixes, best move, their ESPN team page
        assert f"<@{ALEX}>" in alex and f"<@{JORDAN}>" not in alex
        assert "Jordan Poole (out)" in alex and "Start T.J. McConnell at PG" in alex
        assert "teamId=1&seasonId=2023" in alex and "Best move:" in alex
        assert f"<@{JORDAN}>" in jordan and "Start O.G. Anunoby at UT" in jordan
        assert "teamId=2&seasonId=2023" in jordan and "Jordan Poole" not in jordan
        # pinned (discord.py's pin route), and a thread opened on the post
        assert fake_discord.find("PUT", rf"^/channels/{fd.CHANNEL_ID}/messages/pins/"
                                        rf"{first['id']}$")
        assert fake_discord.pinned[fd.CHANNEL_ID] == [int(first["id"])]
        assert fake_discord.find("POST", rf"^/channels/{fd.CHANNEL_ID}/messages/"
                                         rf"{first['id']}/threads$")
        [thread_id] = [t for t, d in fake_discord.threads.items()
                       if d["parent_id"] == str(fd.CHANNEL_ID)]
        assert "Ask here" in fake_discord.channel_messages(thread_id)[0]["content"]
        ledger = await app.app_db.daily_posts(sched.channel_key)
        assert [(r["status"], r["message_id"]) for r in ledger] == [("posted", first["id"])]

        # a member's question in the digest's thread continues there as a conversation
        ev.feed(bot, "GUILD_CREATE", ev.guild_create([fd.text_channel()]))
        before = len(fake_discord.channel_messages(thread_id))
        ev.feed(bot, "MESSAGE_CREATE", ev.message_create(thread_id, ALEX,
                                                         "How is Jarrett Allen doing?"))
        answer = await wait_for(lambda: [
            m for m in fake_discord.channel_messages(thread_id)[before:]
            if "Allen" in (m["content"] + str(m["embeds"])) and "Thinking" not in m["content"]])
        assert answer
        # the next pass posts nothing more
        assert await scheduler.run_due() == []
    finally:
        await bot.close()
        await app.close()


async def _schedules(app: FanViseApp) -> list[DailySchedule]:
    """The schedules, once the slash command stored one (it runs as its own task)."""
    for _ in range(400):
        rows = await app.app_db.schedules()
        if rows:
            return rows
        await asyncio.sleep(0.05)
    raise AssertionError("no schedule stored")


# ---------------------------------------------------------------------------- Slack

async def test_slack_digest_mentions_each_owner_and_thread_replies_reach_fanvise(
        fake_slack, tmp_path):
    app = await FanViseApp.open(Settings(data_dir=tmp_path))
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url)
    bolt = build_slack_app(app.core, app.settings, client=client, signing_secret=sr.SECRET,
                           socket_mode=False)
    run = Running(app, await serve_http(bolt, host="127.0.0.1", port=0))
    try:
        await link(app, "slack", sr.TEAM, "U_ALEX", 1)
        await link(app, "slack", sr.TEAM, "U_JORDAN", 2)
        await link(app, "discord", str(fd.GUILD_ID), ALEX, 4)  # another platform: not here
        sched = DailySchedule(f"slack:{sr.TEAM}:{sr.CHANNEL}", "slack", sr.TEAM, sr.CHANNEL,
                              "09:30", "America/New_York", None, pin=True)
        ts = await app.core.post_daily(SlackSurface(client), sched)
        posts = fake_slack.named("chat.postMessage")
        assert posts[0].body.get("thread_ts") in (None, "") and ts
        blocks = [b for p in posts for b in p.body["blocks"]]
        text = str(blocks)
        assert "<@U_ALEX>" in text and "<@U_JORDAN>" in text and str(ALEX) not in text
        # the mentions ping from the post's text, as on Discord: the first section and the
        # notification text carry them as real mentions (not neutralised to "@U_ALEX")
        first = posts[0].body
        assert first["blocks"][0]["type"] == "section"
        lead = first["blocks"][0]["text"]["text"]
        assert "Daily lineup digest" in lead
        assert "<@U_ALEX>" in lead and "<@U_JORDAN>" in lead
        assert "@U_ALEX" not in lead.replace("<@U_ALEX>", "")
        assert "<@U_ALEX>" in first["text"] and "<@U_JORDAN>" in first["text"]
        # each card: the owner's own fixes, and its footer (a context block) naming them
        cards = _slack_cards(blocks)
        alex = next(v for k, v in cards.items() if k.startswith("Hoop Dreamers"))
        jordan = next(v for k, v in cards.items() if k.startswith("Splash Bros"))
        assert "Jordan Poole (out)" in alex and "teamId=1&amp;seasonId=2023" in alex
        assert "For <@U_ALEX>" in alex and "<@U_JORDAN>" not in alex
        assert "Start O.G. Anunoby at UT" in jordan and "For <@U_JORDAN>" in jordan
        # the post's thread is FanVise's: a reply there is answered in the thread
        conv = ThreadRef("slack", sr.TEAM, sr.CHANNEL, ts).conversation_id
        assert await ThreadRegistry(app.db).known(conv)
        n = len(fake_slack.named("chat.postMessage"))
        event = sr.thread_message("How is Jarrett Allen doing?", ts="1800000000.000200",
                                  thread_ts=ts, parent_user="U_SOMEONE", user="U_ALEX")
        assert await run.post(sr.event_body(event, event_id="Ev1"), json_body=True) == 200
        reply = await wait_for(lambda: [
            c for c in fake_slack.named("chat.postMessage")[n:]
            if c.body.get("thread_ts") == ts and "Allen" in str(c.body)
            and "Thinking" not in str(c.body.get("text"))] or [
            c for c in fake_slack.named("chat.update")
            if "Allen" in str(c.body) and "Thinking" not in str(c.body.get("text"))])
        assert reply
    finally:
        await run.close()


def _slack_cards(blocks: list[dict[str, Any]]) -> dict[str, str]:
    """Header text -> every block's text up to the next header."""
    cards: dict[str, str] = {}
    title = ""
    for b in blocks:
        if b["type"] == "header":
            title = b["text"]["text"]
            cards[title] = ""
        elif title:
            cards[title] += str(b) + "\n"
    return cards
