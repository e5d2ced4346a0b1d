"""OptimizerService: the deterministic optimizer API the agents call.

Works for points leagues (expected fantasy points) and category leagues (expected categories
won against the team's current matchup opponent; roto: against the average other team).
All results are dataclasses with `to_dict()` returning plain JSON-able data.

Planning window: the remaining days of the current matchup from `today` (inclusive); when none
are left, the next 7 days.  Moves take effect from today (`adds_effective_today=True`) or
tomorrow.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

import numpy as np

from fantasy.constants import (
    OUT_STATUSES,
    PERCENTAGE_STATS,
    REVERSE_STATS,
    SLOT_BENCH,
    SLOT_C,
    SLOT_IR,
    SLOT_PF,
    SLOT_PG,
    SLOT_SF,
    SLOT_SG,
    STARTING_SLOTS,
    STAT_IDS,
    UNCERTAIN_STATUSES,
    ScoringType,
    stat_name,
)
from fantasy.formatting import day_text
from fantasy.models import League, Player, ProSchedule, RosterEntry, Team
from fantasy.moves import (
    CATEGORIES_UNIT,
    POINTS_UNIT,
    Alternative,
    Move,
    Plan,
    move_id,
)
from fantasy.moves import (
    Hold as MoveHold,
)
from fantasy.moves import PlayerRef as MovePlayer
from fantasy.optimizer.categories import (
    DEFAULT_DISPERSION,
    Category,
    Matchup,
    baseline_weights,
    plan_categories,
    scan_categories,
    win_probabilities,
)
from fantasy.optimizer.focus import focus_scores, per_game_impact
from fantasy.optimizer.guardrails import (
    HOLD_WINDOW_DAYS,
    acquisition_budget,
    protected_players,
)
from fantasy.optimizer.lineup import (
    Candidate,
    SlotLayout,
    best_lineup,
    keep_slots,
    place,
    slot_name,
)
from fantasy.optimizer.multimove import plan_moves
from fantasy.optimizer.plan import (
    DayLineups,
    PlanStep,
    apply_steps,
    best_plan,
    evaluate_members,
    prune_pool,
    terminal_value,
)
from fantasy.optimizer.scan import scan_points
from fantasy.optimizer.season import CORE_MARGIN_MIN, CORE_TOP_N, SeasonValues, season_values
from fantasy.optimizer.week import plan_week, plan_week_pulp
from fantasy.projections import (
    Projection,
    claim_clears,
    play_probability,
    project,
    raw_stat_columns,
)

FA_LIMIT = 50
MAX_PLAN_MOVES = 7  # a plan never has more moves than this (one a day in a 7-day matchup)
MIN_GAIN_POINTS = 1e-6
MIN_GAIN_CATS = 1e-4


def _jsonable(v: Any) -> Any:
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return {f.name: _jsonable(getattr(v, f.name)) for f in dataclasses.fields(v)}
    if isinstance(v, date):
        return v.isoformat()
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, (np.floating, float)):
        return round(float(v), 4)
    if isinstance(v, np.integer):
        return int(v)
    return v


class _Result:
    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict (ISO dates, floats rounded to 4 places)."""
        return _jsonable(self)


@dataclass
class PlayerRef(_Result):
    id: int
    name: str


@dataclass
class SlotStarter(_Result):
    slot_id: int
    slot: str
    player_id: int
    name: str
    value: float
    injury_status: str = "ACTIVE"


@dataclass
class BenchedPlayer(_Result):
    """A benched player and why (`fantasy.optimizer.lineup.BenchEntry`: the reason, and when
    he is outscored its parts, for answers that word the values their own way)."""

    player_id: int
    name: str
    value: float
    reason: str
    outscored_by: list[tuple[str, float]] = field(default_factory=list)
    more_outscoring: int = 0
    eligible_at: list[str] = field(default_factory=list)


@dataclass
class LineupChange(_Result):
    """One player whose slot differs between ESPN's current lineup and the optimal one.

    `needed` is False for a change that changes nothing: moving a player who scores nothing
    that day (no game, out) to the bench when no one needs his slot."""

    player_id: int
    name: str
    from_slot: str
    to_slot: str
    plays: bool = True
    value: float = 0.0
    injury_status: str = "ACTIVE"
    needed: bool = True


@dataclass
class DailyLineupResult(_Result):
    """Optimal lineup for one day; `value_unit` says what `value` measures."""

    team_id: int
    date: date
    scoring_period: int
    value_unit: str
    starters: list[SlotStarter]
    bench: list[BenchedPlayer]
    total_value: float
    current_total_value: float
    injured_starters: list[SlotStarter]
    changes: list[LineupChange]
    notes: list[str] = field(default_factory=list)
    #: the league's starting slots in order, one entry per slot ("UT" three times for 3 UT)
    slots: list[str] = field(default_factory=list)


@dataclass
class DayPlan(_Result):
    date: date
    starters: list[SlotStarter]
    value: float
    games: int


@dataclass
class CategoryOutlook(_Result):
    name: str
    stat_id: int
    my_total: float
    opponent_total: float
    win_probability: float


@dataclass
class WeeklyPlanResult(_Result):
    team_id: int
    opponent_team_id: int | None
    dates: list[date]
    value_unit: str
    days: list[DayPlan]
    games_played: int
    total_points: float | None = None
    expected_categories_won: float | None = None
    categories: list[CategoryOutlook] = field(default_factory=list)
    moves_applied: list[dict[str, Any]] = field(default_factory=list)
    current_points: float | None = None
    projected_final_points: float | None = None
    opponent_current_points: float | None = None
    opponent_projected_points: float | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class MoveSuggestion(_Result):
    move_id: str
    drop: PlayerRef
    add: PlayerRef
    expected_gain: float
    gain_unit: str
    games_added: int
    confidence: str
    reasons: list[str]


@dataclass
class FocusMove(MoveSuggestion):
    """A move ranked by named categories: `expected_gain` is the category score (see
    fantasy.optimizer.focus), `category_delta` the added production per category over the rest
    of the matchup, `plan_delta` the exact weekly plan's change in `plan_unit`."""

    category_delta: dict[str, float] = field(default_factory=dict)
    plan_delta: float = 0.0
    plan_unit: str = ""


@dataclass
class MoveEvaluation(_Result):
    """One named move evaluated exactly: allowed?, plan value without and with it, the gain.

    verdict: "gain" (allowed, the plan improves), "no_gain" (allowed, it does not),
    "not_allowed" (`reason` says why). With no drop named, `drop` is the best drop found
    (`drop_chosen`), or None when no drop makes the add worth it; with no add named, the same
    for the best add (`add_chosen`). `alternative`: the best add for the same drop when it
    beats this one. `protected`: why the named drop is normally held (a caution)."""

    team_id: int
    drop: PlayerRef | None
    add: PlayerRef | None
    verdict: str
    reason: str
    gain_unit: str
    base_value: float | None = None
    planned_value: float | None = None
    expected_gain: float | None = None
    games_added: int = 0
    confidence: str = ""
    reasons: list[str] = field(default_factory=list)
    drop_chosen: bool = False
    add_chosen: bool = False
    alternative: MoveSuggestion | None = None
    acquisitions_remaining: int | None = None
    protected: str = ""
    notes: list[str] = field(default_factory=list)
    # the rest of the season (the added player kept): season_effect = his rest-of-season
    # value minus the dropped player's, in the plan's unit; overall = expected_gain + it
    season_effect: float = 0.0
    overall: float | None = None
    drop_ros_per_game: float | None = None
    add_ros_per_game: float | None = None
    drop_ros_games: int = 0
    add_ros_games: int = 0
    per_game_unit: str = ""
    core: str = ""  # why the named drop is a core player ("" when he is replaceable)
    warning: str = ""  # the move projects worse: this week's and the season's effect
    drop_to_ir: bool = False  # no drop named and the IR slot free: the OUT player goes there


@dataclass
class Hold(_Result):
    player: PlayerRef
    reason: str


@dataclass
class MoveScanResult(_Result):
    team_id: int
    scoring: str
    gain_unit: str
    base_value: float
    moves: list[MoveSuggestion]
    holds: list[Hold]
    message: str
    acquisitions_remaining: int | None
    acquisition_limit: int | None
    pairs_evaluated: int
    dates: list[date]
    notes: list[str] = field(default_factory=list)


@dataclass
class PlannedMoveOut(_Result):
    date: date
    drop: PlayerRef
    add: PlayerRef


@dataclass
class MultiMovePlanResult(_Result):
    team_id: int
    k: int
    gain_unit: str
    moves: list[PlannedMoveOut]
    base_value: float
    planned_value: float
    expected_gain: float
    message: str
    acquisitions_remaining: int | None
    dates: list[date]
    notes: list[str] = field(default_factory=list)


@dataclass
class _PlanInputs:
    """What OptimizerService solves a plan on (see _plan_inputs)."""

    team: Team
    active: list[Player]
    pool: list[Player]
    u: _Universe
    values: np.ndarray
    m: Matchup | None
    cats: list[Category]
    focus: list[str]
    per_game: dict[int, float]
    label: str
    notes: list[str]
    roster_rows: list[int]
    pool_rows: list[int]
    season: SeasonValues
    ir_rows: list[int]
    ir_free: int
    season_pg: np.ndarray  # value per game in the plan's unit (points / the gradient)


@dataclass
class _Universe:
    """Arrays over the planning days for a set of players (row = player)."""

    dates: list[date]
    players: list[Player]
    index: dict[int, int]
    masks: list[int]
    keys: list[int]
    prob: np.ndarray      # (n, D) P(plays) on days his team has a game, else 0
    per_game_value: np.ndarray  # (n,) points per game (points) / 0
    stats: np.ndarray | None  # (n, D, K) expected raw stats (prob included)

    def cat_stats(self) -> np.ndarray:
        """`stats`, which the universe of a category league always has."""
        if self.stats is None:
            raise ValueError("a points league's universe has no category stats")
        return self.stats


def _lineup_changes(roster: Sequence[Any], new_slot: dict[int, int], val: dict[int, float],
                    playing: set[int] | frozenset[int], layout: SlotLayout) -> list[LineupChange]:
    """Every slot difference between ESPN's lineup (`roster` entries) and the optimal one
    (`new_slot`: player id -> starting slot), each marked `needed` or not. Benching a starter
    who scores nothing that day is needed only when a newcomer needs his slot: per slot type,
    the arrivals beyond the free places and the places left by the other departures."""
    changes: list[LineupChange] = []
    idle: dict[int, list[LineupChange]] = {}  # slot id -> benched starters who score nothing
    arrivals: dict[int, int] = {}
    leaving: dict[int, int] = {}
    for e in roster:
        p, cur = e.player, e.lineup_slot_id
        to = new_slot.get(p.id, SLOT_IR if cur == SLOT_IR else SLOT_BENCH)
        was_starting = cur in STARTING_SLOTS
        if (to in STARTING_SLOTS) == was_starting and (not was_starting or to == cur):
            continue
        plays = p.pro_team_id in playing
        ch = LineupChange(p.id, p.name, slot_name(cur), slot_name(to), plays=plays,
                          value=float(val.get(p.id, 0.0)), injury_status=p.injury_status or "ACTIVE")
        changes.append(ch)
        if to in STARTING_SLOTS:
            arrivals[to] = arrivals.get(to, 0) + 1
        if was_starting:
            scores = plays and ch.value > 0 and ch.injury_status not in OUT_STATUSES
            if to in STARTING_SLOTS or scores:
                leaving[cur] = leaving.get(cur, 0) + 1
            else:
                ch.needed = False
                idle.setdefault(cur, []).append(ch)
    occupied: dict[int, int] = {}
    for e in roster:
        occupied[e.lineup_slot_id] = occupied.get(e.lineup_slot_id, 0) + 1
    caps = dict(zip(layout.slot_ids, layout.caps, strict=True))
    for sid, benched in idle.items():
        free = caps.get(sid, 0) - occupied.get(sid, 0)
        need = arrivals.get(sid, 0) - max(free, 0) - leaving.get(sid, 0)
        for ch in benched[:max(need, 0)]:
            ch.needed = True
    return changes


