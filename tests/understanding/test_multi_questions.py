"""Two questions in one message get one reply answering both, in the order asked; a message
that is one question (an explicit move, a question asked twice over) stays whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.understanding import UnderstandingContext, understand
from agents.understanding.request import Intent
from tests.conversation.test_conversation_flow import Chat, open_app


@pytest.mark.parametrize(("text", "intents"), [
    ("am i ahead and whos hurt", [Intent.MATCHUP_STATUS, Intent.INJURY_REEVALUATION]),
    ("days remaining + whats the margin", [Intent.SCHEDULE, Intent.MATCHUP_STATUS]),
    ("who has lebron and when is the trade deadline",
     [Intent.PLAYER_OWNER, Intent.LEAGUE_SETTINGS]),
    ("is brunson playing tonight? what about tatum",
     [Intent.PLAYER_RESEARCH, Intent.PLAYER_RESEARCH]),
])
def test_questions_read_in_order(league: UnderstandingContext, text: str,
                                 intents: list[Intent]) -> None:
    req = understand(text, league)
    assert [req.intent, *(m.intent for m in req.more)] == intents


@pytest.mark.parametrize("text", [
    "drop simmons and pick up coby white",
    "who do i drop and who do i add for this matchup",
    "hayward questionable again?? whats the injury",
    "who should I stream this week? I'm down in assists and steals.",
])
def test_one_question_stays_whole(league: UnderstandingContext, text: str) -> None:
    assert understand(text, league).more == []


async def test_both_answers_in_one_reply(tmp_path: Path) -> None:
    app = await open_app(tmp_path)
    try:
        text = await Chat(app).ask("am i ahead and who's hurt on my team")
    finally:
        await app.close()
    score = text.find("Full Court Press**: you're")
    hurt = text.find("is OUT")
    assert 0 <= score < hurt, text


async def test_a_lineup_asked_second_is_answered_after_the_first(tmp_path: Path) -> None:
    """The lineup of the second question comes from the optimizer run, after the score."""
    app = await open_app(tmp_path)
    try:
        text = await Chat(app).ask("am i ahead, and who should i start on the 27th")
    finally:
        await app.close()
    score = text.find("Full Court Press**: you're")
    lineup = text.find("Fri Jan 27")
    assert 0 <= score < lineup, text
    assert "ask me that on its own" not in text


async def test_a_question_after_a_lineup_is_answered_after_the_lineup(tmp_path: Path) -> None:
    app = await open_app(tmp_path)
    try:
        text = await Chat(app).ask("who do i start tomorrow and who's hurt on my team")
    finally:
        await app.close()
    lineup = text.find("Thu Jan 26")
    hurt = text.find("is OUT")
    assert 0 <= lineup < hurt, text


async def test_a_second_optimizer_question_gets_its_own_run(tmp_path: Path) -> None:
    """A move and then a lineup in one message: the move's card, then the day's lineup (two
    runs of the optimizer, in the order asked), nothing left 'to ask on its own'."""
    app = await open_app(tmp_path)
    try:
        text = await Chat(app).ask("swap portis out for monk, and then who do i start tomorrow")
    finally:
        await app.close()
    move = text.find("Drop Bobby Portis, add Malik Monk")
    lineup = text.find("Daily lineup for Hoop Dreamers (Thu Jan 26)")
    assert 0 <= move < lineup, text
    assert "on its own" not in text
