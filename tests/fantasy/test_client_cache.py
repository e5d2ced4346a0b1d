"""The ESPN client's parsed-object cache, single flight, retry jitter and read-only objects.

ESPN is faked only at the wire (the demo league's transport, wrapped to count and delay
requests); the cache is the real TTLCache on a real SQLite file.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import pickle
from collections import Counter
from pathlib import Path

import httpx
import pytest

from fantasy.demo import DEMO_BASE_URL, DemoLeague, DemoTransport
from fantasy.espn import EspnClient, EspnServerError
from fantasy.espn.circuit import CircuitBreaker
from fantasy.espn.readonly import ReadOnlyList, freeze, is_read_only
from fantasy.models import Player, StatLine
from storage.cache import RECHECK_AFTER, TTLCache
from storage.db import Database


class Clock:
    def __init__(self, t: float = 1_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


class CountingTransport(httpx.AsyncBaseTransport):
    """Serves the demo league after `delay` seconds, counting requests by view; while
    `status` is set, answers every request with that HTTP status instead."""

    def __init__(self, league: DemoLeague, delay: float = 0.0) -> None:
        self.inner = DemoTransport(league)
        self.delay = delay
        self.status: int | None = None
        self.views: Counter[str] = Counter()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.views[",".join(request.url.params.get_list("view"))] += 1
        await asyncio.sleep(self.delay)
        if self.status is not None:
            return httpx.Response(self.status, json={"messages": ["down"]})
        return await self.inner.handle_async_request(request)


@pytest.fixture
async def db(tmp_path: Path):
    d = await Database.open(tmp_path / "cache.sqlite")
    yield d
    await d.close()


def demo_client(cache: TTLCache | None, delay: float = 0.0, tmp: Path | None = None,
                **kw) -> tuple[EspnClient, CountingTransport]:
    league = DemoLeague("points", state_path=tmp / "state.json" if tmp else None)
    transport = CountingTransport(league, delay)
    client = EspnClient(league.league_id, league.season, transport=transport, cache=cache,
                        base_url=DEMO_BASE_URL, max_retries=0, today=lambda: league.today, **kw)
    client.demo = league
    league.attach_client(client)
    return client, transport


LEAGUE_VIEW = "mTeam,mRoster,mMatchup,mSettings,mStandings"


async def test_a_hit_returns_the_parsed_objects_while_the_row_is_unchanged(db, tmp_path) -> None:
    clock = Clock()
    client, wire = demo_client(TTLCache(db, clock=clock), tmp=tmp_path)
    league = await client.get_league()
    sched = await client.get_pro_schedule()
    fas = await client.get_free_agents(size=20)
    cards = await client.get_player_cards([3934672])
    everyone = await client.get_all_players()
    assert await client.get_league() is league
    assert await client.get_pro_schedule() is sched
    again = await client.get_free_agents(size=20)
    assert again == fas and again is not fas and all(a is b for a, b in zip(again, fas,
                                                                              strict=True))
    assert (await client.get_player_cards([3934672]))[0] is cards[0]
    assert (await client.get_all_players())[0] is everyone[0]
    assert client.last_fetch_info is not None and client.last_fetch_info.source == "cache"
    assert wire.views[LEAGUE_VIEW] == 1 and wire.views["proTeamSchedules_wl"] == 1

    # expiry: the league is read again from ESPN and parsed anew (45 s), the schedule is not
    clock.t += 46
    fresh = await client.get_league()
    assert fresh is not league and fresh == league and wire.views[LEAGUE_VIEW] == 2
    assert await client.get_pro_schedule() is sched

    # an applied demo move: the league and free agents change, the pro schedule and the
    # player universe stay cached (kept out of the per-move namespace)
    me = fresh.team(1)
    drop, add = me.roster[-1].player, fas[0]
    client.demo.apply_move(1, drop.id, add.id)
    moved = await client.get_league()
    assert add.id in moved.team(1).player_ids and drop.id not in moved.team(1).player_ids
    assert add.id not in {p.id for p in await client.get_free_agents(size=20)}
    assert await client.get_pro_schedule() is sched
    assert (await client.get_all_players())[0] is everyone[0]
    assert wire.views["proTeamSchedules_wl"] == 1 and wire.views["players_wl"] == 1
    await client.aclose()


class SpacedTransport(httpx.AsyncBaseTransport):
    """The demo league's answers as a server that indents its JSON sends them."""

    def __init__(self, league: DemoLeague) -> None:
        self.inner = DemoTransport(league)
        self.sent: dict[str, str] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        resp = await self.inner.handle_async_request(request)
        body = await resp.aread()
        text = json.dumps(json.loads(body), indent=1)
        self.sent[",".join(request.url.params.get_list("view"))] = text
        return httpx.Response(resp.status_code, content=text.encode(),
                              headers={"content-type": "application/json"})


