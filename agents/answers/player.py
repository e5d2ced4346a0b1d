"""Player answers: recent form (game logs against the season), "should I drop / start /
hold / sit X", injured players at a position (hold or stream, with the timeline), and
`playing_on` (does his NBA team play that day) for the player-research path."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from agents.answers.clarify import unresolved_reply, which_player_reply
from agents.answers.league import (
    fmt_day,
    fmt_stat,
    player_label,
    resolved_ref,
    status_text,
)
from agents.answers.types import Offer, Reply
from agents.answers.valuers import shared_valuer
from agents.shared.deps import (
    AgentDeps,
    LeagueContext,
    load_context,
    optimizer_for,
    weekly_plan_of,
)
from agents.understanding.request import Intent, MoveRef, PlayerRef, Request
from fantasy.constants import (
    OUT_STATUSES,
    SLOT_IR,
    UNCERTAIN_STATUSES,
    pro_team_abbrev,
    stat_name,
)
from fantasy.espn.errors import EspnError
from fantasy.espn.messages import espn_trouble
from fantasy.formatting import one_decimal, weekday_text, whole
from fantasy.models import GameLogEntry, League, Player, ProGame, ProSchedule, Team
from fantasy.outlook import (
    HOLD_DAYS,
    Valuer,
    form_summary,
    form_word,
    hold_or_stream,
    out_days,
)
from fantasy.schedule import espn_ms_to_datetime

FORM_DEFAULT = 5
FORM_MAX = 15
#: Stats shown in a form answer: PTS REB AST STL BLK 3PM TO, then FG% FT%.
FORM_COLUMNS = (0, 6, 3, 2, 1, 17, 11, 19, 20)
#: "G" = PG/SG, "F" = SF/PF, "C"/bigs = C (then PF/C).
POSITION_GROUPS: dict[str, frozenset[str]] = {
    "G": frozenset({"PG", "SG"}), "F": frozenset({"SF", "PF"}), "C": frozenset({"C"}),
    "BIG": frozenset({"C", "PF"}), "BIGS": frozenset({"C", "PF"}),
    "PG": frozenset({"PG"}), "SG": frozenset({"SG"}), "SF": frozenset({"SF"}),
    "PF": frozenset({"PF"}),
}
_POS_WORD = {"G": "guard", "F": "forward", "C": "center", "BIG": "big", "BIGS": "big",
             "PG": "point guard", "SG": "shooting guard", "SF": "small forward",
             "PF": "power forward"}
INJURED = frozenset(OUT_STATUSES | UNCERTAIN_STATUSES | {"GTD"})


# --------------------------------------------------------------------------- shared


def _err(exc: Exception) -> Reply:
    return Reply(text=espn_trouble(exc), report={"error": str(exc)})


def _window(deps: AgentDeps, league: League) -> list[date]:
    today = deps.today_date()
    return league.remaining_dates(today=today) or [today + timedelta(days=k) for k in range(7)]


def _players_or_ask(request: Request) -> tuple[list[PlayerRef], Reply | None]:
    refs = request.resolved_players()
    if refs:
        return refs, None
    bad = request.unresolved_players()
    if bad:
        return [], unresolved_reply(request, bad, {})
    return [], which_player_reply(request)


async def _find_player(deps: AgentDeps, ctx: LeagueContext, pid: int) -> Player | None:
    """The league's view of a player (roster entry, free agent), or his ESPN card."""
    for t in ctx.league.teams:
        e = t.entry_for(pid)
        if e is not None:
            return e.player
    for p in ctx.free_agents or []:
        if p.id == pid:
            return p
    try:
        cards = await deps.espn.get_player_cards([pid])
    except EspnError:
        return None
    return next((c for c in cards if c.id == pid), None)


async def _card(deps: AgentDeps, pid: int) -> Player | None:
    try:
        cards = await deps.espn.get_player_cards([pid])
    except EspnError:
        return None
    return next((c for c in cards if c.id == pid), None)


def _game_index(schedule: ProSchedule) -> dict[int, ProGame]:
    return {g.id: g for g in schedule.games}


def versus(game: ProGame | None, pro_team_id: int) -> str:
    """" vs BOS" at home, " @ BOS" away ("" without a game)."""
    if game is None:
        return ""
    opp = pro_team_abbrev(game.opponent_of(pro_team_id))
    return f" vs {opp}" if game.is_home(pro_team_id) else f" @ {opp}"


def _owner(team: Team) -> str:
    return f" ({team.owners[0]})" if team.owners else ""


def day_words(d: date, today: date) -> str:
    """"tonight", "tomorrow" or "on Sat Jan 28"."""
    return ("tonight" if d == today else "tomorrow" if d == today + timedelta(days=1)
            else f"on {fmt_day(d)}")


def tipoff(game: ProGame) -> str:
    """The game's tip-off time in Eastern time ("7:30 PM ET"), "" when unknown."""
    if not game.start_ms:
        return ""
    t = espn_ms_to_datetime(game.start_ms)
    return f"{t:%I:%M %p}".lstrip("0") + " ET"


