"""Graphs are compiled once per process and read the turn's deps from the runtime context
(issue 14, part 1): many turns of every kind compile each graph once; two turns for
different teams on the one compiled graph each see their own deps (no closure leaks a
turn's deps into the next); nodes are top-level functions that run alone.

Real parts: FanViseRuntime on the demo league, SQLite checkpoints, the offline model. Only
`StateGraph.compile` is wrapped, to count calls (it still compiles).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _runtime_support import contract_optimizer  # type: ignore[import-not-found]
from langchain_core.messages import HumanMessage
from langgraph.graph import StateGraph
from langgraph.runtime import Runtime

from agents.player_research.graph import research_graph
from agents.runtime import FanViseRuntime
from agents.shared.llm import OfflineChatModel
from agents.shared.types import Answer, ApprovalRequest
from agents.supervisor.graph import answer_node, classify, research_subgraph
from agents.supervisor.state import SupervisorContext
from agents.understanding.request import Intent, Request
from fantasy.demo import open_demo_client


async def collect(agen: Any) -> list[Any]:
    return [ev async for ev in agen]


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the graphs compiled from now on (the process-wide research graph included)."""
    research_graph.cache_clear()
    research_subgraph.cache_clear()
    names: list[str] = []
    original = StateGraph.compile

    def counting(self: StateGraph, *args: Any, **kwargs: Any) -> Any:
        names.append(str(kwargs.get("name") or "graph"))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(StateGraph, "compile", counting)
    return names


async def test_many_turns_of_every_kind_compile_each_graph_once(tmp_path: Path,
                                                                compiled: list[str]) -> None:
    rt = await FanViseRuntime.open(tmp_path, optimizer_graph_builder=contract_optimizer)
    try:
        for k in range(2):
            conv = f"console:once{k}"
            help_ = await collect(rt.ask(conv, "help", user_id="u1"))
            assert isinstance(help_[-1], Answer) and help_[-1].intent == "help"
            research = await collect(rt.ask(conv, "Is Jalen Brunson playing tonight?",
                                            user_id="u1"))
            assert isinstance(research[-1], Answer)
            assert research[-1].intent == "player_research"
            assert "Jalen Brunson" in research[-1].text  # the subgraph read the turn's deps
            card = await collect(rt.ask(conv, "Review my matchup", user_id="u1"))
            req = card[-1]
            assert isinstance(req, ApprovalRequest) and req.moves
            done = await collect(rt.decide(req.run_thread_id, req.interrupt_id, "decline",
                                           user_id="u1"))
            assert isinstance(done[-1], Answer)
            assert await rt.pending_approvals() == []
    finally:
        await rt.close()
    # supervisor and optimizer once on this runtime's saver, the research graph once per
    # process; nothing is compiled per turn
    assert sorted(compiled) == ["graph", "player_research", "supervisor"], compiled


async def test_one_compiled_graph_serves_turns_for_different_teams(tmp_path: Path) -> None:
    """The same question for two teams on the one compiled supervisor: each turn answers
    from its own context (team 1's roster, then team 2's), never the previous turn's."""
    rt = await FanViseRuntime.open(tmp_path, optimizer_graph_builder=contract_optimizer)
    try:
        league = await rt.espn.get_league()
        graph = rt._supervisor()
        answers = {}
        for team_id in (1, 2):
            evs = await collect(rt.ask(f"console:team{team_id}", "who is on my roster",
                                       user_id="u1", team_id=team_id))
            assert isinstance(evs[-1], Answer) and evs[-1].intent == "roster"
            answers[team_id] = evs[-1].text
        assert rt._supervisor() is graph
    finally:
        await rt.close()
    for team_id, text in answers.items():
        other = 2 if team_id == 1 else 1
        mine = {e.player.name for e in league.team(team_id).roster}
        theirs = {e.player.name for e in league.team(other).roster} - mine
        assert mine and all(name in text for name in mine), (team_id, text)
        assert not any(name in text for name in theirs), (team_id, text)


async def test_nodes_run_alone_with_a_runtime_context() -> None:
    """`classify` and `answer_node` are plain functions of (state, Runtime[context])."""
    client = open_demo_client("points")
    try:
        ctx = SupervisorContext.for_client(client, OfflineChatModel(), can_delegate=False)
        runtime = Runtime(context=ctx)
        update = await classify({"messages": [HumanMessage("what can you do?")]}, runtime)
        assert (update["intent"], update["route"]) == ("help", "answer")
        reply = await answer_node({"request": update["request"]}, runtime)
        assert reply["answer"] and "matchup" in reply["answer"].lower()
        delegated = await classify({"messages": [HumanMessage("x")],
                                    "request_in": Request(intent=Intent.MATCHUP_ANALYSIS,
                                                          text="x").model_dump(mode="json")},
                                   Runtime(context=SupervisorContext.for_client(
                                       client, OfflineChatModel(), can_delegate=True)))
        assert delegated["route"] == "delegate"
        update = await classify({"messages": [HumanMessage("x")],
                                 "request_in": Request(intent=Intent.MATCHUP_ANALYSIS,
                                                       text="x").model_dump(mode="json")},
                                runtime)
        assert update["route"] == "agent"  # can_delegate=False in this context
    finally:
        await client.aclose()
