"""Pure parsers: ESPN fba JSON -> `fantasy.models`. No I/O.

Rules from the reference notes:
- injury status comes from `playerPoolEntry.player.injuryStatus` (+ `player.injured`),
  never the roster entry's NORMAL/FUTURE_* status;
- the real lineup slot is the roster entry's `lineupSlotId` from `roster.entries`
  (mRoster) or `rosterForCurrentScoringPeriod` (box scores); `rosterForMatchupPeriod`
  always says 0 and is ignored;
- stat entry ids are source/split/external: split 5 = one game, 0 season, 1/2/3 last
  7/15/30 days, source 1 = projection; entries of other seasons are skipped.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from fantasy.constants import (
    PRO_TEAM_ABBREVS,
    SPLIT_GAME,
    STAT_GP,
    STAT_PTS,
    STAT_SOURCE_REAL,
    STAT_SPLIT_KEYS,
    ScoringType,
)
from fantasy.models import (
    AcquisitionSettings,
    ActivityItem,
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
    SlotStatLimit,
    StatLine,
    Team,
    TeamRecord,
    TransactionCounter,
)
from fantasy.schedule import (
    ScoringCalendar,
    espn_ms_to_date,
    matchup_periods_to_scoring_periods,
)

JSON = dict[str, Any]

#: kona_league_communication messageTypeId -> action (espn-api ACTIVITY_MAP).
ACTIVITY_TYPES: dict[int, str] = {
    178: "FA ADDED", 180: "WAIVER ADDED", 179: "DROPPED", 181: "DROPPED", 239: "DROPPED",
    244: "TRADED", 188: "MOVED",
}


def _fmap(d: dict[str, Any] | None) -> dict[int, float]:
    return {int(k): float(v) for k, v in (d or {}).items() if v is not None}


# --------------------------------------------------------------------------- players


#: Stat lines parsed before, by (player id, window id, source, split): the window's JSON and
#: its StatLine (`PlayerMemo.lines`).
LineMemo = dict[tuple[int, str, int, int], tuple[JSON, StatLine]]


def parse_stats(
    entries: list[JSON] | None, season: int, calendar: ScoringCalendar | None = None,
    memo: LineMemo | None = None, player_id: int = 0,
) -> tuple[dict[str, StatLine], list[GameLogEntry]]:
    """Split `player.stats[]` into windowed StatLines and a per-game log (this season only).
    With a `memo`, a window whose JSON is unchanged keeps its StatLine."""
    lines: dict[str, StatLine] = {}
    log: list[GameLogEntry] = []
    for e in entries or []:
        if e.get("seasonId") not in (None, season):
            continue
        source = int(e.get("statSourceId", 0))
        split = int(e.get("statSplitTypeId", 0))
        stats = _fmap(e.get("stats"))
        if split == SPLIT_GAME:
            sp = int(e.get("scoringPeriodId") or 0)
            if source != STAT_SOURCE_REAL or sp <= 0:
                continue  # "05null" matchup aggregates and projections of games
            ext = str(e.get("externalId") or "")
            log.append(GameLogEntry(
                scoring_period=sp,
                date=calendar.date_for(sp) if calendar else None,
                stats=stats,
                applied_points=e.get("appliedTotal"),
                game_id=int(ext) if ext.isascii() and ext.isdigit() else None,
            ))
            continue
        key = STAT_SPLIT_KEYS.get((source, split))
        if key is None:
            continue
        seen = None
        if memo is not None:
            seen = (player_id, str(e.get("id")), source, split)
            prev = memo.get(seen)
            if prev is not None and (prev[0] is e or prev[0] == e):
                lines[key] = prev[1]
                continue
        averages = _fmap(e.get("averageStats"))
        gp = stats.get(STAT_GP)
        if gp is None and averages.get(STAT_PTS) and stats.get(STAT_PTS) is not None:
            gp = round(stats[STAT_PTS] / averages[STAT_PTS])
        if not averages and gp:
            averages = {k: v / gp for k, v in stats.items()}
        lines[key] = StatLine(
            averages=averages,
            totals=stats,
            games_played=int(gp or 0),
            applied_total=e.get("appliedTotal"),
            applied_average=e.get("appliedAverage"),
        )
        if memo is not None and seen is not None:
            if len(memo) >= 65536:
                memo.clear()
            memo[seen] = (e, lines[key])
    log.sort(key=lambda g: g.scoring_period)
    return lines, log


def parse_player(
    player: JSON,
    season: int,
    *,
    pool_entry: JSON | None = None,
    calendar: ScoringCalendar | None = None,
    lines: LineMemo | None = None,
) -> Player:
    """Parse `player` (the inner object) plus its pool entry (`onTeamId`, `status`...).
    `lines`: stat lines of earlier parses, kept where a window's JSON is unchanged."""
    pool_entry = pool_entry or {}
    stats, log = parse_stats(player.get("stats"), season, calendar, lines,
                             int(player.get("id") or 0))
    ownership = player.get("ownership") or {}
    pro_team_id = int(player.get("proTeamId") or 0)
    ret = player.get("expectedReturnDate")
    expected: date | None = None
    if isinstance(ret, list) and len(ret) >= 3:
        expected = date(int(ret[0]), int(ret[1]), int(ret[2]))
    elif isinstance(ret, (int, float)):
        expected = espn_ms_to_date(ret)
    elif isinstance(ret, str) and ret:
        expected = date.fromisoformat(ret[:10])
    waiver = pool_entry.get("waiverProcessDate")
    name = player.get("fullName") or " ".join(
        x for x in (player.get("firstName"), player.get("lastName")) if x
    )
    return Player(
        id=int(player["id"]),
        name=name,
        pro_team_id=pro_team_id,
        pro_team=PRO_TEAM_ABBREVS.get(pro_team_id, f"T{pro_team_id}"),
        default_position_id=int(player.get("defaultPositionId") or 0),
        eligible_slots=sorted(int(s) for s in player.get("eligibleSlots") or []),
        injury_status=player.get("injuryStatus") or "ACTIVE",
        injured=bool(player.get("injured", False)),
        expected_return_date=expected,
        percent_owned=float(ownership.get("percentOwned") or 0.0),
        percent_started=float(ownership.get("percentStarted") or 0.0),
        stats=stats,
        game_log=log,
        status=pool_entry.get("status"),
        on_team_id=int(pool_entry.get("onTeamId") or 0),
        droppable=bool(player.get("droppable", True)),
        lineup_locked=bool(pool_entry.get("lineupLocked", False)),
        roster_locked=bool(pool_entry.get("rosterLocked", False)),
        waiver_process_date=espn_ms_to_date(waiver) if waiver else None,
    )


