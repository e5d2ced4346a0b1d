"""Understanding with a model: one cheap structured-output call into the Request schema.

    request = await understand_with_model(text, ctx, gemini)

The model reads the intent and the words of each player, the explicit move and the list
reference; names are resolved by the one player resolver (never by the model) and days,
categories and positions come from the same entity rules as offline, so both paths give the
same typed Request. Any error or a timeout falls back to the offline router.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Literal

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from agents.understanding.context import UnderstandingContext
from agents.understanding.entities import player_ref
from agents.understanding.request import Intent, MoveRef, PlayerRef, Request
from agents.understanding.understand import understand

log = logging.getLogger(__name__)

#: Seconds the classification call may take before the offline router answers.
MODEL_TIMEOUT = 8.0

SYSTEM = """You classify one message sent to FanVise, a fantasy-basketball assistant in an
ESPN league chat, into exactly one intent and its entities. Intents:
help (greetings, what can you do, how to use FanVise: approve a move, link a team);
player_research (status, injury, news, is X playing tonight, when is X back);
player_form (how has X been playing, last N games, averages);
player_decision (should I drop / start / sit / hold / trade X);
free_agent_scan (a list of the best free agents, optionally by position or category);
streaming (who to stream / pick up for games this week);
matchup_status (score of my matchup, am I winning, projection, categories vs my opponent);
matchup_analysis (review / optimize my matchup, what moves should I make this week);
lineup_optimization (who do I start today / tomorrow / on a day, set my lineup, who sits);
injury_reevaluation (my injured / day-to-day player at a position: hold or stream);
explicit_move (drop X for Y, pick up X, add the top one of the last list);
standings (standings, ranks, records, playoff picture);
league_activity (what changed: recent adds, drops, trades, in the league or on my team);
roster (who is on my or my opponent's team); schedule (games left this week, when the
matchup ends); league_settings (this league's rules: roster and IR spots, acquisition limit
and how many are left, waivers, trade deadline, playoff teams and weeks, scoring format);
player_owner (whose team X is on, who has X); past_matchup (last week's or an earlier
matchup's result); team_box_score (how my players did last night / on a past day);
category_outlook (which categories I can still win and what it takes);
week_plan (the plan I approved for this week: my scheduled moves by day, lineup changes,
what the plan projects; "what's the plan", "what moves do I have lined up");
power_rankings (power rankings, who is really the best team); playoff_odds (playoff chances,
who gets in, my seed); trade_analysis (is a trade good: players on both sides, "X for Y");
general_advice (other fantasy-basketball questions); out_of_scope (anything else).
Copy player names exactly as written in the message (do not correct or complete them).
Player names in the message may be replaced by {player}: then leave players empty."""


class ModelReading(BaseModel):
    """What the model reads from a message (names as written; resolved afterwards)."""

    intent: Intent = Field(description="one intent from the list")
    players: list[str] = Field(default_factory=list, description="player names as written")
    drop_player: str | None = Field(default=None, description="explicit move: player dropped")
    add_player: str | None = Field(default=None, description="explicit move: player added")
    list_index: int | None = Field(default=None, description="'the top one' = 1, 'second' = 2")
    team: Literal["mine", "opponent", "other"] = "mine"
    confidence: float = Field(default=0.9, ge=0.0, le=1.0)


def _one_attempt(model: Any) -> Any:
    """The model with a single attempt per request (no client retries with backoff), so a
    failing Gemini falls back to the offline router at once instead of after the retries
    configured for the agent loop (langchain-google-genai reads `max_retries` per request as
    the number of attempts). Models without that setting are used as they are."""
    retries = getattr(model, "max_retries", None)
    if not isinstance(retries, int) or retries <= 1 or not hasattr(model, "model_copy"):
        return model
    try:
        return model.model_copy(update={"max_retries": 1})
    except Exception:  # noqa: BLE001 - a model that cannot be copied keeps its retries
        return model


def _ref(ctx: UnderstandingContext, words: str | None, found: list[PlayerRef]
         ) -> PlayerRef | None:
    if not words:
        return None
    for ref in found:
        if ref.words.lower() == words.lower():
            return ref
    return player_ref(ctx.resolver.resolve(words))


async def understand_with_model(text: str, ctx: UnderstandingContext, model: Any, *,
                                timeout: float = MODEL_TIMEOUT) -> Request:
    """One structured-output call; the offline router answers on error or timeout."""
    offline = understand(text, ctx)
    if offline.followup or offline.list_ref is not None or offline.more \
            or offline.limit is not None:
        return offline  # the previous turn is the context (or the message holds several
        # questions, or asks what FanVise will not do): the offline reading stands
    try:
        structured = _one_attempt(model).with_structured_output(ModelReading)
        reading = await asyncio.wait_for(structured.ainvoke(
            [SystemMessage(content=SYSTEM), HumanMessage(content=text)]), timeout)
        if isinstance(reading, dict):
            reading = ModelReading.model_validate(reading)
        if not isinstance(reading, ModelReading):
            raise TypeError(f"unexpected structured output {type(reading).__name__}")
        intent = Intent(reading.intent)
    except Exception as exc:  # noqa: BLE001 - any model failure: the offline reading stands
        log.warning("model understanding failed (%s); using the offline router",
                    type(exc).__name__)
        return offline
    # Not a follow-up, so the offline reading's players are exactly the names the resolver
    # found in the text; the model may add a name it missed (never one inside a found name).
    players = list(offline.players)
    for words in reading.players:
        if "{player" in words or any(words.lower() in p.words.lower() for p in players):
            continue
        players.append(player_ref(ctx.resolver.resolve(words)))
    move = offline.move
    if reading.drop_player or reading.add_player:
        move = MoveRef(drop=_ref(ctx, reading.drop_player, players),
                       add=_ref(ctx, reading.add_player, players))
    return offline.model_copy(update={
        "intent": intent, "source": "model", "confidence": reading.confidence,
        "players": players, "move": move, "clarify": False,
        "alternatives": [i for i in offline.alternatives if i != intent]})


__all__ = ["MODEL_TIMEOUT", "ModelReading", "understand_with_model"]
