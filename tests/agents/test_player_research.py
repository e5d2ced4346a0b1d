"""Player research graph on the demo league with scripted models and the demo news feed."""

from __future__ import annotations

import itertools
from datetime import date
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from agents.player_research.graph import MAX_AGENT_ITERATIONS, build_player_research_graph
from agents.player_research.report import REPORT_KEYS, build_player_report, classify_news
from agents.shared.deps import AgentDeps
from agents.understanding.request import Intent, PlayerRef, Request
from storage.cache import TTLCache
from storage.db import Database

_ids = itertools.count(1)


def call(name: str, **args: Any) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args,
                                              "id": f"rc_{next(_ids)}"}])


async def run(deps: AgentDeps, query: str, player: str | None, request: Request | None = None,
              **kw: Any) -> dict[str, Any]:
    graph = build_player_research_graph(**kw)
    config = {"configurable": {"thread_id": f"t{next(_ids)}"}} if kw else None
    inp: dict[str, Any] = {"query": query, "player_name": player}
    if request is not None:
        inp["request_obj"] = request.model_dump(mode="json")
    out = await graph.ainvoke(inp, config, context=deps)
    assert tuple(out["report"]) == REPORT_KEYS
    return out


async def test_model_driven_research_with_conflicting_reports(deps_factory, news_store,
                                                              scripted) -> None:
    model = scripted(call("get_player_status", player_name="Jarrett Allen"),
                     call("get_player_news", player_name="Jarrett Allen", limit=5),
                     AIMessage(content="Allen was cleared to play."))
    deps = deps_factory("points", news=news_store, model=model)
    out = await run(deps, "Is Jarrett Allen playing tonight?", "Jarrett Allen")
    r = out["report"]
    assert out["tool_calls"] == ["get_player_status", "get_player_news"]
    assert out["llm_calls"] == 3 and len(model.calls) == 3
    assert set(model.bound_tools) >= {"get_player_status", "get_player_news"}
    seen = [m for m in model.calls[1] if isinstance(m, ToolMessage)]
    assert seen and "DAY_TO_DAY" in seen[0].content
    assert r["playerName"] == "Jarrett Allen" and r["status"] == "DAY_TO_DAY"
    assert r["injuryType"] == "groin" and r["expectedReturnDate"] is None
    assert r["recommendation"] == "ACTIVE" and r["confidence"] == "MEDIUM"
    assert "Conflicting reports" in r["summary"] and "newer Rotowire report (Wed Jan 25) wins" \
        in r["summary"]
    assert r["sources"][1] == "Rotowire 2023-01-25: Jarrett Allen cleared to play Wednesday"
    assert r["sources"][2].startswith("ESPN 2023-01-24: Cavaliers' Jarrett Allen expected")
    assert "Recommendation: start" in out["answer"] and r["fetchedAt"].endswith("+00:00")


async def test_model_without_tool_calls_still_gets_the_data(deps_factory, news_store,
                                                            scripted) -> None:
    model = scripted(AIMessage(content="Poole is probably fine, drop him."))
    deps = deps_factory("points", news=news_store, model=model)
    out = await run(deps, "What about Jordan Poole?", "Jordan Poole")
    r = out["report"]
    assert out["llm_calls"] == 1 and out["tool_calls"] == ["get_player_status", "get_player_news"]
    assert r["status"] == "OUT" and r["expectedReturnDate"] == "2023-02-04"
    assert r["injuryType"] == "ankle" and r["recommendation"] == "HOLD"
    assert r["confidence"] == "HIGH" and "drop him" not in out["answer"]


async def test_player_taken_from_the_request(deps_factory, news_store, scripted) -> None:
    """The player is the understood Request's, never read again from the question's words."""
    deps = deps_factory("points", news=news_store, model=scripted())
    brunson = PlayerRef(words="brunson", status="resolved", player_id=3934672,
                        name="Jalen Brunson")
    asked = Request(intent=Intent.PLAYER_RESEARCH, text="how is he doing lately?",
                    players=[brunson])
    out = await run(deps, asked.text, None, asked)
    r = out["report"]
    assert r["playerName"] == "Jalen Brunson" and r["status"] == "ACTIVE"
    assert r["recommendation"] == "ACTIVE"
    # the injection item of the demo feed is neither a source nor trusted
    assert "1 news item ignored: it contains instruction-like text" in r["summary"]
    assert not any("must-read" in s for s in r["sources"])