class PlayerMemo:
    """Players parsed from earlier responses, reused when a new response carries the same
    JSON for them (same pool entry, same team, same calendar).

    For a caller that makes what it parses read-only (the ESPN client freezes every parsed
    object, `fantasy.espn.readonly`): a league snapshot after one move then shares the
    unchanged players' (already frozen) objects with the snapshot before it instead of
    parsing and freezing them again. Comparing the JSON is a C-level dict comparison, much
    cheaper than building the stat lines and game logs. Keeps the latest parse per
    (player id, team, response kind); at most `size` players."""

    def __init__(self, size: int = 8192) -> None:
        self.size = size
        self._seen: dict[tuple[int, int | None, str], tuple[JSON, Any, Player]] = {}
        #: the league's matchups the same way, by (matchup id, period): a finished matchup
        #: never changes, so a league after a new day or a lineup change parses only the
        #: current period's again
        self._matchups: dict[tuple[int, int], tuple[JSON, Any, Matchup]] = {}
        #: stat windows the same way: after a new day most players' JSON changes, but many
        #: of their windows (the projection, a window no game entered or left) do not
        self.lines: LineMemo = {}
        self.hits = 0
        self.misses = 0

    def player(self, kind: str, pool: JSON, team_id: int | None, season: int,
               calendar: ScoringCalendar | None, build: Any) -> Player:
        """The player of `pool` (a pool entry) from the memo when unchanged, else `build()`."""
        key = (int(pool.get("id") or pool["player"]["id"]), team_id, kind)
        prev = self._seen.get(key)
        if prev is not None and prev[1] is calendar and (prev[0] is pool or prev[0] == pool):
            self.hits += 1
            return prev[2]
        self.misses += 1
        player: Player = build()
        if len(self._seen) >= self.size:
            self._seen.clear()
        self._seen[key] = (pool, calendar, player)
        return player

    def matchup(self, item: JSON, season: int, calendar: ScoringCalendar | None) -> Matchup:
        """The league schedule's matchup of `item` from the memo when its JSON is unchanged,
        else parsed."""
        key = (int(item["id"]), int(item["matchupPeriodId"]))
        prev = self._matchups.get(key)
        if prev is not None and prev[1] is calendar and (prev[0] is item or prev[0] == item):
            return prev[2]
        matchup = parse_matchup(item, season, calendar)
        if len(self._matchups) >= self.size:
            self._matchups.clear()
        self._matchups[key] = (item, calendar, matchup)
        return matchup


