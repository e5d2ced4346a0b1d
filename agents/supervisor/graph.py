"""Supervisor graph: classify_intent -> one answer path per intent -> synthesize.

    graph = build_supervisor_graph(checkpointer=saver)           # once per process
    ctx = SupervisorContext.for_client(espn, model, my_team_id=1)  # per turn
    await graph.ainvoke({"messages": [HumanMessage(text)], "user_id": "u"}, cfg, context=ctx)

* `classify_intent` understands the message once, into a typed `Request`
  (agents.understanding: one structured model call when a model is configured, else the
  offline semantic router); a slash command or a clicked offer arrives already understood
  (`request_in`). Follow-ups read the previous turn's request and list from the state.
* Routes (`ROUTES`): clarify (below the confidence margin: 2-3 offers), unresolved (a player
  not found or ambiguous: say so or ask which), which_player, needs_team, answer (a
  deterministic builder of agents.answers per intent), research (the player-research
  subgraph), delegate (matchup_analysis / streaming / lineup / explicit move: the turn ends
  with `state["delegate"]` set and the runtime starts the matchup optimizer on its own run
  thread), and agent (open questions: the agent <-> tools loop with middleware: bounded
  history, a dynamic system prompt, tool filtering, at most MAX_TOOL_CALLS tool calls and a
  circuit breaker after 5 consecutive tool errors).
"""

from __future__ import annotations

import functools
import importlib
import json
import logging
import uuid
from collections.abc import Callable
from datetime import date
from typing import Any, NamedTuple

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from agents.answers import answer_for, has_answer
from agents.answers.clarify import (
    PLAYER_INTENTS,
    clarify_reply,
    unresolved_reply,
    which_player_reply,
)
from agents.answers.player import playing_on
from agents.answers.types import Reply
from agents.shared.llm import (
    OfflineChatModel,
    render_tool_result,
    with_request,
)
from agents.shared.middleware import (
    MAX_CONSECUTIVE_TOOL_ERRORS,
    MAX_TOOL_CALLS,
    bound_model,
    compact_stored,
    filter_tools,
    matchup_context,
    system_prompt,
    trim_history,
    update_error_streak,
)
from agents.shared.player_pool import league_resolver
from agents.shared.progress import progress
from agents.shared.tool_registry import FanviseTools, error_result, tools_for
from agents.supervisor.prompts import (
    ANSWER_PROGRESS,
    BREAKER_ANSWER,
    MODEL_DOWN_NOTE,
    NEEDS_TEAM_ANSWER,
    PROGRESS,
    SYSTEM_BASE,
    TOOL_BUDGET_ANSWER,
)
from agents.supervisor.state import TURN_DEFAULTS, SupervisorContext, SupervisorState
from agents.understanding import understand, understand_with_model
from agents.understanding.league_context import resolve_names, understanding_context
from agents.understanding.request import (
    OPTIMIZER_INTENTS,
    TEAM_INTENTS,
    Intent,
    PlayerRef,
    Request,
)
from fantasy.espn.errors import EspnError

log = logging.getLogger(__name__)

#: Intents answered without the players a message names (a not-found name does not stop them).
NAME_BLIND_INTENTS = frozenset({Intent.HELP, Intent.OUT_OF_SCOPE, Intent.GENERAL_ADVICE,
                                Intent.STANDINGS, Intent.LEAGUE_SETTINGS,
                                Intent.LEAGUE_ACTIVITY, Intent.POWER_RANKINGS,
                                Intent.PLAYOFF_ODDS})

ROUTES = ("clarify", "unresolved", "which_player", "needs_team", "answer", "research",
          "delegate", "agent")


def load_workflow_builder(module: str, name: str) -> Callable[..., Any] | None:
    """The workflow graph builder if its module is installed, else None (logged)."""
    try:
        return getattr(importlib.import_module(module), name)
    except ModuleNotFoundError:
        return None
    except (ImportError, AttributeError) as exc:
        log.warning("workflow %s.%s unavailable: %s", module, name, exc)
        return None


