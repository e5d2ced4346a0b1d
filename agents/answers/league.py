"""League answers: matchup score and projection, standings with recent activity, and the
free-agent list ranked by rest-of-matchup value. All numbers come from the league data and
the exact optimizer (fantasy/); nothing here proposes a move card."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import date
from typing import Any, TypedDict

from agents.answers.types import ListedPlayer, Offer, Reply
from agents.answers.valuers import shared_valuer
from agents.shared.deps import (
    AgentDeps,
    LeagueContext,
    load_context,
    optimizer_for,
    scheduled_moves,
    weekly_plan_of,
)
from agents.shared.player_pool import league_players
from agents.understanding.lexicon import NOW_WORDS
from agents.understanding.request import Intent, MoveRef, PlayerRef, Request
from fantasy.constants import (
    OUT_STATUSES,
    PERCENTAGE_STATS,
    SLOT_IR,
    STAT_IDS,
    UNCERTAIN_STATUSES,
    parse_slot,
    stat_name,
)
from fantasy.espn.errors import EspnError
from fantasy.espn.messages import espn_trouble
from fantasy.formatting import day_text, one_decimal, whole
from fantasy.models import League, Player, Team
from fantasy.outlook import Valuer, category_result, tally

log = logging.getLogger(__name__)

#: Free agents listed when the request gives no count.
FA_COUNT = 8
FA_MAX = 20
#: Words that ask to include injured free agents.
_POSITION_NAMES = {"G": "guards", "F": "forwards", "C": "centers", "PG": "point guards",
                   "SG": "shooting guards", "SF": "small forwards", "PF": "power forwards"}


# --------------------------------------------------------------------------- formatting


class _CategoryRow(TypedDict):
    """One category of the scoreboard answer's report: now and projected, you and them."""

    category: str
    mine: float
    opponent: float
    result: str
    my_projected: float
    opponent_projected: float
    projected_result: str


def fmt_num(x: float | None, digits: int = 1) -> str:
    """A number as members read it: "12.5", "0.478" for rates, "-" for None."""
    if x is None:
        return "-"
    return f"{x:.{digits}f}"


def fmt_stat(stat_id: int, x: float | None, digits: int = 1) -> str:
    """A stat value: percentages as .478, counts with `digits` decimals."""
    if x is None:
        return "-"
    if stat_id in PERCENTAGE_STATS:
        return f"{x:.3f}".lstrip("0") if x < 1 else f"{x:.3f}"
    return f"{x:.{digits}f}"


def fmt_day(d: date) -> str:
    """"Wed Jan 25" (fantasy.formatting.day_text, the one date style)."""
    return day_text(d)


def status_text(p: Player, *, today: date | None = None) -> str:
    """"healthy", "DTD", "OUT (back ~Sat Feb 4)"."""
    st = p.injury_status or "ACTIVE"
    if st == "ACTIVE":
        return "healthy"
    label = {"DAY_TO_DAY": "DTD", "QUESTIONABLE": "questionable", "PROBABLE": "probable",
             "DOUBTFUL": "doubtful", "INJURY_RESERVE": "IR",
             "SUSPENSION": "suspended"}.get(st, st.replace("_", " ").lower()
                                             if st not in OUT_STATUSES else "OUT")
    if st in OUT_STATUSES:
        label = "OUT" if st != "SUSPENSION" else "suspended"
        if p.expected_return_date:
            label += f" (back ~{day_text(p.expected_return_date)})"
        else:
            label += " (no return date)"
    return label


def positions_text(p: Player) -> str:
    """"PG/SG"."""
    return "/".join(p.positions) or p.position or "?"


def player_label(p: Player) -> str:
    """"Jalen Brunson (PG/SG, NYK)"."""
    return f"{p.name} ({positions_text(p)}, {p.pro_team})"


def resolved_ref(p: Player) -> PlayerRef:
    """A resolved PlayerRef for an offer's request."""
    return PlayerRef(words=p.name, status="resolved", player_id=p.id, name=p.name)


def _err(exc: Exception) -> Reply:
    return Reply(text=espn_trouble(exc), report={"error": str(exc)})


def _no_team() -> Reply:
    return Reply(text="Link your ESPN team first (`/link team=<id>`), then ask again.",
                 report={"error": "no_team"})


