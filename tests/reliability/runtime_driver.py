"""A tiny bot process for the SIGKILL tests: opens FanViseRuntime on a data dir (demo league,
offline model) and runs one command, printing every event as a JSON line (flushed), so the
parent test can kill it with SIGKILL at a precise moment and start a fresh one.

    python -m tests.reliability.runtime_driver DATA_DIR ask CONV USER TEXT [--hold]
    python -m tests.reliability.runtime_driver DATA_DIR pending
    python -m tests.reliability.runtime_driver DATA_DIR decide RUN INTERRUPT DECISION USER
    python -m tests.reliability.runtime_driver DATA_DIR recover
    python -m tests.reliability.runtime_driver DATA_DIR ops OP [OP ...]
        OP = recover | pending | decide:DECISION:N (N concurrent decides on every pending
        approval, users u1..uN) | redecide:RUN:INTERRUPT:DECISION

The optimizer is `slow_optimizer`, a graph with the matchup optimizer's contract
(propose -> crunch -> present_and_confirm -> apply) whose `crunch` node waits
$FV_CRUNCH_SECONDS (default 0) so a run can be killed mid-flight, and whose `apply` node
appends every applied move to DATA_DIR/applied.jsonl (to count duplicates across
processes) and applies it to the demo league. `--hold` keeps the process alive after an
ApprovalRequest (killed while the approval is pending). $FV_GRAPH=real uses the real
matchup optimizer graph instead, when it is installed.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import interrupt
from typing_extensions import TypedDict

from agents.runtime import FanViseRuntime
from agents.shared.deps import AgentDeps
from agents.shared.tool_registry import FanviseTools
from agents.shared.types import event_to_dict


class _State(TypedDict, total=False):
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


def slow_optimizer_for(data_dir: Path):
    """A builder (*, checkpointer) -> compiled graph, writing to data_dir; each run's
    AgentDeps is its runtime context (as for the real optimizer)."""

    def build(*, checkpointer: Any = None) -> Any:
        async def propose(state: _State, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
            tools = FanviseTools(runtime.context)
            get_stream_writer()({"stage": "gather", "text": "Analyzing your roster..."})
            roster = await tools.get_my_roster()
            fas = await tools.get_free_agents(limit=1, min_games=1)
            out = [p for p in roster["players"] if p["injury_status"] == "OUT"][:1]
            moves = [{"move_id": "m1", "drop": {"id": d["id"], "name": d["name"]},
                      "add": {"id": a["id"], "name": a["name"]}, "expected_gain": 9.5,
                      "games": a["games_left"], "confidence": "HIGH",
                      "reasons": ["drop is OUT"]}
                     for d, a in zip(out, fas["players"], strict=False)]
            return {"moves": moves, "tool_calls": ["get_my_roster", "get_free_agents"]}

        async def crunch(state: _State) -> dict[str, Any]:
            get_stream_writer()({"stage": "crunch", "text": "Crunching the numbers..."})
            await asyncio.sleep(float(os.environ.get("FV_CRUNCH_SECONDS", "0")))
            return {}

        async def present_and_confirm(state: _State) -> dict[str, Any]:
            if not state["moves"]:
                return {"decisions": {}}
            answer = interrupt({"type": "move_approval", "title": "Approve these moves?",
                                "summary": "1 move", "moves": state["moves"],
                                "requester_id": state["requester_id"]})
            return {"decisions": answer["decisions"]}

        async def apply(state: _State, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
            deps = runtime.context
            get_stream_writer()({"stage": "apply", "text": "Applying your decision..."})
            await asyncio.sleep(float(os.environ.get("FV_APPLY_SECONDS", "0")))
            done = [m for m in state["moves"]
                    if state["decisions"].get(m["move_id"]) == "approve"]
            for m in done:
                deps.espn.demo.apply_move(deps.my_team_id, m["drop"]["id"], m["add"]["id"])
                with open(data_dir / "applied.jsonl", "a") as fh:
                    fh.write(json.dumps({"pid": os.getpid(), "move": m["move_id"]}) + "\n")
            text = ("Applied: " + ", ".join(f"drop {m['drop']['name']}, add {m['add']['name']}"
                                            for m in done)) if done else "No moves applied."
            return {"applied_moves": done, "answer": text, "report": {"applied": done},
                    "llm_calls": 0}

        b = StateGraph(_State, context_schema=AgentDeps)
        for name, fn in (("propose", propose), ("crunch", crunch),
                         ("present_and_confirm", present_and_confirm), ("apply", apply)):
            b.add_node(name, fn)
        b.add_edge(START, "propose")
        b.add_edge("propose", "crunch")
        b.add_edge("crunch", "present_and_confirm")
        b.add_edge("present_and_confirm", "apply")
        b.add_edge("apply", END)
        return b.compile(checkpointer=checkpointer)

    return build


async def _collect(agen: Any) -> list[dict[str, Any]]:
    return [event_to_dict(ev) async for ev in agen]


async def run_ops(rt: FanViseRuntime, ops: list[str]) -> None:
    """Several steps in one process (each process start costs seconds of imports)."""
    for op in ops:
        name, *rest = op.split(":")
        if name == "recover":
            for conv, events in await rt.recover_crashed_runs():
                emit({"kind": "recovered", "conversation_id": conv,
                      "events": [event_to_dict(e) for e in events]})
        elif name == "pending":
            emit({"kind": "pending", "approvals": [event_to_dict(r)
                                                   for r in await rt.pending_approvals()]})
        elif name == "decide":
            decision, n = rest[0], int(rest[1])
            for req in await rt.pending_approvals():
                results = await asyncio.gather(*(
                    _collect(rt.decide(req.run_thread_id, req.interrupt_id, decision,
                                       user_id=f"u{k + 1}")) for k in range(n)))
                emit({"kind": "decided", "run_thread_id": req.run_thread_id,
                      "interrupt_id": req.interrupt_id, "results": results})
        elif name == "redecide":
            run = ":".join(rest[:-2])
            results = await _collect(rt.decide(run, rest[-2], rest[-1], user_id="u1"))
            emit({"kind": "redecided", "results": results})
        else:
            emit({"kind": "error", "text": f"unknown op {op}"})


def emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, default=str) + "\n")
    sys.stdout.flush()


async def main(argv: list[str]) -> int:
    data_dir, cmd, args = Path(argv[0]), argv[1], argv[2:]
    builder = None if os.environ.get("FV_GRAPH") == "real" else slow_optimizer_for(data_dir)
    rt = await FanViseRuntime.open(data_dir, optimizer_graph_builder=builder)
    try:
        emit({"kind": "ready", "pid": os.getpid()})
        if cmd == "ask":
            conv, user, text = args[:3]
            async for ev in rt.ask(conv, text, user_id=user):
                emit(event_to_dict(ev))
                if ev.kind == "approval" and "--hold" in args:
                    emit({"kind": "holding"})
                    await asyncio.sleep(3600)
        elif cmd == "pending":
            for req in await rt.pending_approvals():
                emit(event_to_dict(req))
        elif cmd == "decide":
            run, intr, decision, user = args[:4]
            async for ev in rt.decide(run, intr, decision, user_id=user):
                emit(event_to_dict(ev))
        elif cmd == "recover":
            for conv, events in await rt.recover_crashed_runs():
                emit({"kind": "recovered", "conversation_id": conv,
                      "events": [event_to_dict(e) for e in events]})
        elif cmd == "ops":
            await run_ops(rt, args)
        else:
            emit({"kind": "error", "text": f"unknown command {cmd}"})
            return 2
        emit({"kind": "end"})
        return 0
    finally:
        await rt.close()


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
