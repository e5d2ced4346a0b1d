"""H2H categories: expected categories won against the actual opponent, and the move scan.

Model (normal approximation per category, documented in shared/reference/optimizer.md):
* counting category c: my final total T_m = current + remaining starters' projected stats, the
  same for the opponent; the remaining part is random with variance = dispersion_c x its mean
  (dispersion = var/mean per game, e.g. PTS 6, REB 2.5).  P(win) = Phi(s (T_m - T_o) / sd) with
  s = -1 for reversed categories (TO).  Categories already decided have a large |z|, so they
  contribute ~0 to any gain.
* percentage category (FG%, FT%): p = total makes / total attempts; the variance of the remaining
  makes is PCT_INFLATION x p(1-p) x remaining attempts, so var(p) = that / total attempts^2.

The scan chooses daily lineups with the exact matroid assignment on *linearised* values (the
gradient of expected categories won with respect to the raw stat totals, taken at the baseline,
twice), then evaluates every move's expected categories won exactly, in one vectorised pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fantasy.optimizer.scan import DayEvaluator

VAR_FLOOR = 0.5  # variance floor for counting stats (integer granularity)
PCT_FLOOR = 1e-6
PCT_INFLATION = 2.25  # 1.5^2: attempts themselves vary, not only the make rate
DEFAULT_DISPERSION = {"PTS": 6.0, "REB": 2.5, "AST": 2.0, "STL": 1.1, "BLK": 1.3, "3PM": 1.3,
                      "TO": 1.3}


@dataclass(frozen=True)
class Category:
    """One scored category over raw stat columns.  Counting: `stat` column; percentage: `stat` =
    makes column and `attempts` = attempts column.  `reverse`: lower wins (TO)."""

    name: str
    stat: int
    attempts: int | None = None
    reverse: bool = False
    dispersion: float = 1.5

    @property
    def is_pct(self) -> bool:
        return self.attempts is not None


@dataclass(frozen=True)
class Matchup:
    """Raw stat vectors (length K) for the rest of the matchup: current totals of both teams and
    the opponent's projected remaining totals."""

    my_current: np.ndarray
    opp_current: np.ndarray
    opp_remaining: np.ndarray


def win_probabilities(cats: Sequence[Category], my_rem: np.ndarray, m: Matchup) -> np.ndarray:
    """P(win) per category; my_rem has shape (K,) or (n, K); returns (n_cats,) or (n, n_cats)."""
    from scipy.special import ndtr  # noqa: PLC0415 - scipy only for category leagues

    rem = np.atleast_2d(np.asarray(my_rem, dtype=float))
    out = np.empty((rem.shape[0], len(cats)))
    for k, c in enumerate(cats):
        if c.is_pct:
            a = c.attempts
            mk_m, at_m = m.my_current[c.stat] + rem[:, c.stat], m.my_current[a] + rem[:, a]
            mk_o, at_o = (m.opp_current[c.stat] + m.opp_remaining[c.stat],
                          m.opp_current[a] + m.opp_remaining[a])
            p_m = mk_m / np.maximum(at_m, 1e-9)
            p_o = mk_o / max(at_o, 1e-9)
            pbar = np.clip(0.5 * (p_m + p_o), 0.05, 0.95)
            var = PCT_INFLATION * pbar * (1 - pbar) * (
                rem[:, a] / np.maximum(at_m, 1e-9) ** 2 + m.opp_remaining[a] / max(at_o, 1e-9) ** 2)
            z = (p_m - p_o) / np.sqrt(var + PCT_FLOOR ** 2)
        else:
            s = c.stat
            diff = (m.my_current[s] + rem[:, s]) - (m.opp_current[s] + m.opp_remaining[s])
            var = c.dispersion * (np.maximum(rem[:, s], 0) + max(m.opp_remaining[s], 0)) + VAR_FLOOR
            z = diff / np.sqrt(var)
        out[:, k] = ndtr(-z if c.reverse else z)
    return out[0] if np.ndim(my_rem) == 1 else out


