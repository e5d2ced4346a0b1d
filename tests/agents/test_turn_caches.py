"""What turns share (issue 14): the optimizer service of an unchanged league snapshot, and a
model's tool binding. Real demo league, real OptimizerService, the offline model."""

from __future__ import annotations

import json
from typing import Any

from agents.shared.deps import AgentDeps, optimizer_for
from agents.shared.llm import OfflineChatModel
from agents.shared.middleware import bound_model, filter_tools
from agents.shared.tool_registry import tools_for
from fantasy.demo import open_demo_client
from storage.cache import TTLCache
from storage.db import Database


async def test_turns_on_unchanged_data_share_one_optimizer_service(tmp_path: Any) -> None:
    """The ESPN client with its cache (as the app runs it) keeps parsed objects while the
    data is unchanged: the next turn's deps get the same service."""
    db = await Database.open(tmp_path / "app.sqlite")
    client = open_demo_client("points", cache=TTLCache(db), state_path=tmp_path / "d.json")
    try:
        await _share_and_renew(AgentDeps.for_client(client, OfflineChatModel()))
    finally:
        await client.aclose()
        await db.close()


async def _share_and_renew(first: AgentDeps) -> None:
    svc = await optimizer_for(first)
    second = AgentDeps.for_client(first.espn, first.model)  # the next turn's deps
    assert await optimizer_for(second) is svc
    other_team = AgentDeps.for_client(first.espn, first.model, untouchables=(4249,))
    assert await optimizer_for(other_team) is not svc  # other settings: its own service

    team = svc.league.team(1)
    drop = next(e.player.id for e in team.roster if e.player.id not in svc.untouchable)
    add = svc.free_agents[0].id
    first.espn.demo.apply_move(1, drop, add)
    after = AgentDeps.for_client(first.espn, first.model)
    moved = await optimizer_for(after)
    assert moved is not svc  # a new league snapshot gets a new service
    assert add in {e.player.id for e in moved.league.team(1).roster}


async def test_a_binding_is_reused_for_the_same_model_and_tools(deps_factory: Any) -> None:
    deps = deps_factory("points")
    model = OfflineChatModel()
    linked = filter_tools(tools_for(deps), team_linked=True)
    unlinked = filter_tools(tools_for(deps), team_linked=False)
    binding = bound_model(model, linked)
    next_turn = filter_tools(tools_for(AgentDeps.for_client(deps.espn, model)),
                             team_linked=True)
    assert next_turn[0] is not linked[0]  # the next turn's own tools ...
    assert bound_model(model, next_turn) is binding  # ... same schemas, same binding
    assert bound_model(model, unlinked) is not binding
    assert bound_model(OfflineChatModel(), linked) is not binding
    names = {t["function"]["name"] for t in binding.kwargs["tools"]}
    assert names == {t.name for t in linked}


def test_the_unchanged_demo_league_is_kept_on_disk_and_renders_the_same(
        tmp_path: Any, monkeypatch: Any) -> None:
    """A fresh process reads the unchanged demo league's starting lineups and league response
    from the disk cache instead of rendering them: the same bytes as a render, per variant;
    a league with a change is rendered (and not written); a damaged file is rendered again."""
    from fantasy.demo.league import DemoLeague

    monkeypatch.setenv("FANVISE_DEMO_DISK_CACHE", "0")
    fresh = {v: DemoLeague(v) for v in ("points", "categories")}
    rendered = {v: lg.league_response_bytes() for v, lg in fresh.items()}
    monkeypatch.setenv("FANVISE_DEMO_DISK_CACHE", "1")
    monkeypatch.setenv("FANVISE_CACHE_DIR", str(tmp_path))
    for _ in range(2):  # the first writes the files, the second reads them
        for v, want in rendered.items():
            lg = DemoLeague(v)
            assert list(lg._base_lineups.items()) == list(fresh[v]._base_lineups.items())
            assert [list(x.items()) for x in lg._base_lineups.values()] == \
                [list(x.items()) for x in fresh[v]._base_lineups.values()]
            assert lg.league_response_bytes() == want
    files = sorted(p.name for p in tmp_path.iterdir())
    assert len(files) == 4 and all(n.startswith(("demo-league-", "demo-lineups-")) for n in files)

    # the next state renders only what its move touches, the rest comes from the responses
    # read from disk: the same bytes as without the disk cache
    fa = {"players": {"filterStatus": {"value": ["FREEAGENT", "WAIVERS"]}, "limit": 60}}
    after = {}
    for disk in ("0", "1", "1"):  # the second "1" reads the free agents from disk too
        monkeypatch.setenv("FANVISE_DEMO_DISK_CACHE", disk)
        lg = DemoLeague("points", state_path=tmp_path / f"state{len(after)}.json")
        assert lg.league_response_bytes() == rendered["points"]
        assert bool(lg._unseeded) == (disk == "1")  # read from disk, not rendered
        before = (rendered["points"], lg.free_agents_response_bytes(fa))
        team = lg.roster_now(1)
        rostered = {p for t in lg.team_ids() for p in lg.roster_now(t)}
        add = next(int(p) for p in lg.base["players"] if int(p) not in rostered)
        lg.apply_move(1, next(iter(team)), add)
        after[disk + str(len(after))] = (lg.league_response_bytes(),
                                         lg.free_agents_response_bytes(fa), before[1])
        assert json.loads(after[disk + str(len(after) - 1)][0]) == lg.league_response()
    assert after["00"] == after["11"] == after["12"] and after["12"][0] != rendered["points"]
    files = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("demo-"))
    assert len(files) == 5  # a state with a move is never written

    for name in files:
        (tmp_path / name).write_text("not json")
    again = DemoLeague("points")
    assert again._base_lineups == fresh["points"]._base_lineups
    assert again.league_response_bytes() == rendered["points"]


