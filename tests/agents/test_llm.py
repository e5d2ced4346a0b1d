"""Model factory and the offline rule-based chat model, which plans from the typed Request
(agents.understanding, the one reader) and never reads the message text."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool

from agents.shared.llm import (
    OFFLINE_NOTE,
    OfflineChatModel,
    is_offline,
    make_model,
    plan_tool_calls,
    render_tool_result,
    with_request,
)
from agents.understanding.request import DayRef, Intent, MoveRef, PlayerRef, Request, TeamRef


def found(name: str, pid: int = 1) -> PlayerRef:
    return PlayerRef(words=name.split()[-1].lower(), status="resolved", player_id=pid, name=name)


def ask(intent: Intent, text: str = "", **fields: object) -> Request:
    return Request(intent=intent, text=text, **fields)  # type: ignore[arg-type]


def test_make_model_offline_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    m = make_model(player_names=["Jalen Brunson"])
    assert isinstance(m, OfflineChatModel) and is_offline(m) and m.player_names == ["Jalen Brunson"]
    # with_request sets up only the offline model: any other model reads the conversation
    other = object()
    assert with_request(other, ask(Intent.HELP)) is other and with_request(m, None) is m


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


def test_offline_model_calls_bound_tools_then_answers() -> None:
    model = OfflineChatModel()
    req = ask(Intent.PLAYER_RESEARCH, "Is Jalen Brunson playing tonight?",
              players=[found("Jalen Brunson")])
    bound = with_request(model.bind_tools([get_player_status, get_player_news]), req)
    q = [SystemMessage("sys"), HumanMessage(req.text)]
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
    assert OFFLINE_NOTE not in answer.content  # the chat says it (Answer.offline)
    assert "status QUESTIONABLE" in answer.content and "Brunson questionable (ankle)" in answer.content


def test_offline_model_never_reads_the_text() -> None:
    """The plan is the Request's: the same words with another Request plan other tools, and
    without a Request the model says what FanVise does instead of guessing from words."""
    bound = OfflineChatModel().bind_tools([get_player_status, get_player_news, get_schedule])
    text = [HumanMessage("Is Jalen Brunson playing tonight?")]
    by_request = with_request(bound, ask(Intent.SCHEDULE, team=TeamRef(kind="opponent")))
    assert [(c["name"], c["args"]) for c in by_request.invoke(text).tool_calls] == [
        ("get_schedule", {"team": "opponent"})]
    alone = bound.invoke(text)
    assert not alone.tool_calls and "Review my matchup" in alone.content
    assert OFFLINE_NOTE not in alone.content


def test_offline_model_only_uses_bound_tools() -> None:
    model = OfflineChatModel()
    req = ask(Intent.PLAYER_RESEARCH, players=[found("Jalen Brunson")])
    out = with_request(model.bind_tools([lookup]), req).invoke([HumanMessage("x")])
    assert not out.tool_calls and out.content and OFFLINE_NOTE not in out.content
    helped = with_request(model, ask(Intent.HELP)).invoke([HumanMessage("x")])
    assert "Review my matchup" in helped.content and OFFLINE_NOTE not in helped.content


def test_offline_never_invents_unknown_player() -> None:
    nobody = PlayerRef(words="Zxqwe Blorpington", status="not_found")
    model = with_request(OfflineChatModel().bind_tools([get_player_status]),
                         ask(Intent.PLAYER_RESEARCH, players=[nobody]))
    q = [HumanMessage("What's the latest on Zxqwe Blorpington?")]
    first = model.invoke(q)
    assert first.tool_calls[0]["args"] == {"player_name": "Zxqwe Blorpington"}
    nf = {"status": "NOT_FOUND", "query": "Zxqwe Blorpington", "suggestions": [],
          "message": "No player"}
    ans = model.invoke([*q, first, ToolMessage(json.dumps(nf), name="get_player_status",
                                               tool_call_id=first.tool_calls[0]["id"])])
    assert "couldn't find a player named 'Zxqwe Blorpington'" in ans.content
    assert "status" not in ans.content.lower().replace("won't", "")


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
    text = render_tool_result("compose_daily_lineup", lineup)  # the lineup card's words
    assert text.startswith("**Daily lineup for your team, Thu Jan 26**")
    assert "11 of your players have a game" in text
    sitting = text.split("Sitting:\n", 1)[1]
    assert "No game: C" in sitting and "B: lower value than starters" in sitting


async def test_offline_model_async() -> None:
    model = with_request(OfflineChatModel().bind_tools([get_player_status]),
                         ask(Intent.PLAYER_DECISION, players=[found("Jalen Brunson")]))
    out = await model.ainvoke([AIMessage("earlier"), HumanMessage("Any news on Brunson?")])
    assert out.tool_calls[0]["args"]["player_name"] == "Jalen Brunson"


def test_offline_compares_every_named_player() -> None:
    req = ask(Intent.GENERAL_ADVICE, players=[found("Jaylen Brown", 1), found("Trae Young", 2)])
    assert plan_tool_calls(req, ["get_player_status"]) == [
        ("get_player_status", {"player_name": "Jaylen Brown"}),
        ("get_player_status", {"player_name": "Trae Young"})]


def test_offline_without_team_tools_asks_to_link() -> None:
    model = with_request(OfflineChatModel().bind_tools([get_player_status]),
                         ask(Intent.GENERAL_ADVICE, "Who will win the title?"))
    out = model.invoke([HumanMessage("Who will win the title?")])
    assert not out.tool_calls and "link your ESPN team" in out.content


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


TOOLS = ("get_player_status", "get_player_news", "get_player_game_log", "get_schedule",
         "get_opponent_roster", "get_my_roster", "get_team_roster", "get_free_agents",
         "get_matchup_details", "compose_daily_lineup")


@pytest.mark.parametrize(("request_", "plan"), [
    (ask(Intent.PLAYER_FORM, players=[found("Jalen Brunson")], count=5),
     [("get_player_game_log", {"player_name": "Jalen Brunson", "last_n": 5})]),
    (ask(Intent.PLAYER_FORM, players=[found("Jaylen Brown")], count=1),
     [("get_player_game_log", {"player_name": "Jaylen Brown", "last_n": 1})]),
    (ask(Intent.SCHEDULE), [("get_schedule", {"team": "mine"})]),
    (ask(Intent.SCHEDULE, team=TeamRef(kind="opponent")), [("get_schedule", {"team": "opponent"})]),
    (ask(Intent.ROSTER, team=TeamRef(kind="opponent")), [("get_opponent_roster", {})]),
    (ask(Intent.ROSTER, team=TeamRef(kind="other", name="Buzzer Beaters")),
     [("get_team_roster", {"team": "Buzzer Beaters"})]),
    (ask(Intent.ROSTER), [("get_my_roster", {})]),
    (ask(Intent.STREAMING, categories=["AST", "STL"], position="G"),
     [("get_matchup_details", {}),
      ("get_free_agents", {"limit": 5, "position": "G", "target_categories": ["AST", "STL"],
                           "min_games": 1})]),
    (ask(Intent.FREE_AGENT_SCAN, position="C"),
     [("get_free_agents", {"limit": 5, "position": "C"})]),
    (ask(Intent.LINEUP_OPTIMIZATION, day=DayRef(word="thursday", date="2023-01-26")),
     [("compose_daily_lineup", {"day": "2023-01-26"})]),
    (ask(Intent.LINEUP_OPTIMIZATION, day=DayRef(word="this week", week=True)),
     [("compose_daily_lineup", {})]),
    (ask(Intent.EXPLICIT_MOVE, move=MoveRef(drop=found("Ben Simmons", 1),
                                            add=found("Coby White", 2))),
     [("get_player_status", {"player_name": "Ben Simmons"}),
      ("get_player_status", {"player_name": "Coby White"})]),
    (ask(Intent.MATCHUP_ANALYSIS), [("get_matchup_details", {}), ("get_my_roster", {})]),
])
def test_offline_plans_from_the_request(request_: Request, plan: list) -> None:
    assert plan_tool_calls(request_, TOOLS) == plan


def test_offline_asks_which_player_without_one() -> None:
    model = with_request(OfflineChatModel().bind_tools([get_player_game_log]),
                         ask(Intent.PLAYER_FORM, count=5))
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