def parse_players_response(
    data: JSON, season: int, calendar: ScoringCalendar | None = None,
    memo: PlayerMemo | None = None, kind: str = "players",
) -> list[Player]:
    """`kona_player_info` / `kona_playercard` responses: `players[]` pool entries."""
    players = data["players"]
    if memo is None:
        return [parse_player(p["player"], season, pool_entry=p, calendar=calendar)
                for p in players]
    return [memo.player(kind, p, None, season, calendar,
                        lambda p=p: parse_player(p["player"], season, pool_entry=p,
                                                 calendar=calendar, lines=memo.lines))
            for p in players]


def parse_player_list(data: list[JSON], season: int) -> list[Player]:
    """`…/players?view=players_wl`: a top-level list of bare players."""
    return [parse_player(p, season) for p in data]


def _roster_player(pool: JSON, season: int, calendar: ScoringCalendar | None,
                   team_id: int | None, lines: LineMemo | None = None) -> Player:
    player = parse_player(pool["player"], season, pool_entry=pool, calendar=calendar,
                          lines=lines)
    if team_id is not None and not player.on_team_id:
        player.on_team_id = team_id
    if player.status is None:
        player.status = "ONTEAM"
    return player


def _roster_entry(entry: JSON, season: int, calendar: ScoringCalendar | None,
                  team_id: int | None, memo: PlayerMemo | None = None) -> RosterEntry:
    pool = entry["playerPoolEntry"]
    if memo is None:
        player = _roster_player(pool, season, calendar, team_id)
    else:
        player = memo.player("roster", pool, team_id, season, calendar,
                             lambda: _roster_player(pool, season, calendar, team_id,
                                                    memo.lines))
    return RosterEntry(
        player=player,
        lineup_slot_id=int(entry.get("lineupSlotId", 12)),
        acquisition_type=entry.get("acquisitionType"),
    )


# --------------------------------------------------------------------------- settings


