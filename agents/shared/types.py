"""Platform-neutral events that the agents runtime streams to bot/core.

Every event is a plain dataclass of JSON-able fields so it can be stored, rendered by any
adapter (Discord, Slack, console) and asserted in tests.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class Progress:
    """A progress line ("Analyzing your roster...") from a running graph."""

    text: str
    stage: str = ""
    kind: Literal["progress"] = "progress"


@dataclass(frozen=True)
class ApprovalRequest:
    """A graph paused at a human approval gate.

    `run_thread_id` is the LangGraph thread of the approval-gated run (never the chat's own
    thread id); `interrupt_id` is LangGraph's Interrupt.id. `moves` are JSON dicts with at
    least: move_id, drop, add, expected_gain, games, confidence, reasons.
    """

    run_thread_id: str
    interrupt_id: str
    title: str
    moves: list[dict[str, Any]]
    requester_id: str
    summary: str = ""
    kind: Literal["approval"] = "approval"


@dataclass(frozen=True)
class Answer:
    """A final answer of one turn; `report` holds structured data (player report, lineup...)."""

    text: str
    intent: str = ""
    report: dict[str, Any] | None = None
    offline: bool = False
    tool_calls: list[str] = field(default_factory=list)
    offers: list[str] = field(default_factory=list)  # follow-up buttons (labels), in order
    offers_id: str = ""  # with an index, names an offer: runtime.offered_request(...)
    kind: Literal["answer"] = "answer"


@dataclass(frozen=True)
class Notice:
    """A short message that is not an answer: already decided, expired card, errors."""

    text: str
    level: Literal["info", "warning", "error"] = "info"
    kind: Literal["notice"] = "notice"


Event = Progress | ApprovalRequest | Answer | Notice


def event_to_dict(event: Event) -> dict[str, Any]:
    """Serialise an event to a plain dict."""
    return asdict(event)