# --------------------------------------------------------------------------- playing on


async def playing_on(deps: AgentDeps, player_id: int, day: date | None = None, *,
                     with_status: bool = False) -> str:
    """Whether the player's NBA team plays on `day` (default today): opponent and tip-off
    ("Jalen Brunson (NYK) plays tonight vs BOS, 7:30 PM ET."), or that his team is off.
    `with_status` appends his injury status when he is not healthy."""
    ctx = await load_context(deps, with_free_agents=True)
    p = await _find_player(deps, ctx, player_id)
    if p is None:
        return "I can't find that player in this league."
    today = deps.today_date()
    d = day or today
    when = day_words(d, today)
    if not p.pro_team_id:
        return f"{p.name} isn't on an NBA roster right now."
    games = ctx.schedule.games_for_team(p.pro_team_id, [d])
    if not games:
        nxt = next((g for g in ctx.schedule.games_for_team(p.pro_team_id) if g.date > d), None)
        tail = f" Next game: {fmt_day(nxt.date)}{versus(nxt, p.pro_team_id)}." if nxt else ""
        st = (f" He's listed {status_text(p)}." if with_status and p.injury_status != "ACTIVE"
              else "")
        return f"{p.name} ({p.pro_team}) has no game {when}.{tail}{st}"
    g = games[0]
    tip = tipoff(g)
    game = f"{versus(g, p.pro_team_id)}" + (f", {tip}" if tip else "")
    if p.injury_status in OUT_STATUSES:  # his team plays; he does not
        return f"{p.pro_team} play {when}{game}, but {p.name} is listed {status_text(p)}."
    out = f"{p.name} ({p.pro_team}) plays {when}{game}."
    if with_status and p.injury_status != "ACTIVE":
        out += f" He's listed {status_text(p)}."
    return out


# --------------------------------------------------------------------------- form


async def answer_player_form(deps: AgentDeps, request: Request) -> Reply:
    """The last N games (request.count, default 5) with averages against the season's; a
    question about a day that is over ("last night", "on saturday") gets that day's game
    first (or why there was none), then a one-line look at his recent form."""
    refs, ask = _players_or_ask(request)
    if ask is not None:
        return ask
    try:
        ctx = await load_context(deps)
    except EspnError as exc:
        return _err(exc)
    n = max(1, min(request.count or FORM_DEFAULT, FORM_MAX))
    is_points = ctx.league.settings.is_points
    games_by_id = _game_index(ctx.schedule)
    today = deps.today_date()
    day = asked_past_day(request, today)
    parts: list[str] = []
    report: dict[str, Any] = {"players": []}
    if day is not None:
        report["day"] = day.isoformat()
    for ref in refs[:3]:
        card = await _card(deps, int(ref.player_id or 0))
        if card is None:
            parts.append(f"ESPN has no game log for {ref.name or ref.words} right now.")
            continue
        logs = sorted((g for g in card.game_log if g.stats and (g.date is None or g.date < today)),
                      key=lambda g: g.scoring_period, reverse=True)
        season_year = ctx.league.season
        played = [g for g in logs if g.date is None or g.date.year >= season_year - 1
                  and g.date >= _season_start(ctx)]
        logs = played[:n]
        season = card.stat_line("season")
        season_pg = {s: season.avg(s) for s in FORM_COLUMNS}
        summ = form_summary([g.stats for g in logs], season_pg, FORM_COLUMNS,
                            game_points=[g.applied_points for g in logs] if is_points else (),
                            season_points=season.applied_average if is_points else None)
        word = form_word(summ)
        entry: dict[str, Any] = {
            "id": card.id, "name": card.name, "games": summ.games, "form": word,
            "recent": {stat_name(s): round(v, 3) for s, v in summ.recent.items()},
            "season": {stat_name(s): round(v, 3) for s, v in summ.season.items()},
            "recent_fpts": summ.recent_points, "season_fpts": summ.season_points,
            "dates": [g.date.isoformat() if g.date else None for g in logs]}
        if day is not None:
            text, game = _day_answer(card, day, today, played, ctx, season_pg,
                                     season.applied_average if is_points else None)
            tail = (f"Last {summ.games} games: {word}"
                    + (f", {summ.recent_points:.1f} fantasy points a game vs {summ.season_points:.1f} season"
                       if is_points and summ.recent_points is not None
                       and summ.season_points is not None else "") + "."
                    if summ.games else "")
            parts.append(text + (f"\n{tail}" if tail else ""))
            entry["day_game"] = game
            report["players"].append(entry)
            continue
        lines = [f"**{player_label(card)}**, last {summ.games} games vs his season"
                 f" ({season.games_played} games): {word}"
                 + (f", {status_text(card)}" if card.injury_status != "ACTIVE" else "") + "."]
        if summ.games:
            avg = []
            for s in FORM_COLUMNS:
                r, se = summ.recent.get(s, 0.0), summ.season.get(s, 0.0)
                avg.append(f"{stat_name(s)} {fmt_stat(s, r)} ({fmt_stat(s, se)})")
            if is_points and summ.recent_points is not None:
                avg.insert(0, f"fantasy points {summ.recent_points:.1f} ({fmt_stat(0, summ.season_points)})")
            lines.append("Averages, last games (season): " + ", ".join(avg))
            for g in logs:
                lines.append(f"- {_game_line(g, games_by_id, card.pro_team_id, is_points)}")
        else:
            lines.append("No games played this season yet.")
        parts.append("\n".join(lines))
        report["players"].append(entry)
    return Reply(text="\n\n".join(parts), report=report, tool_calls=["get_player_game_log"])


