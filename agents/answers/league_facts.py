"""League facts answered from ESPN's data: the league's rules and settings, who owns a player,
a past matchup's result, what changed in the league (recent activity, mine first), a team's
box score of a day that is over, and which categories are still winnable.

Each builder is `async (AgentDeps, Request) -> Reply` (agents.answers.BUILDERS)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from agents.answers.league import (
    answer_matchup_status,
    fmt_day,
    fmt_stat,
    ordinal,
    player_label,
    status_text,
)
from agents.answers.types import Reply
from agents.shared.deps import AgentDeps, LeagueContext, load_context
from agents.understanding.request import Request
from fantasy.constants import SLOT_IR, STAT_IDS
from fantasy.espn.errors import EspnError
from fantasy.espn.messages import espn_trouble
from fantasy.models import League, LeagueSettings, Matchup, MatchupSide, Player, Team

#: ESPN lineup slot id -> its name in a lineup (fantasy.constants slot ids).
SLOT_NAMES: dict[int, str] = {0: "PG", 1: "SG", 2: "SF", 3: "PF", 4: "C", 5: "G", 6: "F",
                              7: "SG/SF", 8: "G/F", 9: "PF/C", 10: "F/C", 11: "UTIL",
                              12: "Bench", 13: "IR"}
#: Acquisition types as members say them.
ACQUISITION_WORDS = {"WAIVERS_TRADITIONAL": "waivers (traditional order)",
                     "WAIVERS_CONTINUOUS": "continuous waivers",
                     "WAIVERS_ROLLING": "rolling waivers", "FREEAGENCY": "free agency",
                     "WAIVERS": "waivers"}
#: A counting category projected to lose by at most this share of the opponent's total is
#: still winnable (a streamer or two over the days left).
WINNABLE_GAP = 0.15
#: Activity verbs by ESPN action.
VERBS = {"FA ADDED": "added", "WAIVER ADDED": "claimed", "DROPPED": "dropped",
         "TRADED": "traded", "MOVED": "moved"}


def _err(exc: Exception) -> Reply:
    return Reply(text=espn_trouble(exc), report={"error": str(exc)})


def _team_asked(ctx: LeagueContext, request: Request) -> Team | None:
    """The team a request is about: a named one, my opponent, else mine."""
    if request.team.kind == "other" and request.team.name:
        return ctx.league.find_team(request.team.name) or ctx.my_team
    if request.team.kind == "opponent":
        return ctx.opponent
    return ctx.my_team


# --------------------------------------------------------------------------- settings


def _period_range(league: League, period: int) -> str:
    dates = league.matchup_dates(period)
    return f"{fmt_day(dates[0])} - {fmt_day(dates[-1])}" if dates else f"matchup {period}"


def settings_lines(league: League, me: Team | None, today: date) -> list[str]:
    """The league's rules, one fact per line (key fact first)."""
    s = league.settings
    lines = [f"**{s.name}**: {s.size} teams, "
             + ("head-to-head points" if s.is_points else
                f"head-to-head {len(s.categories)} categories")
             + f" ({s.espn_scoring_type or s.scoring_type.value})."]
    counts = {k: v for k, v in s.lineup_slot_counts.items() if v > 0}
    starters = [f"{v} {SLOT_NAMES.get(k, str(k))}" for k, v in sorted(counts.items())
                if k not in (12, 13)]
    bench = counts.get(12, 0)
    ir = counts.get(SLOT_IR, 0)
    lines.append(f"Roster: {s.roster_size} spots: {sum(v for k, v in counts.items() if k not in (12, 13))} "
                 f"starters ({', '.join(starters)}), {bench} bench, {ir} IR spot"
                 f"{'s' if ir != 1 else ''}.")
    acq = s.acquisition
    period_days = len(s.scoring_periods_for(league.current_matchup_period))
    limit = acq.limit_for_matchup(period_days)
    used = me.transactions.matchup_acquisition_totals.get(league.current_matchup_period, 0) \
        if me is not None else None
    if limit is None:
        acq_line = "Acquisitions: no limit per matchup"
    else:
        acq_line = f"Acquisitions: {limit} per matchup"
        if used is not None:
            acq_line += f"; you've used {used} this matchup, {max(limit - used, 0)} left"
    if acq.season_limit is not None and acq.season_limit >= 0:
        acq_line += f"; {acq.season_limit} per season"
    lines.append(acq_line + ".")
    waiver = ACQUISITION_WORDS.get(acq.acquisition_type, acq.acquisition_type.lower())
    lines.append(f"Waivers: {waiver}, a dropped player stays on waivers for "
                 f"{acq.waiver_hours} hours." if acq.waiver_hours else f"Pickups: {waiver}.")
    order = waiver_order_line(league, me)
    if order:
        lines.append(order)
    if acq.uses_budget:
        lines.append(f"FAAB budget: ${acq.budget}.")
    if s.trade_deadline is not None:
        past = " (passed)" if s.trade_deadline < today else ""
        lines.append(f"Trade deadline: {fmt_day(s.trade_deadline)} {s.trade_deadline.year}{past}.")
    else:
        lines.append("Trade deadline: none set.")
    lines.append(_trades_line(s))
    reg = s.regular_season_matchup_periods
    playoff_periods = sorted(p for p in s.matchup_periods if p > reg) if reg else []
    if s.playoff_team_count and playoff_periods:
        lines.append(f"Playoffs: {s.playoff_team_count} teams, matchups {playoff_periods[0]}-"
                     f"{playoff_periods[-1]} ({_period_range(league, playoff_periods[0])} to "
                     f"{_period_range(league, playoff_periods[-1]).split(' - ')[-1]}); the "
                     f"regular season is {reg} matchups (through "
                     f"{_period_range(league, reg).split(' - ')[-1]}).")
    elif s.playoff_team_count:
        lines.append(f"Playoffs: {s.playoff_team_count} teams.")
    ties = _ties_line(s)
    if ties:
        lines.append(ties)
    if s.lineup_lock_type:
        lines.append("Lineups lock " + ("at each player's game time."
                                        if s.lineup_lock_type == "INDIVIDUAL_GAME"
                                        else "daily at the first game."))
    return lines


