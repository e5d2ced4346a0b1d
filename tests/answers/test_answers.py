"""The deterministic answer builders on the demo league (recorded ESPN JSON through the real
client, the real optimizer), in both scoring variants. Requests are built directly, as the
understanding module would; every assertion checks a fact that comes from the league data."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest

from agents.answers import answer_for
from agents.answers.help import answer_help, answer_out_of_scope
from agents.answers.league import answer_free_agents, answer_matchup_status, answer_standings
from agents.answers.player import (
    answer_injury_check,
    answer_player_decision,
    answer_player_form,
    playing_on,
)
from agents.shared.deps import AgentDeps, load_context, optimizer_for
from agents.shared.tool_registry import FanviseTools
from agents.understanding.request import DayRef, Intent, PlayerRef, Request
from agents.understanding.understand import asked_details
from fantasy.constants import OUT_STATUSES, UNCERTAIN_STATUSES, pro_team_abbrev
from fantasy.outlook import Valuer

VARIANTS = ("points", "categories")
INJURED = OUT_STATUSES | UNCERTAIN_STATUSES


async def _ctx(deps: AgentDeps) -> Any:
    return await load_context(deps, with_free_agents=True, fa_size=150)


async def _player(deps: AgentDeps, name: str) -> Any:
    ctx = await _ctx(deps)
    for t in ctx.league.teams:
        for p in t.players:
            if p.name == name:
                return p
    for p in ctx.free_agents or []:
        if p.name == name:
            return p
    raise AssertionError(f"{name} not in the demo league")


def asked(intent: Intent, text: str, **fields: Any) -> Request:
    """A request with the details understanding reads from its words (help topics, injured
    included, statuses asked ...), as understand() fills them."""
    return Request(intent=intent, text=text, **asked_details(text), **fields)


def ref(p: Any) -> PlayerRef:
    return PlayerRef(words=p.name.split()[-1].lower(), status="resolved", player_id=p.id,
                     name=p.name)


def no_ids(text: str, *ids: int) -> None:
    for i in ids:
        assert str(i) not in text, f"internal id {i} shown"


# --------------------------------------------------------------------------- matchup


async def test_matchup_status_score_days_and_projection(deps: AgentDeps) -> None:
    details = await FanviseTools(deps).get_matchup_details()
    reply = await answer_matchup_status(deps, Request(intent=Intent.MATCHUP_STATUS,
                                                      text="am i winning this week?"))
    ctx = await _ctx(deps)
    svc = await optimizer_for(deps)
    me, opp = ctx.my_team, ctx.opponent
    mine, theirs = svc.weekly_plan(me.id), svc.weekly_plan(opp.id)
    r = reply.report
    assert r["days_left"] == details["days_left"] and f"{details['days_left']} days left" in reply.text
    assert me.name in reply.text and opp.name in reply.text
    assert r["my_games_left"] == mine.games_played
    assert r["opponent_games_left"] == theirs.games_played
    if ctx.league.settings.is_points:
        assert r["my_points"] == details["my_points"]
        assert r["opponent_points"] == details["opponent_points"]
        assert f"{details['my_points']:.1f} - {details['opponent_points']:.1f}" in reply.text
        assert r["my_projected"] == pytest.approx(details["my_points"] + mine.total_points, abs=0.1)
        assert r["opponent_projected"] == pytest.approx(
            details["opponent_points"] + theirs.total_points, abs=0.1)
        assert f"{r['my_projected']:.0f} - {r['opponent_projected']:.0f}" in reply.text
    else:
        rows = {c["category"]: c for c in r["categories"]}
        assert list(rows) == [c["category"] for c in details["categories"]]
        for c in details["categories"]:
            assert rows[c["category"]]["mine"] == pytest.approx(c["mine"], abs=1e-3)
            assert rows[c["category"]]["opponent"] == pytest.approx(c["opponent"], abs=1e-3)
            assert rows[c["category"]]["result"] == c["result"].lower()
            assert re.search(rf"^{re.escape(c['category'])}: .* -> ", reply.text, re.M)
        rec = details["record"]
        assert r["record"] == [rec["wins"], rec["losses"], rec["ties"]]
        proj = {c.name: c.my_total for c in mine.categories}
        oproj = {c.name: c.my_total for c in theirs.categories}
        for name, row in rows.items():
            assert row["my_projected"] == pytest.approx(proj[name], abs=1e-3)
            assert row["opponent_projected"] == pytest.approx(oproj[name], abs=1e-3)
        wins = sum(1 for x in rows.values() if x["projected_result"] == "win")
        assert r["projected_record"][0] == wins
    assert [o.label for o in reply.offers] == ["Look for moves"]
    assert reply.offers[0].request.intent is Intent.MATCHUP_ANALYSIS
    assert not reply.listed


# --------------------------------------------------------------------------- standings


async def test_standings_table_and_activity(deps: AgentDeps) -> None:
    ctx = await _ctx(deps)
    reply = await answer_standings(deps, Request(intent=Intent.STANDINGS, text="standings"))
    table = reply.report["standings"]
    assert len(table) == len(ctx.league.teams)
    assert [row["rank"] for row in table] == sorted(row["rank"] for row in table)
    for t in ctx.league.teams:
        assert f"{t.name}" in reply.text and str(t.record) in reply.text
    first = min(ctx.league.teams, key=lambda t: t.rank)
    # the lead line, the title, then the table
    assert reply.text.splitlines()[2].startswith(f"{first.rank}. {first.name}")
    assert "(you)" in next(line for line in reply.text.splitlines()[2:]
                           if ctx.my_team.name in line)
    if ctx.league.settings.is_points:
        assert f"{first.record.points_for:,.0f} pts" in reply.text
    assert "no adds, drops or trades" in reply.text  # the fresh demo has no moves yet

    # a move in the league shows up as recent activity (the client's activity read)
    me = ctx.my_team
    drop = next(p for p in me.players if p.name == "Ben Simmons")
    add = next(p for p in ctx.free_agents if p.id not in ctx.league.all_rostered_player_ids())
    deps.espn.demo.apply_move(me.id, drop.id, add.id)
    await deps.espn.invalidate_cache()
    deps.reset_context()
    reply = await answer_standings(deps, Request(intent=Intent.STANDINGS, text="standings"))
    assert f"{me.name} added {add.name}" in reply.text
    assert f"{me.name} dropped {drop.name}" in reply.text
    assert {a["player"] for a in reply.report["activity"]} == {add.name, drop.name}


# --------------------------------------------------------------------------- free agents


async def test_free_agents_ranked_by_rest_of_matchup_value(deps: AgentDeps) -> None:
    ctx = await _ctx(deps)
    reply = await answer_free_agents(deps, Request(intent=Intent.FREE_AGENT_SCAN,
                                                   text="best free agents right now?"))
    rows = reply.report["free_agents"]
    assert len(rows) == 8 and [x.player_id for x in reply.listed] == [x["id"] for x in rows]
    values = [x["value"] for x in rows]
    assert values == sorted(values, reverse=True)
    rostered = ctx.league.all_rostered_player_ids()
    dates = ctx.league.remaining_dates(today=deps.today_date())
    val = Valuer(ctx.league, ctx.schedule, dates, deps.today_date(),
                 extra=[p for p in ctx.free_agents if p.id not in rostered])
    fa = {p.id: p for p in ctx.free_agents}
    for x in rows:
        p = fa[x["id"]]
        assert p.id not in rostered and p.injury_status not in INJURED  # healthy only
        assert x["games_left"] == ctx.schedule.count_games(p.pro_team_id, dates)
        assert x["value"] == pytest.approx(x["games_left"] * val.per_game(p), abs=1e-2)
    # nobody healthy outside the list is worth more than the last one shown
    rest = [val.rest_value(p) for p in ctx.free_agents
            if p.id not in rostered and p.injury_status not in INJURED
            and p.id not in {x["id"] for x in rows}]
    assert max(rest) <= values[-1] + 1e-6
    lines = [line for line in reply.text.splitlines() if re.match(r"^\d+\. ", line)]
    for k, (line, x) in enumerate(zip(lines, rows, strict=True), 1):
        assert line.startswith(f"{k}. {x['name']} (")
        assert f"{x['games_left']} game" in line and "healthy" in line
    no_ids(reply.text, *[x["id"] for x in rows])
    add = reply.offers[0]
    assert add.label == f"Add {rows[0]['name']}"
    assert add.request.intent is Intent.EXPLICIT_MOVE
    assert add.request.move.add.player_id == rows[0]["id"]
    assert reply.offers[1].label == "Find streamers"
    assert reply.offers[1].request.intent is Intent.STREAMING


async def test_free_agents_position_category_and_count(deps: AgentDeps) -> None:
    ctx = await _ctx(deps)
    reply = await answer_free_agents(deps, Request(
        intent=Intent.FREE_AGENT_SCAN, text="need blocks, best centers on waivers",
        position="C", categories=["BLK"], count=5))
    rows = reply.report["free_agents"]
    assert len(rows) == 5 and reply.report["categories"] == ["BLK"]
    fa = {p.id: p for p in ctx.free_agents}
    dates = ctx.league.remaining_dates(today=deps.today_date())
    val = Valuer(ctx.league, ctx.schedule, dates, deps.today_date())
    blk = [fa[x["id"]] for x in rows]
    assert all("C" in p.positions or 4 in p.eligible_slots for p in blk)
    totals = [val.expected_games(p) * val.stat(p, 1) for p in blk]
    assert totals == sorted(totals, reverse=True)  # ranked by blocks over the matchup
    assert "BLK per game" in reply.text
    if ctx.league.settings.is_points:
        assert "fantasy points a game" in reply.text  # the points effect is shown too
    assert reply.offers[1].request.categories == ["BLK"]


async def test_free_agents_include_injured_when_asked(deps: AgentDeps) -> None:
    reply = await answer_free_agents(deps, asked(
        Intent.FREE_AGENT_SCAN, "best free agents, include injured", count=20))
    assert reply.report["healthy_only"] is False
    healthy = await answer_free_agents(deps, asked(Intent.FREE_AGENT_SCAN, "free agents",
                                                   count=20))
    assert healthy.report["healthy_only"] is True
    assert all(x["status"] not in INJURED for x in healthy.report["free_agents"])


# --------------------------------------------------------------------------- player form


async def test_player_form_last_n_games_against_season(deps: AgentDeps) -> None:
    p = await _player(deps, "Tyrese Haliburton")
    reply = await answer_player_form(deps, Request(intent=Intent.PLAYER_FORM,
                                                   text="how has hali been playing last 3",
                                                   players=[ref(p)], count=3))
    card = (await deps.espn.get_player_cards([p.id]))[0]
    logs = sorted((g for g in card.game_log if g.date and g.date < deps.today_date()),
                  key=lambda g: g.scoring_period, reverse=True)[:3]
    got = reply.report["players"][0]
    assert got["games"] == 3 and got["dates"] == [g.date.isoformat() for g in logs]
    assert got["recent"]["PTS"] == pytest.approx(sum(g.stats[0] for g in logs) / 3, abs=1e-3)
    assert got["season"]["PTS"] == pytest.approx(card.stat_line("season").avg(0), abs=1e-3)
    assert f"PTS {got['recent']['PTS']:.1f} ({got['season']['PTS']:.1f})" in reply.text
    for g in logs:
        assert f"{int(g.stats[0])} pts" in reply.text
    if (await _ctx(deps)).league.settings.is_points:
        assert got["recent_fpts"] == pytest.approx(sum(g.applied_points for g in logs) / 3)
        assert "fantasy points" in reply.text
    no_ids(reply.text, p.id)
    # no count: the last 5
    reply5 = await answer_player_form(deps, Request(intent=Intent.PLAYER_FORM,
                                                    players=[ref(p)]))
    assert reply5.report["players"][0]["games"] == 5


async def test_player_form_asks_which_player(deps: AgentDeps) -> None:
    reply = await answer_player_form(deps, Request(intent=Intent.PLAYER_FORM,
                                                   text="how has he been playing"))
    assert "Which player" in reply.text
    nf = await answer_player_form(deps, Request(
        intent=Intent.PLAYER_FORM, text="how has marcus thornbury been playing",
        players=[PlayerRef(words="marcus thornbury", status="not_found")]))
    assert "can't find" in nf.text and "pts" not in nf.text


# --------------------------------------------------------------------------- decisions


async def test_decision_player_on_another_team(deps: AgentDeps) -> None:
    ctx = await _ctx(deps)
    p = await _player(deps, "Giannis Antetokounmpo")
    owner = ctx.league.team_of_player(p.id)
    assert owner is not None and owner.id != ctx.my_team.id
    reply = await answer_player_decision(deps, Request(
        intent=Intent.PLAYER_DECISION, text="giannis is out til feb 11, should i drop him",
        players=[ref(p)], action="drop"))
    assert "isn't on your team" in reply.text and owner.name in reply.text
    assert reply.report["recommendation"] == "NOT_YOURS" and not reply.offers
    if p.expected_return_date:
        assert f"{p.expected_return_date:%b} {p.expected_return_date.day}" in reply.text


async def test_decision_free_agent(deps: AgentDeps) -> None:
    ctx = await _ctx(deps)
    rostered = ctx.league.all_rostered_player_ids()
    p = next(p for p in ctx.free_agents if p.id not in rostered)
    reply = await answer_player_decision(deps, Request(
        intent=Intent.PLAYER_DECISION, text=f"should i drop {p.name}", players=[ref(p)],
        action="drop"))
    assert "free agent" in reply.text
    assert reply.offers and reply.offers[0].request.move.add.player_id == p.id


async def test_decision_drop_my_players(deps: AgentDeps) -> None:
    ctx = await _ctx(deps)
    me = ctx.my_team
    dates = ctx.league.remaining_dates(today=deps.today_date())
    val = Valuer(ctx.league, ctx.schedule, dates, deps.today_date(), extra=ctx.free_agents)
    order = sorted(me.players, key=lambda p: (-val.per_game(p), p.id))
    best, worst = order[0], order[-1]
    r_best = await answer_player_decision(deps, Request(
        intent=Intent.PLAYER_DECISION, text=f"should i drop {best.name}", players=[ref(best)],
        action="drop"))
    assert r_best.report["recommendation"] == "HOLD" and r_best.report["roster_rank"] == 1
    assert f"your #1 player of {len(me.players)}" in r_best.text
    r_worst = await answer_player_decision(deps, Request(
        intent=Intent.PLAYER_DECISION, text=f"should i drop {worst.name}",
        players=[ref(worst)], action="drop"))
    assert r_worst.report["roster_rank"] == len(me.players)
    bfa = r_worst.report["best_free_agent"]
    if r_worst.report["recommendation"] == "DROP":
        assert bfa["rest_value"] > r_worst.report["rest_value"]
        assert bfa["name"] in r_worst.text
        assert r_worst.offers[0].request.move.drop.player_id == worst.id
    # an OUT star with a return date is held (not dropped)
    poole = next(p for p in me.players if p.name == "Jordan Poole")
    r = await answer_player_decision(deps, Request(
        intent=Intent.PLAYER_DECISION, text="should i drop poole", players=[ref(poole)],
        action="drop"))
    assert poole.injury_status == "OUT" and r.report["recommendation"] == "HOLD"
    assert f"{poole.expected_return_date:%b} {poole.expected_return_date.day}" in r.text
    no_ids(r.text, poole.id)


async def test_decision_start_uses_the_days_best_lineup(deps: AgentDeps) -> None:
    ctx = await _ctx(deps)
    svc = await optimizer_for(deps)
    today = deps.today_date()
    tomorrow = today + timedelta(days=1)
    lineup = svc.daily_lineup(ctx.my_team.id, tomorrow)
    starters = {s.player_id for s in lineup.starters}
    by_id = {p.id: p for p in ctx.my_team.players}
    for pid in list(starters)[:1] + [b.player_id for b in lineup.bench][:1]:
        p = by_id[pid]
        reply = await answer_player_decision(deps, Request(
            intent=Intent.PLAYER_DECISION, text=f"should i start {p.name} tmrw",
            players=[ref(p)], action="start",
            day=DayRef(word="tmrw", date=tomorrow.isoformat())))
        want = "START" if pid in starters else "SIT"
        assert reply.report["recommendation"] == want
        assert reply.text.startswith(f"{want.title()} {p.name} tomorrow")


# --------------------------------------------------------------------------- injuries


async def test_injury_check_guard_hold_or_stream(deps: AgentDeps) -> None:
    ctx = await _ctx(deps)
    guards = [p for p in ctx.my_team.players if p.injury_status in INJURED
              and {"PG", "SG"} & set(p.positions)]
    assert guards  # the demo has an injured guard
    dtd = [p for p in guards if p.injury_status in UNCERTAIN_STATUSES]
    reply = await answer_injury_check(deps, asked(
        Intent.INJURY_REEVALUATION, "My guard is listed DTD. Should I hold or stream his spot?",
        position="G"))
    named = [x["name"] for x in reply.report["players"]]
    assert set(named) == {p.name for p in (dtd or guards)}
    first = (dtd or guards)[0]
    assert f"**{first.name}" in reply.text
    assert re.search(r"^(Hold|Stream his spot|IR him and stream):", reply.text, re.M)
    games = ctx.schedule.count_games(first.pro_team_id,
                                     ctx.league.remaining_dates(today=deps.today_date()))
    assert f"{games} game" in reply.text
    if first.expected_return_date:
        assert f"{first.expected_return_date:%b} {first.expected_return_date.day}" in reply.text
    if not dtd:
        assert "No guard of yours is listed that way" in reply.text
    offer = reply.offers[0]
    assert offer.label == f"Find a streamer for {first.name}"
    assert offer.request.intent is Intent.STREAMING
    assert offer.request.players[0].player_id == first.id
    no_ids(reply.text, first.id)


async def test_injury_check_center_and_named(deps: AgentDeps) -> None:
    ctx = await _ctx(deps)
    centers = [p for p in ctx.my_team.players if p.injury_status in INJURED
               and "C" in p.positions]
    reply = await answer_injury_check(deps, Request(
        intent=Intent.INJURY_REEVALUATION, position="C", text="my center is banged up"))
    assert {x["name"] for x in reply.report["players"]} == {p.name for p in centers}
    for x in reply.report["players"]:
        assert x["decision"] in ("hold", "stream", "ir")
    allen = next(p for p in ctx.my_team.players if p.name == "Jarrett Allen")
    named = await answer_injury_check(deps, Request(
        intent=Intent.INJURY_REEVALUATION, text="allen is dtd, hold or stream?",
        players=[ref(allen)]))
    assert [x["name"] for x in named.report["players"]] == ["Jarrett Allen"]
    assert named.report["players"][0]["status"] == allen.injury_status


# --------------------------------------------------------------------------- playing on


async def test_playing_on_opponent_and_time(deps: AgentDeps) -> None:
    ctx = await _ctx(deps)
    p = await _player(deps, "Jalen Brunson")
    today = deps.today_date()
    for d in (today, today + timedelta(days=1)):
        games = ctx.schedule.games_for_team(p.pro_team_id, [d])
        text = await playing_on(deps, p.id, d)
        assert text.startswith(f"{p.name} ({p.pro_team})")
        if games:
            g = games[0]
            assert pro_team_abbrev(g.opponent_of(p.pro_team_id)) in text and "ET" in text
        else:
            assert "has no game" in text


async def test_playing_on_never_says_an_out_player_plays(deps: AgentDeps) -> None:
    """Jordan Poole is OUT in the demo while GSW play tonight: his team plays, he doesn't."""
    p = await _player(deps, "Jordan Poole")
    assert p.injury_status in OUT_STATUSES
    ctx = await _ctx(deps)
    assert ctx.schedule.games_for_team(p.pro_team_id, [deps.today_date()])
    text = await playing_on(deps, p.id)
    assert "plays" not in text and f"{p.pro_team} play tonight" in text
    assert f"{p.name} is listed OUT" in text


