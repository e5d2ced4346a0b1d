"""Fixtures for local fake Discord / Slack servers on 127.0.0.1 (import them into a test
module or conftest to use them) and `wait_for`, polling until a fake has seen something."""

from __future__ import annotations

import asyncio
from typing import Any

import discord
import pytest

from tests.bot.harness.fake_discord import FakeDiscord
from tests.bot.harness.fake_slack import FakeSlack


@pytest.fixture
async def fake_discord(monkeypatch):
    """A fake Discord REST API; discord.py's Route.BASE points at it for the test."""
    fake = FakeDiscord()
    base = await fake.start()
    monkeypatch.setattr(discord.http.Route, "BASE", base)
    yield fake
    await fake.stop()


@pytest.fixture
async def fake_slack():
    """A fake Slack Web API; `fake_slack.base_url` goes into AsyncWebClient(base_url=...)."""
    fake = FakeSlack()
    fake.base_url = await fake.start()
    yield fake
    await fake.stop()


async def wait_for(predicate, timeout: float = 60.0) -> Any:
    """Poll `predicate` every 50 ms until it returns something truthy (returned), or fail
    after `timeout` seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if loop.time() > end:
            raise AssertionError("timed out")
        await asyncio.sleep(0.05)