#: ESPN's tie-break names (`playoffSeedingRule`, `matchupTieRule`) in members' words.
TIE_BREAKS = {"H2H_RECORD": "head-to-head record between the tied teams",
              "TOTAL_POINTS_SCORED": "total points scored",
              "POINTS_FOR": "total points scored",
              "INTRA_DIVISION_RECORD": "record within the division"}


def _tie_break(rule: str) -> str:
    return TIE_BREAKS.get(rule.upper(), rule.lower().replace("_", " "))


def _trades_line(s: LeagueSettings) -> str:
    """How an accepted trade goes through: the review hours and the veto votes."""
    review = (f"an accepted trade waits {s.trade_review_hours} hours before it goes through"
              if s.trade_review_hours else "an accepted trade goes through at once")
    veto = (f"{s.veto_votes_required} veto votes from the other managers in that time cancel it"
            if s.veto_votes_required > 0 else "ESPN lists no veto vote for this league")
    return f"Trades: {review}; {veto}. FanVise never votes or vetoes for anyone."


def _ties_line(s: LeagueSettings) -> str | None:
    """How ties are settled: a tied matchup (or category), and teams tied in the standings."""
    parts = []
    if s.matchup_tie_rule:
        what = "a tied matchup" if s.is_points else "a tied category counts as a tie for both " \
            "teams, and a tied matchup"
        parts.append(f"{what} stays a tie (half a win, half a loss)"
                     if s.matchup_tie_rule.upper() == "NONE"
                     else f"{what} goes to the {_tie_break(s.matchup_tie_rule)}")
    if s.playoff_seeding_rule:
        parts.append("teams tied on record in the standings are ordered by "
                     + _tie_break(s.playoff_seeding_rule))
    if not parts:
        return None
    text = "; ".join(parts)
    return f"Ties: {text[0].upper()}{text[1:]}."


def waiver_order_line(league: League, me: Team | None) -> str | None:
    """The league's waiver order from ESPN's waiverRank (1 = first claim), with the member's
    place first; None when ESPN sends no order (e.g. a FAAB league)."""
    ranked = sorted((t for t in league.teams if t.waiver_rank), key=lambda t: t.waiver_rank or 0)
    if not ranked:
        return None
    mine = ""
    if me is not None and me.waiver_rank:
        mine = f" you ({me.name}) are {ordinal(me.waiver_rank)} of {len(ranked)};"
    return (f"Waiver order:{mine} "
            + ", ".join(f"{t.waiver_rank}. {t.name}" for t in ranked) + ".")