def matchup_dates(deps: AgentDeps, league: League) -> list[date]:
    """The remaining days of the current matchup (today included)."""
    return league.remaining_dates(today=deps.today_date())


# --------------------------------------------------------------------------- matchup status


async def answer_matchup_status(deps: AgentDeps, request: Request) -> Reply:
    """Score and days left; projected final for both sides from the exact weekly plans; in
    category leagues each category's current and projected result. Offers "Look for moves"."""
    try:
        ctx = await load_context(deps)
        if ctx.my_team is None:
            return _no_team()
        svc = await optimizer_for(deps)
    except EspnError as exc:
        return _err(exc)
    league, me, opp = ctx.league, ctx.my_team, ctx.opponent
    m = league.current_matchup(me.id)
    dates = matchup_dates(deps, league)
    days_left = len(dates)
    offers = [Offer(label="Look for moves", request=Request.command(
        Intent.MATCHUP_ANALYSIS, text="look for moves for my matchup",
        categories=list(request.categories)))]
    if m is None or opp is None:
        return Reply(text=f"{me.name} has no head-to-head matchup this period.",
                     report={"matchup": None}, tool_calls=["get_matchup_details"])
    my_side, opp_side = m.side_for(me.id), m.opponent_side(me.id)
    free = {p.id for p in svc.free_agents}
    planned = [mv for mv in await scheduled_moves(deps, me.id) if mv.add.id in free]
    mine_plan = (svc.weekly_plan(me.id, moves=[(mv.drop.id, mv.add.id, mv.day)
                                               for mv in planned])
                 if planned else weekly_plan_of(svc, me.id))
    opp_plan = weekly_plan_of(svc, opp.id)
    day_word = ("last day" if days_left == 1 else f"{days_left} days left") if days_left \
        else "the matchup is over"
    report: dict[str, Any] = {"team": me.name, "opponent": opp.name, "days_left": days_left,
                              "matchup_period": league.current_matchup_period}
    lines: list[str] = []
    with_moves = ""
    if planned:  # the week plan: its moves count in the projection
        with_moves = (" with your scheduled move" + ("s" if len(planned) != 1 else "") + " ("
                      + "; ".join(f"{mv.weekday}: {mv.text()}" for mv in planned) + ")")
        report["scheduled_moves"] = [{"day": mv.day.isoformat(), "drop": mv.drop.name,
                                      "add": mv.add.name} for mv in planned]
    if league.settings.is_points:
        cur_me = my_side.points if my_side else 0.0
        cur_opp = opp_side.points if opp_side else 0.0
        proj_me = cur_me + (mine_plan.total_points or 0.0)
        proj_opp = cur_opp + (opp_plan.total_points or 0.0)
        lead = cur_me - cur_opp
        state = ("tied" if abs(lead) < 0.05 else
                 f"{'up' if lead > 0 else 'down'} {abs(lead):.1f}")
        lines.append(f"**{me.name} {cur_me:.1f} - {cur_opp:.1f} {opp.name}**: you're {state}, "
                     f"{day_word}.")
        if days_left:
            margin = proj_me - proj_opp
            verdict = ("a toss-up" if abs(margin) < 1 else
                       f"{'you win' if margin > 0 else 'you lose'} by {abs(margin):.0f}")
            lines.append(f"Projected final (both lineups set optimally every day"
                         f"{with_moves}): {proj_me:.0f} - {proj_opp:.0f}, {verdict}. Starts left in those "
                         f"lineups: you {mine_plan.games_played}, {opp.name} {opp_plan.games_played}.")
        report.update(my_points=round(cur_me, 1), opponent_points=round(cur_opp, 1),
                      my_projected=round(proj_me, 1), opponent_projected=round(proj_opp, 1),
                      my_games_left=mine_plan.games_played,
                      opponent_games_left=opp_plan.games_played)
    else:
        rev = league.settings.reverse_categories
        mine_proj = {c.stat_id: c.my_total for c in mine_plan.categories}
        opp_proj = {c.stat_id: c.my_total for c in opp_plan.categories}
        rows: list[_CategoryRow] = []
        cur_res, proj_res = [], []
        for sid in league.settings.categories:
            a = my_side.categories.get(sid) if my_side else None
            b = opp_side.categories.get(sid) if opp_side else None
            cm, co = (a.score if a else 0.0), (b.score if b else 0.0)
            rc = category_result(cm, co, sid in rev)
            pm, po = ((mine_proj.get(sid, cm), opp_proj.get(sid, co)) if days_left
                      else (cm, co))
            rp = category_result(pm, po, sid in rev, tol=1e-3)
            cur_res.append(rc)
            proj_res.append(rp)
            rows.append({"category": stat_name(sid), "mine": cm, "opponent": co,
                         "result": rc, "my_projected": round(pm, 3),
                         "opponent_projected": round(po, 3), "projected_result": rp})
        w, lo, t = tally(cur_res)
        pw, pl, pt = tally(proj_res)
        lines.append(f"**{me.name} {_wlt(w, lo, t)} {opp.name}** in categories, {day_word}.")
        asked = [r for r in rows if r["category"] in {c.upper() for c in request.categories}]
        for r in asked:  # the categories the question names, first
            sid = STAT_IDS.get(r["category"], -1)
            now = {"win": "winning", "loss": "losing", "tie": "tied"}.get(r["result"], "?")
            line = (f"{r['category']}: {now} {fmt_stat(sid, r['mine'], 0)}-"
                    f"{fmt_stat(sid, r['opponent'], 0)}")
            if days_left:
                fin = {"win": "a win", "loss": "a loss", "tie": "a tie"}.get(
                    r["projected_result"], "?")
                line += (f", projected {fmt_stat(sid, r['my_projected'], 0)}-"
                         f"{fmt_stat(sid, r['opponent_projected'], 0)}: {fin}")
            lines.insert(len(lines) - 1, line + ".")
        losing = [r["category"] for r in rows if r["result"] == "loss"]
        if not asked and losing:
            lines.append("Losing now: " + ", ".join(losing) + ".")
        lines.append("Category: now -> projected final (you-them)" if days_left
                     else "Category: final (you-them)")
        for r in rows:
            sid = STAT_IDS.get(r["category"], -1)
            now = (f"{r['category']}: {fmt_stat(sid, r['mine'], 0)}-"
                   f"{fmt_stat(sid, r['opponent'], 0)} {_wl(r['result'])}")
            if days_left:
                now += (f" -> {fmt_stat(sid, r['my_projected'], 0)}-"
                        f"{fmt_stat(sid, r['opponent_projected'], 0)} "
                        f"{_wl(r['projected_result'])}")
            lines.append(now)
        if days_left:
            lines.append(f"Projected final (both lineups set optimally every day"
                         f"{with_moves}): {_wlt(pw, pl, pt)}. Starts left in those lineups: you "
                         f"{mine_plan.games_played}, "
                         f"{opp.name} {opp_plan.games_played}.")
        report.update(categories=rows, record=[w, lo, t], projected_record=[pw, pl, pt],
                      my_games_left=mine_plan.games_played,
                      opponent_games_left=opp_plan.games_played)
    return Reply(text="\n".join(lines), report=report, offers=offers,
                 tool_calls=["get_matchup_details", "weekly_plan"])


