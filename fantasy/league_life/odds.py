"""Playoff odds: seeded simulations of the remaining regular-season matchups.

Each remaining matchup is decided by the preview's model (`projection.Projector`): in a
points league or a most-categories league the home side wins with its win probability (a
tie with the tie probability); in a category league (each category counts in the record)
each category is won with its own probability. A simulated season ranks the teams the
league's way: record ((wins + ½ ties) / games), then the league's seeding rule (ESPN
`playoffSeedingRule`: H2H_RECORD = the tied teams' record against each other), then points
for (each team's served points for plus its projected points), then team id. The top
`spots` teams make the playoffs.

"Clinched" and "eliminated" come from an exact bound, never from the simulations: clinched
when fewer than `spots` other teams can reach the team's worst possible record (it loses
everything left), eliminated when at least `spots` teams are sure to finish with a better
record than its best possible one. Otherwise a share of 0 or 1 in the simulations shows as
"<0.1%" or ">99.9%". With no game left the odds are not computable.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

SIMULATIONS = 10_000


@dataclass(frozen=True)
class Record:
    """A team's standing: wins, losses, ties (matchups, or categories in a category
    league) and points for."""

    wins: float = 0.0
    losses: float = 0.0
    ties: float = 0.0
    points_for: float = 0.0

    @property
    def games(self) -> float:
        """Games counted."""
        return self.wins + self.losses + self.ties


@dataclass(frozen=True)
class Game:
    """One remaining matchup. `p_home` / `p_tie`: P(home wins) and P(tie) of the matchup;
    `category_probs`: P(home wins each category) in a category league (then each category
    counts in the record); `pf_home` / `pf_away`: the points each side is projected to add
    to its points for."""

    period: int
    home: int
    away: int
    p_home: float
    p_tie: float = 0.0
    category_probs: tuple[float, ...] = ()
    pf_home: float = 0.0
    pf_away: float = 0.0

    @property
    def units(self) -> int:
        """Record games this matchup adds per side (1, or the number of categories)."""
        return len(self.category_probs) or 1


@dataclass(frozen=True)
class TeamOdds:
    """A team's odds: playoff share and the share of each seed (1..spots)."""

    team_id: int
    playoff: float
    seeds: tuple[float, ...]
    clinched: bool = False
    eliminated: bool = False

    def text(self) -> str:
        """"clinched", "eliminated", "<0.1%", ">99.9%" or "62.3%"."""
        return pct_text(self.playoff, clinched=self.clinched, eliminated=self.eliminated)


def pct_text(p: float, *, clinched: bool = False, eliminated: bool = False) -> str:
    """A simulated share as shown: an exact bound's word, or never 0% / 100% from the
    simulations alone."""
    if clinched:
        return "clinched"
    if eliminated:
        return "eliminated"
    if p < 0.001:
        return "<0.1%"
    if p > 0.999:
        return ">99.9%"
    return f"{p * 100:.1f}%"


@dataclass
class PlayoffOdds:
    """The odds table (best odds first); `computable` False when no game is left."""

    spots: int
    simulations: int
    seed: int
    rule: str
    games_left: int
    teams: list[TeamOdds] = field(default_factory=list)

    @property
    def computable(self) -> bool:
        """True when there is something left to simulate."""
        return self.games_left > 0

    def team(self, team_id: int) -> TeamOdds | None:
        """The odds of one team."""
        return next((t for t in self.teams if t.team_id == team_id), None)


def default_seed(league_id: int, season: int, day: str) -> int:
    """The seed of a league's odds on a day (the same day gives the same odds)."""
    return int(hashlib.sha256(f"{league_id}:{season}:{day}".encode()).hexdigest()[:8], 16)


def bounds(records: Mapping[int, Record], games: Sequence[Game], spots: int
           ) -> tuple[set[int], set[int]]:
    """(clinched, eliminated) team ids by the exact bound of the module docstring."""
    left: dict[int, int] = {t: 0 for t in records}
    for g in games:
        left[g.home] = left.get(g.home, 0) + g.units
        left[g.away] = left.get(g.away, 0) + g.units

    def pct(w: float, t: float, n: float) -> float:
        return (w + t / 2) / n if n else 0.0

    lo = {t: pct(r.wins, r.ties, r.games + left[t]) for t, r in records.items()}
    hi = {t: pct(r.wins + left[t], r.ties, r.games + left[t]) for t, r in records.items()}
    clinched = {t for t in records
                if sum(1 for u in records if u != t and hi[u] >= lo[t]) < spots}
    eliminated = {t for t in records
                  if sum(1 for u in records if u != t and lo[u] > hi[t]) >= spots}
    return clinched, eliminated


