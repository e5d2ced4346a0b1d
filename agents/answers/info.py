"""Roster and schedule answers from the league data: whose team, its players by slot with
status and games left, and games left this matchup (a team's by day, or a named player's).

Games left are the games on the NBA schedule in the rest of the matchup for players not on
IR; an OUT player's games are named as his, since they cannot count (the matchup answer's
"starts" are what the best lineups can use)."""

from __future__ import annotations

from datetime import date

from agents.answers.league import fmt_day, player_label, status_text
from agents.answers.player import day_words, tipoff, versus
from agents.answers.types import ListedPlayer, Reply
from agents.shared.deps import AgentDeps, LeagueContext, load_context
from agents.understanding.lexicon import NBA_TEAMS
from agents.understanding.request import PlayerRef, Request
from fantasy.constants import OUT_STATUSES, SLOT_IR, pro_team_abbrev, pro_team_id
from fantasy.espn.errors import EspnError
from fantasy.espn.messages import espn_trouble
from fantasy.formatting import weekday_text
from fantasy.models import Player, ProSchedule, Team


def _err(exc: Exception) -> Reply:
    return Reply(text=espn_trouble(exc), report={"error": str(exc)})


def _dates(deps: AgentDeps, ctx: LeagueContext) -> list[date]:
    return ctx.league.remaining_dates(today=deps.today_date())


def _team_for(ctx: LeagueContext, request: Request) -> Team | str:
    """The team a request is about, or why there is none (a sentence)."""
    kind = request.team.kind
    if kind == "opponent":
        return ctx.opponent or "You have no head-to-head opponent this matchup period."
    if kind == "other" and request.team.name:
        found = ctx.league.find_team(request.team.name)
        if found is None:
            names = ", ".join(t.name for t in ctx.league.teams)
            return f"No fantasy team in this league is called {request.team.name!r}. " \
                   f"Teams: {names}."
        return found
    return ctx.my_team or "Link your ESPN team first (`/link team=<id>`), then ask again."


def _head(ctx: LeagueContext, team: Team) -> str:
    """"Your opponent this matchup: **Full Court Press** (Jordan Lee), 11-3-0"."""
    owner = f" ({team.owners[0]})" if team.owners else ""
    rec = f", {team.record}" if team.record else ""
    if ctx.my_team is not None and team.id == ctx.my_team.id:
        return f"**{team.name}** (you){rec}"
    if ctx.opponent is not None and team.id == ctx.opponent.id:
        return f"Your opponent this matchup: **{team.name}**{owner}{rec}"
    return f"**{team.name}**{owner}{rec}"


def _games(schedule: ProSchedule, p: Player, dates: list[date]) -> int:
    return schedule.count_games(p.pro_team_id, dates) if p.pro_team_id else 0


def _n_games(n: int) -> str:
    return f"{n} game{'s' if n != 1 else ''}"


def _games_left_line(ctx: LeagueContext, team: Team, dates: list[date]) -> str:
    """"31 games left this matchup (2 of them Jordan Poole's, who is OUT)"."""
    active = [e.player for e in team.roster if e.lineup_slot_id != SLOT_IR]
    total = sum(_games(ctx.schedule, p, dates) for p in active)
    out = [(p, _games(ctx.schedule, p, dates)) for p in active
           if p.injury_status in OUT_STATUSES]
    out = [(p, g) for p, g in out if g]
    text = f"{_n_games(total)} left this matchup"
    if out:
        lost = sum(g for _, g in out)
        who = ", ".join(p.name for p, _ in out)
        text += (f" ({lost} of them {who}'s, who {'is' if len(out) == 1 else 'are'} OUT)")
    return text