def _wlt(w: int, lo: int, t: int) -> str:
    return f"{w}-{lo}" + (f"-{t}" if t else "")


def _wl(result: str) -> str:
    return {"win": "W", "loss": "L", "tie": "T"}.get(result, "?")


# --------------------------------------------------------------------------- standings


async def answer_standings(deps: AgentDeps, request: Request) -> Reply:
    """The standings table (rank, team, record, points for in points leagues) and the
    league's recent adds, drops and trades."""
    try:
        ctx = await load_context(deps)
    except EspnError as exc:
        return _err(exc)
    league = ctx.league
    teams = sorted(league.teams, key=lambda t: (t.rank or t.playoff_seed or 99,
                                                -t.record.wins, t.id))
    is_points = league.settings.is_points
    lines = [_standings_lead(ctx, teams, request), f"**{league.settings.name} standings**"]
    table = []
    for k, t in enumerate(teams, 1):
        rank = t.rank or t.playoff_seed or k
        mark = " (you)" if ctx.my_team and t.id == ctx.my_team.id else ""
        row = f"{rank}. {t.name}{mark}: {t.record}"
        if is_points and t.record.points_for:
            row += f", {t.record.points_for:,.0f} pts"
        if t.record.games_back:
            row += f", {t.record.games_back:g} GB"
        lines.append(row)
        table.append({"rank": rank, "team": t.name, "record": str(t.record),
                      "points_for": t.record.points_for})
    activity: list[dict[str, Any]] = []
    try:
        items = await deps.espn.get_recent_activity(limit=25)
    except EspnError:
        items = None
    lines.append("")
    if items is None:
        lines.append("Recent league activity is unavailable right now (ESPN didn't answer).")
    elif not items:
        lines.append("Recent activity: no adds, drops or trades yet.")
    else:
        lines.append("**Recent activity**")
        names = await _names_for(deps, ctx, [it.player_id for it in items[:10]
                                             if not it.player_name])
        for it in items[:10]:
            team = _team_name(league, it.team_id)
            verb = {"FA ADDED": "added", "WAIVER ADDED": "claimed", "DROPPED": "dropped",
                    "TRADED": "traded", "MOVED": "moved"}.get(it.action, it.action.lower())
            name = it.player_name or names.get(it.player_id or -1, "a player")
            when = f"{fmt_day(it.date)}: " if it.date else ""
            lines.append(f"- {when}{team} {verb} {name}")
            activity.append({"date": it.date.isoformat() if it.date else None, "team": team,
                             "action": it.action, "player": name})
    return Reply(text="\n".join(lines), report={"standings": table, "activity": activity},
                 tool_calls=["get_league", "get_recent_activity"])


