"""Middleware for the supervisor's agent <-> tools loop.

* `trim_history`: bound what the model sees (~8k tokens) while keeping tool-call pairs valid.
* `system_prompt`: a dynamic system prompt from the matchup context (days left, winning and
  losing categories, whether a team is linked).
* `filter_tools`: tools allowed in the current state (no roster tools before a team is linked).
* `CircuitBreaker` / `update_error_streak`: stop calling tools after 5 consecutive tool errors.
* `matchup_context`: the compact JSON context the prompt is built from.
* `bound_model`: `model.bind_tools(tools)`, bound once per model and tool set.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage, RemoveMessage, SystemMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately, trim_messages
from langchain_core.tools import BaseTool

from agents.shared.tool_registry import TEAM_TOOLS

#: Token budget of the history the model sees.
HISTORY_TOKENS = 8000
#: Token budget of the history kept in the stored conversation state.
STORED_TOKENS = 16000
#: Consecutive tool errors after which the loop stops calling tools.
MAX_CONSECUTIVE_TOOL_ERRORS = 5
#: Tool calls per turn in the open-question loop.
MAX_TOOL_CALLS = 8


def trim_history(messages: Sequence[BaseMessage], max_tokens: int = HISTORY_TOKENS
                 ) -> list[BaseMessage]:
    """The newest messages within `max_tokens`, starting on a human turn, system kept.

    `start_on="human"` guarantees no ToolMessage is left without its AI tool call.
    """
    if not messages:
        return []
    trimmed = trim_messages(list(messages), strategy="last",
                            token_counter=count_tokens_approximately, max_tokens=max_tokens,
                            start_on="human", end_on=("human", "tool"), include_system=True,
                            allow_partial=False)
    if not [m for m in trimmed if not isinstance(m, SystemMessage)]:
        # even the last turn is over budget: keep the last human message alone
        from langchain_core.messages import HumanMessage

        last_h = next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)
        sys = [m for m in messages[:1] if isinstance(m, SystemMessage)]
        return [*sys, *([last_h] if last_h is not None else [])]
    return trimmed


def compact_stored(messages: Sequence[BaseMessage], max_tokens: int = STORED_TOKENS
                   ) -> list[RemoveMessage]:
    """RemoveMessage markers for stored messages beyond `max_tokens` (oldest first), so
    checkpoints of a long conversation stay bounded; the kept part starts on a human turn."""
    if count_tokens_approximately(list(messages)) <= max_tokens:
        return []
    kept = {id(m) for m in trim_history(messages, max_tokens)}
    return [RemoveMessage(id=m.id) for m in messages if id(m) not in kept and m.id]


#: (model, tool names, binding) of recent bindings, newest last (see `bound_model`).
_BINDINGS: list[tuple[Any, tuple[str, ...], Any]] = []
_BINDINGS_KEPT = 16


def bound_model(model: Any, tools: Sequence[BaseTool]) -> Any:
    """`model.bind_tools(tools)`, reused while the model and the tool names are the same.

    A binding carries only the tools' schemas (name, description, arguments), which do not
    change from turn to turn; the graphs run the model's tool calls with the turn's own
    tools (bound to its deps), never through the binding. Converting the schemas costs
    ~1 ms a tool, paid once instead of on every agent step."""
    names = tuple(t.name for t in tools)
    for m, n, binding in _BINDINGS:
        if m is model and n == names:
            return binding
    binding = model.bind_tools(list(tools))
    _BINDINGS.append((model, names, binding))
    del _BINDINGS[:-_BINDINGS_KEPT]
    return binding


def filter_tools(tools: Sequence[BaseTool], *, team_linked: bool) -> list[BaseTool]:
    """Tools usable now: roster/matchup/lineup tools only once a team is linked."""
    if team_linked:
        return list(tools)
    return [t for t in tools if t.name not in TEAM_TOOLS]


def update_error_streak(streak: int, results: Sequence[ToolMessage | dict[str, Any]]) -> int:
    """New count of consecutive tool errors after a batch of tool results."""
    for r in results:
        payload: Any = r
        if isinstance(r, ToolMessage):
            if r.status == "error":
                streak += 1
                continue
            try:
                payload = json.loads(r.content) if isinstance(r.content, str) else r.content
            except ValueError:
                payload = {}
        streak = streak + 1 if isinstance(payload, dict) and payload.get("error") else 0
    return streak


class CircuitBreaker:
    """Counts consecutive tool errors; `open` once `limit` is reached."""

    def __init__(self, limit: int = MAX_CONSECUTIVE_TOOL_ERRORS, streak: int = 0) -> None:
        self.limit = limit
        self.streak = streak

    def record(self, results: Sequence[ToolMessage | dict[str, Any]]) -> int:
        """Count a batch of results; returns the new streak."""
        self.streak = update_error_streak(self.streak, results)
        return self.streak

    @property
    def open(self) -> bool:
        """True when tools must not be called any more this turn."""
        return self.streak >= self.limit


async def matchup_context(tools_impl: Any, *, team_linked: bool) -> dict[str, Any]:
    """Compact matchup context for the system prompt (never raises; {} when unavailable)."""
    if not team_linked:
        return {"team_linked": False}
    try:
        d = await tools_impl.get_matchup_details()
    except Exception:  # noqa: BLE001 - the prompt must not fail the turn
        return {"team_linked": True}
    if not isinstance(d, dict) or d.get("error"):
        return {"team_linked": True, "unavailable": (d or {}).get("error", "")}
    ctx: dict[str, Any] = {"team_linked": True, "team": d.get("team"),
                           "opponent": d.get("opponent"), "days_left": d.get("days_left"),
                           "scoring": d.get("scoring")}
    if "my_points" in d:
        ctx["score"] = [d.get("my_points"), d.get("opponent_points")]
    cats = d.get("categories") or []
    if cats:
        ctx["winning"] = [c["category"] for c in cats if c.get("result") == "WIN"]
        ctx["losing"] = [c["category"] for c in cats if c.get("result") == "LOSS"]
        ctx["tied"] = [c["category"] for c in cats if c.get("result") == "TIE"]
    if d.get("acquisition_limit") is not None:
        ctx["acquisitions"] = [d.get("acquisitions_used"), d.get("acquisition_limit")]
    return ctx


def system_prompt(context: dict[str, Any], *, base: str) -> SystemMessage:
    """`base` plus a short description of the current matchup situation."""
    lines = [base.strip()]
    if not context.get("team_linked"):
        lines.append("No ESPN team is linked for this user: roster, matchup and lineup tools "
                     "are unavailable; suggest linking a team when they are needed.")
    else:
        if context.get("team"):
            lines.append(f"User's team: {context['team']} vs {context.get('opponent') or 'no opponent'}"
                         f" ({context.get('scoring', '')}).")
        if context.get("days_left") is not None:
            lines.append(f"Days left in the matchup: {context['days_left']}.")
        if context.get("score"):
            lines.append(f"Score: {context['score'][0]} - {context['score'][1]}.")
        if context.get("winning") is not None:
            lines.append(f"Winning: {', '.join(context['winning']) or 'none'}; losing: "
                         f"{', '.join(context.get('losing') or []) or 'none'}.")
        if context.get("acquisitions"):
            lines.append(f"Acquisitions used: {context['acquisitions'][0]}/"
                         f"{context['acquisitions'][1]}.")
    return SystemMessage(content="\n".join(lines))


__all__ = ["CircuitBreaker", "HISTORY_TOKENS", "MAX_CONSECUTIVE_TOOL_ERRORS", "MAX_TOOL_CALLS",
           "STORED_TOKENS", "bound_model", "compact_stored", "filter_tools", "matchup_context", "system_prompt", "trim_history",
           "update_error_streak"]
