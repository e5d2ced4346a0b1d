"""Fixtures for the chat adapter tests: local fake Discord / Slack servers on 127.0.0.1."""

from __future__ import annotations

import sys
from pathlib import Path

import discord
import pytest

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:  # plain `pytest` (not `python -m pytest`) does not add the repo root
    sys.path.insert(0, _ROOT)

from tests.bot.harness.fake_discord import FakeDiscord  # noqa: E402
from tests.bot.harness.fake_slack import FakeSlack  # noqa: E402


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

