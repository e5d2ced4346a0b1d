"""The three ways to manage the team that the season backtest compares (issue 22).

* `LineupsOnly`: no moves.
* `StreamingRule`: a diligent human. Each morning, when an acquisition is left: if the free
  agent who projects highest today (per-game value x his chance to play, his team playing
  today) is worth more than the lowest-valued rostered player whose team has no game today,
  swap them (one swap a day). The roster's top 5 by per-game value are never dropped.
* `FanVisePlan`: FanVise's exact season-aware plan (`fantasy.optimizer.plan.best_plan` with
  `fantasy.optimizer.season.season_values`, built as `OptimizerService.move_plan` builds it)
  approved in full at the start of each matchup and again mid-week; each move is made on its
  own day after the scheduler's check (`bot.core.move_schedule`): the add is not OUT and the
  move still gains over the rest of the schedule (this matchup's value, as `weekly_plan`).
  Points: the plan's values are expected fantasy points; 9-cat: FanVise's linearised expected
  categories won against the actual opponent (`categories.baseline_weights`), with the
  matchup's totals so far and the opponent's projected remaining totals; the check values the
  schedule in expected categories won.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fantasy.backtest.knowledge import categories
from fantasy.backtest.sim import CORE_N, Day, projected_totals
from fantasy.optimizer.categories import Matchup, baseline_weights, expected_wins
from fantasy.optimizer.focus import per_game_impact
from fantasy.optimizer.guardrails import HOLD_WINDOW_DAYS, STAR_TOP_N
from fantasy.optimizer.plan import (
    DayLineups,
    PlanStep,
    apply_steps,
    best_plan,
    evaluate_members,
)
from fantasy.optimizer.season import CORE_MARGIN_MIN, SeasonValues, is_core_drop, season_values

MID_WEEK = 3  # the second plan: Thursday of a Monday-Sunday matchup
POSITION_SLOTS = (0, 1, 2, 3, 4)  # PG, SG, SF, PF, C


class LineupsOnly:
    """No moves: the best lineup every day, nothing else."""

    name = "lineups only"

    def moves(self, day: Day) -> list[tuple[int, int]]:
        return []


class StreamingRule:
    """The diligent human's streaming rule (module docstring)."""

    name = "streaming rule"

    def moves(self, day: Day) -> list[tuple[int, int]]:
        roster = list(day.roster)
        value = day.value
        core = set(sorted(roster, key=lambda r: (-value[r], day.keys[r]))[:CORE_N])
        today = day.expected[:, 0]
        fas = sorted((r for r in day.free_agents if today[r] > 0),
                     key=lambda r: (-value[r] * today[r], day.keys[r]))
        out: list[tuple[int, int]] = []
        for add in fas[:min(day.acquisitions_left, 1)]:
            idle = [r for r in roster if r not in core and not day.scheduled[r, 0]]
            if not idle:
                break
            drop = min(idle, key=lambda r: (value[r], day.keys[r]))
            if value[add] * today[add] <= value[drop]:
                break
            out.append((drop, add))
            roster.remove(drop)
            roster.append(add)
        return out