def asked_past_day(request: Request, today: date) -> date | None:
    """The day that is over a form question asks about, or None (recent form).

    A date before today is that day. A weekday named in a form question ("how did he play
    saturday") asks about the last one played: a weekday read as this week's coming one is
    moved back a week (a game not played yet has no box score)."""
    if request.day is None or not request.day.date:
        return None
    try:
        d = date.fromisoformat(request.day.date)
    except ValueError:
        return None
    if d < today:
        return d
    if d > today and request.day.word.lower() == f"{d:%A}".lower():
        return d - timedelta(days=7)
    return None


def _when(d: date, today: date) -> str:
    """"last night (Tue Jan 24)" for yesterday, else "on Sat Jan 21"."""
    return f"last night ({fmt_day(d)})" if d == today - timedelta(days=1) else f"on {fmt_day(d)}"


def _game_line(g: GameLogEntry, games_by_id: dict[int, ProGame], pro_team_id: int,
               is_points: bool) -> str:
    """"Tue Jan 24 @ MIA: 27 pts, 1 reb, ... = 43 fantasy points"."""
    game = games_by_id.get(g.game_id or -1)
    pts = f" = {g.applied_points:.0f} fantasy points" if is_points and g.applied_points is not None \
        else ""
    when = fmt_day(g.date) if g.date else f"day {g.scoring_period}"
    return f"{when}{versus(game, pro_team_id)}: {_box(g.stats)}{pts}"


#: How one game compares with the season, by the form word of that single game.
_ONE_GAME = {"hot": "well above his season average", "cold": "well below his season average",
             "steady": "about his season average"}


def _day_answer(card: Player, day: date, today: date, played: list[GameLogEntry],
                ctx: LeagueContext, season_pg: dict[int, float],
                season_points: float | None) -> tuple[str, dict[str, Any] | None]:
    """His box score of a past day against his season, or why he has none (his team was
    off, or he did not play), with his last game before it."""
    games_by_id = _game_index(ctx.schedule)
    is_points = season_points is not None
    g = next((x for x in played if x.date == day), None)
    if g is not None:
        one = form_summary([g.stats], season_pg, FORM_COLUMNS,
                           game_points=[g.applied_points] if is_points else (),
                           season_points=season_points)
        game = games_by_id.get(g.game_id or -1)
        text = (f"**{player_label(card)}** {_when(day, today)}{versus(game, card.pro_team_id)}: "
                f"{_box(g.stats)}")
        if is_points:
            text += (f" = {g.applied_points or 0.0:.0f} fantasy points, "
                     f"{_ONE_GAME.get(form_word(one), '')} of {season_points:.1f} fantasy points.")
        else:  # one game in categories: each stat against his season, no single verdict
            text += (".\nHis season per game: " + ", ".join(
                f"{fmt_stat(s, season_pg.get(s, 0.0))} {stat_name(s)}" for s in FORM_COLUMNS)
                     + ".")
        return text, {"date": day.isoformat(), "points": g.applied_points,
                      "form": form_word(one) if is_points else None}
    team_games = ctx.schedule.games_for_team(card.pro_team_id, [day]) if card.pro_team_id \
        else []
    if team_games:
        why = (f"{card.name} didn't play {_when(day, today)}: {card.pro_team} played"
               f"{versus(team_games[0], card.pro_team_id)} without him"
               + (f" (today he's listed {status_text(card)})"
                  if card.injury_status != "ACTIVE" else "") + ".")
    else:
        why = f"{card.name} had no game {_when(day, today)}: {card.pro_team} were off."
    before = next((x for x in played if x.date is not None and x.date < day), None)
    if before is not None:
        why += f"\nHis last game before that: {_game_line(before, games_by_id, card.pro_team_id, is_points)}."
    return why, None


def _season_start(ctx: LeagueContext) -> date:
    """First day of the league's season (scoring period 1)."""
    try:
        return ctx.schedule.date_for(max(ctx.league.settings.first_scoring_period, 1))
    except (KeyError, ValueError, LookupError):
        return date(ctx.league.season - 1, 10, 1)


def _box(stats: dict[int, float]) -> str:
    def n(s: int) -> int:
        return int(round(stats.get(s, 0.0)))
    out = f"{n(0)} pts, {n(6)} reb, {n(3)} ast, {n(2)} stl, {n(1)} blk, {n(17)} 3pm, {n(11)} to"
    if stats.get(14):
        out += f", {n(13)}-{n(14)} FG"
    if stats.get(16):
        out += f", {n(15)}-{n(16)} FT"
    if stats.get(40):
        out += f", {n(40)} min"
    return out


