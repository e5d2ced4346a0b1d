"""The demo league's other managers: a seeded script of their moves, made as the demo's date
advances (`DemoLeague.advance_to`, when the league's `script` is on).

Each day played, every team but the member's (`DEMO_USER_TEAM_ID`) makes a move with
chance MOVE_CHANCE, drawn from a generator seeded by the variant, the day and the team (the
same days give the same moves, whatever the order of the advances): it drops its bench
player with the lowest season average and adds one of the three best free agents of that
day, or claims a player another team dropped in the last two days (on waivers: a waiver
claim). A team whose matchup acquisitions are used up makes none. One trade is in the
script: TRADE_TEAMS swap the players of nearest season value among their bench, accepted
on TRADE_ACCEPTED and processed (upheld) two days later; a trade counts no acquisition.

Moves are `_Change`s like the member's own (`via` says how: "fa", "waiver", "trade"), so
rosters, box scores, acquisition counts and ESPN's activity view all follow them.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any, Protocol

from fantasy.constants import OUT_STATUSES, SLOT_BENCH, SLOT_IR
from fantasy.demo.changes import _Change
from fantasy.schedule import ScoringCalendar

#: what seeds the script (with the variant, the scoring period and the team)
SCRIPT_SEED = "fanvise-demo-managers"
#: chance that a team makes a move on a day played
MOVE_CHANCE = 0.2
#: the member's own team never moves by script
USER_TEAM_ID = 1
#: the scripted trade: its two teams, the day it is accepted and the review before it
#: processes
TRADE_TEAMS = (4, 7)
TRADE_ACCEPTED = date(2023, 1, 26)
TRADE_REVIEW = timedelta(days=2)


class ScriptedLeague(Protocol):
    """What the script reads and changes of the demo league (`fantasy.demo.league.DemoLeague`,
    which runs it as its date advances)."""

    base: dict[str, Any]
    variant: str
    calendar: ScoringCalendar
    period_sps: dict[int, list[int]]
    changes: list[_Change]

    def team_ids(self) -> list[int]: ...
    def lineup_on(self, team_id: int, sp: int) -> dict[int, int]: ...
    def injury_on(self, pid: int, sp: int) -> tuple[str, date | None]: ...
    def acquisitions(self, team_id: int, period: int | None = None
                     ) -> tuple[int, int | None]: ...
    def _owner_map(self, sp: int) -> dict[int, int]: ...
    def _value(self, pid: int) -> float: ...


def _free_agents(league: ScriptedLeague, sp: int) -> list[int]:
    owners = league._owner_map(sp)
    out = []
    for key in league.base["players"]:
        pid = int(key)
        if pid in owners:
            continue
        if league.injury_on(pid, sp)[0] in OUT_STATUSES:
            continue
        out.append(pid)
    return sorted(out, key=lambda p: (-league._value(p), p))


def _on_waivers(league: ScriptedLeague, pid: int, sp: int) -> bool:
    """On waivers the morning of `sp`: dropped by a team in the two days before, or on the
    recorded waiver list, whose claims process the day after the default today."""
    default_sp = league.calendar.scoring_period_for(date.fromisoformat(
        league.base["default_today"]))
    if pid in league.base["waivers"] and sp == default_sp + 1:
        return True
    return any(c.kind == "move" and c.via != "trade" and c.drop == pid and 0 <= sp - c.sp < 2
               for c in league.changes)


def _move(league: ScriptedLeague, team_id: int, sp: int, rng: random.Random) -> _Change | None:
    period = next(p for p, sps in league.period_sps.items() if sp in sps)
    used, limit = league.acquisitions(team_id, period)
    if limit is not None and used >= limit:
        return None
    roster = league.lineup_on(team_id, sp)
    bench = sorted((p for p, s in roster.items() if s == SLOT_BENCH),
                   key=lambda p: (league._value(p), p))
    free = _free_agents(league, sp)
    if not bench or not free:
        return None
    waivers = [p for p in free if _on_waivers(league, p, sp)]
    if waivers and rng.random() < 0.5:
        add, via = waivers[0], "waiver"
    else:
        add, via = rng.choice(free[:3]), "fa"
    if league._value(add) <= league._value(bench[0]):
        return None
    return _Change("move", team_id, sp, bench[0], add, via=via)


def _trade(league: ScriptedLeague, sp: int) -> list[_Change]:
    a, b = TRADE_TEAMS
    ra = {p: s for p, s in league.lineup_on(a, sp).items() if s != SLOT_IR}
    rb = {p: s for p, s in league.lineup_on(b, sp).items() if s != SLOT_IR}
    give = sorted(ra, key=lambda p: (-league._value(p), p))[len(ra) // 2]
    get = min(rb, key=lambda p: (abs(league._value(p) - league._value(give)), p))
    return [_Change("move", a, sp, give, get, via="trade"),
            _Change("move", b, sp, get, give, via="trade")]


def play_script(league: ScriptedLeague, first_sp: int, last_sp: int) -> int:
    """Append the scripted moves of scoring periods first_sp..last_sp to `league.changes`
    (in memory: the caller saves them); returns how many were made."""
    made = 0
    trade_sp = league.calendar.scoring_period_for(TRADE_ACCEPTED + TRADE_REVIEW)
    for sp in range(first_sp, last_sp + 1):
        if sp == trade_sp:
            league.changes.extend(_trade(league, sp))
            made += 2
        for team_id in league.team_ids():
            if team_id == USER_TEAM_ID:
                continue
            rng = random.Random(f"{SCRIPT_SEED}:{league.variant}:{sp}:{team_id}")
            if rng.random() >= MOVE_CHANCE:
                continue
            change = _move(league, team_id, sp, rng)
            if change is not None:
                league.changes.append(change)
                made += 1
    return made


__all__ = ["MOVE_CHANCE", "SCRIPT_SEED", "TRADE_ACCEPTED", "TRADE_REVIEW", "TRADE_TEAMS",
           "play_script"]
