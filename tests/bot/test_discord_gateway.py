"""discord.py's real gateway client (`bot.start()`: websocket, HELLO/IDENTIFY/READY,
heartbeats) against the fake Discord on 127.0.0.1: intents sent, commands synced on start,
events delivered over the websocket instead of fed to the parsers."""

from __future__ import annotations

import asyncio
import logging
import time

import discord
import yarl

from bot.discord.app import build_discord_bot
from bot.discord.surface import DiscordSurface
from tests.bot.harness import discord_events as ev
from tests.bot.harness import fake_discord as fd
from tests.bot.harness.scripted_core import ScriptedCore

TOKEN = "fake.discord.token"
REQUESTER = 520000000000000001


async def wait_until(predicate, timeout: float = 10.0):
    end = time.monotonic() + timeout
    while not (value := predicate()):
        if time.monotonic() > end:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)
    return value


async def test_gateway_session_slash_thread_and_follow_up(fake_discord, monkeypatch):
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY",
                        yarl.URL(fake_discord.gateway_url))
    fake_discord.gateway_guilds = [ev.guild_create([fd.text_channel()])]
    core = ScriptedCore()
    logging.getLogger("discord.gateway").setLevel(logging.DEBUG)
    bot = build_discord_bot(core, None, application_id=fd.APP_ID, guild_id=fd.GUILD_ID,
                            guild_ready_timeout=0.1)
    assert logging.getLogger("discord.gateway").level == logging.INFO  # no raw-event logs
    runner = asyncio.create_task(bot.start(TOKEN))
    try:
        await asyncio.wait_for(bot.wait_until_ready(), 15)
        ident = fake_discord.identifies[0]
        assert ident["token"] == TOKEN
        intents = discord.Intents._from_value(ident["intents"])
        assert intents.guilds and intents.guild_messages and intents.message_content
        put = fake_discord.find("PUT", "/commands$")
        assert put[0].path == f"/applications/{fd.APP_ID}/guilds/{fd.GUILD_ID}/commands"

        payload = ev.slash("ask", REQUESTER, {"question": "who starts tonight?"})
        fake_discord.interaction_channels[payload["id"]] = fd.CHANNEL_ID
        await fake_discord.dispatch("INTERACTION_CREATE", payload)
        await fake_discord.wait_for("POST", "/callback$")
        thread_id = (await wait_until(lambda: list(fake_discord.threads)))[0]
        await fake_discord.wait_for("POST", rf"^/channels/{thread_id}/messages$", count=2)
        thread = await wait_until(lambda: bot.get_channel(thread_id))  # THREAD_CREATE
        assert isinstance(thread, discord.Thread) and thread.owner_id == fd.BOT_ID

        await fake_discord.dispatch("MESSAGE_CREATE", ev.message_create(
            thread_id, REQUESTER, "and tomorrow?"))
        await wait_until(lambda: [c for c in core.calls if c[0] == "message"])
        assert core.calls[-1][3] == "and tomorrow?"
        assert not fake_discord.find("GET", rf"^/channels/{thread_id}$")  # cache, no lookup
        assert isinstance(bot.surface, DiscordSurface)
    finally:
        await bot.close()
        await asyncio.wait_for(runner, 10)
