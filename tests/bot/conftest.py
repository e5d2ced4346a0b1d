"""Fixtures for the chat adapter tests: local fake Discord / Slack servers on 127.0.0.1."""

from __future__ import annotations

import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:  # plain `pytest` (not `python -m pytest`) does not add the repo root
    sys.path.insert(0, _ROOT)

from tests.bot.harness.servers import fake_discord, fake_slack  # noqa: E402, F401 (fixtures)