# --------------------------------------------------------------------------- help


async def test_help_how_to_topics(deps: AgentDeps) -> None:
    approve = await answer_help(deps, asked(Intent.HELP, "how do i approve a move?"))
    assert "Approve" in approve.text and "Decline" in approve.text and "number" in approve.text
    assert approve.report["help_topics"][0] == "approve"
    link = await answer_help(deps, asked(Intent.HELP, "how do i link my team"))
    assert "/link team=<id>" in link.text and "privately" in link.text
    assert link.report["help_topics"][0] == "link"
    full = await answer_help(deps, asked(Intent.HELP, "what can you do?"))
    assert "/optimize" in full.text and full.report["help_topics"] == []
    assert {o.request.intent for o in full.offers} >= {Intent.MATCHUP_STATUS}


async def test_out_of_scope_is_polite_and_has_no_league_data(deps: AgentDeps) -> None:
    ctx = await _ctx(deps)
    reply = await answer_out_of_scope(deps, Request(intent=Intent.OUT_OF_SCOPE,
                                                    text="whats the weather in nyc"))
    assert "outside" in reply.text and "FanVise" in reply.text
    assert not any(t.name in reply.text for t in ctx.league.teams)
    assert not re.search(r"\d{2,}", reply.text)


async def test_builders_table_points_at_these_functions() -> None:
    assert answer_for(Intent.MATCHUP_STATUS) is answer_matchup_status
    assert answer_for(Intent.STANDINGS) is answer_standings
    assert answer_for(Intent.FREE_AGENT_SCAN) is answer_free_agents
    assert answer_for(Intent.PLAYER_FORM) is answer_player_form
    assert answer_for(Intent.PLAYER_DECISION) is answer_player_decision
    assert answer_for(Intent.INJURY_REEVALUATION) is answer_injury_check
    assert answer_for(Intent.HELP) is answer_help
    assert answer_for(Intent.OUT_OF_SCOPE) is answer_out_of_scope