def parse_settings(settings: JSON, status: JSON | None = None) -> LeagueSettings:
    """`settings` (mSettings / mDraftDetail) plus optional `status` -> LeagueSettings."""
    status = status or {}
    roster = settings.get("rosterSettings") or {}
    scoring = settings.get("scoringSettings") or {}
    sched = settings.get("scheduleSettings") or {}
    acq = settings.get("acquisitionSettings") or {}
    trade = settings.get("tradeSettings") or {}
    final_sp = status.get("finalScoringPeriod")
    weeks = {int(k): [int(w) for w in v] for k, v in (sched.get("matchupPeriods") or {}).items()}
    limits: dict[int, SlotStatLimit] = {}
    for slot, lim in (roster.get("lineupSlotStatLimits") or {}).items():
        if isinstance(lim, dict) and "limitValue" in lim:
            limits[int(slot)] = SlotStatLimit(stat_id=int(lim.get("statId", STAT_GP)),
                                              limit_value=float(lim["limitValue"]))
    raw_type = scoring.get("scoringType") or "H2H_POINTS"
    deadline = trade.get("deadlineDate")
    mal = acq.get("matchupAcquisitionLimit")
    return LeagueSettings(
        name=settings.get("name", ""),
        size=int(settings.get("size") or 0),
        scoring_type=ScoringType.from_espn(raw_type),
        espn_scoring_type=raw_type,
        scoring_items=[
            ScoringItem(stat_id=int(i["statId"]), points=float(i.get("points") or 0.0),
                        is_reverse=bool(i.get("isReverseItem", False)))
            for i in scoring.get("scoringItems") or []
        ],
        lineup_slot_counts={int(k): int(v) for k, v in (roster.get("lineupSlotCounts") or {}).items()},
        position_limits={int(k): int(v) for k, v in (roster.get("positionLimits") or {}).items()},
        bench_unlimited=bool(roster.get("isBenchUnlimited", False)),
        matchup_periods=matchup_periods_to_scoring_periods(weeks, final_sp),
        regular_season_matchup_periods=int(sched.get("matchupPeriodCount") or 0),
        playoff_team_count=int(sched.get("playoffTeamCount") or 0),
        playoff_seeding_rule=str(sched.get("playoffSeedingRule") or ""),
        matchup_tie_rule=str(scoring.get("matchupTieRule") or ""),
        playoff_matchup_tie_rule=str(scoring.get("playoffMatchupTieRule") or ""),
        veto_votes_required=max(int(trade.get("vetoVotesRequired") or 0), 0),
        trade_review_hours=max(int(trade.get("revisionHours") or 0), 0),
        acquisition=AcquisitionSettings(
            acquisition_type=acq.get("acquisitionType", "FREEAGENCY"),
            season_limit=int(acq.get("acquisitionLimit", -1)),
            matchup_limit=float(mal) if mal is not None else None,
            matchup_limit_per_scoring_period=bool(acq.get("matchupLimitPerScoringPeriod", False)),
            waiver_hours=int(acq.get("waiverHours") or 0),
            uses_budget=bool(acq.get("isUsingAcquisitionBudget", False)),
            budget=int(acq.get("acquisitionBudget") or 0),
        ),
        lineup_slot_stat_limits=limits,
        lineup_lock_type=roster.get("lineupLocktimeType", "INDIVIDUAL_GAME"),
        roster_lock_type=roster.get("rosterLocktimeType", "FIRSTGAME_SCORINGPERIOD"),
        move_limit=int(roster.get("moveLimit", -1)),
        trade_deadline=espn_ms_to_date(deadline) if deadline else None,
        first_scoring_period=int(status.get("firstScoringPeriod") or 1),
        final_scoring_period=int(final_sp) if final_sp else None,
    )


# --------------------------------------------------------------------------- teams


def parse_team(team: JSON, season: int, *, members: dict[str, str] | None = None,
               calendar: ScoringCalendar | None = None, memo: PlayerMemo | None = None
               ) -> Team:
    """One `teams[]` item (mTeam + mRoster). `members` maps member id -> display name."""
    members = members or {}
    name = team.get("name") or " ".join(
        x for x in (team.get("location"), team.get("nickname")) if x).strip()
    overall = (team.get("record") or {}).get("overall") or {}
    tc = team.get("transactionCounter") or {}
    tid = int(team["id"])
    entries = ((team.get("roster") or {}).get("entries")) or []
    return Team(
        id=tid,
        abbrev=team.get("abbrev", ""),
        name=name or f"Team {tid}",
        owners=[members.get(o, o) for o in team.get("owners") or []],
        owner_ids=[str(o) for o in team.get("owners") or [] if o],
        record=TeamRecord(
            wins=int(overall.get("wins", 0)),
            losses=int(overall.get("losses", 0)),
            ties=int(overall.get("ties", 0)),
            points_for=float(overall.get("pointsFor", 0.0)),
            points_against=float(overall.get("pointsAgainst", 0.0)),
            percentage=float(overall.get("percentage", 0.0)),
            games_back=float(overall.get("gamesBack", 0.0)),
            streak_length=int(overall.get("streakLength", 0)),
            streak_type=overall.get("streakType", "") or "",
        ),
        roster=[_roster_entry(e, season, calendar, tid, memo) for e in entries],
        transactions=TransactionCounter(
            acquisitions=int(tc.get("acquisitions", 0)),
            drops=int(tc.get("drops", 0)),
            trades=int(tc.get("trades", 0)),
            move_to_active=int(tc.get("moveToActive", 0)),
            move_to_ir=int(tc.get("moveToIR", 0)),
            acquisition_budget_spent=int(tc.get("acquisitionBudgetSpent", 0)),
            matchup_acquisition_totals={int(k): int(v) for k, v in
                                        (tc.get("matchupAcquisitionTotals") or {}).items()},
        ),
        playoff_seed=team.get("playoffSeed"),
        rank=team.get("rankCalculatedFinal") or team.get("currentProjectedRank") or None,
        division_id=team.get("divisionId"),
        values_by_stat=_fmap(team.get("valuesByStat")),
        waiver_rank=int(team["waiverRank"]) if team.get("waiverRank") else None,
    )


