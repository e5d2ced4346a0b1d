"""Linking (issue 15, item 1), through the real discord.py and slack-bolt over the fake
servers with the REAL ChatCore, runtime and app DB on the demo league (offline model):

- an unlinked member is asked, privately, to link before a team-specific command, question
  or click, on Discord and Slack, with the team whose owner matches their name offered as a
  one-tap `fv:link:team:<id>` button; a question that needs no team is still answered;
- `/link` by team name; the Slack `/fanvise link` select; one team per member (re-linking
  replaces); a team linked to another member is refused; an admin links another member;
- the card names the team it acts on.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, urlencode

import discord
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.app import FanViseApp
from bot.core.buttons import parse_custom_id
from bot.core.link import owner_score, parse_link_args, parse_member
from bot.discord.app import build_discord_bot
from bot.settings import Settings
from bot.slack.app import build_slack_app, serve_http
from tests.bot.harness import discord_events as ev
from tests.bot.harness import fake_discord as fd
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.servers import wait_for
from tests.bot.test_slack_e2e import Running

TOKEN = "fake.discord.token"
ALEX = 510000000000000011      # "Alex R." ~ Alex Rivera, owner of Hoop Dreamers (team 1)
JORDAN = 510000000000000012
ADMIN = 510000000000000013
QUIET = 510000000000000014     # a member who never uses the bot


# ---------------------------------------------------------------------- pure parts

def test_owner_names_match_display_names():
    assert owner_score("Alex Rivera", "Alex Rivera") == 1.0
    assert owner_score("alex", "Alex Rivera") >= 0.8
    assert owner_score("Alex R.", "Alex Rivera") >= 0.9
    assert owner_score("alex.rivera", "Alex Rivera") >= 0.9
    assert owner_score("arivera", "Alex Rivera") >= 0.8
    assert owner_score("Alex Rivra", "Alex Rivera") >= 0.8  # a typo
    assert owner_score("Jordan Lee", "Alex Rivera") == 0.0
    assert owner_score("u_req", "Alex Rivera") == 0.0
    assert owner_score("", "Alex Rivera") == 0.0


def test_link_arguments_and_click_ids():
    kv, pos = parse_link_args({"text": "team=Hoop Dreamers espn_s2=abc swid={x}"})
    assert kv == {"team": "Hoop Dreamers", "espn_s2": "abc", "swid": "{x}"} and pos == []
    kv, pos = parse_link_args({"text": "<@U123|alex> Glass Cleaners"})
    assert kv == {"member": "<@U123|alex>"} and pos == ["Glass", "Cleaners"]
    assert parse_member("<@123456789012>") == "123456789012"
    assert parse_member("<@!123456789012>") == "123456789012"
    assert parse_member("<@U0ABC123|alex>") == "U0ABC123"
    assert parse_member("alex") is None
    assert parse_custom_id("fv:link:team:3").value == 3
    assert parse_custom_id("fv:link:team:3").action == "link"
    assert parse_custom_id("fv:link:team") is None  # the select itself is no click
    assert parse_custom_id("fv:link:team:x") is None


# ---------------------------------------------------------------------- Discord

async def open_discord(data_dir) -> tuple[FanViseApp, discord.Client]:
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=data_dir))
    bot = build_discord_bot(app.core, app.settings, application_id=fd.APP_ID,
                            sync_commands=False)
    await bot.login(TOKEN)
    return app, bot



def named(payload: dict[str, Any], name: str) -> dict[str, Any]:
    """The payload from a member whose Discord display name is `name`."""
    payload["member"]["user"].update({"username": name.lower().replace(" ", ""),
                                      "global_name": name})
    return payload


def private_replies(fake: fd.FakeDiscord) -> list[dict[str, Any]]:
    """Ephemeral followups (and responses), in order."""
    return [r.json for r in fake.find("POST", r"^/webhooks/\d+/[^/]+$")
            if (r.json.get("flags") or 0) & 64]


def components(msg: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for row in msg.get("components") or [] for c in row["components"]]


async def test_discord_unlinked_member_is_asked_to_link_then_links_in_one_tap(
        fake_discord, tmp_path):
    app, bot = await open_discord(tmp_path)
    try:
        # a team-specific command from a member without a link: a private prompt, no thread
        ev.send(bot, fake_discord, named(ev.slash("optimize", ALEX), "Alex R."))
        prompt = (await wait_for(lambda: private_replies(fake_discord)))[0]
        assert "haven't linked your ESPN team" in prompt["content"]
        assert "/link team:Hoop Dreamers" in prompt["content"]  # Discord syntax
        assert "/fanvise" not in prompt["content"]
        ids = [c.get("custom_id") for c in components(prompt)]
        assert "fv:link:team:1" in ids and "fv:link:team" in ids  # button + select
        assert not fake_discord.threads  # nothing public: no thread, no "asked" line
        assert not [m for m in fake_discord.channel_messages(fd.CHANNEL_ID)
                    if not m["flags"] & 64]
        assert await app.core.db.get_link("discord", str(fd.GUILD_ID), str(ALEX)) is None

        # the one-tap button links Alex to Hoop Dreamers
        n = len(private_replies(fake_discord))
        channel = fd.text_channel()
        ev.send(bot, fake_discord, named(ev.click("fv:link:team:1", ALEX, {
            "id": str(fd.next_id()), "channel_id": channel["id"], "content": "",
            "components": prompt["components"], "embeds": [], "flags": 64,
            "author": fd.BOT_USER, "attachments": [], "mentions": [], "mention_roles": [],
            "pinned": False, "mention_everyone": False, "tts": False, "type": 0,
            "timestamp": fd.now_iso(), "edited_timestamp": None}, channel), "Alex R."))
        done = await wait_for(lambda: private_replies(fake_discord)[n:])
        assert "Linked you to **Hoop Dreamers**" in done[0]["content"]
        link = await app.core.db.get_link("discord", str(fd.GUILD_ID), str(ALEX))
        assert link is not None and link.team_id == 1

        # now the command runs for his team, and the card says whose team it is
        ev.send(bot, fake_discord, named(ev.slash("optimize", ALEX), "Alex R."))
        thread_id = (await wait_for(lambda: list(fake_discord.threads)))[0]
        card = await wait_for(lambda: next((m for m in fake_discord.channel_messages(thread_id)
                                            if fd.controls(m)), None))
        assert "### Your plan" in fd.message_text(card) and \
            "Hoop Dreamers" in card["components"][-1]["components"][0]["content"]
    finally:
        await bot.close()
        await app.close()


async def test_discord_link_by_name_taken_team_and_admin_links_a_member(fake_discord, tmp_path):
    app, bot = await open_discord(tmp_path)
    ws = str(fd.GUILD_ID)
    try:
        # /link by team NAME (what autocomplete shows) or by the id it sends
        ev.send(bot, fake_discord, ev.slash("link", JORDAN, {"team": "splash bros inc"}))
        reply = await wait_for(lambda: private_replies(fake_discord))
        assert "Linked you to **Splash Bros Inc** (team 2)" in reply[-1]["content"]
        # re-linking replaces: one team per member
        ev.send(bot, fake_discord, ev.slash("link", JORDAN, {"team": "4"}))
        await wait_for(lambda: len(private_replies(fake_discord)) >= 2)
        assert (await app.core.db.get_link("discord", ws, str(JORDAN))).team_id == 4
        # a team linked to another member is refused
        ev.send(bot, fake_discord, ev.slash("link", ALEX, {"team": "Fast Break Fam"}))
        refused = await wait_for(lambda: private_replies(fake_discord)[2:])
        assert "already linked to another member" in refused[0]["content"]
        assert await app.core.db.get_link("discord", ws, str(ALEX)) is None
        # a member may not link someone else...
        ev.send(bot, fake_discord, ev.slash("link", ALEX, {"member": f"<@{QUIET}>",
                                                         "team": "Bench Mob"}))
        no = await wait_for(lambda: private_replies(fake_discord)[3:])
        assert "Only admins" in no[0]["content"]
        # ...an admin can, for a member who never used the bot
        ev.send(bot, fake_discord, ev.slash("link", ADMIN, {"member": f"<@{QUIET}>",
                                                          "team": "Bench Mob"}, admin=True))
        yes = await wait_for(lambda: private_replies(fake_discord)[4:])
        assert f"Linked <@{QUIET}> to **Bench Mob**" in yes[0]["content"]
        assert (await app.core.db.get_link("discord", ws, str(QUIET))).team_id == 7
        assert await app.core.db.get_link("discord", ws, str(ADMIN)) is None
        # /link alone shows the link with the team's name
        ev.send(bot, fake_discord, ev.slash("link", JORDAN))
        shown = await wait_for(lambda: private_replies(fake_discord)[5:])
        assert "linked to **Fast Break Fam** (team 4)" in shown[0]["content"]
        # the teams for autocomplete: name and owner, the value is the id
        choices = await app.core.choices("teams", "rivera", None, None)
        assert [(c.label, c.value) for c in choices] == [("Hoop Dreamers · Alex Rivera", "1")]
    finally:
        await bot.close()
        await app.close()


# ---------------------------------------------------------------------- Slack

async def start_slack(fake, data_dir) -> Running:
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=data_dir))
    client = AsyncWebClient(token="xoxb-test", base_url=fake.base_url)
    bolt = build_slack_app(app.core, app.settings, client=client, signing_secret=sr.SECRET,
                           socket_mode=False)
    return Running(app, await serve_http(bolt, host="127.0.0.1", port=0))


def slash(text: str, fake, *, user: str, name: str) -> str:
    return urlencode({
        "token": "legacy", "team_id": sr.TEAM, "team_domain": "league",
        "channel_id": sr.CHANNEL, "channel_name": "fantasy", "user_id": user,
        "user_name": name, "command": "/fanvise", "text": text, "api_app_id": "A1",
        "trigger_id": "1.2.3", "response_url": fake.response_url(f"r{user}")})


def select_body(action_id: str, value: str, *, clicker: str) -> str:
    payload = {
        "type": "block_actions", "api_app_id": "A1", "token": "legacy", "trigger_id": "4.5.6",
        "team": {"id": sr.TEAM, "domain": "league"},
        "user": {"id": clicker, "username": clicker.lower(), "team_id": sr.TEAM},
        "channel": {"id": sr.CHANNEL, "name": "fantasy"},
        "container": {"type": "message", "message_ts": "1700000000.999999",
                      "channel_id": sr.CHANNEL, "is_ephemeral": True},
        "response_url": "https://hooks.slack.invalid/actions/y",
        "actions": [{"type": "static_select", "action_id": action_id, "block_id": "b1",
                     "selected_option": {"text": {"type": "plain_text", "text": value},
                                         "value": value},
                     "action_ts": "1700000001.0"}]}
    return "payload=" + quote(json.dumps(payload))


def slack_actions(blocks: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    return [e for b in blocks or [] if b["type"] == "actions" for e in b["elements"]]


def ephemerals(fake, user: str) -> list[str]:
    return [c.body.get("text", "") for c in fake.named("chat.postEphemeral")
            if c.body["user"] == user]


async def test_slack_unlinked_member_asked_to_link_and_links_with_the_select(
        fake_slack, tmp_path):
    run = await start_slack(fake_slack, tmp_path)
    try:
        # /fanvise optimize without a link: a private prompt, in Slack's syntax, nothing posted
        assert await run.post(slash("optimize", fake_slack, user="U_ALEX",
                                    name="alex")) == 200
        prompt = (await wait_for(lambda: fake_slack.responses))[0]
        assert "/fanvise link Hoop Dreamers" in prompt["text"]
        assert "`/link" not in prompt["text"]
        ids = [a["action_id"] for a in slack_actions(prompt.get("blocks"))]
        assert "fv:link:team:1" in ids and "fv:link:team" in ids
        assert fake_slack.named("chat.postMessage") == []

        # a question about "my team" in a mention: asked privately, the thread says why
        mention = sr.mention("<@UBOT> am i winning this week?", ts="1700002000.000001",
                             user="U_ALEX")
        assert await run.post(sr.event_body(mention, event_id="EvLink1"), json_body=True) == 200
        asked = await wait_for(lambda: [c for c in fake_slack.named("chat.postEphemeral")
                                        if c.body["user"] == "U_ALEX"])
        assert "haven't linked your ESPN team" in asked[0].body["text"]
        assert "fv:link:team" in json.dumps(asked[0].body.get("blocks"))
        said = await wait_for(lambda: [m for m in fake_slack.messages.values()
                                       if m["thread_ts"] == "1700002000.000001"
                                       and "/fanvise link" in (m.get("text") or "")])
        assert "Alex Rivera" not in said[0]["text"] and "Hoop Dreamers" not in said[0]["text"]
        # a question that needs no team is still answered
        mention = sr.mention("<@UBOT> How is Jarrett Allen doing?", ts="1700002000.000002",
                             user="U_ALEX")
        assert await run.post(sr.event_body(mention, event_id="EvLink2"), json_body=True) == 200
        await wait_for(lambda: [m for m in fake_slack.messages.values()
                                if m["thread_ts"] == "1700002000.000002"
                                and "Allen" in str(m["blocks"])])
        assert len([c for c in fake_slack.named("chat.postEphemeral")
                    if c.body["user"] == "U_ALEX"]) == 1

        # /fanvise link alone: the teams in a select (privately)
        n = len(fake_slack.responses)
        assert await run.post(slash("link", fake_slack, user="U_ALEX", name="alex")) == 200
        shown = (await wait_for(lambda: fake_slack.responses[n:]))[0]
        assert "You have no league link" in shown["text"]
        menu = next(a for a in slack_actions(shown["blocks"]) if a["type"] == "static_select")
        assert menu["action_id"] == "fv:link:team"
        labels = [o["text"]["text"] for o in menu["options"]]
        assert "Hoop Dreamers · Alex Rivera" in labels and len(labels) == 12
        # choosing a team links it
        assert await run.post(select_body("fv:link:team", "1", clicker="U_ALEX")) == 200
        linked = await wait_for(lambda: [t for t in ephemerals(fake_slack, "U_ALEX")
                                         if "Linked you" in t])
        assert "Hoop Dreamers" in linked[0]
        assert (await run.app.core.db.get_link("slack", sr.TEAM, "U_ALEX")).team_id == 1
        # another member picking the same team is refused
        assert await run.post(select_body("fv:link:team", "1", clicker="U_JO")) == 200
        taken = await wait_for(lambda: ephemerals(fake_slack, "U_JO"))
        assert "already linked to another member" in taken[0]
        assert "/fanvise link off" in taken[0]
    finally:
        await run.close()


async def test_slack_admin_links_a_member_and_the_card_names_the_team(fake_slack, tmp_path):
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path))
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url)
    bolt = build_slack_app(app.core, app.settings, client=client, signing_secret=sr.SECRET,
                           socket_mode=False, admin_user_ids={"U_ADMIN"})
    run = Running(app, await serve_http(bolt, host="127.0.0.1", port=0))
    try:
        assert await run.post(slash("link member=<@U_QUIET|quinn> team=Zone Defense",
                                    fake_slack, user="U_ADMIN", name="boss")) == 200
        reply = (await wait_for(lambda: fake_slack.responses))[0]
        # (Slack's ephemeral text shows the mention as @id until the adapter renders them)
        assert "Linked " in reply["text"] and "U_QUIET> to *Zone Defense*" in \
            reply["text"].replace("@U_QUIET", "<@U_QUIET>")
        assert (await app.core.db.get_link("slack", sr.TEAM, "U_QUIET")).team_id == 12
        assert await app.core.db.get_link("slack", sr.TEAM, "U_ADMIN") is None

        # a linked member's card names the team it acts on
        assert await run.post(slash("link Glass Cleaners", fake_slack, user="U_SAM",
                                    name="sam")) == 200
        await wait_for(lambda: len(fake_slack.responses) >= 2)
        assert await run.post(slash("optimize", fake_slack, user="U_SAM", name="sam")) == 200
        card = await wait_for(lambda: next((m for m in fake_slack.messages.values()
                                            if any(a["action_id"].startswith("fv:approve")
                                                   for a in slack_actions(m["blocks"]))),
                                           None), timeout=90)
        assert "Glass Cleaners" in json.dumps(card["blocks"])
        row = (await app.db.fetchall("SELECT team_id, title FROM cards"))[0]
        assert row["team_id"] == 3 and "Glass Cleaners" in row["title"]
    finally:
        await run.close()