def expected_wins(cats: Sequence[Category], my_rem: np.ndarray, m: Matchup) -> np.ndarray | float:
    """Expected number of categories won (vectorised over rows of my_rem)."""
    p = win_probabilities(cats, my_rem, m)
    return p.sum(axis=-1) if p.ndim > 1 else float(p.sum())


def gradient_weights(cats: Sequence[Category], my_rem: np.ndarray, m: Matchup,
                     n_stats: int) -> np.ndarray:
    """d E[categories won] / d (my remaining raw stat totals) at my_rem (variance held fixed)."""
    w = np.zeros(n_stats)
    rem = np.asarray(my_rem, dtype=float)
    for c in cats:
        if c.is_pct:
            a = c.attempts
            mk_m, at_m = m.my_current[c.stat] + rem[c.stat], m.my_current[a] + rem[a]
            mk_o, at_o = (m.opp_current[c.stat] + m.opp_remaining[c.stat],
                          m.opp_current[a] + m.opp_remaining[a])
            at_m_s, at_o_s = max(at_m, 1e-9), max(at_o, 1e-9)
            p_m, p_o = mk_m / at_m_s, mk_o / at_o_s
            pbar = min(max(0.5 * (p_m + p_o), 0.05), 0.95)
            var = PCT_INFLATION * pbar * (1 - pbar) * (rem[a] / at_m_s ** 2
                                                       + m.opp_remaining[a] / at_o_s ** 2)
            sd = float(np.sqrt(var + PCT_FLOOR ** 2))
            g = float(np.exp(-0.5 * ((p_m - p_o) / sd) ** 2) / np.sqrt(2 * np.pi)) / sd
            w[c.stat] += g / at_m_s
            w[a] -= g * mk_m / at_m_s ** 2
        else:
            s = c.stat
            diff = (m.my_current[s] + rem[s]) - (m.opp_current[s] + m.opp_remaining[s])
            sd = float(np.sqrt(c.dispersion * (max(rem[s], 0) + max(m.opp_remaining[s], 0))
                               + VAR_FLOOR))
            g = float(np.exp(-0.5 * (diff / sd) ** 2) / np.sqrt(2 * np.pi)) / sd
            w[s] += -g if c.reverse else g
    return w


@dataclass
class CategoryPlan:
    """Lineups for a roster under linear weights: remaining stat totals per day and in total."""

    day_totals: list[np.ndarray]
    total: np.ndarray
    starts: int
    starters: list[list[int]]


def plan_categories(stats: np.ndarray, plays: np.ndarray, masks: Sequence[int],
                    caps: Sequence[int], keys: Sequence[int], members: Sequence[int],
                    weights: np.ndarray) -> CategoryPlan:
    """Exact daily lineups of `members` maximising the linear value stats . weights.

    stats: (players, days, K) expected stats if he plays; plays: (players, days) bool."""
    lin = np.maximum(np.einsum("idk,k->id", stats, weights), 0.0) * plays
    ev = DayEvaluator(lin, masks, caps, keys)
    n_days, n_k = stats.shape[1], stats.shape[2]
    days, starters = [], []
    for d in range(n_days):
        st = ev.starters(ev.order(members, d))
        starters.append(st)
        days.append(stats[st, d].sum(axis=0) if st else np.zeros(n_k))
    total = np.sum(days, axis=0) if days else np.zeros(n_k)
    return CategoryPlan(days, total, sum(len(s) for s in starters), starters)