async def test_the_cache_stores_the_body_as_sent(db) -> None:
    """The response's own JSON text is stored, not encoded again: the row is the body as
    the server sent it, and a fresh cache reads it back as the decoded body."""
    league = DemoLeague("points")
    transport = SpacedTransport(league)
    client = EspnClient(league.league_id, league.season, transport=transport,
                        cache=TTLCache(db), base_url=DEMO_BASE_URL, max_retries=0,
                        today=lambda: league.today)
    league.attach_client(client)
    try:
        parsed = await client.get_league()
        sent = transport.sent[LEAGUE_VIEW]
        rows = await db.fetchall("SELECT key, value FROM espn_cache")
        row = next(r for r in rows if ":league:" in r["key"])
        assert row["value"] == sent and "\n" in sent
        entry = await TTLCache(db).get_entry(row["key"])
        assert entry is not None and entry.value == json.loads(sent)
        assert [e.player.id for e in parsed.team(1).roster] == [
            e["playerId"] for e in next(t for t in json.loads(sent)["teams"]
                                        if t["id"] == 1)["roster"]["entries"]]
    finally:
        await client.aclose()


async def test_a_write_by_another_process_is_seen(db) -> None:
    clock = Clock()
    client, _wire = demo_client(TTLCache(db, clock=clock))
    league = await client.get_league()
    key = next(k for k in client.cache._memo if ":league:" in k)  # type: ignore[union-attr]
    other = TTLCache(db, clock=lambda: clock.t + 1)  # another process, same file
    data = (await other.get_entry(key)).value
    changed = copy.deepcopy(data)
    changed["teams"][0]["name"] = "Renamed In Another Process"
    await other.set(key, changed, 45)
    clock.t += RECHECK_AFTER  # seen once this process asks again (TTLCache.recheck_after)
    seen = await client.get_league()
    assert seen is not league and seen.teams[0].name == "Renamed In Another Process"
    await client.aclose()


