"""Runner pieces: model choice, ESPN outage at the wire, LLM-call counting."""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage

from fanvise_eval.runner import (
    EvalConfigError,
    LLMCallCounter,
    make_eval_model,
    open_eval_client,
)


def test_offline_model_is_the_rule_based_one():
    from agents.shared.llm import OfflineChatModel

    assert isinstance(make_eval_model("offline"), OfflineChatModel)


def test_gemini_needs_a_key_and_builds_the_real_client(monkeypatch):
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    with pytest.raises(EvalConfigError, match="GOOGLE_API_KEY"):
        make_eval_model("gemini")
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key-not-real")
    from langchain_google_genai import ChatGoogleGenerativeAI

    model = make_eval_model("gemini")  # built, never called: no network here
    assert isinstance(model, ChatGoogleGenerativeAI)
    assert "test-key-not-real" not in repr(model)
    with pytest.raises(EvalConfigError, match="unknown model"):
        make_eval_model("gpt")


async def test_outage_fails_only_the_chosen_views(tmp_path):
    from fantasy.espn.errors import EspnError

    client = open_eval_client("points", tmp_path / "state.json", None, ["kona_playercard"])
    try:
        league = await client.get_league()
        assert league.team(1).name
        with pytest.raises(EspnError):
            await client.get_player_cards([league.team(1).roster[0].player.id])
    finally:
        await client.aclose()
    client = open_eval_client("categories", tmp_path / "s2.json", None)
    try:
        cards = await client.get_player_cards([4277956])
        assert cards[0].injury_status == "OUT"
    finally:
        await client.aclose()


async def test_llm_call_counter_counts_model_calls():
    model = make_eval_model("offline")
    counter = LLMCallCounter()
    model.callbacks = [counter]
    await model.bind_tools([]).ainvoke([HumanMessage(content="help")])
    await model.ainvoke([HumanMessage(content="hello")])
    assert counter.calls == 2


def test_cases_with_earlier_moves_or_outages_get_their_own_runtime(tmp_path):
    from fanvise_eval.dataset import Case
    from fanvise_eval.runner import SuiteContext

    ctx = SuiteContext("offline", tmp_path)
    plain = Case(id="a", category="x", risk="low", prompt="hi", expect={})
    moved = Case(id="b", category="x", risk="low", prompt="hi", expect={},
                 demo_moves=[{"drop": "T.J. McConnell", "add": "Alex Caruso"}])
    down = Case(id="c", category="x", risk="low", prompt="hi", expect={},
                espn_outage=["*"])
    assert not ctx._own_env(plain)
    assert ctx._own_env(moved) and ctx._own_env(down)
    assert SuiteContext("offline", tmp_path, isolate="case")._own_env(plain)
