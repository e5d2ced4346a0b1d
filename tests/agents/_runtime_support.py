"""Support for the runtime tests: a small graph with the matchup optimizer's contract."""

from __future__ import annotations

from typing import Any

from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import interrupt
from typing_extensions import TypedDict

from agents.shared.deps import AgentDeps
from agents.shared.tool_registry import FanviseTools

APPLIED: list[tuple[str, int, int]] = []


class _OptState(TypedDict, total=False):
    request: str
    intent: str
    requester_id: str
    focus_categories: list[str]
    day: str | None
    moves: list[dict[str, Any]]
    decisions: dict[str, str]
    applied_moves: list[dict[str, Any]]
    answer: str
    report: dict[str, Any]
    tool_calls: list[str]
    llm_calls: int


def contract_optimizer(*, checkpointer: Any = None) -> Any:
    """A minimal graph with the matchup optimizer's contract: drop the OUT player, add the
    best healthy free agent, ask for approval, apply approved moves to the demo league.
    Each run's AgentDeps is its runtime context."""

    async def propose(state: _OptState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
        tools = FanviseTools(runtime.context)
        get_stream_writer()({"stage": "gather", "text": "Analyzing your roster..."})
        roster = await tools.get_my_roster()
        fas = await tools.get_free_agents(limit=2, min_games=1)
        out = [p for p in roster["players"] if p["injury_status"] == "OUT"]
        moves = [{"move_id": f"m{k + 1}", "drop": {"id": d["id"], "name": d["name"]},
                  "add": {"id": a["id"], "name": a["name"]}, "expected_gain": 10.0 - k,
                  "games": a["games_left"], "confidence": "HIGH", "reasons": ["drop is OUT"]}
                 for k, (d, a) in enumerate(zip(out[:1] * 2, fas["players"], strict=False))]
        return {"moves": moves, "tool_calls": ["get_my_roster", "get_free_agents"]}

    async def present_and_confirm(state: _OptState) -> dict[str, Any]:
        if not state["moves"]:
            return {"decisions": {}}
        answer = interrupt({"type": "move_approval", "title": "Approve these moves?",
                            "summary": f"{len(state['moves'])} moves",
                            "moves": state["moves"], "requester_id": state["requester_id"]})
        return {"decisions": answer["decisions"]}

    async def apply(state: _OptState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
        deps = runtime.context
        done = []
        for m in state["moves"]:
            if state["decisions"].get(m["move_id"]) == "approve" and not done:
                deps.espn.demo.apply_move(deps.my_team_id, m["drop"]["id"], m["add"]["id"])
                APPLIED.append((m["move_id"], m["drop"]["id"], m["add"]["id"]))
                done.append(m)
        text = ("Applied: " + ", ".join(f"drop {m['drop']['name']}, add {m['add']['name']}"
                                        for m in done)) if done else "No moves applied."
        return {"applied_moves": done, "answer": text, "report": {"applied": done},
                "llm_calls": 0}

    b = StateGraph(_OptState, context_schema=AgentDeps)
    b.add_node("propose", propose)
    b.add_node("present_and_confirm", present_and_confirm)
    b.add_node("apply", apply)
    b.add_edge(START, "propose")
    b.add_edge("propose", "present_and_confirm")
    b.add_edge("present_and_confirm", "apply")
    b.add_edge("apply", END)
    return b.compile(checkpointer=checkpointer)
