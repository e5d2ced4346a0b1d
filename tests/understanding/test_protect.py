"""Protection words: the players a member wants kept and "leave my stars alone" are read into
Request.keep / Request.spare_core, and the rest of the message is the request."""

from __future__ import annotations

import pytest

from agents.understanding import UnderstandingContext, understand
from agents.understanding.request import Intent


@pytest.mark.parametrize(("text", "kept"), [
    ("optimize my matchup but keep brunson", ["Jalen Brunson"]),
    ("run my week, just dont drop tatum or jokic", ["Jayson Tatum", "Nikola Jokic"]),
    ("tatum is untouchable, review my matchup", ["Jayson Tatum"]),
    ("find me streamers. hold onto brunson and tatum", ["Jalen Brunson", "Jayson Tatum"]),
    ("drop simmons for coby white but keep brunson", ["Jalen Brunson"]),
])
def test_kept_players_are_protected_not_the_subject(league: UnderstandingContext, text: str,
                                                    kept: list[str]) -> None:
    req = understand(text, league)
    assert [p.name for p in req.keep] == kept
    assert req.intent not in (Intent.PLAYER_DECISION, Intent.PLAYER_RESEARCH)
    assert not any(p.name in kept for p in req.players)


@pytest.mark.parametrize("text", [
    "should i keep brunson", "keep brunson or drop him?", "is brunson playing tonight",
    "should i drop brunson"])
def test_a_question_about_keeping_protects_nobody(league: UnderstandingContext,
                                                  text: str) -> None:
    req = understand(text, league)
    assert req.keep == []
    assert [p.name for p in req.players] == ["Jalen Brunson"]


@pytest.mark.parametrize(("text", "spare"), [
    ("make moves this week but leave my stars alone", True),
    ("stream someone without destroying my team", True),
    ("optimize, but don't gut my roster", True),
    ("nothing drastic, who can i pick up", True),
    ("optimize my matchup", False),
    ("who are my best players", False),
])
def test_spare_core(league: UnderstandingContext, text: str, spare: bool) -> None:
    assert understand(text, league).spare_core is spare


def test_dont_drop_is_no_drop_in_a_move(league: UnderstandingContext) -> None:
    req = understand("pick up coby white, don't drop brunson", league)
    assert req.move is None or req.move.drop is None
    assert [p.name for p in req.keep] == ["Jalen Brunson"]
