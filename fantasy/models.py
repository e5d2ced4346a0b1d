"""Domain models for an ESPN fantasy-basketball league.

Plain dataclasses. Every model has `to_dict()` returning JSON-able data (stat-id and
slot-id keys become strings, dates ISO strings) and a `from_dict()` that reverses it, so
graph state and caches can hold them as plain JSON. Stat ids, slot ids and statuses are
the real ESPN values from `fantasy.constants`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from enum import Enum
from typing import Any

from fantasy.constants import (
    DEFAULT_POSITION_NAMES,
    IR_ELIGIBLE_STATUSES,
    OUT_STATUSES,
    PERCENTAGE_STATS,
    SLOT_ACCEPTS,
    SLOT_BENCH,
    SLOT_IR,
    STARTING_SLOTS,
    UNCERTAIN_STATUSES,
    ScoringType,
    injury_label,
    pro_team_abbrev,
    slot_name,
)
from fantasy.schedule import ScoringCalendar

# --------------------------------------------------------------------------- helpers


def to_jsonable(value: Any) -> Any:
    """Convert dataclasses/dicts/dates/enums recursively into JSON-able data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in value]
    return value


def _float_map(d: dict[Any, Any] | None) -> dict[int, float]:
    return {int(k): float(v) for k, v in (d or {}).items() if v is not None}


def _date(v: Any) -> date | None:
    if v is None or isinstance(v, date):
        return v
    return date.fromisoformat(v)


def _required_date(v: Any) -> date:
    d = _date(v)
    if d is None:
        raise ValueError("a date is required here")
    return d


