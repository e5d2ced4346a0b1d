"""The oracle computes expected values from the demo league's data (cross-checked against the
raw recorded demo state, not against the oracle's own code path)."""

from __future__ import annotations

import pytest

from fantasy.demo import DEFAULT_TODAY, DemoLeague
from fanvise_eval.dataset import Case, load_dataset
from fanvise_eval.expectations import Oracle, OracleError


@pytest.fixture
async def oracle():
    o = Oracle("points")
    yield o
    await o.close()


def _pid(demo: DemoLeague, name: str) -> int:
    return next(int(pid) for pid, e in demo.base["players"].items()
                if e["player"]["fullName"] == name)


async def test_injury_status_and_return_date_match_the_recorded_spells(oracle):
    demo = DemoLeague("points")
    for name in ("Jordan Poole", "Jarrett Allen", "Gordon Hayward", "Jalen Brunson"):
        status, ret = demo.injury_on(_pid(demo, name), demo.today_sp)
        assert await oracle.value({"from": "espn_injury_status", "player": name}) == status
        got = await oracle.value({"from": "espn_expected_return", "player": name})
        assert got == (ret.isoformat() if ret else None)


async def test_game_log_matches_the_recorded_box_scores(oracle):
    demo = DemoLeague("points")
    pid = _pid(demo, "Jalen Brunson")
    games = demo.base["players"][str(pid)]["by_sp"]
    past = sorted((sp for sp in games if sp < demo.today_sp), reverse=True)[:5]
    want = [games[sp][1]["0"] for sp in past]
    assert await oracle.value({"from": "game_log", "player": "Jalen Brunson", "n": 5}) == want


async def test_best_move_is_valid_and_applies_to_the_demo_league(oracle):
    best = await oracle.value({"from": "optimizer_best_move"})
    assert best is not None and best["expected_gain"] > 0
    demo = DemoLeague("points")
    assert best["drop_id"] in demo.roster_now(1)
    assert demo.owner_of(best["add_id"]) == 0
    protected = await oracle.value({"from": "optimizer_protected"})
    assert best["drop"] not in protected
    demo.apply_move(1, best["drop_id"], best["add_id"])
    assert best["add_id"] in demo.roster_now(1)


async def test_team_names_roster_and_lineup(oracle):
    demo = DemoLeague("points")
    assert await oracle.value({"from": "my_team_name"}) == demo.base["teams"][0]["name"]
    roster = await oracle.value({"from": "my_roster"})
    assert len(roster) == len(demo.roster_now(1))
    starters = await oracle.value({"from": "lineup_starters", "day": "today"})
    assert set(starters) <= set(roster) and starters
    assert oracle.day("thursday").isoformat() == "2023-01-26"
    assert oracle.day("today") == DEFAULT_TODAY
    assert await oracle.value({"from": "matchup_points", "field": "mine"}) > 0


async def test_unknown_player_and_bad_params_raise(oracle):
    with pytest.raises(OracleError, match="Zephyr"):
        await oracle.value({"from": "espn_injury_status", "player": "Zephyr Quillington"})
    with pytest.raises(OracleError, match="player"):
        await oracle.value({"from": "game_log"})
    with pytest.raises(OracleError, match="nope"):
        await oracle.value({"from": "matchup_points", "field": "nope"})
    with pytest.raises(OracleError, match="news store"):
        await oracle.value({"from": "news_latest", "player": "Jarrett Allen"})


async def test_resolve_replaces_every_reference(oracle):
    case = next(c for c in load_dataset().cases if c.id == "agentic_player_research_01")
    exp = await oracle.resolve(case)
    assert exp["report"]["status"] == {"value": "OUT",
                                       "ref": "espn_injury_status(player=Jordan Poole)"}

    def walk(x):
        if isinstance(x, dict):
            assert "from" not in x
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk({k: v for k, v in exp.items() if not k.startswith("_")})
    tol = Case.model_validate({"id": "t", "category": "game_log", "risk": "low",
                               "prompt": "x", "expect": {"facts": [
                                   {"from": "game_log", "player": "Jalen Brunson", "n": 1,
                                    "tolerance": 0}]}})
    fact = (await oracle.resolve(tol))["facts"][0]
    assert fact["tolerance"] == 0 and "tolerance" not in fact["ref"]


