"""The week plan: one per team and matchup, what the member approved and what it assumes.

A `WeekPlan` is the team's approved moves for the rest of the matchup, each on its day with
its status (scheduled, applied, waiting for ESPN, not possible...), and the lineup of each
remaining day that the plan's total assumes (`DayLineup`: who starts in which slot). It is
built when a card is decided (`WeekPlan.build`, from the decided moves and the optimizer's
weekly lineups of the roster those moves make) and re-built when a later card of the same
matchup is decided (`WeekPlan.replan`: one plan per team and matchup, never a second copy).

Approving moves approves the lineups they assume: FanVise sets each day's lineup once that
day's moves are made (the demo always; a live league when the member turned writes on), or,
where it may not write, tells the member which lineup changes the total needs on which day
(`lineup_needs`, `needs_text`: "start Coby White at G on Thu").

Storage keeps the plan with the card (`storage.app_db.AppDB.put_week_plan` /
`current_week_plan`): the moves scheduled for a later day live in the `move_schedule` table
(their status is read from there), the plan row holds the rest.

Pure data: no I/O, JSON-able (`model_dump(mode="json")` / `model_validate`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from fantasy.constants import slot_name
from fantasy.formatting import weekday_text
from fantasy.moves import Move, PlayerRef, move_text

#: What happened (or will happen) to one move of a week plan (a `move_schedule` row's
#: status, or an outcome of a move made when the card was decided).
MoveStatus = Literal["scheduled", "making", "applied", "waiting", "not_possible", "skipped"]
#: A day's lineup: planned (not written yet), set (FanVise wrote it, or it was already so),
#: left to the member (FanVise may not write: `needs_text` tells them), not set (refused).
LineupStatus = Literal["planned", "set", "member", "not_set"]


class WeekMove(BaseModel):
    """One approved move of the week plan: the card it comes from and its spot
    (`plan_move_id`), the move made (`move_id`: the chosen player), its day and status."""

    model_config = ConfigDict(extra="ignore")

    card_id: str
    plan_move_id: str
    move_id: str
    day: date
    drop: PlayerRef
    add: PlayerRef
    drop_to_ir: bool = False
    status: MoveStatus = "scheduled"
    note: str = ""
    expected_gain: float | None = None
    gain_unit: str = ""
    #: True when the move's row lives in `move_schedule` (its status is read from there)
    in_schedule: bool = False

    def text(self, *, capital: bool = False) -> str:
        """'drop X, add Y' / 'move X to IR, add Y'."""
        return move_text(self.drop.name, self.add.name, capital=capital, to_ir=self.drop_to_ir)

    def as_move(self) -> Move:
        """The move as a plan `Move` (its day, players and the gain its card gave it): what
        the optimizer keeps as planned (`OptimizerService.move_plan(planned=)`)."""
        return Move(move_id=self.move_id, day=self.day, drop=self.drop, add=self.add,
                    gain=float(self.expected_gain or 0.0), drop_to_ir=self.drop_to_ir)

    @property
    def open(self) -> bool:
        """Still to be made (scheduled, or being made right now)."""
        return self.status in ("scheduled", "making")

    @property
    def counts(self) -> bool:
        """Made or still to be made: the plan's rosters include it."""
        return self.status in ("scheduled", "making", "applied", "waiting")


class LineupSlot(BaseModel):
    """One starter of a day: the player in a starting slot, with his projected value."""

    player: PlayerRef
    slot_id: int
    value: float = 0.0

    @property
    def slot(self) -> str:
        return slot_name(self.slot_id)


class DayLineup(BaseModel):
    """The lineup of one remaining day that the plan's total assumes: its starters (slot
    assignments) and their projected value; `roster`: the player ids on the roster that day
    under the plan (the scheduler re-solves the day when the real roster differs)."""

    model_config = ConfigDict(extra="ignore")

    day: date
    scoring_period: int
    starters: list[LineupSlot] = Field(default_factory=list)
    value: float = 0.0
    roster: list[int] = Field(default_factory=list)
    status: LineupStatus = "planned"
    note: str = ""

    def assignment(self) -> dict[int, int]:
        """{player id: starting slot id} of the day's starters."""
        return {s.player.id: s.slot_id for s in self.starters}

    def starter_ids(self) -> set[int]:
        return {s.player.id for s in self.starters}

    def matches(self, roster_ids: Iterable[int]) -> bool:
        """The real roster of the day is the one the plan assumed (then its lineup is set as
        planned; otherwise the day is re-solved)."""
        return set(self.roster) == set(roster_ids)


class LineupNeed(BaseModel):
    """A lineup change the plan's total needs on a day: `player` starts at `slot`."""

    day: date
    player: PlayerRef
    slot_id: int

    def text(self) -> str:
        """'start Coby White at G on Thu'."""
        return f"start {self.player.name} at {slot_name(self.slot_id)} on {weekday_text(self.day)}"


