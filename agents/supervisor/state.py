"""Supervisor graph state (plain JSON-able values plus the conversation's messages) and its
runtime context (the turn's deps; never stored in state)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

from agents.shared.deps import AgentDeps


class SupervisorState(TypedDict, total=False):
    """One conversation (chat thread). Per-turn fields are reset by `classify_intent`;
    `last_request`, `last_list` and `offers` persist so follow-ups have context."""

    messages: Annotated[list[AnyMessage], add_messages]
    user_id: str
    # input of a turn that is already understood (a slash command or a clicked offer)
    request_in: dict[str, Any] | None
    # per turn
    request: dict[str, Any] | None  # agents.understanding.Request as JSON
    intent: str                    # the Request's intent (an Intent value)
    route: str                     # see agents.supervisor.graph.ROUTES
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
    needs_team: bool               # (a part of) the turn is about the asker's team, unlinked
    # across turns
    last_request: dict[str, Any] | None   # the previous understood request (follow-ups)
    last_list: list[dict[str, Any]]       # the last numbered player list shown
    offers: list[dict[str, Any]]          # follow-up offers of the last answer (buttons)
    offers_id: str                        # nonce of those offers (a stale button is refused)


#: Values `classify_intent` resets at the start of every turn.
TURN_DEFAULTS: dict[str, Any] = {
    "request": None,
    "delegate": None, "context": {}, "answer": "", "report": None, "tool_calls": [],
    "tool_call_count": 0, "llm_calls": 0, "error_streak": 0, "stop_reason": "",
    "espn_down": False, "model_fallback": False, "needs_team": False, "offers": [],
    "offers_id": "",
}



@dataclass
class SupervisorContext(AgentDeps):
    """The supervisor's runtime context: the turn's `AgentDeps` plus how this turn may be
    answered. Build it with `SupervisorContext.for_client(espn, model, ..., **settings)`.

    - `player_names`: names that seed the offline fallback model;
    - `can_delegate`: an optimizer is available to delegate to (None: if it is installed);
    - `use_workflows`: False sends every understood message to the agent loop (tests);
    - `understanding_model`: classifies with one structured-output call; None: the offline
      semantic router;
    - `commands_text`: the chat's command list for help answers (the bot's command table,
      bot.core.commands, handed in by whoever runs the runtime; agents never import bot).
    """

    player_names: tuple[str, ...] = ()
    can_delegate: bool | None = None
    use_workflows: bool = True
    understanding_model: BaseChatModel | None = None
    commands_text: str = ""


__all__ = ["SupervisorContext", "SupervisorState", "TURN_DEFAULTS"]
