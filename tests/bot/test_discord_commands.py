"""Discord's application commands come from the one command table (bot.core.commands), through
the real discord.py client against the fake Discord server: the registered commands equal the
table; autocomplete interactions (type 4, answered with callback type 8) offer league players,
the league's teams, days and time zones from the REAL ChatCore on the demo league; `/daily
time:off` turns the digest off; `/matchup` answers with the score and the projection; and on
Slack `/fanvise <sub>` is parsed against the same table (`/fanvise matchup` included).
"""

from __future__ import annotations

from typing import Any

import discord
import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.app import FanViseApp
from bot.core.commands import COMMANDS, NAMES, command, options_to_args
from bot.discord.app import build_discord_bot
from bot.settings import Settings
from bot.slack.app import build_slack_app, parse_command, serve_http
from tests.bot.harness import discord_autocomplete as ac
from tests.bot.harness import discord_events as ev
from tests.bot.harness import fake_discord as fd
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.scripted_core import ScriptedCore
from tests.bot.harness.servers import wait_for

TOKEN = "fake.discord.token"
MEMBER = 520000000000000001
ADMIN = 520000000000000002
OTHER = 520000000000000003
OPTION_TYPES = {"text": 3, "int": 4, "bool": 5, "user": 6}



def texts(fake: fd.FakeDiscord) -> list[str]:
    """Everything the bot wrote (followups, messages, edits, embeds), in order."""
    out = []
    for r in fake.requests:
        if r.method in ("POST", "PATCH") and isinstance(r.json, dict):
            out.append((r.json.get("content") or "") + str(r.json.get("embeds") or ""))
    return out


async def open_bot(data_dir, **settings: Any) -> tuple[FanViseApp, discord.Client]:
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=data_dir, **settings))
    bot = build_discord_bot(app.core, app.settings, application_id=fd.APP_ID,
                            sync_commands=False)
    await bot.login(TOKEN)
    return app, bot


async def suggestions(bot, fake, name: str, focused: str, current: str,
                      **options: Any) -> list[dict[str, Any]]:
    iid = ev.send(bot, fake, ac.autocomplete(name, MEMBER, focused, current, options))
    answered = await wait_for(lambda: (ac.choices_answered(fake, iid),)
                              if ac.choices_answered(fake, iid) is not None else None)
    return answered[0]


# ---------------------------------------------------------------------- registration


async def test_registered_commands_equal_the_table(fake_discord):
    """What discord.py syncs (PUT .../commands) is the command table: names, descriptions,
    options with their kind, required flag, description, choices and autocomplete."""
    bot = build_discord_bot(ScriptedCore(), None, application_id=fd.APP_ID,
                            guild_id=fd.GUILD_ID)
    await bot.login(TOKEN)
    try:
        put = (await fake_discord.wait_for("PUT", "/commands$"))[0].json
        assert [c["name"] for c in put] == list(NAMES)
        for synced, cmd in zip(put, COMMANDS, strict=True):
            assert synced["description"] == cmd.summary
            assert synced.get("contexts") == [0] or synced.get("dm_permission") is False
            # admin commands (/daily, /alerts) are for server managers by default
            perms = synced.get("default_member_permissions")
            assert (str(perms) == str(discord.Permissions(manage_guild=True).value)) \
                if cmd.admin_only else perms is None, (cmd.name, perms)
            want = sorted(cmd.options, key=lambda o: not o.required)  # Discord: required first
            got = synced.get("options") or []
            assert [o["name"] for o in got] == [o.name for o in want]
            for o, opt in zip(got, want, strict=True):
                assert o["type"] == OPTION_TYPES[opt.kind]
                assert o["description"] == opt.description
                assert bool(o.get("required")) == opt.required
                assert [c["value"] for c in o.get("choices") or []] == list(opt.choices)
                assert bool(o.get("autocomplete")) == bool(opt.autocomplete or opt.suggestions)
        by_name = {c["name"]: c for c in put}
        assert "matchup" in by_name
        assert [o["name"] for o in by_name["link"]["options"]] == [
            "team", "member", "espn_s2", "swid", "remove", "writes", "autolineup"]
        assert {o["name"] for o in by_name["daily"]["options"] if o.get("autocomplete")} == {
            "time", "timezone"}
    finally:
        await bot.close()


