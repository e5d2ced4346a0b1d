"""Understanding reads the details an answer needs once, into the Request: the how-to topic,
a thank-you, injured players included, the injury statuses asked, the settings line asked,
and whether a player was named in this message or carried over from the previous one. The
answers read these fields, never the message again."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agents.understanding import UnderstandingContext, understand


@pytest.mark.parametrize(("text", "topic"), [
    ("how do i link my team", "link"),
    ("where do i hook up my real league", "link"),
    ("how do i approve a move", "approve"),
    ("how can i turn off the daily post", "daily"),
])
def test_help_topic(league: UnderstandingContext, text: str, topic: str) -> None:
    assert understand(text, league).help_topics[:1] == [topic]


def test_plain_help_and_thanks(league: UnderstandingContext) -> None:
    assert understand("what can you do", league).help_topics == []
    assert understand("thx bro", league).small_talk == "thanks"
    assert understand("ok cool", league).small_talk == "ack"
    assert understand("ok is lebron out", league).small_talk is None


@pytest.mark.parametrize("text", ["best free agents including injured guys",
                                  "free agents even injured ones", "any stash candidates"])
def test_include_injured(league: UnderstandingContext, text: str) -> None:
    assert understand(text, league).include_injured
    assert not understand("best free agents right now", league).include_injured


@pytest.mark.parametrize(("text", "statuses"), [
    ("who on my team is out", {"OUT", "INJURY_RESERVE"}),
    ("which of my guys are dtd", {"DAY_TO_DAY"}),
    ("anyone questionable on my roster", {"QUESTIONABLE"}),
])
def test_statuses_asked(league: UnderstandingContext, text: str, statuses: set[str]) -> None:
    req = understand(text, league)
    assert statuses <= set(req.statuses)
    assert "QUESTIONABLE" not in req.statuses or "questionable" in text


@pytest.mark.parametrize(("text", "setting"), [
    ("whats our trade deadline", "Trade deadline"),
    ("how many adds do i have left", "Acquisitions"),
    ("where am i in the waiver order", "Waiver order"),
    ("when do playoffs start", "Playoffs"),
    ("what are the league settings", None),
])
def test_setting_asked(league: UnderstandingContext, text: str, setting: str | None) -> None:
    assert understand(text, league).setting == setting


def test_a_player_carried_from_the_last_turn_is_marked(league: UnderstandingContext) -> None:
    first = understand("is brunson playing tonight", league)
    assert first.players and not first.players[0].carried
    again = understand("and tmrw?", replace(league, last=first))
    assert again.players and again.players[0].carried  # carried over, not asked about
    for text in ("is he hurt", "and him?"):  # pointed at in this message
        him = understand(text, replace(league, last=first))
        assert him.players and not him.players[0].carried, text
    other = understand("what about tatum", replace(league, last=first))
    assert other.players and not any(p.carried for p in other.players)


def test_about_me(league: UnderstandingContext) -> None:
    assert understand("what did i pick up this week", league).about_me
    assert not understand("has anyone made a trade", league).about_me
