"""`fanvise league show`, `fanvise team show TEAM`, `fanvise free-agents --slot PG`.

The demo league is used by default; a live league when --league-id (or
FANVISE_ESPN_LEAGUE_ID) is given, with --season (FANVISE_ESPN_SEASON) and, for private
leagues, the ESPN_S2 / ESPN_SWID environment variables.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from bot.commands._league_source import (
    MAX_ECHO,
    DataDirOpt,
    DemoTodayOpt,
    DemoVariantOpt,
    LeagueIdOpt,
    LeagueSource,
    SeasonOpt,
    fail,
    run_league_command,
    shown,
)
from fantasy.constants import (
    NINE_CAT_STATS,
    PERCENTAGE_STATS,
    injury_label,
    parse_slot,
    slot_name,
    stat_name,
)
from fantasy.espn.client import EspnClient
from fantasy.formatting import day_text, plural
from fantasy.models import League, LeagueSettings, Player, ProSchedule

league_app = typer.Typer(no_args_is_help=True, help="League overview.")
team_app = typer.Typer(no_args_is_help=True, help="Fantasy teams.")


def _source(league_id: int | None, season: int | None, variant: str | None, today: str | None,
            root: Path | None = None) -> LeagueSource:
    return LeagueSource.from_options(league_id=league_id, season=season,
                                     demo_variant=variant, demo_today=today, root=root)


def _console() -> Console:
    return Console(width=140)


# --------------------------------------------------------------------------- value helpers


def fantasy_points_avg(player: Player, settings: LeagueSettings, window: str = "season"
                       ) -> float | None:
    """Average fantasy points per game in a window under the league's points scoring."""
    line = player.stats.get(window)
    if line is None or not line.games_played:
        return None
    if line.applied_average is not None:
        return line.applied_average
    return sum(w * line.averages.get(sid, 0.0) for sid, w in settings.scoring_weights.items())


def _fmt(v: float | None, digits: int = 1) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def _cat_cells(player: Player, settings: LeagueSettings) -> list[str]:
    line = player.stats.get("season")
    cats = settings.categories or list(NINE_CAT_STATS)
    if line is None or not line.games_played:
        return ["-"] * len(cats)
    out = []
    for sid in cats:
        if sid in PERCENTAGE_STATS:
            out.append(f"{line.avg(sid):.3f}".lstrip("0"))
        else:
            out.append(f"{line.avg(sid):.1f}")
    return out


def _status_cell(player: Player) -> str:
    label = injury_label(player.injury_status)
    if not label:
        return ""
    color = "red" if player.is_out else "yellow"
    ret = f" (back {day_text(player.expected_return_date)})" if player.expected_return_date \
        else ""
    return f"[{color}]{escape(label + ret)}[/]"


def _games_left(player: Player, league: League, schedule: ProSchedule | None) -> str:
    if schedule is None:
        return "-"
    return str(schedule.count_games(player.pro_team_id, league.remaining_dates()))


def _header(console: Console, league: League, source: LeagueSource) -> None:
    s = league.settings
    left = league.remaining_dates()
    scoring = s.scoring_type.value if not s.categories or s.is_points else (
        f"{s.scoring_type.value} ({', '.join(stat_name(c) for c in s.categories)})")
    console.print(f"[bold]{escape(s.name)}[/]  ({escape(source.describe())})", highlight=False)
    console.print(
        f"{s.size} teams - scoring {escape(scoring)} - today {day_text(league.today)} (scoring "
        f"period {league.current_scoring_period}) - matchup period "
        f"{league.current_matchup_period}, {plural(len(left), 'day')} left", highlight=False)


async def _schedule_or_none(client: EspnClient) -> ProSchedule | None:
    try:
        return await client.get_pro_schedule()
    except Exception:  # noqa: BLE001 - the tables still work without games-left
        return None