async def answer_league_settings(deps: AgentDeps, request: Request) -> Reply:
    """The league's rules and settings from ESPN: scoring, roster and lineup slots, IR,
    acquisition limit and how many are left, waivers, trade deadline, playoffs."""
    try:
        ctx = await load_context(deps)
    except EspnError as exc:
        return _err(exc)
    lines = settings_lines(ctx.league, ctx.my_team, deps.today_date())
    first = request.setting
    hit = [line for line in lines if first is not None and line.startswith(first)]
    if first == "Waiver order" and not hit:
        hit = ["Waiver order: ESPN doesn't list one for this league"
               + (" (claims go to the highest FAAB bid)." if ctx.league.settings.acquisition
                  .uses_budget else ".")]
    if hit:  # the fact asked, then where the rest is
        return Reply(text=hit[0] + "\nSay \"league settings\" for all of the league's rules.",
                     report={"settings": lines, "asked": first},
                     tool_calls=["get_league_settings"])
    return Reply(text="\n".join(lines), report={"settings": lines},
                 tool_calls=["get_league_settings"])


# --------------------------------------------------------------------------- owner


async def answer_player_owner(deps: AgentDeps, request: Request) -> Reply:
    """Whose team each named player is on (or that he is a free agent)."""
    refs = request.resolved_players()
    if not refs:
        return Reply(text="Which player do you mean? Give me his name, e.g. \"who has "
                          "brunson?\"", report={"clarify": ["player"]})
    try:
        ctx = await load_context(deps)
    except EspnError as exc:
        return _err(exc)
    lines, owners = [], []
    for ref in refs[:5]:
        team = ctx.league.team_of_player(int(ref.player_id or 0))
        if team is None:
            lines.append(f"{ref.name} is on no team in this league: he's a free agent "
                         "(or on waivers) you can pick up.")
            owners.append({"player": ref.name, "team": None})
            continue
        owner = f" ({', '.join(team.owners)})" if team.owners else ""
        whose = ""
        if ctx.my_team is not None and team.id == ctx.my_team.id:
            whose = ": your own team"
        elif ctx.opponent is not None and team.id == ctx.opponent.id:
            whose = ", your opponent this matchup"
        lines.append(f"{ref.name} isn't a free agent: he's on **{team.name}**{owner}{whose}.")
        owners.append({"player": ref.name, "team": team.name})
    return Reply(text="\n".join(lines), report={"owners": owners}, tool_calls=["get_league"])


# --------------------------------------------------------------------------- past matchup


def asked_period(league: League, request: Request, today: date) -> int:
    """The matchup period a past-matchup question asks about: the one it names ("week 5",
    "two weeks ago"), else the one holding the past day named, else the one before the
    current."""
    if request.period is not None:
        return request.period
    if request.day is not None and request.day.date:
        try:
            d = date.fromisoformat(request.day.date)
        except ValueError:
            d = None
        if d is not None and d < today:
            for period in league.settings.matchup_periods:
                if d in league.matchup_dates(period):
                    return period
    return max(league.current_matchup_period - (request.count or 1), 1)


def _result_line(league: League, m: Matchup, team: Team, me: Team | None) -> str:
    """"Week 12 (Jan 16 - Jan 22): Hoop Dreamers 1012-987 Full Court Press: a win"."""
    side, other = m.side_for(team.id), m.opponent_side(team.id)
    if side is None or other is None:
        return f"{team.name} had a bye in matchup {m.matchup_period}."
    opp = league.team(other.team_id)
    you = me is not None and team.id == me.id
    who = "You" if you else team.name
    if league.settings.is_points:
        score = f"{side.points:.1f}-{other.points:.1f}"
        diff = side.points - other.points
    else:
        score = f"{side.wins}-{side.losses}" + (f"-{side.ties}" if side.ties else "")
        diff = side.wins - side.losses
    won = "UNDECIDED"
    if m.winner in ("HOME", "AWAY"):
        won = "win" if (m.winner == "HOME") == (m.home.team_id == team.id) else "loss"
    elif m.winner == "TIE":
        won = "tie"
    elif diff:
        won = "win" if diff > 0 else "loss"
    verdict = {"win": "won", "loss": "lost", "tie": "tied"}.get(won, "played")
    return (f"Matchup {m.matchup_period} ({_period_range(league, m.matchup_period)}): "
            f"{who} {verdict} {score} against {opp.name}"
            + (f" (by {abs(diff):.1f})" if league.settings.is_points and diff else "") + ".")