def optimizer_builder() -> Callable[..., Any] | None:
    """`build_matchup_optimizer_graph`, or None while it is not available."""
    return load_workflow_builder("agents.matchup_optimizer.graph",
                                 "build_matchup_optimizer_graph")


def _progress(stage: str, **fmt: Any) -> None:
    """The stage's progress line (`PROGRESS`, filled with `fmt`) on the run's custom stream
    (a no-op outside a streamed run)."""
    text = PROGRESS.get(stage, stage)
    try:
        text = text.format(**fmt)
    except (KeyError, IndexError):
        pass
    progress(stage, text)


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


#: Player intents that a day already over turns into a form question.
PAST_DAY_FORM_INTENTS = frozenset({Intent.PLAYER_RESEARCH, Intent.PLAYER_DECISION})


def past_day_as_form(request: Request, today: date) -> Request:
    """A question about a player on a day that is over ("did tatum play last night", a
    follow-up "how did he do 1/20" after "should I start him") asks what he did that day:
    the form answer (that day's box score), not his status now or a start/sit call for a
    day whose games are played."""
    if request.intent not in PAST_DAY_FORM_INTENTS or request.day is None \
            or not request.day.date:
        return request
    try:
        past = date.fromisoformat(request.day.date) < today
    except ValueError:
        return request
    return request.model_copy(update={"intent": Intent.PLAYER_FORM}) if past else request


def unresolved_refs(request: Request) -> list[PlayerRef]:
    """The players a request depends on that are not found or ambiguous."""
    refs = list(request.unresolved_players())
    if request.move is not None:
        for ref in (request.move.drop, request.move.add):
            if ref is not None and not ref.resolved and ref not in refs:
                refs.append(ref)
    return refs


def route_for(request: Request, *, team_linked: bool, can_delegate: bool,
              can_research: bool) -> str:
    """Which path answers a request (one of ROUTES)."""
    intent = request.intent
    if request.clarify:
        return "clarify"
    if intent not in NAME_BLIND_INTENTS and unresolved_refs(request):
        return "unresolved"
    if intent in PLAYER_INTENTS and not request.resolved_players():
        return "which_player"
    if intent == Intent.EXPLICIT_MOVE and (request.move is None or (
            request.move.add is None and request.move.drop is None)):
        return "which_player"
    if intent in TEAM_INTENTS and not team_linked:
        return "needs_team"
    if intent in OPTIMIZER_INTENTS:
        return "delegate" if can_delegate else "agent"
    if intent == Intent.PLAYER_RESEARCH:
        return "research" if can_research else "agent"
    if has_answer(intent):
        return "answer"
    return "agent"


def reply_update(reply: Reply) -> dict[str, Any]:
    """State update for a deterministic reply (answer, report, offers, listed players)."""
    out: dict[str, Any] = {
        "messages": [AIMessage(content=reply.text)], "answer": reply.text,
        "report": reply.report, "tool_calls": list(reply.tool_calls),
        "offers": [o.model_dump(mode="json") for o in reply.offers],
        "offers_id": uuid.uuid4().hex[:12] if reply.offers else ""}
    if reply.listed:
        out["last_list"] = [p.model_dump(mode="json") for p in reply.listed]
    return out


def _request(state: SupervisorState) -> Request:
    return Request.model_validate(state.get("request") or {"intent": Intent.HELP})


def _player_name(request: Request) -> str | None:
    """The first resolved player's league name, if any."""
    found = request.resolved_players()
    return found[0].name if found else None


@functools.cache
def research_subgraph() -> Any | None:
    """The player-research graph, compiled once per process (None while it is not
    available). Invoked inside the `player_research` node it runs as a subgraph: it inherits
    the supervisor's saver and runtime context (a SupervisorContext is an AgentDeps)."""
    graph = load_workflow_builder("agents.player_research.graph", "research_graph")
    return None if graph is None else graph()