class _JsonMixin:
    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict (string keys, ISO dates)."""
        return to_jsonable(self)


# --------------------------------------------------------------------------- players


@dataclass
class StatLine(_JsonMixin):
    """Stats over one window (season, last 7/15/30 days, projection).

    `averages` are per game, `totals` over the window, both keyed by ESPN stat id.
    `applied_total`/`applied_average` are fantasy points under the league's scoring when
    ESPN sends them (points leagues).
    """

    averages: dict[int, float] = field(default_factory=dict)
    totals: dict[int, float] = field(default_factory=dict)
    games_played: int = 0
    applied_total: float | None = None
    applied_average: float | None = None

    def avg(self, stat_id: int, default: float = 0.0) -> float:
        """Per-game average of a stat (percentages: ratio of the totals when available)."""
        if stat_id in PERCENTAGE_STATS:
            made, att = PERCENTAGE_STATS[stat_id]
            m = self.totals.get(made, self.averages.get(made))
            a = self.totals.get(att, self.averages.get(att))
            if m is not None and a:
                return m / a
        return self.averages.get(stat_id, default)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> StatLine:
        """Inverse of `to_dict`."""
        return cls(
            averages=_float_map(d.get("averages")),
            totals=_float_map(d.get("totals")),
            games_played=int(d.get("games_played", 0)),
            applied_total=d.get("applied_total"),
            applied_average=d.get("applied_average"),
        )


@dataclass
class GameLogEntry(_JsonMixin):
    """One game (= one scoring period) of a player: raw stats by stat id."""

    scoring_period: int
    date: date | None
    stats: dict[int, float] = field(default_factory=dict)
    applied_points: float | None = None
    game_id: int | None = None

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameLogEntry:
        """Inverse of `to_dict`."""
        return cls(
            scoring_period=int(d["scoring_period"]),
            date=_date(d.get("date")),
            stats=_float_map(d.get("stats")),
            applied_points=d.get("applied_points"),
            game_id=d.get("game_id"),
        )


@dataclass
class Player(_JsonMixin):
    """An NBA player as seen by one fantasy league.

    `injury_status` comes from `playerPoolEntry.player.injuryStatus` (never the roster
    entry's NORMAL/FUTURE_* status). `stats` is keyed "season", "last_7", "last_15",
    "last_30", "projected". `status` is FREEAGENT / WAIVERS / ONTEAM when known and
    `on_team_id` the fantasy team holding him (0 = nobody).
    """

    id: int
    name: str
    pro_team_id: int = 0
    pro_team: str = ""
    default_position_id: int = 0
    eligible_slots: list[int] = field(default_factory=list)
    injury_status: str = "ACTIVE"
    injured: bool = False
    expected_return_date: date | None = None
    percent_owned: float = 0.0
    percent_started: float = 0.0
    stats: dict[str, StatLine] = field(default_factory=dict)
    game_log: list[GameLogEntry] = field(default_factory=list)
    status: str | None = None
    on_team_id: int = 0
    droppable: bool = True
    lineup_locked: bool = False
    roster_locked: bool = False
    waiver_process_date: date | None = None

    def __post_init__(self) -> None:
        if not self.pro_team:
            self.pro_team = pro_team_abbrev(self.pro_team_id)

    @property
    def position(self) -> str:
        """Default position name ("PG"...)."""
        return DEFAULT_POSITION_NAMES.get(self.default_position_id, "")

    @property
    def positions(self) -> list[str]:
        """Base positions the player is eligible at, e.g. ["PG", "SG"]."""
        return [slot_name(s) for s in sorted(set(self.eligible_slots) & {0, 1, 2, 3, 4})]

    @property
    def injury_label(self) -> str:
        """Short status label ("O", "DTD", "Q", "" when healthy)."""
        return injury_label(self.injury_status)

    @property
    def is_out(self) -> bool:
        """True when the player will not play (OUT, IR, suspension...)."""
        return self.injury_status in OUT_STATUSES

    @property
    def is_uncertain(self) -> bool:
        """True for day-to-day / game-time-decision statuses."""
        return self.injury_status in UNCERTAIN_STATUSES

    @property
    def ir_eligible(self) -> bool:
        """True when ESPN would allow this player in the IR slot."""
        return self.injury_status in IR_ELIGIBLE_STATUSES

    def can_play_slot(self, slot_id: int) -> bool:
        """True when `slot_id` is in the player's eligibleSlots (IR also needs OUT/IR)."""
        if slot_id == SLOT_IR:
            return slot_id in self.eligible_slots and self.ir_eligible
        return slot_id in self.eligible_slots

    def stat_line(self, window: str = "season") -> StatLine:
        """Stats for a window; an empty StatLine when ESPN sent none."""
        return self.stats.get(window) or StatLine()

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Player:
        """Inverse of `to_dict`."""
        return cls(
            id=int(d["id"]),
            name=d["name"],
            pro_team_id=int(d.get("pro_team_id", 0)),
            pro_team=d.get("pro_team", ""),
            default_position_id=int(d.get("default_position_id", 0)),
            eligible_slots=[int(s) for s in d.get("eligible_slots", [])],
            injury_status=d.get("injury_status") or "ACTIVE",
            injured=bool(d.get("injured", False)),
            expected_return_date=_date(d.get("expected_return_date")),
            percent_owned=float(d.get("percent_owned", 0.0)),
            percent_started=float(d.get("percent_started", 0.0)),
            stats={k: StatLine.from_dict(v) for k, v in (d.get("stats") or {}).items()},
            game_log=[GameLogEntry.from_dict(g) for g in d.get("game_log", [])],
            status=d.get("status"),
            on_team_id=int(d.get("on_team_id", 0)),
            droppable=bool(d.get("droppable", True)),
            lineup_locked=bool(d.get("lineup_locked", False)),
            roster_locked=bool(d.get("roster_locked", False)),
            waiver_process_date=_date(d.get("waiver_process_date")),
        )


@dataclass
class RosterEntry(_JsonMixin):
    """A player on a fantasy roster and his lineup slot for the current scoring period."""

    player: Player
    lineup_slot_id: int = SLOT_BENCH
    acquisition_type: str | None = None

    @property
    def slot(self) -> str:
        """Display name of the lineup slot."""
        return slot_name(self.lineup_slot_id)

    @property
    def is_starting(self) -> bool:
        """True when the slot scores (not bench / IR)."""
        return self.lineup_slot_id in STARTING_SLOTS

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RosterEntry:
        """Inverse of `to_dict`."""
        return cls(
            player=Player.from_dict(d["player"]),
            lineup_slot_id=int(d.get("lineup_slot_id", SLOT_BENCH)),
            acquisition_type=d.get("acquisition_type"),
        )


# --------------------------------------------------------------------------- teams


@dataclass
class TeamRecord(_JsonMixin):
    """Overall season record."""

    wins: int = 0
    losses: int = 0
    ties: int = 0
    points_for: float = 0.0
    points_against: float = 0.0
    percentage: float = 0.0
    games_back: float = 0.0
    streak_length: int = 0
    streak_type: str = ""

    def __str__(self) -> str:
        return f"{self.wins}-{self.losses}-{self.ties}"

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TeamRecord:
        """Inverse of `to_dict`."""
        return cls(**{f.name: d[f.name] for f in dataclasses.fields(cls) if f.name in d})


@dataclass
class TransactionCounter(_JsonMixin):
    """`team.transactionCounter`: season totals and acquisitions per matchup period."""

    acquisitions: int = 0
    drops: int = 0
    trades: int = 0
    move_to_active: int = 0
    move_to_ir: int = 0
    acquisition_budget_spent: int = 0
    matchup_acquisition_totals: dict[int, int] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TransactionCounter:
        """Inverse of `to_dict`."""
        vals = {f.name: d[f.name] for f in dataclasses.fields(cls) if f.name in d}
        vals["matchup_acquisition_totals"] = {
            int(k): int(v) for k, v in (d.get("matchup_acquisition_totals") or {}).items()
        }
        return cls(**vals)


@dataclass
class Team(_JsonMixin):
    """A fantasy team. `owners` are display names when ESPN sends members, else member ids;
    `owner_ids` are ESPN's member ids (SWIDs, braced) of its owners: who may write to it."""

    id: int
    abbrev: str
    name: str
    owners: list[str] = field(default_factory=list)
    record: TeamRecord = field(default_factory=TeamRecord)
    roster: list[RosterEntry] = field(default_factory=list)
    transactions: TransactionCounter = field(default_factory=TransactionCounter)
    playoff_seed: int | None = None
    rank: int | None = None
    division_id: int | None = None
    values_by_stat: dict[int, float] = field(default_factory=dict)
    waiver_rank: int | None = None   # ESPN waiverRank: 1 = first claim on a dropped player
    owner_ids: list[str] = field(default_factory=list)

    @property
    def players(self) -> list[Player]:
        """Players on the roster."""
        return [e.player for e in self.roster]

    @property
    def player_ids(self) -> list[int]:
        """Ids of rostered players."""
        return [e.player.id for e in self.roster]

    def entry_for(self, player_id: int) -> RosterEntry | None:
        """Roster entry of a player, or None."""
        return next((e for e in self.roster if e.player.id == player_id), None)

    def acquisitions_used(self, matchup_period: int) -> int:
        """Acquisitions made in a matchup period (`matchupAcquisitionTotals`)."""
        return self.transactions.matchup_acquisition_totals.get(matchup_period, 0)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Team:
        """Inverse of `to_dict`."""
        return cls(
            id=int(d["id"]),
            abbrev=d.get("abbrev", ""),
            name=d.get("name", ""),
            owners=list(d.get("owners", [])),
            record=TeamRecord.from_dict(d.get("record") or {}),
            roster=[RosterEntry.from_dict(e) for e in d.get("roster", [])],
            transactions=TransactionCounter.from_dict(d.get("transactions") or {}),
            playoff_seed=d.get("playoff_seed"),
            rank=d.get("rank"),
            division_id=d.get("division_id"),
            values_by_stat=_float_map(d.get("values_by_stat")),
            waiver_rank=d.get("waiver_rank"),
            owner_ids=[str(o) for o in d.get("owner_ids") or []],
        )


# --------------------------------------------------------------------------- matchups


@dataclass
class CategoryResult(_JsonMixin):
    """One category of a side in a category/roto matchup (`cumulativeScore.scoreByStat`).

    `result` is WIN / LOSS / TIE, or None for component stats (FGM/FGA of FG%).
    """

    score: float
    result: str | None = None
    rank: float | None = None
    ineligible: bool = False

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CategoryResult:
        """Inverse of `to_dict`."""
        return cls(
            score=float(d.get("score", 0.0)),
            result=d.get("result"),
            rank=d.get("rank"),
            ineligible=bool(d.get("ineligible", False)),
        )


@dataclass
class MatchupSide(_JsonMixin):
    """One team's side of a matchup.

    Points leagues: `points` (live when ESPN sends totalPointsLive) and
    `points_by_scoring_period`. Category leagues: `categories` and wins/losses/ties.
    Roto: `points` are roto points and `categories[*].rank` the category ranks.
    `lineup` is the box-score roster for the requested scoring period (box scores only).
    """

    team_id: int
    points: float = 0.0
    projected_points: float | None = None
    points_by_scoring_period: dict[int, float] = field(default_factory=dict)
    categories: dict[int, CategoryResult] = field(default_factory=dict)
    wins: int = 0
    losses: int = 0
    ties: int = 0
    games_played_by_slot: dict[int, float] = field(default_factory=dict)
    lineup: list[RosterEntry] = field(default_factory=list)

    @property
    def category_score(self) -> float:
        """Live category score as ESPN shows it: wins + ties / 2."""
        return self.wins + self.ties / 2

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MatchupSide:
        """Inverse of `to_dict`."""
        return cls(
            team_id=int(d["team_id"]),
            points=float(d.get("points", 0.0)),
            projected_points=d.get("projected_points"),
            points_by_scoring_period=_float_map(d.get("points_by_scoring_period")),
            categories={int(k): CategoryResult.from_dict(v)
                        for k, v in (d.get("categories") or {}).items()},
            wins=int(d.get("wins", 0)),
            losses=int(d.get("losses", 0)),
            ties=int(d.get("ties", 0)),
            games_played_by_slot=_float_map(d.get("games_played_by_slot")),
            lineup=[RosterEntry.from_dict(e) for e in d.get("lineup", [])],
        )


@dataclass
class Matchup(_JsonMixin):
    """A matchup of one matchup period. `away` is None for a bye; roto puts all teams
    in `teams` (and `home` is the first of them)."""

    id: int
    matchup_period: int
    home: MatchupSide
    away: MatchupSide | None = None
    winner: str = "UNDECIDED"
    playoff_tier: str = "NONE"
    teams: list[MatchupSide] = field(default_factory=list)

    @property
    def home_team_id(self) -> int:
        """Home team id."""
        return self.home.team_id

    @property
    def away_team_id(self) -> int | None:
        """Away team id (None on a bye / roto)."""
        return self.away.team_id if self.away else None

    @property
    def sides(self) -> list[MatchupSide]:
        """All sides (home, away) or the roto teams."""
        if self.teams:
            return list(self.teams)
        return [self.home] + ([self.away] if self.away else [])

    def involves(self, team_id: int) -> bool:
        """True when the team plays in this matchup."""
        return any(s.team_id == team_id for s in self.sides)

    def side_for(self, team_id: int) -> MatchupSide | None:
        """The side of a team, or None."""
        return next((s for s in self.sides if s.team_id == team_id), None)

    def opponent_side(self, team_id: int) -> MatchupSide | None:
        """The other side of a head-to-head matchup, or None."""
        if self.away is None:
            return None
        if self.home.team_id == team_id:
            return self.away
        if self.away.team_id == team_id:
            return self.home
        return None

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Matchup:
        """Inverse of `to_dict`."""
        return cls(
            id=int(d["id"]),
            matchup_period=int(d["matchup_period"]),
            home=MatchupSide.from_dict(d["home"]),
            away=MatchupSide.from_dict(d["away"]) if d.get("away") else None,
            winner=d.get("winner", "UNDECIDED"),
            playoff_tier=d.get("playoff_tier", "NONE"),
            teams=[MatchupSide.from_dict(t) for t in d.get("teams", [])],
        )


# --------------------------------------------------------------------------- pro schedule


@dataclass
class ProTeam(_JsonMixin):
    """An NBA team (`settings.proTeams[]`)."""

    id: int
    abbrev: str
    location: str = ""
    name: str = ""

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ProTeam:
        """Inverse of `to_dict`."""
        return cls(id=int(d["id"]), abbrev=d["abbrev"], location=d.get("location", ""),
                   name=d.get("name", ""))


@dataclass
class ProGame(_JsonMixin):
    """One NBA game. `date` is the US/Eastern scoring day; `start_ms` ESPN epoch ms."""

    id: int
    date: date
    scoring_period: int
    home_team_id: int
    away_team_id: int
    start_ms: int = 0

    def involves(self, pro_team_id: int) -> bool:
        """True when the team plays in this game."""
        return pro_team_id in (self.home_team_id, self.away_team_id)

    def opponent_of(self, pro_team_id: int) -> int:
        """The other team's id."""
        return self.away_team_id if pro_team_id == self.home_team_id else self.home_team_id

    def is_home(self, pro_team_id: int) -> bool:
        """True when the team is at home."""
        return pro_team_id == self.home_team_id

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ProGame:
        """Inverse of `to_dict`."""
        return cls(id=int(d["id"]), date=_required_date(d["date"]), scoring_period=int(d["scoring_period"]),
                   home_team_id=int(d["home_team_id"]), away_team_id=int(d["away_team_id"]),
                   start_ms=int(d.get("start_ms", 0)))


@dataclass
class ProSchedule(_JsonMixin):
    """The NBA schedule of a season: teams and games, plus the SP <-> date calendar."""

    season: int
    teams: dict[int, ProTeam]
    games: list[ProGame]
    calendar: ScoringCalendar

    def __post_init__(self) -> None:
        self._by_team: dict[int, list[ProGame]] = {}
        for g in sorted(self.games, key=lambda g: (g.date, g.id)):
            self._by_team.setdefault(g.home_team_id, []).append(g)
            self._by_team.setdefault(g.away_team_id, []).append(g)
        #: games by date, in `games` order (a turn asks for one day's games per player)
        self._by_date: dict[date, list[ProGame]] = {}
        for g in self.games:
            self._by_date.setdefault(g.date, []).append(g)
        #: a team's games by date, in date order (a turn counts a week's games per player)
        self._by_team_date: dict[int, dict[date, list[ProGame]]] = {}
        for team, games in self._by_team.items():
            by_date = self._by_team_date[team] = {}
            for g in games:
                by_date.setdefault(g.date, []).append(g)

    def games_for_team(self, pro_team_id: int, dates: Iterable[date] | None = None) -> list[ProGame]:
        """Games of a pro team, optionally only on the given dates, in date order."""
        if dates is None:
            return list(self._by_team.get(pro_team_id, []))
        by_date = self._by_team_date.get(pro_team_id)
        if not by_date:
            return []
        return [g for d in sorted(set(dates)) for g in by_date.get(d, ())]

    def games_on(self, d: date) -> list[ProGame]:
        """All games on a date."""
        return list(self._by_date.get(d, ()))

    def teams_playing_on(self, d: date) -> set[int]:
        """Ids of pro teams with a game on a date."""
        return {t for g in self.games_on(d) for t in (g.home_team_id, g.away_team_id)}

    def count_games(self, pro_team_id: int, dates: Iterable[date]) -> int:
        """Number of games a pro team plays on the given dates."""
        return len(self.games_for_team(pro_team_id, dates))

    def scoring_period_for(self, d: date) -> int:
        """Scoring period of a date."""
        return self.calendar.scoring_period_for(d)

    def date_for(self, scoring_period: int) -> date:
        """Date of a scoring period."""
        return self.calendar.date_for(scoring_period)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict."""
        return {
            "season": self.season,
            "teams": {str(k): v.to_dict() for k, v in self.teams.items()},
            "games": [g.to_dict() for g in self.games],
            "calendar": self.calendar.to_dict(),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ProSchedule:
        """Inverse of `to_dict`."""
        return cls(
            season=int(d["season"]),
            teams={int(k): ProTeam.from_dict(v) for k, v in d["teams"].items()},
            games=[ProGame.from_dict(g) for g in d["games"]],
            calendar=ScoringCalendar.from_dict(d["calendar"]),
        )


# --------------------------------------------------------------------------- settings


@dataclass
class ScoringItem(_JsonMixin):
    """One scoring item: points per unit (points leagues) or a category (is_reverse = lower wins)."""

    stat_id: int
    points: float = 0.0
    is_reverse: bool = False

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ScoringItem:
        """Inverse of `to_dict`."""
        return cls(stat_id=int(d["stat_id"]), points=float(d.get("points", 0.0)),
                   is_reverse=bool(d.get("is_reverse", False)))


@dataclass
class SlotStatLimit(_JsonMixin):
    """A games-played style cap from `rosterSettings.lineupSlotStatLimits` (shape unverified:
    `{slotId: {statId, limitValue}}`)."""

    stat_id: int
    limit_value: float

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SlotStatLimit:
        """Inverse of `to_dict`."""
        return cls(stat_id=int(d["stat_id"]), limit_value=float(d["limit_value"]))


@dataclass
class AcquisitionSettings(_JsonMixin):
    """`acquisitionSettings`. `season_limit` -1 = unlimited. `matchup_limit` is ESPN's
    `matchupAcquisitionLimit`; with `matchup_limit_per_scoring_period` it is a per-day rate."""

    acquisition_type: str = "FREEAGENCY"
    season_limit: int = -1
    matchup_limit: float | None = None
    matchup_limit_per_scoring_period: bool = False
    waiver_hours: int = 0
    uses_budget: bool = False
    budget: int = 0

    def limit_for_matchup(self, days: int) -> int | None:
        """Max acquisitions in a matchup of `days` scoring periods; None = unlimited."""
        if self.matchup_limit is None or self.matchup_limit < 0:
            return None
        if self.matchup_limit_per_scoring_period:
            return int(round(self.matchup_limit * days))
        return int(self.matchup_limit)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> AcquisitionSettings:
        """Inverse of `to_dict`."""
        return cls(**{f.name: d[f.name] for f in dataclasses.fields(cls) if f.name in d})


@dataclass
class LeagueSettings(_JsonMixin):
    """League settings (`mSettings`).

    `matchup_periods` maps matchup period -> its scoring periods (derived from ESPN's week
    indices, see `fantasy.schedule.week_scoring_periods`). `lineup_slot_stat_limits` holds
    games-played limits when the league sets them (empty otherwise).
    """

    name: str
    size: int
    scoring_type: ScoringType
    scoring_items: list[ScoringItem] = field(default_factory=list)
    espn_scoring_type: str = ""
    lineup_slot_counts: dict[int, int] = field(default_factory=dict)
    position_limits: dict[int, int] = field(default_factory=dict)
    bench_unlimited: bool = False
    matchup_periods: dict[int, list[int]] = field(default_factory=dict)
    regular_season_matchup_periods: int = 0
    playoff_team_count: int = 0
    #: ESPN `playoffSeedingRule`: the tie-break after record ("H2H_RECORD",
    #: "TOTAL_POINTS_SCORED", ...; "" when not served)
    playoff_seeding_rule: str = ""
    #: ESPN `matchupTieRule` / `playoffMatchupTieRule`: how a tied matchup is settled ("NONE":
    #: it stays a tie; else the tie-break ESPN names; "" when not served)
    matchup_tie_rule: str = ""
    playoff_matchup_tie_rule: str = ""
    #: ESPN `tradeSettings`: votes that veto an accepted trade (0: no veto votes / not served)
    #: and the hours an accepted trade waits before it goes through
    veto_votes_required: int = 0
    trade_review_hours: int = 0
    acquisition: AcquisitionSettings = field(default_factory=AcquisitionSettings)
    lineup_slot_stat_limits: dict[int, SlotStatLimit] = field(default_factory=dict)
    lineup_lock_type: str = "INDIVIDUAL_GAME"
    roster_lock_type: str = "FIRSTGAME_SCORINGPERIOD"
    move_limit: int = -1
    trade_deadline: date | None = None
    first_scoring_period: int = 1
    final_scoring_period: int | None = None

    @property
    def is_points(self) -> bool:
        """True for points scoring."""
        return self.scoring_type is ScoringType.POINTS

    @property
    def scoring_weights(self) -> dict[int, float]:
        """Stat id -> fantasy points per unit (points leagues)."""
        return {i.stat_id: i.points for i in self.scoring_items}

    @property
    def categories(self) -> list[int]:
        """Stat ids of the scored categories (category / roto leagues)."""
        return [i.stat_id for i in self.scoring_items]

    @property
    def reverse_categories(self) -> set[int]:
        """Categories where lower wins (e.g. TO)."""
        return {i.stat_id for i in self.scoring_items if i.is_reverse}

    @property
    def starting_slot_counts(self) -> dict[int, int]:
        """Slot id -> count for the scoring slots only (no bench / IR)."""
        return {s: n for s, n in self.lineup_slot_counts.items() if s in STARTING_SLOTS and n > 0}

    @property
    def roster_size(self) -> int:
        """Total roster spots including bench and IR."""
        return sum(n for n in self.lineup_slot_counts.values() if n > 0)

    def scoring_periods_for(self, matchup_period: int) -> list[int]:
        """Scoring periods of a matchup period ([] if unknown)."""
        return list(self.matchup_periods.get(matchup_period, []))

    def matchup_period_for(self, scoring_period: int) -> int | None:
        """The matchup period containing a scoring period, or None."""
        for period, sps in self.matchup_periods.items():
            if scoring_period in sps:
                return period
        return None

    def acquisition_limit_for(self, matchup_period: int) -> int | None:
        """Max acquisitions allowed in a matchup period; None = unlimited."""
        return self.acquisition.limit_for_matchup(len(self.scoring_periods_for(matchup_period)))

    def games_played_limit(self, slot_id: int, days: int | None = None) -> float | None:
        """Games-played cap of a slot (stat 42), scaled by `days` when given; None if none."""
        lim = self.lineup_slot_stat_limits.get(slot_id)
        if lim is None or lim.stat_id != 42:
            return None
        return lim.limit_value * days if days is not None else lim.limit_value

    def slot_accepts(self, slot_id: int) -> frozenset[int]:
        """Base positions (slot ids 0-4) a slot accepts."""
        return SLOT_ACCEPTS.get(slot_id, frozenset())

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LeagueSettings:
        """Inverse of `to_dict`."""
        return cls(
            name=d["name"],
            size=int(d["size"]),
            scoring_type=ScoringType(d["scoring_type"]),
            scoring_items=[ScoringItem.from_dict(i) for i in d.get("scoring_items", [])],
            espn_scoring_type=d.get("espn_scoring_type", ""),
            lineup_slot_counts={int(k): int(v) for k, v in (d.get("lineup_slot_counts") or {}).items()},
            position_limits={int(k): int(v) for k, v in (d.get("position_limits") or {}).items()},
            bench_unlimited=bool(d.get("bench_unlimited", False)),
            matchup_periods={int(k): [int(x) for x in v]
                             for k, v in (d.get("matchup_periods") or {}).items()},
            regular_season_matchup_periods=int(d.get("regular_season_matchup_periods", 0)),
            playoff_team_count=int(d.get("playoff_team_count", 0)),
            playoff_seeding_rule=str(d.get("playoff_seeding_rule") or ""),
            matchup_tie_rule=str(d.get("matchup_tie_rule") or ""),
            playoff_matchup_tie_rule=str(d.get("playoff_matchup_tie_rule") or ""),
            veto_votes_required=int(d.get("veto_votes_required") or 0),
            trade_review_hours=int(d.get("trade_review_hours") or 0),
            acquisition=AcquisitionSettings.from_dict(d.get("acquisition") or {}),
            lineup_slot_stat_limits={int(k): SlotStatLimit.from_dict(v)
                                     for k, v in (d.get("lineup_slot_stat_limits") or {}).items()},
            lineup_lock_type=d.get("lineup_lock_type", "INDIVIDUAL_GAME"),
            roster_lock_type=d.get("roster_lock_type", "FIRSTGAME_SCORINGPERIOD"),
            move_limit=int(d.get("move_limit", -1)),
            trade_deadline=_date(d.get("trade_deadline")),
            first_scoring_period=int(d.get("first_scoring_period", 1)),
            final_scoring_period=d.get("final_scoring_period"),
        )


# --------------------------------------------------------------------------- league


@dataclass
class League(_JsonMixin):
    """A league snapshot: settings, teams with rosters, all matchups, and "now".

    `today` is the current scoring day (US/Eastern) and `calendar` maps scoring periods to
    dates (derived from the pro schedule, or from today + current scoring period).
    """

    league_id: int
    season: int
    settings: LeagueSettings
    teams: list[Team]
    current_matchup_period: int
    current_scoring_period: int
    today: date
    calendar: ScoringCalendar
    matchups: list[Matchup] = field(default_factory=list)

    def team(self, team_id: int) -> Team:
        """Team by id; KeyError if none."""
        for t in self.teams:
            if t.id == team_id:
                return t
        raise KeyError(f"no team with id {team_id}")

    def find_team(self, text: str) -> Team | None:
        """Find a team by id, abbrev, name or owner (case-insensitive; exact before partial)."""
        key = text.strip().lower()
        if not key:
            return None
        if key.isascii() and key.isdigit():
            tid = int(key)
            if any(t.id == tid for t in self.teams):
                return self.team(tid)
        for t in self.teams:
            if key in (t.abbrev.lower(), t.name.lower()) or key in (o.lower() for o in t.owners):
                return t
        partial = [t for t in self.teams
                   if key in t.name.lower() or any(key in o.lower() for o in t.owners)]
        return partial[0] if len(partial) == 1 else None

    def matchups_for_period(self, matchup_period: int) -> list[Matchup]:
        """All matchups of a period."""
        return [m for m in self.matchups if m.matchup_period == matchup_period]

    def current_matchup(self, team_id: int) -> Matchup | None:
        """The team's matchup in the current matchup period, or None (bye / no data)."""
        return next((m for m in self.matchups_for_period(self.current_matchup_period)
                     if m.involves(team_id)), None)

    def opponent_of(self, team_id: int, matchup_period: int | None = None) -> Team | None:
        """The team's head-to-head opponent in a period (default: current), or None."""
        period = self.current_matchup_period if matchup_period is None else matchup_period
        for m in self.matchups_for_period(period):
            side = m.opponent_side(team_id)
            if side is not None:
                return self.team(side.team_id)
        return None

    def matchup_dates(self, matchup_period: int | None = None) -> list[date]:
        """Calendar dates of a matchup period (default: current)."""
        period = self.current_matchup_period if matchup_period is None else matchup_period
        return self.calendar.dates_for(self.settings.scoring_periods_for(period))

    def remaining_dates(self, matchup_period: int | None = None,
                        today: date | None = None) -> list[date]:
        """Dates of the matchup period from `today` (inclusive, default league today) on."""
        start = today or self.today
        return [d for d in self.matchup_dates(matchup_period) if d >= start]

    def all_rostered_player_ids(self) -> set[int]:
        """Ids of every player on any roster."""
        return {pid for t in self.teams for pid in t.player_ids}

    def team_of_player(self, player_id: int) -> Team | None:
        """The team rostering a player, or None."""
        return next((t for t in self.teams if player_id in t.player_ids), None)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> League:
        """Inverse of `to_dict`."""
        return cls(
            league_id=int(d["league_id"]),
            season=int(d["season"]),
            settings=LeagueSettings.from_dict(d["settings"]),
            teams=[Team.from_dict(t) for t in d["teams"]],
            current_matchup_period=int(d["current_matchup_period"]),
            current_scoring_period=int(d["current_scoring_period"]),
            today=_required_date(d["today"]),
            calendar=ScoringCalendar.from_dict(d["calendar"]),
            matchups=[Matchup.from_dict(m) for m in d.get("matchups", [])],
        )


@dataclass
class ActivityItem(_JsonMixin):
    """One recent league transaction (`kona_league_communication`)."""

    date: date | None
    team_id: int | None
    action: str
    player_id: int | None = None
    player_name: str = ""
    #: ESPN's id of the transaction (the activity topic): every part of one add/drop or
    #: trade shares it
    transaction_id: str = ""

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ActivityItem:
        """Inverse of `to_dict`."""
        return cls(date=_date(d.get("date")), team_id=d.get("team_id"), action=d["action"],
                   player_id=d.get("player_id"), player_name=d.get("player_name", ""),
                   transaction_id=str(d.get("transaction_id") or ""))


__all__ = [
    "AcquisitionSettings", "ActivityItem", "CategoryResult", "GameLogEntry", "League",
    "LeagueSettings", "Matchup", "MatchupSide", "Player", "ProGame", "ProSchedule", "ProTeam",
    "RosterEntry", "ScoringItem", "SlotStatLimit", "StatLine", "Team", "TeamRecord",
    "TransactionCounter", "to_jsonable",
]
