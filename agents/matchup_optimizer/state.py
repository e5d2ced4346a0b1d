"""State of the matchup optimizer graph (plain JSON-able data only)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict


def merge_dicts(a: dict[str, Any] | None, b: dict[str, Any] | None) -> dict[str, Any]:
    """Reducer: later keys win."""
    return {**(a or {}), **(b or {})}


class MatchupOptimizerInput(TypedDict, total=False):
    """What the caller passes in (the runtime contract in docs/agents.md): the typed Request understood once
    upstream (its intent is an `agents.understanding.request.Intent` value) and who asked."""

    request_obj: dict[str, Any]  # agents.understanding.request.Request as JSON
    requester_id: str


class MatchupOptimizerState(TypedDict, total=False):
    """Full state.

    Inputs: request_obj (the typed Request as JSON), requester_id.
    read_request adds what the plan reads from it: `request` (its text), `intent` (an Intent
    value), `focus_categories`, `day`, `position`, `count`, `player_ids` and `move`; gather_rosters `team`, `opponent`,
    `scoring`, `matchup`, `roster`, `acquisitions`; analyze_schedule `schedule`;
    check_injuries `injuries`, `injury_targets`; plan_moves `move_plan` (the exact plan,
    fantasy.moves.Plan JSON), `valid_moves` (its moves), `holds`; identify_candidates `candidates`, `holds`,
    `scan_message`, `search_round`, `search_log`; validate_moves `valid_moves`, `rejected`;
    compose_lineup `lineup` (+ `lineup_scan`) / `plan`; present_and_confirm `offered_ids`, `offer_rounds`,
    `decisions`, `last_approved`, `last_offered`; apply_moves `applied_moves`; replan `replan`;
    finish `answer`, `report`.
    """

    request: str
    intent: str
    requester_id: str
    request_obj: dict[str, Any] | None
    focus_categories: list[str]
    day: str | None
    position: str | None
    count: int | None
    player_ids: list[int]
    move: dict[str, Any] | None
    move_eval: dict[str, Any] | None
    ranked_by: list[str] | None
    error: str | None
    team: dict[str, Any]
    opponent: dict[str, Any] | None
    scoring: str
    matchup: dict[str, Any]
    roster: list[dict[str, Any]]
    acquisitions: dict[str, Any]
    schedule: dict[str, Any]
    injuries: list[dict[str, Any]]
    injury_targets: list[dict[str, Any]]
    candidates: list[dict[str, Any]]
    holds: list[dict[str, Any]]
    scan_message: str
    search_round: int
    search_log: Annotated[list[dict[str, Any]], operator.add]
    valid_moves: list[dict[str, Any]]
    move_plan: dict[str, Any] | None  # fantasy.moves.Plan as JSON (the card is the plan)
    last_offered: list[str]
    rejected: list[dict[str, Any]]
    lineup: dict[str, Any] | None
    lineup_scan: dict[str, Any] | None  # MoveScanResult JSON shown under a lineup
    plan: dict[str, Any] | None
    offered_ids: Annotated[list[str], operator.add]
    offer_rounds: Annotated[int, operator.add]
    decisions: Annotated[dict[str, str], merge_dicts]
    last_approved: list[dict[str, Any]]
    applied_moves: list[dict[str, Any]]
    replan: dict[str, Any] | None
    notes: Annotated[list[str], operator.add]
    tool_calls: Annotated[list[str], operator.add]
    llm_calls: Annotated[int, operator.add]
    answer: str
    report: dict[str, Any]


class MatchupOptimizerOutput(TypedDict, total=False):
    """What the graph returns."""

    intent: str
    answer: str
    report: dict[str, Any]
    applied_moves: list[dict[str, Any]]
    tool_calls: list[str]
    llm_calls: int