def _status_notes(drop: Player, add: Player) -> list[str]:
    """A move's status reasons: the dropped player's injury, the added player's injury and
    waiver claim date."""
    out = []
    if drop.injury_status != "ACTIVE":
        out.append(f"{drop.name} is {_status_word(drop.injury_status)}")
    if add.injury_status != "ACTIVE":
        out.append(f"note: {add.name} is {_status_word(add.injury_status)}")
    if add.status == "WAIVERS":
        when = day_text(add.waiver_process_date) if add.waiver_process_date else "later"
        out.append(f"note: {add.name} is on waivers (his claim clears {when})")
    return out


def _status_word(status: str) -> str:
    """ESPN's injury status as a member reads it: OUT stays OUT, DAY_TO_DAY -> day-to-day."""
    return status if status == "OUT" else status.replace("_", "-").lower()


def _injury_notes(drop: Player, add: Player) -> list[str]:
    """_status_notes with the expected return date of an injured player."""
    out = []
    for line in _status_notes(drop, add):
        p = drop if line.startswith(drop.name) else add
        if p.expected_return_date and p.injury_status != "ACTIVE" and "waivers" not in line:
            line += f", expected back {day_text(p.expected_return_date)}"
        out.append(line)
    return out


class OptimizerService:
    """Deterministic optimizer over one league snapshot (see module docstring)."""

    def __init__(self, league: League, schedule: ProSchedule, free_agents: Sequence[Player], *,
                 today: date | None = None, untouchable: Iterable[int] = (),
                 adds_effective_today: bool = True, fa_limit: int = FA_LIMIT):
        self.league = league
        self.settings = league.settings
        self.schedule = schedule
        self.today = today or league.today
        self.untouchable = set(untouchable)
        self.first_day = 0 if adds_effective_today else 1
        self.layout = SlotLayout.from_counts(self.settings.lineup_slot_counts)
        self.is_points = self.settings.scoring_type is ScoringType.POINTS
        rostered = league.all_rostered_player_ids()
        self.free_agents = [p for p in free_agents if p.id not in rostered]
        self.fa_limit = fa_limit
        self.dates, self.window_note = self._window()
        self._playing = [schedule.teams_playing_on(d) for d in self.dates]
        self._proj: dict[int, Projection] = {}
        self._scans: dict[tuple, MoveScanResult] = {}
        self._plans: dict[tuple, Plan] = {}
        if not self.is_points:
            cat_ids = [i.stat_id for i in self.settings.scoring_items]
            self.cat_ids = cat_ids
            self.columns = raw_stat_columns(cat_ids)
            col = {s: k for k, s in enumerate(self.columns)}
            rev = self.settings.reverse_categories
            self.cats = []
            for s in cat_ids:
                name = stat_name(s)
                if s in PERCENTAGE_STATS:
                    made, att = PERCENTAGE_STATS[s]
                    self.cats.append(Category(name, col[made], col[att], s in rev))
                else:
                    self.cats.append(Category(name, col[s], None, s in rev,
                                              DEFAULT_DISPERSION.get(name, 1.5)))

    # ------------------------------------------------------------------ building blocks

    def _window(self) -> tuple[list[date], str]:
        dates = self.league.remaining_dates(today=self.today)
        if dates:
            return dates, ""
        return ([self.today + timedelta(days=k) for k in range(7)],
                "no days left in the current matchup: planning the next 7 days")

    def _projection(self, p: Player) -> Projection:
        if p.id not in self._proj:
            self._proj[p.id] = project(p, as_of=self.today)
        return self._proj[p.id]

    def _per_game_points(self, p: Player) -> float:
        return max(self._projection(p).points(self.settings.scoring_weights), 0.0)

    def _universe(self, players: Sequence[Player]) -> _Universe:
        n, n_days = len(players), len(self.dates)
        prob = np.zeros((n, n_days))
        for i, p in enumerate(players):
            clears = claim_clears(p)  # a waiver claim plays only once it clears
            for d, day in enumerate(self.dates):
                if p.pro_team_id in self._playing[d] and (clears is None or day >= clears):
                    prob[i, d] = play_probability(p, day)
        stats = None
        ppg = np.zeros(n)
        if self.is_points:
            ppg = np.array([self._per_game_points(p) for p in players])
        else:
            per = np.array([[self._projection(p).per_game.get(s, 0.0) for s in self.columns]
                            for p in players]).reshape(n, len(self.columns))
            stats = prob[:, :, None] * per[:, None, :]
        return _Universe(list(self.dates), list(players), {p.id: i for i, p in enumerate(players)},
                         [self.layout.mask(p.eligible_slots) for p in players],
                         [p.id for p in players], prob, ppg, stats)

    def _team(self, team_id: int) -> Team:
        return self.league.team(team_id)

    @staticmethod
    def _active(team: Team) -> list[Player]:
        return [e.player for e in team.roster if e.lineup_slot_id != SLOT_IR]

    def _candidate_pool(self, position: int | None = None) -> list[Player]:
        fas = [p for p in self.free_agents
               if not (p.injury_status in OUT_STATUSES and p.expected_return_date is None)]
        if position is not None:
            fas = [p for p in fas if position in p.eligible_slots]
        u = self._universe(fas)
        if self.is_points:
            score = (u.prob * u.per_game_value[:, None]).sum(axis=1)
        else:
            z = self._cat_star_values(u)
            zmin = min(z.values(), default=0.0)
            score = u.prob.sum(axis=1) * np.array([z[p.id] - zmin + 0.1 for p in fas])
        order = sorted(range(len(fas)), key=lambda i: (-score[i], fas[i].id))
        return [fas[i] for i in order[: self.fa_limit]]

    def _matchup(self, team_id: int, u_opp: _Universe | None, opp_team: Team | None) -> Matchup:
        """Current totals of both sides + the opponent's projected remaining totals."""
        k = len(self.columns)
        cur_me, cur_opp = np.zeros(k), np.zeros(k)
        m = self.league.current_matchup(team_id)
        if m is not None:
            me = m.side_for(team_id)
            other = m.opponent_side(team_id)
            for side, arr in ((me, cur_me), (other, cur_opp)):
                if side is None:
                    continue
                for c, s in enumerate(self.columns):
                    if s in side.categories:
                        arr[c] = side.categories[s].score
        if u_opp is None or opp_team is None:
            return Matchup(cur_me, cur_opp, np.zeros(k))
        w = self._opponent_weights(u_opp)
        members = [u_opp.index[p.id] for p in self._active(opp_team)]
        plan = plan_categories(u_opp.cat_stats(), u_opp.prob > 0, u_opp.masks, self.layout.caps,
                               u_opp.keys, members, w)
        return Matchup(cur_me, cur_opp, plan.total)

    def _opponent_weights(self, u: _Universe) -> np.ndarray:
        """Heuristic linear value for the OPPONENT's own lineup choice (z-like: 1 / mean)."""
        per = u.cat_stats().sum(axis=1) / np.maximum(u.prob.sum(axis=1), 1e-9)[:, None]
        mean = np.maximum(per.mean(axis=0), 1e-6) if len(per) else np.ones(len(self.columns))
        w = np.zeros(len(self.columns))
        for c in self.cats:
            if c.is_pct:
                pbar = per[:, c.stat].sum() / max(per[:, c.attempts].sum(), 1e-9)
                scale = 0.1 * mean[c.attempts]
                w[c.stat] += 1 / scale
                w[c.attempts] -= pbar / scale
            else:
                w[c.stat] += (-1 if c.reverse else 1) / mean[c.stat]
        return w

    def _cat_context(self, team_id: int, extra: Sequence[Player] = ()):
        team = self._team(team_id)
        opp = self.league.opponent_of(team_id)
        note = ""
        if opp is None and self.settings.scoring_type is ScoringType.ROTO:
            note = "roto league: compared with the average other team"
        mine = [e.player for e in team.roster]
        u = self._universe(mine + [p for p in extra if p.id not in {q.id for q in mine}])
        if opp is not None:
            u_opp = self._universe([e.player for e in opp.roster])
            m = self._matchup(team_id, u_opp, opp)
        else:
            others = [t for t in self.league.teams if t.id != team_id]
            rem = np.zeros(len(self.columns))
            for t in others:
                uo = self._universe([e.player for e in t.roster])
                rem += self._matchup(team_id, uo, t).opp_remaining
            m = self._matchup(team_id, None, None)
            m = Matchup(m.my_current, m.opp_current, rem / max(len(others), 1))
            if not note:
                note = "no head-to-head opponent this period: compared with the average team"
        return team, opp, u, m, note

    def _plays(self, u: _Universe) -> np.ndarray:
        return u.prob > 0

    def _values_points(self, u: _Universe) -> np.ndarray:
        return u.prob * u.per_game_value[:, None]

    def _starters_out(self, u: _Universe, values_row: np.ndarray, assign_types: dict[int, int]
                      ) -> list[SlotStarter]:
        out = []
        for i, t in sorted(assign_types.items(), key=lambda it: (it[1], -values_row[it[0]], it[0])):
            p = u.players[i]
            sid = self.layout.slot_ids[t]
            out.append(SlotStarter(sid, slot_name(sid), p.id, p.name, float(values_row[i]),
                                   p.injury_status))
        return out

    # ------------------------------------------------------------------ public API

    def daily_lineup(self, team_id: int, day: date | None = None,
                     planned: Sequence[Move] = ()) -> DailyLineupResult:
        """Exact optimal lineup for `day` (default today) with reasons for every benched player,
        injured players in ESPN's current lineup, and the changes from the current lineup.
        planned: the team's scheduled moves; those made by `day` change its roster (the
        lineup the week plan will set that day)."""
        day = day or self.today
        team = self._team(team_id)
        made = [m for m in sorted(planned, key=lambda m: m.day) if m.day <= day]
        if made:
            team = self._team_after(team, made)
        players = [e.player for e in team.roster]
        playing = self.schedule.teams_playing_on(day)
        notes = []
        if self.is_points:
            unit = "fantasy points"
            val = {p.id: self._per_game_points(p) * play_probability(p, day) for p in players}
        else:
            unit = "category value (linearised expected categories won)"
            real = {e.player.id for e in self._team(team_id).roster}
            _, _, u, m, note = self._cat_context(
                team_id, [p for p in players if p.id not in real])  # + the scheduled adds
            if note:
                notes.append(note)
            roster_rows = [u.index[p.id] for p in self._active(team)]
            w, _ = baseline_weights(self.cats, u.stats, self._plays(u), u.masks,
                                    self.layout.caps, u.keys, roster_rows, m) \
                if roster_rows else (np.zeros(len(self.columns)), None)
            per = {p.id: np.array([self._projection(p).per_game.get(s, 0.0)
                                   for s in self.columns]) for p in players}
            val = {p.id: max(float(per[p.id] @ w), 0.0) * play_probability(p, day)
                   for p in players}
        entries = {e.player.id: e for e in team.roster}
        cands = [Candidate(p.id, val[p.id], tuple(p.eligible_slots),
                           plays=p.pro_team_id in playing, injury_status=p.injury_status,
                           on_ir=entries[p.id].lineup_slot_id == SLOT_IR, name=p.name)
                 for p in players]
        lineup = best_lineup(cands, self.layout)
        # of the equivalent placements, the one that moves the fewest starters
        lineup.starters = keep_slots(lineup.starters, {p.id: p.eligible_slots for p in players},
                                     {pid: e.lineup_slot_id for pid, e in entries.items()},
                                     self.layout)
        by_id = {p.id: p for p in players}
        starters = [SlotStarter(s, slot_name(s), pid, by_id[pid].name, val[pid],
                                by_id[pid].injury_status)
                    for s, ids in lineup.starters.items() for pid in ids]
        bench = [BenchedPlayer(b.player_id, b.name, b.value, b.reason, list(b.outscored_by),
                               b.more_outscoring, list(b.eligible_at)) for b in lineup.bench]
        current = [e for e in team.roster if e.lineup_slot_id in STARTING_SLOTS]
        cur_total = sum(val[e.player.id] for e in current if e.player.pro_team_id in playing)
        injured = [SlotStarter(e.lineup_slot_id, slot_name(e.lineup_slot_id), e.player.id,
                               e.player.name, val[e.player.id], e.player.injury_status)
                   for e in current
                   if e.player.injury_status in OUT_STATUSES | UNCERTAIN_STATUSES]
        new_slot = {pid: s for s, ids in lineup.starters.items() for pid in ids}
        changes = _lineup_changes(team.roster, new_slot, val, playing, self.layout)
        if day != self.today:
            notes.append("current ESPN slots are today's; the diff compares with them")
        if made:
            notes.append("with your scheduled moves made by then: " + "; ".join(
                f"{m.weekday} {m.text()}" for m in made))
        sp = self.schedule.scoring_period_for(day)
        slots = [slot_name(sid) for sid, cap in zip(self.layout.slot_ids, self.layout.caps,
                                                     strict=True) for _ in range(cap)]
        return DailyLineupResult(team_id, day, sp, unit, starters, bench, lineup.total, cur_total,
                                 injured, changes, notes, slots)

    def _team_after(self, team: Team, made: Sequence[Move]) -> Team:
        """The team's roster once scheduled moves are made: each drop leaves (an IR move
        goes to the IR slot), each add joins on the bench (as ESPN puts him)."""
        fa = {p.id: p for p in self.free_agents}
        roster = list(team.roster)
        for m in made:
            add = fa.get(m.add.id)
            if add is None:
                continue  # not a free agent any more: the move cannot be made as planned
            out = next((e for e in roster if e.player.id == m.drop.id), None)
            if out is not None:
                roster.remove(out)
                if m.drop_to_ir:
                    roster.append(dataclasses.replace(out, lineup_slot_id=SLOT_IR))
            roster.append(RosterEntry(player=add, lineup_slot_id=SLOT_BENCH))
        return dataclasses.replace(team, roster=roster)

    def weekly_plan(self, team_id: int, moves: Iterable[Any] = ()) -> WeeklyPlanResult:
        """Optimal lineups for every remaining day, optionally with moves applied from the
        first move day.  moves: (drop_id, add_id) pairs or dicts with "drop"/"add" ids; a
        move with a day (a `Move`, a dict with "day", a (drop, add, day) triple) counts from
        that day on, and may drop a player an earlier move adds (a streaming chain), so an
        approved schedule is valued exactly as the plan that proposed it."""
        team = self._team(team_id)
        pairs = [_pair(mv) for mv in moves]
        starts = [self._move_start(mv) for mv in moves]
        fa_by_id = {p.id: p for p in self.free_agents}
        notes = [self.window_note] if self.window_note else []
        adds = []
        for _, a in pairs:
            if a not in fa_by_id:
                raise ValueError(f"player {a} is not an available free agent")
            adds.append(fa_by_id[a])
        roster_ids = {e.player.id for e in team.roster}
        begin = [self.first_day if s is None else s for s in starts]  # undated: first move day
        for k, (dr, _) in enumerate(pairs):
            chained = any(a == dr and begin[j] <= begin[k] for j, (_, a) in enumerate(pairs)
                          if j != k)
            if dr not in roster_ids and not chained:
                raise ValueError(f"player {dr} is not on team {team_id}'s roster")
        active = self._active(team)
        opp = self.league.opponent_of(team_id)
        if self.is_points:
            u = self._universe(active + adds)
            values = self._values_points(u)
        else:
            _, _, u, m, note = self._cat_context(team_id, adds)
            if note:
                notes.append(note)
            base_rows = [u.index[p.id] for p in active]
            w, _ = baseline_weights(self.cats, u.stats, self._plays(u), u.masks,
                                    self.layout.caps, u.keys, base_rows, m)
            values = np.maximum(np.einsum("idk,k->id", u.stats, w), 0.0) * self._plays(u)
        rows = self._member_rows(u, active, pairs, starts)
        day_vals = np.array([[values[i, d] if i in rows[d] else 0.0 for d in range(len(self.dates))]
                             for i in range(len(u.players))])
        caps_by_slot = self._slot_games_caps(team_id)
        if caps_by_slot:
            plan = plan_week_pulp(day_vals.tolist(), u.masks, self.layout.caps,
                                  slot_caps=caps_by_slot)
            notes.append("games-played limits applied per slot (PuLP model)")
        else:
            plan = plan_week(day_vals.tolist(), u.masks, self.layout.caps, u.keys)
        days = []
        for d, day in enumerate(self.dates):
            assign = {i: t for i, t in enumerate(plan.assignments[d]) if t >= 0}
            days.append(DayPlan(day, self._starters_out(u, values[:, d], assign),
                                plan.day_totals[d], len(assign)))
        res = WeeklyPlanResult(team_id, opp.id if opp else None, list(self.dates),
                               "fantasy points" if self.is_points else "category value",
                               days, plan.starts, notes=notes,
                               moves_applied=[{"drop": a, "add": b} for a, b in pairs])
        if self.is_points:
            res.total_points = plan.total
            self._points_outlook(team_id, res, opp)
        else:
            tot = np.zeros(len(self.columns))
            for d in range(len(self.dates)):
                st = [i for i, t in enumerate(plan.assignments[d]) if t >= 0]
                if st:
                    tot += u.cat_stats()[st, d].sum(axis=0)
            probs = win_probabilities(self.cats, tot, m)
            res.expected_categories_won = float(probs.sum())
            res.categories = [self._outlook(c, s, tot, m, float(pw))
                              for c, s, pw in zip(self.cats, self.cat_ids, probs, strict=True)]
        return res

    def scan_moves(self, team_id: int, *, top: int = 10, position: int | None = None,
                   target_categories: list[str] | None = None,
                   drops: Iterable[int] | None = None,
                   adds: Iterable[int] | None = None) -> MoveScanResult:
        """Rank every (drop, add) pair by the exact gain of the optimal plan with vs without it.

        drops: only these drop candidates (named by the member, so protection does not apply);
        adds: only these free agents (outside the ranked pool too).

        A service is one league snapshot, so a scan is computed once per team and arguments
        (`/lineup` scans on every call) and each caller gets its own copy."""
        key = (team_id, top, position,
               None if target_categories is None else tuple(target_categories),
               None if drops is None else tuple(drops), None if adds is None else tuple(adds))
        hit = self._scans.get(key)
        if hit is None:
            hit = self._scan_moves(team_id, top=top, position=position,
                                   target_categories=target_categories, drops=key[4],
                                   adds=key[5])
            if len(self._scans) >= 64:
                self._scans.clear()
            self._scans[key] = hit
        return copy.deepcopy(hit)

    def _scan_moves(self, team_id: int, *, top: int, position: int | None,
                    target_categories: list[str] | None, drops: Iterable[int] | None,
                    adds: Iterable[int] | None) -> MoveScanResult:
        team = self._team(team_id)
        budget = acquisition_budget(self.settings, team, self.league.current_matchup_period)
        notes = [self.window_note] if self.window_note else []
        active = self._active(team)
        if adds is not None:
            fa_by_id = {p.id: p for p in self.free_agents}
            pool = [fa_by_id[a] for a in dict.fromkeys(adds) if a in fa_by_id]
        else:
            pool = self._candidate_pool(position)
        unit = "fantasy points" if self.is_points else "expected categories won"
        if self.is_points:
            u = self._universe(active + pool)
            ppg = {p.id: float(u.per_game_value[i]) for i, p in enumerate(u.players)}
        else:
            _, _, u, m, note = self._cat_context(team_id, pool)
            if note:
                notes.append(note)
            ppg = {}
        value_for_stars = ppg if self.is_points else self._cat_star_values(u)
        prot = protected_players(team, value_for_stars, self.today, untouchable=self.untouchable)
        holds = [Hold(PlayerRef(pid, self._name(team, pid)), pr.reason) for pid, pr in prot.items()]
        core = self.core_players(team_id)  # only replaceable players are drop candidates
        holds += [Hold(PlayerRef(pid, self._name(team, pid)), why) for pid, why in core.items()
                  if pid not in prot]
        protected_ids = set(prot)
        kept = set(core) | protected_ids
        base_rows = [u.index[p.id] for p in active]
        if drops is not None:
            wanted = set(drops)
            drop_rows = [u.index[p.id] for p in active if p.id in wanted]
        else:
            drop_rows = [u.index[p.id] for p in active if p.id not in kept]
        add_rows = [u.index[p.id] for p in pool if p.id in u.index and p.id not in
                    {q.id for q in active}]
        result = MoveScanResult(team_id, "points" if self.is_points else "categories", unit, 0.0,
                                [], holds, "", budget.remaining, budget.limit,
                                len(drop_rows) * len(add_rows), list(self.dates), notes)
        if self._slot_games_caps(team_id):
            notes.append("games-played limits are not applied in the scan")
        if self.is_points:
            pts_scan = scan_points(self._values_points(u), u.masks, self.layout.caps, u.keys,
                                   base_rows, drop_rows, add_rows, first_day=self.first_day)
            result.base_value = pts_scan.base_total
            gains, sdelta = pts_scan.gains, pts_scan.starts_delta
            cat_delta = None
        else:
            cats = self.cats
            if target_categories:
                wanted_cats = {c.upper() for c in target_categories}
                cats = [c for c in self.cats if c.name.upper() in wanted_cats]
                if not cats:
                    raise ValueError(f"unknown categories {target_categories}; league scores "
                                     f"{[c.name for c in self.cats]}")
                notes.append("optimising only " + ", ".join(c.name for c in cats))
            cat_scan = scan_categories(cats, u.cat_stats(), self._plays(u), u.masks,
                                       self.layout.caps, u.keys, base_rows, drop_rows, add_rows,
                                       m, first_day=self.first_day)
            result.base_value = cat_scan.base_expected
            gains, sdelta, cat_delta = cat_scan.gains, cat_scan.starts_delta, cat_scan.cat_delta
        if budget.remaining == 0:
            result.message = (f"Acquisition limit reached ({budget.used} of {budget.limit} used "
                              "this matchup): no add is possible until the next matchup.")
            return result
        if not add_rows:
            result.message = "No free agents are available to evaluate."
            return result
        if not drop_rows and drops is None and any(p.id in core and p.id not in
                                                   protected_ids for p in active):
            result.message = ("No drop/add move improves your team: every player you could "
                              "drop is worth more for the rest of the season than the best "
                              "free agent at his positions (see holds).")
            return result
        if not drop_rows:
            result.message = "Every rostered player is protected (see holds): nothing to drop."
            return result
        floor = MIN_GAIN_POINTS if self.is_points else MIN_GAIN_CATS
        flat = [(float(gains[a, b]), u.keys[drop_rows[a]], u.keys[add_rows[b]], a, b)
                for a in range(len(drop_rows)) for b in range(len(add_rows))
                if gains[a, b] > floor]
        flat.sort(key=lambda t: (-t[0], t[1], t[2]))
        for g, _, _, a, b in flat[:top]:
            x, y = u.players[drop_rows[a]], u.players[add_rows[b]]
            reasons = self._reasons(u, drop_rows[a], add_rows[b], int(sdelta[a, b]),
                                    None if cat_delta is None else cat_delta[a, b],
                                    None if cat_delta is None else cats)
            result.moves.append(MoveSuggestion(
                f"{x.id}-{y.id}", PlayerRef(x.id, x.name), PlayerRef(y.id, y.name), g, unit,
                int(sdelta[a, b]), self._confidence(g, result.base_value, y), reasons))
        if not result.moves:
            result.message = ("No drop/add move improves the optimal plan for the rest of this "
                              "matchup: keep the roster as it is.")
        else:
            result.message = f"{len(result.moves)} moves with a positive gain; " + budget.describe()
        return result

    # ------------------------------------------------------------------ named moves

    def _plan_value(self, plan: WeeklyPlanResult) -> float:
        v = plan.total_points if self.is_points else plan.expected_categories_won
        return float(v or 0.0)

    def _player_name(self, pid: int, fallback: str | None = None) -> str:
        for t in self.league.teams:
            e = t.entry_for(pid)
            if e is not None:
                return e.player.name
        p = next((q for q in self.free_agents if q.id == pid), None)
        return p.name if p else (fallback or f"player {pid}")

    def _add_problem(self, team: Team, add_id: int, name: str) -> str:
        """Why `add_id` cannot be added now ("" when he can)."""
        if team.entry_for(add_id) is not None:
            return f"{name} is already on your roster"
        owner = self.league.team_of_player(add_id)
        if owner is not None:
            return f"{name} is not a free agent: he is on {owner.name}"
        p = next((q for q in self.free_agents if q.id == add_id), None)
        if p is None:
            return f"{name} is not among the available free agents"
        if p.injury_status in OUT_STATUSES:
            back = (f", expected back {day_text(p.expected_return_date)}"
                    if p.expected_return_date else "")
            return f"{name} is {_status_word(p.injury_status)}{back}"
        return ""

    def _drop_problem(self, team: Team, drop_id: int, name: str) -> str:
        """Why `drop_id` cannot be dropped for an add ("" when he can)."""
        e = team.entry_for(drop_id)
        if e is None:
            owner = self.league.team_of_player(drop_id)
            if owner is not None:
                return f"{name} is not on your roster: he is on {owner.name}"
            return f"{name} is not on your roster (he is a free agent)"
        if e.lineup_slot_id == SLOT_IR:
            return (f"{name} is in your IR slot: dropping him frees no active roster spot for "
                    "an add")
        return ""

    def evaluate_move(self, team_id: int, drop_id: int | None, add_id: int | None, *,
                      drop_name: str | None = None, add_name: str | None = None
                      ) -> MoveEvaluation:
        """Evaluate exactly the move a member named: this matchup (weekly_plan with (drop,
        add) vs without: `expected_gain`) and the rest of the season (the added player kept:
        `season_effect`); the verdict is on their sum (`overall`), and a move that projects
        worse carries a `warning` with both.

        With drop_id None, the best drop for this add among the replaceable players (core
        and protected players are not dropped; with no drop worth it, the least costly one,
        verdict "no_gain"); with add_id None, the best free agent for this drop."""
        if drop_id is None and add_id is None:
            raise ValueError("a move needs a player to drop or to add")
        team = self._team(team_id)
        budget = acquisition_budget(self.settings, team, self.league.current_matchup_period)
        unit = "fantasy points" if self.is_points else "expected categories won"
        add = None if add_id is None else PlayerRef(add_id, self._player_name(add_id, add_name))
        drop = (None if drop_id is None
                else PlayerRef(drop_id, self._player_name(drop_id, drop_name)))
        out = MoveEvaluation(team_id, drop, add, "not_allowed", "", unit,
                             acquisitions_remaining=budget.remaining,
                             notes=[self.window_note] if self.window_note else [])
        problem = self._drop_problem(team, drop.id, drop.name) if drop else ""
        problem = problem or (self._add_problem(team, add.id, add.name) if add else "")
        if not problem and budget.remaining == 0:
            problem = (f"no acquisitions left this matchup ({budget.used} of {budget.limit} "
                       "used)")
        if problem:
            out.reason = problem
            return out
        base = self.weekly_plan(team_id)
        out.base_value = self._plan_value(base)
        floor = MIN_GAIN_POINTS if self.is_points else MIN_GAIN_CATS
        x = self._plan_inputs(team_id)

        def season(d: int, a: int) -> float:
            i, j = x.u.index.get(d), x.u.index.get(a)
            ros = x.season_pg * x.season.games_left
            return (float(ros[j]) if j is not None else 0.0) - \
                (float(ros[i]) if i is not None else 0.0)

        held = {h.player.id: h.reason for h in self.scan_moves(team_id, top=1).holds}
        core = {x.u.players[r].id for r in x.season.core}
        ir_first = [x.u.players[r] for r in x.ir_rows][:x.ir_free]
        if drop is None and ir_first:  # free the IR slot before suggesting any drop
            assert add is not None
            out.drop_chosen = out.drop_to_ir = True
            drop = out.drop = PlayerRef(ir_first[0].id, ir_first[0].name)
        if drop is None:
            assert add is not None
            out.drop_chosen = True
            best: tuple[float, float, Player] | None = None
            for p in x.active:
                if p.id in held or p.id in core:
                    continue
                g = self._plan_value(self.weekly_plan(team_id, moves=[(p.id, add.id)])) - \
                    out.base_value
                if best is None or g + season(p.id, add.id) > best[0] + best[1]:
                    best = (g, season(p.id, add.id), p)
            if best is None:
                return self._no_drop_for(team, out, held, add)
            drop = out.drop = PlayerRef(best[2].id, best[2].name)
        if add is None:
            out.add_chosen = True
            scan = self.scan_moves(team_id, top=50, drops=[drop.id])
            ranked = sorted(scan.moves, key=lambda mv: (
                -(mv.expected_gain + season(drop.id, mv.add.id)), mv.add.id))
            if not ranked or ranked[0].expected_gain + season(drop.id, ranked[0].add.id) \
                    <= floor:
                out.verdict = "no_gain"
                out.reason = (f"no free agent improves your team if you drop {drop.name} "
                              f"(this matchup's optimal plan: {out.base_value:.2f} {unit}): "
                              "keep him")
                return out
            add = out.add = ranked[0].add
        with_move = self.weekly_plan(team_id, moves=[(drop.id, add.id)])
        out.planned_value = self._plan_value(with_move)
        gain = out.planned_value - out.base_value
        out.expected_gain = gain
        out.games_added = with_move.games_played - base.games_played
        self._season_fields(out, x, drop.id, add.id,
                            # to IR: he stays yours and nobody is released (when he is back,
                            # the drop is chosen then)
                            0.0 if out.drop_to_ir else season(drop.id, add.id),
                            set() if out.drop_to_ir else core, {} if out.drop_to_ir else held)
        overall = float(out.overall or 0.0)
        out.verdict = "gain" if overall > floor else "no_gain"
        players = [e.player for e in team.roster if e.player.id == drop.id]
        players += [p for p in self.free_agents if p.id == add.id]
        u = self._universe(players)
        cat_delta = cats = None
        if not self.is_points:
            cats = self.cats
            cat_delta = np.array([a.win_probability - b.win_probability
                                  for a, b in zip(with_move.categories, base.categories,
                                                  strict=True)])
        out.reasons = self._reasons(u, 0, 1, out.games_added, cat_delta, cats)
        out.confidence = self._confidence(gain, out.base_value, u.players[1])
        if out.verdict != "gain":
            out.reason = (f"the move changes your optimal plan by {gain:+.2f} {unit} "
                          f"({out.base_value:.2f} without it, {out.planned_value:.2f} with it)"
                          f" and the rest of your season by {out.season_effect:+.2f}")
        if not out.drop_chosen:
            if drop.id in held:
                out.protected = held[drop.id]
                out.reasons.append(f"caution: {drop.name} is one you would normally hold "
                                   f"({held[drop.id]})")
            alt = self.scan_moves(team_id, top=1, drops=[drop.id])
            if alt.moves and alt.moves[0].add.id != add.id and \
                    alt.moves[0].expected_gain > gain + floor:
                out.alternative = alt.moves[0]
        return out

    def _season_fields(self, out: MoveEvaluation, x: _PlanInputs, drop_id: int, add_id: int,
                       effect: float, core: set[int], held: dict[int, str]) -> None:
        """A named move's rest-of-season figures, its overall value and, when it projects
        worse than doing nothing, the warning with both effects."""
        i, j = x.u.index.get(drop_id), x.u.index.get(add_id)
        sv = x.season
        out.season_effect = effect
        out.overall = float(out.expected_gain or 0.0) + effect
        out.per_game_unit = ("fantasy points per game" if self.is_points
                             else "category value per game")
        if i is not None:
            out.drop_ros_per_game = x.per_game.get(drop_id, 0.0)
            out.drop_ros_games = int(sv.games_left[i])
            if drop_id in core:
                out.core = self._core_reason(x, i)
        if j is not None:
            out.add_ros_per_game = x.per_game.get(add_id, 0.0)
            out.add_ros_games = int(sv.games_left[j])
        if out.overall <= (MIN_GAIN_POINTS if self.is_points else MIN_GAIN_CATS):
            d = out.drop.name if out.drop else "him"
            a = out.add.name if out.add else "the free agent"
            unit = "fantasy points" if self.is_points else "category value"
            week = (f"{float(out.expected_gain or 0.0):+.1f} {unit}" if self.is_points
                    else f"{float(out.expected_gain or 0.0):+.2f} expected categories")
            out.warning = (
                f"This move projects worse than keeping {d}: {week} this matchup, "
                f"{effect:+.1f} {unit} over the rest of the season ({a} "
                f"{float(out.add_ros_per_game or 0.0):.1f} per game over {out.add_ros_games} "
                f"games, {d} {float(out.drop_ros_per_game or 0.0):.1f} over "
                f"{out.drop_ros_games})."
                + (f" {d} is a core player: {out.core.removeprefix('core: ')}."
                   if out.core else "")
                + (f" You would normally hold {d} ({held[drop_id]})."
                   if drop_id in held and not out.core else ""))

    def _no_drop_for(self, team: Team, out: MoveEvaluation, held: dict[int, str],
                     add: PlayerRef) -> MoveEvaluation:
        """No replaceable player to drop for this add: say so."""
        out.verdict = "no_gain"
        out.reason = f"no drop makes adding {add.name} worth it"
        if held:
            out.reason += ("; not considered (you would hold them): "
                           + ", ".join(self._name(team, pid) for pid in held))
        return out

    def rank_by_categories(self, team_id: int, categories: Sequence[str], *, top: int = 10,
                           position: int | None = None) -> MoveScanResult:
        """Rank (drop, add) pairs by production in the named categories over the rest of the
        matchup (fantasy.optimizer.focus), each with the exact weekly plan's change."""
        team = self._team(team_id)
        budget = acquisition_budget(self.settings, team, self.league.current_matchup_period)
        notes = [self.window_note] if self.window_note else []
        wanted = [c.upper() for c in categories]
        cats: list[Category] = []
        ids: list[int] = []
        for name in dict.fromkeys(wanted):
            sid = STAT_IDS.get(name)
            if sid is None:
                raise ValueError(f"unknown category {name!r}")
            ids.append(sid)
        columns = raw_stat_columns(ids)
        col = {s: k for k, s in enumerate(columns)}
        for sid in ids:
            if sid in PERCENTAGE_STATS:
                made, att = PERCENTAGE_STATS[sid]
                cats.append(Category(stat_name(sid), col[made], col[att], sid in REVERSE_STATS))
            else:
                cats.append(Category(stat_name(sid), col[sid], None, sid in REVERSE_STATS))
        label = "+".join(c.name for c in cats)
        unit = f"{label} score"
        active = self._active(team)
        fas = [p for p in self.free_agents
               if not (p.injury_status in OUT_STATUSES and p.expected_return_date is None)]
        if position is not None:
            fas = [p for p in fas if position in p.eligible_slots]
        u = self._universe(active + [p for p in fas if p.id not in {q.id for q in active}])
        ppg = ({p.id: float(u.per_game_value[i]) for i, p in enumerate(u.players)}
               if self.is_points else self._cat_star_values(u))
        prot = protected_players(team, ppg, self.today, untouchable=self.untouchable)
        holds = [Hold(PlayerRef(pid, self._name(team, pid)), pr.reason) for pid, pr in prot.items()]
        core = self.core_players(team_id)  # only replaceable players are drop candidates
        holds += [Hold(PlayerRef(pid, self._name(team, pid)), why) for pid, why in core.items()
                  if pid not in prot]
        drop_rows = [u.index[p.id] for p in active if p.id not in prot and p.id not in core]
        add_rows = [u.index[p.id] for p in fas if p.id in u.index and team.entry_for(p.id) is None]
        result = MoveScanResult(team_id, "points" if self.is_points else "categories", unit, 0.0,
                                [], holds, "", budget.remaining, budget.limit,
                                len(drop_rows) * len(add_rows), list(self.dates), notes)
        base = self.weekly_plan(team_id)
        result.base_value = self._plan_value(base)
        if budget.remaining == 0:
            result.message = (f"Acquisition limit reached ({budget.used} of {budget.limit} used "
                              "this matchup): no add is possible until the next matchup.")
            return result
        if not add_rows or not drop_rows:
            result.message = ("No free agents are available to evaluate." if not add_rows else
                              "Every rostered player is protected (see holds): nothing to drop.")
            return result
        per = np.array([[self._projection(p).per_game.get(s, 0.0) for s in columns]
                        for p in u.players]).reshape(len(u.players), len(columns))
        games = u.prob[:, self.first_day:].sum(axis=1)
        fs = focus_scores(per, games, cats, drop_rows, add_rows)
        flat = [(float(fs.score[a, b]), u.keys[drop_rows[a]], u.keys[add_rows[b]], a, b)
                for a in range(len(drop_rows)) for b in range(len(add_rows))
                if fs.score[a, b] > 1e-9]
        flat.sort(key=lambda t: (-t[0], t[1], t[2]))
        plan_unit = "fantasy points" if self.is_points else "expected categories won"
        for score, _, _, a, b in flat[:top]:
            x, y = u.players[drop_rows[a]], u.players[add_rows[b]]
            after = self.weekly_plan(team_id, moves=[(x.id, y.id)])
            delta = self._plan_value(after) - result.base_value
            starts = after.games_played - base.games_played
            cd = {c.name: round(float(fs.delta[a, b, k]), 2) for k, c in enumerate(cats)}
            gx = int((u.prob[drop_rows[a], self.first_day:] > 0).sum())
            gy = int((u.prob[add_rows[b], self.first_day:] > 0).sum())
            reasons = [", ".join(f"{n} {v:+.1f}" for n, v in cd.items())
                       + f" over the rest of the matchup ({y.name} {gy} games left, "
                         f"{x.name} {gx})",
                       f"{'points' if self.is_points else 'plan'} effect: {delta:+.2f} "
                       f"{plan_unit} in the exact weekly plan ({result.base_value:.2f} -> "
                       f"{result.base_value + delta:.2f})"]
            reasons += _status_notes(x, y)
            result.moves.append(FocusMove(
                f"{x.id}-{y.id}", PlayerRef(x.id, x.name), PlayerRef(y.id, y.name), score, unit,
                starts, self._confidence(max(delta, 0.0), result.base_value, y), reasons,
                cd, delta, plan_unit))
        if not result.moves:
            result.message = (f"No drop/add move adds {label} production for the rest of this "
                              "matchup.")
        else:
            result.message = (f"{len(result.moves)} moves ranked by {label}; "
                              + budget.describe())
        return result

    def multi_move_plan(self, team_id: int, k: int) -> MultiMovePlanResult:
        """Best set of up to k moves and the day of each add (one PuLP/CBC model)."""
        team = self._team(team_id)
        budget = acquisition_budget(self.settings, team, self.league.current_matchup_period)
        notes = [self.window_note] if self.window_note else []
        kk = max(int(k), 0) if budget.remaining is None else min(max(int(k), 0), budget.remaining)
        active = self._active(team)
        pool = self._candidate_pool()
        unit = "fantasy points" if self.is_points else "category value (linearised)"
        if self.is_points:
            u = self._universe(active + pool)
            values = self._values_points(u)
            stars = {p.id: float(u.per_game_value[i]) for i, p in enumerate(u.players)}
        else:
            _, _, u, m, note = self._cat_context(team_id, pool)
            if note:
                notes.append(note)
            base_rows = [u.index[p.id] for p in active]
            w, _ = baseline_weights(self.cats, u.stats, self._plays(u), u.masks,
                                    self.layout.caps, u.keys, base_rows, m)
            values = np.maximum(np.einsum("idk,k->id", u.stats, w), 0.0) * self._plays(u)
            stars = self._cat_star_values(u)
        prot = protected_players(team, stars, self.today, untouchable=self.untouchable)
        roster_rows = [u.index[p.id] for p in active]
        pool_rows = [u.index[p.id] for p in pool if p.id not in {q.id for q in active}]
        plan = plan_moves(values, u.masks, self.layout.caps, u.keys, roster_rows, pool_rows, kk,
                          first_day=self.first_day,
                          protected={u.index[pid] for pid in set(prot) | set(
                              self.core_players(team_id)) if pid in u.index})
        by_id = {p.id: p for p in u.players}
        moves = [PlannedMoveOut(self.dates[mv.day], PlayerRef(mv.drop, by_id[mv.drop].name),
                                PlayerRef(mv.add, by_id[mv.add].name)) for mv in plan.moves]
        base_value, planned_value, gain = plan.base_total, plan.total, plan.gain
        if not self.is_points:
            unit = "expected categories won"
            base_value = self._cat_expected(u, values, m, self._member_rows(u, active, []))
            planned_value = self._cat_expected(u, values, m, self._planned_rows(u, active, plan))
            gain = planned_value - base_value
        if kk == 0:
            msg = ("Acquisition limit reached: no add is possible this matchup."
                   if budget.remaining == 0 else "k = 0: no moves requested.")
        elif plan.status not in ("Optimal", "NoMovesPossible"):
            msg = f"The solver did not finish ({plan.status}); no plan."
        elif not moves or plan.gain <= MIN_GAIN_POINTS:
            msg = "No combination of moves improves the plan: keep the roster as it is."
            moves = []
        else:
            msg = f"{len(moves)} moves, expected gain {gain:.2f} ({unit}); " + budget.describe()
        if not self.is_points and moves:
            notes.append("moves chosen on linearised category values, gain evaluated exactly")
        return MultiMovePlanResult(team_id, kk, unit, moves, base_value,
                                   planned_value if moves else base_value,
                                   gain if moves else 0.0, msg, budget.remaining,
                                   list(self.dates), notes)

    def move_plan(self, team_id: int, *, max_moves: int | None = None,
                  focus_categories: Sequence[str] = (), alternatives: int = 2,
                  hold: Iterable[int] = (), exclude_adds: Iterable[int] = (),
                  position: int | None = None, spare_core: bool = False,
                  keep: Iterable[int] = (), planned: Sequence[Move] = ()) -> Plan:
        """`_move_plan` (below), solved once per service, team and arguments: a service is
        one league snapshot (league, schedule, free agents, today), so every member asking
        for a card on unchanged data gets the same plan without solving it again; each
        caller gets its own deep copy. planned: the team's approved moves still to be made
        (its week plan), fixed: the plan is made on top of them."""
        fixed = tuple((m.drop.id, m.add.id, m.day, m.drop_to_ir) for m in planned)
        key = (team_id, max_moves, tuple(focus_categories), alternatives, tuple(hold),
               tuple(exclude_adds), position, spare_core, tuple(keep), fixed)
        hit = self._plans.get(key)
        if hit is None:
            hit = self._move_plan(team_id, max_moves=max_moves,
                                  focus_categories=key[2], alternatives=alternatives,
                                  hold=key[4], exclude_adds=key[5], position=position,
                                  spare_core=spare_core, keep=key[8], planned=planned)
            if len(self._plans) >= 32:
                self._plans.clear()
            self._plans[key] = hit
        return hit.model_copy(deep=True)

    # ------------------------------------------------------------------ rest of the season

    def season_end(self) -> date:
        """The last day of the league's season (its final scoring period, else the last NBA
        game on the schedule)."""
        fsp = self.settings.final_scoring_period
        if fsp:
            try:
                return self.schedule.date_for(fsp)
            except (KeyError, ValueError, IndexError):
                pass
        last = max((g.date for g in self.schedule.games), default=None)
        return last or (self.dates[-1] if self.dates else self.today)

    def ros_games(self, p: Player) -> int:
        """Games he is expected to play after the planning horizon until the season ends: an
        OUT player's from his expected return (unknown: HOLD_WINDOW_DAYS from today on)."""
        if not p.pro_team_id:
            return 0
        start = (self.dates[-1] if self.dates else self.today) + timedelta(days=1)
        end = self.season_end()
        if p.injury_status in OUT_STATUSES:
            back = p.expected_return_date or self.today + timedelta(days=HOLD_WINDOW_DAYS)
            start = max(start, back)
        return sum(1 for g in self.schedule.games_for_team(p.pro_team_id)
                   if start <= g.date <= end)

    def _position_mask(self) -> int:
        return sum(1 << k for k, sid in enumerate(self.layout.slot_ids)
                   if sid in (SLOT_PG, SLOT_SG, SLOT_SF, SLOT_PF, SLOT_C))

    def _season(self, u: _Universe, per_game: np.ndarray, roster_rows: Sequence[int],
                pool_rows: Sequence[int], *, spare_core: bool = False,
                rank_per_game: np.ndarray | None = None) -> SeasonValues:
        """Rest-of-season values (fantasy.optimizer.season) of the rows: keep values in the
        plan's unit (per_game); core players, replacements and the per-game figures shown
        from rank_per_game when given (category leagues: the neutral sum of z-scores, the
        plan's unit being this matchup's gradient).  spare_core ('leave my stars alone',
        'don't touch my starters'): everyone above replacement is core, and as many of the
        best as the lineup has starting slots."""
        games = np.array([self.ros_games(p) for p in u.players], dtype=float)
        def values(pg: np.ndarray) -> SeasonValues:
            return season_values(
                pg, games, u.masks, roster_rows, pool_rows,
                position_mask=self._position_mask(), margin=0.0 if spare_core else None,
                margin_min=CORE_MARGIN_MIN if self.is_points else 0.0,
                core_top_n=max(CORE_TOP_N, self.layout.n_starters) if spare_core
                else CORE_TOP_N)

        sv = values(per_game)
        if rank_per_game is None:
            return sv
        ranked = values(rank_per_game)
        ranked.keep_value = sv.keep_value
        return ranked

    def _ir_candidates(self, team: Team) -> tuple[list[Player], int]:
        """(active players who may go to the IR slot now, free IR slots)."""
        counts = {int(k): int(v) for k, v in self.settings.lineup_slot_counts.items()}
        free = counts.get(SLOT_IR, 0) - sum(1 for e in team.roster if e.lineup_slot_id == SLOT_IR)
        if free <= 0:
            return [], 0
        return ([p for p in self._active(team) if p.ir_eligible and SLOT_IR in p.eligible_slots],
                free)

    def _plan_inputs(self, team_id: int, *, focus_categories: Sequence[str] = (),
                     exclude_adds: Iterable[int] = (), position: int | None = None,
                     spare_core: bool = False, extra: Iterable[int] = ()) -> _PlanInputs:
        """What a plan is solved on: the universe (active roster + the free agents that may
        be added), the per-day values in the plan's unit, the rest-of-season values, the IR
        candidates, the display per-game values. extra: free agents in the universe but not
        in the pool (the adds of moves already scheduled)."""
        team = self._team(team_id)
        excluded = set(exclude_adds) | set(extra)
        notes = [self.window_note] if self.window_note else []
        active = self._active(team)
        roster_ids = {e.player.id for e in team.roster}
        pool = [p for p in self.free_agents
                if p.id not in roster_ids and p.injury_status not in OUT_STATUSES
                and p.id not in excluded
                and (position is None or position in p.eligible_slots)]
        wanted = set(extra) - roster_ids
        fixed_adds = [p for p in self.free_agents if p.id in wanted]
        focus = [c.upper() for c in focus_categories]
        cats: list[Category] = []
        m = None
        if self.is_points:
            u = self._universe(active + pool + fixed_adds)
            values = self._values_points(u)
            per_game = {p.id: float(u.per_game_value[i]) for i, p in enumerate(u.players)}
            season_pg = np.asarray(u.per_game_value, dtype=float)
            label = "projected fantasy points per game"
        else:
            _, _, u, m, note = self._cat_context(team_id, pool + fixed_adds)
            if note:
                notes.append(note)
            cats = self.cats
            if focus:
                cats = [c for c in self.cats if c.name.upper() in set(focus)] or self.cats
                notes.append("moves chosen for " + ", ".join(c.name for c in cats))
            w, _ = baseline_weights(cats, u.stats, self._plays(u), u.masks, self.layout.caps,
                                    u.keys, [u.index[p.id] for p in active], m)
            values = np.maximum(np.einsum("idk,k->id", u.stats, w), 0.0) * self._plays(u)
            per_game = self._cat_star_values(u)
            per = np.array([[self._projection(p).per_game.get(s, 0.0) for s in self.columns]
                            for p in u.players]).reshape(len(u.players), len(self.columns))
            w_all = w  # the rest of the season counts every category, focus or not
            if cats is not self.cats:
                w_all, _ = baseline_weights(self.cats, u.stats, self._plays(u), u.masks,
                                            self.layout.caps, u.keys,
                                            [u.index[p.id] for p in active], m)
            season_pg = np.maximum(per @ w_all, 0.0)
            label = "category value per game (sum of z-scores)"
        roster_rows = [u.index[p.id] for p in active]
        pool_rows = [u.index[p.id] for p in pool]
        season = self._season(u, season_pg, roster_rows,
                              pool_rows + [u.index[p.id] for p in fixed_adds],
                              spare_core=spare_core,
                              rank_per_game=None if self.is_points else np.array(
                                  [per_game[p.id] for p in u.players]))
        ir_players, ir_free = self._ir_candidates(team)
        return _PlanInputs(team, active, pool, u, values, m, cats, focus, per_game, label,
                           notes, roster_rows, pool_rows, season,
                           [u.index[p.id] for p in ir_players], ir_free, season_pg)

    def core_players(self, team_id: int) -> dict[int, str]:
        """The team's core players (never drop candidates unless named): player id -> why
        (fantasy.optimizer.season; computed once per service and team)."""
        cache = self.__dict__.setdefault("_cores", {})
        if team_id not in cache:
            x = self._plan_inputs(team_id)
            cache[team_id] = {x.u.players[r].id: self._core_reason(x, r)
                              for r in x.season.core if r not in set(x.ir_rows)}
        return dict(cache[team_id])

    def _core_reason(self, x: _PlanInputs, row: int) -> str:
        sv, u = x.season, x.u
        rank = sv.core.index(row) + 1 if row in sv.core else 0
        p = u.players[row]
        rep = int(sv.replacement[row])
        unit = "per game" if self.is_points else "category value per game"
        mine = x.per_game.get(p.id, 0.0)
        if rep < 0:
            return f"core: #{rank} on the roster for the rest of the season"
        r = u.players[rep]
        if not self.is_points:
            ranks = self._cat_ranks(u)
            return (f"core: #{rank} on the roster for the rest of the season (#{ranks[p.id]} "
                    f"in the league by category value vs #{ranks[r.id]} for {r.name}, the "
                    "best free agent at his positions)")
        return (f"core: #{rank} on the roster for the rest of the season ({mine:.1f} {unit} vs "
                f"{x.per_game.get(r.id, 0.0):.1f} for {r.name}, the best free agent at his "
                "positions)")

    def _move_plan(self, team_id: int, *, max_moves: int | None,
                   focus_categories: Sequence[str], alternatives: int,
                   hold: Iterable[int], exclude_adds: Iterable[int],
                   position: int | None, spare_core: bool = False,
                   keep: Iterable[int] = (), planned: Sequence[Move] = ()) -> Plan:
        """The exact best plan (fantasy.optimizer.plan) for the rest of the matchup AND the
        season: at most the acquisitions left (and `max_moves`, default MAX_PLAN_MOVES)
        drop/add moves, each with its day, streaming chains included.  A move's value is its
        gain in this matchup plus its rest-of-season effect (fantasy.optimizer.season: the
        roster at the end of the matchup is worth each player's value above replacement), so
        only replaceable players are dropped: core players (top 5 by rest-of-season value,
        or clearly above replacement) are held, as are protected players and players coming
        back within the hold window; a core-level free agent, once added, is kept.  An OUT player eligible for a free IR slot moves there
        (the add needs no drop).  No OUT free agent is added; games-played limits apply.
        Category leagues: lineups and moves on the gradient of expected categories won against
        the actual opponent (only `focus_categories` when named), values reported exactly.
        Each move carries its labelled per-game values, why its dropped player is
        expendable, injury notes and up to `alternatives` other free agents for the same spot
        and day.  hold: rostered ids not to drop (moves the member skipped, players he asked
        to keep); exclude_adds: free agents not to add; position: only free agents eligible
        for this ESPN slot id; spare_core: everyone above replacement is held; keep: rostered
        ids the member asked to keep ('keep X').

        planned: the approved moves still to be made (the week plan), fixed on their days:
        never re-planned nor offered again, their acquisitions counted (`acquisitions_left`
        is net of them); `base_value` is the value with them, `nothing_value` with no move
        at all, and `scheduled` lists them with what each adds in order."""
        x = self._plan_inputs(team_id, focus_categories=focus_categories,
                              exclude_adds=exclude_adds, position=position,
                              spare_core=spare_core, extra=[mv.add.id for mv in planned])
        team, u, values, m, cats, focus = x.team, x.u, x.values, x.m, x.cats, x.focus
        per_game, label, notes, sv = x.per_game, x.label, x.notes, x.season
        budget = acquisition_budget(self.settings, team, self.league.current_matchup_period)
        fixed = self._fixed_steps(u, planned)
        left = None if budget.remaining is None else max(budget.remaining - len(fixed), 0)
        cap = MAX_PLAN_MOVES if max_moves is None else max(int(max_moves), 0)
        k = cap if left is None else min(cap, left)
        keep_ids = set(keep)
        hold = tuple(hold) + tuple(keep_ids)
        prot = protected_players(team, per_game, self.today,
                                 untouchable=self.untouchable | set(hold))
        roster_rows, pool_rows = x.roster_rows, x.pool_rows
        fixed_ids = {u.players[r].id for st in fixed for r in (st.drop, st.add)}
        ir_rows = [r for r in x.ir_rows
                   if u.players[r].id not in self.untouchable | set(hold) | fixed_ids]
        ir_free = max(x.ir_free - sum(1 for st in fixed if st.to_ir), 0)
        ir_ids = {u.players[r].id for r in ir_rows}
        prot = {pid: pr for pid, pr in prot.items() if pid not in ir_ids}
        core_rows = [r for r in sv.core if r not in set(ir_rows)]
        prot_rows = {u.index[pid] for pid in prot if pid in u.index} | set(core_rows)
        keep_value = sv.keep_value
        slot_caps = self._slot_games_caps(team_id) or None
        if slot_caps:
            notes.append("games-played limits applied")
        sol = best_plan(values, u.masks, self.layout.caps, u.keys, roster_rows, pool_rows, k,
                        first_day=self.first_day, protected=prot_rows, slot_caps=slot_caps,
                        keep_value=keep_value, ir_rows=ir_rows, ir_slots=ir_free,
                        sticky_adds=sv.core_adds, fixed=fixed)
        single = sol if k <= 1 else best_plan(
            values, u.masks, self.layout.caps, u.keys, roster_rows, pool_rows, 1,
            first_day=self.first_day, protected=prot_rows, slot_caps=slot_caps,
            keep_value=keep_value, ir_rows=ir_rows, ir_slots=ir_free,
            sticky_adds=sv.core_adds, fixed=fixed)
        n_days = len(self.dates)

        def members_of(steps: Sequence[PlanStep]) -> list[list[int]]:
            """The rosters by day with the scheduled moves and `steps` made."""
            return apply_steps(roster_rows, [*fixed, *steps], n_days)

        # each distinct (day, roster) lineup solved once over the plan, its alternatives
        # and its prefixes (the same lineups and sums as solving each plan alone)
        lineups = None if slot_caps else DayLineups(values, u.masks, self.layout.caps, u.keys)
        stat_sums: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}

        def value_of(members: list[list[int]]) -> tuple[float, int]:
            v, starts = evaluate_members(values, u.masks, self.layout.caps, u.keys, members,
                                         slot_caps=slot_caps, lineups=lineups)
            if m is not None:  # focus: the named categories are the unit
                v = self._cat_expected(u, values, m, [set(x) for x in members], cats,
                                       lineups=lineups, stat_sums=stat_sums)
            return v, starts

        gone_ir = ir_rows + [st.drop for st in fixed if st.to_ir]

        def season_of(members: list[list[int]]) -> float:
            return terminal_value(members[-1], roster_rows, keep_value, gone_ir)

        nothing_value: float | None = None
        scheduled: list[Move] = []
        if fixed:
            no_moves = apply_steps(roster_rows, [], n_days)
            nothing_value = value_of(no_moves)[0]
            prev = (nothing_value, season_of(no_moves))
            for j, st in enumerate(fixed):  # each scheduled move's part, in order
                mem = apply_steps(roster_rows, fixed[:j + 1], n_days)
                v, kk = value_of(mem)[0], season_of(mem)
                mv = self._plan_move(u, st, v - prev[0], 0, per_game,
                                     chain={s.add for s in fixed[:j]}, season=sv,
                                     season_gain=kk - prev[1])
                src = planned[j] if j < len(planned) else None
                if src is not None:
                    mv.move_id = src.move_id
                scheduled.append(mv)
                prev = (v, kk)
        base_members = members_of([])
        base_value, base_starts = value_of(base_members)
        base_keep = season_of(base_members)
        steps = sorted(sol.steps, key=lambda s: (s.day, u.keys[s.drop]))
        used = {s.add for s in steps}
        alts: list[list[Alternative]] = []
        for j in range(len(steps)):
            best, ranked = self._alternatives(u, values, steps, j, pool_rows, used,
                                              alternatives, value_of, per_game, roster_rows,
                                              season_of, sv.core_adds, fixed=fixed)
            if best is not None:  # categories: exact value beats the linearised pick
                used = (used - {steps[j].add}) | {best}
                steps = [PlanStep(s.day, best if (i > j and s.drop == steps[j].add) else s.drop,
                                  best if i == j else s.add, s.to_ir)
                         for i, s in enumerate(steps)]
            alts.append(ranked)
        prev_v, prev_s, prev_k = base_value, base_starts, base_keep
        moves: list[Move] = []
        for j, st in enumerate(steps):
            mem = members_of(steps[:j + 1])
            v, starts = value_of(mem)
            kk = season_of(mem)
            mv = self._plan_move(u, st, v - prev_v, starts - prev_s, per_game,
                                 chain={s.add for s in steps[:j]}, season=sv,
                                 season_gain=kk - prev_k)
            mv.alternatives = [a for a in alts[j] if a.add.id != mv.add.id][:alternatives]
            moves.append(mv)
            prev_v, prev_s, prev_k = v, starts, kk
        planned_value, planned_starts, planned_keep = prev_v, prev_s, prev_k
        best_single = best_single_value = None
        if single.steps:
            s0 = single.steps[0]
            better, _ = self._alternatives(u, values, [s0], 0, pool_rows, {s0.add}, 1,
                                           value_of, per_game, roster_rows, season_of,
                                           fixed=fixed)
            if better is not None:
                s0 = PlanStep(s0.day, s0.drop, better, s0.to_ir)
            mem1 = members_of([s0])
            v1, s1 = value_of(mem1)
            best_single = self._plan_move(u, s0, v1 - base_value, s1 - base_starts, per_game,
                                          chain=set(), season=sv,
                                          season_gain=season_of(mem1) - base_keep)
            best_single_value = v1
        floor = MIN_GAIN_POINTS if self.is_points else MIN_GAIN_CATS
        if planned_value + planned_keep <= base_value + base_keep + floor:
            moves, planned_value, planned_starts, planned_keep = (
                [], base_value, base_starts, base_keep)
        if k == 0:
            msg = (f"Acquisition limit reached ({budget.used} of {budget.limit} used this "
                   "matchup): no add is possible until the next matchup."
                   if budget.remaining == 0 else
                   f"Acquisition limit reached: {budget.used} of {budget.limit} used this "
                   f"matchup and your {len(fixed)} scheduled move"
                   f"{'s' if len(fixed) != 1 else ''} use{'s' if len(fixed) == 1 else ''} "
                   "the rest: no other add is possible." if left == 0 and fixed
                   else "No moves requested.")
        elif sol.status not in ("Optimal", "NoMovesPossible"):
            msg = f"The optimizer did not finish ({sol.status}); no plan."
        elif not moves:
            msg = ("No move improves your team for the rest of this matchup without costing "
                   "more over the rest of the season.")
        else:
            msg = (f"{len(moves)} move{'s' if len(moves) != 1 else ''}; "
                   + (budget.describe() if not fixed or left is None else
                      f"{left} of {budget.limit} acquisitions left this matchup after your "
                      f"{len(fixed)} scheduled move{'s' if len(fixed) != 1 else ''}"))
        skipped = set(hold) - self.untouchable
        holds = [MoveHold(player=MovePlayer(id=pid, name=self._name(team, pid)),
                          reason="you asked to keep him" if pid in keep_ids else
                          "you skipped dropping him" if pid in skipped else pr.reason)
                 for pid, pr in prot.items()]
        held = {h.player.id for h in holds}
        holds += [MoveHold(player=MovePlayer(id=u.players[r].id, name=u.players[r].name),
                           reason=self._core_reason(x, r))
                  for r in core_rows if u.players[r].id not in held]
        return Plan(team_id=team_id, scoring="points" if self.is_points else "categories",
                    unit=POINTS_UNIT if self.is_points else CATEGORIES_UNIT,
                    dates=list(self.dates), moves=moves, base_value=base_value,
                    planned_value=planned_value,
                    best_single_value=best_single_value, best_single=best_single,
                    base_starts=base_starts, planned_starts=planned_starts,
                    n_categories=None if self.is_points else len(cats),
                    focus_categories=focus, acquisitions_left=left,
                    scheduled=scheduled, nothing_value=nothing_value,
                    acquisition_limit=budget.limit, max_moves=k, holds=holds, notes=notes,
                    message=msg, per_game_label=label, exact=self.is_points,
                    ranks={} if self.is_points else self._cat_ranks(u),
                    season_gain=planned_keep - base_keep, season_end=self.season_end())

    def _fixed_steps(self, u: _Universe, planned: Sequence[Move]) -> list[PlanStep]:
        """The scheduled moves as plan steps on `u`, in day order: those the league can
        still make (the add a free agent in `u`, the drop on the roster or added by an
        earlier one); a day before the planning window counts from its first day."""
        out: list[PlanStep] = []
        for mv in sorted(planned, key=lambda mv: mv.day):
            d, a = u.index.get(mv.drop.id), u.index.get(mv.add.id)
            if d is None or a is None:
                continue
            day = sum(1 for x in self.dates if x < mv.day)
            if day >= len(self.dates):
                continue
            out.append(PlanStep(day, d, a, bool(mv.drop_to_ir)))
        return out

    def _plan_move(self, u: _Universe, st: PlanStep, gain: float, games: int,
                   per_game: dict[int, float], chain: set[int],
                   season: SeasonValues | None = None, season_gain: float = 0.0) -> Move:
        x, y = u.players[st.drop], u.players[st.add]
        mv = Move(move_id=move_id(self.dates[st.day], x.id, y.id), day=self.dates[st.day],
                  drop=MovePlayer(id=x.id, name=x.name), add=MovePlayer(id=y.id, name=y.name),
                  gain=float(gain), games_added=int(games),
                  drop_per_game=float(per_game.get(x.id, 0.0)),
                  add_per_game=float(per_game.get(y.id, 0.0)),
                  drop_games=int((u.prob[st.drop, st.day:] > 0).sum()),
                  add_games=int((u.prob[st.add, st.day:] > 0).sum()),
                  replaces_added=st.drop in chain, notes=_injury_notes(x, y),
                  drop_to_ir=st.to_ir, season_gain=float(season_gain))
        if season is not None:
            rep = int(season.replacement[st.drop])
            mv.season_cost = 0.0 if st.to_ir else float(season.keep_value[st.drop])
            mv.drop_ros_per_game = float(per_game.get(x.id, 0.0))
            mv.ros_games = int(season.games_left[st.drop])
            if rep >= 0:
                r = u.players[rep]
                mv.replacement = MovePlayer(id=r.id, name=r.name)
                mv.replacement_per_game = float(per_game.get(r.id, 0.0))
            why = mv.expendable_text("per game" if self.is_points
                                     else "category value per game",
                                     None if self.is_points else self._cat_ranks(u))
            if why:  # the card shows why he can go
                mv.notes.insert(0, why)
        return mv

    def _alternatives(self, u: _Universe, values: np.ndarray, steps: list[PlanStep], j: int,
                      pool_rows: list[int], used: set[int], n: int, value_of,
                      per_game: dict[int, float], roster_rows: list[int], season_of=None,
                      sticky: Collection[int] = (), fixed: Sequence[PlanStep] = ()
                      ) -> tuple[int | None, list[Alternative]]:
        """The best other free agents for step j's spot and day, the rest of the plan
        unchanged (a later step that drops j's add drops the alternative instead).  Exact
        dominance pruning keeps the candidates that can be among the best n + 1.
        Returns (a better pick than the plan's, category leagues only: the linearised model
        chose the plan, the exact expected categories won rank the picks; the ranked list).
        season_of(members): the plan's rest-of-season value, added to the ranking; sticky:
        free agents who stay once added (not offered for a spot a later move empties)."""
        st = steps[j]
        free = [y for y in pool_rows if y not in used]
        cands = prune_pool(values, u.masks, free, n + 1, first_day=st.day, keys=u.keys)
        chained = any(k > j and s.drop == st.add for k, s in enumerate(steps))
        cands = [st.add, *(y for y in cands if not (chained and y in set(sticky)))]
        n_days = len(self.dates)
        scored = []
        for y in cands:
            alt = [PlanStep(s.day, y if (k > j and s.drop == st.add) else s.drop,
                            y if k == j else s.add, s.to_ir) for k, s in enumerate(steps)]
            mem = apply_steps(roster_rows, [*fixed, *alt], n_days)
            v, _ = value_of(mem)
            sv = season_of(mem) if season_of is not None else 0.0
            scored.append((v + sv, u.keys[y], y, v, sv))
        scored.sort(key=lambda t: (-t[0], t[1]))
        better = None
        if not self.is_points and scored[0][2] != st.add and scored[0][0] > scored[
                [t[2] for t in scored].index(st.add)][0] + MIN_GAIN_CATS:
            better = scored[0][2]
        out = []
        base_season = (season_of(apply_steps(roster_rows, list(fixed), n_days))
                       if season_of else 0.0)
        for _, _, y, v, sv in scored[:n + 1]:
            p = u.players[y]
            out.append(Alternative(add=MovePlayer(id=p.id, name=p.name), plan_value=float(v),
                                   per_game=float(per_game.get(p.id, 0.0)),
                                   games=int((u.prob[y, st.day:] > 0).sum()),
                                   season_gain=float(sv - base_season),
                                   notes=_injury_notes(u.players[st.drop], p)))
        return better, out

    # ------------------------------------------------------------------ helpers

    def _member_rows(self, u: _Universe, active: Sequence[Player], pairs,
                     starts: Sequence[int | None] | None = None) -> list[set[int]]:
        """Roster rows per day: each (drop, add) from its start day (None: the first move
        day), in start order, so a chain's later drop removes the earlier add."""
        begin: list[int] = []
        for k in range(len(pairs)):
            start = starts[k] if starts else None
            begin.append(self.first_day if start is None else start)
        order = sorted(range(len(pairs)), key=lambda k: begin[k])
        rows = []
        base = {u.index[p.id] for p in active}
        for d in range(len(self.dates)):
            s = set(base)
            for k in order:
                if d >= begin[k]:
                    dr, ad = pairs[k]
                    s.discard(u.index.get(dr, -1))
                    s.add(u.index[ad])
            rows.append(s)
        return rows

    def _move_start(self, mv: Any) -> int | None:
        """The index in `dates` from which a dated move counts (None: undated; a day
        before the window counts from its first day)."""
        day = getattr(mv, "day", None)
        if isinstance(mv, dict):
            day = mv.get("day")
        elif isinstance(mv, tuple) and len(mv) == 3:
            day = mv[2]
        if day is None:
            return None
        day = date.fromisoformat(day) if isinstance(day, str) else day
        return sum(1 for d in self.dates if d < day)

    def _points_outlook(self, team_id: int, res: WeeklyPlanResult, opp: Team | None) -> None:
        """Current matchup points of both sides and projected finals (opponent: his own
        optimal lineups on the same projections)."""
        m = self.league.current_matchup(team_id)
        me = m.side_for(team_id) if m else None
        other = m.opponent_side(team_id) if m else None
        res.current_points = me.points if me else 0.0
        res.projected_final_points = res.current_points + (res.total_points or 0.0)
        if opp is None:
            return
        active = self._active(opp)
        u = self._universe(active)
        plan = plan_week(self._values_points(u).tolist(), u.masks, self.layout.caps, u.keys)
        res.opponent_current_points = other.points if other else 0.0
        res.opponent_projected_points = res.opponent_current_points + plan.total

    def _planned_rows(self, u: _Universe, active: Sequence[Player], plan) -> list[set[int]]:
        rows = []
        for d in range(len(self.dates)):
            s = {u.index[p.id] for p in active}
            for mv in sorted(plan.moves, key=lambda mv: mv.day):
                if mv.day <= d:
                    s.discard(u.index[mv.drop])
                    s.add(u.index[mv.add])
            rows.append(s)
        return rows

    def _cat_expected(self, u: _Universe, values: np.ndarray, m: Matchup,
                      rows: list[set[int]], cats: Sequence[Category] | None = None, *,
                      lineups: DayLineups | None = None,
                      stat_sums: dict[tuple[int, tuple[int, ...]], np.ndarray] | None = None
                      ) -> float:
        """Exact expected categories won (of `cats`, default all) of the lineups chosen on
        `values` per day.  lineups: a DayLineups on `values` (each day's lineup solved
        once; stat_sums keeps each lineup's stat totals)."""
        tot = np.zeros(len(self.columns))
        if lineups is not None and all(c > 0 for c in self.layout.caps):
            sums = {} if stat_sums is None else stat_sums
            for d in range(len(self.dates)):
                st, _, _ = lineups.day(d, rows[d])
                if st:
                    key = (d, tuple(st))
                    s = sums.get(key)
                    if s is None:
                        s = sums[key] = u.cat_stats()[st, d].sum(axis=0)
                    tot += s
            return float(win_probabilities(self.cats if cats is None else cats, tot, m).sum())
        elig = [[t for t in range(len(self.layout.caps)) if (mk >> t) & 1] for mk in u.masks]
        for d in range(len(self.dates)):
            order = sorted((i for i in rows[d] if values[i, d] > 0),
                           key=lambda i: (-values[i, d], u.keys[i]))
            st = [i for occ in place(order, elig, self.layout.caps) for i in occ]
            if st:
                tot += u.cat_stats()[st, d].sum(axis=0)
        return float(win_probabilities(self.cats if cats is None else cats, tot, m).sum())

    def _slot_games_caps(self, team_id: int) -> dict[int, int]:
        """Slot-type index -> starts left, from games-played limits (stat 42) if the league
        sets them: limit x matchup days - games already played in that slot."""
        lims = self.settings.lineup_slot_stat_limits
        if not lims:
            return {}
        n_days = len(self.settings.scoring_periods_for(self.league.current_matchup_period)) or 7
        m = self.league.current_matchup(team_id)
        side = m.side_for(team_id) if m else None
        out = {}
        for t, sid in enumerate(self.layout.slot_ids):
            cap = self.settings.games_played_limit(sid, n_days)
            if cap is not None:
                used = side.games_played_by_slot.get(sid, 0.0) if side else 0.0
                out[t] = max(int(cap - used), 0)
        return out

    def _cat_star_values(self, u: _Universe) -> dict[int, float]:
        """Per-game 'value' for the star rule in category leagues: the sum of per-category
        per-game z-scores (percentages as volume-weighted impact), each category scaled on
        the league's whole player population (every rostered player and every free agent
        known), so a player's value and rank do not depend on whom he is compared with."""
        z = self.__dict__.setdefault("_cat_z", {})
        if any(p.id not in z for p in u.players):
            pop: dict[int, Player] = {}
            for t in self.league.teams:
                for e in t.roster:
                    pop.setdefault(e.player.id, e.player)
            for p in [*self.free_agents, *u.players]:
                pop.setdefault(p.id, p)
            players = list(pop.values())
            per = np.array([[self._projection(p).per_game.get(s, 0.0) for s in self.columns]
                            for p in players]).reshape(len(players), len(self.columns))
            x = per_game_impact(per, self.cats)
            sd = x.std(axis=0)
            score = ((x - x.mean(axis=0)) / np.where(sd > 0, sd, 1.0) * (sd > 0)).sum(axis=1)
            z.update({p.id: float(score[i]) for i, p in enumerate(players)})
        return {p.id: z[p.id] for p in u.players}

    def value_per_game(self, players: Sequence[Player]) -> dict[int, float]:
        """Each player's value per game as the plan ranks core players: projected fantasy
        points, or in category leagues the league-scaled sum of category z-scores."""
        if self.is_points:
            return {p.id: self._per_game_points(p) for p in players}
        return self._cat_star_values(self._universe(players))

    def _cat_ranks(self, u: _Universe) -> dict[int, int]:
        """Category leagues: each of u's players' rank in the league by category value per
        game (`_cat_star_values`' population; 1 = best), as members read it."""
        self._cat_star_values(u)
        z = self.__dict__["_cat_z"]
        rank = self.__dict__.get("_cat_rank")
        if rank is None or len(rank) != len(z):  # once per population, not per move
            order = sorted(z, key=lambda pid: (-z[pid], pid))
            rank = self.__dict__["_cat_rank"] = {pid: k + 1 for k, pid in enumerate(order)}
        return {p.id: rank[p.id] for p in u.players}

    def _outlook(self, c: Category, stat_id: int, tot: np.ndarray, m: Matchup, p: float
                 ) -> CategoryOutlook:
        if c.is_pct:
            mk, at = m.my_current[c.stat] + tot[c.stat], m.my_current[c.attempts] + tot[c.attempts]
            omk = m.opp_current[c.stat] + m.opp_remaining[c.stat]
            oat = m.opp_current[c.attempts] + m.opp_remaining[c.attempts]
            mine, theirs = (mk / at if at else 0.0), (omk / oat if oat else 0.0)
        else:
            mine = m.my_current[c.stat] + tot[c.stat]
            theirs = m.opp_current[c.stat] + m.opp_remaining[c.stat]
        return CategoryOutlook(c.name, stat_id, float(mine), float(theirs), p)

    def _reasons(self, u: _Universe, x: int, y: int, games: int, cat_delta, cats) -> list[str]:
        px, py = u.players[x], u.players[y]
        gx = int((u.prob[x, self.first_day:] > 0).sum())
        gy = int((u.prob[y, self.first_day:] > 0).sum())
        out = [f"{py.name} has {gy} games left in the window, {px.name} {gx}"]
        if games:
            out.append(f"{games:+d} games started in the optimal lineups")
        if self.is_points:
            out.append(f"{py.name} projects {u.per_game_value[y]:.1f} points per game, "
                       f"{px.name} {u.per_game_value[x]:.1f}")
        else:
            order = np.argsort(-np.abs(cat_delta))
            parts = [f"{cats[k].name} {cat_delta[k]:+.2f}" for k in order[:4]
                     if abs(cat_delta[k]) >= 0.005]
            if parts:
                out.append("win probability change: " + ", ".join(parts))
        return out + _status_notes(px, py)

    def _confidence(self, gain: float, base: float, add: Player) -> str:
        """high: gain >= 5% of the base value (points) or >= 0.25 categories, healthy add with
        >= 10 games of data; low: uncertain add status, < 5 games of data, or a gain under 1%
        (points) / 0.05 categories; medium otherwise."""
        games = self._projection(add).games
        rel_hi = gain >= (0.05 * base if self.is_points else 0.25)
        rel_lo = gain < (0.01 * base if self.is_points else 0.05)
        if add.injury_status != "ACTIVE" or games < 5 or rel_lo:
            return "low"
        if rel_hi and games >= 10:
            return "high"
        return "medium"

    @staticmethod
    def _name(team: Team, pid: int) -> str:
        e = team.entry_for(pid)
        return e.player.name if e else str(pid)


def _pair(mv: Any) -> tuple[int, int]:
    if isinstance(mv, dict):
        d, a = mv.get("drop"), mv.get("add")
        d = d.get("id") if isinstance(d, dict) else d
        a = a.get("id") if isinstance(a, dict) else a
        if d is None or a is None:
            raise ValueError(f"a move needs a drop and an add id: {mv!r}")
        return int(d), int(a)
    if hasattr(mv, "drop") and hasattr(mv, "add"):  # a fantasy.moves.Move
        return int(mv.drop.id), int(mv.add.id)
    d, a = mv[0], mv[1]
    return int(d), int(a)


__all__ = [
    "BenchedPlayer", "CategoryOutlook", "DailyLineupResult", "DayPlan", "FocusMove", "Hold",
    "LineupChange", "MoveEvaluation", "MoveScanResult", "MoveSuggestion", "MultiMovePlanResult",
    "OptimizerService", "PlannedMoveOut", "PlayerRef", "SlotStarter", "WeeklyPlanResult",
]
