"""An independent implementation of the backtest's streaming rule, to check its win rate.

It shares only the inputs with `fantasy.backtest` (the recorded season, each morning's
per-game values and chances to play) and none of its code: its own roster bookkeeping, its
own lineups for both teams (an exact assignment by scipy's `linear_sum_assignment` on
per-game value x chance to play, in both variants; the opponent keeps his roster) and its
own scoring. The rule, as a diligent manager plays it each morning:

* a player back from OUT leaves the IR slot; the lowest-valued player outside the roster's
  top 5 is released for him;
* an OUT player goes to a free IR slot and the best free agent playing today takes his spot;
* the best free agent playing today replaces the lowest-valued player outside the top 5
  whose team is idle today, when he is worth more (one swap a day);
* within the league's acquisitions per matchup; a player on waivers (the demo's list, or
  dropped in the last two days) is not added.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from fantasy.backtest.data import STATS, SeasonData
from fantasy.backtest.knowledge import Knowledge, categories
from fantasy.constants import SLOT_BENCH, SLOT_IR, STARTING_SLOTS

TOP = 5


def _starters(rows: list[int], worth: np.ndarray, eligible: list[tuple[int, ...]],
              slots: list[int]) -> list[int]:
    """The rows that start: the assignment of rows to slots maximising summed worth."""
    if not rows:
        return []
    gain = np.zeros((len(rows), len(slots)))
    for i, r in enumerate(rows):
        for j, s in enumerate(slots):
            gain[i, j] = worth[r] + 1e-6 if s in eligible[r] else -1e9
    ri, ci = linear_sum_assignment(gain, maximize=True)
    return [rows[i] for i, j in zip(ri, ci, strict=True) if gain[i, j] > 1e-6 + 1e-12
            and worth[rows[i]] > 0]


def _top(roster: list[int], value: np.ndarray, ids: list[int]) -> set[int]:
    """The roster's top TOP players by per-game value."""
    return set(sorted(roster, key=lambda r: (-value[r], ids[r]))[:TOP])


def _won(settings, mine: np.ndarray, theirs: np.ndarray) -> tuple[float, float]:
    if settings.is_points:
        w = np.array([settings.scoring_weights.get(s, 0.0) for s in STATS])
        return float(mine @ w), float(theirs @ w)
    a = b = 0
    for c in categories(settings):
        x = mine[c.stat] / mine[c.attempts] if c.attempts is not None else mine[c.stat]
        y = theirs[c.stat] / theirs[c.attempts] if c.attempts is not None else theirs[c.stat]
        if c.attempts is not None:
            x = x if mine[c.attempts] else 0.0
            y = y if theirs[c.attempts] else 0.0
        if c.reverse:
            x, y = y, x
        a += x > y
        b += y > x
    return float(a), float(b)


def streaming_season(data: SeasonData, know: Knowledge, variant: str, team: int,
                     periods: list[int]) -> list[float]:
    """The streaming rule's results (1 win, 0.5 tie, 0 loss) per matchup period."""
    settings = data.settings[variant]
    counts = settings.lineup_slot_counts
    slots = [s for s in sorted(counts) if s in STARTING_SLOTS for _ in range(counts[s])]
    ir_slots = int(counts.get(SLOT_IR, 0))
    idx = data.index
    roster = [idx[p] for p in data.rosters[team]]
    owned = {idx[p] for t, ps in data.rosters.items() if t != team for p in ps}
    waivers = {idx[p] for p in data.waivers if p in idx}
    ir: list[int] = []
    dropped: dict[int, int] = {}
    out = []
    for period in periods:
        opp = data.matchup_of(team, period).opponent(team)
        limit = settings.acquisition_limit_for(period)
        left = 10 ** 6 if limit is None else limit
        mine, theirs = np.zeros(len(STATS)), np.zeros(len(STATS))
        for sp in data.period_sps(variant, period):
            value, prob = know.value(variant, sp), know.morning(sp).prob
            plays = data.team_games[data.pro_team, sp]
            today = value * prob * plays
            blocked = waivers | {r for r, d in dropped.items() if sp - d < 2}

            for r in [r for r in ir if prob[r] > 0]:
                ir.remove(r)
                roster.append(r)
                keep = _top(roster, value, data.ids)
                cut = min((q for q in roster if q not in keep and q != r),
                          key=lambda q: (value[q], data.ids[q]))
                roster.remove(cut)
                dropped[cut] = sp
            free = sorted((r for r in range(len(data.ids)) if r not in owned
                           and r not in roster and r not in ir and r not in blocked
                           and today[r] > 0), key=lambda r: (-today[r], data.ids[r]))
            hurt = sorted((r for r in roster if prob[r] <= 0),
                          key=lambda r: (-value[r], data.ids[r]))
            for r in hurt[:ir_slots - len(ir)]:
                if left <= 0 or not free:
                    break
                add = free.pop(0)
                roster.remove(r)
                ir.append(r)
                roster.append(add)
                left -= 1
            if left > 0 and free:
                keep = _top(roster, value, data.ids)
                idle = [r for r in roster if r not in keep and not plays[r]]
                if idle:
                    cut = min(idle, key=lambda r: (value[r], data.ids[r]))
                    if today[free[0]] > value[cut]:
                        roster.remove(cut)
                        roster.append(free[0])
                        dropped[cut] = sp
                        left -= 1
            start = _starters(sorted(roster), today, data.eligible, slots)
            mine += data.box[start, sp].sum(axis=0) if start else 0.0
            them = _starters(sorted(idx[p] for p in data.rosters[opp]), today, data.eligible,
                             slots)
            theirs += data.box[them, sp].sum(axis=0) if them else 0.0
        a, b = _won(settings, mine, theirs)
        out.append(1.0 if a > b else 0.5 if a == b else 0.0)
    assert SLOT_BENCH not in slots
    return out