@dataclass
class FanVisePlan:
    """FanVise's plan, approved in full at the start of each matchup and mid-week."""

    name: str = "fanvise"
    mid_week: int = MID_WEEK
    season: bool = True  # False: this matchup only, top 3 protected, no IR (before issue 22)
    recheck: bool = True  # the scheduler's check on each move's day
    _pending: dict[int, list[tuple[int, int, bool]]] = field(default_factory=dict)
    #: (sp, drop, add) of planned moves with no gain this matchup: made for the rest of the
    #: season (the scheduler's expected_gain 0), so never refused for gaining nothing now
    _season_only: set[tuple[int, int, int]] = field(default_factory=set)

    def moves(self, day: Day) -> list[tuple]:
        if day.day_index in (0, self.mid_week):
            self._pending = self.plan(day)
        due = self._pending.pop(day.sp, [])
        return self.check(day, due) if self.recheck and due else due

    def check(self, day: Day, due: list[tuple[int, int, bool]]) -> list[tuple[int, int, bool]]:
        """The scheduler's check of the moves due today (bot.core.move_schedule): the add
        is not OUT, and each move still gains over the rest of its schedule (today's moves
        and the later ones, each on its day) against the schedule without it and the moves
        that need it, on this morning's projections."""
        rest = [(sp, mv[0], mv[1], bool(mv[2:3] and mv[2])) for sp, mvs in
                [(day.sp, due)] + sorted(self._pending.items()) for mv in mvs]
        feasible: list[tuple[int, int, int, bool]] = []  # as the scheduler's _feasible
        for m in rest:
            if m[2] in day.free_agents and (m[1] in day.roster
                                            or any(k[2] == m[1] for k in feasible)):
                feasible.append(m)
        rest = feasible
        rows = list(day.roster) + sorted({m[2] for m in rest} - set(day.roster))
        x = plan_inputs(day, rows)
        local = {r: k for k, r in enumerate(rows)}
        k_of = {sp: k for k, sp in enumerate(day.days)}

        def steps(moves: list[tuple[int, int, int, bool]]) -> list[PlanStep]:
            return [PlanStep(k_of[sp], local[d], local[a], ir) for sp, d, a, ir in moves]

        def with_chain(move: tuple[int, int, int, bool]) -> list[tuple[int, int, int, bool]]:
            gone = [move]
            for other in rest[rest.index(move) + 1:]:
                if any(g[2] == other[1] for g in gone):
                    gone.append(other)
            return gone

        core = set(self.core(day)) if self.season else set()
        rank = day.value if day.settings.is_points else None
        out: list[tuple[int, int, bool]] = []
        for move in [m for m in rest if m[0] == day.sp]:
            if move not in rest:
                continue
            gone = with_chain(move)
            without = [m for m in rest if m not in gone]
            pg = {} if move[1] not in core else dict(zip(
                move[1:3], rank[list(move[1:3])] if rank is not None
                else star_values(day, list(move[1:3])), strict=True))
            if day.morning.prob[move[2]] > 0 and not is_core_drop(
                    move[1], move[2], to_ir=move[3], core=core, per_game=pg) and \
                    (move[:3] in self._season_only or schedule_value(day, x, steps(rest))
                     - schedule_value(day, x, steps(without)) > 1e-9):
                out.append(tuple(move[1:]))
                continue
            rest = without  # not made, nor the later moves of its chain
        self._pending = {}
        for sp, *mv in rest:
            if sp != day.sp:
                self._pending.setdefault(sp, []).append(tuple(mv))
        return out

    def core(self, day: Day) -> list[int]:
        """The roster's core players (player rows) on this morning, as the plan counts them:
        the scheduler refuses a due move whose drop has become core since the plan."""
        roster = list(day.roster)
        pool = [r for r in day.free_agents if day.morning.prob[r] > 0]
        return [roster[k] for k in self._season(day, roster + pool, len(roster)).core]

    def _season(self, day: Day, rows: list[int], n_roster: int,
                per_game: np.ndarray | None = None) -> SeasonValues:
        """Rest-of-season values of `rows` (the roster's first n_roster): core players and
        replacements on the per-game value FanVise ranks by (points: fantasy points; 9-cat:
        the neutral z value), keep values in `per_game`'s unit when given."""
        games = ros_games(day, rows)
        masks = [day.masks[r] for r in rows]
        roster, pool = list(range(n_roster)), list(range(n_roster, len(rows)))
        opts = {"position_mask": position_mask(day),
                "margin_min": CORE_MARGIN_MIN if day.settings.is_points else 0.0}
        rank = day.value[rows] if day.settings.is_points else star_values(day, rows)
        sv = season_values(rank, games, masks, roster, pool, **opts)
        if per_game is not None and not day.settings.is_points:
            sv.keep_value = season_values(per_game, games, masks, roster, pool,
                                          **opts).keep_value
        return sv

    def plan(self, day: Day) -> dict[int, list[tuple[int, int, bool]]]:
        """The plan's moves by scoring period, over the rest of the matchup."""
        if day.acquisitions_left <= 0:
            return {}
        roster = list(day.roster)
        pool = [r for r in day.free_agents if day.morning.prob[r] > 0]  # OUT free agents: no
        rows = roster + pool
        x = plan_inputs(day, rows)
        values, per_game = x.values, x.per_game
        masks = [day.masks[r] for r in rows]
        local_roster = list(range(len(roster)))
        local_pool = list(range(len(roster), len(rows)))
        # as OptimizerService.move_plan: the guardrails' stars (top 3 by per-game value; the
        # ownership rule reads percentOwned, a leak here) and, season-aware, the core
        ranked = sorted(local_roster, key=lambda k: (-day.value[roster[k]], day.keys[roster[k]]))
        protected = set(ranked[:STAR_TOP_N])
        # an OUT player may go to a free IR slot instead (never protected then)
        ir_rows = [k for k in local_roster if day.morning.prob[roster[k]] <= 0] \
            if day.ir_free > 0 and self.season else []
        kw: dict = {"ir_rows": ir_rows, "ir_slots": day.ir_free if ir_rows else 0}
        if self.season:
            sv = self._season(day, rows, len(roster), per_game)
            protected |= set(sv.core)
            kw["keep_value"] = sv.keep_value
            kw["sticky_adds"] = sv.core_adds  # as move_plan: a core-level add is kept
        sol = best_plan(values, masks, day.caps, [day.keys[r] for r in rows], local_roster,
                        local_pool, day.acquisitions_left,
                        protected=protected - set(ir_rows), **kw)
        out: dict[int, list[tuple[int, int, bool]]] = {}
        steps = sorted(sol.steps, key=lambda s: s.day)
        for s, gain in zip(steps, weekly_gains(day, x, steps), strict=True):
            out.setdefault(day.days[s.day], []).append((rows[s.drop], rows[s.add], s.to_ir))
            if gain <= 1e-9:
                self._season_only.add((day.days[s.day], rows[s.drop], rows[s.add]))
        return out


