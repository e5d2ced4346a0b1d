"""Follow-ups keep the previous turn's question and subject and change only what they name
(a day, a player, a category, a position); new questions after a player question are not
follow-ups. First through understanding on the demo league (the real router and resolver),
then end to end through ChatCore and the real runtime (offline model, SQLite checkpoints,
the real LangGraph graphs), where the previous turn is what the supervisor stored.
"""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from agents.understanding import UnderstandingContext
from agents.understanding.entities import extract_day
from agents.understanding.request import Intent, Request
from tests.conversation.test_conversation_flow import Chat, open_app
from tests.understanding.dialogue import talk

TODAY = date(2023, 1, 25)  # a Wednesday, the demo league's today
TOMORROW = (TODAY + timedelta(days=1)).isoformat()
FRIDAY, SATURDAY, SUNDAY = "2023-01-27", "2023-01-28", "2023-01-29"
#: The team's games-left answer, which follow-ups about a player used to get.
GAMES_LEFT = "games left in the matchup window"


def names(r: Request) -> list[str]:
    return [p.name or p.words for p in r.players]


# --------------------------------------------------------------------------- understanding


def test_a_day_then_a_player_keep_the_player_question(league: UnderstandingContext) -> None:
    form, day, other, pron = talk(league, "hows tatum looking lately", "and sunday?",
                                  "ok now jaylen brown", "what bout him on friday")
    assert form.intent == Intent.PLAYER_FORM and names(form) == ["Jayson Tatum"]
    # recent form has no day: moved to a day it asks about his game and status that day
    assert day.followup and day.intent == Intent.PLAYER_RESEARCH
    assert names(day) == ["Jayson Tatum"] and day.day is not None and day.day.date == SUNDAY
    assert other.intent == Intent.PLAYER_RESEARCH and names(other) == ["Jaylen Brown"]
    assert other.day is not None and other.day.date == SUNDAY
    assert pron.intent == Intent.PLAYER_RESEARCH and names(pron) == ["Jaylen Brown"]
    assert pron.day is not None and pron.day.date == FRIDAY


def test_a_new_player_keeps_a_form_question(league: UnderstandingContext) -> None:
    _, other, third = talk(league, "how's embiid been shooting recently",
                           "what about sabonis tho", "cool and jokic?")
    assert other.intent == Intent.PLAYER_FORM and names(other) == ["Domantas Sabonis"]
    assert third.intent == Intent.PLAYER_FORM and names(third) == ["Nikola Jokic"]


def test_a_decision_follow_up_keeps_the_action_and_changes_the_day(
        league: UnderstandingContext) -> None:
    first, other, later = talk(league, "should i bench jimmy butler tonight",
                               "wat about portis", "and thursday")
    assert first.intent == Intent.PLAYER_DECISION and first.action == "sit"
    assert other.intent == Intent.PLAYER_DECISION and names(other) == ["Bobby Portis"]
    assert other.action == "sit" and other.day is not None and other.day.date == TODAY.isoformat()
    assert later.intent == Intent.PLAYER_DECISION and names(later) == ["Bobby Portis"]
    assert later.day is not None and later.day.date == TOMORROW


@pytest.mark.parametrize(("first", "intent", "then", "field", "value"), [
    ("who can i stream for rebounds", Intent.STREAMING, "now for dimes", "categories", ["AST"]),
    ("who can i stream for rebounds", Intent.STREAMING, "same but threes", "categories",
     ["3PM"]),
    ("best free agents right now?", Intent.FREE_AGENT_SCAN, "how about just forwards",
     "position", "F"),
    ("best free agents right now?", Intent.FREE_AGENT_SCAN, "and centers then", "position", "C"),
    ("am i winning this week?", Intent.MATCHUP_STATUS, "and in boards?", "categories", ["REB"]),
])
def test_a_follow_up_changes_only_what_it_names(league: UnderstandingContext, first: str,
                                                intent: Intent, then: str, field: str,
                                                value: Any) -> None:
    a, b = talk(league, first, then)
    assert a.intent == intent
    assert b.followup and b.intent == intent and getattr(b, field) == value


