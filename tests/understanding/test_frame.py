"""The compositional frame: the ask, the subject and the time of a message, and answer kinds
that known parts make without a bank utterance for the combination."""

from __future__ import annotations

import pytest

from agents.understanding import UnderstandingContext, understand
from agents.understanding.request import Intent


@pytest.mark.parametrize(("text", "ask", "subject", "time"), [
    ("should i start brunson tonight", "should", "player", "tonight"),
    ("how many games does my opponent have left this week", "how_many", "opponent",
     "rest_of_week"),
    ("when do the celtics play", "when", "nba_team", "now"),
    ("brunson or tatum tomorrow", "compare", "player", "future_day"),
    ("what did i score last week", "status", "my_team", "past_week"),
    ("how did tatum do last night", "status", "player", "past_day"),
    ("why is brunson questionable", "explain", "player", "now"),
    ("who's leading the league", "who", "league", "now"),
    ("what's the trade deadline", "status", "rules", "now"),
    ("is poole worth holding rest of season", "should", "player", "season"),
])
def test_frame_parts(league: UnderstandingContext, text: str, ask: str, subject: str,
                     time: str) -> None:
    req = understand(text, league)
    assert (req.ask, req.subject, req.time) == (ask, subject, time)


@pytest.mark.parametrize(("text", "intent"), [
    # a team's score or games in a week that is over: that matchup's result
    ("how many points did my opponent put up last week", Intent.PAST_MATCHUP),
    ("what did full court press score last week", Intent.PAST_MATCHUP),
    # who did well or badly for a team on a day that is over: that day's box score
    ("how did my guys do on sunday", Intent.TEAM_BOX_SCORE),
])
def test_parts_compose_into_an_answer_kind(league: UnderstandingContext, text: str,
                                           intent: Intent) -> None:
    assert understand(text, league).intent == intent