async def test_options_become_the_cores_args(fake_discord):
    """Options go to the core by name; the command's text option as `text` (as Slack sends
    it); /link's member as a mention and `remove` as `off`; /daily time:off as `off`."""
    core = ScriptedCore()
    bot = build_discord_bot(core, None, application_id=fd.APP_ID, sync_commands=False)
    await bot.login(TOKEN)
    try:
        ev.send(bot, fake_discord, ac.with_member(
            ev.slash("link", ADMIN, {"team": "Hoop Dreamers"}, admin=True), "member", OTHER))
        ev.send(bot, fake_discord, ev.slash("link", MEMBER, {"remove": True}))
        ev.send(bot, fake_discord, ev.slash("daily", ADMIN, {"time": "off"}, admin=True))
        ev.send(bot, fake_discord, ev.slash("daily", ADMIN, {"time": "09:30",
                                                          "timezone": "Europe/London"},
                                         admin=True))
        await wait_for(lambda: len(core.calls) == 4 or None)
        got = sorted((c[3][0], sorted(c[3][1].items())) for c in core.calls)
        assert got == sorted([
            ("link", [("member", f"<@{OTHER}>"), ("team", "Hoop Dreamers")]),
            ("link", [("text", "off")]),
            ("daily", [("text", "off")]),
            ("daily", [("text", "09:30"), ("timezone", "Europe/London")])])
        assert not fake_discord.threads  # private commands: no thread
    finally:
        await bot.close()
    assert options_to_args("lineup", {"day": "tomorrow"}) == {"day": "tomorrow"}
    assert options_to_args("daily", {"enabled": False}) == {"enabled": False}


# ---------------------------------------------------------------------- autocomplete


async def test_autocomplete_offers_league_data(fake_discord, tmp_path):
    app, bot = await open_bot(tmp_path)
    try:
        players = await suggestions(bot, fake_discord, "player", "name", "jord")
        assert {"name": "Jordan Poole · Hoop Dreamers", "value": "Jordan Poole"} in players
        assert all("jordan" in p["value"].lower() for p in players)

        teams = await suggestions(bot, fake_discord, "link", "team", "")
        assert len(teams) == 12  # every team of the demo league, by name and owner
        assert {"name": "Hoop Dreamers · Alex Rivera", "value": "1"} in teams
        assert await suggestions(bot, fake_discord, "link", "team", "fischer") == [
            {"name": "Full Court Press · Jamie Fischer", "value": "9"}]

        zones = await suggestions(bot, fake_discord, "daily", "timezone", "new york",
                                  time="09:30")
        assert zones == [{"name": "America/New_York", "value": "America/New_York"}]
        assert len(await suggestions(bot, fake_discord, "daily", "timezone", "")) == 25

        days = await suggestions(bot, fake_discord, "lineup", "day", "")
        assert [d["value"] for d in days[:3]] == ["today", "tomorrow", "2023-01-27"]
        assert days[2]["name"] == "friday (Fri Jan 27)" and len(days) == 7
        assert [d["value"] for d in await suggestions(bot, fake_discord, "lineup", "day",
                                                      "sat")] == ["2023-01-28"]

        assert [t["value"] for t in await suggestions(bot, fake_discord, "daily", "time",
                                                      "of")] == ["off"]
        callbacks = fake_discord.find("POST", "/callback$")
        assert callbacks and all(c.json["type"] == 8 for c in callbacks)
        assert not fake_discord.threads and not fake_discord.find("POST", "/webhooks/")
    finally:
        await bot.close()
        await app.close()


async def test_autocomplete_without_suggestions_answers_empty(fake_discord):
    """A core without choices (or one that fails) still answers Discord at once."""
    bot = build_discord_bot(ScriptedCore(), None, application_id=fd.APP_ID,
                            sync_commands=False)
    await bot.login(TOKEN)
    try:
        assert await suggestions(bot, fake_discord, "player", "name", "jor") == []
        assert [c["value"] for c in await suggestions(bot, fake_discord, "daily", "time",
                                                      "")][:2] == ["off", "08:00"]
    finally:
        await bot.close()


# ---------------------------------------------------------------------- commands, real core


async def test_daily_time_off_turns_the_digest_off(fake_discord, tmp_path):
    app, bot = await open_bot(tmp_path)
    try:
        ev.send(bot, fake_discord, ev.slash("daily", ADMIN, {"time": "09:30",
                                                          "timezone": "America/New_York"},
                                         admin=True))
        await wait_for(lambda: [t for t in texts(fake_discord) if "set for 09:30" in t])
        assert len(await app.app_db.schedules()) == 1
        ev.send(bot, fake_discord, ev.slash("daily", ADMIN, {"time": "off"}, admin=True))
        await wait_for(lambda: [t for t in texts(fake_discord) if "turned off" in t])
        assert await app.app_db.schedules() == []
        ev.send(bot, fake_discord, ev.slash("daily", ADMIN, {"enabled": False}, admin=True))
        await wait_for(lambda: [t for t in texts(fake_discord) if "no daily" in t.lower()])
        assert not fake_discord.threads
    finally:
        await bot.close()
        await app.close()


