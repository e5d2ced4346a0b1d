"""Supervisor graph: classify_intent -> (help | player research | delegate | agent <-> tools)
-> synthesize.

    graph = build_supervisor_graph(deps, checkpointer=saver, player_names=names)

* Known workflows are deterministic: player research runs the player-research subgraph;
  matchup_analysis / lineup_optimization / streaming / injury_reevaluation / free_agent_scan
  are *delegated*: the turn ends with `state["delegate"]` set and the runtime starts the
  matchup optimizer on its own run thread (so a later chat message never discards a pending
  approval). When a workflow graph is not installed the agent loop answers instead.
* Open questions use the agent <-> tools loop with middleware: bounded history, a dynamic
  system prompt from the matchup, tool filtering (no roster tools before a team is linked),
  at most MAX_TOOL_CALLS tool calls and a circuit breaker after 5 consecutive tool errors.
"""

from __future__ import annotations

import importlib
import json
import logging
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph

from agents.shared.deps import AgentDeps
from agents.shared.llm import (
    HELP_TEXT,
    OfflineChatModel,
    classify_intent,
    extract_categories,
    extract_day,
    is_offline,
    name_candidate,
    recent_player,
    render_tool_result,
    with_offline_note,
)
from agents.shared.middleware import (
    MAX_CONSECUTIVE_TOOL_ERRORS,
    MAX_TOOL_CALLS,
    compact_stored,
    filter_tools,
    matchup_context,
    system_prompt,
    trim_history,
    update_error_streak,
)
from agents.shared.tool_registry import FanviseTools, build_tools, error_result
from agents.supervisor.prompts import (
    BREAKER_ANSWER,
    MODEL_DOWN_NOTE,
    NEEDS_TEAM_ANSWER,
    PROGRESS,
    SYSTEM_BASE,
    TOOL_BUDGET_ANSWER,
)
from agents.supervisor.state import TURN_DEFAULTS, SupervisorState

log = logging.getLogger(__name__)

OPTIMIZER_INTENTS = frozenset({"matchup_analysis", "lineup_optimization", "streaming",
                               "injury_reevaluation", "free_agent_scan"})


def load_workflow_builder(module: str, name: str) -> Callable[..., Any] | None:
    """The workflow graph builder if its module is installed, else None (logged)."""
    try:
        return getattr(importlib.import_module(module), name)
    except ModuleNotFoundError:
        return None
    except (ImportError, AttributeError) as exc:
        log.warning("workflow %s.%s unavailable: %s", module, name, exc)
        return None


def research_builder() -> Callable[..., Any] | None:
    """`build_player_research_graph`, or None while it is not available."""
    return load_workflow_builder("agents.player_research.graph", "build_player_research_graph")


def optimizer_builder() -> Callable[..., Any] | None:
    """`build_matchup_optimizer_graph`, or None while it is not available."""
    return load_workflow_builder("agents.matchup_optimizer.graph",
                                 "build_matchup_optimizer_graph")


def _progress(stage: str, **fmt: Any) -> None:
    text = PROGRESS.get(stage, stage)
    try:
        text = text.format(**fmt)
    except (KeyError, IndexError):
        pass
    get_stream_writer()({"stage": stage, "text": text})


def _last_human_text(state: SupervisorState) -> str:
    for m in reversed(state.get("messages") or []):
        if isinstance(m, HumanMessage):
            return m.content if isinstance(m.content, str) else str(m.content)
    return ""


def _json(content: Any) -> Any:
    if isinstance(content, str):
        try:
            return json.loads(content)
        except ValueError:
            return {"text": content}
    return content


