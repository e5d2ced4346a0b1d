"""An NBA team named with no player ("is the celtics game tonight") gets that team's games,
not the member's own team's (agents/answers/info._nba_team_schedule)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conversation.test_conversation_flow import Chat, open_app


@pytest.fixture
async def app(tmp_path: Path) -> Any:
    a = await open_app(tmp_path)
    yield a
    await a.close()


async def test_a_team_on_a_day_and_for_the_week(app: Any) -> None:
    chat = Chat(app)
    text = await chat.ask("do the knicks have a game tmrw??")
    assert "Knicks (NYK) play tomorrow @ BOS" in text and "Jalen Brunson" in text
    assert "Hoop Dreamers" not in text
    text = await chat.ask("how many games do the sixers got left this week")
    assert "76ers (PHL)" in text and "left this matchup" in text
    assert "games left in the matchup window" not in text


async def test_a_team_with_no_game_names_its_next(app: Any) -> None:
    text = await Chat(app).ask("celtics playing tonight?")
    assert "Celtics (BOS) have no game tonight" in text and "Next game:" in text
