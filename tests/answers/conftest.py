"""The answers' deps on the demo league, once per variant (points, categories)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from agents.shared.deps import AgentDeps
from fantasy.demo import open_demo_client

VARIANTS = ("points", "categories")


@pytest.fixture(params=VARIANTS)
async def deps(request: pytest.FixtureRequest) -> Any:
    """AgentDeps on the demo league of each variant (a module may narrow it with its own)."""
    client = open_demo_client(request.param)
    d = AgentDeps.for_client(client, FakeListChatModel(responses=["unused"]))
    yield d
    await client.aclose()