def build_supervisor_graph(deps: AgentDeps, *, checkpointer: Any = None,
                           player_names: Sequence[str] = (),
                           use_workflows: bool = True, can_delegate: bool | None = None) -> Any:
    """Compile the supervisor for `deps` (tools, model and workflow graphs bound to it).

    `use_workflows=False` forces the agent loop for every intent (tests, evaluation);
    `can_delegate` overrides whether an optimizer is available to delegate to.
    """
    model = deps.model
    offline = is_offline(model)
    tools = build_tools(deps)
    impl = FanviseTools(deps)
    names = list(player_names)
    build_research = research_builder() if use_workflows else None
    if can_delegate is None:
        can_delegate = optimizer_builder() is not None
    can_delegate = use_workflows and can_delegate
    team_linked = deps.my_team_id is not None
    fallback = OfflineChatModel(player_names=names)

    async def classify(state: SupervisorState) -> dict[str, Any]:
        _progress("classify")
        text = _last_human_text(state)
        earlier = [m for m in state.get("messages") or [] if isinstance(m, HumanMessage)][:-1]
        # "When is he expected back?": he = the player of the previous turns
        context_player = recent_player(earlier, names, report=state.get("report"))
        intent, player = classify_intent(text, names, context_player=context_player)
        if intent == "help":
            route = "help"
        elif intent in OPTIMIZER_INTENTS and not team_linked:
            route = "needs_team"
        elif intent in OPTIMIZER_INTENTS and can_delegate:
            route = "delegate"
        elif intent == "player_research" and build_research is not None:
            route = "research"
        else:
            route = "agent"
        removed = compact_stored(list(state.get("messages") or []))
        return {**TURN_DEFAULTS, "intent": intent, "route": route,
                **({"messages": removed} if removed else {}),
                "player_name": player or name_candidate(text),
                "focus_categories": extract_categories(text), "day": extract_day(text)}

    async def help_node(state: SupervisorState) -> dict[str, Any]:
        text = with_offline_note(HELP_TEXT) if offline else HELP_TEXT
        return {"messages": [AIMessage(content=text)], "answer": text}

    async def needs_team(state: SupervisorState) -> dict[str, Any]:
        return {"messages": [AIMessage(content=NEEDS_TEAM_ANSWER)], "answer": NEEDS_TEAM_ANSWER}

    async def research(state: SupervisorState) -> dict[str, Any]:
        _progress("research", player=state.get("player_name") or "the player")
        assert build_research is not None
        graph = build_research(deps)
        out = await graph.ainvoke({"query": _last_human_text(state),
                                   "player_name": state.get("player_name")})
        answer = str(out.get("answer") or "")
        return {"messages": [AIMessage(content=answer)], "answer": answer,
                "report": out.get("report"), "tool_calls": list(out.get("tool_calls") or []),
                "llm_calls": int(out.get("llm_calls") or 0)}

    async def delegate(state: SupervisorState) -> dict[str, Any]:
        return {"delegate": {
            "workflow": "matchup_optimizer", "intent": state.get("intent", ""),
            "request": _last_human_text(state), "requester_id": state.get("user_id", ""),
            "focus_categories": list(state.get("focus_categories") or []),
            "day": state.get("day")}}

    async def agent(state: SupervisorState) -> dict[str, Any]:
        update: dict[str, Any] = {}
        ctx = state.get("context") or {}
        if not ctx:
            _progress("context")
            ctx = await matchup_context(impl, team_linked=team_linked)
            update["context"] = ctx
        _progress("agent")
        allowed = filter_tools(tools, team_linked=team_linked)
        history = [m for m in state.get("messages") or [] if not isinstance(m, SystemMessage)]
        msgs = [system_prompt(ctx, base=SYSTEM_BASE), *trim_history(history)]
        use = fallback if state.get("model_fallback") else model
        try:
            reply = await (use.bind_tools(allowed) if allowed else use).ainvoke(msgs)
        except Exception as exc:  # noqa: BLE001 - a failing model degrades to offline
            if use is fallback:
                raise
            log.warning("model call failed (%s); answering offline this turn",
                        type(exc).__name__)
            update["model_fallback"] = True
            reply = await (fallback.bind_tools(allowed) if allowed else fallback).ainvoke(msgs)
        if not isinstance(reply, AIMessage):
            reply = AIMessage(content=str(getattr(reply, "content", reply)))
        update["messages"] = [reply]
        update["llm_calls"] = int(state.get("llm_calls") or 0) + 1
        return update

    def after_agent(state: SupervisorState) -> str:
        last = (state.get("messages") or [None])[-1]
        calls = getattr(last, "tool_calls", None) or []
        if not calls:
            return "synthesize"
        if int(state.get("tool_call_count") or 0) + len(calls) > MAX_TOOL_CALLS:
            return "tool_budget"
        return "tools"

    async def tools_node(state: SupervisorState) -> dict[str, Any]:
        last = state["messages"][-1]
        calls = list(getattr(last, "tool_calls", None) or [])
        _progress("tools", tools=", ".join(c["name"] for c in calls))
        allowed = {t.name: t for t in filter_tools(tools, team_linked=team_linked)}
        results: list[ToolMessage] = []
        for call in calls:
            tool = allowed.get(call["name"])
            if tool is None:
                payload: Any = error_result(
                    f"tool {call['name']!r} is not available"
                    + ("" if team_linked else " (no team is linked)"), "unavailable")
            else:
                try:
                    payload = await tool.ainvoke(call.get("args") or {})
                except Exception as exc:  # noqa: BLE001 - tool errors become messages
                    payload = error_result(f"{type(exc).__name__}: {exc}", "internal_error")
            content = payload if isinstance(payload, str) else json.dumps(payload, default=str)
            results.append(ToolMessage(content=content, name=call["name"],
                                       tool_call_id=call["id"]))
        return {"messages": results,
                "tool_calls": [*(state.get("tool_calls") or []), *(c["name"] for c in calls)],
                "tool_call_count": int(state.get("tool_call_count") or 0) + len(calls),
                "error_streak": update_error_streak(int(state.get("error_streak") or 0),
                                                    results)}

    def after_tools(state: SupervisorState) -> str:
        if int(state.get("error_streak") or 0) >= MAX_CONSECUTIVE_TOOL_ERRORS:
            return "circuit_breaker"
        return "agent"

    def _espn_down(state: SupervisorState) -> bool:
        """True when this turn's tool results exist and every one is an ESPN failure."""
        kinds = []
        for m in reversed(state.get("messages") or []):
            if isinstance(m, HumanMessage):
                break
            if isinstance(m, ToolMessage):
                p = _json(m.content)
                kinds.append(p.get("error_type") if isinstance(p, dict) else None)
        return bool(kinds) and all(k == "espn_error" for k in kinds)

    def _recent_results(state: SupervisorState, k: int = 3) -> list[str]:
        out = []
        for m in reversed(state.get("messages") or []):
            if isinstance(m, HumanMessage):
                break
            if isinstance(m, ToolMessage) and len(out) < k:
                out.append(render_tool_result(m.name or "tool", _json(m.content)))
        return list(reversed(out))

    async def tool_budget(state: SupervisorState) -> dict[str, Any]:
        last = state["messages"][-1]
        skipped = [ToolMessage(content=json.dumps(error_result(
            "not executed: tool-call budget for this question is used up", "budget")),
            name=c["name"], tool_call_id=c["id"]) for c in (last.tool_calls or [])]
        found = _recent_results(state) or ["nothing useful yet."]
        text = "\n".join([TOOL_BUDGET_ANSWER.format(n=MAX_TOOL_CALLS), *found])
        return {"messages": [*skipped, AIMessage(content=text)], "stop_reason": "tool_budget"}

    async def circuit_breaker(state: SupervisorState) -> dict[str, Any]:
        err = "unknown"
        for m in reversed(state.get("messages") or []):
            if isinstance(m, ToolMessage):
                p = _json(m.content)
                err = p.get("error", err) if isinstance(p, dict) else err
                break
        text = BREAKER_ANSWER.format(n=MAX_CONSECUTIVE_TOOL_ERRORS, error=err)
        return {"messages": [AIMessage(content=text)], "stop_reason": "circuit_breaker"}

    async def synthesize(state: SupervisorState) -> dict[str, Any]:
        _progress("synthesize")
        answer = state.get("answer") or ""
        if not answer:
            last = (state.get("messages") or [None])[-1]
            if isinstance(last, AIMessage):
                c = last.content
                answer = c if isinstance(c, str) else " ".join(
                    p.get("text", "") if isinstance(p, dict) else str(p) for p in c)
        if not answer.strip():
            answer = "I couldn't find an answer to that; try rephrasing or ask for help."
        if state.get("model_fallback"):
            answer = with_offline_note(f"{MODEL_DOWN_NOTE}\n{answer}")
        elif offline:
            answer = with_offline_note(answer)
        return {"answer": answer, "espn_down": _espn_down(state)}

    b = StateGraph(SupervisorState)
    b.add_node("classify_intent", classify)
    b.add_node("help", help_node)
    b.add_node("needs_team", needs_team)
    b.add_node("player_research", research)
    b.add_node("delegate", delegate)
    b.add_node("agent", agent)
    b.add_node("tools", tools_node)
    b.add_node("tool_budget", tool_budget)
    b.add_node("circuit_breaker", circuit_breaker)
    b.add_node("synthesize", synthesize)
    b.add_edge(START, "classify_intent")
    b.add_conditional_edges("classify_intent", lambda s: s["route"], {
        "help": "help", "needs_team": "needs_team", "research": "player_research",
        "delegate": "delegate", "agent": "agent"})
    b.add_conditional_edges("agent", after_agent, ["tools", "tool_budget", "synthesize"])
    b.add_conditional_edges("tools", after_tools, ["agent", "circuit_breaker"])
    for n in ("help", "needs_team", "player_research", "tool_budget", "circuit_breaker"):
        b.add_edge(n, "synthesize")
    b.add_edge("delegate", END)
    b.add_edge("synthesize", END)
    return b.compile(checkpointer=checkpointer, name="supervisor")


__all__ = ["OPTIMIZER_INTENTS", "build_supervisor_graph", "load_workflow_builder",
           "optimizer_builder", "research_builder"]