def simulate(records: Mapping[int, Record], games: Sequence[Game], spots: int, *,
             h2h: Mapping[tuple[int, int], float] | None = None, rule: str = "",
             simulations: int = SIMULATIONS, seed: int = 0) -> PlayoffOdds:
    """The playoff odds (module docstring). `h2h[(a, b)]`: record games a has won against
    b so far (a tie counts ½ to each)."""
    teams = sorted(records)
    idx = {t: i for i, t in enumerate(teams)}
    n = len(teams)
    spots = max(0, min(spots, n))
    odds = PlayoffOdds(spots, simulations, seed, rule, len(games))
    if not games:
        return odds
    rng = np.random.default_rng(seed)
    wins = np.tile(np.array([records[t].wins + records[t].ties / 2 for t in teams]),
                   (simulations, 1))
    played = np.array([records[t].games for t in teams], dtype=float)
    pf = np.array([records[t].points_for for t in teams], dtype=float)
    pair = np.zeros((simulations, n, n))
    for (a, b), w in (h2h or {}).items():
        if a in idx and b in idx:
            pair[:, idx[a], idx[b]] += w
    for g in games:
        h, a = idx[g.home], idx[g.away]
        if g.category_probs:
            draws = rng.random((simulations, len(g.category_probs)))
            hw = (draws < np.array(g.category_probs)).sum(axis=1).astype(float)
            aw = g.units - hw
        else:
            u = rng.random(simulations)
            hw = np.where(u < g.p_home, 1.0, np.where(u < g.p_home + g.p_tie, 0.5, 0.0))
            aw = 1.0 - hw
        wins[:, h] += hw
        wins[:, a] += aw
        pair[:, h, a] += hw
        pair[:, a, h] += aw
        played[h] += g.units
        played[a] += g.units
        pf[h] += g.pf_home
        pf[a] += g.pf_away
    pct = np.round(wins / np.maximum(played, 1.0), 9)
    seeds = np.zeros((n, max(spots, 1)))
    # record first, then points for and team id (the same in every simulated season)
    second = np.empty(n)
    second[sorted(range(n), key=lambda i: (-pf[i], teams[i]))] = np.arange(n)
    order = np.argsort(-pct * 1e6 + second, axis=1, kind="stable")
    if rule.upper() == "H2H_RECORD" and spots:
        # seasons with a record tie inside the seeds: the tied teams' head-to-head first
        ranked = np.take_along_axis(pct, order, axis=1)
        tied = np.any(ranked[:, :spots] == ranked[:, 1:spots + 1], axis=1) if n > spots \
            else np.any(ranked[:, :-1] == ranked[:, 1:], axis=1)
        for s in np.flatnonzero(tied):
            order[s] = _order(pct[s], pair[s].tolist(), pf, teams)
    for k in range(spots):
        np.add.at(seeds[:, k], order[:, k], 1)
    clinched, eliminated = bounds(records, games, spots)
    odds.teams = sorted(
        (TeamOdds(t, float(seeds[i].sum() / simulations),
                  tuple(float(x / simulations) for x in seeds[i][:spots]),
                  t in clinched, t in eliminated) for t, i in idx.items()),
        key=lambda o: (-o.playoff, -sum((spots - k) * p for k, p in enumerate(o.seeds)),
                       o.team_id))
    return odds


def _order(pct: np.ndarray, pair: list[list[float]], pf: np.ndarray,
           teams: Sequence[int]) -> list[int]:
    """Team indices in seeding order for one simulated season: record, then the tied
    teams' record against each other, then points for, then team id."""
    levels: dict[float, list[int]] = {}
    for i, v in enumerate(pct.tolist()):
        levels.setdefault(v, []).append(i)
    out: list[int] = []
    for level in sorted(levels, reverse=True):
        group = levels[level]
        if len(group) > 1:
            h = {}
            for i in group:
                won = sum(pair[i][j] for j in group if j != i)
                lost = sum(pair[j][i] for j in group if j != i)
                h[i] = won / (won + lost) if won + lost else 0.5
            group.sort(key=lambda i: (-h[i], -pf[i], teams[i]))
        out += group
    return out


def league_inputs(league: object, projector: object
                  ) -> tuple[dict[int, Record], dict[tuple[int, int], float], list[Game]]:
    """(records, head-to-head, remaining games) of a league: records and head-to-head from
    the finished regular-season matchups ESPN serves, the games from the current period to
    the last regular one with the preview's probabilities (`projection.Projector`)."""
    from fantasy.constants import ScoringType
    from fantasy.models import League

    assert isinstance(league, League)
    st = league.settings
    per_category = st.scoring_type is ScoringType.H2H_CATEGORY
    last = st.regular_season_matchup_periods or max(st.matchup_periods)
    cur = league.current_matchup_period
    rec = {t.id: [0.0, 0.0, 0.0, 0.0] for t in league.teams}
    h2h: dict[tuple[int, int], float] = {}
    games: list[Game] = []
    for m in league.matchups:
        if m.away is None or m.matchup_period > last:
            continue
        h, a = m.home, m.away
        if m.matchup_period < cur:
            if per_category:
                hw, aw, tie = float(h.wins), float(h.losses), float(h.ties)
            else:
                x, y = (h.points, a.points) if st.is_points else (h.wins, a.wins)
                hw, aw, tie = (1.0, 0.0, 0.0) if x > y else (0.0, 1.0, 0.0) if y > x \
                    else (0.0, 0.0, 1.0)
            for side, w, lo in ((h, hw, aw), (a, aw, hw)):
                r = rec[side.team_id]
                r[0] += w
                r[1] += lo
                r[2] += tie
                r[3] += side.points if st.is_points else 0.0
            h2h[(h.team_id, a.team_id)] = h2h.get((h.team_id, a.team_id), 0.0) + hw + tie / 2
            h2h[(a.team_id, h.team_id)] = h2h.get((a.team_id, h.team_id), 0.0) + aw + tie / 2
            continue
        ph = projector.period(h.team_id, m.matchup_period)  # type: ignore[attr-defined]
        pa = projector.period(a.team_id, m.matchup_period)  # type: ignore[attr-defined]
        if per_category:
            probs = tuple(projector.category_probabilities(ph, pa))  # type: ignore[attr-defined]
            games.append(Game(m.matchup_period, h.team_id, a.team_id, 0.0, 0.0, probs))
        else:
            win, tie = projector.win_probability(ph, pa)  # type: ignore[attr-defined]
            add = (ph.remaining_points, pa.remaining_points) if st.is_points else (0.0, 0.0)
            games.append(Game(m.matchup_period, h.team_id, a.team_id, win, tie, (),
                              add[0], add[1]))
    records = {t: Record(*v) for t, v in rec.items()}
    return records, h2h, games