async def test_cached_objects_are_read_only_and_copies_are_not(db) -> None:
    client, _wire = demo_client(TTLCache(db))
    league = await client.get_league()
    team = league.team(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        team.name = "mine now"
    with pytest.raises(TypeError):
        team.roster.append(team.roster[0])
    with pytest.raises(TypeError):
        team.roster[0].player.stats["season"] = StatLine()
    with pytest.raises(dataclasses.FrozenInstanceError):
        (await client.get_pro_schedule()).season = 1999
    fas = await client.get_free_agents(size=10)
    fas.sort(key=lambda p: p.name)  # the caller's own list
    assert [p.percent_owned for p in await client.get_free_agents(size=10)] == sorted(
        (p.percent_owned for p in fas), reverse=True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fas[0].injury_status = "OUT"
    mine = copy.deepcopy(team)
    mine.name = "mine now"
    mine.roster.append(mine.roster[0])
    assert not is_read_only(mine) and team.name == "Hoop Dreamers" and len(team.roster) == 13
    assert (await client.get_league()).team(1).name == "Hoop Dreamers"
    await client.aclose()


async def test_ten_concurrent_misses_make_one_espn_call(db) -> None:
    client, wire = demo_client(TTLCache(db), delay=0.05)
    leagues = await asyncio.gather(*(client.get_league() for _ in range(10)))
    assert wire.views[LEAGUE_VIEW] == 1 and wire.views["proTeamSchedules_wl"] == 1
    assert all(lg is leagues[0] for lg in leagues)
    await client.aclose()


async def test_concurrent_misses_share_a_failure_then_retry_after_it(db) -> None:
    client, wire = demo_client(TTLCache(db), delay=0.05,
                               circuit=CircuitBreaker(failure_threshold=100))
    wire.status = 500
    results = await asyncio.gather(*(client.get_free_agents(size=5) for _ in range(10)),
                                   return_exceptions=True)
    assert all(isinstance(r, EspnServerError) for r in results)
    assert wire.views["kona_player_info"] == 1  # one call (the schedule is fetched too)
    wire.status = None
    assert len(await client.get_free_agents(size=5)) == 5
    assert wire.views["kona_player_info"] == 2
    await client.aclose()


async def test_a_cancelled_leader_leaves_the_fetch_to_a_waiting_caller(db) -> None:
    """The fetch is its own task: cancelling the caller that started it does not cancel
    it (issue 25: a turn that stops waiting still fills the cache)."""
    client, wire = demo_client(TTLCache(db), delay=0.2)
    await client.get_pro_schedule()
    leader = asyncio.create_task(client.get_free_agents(size=5))
    await asyncio.sleep(0.05)
    follower = asyncio.create_task(client.get_free_agents(size=5))
    await asyncio.sleep(0.05)
    leader.cancel()
    assert len(await follower) == 5
    assert leader.cancelled() and wire.views["kona_player_info"] == 1
    await client.aclose()


async def backoff_sleeps(rng_value: float, jitter: float = 0.5) -> list[float]:
    """The sleeps of a client whose every request fails with 503 (3 retries, backoff 1 s)."""
    slept: list[float] = []

    async def sleep(s: float) -> None:
        slept.append(s)

    client = EspnClient(1, 2023, transport=httpx.MockTransport(lambda r: httpx.Response(503)),
                        sleep=sleep, max_retries=3, backoff=1.0, retry_jitter=jitter,
                        rng=lambda: rng_value)
    with pytest.raises(EspnServerError):
        await client.get_all_players()
    await client.aclose()
    return slept


async def test_retry_backoff_has_jitter() -> None:
    assert await backoff_sleeps(0.0) == pytest.approx([1.0, 2.0, 4.0])
    assert await backoff_sleeps(1.0) == pytest.approx([0.5, 1.0, 2.0])
    assert await backoff_sleeps(0.5) == pytest.approx([0.75, 1.5, 3.0])
    assert await backoff_sleeps(1.0, jitter=0.0) == pytest.approx([1.0, 2.0, 4.0])


def test_freeze_keeps_equality_copies_pickles_and_replace() -> None:
    p = Player(id=1, name="A", eligible_slots=[0, 1], stats={"season": StatLine()})
    plain = copy.deepcopy(p)
    ro = freeze(p)
    assert ro == plain and plain == ro and repr(ro) == repr(plain)
    assert isinstance(ro, Player) and isinstance(ro.eligible_slots, ReadOnlyList)
    assert pickle.loads(pickle.dumps(ro)) == plain
    assert ro.to_dict() == plain.to_dict() and dataclasses.asdict(ro) == dataclasses.asdict(plain)
    changed = dataclasses.replace(ro, name="B")
    changed.name = "C"  # replace() gives an ordinary object
    shallow = copy.copy(ro)
    shallow.name = "D"
    assert ro.name == "A" and freeze(ro) is ro
    assert type(ro.eligible_slots + [2]) is list and ro.eligible_slots[:1] == [0]


async def test_a_reset_then_another_move_is_not_served_the_first_moves_league(db) -> None:
    client, _wire = demo_client(TTLCache(db))
    me = (await client.get_league()).team(1)
    first, second = (await client.get_free_agents(size=2))[:2]
    drop = me.roster[-1].player.id
    client.demo.apply_move(1, drop, first.id)
    assert first.id in (await client.get_league()).team(1).player_ids
    client.demo.reset()
    client.demo.apply_move(1, drop, second.id)  # as many changes as before, another state
    ids = (await client.get_league()).team(1).player_ids
    assert second.id in ids and first.id not in ids
    await client.aclose()
