"""Platform-neutral events that the agents runtime streams to bot/core.

Every event is a plain dataclass of JSON-able fields so it can be stored, rendered by any
adapter (Discord, Slack, console) and asserted in tests.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, Literal

from fantasy.move_card import MoveCard, MoveOutcome


@dataclass(frozen=True)
class Progress:
    """A progress line ("Analyzing your roster...") from a running graph."""

    text: str
    stage: str = ""
    kind: Literal["progress"] = "progress"


@dataclass(frozen=True)
class ApprovalRequest:
    """A graph paused at a human approval gate, with its typed card (fantasy.move_card).

    `run_thread_id` is the LangGraph thread of the approval-gated run (never the chat's own
    thread id); `interrupt_id` is LangGraph's Interrupt.id. `title`, `summary` and `moves`
    (the card's moves as JSON) read the card.
    """

    run_thread_id: str
    interrupt_id: str
    card: MoveCard
    requester_id: str
    kind: Literal["approval"] = "approval"

    @property
    def title(self) -> str:
        return self.card.title

    @property
    def summary(self) -> str:
        return self.card.summary

    @property
    def moves(self) -> list[dict[str, Any]]:
        return self.card.move_dicts()


@dataclass(frozen=True)
class MoveOutcomes:
    """What happened to the moves of a decided card (the graph's apply step), as typed
    outcomes; the run may pause again with the rest of the plan as a new card."""

    run_thread_id: str
    outcomes: list[MoveOutcome]
    kind: Literal["outcomes"] = "outcomes"


@dataclass(frozen=True)
class Answer:
    """A final answer of one turn; `report` holds structured data (player report, lineup...).

    `offline`: the offline rule-based model answered (the chat says so once per
    conversation; the text never carries that note). `needs_team`: (a part of) the question
    is about the asker's own team and the asker has none (the chat asks them to link).
    `stale_note`: the line saying how old the ESPN data is, when the answer was built on a
    stale copy (also the last line of `text`; a lineup card shows it under its heading)."""

    text: str
    intent: str = ""
    report: dict[str, Any] | None = None
    offline: bool = False
    needs_team: bool = False
    stale_note: str = ""
    tool_calls: list[str] = field(default_factory=list)
    offers: list[str] = field(default_factory=list)  # follow-up buttons (labels), in order
    offers_id: str = ""  # with an index, names an offer: runtime.offered_request(...)
    kind: Literal["answer"] = "answer"


class NoticeCode(StrEnum):
    """What a `Notice` says, as data: the chat side decides on the code, never the wording."""

    INFO = "info"  # anything else (an empty question, a bad decision payload)
    ERROR = "error"  # the turn or run failed
    ALREADY_DECIDED = "already_decided"  # the card's approval was decided before
    EXPIRED = "expired"  # the approval expired or does not exist any more
    RUN_LOST = "run_lost"  # a restart interrupted applying a decision; it cannot go on
    OUTCOME_LOST = "outcome_lost"  # a decided card's outcome was lost in a restart
    ESPN_DOWN = "espn_down"  # ESPN could not be read
    DATABASE_BUSY = "database_busy"  # another process holds a database file locked
    UNAVAILABLE = "unavailable"  # the feature is not in this build
    NEEDS_LINK = "needs_link"  # a question about the asker's own team, and they linked none

    @property
    def closes_card(self) -> bool:
        """True when a card answered by this notice is over (shown as expired), False when
        the card goes back to pending (a failure the member may retry)."""
        return self in (NoticeCode.ALREADY_DECIDED, NoticeCode.EXPIRED, NoticeCode.RUN_LOST)


@dataclass(frozen=True)
class Notice:
    """A short message that is not an answer: already decided, expired card, errors.
    `code` says which, for the chat side to act on."""

    text: str
    level: Literal["info", "warning", "error"] = "info"
    code: NoticeCode = NoticeCode.INFO
    kind: Literal["notice"] = "notice"


Event = Progress | ApprovalRequest | Answer | Notice | MoveOutcomes


def event_to_dict(event: Event) -> dict[str, Any]:
    """Serialise an event to a plain (JSON-able) dict."""
    if isinstance(event, ApprovalRequest):
        return {"kind": event.kind, "run_thread_id": event.run_thread_id,
                "interrupt_id": event.interrupt_id, "requester_id": event.requester_id,
                "title": event.title, "summary": event.summary, "moves": event.moves,
                "card": event.card.to_json()}
    if isinstance(event, MoveOutcomes):
        return {"kind": event.kind, "run_thread_id": event.run_thread_id,
                "outcomes": [o.to_json() for o in event.outcomes]}
    return asdict(event)
