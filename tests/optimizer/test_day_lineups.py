"""DayLineups (one solve per distinct day and roster) gives evaluate_members the same value
and starts as solving every day alone with solve_day, bit for bit."""

from __future__ import annotations

import numpy as np

from fantasy.optimizer.plan import DayLineups, evaluate_members
from fantasy.optimizer.synthetic import make_league


def test_memoised_days_equal_fresh_solves():
    for seed in range(30):
        rng = np.random.default_rng(seed)
        lg = make_league(3_000 + seed, n_fa=12, n_days=int(rng.integers(2, 8)))
        values = lg.values.copy()
        if seed % 2:
            values = np.round(np.where(lg.plays, values.max(axis=1)[:, None], 0.0) / 5) * 5
        memo = DayLineups(values, lg.masks, lg.layout.caps, lg.keys)
        n_days = values.shape[1]
        for _ in range(20):
            members = []
            for _d in range(n_days):
                swap = rng.choice(lg.pool, size=int(rng.integers(0, 3)), replace=False)
                out = rng.choice(lg.roster, size=len(swap), replace=False)
                members.append([i for i in lg.roster if i not in set(out)] + list(swap))
            fresh = evaluate_members(values, lg.masks, lg.layout.caps, lg.keys, members)
            again = evaluate_members(values, lg.masks, lg.layout.caps, lg.keys, members,
                                     lineups=memo)
            assert fresh == again  # same floats, same starts