async def answer_past_matchup(deps: AgentDeps, request: Request) -> Reply:
    """A past matchup's result (last week's by default, or the week of a past day named):
    the final score, won or lost, and by how much; category leagues list each category."""
    try:
        ctx = await load_context(deps)
    except EspnError as exc:
        return _err(exc)
    league = ctx.league
    team = _team_asked(ctx, request)
    if team is None:
        return Reply(text="Link your ESPN team first (`/link team=<id>`), then ask again.",
                     report={"error": "no_team"})
    if request.week_pick in ("best", "worst"):
        return _picked_week(league, team, ctx.my_team, best=request.week_pick == "best")
    period = asked_period(league, request, deps.today_date())
    if request.week_pick in ("league_high", "league_low") \
            and period < league.current_matchup_period:
        return _week_extreme(league, period, high=request.week_pick == "league_high")
    if period >= league.current_matchup_period:
        return Reply(text=f"Matchup {league.current_matchup_period} is still being played; "
                          "ask \"am i winning?\" for the live score. No earlier matchup yet."
                     if league.current_matchup_period <= 1 else
                     "That's this matchup, still being played: ask \"am i winning?\".",
                     report={"period": period})
    m = next((x for x in league.matchups_for_period(period) if x.involves(team.id)), None)
    if m is None:
        return Reply(text=f"ESPN has no result for {team.name} in matchup {period}.",
                     report={"period": period})
    lines = [_result_line(league, m, team, ctx.my_team)]
    side, other = m.side_for(team.id), m.opponent_side(team.id)
    if not league.settings.is_points and side is not None and other is not None:
        rev = league.settings.reverse_categories
        for sid in league.settings.categories:
            a, b = side.categories.get(sid), other.categories.get(sid)
            if a is None or b is None:
                continue
            mark = {"WIN": "W", "LOSS": "L", "TIE": "T"}.get(a.result or "", "")
            lines.append(f"{_stat(sid)}: {fmt_stat(sid, a.score, 0)}-{fmt_stat(sid, b.score, 0)}"
                         f" {mark}".rstrip() + (" (lower wins)" if sid in rev else ""))
    lines.append(f"Season record: {team.record}.")
    return Reply(text="\n".join(lines), report={"period": period, "team": team.name},
                 tool_calls=["get_matchup_details"])


def _side_score(league: League, side: MatchupSide) -> float:
    """What a side's week is ranked by: its points, or its category wins (ties half)."""
    return side.points if league.settings.is_points else side.wins + side.ties / 2


def _score_text(league: League, side: MatchupSide) -> str:
    if league.settings.is_points:
        return f"{side.points:.1f} points"
    return f"{side.wins}-{side.losses}" + (f"-{side.ties}" if side.ties else "") + \
        " in categories"


def _picked_week(league: League, team: Team, me: Team | None, *, best: bool) -> Reply:
    """The team's best (or worst) finished matchup of the season by its score, with its
    result."""
    weeks = []
    for period in range(1, league.current_matchup_period):
        m = next((x for x in league.matchups_for_period(period) if x.involves(team.id)), None)
        side = m.side_for(team.id) if m is not None else None
        if m is not None and side is not None and m.opponent_side(team.id) is not None:
            weeks.append((_side_score(league, side), period, m, side))
    if not weeks:
        return Reply(text=f"{team.name} has no finished matchup yet this season.",
                     report={"week_pick": "best" if best else "worst"})
    score, period, m, side = (max if best else min)(weeks, key=lambda w: (w[0], -w[1]))
    you = me is not None and team.id == me.id
    word = "best" if best else "worst"
    lead = (f"{'Your' if you else team.name + chr(39) + 's'} {word} week so far: matchup "
            f"{period}, {_score_text(league, side)} ({len(weeks)} finished matchups"
            + (", ranked by category wins" if not league.settings.is_points else "") + ").")
    return Reply(text="\n".join([lead, _result_line(league, m, team, me)]),
                 report={"week_pick": word, "period": period, "score": score},
                 tool_calls=["get_matchup_details"])


