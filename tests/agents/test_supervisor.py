"""Supervisor graph and middleware: routing, loop guard, circuit breaker, tool filtering,
dynamic prompt, history trimming. Gemini is replaced by a scripted chat model; ESPN is the
demo league (or a failing transport at the wire)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import httpx
import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from agents.runtime import FanViseRuntime
from agents.shared.deps import AgentDeps
from agents.shared.llm import OFFLINE_NOTE, OfflineChatModel
from agents.shared.middleware import (
    MAX_CONSECUTIVE_TOOL_ERRORS,
    MAX_TOOL_CALLS,
    CircuitBreaker,
    filter_tools,
    trim_history,
)
from agents.shared.tool_registry import TEAM_TOOLS, build_tools
from agents.shared.types import Notice
from agents.supervisor.graph import build_supervisor_graph
from agents.supervisor.state import SupervisorContext
from fantasy.demo import DEMO_BASE_URL, DemoLeague, open_demo_client
from fantasy.espn.client import EspnClient

_ids = itertools.count(1)


class Scripted(BaseChatModel):
    """Replays scripted replies (AIMessage or callable(messages)); records every call."""

    script: list[Any] = Field(default_factory=list)
    repeat_last: bool = False
    calls: list[list[BaseMessage]] = Field(default_factory=list)
    bound: list[list[str]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kw: Any) -> Scripted:  # type: ignore[override]
        self.bound.append([t.name for t in tools])
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kw: Any) -> ChatResult:
        self.calls.append(list(messages))
        k = len(self.calls) - 1
        if k < len(self.script):
            step = self.script[k]
        elif self.repeat_last and self.script:
            step = self.script[-1]
        else:
            step = AIMessage(content="done")
        msg = step(messages) if callable(step) else step
        if msg.tool_calls:  # fresh ids every time, like a real model
            msg = AIMessage(content="", tool_calls=[{**tc, "id": f"c{next(_ids)}"}
                                                    for tc in msg.tool_calls])
        return ChatResult(generations=[ChatGeneration(message=msg)])


#: A question that really is open (the router reads it as general_advice, answered by the
#: agent loop). "Who will win the title?" is now unclear to the router (a clarifying
#: question), so the loop's tests would not reach the loop with it.
OPEN_QUESTION = "Is it better to punt free throws or turnovers in a category league?"


def call(name: str, **args: Any) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": "x"}])


class Failing(httpx.AsyncBaseTransport):
    """ESPN outage at the wire: every request gets HTTP 503."""

    def __init__(self) -> None:
        self.requests = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        return httpx.Response(503, json={"messages": ["unavailable"]})


@pytest.fixture
async def client() -> Any:
    c = open_demo_client("points")
    yield c
    await c.aclose()


@dataclass
class Supervisor:
    """A compiled supervisor and the runtime context of every turn it runs."""

    graph: Any
    context: SupervisorContext


def supervisor(deps: AgentDeps, **settings: Any) -> Supervisor:
    """The supervisor on an InMemorySaver; its turns run with `deps` plus `settings`
    (use_workflows, can_delegate, player_names) as their SupervisorContext."""
    base = {f.name: getattr(deps, f.name) for f in fields(AgentDeps) if f.init}
    if "player_names" in settings:
        settings["player_names"] = tuple(settings["player_names"])
    return Supervisor(build_supervisor_graph(checkpointer=InMemorySaver()),
                      SupervisorContext(**base, **settings))


async def run_turn(sup: Supervisor, text: str, thread: str = "t") -> dict[str, Any]:
    cfg = {"configurable": {"thread_id": thread}}
    await sup.graph.ainvoke({"messages": [HumanMessage(text)], "user_id": "u"}, cfg,
                            context=sup.context)
    return (await sup.graph.aget_state(cfg)).values


async def test_loop_guard_stops_after_budget(client: Any) -> None:
    model = Scripted(script=[call("get_schedule", team="mine")], repeat_last=True)
    deps = AgentDeps.for_client(client, model)
    g = supervisor(deps, use_workflows=False)
    v = await run_turn(g, "Who will win the title?")
    assert v["stop_reason"] == "tool_budget"
    assert len(v["tool_calls"]) == MAX_TOOL_CALLS
    assert f"stopped after {MAX_TOOL_CALLS} tool calls" in v["answer"]
    assert "Hoop Dreamers games" in v["answer"]  # what it found so far
    # every AI tool call has a matching ToolMessage (history stays valid)
    msgs = v["messages"]
    asked = {tc["id"] for m in msgs if isinstance(m, AIMessage) for tc in m.tool_calls}
    answered = {m.tool_call_id for m in msgs if isinstance(m, ToolMessage)}
    assert asked == answered
    assert len(model.calls) == MAX_TOOL_CALLS + 1


async def test_circuit_breaker_on_espn_outage() -> None:
    league = DemoLeague("points")
    failing = Failing()
    c = EspnClient(league.league_id, league.season, transport=failing, base_url=DEMO_BASE_URL,
                   max_retries=0, today=lambda: league.today)
    try:
        model = Scripted(script=[call("get_player_status", player_name="Jalen Brunson")],
                         repeat_last=True)
        deps = AgentDeps(espn=c, news=None, model=model, today=lambda: league.today,
                         my_team_id=1)
        g = supervisor(deps, use_workflows=False)
        v = await run_turn(g, "What should I do this week?")
        assert v["stop_reason"] == "circuit_breaker"
        assert len(v["tool_calls"]) == MAX_CONSECUTIVE_TOOL_ERRORS
        assert "failed 5 times in a row" in v["answer"] and "ESPN" in v["answer"]
        assert failing.requests > 0
    finally:
        await c.aclose()


async def test_runtime_espn_down_is_a_notice(tmp_path: Any) -> None:
    league = DemoLeague("points")
    c = EspnClient(league.league_id, league.season, transport=Failing(),
                   base_url=DEMO_BASE_URL, max_retries=0, today=lambda: league.today)
    c.demo = league
    rt = await FanViseRuntime.open(tmp_path, espn=c)
    try:
        evs = [e async for e in rt.ask("c", OPEN_QUESTION, user_id="u")]
        last = evs[-1]
        assert isinstance(last, Notice) and last.level == "error"
        assert "ESPN is not reachable" in last.text and "Traceback" not in last.text
        # a player question: the research workflow (or the agent loop) says ESPN failed
        evs = [e async for e in rt.ask("c", "Is Jalen Brunson playing tonight?", user_id="u")]
        assert "ESPN" in evs[-1].text and "Traceback" not in evs[-1].text
    finally:
        await rt.close()
        await c.aclose()


async def test_no_team_tools_before_link(client: Any) -> None:
    model = Scripted(script=[AIMessage(content="ok")])
    deps = AgentDeps(espn=client, news=None, model=model, today=lambda: client.demo.today,
                     my_team_id=None)
    g = supervisor(deps, use_workflows=False)
    v = await run_turn(g, "Who will win the title?")
    assert v["answer"] == "ok"
    assert model.bound and not set(model.bound[0]) & TEAM_TOOLS
    system = model.calls[0][0]
    assert isinstance(system, SystemMessage) and "No ESPN team is linked" in system.content
    v = await run_turn(g, "Review my matchup this week")
    assert v["route"] == "needs_team" and "Link your team" in v["answer"]
    assert v["needs_team"] is True  # what the chat acts on (Answer.needs_team), not words
    names = [t.name for t in filter_tools(build_tools(deps), team_linked=True)]
    assert TEAM_TOOLS <= set(names)


async def test_dynamic_prompt_from_categories_matchup() -> None:
    c = open_demo_client("categories")
    try:
        model = Scripted(script=[AIMessage(content="fine")])
        deps = AgentDeps.for_client(c, model)
        g = supervisor(deps, use_workflows=False)
        await run_turn(g, "Any general advice?")
        system = model.calls[0][0].content
        assert "Days left in the matchup: 5" in system
        assert "Winning: PTS, REB, AST, BLK, 3PM, FG%" in system
        assert "losing: STL, FT%, TO" in system
    finally:
        await c.aclose()


async def test_history_kept_across_turns_and_trimmed(client: Any) -> None:
    model = Scripted(script=[AIMessage(content="first"), AIMessage(content="second")])
    deps = AgentDeps.for_client(client, model)
    g = supervisor(deps, use_workflows=False)
    await run_turn(g, "Who will win the title?")
    await run_turn(g, "And who finishes last?")
    seen = [m.content for m in model.calls[1]]
    assert "Who will win the title?" in seen and "first" in seen


def test_trim_history_keeps_tool_pairs_valid() -> None:
    msgs: list[BaseMessage] = [SystemMessage("sys")]
    for k in range(60):
        msgs.append(HumanMessage(f"question {k} " + "word " * 120))
        msgs.append(AIMessage(content="", tool_calls=[{"name": "t", "args": {}, "id": f"i{k}"}]))
        msgs.append(ToolMessage(content="result " * 150, tool_call_id=f"i{k}", name="t"))
        msgs.append(AIMessage(content="answer " * 50))
    msgs.append(HumanMessage("latest"))
    out = trim_history(msgs, 8000)
    assert isinstance(out[0], SystemMessage) and isinstance(out[1], HumanMessage)
    assert out[-1].content == "latest"
    assert count_tokens_approximately(out) <= 8000 < count_tokens_approximately(msgs)
    ids = set()
    for m in out:
        if isinstance(m, AIMessage):
            ids |= {tc["id"] for tc in m.tool_calls}
        if isinstance(m, ToolMessage):
            assert m.tool_call_id in ids
    huge = [SystemMessage("s"), HumanMessage("x " * 20000)]
    assert [type(m) for m in trim_history(huge, 100)] == [SystemMessage, HumanMessage]


def test_circuit_breaker_counts_consecutive_errors() -> None:
    br = CircuitBreaker()
    err = ToolMessage(content='{"error": "x"}', tool_call_id="1")
    ok = ToolMessage(content='{"status": "FOUND"}', tool_call_id="2")
    br.record([err, err, err, err])
    assert not br.open
    br.record([ok])
    assert br.streak == 0
    br.record([err] * 5)
    assert br.open


async def test_routes_and_delegation(client: Any) -> None:
    deps = AgentDeps.for_client(client, OfflineChatModel())
    g = supervisor(deps, can_delegate=True)
    v = await run_turn(g, "I need a streamer for assists and steals", "d")
    assert v["route"] == "delegate"
    assert v["delegate"]["intent"] == "streaming"
    # the optimizer's one input is the typed Request (no flattened copies of its fields)
    assert set(v["delegate"]) == {"workflow", "intent", "requester_id", "request_obj",
                                  "answer_first", "then"}
    assert v["delegate"]["answer_first"] is False  # the request itself is the run
    assert v["delegate"]["then"] == []  # no further optimizer question in the message
    assert v["delegate"]["request_obj"]["categories"] == ["AST", "STL"]
    v = await run_turn(g, "hi", "d")
    # help is a deterministic answer (agents/answers/help.py), no longer its own route
    assert (v["intent"], v["route"]) == ("help", "answer")
    assert OFFLINE_NOTE not in v["answer"]  # a flag of the runtime's Answer, not words
    assert v["delegate"] is None  # per-turn fields reset


async def test_stored_history_is_compacted(client: Any) -> None:
    model = Scripted(script=[AIMessage(content=f"answer {k} " + "word " * 1200)
                             for k in range(20)])
    deps = AgentDeps.for_client(client, model)
    g = supervisor(deps, use_workflows=False)
    for k in range(20):
        v = await run_turn(g, f"Who will win the title, take {k}?", "long")
    msgs = v["messages"]
    assert count_tokens_approximately(msgs) <= 16000 + 2000  # bound + the newest turn
    assert isinstance(msgs[0], HumanMessage)
    assert msgs[-1].content.startswith("answer 19 ")
    assert len(msgs) < 40


async def test_loop_guard_through_runtime(tmp_path: Any) -> None:
    model = Scripted(script=[call("get_free_agents", limit=1)], repeat_last=True)
    rt = await FanViseRuntime.open(tmp_path, model=model)
    try:
        evs = [e async for e in rt.ask("c", OPEN_QUESTION, user_id="u")]
    finally:
        await rt.close()
    ans = evs[-1]
    assert ans.kind == "answer" and not ans.offline and ans.intent == "general_advice"
    assert f"stopped after {MAX_TOOL_CALLS} tool calls" in ans.text
    assert ans.tool_calls == ["get_free_agents"] * MAX_TOOL_CALLS
    assert "Best free agents" in ans.text  # graceful: what it found so far


async def test_follow_up_and_info_questions_route(client: Any) -> None:
    """'he'/'his' is the previous turn's player; info questions (a roster) are answered from
    one tool's data, never by the optimizer (issue 11: roster is its own intent)."""
    from fantasy.demo.league import load_base

    names = [e["player"]["fullName"] for e in load_base()["players"].values()]
    deps = AgentDeps.for_client(client, OfflineChatModel(player_names=names))
    g = supervisor(deps, player_names=names, can_delegate=True)
    v = await run_turn(g, "What's the latest on Jordan Poole?", "f")
    assert v["route"] == "research" and v["report"]["playerName"] == "Jordan Poole"
    v = await run_turn(g, "When is he expected back?", "f")
    assert v["route"] == "research"
    assert v["report"]["playerName"] == "Jordan Poole"
    assert v["report"]["expectedReturnDate"] == "2023-02-04" and "Sat Feb 4" in v["answer"]
    v = await run_turn(g, "Show me his last 2 games.", "f")  # still Poole (last turn's player)
    assert (v["intent"], v["route"]) == ("player_form", "answer")
    assert v["request"]["players"][0]["name"] == "Jordan Poole"
    assert v["tool_calls"] == ["get_player_game_log"]
    assert "Jordan Poole" in v["answer"] and "last 2 games" in v["answer"]
    v = await run_turn(g, "Who is on my opponent's roster?", "f")
    assert (v["intent"], v["route"], v["delegate"]) == ("roster", "answer", None)
    assert v["tool_calls"] == ["get_opponent_roster"] and "Starting: " in v["answer"]
