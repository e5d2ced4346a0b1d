"""The demo league's recorded season as arrays, and the same season with its future as noise.

Only the truth lives here (every box score, every status, the whole season). Decisions never
read it: they read a `knowledge.Morning`, which is built from the box scores before its day
and the statuses of its day only. What is public in advance (the NBA schedule, rosters,
league settings, the matchup schedule) is here too, and a Morning may read it.

Left out on purpose, because they leak the future (issue 22): the projection window
(`10{season}`, the mean of the whole season), expected return dates, percentOwned, the
profile minutes and the demo's own starting lineups (ranked by full-season averages).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date

import numpy as np

from fantasy.constants import (
    STAT_3PM,
    STAT_AST,
    STAT_BLK,
    STAT_FGA,
    STAT_FGM,
    STAT_FTA,
    STAT_FTM,
    STAT_PTS,
    STAT_REB,
    STAT_STL,
    STAT_TO,
)
from fantasy.espn.parse import parse_settings
from fantasy.models import LeagueSettings

#: Raw stat ids kept per game, in column order (everything both variants score).
STATS: tuple[int, ...] = (STAT_PTS, STAT_REB, STAT_AST, STAT_STL, STAT_BLK, STAT_3PM,
                          STAT_FGM, STAT_FGA, STAT_FTM, STAT_FTA, STAT_TO)
COL: dict[int, int] = {s: k for k, s in enumerate(STATS)}
#: Injury statuses by code (0 = healthy).
STATUSES: tuple[str, ...] = ("ACTIVE", "OUT", "DAY_TO_DAY", "QUESTIONABLE", "PROBABLE")
VARIANTS: tuple[str, ...] = ("points", "categories")


@dataclass(frozen=True)
class Matchup:
    """One head-to-head matchup of the schedule."""

    period: int
    home: int
    away: int

    def opponent(self, team_id: int) -> int:
        return self.away if team_id == self.home else self.home


@dataclass
class SeasonData:
    """The recorded season, one row per player (`ids[i]`), one column per scoring period.

    box[i, sp]: raw stats in STATS order of his game on sp (zeros when he did not play);
    played[i, sp]: he has a box score that day; status[i, sp]: code into STATUSES;
    team_games[pro team id, sp]: that NBA team plays on sp (the public schedule)."""

    ids: list[int]
    names: list[str]
    eligible: list[tuple[int, ...]]
    pro_team: np.ndarray
    box: np.ndarray
    played: np.ndarray
    status: np.ndarray
    team_games: np.ndarray
    dates: dict[int, date]
    rosters: dict[int, tuple[int, ...]]
    team_names: dict[int, str]
    matchups: list[Matchup]
    settings: dict[str, LeagueSettings]
    waivers: frozenset[int]
    last_sp: int
    index: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.index = {pid: i for i, pid in enumerate(self.ids)}

    def period_sps(self, variant: str, period: int) -> list[int]:
        """Scoring periods of a matchup period."""
        return self.settings[variant].scoring_periods_for(period)

    def matchup_of(self, team_id: int, period: int) -> Matchup:
        """The team's matchup in a period."""
        return next(m for m in self.matchups
                    if m.period == period and team_id in (m.home, m.away))

    def with_noise(self, from_sp: int, seed: int = 0, *, status_from: int | None = None
                   ) -> SeasonData:
        """A copy where every box score from `from_sp` on (who played too) and every injury
        status from `status_from` (default `from_sp`) on is random noise."""
        rng = np.random.default_rng(seed)
        box, played, status = self.box.copy(), self.played.copy(), self.status.copy()
        tail = box[:, from_sp:]
        played[:, from_sp:] = rng.random(played[:, from_sp:].shape) < 0.6
        tail[...] = rng.integers(0, 25, size=tail.shape) * played[:, from_sp:, None]
        s0 = from_sp if status_from is None else status_from
        status[:, s0:] = rng.integers(0, len(STATUSES), size=status[:, s0:].shape)
        return replace(self, box=box, played=played, status=status, index={})


def load_season() -> SeasonData:
    """The demo league's recorded season (fantasy.demo's recorded files)."""
    from fantasy.demo.league import DemoLeague, load_base, load_pro_schedule  # noqa: PLC0415

    base = load_base()
    cal = DemoLeague("points").calendar
    ids = sorted(int(k) for k in base["players"])
    fields = base["game_fields"]
    at = {f: k for k, f in enumerate(fields)}
    last_sp = max(int(g["scoringPeriodId"]) for t in load_pro_schedule()["settings"]["proTeams"]
                  for gl in t["proGamesByScoringPeriod"].values() for g in gl)
    n, n_sp = len(ids), last_sp + 1
    box = np.zeros((n, n_sp, len(STATS)))
    played = np.zeros((n, n_sp), dtype=bool)
    status = np.zeros((n, n_sp), dtype=np.int8)
    pro_team = np.zeros(n, dtype=np.int64)
    names, eligible = [], []
    code = {s: k for k, s in enumerate(STATUSES)}
    for i, pid in enumerate(ids):
        entry = base["players"][str(pid)]
        player = entry["player"]
        names.append(player["fullName"])
        eligible.append(tuple(int(s) for s in player["eligibleSlots"]))
        pro_team[i] = int(player["proTeamId"])
        for row in entry["games"]:
            sp, v = int(row[0]), row[2:]
            g = {f: v[at[f]] for f in fields}
            box[i, sp] = (2 * g["fgm"] + g["3pm"] + g["ftm"], g["oreb"] + g["dreb"], g["ast"],
                          g["stl"], g["blk"], g["3pm"], g["fgm"], g["fga"], g["ftm"], g["fta"],
                          g["to"])
            played[i, sp] = True
        for start, end, st in entry["injuries"]:
            status[i, max(start, 0):min(end, last_sp) + 1] = code.get(st, 0)
    team_games = np.zeros((64, n_sp), dtype=bool)
    for t in load_pro_schedule()["settings"]["proTeams"]:
        for sp in t["proGamesByScoringPeriod"]:
            if int(sp) < n_sp:
                team_games[int(t["id"]), int(sp)] = True
    settings = {v: parse_settings(base["settings"][v], base.get("status")) for v in VARIANTS}
    return SeasonData(
        ids=ids, names=names, eligible=eligible, pro_team=pro_team, box=box, played=played,
        status=status, team_games=team_games,
        dates={sp: cal.date_for(sp) for sp in range(1, n_sp)},
        rosters={int(t["id"]): tuple(int(p) for p in t["roster"]) for t in base["teams"]},
        team_names={int(t["id"]): t["name"] for t in base["teams"]},
        matchups=[Matchup(int(p), int(h), int(a)) for p, _, h, a in base["matchups"]],
        settings=settings, waivers=frozenset(int(p) for p in base["waivers"]), last_sp=last_sp)


__all__ = ["COL", "STATS", "STATUSES", "VARIANTS", "Matchup", "SeasonData", "load_season"]