def _week_extreme(league: League, period: int, *, high: bool) -> Reply:
    """The league's high (or low) score of one finished matchup period: the team and its
    score, then the next two."""
    rows = []
    for m in league.matchups_for_period(period):
        for side in m.sides:
            if m.opponent_side(side.team_id) is not None:
                rows.append((_side_score(league, side), side))
    if not rows:
        return Reply(text=f"ESPN has no scores for matchup {period}.", report={"period": period})
    rows.sort(key=lambda r: r[0], reverse=high)
    word = "high" if high else "low"
    top = rows[0][1]
    lines = [f"Matchup {period} ({_period_range(league, period)}) {word} score: "
             f"**{league.team(top.team_id).name}** with {_score_text(league, top)}."]
    if len(rows) > 1:
        lines.append("Next: " + ", ".join(f"{league.team(s.team_id).name} "
                                          f"{_score_text(league, s)}" for _, s in rows[1:3])
                     + ".")
    return Reply(text="\n".join(lines), report={"period": period, "week_pick": f"league_{word}",
                                                "team": league.team(top.team_id).name},
                 tool_calls=["get_matchup_details"])


def _stat(sid: int) -> str:
    return next((k for k, v in STAT_IDS.items() if v == sid), str(sid))


# --------------------------------------------------------------------------- activity


async def answer_league_activity(deps: AgentDeps, request: Request) -> Reply:
    """What changed: the league's recent adds, drops and trades, the member's (or the asked
    team's) own first."""
    try:
        ctx = await load_context(deps)
        items = await deps.espn.get_recent_activity(limit=40)
    except EspnError as exc:
        return _err(exc)
    league = ctx.league
    team = _team_asked(ctx, request)
    counts = _season_moves(league, team)
    lines: list[str] = []
    if not items:
        lines.append("ESPN lists no recent adds, drops or trades in the league.")
        if request.team.kind == "mine" and not request.about_me:
            lines.append(_league_moves(league))  # "has anyone made a trade": every team
        elif counts:
            lines.append(counts)
        return Reply(text="\n".join(lines), report={"activity": []},
                     tool_calls=["get_recent_activity"])
    players = {p.id: p.name for t in league.teams for p in t.players}
    try:
        players.update({p.id: p.name for p in await deps.espn.get_all_players()})
    except EspnError:
        pass

    def line(it: Any) -> str:
        who = "A team"
        if it.team_id is not None:
            try:
                who = league.team(it.team_id).name
            except KeyError:
                pass
        name = it.player_name or players.get(it.player_id or -1, "a player")
        when = f"{fmt_day(it.date)}: " if it.date else ""
        return f"- {when}{who} {VERBS.get(it.action, it.action.lower())} {name}"

    mine = [it for it in items if team is not None and it.team_id == team.id]
    if team is not None:
        label = "Your team" if ctx.my_team is not None and team.id == ctx.my_team.id \
            else team.name
        if mine:
            lines.append(f"**{label}**: {len(mine)} recent move{'s' if len(mine) != 1 else ''}")
            lines += [line(it) for it in mine[:8]]
        else:
            lines.append(f"**{label}**: no adds, drops or trades lately.")
    if counts:
        lines.append(counts)
    rest = [it for it in items if it not in mine]
    if rest:
        lines.append("**Around the league**")
        lines += [line(it) for it in rest[:10]]
    return Reply(text="\n".join(lines),
                 report={"mine": len(mine), "league": len(rest)},
                 tool_calls=["get_recent_activity"])


#: Words that put the member in an activity question ("what adds did i make").
#: Teams listed by how many moves they made.
MOST_ACTIVE = 5


def _league_moves(league: League) -> str:
    """The most active teams by ESPN's season counters ("Most moves this season: Bench Mob
    22 adds, 1 trade (3 this matchup); ...")."""
    def moves(t: Team) -> str:
        tc = t.transactions
        now = tc.matchup_acquisition_totals.get(league.current_matchup_period, 0)
        trades = f", {tc.trades} trade{'s' if tc.trades != 1 else ''}" if tc.trades else ""
        return f"{t.name} {tc.acquisitions} add{'s' if tc.acquisitions != 1 else ''}{trades} " \
               f"({now} this matchup)"
    ranked = sorted(league.teams, key=lambda t: (-t.transactions.acquisitions,
                                                -t.transactions.trades, t.name))
    return "Most moves this season (ESPN's counters): " + \
        "; ".join(moves(t) for t in ranked[:MOST_ACTIVE]) + "."