async def test_decision_week_several_players_and_own_add(deps: AgentDeps) -> None:
    ctx = await _ctx(deps)
    svc = await optimizer_for(deps)
    plan = svc.weekly_plan(ctx.my_team.id)
    me = ctx.my_team
    a, b = (next(p for p in me.players if p.name == n) for n in ("Jalen Brunson", "Ben Simmons"))
    reply = await answer_player_decision(deps, Request(
        intent=Intent.PLAYER_DECISION, text="should i start brunson or simmons this week",
        players=[ref(a), ref(b)], action="start", day=DayRef(word="this week", week=True)))
    assert [r["player"]["name"] for r in reply.report["players"]] == [a.name, b.name]
    for r in reply.report["players"]:
        want = [dp.date.isoformat() for dp in plan.days
                if any(s.player_id == r["player"]["id"] for s in dp.starters)]
        assert r["starts"] == want
        assert r["recommendation"] == ("START" if want else "SIT")
    own = await answer_player_decision(deps, Request(
        intent=Intent.PLAYER_DECISION, text="should i pick up brunson", players=[ref(a)],
        action="add"))
    assert "already on your team" in own.text and not own.offers


async def test_injury_check_ignores_a_player_carried_from_the_last_turn(deps: AgentDeps) -> None:
    ctx = await _ctx(deps)
    giannis = await _player(deps, "Giannis Antetokounmpo")
    guards = {p.name for p in ctx.my_team.players if p.injury_status in INJURED
              and {"PG", "SG"} & set(p.positions)}
    carried = await answer_injury_check(deps, asked(
        Intent.INJURY_REEVALUATION, "My guard is listed DTD. Should I hold or stream his spot?",
        position="G", followup=True,
        players=[ref(giannis).model_copy(update={"carried": True})]))
    assert {x["name"] for x in carried.report["players"]} == guards
    assert giannis.name not in carried.text
    named = await answer_injury_check(deps, Request(
        intent=Intent.INJURY_REEVALUATION, text="giannis is hurt, hold or stream?",
        players=[ref(giannis)]))
    assert "isn't on your team" in named.text and named.report["players"] == []


async def test_roster_of_another_team_by_name(deps: AgentDeps) -> None:
    ctx = await _ctx(deps)
    other = next(t for t in ctx.league.teams if ctx.opponent is None or t.id != ctx.opponent.id
                 if t.id != deps.my_team_id)
    req = Request(intent=Intent.ROSTER, team={"kind": "other", "name": other.name})
    reply = await answer_for(Intent.ROSTER)(deps, req)
    assert reply.tool_calls == ["get_team_roster"]
    assert other.name in reply.text
    assert [p.player_id for p in reply.listed] == [e.player.id for e in other.roster]