# --------------------------------------------------------------------------- decisions


def _asked_action(request: Request) -> str | None:
    """The action the request asks about (`Request.action`, read once by understanding), or
    None when it names none."""
    return request.action


def _action(request: Request) -> str:
    return _asked_action(request) or "hold"


def _roster_rank(val: Valuer, team: Team, pid: int) -> tuple[int, int]:
    """(rank by value per game, roster size) of a player on his team (1 = best)."""
    order = sorted(team.players, key=lambda p: (-val.per_game(p), p.id))
    ids = [p.id for p in order]
    return (ids.index(pid) + 1 if pid in ids else len(ids), len(ids))


def _unit(val: Valuer) -> str:
    return "fpts" if val.by_points else "value"


def _fmt_val(val: Valuer, x: float) -> str:
    """Points leagues: a rest-of-matchup or per-game value in fantasy points."""
    return f"~{whole(x)} fantasy points"


def _games_left(val: Valuer, p: Player) -> str:
    """"3 games" or "~1.5 expected games" (an injured player's games count by his odds)."""
    games, exp = val.games(p), val.expected_games(p)
    if abs(exp - games) > 0.05:
        return f"~{one_decimal(exp)} expected games"
    return f"{games} game{'s' if games != 1 else ''}"


def _per_game(val: Valuer, p: Player) -> str:
    """His value per game as members read it: fantasy points, or his league rank by
    category value per game (never a z-score)."""
    if val.by_points:
        return f"{_fmt_val(val, val.per_game(p))} per game"
    return f"#{val.league_rank(p)} in the league by category value per game"


def _rest_vs(val: Valuer, a: Player, b: Player, b_name: str) -> str:
    """a against b for the rest of the matchup: "~40 fantasy points vs ~25 fantasy points for B", or in
    category leagues their league ranks per game and the games each has left."""
    if val.by_points:
        return (f"{_fmt_val(val, val.rest_value(a))} vs {_fmt_val(val, val.rest_value(b))} "
                f"for {b_name}")
    return (f"#{val.league_rank(a)} in the league by category value per game vs "
            f"#{val.league_rank(b)} for {b_name}, with {_games_left(val, a)} left vs "
            f"{_games_left(val, b)}")


def _best_streamer(val: Valuer, ctx: LeagueContext, positions: set[str]
                   ) -> tuple[Player, float] | None:
    rostered = ctx.league.all_rostered_player_ids()
    best: tuple[Player, float] | None = None
    for p in ctx.free_agents or []:
        if p.id in rostered or p.injury_status in INJURED:
            continue
        if positions and not positions & set(p.positions):
            continue
        v = val.rest_value(p)
        if best is None or v > best[1]:
            best = (p, v)
    return best


def _ir_free(league: League, team: Team) -> bool:
    slots = league.settings.lineup_slot_counts.get(SLOT_IR, 0)
    used = sum(1 for e in team.roster if e.lineup_slot_id == SLOT_IR)
    return used < slots


def _timeline(p: Player, val: Valuer, today: date) -> str:
    games = val.games(p)
    exp = val.expected_games(p)
    st = status_text(p)
    days = out_days(p.injury_status, p.expected_return_date, today)
    g = f"{games} game{'s' if games != 1 else ''} left this matchup"
    if p.injury_status in OUT_STATUSES:
        if days is None:
            return f"{st}; {g}, none of them expected without a return date"
        return f"{st}; {g}, ~{exp:.0f} expected to play"
    if p.injury_status in UNCERTAIN_STATUSES:
        return f"{st}; {g}, ~{exp:.1f} expected (each is a coin flip)"
    return f"{st}; {g}"


async def answer_player_decision(deps: AgentDeps, request: Request) -> Reply:
    """"Should I drop / start / hold / sit X": a direct call from status, return date, form,
    games this week and roster context. Not my player: whose team he is on (or free agent)."""
    refs, ask = _players_or_ask(request)
    if ask is not None:
        return ask
    try:
        ctx = await load_context(deps, with_free_agents=True, fa_size=150)
    except EspnError as exc:
        return _err(exc)
    league, today = ctx.league, deps.today_date()
    val = shared_valuer(league, ctx.schedule, _window(deps, league), today,
                 extra=ctx.free_agents or [])
    if len(refs) >= 2 and _asked_action(request) is None:
        return await _compare(deps, ctx, val, refs[:3])
    replies = [await _decide(deps, request, ctx, val, ref) for ref in refs[:3]]
    if len(replies) == 1:
        return replies[0]
    return Reply(text="\n\n".join(r.text for r in replies),
                 report={"players": [r.report for r in replies]},
                 offers=[o for r in replies for o in r.offers][:3],
                 tool_calls=sorted({c for r in replies for c in r.tool_calls}))