def _can_delegate(ctx: SupervisorContext) -> bool:
    if not ctx.use_workflows:
        return False
    return ctx.can_delegate if ctx.can_delegate is not None else optimizer_builder() is not None


def _fallback_model(ctx: SupervisorContext) -> OfflineChatModel:
    """The offline model that answers when the configured model fails (built on demand)."""
    return OfflineChatModel(player_names=list(ctx.player_names))


async def classify(state: SupervisorState,
                   runtime: Runtime[SupervisorContext]) -> dict[str, Any]:
    """Understand the message once, into a typed Request, and pick its route."""
    deps = runtime.context
    _progress("classify")
    text = _last_human_text(state)
    given = state.get("request_in")
    if given:
        request = Request.model_validate(given)
        if not request.text:
            request = request.model_copy(update={"text": text})
    else:
        ctx = await understanding_context(deps, last=state.get("last_request"),
                                          last_list=state.get("last_list") or ())
        if deps.understanding_model is None:
            request = understand(text, ctx)
        else:
            request = await understand_with_model(text, ctx, deps.understanding_model)
        request = past_day_as_form(request, deps.today_date())
    # what route_for reads only for these intents is looked up only for them: a help turn
    # neither imports the optimizer graph nor compiles the research graph
    intent = request.intent
    route = route_for(request, team_linked=deps.my_team_id is not None,
                      can_delegate=intent in OPTIMIZER_INTENTS and _can_delegate(deps),
                      can_research=(intent == Intent.PLAYER_RESEARCH and deps.use_workflows
                                    and research_subgraph() is not None))
    if not deps.use_workflows and route not in ("needs_team",):
        route = "agent"
    removed = compact_stored(list(state.get("messages") or []))
    return {**TURN_DEFAULTS, "request_in": None,
            "request": request.model_dump(mode="json"), "intent": request.intent.value,
            "route": route, **({"messages": removed} if removed else {})}


async def clarify(state: SupervisorState) -> dict[str, Any]:
    return reply_update(clarify_reply(_request(state)))


async def unresolved(state: SupervisorState,
                     runtime: Runtime[SupervisorContext]) -> dict[str, Any]:
    request = _request(state)
    refs = unresolved_refs(request)
    names = [n for r in refs for n in r.candidates]
    # an ESPN outage is said as such (the runtime's notice), not as "can't find a player"
    resolver = await league_resolver(runtime.context, strict=True)
    return reply_update(unresolved_reply(request, refs, resolve_names(resolver, names)))


async def which_player(state: SupervisorState) -> dict[str, Any]:
    return reply_update(which_player_reply(_request(state)))


async def needs_team(state: SupervisorState) -> dict[str, Any]:
    return {"messages": [AIMessage(content=NEEDS_TEAM_ANSWER)], "answer": NEEDS_TEAM_ANSWER,
            "needs_team": True}


async def answer_node(state: SupervisorState,
                      runtime: Runtime[SupervisorContext]) -> dict[str, Any]:
    """A deterministic answer of agents.answers for the request's intent."""
    request = _request(state)
    text = ANSWER_PROGRESS.get(request.intent.value)
    if text:
        progress("answer", text)
    reply = await answer_for(request.intent)(runtime.context, request)
    more = await more_answers(request, runtime.context)
    if more.texts:
        reply = reply.model_copy(update={"text": "\n\n".join([reply.text, *more.texts])})
    return {**reply_update(reply), **later_run(state, more.later),
            **({"needs_team": True} if more.needs_team else {})}


