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