def _season_moves(league: League, team: Team | None) -> str:
    """"Hoop Dreamers this season: 14 adds, 14 drops, 0 trades; 2 adds this matchup"."""
    if team is None:
        return ""
    tc = team.transactions
    now = tc.matchup_acquisition_totals.get(league.current_matchup_period, 0)
    return (f"{team.name} this season: {tc.acquisitions} add{'s' if tc.acquisitions != 1 else ''}"
            f", {tc.drops} drop{'s' if tc.drops != 1 else ''}, {tc.trades} "
            f"trade{'s' if tc.trades != 1 else ''}, {tc.move_to_ir} move"
            f"{'s' if tc.move_to_ir != 1 else ''} to IR; {now} add{'s' if now != 1 else ''} "
            "this matchup.")


# --------------------------------------------------------------------------- box score


def asked_day(request: Request, today: date) -> date:
    """The day that is over a box-score question asks about (default yesterday)."""
    if request.day is not None and request.day.date:
        try:
            d = date.fromisoformat(request.day.date)
        except ValueError:
            d = None
        if d is not None and d < today:
            return d
        if d is not None and d > today and request.day.word.lower() == f"{d:%A}".lower():
            return d - timedelta(days=7)
    return today - timedelta(days=1)


#: ESPN's default points weights (stat id -> points), the game score that orders a box score
#: in a category league: PTS 1, 3PM 1, FGA -1, FGM 2, FTA -1, FTM 1, REB 1, AST 2, STL 4,
#: BLK 4, TO -2.
GAME_SCORE = {0: 1.0, 17: 1.0, 14: -1.0, 13: 2.0, 16: -1.0, 15: 1.0, 6: 1.0, 3: 2.0, 2: 4.0,
              1: 4.0, 11: -2.0}


def _fpts(league: League, stats: dict[int, float]) -> float:
    """Fantasy points of a game line (the league's weights; in a category league ESPN's
    default points weights as a game score)."""
    w = league.settings.scoring_weights if league.settings.is_points else GAME_SCORE
    return sum(stats.get(s, 0.0) * pts for s, pts in w.items())


def _line(stats: dict[int, float]) -> str:
    def n(s: int) -> int:
        return int(round(stats.get(s, 0.0)))
    out = f"{n(0)} pts, {n(6)} reb, {n(3)} ast, {n(2)} stl, {n(1)} blk, {n(17)} 3pm, {n(11)} to"
    if stats.get(14):
        out += f", {n(13)}-{n(14)} FG"
    return out


async def answer_team_box_score(deps: AgentDeps, request: Request) -> Reply:
    """A team's box score of a day that is over (default last night): who played, best
    first, and who didn't (off day, or sat out)."""
    try:
        ctx = await load_context(deps)
    except EspnError as exc:
        return _err(exc)
    team = _team_asked(ctx, request)
    if team is None:
        return Reply(text="Link your ESPN team first (`/link team=<id>`), then ask again.",
                     report={"error": "no_team"})
    today = deps.today_date()
    day = asked_day(request, today)
    league = ctx.league
    try:
        cards = await deps.espn.get_player_cards([p.id for p in team.players])
    except EspnError as exc:
        return _err(exc)
    by_id = {c.id: c for c in cards}
    playing = ctx.schedule.teams_playing_on(day)
    played: list[tuple[float, Player, dict[int, float]]] = []
    sat: list[Player] = []
    for p in team.players:
        card = by_id.get(p.id, p)
        g = next((x for x in card.game_log if x.date == day and x.stats), None)
        if g is not None:
            value = g.applied_points if league.settings.is_points and g.applied_points \
                is not None else _fpts(league, g.stats)
            played.append((value, card, g.stats))
        elif p.pro_team_id in playing:
            sat.append(card)
    played.sort(key=lambda x: -x[0])
    when = "last night" if day == today - timedelta(days=1) else f"on {fmt_day(day)}"
    who = "your team" if ctx.my_team is not None and team.id == ctx.my_team.id else team.name
    if not played:
        text = f"Nobody on {who} played {when} ({fmt_day(day)})."
        if sat:
            text += " Their teams played without " + ", ".join(p.name for p in sat) + "."
        return Reply(text=text, report={"day": day.isoformat(), "played": []},
                     tool_calls=["get_player_cards"])
    is_points = league.settings.is_points
    best = played[0]
    lead = (f"Best for {who} {when} ({fmt_day(day)}): **{best[1].name}**, "
            f"{_line(best[2])}" + (f" = {best[0]:.0f} fantasy points" if is_points else "") + ".")
    lines = [lead]
    for value, card, stats in played:
        lines.append(f"- {player_label(card)}: {_line(stats)}"
                     + (f" = {value:.0f} fantasy points" if is_points else ""))
    if not is_points:
        lines.append("Best first by game score (ESPN's default points weights).")
    if is_points:
        lines.append(f"Total: {sum(v for v, _, _ in played):.0f} fantasy points from "
                     f"{len(played)} player{'s' if len(played) != 1 else ''} "
                     "(starters and bench alike).")
    if sat:
        lines.append("Didn't play though their team did: "
                     + ", ".join(f"{p.name} ({status_text(p)})" for p in sat) + ".")
    return Reply(text="\n".join(lines),
                 report={"day": day.isoformat(),
                         "played": [{"name": c.name, "value": round(v, 1)}
                                    for v, c, _ in played]},
                 tool_calls=["get_player_cards"])