async def _compare(deps: AgentDeps, ctx: LeagueContext, val: Valuer,
                   refs: list[PlayerRef]) -> Reply:
    """"Is X better than Y" / "X or Y": the players ranked by expected value for the rest
    of this matchup (games he is expected to play x value per game), best first."""
    found: list[Player] = []
    missing: list[str] = []
    for ref in refs:
        p = await _find_player(deps, ctx, int(ref.player_id or 0))
        if p is None:
            missing.append(ref.name or ref.words)
        else:
            found.append(p)
    found.sort(key=lambda p: (-val.rest_value(p), p.name))
    lines: list[str] = []
    if len(found) >= 2:
        best, other = found[0], found[1]
        lines.append(f"For the rest of this matchup, **{best.name}** is the better bet: "
                     f"{_rest_vs(val, best, other, other.name)}.")
    me = ctx.my_team
    for p in found:
        owner = ctx.league.team_of_player(p.id)
        whose = ("yours" if me is not None and owner is not None and owner.id == me.id
                 else f"on {owner.name}" if owner else "a free agent")
        exp = val.expected_games(p)
        games = val.games(p)
        lines.append(f"- {player_label(p)}, {whose}: {status_text(p)}, {games} game"
                     f"{'s' if games != 1 else ''} left"
                     + (f" (~{exp:.1f} expected)" if abs(exp - games) > 0.05 else "")
                     + f", {_per_game(val, p)}.")
    if missing:
        lines.append(f"I can't find {', '.join(missing)} in this league.")
    return Reply(text="\n".join(lines), tool_calls=["get_player_status"],
                 report={"compare": [{"id": p.id, "name": p.name,
                                      "rest_value": round(val.rest_value(p), 3),
                                      "per_game": round(val.per_game(p), 3)} for p in found]})