def test_lineup_days_as_follow_ups(league: UnderstandingContext) -> None:
    _, sun, sat = talk(league, "set my lineup for tomorrow", "and for sun",
                       "what about saturday night")
    assert sun.intent == sat.intent == Intent.LINEUP_OPTIMIZATION
    assert sun.day is not None and sun.day.date == SUNDAY
    assert sat.day is not None and sat.day.date == SATURDAY


def test_a_bare_player_after_a_team_question_asks_about_him(
        league: UnderstandingContext) -> None:
    _, start, other = talk(league, "set my lineup for friday", "and butler?", "ok what bout portis")
    assert start.intent == Intent.PLAYER_DECISION and start.action == "start"
    assert names(start) == ["Jimmy Butler"] and start.day is not None
    assert start.day.date == FRIDAY
    assert other.intent == Intent.PLAYER_DECISION and other.action == "start"
    assert names(other) == ["Bobby Portis"]
    _, news = talk(league, "how's my matchup looking", "and jaylen brown?")
    assert news.intent == Intent.PLAYER_RESEARCH and names(news) == ["Jaylen Brown"]


def test_a_question_ending_in_then_keeps_the_day(league: UnderstandingContext) -> None:
    _, r = talk(league, "set my lineup for saturday", "does jaylen brown play then?")
    assert r.followup and r.intent == Intent.PLAYER_RESEARCH and names(r) == ["Jaylen Brown"]
    assert r.day is not None and r.day.date == SATURDAY


def test_a_pronoun_follow_up_with_its_own_question(league: UnderstandingContext) -> None:
    _, start, hurt = talk(league, "is jaylen brown playing friday", "should i start him",
                          "is he banged up")
    assert start.intent == Intent.PLAYER_DECISION and names(start) == ["Jaylen Brown"]
    assert hurt.intent == Intent.PLAYER_RESEARCH and names(hurt) == ["Jaylen Brown"]


def test_a_move_with_him_is_the_move(league: UnderstandingContext) -> None:
    _, move = talk(league, "should i drop simmons?", "ok cut him for coby white")
    assert move.intent == Intent.EXPLICIT_MOVE and move.move is not None
    assert move.move.drop is not None and move.move.drop.name == "Ben Simmons"
    assert move.move.add is not None and move.move.add.name == "Coby White"


@pytest.mark.parametrize(("question", "intent"), [
    ("who's the best pickup at pf", Intent.FREE_AGENT_SCAN),
    ("show me the standings", Intent.STANDINGS),
    ("hey what can you do", Intent.HELP),
    ("can you look over my matchup and suggest moves", Intent.MATCHUP_ANALYSIS),
    ("ok so who should i start tomorrow", Intent.LINEUP_OPTIMIZATION),
])
def test_new_questions_after_a_player_are_not_follow_ups(league: UnderstandingContext,
                                                         question: str, intent: Intent) -> None:
    _, r = talk(league, "is jimmy butler hurt?", question)
    assert not r.followup and r.intent == intent
    assert "Jimmy Butler" not in names(r)


def test_thanks_is_not_a_follow_up(league: UnderstandingContext) -> None:
    _, r = talk(league, "is jimmy butler hurt?", "thanks!")
    assert not r.followup and r.intent != Intent.PLAYER_RESEARCH


def test_short_weekdays_are_days_only_where_they_mean_one() -> None:
    assert extract_day("same for sat", TODAY).date == SATURDAY
    assert extract_day("and sun?", TODAY).date == SUNDAY
    assert extract_day("sat night lineup", TODAY).date == SATURDAY
    assert extract_day("who sat out last night", TODAY).date == (
        TODAY - timedelta(days=1)).isoformat()  # "sat" is no Saturday; last night is a day
    assert extract_day("the sun is out", TODAY) is None


