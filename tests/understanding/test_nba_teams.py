"""NBA teams as members name them ("the c's"? no: "the celtics", "golden state", "okc"):
Request.pro_team carries the team, its games are a schedule question, ordinary words that
are also team names ("heat", "magic") need a cue, and follow-ups change only the team. Also
a lineup asked for the whole week is the week's plan, and adds with drops are the plan."""

from __future__ import annotations

import pytest

from agents.understanding import UnderstandingContext
from agents.understanding.entities import extract_pro_team
from agents.understanding.request import Intent
from tests.understanding.dialogue import talk


@pytest.mark.parametrize("text, team", [
    ("when do the mavs play again", "DAL"),
    ("Do the Sixers have a game on friday?", "PHL"),
    ("okc back to back this week?", "OKC"),
    ("lakers vs clippers tonight who plays more", "LAL"),
    ("is the magic game tmrw", "ORL"),
    ("vs the jazz", "UTA"),
])
def test_team_words(text: str, team: str) -> None:
    assert extract_pro_team(text.lower())[0] == team


@pytest.mark.parametrize("text", [
    "this heat wave is killing me", "that was pure magic lol", "i like jazz music",
    "my kings of the waiver wire",
])
def test_team_words_that_are_english_need_a_cue(text: str) -> None:
    assert extract_pro_team(text.lower())[0] is None


@pytest.mark.parametrize("text, team", [
    ("how many games do the bucks have left", "MIL"),
    ("do the Trail Blazers play on sunday", "POR"),
    ("is denver playing tomorrow", "DEN"),
])
def test_a_teams_games_are_a_schedule_question(league: UnderstandingContext, text: str,
                                               team: str) -> None:
    r = talk(league, text)[0]
    assert r.intent == Intent.SCHEDULE and r.pro_team == team and not r.players
    assert not r.clarify


def test_follow_up_changes_the_team_and_keeps_the_day(league: UnderstandingContext) -> None:
    first, other = talk(league, "do the hawks play on thursday", "ok and the spurs")
    assert other.intent == Intent.SCHEDULE and other.pro_team == "SAS"
    assert other.day is not None and other.day.date == first.day.date  # type: ignore[union-attr]


def test_a_team_after_a_player_question_is_about_the_teams_games(
        league: UnderstandingContext) -> None:
    _, team = talk(league, "is tatum good to go tonight", "how about the nets")
    assert team.intent == Intent.SCHEDULE and team.pro_team == "BKN" and not team.players


def test_a_players_team_city_is_the_player(league: UnderstandingContext) -> None:
    r = talk(league, "should i start washington tmrw")[0]
    assert r.pro_team is None and [p.name for p in r.players] == ["P.J. Washington"]


@pytest.mark.parametrize("text", [
    "set my lineup for the rest of the week",
    "best lineup for the whole matchup pls",
])
def test_a_lineup_for_the_week_is_the_weeks_plan(league: UnderstandingContext,
                                                 text: str) -> None:
    assert talk(league, text)[0].intent == Intent.MATCHUP_ANALYSIS


def test_adds_and_drops_asked_as_who_are_the_plan(league: UnderstandingContext) -> None:
    r = talk(league, "who do i drop and who do i add for this matchup")[0]
    assert r.intent == Intent.MATCHUP_ANALYSIS
