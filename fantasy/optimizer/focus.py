"""Named categories as a ranking: "I'm down in assists and steals" in a points league.

A points league scores no categories, so there is no win probability to move; the member still
asked for those categories. The ranking is the production a move adds in them over the rest of
the matchup:

    delta[a, b, c] = x[add_b, c] * games[add_b] - x[drop_a, c] * games[drop_a]

with x the expected per-game value in category c (counting stats as projected, TO negated;
percentages as volume-weighted impact, makes - pool rate x attempts) and games the expected
games left (probability that he plays, summed over the days the move covers). Categories are
put on one scale by the per-game spread of x over the players considered (a z-score per game),
and the move's score is the sum over the named categories:

    score[a, b] = sum_c delta[a, b, c] / sd_c

The exact plan's points effect of each move is evaluated separately (OptimizerService).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fantasy.optimizer.categories import Category


@dataclass
class FocusScores:
    """score[a, b] and delta[a, b, c] (display units: raw totals for counting categories,
    impact for percentages) for dropping drop_rows[a] and adding add_rows[b]."""

    score: np.ndarray
    delta: np.ndarray
    games: np.ndarray  # expected games per row


def per_game_impact(per_game: np.ndarray, cats: Sequence[Category]) -> np.ndarray:
    """(n, C) per-game value of each player in each category (higher is better)."""
    n = per_game.shape[0]
    x = np.zeros((n, len(cats)))
    for c, cat in enumerate(cats):
        if cat.is_pct:
            made, att = per_game[:, cat.stat], per_game[:, cat.attempts]
            rate = made.sum() / max(att.sum(), 1e-9)
            x[:, c] = made - rate * att
        else:
            x[:, c] = per_game[:, cat.stat] * (-1.0 if cat.reverse else 1.0)
    return x


def focus_scores(per_game: np.ndarray, games: np.ndarray, cats: Sequence[Category],
                 drop_rows: Sequence[int], add_rows: Sequence[int]) -> FocusScores:
    """Score every (drop, add) pair on the named categories (see the module docstring).

    per_game: (n, K) expected raw stats per game; games: (n,) expected games left."""
    x = per_game_impact(per_game, cats)
    rows = list(drop_rows) + list(add_rows)
    sd = x[rows].std(axis=0) if rows else np.ones(len(cats))
    sd = np.where(sd > 1e-9, sd, 1.0)
    total = x * games[:, None]                                   # (n, C)
    display = np.array(total)
    for c, cat in enumerate(cats):  # show TO as turnovers (more is worse), not negated
        if cat.reverse and not cat.is_pct:
            display[:, c] = -display[:, c]
    d = np.asarray(list(drop_rows), dtype=int)
    a = np.asarray(list(add_rows), dtype=int)
    delta = display[a][None, :, :] - display[d][:, None, :]     # (A, B, C)
    scaled = (total[a][None, :, :] - total[d][:, None, :]) / sd
    return FocusScores(scaled.sum(axis=2), delta, games)


__all__ = ["FocusScores", "focus_scores", "per_game_impact"]