def ordinal(n: int) -> str:
    """1 -> "1st", 2 -> "2nd", 11 -> "11th"."""
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _standings_lead(ctx: LeagueContext, teams: list[Team], request: Request) -> str:
    """The line a standings question is usually after: who leads, where you are and where
    your opponent (or the team asked about) is."""
    place = {t.id: (t.rank or t.playoff_seed or k) for k, t in enumerate(teams, 1)}
    leader = teams[0]
    me, opp = ctx.my_team, ctx.opponent
    asked = (ctx.league.find_team(request.team.name) if request.team.kind == "other"
             and request.team.name else opp if request.team.kind == "opponent" else None)
    out = []
    if asked is not None and asked.id != leader.id:
        out.append(f"{asked.name} is {ordinal(place[asked.id])} at {asked.record}.")
    lead = f"{leader.name} lead the league at {leader.record}"
    if me is not None and leader.id == me.id:
        lead = f"You ({me.name}) lead the league at {leader.record}"
    elif opp is not None and leader.id == opp.id:
        lead += ", and they're your opponent this matchup"
    out.append(lead + ".")
    if me is not None and leader.id != me.id:
        mine = f"You ({me.name}) are {ordinal(place[me.id])} at {me.record}"
        if opp is not None and opp.id != leader.id and (asked is None or asked.id != opp.id):
            mine += f"; your opponent {opp.name} is {ordinal(place[opp.id])} at {opp.record}"
        out.append(mine + ".")
    return " ".join(out)


def _team_name(league: League, team_id: int | None) -> str:
    if team_id is None:
        return "A team"
    try:
        return league.team(team_id).name
    except KeyError:
        return "A team"


async def _names_for(deps: AgentDeps, ctx: LeagueContext, ids: Sequence[int | None]
                     ) -> dict[int, str]:
    """Names of the players of activity items: rostered players, the free agents already
    loaded, else ESPN's player list (a dropped player is on no roster)."""
    wanted = {i for i in ids if i is not None}
    known = league_players(ctx)
    if wanted - known.keys():
        try:
            known = league_players(ctx, await deps.espn.get_all_players())
        except EspnError as exc:
            log.info("player list unavailable for activity names (%s)", type(exc).__name__)
    return {i: known[i].name for i in wanted if i in known}


# --------------------------------------------------------------------------- free agents