# --------------------------------------------------------------------------- categories


async def answer_category_outlook(deps: AgentDeps, request: Request) -> Reply:
    """Which categories are still winnable this matchup and what each would take: the
    categories lost or tied now whose projected final is a win or close, with the gap."""
    status = await answer_matchup_status(deps, request)
    rows = (status.report or {}).get("categories")
    if not rows:
        if status.report and "my_points" in status.report:
            r = status.report
            gap = r["opponent_projected"] - r["my_projected"]
            text = ("This is a points league, so there are no categories to win: "
                    + (f"you're projected to win by {-gap:.0f}." if gap < 0 else
                       f"you're projected {gap:.0f} short; that's what moves need to find."))
            return Reply(text=text + "\n" + status.text, report=status.report,
                         offers=status.offers, tool_calls=status.tool_calls)
        return status
    won, winnable, lost = [], [], []
    for r in rows:
        sid = STAT_IDS.get(r["category"], -1)
        lower = r["category"] == "TO"
        gap = (r["my_projected"] - r["opponent_projected"]) if lower \
            else (r["opponent_projected"] - r["my_projected"])
        pct = "%" in r["category"]
        scale = max(abs(r["opponent_projected"]), 1e-9)
        if r["projected_result"] == "win" and r["result"] == "win":
            won.append(r["category"])
        elif r["projected_result"] == "win" or gap <= (0.01 if pct else WINNABLE_GAP * scale):
            need = (f"{abs(gap) * 100:.1f} points of {r['category']}" if pct
                    else f"{max(gap, 0):.0f} more {r['category']}" if not lower
                    else f"{max(gap, 0):.0f} fewer turnovers")
            now = {"win": "winning", "loss": "losing", "tie": "tied"}.get(r["result"], "?")
            proj = (f"projected {fmt_stat(sid, r['my_projected'], 0)}-"
                    f"{fmt_stat(sid, r['opponent_projected'], 0)}")
            winnable.append(f"- {r['category']}: {now} now, {proj}: "
                            + ("holds if your lineups stay full" if gap <= 0 else f"needs {need}"))
        else:
            lost.append(r["category"])
    lines = [f"Still winnable: {len(winnable)} categor{'y' if len(winnable) == 1 else 'ies'}"
             + (":" if winnable else ".")]
    lines += winnable
    if won:
        lines.append("Safe wins (ahead now and projected): " + ", ".join(won) + ".")
    if lost:
        lines.append("Out of reach (projected to lose by more than a streamer adds): "
                     + ", ".join(lost) + ".")
    chase = [w[2:].split(":")[0] for w in winnable if "needs" in w and "%" not in w
             and not w.startswith("- TO")]
    if chase:
        lines.append(f"Say \"who do i stream for {chase[0].lower()}\" to find pickups for it.")
    return Reply(text="\n".join(lines), report={"winnable": len(winnable), "won": won,
                                                "lost": lost, **(status.report or {})},
                 offers=status.offers, tool_calls=status.tool_calls)


__all__ = ["answer_category_outlook", "answer_league_activity", "answer_league_settings",
           "answer_past_matchup", "answer_player_owner", "answer_team_box_score",
           "asked_day", "asked_period", "settings_lines"]