def later_run(state: SupervisorState, parts: list[Request]) -> dict[str, Any]:
    """The state update that has the runtime start the optimizer for the later questions of
    the message (`parts`, e.g. "... and who do i start on the 27th") after this answer, one
    run after the other."""
    if not parts:
        return {}
    first, *rest = parts
    return {"delegate": {"workflow": "matchup_optimizer", "intent": first.intent.value,
                         "requester_id": state.get("user_id", ""),
                         "request_obj": first.model_dump(mode="json"), "answer_first": True,
                         "then": [p.model_dump(mode="json") for p in rest]}}


class MoreAnswers(NamedTuple):
    """The answers to a message's further questions (`more_answers`)."""

    texts: list[str]
    later: list[Request]  # the further questions the optimizer answers, in order
    needs_team: bool  # one of them is about the asker's team, and they linked none


async def more_answers(request: Request, deps: SupervisorContext) -> MoreAnswers:
    """The answers to the further questions of a message (`Request.more`), in order, each
    from its own path: a deterministic answer, the research graph, or the reply that asks
    about a name; and the further questions the matchup optimizer answers (a lineup, a move,
    streamers), which the runtime runs after this turn's answer (or the first question's
    run), one after the other. A question for the open-question agent is named, to be asked
    on its own."""
    out: list[str] = []
    later: list[Request] = []
    needs = False
    for part in request.more:
        research = (research_subgraph() if deps.use_workflows
                    and part.intent == Intent.PLAYER_RESEARCH else None)
        route = route_for(part, team_linked=deps.my_team_id is not None,
                          can_delegate=(part.intent in OPTIMIZER_INTENTS
                                        and _can_delegate(deps)),
                          can_research=research is not None)
        if route == "delegate":
            later.append(part)
        elif route == "answer":
            out.append((await answer_for(part.intent)(deps, part)).text)
        elif route == "research" and research is not None:
            ref = part.resolved_players()[0]
            res = await research.ainvoke({"query": part.text, "player_name": ref.name,
                                       "request_obj": part.model_dump(mode="json")})
            out.append(str(res.get("answer") or ""))
        elif route == "unresolved":
            refs = unresolved_refs(part)
            resolver = await league_resolver(deps, strict=True)
            names = [n for r in refs for n in r.candidates]
            out.append(unresolved_reply(part, refs, resolve_names(resolver, names)).text)
        elif route == "which_player":
            out.append(which_player_reply(part).text)
        elif route == "needs_team":
            out.append(NEEDS_TEAM_ANSWER)
            needs = True
        else:
            out.append(f"For \"{part.text}\": ask me that on its own and I'll work it out.")
    return MoreAnswers([t for t in out if t], later, needs)


async def research(state: SupervisorState,
                   runtime: Runtime[SupervisorContext]) -> dict[str, Any]:
    """The player-research subgraph (compiled once; it inherits this run's context and
    saver), plus the player's next game when the question is about playing."""
    deps = runtime.context
    _progress("research", player=_player_name(_request(state)) or "the player")
    graph = research_subgraph()
    assert graph is not None
    request = _request(state)
    out = await graph.ainvoke({"query": request.text or _last_human_text(state),
                               "player_name": _player_name(request),
                               "request_obj": state.get("request")})
    answer = str(out.get("answer") or "")
    if request.day is not None or request.asks_game:
        day = date.fromisoformat(request.day.date) if request.day and request.day.date \
            else None
        lines = []
        for ref in request.resolved_players()[:3]:
            try:
                lines.append(await playing_on(deps, int(ref.player_id or 0), day))
            except EspnError as exc:
                log.info("schedule unavailable for %s: %s", ref.name, type(exc).__name__)
        if lines:
            answer = "\n".join(lines) + "\n" + answer
    more = await more_answers(request, deps)
    if more.texts:
        answer = "\n\n".join([answer, *more.texts])
    return {**later_run(state, more.later), "messages": [AIMessage(content=answer)],
            **({"needs_team": True} if more.needs_team else {}),
            "answer": answer,
            "report": out.get("report"), "tool_calls": list(out.get("tool_calls") or []),
            "llm_calls": int(out.get("llm_calls") or 0)}


