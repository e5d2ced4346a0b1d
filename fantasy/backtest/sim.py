"""Day-by-day simulation of one managed team over matchup periods, under one strategy.

Each morning the strategy sees a `Day` (what is known that morning, nothing later) and names
its moves for the day; the simulator makes those that are legal (the drop is on the roster,
the add is free, an acquisition is left in the matchup), then sets the managed team's lineup
with the project's exact daily lineup (`lineup.solve_day`; points: expected fantasy points that
day; 9-cat: OptimizerService.daily_lineup's values, the gradient of expected categories won
against the opponent) and scores the starters with that day's box scores.

Choices (the same for every strategy):
* the other teams keep their rosters; each morning their manager sets his exact best lineup
  on what is known then (per-game value x chance to play, in both variants:
  `League.lineup` with no opponent), the same whatever the managed team does: FanVise's
  product run (benchmarks/product_run.py) sets the same lineups for its opponent in the demo
  league (`League.lineup_slots`), so every strategy faces the same opponents;
* a player on waivers that morning (the demo's waiver list, or dropped by the managed team in
  the last two days) may be added, but his claim clears the next day: he cannot start on the
  day he is added;
* an OUT player may be moved to the free IR slot: he stays owned and starts nowhere; the morning he is no longer OUT he returns
  and the lowest-valued player outside the top 5 is released for him (no acquisition);
* the acquisition limit is the league's per matchup (points 7, 9-cat 4); the demo's recorded
  acquisitions of earlier weeks are not counted against the managed team.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from fantasy.backtest.data import STATS, SeasonData
from fantasy.backtest.knowledge import Knowledge, Morning, categories
from fantasy.constants import SLOT_BENCH, SLOT_IR
from fantasy.models import LeagueSettings
from fantasy.optimizer.categories import Matchup, baseline_weights
from fantasy.optimizer.lineup import SlotLayout, solve_day

CORE_N = 5  # a drop of one of the roster's top 5 by per-game value counts as a core drop
WAIVER_DAYS = 2  # a dropped player is on waivers the day he is dropped and the next


@dataclass(frozen=True)
class Day:
    """What a strategy may read on one morning. Rows index the league's players
    (`SeasonData.ids`); `value` is each player's per-game value that morning,
    `scheduled[:, k]` whether his NBA team plays on `days[k]` and `expected[:, k]` his
    expected games that day (scheduled x his chance to play from today's status; waiver
    players 0 today). schedule[:, j]: his NBA team plays on scoring period sp + j, from today
    to the league's final scoring period (the public schedule). roster: the active roster;
    ir: players in the IR slot, ir_free: free IR slots."""

    variant: str
    settings: LeagueSettings
    sp: int
    days: tuple[int, ...]
    morning: Morning
    value: np.ndarray
    expected: np.ndarray
    scheduled: np.ndarray
    masks: tuple[int, ...]
    slot_ids: tuple[int, ...]
    caps: tuple[int, ...]
    keys: tuple[int, ...]
    roster: tuple[int, ...]
    ir: tuple[int, ...]
    ir_free: int
    free_agents: tuple[int, ...]
    waivers: frozenset[int]
    acquisitions_left: int
    opponent: tuple[int, ...]
    my_totals: np.ndarray
    opp_totals: np.ndarray
    schedule: np.ndarray
    day_index: int

    @property
    def first_of_matchup(self) -> bool:
        return self.day_index == 0


class Strategy(Protocol):
    """A way to manage a team: the moves to make this morning, each (drop row, add row) or
    (drop row, add row, to_ir): to_ir puts the leaving OUT player in a free IR slot."""

    name: str

    def moves(self, day: Day) -> list[tuple]: ...


@dataclass(frozen=True)
class MadeMove:
    """A move made on sp (player ids). core: the dropped player was in the roster's top
    CORE_N by that morning's per-game value; streamer: he was added in the same matchup.
    to_ir: he went to the IR slot (still owned, never a core drop); add 0: a release with no
    add (a player back from the IR needs the roster spot)."""

    sp: int
    drop: int
    add: int
    core: bool
    streamer: bool = False
    to_ir: bool = False

    @property
    def acquisition(self) -> bool:
        return self.add != 0


@dataclass(frozen=True)
class MatchupResult:
    """One matchup: points (points leagues) or categories won/lost (9-cat); won 1, 0.5, 0."""

    period: int
    opponent: int
    mine: float
    theirs: float
    won: float


@dataclass
class TeamSeason:
    """One strategy's season for one managed team: results, moves made and every decision
    (moves and each team's starters per day, by player id) for the leak test."""

    variant: str
    team_id: int
    strategy: str
    results: list[MatchupResult] = field(default_factory=list)
    moves: list[MadeMove] = field(default_factory=list)
    decisions: dict[int, tuple] = field(default_factory=dict)

    @property
    def win_rate(self) -> float:
        return sum(r.won for r in self.results) / len(self.results) if self.results else 0.0

    @property
    def season_score(self) -> float:
        """Season points (points) or categories won (9-cat)."""
        return sum(r.mine for r in self.results)

    @property
    def acquisitions(self) -> int:
        return sum(1 for m in self.moves if m.acquisition)

    @property
    def core_drops(self) -> int:
        return sum(1 for m in self.moves if m.core)

    @property
    def core_streamer_drops(self) -> int:
        """Core drops of players added in the same matchup (a streaming chain)."""
        return sum(1 for m in self.moves if m.core and m.streamer)


@dataclass(frozen=True)
class Versus:
    """A team's matchup as known on a morning: the opponent's rows, the matchup's days from
    today, and both teams' stat totals so far (mine first)."""

    opponent: tuple[int, ...]
    days: tuple[int, ...]
    mine: np.ndarray
    theirs: np.ndarray

    def key(self) -> tuple:
        return (self.opponent, self.days, self.mine.tobytes(), self.theirs.tobytes())


def projected_totals(rows: Sequence[int], value: np.ndarray, expected: np.ndarray,
                     per_game: np.ndarray, masks: Sequence[int], caps: Sequence[int],
                     keys: Sequence[int]) -> np.ndarray:
    """A roster's projected stat totals over expected[:, k]'s days: its best lineup each day
    on per-game value x expected games, times the starters' expected stats."""
    total = np.zeros(per_game.shape[1])
    rows = list(rows)
    for k in range(expected.shape[1]):
        e = expected[rows, k]
        _, assign = solve_day([float(value[r] * e[j]) for j, r in enumerate(rows)],
                              [masks[r] for r in rows], caps, [keys[r] for r in rows])
        for j, a in enumerate(assign):
            if a >= 0:
                total += e[j] * per_game[rows[j]]
    return total


class League:
    """The league as the simulator runs it: layout, lineups and day results (memoised)."""

    def __init__(self, data: SeasonData, know: Knowledge, variant: str):
        self.data, self.know, self.variant = data, know, variant
        self.settings = data.settings[variant]
        self.layout = SlotLayout.from_counts({s: c for s, c in
                                              self.settings.lineup_slot_counts.items()
                                              if s not in (SLOT_BENCH, SLOT_IR)})
        self.masks = tuple(self.layout.mask(e) for e in data.eligible)
        self.weights = np.array([self.settings.scoring_weights.get(s, 0.0) for s in STATS])
        self.cats = None if self.settings.is_points else categories(self.settings)
        self._days: dict[tuple, tuple[tuple[int, ...], np.ndarray]] = {}

    def lineup_slots(self, player_ids: Sequence[int], sp: int) -> dict[int, int]:
        """An other manager's lineup on sp as ESPN takes it ({player id: slot id}, the
        bench for the rest): `lineup` with no opponent, on the morning's values."""
        rows = [self.data.index[p] for p in player_ids]
        starters = set(self.lineup(rows, sp)[0])
        v = (self.know.value(self.variant, sp) * self.know.playing(sp, sp))[sorted(starters)]
        order = sorted(starters)
        _, assign = solve_day([float(x) for x in v], [self.masks[r] for r in order],
                              self.layout.caps, [self.data.ids[r] for r in order])
        out = {p: SLOT_BENCH for p in player_ids}
        for r, a in zip(order, assign, strict=True):
            out[self.data.ids[r]] = self.layout.slot_ids[a] if a >= 0 else SLOT_BENCH
        return out

    def lineup(self, roster: Sequence[int], sp: int, barred: frozenset[int] = frozenset(),
               against: Versus | None = None) -> tuple[tuple[int, ...], np.ndarray]:
        """(starters, their summed box score) of a roster on sp: the exact optimal lineup on
        the morning's values; `barred` players cannot start (waiver claim not cleared).
        Points: expected fantasy points. Categories, `against` the opponent: the project's
        category lineup values (OptimizerService.daily_lineup): the gradient of expected
        categories won against him over the matchup's days left, with both totals so far."""
        key = (tuple(sorted(roster)), sp, barred,
               None if against is None or self.cats is None else against.key())
        hit = self._days.get(key)
        if hit is None:
            rows = list(key[0])
            if key[3] is not None:
                assert against is not None
                v = self._category_values(rows, sp, against)
            else:
                v = (self.know.value(self.variant, sp) * self.know.playing(sp, sp))[rows]
            vals = [0.0 if r in barred else float(x) for r, x in zip(rows, v, strict=True)]
            _, assign = solve_day(vals, [self.masks[r] for r in rows], self.layout.caps,
                                  [self.data.ids[r] for r in rows])
            starters = tuple(r for r, a in zip(rows, assign, strict=True) if a >= 0)
            stats = self.data.box[list(starters), sp].sum(axis=0) if starters \
                else np.zeros(len(STATS))
            hit = self._days[key] = (starters, stats)
        return hit

    def _category_values(self, rows: list[int], sp: int, vs: Versus) -> np.ndarray:
        know = self.know
        per = know.morning(sp).per_game
        exp = np.stack([know.playing(sp, s) for s in vs.days], axis=1)
        value = know.value(self.variant, sp)
        keys = self.data.ids
        opp_rem = projected_totals(list(vs.opponent), value, exp, per, self.masks,
                                   self.layout.caps, keys)
        stats = exp[rows][:, :, None] * per[rows][:, None, :]
        m = Matchup(vs.mine, vs.theirs, opp_rem)
        assert self.cats is not None
        w, _ = baseline_weights(self.cats, stats, exp[rows] > 0, [self.masks[r] for r in rows],
                                self.layout.caps, [keys[r] for r in rows],
                                list(range(len(rows))), m)
        return np.maximum(per[rows] @ w, 0.0) * exp[rows, 0]

    def outcome(self, mine: np.ndarray, theirs: np.ndarray) -> tuple[float, float, float]:
        """(my score, their score, won) of a finished matchup from the two stat totals."""
        if self.cats is None:
            a, b = float(mine @ self.weights), float(theirs @ self.weights)
        else:
            a = b = 0.0
            for c in self.cats:
                if c.is_pct:
                    x = mine[c.stat] / mine[c.attempts] if mine[c.attempts] else 0.0
                    y = theirs[c.stat] / theirs[c.attempts] if theirs[c.attempts] else 0.0
                else:
                    x, y = mine[c.stat], theirs[c.stat]
                if c.reverse:
                    x, y = y, x
                a += x > y
                b += y > x
        return a, b, 1.0 if a > b else 0.5 if a == b else 0.0


def _made(sp: int, drop: int, add: int, roster: Sequence[int], value: np.ndarray,
          ids: Sequence[int], to_ir: bool, streamer: bool) -> MadeMove:
    """The record of a move about to be made (add -1: a release), core judged on the roster
    before it."""
    top = sorted(roster, key=lambda r: (-value[r], ids[r]))[:CORE_N]
    return MadeMove(sp, ids[drop], ids[add] if add >= 0 else 0, drop in top and not to_ir,
                    streamer, to_ir)


def simulate(league: League, team_id: int, periods: Sequence[int], strategy: Strategy
             ) -> TeamSeason:
    """One managed team's season over `periods` under `strategy` (module docstring)."""
    data, know, variant = league.data, league.know, league.variant
    rows = data.index
    roster = [rows[p] for p in data.rosters[team_id]]
    others = {t: [rows[p] for p in r] for t, r in data.rosters.items() if t != team_id}
    held_by_others = {r for rs in others.values() for r in rs}
    out = TeamSeason(variant, team_id, strategy.name)
    dropped_on: dict[int, int] = {}
    added_on: dict[int, int] = {}
    ir: list[int] = []
    ir_slots = int(league.settings.lineup_slot_counts.get(SLOT_IR, 0))
    base_waivers = {rows[p] for p in data.waivers if p in rows}
    season_end = league.settings.final_scoring_period or data.last_sp
    schedule = data.team_games[data.pro_team]
    for period in periods:
        m = data.matchup_of(team_id, period)
        opp_id = m.opponent(team_id)
        opp = others[opp_id]
        sps = data.period_sps(variant, period)
        limit = league.settings.acquisition_limit_for(period)
        left = len(sps) * 10 if limit is None else limit
        mine = np.zeros(len(STATS))
        theirs = np.zeros(len(STATS))
        for k, sp in enumerate(sps):
            morning = know.morning(sp)
            value = know.value(variant, sp)
            waivers = frozenset(base_waivers | {r for r, s in dropped_on.items()
                                                if sp - s < WAIVER_DAYS})
            taken = held_by_others | set(roster) | set(ir)
            fas = tuple(r for r in range(len(data.ids)) if r not in taken)
            expected = np.stack([know.playing(sp, s) for s in sps[k:]], axis=1)
            if waivers:
                expected[list(waivers), 0] = 0.0
            made: list[tuple[int, int, bool]] = []
            for r in [r for r in ir if morning.prob[r] > 0]:
                # healthy again: back from the IR; the lowest-valued player outside the top
                # 5 is released for him (the same rule for every strategy)
                ir.remove(r)
                roster.append(r)
                top = set(sorted(roster, key=lambda q: (-value[q], data.ids[q]))[:CORE_N])
                release = min((q for q in roster if q not in top and q != r),
                              key=lambda q: (value[q], data.ids[q]))
                mv = _made(sp, release, -1, roster, value, data.ids, False,
                           added_on.get(release, -1) in sps)
                out.moves.append(mv)
                made.append((mv.drop, 0, False))
                roster.remove(release)
                dropped_on[release] = sp
            day = Day(variant, league.settings, sp, tuple(sps[k:]), morning, value, expected,
                      schedule[:, sps[k]:sps[-1] + 1], league.masks, league.layout.slot_ids,
                      league.layout.caps, tuple(data.ids), tuple(roster), tuple(ir),
                      ir_slots - len(ir), fas, waivers, left, tuple(opp), mine.copy(),
                      theirs.copy(), schedule[:, sp:season_end + 1], k)
            barred: set[int] = set()

            for mv_ in strategy.moves(day):
                drop, add = mv_[0], mv_[1]
                to_ir = bool(mv_[2]) if len(mv_) > 2 else False
                if left <= 0 or drop not in roster or add in roster or add in held_by_others \
                        or add in ir:
                    continue
                if to_ir and (len(ir) >= ir_slots or morning.prob[drop] > 0):
                    continue  # IR: a free slot and an OUT player only
                mv = _made(sp, drop, add, roster, value, data.ids, to_ir,
                           added_on.get(drop, -1) in sps)
                out.moves.append(mv)
                made.append((mv.drop, mv.add, to_ir))
                roster.remove(drop)
                roster.append(add)
                left -= 1
                if to_ir:
                    ir.append(drop)
                else:
                    dropped_on[drop] = sp
                if add in waivers:
                    barred.add(add)
                added_on[add] = sp
            st_me, s_me = league.lineup(roster, sp, frozenset(barred),
                                        Versus(tuple(opp), tuple(sps[k:]), mine.copy(),
                                               theirs.copy()))
            st_op, s_op = league.lineup(opp, sp)
            mine += s_me
            theirs += s_op
            out.decisions[sp] = (tuple(made), tuple(data.ids[r] for r in st_me),
                                 tuple(data.ids[r] for r in st_op))
        a, b, won = league.outcome(mine, theirs)
        out.results.append(MatchupResult(period, opp_id, a, b, won))
    return out


__all__ = ["CORE_N", "Day", "League", "MadeMove", "MatchupResult", "Strategy", "TeamSeason",
           "Versus", "projected_totals", "simulate"]
