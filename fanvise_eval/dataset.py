"""The golden dataset: schema, loading and validation.

A case is a user prompt over the demo league plus machine-checkable expectations. Expected
values that the code under test computes (injury status, the optimizer's best move, ...)
are never written into the dataset: they are references such as
`{"from": "espn_injury_status", "player": "Jordan Poole"}` that
`fanvise_eval.expectations` resolves from the demo league's data at run time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agents.understanding.request import Intent

DATASET_PATH = Path(__file__).parent / "golden_dataset.json"

#: Categories the dataset must cover (issue 6, issue 11).
REQUIRED_CATEGORIES = frozenset({
    "player_research", "matchup_optimizer", "streaming", "injury_reevaluation", "lineup",
    "loop_guard", "supervisor_routing", "game_log", "help", "prompt_injection",
    # issue 11: the seed's verbatim prompts, every answer kind, names and follow-ups
    "seed_scenario", "seed_routing", "matchup_status", "standings", "free_agents",
    "player_form", "player_decision", "playing_tonight", "explicit_move", "named_categories",
    "howto", "out_of_scope", "invented_names", "names", "followup",
})
#: Cases the golden dataset must have (issue 11: at least 80; 84 with the answer kinds).
MIN_CASES = 84
#: The intent vocabulary: agents.understanding.request.Intent, the only one.
INTENTS = tuple(i.value for i in Intent)
TOOL_NAMES = ("get_my_roster", "get_opponent_roster", "get_player_status", "get_player_news",
              "search_news_by_topic", "get_free_agents", "get_schedule", "get_matchup_details",
              "get_player_game_log", "validate_slot_fit", "compose_daily_lineup")
REPORT_FIELDS = ("playerName", "status", "injuryType", "expectedReturnDate", "recommendation",
                 "confidence", "summary", "sources", "fetchedAt")
#: `from` sources that `fanvise_eval.expectations.Oracle` can compute.
SOURCES = frozenset({
    "espn_injury_status", "espn_expected_return", "espn_player_name", "espn_fantasy_team",
    "optimizer_best_move", "optimizer_moves", "optimizer_protected",
    "lineup_benched", "lineup_starters", "game_log", "news_latest", "news_sources",
    "my_team_name", "opponent_name", "matchup_points", "schedule_total_games",
    "acquisitions_left", "my_roster", "free_agents", "star_names",
    "free_agents_ranked", "pro_team", "pro_game", "game_log_average", "matchup_days_left",
    "matchup_category_record", "my_injured", "day_date",
})


class EvalDatasetError(ValueError):
    """The dataset file is missing or invalid (message says where)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _check_refs(value: Any, where: str) -> None:
    """Every `{"from": ...}` in an expectation must name a known source."""
    if isinstance(value, dict):
        if "from" in value and value["from"] not in SOURCES:
            raise ValueError(f"{where}: unknown source {value['from']!r}; known: {sorted(SOURCES)}")
        for k, v in value.items():
            _check_refs(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _check_refs(v, f"{where}[{i}]")


class MovesExpect(_Strict):
    """Expectations on the moves of an approval card."""

    card: Literal["required", "optional"] = "required"
    required: list[dict[str, Any]] = Field(default_factory=list)
    first: dict[str, Any] | None = None
    forbidden: list[dict[str, Any]] = Field(default_factory=list)
    never_drop: dict[str, Any] | list[str] | None = None
    adds_must_be_free_agents: bool = True
    drops_must_be_on_my_roster: bool = True
    max_count: int | None = None


class OffersExpect(_Strict):
    """Expectations on the follow-up offers (buttons / numbered choices) of an answer."""

    min: int | None = None
    max: int | None = None
    any_text: list[str] = Field(default_factory=list)


class Expect(_Strict):
    """Machine-checkable expectations of one case (all optional)."""

    intent: str | list[str] | None = None
    event: Literal["answer", "approval", "any"] = "any"
    tools_required: list[str] = Field(default_factory=list)
    tools_any_of: list[list[str]] = Field(default_factory=list)
    tools_forbidden: list[str] = Field(default_factory=list)
    max_tool_calls: int | None = None
    max_llm_calls: int | None = None
    report: dict[str, Any] = Field(default_factory=dict)
    moves: MovesExpect | None = None
    facts: list[Any] = Field(default_factory=list)
    forbidden_text: list[str] = Field(default_factory=list)
    forbidden_names: list[str] = Field(default_factory=list)
    #: Words that must not appear as whole words (case-insensitive), e.g. a status word.
    forbidden_words: list[str] = Field(default_factory=list)
    #: No answer's report states a status, return date or recommendation (invented names).
    no_player_report: bool = False
    #: Follow-up offers of the last answer: {"min", "max", "any_text"}.
    offers: OffersExpect | None = None
    mentioned_players: list[str] | None = None
    roster: Literal["unchanged", "approved_moves"] = "unchanged"
    offline_notice: bool = True

    @field_validator("intent")
    @classmethod
    def _known_intent(cls, v: str | list[str] | None) -> str | list[str] | None:
        for i in [v] if isinstance(v, str) else (v or []):
            if i not in INTENTS:
                raise ValueError(f"unknown intent {i!r}; known: {list(INTENTS)}")
        return v

    @field_validator("tools_required", "tools_forbidden")
    @classmethod
    def _known_tools(cls, v: list[str]) -> list[str]:
        bad = [t for t in v if t not in TOOL_NAMES]
        if bad:
            raise ValueError(f"unknown tools {bad}; known: {list(TOOL_NAMES)}")
        return v

    @field_validator("report")
    @classmethod
    def _known_fields(cls, v: dict[str, Any]) -> dict[str, Any]:
        bad = [k for k in v if k not in REPORT_FIELDS]
        if bad:
            raise ValueError(f"unknown report fields {bad}; known: {list(REPORT_FIELDS)}")
        return v

    @field_validator("mentioned_players")
    @classmethod
    def _known_groups(cls, v: list[str] | None) -> list[str] | None:
        bad = [g for g in v or [] if g not in ("my_roster", "free_agents", "opponent_roster")]
        if bad:
            raise ValueError(f"unknown player groups {bad}")
        return v


class Case(_Strict):
    """One golden case."""

    id: str = Field(pattern=r"^[a-z0-9_]+$")
    category: str
    risk: Literal["low", "medium", "high"]
    variant: Literal["points", "categories"] = "points"
    prompt: str = Field(min_length=1)
    #: Earlier messages of the same conversation, asked first (not scored; a card they raise
    #: is declined): for follow-up questions that need the history.
    setup_turns: list[str] = Field(default_factory=list)
    description: str = ""
    decision: Literal["approve_first", "approve_all", "decline", "none"] = "decline"
    #: ESPN views that fail (HTTP 503 at the wire) during this case, e.g. ["kona_playercard"];
    #: "*" = every request. Such a case runs in its own data directory.
    espn_outage: list[str] = Field(default_factory=list)
    #: Click the first card's decision a second time afterwards (a double click): it must
    #: change nothing and say the card was already decided.
    repeat_decision: bool = False
    #: Roster moves of team 1 made before the case (earlier transactions of the week),
    #: [{"drop": name, "add": name}]; the oracle computes expected values on the same state.
    demo_moves: list[dict[str, str]] = Field(default_factory=list)
    expect: Expect
    known_failure: str | None = None

    def refs(self) -> None:
        """Raise ValueError if an expectation names an unknown `from` source."""
        _check_refs(self.expect.model_dump(), f"{self.id}.expect")


class Dataset(_Strict):
    """The whole golden dataset."""

    version: int = 1
    description: str = ""
    cases: list[Case]

    def by_id(self) -> dict[str, Case]:
        """id -> case."""
        return {c.id: c for c in self.cases}


def validate_dataset(ds: Dataset, *, min_cases: int = MIN_CASES, coverage: bool = True) -> None:
    """Dataset-level rules: unique ids and known refs; with `coverage`, also enough cases and
    every required category (the golden dataset; a custom dataset may be a small subset)."""
    if coverage and len(ds.cases) < min_cases:
        raise EvalDatasetError(f"the dataset has {len(ds.cases)} cases; at least {min_cases} "
                               "are required")
    seen: set[str] = set()
    for c in ds.cases:
        if c.id in seen:
            raise EvalDatasetError(f"duplicate case id {c.id!r}")
        seen.add(c.id)
        try:
            c.refs()
        except ValueError as exc:
            raise EvalDatasetError(str(exc)) from None
    missing = REQUIRED_CATEGORIES - {c.category for c in ds.cases}
    if coverage and missing:
        raise EvalDatasetError(f"the dataset lacks the categories {sorted(missing)}")


def load_dataset(path: Path | str | None = None, *, min_cases: int = MIN_CASES,
                 coverage: bool | None = None) -> Dataset:
    """Load and validate a dataset (default: the packaged golden_dataset.json).

    Coverage rules (>= min_cases, every required category) apply to the golden dataset by
    default and to a custom file only when `coverage=True`.
    """
    p = Path(path) if path else DATASET_PATH
    try:
        raw = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise EvalDatasetError(f"cannot read the dataset {p}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise EvalDatasetError(f"{p} is not valid JSON: line {exc.lineno}: {exc.msg}") from None
    try:
        ds = Dataset.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(x) for x in first["loc"])
        raise EvalDatasetError(f"{p}: {loc}: {first['msg']} ({exc.error_count()} errors)") from None
    if coverage is None:
        coverage = path is None or p.resolve() == DATASET_PATH.resolve()
    validate_dataset(ds, min_cases=min_cases, coverage=coverage)
    return ds


def select_cases(ds: Dataset, ids: list[str] | None) -> list[Case]:
    """The cases to run: all, or those named (unknown ids raise with the known ones)."""
    if not ids:
        return list(ds.cases)
    by_id = ds.by_id()
    unknown = [i for i in ids if i not in by_id]
    if unknown:
        raise EvalDatasetError(f"unknown case ids {unknown}; run with --list to see them")
    return [by_id[i] for i in ids]
