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
    game_log_count,
    info_kind,
    is_offline,
    make_model,
    recent_player,
    refers_back,
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


# --------------------------------------------------------------- info questions, follow-ups


@pytest.mark.parametrize(("text", "intent", "player"), [
    # a named player's health question is research, even with "pick up" in it
    ("Is Alex Caruso healthy enough to pick up?", "player_research", "Alex Caruso"),
    ("Is Alex Caruso worth a pickup?", "free_agent_scan", "Alex Caruso"),
    ("Which free agents are worth picking up right now?", "free_agent_scan", None),
    # information questions: one tool in the agent loop, never the optimizer
    ("How many games do my players have left this week?", "general_advice", None),
    ("Who is on my opponent's roster?", "general_advice", None),
    ("Who's on my team?", "general_advice", None),
    ("Show me Jalen Brunson's last 5 games.", "general_advice", "Jalen Brunson"),
    ("How many points did Jaylen Brown score in his last game?", "general_advice",
     "Jaylen Brown"),
    # the workflows keep their questions
    ("How am I doing in my matchup this week?", "matchup_analysis", None),
    ("Review my matchup this week and suggest the best drop/add.", "matchup_analysis", None),
    ("Find me the best pickup for this matchup.", "free_agent_scan", None),
])
def test_classify_info_and_health_questions(names: list[str], text: str, intent: str,
                                            player: str | None) -> None:
    assert classify_intent(text, names) == (intent, player)


def test_info_kind_and_game_count() -> None:
    assert info_kind("Show me Jalen Brunson's last 5 games.") == "game_log"
    assert info_kind("game log of Fakey McFakerson") == "game_log"
    assert info_kind("Who is on my opponent's roster?") == "opponent_roster"
    assert info_kind("who am I playing against?") == "opponent_roster"
    assert info_kind("show my roster") == "my_roster"
    assert info_kind("How many games do my players have left this week?") == "schedule"
    assert info_kind("Review my matchup this week") is None
    assert info_kind("Is Jalen Brunson playing tonight?") is None
    assert [game_log_count(t) for t in (
        "his last 5 games", "his last game", "last three games", "the game log", "past few games",
        "last 99 games")] == [5, 1, 3, 5, 3, 30]


def test_pronoun_resolves_to_the_earlier_player(names: list[str]) -> None:
    q = "When is he expected back?"
    assert classify_intent(q, names) == ("general_advice", None)
    assert classify_intent(q, names, context_player="Jordan Poole") == \
        ("player_research", "Jordan Poole")
    # a player named in the text wins over the context; no pronoun, no context
    assert classify_intent("When is Giannis Antetokounmpo expected back?", names,
                           context_player="Jordan Poole")[1] == "Giannis Antetokounmpo"
    assert classify_intent("Who will win the title?", names,
                           context_player="Jordan Poole") == ("general_advice", None)


def test_recent_player_from_history(names: list[str]) -> None:
    hist = [HumanMessage("What's the latest on Jordan Poole?"),
            AIMessage("Jalen Brunson and Jordan Poole are both on your team."),
            HumanMessage("Who will win the title?")]
    # newest human message naming a player; AI text (lists of players) is not used
    assert recent_player(hist, names) == "Jordan Poole"
    hist.append(HumanMessage("Any news on Jaylen Brown?"))
    assert recent_player(hist, names) == "Jaylen Brown"
    # the previous turn's research report wins (it resolved that turn's pronoun)
    assert recent_player(hist, names, report={"playerName": "Jarrett Allen"}) == "Jarrett Allen"
    assert recent_player(hist, names, report={"playerName": "Zxqwe Blorpington"}) == \
        "Jaylen Brown"
    assert recent_player([HumanMessage("hello")], names) is None
    assert refers_back("When is he back?") and refers_back("his last game")
    assert not refers_back("When is the game?")


@tool
def get_player_game_log(player_name: str, last_n: int = 10) -> dict:
    """Game log."""
    return {}


@tool
def get_schedule(team: str = "mine") -> dict:
    """Schedule."""
    return {}