async def test_model_asking_about_another_player_cannot_change_the_report(
        deps_factory, news_store, scripted) -> None:
    model = scripted(call("get_player_status", player_name="LeBron James"),
                     AIMessage(content="LeBron is out for the season, DROP."))
    deps = deps_factory("points", news=news_store, model=model)
    out = await run(deps, "Is Gordon Hayward playing?", "Gordon Hayward")
    r = out["report"]
    assert r["playerName"] == "Gordon Hayward" and r["status"] == "QUESTIONABLE"
    assert r["injuryType"] == "shoulder" and r["recommendation"] == "MONITOR"
    assert out["tool_calls"] == ["get_player_status", "get_player_status", "get_player_news"]
    assert "LeBron" not in out["answer"]


async def test_agent_loop_is_capped(deps_factory, news_store, scripted) -> None:
    model = scripted(*[call("get_player_game_log", player_name="Jalen Brunson", last_n=3)
                       for _ in range(10)])
    deps = deps_factory("points", news=news_store, model=model)
    out = await run(deps, "Brunson?", "Jalen Brunson")
    assert out["llm_calls"] == MAX_AGENT_ITERATIONS == len(model.calls) == 4
    assert out["tool_calls"].count("get_player_game_log") == 4
    assert out["report"]["playerName"] == "Jalen Brunson"


async def test_unknown_player_is_never_invented(deps_factory, news_store, scripted) -> None:
    model = scripted(call("get_player_status", player_name="Zorblax Quintero"),
                     AIMessage(content="Zorblax is a great pickup!"))
    deps = deps_factory("points", news=news_store, model=model)
    out = await run(deps, "Should I pick up Zorblax Quintero?", "Zorblax Quintero")
    r = out["report"]
    assert r["status"] == "UNKNOWN" and r["sources"] == ["NOT_FOUND"]
    assert r["playerName"] == "Zorblax Quintero" and r["injuryType"] is None
    assert r["expectedReturnDate"] is None and r["confidence"] == "LOW"
    assert r["recommendation"] != "STREAM" and "great pickup" not in out["answer"]
    league_names = {e.player.name for t in deps._ctx.league.teams for e in t.roster}
    assert not any(n in out["answer"] for n in league_names)
    assert out["tool_calls"] == ["get_player_status"]


async def test_misspelt_player_gets_suggestions_not_a_guess(deps_factory, news_store,
                                                            scripted) -> None:
    deps = deps_factory("points", news=news_store, model=scripted())
    out = await run(deps, "Jamal Brunson status?", "Jamal Brunson")
    r = out["report"]
    assert r["status"] == "UNKNOWN" and r["sources"] == ["NOT_FOUND"]
    assert r["playerName"] == "Jamal Brunson" and "Did you mean: Jalen Brunson" in r["summary"]


async def test_star_rumours_never_drop(deps_factory, news_store, scripted) -> None:
    model = scripted(call("search_news_by_topic", topic="Kevin Durant trade"),
                     AIMessage(content="Durant will be traded: DROP him now."))
    deps = deps_factory("points", news=news_store, model=model)
    out = await run(deps, "Durant trade rumours, should I drop him?", "Kevin Durant")
    r = out["report"]
    assert r["status"] == "DAY_TO_DAY" and r["recommendation"] == "MONITOR"
    assert "Rumours (Rumor Mill) are not treated as facts; stars are never dropped" in r["summary"]
    assert any(s.startswith("Rumor Mill 2023-01-24") for s in r["sources"])


async def test_old_news_is_low_confidence(deps_factory, news_store, scripted) -> None:
    deps = deps_factory("points", news=news_store, model=scripted())
    out = await run(deps, "Gobert?", "Rudy Gobert")
    r = out["report"]
    assert r["status"] == "OUT" and r["confidence"] == "LOW"
    assert "2023-01-17, more than 7 days old" in r["summary"]
    assert r["recommendation"] == "HOLD"  # a star on his fantasy team


async def test_long_injury_of_a_non_star_is_a_drop(deps_factory, news_store, scripted) -> None:
    deps = deps_factory("points", news=news_store, model=scripted())
    r = (await run(deps, "LeVert?", "Caris LeVert"))["report"]
    assert r["status"] == "OUT" and r["expectedReturnDate"] == "2023-02-14"
    assert r["injuryType"] == "foot" and r["recommendation"] == "DROP"


async def test_free_agent_streamer(deps_factory, news_store, scripted) -> None:
    deps = deps_factory("categories", news=news_store, model=scripted())
    r = (await run(deps, "Is Tyus Jones worth a stream?", "Tyus Jones"))["report"]
    assert r["status"] == "ACTIVE" and r["recommendation"] == "STREAM"
    assert "free agent" in r["summary"] and "3 games left" in r["summary"]