async def test_matchup_answers_with_score_and_projection(fake_discord, tmp_path):
    app, bot = await open_bot(tmp_path)
    try:
        ev.send(bot, fake_discord, ev.slash("link", MEMBER, {"team": "1"}))  # from autocomplete
        await wait_for(lambda: [t for t in texts(fake_discord) if "Linked you to" in t])
        ev.send(bot, fake_discord, ev.slash("matchup", MEMBER))
        # personal: a private answer in the channel, no thread, no public "asked" line
        answer = await wait_for(lambda: [
            m for m in fake_discord.channel_messages(fd.CHANNEL_ID)
            if "Projected final" in fd.message_text(m) and any(
                c.get("label") == "Post to channel" for c in fd.controls(m))])
        assert answer[0]["flags"] & 64 and not fake_discord.threads
        assert "Hoop Dreamers 463.0 - 388.0 Full Court Press" in fd.message_text(answer[0])
        assert not [m for m in fake_discord.channel_messages(fd.CHANNEL_ID)
                    if not m["flags"] & 64]
        turn = await app.db.fetchall("SELECT request FROM turns")
        assert '"intent": "matchup_status"' in turn[0]["request"].replace("':", '":')
    finally:
        await bot.close()
        await app.close()


async def test_link_by_team_name_and_for_a_member(fake_discord, tmp_path):
    """/link team:<name> as typed (no autocomplete pick); an admin links another member with
    the member option; remove:True unlinks."""
    app, bot = await open_bot(tmp_path)
    try:
        ev.send(bot, fake_discord, ev.slash("link", MEMBER, {"team": "Hoop Dreamers"}))
        await wait_for(lambda: [t for t in texts(fake_discord) if "Linked you to" in t])
        ev.send(bot, fake_discord, ac.with_member(
            ev.slash("link", ADMIN, {"team": "9"}, admin=True), "member", OTHER))
        await wait_for(lambda: [t for t in texts(fake_discord) if "Full Court Press" in t
                                and "Linked you to" not in t])
        links = await app.app_db.fetchall(
            "SELECT user_id, team_id FROM league_links ORDER BY team_id")
        assert [(r["user_id"], r["team_id"]) for r in links] == [(str(MEMBER), 1),
                                                                (str(OTHER), 9)]
        ev.send(bot, fake_discord, ev.slash("link", MEMBER, {"remove": True}))
        await wait_for(lambda: [t for t in texts(fake_discord) if "removed" in t])
        assert len(await app.app_db.fetchall("SELECT 1 FROM league_links")) == 1
        assert not fake_discord.threads
    finally:
        await bot.close()
        await app.close()


def test_console_matchup(tmp_path):
    """The console reads `/matchup` with the same table (its default team: the demo's)."""
    import os

    from typer.testing import CliRunner

    from bot.cli import app as cli

    env = {k: v for k, v in os.environ.items()
           if k not in ("GOOGLE_API_KEY", "FANVISE_ESPN_LEAGUE_ID", "FANVISE_DATA_DIR")}
    res = CliRunner().invoke(cli, ["run", "console", "--data-dir", str(tmp_path)],
                             input="/matchup\nquit\n", env=env)
    assert res.exit_code == 0, res.output
    assert "Hoop Dreamers 463.0 - 388.0 Full Court Press" in res.output
    assert "Projected final" in res.output


# ---------------------------------------------------------------------- Slack


def test_slack_subcommands_come_from_the_table():
    for name in NAMES:
        assert parse_command(f"{name} x y") == (name, {"text": "x y"})
        assert (command(name).private) == (name in ("link", "daily", "alerts", "help"))
    assert parse_command("MATCHUP") == ("matchup", {"text": ""})
    assert parse_command("am i winning?") == ("ask", {"text": "am i winning?"})
    assert parse_command("/lineup") == ("ask", {"text": "/lineup"})
    assert parse_command("") == ("help", {})


@pytest.mark.parametrize("text", ["matchup", "MATCHUP"])
async def test_slack_fanvise_matchup(fake_slack, tmp_path, text):
    import aiohttp

    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path))
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url)
    bolt = build_slack_app(app.core, app.settings, client=client, signing_secret=sr.SECRET,
                           socket_mode=False)
    runner = await serve_http(bolt, host="127.0.0.1", port=0)
    url = f"http://127.0.0.1:{runner.addresses[0][1]}/slack/events"
    try:
        for line in ("link team=1", text):
            body = sr.slash_body(line, response_url=fake_slack.response_url())
            async with aiohttp.ClientSession() as s, s.post(
                    url, data=body.encode(), headers=sr.signed_headers(body)) as r:
                assert r.status == 200
            if line.startswith("link"):
                await wait_for(lambda: [r for r in fake_slack.responses
                                        if "Linked you to" in str(r)])
        # matchup is personal: answered privately (the command's response_url) when the
        # Slack surface supports it (bot/slack), else in a thread under the asked line
        answer = await wait_for(lambda: [
            m for m in [*fake_slack.messages.values(), *fake_slack.responses]
            if "Projected final" in str(m.get("text")) + str(m.get("blocks"))])
        assert "Hoop Dreamers" in str(answer[0].get("text")) + str(answer[0].get("blocks"))
        if answer[0] not in fake_slack.responses:
            root = next(iter(fake_slack.messages.values()))
            assert f"/fanvise {text.lower()}" in root["text"].lower()
    finally:
        await runner.cleanup()
        await app.close()
