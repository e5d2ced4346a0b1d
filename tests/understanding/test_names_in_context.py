"""Names read in context: a shared name is the member's player, then one just discussed, then
the opponent's, then the league's; an invented name is never a real player; the bot's own
mention and chat markup are no names."""

from __future__ import annotations

import pytest

from agents.understanding import UnderstandingContext, understand
from tests.understanding.dialogue import talk


@pytest.mark.parametrize(("text", "name"), [
    ("is allen playing tonight", "Jarrett Allen"),           # Grayson Allen is a free agent
    ("should i bench allen tmrw", "Jarrett Allen"),
    ("jalen good to go?", "Jalen Brunson"),                  # seven Jalens; one is mine
    ("any news on murray", "Keegan Murray"),                 # none mine; my opponent has him
])
def test_shared_name_read_in_roster_order(league: UnderstandingContext, text: str,
                                          name: str) -> None:
    req = understand(text, league)
    assert [p.name for p in req.players] == [name]


def test_just_discussed_beats_the_rest_of_the_league(league: UnderstandingContext) -> None:
    first, then = talk(league, "how is kevin huerter doing", "is kevin playing tomorrow")
    assert [p.name for p in then.players] == ["Kevin Huerter"]


def test_several_in_the_first_tier_stay_a_question(league: UnderstandingContext) -> None:
    (req,) = talk(league, "is kevin playing")
    assert req.players[0].status == "ambiguous"
    assert req.players[0].candidates[-1] == "Kevin Love"    # the free agent comes last


@pytest.mark.parametrize(("text", "words", "offered"), [
    ("is lebron jamison playing tonight", "lebron jamison", "LeBron James"),
    ("how's kevin durand doing", "kevin durand", "Kevin Durant"),
    ("is anthony davies good to go", "anthony davies", "Anthony Davis"),
    ("is jaylen browne out", "jaylen browne", "Jaylen Brown"),
    ("drop ben simmons for devin bookman", "devin bookman", "Devin Booker"),
])
def test_invented_name_is_never_the_real_player(league: UnderstandingContext, text: str,
                                                words: str, offered: str) -> None:
    req = understand(text, league)
    refs = {p.words.lower(): p for p in req.players}
    assert refs[words].status == "not_found"
    assert offered in refs[words].candidates
    assert len(refs[words].candidates) <= 3
    assert offered not in [p.name for p in req.resolved_players()]


@pytest.mark.parametrize("text", [
    "how is jalen brunsen", "is jayson tatem playing", "is lebrun out"])
def test_typo_still_resolves(league: UnderstandingContext, text: str) -> None:
    assert understand(text, league).resolved_players()


@pytest.mark.parametrize("text", [
    "@FanVise is brunson playing", "<@123456789> is brunson playing",
    "hey fanvise, is **brunson** playing?", "<@U02ABC|fanvise> is `brunson` playing",
    "> is brunson playing"])
def test_mentions_and_markup_are_no_names(league: UnderstandingContext, text: str) -> None:
    req = understand(text, league)
    assert [(p.status, p.name) for p in req.players] == [("resolved", "Jalen Brunson")]


def test_mention_alone_is_no_player(league: UnderstandingContext) -> None:
    req = understand("@FanVise how's my matchup looking", league)
    assert req.players == []
