"""Rest-of-season value: replacement levels, value above replacement, core and replaceable.

A plan's moves are judged on this matchup AND on the rest of the season.  The season part is a
terminal value of the roster at the end of the planning horizon (plan.best_plan's
`keep_value`): every player on the roster then is worth his rest-of-season (ROS) value above
replacement,

    keep[i] = max(0,  per_game[i] * games_left[i]  -  max(per_game[y] * games_left[y]
                                                          for free agents y at i's positions))

where games_left counts the games after the horizon until the season ends (the caller decides
availability: an OUT player's games before his return are not counted).  The best free agent
at a player's positions is his replacement: dropping him costs keep[i], never less than nothing
(a roster spot can always be refilled at replacement level later).  A free agent's
replacement is the best OTHER free agent at his positions: kept at the end, he earns what he
is worth above it (the best free agent is a season upgrade, a streamer is worth 0); added and
dropped within the plan, he earns and costs nothing beyond his roster spot.  A spot freed by
moving an OUT player to the IR costs nothing, so the IR slot is used before anyone with value
above replacement is dropped.

Core players are never drop candidates: the team's CORE_TOP_N best by ROS value and by value
per game, anyone within CORE_BUFFER of the CORE_TOP_N-th best per game, and anyone whose ROS
value per game beats his replacement's by more than the margin.  The rest are replaceable.

Pure functions on arrays (rows = players, as in plan.py); no league objects, so a backtest can
call them with its own leak-free projections.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

CORE_TOP_N = 5          # the team's best players by ROS value are always core
CORE_MARGIN = 0.10      # points: core when per game > replacement's by 10% of replacement's
CORE_MARGIN_MIN = 2.0   # ... and by at least this many fantasy points per game
CORE_BUFFER = 0.95      # within 5% of the CORE_TOP_N-th best per game: core too


@dataclass
class SeasonValues:
    """ROS values of one roster and its free agents (rows into the caller's arrays).

    per_game / games_left: as given; ros = per_game * games_left;
    replacement[i]: the row of i's replacement (best free agent at i's positions by ROS value),
    -1 when there is no free agent; replacement_ros / replacement_per_game: that player's;
    keep_value = max(ros - replacement_ros, 0) (the plan's terminal value per row);
    core / replaceable: roster rows that are / are not protected from drops;
    core_adds: free agents as good per game as the team's top CORE_TOP_N (kept once added)."""

    per_game: np.ndarray
    games_left: np.ndarray
    ros: np.ndarray
    replacement: np.ndarray
    replacement_ros: np.ndarray
    replacement_per_game: np.ndarray
    keep_value: np.ndarray
    core: list[int] = field(default_factory=list)
    replaceable: list[int] = field(default_factory=list)
    core_adds: list[int] = field(default_factory=list)  # free agents who would be core

    def above_per_game(self, i: int) -> float:
        """Per-game value of row i above his replacement's."""
        return float(self.per_game[i] - self.replacement_per_game[i])


def replacement_levels(ros: Sequence[float] | np.ndarray, masks: Sequence[int], rows: Sequence[int],
                       pool: Sequence[int], *, position_mask: int = -1
                       ) -> tuple[np.ndarray, np.ndarray]:
    """For each row in `rows`: (replacement row, replacement ROS value) arrays of length
    len(ros) (rows not asked for: -1 / 0).  The replacement is the free agent in `pool` with
    the highest ROS value whose eligibility shares a position bit with the player's
    (masks & position_mask), never the player himself; with none at his positions, the best
    free agent overall; with no free agent at all, -1 and 0.0."""
    ros_arr = np.asarray(ros, dtype=float)
    rep = np.full(len(ros_arr), -1, dtype=np.int64)
    rep_ros = np.zeros(len(ros_arr))
    order = sorted(pool, key=lambda y: (-ros_arr[y], y))
    for i in rows:  # a free agent's replacement is the best OTHER free agent
        pos = masks[i] & position_mask
        pick = next((y for y in order if y != i and masks[y] & pos), None) if pos else None
        if pick is None:
            pick = next((y for y in order if y != i), None)
        if pick is not None:
            rep[i], rep_ros[i] = pick, ros_arr[pick]
    return rep, rep_ros


def season_values(per_game: Sequence[float] | np.ndarray,
                  games_left: Sequence[float] | np.ndarray,
                  masks: Sequence[int], roster: Sequence[int], pool: Sequence[int], *,
                  position_mask: int = -1, core_top_n: int = CORE_TOP_N,
                  margin: float | Sequence[float] | None = None,
                  margin_min: float = CORE_MARGIN_MIN) -> SeasonValues:
    """ROS values, replacements, keep values and the core / replaceable split of `roster`.

    per_game: (n,) value per game in the plan's unit (points: fantasy points; categories:
    the plan's linearised value); games_left: (n,) games each row is expected to play after
    the planning horizon; masks: slot-type eligibility bitmasks (plan.py's); roster / pool:
    rows of the team and of the free agents; position_mask: the bits of the position slots
    (PG, SG, SF, PF, C) in `masks`; core_top_n: the roster's best by ROS value and per game always core;
    margin: per-game amount above the replacement's per game that makes a player core (a
    scalar or one per row); default max(CORE_MARGIN x replacement per game, margin_min)
    (margin_min defaults to CORE_MARGIN_MIN fantasy points; pass 0 in other units).
    Rows in neither list get 0."""
    pg = np.asarray(per_game, dtype=float)
    gl = np.asarray(games_left, dtype=float)
    ros = pg * gl
    rows = list(roster) + [y for y in pool if y not in set(roster)]
    rep, rep_ros = replacement_levels(ros, masks, rows, pool, position_mask=position_mask)
    rep_pg = np.array([pg[r] if r >= 0 else 0.0 for r in rep])
    keep = np.zeros(len(pg))
    for i in rows:
        keep[i] = max(ros[i] - rep_ros[i], 0.0)
    if margin is None:
        marg = np.maximum(CORE_MARGIN * np.abs(rep_pg), margin_min)
    else:
        marg = np.broadcast_to(np.asarray(margin, dtype=float), pg.shape)
    ranked = sorted(roster, key=lambda i: (-ros[i], i))
    # the best by rest-of-season value and the best per game (an injured star with fewer
    # games left is still a star), with a buffer: a player within CORE_BUFFER of the
    # core_top_n-th best per game can be top core_top_n by the day a move is made
    by_game = sorted(roster, key=lambda i: (-pg[i], i))
    n = max(core_top_n, 0)
    top = set(ranked[:n]) | set(by_game[:n])
    if n and len(by_game) > n:
        floor = CORE_BUFFER * pg[by_game[n - 1]]
        top |= {i for i in by_game[n:] if pg[i] > 0 and pg[i] >= floor}
    core = [i for i in ranked if i in top or pg[i] - rep_pg[i] > marg[i]]
    replaceable = [i for i in ranked if i not in set(core)]
    # a free agent as good per game as the team's core: once added, kept (plan.best_plan's
    # sticky_adds), so a plan never adds a core-level player and drops him again
    k = min(CORE_TOP_N, n)  # the star bar (a wider core_top_n, e.g. spare_core, aside)
    bar = CORE_BUFFER * pg[by_game[k - 1]] if k and len(by_game) >= k else float("inf")
    core_adds = [y for y in pool if y not in set(roster) and pg[y] > 0 and pg[y] >= bar]
    return SeasonValues(pg, gl, ros, rep, rep_ros, rep_pg, keep, core, replaceable, core_adds)


def is_core_drop(drop: int, add: int, *, to_ir: bool, core: Collection[int],
                 per_game: Mapping[int, float]) -> bool:
    """The season rule of a move's day check (the scheduler, `bot.core.move_schedule`): a
    planned move whose drop is core on the morning it is due is not made, whatever it gains
    this week, since values move between the plan and the move's day (a big game makes a
    bench player a top-5 one).  Two moves are never refused for this: a move to the IR slot
    (it releases nobody) and an upgrade (the add is worth at least as much per game as the
    drop, in `per_game`'s unit)."""
    if to_ir or drop not in core:
        return False
    return per_game.get(add, 0.0) < per_game.get(drop, 0.0)


__all__ = ["CORE_BUFFER", "CORE_MARGIN", "CORE_MARGIN_MIN", "CORE_TOP_N", "SeasonValues",
           "is_core_drop", "replacement_levels", "season_values"]
