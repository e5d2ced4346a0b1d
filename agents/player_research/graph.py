"""Player research graph: agent -> tools -> build_report -> END (at most 4 agent calls).

    graph = research_graph()      # compiled once per process (build_player_research_graph)
    out = await graph.ainvoke({"query": "Is Jarrett Allen playing?",
                               "player_name": "Jarrett Allen",
                               "request_obj": request.model_dump(mode="json")}, context=deps)
    out["report"], out["answer"], out["tool_calls"], out["llm_calls"]

Nodes are top-level functions reading the turn's deps from `runtime.context`.
The model (deps.model, tools bound) only chooses which tools to call. `build_report` makes
sure the player's ESPN card and news were fetched (it fetches them itself when the model
skipped them) and computes the report in code (agents/player_research/report.py), so the
result is the same whatever the model does.
"""

from __future__ import annotations

import functools
import json
import logging
import weakref
from datetime import UTC, datetime
from typing import Any

from langchain_core.messages import (
    AIMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    message_to_dict,
    messages_from_dict,
)
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from pydantic import ValidationError

from agents.player_research import prompts
from agents.player_research.report import build_player_report, report_answer, unknown_report
from agents.player_research.state import (
    PlayerResearchInput,
    PlayerResearchOutput,
    PlayerResearchState,
)
from agents.shared.deps import AgentDeps, optimizer_for, per_snapshot
from agents.shared.llm import with_request
from agents.shared.middleware import bound_model
from agents.shared.progress import progress
from agents.shared.tool_registry import FanviseTools, tools_by_name, tools_for
from agents.understanding.request import Request
from fantasy.espn.errors import EspnError
from fantasy.optimizer.guardrails import STAR_OWNED_PCT
from storage.news_store import name_key

log = logging.getLogger(__name__)

MAX_AGENT_ITERATIONS = 4
MAX_TOOL_CALLS = 10
PLAYER_TOOLS = ("get_player_status", "get_player_news", "get_player_game_log",
                "search_news_by_topic")