def _stale_note(console: Console, client: EspnClient) -> None:
    info = client.last_fetch_info
    if info is not None and info.stale:
        console.print(f"[yellow]note: ESPN is failing ({escape(str(info.error))}); showing "
                      f"cached data {info.age_seconds:.0f}s old[/]", highlight=False)


# --------------------------------------------------------------------------- commands


@league_app.command("show")
def league_show(league_id: LeagueIdOpt = None, season: SeasonOpt = None,
                demo_variant: DemoVariantOpt = None, demo_today: DemoTodayOpt = None,
              data_dir: DataDirOpt = None) -> None:
    """Standings and the current matchups."""

    async def body(client: EspnClient, source: LeagueSource) -> None:
        league = await client.get_league()
        console = _console()
        _header(console, league, source)
        _stale_note(console, client)
        s = league.settings
        table = Table(title="Standings", title_justify="left")
        for col in ("#", "Team", "Abbr", "Owner", "W-L-T"):
            table.add_column(col)
        if s.is_points:
            table.add_column("PF", justify="right")
            table.add_column("PA", justify="right")
        teams = sorted(league.teams, key=lambda t: (t.playoff_seed or 99, t.id))
        for i, t in enumerate(teams, 1):
            row = [str(i), escape(f"{t.name} (id {t.id})"), escape(t.abbrev),
                   escape(", ".join(t.owners)), str(t.record)]
            if s.is_points:
                row += [f"{t.record.points_for:.0f}", f"{t.record.points_against:.0f}"]
            table.add_row(*row)
        console.print(table)
        mt = Table(title=f"Matchup period {league.current_matchup_period}", title_justify="left")
        for col in ("Home", "Score", "Away", "Score"):
            mt.add_column(col)
        for m in league.matchups_for_period(league.current_matchup_period):
            if m.away is None:
                continue
            home, away = league.team(m.home.team_id), league.team(m.away.team_id)
            if s.is_points:
                hs, as_ = f"{m.home.points:.1f}", f"{m.away.points:.1f}"
            else:
                hs = f"{m.home.wins}-{m.home.losses}-{m.home.ties}"
                as_ = f"{m.away.wins}-{m.away.losses}-{m.away.ties}"
            mt.add_row(escape(home.name), hs, escape(away.name), as_)
        console.print(mt)

    run_league_command(lambda: _source(league_id, season, demo_variant, demo_today, data_dir), body)


@team_app.command("show")
def team_show(team: Annotated[str, typer.Argument(help="Team id, abbreviation, name or owner.")],
              league_id: LeagueIdOpt = None, season: SeasonOpt = None,
              demo_variant: DemoVariantOpt = None, demo_today: DemoTodayOpt = None,
              data_dir: DataDirOpt = None) -> None:
    """A team's roster with lineup slots, injuries, averages and games left this week."""

    async def body(client: EspnClient, source: LeagueSource) -> None:
        league = await client.get_league()
        found = league.find_team(team)
        if found is None:
            names = ", ".join(f"{t.abbrev} ({t.name})" for t in league.teams)
            raise fail(f"no team matches {shown(team)}; teams: {names}")
        schedule = await _schedule_or_none(client)
        console = _console()
        _header(console, league, source)
        _stale_note(console, client)
        s = league.settings
        limit = s.acquisition_limit_for(league.current_matchup_period)
        used = found.acquisitions_used(league.current_matchup_period)
        console.print(
            f"[bold]{escape(found.name)}[/] ({escape(found.abbrev)}, id {found.id}) - owner "
            f"{escape(', '.join(found.owners)) or '?'} - record {found.record} - acquisitions this "
            f"matchup {used}/{'unlimited' if limit is None else limit}", highlight=False)
        m = league.current_matchup(found.id)
        if m is not None and m.away is not None:
            me, opp = m.side_for(found.id), m.opponent_side(found.id)
            assert me is not None and opp is not None
            score = (f"{me.points:.1f} - {opp.points:.1f}" if s.is_points
                     else f"{me.wins}-{me.losses}-{me.ties}")
            console.print(f"Current matchup vs {escape(league.team(opp.team_id).name)}: "
                          f"{score}", highlight=False)
        table = Table(title="Roster", title_justify="left")
        for col in ("Slot", "Player", "Pos", "NBA", "Status"):
            table.add_column(col)
        cats = s.categories if not s.is_points else []
        if s.is_points:
            for col in ("FPTS/G", "L7", "L15", "Proj"):
                table.add_column(col, justify="right")
        else:
            for sid in cats:
                table.add_column(stat_name(sid), justify="right")
        table.add_column("GP", justify="right")
        table.add_column("Games left", justify="right")
        for e in sorted(found.roster, key=lambda e: (e.lineup_slot_id, e.player.name)):
            p = e.player
            row = [e.slot, escape(p.name), "/".join(p.positions), p.pro_team, _status_cell(p)]
            if s.is_points:
                row += [_fmt(fantasy_points_avg(p, s, w))
                        for w in ("season", "last_7", "last_15", "projected")]
            else:
                row += _cat_cells(p, s)
            row += [str(p.stat_line().games_played), _games_left(p, league, schedule)]
            table.add_row(*row)
        console.print(table)

    run_league_command(lambda: _source(league_id, season, demo_variant, demo_today, data_dir), body)


