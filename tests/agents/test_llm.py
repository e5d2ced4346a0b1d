"""Model factory, intent classification and the offline rule-based chat model."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool

from agents.shared.llm import (
    OFFLINE_NOTE,
    OfflineChatModel,
    classify_intent,
    extract_categories,
    extract_day,
    extract_position,
    find_player,
    is_offline,
    make_model,
    render_tool_result,
)
from fantasy.demo.league import load_base


@pytest.fixture(scope="module")
def names() -> list[str]:
    return [e["player"]["fullName"] for e in load_base()["players"].values()]


@pytest.mark.parametrize(("text", "intent", "player"), [
    ("hello", "help", None),
    ("Hi!", "help", None),
    ("help", "help", None),
    ("what can you do?", "help", None),
    ("Is Jalen Brunson playing tonight?", "player_research", "Jalen Brunson"),
    ("how is jalen brunsen doing", "player_research", "Jalen Brunson"),
    ("Any news on Brunson?", "player_research", "Jalen Brunson"),
    ("What's the latest on Zxqwe Blorpington?", "player_research", None),
    ("Review my matchup this week and suggest moves", "matchup_analysis", None),
    ("Optimize my team", "matchup_analysis", None),
    ("I need a streamer for AST and STL", "streaming", None),
    ("Jarrett Allen is day-to-day, should I hold him or stream his spot?",
     "injury_reevaluation", "Jarrett Allen"),
    ("re-evaluate my injured players", "injury_reevaluation", None),
    ("I have 11 players active Thursday, who sits?", "lineup_optimization", None),
    ("Set my lineup for tomorrow", "lineup_optimization", None),
    ("Best free agent centers?", "free_agent_scan", None),
    ("Who is on waivers?", "free_agent_scan", None),
    ("Who will win the title?", "general_advice", None),
    ("Should I trade Jaylen Brown for Trae Young?", "general_advice", "Jaylen Brown"),
])
def test_classify_intent(names: list[str], text: str, intent: str, player: str | None) -> None:
    assert classify_intent(text, names) == (intent, player)


def test_classify_without_names_and_helpers() -> None:
    assert classify_intent("Is Jalen Brunson playing?", []) == ("player_research", None)
    assert find_player("the quick brown fox", ["Jalen Brunson"]) is None
    assert extract_categories("stream for assists and steals") == ["AST", "STL"]
    assert extract_categories("need 3PM, FG% and blocks") == ["BLK", "3PM", "FG%"]
    assert extract_day("11 players active Thursday") == "thursday"
    assert extract_day("lineup for 2023-01-27") == "2023-01-27"
    assert extract_day("who plays tonight") == "today"
    assert extract_day("who sits") is None
    assert extract_position("best free agent centers") == "C"
    assert extract_position("need a PG") == "PG"


def test_make_model_offline_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    m = make_model(player_names=["Jalen Brunson"])
    assert isinstance(m, OfflineChatModel) and is_offline(m) and m.player_names == ["Jalen Brunson"]


def test_make_model_gemini_with_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from langchain_google_genai import ChatGoogleGenerativeAI

    secret = "AIzaFAKEKEY-not-real-0123456789"
    monkeypatch.setenv("GOOGLE_API_KEY", secret)
    monkeypatch.setenv("FANVISE_GEMINI_MODEL", "gemini-2.5-flash-lite")
    m = make_model()
    assert isinstance(m, ChatGoogleGenerativeAI) and not is_offline(m)
    assert m.model.endswith("gemini-2.5-flash-lite") and m.max_retries == 4
    assert secret not in repr(m) and secret not in str(m)
    m2 = make_model({"google_api_key": secret, "gemini_model": "gemini-2.5-pro"})
    assert m2.model.endswith("gemini-2.5-pro")
    assert m.bind_tools([lookup]) is not None


@tool
def get_player_status(player_name: str) -> dict:
    """Player status."""
    return {}


@tool
def get_player_news(player_name: str, limit: int = 5) -> dict:
    """Player news."""
    return {}


@tool
def lookup(q: str) -> str:
    """Look up."""
    return q


def test_offline_model_calls_bound_tools_then_answers(names: list[str]) -> None:
    model = OfflineChatModel(player_names=names)
    bound = model.bind_tools([get_player_status, get_player_news])
    q = [SystemMessage("sys"), HumanMessage("Is Jalen Brunson playing tonight?")]
    first = bound.invoke(q)
    assert [c["name"] for c in first.tool_calls] == ["get_player_status", "get_player_news"]
    assert first.tool_calls[0]["args"] == {"player_name": "Jalen Brunson"}
    second = bound.invoke(q)
    ids = [c["id"] for c in first.tool_calls + second.tool_calls]
    assert len(set(ids)) == 4
    status = {"status": "FOUND", "name": "Jalen Brunson", "team": "NYK",
              "positions": ["PG", "SG"], "injury_status": "QUESTIONABLE",
              "expected_return": None, "fantasy_team": "Hoop Dreamers", "on_my_team": True,
              "per_game": {"PTS": 24.1}}
    news = {"player": {"name": "Jalen Brunson"}, "items": [
        {"published_at": "2023-01-24T10:00:00", "title": "Brunson questionable (ankle)",
         "source": "rotowire", "suspicious": False}]}
    msgs = [*q, first,
            ToolMessage(json.dumps(status), tool_call_id=first.tool_calls[0]["id"],
                        name="get_player_status"),
            ToolMessage(json.dumps(news), tool_call_id=first.tool_calls[1]["id"],
                        name="get_player_news")]
    answer = bound.invoke(msgs)
    assert not answer.tool_calls
    assert answer.content.count(OFFLINE_NOTE) == 1
    assert "status QUESTIONABLE" in answer.content and "Brunson questionable (ankle)" in answer.content


def test_offline_model_only_uses_bound_tools(names: list[str]) -> None:
    model = OfflineChatModel(player_names=names)
    out = model.bind_tools([lookup]).invoke([HumanMessage("Is Jalen Brunson playing?")])
    assert not out.tool_calls and OFFLINE_NOTE in out.content
    helped = model.invoke([HumanMessage("hello")])
    assert "Review my matchup" in helped.content and helped.content.count(OFFLINE_NOTE) == 1


def test_offline_never_invents_unknown_player(names: list[str]) -> None:
    model = OfflineChatModel(player_names=names).bind_tools([get_player_status])
    q = [HumanMessage("What's the latest on Zxqwe Blorpington?")]
    first = model.invoke(q)
    assert first.tool_calls[0]["args"] == {"player_name": "Zxqwe Blorpington"}
    nf = {"status": "NOT_FOUND", "query": "Zxqwe Blorpington", "suggestions": [],
          "message": "No player"}
    ans = model.invoke([*q, first, ToolMessage(json.dumps(nf), name="get_player_status",
                                               tool_call_id=first.tool_calls[0]["id"])])
    assert "couldn't find a player named 'Zxqwe Blorpington'" in ans.content
    assert "status" not in ans.content.split("\n", 1)[1].lower().replace("won't", "")


def test_render_tool_results() -> None:
    assert "Did you mean: Jalen Brunson" in render_tool_result(
        "get_player_status", {"status": "NOT_FOUND", "query": "Jalen Brunsn",
                              "suggestions": ["Jalen Brunson"]})
    assert render_tool_result("get_free_agents", {"error": "ESPN is unavailable: 503"}) \
        .startswith("I couldn't get free agents: ESPN is unavailable")
    fas = {"target_categories": ["AST"], "players": [
        {"name": "Tyus Jones", "team": "MEM", "positions": ["PG"], "games_left": 3,
         "per_game": {"AST": 5.5}}]}
    assert "1. Tyus Jones (MEM, PG) - 3 games left, AST 5.5/g" in render_tool_result(
        "get_free_agents", fas)
    lineup = {"weekday": "Thursday", "date": "2023-01-26", "players_with_games": 11,
              "starters": [{"slot": "PG", "name": "A"}],
              "bench": [{"name": "B", "reason": "lower value than starters"},
                        {"name": "C", "reason": "no game"}]}
    text = render_tool_result("compose_daily_lineup", lineup)
    assert "11 players with a game" in text and "Sit: B (lower value than starters)" in text
    assert "C (" not in text


async def test_offline_model_async(names: list[str]) -> None:
    model = OfflineChatModel(player_names=names).bind_tools([get_player_status])
    out = await model.ainvoke([AIMessage("earlier"), HumanMessage("Any news on Brunson?")])
    assert out.tool_calls[0]["args"]["player_name"] == "Jalen Brunson"


def test_offline_compares_every_named_player(names: list[str]) -> None:
    model = OfflineChatModel(player_names=names).bind_tools([get_player_status])
    out = model.invoke([HumanMessage("Should I trade Jaylen Brown for Trae Young?")])
    assert [c["args"]["player_name"] for c in out.tool_calls] == ["Jaylen Brown", "Trae Young"]


def test_offline_without_team_tools_asks_to_link(names: list[str]) -> None:
    model = OfflineChatModel(player_names=names).bind_tools([get_player_status])
    out = model.invoke([HumanMessage("Who will win the title?")])
    assert not out.tool_calls and "link your ESPN team" in out.content