def _json(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _as_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    try:
        out = json.loads(value)
        return out if isinstance(out, dict) else {"value": out}
    except (TypeError, ValueError):
        return {"value": str(value)}


def _same_name(a: str | None, b: str | None) -> bool:
    return bool(a) and bool(b) and name_key(str(a)) == name_key(str(b))


def _request(state: PlayerResearchState) -> Request | None:
    """The typed Request the research is for (None when run without one)."""
    raw = state.get("request_obj")
    try:
        return Request.model_validate(raw) if raw else None
    except ValidationError:
        log.warning("player research: unreadable request_obj")
        return None


def _named(request: Request | None) -> str | None:
    """The player a request names (his league name when resolved, else the words)."""
    ref = request.player if request is not None else None
    if ref is None:
        return None
    return ref.name if ref.resolved and ref.name else ref.words


async def _is_star(deps: AgentDeps, status: dict[str, Any]) -> bool:
    """Star = owned in >= STAR_OWNED_PCT % of leagues, or protected as a star on his fantasy
    team by the optimizer's guardrails (top projected values)."""
    if float(status.get("percent_owned") or 0.0) >= STAR_OWNED_PCT:
        return True
    team_id = status.get("fantasy_team_id")
    if not team_id:
        return False
    try:
        svc = await optimizer_for(deps)
        stars = _team_stars(svc, int(team_id))
    except (EspnError, ValueError, LookupError) as exc:
        log.info("star check unavailable: %s", exc)
        return False
    return status.get("id") in stars


#: service -> team id -> ids of the team's players held as stars. A service is one league
#: snapshot (shared by turns while the data is unchanged), so its guardrails do not change.
_STARS: weakref.WeakKeyDictionary[Any, dict[int, frozenset[int]]] = weakref.WeakKeyDictionary()


def _team_stars(svc: Any, team_id: int) -> frozenset[int]:
    """Players the optimizer's guardrails protect as stars on `team_id` (a move scan's
    holds), computed once per service and team."""
    def stars() -> frozenset[int]:
        return frozenset(h.player.id for h in svc.scan_moves(team_id, top=1).holds
                         if h.reason.startswith("star"))
    return per_snapshot(_STARS, svc, team_id, stars)


def _bound_model(deps: AgentDeps) -> Any:
    """The turn's model with the tools bound (the model itself when it cannot bind)."""
    try:
        return bound_model(deps.model, tools_for(deps))
    except NotImplementedError:
        return deps.model


async def agent(state: PlayerResearchState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    """Ask the turn's model which tools to call next (a failing model ends the loop)."""
    if not state.get("iterations"):
        progress("research", "Researching the player...")
    msgs: list[Any] = [SystemMessage(prompts.SYSTEM)]
    human = prompts.QUESTION.format(query=state.get("query") or "")
    if state.get("player_name"):
        human += prompts.PLAYER_HINT.format(player_name=state["player_name"])
    msgs.append(HumanMessage(human))
    msgs += messages_from_dict(state.get("messages") or [])
    try:
        ai = await with_request(_bound_model(runtime.context), _request(state)).ainvoke(msgs)
    except Exception as exc:  # noqa: BLE001 - a model failure must not lose the report
        log.warning("research model failed: %s", type(exc).__name__)
        return {"llm_calls": 1, "iterations": 1,
                "model_error": f"model unavailable ({type(exc).__name__})"}
    if not isinstance(ai, AIMessage):
        ai = AIMessage(content=str(getattr(ai, "content", ai)))
    return {"messages": [message_to_dict(ai)], "llm_calls": 1, "iterations": 1}


# The routers are coroutines: LangGraph runs a plain function of an async graph in a worker
# thread (a thread hop per routing decision), a coroutine on the event loop.


async def after_agent(state: PlayerResearchState) -> str:
    msgs = state.get("messages") or []
    if state.get("model_error") or not msgs:
        return "build_report"
    last = messages_from_dict(msgs[-1:])[0]
    calls = getattr(last, "tool_calls", None) or []
    if calls and len(state.get("tool_calls") or []) < MAX_TOOL_CALLS:
        return "tools"
    return "build_report"


async def run_tools(state: PlayerResearchState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    """Run the tool calls of the model's last message (within MAX_TOOL_CALLS)."""
    by_name = tools_by_name(tools_for(runtime.context))
    last = messages_from_dict((state.get("messages") or [])[-1:])[0]
    budget = MAX_TOOL_CALLS - len(state.get("tool_calls") or [])
    out_msgs, results, names = [], [], []
    for k, call in enumerate(getattr(last, "tool_calls", None) or []):
        name, args = call.get("name", ""), call.get("args") or {}
        if k >= budget:
            result: Any = {"error": "tool call budget used up", "error_type": "limit"}
        elif name not in by_name:
            result = {"error": f"unknown tool {name!r}", "error_type": "bad_input"}
        else:
            progress("tool", f"Checking {name.replace('_', ' ')}...")
            result = await by_name[name].ainvoke(args)
        results.append({"tool": name, "args": args, "result": _as_dict(result)})
        names.append(name)
        out_msgs.append(message_to_dict(ToolMessage(
            content=_json(result), tool_call_id=call.get("id") or f"call_{k}", name=name)))
    return {"messages": out_msgs, "tool_results": results, "tool_calls": names}


async def after_tools(state: PlayerResearchState) -> str:
    if (state.get("iterations") or 0) >= MAX_AGENT_ITERATIONS or \
            len(state.get("tool_calls") or []) >= MAX_TOOL_CALLS:
        return "build_report"
    return "agent"


async def build_report(state: PlayerResearchState,
                       runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    """Fetch what the model skipped (card, news) and compute the report in code."""
    deps = runtime.context
    impl = FanviseTools(deps)
    progress("report", "Writing the report...")
    fetched_at = datetime.now(UTC).isoformat(timespec="seconds")
    results = state.get("tool_results") or []
    extra_calls: list[str] = []
    extra_results: list[dict[str, Any]] = []

    asked = (state.get("player_name") or "").strip() or None
    if asked is None:
        asked = next((r["args"].get("player_name") for r in results
                      if r["tool"] in PLAYER_TOOLS[:3] and r["args"].get("player_name")),
                     None)
    if asked is None:
        asked = _named(_request(state))
    if asked is None:
        report = unknown_report(
            (state.get("query") or "").strip()[:80] or "?", fetched_at,
            reason="I could not tell which player you mean: please give the full name.")
        return {"report": report, "answer": report_answer(report)}

    status = next((r["result"] for r in results if r["tool"] == "get_player_status"
                   and _same_name(r["args"].get("player_name"), asked)), None)
    if status is None:
        status = await impl.get_player_status(asked)
        extra_calls.append("get_player_status")
        extra_results.append({"tool": "get_player_status", "args": {"player_name": asked},
                              "result": status})
    news = None
    if status.get("status") == "FOUND" and deps.news is not None:
        pid = status["id"]
        news = next((r["result"] for r in results if r["tool"] == "get_player_news"
                     and (r["result"].get("player") or {}).get("id") == pid), None)
        if news is None:
            news = await impl.get_player_news(str(pid), limit=8)
            extra_calls.append("get_player_news")
            extra_results.append({"tool": "get_player_news",
                                  "args": {"player_name": status["name"]}, "result": news})
        if "error" in news:
            news = None
    star = status.get("status") == "FOUND" and await _is_star(deps, status)
    try:
        today = deps.today_date()
    except Exception:  # noqa: BLE001 - the clock must not break a report
        today = datetime.now(UTC).date()
    report = build_player_report(asked=asked, status=status, news=news, today=today,
                                 star=star, fetched_at=fetched_at)
    answer = report_answer(report)
    if state.get("model_error"):
        answer += f"\n(The language model was unavailable: {state['model_error']}.)"
    return {"report": report, "answer": answer, "tool_calls": extra_calls,
            "tool_results": extra_results}


def build_player_research_graph(*, checkpointer: Any = None) -> Any:
    """Compile the player research graph (see module docstring). It binds no deps: a run
    reads them from its runtime context (`context=deps`, or the parent graph's context when
    it runs as a subgraph), so one compiled graph serves every turn."""
    g = StateGraph(PlayerResearchState, context_schema=AgentDeps,
                   input_schema=PlayerResearchInput, output_schema=PlayerResearchOutput)
    g.add_node("agent", agent)
    g.add_node("tools", run_tools)
    g.add_node("build_report", build_report)
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", after_agent, ["tools", "build_report"])
    g.add_conditional_edges("tools", after_tools, ["agent", "build_report"])
    g.add_edge("build_report", END)
    return g.compile(checkpointer=checkpointer, name="player_research")


@functools.cache
def research_graph() -> Any:
    """The research graph compiled once per process, without a checkpointer: run alone it
    keeps no state; run inside a node of a checkpointed graph it is that graph's subgraph
    (its parent's saver and runtime context)."""
    return build_player_research_graph()


async def research_player(deps: AgentDeps, request: Request) -> dict[str, Any]:
    """Run the graph once without a checkpointer for an understood request; returns the
    output state."""
    return await research_graph().ainvoke(
        {"query": request.text, "player_name": _named(request),
         "request_obj": request.model_dump(mode="json")}, context=deps)


__all__ = ["MAX_AGENT_ITERATIONS", "build_player_research_graph",
           "research_graph", "research_player"]