def free_agents(
    slot: Annotated[str | None, typer.Option("--slot", help="Lineup slot: PG, SG, SF, PF, C, G, "
                                                            "F, UT...")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=200, help="How many.")] = 25,
    league_id: LeagueIdOpt = None, season: SeasonOpt = None,
    demo_variant: DemoVariantOpt = None, demo_today: DemoTodayOpt = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Free agents and waiver players, most-owned first."""
    slot_id: int | None = None
    if slot:
        try:
            slot_id = parse_slot(slot)
        except ValueError as exc:
            raise fail(str(exc) if len(slot) <= MAX_ECHO
                       else f"unknown lineup slot {shown(slot)}") from None

    async def body(client: EspnClient, source: LeagueSource) -> None:
        league = await client.get_league()
        players = await client.get_free_agents(slot=slot_id, size=limit)
        schedule = await _schedule_or_none(client)
        console = _console()
        _header(console, league, source)
        _stale_note(console, client)
        s = league.settings
        title = f"Free agents{' at ' + slot_name(slot_id) if slot_id is not None else ''}"
        table = Table(title=title, title_justify="left")
        for col in ("Player", "Pos", "NBA", "Status", "Avail", "%Own"):
            table.add_column(col)
        cats = s.categories if not s.is_points else []
        if s.is_points:
            for col in ("FPTS/G", "L7", "L15"):
                table.add_column(col, justify="right")
        else:
            for sid in cats:
                table.add_column(stat_name(sid), justify="right")
        table.add_column("Games left", justify="right")
        for p in players:
            row = [escape(p.name), "/".join(p.positions), p.pro_team, _status_cell(p),
                   "waivers" if p.status == "WAIVERS" else "FA", f"{p.percent_owned:.1f}"]
            if s.is_points:
                row += [_fmt(fantasy_points_avg(p, s, w)) for w in ("season", "last_7", "last_15")]
            else:
                row += _cat_cells(p, s)
            row.append(_games_left(p, league, schedule))
            table.add_row(*row)
        if not players:
            console.print("No free agents match.")
        else:
            console.print(table)

    run_league_command(lambda: _source(league_id, season, demo_variant, demo_today, data_dir), body)


def register(app: typer.Typer) -> None:
    """Add `league show`, `team show` and `free-agents` to the root app."""
    app.add_typer(league_app, name="league")
    app.add_typer(team_app, name="team")
    app.command("free-agents")(free_agents)


__all__ = ["fantasy_points_avg", "free_agents", "league_show", "register", "team_show"]
