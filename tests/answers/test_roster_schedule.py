"""Roster and schedule answers: whose team first, statuses as members read them, games left
that agree between the roster, the schedule and the matchup answer (an OUT player's games are
named), and a named player's own games left with the days."""

from __future__ import annotations

import re
from pathlib import Path

from agents.answers.info import answer_roster, answer_schedule
from agents.answers.league import fmt_day
from agents.shared.deps import AgentDeps, load_context
from agents.understanding.request import Intent, PlayerRef, Request, TeamRef
from fantasy.constants import OUT_STATUSES, SLOT_IR
from tests.conversation.test_conversation_flow import Chat, open_app


def _total(text: str) -> int:
    m = re.search(r"(\d+) games? left this matchup", text)
    assert m, text
    return int(m.group(1))


async def test_roster_and_schedule_agree_and_name_the_out_players(deps: AgentDeps) -> None:
    ctx = await load_context(deps)
    dates = ctx.league.remaining_dates(today=deps.today_date())
    me = ctx.my_team
    expected = sum(ctx.schedule.count_games(e.player.pro_team_id, dates)
                   for e in me.roster if e.lineup_slot_id != SLOT_IR)
    roster = await answer_roster(deps, Request(intent=Intent.ROSTER, text="my guys"))
    sched = await answer_schedule(deps, Request(intent=Intent.SCHEDULE, text="games left"))
    assert _total(roster.text) == _total(sched.text) == expected
    assert roster.text.startswith(f"**{me.name}** (you)")
    out = [p for p in me.players if p.injury_status in OUT_STATUSES]
    for p in out:
        assert f"{p.name}'s, who is OUT" in roster.text or f"{p.name}," in roster.text
    # statuses as members read them, never ESPN's constants or ISO dates
    assert "DAY_TO_DAY" not in roster.text and not re.search(r"\d{4}-\d{2}-\d{2}",
                                                              roster.text)
    assert [x.name for x in roster.listed] == [e.player.name for e in me.roster]


async def test_the_opponents_roster_says_who_he_is_first(deps: AgentDeps) -> None:
    ctx = await load_context(deps)
    reply = await answer_roster(deps, Request(intent=Intent.ROSTER, text="their roster",
                                              team=TeamRef(kind="opponent")))
    assert reply.text.startswith(f"Your opponent this matchup: **{ctx.opponent.name}**")
    other = await answer_roster(deps, Request(intent=Intent.ROSTER, text="x",
                                              team=TeamRef(kind="other", name="no such club")))
    assert "No fantasy team in this league is called 'no such club'" in other.text


async def test_a_named_players_games_left_with_the_days(deps: AgentDeps) -> None:
    ctx = await load_context(deps)
    dates = ctx.league.remaining_dates(today=deps.today_date())
    p = next(p for p in ctx.my_team.players if p.injury_status == "ACTIVE")
    games = ctx.schedule.games_for_team(p.pro_team_id, dates)
    reply = await answer_schedule(deps, Request(
        intent=Intent.SCHEDULE, text=f"{p.name.lower()} games left",
        players=[PlayerRef(words=p.name.lower(), status="resolved", player_id=p.id,
                           name=p.name)]))
    assert reply.text.startswith(f"{p.name} (")
    assert f"has {len(games)} game" in reply.text
    assert all(fmt_day(g.date) in reply.text for g in games)


async def test_schedule_and_matchup_through_the_runtime(tmp_path: Path) -> None:
    app = await open_app(tmp_path)
    try:
        chat = Chat(app)
        text = await chat.ask("how many games has brunson got left")
        assert "Jalen Brunson (PG/SG, NYK) has 2 games left this matchup:" in text, text
        assert "By player" not in text
        text = await chat.ask("what does the buzzer beaters roster look like")
        assert "**Buzzer Beaters**" in text and "Starting:" in text
        text = await chat.ask("how am i doing in my matchup")
        assert "Starts left in those lineups" in text
    finally:
        await app.close()


async def test_injuries_on_another_team_are_that_teams(deps: AgentDeps) -> None:
    from agents.answers.player import INJURED, answer_injury_check

    ctx = await load_context(deps)
    reply = await answer_injury_check(deps, Request(
        intent=Intent.INJURY_REEVALUATION, text="their injuries", team=TeamRef(kind="opponent")))
    hurt = {p.name for p in ctx.opponent.players if p.injury_status in INJURED}
    assert {x["name"] for x in reply.report["players"]} == hurt
    assert reply.text.startswith(f"Injured on your opponent {ctx.opponent.name}")
    mine = {p.name for p in ctx.my_team.players if p.injury_status in INJURED}
    assert not any(name in reply.text for name in mine - hurt)
    assert "Stream" not in reply.text and "Hold" not in reply.text


async def test_opponent_injuries_through_the_runtime(tmp_path: Path) -> None:
    app = await open_app(tmp_path)
    try:
        chat = Chat(app)
        text = await chat.ask("which of my opponent's players are injured")
        assert "Injured on your opponent Full Court Press" in text, text
        assert "Jordan Poole" not in text  # one of mine, not theirs
    finally:
        await app.close()