async def answer_roster(deps: AgentDeps, request: Request) -> Reply:
    """Who is on my team, my opponent's or another named team: whose team first, then its
    players by slot with status and games left."""
    try:
        ctx = await load_context(deps)
    except EspnError as exc:
        return _err(exc)
    team = _team_for(ctx, request)
    if isinstance(team, str):
        return Reply(text=team, report={"error": "no_team"})
    dates = _dates(deps, ctx)
    lines = [f"{_head(ctx, team)}: {len(team.roster)} players, "
             f"{_games_left_line(ctx, team, dates)}."]
    hurt = [e.player for e in team.roster if e.player.injury_status not in (None, "", "ACTIVE")]
    if hurt:
        lines.append("Injured: " + ", ".join(f"{p.name} {status_text(p)}" for p in hurt)
                     + ".")
    for label, keep in (("Starting", lambda e: e.is_starting),
                        ("Bench", lambda e: not e.is_starting and e.lineup_slot_id != SLOT_IR),
                        ("IR", lambda e: e.lineup_slot_id == SLOT_IR)):
        entries = [e for e in team.roster if keep(e)]
        if entries:
            lines.append(f"{label}: " + "; ".join(
                (f"{e.slot} " if label == "Starting" else "") + f"{player_label(e.player)}, "
                + _n_games(_games(ctx.schedule, e.player, dates)) for e in entries) + ".")
    listed = [ListedPlayer(player_id=e.player.id, name=e.player.name) for e in team.roster]
    tool = {"opponent": "get_opponent_roster", "other": "get_team_roster"}.get(
        request.team.kind, "get_my_roster")
    return Reply(text="\n".join(lines), listed=listed, tool_calls=[tool],
                 report={"team": team.name, "players": [
                     {"id": e.player.id, "name": e.player.name, "slot": e.slot,
                      "status": e.player.injury_status,
                      "games_left": _games(ctx.schedule, e.player, dates)}
                     for e in team.roster]})


def _player_schedule(ctx: LeagueContext, refs: list[PlayerRef], dates: list[date]) -> str:
    """"Jalen Brunson (PG/SG, NYK) has 2 games left this matchup: Thu Jan 26 @ BOS, ..."."""
    lines = []
    for ref in refs[:3]:
        pid = int(ref.player_id or 0)
        team = ctx.league.team_of_player(pid)
        entry = team.entry_for(pid) if team else None
        p = entry.player if entry else next(
            (x for x in ctx.free_agents or [] if x.id == pid), None)
        if p is None or not p.pro_team_id:
            lines.append(f"I can't see {ref.name or ref.words}'s NBA team right now.")
            continue
        games = ctx.schedule.games_for_team(p.pro_team_id, dates)
        when = ", ".join(
            fmt_day(g.date) + (f" vs {pro_team_abbrev(g.opponent_of(p.pro_team_id))}"
                               if g.is_home(p.pro_team_id)
                               else f" @ {pro_team_abbrev(g.opponent_of(p.pro_team_id))}")
            for g in games)
        n = len(games)
        text = (f"{player_label(p)} has {n} game{'s' if n != 1 else ''} left this matchup"
                + (f": {when}." if n else "."))
        if p.injury_status not in (None, "", "ACTIVE"):
            text += f" He's listed {status_text(p)}."
        lines.append(text)
    return "\n".join(lines)


async def answer_schedule(deps: AgentDeps, request: Request) -> Reply:
    """Games left this matchup: a named player's (with the days), else a team's (mine, my
    opponent's or a named team) by day and by player."""
    try:
        ctx = await load_context(deps)
    except EspnError as exc:
        return _err(exc)
    if request.next_opponent and not request.players:
        return _next_opponent(ctx)
    dates = _dates(deps, ctx)
    if not dates:
        return Reply(text="The matchup is over: no games left in it.",
                     tool_calls=["get_schedule"])
    if request.pro_team and not request.players:
        return Reply(text=_nba_team_schedule(ctx, request, dates, deps.today_date()),
                     tool_calls=["get_schedule"], report={"pro_team": request.pro_team})
    named = [r for r in request.resolved_players() if not r.carried]
    if named:
        if not ctx.free_agents:
            ctx = await load_context(deps, with_free_agents=True)
        return Reply(text=_player_schedule(ctx, named, dates), tool_calls=["get_schedule"])
    team = _team_for(ctx, request)
    if isinstance(team, str):
        return Reply(text=team, report={"error": "no_team"})
    active = [e.player for e in team.roster if e.lineup_slot_id != SLOT_IR]
    by_day = []
    for d in dates:
        playing = ctx.schedule.teams_playing_on(d)
        by_day.append((d, sum(1 for p in active if p.pro_team_id in playing)))
    period = ctx.league.matchup_dates()
    end = period[-1] if period else dates[-1]
    left = "today is its last day" if len(dates) == 1 else f"{len(dates)} days left, today included"
    lines = [f"This matchup ends {fmt_day(end)} ({left}).",
             f"{_head(ctx, team)}: {len(dates)} day{'s' if len(dates) != 1 else ''} and "
             f"{_games_left_line(ctx, team, dates)}. By day: "
             + ", ".join(f"{weekday_text(d)} {k}" for d, k in by_day) + "."]
    per = sorted(((p.name, _games(ctx.schedule, p, dates)) for p in active),
                 key=lambda x: (-x[1], x[0]))
    lines.append("By player: " + ", ".join(f"{n} {k}" for n, k in per) + ".")
    return Reply(text="\n".join(lines), tool_calls=["get_schedule"],
                 report={"team": team.name, "days": {d.isoformat(): k for d, k in by_day}})


