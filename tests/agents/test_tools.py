"""The tool registry on the demo league: real data, NOT_FOUND, ESPN failures, bad input."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import httpx
import pytest

from agents.shared.deps import AgentDeps
from agents.shared.tool_registry import TOOL_NAMES, build_tools, tools_by_name
from fantasy.espn.client import EspnClient
from storage.cache import TTLCache
from storage.db import Database


def _result(value: Any) -> dict[str, Any]:
    """Tool output as a dict (validation errors come back as JSON text)."""
    return json.loads(value) if isinstance(value, str) else value


async def _call(deps: AgentDeps, name: str, **args: Any) -> dict[str, Any]:
    return _result(await tools_by_name(build_tools(deps))[name].ainvoke(args))


async def test_registry_has_the_eleven_tools(deps_factory) -> None:
    tools = build_tools(deps_factory())
    assert [t.name for t in tools] == list(TOOL_NAMES) and len(tools) == 11
    assert all(t.description and t.args_schema is not None for t in tools)


async def test_roster_tools_return_demo_league_data(deps_factory) -> None:
    deps = deps_factory("points")
    mine = await _call(deps, "get_my_roster")
    assert mine["team"] == "Hoop Dreamers" and len(mine["players"]) == 13
    assert mine["window"] == ["2023-01-25", "2023-01-26", "2023-01-27", "2023-01-28",
                              "2023-01-29"]
    poole = next(p for p in mine["players"] if p["name"] == "Jordan Poole")
    assert poole["injury_status"] == "OUT" and poole["expected_return"] == "2023-02-04"
    assert poole["expected_games"] == 0.0 and poole["games_left"] >= 1
    brunson = next(p for p in mine["players"] if p["name"] == "Jalen Brunson")
    assert brunson["slot"] == "PG" and brunson["per_game"]["fpts"] > 30
    opp = await _call(deps, "get_opponent_roster")
    assert opp["team"] == "Full Court Press"
    assert {"LeBron James", "Fred VanVleet"} <= {p["name"] for p in opp["players"]}


async def test_status_news_and_search(deps_factory, news_store) -> None:
    deps = deps_factory("points", news=news_store)
    st = await _call(deps, "get_player_status", player_name="Jarrett Allen")
    assert st["status"] == "FOUND" and st["id"] == 4066328
    assert st["injury_status"] == "DAY_TO_DAY" and st["on_my_team"] is True
    assert st["fantasy_team"] == "Hoop Dreamers" and st["freshness"]["stale"] is False
    news = await _call(deps, "get_player_news", player_name="jarret alen", limit=5)
    assert news["player"]["name"] == "Jarrett Allen"
    titles = [i["title"] for i in news["items"]]
    assert titles[0] == "Jarrett Allen cleared to play Wednesday"
    assert "Cavaliers' Jarrett Allen expected to miss two weeks with groin strain" in titles
    assert [i["source"] for i in news["items"]][:2] == ["Rotowire", "ESPN"]
    brunson = await _call(deps, "get_player_news", player_name="Jalen Brunson")
    flagged = [i for i in brunson["items"] if i["suspicious"]]
    assert len(flagged) == 1 and "untrusted" in brunson["note"]
    found = await _call(deps, "search_news_by_topic", topic="groin strain", limit=5)
    assert any("Jarrett Allen" in i["player_names"] or "Rudy Gobert" in i["player_names"]
               for i in found["items"])
    recent = await _call(deps, "search_news_by_topic", topic="groin strain", limit=10, days=3)
    assert recent["items"] and all(i["published_at"] >= "2023-01-22" for i in recent["items"])


async def test_free_agents_for_target_categories(deps_factory) -> None:
    deps = deps_factory("categories")
    res = await _call(deps, "get_free_agents", position="PG", target_categories=["ast", "stl"],
                      limit=5)
    assert res["target_categories"] == ["AST", "STL"] and len(res["players"]) == 5
    assert res["players"][0]["name"] == "Tyus Jones"
    values = [p["target_value"] for p in res["players"]]
    assert values == sorted(values, reverse=True)
    ctx = deps._ctx
    rostered = ctx.league.all_rostered_player_ids()
    for p in res["players"]:
        assert "PG" in p["positions"] and p["id"] not in rostered
        assert p["injury_status"] in ("ACTIVE", "PROBABLE") and p["games_left"] >= 1
    with_games = await _call(deps, "get_free_agents", min_games=4, limit=30)
    assert all(p["games_left"] >= 4 for p in with_games["players"])
    pts = await _call(deps_factory("points"), "get_free_agents", limit=5)
    fpts = [p["expected_fpts"] for p in pts["players"]]
    assert fpts == sorted(fpts, reverse=True) and fpts[0] > 50


async def test_schedule_matchup_and_game_log(deps_factory) -> None:
    deps = deps_factory("categories")
    sch = await _call(deps, "get_schedule", team="opponent")
    assert sch["team"] == "Full Court Press" and len(sch["days"]) == 5
    wed = sch["days"][0]
    assert wed["weekday"] == "Wednesday" and wed["players_with_games"] == 8
    assert "LeBron James" in wed["players"]
    mine = await _call(deps, "get_schedule")
    assert mine["team"] == "Hoop Dreamers"
    assert mine["total_games"] == sum(d["players_with_games"] for d in mine["days"])
    m = await _call(deps, "get_matchup_details")
    assert m["matchup_period"] == 15 and m["days_left"] == 5
    assert m["opponent"] == "Full Court Press" and m["scoring"] == "H2H_CATEGORY"
    cats = {c["category"]: c for c in m["categories"]}
    assert cats["STL"] == {"category": "STL", "mine": 7.0, "opponent": 11.0, "result": "LOSS"}
    assert m["acquisitions_used"] == 2 and m["acquisition_limit"] == 4
    log = await _call(deps, "get_player_game_log", player_name="Jalen Brunson", last_n=3)
    assert [g["date"] for g in log["games"]] == ["2023-01-24", "2023-01-22", "2023-01-20"]
    assert log["games"][0]["PTS"] == 14.0 and log["games"][2]["AST"] == 9.0
    pts = await _call(deps_factory("points"), "get_matchup_details")
    assert pts["my_points"] > 0 and pts["opponent_points"] > 0
    assert pts["acquisition_limit"] == 7


async def test_slot_fit_and_daily_lineup(deps_factory) -> None:
    deps = deps_factory("points")
    ir = await _call(deps, "validate_slot_fit", player_name="Jordan Poole", slot="IR")
    assert ir["fits"] is True and "IR" in ir["eligible_slots"]
    c = await _call(deps, "validate_slot_fit", player_name="Jalen Brunson", slot="C")
    assert c["fits"] is False and "not eligible for C" in c["reason"]
    allen_ir = await _call(deps, "validate_slot_fit", player_name="Jarrett Allen", slot="ir")
    assert allen_ir["fits"] is False and "DAY_TO_DAY" in allen_ir["reason"]
    lu = await _call(deps, "compose_daily_lineup", day="thursday")
    assert lu["date"] == "2023-01-26" and lu["weekday"] == "Thursday"
    starters = {s["name"] for s in lu["starters"]}
    assert {"Jalen Brunson", "Jaylen Brown", "Jarrett Allen"} <= starters
    reasons = {b["name"]: b["reason"] for b in lu["bench"]}
    assert reasons["John Collins"] == "no game" and reasons["Jordan Poole"] == "injured OUT"
    assert lu["players_with_games"] == len(lu["starters"]) == 6
    today = await _call(deps, "compose_daily_lineup")
    assert today["date"] == "2023-01-25"


@pytest.mark.parametrize("query, suggestion", [
    ("Jamal Brunson", "Jalen Brunson"), ("Jordan", "Jordan Poole"),
])
async def test_misspelt_player_is_not_found_with_suggestions(deps_factory, news_store, query,
                                                             suggestion) -> None:
    deps = deps_factory("points", news=news_store)
    for tool in ("get_player_status", "get_player_news", "get_player_game_log"):
        res = await _call(deps, tool, player_name=query)
        assert res["status"] == "NOT_FOUND" and res["query"] == query
        assert suggestion in res["suggestions"] and suggestion in res["message"]
    fit = await _call(deps, "validate_slot_fit", player_name=query, slot="PG")
    assert fit["status"] == "NOT_FOUND"


async def test_unknown_player_gets_no_invented_match(deps_factory) -> None:
    res = await _call(deps_factory(), "get_player_status", player_name="Zorblax Quintero")
    assert res == {"status": "NOT_FOUND", "query": "Zorblax Quintero", "suggestions": [],
                   "message": "No player named 'Zorblax Quintero' in this league's player pool."}


async def test_close_typos_and_initials_resolve(deps_factory) -> None:
    deps = deps_factory()
    for q, name in (("Jarret Alen", "Jarrett Allen"), ("J. Brunson", "Jalen Brunson"),
                    ("Gordon Heyward", "Gordon Hayward"), ("4277956", "Jordan Poole"),
                    # a single-word typo of a last name resolves (issue 11: names)
                    ("Brunsonn", "Jalen Brunson")):
        st = await _call(deps, "get_player_status", player_name=q)
        assert st["status"] == "FOUND" and st["name"] == name, q


SECRET_S2 = "AEBsecretS2cookieValue0123456789"


async def test_espn_failure_becomes_error_payload(scripted) -> None:
    hits: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        hits.append(str(request.url))
        return httpx.Response(500, json={"messages": ["internal"]})

    client = EspnClient(20230125, 2023, espn_s2=SECRET_S2, swid="{SECRET-SWID}",
                        transport=httpx.MockTransport(handler), max_retries=0)
    deps = AgentDeps(espn=client, news=None, model=scripted(),
                     today=lambda: date(2023, 1, 25), my_team_id=1)
    try:
        args = {"get_player_status": {"player_name": "Jalen Brunson"},
                "get_player_news": {"player_name": "Jalen Brunson"},
                "search_news_by_topic": {"topic": "ankle"},
                "get_player_game_log": {"player_name": "Jalen Brunson"},
                "validate_slot_fit": {"player_name": "Jalen Brunson", "slot": "PG"}}
        first: dict[str, Any] | None = None
        for name in TOOL_NAMES:
            res = await _call(deps, name, **args.get(name, {}))
            assert "error" in res, name
            if name == "search_news_by_topic":
                assert res["error_type"] == "no_news"
                continue
            assert res["error_type"] == "espn_error", (name, res)
            assert res["espn_error"] in ("EspnServerError", "EspnCircuitOpen")
            assert res["error"].startswith("ESPN is unavailable")
            first = first or res
            assert SECRET_S2 not in json.dumps(res) and "SECRET-SWID" not in json.dumps(res)
        assert hits and first is not None and first["espn_error"] == "EspnServerError"
        assert "HTTP 500" in first["error"]
    finally:
        await client.aclose()


async def test_stale_cache_is_served_and_flagged(tmp_path, scripted, switchable_demo) -> None:
    db = await Database.open(tmp_path / "cache.sqlite")
    now = [1_000_000.0]
    cache = TTLCache(db, clock=lambda: now[0])
    client, transport = switchable_demo("points", cache=cache)
    deps = AgentDeps.for_client(client, scripted())
    try:
        fresh = await _call(deps, "get_player_status", player_name="Jordan Poole")
        assert fresh["freshness"]["stale"] is False
        now[0] += 2 * 3600  # every TTL has run out
        transport.fail = True
        deps.reset_context()
        stale = await _call(deps, "get_player_status", player_name="Jordan Poole")
        assert stale["status"] == "FOUND" and stale["injury_status"] == "OUT"
        assert stale["freshness"]["stale"] is True and "500" in stale["freshness"]["note"]
        roster = await _call(deps, "get_my_roster")
        assert roster["team"] == "Hoop Dreamers" and roster["freshness"]["stale"] is True
    finally:
        await client.aclose()
        await db.close()


async def test_bad_arguments_are_bad_input(deps_factory) -> None:
    deps = deps_factory("categories")
    cases = [("get_free_agents", {"limit": 99}), ("get_free_agents", {"position": "QB"}),
             ("get_free_agents", {"target_categories": ["XYZ"]}),
             ("compose_daily_lineup", {"day": "someday"}),
             ("validate_slot_fit", {"player_name": "Jalen Brunson", "slot": "QB"}),
             ("get_player_status", {}), ("search_news_by_topic", {"topic": "x", "days": 0}),
             ("get_player_game_log", {"player_name": "Jalen Brunson", "last_n": "many"})]
    for name, args in cases:
        res = await _call(deps, name, **args)
        assert res.get("error_type") == "bad_input", (name, args, res)
        assert res["error"]
    no_team = deps_factory("points")
    no_team.my_team_id = None
    res = await _call(no_team, "get_my_roster")
    assert res["error_type"] == "bad_input" and "link your ESPN team" in res["error"]
    sch = await _call(deps, "get_schedule", team="Nobody Team")
    assert sch["error_type"] == "not_found" and "Hoop Dreamers" in sch["teams"]


async def test_deps_for_the_demo_client(deps_factory) -> None:
    from agents.shared.deps import describe_deps, load_context, optimizer_for

    deps = deps_factory("categories")
    assert deps.is_demo and deps.my_team_id == 1 and deps.today_date() == date(2023, 1, 25)
    assert describe_deps(deps) == {"league_id": 20230125, "season": 2023, "demo": True,
                                   "my_team_id": 1, "untouchables": [], "news": False}
    ctx = await load_context(deps)
    assert ctx.my_team.name == "Hoop Dreamers" and ctx.opponent.name == "Full Court Press"
    assert await load_context(deps) is ctx  # cached for the turn
    svc = await optimizer_for(deps)
    assert svc is await optimizer_for(deps) and len(svc.free_agents) > 100
    deps.espn.demo.apply_move(1, 4249, 3135046)
    deps.reset_context()
    fresh = await load_context(deps)
    assert fresh is not ctx and "Tyus Jones" in {p.name for p in fresh.my_team.players}