async def test_the_player_pool_and_resolvers_follow_the_league_snapshot(tmp_path: Any) -> None:
    """Turns on unchanged data share the merged player pool and its resolvers (nothing is
    merged or built again); a move makes a new league snapshot, hence a new pool holding
    the new league's players."""
    from agents.shared.player_pool import league_pool, league_resolver, name_resolver

    db = await Database.open(tmp_path / "app.sqlite")
    client = open_demo_client("points", cache=TTLCache(db), state_path=tmp_path / "d.json")
    try:
        first = AgentDeps.for_client(client, OfflineChatModel())
        pool = await league_pool(first)
        resolver, names = await league_resolver(first), await name_resolver(first)
        second = AgentDeps.for_client(client, OfflineChatModel())  # the next turn's deps
        assert await league_pool(second) is pool
        assert await league_resolver(second) is resolver
        assert await name_resolver(second) is names
        assert resolver.resolve("Jalen Brunson").player is not None

        svc = await optimizer_for(second)
        drop = next(e.player.id for e in svc.league.team(1).roster
                    if e.player.id not in svc.untouchable)
        add = svc.free_agents[0].id
        client.demo.apply_move(1, drop, add)
        after = AgentDeps.for_client(client, OfflineChatModel())
        moved = await league_pool(after)
        assert moved is not pool
        league = (await client.get_league())
        assert moved.players[add] is next(e.player for e in league.team(1).roster
                                          if e.player.id == add)
    finally:
        await client.aclose()
        await db.close()


async def test_weekly_plans_and_request_keys_follow_the_snapshot(tmp_path: Any) -> None:
    """A service's plan is computed once per team; a move (a new snapshot, a new demo
    cache namespace) gives a new service, a new plan and new request keys."""
    from agents.shared.deps import weekly_plan_of

    db = await Database.open(tmp_path / "app.sqlite")
    client = open_demo_client("points", cache=TTLCache(db), state_path=tmp_path / "d.json")
    try:
        svc = await optimizer_for(AgentDeps.for_client(client, OfflineChatModel()))
        plan = weekly_plan_of(svc, 1)
        assert weekly_plan_of(svc, 1) is plan and weekly_plan_of(svc, 2) is not plan
        assert plan.to_dict() == svc.weekly_plan(1).to_dict()
        key = client._key("league", "/x", [("view", "mTeam")], None)
        drop = next(e.player.id for e in svc.league.team(1).roster
                    if e.player.id not in svc.untouchable)
        client.demo.apply_move(1, drop, svc.free_agents[0].id)
        moved = await optimizer_for(AgentDeps.for_client(client, OfflineChatModel()))
        assert moved is not svc and weekly_plan_of(moved, 1) is not plan
        assert client._key("league", "/x", [("view", "mTeam")], None) != key
    finally:
        await client.aclose()
        await db.close()
