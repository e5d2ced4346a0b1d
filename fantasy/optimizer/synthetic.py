"""Seeded synthetic leagues for property tests and benchmarks (not used at run time).

ESPN default slots (PG, SG, SF, PF, C, G, F, UT x3), realistic multi-position eligibility, a
heavy/light weekly NBA slate (about 3.2 games per player-week), ESPN default points scoring,
nine-category raw stats.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fantasy.optimizer.categories import DEFAULT_DISPERSION, Category, Matchup
from fantasy.optimizer.lineup import SlotLayout

DEFAULT_COUNTS = {0: 1, 1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 11: 3, 12: 3, 13: 1}
POS_SLOTS = {"PG": (0, 5, 8, 11), "SG": (1, 5, 7, 8, 11), "SF": (2, 6, 7, 8, 10, 11),
             "PF": (3, 6, 8, 9, 10, 11), "C": (4, 9, 10, 11)}
PROFILES = [
    (("PG",), 0.11), (("PG", "SG"), 0.12), (("SG",), 0.07), (("SG", "SF"), 0.12),
    (("SF",), 0.06), (("SF", "PF"), 0.12), (("PF",), 0.07), (("PF", "C"), 0.12),
    (("C",), 0.12), (("PG", "SG", "SF"), 0.03), (("SG", "SF", "PF"), 0.02),
    (("SF", "PF", "C"), 0.02),
]
STATS = ["PTS", "REB", "AST", "STL", "BLK", "3PM", "TO", "FGM", "FGA", "FTM", "FTA"]
POINTS = {"PTS": 1, "3PM": 1, "FGA": -1, "FGM": 2, "FTA": -1, "FTM": 1, "REB": 1, "AST": 2,
          "STL": 4, "BLK": 4, "TO": -2}
DAY_PROB = np.array([0.75, 0.35, 0.9, 0.3, 0.85, 0.55, 0.7])


def nine_cats() -> list[Category]:
    ix = {s: k for k, s in enumerate(STATS)}
    cats = [Category(c, ix[c], reverse=(c == "TO"), dispersion=DEFAULT_DISPERSION[c])
            for c in ("PTS", "REB", "AST", "STL", "BLK", "3PM", "TO")]
    cats += [Category("FG%", ix["FGM"], ix["FGA"]), Category("FT%", ix["FTM"], ix["FTA"])]
    return cats


def eligible_slots(pos: tuple[str, ...]) -> tuple[int, ...]:
    return tuple(sorted({s for p in pos for s in POS_SLOTS[p]} | {12, 13}))


@dataclass
class SyntheticLeague:
    layout: SlotLayout
    keys: list[int]
    slots: list[tuple[int, ...]]
    masks: list[int]
    values: np.ndarray  # (players, days) fantasy points, 0 when not playing
    stats: np.ndarray   # (players, days, K) expected raw stats if he plays
    plays: np.ndarray   # (players, days) bool
    roster: list[int]
    pool: list[int]
    matchup: Matchup


def _player_stats(rng: np.random.Generator, pos: tuple[str, ...], q: float) -> np.ndarray:
    big = "C" in pos or pos == ("PF",)
    guard = "PG" in pos
    pts = 7 + 22 * q + rng.normal(0, 2)
    reb = (6 + 6 * q) if big else (2 + 2.5 * q if guard else 2.5 + 4 * q)
    ast = (4 + 5 * q) if guard else (1 + 3 * q)
    stl = max(0.5 + 0.9 * q + rng.normal(0, 0.15), 0.2)
    blk = (0.7 + 1.6 * q) if big else (0.2 + 0.4 * q)
    tpm = (0.2 + 1.0 * q) if big else (0.8 + 2.5 * q)
    tov = 0.8 + 2.4 * q + (0.6 if guard else 0)
    fgp = (0.52 + 0.08 * rng.random()) if big else (0.42 + 0.07 * rng.random())
    ftp = (0.62 + 0.16 * rng.random()) if big else (0.76 + 0.14 * rng.random())
    fta = 0.22 * pts
    ftm = fta * ftp
    fgm = max((pts - ftm - tpm) / 2.0, 0.5)
    return np.maximum([pts, reb, ast, stl, blk, tpm, tov, fgm, fgm / fgp, ftm, fta], 0.0)


def make_league(seed: int, n_roster: int = 13, n_fa: int = 50, n_days: int = 7,
                n_ir: int = 0) -> SyntheticLeague:
    """One team's week: roster rows first, then free agents; `n_ir` roster players are out."""
    rng = np.random.default_rng(seed)
    sched = np.zeros((30, n_days), dtype=bool)
    for t in range(30):
        while True:
            row = rng.random(n_days) < DAY_PROB[:n_days]
            if 2 <= row.sum() <= 4:
                break
        sched[t] = row
    probs = np.array([p for _, p in PROFILES])
    probs /= probs.sum()
    layout = SlotLayout.from_counts(DEFAULT_COUNTS)
    weights = np.array([POINTS[s] for s in STATS], dtype=float)
    n = n_roster + n_fa
    slots, masks, stats, plays, values = [], [], [], [], []
    for k in range(n):
        pos = PROFILES[rng.choice(len(PROFILES), p=probs)][0]
        q = rng.uniform(0.15, 0.6) if k >= n_roster else rng.uniform(0.45, 1.0)
        st = _player_stats(rng, pos, q)
        p = sched[int(rng.integers(30))].copy()
        p &= rng.random(n_days) >= 0.05
        if k < n_ir:
            p[:] = False
        factor = np.clip(rng.normal(1.0, 0.1, n_days), 0.6, 1.4)
        sl = eligible_slots(pos)
        slots.append(sl)
        masks.append(layout.mask(sl))
        day_stats = st[None, :] * factor[:, None]
        stats.append(day_stats)
        plays.append(p)
        values.append(np.where(p, np.maximum(day_stats @ weights, 0.0), 0.0))
    stats_a = np.array(stats)
    plays_a = np.array(plays)
    # Opponent: a roster of similar quality, every game counted; both teams start from zero.
    opp = np.array([_player_stats(rng, PROFILES[rng.choice(len(PROFILES), p=probs)][0],
                                  rng.uniform(0.45, 1.0)) for _ in range(10)])
    opp_rem = opp.sum(axis=0) * 3.2 * 0.97
    zero = np.zeros(len(STATS))
    return SyntheticLeague(layout, [1000 + k for k in range(n)], slots, masks, np.array(values),
                           stats_a, plays_a, list(range(n_roster)),
                           list(range(n_roster, n)), Matchup(zero, zero.copy(), opp_rem))


def random_day(rng: np.random.Generator, n_players: int | None = None, stress: bool = False
               ) -> tuple[list[float], list[int], list[int]]:
    """One day's (values, masks, caps); stress=True randomises slot counts and eligibility."""
    if n_players is None:
        n_players = int(rng.integers(0, 16))
    layout = SlotLayout.from_counts(DEFAULT_COUNTS)
    if stress:
        caps = [int(rng.integers(0, 3)) for _ in range(7)] + [int(rng.integers(0, 4))]
        masks = [int(rng.integers(0, 1 << 7)) | ((1 << 7) if rng.random() < 0.9 else 0)
                 for _ in range(n_players)]
    else:
        caps = list(layout.caps)
        probs = np.array([p for _, p in PROFILES])
        probs /= probs.sum()
        masks = [layout.mask(eligible_slots(PROFILES[rng.choice(len(PROFILES), p=probs)][0]))
                 for _ in range(n_players)]
    values = [float(np.round(max(rng.normal(30, 10), 0.0), 1)) for _ in range(n_players)]
    return values, masks, caps