@tool
def get_opponent_roster() -> dict:
    """Opponent roster."""
    return {}


def test_offline_follow_up_uses_the_conversation(names: list[str]) -> None:
    model = OfflineChatModel(player_names=names).bind_tools([get_player_status, get_player_news])
    msgs = [HumanMessage("What's the latest on Jordan Poole?"), AIMessage("Poole is out."),
            HumanMessage("When is he expected back?")]
    out = model.invoke(msgs)
    assert [c["args"]["player_name"] for c in out.tool_calls] == ["Jordan Poole", "Jordan Poole"]
    # without the earlier turn there is nobody to look up
    alone = model.invoke([HumanMessage("When is he expected back?")])
    assert not any(c["name"] == "get_player_status" for c in alone.tool_calls)


def test_offline_info_plans(names: list[str]) -> None:
    model = OfflineChatModel(player_names=names).bind_tools(
        [get_player_status, get_player_game_log, get_schedule, get_opponent_roster])
    out = model.invoke([HumanMessage("Show me Jalen Brunson's last 5 games.")])
    assert [(c["name"], c["args"]) for c in out.tool_calls] == [
        ("get_player_game_log", {"player_name": "Jalen Brunson", "last_n": 5})]
    out = model.invoke([HumanMessage("Jaylen Brown was great."),
                        HumanMessage("How many points did he score in his last game?")])
    assert [(c["name"], c["args"]) for c in out.tool_calls] == [
        ("get_player_game_log", {"player_name": "Jaylen Brown", "last_n": 1})]
    out = model.invoke([HumanMessage("How many games do my players have left this week?")])
    assert [(c["name"], c["args"]) for c in out.tool_calls] == [("get_schedule", {"team": "mine"})]
    out = model.invoke([HumanMessage("How many games does my opponent have left?")])
    assert out.tool_calls[0]["args"] == {"team": "opponent"}
    out = model.invoke([HumanMessage("Who is on my opponent's roster?")])
    assert [c["name"] for c in out.tool_calls] == ["get_opponent_roster"]
    out = model.invoke([HumanMessage("Show me his last 5 games.")])
    assert not out.tool_calls and "Which player" in out.content


def test_render_game_log_and_schedule() -> None:
    log = {"player": {"id": 1, "name": "Jalen Brunson"}, "games": [
        {"date": "2023-01-24", "MIN": 36.0, "PTS": 14.0, "REB": 2.0, "fpts": 23.5},
        {"date": "2023-01-22", "MIN": 38.0, "PTS": 21.0, "REB": 1.0, "fpts": 29.0}],
        "freshness": {"stale": True, "note": "cached data"}}
    text = render_tool_result("get_player_game_log", log)
    assert "Jalen Brunson, last 2 games (newest first)" in text
    assert "- 2023-01-24: 14 PTS, 2 REB, 36 MIN, 23.5 fpts" in text
    assert "- 2023-01-22: 21 PTS" in text and "cached data" in text
    one = render_tool_result("get_player_game_log", {"player": {"name": "X Y"}, "games": []})
    assert "No games" in one
    sched = {"team": "Hoop Dreamers", "total_games": 3, "days": [
        {"weekday": "Thursday", "players_with_games": 2, "players": ["A B", "C D"]},
        {"weekday": "Friday", "players_with_games": 1, "players": ["A B"]}]}
    text = render_tool_result("get_schedule", sched)
    assert "Hoop Dreamers games left in the matchup window: 3 (2 days)" in text
    assert "Thu 2, Fri 1" in text and "By player: A B 2, C D 1." in text
    roster = {"team": "Full Court Press", "players": [
        {"name": "Tyler Herro", "positions": ["PG", "SG"], "slot": "PG", "games_left": 2,
         "injury_status": "ACTIVE"}]}
    text = render_tool_result("get_opponent_roster", roster)
    assert text.startswith("Full Court Press: 1 players")
    assert "Tyler Herro (PG/SG, PG, 2 games left)" in text
