"""Understanding on the demo league (the real router and resolver), shared by the modules."""

from __future__ import annotations

import asyncio

import pytest

from agents.shared.deps import AgentDeps
from agents.shared.llm import OfflineChatModel
from agents.understanding import UnderstandingContext
from agents.understanding.league_context import understanding_context
from fantasy.demo import open_demo_client


@pytest.fixture(scope="module")
def league() -> UnderstandingContext:
    """The demo league's understanding context (points), no previous turn."""
    deps = AgentDeps.for_client(open_demo_client("points"), OfflineChatModel())
    return asyncio.run(understanding_context(deps))