async def delegate(state: SupervisorState,
                   runtime: Runtime[SupervisorContext]) -> dict[str, Any]:
    """Hand the request to the matchup optimizer (the runtime starts its run); the message's
    further questions are answered here and shown after the run's card or answer."""
    request = _request(state)
    more = await more_answers(request, runtime.context)
    out: dict[str, Any] = {"delegate": {
        "workflow": "matchup_optimizer", "intent": state.get("intent", ""),
        "requester_id": state.get("user_id", ""), "request_obj": state.get("request"),
        "answer_first": False, "then": [p.model_dump(mode="json") for p in more.later]},
        "last_request": state.get("request")}
    if more.texts:
        text = "\n\n".join(more.texts)
        out.update({"answer": text, "messages": [AIMessage(content=text)],
                    "needs_team": more.needs_team})
    return out


async def agent(state: SupervisorState,
                runtime: Runtime[SupervisorContext]) -> dict[str, Any]:
    """One model call with the allowed tools bound (offline model if the model fails)."""
    deps = runtime.context
    team_linked = deps.my_team_id is not None
    update: dict[str, Any] = {}
    ctx = state.get("context") or {}
    if not ctx:
        _progress("context")
        ctx = await matchup_context(FanviseTools(deps), team_linked=team_linked)
        update["context"] = ctx
    _progress("agent")
    allowed = filter_tools(tools_for(deps), team_linked=team_linked)
    history = [m for m in state.get("messages") or [] if not isinstance(m, SystemMessage)]
    msgs = [system_prompt(ctx, base=SYSTEM_BASE), *trim_history(history)]
    use = _fallback_model(deps) if state.get("model_fallback") else deps.model
    request = _request(state) if state.get("request") else None
    try:
        reply = await with_request(bound_model(use, allowed) if allowed else use,
                                   request).ainvoke(msgs)
    except Exception as exc:  # noqa: BLE001 - a failing model degrades to offline
        if state.get("model_fallback"):
            raise
        log.warning("model call failed (%s); answering offline this turn",
                    type(exc).__name__)
        update["model_fallback"] = True
        fallback = _fallback_model(deps)
        reply = await with_request(bound_model(fallback, allowed) if allowed else fallback,
                                   request).ainvoke(msgs)
    if not isinstance(reply, AIMessage):
        reply = AIMessage(content=str(getattr(reply, "content", reply)))
    update["messages"] = [reply]
    update["llm_calls"] = int(state.get("llm_calls") or 0) + 1
    return update


async def after_agent(state: SupervisorState) -> str:
    messages = state.get("messages") or []
    last = messages[-1] if messages else None
    calls = getattr(last, "tool_calls", None) or []
    if not calls:
        return "synthesize"
    if int(state.get("tool_call_count") or 0) + len(calls) > MAX_TOOL_CALLS:
        return "tool_budget"
    return "tools"


async def tools_node(state: SupervisorState,
                     runtime: Runtime[SupervisorContext]) -> dict[str, Any]:
    """Run the model's tool calls; errors become tool messages (never exceptions)."""
    team_linked = runtime.context.my_team_id is not None
    last = state["messages"][-1]
    calls = list(getattr(last, "tool_calls", None) or [])
    _progress("tools", tools=", ".join(c["name"] for c in calls))
    allowed = {t.name: t for t in filter_tools(tools_for(runtime.context),
                                               team_linked=team_linked)}
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


async def after_tools(state: SupervisorState) -> str:
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
    out: list[str] = []
    for m in reversed(state.get("messages") or []):
        if isinstance(m, HumanMessage):
            break
        if isinstance(m, ToolMessage) and len(out) < k:
            out.append(render_tool_result(m.name or "tool", _json(m.content)))
    return list(reversed(out))