async def answer_free_agents(deps: AgentDeps, request: Request) -> Reply:
    """Free agents ranked by rest-of-matchup value (expected games left x value per game),
    filtered by position, named categories and health; numbered, with offers to add the top
    one and to find streamers."""
    try:
        ctx = await load_context(deps, with_free_agents=True, fa_size=150)
    except EspnError as exc:
        return _err(exc)
    league, today = ctx.league, deps.today_date()
    dates = matchup_dates(deps, league)
    week_word = "rest of this matchup"
    if not dates:
        from datetime import timedelta
        dates = [today + timedelta(days=k) for k in range(7)]
        week_word = "next 7 days"
    known = set(league.settings.categories) if not league.settings.is_points else None
    cats = [c.upper() for c in request.categories if c.upper() in STAT_IDS]
    ignored = [c for c in cats if known is not None and STAT_IDS[c] not in known]
    cats = [c for c in cats if c not in ignored]
    rostered = league.all_rostered_player_ids()
    # the players the team's week plan adds on a later day are taken: never listed again
    coming = ({mv.add.id: mv for mv in await scheduled_moves(deps, ctx.my_team.id)}
              if ctx.my_team is not None else {})
    pool = [p for p in ctx.free_agents or [] if p.id not in rostered and p.id not in coming]
    val = shared_valuer(league, ctx.schedule, dates, today, categories=cats, extra=pool)
    slot = None
    pos = (request.position or "").upper() or None
    if pos:
        try:
            slot = parse_slot(pos)
        except ValueError:
            slot, pos = None, None
    healthy_only = not request.include_injured
    # "a center who plays friday": only players whose team has a game that day
    on_day = _asked_date(request, today)
    playing = ctx.schedule.teams_playing_on(on_day) if on_day is not None else None
    asked = [r for r in request.resolved_players() if not r.carried]
    if asked:
        return _free_agent_or_not(ctx, val, asked, pool)
    if request.action == "drop" and ctx.my_team is not None:
        return _drop_candidates(ctx, val, pool)
    rows = []
    for p in pool:
        if slot is not None and slot not in p.eligible_slots:
            continue
        if healthy_only and (p.injury_status in OUT_STATUSES or
                             p.injury_status in UNCERTAIN_STATUSES):
            continue
        if request.min_games and val.games(p) < request.min_games:
            continue  # "centers with 3 games left": a filter, not how many to list
        if playing is not None and p.pro_team_id not in playing:
            continue
        rows.append((val.rest_value(p), val.games(p), p))
    rows.sort(key=lambda r: (-r[0], -r[1], r[2].name))
    n = max(1, min(request.count or FA_COUNT, FA_MAX))
    top = rows[:n]
    what = _POSITION_NAMES.get(pos or "", "free agents") if pos else "free agents"
    if pos and what != "free agents":
        what = f"free-agent {what}"
    head = f"**Best {what}"
    if cats:
        head += " for " + ", ".join(cats)
    if request.min_games:
        head += f" with {request.min_games}+ games left"
    if on_day is not None:
        head += f" with a game {on_day:%a %b} {on_day.day}"
    head += f"** (ranked by value for the {week_word}: games left x "
    head += ("projected fantasy points per game" if val.by_points else
             ("per-game " + "/".join(cats) if cats else
              "how much he adds across your categories per game")) + ")"
    lines = [head + ":"]
    if ignored:
        lines.insert(0, f"(This league doesn't score {', '.join(ignored)}; ignoring it.)")
    listed: list[ListedPlayer] = []
    report_rows: list[dict[str, Any]] = []
    for k, (value, games, p) in enumerate(top, 1):
        lines.append(f"{k}. {player_label(p)}: {_fa_detail(val, p, games, cats)}")
        listed.append(ListedPlayer(player_id=p.id, name=p.name))
        report_rows.append({"id": p.id, "name": p.name, "team": p.pro_team,
                            "positions": p.positions, "games_left": games,
                            "status": p.injury_status, "value": round(value, 3),
                            "value_per_game": round(val.per_game(p), 3),
                            "fpts_per_game": (round(val.fpts(p) or 0.0, 2)
                                              if league.settings.is_points else None)})
    if not top:
        lines.append("No free agent matches that" + (" (healthy only)" if healthy_only else "")
                     + ".")
        if request.min_games:
            most = max((val.games(p) for p in pool if slot is None or slot in p.eligible_slots),
                       default=0)
            lines.append(f"The most games any of them has left this matchup is {most}.")
    elif healthy_only:
        lines.append("Healthy players only; say \"include injured\" to see everyone.")
    if coming:
        lines.append("Not listed: " + "; ".join(
            f"{mv.add.name} (your plan adds him {mv.weekday})" for mv in coming.values())
            + ".")
    offers: list[Offer] = []
    if top:
        best = top[0][2]
        ref = resolved_ref(best)
        offers.append(Offer(label=f"Add {best.name}", request=Request.command(
            Intent.EXPLICIT_MOVE, text=f"add {best.name}", players=[ref],
            move=MoveRef(add=ref), action="add")))
    offers.append(Offer(label="Find streamers", request=Request.command(
        Intent.STREAMING, text="find streamers", categories=cats, position=pos)))
    return Reply(text="\n".join(lines), listed=listed, offers=offers,
                 report={"free_agents": report_rows, "position": pos, "categories": cats,
                         "min_games": request.min_games,
                         "day": on_day.isoformat() if on_day is not None else None,
                         "healthy_only": healthy_only, "dates": [d.isoformat() for d in dates]},
                 tool_calls=["get_free_agents"])


