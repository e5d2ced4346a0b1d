"""The move card: one typed object for a card of moves, from the plan to what happened.

A `MoveCard` is built from the optimizer's `Plan` (`MoveCard.from_plan`) or from a list of
ranked moves (explicit move, injury re-evaluation, category ranking: `MoveCard.from_moves`).
It holds the plan, the moves with their days, the other players per spot, the chains (a
move that drops a player an earlier move adds), the decisions and the outcomes.

Everything about what a card *means* is decided here, once:

- what a click does: `MoveCard.click` (a menu chooses a player and never approves; Approve
  and Skip decide one spot; "approve all" / "skip all" the open spots) and what its
  confirmation says (`confirm_text`);
- which moves conflict or chain: `conflicts`, `chains`, `blocked`, `swaps`;
- what the run is resumed with: `resume_decisions` / `resolve`, and the steps the graph
  makes in order: `steps`;
- how an outcome reads: `MoveOutcome.text`, `outcome_lines`, `footer`.

Indexes: `moves[i]` is move i of the card (plan moves in timeline order, then the other
players per spot); `decisions` maps str(i) -> "approve" | "decline" and "pick:<p>" -> str(i)
(the player chosen for spot p, not an approval), the shape the card row stores.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from fantasy.formatting import day_text, weekday_text
from fantasy.moves import Plan, PlayerRef, move_text

#: What happened (or will happen) to one move of a card.
OutcomeStatus = Literal["pending", "scheduled", "applied", "waiting", "skipped",
                        "not_possible"]
Decision = Literal["approve", "decline"]
ClickAction = Literal["approve", "decline", "pick", "approveall", "declineall"]
SpotState = Literal["open", "approved", "skipped"]

_LEGACY_STATUS: dict[str, OutcomeStatus] = {
    "applied": "applied", "recorded": "applied", "done": "applied", "waiting": "waiting",
    "declined": "skipped", "skipped_by_you": "skipped", "failed": "not_possible",
    "skipped": "skipped", "scheduled": "scheduled", "pending": "pending",
    "not_possible": "not_possible"}

PICK_PREFIX = "pick:"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


class MoveOutcome(BaseModel):
    """What happened to a move: pending (not decided / not made yet), scheduled (approved,
    made on `day` by the scheduler), applied (done), waiting (a live league: the member
    makes it on ESPN, `steps` and `espn_link` say how), skipped (by the member), or
    not_possible (`note` says why). `drop` / `add`: the players really involved (a chain
    may drop the player chosen for an earlier spot)."""

    model_config = ConfigDict(extra="ignore")

    move_id: str
    status: OutcomeStatus
    plan_move_id: str = ""
    day: date | None = None
    note: str = ""
    espn_link: str = ""
    steps: list[str] = Field(default_factory=list)
    drop: PlayerRef | None = None
    add: PlayerRef | None = None
    line: str = ""
    expected_gain: float | None = None
    gain_unit: str = ""
    drop_to_ir: bool = False  # the leaving player went to the IR slot (nobody released)
    #: the key of the write that made it (fantasy.espn.writes; None when nothing was
    #: sent): a claim put in is read back under it (`<key>:claim`)
    write_key: str | None = None

    @classmethod
    def of(cls, data: dict[str, Any] | MoveOutcome) -> MoveOutcome:
        """An outcome from its JSON, old status words included ("declined" -> skipped,
        "failed" -> not_possible, "recorded" -> applied)."""
        if isinstance(data, MoveOutcome):
            return data
        d = dict(data)
        d["status"] = _LEGACY_STATUS.get(str(d.get("status") or "applied"), "not_possible")
        for side in ("drop", "add"):
            if not isinstance(d.get(side), dict) or "id" not in d[side]:
                d.pop(side, None)
            else:
                d[side] = {"id": int(d[side]["id"]),
                           "name": str(d[side].get("name") or d[side]["id"])}
        if d.get("day") in ("", None):
            d.pop("day", None)
        return cls.model_validate(d)

    @property
    def made(self) -> bool:
        """Made now or handed to the member / the scheduler (not skipped, not failed)."""
        return self.status in ("applied", "waiting", "scheduled")

    def text(self) -> str:
        """THE wording of an outcome on a card ("Applied.", "Scheduled for Thu.")."""
        if self.status == "applied":
            return "Applied."
        if self.status == "scheduled":
            when = day_text(self.day) if self.day else "its day"
            return f"Scheduled for {when}: made that morning, before the first game."
        if self.status == "waiting":
            return "Waiting for ESPN: " + (" ".join(self.steps) if self.steps
                                           else "make it on ESPN.")
        if self.status == "skipped":
            return "Skipped by you."
        if self.status == "pending":
            return "Not decided yet."
        return f"Not possible: {_clip(self.note, 200) or 'it could not be made'}."

    def line_text(self, what: str) -> str:
        """One line of an answer: "Done: Thu: drop X, add Y." (`what`: the move)."""
        if self.status == "applied":
            return f"Done: {what}."
        if self.status == "scheduled":
            when = weekday_text(self.day) if self.day else "its day"
            return f"Scheduled for {when}: {what}."
        if self.status == "waiting":
            return f"Waiting for ESPN: {what}. " + " ".join(self.steps)
        if self.status == "skipped":
            return f"Skipped by you: {what}."
        if self.status == "pending":
            return f"Not decided yet: {what}."
        return f"Not possible: {what}: {self.note or 'failed'}."

    @property
    def icon(self) -> str:
        return {"applied": "✅ ", "scheduled": "🗓️ ", "waiting": "⏳ ", "skipped": "⏭️ ",
                "pending": ""}.get(self.status, "⚠️ ")

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


class CardMove(BaseModel):
    """One move on a card: a plan move, or another player for a plan move's spot
    (`alternative_of` = that plan move's id)."""

    model_config = ConfigDict(extra="ignore")

    move_id: str
    drop: PlayerRef
    add: PlayerRef
    day: date | None = None
    expected_gain: float = 0.0
    gain_unit: str = ""
    games: int = 0
    confidence: str = ""
    reasons: list[str] = Field(default_factory=list)
    line: str = ""          # a plan move's timeline line ("Thu: drop X, add Y: +12 ...")
    per_game: str = ""      # the labelled per-game projections of its two players
    notes: list[str] = Field(default_factory=list)
    alternative_of: str | None = None
    vs_pick: float | None = None
    vs_pick_text: str = ""
    category_delta: dict[str, float] | None = None
    plan_delta: float | None = None
    plan_unit: str = ""
    replaces_added: bool = False
    drop_to_ir: bool = False  # the leaving player goes to the IR slot (not released)
    scoring: str = ""

    def text(self, *, capital: bool = False) -> str:
        """'drop X, add Y' / 'move X to IR, add Y' (fantasy.moves.move_text)."""
        return move_text(self.drop.name, self.add.name, capital=capital,
                         to_ir=self.drop_to_ir)

    @property
    def label(self) -> str:
        """'Drop X, add Y'."""
        return self.text(capital=True)

    def conflicts(self, other: CardMove) -> bool:
        """Both drop or both add the same player (only one of them can be made)."""
        return self.drop.id == other.drop.id or self.add.id == other.add.id

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


class Spot(BaseModel):
    """A place on the card the member decides once: a plan move and the other players for
    it (a ranked card: each move is a spot of its own). `number` is 1-based."""

    number: int
    index: int
    alternatives: list[int] = Field(default_factory=list)

    @property
    def indexes(self) -> tuple[int, ...]:
        return (self.index, *self.alternatives)


class Chain(BaseModel):
    """A later plan move drops the player an earlier one adds ("Thu: add White" then
    "Sun: drop White"): the later needs the earlier."""

    earlier: int  # card index of the earlier plan move
    later: int


class ClickResult(BaseModel):
    """What one click does to a pending card (`MoveCard.click`): nothing (`refusal` says
    why), or `record` (decision keys to store, atomically, each only if absent, except a
    pick), `auto_declined` (index -> why: consequences), and `closes` with `decisions`
    (every spot is decided: the card is claimed and the run resumed with them)."""

    refusal: str = ""
    already: bool = False
    record: dict[str, str] = Field(default_factory=dict)
    pick: tuple[int, int] | None = None  # (spot index, chosen index): replaces a pick
    auto_declined: dict[int, str] = Field(default_factory=dict)
    closes: bool = False
    decisions: dict[str, str] = Field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.refusal and not self.already


class Step(BaseModel):
    """One spot of a decided card, in timeline order, as the graph makes it: `move` is the
    move to make (the chosen player; a chain's drop follows the earlier spot's choice), or
    None when the member skipped it (or, `conflict`, when an approved move above already
    drops or adds the same player); `needs` the plan add id an earlier move must have made
    (a streaming chain)."""

    spot: CardMove
    move: CardMove | None
    needs: int | None = None
    conflict: bool = False


class MoveCard(BaseModel):
    """A card of moves (see the module docstring)."""

    model_config = ConfigDict(extra="ignore")

    kind: Literal["plan", "ranked"] = "plan"
    title: str = ""
    summary: str = ""
    requester_id: str = ""
    round: int = 1
    plan: Plan | None = None
    moves: list[CardMove] = Field(default_factory=list)
    decisions: dict[str, str] = Field(default_factory=dict)
    outcomes: dict[str, MoveOutcome] = Field(default_factory=dict)

    # ------------------------------------------------------------------ building

    @classmethod
    def from_plan(cls, plan: Plan, *, title: str = "", summary: str = "",
                  requester_id: str = "", round: int = 1) -> MoveCard:
        """The card of an exact plan: its moves in timeline order, each with its timeline
        line and labelled per-game line, then each move's other players for the same spot
        and day (`alternative_of` = the plan move's id)."""
        out: list[CardMove] = []
        alts: list[CardMove] = []
        for m in plan.moves:
            out.append(CardMove(
                move_id=m.move_id, drop=m.drop, add=m.add, day=m.day,
                expected_gain=round_(m.gain), gain_unit=plan.unit, games=m.games_added,
                line=plan.move_line(m), per_game=plan.per_game_text(m), notes=list(m.notes),
                replaces_added=m.replaces_added, drop_to_ir=m.drop_to_ir,
                scoring=plan.scoring))
            for a in m.alternatives:
                alt = m.with_add(a)
                diff = plan.alternative_diff(a)  # this matchup + the rest of the season
                alts.append(CardMove(
                    move_id=alt.move_id, drop=alt.drop, add=alt.add, day=alt.day,
                    expected_gain=round_(m.gain + a.plan_value - plan.planned_value),
                    gain_unit=plan.unit,
                    games=m.games_added, notes=list(alt.notes), alternative_of=m.move_id,
                    vs_pick=round_(diff),
                    vs_pick_text=plan.alternative_vs_text(a, m.add.name),
                    line=plan.alternative_line(m, a),
                    per_game=plan.per_game_text(alt), replaces_added=alt.replaces_added,
                    drop_to_ir=alt.drop_to_ir, scoring=plan.scoring))
        return cls(kind="plan", title=title, summary=summary, requester_id=requester_id,
                   round=round, plan=plan, moves=out + alts)

    @classmethod
    def from_moves(cls, moves: Iterable[dict[str, Any] | CardMove], *,
                   decisions: dict[str, str] | None = None,
                   outcomes: dict[str, Any] | None = None, title: str = "",
                   summary: str = "", requester_id: str = "", round: int = 1,
                   plan: Plan | None = None) -> MoveCard:
        """A card from move JSON (an interrupt payload, a stored card row). A card whose
        moves carry timeline lines is a plan card; others are ranked cards."""
        ms = [m if isinstance(m, CardMove) else CardMove.model_validate(m) for m in moves]
        kind: Literal["plan", "ranked"] = "plan" if any(m.line for m in ms) else "ranked"
        ocs = {str(k): MoveOutcome.of({"move_id": str(k), **v}) if isinstance(v, dict)
               else MoveOutcome.of(v) for k, v in (outcomes or {}).items()}
        return cls(kind=kind, title=title, summary=summary, requester_id=requester_id,
                   round=round, plan=plan, moves=ms, decisions=dict(decisions or {}),
                   outcomes=ocs)

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> MoveCard:
        """The card of an interrupt payload ({"type": "move_approval", "card": {...}}, or the
        card's own JSON with "type": its moves and, for a plan card, its "plan")."""
        if isinstance(payload.get("card"), dict):
            return cls.model_validate(payload["card"])
        plan = Plan.model_validate(payload["plan"]) if isinstance(payload.get("plan"), dict) \
            else None
        return cls.from_moves(payload.get("moves") or [], title=str(payload.get("title") or ""),
                              summary=str(payload.get("summary") or ""),
                              requester_id=str(payload.get("requester_id") or ""),
                              round=int(payload.get("round") or 1), plan=plan)

    def with_state(self, decisions: dict[str, str] | None,
                   outcomes: dict[str, Any] | None = None) -> MoveCard:
        """This card with the decisions and outcomes of a stored row."""
        ocs = {str(k): MoveOutcome.of({"move_id": str(k), **v}) if isinstance(v, dict)
               else MoveOutcome.of(v) for k, v in (outcomes or {}).items()}
        return self.model_copy(update={"decisions": dict(decisions or {}), "outcomes": ocs})

    def move_dicts(self) -> list[dict[str, Any]]:
        """The moves as JSON (what a card row stores)."""
        return [m.to_json() for m in self.moves]

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)

    # ------------------------------------------------------------------ structure

    @property
    def is_plan(self) -> bool:
        return self.kind == "plan"

    def spots(self) -> list[Spot]:
        """The spots in order: a plan card's plan moves with their other players; a ranked
        card's moves, one spot each."""
        if not self.is_plan:
            return [Spot(number=i + 1, index=i) for i in range(len(self.moves))]
        spots = [Spot(number=0, index=i) for i, m in enumerate(self.moves)
                 if not m.alternative_of]
        by_id = {self.moves[s.index].move_id: s for s in spots}
        for i, m in enumerate(self.moves):
            if m.alternative_of and m.alternative_of in by_id:
                by_id[m.alternative_of].alternatives.append(i)
        for k, s in enumerate(spots, start=1):
            s.number = k
        return spots

    def spot_of(self, index: int) -> Spot | None:
        """The spot move `index` belongs to."""
        return next((s for s in self.spots() if index in s.indexes), None)

    def conflicts(self, i: int, j: int) -> bool:
        """Moves i and j drop or add the same player: only one can be made."""
        return i != j and self.moves[i].conflicts(self.moves[j])

    def chains(self) -> list[Chain]:
        """Plan moves that drop the player an earlier plan move adds."""
        spots = self.spots()
        by_add = {self.moves[s.index].add.id: s.index for s in spots}
        out = []
        for s in spots:
            src = by_add.get(self.moves[s.index].drop.id)
            if src is not None and src != s.index:
                out.append(Chain(earlier=src, later=s.index))
        return out

    # ------------------------------------------------------------------ decisions

    def decision(self, index: int, decisions: dict[str, str] | None = None) -> str | None:
        d = self.decisions if decisions is None else decisions
        v = d.get(str(index))
        return v if v in ("approve", "decline") else None

    def pick(self, spot: Spot, decisions: dict[str, str] | None = None) -> int:
        """The index of the player shown for a spot: the member's choice from its menu, an
        approved other player (older cards), else the plan's pick."""
        d = self.decisions if decisions is None else decisions
        for i in spot.alternatives:
            if d.get(str(i)) == "approve":
                return i
        raw = d.get(f"{PICK_PREFIX}{spot.index}")
        if raw is not None and raw.isdigit() and int(raw) in spot.indexes:
            return int(raw)
        return spot.index

    def spot_state(self, spot: Spot, decisions: dict[str, str] | None = None
                   ) -> tuple[SpotState, int | None]:
        """("approved", chosen index) | ("skipped", None) | ("open", None)."""
        d = self.decisions if decisions is None else decisions
        for i in spot.indexes:
            if d.get(str(i)) == "approve":
                return "approved", i
        if str(spot.index) in d:
            return "skipped", None
        return "open", None

    def blocked(self, decisions: dict[str, str] | None = None) -> dict[int, int]:
        """Plan moves that can no longer happen because an earlier move of their chain will
        not (skipped, or itself blocked): {index: number of the spot it needs}."""
        if not self.is_plan:
            return {}
        view = dict(self.decisions if decisions is None else decisions)
        spots = {s.index: s for s in self.spots()}
        out: dict[int, int] = {}
        changed = True
        while changed:
            changed = False
            for ch in self.chains():
                if ch.later in out:
                    continue
                src = spots[ch.earlier]
                if ch.earlier in out or self.spot_state(src, view)[0] == "skipped":
                    out[ch.later] = src.number
                    view[str(ch.later)] = "decline"
                    changed = True
        return out

    def swaps(self, decisions: dict[str, str] | None = None) -> dict[int, tuple[int, int]]:
        """Chain moves whose earlier spot adds another player (the member's choice): the
        later move drops that player instead. {later index: (spot number, chosen index)}."""
        spots = {s.index: s for s in self.spots()}
        out: dict[int, tuple[int, int]] = {}
        for ch in self.chains():
            src = spots[ch.earlier]
            state, chosen = self.spot_state(src, decisions)
            shown = chosen if state == "approved" else self.pick(src, decisions)
            if shown is not None and shown != ch.earlier:
                out[ch.later] = (src.number, shown)
        return out

    def shown(self, spot: Spot, decisions: dict[str, str] | None = None) -> CardMove:
        """The move a spot shows: its approved player, else the member's menu choice, else
        the plan's pick; a chain move drops the player shown for its earlier spot (the
        member's choice there), its line saying so ("Fri: drop Seth Curry, add Mo Bamba")."""
        state, chosen = self.spot_state(spot, decisions)
        move = self.moves[chosen if chosen is not None else self.pick(spot, decisions)]
        swap = self.swaps(decisions).get(spot.index)
        if swap is None:
            return move
        drop = self.moves[swap[1]].add
        old = move_text(move.drop.name, move.add.name, to_ir=move.drop_to_ir)
        new = move_text(drop.name, move.add.name, to_ir=move.drop_to_ir)
        return move.model_copy(update={"drop": drop, "line": move.line.replace(old, new, 1)})

    def picked_plan(self, decisions: dict[str, str] | None = None) -> Plan | None:
        """The card's plan with the members' menu choices in it: its total moved by each
        chosen player's difference this matchup from the plan's pick (what the menu says,
        the whole plan with him instead); None for a card without a plan."""
        if self.plan is None:
            return None
        delta = 0.0
        for spot in self.spots():
            state, chosen = self.spot_state(spot, decisions)
            if state == "skipped":
                continue
            shown = self.moves[chosen if chosen is not None else self.pick(spot, decisions)]
            pick = self.moves[spot.index]
            if shown is not pick and shown.expected_gain is not None and \
                    pick.expected_gain is not None:
                delta += shown.expected_gain - pick.expected_gain
        if not delta:
            return self.plan
        return self.plan.model_copy(update={"planned_value": self.plan.planned_value + delta})

    def summary_text(self, summary: str, decisions: dict[str, str] | None = None) -> str:
        """A plan card's summary with the plan's totals following the menu choices (the
        totals line of `picked_plan` in place of the plan's)."""
        picked = self.picked_plan(decisions)
        if picked is None or picked is self.plan or self.plan is None:
            return summary
        return summary.replace(self.plan.totals_line(), picked.totals_line(), 1)

    def open_spots(self, decisions: dict[str, str] | None = None) -> list[Spot]:
        """Spots nobody decided yet and no skipped chain blocks."""
        blocked = self.blocked(decisions)
        return [s for s in self.spots() if self.spot_state(s, decisions)[0] == "open"
                and s.index not in blocked]

    def undecided(self, decisions: dict[str, str] | None = None) -> list[int]:
        """Indexes with no approve/decline yet."""
        return [i for i in range(len(self.moves)) if self.decision(i, decisions) is None]

    def click(self, action: ClickAction, index: int | None = None,
              value: int | None = None) -> ClickResult:
        """What a click means on this pending card, decided once here:

        - `pick` (a spot's menu, `index` the spot, `value` the chosen move): chooses the
          player for the spot; approves nothing. Allowed while the spot is open.
        - `approve` / `decline` with `index` (a spot): approves the spot's shown player (its
          pick) / skips the spot. An approval declines every other open move that drops or
          adds the same player; a skip declines the spot's other players and the chain
          moves that need it.
        - `approveall` / `declineall`: every open spot, approved with its shown player /
          skipped (a chain whose earlier spot is skipped is skipped with it).

        The card closes (is claimed and the run resumed) when every move is decided."""
        d = dict(self.decisions)
        spots = self.spots()
        if action == "pick":
            spot = self.spot_of(index) if index is not None else None
            if spot is None or spot.index != index:
                return ClickResult(refusal="That move is not on this card.")
            if value not in spot.indexes:
                return ClickResult(refusal="That player is not a choice for this spot.")
            if self.spot_state(spot)[0] != "open" or index in self.blocked():
                return ClickResult(already=True)
            add = self.moves[int(value or 0)].add
            for other in self.spots():
                shown = self.spot_state(other)[1]
                shown = self.pick(other) if shown is None else shown
                if other.index != spot.index and self.spot_state(other)[0] != "skipped" \
                        and self.moves[shown].add.id == add.id:
                    return ClickResult(refusal=f"{add.name} is already the choice for "
                                               f"#{other.number}.")
            return ClickResult(pick=(spot.index, int(value or 0)))
        if index is not None and action in ("approve", "decline"):
            spot = next((s for s in spots if s.index == index), None)
            if spot is None and not self.is_plan and 0 <= index < len(self.moves):
                spot = spots[index]
            if spot is None:
                return ClickResult(refusal="That move is not on this card.")
            if self.spot_state(spot)[0] != "open" or index in self.blocked():
                return ClickResult(already=True)
            record: dict[str, str] = {}
            auto: dict[int, str] = {}
            if action == "approve":
                chosen = self.pick(spot)
                record[str(chosen)] = "approve"
                for i in spot.indexes:
                    if i != chosen:
                        auto[i] = f"another player chosen for #{spot.number}"
                for j in self.undecided(d):
                    if j not in spot.indexes and j not in auto and self.conflicts(chosen, j):
                        auto[j] = f"same player as #{spot.number}"
            else:
                record[str(spot.index)] = "decline"
                for i in spot.alternatives:
                    auto[i] = f"its spot was skipped (#{spot.number})"
            view = {**d, **record, **{str(j): "decline" for j in auto}}
            for later, k in self.blocked(view).items():
                ls = self.spot_of(later)
                for j in (ls.indexes if ls else (later,)):
                    if str(j) not in view:
                        auto[j] = f"needs #{k}"
                        view[str(j)] = "decline"
            closes = not self.undecided(view)
            return ClickResult(record=record, auto_declined=auto, closes=closes,
                               decisions=self._final(view) if closes else {})
        if action in ("approveall", "declineall", "approve", "decline"):
            verb = "approve" if action.startswith("approve") else "decline"
            view = dict(d)
            taken = [i for i in range(len(self.moves)) if self.decision(i, d) == "approve"]
            for s in spots:
                if self.spot_state(s, view)[0] != "open":
                    continue
                chosen = self.pick(s, view)
                ok = verb == "approve" and not any(self.conflicts(chosen, t) for t in taken)
                for i in s.indexes:
                    view[str(i)] = "approve" if ok and i == chosen else "decline"
                if ok:
                    taken.append(chosen)
            for later, _k in self.blocked(view).items():
                ls = self.spot_of(later)
                for j in (ls.indexes if ls else (later,)):
                    view[str(j)] = "decline"
            return ClickResult(closes=True, decisions=self._final(view))
        return ClickResult(refusal="That button is not one of this card's.")

    def _final(self, view: dict[str, str]) -> dict[str, str]:
        """Every move's decision (index -> approve|decline) of a closing card."""
        return {str(i): ("approve" if view.get(str(i)) == "approve" else "decline")
                for i in range(len(self.moves))}

    def confirm_text(self, action: ClickAction, index: int | None = None, *,
                     live: bool = False, schedule_later: bool = False,
                     writes: bool = False) -> str:
        """The confirmation shown before a click, saying exactly what it will do ("" when
        the click needs none: a skip, a menu choice). Approving one move of several only
        marks it (the moves are made when the card is decided); the click that decides the
        card makes them. `live`: a live league (FanVise hands the move to the member with
        the steps; it cannot write to ESPN). `schedule_later`: a move dated after today is
        scheduled for its day instead of made now. `writes` (a live league): FanVise makes
        the moves on ESPN for this member (they turned writes on)."""
        if action == "approve" and index is not None:
            spot = next((s for s in self.spots() if s.index == index), None)
            if spot is None:
                return ""
            res = self.click("approve", index)
            if not res.closes:
                shown = self.shown(spot, self._view(res))
                return _clip(f"Marks #{spot.number} ({shown.text()}) approved; nothing "
                             "is made until every move on this card is decided.", 300)
            targets = [self.moves[self.pick(spot)]]
            everything = list(self._made(res.decisions).values())
        elif action in ("approveall", "approve"):
            targets = [self.moves[self.pick(s)] for s in self.open_spots()]
            everything = list(self._made(self.click("approveall").decisions).values())
        else:
            return ""
        if not targets:
            return ""
        today = _today(self)
        later = [m for m in everything if schedule_later and m.day is not None
                 and today is not None and m.day > today]
        now = [m for m in everything if m not in later]
        released = list(dict.fromkeys(m.drop.name for m in everything if not m.drop_to_ir))
        who = (released[0] if len(released) == 1 else
               ", ".join(released[:-1]) + " and " + released[-1]) if released else ""
        risk = f" Dropped, {who} can be claimed by other teams." if who else ""

        def listed(ms: list[CardMove], days: bool = False) -> str:
            return "; ".join((f"{weekday_text(m.day)}: " if days and m.day else "") + m.text()
                             for m in ms[:2]) + ("; …" if len(ms) > 2 else "")

        def count(ms: list[CardMove]) -> str:
            return "the move" if len(ms) == 1 and len(everything) == 1 else \
                f"{len(ms)} move{'s' if len(ms) != 1 else ''}"

        parts = []
        if now:
            where = " on your ESPN team" if live and writes else ""
            parts.append(f"makes {count(now)}{where} now ({listed(now)})" if not live or writes
                         else f"gives you the steps and a link to make {count(now)} on ESPN "
                              f"now ({listed(now)}): FanVise does not change your ESPN roster")
        if later:
            days = ", ".join(dict.fromkeys(weekday_text(m.day) for m in later if m.day))
            parts.append(f"schedules {count(later)} for {'its' if len(later) == 1 else 'their'}"
                         f" day ({listed(later, days=True) if len(later) == 1 else days}), "
                         "re-checked that morning")
        how = "Decides the card: " + " and ".join(parts) + "." + \
            (" A player on waivers gets a claim put in." if live and writes else "") + risk
        return _clip(how, 300)

    def approved_text(self, index: int) -> str:
        """What happens to an approved move of a pending card (a plan is a schedule)."""
        m, today = self.moves[index], _today(self)
        if self.is_plan and m.day is not None and today is not None and m.day > today:
            return (f"Approved: made on {weekday_text(m.day)} (re-checked that morning) once "
                    "the card is decided.")
        return "Approved: made when the card is decided."

    def _view(self, res: ClickResult) -> dict[str, str]:
        """The decisions after a click that does not close the card."""
        view = dict(self.decisions)
        view.update(res.record)
        view.update({str(j): "decline" for j in res.auto_declined})
        return view

    def _made(self, decisions: dict[str, str]) -> dict[int, CardMove]:
        """{spot index: the move that would be made} for index decisions, in order: the
        chosen player, a chain's drop following its earlier spot's choice."""
        by_id = {m.move_id: k for k, m in enumerate(self.moves)}
        out: dict[int, CardMove] = {}
        for st in self.steps(self.resume_decisions(decisions)):
            if st.move is not None:
                out[by_id[st.spot.move_id]] = st.move
        return out

    def ended_on(self, today: date) -> date | None:
        """The last day of the matchup this plan card was made for, when `today` is past it
        (the card is out of date: its moves and lineups were for days that are over); else
        None (a card without a plan's dates never ends this way)."""
        if self.plan is None or not self.plan.dates:
            return None
        last = max(self.plan.dates)
        return last if today > last else None

    def resume_decisions(self, decisions: dict[str, str] | None = None) -> dict[str, str]:
        """{move_id: approve|decline} for every move, from index decisions (what the run
        is resumed with). Never two approved moves for one player: of approved moves that
        conflict, the first (a spot's plan pick before its other players) stays approved."""
        d = self.decisions if decisions is None else decisions
        out = {m.move_id: "decline" for m in self.moves}
        taken: list[int] = []
        for i, m in enumerate(self.moves):
            if d.get(str(i)) == "approve" and not any(self.conflicts(i, t) for t in taken):
                out[m.move_id] = "approve"
                taken.append(i)
        return out

    def resolve(self, decision: str | dict[str, str]) -> dict[str, str]:
        """{move_id: approve|decline} for every move from "approve" / "decline" (the plan's
        pick of every spot / nothing) or {move_id: decision} (unlisted: declined). Raises
        ValueError on an unknown move or word, or when two approved moves conflict."""
        if isinstance(decision, str):
            word = decision.strip().lower()
            if word not in ("approve", "decline"):
                raise ValueError("Decision must be 'approve' or 'decline'.")
            res = self.click("approveall" if word == "approve" else "declineall")
            return self.resume_decisions(res.decisions)
        ids = {m.move_id for m in self.moves}
        out = {m.move_id: "decline" for m in self.moves}
        for mid, v in decision.items():
            word = str(v).strip().lower()
            if str(mid) not in ids:
                raise ValueError(f"Unknown move {mid!r} for this card.")
            if word not in ("approve", "decline"):
                raise ValueError("Decision must be 'approve' or 'decline'.")
            out[str(mid)] = word
        approved = [i for i, m in enumerate(self.moves) if out[m.move_id] == "approve"]
        for a in approved:
            for b in approved:
                if a < b and self.conflicts(a, b):
                    raise ValueError(f"Moves {a + 1} and {b + 1} both "
                                     f"{'drop ' + self.moves[a].drop.name if self.moves[a].drop.id == self.moves[b].drop.id else 'add ' + self.moves[a].add.name}"  # noqa: E501
                                     ": approve only one of them.")
        return out

    # ------------------------------------------------------------------ making moves

    def steps(self, decisions: dict[str, str]) -> list[Step]:
        """The spots of a decided card in order, as the graph makes them (`decisions`:
        {move_id: approve|decline}). A plan spot makes its approved move (its chosen
        player); a chain move drops the player chosen for its earlier spot. A ranked card:
        each approved move, never two for the same player (`move` None: not made)."""
        out: list[Step] = []
        if not self.is_plan:
            taken: list[CardMove] = []
            for m in self.moves:
                ok = decisions.get(m.move_id) == "approve"
                if ok and any(m.conflicts(t) for t in taken):
                    out.append(Step(spot=m, move=None, conflict=True))
                    continue
                out.append(Step(spot=m, move=m if ok else None))
                if ok:
                    taken.append(m)
            return out
        spots = self.spots()
        made_add: dict[int, PlayerRef] = {}  # plan add id -> player added in its place
        plan_adds = {self.moves[s.index].add.id for s in spots}
        for s in spots:
            orig = self.moves[s.index]
            chosen = next((self.moves[i] for i in s.indexes
                           if decisions.get(self.moves[i].move_id) == "approve"), None)
            needs = orig.drop.id if orig.drop.id in plan_adds and orig.drop.id != orig.add.id \
                else None
            if chosen is None:
                out.append(Step(spot=orig, move=None, needs=needs))
                continue
            drop = made_add.get(orig.drop.id, chosen.drop)
            move = chosen.model_copy(update={"drop": drop})
            out.append(Step(spot=orig, move=move, needs=needs))
            made_add[orig.add.id] = chosen.add
        return out

    def set_outcomes(self, outcomes: Iterable[MoveOutcome]) -> MoveCard:
        """This card with the outcomes of its moves (keyed by the id of the move made, an
        alternative's when one was chosen; outcomes of moves not on the card are left)."""
        ids = {m.move_id for m in self.moves}
        ocs = dict(self.outcomes)
        for oc in outcomes:
            if oc.move_id in ids or oc.plan_move_id in ids:
                ocs[oc.move_id if oc.move_id in ids else oc.plan_move_id] = oc
        return self.model_copy(update={"outcomes": ocs})

    def how_text(self, *, live: bool = False, schedule_later: bool = False,
                 approve_all: bool = True, writes: bool = False) -> str:
        """How the pending card's controls work, in one line (every surface shows it).
        `approve_all`: the card has an approve-all button."""
        spots = self.spots()
        today = _today(self)
        only = self.moves[self.pick(spots[0])] if len(spots) == 1 else None
        if only is not None and schedule_later and only.day is not None \
                and today is not None and only.day > today:
            s = (f"Approve decides this card and schedules the move for "
                 f"{weekday_text(only.day)} (re-checked that morning)")
        elif only is not None:
            s = "Approve decides this card and makes the move now"
        elif self.is_plan:
            s = ("A menu only chooses the player for its move. Approve #k marks a move and "
                 "Skip #k skips it; nothing is made until every move is decided. Approve "
                 "plan decides the rest and makes the approved moves now")
        else:
            s = ("Approve #k marks a move (the others for the same player are declined) and "
                 "Decline #k declines it; the approved moves are made once every move is "
                 "decided" + (". Approve all decides the rest and makes them now"
                              if approve_all else ""))
        if schedule_later and len(self.spots()) > 1:
            s += " (a move dated later: on its day)"
        if live and writes:
            s += ", on your ESPN team"
        elif live:
            s += ": on ESPN, by you, with the steps and link FanVise gives"
        return s + "."

    # ------------------------------------------------------------------ outcomes

    def outcome_of(self, spot: Spot) -> MoveOutcome | None:
        """The outcome recorded for a spot (under any of its moves' ids)."""
        for i in spot.indexes:
            oc = self.outcomes.get(self.moves[i].move_id)
            if oc is not None:
                return oc
        return None

    def counts(self) -> dict[str, int]:
        """How many spots were applied / scheduled / are waiting for ESPN / were skipped /
        were not possible (a decided card's footer)."""
        out = {"applied": 0, "scheduled": 0, "waiting": 0, "skipped": 0, "not_possible": 0}
        blocked = self.blocked()
        for s in self.spots():
            oc = self.outcome_of(s)
            state, _ = self.spot_state(s)
            if oc is not None and oc.status in out:
                out[oc.status] += 1
            elif oc is None and (state == "skipped" or s.index in blocked):
                out["skipped"] += 1
            elif oc is None and state == "approved":
                continue  # decided, outcome unknown (not counted as anything)
            elif oc is not None and oc.status == "pending":
                continue
            elif oc is None:
                continue
        return out

    def status(self) -> str:
        """The stored status of a decided card: approved (every spot made or on its way),
        partial, declined (nothing approved), failed (approved, nothing could be made)."""
        spots = self.spots()
        if not self.outcomes:
            chosen = sum(1 for s in spots if self.spot_state(s)[0] == "approved")
            return "declined" if not chosen else "approved" if chosen == len(spots) \
                else "partial"
        c = self.counts()
        made = c["applied"] + c["scheduled"] + c["waiting"]
        if not made:
            return "declined" if c["not_possible"] == 0 else "failed"
        return "approved" if made == len(spots) else "partial"

    def footer(self, status: str, name: str) -> str:
        """"Decided by Ana: 1 applied, 2 skipped by you" (exactly what happened)."""
        c = self.counts()
        words = [(c["applied"], "applied"), (c["scheduled"], "scheduled"),
                 (c["waiting"], "waiting for ESPN"), (c["skipped"], "skipped by you"),
                 (c["not_possible"], "not possible")]
        parts = [f"{n} {w}" for n, w in words if n]
        return f"Decided by {name}: " + (", ".join(parts) if parts else "nothing to do")

    def outcome_lines(self, outcomes: Sequence[MoveOutcome] | None = None) -> list[str]:
        """Each decided move with what happened to it (an answer's lines)."""
        out = []
        for oc in (outcomes if outcomes is not None else list(self.outcomes.values())):
            what = oc.line or (move_text(oc.drop.name, oc.add.name)
                               if oc.drop and oc.add else oc.move_id)
            if oc.status != "applied" and oc.drop and oc.add:
                what = move_text(oc.drop.name, oc.add.name)
            out.append(oc.line_text(what))
        return out


def round_(x: float) -> float:
    return round(float(x), 3)


def _today(card: MoveCard) -> date | None:
    """The card's first day (today, when it was planned)."""
    if card.plan is not None and card.plan.dates:
        return card.plan.dates[0]
    days = [m.day for m in card.moves if m.day is not None]
    return min(days) if days else None


__all__ = ["Chain", "CardMove", "ClickResult", "MoveCard", "MoveOutcome", "OutcomeStatus",
           "PICK_PREFIX", "Spot", "Step"]
