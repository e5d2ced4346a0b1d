"""'Is X available' asks whether he can be picked up (whose team he is on), about a league
player or a name that is none; 'need dimes, keep my stars' asks for the matchup's plan aimed at
the category, not a menu or a list (issue 33)."""

from __future__ import annotations

import pytest

from agents.understanding import UnderstandingContext, understand
from agents.understanding.request import Intent


@pytest.mark.parametrize(("text", "found", "missing"), [
    ("is lebron available", ["LeBron James"], []),
    ("are kelly olynyk and malik monk still on waivers", ["Kelly Olynyk", "Malik Monk"], []),
    ("is Lionel Messi available", [], ["Lionel Messi"]),
    ("Serena Williams a free agent?", [], ["Serena Williams"]),
])
def test_available_asks_whose_team(league: UnderstandingContext, text: str, found: list[str],
                                   missing: list[str]) -> None:
    req = understand(text, league)
    assert req.intent == Intent.PLAYER_OWNER and not req.clarify
    assert [p.name for p in req.players if p.resolved] == found
    assert [p.words for p in req.players if p.status == "not_found"] == missing


def test_available_on_a_day_asks_about_his_game(league: UnderstandingContext) -> None:
    assert understand("is lebron available tonight", league).intent == Intent.PLAYER_RESEARCH


@pytest.mark.parametrize(("text", "cats"), [
    ("need dimes, keep my stars", ["AST"]),
    ("help me win rebounds without dropping my core", ["REB"]),
    ("gotta catch up in steals, leave my top players alone", ["STL"]),
    ("i really want more blocks", ["BLK"]),
])
def test_wanting_a_category_is_the_matchup_plan(league: UnderstandingContext, text: str,
                                                cats: list[str]) -> None:
    req = understand(text, league)
    assert (req.intent, req.categories, req.clarify) == (Intent.MATCHUP_ANALYSIS, cats, False)


@pytest.mark.parametrize(("text", "intent"), [
    ("need blocks, who do i stream", Intent.STREAMING),
    ("how many more boards do i need to win rebounds", Intent.CATEGORY_OUTLOOK),
    ("can i still win steals", Intent.CATEGORY_OUTLOOK),
])
def test_a_list_or_a_question_about_a_category_stays_one(league: UnderstandingContext,
                                                         text: str, intent: Intent) -> None:
    assert understand(text, league).intent == intent


@pytest.mark.parametrize(("text", "intent"), [
    ("what seed am i right now", Intent.STANDINGS),
    ("if the playoffs started today where would i be seeded", Intent.STANDINGS),
    ("what seed am i projected to end up with", Intent.PLAYOFF_ODDS),
])
def test_the_seed_held_now_is_the_standings(league: UnderstandingContext, text: str,
                                            intent: Intent) -> None:
    assert understand(text, league).intent == intent