def _asked_date(request: Request, today: date) -> date | None:
    """The one day a free-agent question asks about (today or later), else None (the week)."""
    if request.day is None or request.day.week or not request.day.date:
        return None
    if request.day.word.strip().lower() in NOW_WORDS:
        return None  # "right now": who is best as things stand, whatever day he plays
    try:
        d = date.fromisoformat(request.day.date)
    except ValueError:
        return None
    return d if d >= today else None


def _free_agent_or_not(ctx: LeagueContext, val: Valuer, refs: list[PlayerRef],
                       pool: list[Player]) -> Reply:
    """"Is X a free agent?": whose team he is on, or that he is free, with his value this
    matchup and his place among the free agents, and an offer to add him."""
    league = ctx.league
    ranked = sorted(pool, key=lambda p: (-val.rest_value(p), -val.games(p), p.name))
    place = {p.id: k for k, p in enumerate(ranked, 1)}
    by_id = {p.id: p for p in pool}
    lines: list[str] = []
    offers: list[Offer] = []
    report: list[dict[str, Any]] = []
    for ref in refs[:3]:
        pid = int(ref.player_id or 0)
        name = ref.name or ref.words
        team = league.team_of_player(pid)
        if team is not None:
            mine = ctx.my_team is not None and team.id == ctx.my_team.id
            whose = "your team" if mine else team.name + (
                f" ({team.owners[0]})" if team.owners else "")
            lines.append(f"No, {name} isn't a free agent: he's on {whose}.")
            report.append({"id": pid, "name": name, "free_agent": False, "team": team.name})
            continue
        p = by_id.get(pid)
        if p is None:
            lines.append(f"Yes, {name} is a free agent (no fantasy team has him), but he isn't "
                         "among the free agents ESPN ranks for this matchup.")
            report.append({"id": pid, "name": name, "free_agent": True, "rank": None})
            continue
        lines.append(f"Yes, {player_label(p)} is a free agent, #{place[p.id]} of "
                     f"{len(ranked)} by value for the rest of this matchup: "
                     f"{_fa_detail(val, p, val.games(p), [])}.")
        ref_p = resolved_ref(p)
        offers.append(Offer(label=f"Add {p.name}", request=Request.command(
            Intent.EXPLICIT_MOVE, text=f"add {p.name}", players=[ref_p],
            move=MoveRef(add=ref_p), action="add")))
        report.append({"id": pid, "name": p.name, "free_agent": True, "rank": place[p.id]})
    return Reply(text="\n".join(lines), offers=offers, report={"asked": report},
                 tool_calls=["get_free_agents"])


#: Drop candidates shown for "who should I drop".
DROP_SHOWN = 3


