"""Days that are over: yesterday / last night / "last <weekday>" are read as past dates
(entities.extract_day), and a form question about one leads with that day's game."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from agents.understanding.entities import extract_day
from tests.conversation.test_conversation_flow import Chat, open_app

WED = date(2023, 1, 25)  # the demo league's today is a Wednesday


@pytest.mark.parametrize(("text", "expected"), [
    ("what did jokic put up yday", "2023-01-24"),
    ("box score from last nite?", "2023-01-24"),
    ("how was his game yesterday", "2023-01-24"),
    ("how'd he look last sunday", "2023-01-22"),
    ("numbers from the previous friday", "2023-01-20"),
    ("what about last wednesday", "2023-01-18"),  # today's weekday: a week ago
    ("is he good to go friday", "2023-01-27"),    # no "last": the coming one
])
def test_past_and_coming_days(text: str, expected: str) -> None:
    day = extract_day(text, WED)
    assert day is not None and day.date == expected


def test_tonight_is_still_today() -> None:
    assert extract_day("who plays tonight", WED).date == "2023-01-25"


@pytest.fixture
async def app(tmp_path: Path) -> Any:
    a = await open_app(tmp_path)
    yield a
    await a.close()


async def test_how_did_he_do_last_night_leads_with_that_game(app: Any) -> None:
    chat = Chat(app)
    text = await chat.ask("yo how'd lebron do yday")
    first = next(line for line in text.splitlines() if "(Offline mode" not in line)
    assert "LeBron James" in first and "Jan 24" in first and "pts" in first
