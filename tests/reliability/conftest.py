"""Fixtures for the reliability tests that run the real adapters: local fake Discord / Slack
servers on 127.0.0.1 (shared with tests/bot)."""

from tests.bot.harness.servers import fake_discord, fake_slack  # noqa: F401 (fixtures)
