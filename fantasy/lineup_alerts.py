"""What a member must fix in today's lineup, what changed since the morning, and the fix.

The daily digest records each linked team's `lineup_state` when it posts; the pre-lock
alert computes it again shortly before the first game and pings the owner only for
`changes_since` that record: a starter newly ruled out, or more empty slots that someone
on the roster could fill. `optimal_assignment` is the one-tap fix: the ESPN slot of every
player whose slot the optimal lineup changes (written through ESPN's transaction endpoint,
`fantasy.espn.writes`, or shown as steps when FanVise may not write for the member).

All of it reads `OptimizerService.daily_lineup`, the exact optimal lineup; nothing here
solves anything of its own.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from typing import Any

from fantasy.constants import (
    ESPN_TEAM_URL,
    OUT_STATUSES,
    SLOT_BENCH,
    SLOT_IR,
    SLOT_NAMES,
    STARTING_SLOTS,
    LockType,
)
from fantasy.schedule import espn_ms_to_datetime


def first_game_start(schedule: Any, day: date) -> datetime | None:
    """When the first NBA game of `day` starts (aware, US/Eastern; ESPN locks each player's
    slot at his game's start, so this is when lineups begin to lock); None without games."""
    starts = [g.start_ms for g in schedule.games_on(day) if g.start_ms]
    return espn_ms_to_datetime(min(starts)) if starts else None


def team_first_game(schedule: Any, day: date, pro_team_ids: set[int]) -> datetime | None:
    """When the first game of `day` involving one of `pro_team_ids` (a fantasy roster's
    NBA teams) starts; None when none of them plays."""
    starts = [g.start_ms for g in schedule.games_on(day) if g.start_ms
              and (g.home_team_id in pro_team_ids or g.away_team_id in pro_team_ids)]
    return espn_ms_to_datetime(min(starts)) if starts else None


#: ESPN `rosterSettings.lineupLocktimeType` -> how the pre-lock alert reads it
LOCK_KINDS: dict[str, str] = {
    LockType.INDIVIDUAL_GAME: "game", LockType.FIRSTGAME_SCORINGPERIOD: "day",
    LockType.FIRSTGAME_WEEKLY: "week", LockType.INDIVIDUAL_FIRSTGAME_WEEKLY: "player-week"}


@dataclass(frozen=True)
class LockRule:
    """How a league's lineups lock, from ESPN's `rosterSettings.lineupLocktimeType`:

    - "game" (INDIVIDUAL_GAME): each player's slot locks when his own game starts; the
      lineup is set per day;
    - "day" (FIRSTGAME_SCORINGPERIOD): the whole lineup locks at the day's first game;
    - "week" (FIRSTGAME_WEEKLY): the whole lineup locks for the matchup at its first game;
    - "player-week" (INDIVIDUAL_FIRSTGAME_WEEKLY): each player locks for the matchup at his
      first game of it.

    A weekly lock leaves nothing to fix after the matchup's first game day, so the alert
    is only sent that day. An unknown value reads as "game" (ESPN's basketball default)."""

    lock_type: str = LockType.INDIVIDUAL_GAME

    @property
    def kind(self) -> str:
        return LOCK_KINDS.get(self.lock_type, "game")

    @property
    def weekly(self) -> bool:
        return self.kind in ("week", "player-week")

    def alerts_on(self, day: date, matchup_game_days: list[date]) -> bool:
        """Whether an alert before `day`'s first game can still change a lineup: every day,
        or only the matchup's first day with games when lineups lock for the week."""
        if not self.weekly:
            return True
        return bool(matchup_game_days) and day == min(matchup_game_days)

    def headline(self, team: str, minutes: int, first: str, team_first: str = "") -> str:
        """The alert's first line: when this team's lineup locks, in the league's terms.
        `first`: the day's first game ("7:00 PM ET"); `team_first`: the team's own first
        game today (per-player locks)."""
        at = f" ({first})" if first else ""
        if self.kind == "day":
            return f"⏰ {team}: lineups lock in {minutes} minutes, at the first game{at}."
        if self.kind == "week":
            return (f"⏰ {team}: lineups lock for the whole matchup in {minutes} minutes, at "
                    f"its first game{at}.")
        if self.kind == "player-week":
            return (f"⏰ {team}: each player locks for the whole matchup at his first game "
                    f"of it; the first game starts in {minutes} minutes{at}.")
        if team_first and team_first != first:
            return (f"⏰ {team}: each player locks when his own game starts; your first "
                    f"game today is at {team_first} (the day's first game starts in "
                    f"{minutes} minutes{at}).")
        return (f"⏰ {team}: each player locks when his own game starts; your first game "
                f"today starts in {minutes} minutes{at}.")


def espn_team_url(league_id: int | None, team_id: int, season: int | None = None) -> str:
    """The team's page on ESPN (where a member sets the lineup of a live league)."""
    url = ESPN_TEAM_URL.format(league_id=league_id, team_id=team_id)
    return f"{url}&seasonId={season}" if season else url


@dataclass
class LineupState:
    """One team's lineup problems on one day, as JSON-able facts.

    `out`: starters in the current ESPN lineup who are ruled out (player id -> name, slot);
    `idle`: starting slots that score nothing with the current lineup (empty, no game, out);
    `fixable`: how many of those the optimal lineup fills with a player who plays;
    `active`/`best_active`: starters who play now / in the optimal lineup."""

    out: dict[str, dict[str, str]] = field(default_factory=dict)
    idle: int = 0
    fixable: int = 0
    active: int = 0
    best_active: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> LineupState:
        d = d or {}
        return cls(out={str(k): dict(v) for k, v in (d.get("out") or {}).items()},
                   idle=int(d.get("idle", 0)), fixable=int(d.get("fixable", 0)),
                   active=int(d.get("active", 0)), best_active=int(d.get("best_active", 0)))


def lineup_state(opt: Any, team_id: int, day: date | None = None,
                 result: Any = None) -> LineupState:
    """`LineupState` of a team (`opt` an OptimizerService; `result` its `daily_lineup` for
    that team and day when the caller already has it)."""
    day = day or opt.today
    res = result if result is not None else opt.daily_lineup(team_id, day)
    team = opt.league.team(team_id)
    playing = opt.schedule.teams_playing_on(day)
    n_slots = sum(opt.layout.caps)

    def active(p: Any) -> bool:
        return p.pro_team_id in playing and (p.injury_status or "ACTIVE") not in OUT_STATUSES

    current = [e for e in team.roster if e.lineup_slot_id in STARTING_SLOTS]
    by_id = {e.player.id: e.player for e in team.roster}
    now_active = sum(1 for e in current if active(e.player))
    best = sum(1 for s in res.starters if s.player_id in by_id and active(by_id[s.player_id])
               and s.value > 0)
    out = {str(e.player.id): {"name": e.player.name,
                              "slot": SLOT_NAMES.get(e.lineup_slot_id, str(e.lineup_slot_id))}
           for e in current if (e.player.injury_status or "ACTIVE") in OUT_STATUSES}
    idle = max(n_slots - now_active, 0)
    return LineupState(out=out, idle=idle, fixable=min(idle, max(best - now_active, 0)),
                       active=now_active, best_active=best)


@dataclass
class LineupNews:
    """What got worse since the digest: starters newly ruled out (names with their slot) and
    how many more empty slots can be filled."""

    ruled_out: list[tuple[str, str]] = field(default_factory=list)
    more_fixable: int = 0

    def __bool__(self) -> bool:
        return bool(self.ruled_out) or self.more_fixable > 0


def changes_since(before: LineupState, now: LineupState) -> LineupNews:
    """What changed for the worse between the digest's state and now (see `LineupNews`);
    a problem the digest already named is not news."""
    ruled_out = [(v["name"], v.get("slot", "")) for pid, v in now.out.items()
                 if pid not in before.out]
    return LineupNews(ruled_out, max(now.fixable - before.fixable, 0))


def optimal_assignment(opt: Any, team_id: int, day: date | None = None,
                       result: Any = None) -> dict[int, int]:
    """{player id: ESPN slot id} for every player whose slot the optimal lineup changes
    (starters to their slot, everyone else to the bench; injured reserve stays)."""
    day = day or opt.today
    res = result if result is not None else opt.daily_lineup(team_id, day)
    team = opt.league.team(team_id)
    new = {s.player_id: s.slot_id for s in res.starters}
    out: dict[int, int] = {}
    for e in team.roster:
        cur = e.lineup_slot_id
        to = new.get(e.player.id, SLOT_IR if cur == SLOT_IR else SLOT_BENCH)
        if to != cur:
            out[e.player.id] = to
    return out


__all__ = ["LineupNews", "LineupState", "changes_since", "espn_team_url", "first_game_start",
           "lineup_state",
           "optimal_assignment"]