async def test_stale_espn_cache_means_low_confidence(tmp_path, news_store, scripted,
                                                     switchable_demo) -> None:
    db = await Database.open(tmp_path / "c.sqlite")
    now = [5_000_000.0]
    client, transport = switchable_demo("points", cache=TTLCache(db, clock=lambda: now[0]))
    deps = AgentDeps.for_client(client, scripted(), news=news_store)
    try:
        first = (await run(deps, "Poole?", "Jordan Poole"))["report"]
        assert first["confidence"] == "HIGH"
        now[0] += 3 * 3600
        transport.fail = True
        deps.reset_context()
        deps.model = scripted()
        r = (await run(deps, "Poole?", "Jordan Poole"))["report"]
        assert r["status"] == "OUT" and r["confidence"] == "LOW"
        assert r["sources"][0] == "ESPN player card (cached, stale)"
        assert "ESPN was unavailable" in r["summary"]
    finally:
        await client.aclose()
        await db.close()


async def test_espn_down_without_cache_is_unknown_not_a_crash(news_store, scripted,
                                                              switchable_demo) -> None:
    client, transport = switchable_demo("points")
    transport.fail = True
    deps = AgentDeps.for_client(client, scripted(), news=news_store)
    try:
        out = await run(deps, "Poole?", "Jordan Poole")
    finally:
        await client.aclose()
    r = out["report"]
    assert r["status"] == "UNKNOWN" and r["sources"] == ["ESPN_UNAVAILABLE"]
    assert "ESPN is unavailable" in r["summary"]


class _Boom(Exception):
    pass


async def test_model_failure_still_reports(deps_factory, news_store, scripted) -> None:
    def explode(_: Any) -> AIMessage:
        raise _Boom("quota")

    deps = deps_factory("points", news=news_store, model=scripted(explode))
    out = await run(deps, "Allen?", "Jarrett Allen")
    assert out["report"]["recommendation"] == "ACTIVE"
    assert "language model was unavailable" in out["answer"]


async def test_runs_under_a_checkpointer(deps_factory, news_store, scripted) -> None:
    model = scripted(call("get_player_status", player_name="Jarrett Allen"))
    deps = deps_factory("points", news=news_store, model=model)
    out = await run(deps, "Allen?", "Jarrett Allen", checkpointer=InMemorySaver())
    assert out["report"]["status"] == "DAY_TO_DAY" and out["llm_calls"] == 2


def _status(**kw: Any) -> dict[str, Any]:
    base = {"status": "FOUND", "id": 1, "name": "Test Star", "team": "BOS",
            "injury_status": "OUT", "expected_return": None, "fantasy_team": "Team A",
            "percent_owned": 99.0, "games_left": 3, "freshness": {"stale": False}}
    return base | kw


def test_report_rules_for_stars_and_rumours() -> None:
    today = date(2023, 1, 25)
    rumor = {"items": [{"title": "Test Star might be traded, sources say", "summary": "",
                        "source": "Rumor Mill", "published_at": "2023-01-25T10:00:00+00:00"}]}
    star = build_player_report(asked="Test Star", status=_status(), news=rumor, today=today,
                               star=True, fetched_at="x")
    assert star["recommendation"] == "HOLD"
    plain = build_player_report(asked="Test Star", status=_status(percent_owned=10.0),
                                news={"items": []}, today=today, star=False, fetched_at="x")
    assert plain["recommendation"] == "DROP"
    healthy_star = build_player_report(asked="Test Star", status=_status(injury_status="ACTIVE"),
                                       news=rumor, today=today, star=True, fetched_at="x")
    assert healthy_star["recommendation"] == "ACTIVE"
    assert classify_news(rumor["items"][0]) == "rumor"
    assert classify_news({"title": "X remains out, targeting return in February"}) == "out"
    assert classify_news({"title": "X cleared to play Wednesday"}) == "available"


async def test_without_a_news_store_the_card_decides(deps_factory, scripted) -> None:
    deps = deps_factory("points", news=None, model=scripted())
    out = await run(deps, "Allen?", "Jarrett Allen")
    r = out["report"]
    assert out["tool_calls"] == ["get_player_status"]
    assert r["status"] == "DAY_TO_DAY" and r["recommendation"] == "MONITOR"
    assert r["confidence"] == "MEDIUM" and r["sources"] == ["ESPN player card"]


async def test_the_answer_is_the_summary_without_a_repeated_status_header(
        deps_factory, news_store, scripted) -> None:
    model = scripted(call("get_player_status", player_name="Jordan Poole"),
                     AIMessage(content="done"))
    deps = deps_factory("points", news=news_store, model=model)
    out = await run(deps, "is poole still out?", "Jordan Poole")
    # the status is said once, in the summary; the card under it carries the fields
    assert out["answer"] == out["report"]["summary"]
    assert "->" not in out["answer"] and "(confidence" not in out["answer"]
    assert out["answer"].startswith("Jordan Poole (GSW")
