"""`fanvise run discord` wiring (bot/commands/run.py) end to end: settings -> FanViseApp
(real runtime, demo league, offline model) -> the real discord.py client over the fake
gateway/REST on 127.0.0.1 -> a slash command answered in a thread -> stop -> clean close."""

from __future__ import annotations

import asyncio
from pathlib import Path

import discord
import yarl

from bot.commands.run import Surface, _serve
from bot.settings import Settings
from storage.db import Database
from tests.bot.harness import discord_events as ev
from tests.bot.harness import fake_discord as fd

TOKEN = "fake.discord.token"
USER = 520000000000000077


async def test_run_discord_serves_a_slash_command_and_stops_cleanly(fake_discord, monkeypatch,
                                                                    tmp_path: Path) -> None:
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY",
                        yarl.URL(fake_discord.gateway_url))
    fake_discord.gateway_guilds = [ev.guild_create([fd.text_channel()])]
    settings = Settings(_env_file=None, data_dir=tmp_path, discord_token=TOKEN,
                        discord_guild_id=fd.GUILD_ID)
    stop = asyncio.Event()
    task = asyncio.create_task(_serve(Surface.discord, settings, stop=stop))
    try:
        for _ in range(600):
            if fake_discord.identifies and fake_discord.find("PUT", "/commands$"):
                break
            assert not task.done(), task.exception()
            await asyncio.sleep(0.05)
        assert fake_discord.identifies[0]["token"] == TOKEN
        # the member links first (/link with the team's name), as a member must
        link = ev.slash("link", USER, {"team": "Hoop Dreamers"})
        fake_discord.interaction_channels[link["id"]] = fd.CHANNEL_ID
        await fake_discord.dispatch("INTERACTION_CREATE", link)
        for _ in range(600):
            if any("Linked you to" in str(m) for m in fake_discord.messages.values()):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("/link did not answer")
        payload = ev.slash("lineup", USER, {"day": "2023-01-26"})
        fake_discord.interaction_channels[payload["id"]] = fd.CHANNEL_ID
        await fake_discord.dispatch("INTERACTION_CREATE", payload)
        await fake_discord.wait_for("POST", "/callback$")
        for _ in range(600):
            texts = [str(m) for m in fake_discord.messages.values()]
            if any("Daily lineup for Hoop Dreamers" in t for t in texts):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError(f"no lineup posted: {texts[-3:]}")
    finally:
        stop.set()
        assert await asyncio.wait_for(task, 60) == 0
    # the app closed its database: the file opens again and holds the app tables
    db = await Database.open(tmp_path / "fanvise.sqlite")
    try:
        assert await db.fetchone("SELECT name FROM sqlite_master WHERE name='cards'")
    finally:
        await db.close()


async def test_run_slack_http_mode_answers_a_signed_command(fake_slack, tmp_path: Path) -> None:
    """`fanvise run slack` in HTTP mode (no app token): signed /fanvise lineup -> ack ->
    the lineup answered privately (its response_url on the fake) -> stop -> closed."""
    import socket

    import aiohttp

    from tests.bot.harness import slack_requests as sr

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = Settings(_env_file=None, data_dir=tmp_path, slack_bot_token="xoxb-test-token",
                        slack_signing_secret=sr.SECRET, slack_api_url=fake_slack.base_url,
                        slack_host="127.0.0.1", slack_port=port)
    stop = asyncio.Event()
    task = asyncio.create_task(_serve(Surface.slack, settings, stop=stop))
    try:
        body = sr.slash_body("lineup tomorrow", response_url=fake_slack.response_url("lu"))
        status = None
        async with aiohttp.ClientSession() as http:
            link = sr.slash_body("link hoop dreamers",  # the member links first
                                 response_url=fake_slack.response_url())
            for _ in range(600):
                assert not task.done(), task.exception()
                try:
                    async with http.post(f"http://127.0.0.1:{port}/slack/events",
                                         data=link.encode(),
                                         headers=sr.signed_headers(link)) as resp:
                        assert resp.status == 200
                        break
                except aiohttp.ClientConnectionError:
                    await asyncio.sleep(0.05)
            for _ in range(600):
                if any("Linked you to" in str(r) for r in fake_slack.responses):
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError("/fanvise link did not answer")
            for _ in range(600):
                assert not task.done(), task.exception()
                try:
                    async with http.post(f"http://127.0.0.1:{port}/slack/events",
                                         data=body.encode(),
                                         headers=sr.signed_headers(body)) as resp:
                        status = resp.status
                        break
                except aiohttp.ClientConnectionError:
                    await asyncio.sleep(0.05)
            assert status == 200
            bad = sr.signed_headers(body, secret="wrong")
            async with http.post(f"http://127.0.0.1:{port}/slack/events", data=body.encode(),
                                 headers=bad) as resp:
                assert resp.status == 401
        for _ in range(600):
            texts = [str(r) for r in fake_slack.responses if r["rid"] == "lu"]  # private
            if any("Daily lineup for Hoop Dreamers" in t for t in texts):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("no lineup posted")
        assert any("Thu Jan 26" in t for t in texts)
    finally:
        stop.set()
        assert await asyncio.wait_for(task, 60) == 0
