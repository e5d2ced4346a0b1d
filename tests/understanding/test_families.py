"""Families of questions the reader composes from cue words and the frame, each in several
wordings (none of them dev-set rows): should I add X, hold or replace a named injured player,
a games filter, the league's acquisition budget and waiver order, moves already made."""

from __future__ import annotations

import pytest

from agents.understanding import UnderstandingContext, understand
from agents.understanding.request import Intent


@pytest.mark.parametrize("text", [
    "should i add zach collins",
    "worth picking up tyus jones?",
    "do i claim naz reid",
    "is it a good idea to grab precious achiuwa",
])
def test_should_i_add_is_a_yes_no_not_a_card(league: UnderstandingContext, text: str) -> None:
    req = understand(text, league)
    assert req.intent == Intent.PLAYER_DECISION and req.action == "add" and req.players


def test_a_named_move_with_both_sides_stays_a_card(league: UnderstandingContext) -> None:
    req = understand("should i drop hayward for zach collins", league)
    assert req.intent == Intent.EXPLICIT_MOVE
    assert req.move is not None and req.move.drop and req.move.add


@pytest.mark.parametrize("text", [
    "hayward is questionable, do i hold or pick someone up",
    "allen is dtd should i keep him or grab a replacement",
    "poole's hurt, wait on him or stream his spot?",
    "brunson banged up, sit tight or grab a backup?",
])
def test_hold_or_replace_an_injured_player(league: UnderstandingContext, text: str) -> None:
    req = understand(text, league)
    assert req.intent == Intent.INJURY_REEVALUATION and len(req.players) == 1


def test_hold_or_drop_is_still_a_decision(league: UnderstandingContext) -> None:
    assert understand("hold or drop hayward", league).intent == Intent.PLAYER_DECISION


@pytest.mark.parametrize(("text", "games", "count"), [
    ("any centers with 3 games left", 3, None),
    ("top 5 forwards with 4 games this week", 4, 5),
    ("free agents who play 4 times this week", 4, None),
    ("any pfs with 2 games left", 2, None),
])
def test_a_number_of_games_is_a_filter(league: UnderstandingContext, text: str, games: int,
                                       count: int | None) -> None:
    req = understand(text, league)
    assert req.intent == Intent.FREE_AGENT_SCAN
    assert (req.min_games, req.count) == (games, count)


def test_games_of_my_own_team_stay_the_schedule(league: UnderstandingContext) -> None:
    assert understand("how many games do i have left this week", league).intent == \
        Intent.SCHEDULE


@pytest.mark.parametrize("text", [
    "how many pickups can i make per week",
    "have i run out of moves",
    "whats the waiver order",
    "who's got top waiver priority",
])
def test_the_leagues_budget_and_waiver_order(league: UnderstandingContext, text: str) -> None:
    assert understand(text, league).intent == Intent.LEAGUE_SETTINGS


@pytest.mark.parametrize("text", [
    "what did the guy im playing pick up",
    "any trades made in the league this week",
    "who has everybody been adding",
])
def test_moves_already_made_are_activity(league: UnderstandingContext, text: str) -> None:
    assert understand(text, league).intent == Intent.LEAGUE_ACTIVITY
