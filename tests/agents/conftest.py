"""Fixtures for the agents-workflows tests: demo league deps, demo news, scripted models.

Only what is outside this machine is faked: ESPN is the embedded demo league (recorded JSON
through the real EspnClient) or an httpx transport at the wire; Gemini is a scripted chat
model. News runs through the real NewsStore (Chroma + offline MiniLM).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from agents.shared.deps import AgentDeps
from fantasy.demo import DEMO_BASE_URL, DemoLeague, DemoTransport, open_demo_client
from fantasy.demo.league import load_base
from fantasy.espn.client import EspnClient
from storage.news_ingest import load_demo_news
from storage.news_store import NewsStore

_ids = itertools.count(1)


class ScriptedChatModel(BaseChatModel):
    """A chat model that replays scripted replies (AIMessages, or callables of the messages).

    `bind_tools` returns the model itself and records the bound tool names; every call's
    messages are kept in `calls`. After the script runs out it answers "done" (no tools).
    """

    script: list[Any] = Field(default_factory=list)
    calls: list[list[BaseMessage]] = Field(default_factory=list)
    bound_tools: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted-test-model"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:  # type: ignore[override]
        self.bound_tools = [getattr(t, "name", str(t)) for t in tools]
        return self

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self.calls.append(list(messages))
        k = len(self.calls) - 1
        step = self.script[k] if k < len(self.script) else AIMessage(content="done")
        msg = step(messages) if callable(step) else step
        return ChatResult(generations=[ChatGeneration(message=msg)])


def tool_call(name: str, **args: Any) -> AIMessage:
    """An AIMessage asking for one tool call."""
    return AIMessage(content="", tool_calls=[{"name": name, "args": args,
                                              "id": f"call_{next(_ids)}"}])


@pytest.fixture
def scripted() -> Callable[..., ScriptedChatModel]:
    """Factory: scripted(step, step, ...) -> ScriptedChatModel."""
    return lambda *steps: ScriptedChatModel(script=list(steps))


@pytest.fixture(scope="session")
def demo_players() -> list[tuple[int, str]]:
    """(player_id, full_name) of every player in the demo league."""
    return [(int(pid), e["player"]["fullName"]) for pid, e in load_base()["players"].items()]


@pytest.fixture(scope="session")
def news_store(tmp_path_factory: pytest.TempPathFactory,
               demo_players: list[tuple[int, str]]) -> NewsStore:
    """A real NewsStore loaded with the recorded demo feed (read-only in tests)."""
    store = NewsStore(tmp_path_factory.mktemp("agents-news"))
    report = asyncio.run(load_demo_news(store, demo_players))
    assert report.ok, report.summary()
    return store


def make_deps(variant: str = "points", *, news: NewsStore | None = None,
              model: BaseChatModel | None = None, my_team_id: int | None = None,
              untouchables: tuple[int, ...] = (), state_path: Path | None = None,
              today: date | None = None) -> AgentDeps:
    """AgentDeps on a fresh demo league client (its own mutable state)."""
    client = open_demo_client(variant, today=today, state_path=state_path)
    return AgentDeps.for_client(client, model or ScriptedChatModel(), news=news,
                                my_team_id=my_team_id, untouchables=untouchables)


@pytest.fixture
async def deps_factory() -> Any:
    """make_deps, closing every client afterwards."""
    made: list[AgentDeps] = []

    def factory(*args: Any, **kwargs: Any) -> AgentDeps:
        d = make_deps(*args, **kwargs)
        made.append(d)
        return d

    yield factory
    for d in made:
        await d.espn.aclose()


class SwitchTransport(httpx.AsyncBaseTransport):
    """Wire-level fake of an ESPN outage: serves the demo league until `fail` is set,
    then answers every request with HTTP `status`."""

    def __init__(self, inner: httpx.AsyncBaseTransport, status: int = 500) -> None:
        self.inner = inner
        self.fail = False
        self.status = status
        self.requests = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        if self.fail:
            return httpx.Response(self.status, json={"messages": ["server error"]})
        return await self.inner.handle_async_request(request)


def switchable_demo_client(variant: str = "points", cache: Any = None
                           ) -> tuple[EspnClient, SwitchTransport]:
    """A demo-league EspnClient whose transport can be switched to failing."""
    league = DemoLeague(variant=variant)
    transport = SwitchTransport(DemoTransport(league))
    client = EspnClient(league.league_id, league.season, transport=transport, cache=cache,
                        base_url=DEMO_BASE_URL, max_retries=0, today=lambda: league.today)
    client.demo = league
    league.attach_client(client)
    return client, transport


@pytest.fixture
def switchable_demo() -> Callable[..., tuple[EspnClient, SwitchTransport]]:
    """Factory: switchable_demo(variant, cache=None) -> (client, SwitchTransport)."""
    return switchable_demo_client
