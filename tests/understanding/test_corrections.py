"""A correction of whom the last question was about asks the same question about the player
corrected to, and about him only: named ("i meant jaylen brown not brunson", "not hayward,
collins") or described by position and injury ("not him, the guard that's hurt") (issue 33)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agents.understanding import UnderstandingContext, understand
from agents.understanding.request import Intent


def _after(league: UnderstandingContext, first: str, second: str):  # noqa: ANN202
    return understand(second, replace(league, last=understand(first, league)))


@pytest.mark.parametrize(("first", "second", "intent", "name"), [
    ("is brunson playing tomorrow", "actually i meant jaylen brown not brunson",
     Intent.PLAYER_RESEARCH, "Jaylen Brown"),
    ("how has collins looked lately", "sorry, meant portis", Intent.PLAYER_FORM,
     "Bobby Portis"),
    ("should i start hayward tonight", "no not hayward, butler", Intent.PLAYER_DECISION,
     "Jimmy Butler"),
    ("is brunson playing tomorrow", "no, i meant brown", Intent.PLAYER_RESEARCH,
     "Jaylen Brown"),   # a surname that is also a word, cued by "meant"
    ("is brunson playing tonight", "not him, the guard that's hurt", Intent.PLAYER_RESEARCH,
     "Jordan Poole"),
    ("should i bench rozier tomorrow", "wrong guy, i meant my big man who's day to day",
     Intent.PLAYER_DECISION, "Jarrett Allen"),
])
def test_the_same_question_about_the_corrected_player(league: UnderstandingContext, first: str,
                                                      second: str, intent: Intent,
                                                      name: str) -> None:
    before = understand(first, league)
    req = _after(league, first, second)
    assert req.intent == intent and not req.clarify
    assert [p.name for p in req.players] == [name]
    assert req.day == before.day


def test_a_description_that_fits_several_players_corrects_nobody(
        league: UnderstandingContext) -> None:
    # three healthy guards on the roster: "the healthy guard" picks no one
    req = _after(league, "is brunson playing tonight", "not him, the other guard")
    assert [p.name for p in req.players] != ["Jordan Poole"]
    assert all(p.name != "Jalen Brunson" for p in req.players)


def test_a_new_player_without_correcting_words_is_a_follow_up(
        league: UnderstandingContext) -> None:
    req = _after(league, "is brunson playing tonight", "what about brown")
    assert [p.name for p in req.players] == ["Jaylen Brown"]


def test_one_of_two_players_picked_by_description(league: UnderstandingContext) -> None:
    req = _after(league, "should i bench jordan poole or terry rozier tomorrow",
                 "actually just the injured one")
    assert [p.name for p in req.players] == ["Jordan Poole"]
    assert req.intent == Intent.PLAYER_DECISION
