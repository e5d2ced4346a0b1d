"""Supervisor graph state: plain JSON-able values plus the conversation's messages."""

from __future__ import annotations

from typing import Annotated, Any

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict


class SupervisorState(TypedDict, total=False):
    """One conversation (chat thread). Per-turn fields are reset by `classify_intent`."""

    messages: Annotated[list[AnyMessage], add_messages]
    user_id: str
    # per turn
    intent: str
    player_name: str | None
    focus_categories: list[str]
    day: str | None
    route: str                     # help | research | delegate | needs_team | agent
    delegate: dict[str, Any] | None  # workflow run the runtime must start on its own thread
    context: dict[str, Any]        # matchup context for the dynamic system prompt
    answer: str
    report: dict[str, Any] | None
    tool_calls: list[str]
    tool_call_count: int
    llm_calls: int
    error_streak: int
    stop_reason: str               # "" | tool_budget | circuit_breaker
    espn_down: bool                # every tool result of the turn was an ESPN failure
    model_fallback: bool           # the model failed; the offline model answered this turn


#: Values `classify_intent` resets at the start of every turn.
TURN_DEFAULTS: dict[str, Any] = {
    "player_name": None, "focus_categories": [], "day": None, "delegate": None,
    "context": {}, "answer": "", "report": None, "tool_calls": [], "tool_call_count": 0,
    "llm_calls": 0, "error_streak": 0, "stop_reason": "", "espn_down": False,
    "model_fallback": False,
}

__all__ = ["SupervisorState", "TURN_DEFAULTS"]