# --------------------------------------------------------------------------- end to end


@pytest.fixture
async def app(tmp_path: Path) -> Any:
    a = await open_app(tmp_path)
    yield a
    await a.close()


async def test_chat_form_then_a_day_then_another_player(app: Any) -> None:
    chat = Chat(app)
    text = await chat.ask("how has tatum been lately")
    assert "Jayson Tatum" in text and "last 5 games" in text
    text = await chat.ask("and on sunday?")
    assert "Jayson Tatum" in text and "Jan 29" in text and GAMES_LEFT not in text
    text = await chat.ask("ok what about jaylen brown")
    assert "Jaylen Brown" in text and "Jan 29" in text and GAMES_LEFT not in text
    text = await chat.ask("and tomorrow night?")
    assert "Jaylen Brown" in text and "tomorrow" in text and GAMES_LEFT not in text
    assert not chat.has_move_card()


async def test_chat_form_follow_up_with_a_new_name(app: Any) -> None:
    chat = Chat(app)
    await chat.ask("how's embiid been shooting recently")
    text = await chat.ask("cool and jokic?")
    assert "Nikola Jokic" in text and "last 5 games" in text and "Embiid" not in text


async def test_chat_decision_follow_up_for_another_player(app: Any) -> None:
    chat = Chat(app)
    text = await chat.ask("should i sit jaylen brown on friday")
    assert "Jaylen Brown" in text
    text = await chat.ask("how bout butler")
    assert "Jimmy Butler" in text and "Jaylen Brown" not in text
    assert "Sit Jimmy Butler" in text or "Start Jimmy Butler" in text
    assert GAMES_LEFT not in text


async def test_chat_a_player_after_a_lineup_is_a_start_question(app: Any) -> None:
    chat = Chat(app)
    await chat.ask("set my lineup for friday")
    text = await chat.ask("and butler?")
    assert "Jimmy Butler" in text and "Jan 27" in text
    assert "Start Jimmy Butler" in text or "Sit Jimmy Butler" in text


async def test_chat_new_question_after_a_player_is_answered_as_asked(app: Any) -> None:
    chat = Chat(app)
    await chat.ask("how has tatum been lately")
    text = await chat.ask("who's the best pickup at center right now")
    assert "Jayson Tatum" not in text and "last 5 games" not in text
    text = await chat.ask("what can you do?")
    assert "Jayson Tatum" not in text


@pytest.mark.parametrize(("first", "then", "intent", "players", "day", "cats"), [
    ("is brunson playing tomorrow", "and two days later?", Intent.PLAYER_RESEARCH,
     ["Jalen Brunson"], "2023-01-28", []),
    ("who do i start tomorrow", "the day after?", Intent.LINEUP_OPTIMIZATION, [],
     "2023-01-27", []),
    ("should i start brunson tomorrow", "no wait, tatum", Intent.PLAYER_DECISION,
     ["Jayson Tatum"], "2023-01-26", []),
    ("should i start brunson tomorrow", "actually i meant friday", Intent.PLAYER_DECISION,
     ["Jalen Brunson"], "2023-01-27", []),
    ("am i winning in rebounds", "no, i meant assists", Intent.MATCHUP_STATUS, [], None,
     ["AST"]),
])
def test_a_correction_changes_only_what_it_corrects(league: UnderstandingContext, first: str,
                                                    then: str, intent: Intent,
                                                    players: list[str], day: str | None,
                                                    cats: list[str]) -> None:
    _, req = talk(league, first, then)
    assert req.intent == intent
    assert [p.name for p in req.players] == players
    assert (req.day.date if req.day else None) == day
    assert req.categories == cats


def test_their_top_guy_is_about_the_team_just_named(league: UnderstandingContext) -> None:
    _, req = talk(league, "who is on full court press", "their top guy?")
    assert req.intent == Intent.ROSTER
    assert (req.team.kind, req.team.name) == ("other", "Full Court Press")
