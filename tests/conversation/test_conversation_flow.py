"""Conversations as members have them, end to end through ChatCore + the real runtime
(demo league, offline model, SQLite checkpoints, real LangGraph graphs): the answer a
question asks for (no move card unless moves are asked for), not-found names, follow-ups
that carry context, offers under an answer (buttons, numbers in the console) that run the
offered request, stale offers refused, and slash commands that build their Request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.core.app import FanViseApp
from bot.core.models import ThreadRef, UserRef
from bot.settings import Settings
from tests.bot.harness.links import link
from tests.reliability.surface import FaultySurface

USER = UserRef("discord", "100", "Alice")


async def open_app(data_dir: Path, variant: str = "points") -> FanViseApp:
    """The demo app with Alice linked to the demo's own team (Hoop Dreamers), as a member
    must be before asking about her team."""
    app = await FanViseApp.open(
        Settings(data_dir=data_dir, llm_per_minute=1e6, llm_burst=1e6,
                 slack_updates_per_minute=1e6, demo_variant=variant),
        edit_interval=0.0)
    await link(app.core, USER.platform, "G1", USER.user_id)
    return app


@pytest.fixture
async def app(tmp_path: Path) -> Any:
    a = await open_app(tmp_path)
    yield a
    await a.close()


class Chat:
    """One thread of a member talking to FanVise; `said()` is the text of the last turn."""

    def __init__(self, app: FanViseApp, name: str = "T1") -> None:
        self.app = app
        self.surface = FaultySurface()
        self.thread = ThreadRef("discord", "G1", "C1", name)
        self._seen = 0

    async def ask(self, text: str) -> str:
        self._seen = len(self.surface.order)
        await self.app.core.handle_message(self.surface, self.thread, USER, text)
        return self.said()

    async def click(self, custom_id: str, mid: str) -> str:
        self._seen = len(self.surface.order)
        await self.app.core.handle_click(self.surface, self.thread, USER, custom_id, mid)
        return self.said()

    def new_messages(self) -> list[Any]:
        return [self.surface.posts[m] for m in self.surface.order[self._seen:]]

    def said(self) -> str:
        parts = []
        for msg in self.new_messages():
            parts.append(msg.text)
            for c in msg.cards:
                parts += [c.title, c.text] + [f"{a}: {b}" for a, b in c.fields]
        return "\n".join(parts)

    def cards_now(self) -> list[Any]:
        return [c for msg in self.new_messages() for c in msg.cards]

    def has_move_card(self) -> bool:
        return any(b.custom_id.startswith("fv:approve") for c in self.cards_now()
                   for b in c.buttons)

    def offers(self) -> list[tuple[str, str, str]]:
        """(message id, custom id, label) of the offer buttons of the last turn."""
        out = []
        for mid in self.surface.order[self._seen:]:
            for c in self.surface.posts[mid].cards:
                out += [(mid, b.custom_id, b.label) for b in c.buttons
                        if b.custom_id.startswith("fv:do:")]
        return out


async def test_matchup_status_is_an_answer_with_an_offer_to_look_for_moves(app) -> None:
    chat = Chat(app)
    text = await chat.ask("whats the score of my matchup")
    assert not chat.has_move_card()
    assert "Hoop Dreamers" in text
    offers = chat.offers()
    assert offers, text
    mid, cid, label = next(o for o in offers if "moves" in o[2].lower())
    await chat.click(cid, mid)
    assert chat.has_move_card()


async def test_invented_player_gets_not_found_and_nothing_else(app) -> None:
    chat = Chat(app)
    text = await chat.ask("is marcus thornbury back from his ankle thing")
    assert "marcus thornbury" in text.lower()
    assert "can't find" in text.lower()
    assert not chat.has_move_card()
    low = text.lower()
    assert "status" not in low.split("can't find")[0]
    assert "active" not in low and "recommendation" not in low
    await chat.ask("pick up tyreke maldonado for me")
    assert not chat.has_move_card()
    assert "tyreke maldonado" in chat.said().lower()


async def test_lowercase_names_and_nicknames_reach_the_player(app) -> None:
    chat = Chat(app)
    text = await chat.ask("brunson playing tonight?")
    assert "Jalen Brunson" in text
    assert "which player" not in text.lower()
    text = await chat.ask("any news on KD")
    assert "Kevin Durant" in text


async def test_follow_up_what_about_tomorrow_keeps_the_player(app) -> None:
    chat = Chat(app)
    await chat.ask("is brunson playing tonight?")
    text = await chat.ask("what about tomorrow?")
    assert "Jalen Brunson" in text
    assert not chat.has_move_card()


async def test_free_agent_list_then_add_the_top_one_is_that_move(app) -> None:
    chat = Chat(app)
    text = await chat.ask("best free agents right now?")
    assert not chat.has_move_card()
    first = next(line for line in text.splitlines() if line.strip().startswith("1."))
    await chat.ask("ok add the top one")
    assert chat.has_move_card(), chat.said()
    top = first.split("1.", 1)[1].strip().split(" (")[0]
    labels = " ".join(f"{c.title} {c.text} {c.fields}" for c in chat.cards_now())
    assert top in labels


async def test_help_words_inside_a_request_do_not_get_the_help_text(app) -> None:
    chat = Chat(app)
    await chat.ask("Review my matchup and help me optimize for this week without "
                   "destroying my team.")
    assert chat.has_move_card()


async def test_out_of_scope_gets_a_polite_answer_without_league_data(app) -> None:
    chat = Chat(app)
    text = await chat.ask("whats the weather in nyc")
    assert not chat.has_move_card()
    assert "Hoop Dreamers" not in text
    assert "fantasy" in text.lower()


async def test_a_stale_offer_is_refused(app) -> None:
    chat = Chat(app)
    await chat.ask("am i winning this week?")
    old = chat.offers()
    assert old
    await chat.ask("who should i start tomorrow")
    mid, cid, _ = old[0]
    await chat.click(cid, mid)
    assert any("earlier answer" in t for t in chat.surface.ephemeral_for(USER.user_id))


async def test_player_command_builds_its_request_directly(app) -> None:
    chat = Chat(app)
    await app.core.handle_command(chat.surface, chat.thread, USER, "player",
                                  {"text": "Jordan Poole"})
    text = chat.said()
    assert "Jordan Poole" in text
    assert "OUT" in text.upper()