def member_names(data: JSON) -> dict[str, str]:
    """`members[]` -> {member id: display name}."""
    out: dict[str, str] = {}
    for m in data.get("members") or []:
        label = m.get("displayName") or " ".join(
            x for x in (m.get("firstName"), m.get("lastName")) if x)
        out[m["id"]] = label or m["id"]
    return out


# --------------------------------------------------------------------------- matchups


def _side(side: JSON, season: int, calendar: ScoringCalendar | None) -> MatchupSide:
    cum = side.get("cumulativeScore") or {}
    cats = {
        int(k): CategoryResult(score=float(v.get("score") or 0.0), result=v.get("result"),
                               rank=v.get("rank"), ineligible=bool(v.get("ineligible", False)))
        for k, v in (cum.get("scoreByStat") or {}).items()
    }
    gp = {int(k): float(v.get("value") or 0.0) for k, v in (cum.get("statBySlot") or {}).items()}
    points = side.get("totalPointsLive")
    if points is None:
        points = side.get("totalPoints", 0.0)
    current = side.get("rosterForCurrentScoringPeriod") or {}
    tid = int(side["teamId"])
    return MatchupSide(
        team_id=tid,
        points=float(points or 0.0),
        projected_points=side.get("totalProjectedPointsLive"),
        points_by_scoring_period=_fmap(side.get("pointsByScoringPeriod")),
        categories=cats,
        wins=int(cum.get("wins") or 0),
        losses=int(cum.get("losses") or 0),
        ties=int(cum.get("ties") or 0),
        games_played_by_slot=gp,
        lineup=[_roster_entry(e, season, calendar, tid) for e in current.get("entries") or []],
    )


def parse_matchup(item: JSON, season: int, calendar: ScoringCalendar | None = None) -> Matchup:
    """One `schedule[]` item: H2H (home/away, away missing on a bye) or roto (`teams[]`)."""
    if "teams" in item and "home" not in item:
        sides = [_side(t, season, calendar) for t in item["teams"]]
        return Matchup(id=int(item["id"]), matchup_period=int(item["matchupPeriodId"]),
                       home=sides[0], away=None, winner=item.get("winner", "UNDECIDED"),
                       playoff_tier=item.get("playoffTierType", "NONE"), teams=sides)
    return Matchup(
        id=int(item["id"]),
        matchup_period=int(item["matchupPeriodId"]),
        home=_side(item["home"], season, calendar),
        away=_side(item["away"], season, calendar) if item.get("away") else None,
        winner=item.get("winner", "UNDECIDED"),
        playoff_tier=item.get("playoffTierType", "NONE"),
    )


def parse_box_scores(data: JSON, season: int, calendar: ScoringCalendar | None = None,
                     matchup_period: int | None = None) -> list[Matchup]:
    """mMatchupScore/mScoreboard response -> matchups (optionally of one period)."""
    out = [parse_matchup(m, season, calendar) for m in data["schedule"]]
    if matchup_period is not None:
        out = [m for m in out if m.matchup_period == matchup_period]
    return out


# --------------------------------------------------------------------------- league