class WeekPlan(BaseModel):
    """A team's plan for the rest of one matchup (see the module docstring).

    `projected_total` / `baseline_total`: the plan's value over the remaining days when it
    was made (fantasy points, or expected categories won in a category league) and the same
    doing nothing; `promised_gain` their difference as the card promised it. `card_ids`: the
    cards whose decisions make the plan, oldest first (a re-plan adds one). `writes`: FanVise
    sets the lineups itself (the demo; a live league with writes on for the member)."""

    model_config = ConfigDict(extra="ignore")

    team_id: int
    matchup_period: int
    scoring: Literal["points", "categories"] = "points"
    unit: str = ""
    planned_on: date
    dates: list[date] = Field(default_factory=list)
    card_ids: list[str] = Field(default_factory=list)
    moves: list[WeekMove] = Field(default_factory=list)
    lineups: list[DayLineup] = Field(default_factory=list)
    projected_total: float = 0.0
    baseline_total: float = 0.0
    writes: bool = False
    notes: list[str] = Field(default_factory=list)
    #: where FanVise may not write: the lineup changes the member makes on ESPN, by day
    #: (`changes_text` from the roster's slots when the plan was made); "" otherwise
    member_lineups: str = ""
    #: a category card's focus (its totals are expected wins of these categories only)
    focus_categories: list[str] = Field(default_factory=list)
    #: who approved it last, where (whose writes set the lineups; where reminders go)
    platform: str = ""
    workspace_id: str = ""
    member_id: str = ""

    # ------------------------------------------------------------------ reading

    @property
    def card_id(self) -> str:
        """The card that made the plan last."""
        return self.card_ids[-1] if self.card_ids else ""

    @property
    def write_key(self) -> str:
        """The part of its lineup writes' keys that names the plan: its last card, or for a
        plan without moves (no card) its matchup and day ("keep15-2023-01-25")."""
        return self.card_id or f"keep{self.matchup_period}-{self.planned_on.isoformat()}"

    @property
    def gain(self) -> float:
        """The plan against doing nothing, as projected when it was made."""
        return self.projected_total - self.baseline_total

    @property
    def last_day(self) -> date | None:
        """The plan's last day (None: no day left)."""
        return max(self.dates) if self.dates else None

    def next_move_day(self, after: date) -> date | None:
        """The first day after `after` with a move still to make (None: none)."""
        days = [m.day for m in self.moves if m.open and m.day > after]
        return min(days) if days else None

    def lineup_days(self, today: date) -> list[date]:
        """The days whose lineup can be set now: today and each later day before the next
        move still to make (the lineups after it are set once it is made)."""
        stop = self.next_move_day(today)
        return [lu.day for lu in self.lineups
                if lu.day >= today and (stop is None or lu.day < stop)]

    def roster_on(self, day: date, today_roster: Iterable[int], today: date) -> set[int]:
        """The active roster the plan leads to on `day` from `today_roster` (today's, after
        today's moves): the open moves dated after today up to `day` applied."""
        out = set(today_roster)
        for m in sorted(self.moves, key=lambda m: m.day):
            if m.open and today < m.day <= day:
                out.discard(m.drop.id)
                out.add(m.add.id)
        return out

    def moves_on(self, day: date) -> list[WeekMove]:
        """The plan's moves of a day, in timeline order (any status)."""
        return [m for m in self.moves if m.day == day]

    def open_moves(self) -> list[WeekMove]:
        """The moves still to be made (scheduled), by day."""
        return sorted((m for m in self.moves if m.open), key=lambda m: m.day)

    def dropped_ids(self) -> set[int]:
        """Players the plan drops (made or still to make): never offered again."""
        return {m.drop.id for m in self.moves if m.counts}

    def added_ids(self) -> set[int]:
        """Players the plan adds (made or still to make)."""
        return {m.add.id for m in self.moves if m.counts}

    def acquisitions_planned(self) -> int:
        """Acquisitions the plan's open moves will still use (count them net on a new card)."""
        return len(self.open_moves())

    def lineup_on(self, day: date) -> DayLineup | None:
        """The lineup the plan assumes on `day` (None: not a remaining day of the plan)."""
        return next((lu for lu in self.lineups if lu.day == day), None)

    def remaining(self, today: date) -> list[DayLineup]:
        """The plan's lineups from `today` on."""
        return [lu for lu in self.lineups if lu.day >= today]

    def lineup_changes(self, first: Mapping[int, int] | None = None) -> list[LineupNeed]:
        """The lineup changes the plan's total needs, day by day: each day, every planned
        starter not already in that slot the day before (the plan's lineup of the day before;
        for the first day, `first`: the slots the roster has then, {player id: slot id})."""
        out: list[LineupNeed] = []
        before = dict(first or {})
        for lu in self.lineups:
            for s in lu.starters:
                if before.get(s.player.id) != s.slot_id:
                    out.append(LineupNeed(day=lu.day, player=s.player, slot_id=s.slot_id))
            before = lu.assignment()
        return out

    def lineup_needs(self, day: date, current: Mapping[int, int] | None = None
                     ) -> list[LineupNeed]:
        """The lineup changes the plan's total needs on `day`: each planned starter not in
        his slot in `current` ({player id: slot id}, the roster's slots that day), or, with
        no `current`, not in that slot in the plan's lineup of the day before."""
        lu = self.lineup_on(day)
        if lu is None:
            return []
        if current is not None:
            return [LineupNeed(day=day, player=s.player, slot_id=s.slot_id)
                    for s in lu.starters if current.get(s.player.id) != s.slot_id]
        return [n for n in self.lineup_changes() if n.day == day and
                (self.lineups[0].day != day or n.player.id in self.added_ids())]

    def needs_text(self, day: date, current: Mapping[int, int] | None = None) -> str:
        """'start Coby White at G on Thu; start Tyus Jones at PG on Thu' ('' when none)."""
        return "; ".join(n.text() for n in self.lineup_needs(day, current))

    def changes_text(self, first: Mapping[int, int] | None = None, *, limit: int = 12,
                     only: Iterable[int] | None = None) -> str:
        """The plan's lineup changes in one line ('start Coby White at G on Thu; start
        ...'), at most `limit` of them ('; and 3 more'); `only`: those of these players."""
        keep = set(only) if only is not None else None
        needs = [n for n in self.lineup_changes(first) if keep is None or n.player.id in keep]
        text = "; ".join(n.text() for n in needs[:limit])
        if len(needs) > limit:
            text += f"; and {len(needs) - limit} more"
        return text

    # ------------------------------------------------------------------ changing

    def with_lineup_status(self, day: date, status: LineupStatus, note: str = "") -> WeekPlan:
        """This plan with one day's lineup marked (set / left to the member / not set)."""
        lineups = [lu.model_copy(update={"status": status, "note": note}) if lu.day == day
                   else lu for lu in self.lineups]
        return self.model_copy(update={"lineups": lineups})

    def with_move_status(self, statuses: Mapping[tuple[str, str], tuple[str, str]]
                         ) -> WeekPlan:
        """This plan with the moves' statuses from `move_schedule` rows: {(card id, plan
        move id): (status, note)}."""
        moves = []
        for m in self.moves:
            st = statuses.get((m.card_id, m.plan_move_id))
            moves.append(m.model_copy(update={"status": st[0], "note": st[1]})
                         if st is not None else m)
        return self.model_copy(update={"moves": moves})

    def replan(self, new: WeekPlan) -> WeekPlan:
        """The team's plan after a later card of the same matchup was decided: the moves of
        this plan that were made or are still to make, then the new card's moves (a new move
        of the same spot replaces the old one), the new lineups and the new card's totals
        (from the day of the re-plan, against doing nothing more)."""
        if new.team_id != self.team_id or new.matchup_period != self.matchup_period:
            return new
        fresh = {(m.card_id, m.plan_move_id) for m in new.moves}
        kept = [m for m in self.moves if (m.card_id, m.plan_move_id) not in fresh
                and m.counts]
        cards = list(dict.fromkeys([*self.card_ids, *new.card_ids]))
        return new.model_copy(update={
            "moves": sorted([*kept, *new.moves], key=lambda m: m.day), "card_ids": cards})

    def to_json(self) -> dict[str, object]:
        return self.model_dump(mode="json")

    # ------------------------------------------------------------------ building

    @classmethod
    def build(cls, *, team_id: int, matchup_period: int, scoring: Literal["points", "categories"],
              unit: str, planned_on: date, card_id: str, moves: Iterable[WeekMove],
              lineups: Iterable[DayLineup], projected_total: float, baseline_total: float,
              writes: bool, notes: Iterable[str] = (), platform: str = "",
              workspace_id: str = "", member_id: str = "",
              focus_categories: Iterable[str] = ()) -> WeekPlan:
        """A plan from a decided card: its moves (each with the status the decision gave it)
        and the lineups of the remaining days under them (the optimizer's weekly plan of the
        roster the moves make), with the totals the card promised."""
        lus = sorted(lineups, key=lambda lu: lu.day)
        return cls(team_id=team_id, matchup_period=matchup_period, scoring=scoring,
                   unit=unit, planned_on=planned_on, dates=[lu.day for lu in lus],
                   card_ids=[card_id] if card_id else [],
                   moves=sorted(moves, key=lambda m: m.day), lineups=lus,
                   projected_total=float(projected_total),
                   baseline_total=float(baseline_total), writes=writes, notes=list(notes),
                   platform=platform, workspace_id=workspace_id, member_id=member_id,
                   focus_categories=list(focus_categories))


__all__ = ["DayLineup", "LineupNeed", "LineupSlot", "LineupStatus", "MoveStatus", "WeekMove",
           "WeekPlan"]
