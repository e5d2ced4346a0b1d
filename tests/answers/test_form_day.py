"""A form question about a day that is over gets that day's game: the box score against the
season, or why there was none (his team was off, or he sat), in both scoring variants, and
through the real runtime (a research question about a past day is answered the same way)."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

from agents.answers.league import fmt_day
from agents.answers.player import answer_player_form, asked_past_day
from agents.shared.deps import AgentDeps, load_context
from agents.supervisor.graph import past_day_as_form
from agents.understanding.request import DayRef, Intent, PlayerRef, Request
from tests.conversation.test_conversation_flow import Chat, open_app

TODAY = date(2023, 1, 25)  # the demo league's today, a Wednesday


async def _rostered(deps: AgentDeps, name: str) -> PlayerRef:
    ctx = await load_context(deps)
    p = next(p for t in ctx.league.teams for p in t.players if p.name == name)
    return PlayerRef(words=name.split()[-1].lower(), status="resolved", player_id=p.id,
                     name=p.name)


def _form(ref: PlayerRef, day: DayRef | None) -> Request:
    return Request(text="", intent=Intent.PLAYER_FORM, players=[ref], day=day)


def test_which_past_day_a_form_question_means() -> None:
    ref = PlayerRef(words="x", status="resolved", player_id=1, name="X")
    yday = DayRef(word="yesterday", date=(TODAY - timedelta(days=1)).isoformat())
    assert asked_past_day(_form(ref, yday), TODAY) == TODAY - timedelta(days=1)
    # "saturday" read as the coming one (Jan 28): a box score exists only for the last one
    sat = DayRef(word="saturday", date="2023-01-28")
    assert asked_past_day(_form(ref, sat), TODAY) == date(2023, 1, 21)
    # tomorrow is not a weekday word: no past day, the recent-form answer
    tmrw = DayRef(word="tmrw", date="2023-01-26")
    assert asked_past_day(_form(ref, tmrw), TODAY) is None
    assert asked_past_day(_form(ref, DayRef(word="tonight", date=TODAY.isoformat())),
                          TODAY) is None
    assert asked_past_day(_form(ref, None), TODAY) is None


def test_a_research_question_about_a_day_that_is_over_is_a_form_question() -> None:
    ref = PlayerRef(words="x", status="resolved", player_id=1, name="X")
    past = Request(intent=Intent.PLAYER_RESEARCH, players=[ref],
                   day=DayRef(word="1/20", date="2023-01-20"))
    assert past_day_as_form(past, TODAY).intent == Intent.PLAYER_FORM
    now = past.model_copy(update={"day": DayRef(word="tonight", date=TODAY.isoformat())})
    assert past_day_as_form(now, TODAY).intent == Intent.PLAYER_RESEARCH
    # a start/sit call for a day whose games are played is a form question too
    sit = past.model_copy(update={"intent": Intent.PLAYER_DECISION, "action": "start"})
    assert past_day_as_form(sit, TODAY).intent == Intent.PLAYER_FORM
    assert past_day_as_form(sit.model_copy(update={"day": None}), TODAY).intent \
        == Intent.PLAYER_DECISION


async def test_the_days_box_score_comes_first(deps: AgentDeps) -> None:
    ref = await _rostered(deps, "Jayson Tatum")
    card = (await deps.espn.get_player_cards([int(ref.player_id or 0)]))[0]
    yday = TODAY - timedelta(days=1)
    g = next(x for x in card.game_log if x.date == yday)
    reply = await answer_player_form(deps, _form(ref, DayRef(word="yesterday",
                                                               date=yday.isoformat())))
    first = reply.text.splitlines()[0]
    assert "Jayson Tatum" in first and "last night" in first and fmt_day(yday) in first
    assert f"{int(g.stats[0])} pts" in first and f"{int(g.stats[6])} reb" in first
    ctx = await load_context(deps)
    if ctx.league.settings.is_points:
        assert "season average of" in first and f"{g.applied_points:.0f} fantasy points" in first
    else:  # categories: each stat against his season, no one-word verdict for one game
        assert reply.text.splitlines()[1].startswith("His season per game: ")
        assert "season average" not in reply.text
    # one game, not a five-game table
    assert "Averages, last games" not in reply.text
    assert reply.report and reply.report["day"] == yday.isoformat()
    assert reply.report["players"][0]["day_game"]["date"] == yday.isoformat()


async def test_a_day_his_team_was_off_says_so_and_shows_the_game_before(deps: AgentDeps
                                                                          ) -> None:
    ref = await _rostered(deps, "Jayson Tatum")
    ctx = await load_context(deps)
    card = (await deps.espn.get_player_cards([int(ref.player_id or 0)]))[0]
    off = next(TODAY - timedelta(days=k) for k in range(2, 10)
               if not ctx.schedule.games_for_team(card.pro_team_id, [TODAY - timedelta(days=k)]))
    reply = await answer_player_form(deps, _form(ref, DayRef(word="x", date=off.isoformat())))
    assert reply.text.startswith(f"Jayson Tatum had no game on {fmt_day(off)}")
    before = max(x.date for x in card.game_log if x.stats and x.date and x.date < off)
    assert f"before that: {fmt_day(before)}" in reply.text


async def test_a_day_he_sat_while_his_team_played(deps: AgentDeps) -> None:
    ref = await _rostered(deps, "Jordan Poole")
    ctx = await load_context(deps)
    card = (await deps.espn.get_player_cards([int(ref.player_id or 0)]))[0]
    played = {x.date for x in card.game_log if x.stats}
    sat = next(g.date for g in reversed(ctx.schedule.games_for_team(card.pro_team_id))
               if g.date < TODAY and g.date not in played)
    reply = await answer_player_form(deps, _form(ref, DayRef(word="x", date=sat.isoformat())))
    assert reply.text.startswith(f"Jordan Poole didn't play on {fmt_day(sat)}: GSW played")
    assert "without him (today he's listed OUT" in reply.text


async def test_past_days_through_the_runtime(tmp_path: Path) -> None:
    app = await open_app(tmp_path)
    try:
        chat = Chat(app)
        text = await chat.ask("what was jokic's line on 1/24")
        first = next(line for line in text.splitlines() if "Offline mode" not in line)
        assert first.startswith("**Nikola Jokic"), text
        assert "Tue Jan 24" in text and "pts" in text and "Averages, last games" not in text
        text = await chat.ask("did giannis suit up on 1/24?")
        assert "Giannis Antetokounmpo had no game" in text and "MIL were off" in text, text
        assert "plays tonight" not in text
        # a follow-up moving a start/sit question to a played day gets that day's game
        await chat.ask("should i start brunson")
        text = await chat.ask("how did he do 1/20?")
        assert "Jalen Brunson" in text and "Fri Jan 20" in text and "pts" in text, text
        assert "Start Jalen Brunson" not in text
    finally:
        await app.close()
