"""Understanding on the demo league: entities, names as members write them, follow-ups, the
router's disk cache, and the model route over a fake Gemini endpoint (the only fake)."""

from __future__ import annotations

import asyncio
import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.answers.types import ListedPlayer
from agents.shared.deps import AgentDeps
from agents.shared.llm import OfflineChatModel, gemini_chat
from agents.understanding import UnderstandingContext, understand, understand_with_model
from agents.understanding.entities import extract_day, extract_entities
from agents.understanding.league_context import understanding_context
from agents.understanding.request import Intent, Request
from agents.understanding.router import SemanticRouter, load_bank
from agents.understanding.vectors import STORE_NAME
from fantasy.demo import open_demo_client
from storage.minilm import MiniLMEncoder, default_encoder
from tests.agents.test_gemini_wire import FakeGemini

TODAY = date(2023, 1, 25)  # a Wednesday, the demo league's today


@pytest.fixture(scope="module")
def ctx() -> UnderstandingContext:
    deps = AgentDeps.for_client(open_demo_client("points"), OfflineChatModel())
    return asyncio.run(understanding_context(deps))


def test_days_as_members_write_them() -> None:
    tomorrow = (TODAY + timedelta(days=1)).isoformat()
    assert extract_day("lineup for tmrw?", TODAY).date == tomorrow
    assert extract_day("who sits tomorow", TODAY).date == tomorrow
    assert extract_day("brunson tonight?", TODAY).date == TODAY.isoformat()
    assert extract_day("11 active thursday who sits", TODAY).date == "2023-01-26"
    assert extract_day("what about monday", TODAY).date == "2023-01-30"
    assert extract_day("lineup for 2023-01-27", TODAY).date == "2023-01-27"
    week = extract_day("am i winning this week", TODAY)
    assert week is not None and week.week and week.date is None
    assert extract_day("how is he doing", TODAY) is None


async def test_entities_of_a_rambling_message(ctx: UnderstandingContext) -> None:
    e = extract_entities("ok so im getting smoked in dimes and boards, need a C who can "
                         "block shots, last 5 games matter most", ctx)
    assert e.categories[:2] == ["AST", "REB"] and "BLK" in e.categories
    assert e.position == "C"
    assert e.count == 5


async def test_explicit_move_and_names(ctx: UnderstandingContext) -> None:
    r = understand("drop simmons and pick up coby white", ctx)
    assert r.intent == Intent.EXPLICIT_MOVE
    assert r.move is not None and r.move.drop is not None and r.move.add is not None
    assert (r.move.drop.name, r.move.add.name) == ("Ben Simmons", "Coby White")
    r = understand("swap portis for goebert?", ctx)
    assert r.move is not None and r.move.add is not None and r.move.add.name == "Rudy Gobert"


@pytest.mark.parametrize(("text", "name"), [
    ("brunson playing tonight?", "Jalen Brunson"),
    ("any news on KD", "Kevin Durant"),
    ("steph healthy?", "Stephen Curry"),
    ("whens goebert coming back", "Rudy Gobert"),
    ("lu dort injry", "Luguentz Dort"),
    ("is jokic ok", "Nikola Jokic"),
])
async def test_names_as_members_write_them(ctx: UnderstandingContext, text: str,
                                           name: str) -> None:
    r = understand(text, ctx)
    assert [p.name for p in r.resolved_players()] == [name]
    assert r.intent == Intent.PLAYER_RESEARCH


async def test_invented_names_are_not_found(ctx: UnderstandingContext) -> None:
    r = understand("is marcus thornbury back from his ankle thing", ctx)
    assert [(p.words.lower(), p.status) for p in r.players] == [("marcus thornbury",
                                                                 "not_found")]
    r = understand("pick up tyreke maldonado for me", ctx)
    assert r.unresolved_players() and not r.resolved_players()


async def test_followups_carry_player_day_and_list(ctx: UnderstandingContext) -> None:
    first = understand("is brunson playing tonight?", ctx)
    ctx2 = UnderstandingContext(resolver=ctx.resolver, today=ctx.today, scoring=ctx.scoring,
                                last=first)
    r = understand("what about tomorrow?", ctx2)
    assert r.followup and r.intent == Intent.PLAYER_RESEARCH
    assert [p.name for p in r.players] == ["Jalen Brunson"]
    assert r.day is not None and r.day.date == (ctx.today + timedelta(days=1)).isoformat()

    listed = [ListedPlayer(player_id=4395651, name="Coby White"),
              ListedPlayer(player_id=3907387, name="Ben Simmons")]
    fa = understand("best free agents right now?", ctx)
    ctx3 = UnderstandingContext(resolver=ctx.resolver, today=ctx.today, last=fa,
                                last_list=listed)
    r = understand("ok add the top one", ctx3)
    assert r.intent == Intent.EXPLICIT_MOVE
    assert r.move is not None and r.move.add is not None and r.move.add.name == "Coby White"
    r = understand("grab the second guy", ctx3)
    assert r.move is not None and r.move.add is not None and r.move.add.player_id == 3907387

    stream = understand("need blocks, who do i stream", ctx)
    ctx4 = UnderstandingContext(resolver=ctx.resolver, today=ctx.today, last=stream)
    r = understand("and for steals?", ctx4)
    assert r.intent == Intent.STREAMING and r.categories == ["STL"]


