"""Builds small seeded League / ProSchedule / free-agent snapshots from the real models."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np

from fantasy.constants import ScoringType
from fantasy.espn.factory import open_league_client
from fantasy.models import (
    AcquisitionSettings,
    CategoryResult,
    GameLogEntry,
    League,
    LeagueSettings,
    Matchup,
    MatchupSide,
    Player,
    ProGame,
    ProSchedule,
    ProTeam,
    RosterEntry,
    ScoringItem,
    StatLine,
    Team,
    TransactionCounter,
)
from fantasy.optimizer.service import OptimizerService
from fantasy.optimizer.synthetic import PROFILES, eligible_slots
from fantasy.schedule import ScoringCalendar

# ESPN stat ids
PTS, BLK, STL, AST, REB, TO, FGM, FGA, FTM, FTA, TPM = 0, 1, 2, 3, 6, 11, 13, 14, 15, 16, 17
POINTS_ITEMS = {PTS: 1, TPM: 1, FGA: -1, FGM: 2, FTA: -1, FTM: 1, REB: 1, AST: 2, STL: 4,
                BLK: 4, TO: -2}
NINE_CAT = [PTS, REB, AST, STL, BLK, TPM, 19, 20, TO]
COUNTS = {0: 1, 1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 11: 3, 12: 3, 13: 1}
SEASON = 2026
ANCHOR = date(2025, 10, 21)
TODAY = date(2025, 11, 17)  # a Monday; SP 28, matchup period 5 = SP 29..35 below is shifted


def _stats(rng, pos, q) -> dict[int, float]:
    big = "C" in pos
    guard = "PG" in pos
    pts = 7 + 22 * q + rng.normal(0, 2)
    fga = (pts * 0.42) / (0.55 if big else 0.45)
    fta = 0.22 * pts
    return {PTS: pts, REB: (6 + 6 * q) if big else 2.5 + 4 * q, AST: (4 + 5 * q) if guard else 1 + 3 * q,
            STL: 0.5 + 0.9 * q, BLK: (0.7 + 1.6 * q) if big else 0.3 + 0.3 * q,
            TPM: (0.2 + q) if big else 0.8 + 2.5 * q, TO: 0.8 + 2.4 * q,
            FGM: fga * (0.55 if big else 0.45), FGA: fga, FTM: fta * (0.7 if big else 0.82),
            FTA: fta}


def make_player(rng, pid: int, q: float, pro_team: int, status: str = "ACTIVE",
                ret: date | None = None, owned: float = 50.0) -> Player:
    probs = np.array([p for _, p in PROFILES])
    pos = PROFILES[rng.choice(len(PROFILES), p=probs / probs.sum())][0]
    base = _stats(rng, pos, q)
    season = StatLine(averages=dict(base), games_played=15)
    last15 = StatLine(averages={k: v * rng.uniform(0.85, 1.15) for k, v in base.items()},
                      games_played=6)
    log = [GameLogEntry(20 + g, ANCHOR + timedelta(days=19 + g),
                        {k: max(v * rng.uniform(0.6, 1.4), 0.0) for k, v in base.items()})
           for g in range(0, 8, 2)]
    return Player(pid, f"Player {pid}", pro_team_id=pro_team,
                  eligible_slots=list(eligible_slots(pos)), injury_status=status,
                  injured=status != "ACTIVE", expected_return_date=ret, percent_owned=owned,
                  stats={"season": season, "last_15": last15}, game_log=log)


def make_schedule(rng, dates) -> ProSchedule:
    cal = ScoringCalendar(ANCHOR)
    teams = {t: ProTeam(t, f"T{t}") for t in range(1, 31)}
    games, gid = [], 1
    for d in dates:
        playing = rng.permutation(30)[: 2 * int(rng.integers(3, 8))] + 1
        for a, b in zip(playing[::2], playing[1::2], strict=True):
            games.append(ProGame(gid, d, cal.scoring_period_for(d), int(a), int(b)))
            gid += 1
    return ProSchedule(SEASON, teams, games, cal)


def make_snapshot(seed: int = 1, *, categories: bool = False, acq_limit: float | None = 4,
                  acq_used: int = 0, n_fa: int = 40):
    """League with 2 teams (ids 1 and 2) facing each other in matchup period 5 (7 days from
    TODAY), a ProSchedule and free agents."""
    rng = np.random.default_rng(seed)
    cal = ScoringCalendar(ANCHOR)
    sp0 = cal.scoring_period_for(TODAY)
    sps = list(range(sp0, sp0 + 7))
    dates = cal.dates_for(sps)
    schedule = make_schedule(rng, dates)
    items = ([ScoringItem(s, 0.0, s == TO) for s in NINE_CAT] if categories
             else [ScoringItem(s, float(w)) for s, w in POINTS_ITEMS.items()])
    settings = LeagueSettings(
        name="Test", size=2,
        scoring_type=ScoringType.H2H_CATEGORY if categories else ScoringType.POINTS,
        scoring_items=items, lineup_slot_counts=dict(COUNTS), matchup_periods={5: sps},
        acquisition=AcquisitionSettings(matchup_limit=acq_limit))
    pid = 100
    teams = []
    for tid in (1, 2):
        roster = []
        for k in range(13):
            status, ret = "ACTIVE", None
            if tid == 1 and k == 12:
                status, ret = "OUT", TODAY + timedelta(days=3)  # returning soon -> HOLD
            if tid == 1 and k == 11:
                status = "DAY_TO_DAY"
            p = make_player(rng, pid, rng.uniform(0.45, 1.0), int(rng.integers(1, 31)), status, ret)
            slot = [0, 1, 2, 3, 4, 5, 6, 11, 11, 11, 12, 12, 12][k]
            if slot not in (12,) and slot not in p.eligible_slots:
                slot = 11
            roster.append(RosterEntry(p, slot))
            pid += 1
        teams.append(Team(tid, f"T{tid}", f"Team {tid}", roster=roster,
                          transactions=TransactionCounter(matchup_acquisition_totals={5: acq_used})))
    fas = [make_player(rng, 1000 + k, rng.uniform(0.15, 0.75), int(rng.integers(1, 31)),
                       owned=5.0) for k in range(n_fa)]
    cats = {}
    if categories:
        cats = {s: CategoryResult(0.0) for s in NINE_CAT + [FGM, FGA, FTM, FTA]}
    m = Matchup(1, 5, MatchupSide(1, categories=dict(cats)), MatchupSide(2, categories=dict(cats)))
    league = League(77, SEASON, settings, teams, 5, sp0, TODAY, cal, [m])
    return league, schedule, fas


async def demo_service(variant: str) -> OptimizerService:
    """An OptimizerService on the embedded demo league (its 150 best free agents)."""
    async with open_league_client(demo_variant=variant) as client:
        league = await client.get_league()
        schedule = await client.get_pro_schedule()
        fas = await client.get_free_agents(size=150)
    return OptimizerService(league, schedule, fas)