async def _decide(deps: AgentDeps, request: Request, ctx: LeagueContext, val: Valuer,
                  ref: PlayerRef) -> Reply:
    """The call for one player (see `answer_player_decision`)."""
    pid = int(ref.player_id or 0)
    p = await _find_player(deps, ctx, pid)
    if p is None:
        return Reply(text=f"I can't find {ref.name or ref.words} in this league.",
                     report={"not_found": [ref.words]})
    league, today = ctx.league, deps.today_date()
    action = _action(request)
    owner = league.team_of_player(p.id)
    me = ctx.my_team
    timeline = _timeline(p, val, today)
    card = await _card(deps, p.id)
    form = ""
    if card is not None:
        logs = sorted((g for g in card.game_log if g.stats and g.date and g.date < today),
                      key=lambda g: g.scoring_period, reverse=True)[:5]
        s = card.stat_line("season")
        summ = form_summary([g.stats for g in logs], {k: s.avg(k) for k in FORM_COLUMNS},
                            FORM_COLUMNS,
                            game_points=[g.applied_points for g in logs]
                            if league.settings.is_points else (),
                            season_points=s.applied_average if league.settings.is_points
                            else None)
        if summ.games:
            form = f"form: {form_word(summ)} over his last {summ.games}"
            if summ.recent_points is not None and summ.season_points:
                form += f" ({summ.recent_points:.1f} fantasy points a game vs {summ.season_points:.1f} season)"
            else:
                form += (f" ({summ.recent.get(0, 0):.1f} pts, {summ.recent.get(6, 0):.1f} reb, "
                         f"{summ.recent.get(3, 0):.1f} ast vs {summ.season.get(0, 0):.1f}/"
                         f"{summ.season.get(6, 0):.1f}/{summ.season.get(3, 0):.1f} season)")
    report: dict[str, Any] = {"player": {"id": p.id, "name": p.name}, "action": action,
                              "status": p.injury_status,
                              "expected_return": p.expected_return_date.isoformat()
                              if p.expected_return_date else None,
                              "games_left": val.games(p), "fantasy_team": owner.name if owner
                              else None}
    offers: list[Offer] = []
    facts = "; ".join(x for x in (timeline, form) if x)
    if me is None:
        return Reply(text=f"{p.name}: {facts}. Link your team (`/link team=<id>`) and I can "
                          "tell you what to do with him.", report=report)
    if owner is None or owner.id != me.id:
        if owner is None:
            rec = "ADD?" if action == "add" else "NOT_YOURS"
            mine_worst = min(me.players, key=lambda q: (val.per_game(q), q.id))
            his_v, worst_v = val.rest_value(p), val.rest_value(mine_worst)
            head = (f"{p.name} isn't on your team: he's a free agent. " if action != "add"
                    else f"{p.name} is a free agent. ")
            better = his_v > worst_v
            body = (f"For the rest of this matchup he {'projects' if val.by_points else 'is'} "
                    f"{_rest_vs(val, p, mine_worst, f'your weakest player, {mine_worst.name}')}: "
                    + ("worth a look as an add." if better else "not worth a roster spot now."))
            ref_p = resolved_ref(p)
            offers.append(Offer(label=f"Evaluate adding {p.name}", request=Request.command(
                Intent.EXPLICIT_MOVE, text=f"add {p.name}", players=[ref_p],
                move=MoveRef(add=ref_p), action="add")))
            report.update(recommendation=rec, free_agent=True)
            return Reply(text=f"{head}{body}\n{p.name}: {facts}.", report=report, offers=offers,
                         tool_calls=["get_player_status"])
        whose = ("your opponent's team, " if ctx.opponent and owner.id == ctx.opponent.id
                 else "") + f"{owner.name}{_owner(owner)}"
        verb = {"drop": "drop", "start": "start", "sit": "sit", "hold": "hold",
                "add": "add", "stream": "stream"}.get(action, "do")
        nothing = (f"so there's nothing for you to {verb}" if verb != "add"
                   else "so you can't add him (a trade is the only way)")
        report.update(recommendation="NOT_YOURS")
        return Reply(text=f"{p.name} isn't on your team: he's on {whose}, {nothing}.\n"
                          f"{p.name}: {facts}.", report=report, tool_calls=["get_player_status"])
    # on my team
    rank, size = _roster_rank(val, me, p.id)
    rank_txt = f"your #{rank} player of {size} by projected value per game"
    if action in ("add", "trade"):
        report.update(recommendation="ON_YOUR_TEAM", roster_rank=rank, roster_size=size)
        what = "already on your team" if action == "add" else "on your team"
        return Reply(text=f"{p.name} is {what}: {rank_txt}.\n{p.name}: {facts}.",
                     report=report, tool_calls=["get_player_status"])
    if action in ("start", "sit"):
        return await _start_sit(deps, request, ctx, p, val, action, facts, rank_txt, report)
    days = out_days(p.injury_status, p.expected_return_date, today)
    core = rank <= max(size // 2, 1)
    best = _best_streamer(val, ctx, set(p.positions))
    his_v = val.rest_value(p)
    if core:
        rec = "HOLD"
        if p.injury_status in OUT_STATUSES and (days is None or days > HOLD_DAYS):
            why = (f"Don't drop {p.name}: he's {rank_txt}. Even out "
                   + ("with no return date" if days is None else f"~{days} days")
                   + ", a player this good is worth the roster spot"
                   + ("; move him to IR and stream the spot." if _ir_free(league, me)
                      and p.ir_eligible else "; stream around him."))
        elif p.injury_status in OUT_STATUSES:
            why = (f"Hold {p.name}: he's {rank_txt} and due back "
                   f"~{fmt_day(p.expected_return_date)}"
                   + (", so use your free IR slot meanwhile." if _ir_free(league, me)
                      and p.ir_eligible else ".") if p.expected_return_date else
                   f"Hold {p.name}: he's {rank_txt}.")
        else:
            why = f"Don't drop {p.name}: he's {rank_txt}."
    elif p.injury_status in OUT_STATUSES and (days is None or days > HOLD_DAYS):
        rec = "DROP"
        why = (f"Yes, {p.name} can go: he's {rank_txt} and out "
               + ("with no return date." if days is None else f"~{days} more days."))
    elif best is not None and best[1] > his_v * 1.15 and best[1] - his_v > (
            5 if val.by_points else 0.5):
        rec = "DROP"
        why = (f"{p.name} is droppable: he's {rank_txt}, and {best[0].name} "
               f"({best[0].pro_team}) projects {_fmt_val(val, best[1])} for the rest of the "
               f"matchup vs his {_fmt_val(val, his_v)}." if val.by_points else
               f"{p.name} is droppable: he's {rank_txt}, and {best[0].name} "
               f"({best[0].pro_team}) gives more category value for the rest of the matchup: "
               f"{_rest_vs(val, best[0], p, 'him')}.")
    else:
        rec = "HOLD"
        why = (f"Hold {p.name}: he's {rank_txt} and projects {_fmt_val(val, his_v)} for the "
               "rest of the matchup" + (f", about as much as the best free agent, "
                                         f"{best[0].name} ({_fmt_val(val, best[1])})."
                                         if best else ".") if val.by_points else
               f"Hold {p.name}: he's {rank_txt}, #{val.league_rank(p)} in the league by "
               f"category value per game with {_games_left(val, p)} left"
               + (f"; the best free agent, {best[0].name}, is #{val.league_rank(best[0])} with "
                  f"{_games_left(val, best[0])}, "
                  + ("only a little more" if best[1] > his_v else "no more")
                  + " over the rest of the matchup." if best
                  else "."))
    if rec == "DROP" and best is not None:
        a, d = resolved_ref(best[0]), resolved_ref(p)
        offers.append(Offer(label=f"Drop {p.name} for {best[0].name}", request=Request.command(
            Intent.EXPLICIT_MOVE, text=f"drop {p.name} for {best[0].name}", players=[d, a],
            move=MoveRef(drop=d, add=a), action="drop")))
    report.update(recommendation=rec, roster_rank=rank, roster_size=size,
                  rest_value=round(his_v, 2),
                  best_free_agent={"id": best[0].id, "name": best[0].name,
                                   "rest_value": round(best[1], 2)} if best else None)
    return Reply(text=f"{why}\n{p.name}: {facts}.", report=report, offers=offers,
                 tool_calls=["get_player_status", "get_free_agents"])


async def _start_sit(deps: AgentDeps, request: Request, ctx: LeagueContext, p: Player,
                     val: Valuer, action: str, facts: str, rank_txt: str,
                     report: dict[str, Any]) -> Reply:
    today = deps.today_date()
    d = today
    if request.day is not None and request.day.date:
        try:
            d = date.fromisoformat(request.day.date)
        except ValueError:
            d = today
    assert ctx.my_team is not None
    svc = await optimizer_for(deps)
    if request.day is not None and request.day.week:
        plan = weekly_plan_of(svc, ctx.my_team.id)
        starts = [dp.date for dp in plan.days if any(s.player_id == p.id for s in dp.starters)]
        games = val.games(p)
        rec = "START" if starts else "SIT"
        if starts:
            why = (f"Start {p.name} this week: your best lineups use him on {len(starts)} of his "
                   f"{games} game days ({', '.join(weekday_text(x) for x in starts)}).")
        else:
            why = (f"Sit {p.name} this week: your best lineups don't use him on any of his "
                   f"{games} game days; he's {rank_txt}.")
        report.update(recommendation=rec, starts=[x.isoformat() for x in starts])
        return Reply(text=f"{why}\n{p.name}: {facts}.", report=report,
                     tool_calls=["weekly_plan"])
    lineup = svc.daily_lineup(ctx.my_team.id, d)
    when = "today" if d == today else ("tomorrow" if d == today + timedelta(days=1)
                                       else fmt_day(d))
    start = next((s for s in lineup.starters if s.player_id == p.id), None)
    bench = next((b for b in lineup.bench if b.player_id == p.id), None)
    if start is not None:
        rec = "START"
        why = f"Start {p.name} {when}: he's in your best lineup ({start.slot})."
        if p.injury_status in UNCERTAIN_STATUSES:
            why += " He's questionable, so check his status before tip-off."
    else:
        rec = "SIT"
        reason = bench.reason if bench is not None else "not in the best lineup"
        if reason == "no game":
            why = f"Sit {p.name} {when}: {p.pro_team} has no game."
        elif str(reason).startswith("injured") or p.injury_status in OUT_STATUSES:
            why = f"Sit {p.name} {when}: he's {status_text(p)}."
        else:
            why = (f"Sit {p.name} {when}: your best lineup has no room for him ({reason}); "
                   f"he's {rank_txt}.")
    report.update(recommendation=rec, day=d.isoformat())
    return Reply(text=f"{why}\n{p.name}: {facts}.", report=report,
                 tool_calls=["compose_daily_lineup"])


# --------------------------------------------------------------------------- injuries


def _injuries_of_other_team(deps: AgentDeps, ctx: LeagueContext, request: Request) -> Reply:
    """"Who is hurt on my opponent's team": that team's injured players with status and
    games left this matchup (expected to play, for the uncertain ones); no hold-or-stream
    call, which is for the member's own players."""
    team = (ctx.opponent if request.team.kind == "opponent"
            else ctx.league.find_team(request.team.name or ""))
    if team is None:
        text = ("You have no head-to-head opponent this matchup period."
                if request.team.kind == "opponent"
                else f"No fantasy team in this league is called {request.team.name!r}.")
        return Reply(text=text, report={"players": []})
    val = shared_valuer(ctx.league, ctx.schedule, _window(deps, ctx.league),
                        deps.today_date())
    hurt = [e.player for e in team.roster if e.player.injury_status in INJURED]
    whose = (f"your opponent {team.name}" if ctx.opponent is not None
             and team.id == ctx.opponent.id else team.name)
    if not hurt:
        return Reply(text=f"Nobody on {whose} is listed injured.", report={"players": []},
                     tool_calls=["get_team_roster"])
    lines = [f"Injured on {whose}: {len(hurt)} player{'s' if len(hurt) != 1 else ''}."]
    for p in hurt:
        games, exp = val.games(p), val.expected_games(p)
        lines.append(f"- {player_label(p)}: {status_text(p)}, {games} game"
                     f"{'s' if games != 1 else ''} left this matchup"
                     + (f", ~{exp:.1f} expected to play" if abs(exp - games) > 0.05 else "")
                     + ".")
    return Reply(text="\n".join(lines), tool_calls=["get_team_roster"],
                 report={"team": team.name, "players": [
                     {"id": p.id, "name": p.name, "status": p.injury_status} for p in hurt]})


async def answer_injury_check(deps: AgentDeps, request: Request) -> Reply:
    """My injured players at the asked position (or named): hold or stream each, with the
    timeline (status, expected return, games left vs expected games); offers a streamer."""
    try:
        ctx = await load_context(deps, with_free_agents=True, fa_size=150)
    except EspnError as exc:
        return _err(exc)
    if request.team.kind != "mine":
        return _injuries_of_other_team(deps, ctx, request)
    me = ctx.my_team
    if me is None:
        return Reply(text="Link your ESPN team first (`/link team=<id>`), then ask again.",
                     report={"error": "no_team"})
    league, today = ctx.league, deps.today_date()
    dates = _window(deps, league)
    val = shared_valuer(league, ctx.schedule, dates, today, extra=ctx.free_agents or [])
    pos = (request.position or "").upper() or None
    group = POSITION_GROUPS.get(pos or "", frozenset())
    asked = frozenset(request.statuses)
    injured = [e.player for e in me.roster if e.player.injury_status in INJURED]
    named = request.resolved_players()
    mine_ids = {p.id for p in me.players}
    notes: list[str] = []
    chosen = [p for p in me.players if p.id in {r.player_id for r in named}]
    # a player carried over from an earlier turn ("my guard is DTD" after a question about
    # someone else) does not count as named when the message does not name him
    explicit_others = [r.name or r.words for r in named if r.player_id not in mine_ids
                       and not r.carried]
    if explicit_others:
        notes.append(", ".join(explicit_others) + (" isn't" if len(explicit_others) == 1
                                                   else " aren't") + " on your team.")
    if explicit_others and not chosen and not group:
        return Reply(text=notes[0] + " Ask \"should I add him?\" or name one of your players.",
                     report={"players": [], "not_mine": explicit_others},
                     tool_calls=["get_my_roster"])
    if not chosen:
        chosen = [p for p in injured if not group or group & set(p.positions)]
        if pos == "C" and not chosen:
            chosen = [p for p in injured if {"C", "PF"} & set(p.positions)]
        if asked:
            exact = [p for p in chosen if p.injury_status in asked]
            if exact:
                chosen = exact
            elif chosen:
                notes.append(_status_mismatch(chosen, pos, asked))
            elif group:
                by_status = [p for p in injured if p.injury_status in asked]
                if by_status:
                    notes.append(f"None of your {_POS_WORD.get(pos or '', 'player')}s is "
                                 "injured; the one listed that way is:")
                    chosen = by_status
        if not chosen and group and injured:
            notes.append(f"None of your {_POS_WORD.get(pos or '', 'player')}s is injured. "
                         "Your injured players:")
            chosen = injured
    if not chosen:
        return Reply(text="\n".join(notes + ["None of your players is injured right now: "
                                              "nothing to hold or stream."]),
                     report={"players": []}, tool_calls=["get_my_roster"])
    chosen.sort(key=lambda p: (p.injury_status not in asked, -val.per_game(p), p.id))
    lines = list(notes)
    offers: list[Offer] = []
    rows = []
    for p in chosen[:4]:
        rank, size = _roster_rank(val, me, p.id)
        best = _best_streamer(val, ctx, set(p.positions))
        call = hold_or_stream(status=p.injury_status, expected_return=p.expected_return_date,
                              today=today, games_left=val.games(p),
                              expected_games=val.expected_games(p),
                              value_per_game=val.per_game(p), roster_rank=rank,
                              roster_size=size, streamer_value=best[1] if best else None,
                              ir_slot_free=_ir_free(league, me) and p.ir_eligible)
        verdict = {"hold": "Hold", "stream": "Stream his spot",
                   "ir": "IR him and stream"}[call.decision]
        lines.append(f"**{player_label(p)}** is {_timeline(p, val, today)}.")
        tail = ((f" Best healthy streamer: {best[0].name} ({best[0].pro_team}, "
                 f"{val.games(best[0])} games, {_fmt_val(val, best[1])} vs his expected "
                 f"{_fmt_val(val, val.rest_value(p))})." if val.by_points else
                 f" Best healthy streamer: {best[0].name} ({best[0].pro_team}, "
                 f"{_rest_vs(val, best[0], p, 'him')}).") if best else "")
        lines.append(f"{verdict}: {call.reason}.{tail}")
        offers.append(Offer(label=f"Find a streamer for {p.name}", request=Request.command(
            Intent.STREAMING, text=f"find a streamer for {p.name}",
            players=[resolved_ref(p)], position=p.positions[0] if p.positions else None)))
        rows.append({"id": p.id, "name": p.name, "status": p.injury_status,
                     "expected_return": p.expected_return_date.isoformat()
                     if p.expected_return_date else None,
                     "games_left": val.games(p), "expected_games": round(val.expected_games(p), 2),
                     "decision": call.decision, "roster_rank": rank,
                     "streamer": best[0].name if best else None})
    return Reply(text="\n".join(lines), offers=offers[:3], report={"players": rows},
                 tool_calls=["get_my_roster", "get_free_agents"])


def _status_mismatch(players: list[Player], pos: str | None, asked: frozenset[str]) -> str:
    word = _POS_WORD.get(pos or "", "player")
    names = "; ".join(f"{p.name}, {status_text(p)}" for p in players)
    return f"No {word} of yours is listed that way; your injured {word}s: {names}."


__all__ = ["answer_injury_check", "answer_player_decision", "answer_player_form", "playing_on"]