def _drop_candidates(ctx: LeagueContext, val: Valuer, pool: list[Player]) -> Reply:
    """"Who should I drop": my players with the least value for the rest of this matchup
    (IR slots aside), against the best healthy free agent, with an offer for that swap."""
    me = ctx.my_team
    assert me is not None
    mine = sorted((e.player for e in me.roster if e.lineup_slot_id != SLOT_IR),
                  key=lambda p: (val.rest_value(p), p.name))[:DROP_SHOWN]
    healthy = [p for p in pool if p.injury_status not in OUT_STATUSES
               and p.injury_status not in UNCERTAIN_STATUSES]
    best = max(healthy, key=lambda p: (val.rest_value(p), -p.id), default=None)
    def unit(p: Player) -> str:  # points: his rest-of-matchup points; else his league rank
        return (f"~{whole(val.rest_value(p))} fantasy points" if val.by_points
                else f"#{val.league_rank(p)}")

    lines = ["Your weakest players for the rest of this matchup ("
             + ("projected value" if val.by_points
                else "least over the games he's expected to play first; #N is his league "
                     "rank by category value per game") + "): "
             + "; ".join(f"{p.name} {unit(p)}, {status_text(p)}, "
                         f"{val.games(p)} games left" + _expected(val, p) for p in mine) + "."]
    offers: list[Offer] = []
    if best is not None and mine:
        worst = mine[0]
        gain = val.rest_value(best) - val.rest_value(worst)
        if gain > 0:
            lines.append(f"Best free agent: {player_label(best)}, "
                         f"{unit(best)}" + ("" if val.by_points else
                                            f", {val.games(best)} games left")
                         + f". {worst.name} for him is the first "
                         "swap to check (the button runs it through your weekly plan).")
            d, a = resolved_ref(worst), resolved_ref(best)
            offers.append(Offer(label=f"Drop {worst.name} for {best.name}",
                                request=Request.command(
                                    Intent.EXPLICIT_MOVE, text=f"drop {worst.name} for {best.name}",
                                    players=[d, a], move=MoveRef(drop=d, add=a), action="drop")))
        else:
            lines.append(f"No free agent projects more than {worst.name} this matchup: "
                         "no drop needed.")
    return Reply(text="\n".join(lines), offers=offers, tool_calls=["get_my_roster",
                                                                   "get_free_agents"],
                 report={"drop_candidates": [{"id": p.id, "name": p.name,
                                              "rest_value": round(val.rest_value(p), 3)}
                                             for p in mine],
                         "best_free_agent": best.name if best else None})


def _expected(val: Valuer, p: Player) -> str:
    """Category leagues: " (~1.0 expected)" when his odds of playing cut his games left."""
    exp = val.expected_games(p)
    return ("" if val.by_points or abs(exp - val.games(p)) <= 0.05
            else f" (~{one_decimal(exp)} expected)")


def _fa_detail(val: Valuer, p: Player, games: int, cats: list[str]) -> str:
    g = f"{games} game{'s' if games != 1 else ''} left"
    parts = [g]
    if val.settings.is_points:
        fp = val.fpts(p) or 0.0
        parts.append(f"{fp:.1f} fantasy points a game (~{fp * val.expected_games(p):.0f} this matchup)")
    shown = [STAT_IDS[c] for c in cats] if cats else (
        [] if val.settings.is_points else _best_stats(val, p))
    if shown:
        parts.append(", ".join(f"{fmt_stat(s, val.stat(p, s))} {stat_name(s)}" for s in shown)
                     + " per game")
    parts.append(status_text(p))
    if p.status == "WAIVERS":
        parts.append("on waivers" + (f" until {fmt_day(p.waiver_process_date)}"
                                     if p.waiver_process_date else ""))
    return ", ".join(parts)


def _best_stats(val: Valuer, p: Player, k: int = 3) -> list[int]:
    """The player's k strongest categories (largest contribution to his value)."""
    pg = val.projection(p).per_game
    contrib = []
    for s in val.stats:
        if s in val.reverse:
            continue
        if s in PERCENTAGE_STATS:
            made, att = PERCENTAGE_STATS[s]
            term = pg.get(made, 0.0) - val.rates.get(s, 0.0) * pg.get(att, 0.0)
        else:
            term = pg.get(s, 0.0)
        contrib.append((term / val.scales.get(s, 1.0), s))
    contrib.sort(reverse=True)
    return [s for _, s in contrib[:k]]


__all__ = ["answer_free_agents", "answer_matchup_status", "answer_standings", "fmt_day",
           "fmt_stat", "player_label", "positions_text", "resolved_ref",
           "status_text"]