async def test_free_agents_are_every_unrostered_player(oracle):
    await oracle.load()
    demo = DemoLeague("points")
    rostered = {pid for tid in demo.team_ids() for pid in demo.roster_now(tid)}
    fa = set(oracle.free_agent_ids())
    assert fa and not fa & rostered
    assert fa == {int(pid) for pid in demo.base["players"]} - rostered
    assert len(fa) > 150  # not cut at the free-agent request's page size


async def test_earlier_moves_are_applied_to_the_oracles_league():
    moves = [{"drop": "Gordon Hayward", "add": "Tyus Jones"},
             {"drop": "T.J. McConnell", "add": "Mo Bamba"}]
    o = Oracle("categories", demo_moves=moves)
    try:
        assert await o.value({"from": "acquisitions_left"}) == 0
        roster = await o.value({"from": "my_roster"})
        assert "Tyus Jones" in roster and "Gordon Hayward" not in roster
        assert await o.value({"from": "optimizer_best_move"}) is None  # limit reached
    finally:
        await o.close()
    with pytest.raises(OracleError, match="Nobody"):
        await Oracle("points", demo_moves=[{"drop": "Nobody Here", "add": "Mo Bamba"}]).load()


async def test_free_agents_ranked_filters_and_order(oracle):
    await oracle.load()
    fa = set(oracle.group_names("free_agents"))
    top = await oracle.value({"from": "free_agents_ranked", "top": 5})
    assert len(top) == 5 and set(top) <= fa
    assert await oracle.value({"from": "free_agents_ranked", "rank": 1}) == top[0]
    for name in top:  # healthy only by default
        assert oracle.player(name).injury_status not in ("OUT", "DAY_TO_DAY", "QUESTIONABLE")
    centers = await oracle.value({"from": "free_agents_ranked", "top": 3, "position": "C"})
    assert all(4 in oracle.player(n).eligible_slots for n in centers)
    with pytest.raises(OracleError):
        await oracle.value({"from": "free_agents_ranked", "categories": ["XYZ"]})


async def test_schedule_matchup_and_injury_sources(oracle):
    demo = DemoLeague("points")
    await oracle.load()
    assert await oracle.value({"from": "matchup_days_left"}) == 5  # Wed..Sun (docs)
    assert await oracle.value({"from": "day_date", "day": "tmrw"}) == "2023-01-26"
    assert await oracle.value({"from": "my_injured"}) == [
        "Jordan Poole", "Jarrett Allen", "Gordon Hayward"]
    assert await oracle.value({"from": "my_injured", "position": "G"}) == ["Jordan Poole"]
    assert await oracle.value({"from": "pro_team", "player": "Jalen Brunson"}) == "NYK"
    # the recorded schedule: a game today exactly when the player has a box score slot today
    g = await oracle.value({"from": "pro_game", "player": "Jalen Brunson", "day": "tomorrow"})
    assert g is not None and g["date"] == "2023-01-26"
    assert await oracle.value({"from": "pro_game", "player": "Jalen Brunson",
                               "day": "today"}) is None
    pid = _pid(demo, "Jalen Brunson")
    games = demo.base["players"][str(pid)]["by_sp"]
    past = sorted((sp for sp in games if sp < demo.today_sp), reverse=True)[:5]
    want = round(sum(games[sp][1]["0"] for sp in past) / 5, 1)
    assert await oracle.value({"from": "game_log_average", "player": "Jalen Brunson",
                               "n": 5}) == want
    assert await oracle.value({"from": "matchup_category_record"}) is None  # points league
    cats = Oracle("categories")
    try:
        rec = await cats.value({"from": "matchup_category_record"})
        w, lo = (int(x) for x in rec.split("-")[:2])
        assert w + lo <= 9
    finally:
        await cats.close()