def ros_games(day: Day, rows: list[int]) -> np.ndarray:
    """Games each row is expected to play after the matchup until the season ends, as
    OptimizerService.ros_games counts them: an OUT player's from his return, which is never
    known here, so HOLD_WINDOW_DAYS from today on."""
    after = len(day.days)
    out = day.schedule[rows, after:].sum(axis=1).astype(float)
    for k, r in enumerate(rows):
        if day.morning.prob[r] <= 0:
            out[k] = day.schedule[r, max(after, HOLD_WINDOW_DAYS):].sum()
    return out


def star_values(day: Day, rows: list[int]) -> np.ndarray:
    """Category leagues' neutral per-game value of `rows` (OptimizerService._cat_star_values):
    the sum of per-category z-scores, percentages as volume-weighted impact, each category
    scaled on the whole player population known that morning (every player with a game)."""
    x = per_game_impact(day.morning.per_game, categories(day.settings))
    has = day.morning.games > 0
    pop = x[has] if has.any() else x
    sd = pop.std(axis=0)
    z = (x[rows] - pop.mean(axis=0)) / np.where(sd > 0, sd, 1.0) * (sd > 0)
    return z.sum(axis=1)


def position_mask(day: Day) -> int:
    """Bits of the position slots (PG, SG, SF, PF, C) in the plan's slot-type masks."""
    return sum(1 << k for k, s in enumerate(day.slot_ids) if s in POSITION_SLOTS)



@dataclass
class PlanInputs:
    """What a plan is solved on, for `rows`: values (rows, days left) in the plan's unit and
    the same value per game; in 9-cat also the expected stats (rows, days, STATS), the
    matchup and the categories (to value a schedule in expected categories won)."""

    rows: list[int]
    values: np.ndarray
    per_game: np.ndarray
    stats: np.ndarray | None = None
    matchup: Matchup | None = None
    cats: list | None = None


def plan_inputs(day: Day, rows: list[int]) -> PlanInputs:
    """Expected fantasy points (points) or the gradient of expected categories won against
    the opponent (9-cat) of `rows` (the roster first), as FanVise builds them."""
    exp = day.expected[rows]
    if day.settings.is_points:
        return PlanInputs(rows, exp * day.value[rows][:, None], day.value[rows])
    cats = categories(day.settings)
    per = day.morning.per_game
    stats = exp[:, :, None] * per[rows][:, None, :]
    m = Matchup(day.my_totals, day.opp_totals, opponent_remaining(day))
    roster_rows = list(range(len(day.roster)))
    masks = [day.masks[r] for r in rows]
    keys = [day.keys[r] for r in rows]
    w, _ = baseline_weights(cats, stats, exp > 0, masks, day.caps, keys, roster_rows, m)
    return PlanInputs(rows, np.maximum(np.einsum("idk,k->id", stats, w), 0.0) * (exp > 0),
                      np.maximum(per[rows] @ w, 0.0), stats, m, cats)


def schedule_value(day: Day, x: PlanInputs, steps: list[PlanStep]) -> float:
    """This matchup's value of the roster with `steps` (local rows, each from its day on):
    fantasy points, or expected categories won (weekly_plan's units)."""
    masks = [day.masks[r] for r in x.rows]
    keys = [day.keys[r] for r in x.rows]
    members = apply_steps(list(range(len(day.roster))), steps, x.values.shape[1])
    if x.stats is None:
        return evaluate_members(x.values, masks, day.caps, keys, members)[0]
    lineups = DayLineups(x.values, masks, day.caps, keys)
    total = np.zeros(x.stats.shape[2])
    for d, mem in enumerate(members):
        starters = lineups.day(d, mem)[0]
        if starters:
            total += x.stats[starters, d].sum(axis=0)
    return float(expected_wins(x.cats, total, x.matchup))


def weekly_gains(day: Day, x: PlanInputs, steps: list[PlanStep]) -> list[float]:
    """What each step (in day order) adds to this matchup: the schedule with it against the
    schedule without it and the later steps dropping the player it adds (the card's
    expected_gain; 0 for a move made for the rest of the season)."""
    total = schedule_value(day, x, steps)
    out = []
    for i, step in enumerate(steps):
        gone = [step]
        for other in steps[i + 1:]:
            if any(g.add == other.drop for g in gone):
                gone.append(other)
        out.append(total - schedule_value(day, x, [s for s in steps if s not in gone]))
    return out


def opponent_remaining(day: Day) -> np.ndarray:
    """The opponent's projected stat totals over the days left: his best lineup each day on
    the morning's per-game values, times expected stats."""
    return projected_totals(day.opponent, day.value, day.expected, day.morning.per_game,
                            day.masks, day.caps, day.keys)


__all__ = ["FanVisePlan", "LineupsOnly", "PlanInputs", "StreamingRule", "opponent_remaining",
           "plan_inputs", "schedule_value"]