def parse_league(data: JSON, *, league_id: int, season: int,
                 calendar: ScoringCalendar | None = None, today: date | None = None,
                 memo: PlayerMemo | None = None) -> League:
    """mTeam/mRoster/mMatchup/mSettings/mStandings response -> League.

    `calendar` should come from the pro schedule; without it the anchor is derived from
    (`today`, current scoring period). `today` defaults to the current scoring period's date.
    `memo`: reuse unchanged rostered players and matchups of earlier parses (`PlayerMemo`).
    """
    status = data.get("status") or {}
    current_sp = int(data.get("scoringPeriodId") or status.get("latestScoringPeriod") or 1)
    if calendar is None:
        if today is None:
            raise ValueError("parse_league needs a calendar or today")
        calendar = ScoringCalendar.from_current(today, current_sp,
                                                status.get("finalScoringPeriod"))
    settings = parse_settings(data["settings"], status)
    members = member_names(data)
    teams = [parse_team(t, season, members=members, calendar=calendar, memo=memo)
             for t in data["teams"]]
    matchups = [parse_matchup(m, season, calendar) if memo is None
                else memo.matchup(m, season, calendar) for m in data.get("schedule") or []]
    return League(
        league_id=league_id,
        season=season,
        settings=settings,
        teams=teams,
        current_matchup_period=int(status.get("currentMatchupPeriod") or 1),
        current_scoring_period=current_sp,
        today=today or calendar.date_for(current_sp),
        calendar=calendar,
        matchups=matchups,
    )


# --------------------------------------------------------------------------- pro schedule


def parse_pro_schedule(data: JSON, season: int) -> ProSchedule:
    """`proTeamSchedules_wl` -> ProSchedule (games de-duplicated by id, calendar derived)."""
    settings = data["settings"]
    teams: dict[int, ProTeam] = {}
    games: dict[int, ProGame] = {}
    for t in settings["proTeams"]:
        tid = int(t["id"])
        teams[tid] = ProTeam(id=tid, abbrev=t.get("abbrev", ""), location=t.get("location", ""),
                             name=t.get("name", ""))
        for sp, glist in (t.get("proGamesByScoringPeriod") or {}).items():
            for g in glist:
                gid = int(g["id"])
                if gid in games:
                    continue
                games[gid] = ProGame(
                    id=gid,
                    date=espn_ms_to_date(g["date"]),
                    scoring_period=int(g.get("scoringPeriodId") or sp),
                    home_team_id=int(g["homeProTeamId"]),
                    away_team_id=int(g["awayProTeamId"]),
                    start_ms=int(g["date"]),
                )
    calendar = ScoringCalendar.from_games((g.scoring_period, g.date) for g in games.values())
    return ProSchedule(season=season, teams=teams,
                       games=sorted(games.values(), key=lambda g: (g.date, g.id)),
                       calendar=calendar)


# --------------------------------------------------------------------------- activity


def parse_activity(data: JSON, player_names: dict[int, str] | None = None) -> list[ActivityItem]:
    """`kona_league_communication` topics -> activity items (newest first as ESPN sends)."""
    names = player_names or {}
    out: list[ActivityItem] = []
    for topic in data.get("topics") or []:
        when = topic.get("date")
        for msg in topic.get("messages") or []:
            mtype = int(msg.get("messageTypeId") or 0)
            action = ACTIVITY_TYPES.get(mtype)
            if action is None:
                continue
            if mtype == 244:
                team = msg.get("from")
            elif mtype == 239:
                team = msg.get("for")
            else:
                team = msg.get("to")
            pid = msg.get("targetId")
            out.append(ActivityItem(
                date=espn_ms_to_date(when) if when else None,
                team_id=int(team) if isinstance(team, int) else None,
                action=action,
                player_id=int(pid) if pid is not None else None,
                player_name=names.get(int(pid), "") if pid is not None else "",
                transaction_id=str(topic.get("id") or ""),
            ))
    return out


__all__ = [
    "ACTIVITY_TYPES", "PlayerMemo", "member_names", "parse_activity", "parse_box_scores", "parse_league",
    "parse_matchup", "parse_player", "parse_player_list", "parse_players_response",
    "parse_pro_schedule", "parse_settings", "parse_stats", "parse_team",
]