def baseline_weights(cats: Sequence[Category], stats: np.ndarray, plays: np.ndarray,
                     masks: Sequence[int], caps: Sequence[int], keys: Sequence[int],
                     roster: Sequence[int], m: Matchup) -> tuple[np.ndarray, CategoryPlan]:
    """Linearise twice around the roster's plan (first around 'everyone who plays')."""
    n_k = stats.shape[2]
    everyone = (stats[list(roster)] * plays[list(roster)][:, :, None]).sum(axis=(0, 1))
    w = gradient_weights(cats, everyone, m, n_k)
    plan = plan_categories(stats, plays, masks, caps, keys, roster, w)
    w = gradient_weights(cats, plan.total, m, n_k)
    plan = plan_categories(stats, plays, masks, caps, keys, roster, w)
    return w, plan


@dataclass
class CategoryScan:
    """gains[a, b] = change in expected categories won; cat_delta[a, b, c] per category."""

    base_expected: float
    base_probs: np.ndarray
    base_total: np.ndarray
    weights: np.ndarray
    drop_ids: list[int]
    add_ids: list[int]
    gains: np.ndarray
    cat_delta: np.ndarray
    starts_delta: np.ndarray


def scan_categories(cats: Sequence[Category], stats: np.ndarray, plays: np.ndarray,
                    masks: Sequence[int], caps: Sequence[int], keys: Sequence[int],
                    roster: Sequence[int], drops: Sequence[int], adds: Sequence[int],
                    m: Matchup, *, first_day: int = 0) -> CategoryScan:
    """Every (drop, add) pair: lineups on the linearised weights (exact assignment, with the same
    pruning as the points scan), then exact expected categories won for each resulting total."""
    stats = np.asarray(stats, dtype=float)
    plays = np.asarray(plays, dtype=bool)
    roster, drops, adds = list(roster), list(drops), list(adds)
    n_k = stats.shape[2]
    n_days = stats.shape[1]
    w, base = baseline_weights(cats, stats, plays, masks, caps, keys, roster, m)
    lin = np.maximum(np.einsum("idk,k->id", stats, w), 0.0) * plays
    ev = DayEvaluator(lin, masks, caps, keys)
    tots = np.repeat(base.total[None, None, :], len(drops), 0).repeat(len(adds), 1)
    sdelta = np.zeros((len(drops), len(adds)), dtype=int)
    for d in range(first_day, n_days):
        order = ev.order(roster, d)
        st = base.starters[d]
        started = set(st)
        b_day = base.day_totals[d]
        n_st = len(st)
        cy: dict[int, tuple[np.ndarray, int]] = {}
        for a, x in enumerate(drops):
            if lin[x, d] > 0 and x in started:
                rest = [i for i in order if i != x]
                s = ev.starters(rest)
                only_x = (stats[s, d].sum(axis=0) if s else np.zeros(n_k)) - b_day
                for b, y in enumerate(adds):
                    if lin[y, d] > 0:
                        s2 = ev.starters(ev.insert(rest, y, d))
                        tots[a, b] += stats[s2, d].sum(axis=0) - b_day
                        sdelta[a, b] += len(s2) - n_st
                    else:
                        tots[a, b] += only_x
                        sdelta[a, b] += len(s) - n_st
            else:
                for b, y in enumerate(adds):
                    if lin[y, d] > 0:
                        if b not in cy:
                            s2 = ev.starters(ev.insert(order, y, d))
                            cy[b] = (stats[s2, d].sum(axis=0) - b_day, len(s2) - n_st)
                        tots[a, b] += cy[b][0]
                        sdelta[a, b] += cy[b][1]
    base_p = win_probabilities(cats, base.total, m)
    e0 = float(base_p.sum())
    flat = tots.reshape(-1, n_k) if tots.size else np.zeros((0, n_k))
    probs = win_probabilities(cats, flat, m) if len(flat) else np.zeros((0, len(cats)))
    probs = probs.reshape(len(drops), len(adds), len(cats))
    return CategoryScan(e0, base_p, base.total, w, [keys[i] for i in drops],
                        [keys[i] for i in adds], probs.sum(axis=2) - e0,
                        probs - base_p[None, None, :], sdelta)