async def tool_budget(state: SupervisorState) -> dict[str, Any]:
    last = state["messages"][-1]
    calls = last.tool_calls if isinstance(last, AIMessage) else []
    skipped = [ToolMessage(content=json.dumps(error_result(
        "not executed: tool-call budget for this question is used up", "budget")),
        name=c["name"], tool_call_id=c["id"]) for c in calls]
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


async def synthesize(state: SupervisorState,
                     runtime: Runtime[SupervisorContext]) -> dict[str, Any]:
    """The turn's answer text (the model-down note when the offline model stood in)."""
    _progress("synthesize")
    answer = state.get("answer") or ""
    if not answer:
        messages = state.get("messages") or []
        last = messages[-1] if messages else None
        if isinstance(last, AIMessage):
            c = last.content
            answer = c if isinstance(c, str) else " ".join(
                p.get("text", "") if isinstance(p, dict) else str(p) for p in c)
    if not answer.strip():
        answer = "I couldn't find an answer to that; try rephrasing or ask for help."
    if state.get("model_fallback"):  # the offline note itself is the Answer's `offline`
        answer = f"{MODEL_DOWN_NOTE}\n{answer}"
    update: dict[str, Any] = {"answer": answer, "espn_down": _espn_down(state)}
    request = state.get("request")
    if request and state.get("route") not in ("clarify", "which_player") \
            and not _small_talk(request):
        update["last_request"] = request
    return update


def _small_talk(request: dict[str, Any]) -> bool:
    """A help or out-of-scope turn that names nothing ("thanks", "ok cool"): the next
    follow-up still leans on the question before it."""
    return request.get("intent") in (Intent.HELP.value, Intent.OUT_OF_SCOPE.value) and not (
        request.get("players") or request.get("day") or request.get("categories")
        or request.get("position"))


# The routers are coroutines: LangGraph runs a plain function of an async graph in a worker
# thread (a thread hop per routing decision), a coroutine on the event loop.


async def route_of(state: SupervisorState) -> str:
    """The route `classify` picked."""
    return state["route"]


def build_supervisor_graph(*, checkpointer: Any = None) -> Any:
    """Compile the supervisor (see module docstring). It binds no deps: each turn passes a
    `SupervisorContext` (the turn's deps and how it may answer) as `context=`, so one
    compiled graph serves every turn; the research subgraph gets the same context."""
    b = StateGraph(SupervisorState, context_schema=SupervisorContext)
    b.add_node("classify_intent", classify)
    b.add_node("clarify", clarify)
    b.add_node("unresolved", unresolved)
    b.add_node("which_player", which_player)
    b.add_node("needs_team", needs_team)
    b.add_node("answer", answer_node)
    b.add_node("player_research", research)
    b.add_node("delegate", delegate)
    b.add_node("agent", agent)
    b.add_node("tools", tools_node)
    b.add_node("tool_budget", tool_budget)
    b.add_node("circuit_breaker", circuit_breaker)
    b.add_node("synthesize", synthesize)
    b.add_edge(START, "classify_intent")
    b.add_conditional_edges("classify_intent", route_of, {
        "clarify": "clarify", "unresolved": "unresolved", "which_player": "which_player",
        "needs_team": "needs_team", "answer": "answer", "research": "player_research",
        "delegate": "delegate", "agent": "agent"})
    b.add_conditional_edges("agent", after_agent, ["tools", "tool_budget", "synthesize"])
    b.add_conditional_edges("tools", after_tools, ["agent", "circuit_breaker"])
    for n in ("clarify", "unresolved", "which_player", "needs_team", "answer",
              "player_research", "tool_budget", "circuit_breaker"):
        b.add_edge(n, "synthesize")
    b.add_edge("delegate", END)
    b.add_edge("synthesize", END)
    return b.compile(checkpointer=checkpointer, name="supervisor")


__all__ = ["ROUTES", "SupervisorContext", "build_supervisor_graph", "load_workflow_builder",
           "optimizer_builder", "reply_update", "research_subgraph",
           "route_for", "unresolved_refs"]
