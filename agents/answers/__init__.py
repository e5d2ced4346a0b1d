"""Deterministic answers, one builder per intent: `await answer_for(intent)(deps, request)`.

Each builder is `async (AgentDeps, Request) -> Reply` and computes its answer from league
data (the math lives in fantasy/); none makes an LLM call, and none returns a move card
(moves go through the matchup optimizer graph). Builders are imported on first use so a
process that never answers a kind never imports its module.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from agents.understanding.request import Intent

if TYPE_CHECKING:  # pragma: no cover - typing only
    from agents.answers.types import Reply
    from agents.shared.deps import AgentDeps
    from agents.understanding.request import Request

AnswerBuilder = Callable[["AgentDeps", "Request"], Awaitable["Reply"]]

#: intent -> "module:function" of its builder.
BUILDERS: dict[Intent, str] = {
    Intent.HELP: "agents.answers.help:answer_help",
    Intent.OUT_OF_SCOPE: "agents.answers.help:answer_out_of_scope",
    Intent.MATCHUP_STATUS: "agents.answers.league:answer_matchup_status",
    Intent.STANDINGS: "agents.answers.league:answer_standings",
    Intent.FREE_AGENT_SCAN: "agents.answers.league:answer_free_agents",
    Intent.PLAYER_FORM: "agents.answers.player:answer_player_form",
    Intent.PLAYER_DECISION: "agents.answers.player:answer_player_decision",
    Intent.INJURY_REEVALUATION: "agents.answers.player:answer_injury_check",
    Intent.ROSTER: "agents.answers.info:answer_roster",
    Intent.SCHEDULE: "agents.answers.info:answer_schedule",
    Intent.LEAGUE_SETTINGS: "agents.answers.league_facts:answer_league_settings",
    Intent.PLAYER_OWNER: "agents.answers.league_facts:answer_player_owner",
    Intent.PAST_MATCHUP: "agents.answers.league_facts:answer_past_matchup",
    Intent.LEAGUE_ACTIVITY: "agents.answers.league_facts:answer_league_activity",
    Intent.TEAM_BOX_SCORE: "agents.answers.league_facts:answer_team_box_score",
    Intent.CATEGORY_OUTLOOK: "agents.answers.league_facts:answer_category_outlook",
    Intent.WEEK_PLAN: "agents.answers.week:answer_week_plan",
    Intent.POWER_RANKINGS: "agents.answers.league_life:answer_power_rankings",
    Intent.PLAYOFF_ODDS: "agents.answers.league_life:answer_playoff_odds",
    Intent.TRADE_ANALYSIS: "agents.answers.league_life:answer_trade",
}


def has_answer(intent: Intent) -> bool:
    """True when `intent` has a deterministic answer builder."""
    return intent in BUILDERS


def answer_for(intent: Intent) -> AnswerBuilder:
    """The builder of an intent (KeyError when it has none)."""
    module, _, name = BUILDERS[intent].partition(":")
    return getattr(importlib.import_module(module), name)


__all__ = ["BUILDERS", "AnswerBuilder", "answer_for", "has_answer"]
