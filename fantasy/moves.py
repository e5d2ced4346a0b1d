"""Typed moves and plans: what the optimizer proposes, the graph checkpoints, the card shows.

Pydantic models, so they cross the layers typed and still dump to plain JSON for the
LangGraph checkpoint (`plan.model_dump(mode="json")`, `Plan.model_validate(data)`).

`move_text` is THE one place that writes "drop X, add Y"; `move_line` the timeline line of a
card ("Wed: drop Hayward, add Tyus Jones: +1 game started, +94 fantasy points this week").
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, Field

from fantasy.formatting import (
    categories_text,
    categories_won_text,
    one_decimal,
    points_text,
    season_value_text,
    whole,
)

POINTS_UNIT = "fantasy points"
CATEGORIES_UNIT = "expected categories won"


def move_text(drop: str, add: str, *, capital: bool = False, to_ir: bool = False) -> str:
    """'drop X, add Y' (the only formatter of a move; capital=True: 'Drop X, add Y');
    to_ir=True: 'move X to IR, add Y' (X goes to the IR slot, nobody is released)."""
    if to_ir:
        return f"{'Move' if capital else 'move'} {drop} to IR, add {add}"
    return f"{'Drop' if capital else 'drop'} {drop}, add {add}"


def names_of(move: Any) -> tuple[str, str]:
    """(drop name, add name) of a Move or of a move dict ({"drop": {"name"}, "add": ...})."""
    if isinstance(move, Move):
        return move.drop.name, move.add.name
    d, a = move.get("drop") or {}, move.get("add") or {}
    return str(d.get("name") or d.get("id") or "?"), str(a.get("name") or a.get("id") or "?")


def text_of(move: Any, *, capital: bool = False) -> str:
    """move_text for a Move or a move dict."""
    to_ir = move.drop_to_ir if isinstance(move, Move) else bool(move.get("drop_to_ir"))
    return move_text(*names_of(move), capital=capital, to_ir=to_ir)



def _games_left(n: int) -> str:
    return "no games left" if n == 0 else f"{n} game{'s' if n != 1 else ''} left"

class PlayerRef(BaseModel):
    id: int
    name: str


class Alternative(BaseModel):
    """Another free agent for the same roster spot on the same day (the rest of the plan
    unchanged): `plan_value` is the whole plan's value with him instead."""

    add: PlayerRef
    plan_value: float
    per_game: float = 0.0
    games: int = 0
    notes: list[str] = Field(default_factory=list)
    season_gain: float = 0.0  # the whole plan's rest-of-season effect with him instead


class Move(BaseModel):
    """One move of a plan.  `gain` / `games_added`: what this move adds to the plan given the
    moves before it in the timeline (the moves' gains sum to the plan's gain)."""

    move_id: str
    day: date
    drop: PlayerRef
    add: PlayerRef
    gain: float
    games_added: int = 0
    drop_per_game: float = 0.0
    add_per_game: float = 0.0
    drop_games: int = 0
    add_games: int = 0
    replaces_added: bool = False  # a streaming chain: drops a player added earlier in the plan
    notes: list[str] = Field(default_factory=list)
    alternatives: list[Alternative] = Field(default_factory=list)
    # the rest of the season (fantasy.optimizer.season), in the plan's unit:
    drop_to_ir: bool = False  # the leaving player goes to the IR slot (not released)
    season_gain: float = 0.0  # this move's effect on the rest of the season
    season_cost: float = 0.0  # the dropped player's value above replacement (lost)
    drop_ros_per_game: float | None = None  # his value per game for the rest of the season
    ros_games: int = 0  # his games after this matchup
    replacement: PlayerRef | None = None  # the best free agent at his positions
    replacement_per_game: float | None = None

    @property
    def weekday(self) -> str:
        return self.day.strftime("%a")

    @property
    def overall(self) -> float:
        """This matchup's gain plus the rest of the season's."""
        return self.gain + self.season_gain

    def text(self, *, capital: bool = False) -> str:
        return move_text(self.drop.name, self.add.name, capital=capital, to_ir=self.drop_to_ir)

    def expendable_text(self, label: str = "per game",
                        ranks: Mapping[int, int] | None = None) -> str:
        """Why the leaving player can go: 'Gordon Hayward: 21.1 per game for the rest of the
        season vs 30.3 for Robert Covington, the best free agent at his positions'; with
        `ranks` (category leagues: league rank by category value per game), 'Gordon Hayward:
        #212 in the league by category value vs #98 for Dorian Finney-Smith, ...'."""
        if self.drop_to_ir:
            return f"{self.drop.name} goes to your IR slot: nobody is released"
        if self.replaces_added:
            return f"{self.drop.name} was added for this matchup only"
        if self.drop_ros_per_game is None or self.replacement is None:
            return ""
        if ranks and self.drop.id in ranks and self.replacement.id in ranks:
            return (f"{self.drop.name}: #{ranks[self.drop.id]} in the league by category "
                    f"value vs #{ranks[self.replacement.id]} for {self.replacement.name}, the "
                    "best free agent at his positions")
        return (f"{self.drop.name}: {self.drop_ros_per_game:.1f} {label} for the rest of the "
                f"season vs {float(self.replacement_per_game or 0.0):.1f} for "
                f"{self.replacement.name}, the best free agent at his positions")

    def with_add(self, alt: Alternative) -> Move:
        """This move with an alternative's free agent picked instead."""
        others = [a for a in self.alternatives if a.add.id != alt.add.id]
        mine = Alternative(add=self.add, plan_value=float("nan"), per_game=self.add_per_game,
                           games=self.add_games)
        return self.model_copy(update={
            "add": alt.add, "add_per_game": alt.per_game, "add_games": alt.games,
            "move_id": move_id(self.day, self.drop.id, alt.add.id),
            "notes": list(alt.notes), "alternatives": [mine, *others]})


