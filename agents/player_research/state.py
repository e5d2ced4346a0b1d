"""State of the player research graph (plain JSON-able data only)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict


class PlayerResearchInput(TypedDict, total=False):
    """What the caller passes in: the question (for a language model), the player and the
    typed Request understood upstream (agents.understanding; the offline model plans from it)."""

    query: str
    player_name: str | None
    request_obj: dict[str, Any] | None


class PlayerResearchState(TypedDict, total=False):
    """Full state. `messages` are LangChain messages as dicts (`message_to_dict`), only the
    model/tool turns (the system prompt and the question are rebuilt on every call);
    `tool_results` are `{"tool", "args", "result"}` dicts in call order."""

    query: str
    player_name: str | None
    request_obj: dict[str, Any] | None
    messages: Annotated[list[dict[str, Any]], operator.add]
    tool_results: Annotated[list[dict[str, Any]], operator.add]
    tool_calls: Annotated[list[str], operator.add]
    llm_calls: Annotated[int, operator.add]
    iterations: Annotated[int, operator.add]
    model_error: str | None
    report: dict[str, Any]
    answer: str


class PlayerResearchOutput(TypedDict, total=False):
    """What the graph returns (see docs/agents.md)."""

    report: dict[str, Any]
    answer: str
    tool_calls: list[str]
    llm_calls: int