def _next_opponent(ctx: LeagueContext) -> Reply:
    """Whom the member's team plays in the next matchup period: the team, its managers and
    record, and the dates; a playoff round ESPN has not paired yet says so."""
    league, me = ctx.league, ctx.my_team
    if me is None:
        return Reply(text="Link your ESPN team first (`/link team=<id>`), then ask again.",
                     report={"error": "no_team"})
    period = league.current_matchup_period + 1
    dates = league.matchup_dates(period)
    when = f"matchup {period}" + (f" ({fmt_day(dates[0])} - {fmt_day(dates[-1])})" if dates
                                  else "")
    if period not in league.settings.matchup_periods:
        return Reply(text=f"There is no matchup after this one: matchup {period - 1} is the "
                          "season's last.", report={"period": period})
    m = next((x for x in league.matchups_for_period(period) if x.involves(me.id)), None)
    other = m.opponent_side(me.id) if m is not None else None
    if other is None:
        reg = league.settings.regular_season_matchup_periods
        why = (" It's a playoff round: ESPN pairs the teams when the round before ends."
               if reg and period > reg else "")
        return Reply(text=f"ESPN lists no opponent for {me.name} in {when}.{why}",
                     report={"period": period})
    opp = league.team(other.team_id)
    owners = f" ({', '.join(opp.owners)})" if opp.owners else ""
    return Reply(text=f"Next up, {when}: you play **{opp.name}**{owners}, {opp.record} this "
                      "season. Ask \"their roster\" to see who they have.",
                 report={"period": period, "opponent": opp.name},
                 tool_calls=["get_league"])


def _nba_team_schedule(ctx: LeagueContext, request: Request, dates: list[date],
                       today: date) -> str:
    """An NBA team's games ("is the celtics game tonight", "how many games do the lakers
    have this week"): on the day asked (with tip-off, or its next game), else left this
    matchup; then the member's players on that team."""
    abbr = str(request.pro_team)
    try:
        tid = pro_team_id(abbr)
    except ValueError:
        return f"I don't know the NBA team {abbr}."
    words = NBA_TEAMS.get(abbr)
    name = (f"The {' '.join(w[:1].upper() + w[1:] for w in words[0].split())} ({abbr})"
            if words else abbr)
    day = request.day
    if day is not None and day.date and not day.week:
        d = date.fromisoformat(day.date)
        when = day_words(d, today)
        games = ctx.schedule.games_for_team(tid, [d])
        if games:
            tip = tipoff(games[0])
            verb = "played" if d < today else "play"
            text = f"{name} {verb} {when}{versus(games[0], tid)}" + (
                f", {tip}." if tip and d >= today else ".")
        else:
            nxt = next((g for g in ctx.schedule.games_for_team(tid) if g.date > d), None)
            text = f"{name} {'had' if d < today else 'have'} no game {when}." + (
                f" Next game: {fmt_day(nxt.date)}{versus(nxt, tid)}." if nxt else "")
    else:
        games = ctx.schedule.games_for_team(tid, dates)
        n = len(games)
        text = f"{name} {'have' if n != 1 else 'has'} {n} game{'s' if n != 1 else ''} left " \
               "this matchup" + (": " + ", ".join(f"{fmt_day(g.date)}{versus(g, tid)}"
                                                  for g in games) + "." if n else ".")
    mine = [e.player.name for e in (ctx.my_team.roster if ctx.my_team else [])
            if e.player.pro_team_id == tid]
    if mine:
        text += f"\nYour players on {abbr}: {', '.join(mine)}."
    return text


__all__ = ["answer_roster", "answer_schedule"]