def move_id(day: date, drop: int, add: int) -> str:
    return f"{day.isoformat()}:{drop}-{add}"


class Hold(BaseModel):
    player: PlayerRef
    reason: str


class Plan(BaseModel):
    """The best plan for the rest of the matchup (fantasy.optimizer.plan.best_plan).

    points leagues: values are fantasy points over the remaining days; category leagues:
    expected categories won against the actual opponent (`n_categories` in all)."""

    team_id: int
    scoring: Literal["points", "categories"]
    unit: str
    dates: list[date]
    moves: list[Move] = Field(default_factory=list)
    base_value: float = 0.0
    planned_value: float = 0.0
    best_single_value: float | None = None
    best_single: Move | None = None
    base_starts: int = 0
    planned_starts: int = 0
    n_categories: int | None = None
    focus_categories: list[str] = Field(default_factory=list)
    acquisitions_left: int | None = None
    acquisition_limit: int | None = None
    max_moves: int = 0
    holds: list[Hold] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    message: str = ""
    per_game_label: str = ""
    #: category leagues: player id -> league rank by category value per game (1 = best),
    #: for the players the plan names; shown instead of z-scores
    ranks: dict[int, int] = Field(default_factory=dict)
    exact: bool = True  # False: category league (moves chosen on the linearised model)
    season_gain: float = 0.0  # the moves' effect on the rest of the season (sum of theirs)
    season_end: date | None = None
    #: the approved moves still to be made (the week plan), fixed: the plan is made on top
    #: of them, `base_value` is the value with them, each move's gain its part in order
    scheduled: list[Move] = Field(default_factory=list)
    #: the value with no move at all (only when moves are scheduled; else `base_value`)
    nothing_value: float | None = None

    @property
    def gain(self) -> float:
        return self.planned_value - self.base_value

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def value_text(self, v: float) -> str:
        """A plan value in its unit: '812 fantasy points' / '5.2 of 9 categories'."""
        if self.scoring == "points":
            return points_text(v, signed=False)
        return categories_won_text(v, self.n_categories or 0)

    def gain_text(self, g: float) -> str:
        """A change in the plan's unit (fantasy.formatting): '+94 fantasy points this week'
        / 'wins 0.3 more categories on average'."""
        if self.scoring == "points":
            return points_text(g, suffix=" this week")
        return categories_text(g)

    def move_line(self, m: Move) -> str:
        """'Wed: drop Hayward, add Tyus Jones: +1 game started, +94 fantasy points this week'."""
        parts = []
        if m.games_added:
            n = abs(m.games_added)
            parts.append(f"{m.games_added:+d} game{'s' if n != 1 else ''} started")
        parts.append(self.gain_text(m.gain))
        if abs(m.season_gain) >= 0.05:
            parts.append(self.season_text(m.season_gain))
        return f"{m.weekday}: {m.text()}: " + ", ".join(parts)

    def alternative_diff(self, a: Alternative) -> float:
        """An alternative against the plan's pick: the whole plan's change with him instead,
        this matchup plus the rest of the season (the plan maximises both)."""
        return (a.plan_value - self.planned_value) + (a.season_gain - self.season_gain)

    def alternative_vs_text(self, a: Alternative, pick: str = "") -> str:
        """An alternative against the plan's pick, short (a spot's menu), saying what it is
        relative to: 'vs Kelly Olynyk: -7 fantasy points' or, when their rest of the season
        differs, 'vs Kelly Olynyk: +13 fantasy points this week, -90 fantasy points rest of
        season' (the whole plan with him instead of `pick`)."""
        week = a.plan_value - self.planned_value
        season = a.season_gain - self.season_gain
        if abs(season) < 0.05:
            diff = self.gain_text(week).replace(" this week", "")
        else:
            diff = f"{self.gain_text(week)}, {self.season_text(season)}"
        return f"vs {pick}: {diff}" if pick else diff

    def alternative_line(self, m: Move, a: Alternative) -> str:
        """The timeline line of move m with alternative a picked instead: 'Wed: drop Hayward,
        add Zach Collins: +80 fantasy points this week, -90 fantasy points rest of season'."""
        alt = m.with_add(a)
        week = m.gain + (a.plan_value - self.planned_value)
        season = m.season_gain + (a.season_gain - self.season_gain)
        line = f"{m.weekday}: {alt.text()}: {self.gain_text(week)}"
        if abs(season) >= 0.05 or abs(m.season_gain) >= 0.05:
            line += ", " + self.season_text(season)
        return line

    def season_text(self, g: float) -> str:
        """A rest-of-season effect: '-360 fantasy points rest of season' / in a category
        league, in words ('stronger for the rest of the season')."""
        if self.scoring == "points":
            return points_text(g, suffix=" rest of season")
        return season_value_text(g)

    def per_game_text(self, m: Move) -> str:
        """The labelled per-game projections of a move's two players (category leagues:
        their league ranks by category value per game, never z-scores)."""
        if self.ranks and m.add.id in self.ranks and m.drop.id in self.ranks:
            return (f"league rank by category value per game: {m.add.name} "
                    f"#{self.ranks[m.add.id]} ({_games_left(m.add_games)}), {m.drop.name} "
                    f"#{self.ranks[m.drop.id]} ({_games_left(m.drop_games)})")
        label = self.per_game_label or ("fantasy points per game" if self.scoring == "points"
                                        else "category score per game")
        return (f"{label}: {m.add.name} {m.add_per_game:.1f} ({_games_left(m.add_games)}), "
                f"{m.drop.name} {m.drop_per_game:.1f} ({_games_left(m.drop_games)})")

    def scheduled_line(self) -> str:
        """The moves already scheduled, as planned: 'Already scheduled (kept as planned):
        Thu: drop Schroder, add Coby White: +44 fantasy points this week.' ('' when none)."""
        if not self.scheduled:
            return ""
        return ("Already scheduled (kept as planned): "
                + "; ".join(self.move_line(m) for m in self.scheduled) + ".")

    def totals_line(self) -> str:
        """The plan against doing nothing (with moves scheduled: against the schedule alone
        and doing nothing) and against the best single move."""
        if self.scoring == "points" and self.scheduled:
            nothing = self.nothing_value if self.nothing_value is not None else self.base_value
            s = (f"Plan: {self.value_text(self.planned_value)} over the rest of the matchup vs "
                 f"{whole(self.base_value)} with only your scheduled moves "
                 f"({whole(self.gain, signed=True)}) and {whole(nothing)} doing nothing "
                 f"({whole(self.planned_value - nothing, signed=True)})")
        elif self.scoring == "points":
            s = (f"Plan: {self.value_text(self.planned_value)} over the rest of the matchup vs "
                 f"{whole(self.planned_value - self.gain)} doing nothing "
                 f"({whole(self.gain, signed=True)})")
        elif self.scheduled:
            what = (", ".join(self.focus_categories) if self.focus_categories
                    else "categories")
            nothing = self.nothing_value if self.nothing_value is not None else self.base_value
            s = (f"Plan: expected {what} won vs your opponent {one_decimal(nothing)} doing "
                 f"nothing, {one_decimal(self.base_value)} with your scheduled moves -> "
                 f"{one_decimal(self.planned_value)} of {self.n_categories or 0}")
        else:
            what = (", ".join(self.focus_categories) if self.focus_categories
                    else "categories")
            s = (f"Plan: expected {what} won vs your opponent {one_decimal(self.base_value)}"
                 f" -> {one_decimal(self.planned_value)} of {self.n_categories or 0}")
        if self.best_single is not None and self.best_single_value is not None and \
                len(self.moves) > 1:
            bs = self.best_single_value - self.base_value
            alone = ("the best single move on top of them" if self.scheduled
                     else "the best single move alone")
            if self.scoring == "points":
                s += f"; {alone}: {whole(bs, signed=True)}"
            else:
                s += f"; {alone} {categories_text(bs)}"
        return s + "."


__all__ = ["CATEGORIES_UNIT", "POINTS_UNIT", "Alternative", "Hold", "Move", "Plan", "PlayerRef",
           "move_id", "move_text", "names_of", "text_of"]