async def test_help_words_do_not_make_help(ctx: UnderstandingContext) -> None:
    assert understand("Review my matchup and help me optimize for this week without "
                      "destroying my team.", ctx).intent == Intent.MATCHUP_ANALYSIS
    assert understand("help me find a center on waivers", ctx).intent == Intent.FREE_AGENT_SCAN
    assert understand("can you help me figure out who to start tomorrow",
                      ctx).intent == Intent.LINEUP_OPTIMIZATION
    assert understand("how do i approve a move?", ctx).intent == Intent.HELP


async def test_out_of_scope_and_gibberish(ctx: UnderstandingContext) -> None:
    assert understand("whats the weather in nyc", ctx).intent == Intent.OUT_OF_SCOPE
    r = understand("qwpoe zmx", ctx)  # read as an unknown name: "I can't find ..."
    assert r.clarify or r.intent == Intent.OUT_OF_SCOPE or (
        r.unresolved_players() and not r.resolved_players())
    r = understand("asdf", ctx)
    assert r.clarify or r.intent in (Intent.OUT_OF_SCOPE, Intent.HELP)


class CountingEncoder(MiniLMEncoder):
    """The real MiniLM encoder, counting how many texts it embedded."""

    def __init__(self) -> None:
        super().__init__()
        self.texts = 0

    def encode(self, texts: Any, batch_size: int = 32) -> np.ndarray:
        self.texts += len(texts)
        return default_encoder().encode(texts, batch_size)


def test_router_caches_bank_vectors_by_hash(tmp_path: Path) -> None:
    bank = load_bank()[:40]
    enc = CountingEncoder()
    first = SemanticRouter(bank, enc, cache=tmp_path)
    first.load()
    assert enc.texts == 40
    assert (tmp_path / STORE_NAME).is_file()
    enc2 = CountingEncoder()
    again = SemanticRouter(bank, enc2, cache=tmp_path)
    again.load()
    assert enc2.texts == 0  # loaded from disk
    changed = SemanticRouter([*bank[:39], bank[0][:1] + ("a line new to the bank",)], enc2,
                             cache=tmp_path)
    assert changed.hash != first.hash
    assert changed.to_embed() == 1
    changed.load()
    assert enc2.texts == 1  # only the new line: the other 39 come from the store
    assert np.allclose(changed._vectors[:39], first._vectors[:39])


def _gemini_reply(reading: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"text": json.dumps(reading)}]


async def test_model_route_makes_one_structured_call_and_routes(ctx: UnderstandingContext
                                                                ) -> None:
    fake = FakeGemini([_gemini_reply({"intent": "player_decision", "players": ["booker"],
                                      "team": "mine", "confidence": 0.93})])
    try:
        model = gemini_chat(model="gemini-2.5-flash", google_api_key="k-test",
                            base_url=fake.url, max_retries=0)
        r = await understand_with_model("thinking about benching booker tmrw", ctx, model)
    finally:
        fake.close()
    assert len(fake.requests) == 1
    body = fake.requests[0][2]
    gen = body.get("generationConfig") or body.get("generation_config") or {}
    assert "response_mime_type" in json.dumps(gen) or "responseMimeType" in json.dumps(gen)
    assert r.source == "model" and r.intent == Intent.PLAYER_DECISION
    assert [p.name for p in r.resolved_players()] == ["Devin Booker"]
    assert r.day is not None and r.day.word == "tmrw"


async def test_model_route_falls_back_offline_on_errors(ctx: UnderstandingContext) -> None:
    fake = FakeGemini([], status=500)
    try:
        model = gemini_chat(model="gemini-2.5-flash", google_api_key="k-test",
                            base_url=fake.url, max_retries=0)
        r = await understand_with_model("brunson playing tonight?", ctx, model)
    finally:
        fake.close()
    assert fake.requests  # the call was made
    assert r.source == "semantic" and r.intent == Intent.PLAYER_RESEARCH
    assert Request.model_validate(r.model_dump(mode="json")) == r
