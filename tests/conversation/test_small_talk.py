"""A thank-you or an "ok" gets a short reply, not the whole help text, and the follow-up
after it still leans on the question before it (agents/understanding/details.small_talk,
agents/answers/help.acknowledgement, agents/supervisor/graph._small_talk)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agents.answers.help import acknowledgement as reply_to
from agents.understanding.details import small_talk
from tests.conversation.test_conversation_flow import Chat, open_app


@pytest.fixture
async def app(tmp_path: Path) -> Any:
    a = await open_app(tmp_path)
    yield a
    await a.close()


def acknowledgement(text: str) -> str | None:
    """The reply to a message as understanding reads it (Request.small_talk)."""
    return reply_to(small_talk(text))


@pytest.mark.parametrize("text", ["thx!!", "ok", "Thank you so much", "cool, got it",
                                  "appreciate it man", "ty 👍", "k sounds good"])
def test_acknowledgements_get_a_short_reply(text: str) -> None:
    reply = acknowledgement(text)
    assert reply is not None and "help" in reply and len(reply) < 160


def test_only_a_thank_you_is_welcomed() -> None:
    assert acknowledgement("thx bro").startswith("You're welcome")
    assert not acknowledgement("ok man").startswith("You're welcome")


@pytest.mark.parametrize("text", ["help", "thanks, now who do i start", "ok is lebron out",
                                  "what can you do", "cool players to pick up?", ""])
def test_questions_are_not_acknowledgements(text: str) -> None:
    assert acknowledgement(text) is None


async def test_thanks_then_a_follow_up_keeps_the_player(app: Any) -> None:
    chat = Chat(app)
    first = await chat.ask("is kyrie good to go tonight")
    assert "Kyrie Irving" in first
    thanks = await chat.ask("sweet thx")
    assert "welcome" in thanks and "Kyrie" not in thanks and "/lineup" not in thanks
    after = await chat.ask("what about tmrw")
    assert "Kyrie Irving" in after and "tomorrow" in after.lower()
