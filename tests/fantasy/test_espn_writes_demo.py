"""The demo league serves ESPN's transaction endpoint with ESPN's rules, and the real write
path (fantasy.espn.writes) drives it: the demo's moves and lineups are the live code."""

from __future__ import annotations

import dataclasses
from datetime import datetime, time, timedelta

import pytest

from fantasy.constants import SLOT_BENCH, SLOT_IR, STARTING_SLOTS
from fantasy.demo import open_demo_client
from fantasy.demo.league import load_pro_schedule
from fantasy.demo.transactions import writes_for
from fantasy.espn.errors import (
    EspnCredentialsExpired,
    EspnLineupLocked,
    EspnMovesLimitReached,
    EspnPlayerUnavailable,
    EspnRosterFull,
    EspnStaleSlot,
    EspnWriteRefused,
)
from fantasy.espn.writes import (
    FUTURE_ROSTER,
    LINEUP,
    EspnWriter,
    Transaction,
    TxItem,
    make_move,
    writer_for,
)
from fantasy.schedule import EASTERN, espn_ms_to_datetime

pytestmark = pytest.mark.asyncio
TEAM = 1


@pytest.fixture
async def demo(tmp_path):
    client = open_demo_client("points", state_path=tmp_path / "state.json")
    yield client
    await client.aclose()


def writer(client, **kw) -> EspnWriter:
    return writer_for(client, team_id=TEAM, min_interval=0.0, **kw)


async def free_agent(client, status: str = "FREEAGENT") -> int:
    fas = await client.get_free_agents(size=50, statuses=(status,))
    return next(p.id for p in fas if p.status == status)


def bench(lg) -> list[int]:
    return [p for p, s in lg.roster_now(TEAM).items() if s == SLOT_BENCH]


def first_game(lg) -> datetime:
    games = [g for t in load_pro_schedule()["settings"]["proTeams"]
             for g in t["proGamesByScoringPeriod"].get(str(lg.today_sp)) or []]
    return min(espn_ms_to_datetime(g["date"]) for g in games)


async def test_a_demo_move_is_a_transaction_post_through_the_transport(demo) -> None:
    lg = demo.demo
    w = writer(demo)
    add, drop = await free_agent(demo), bench(lg)[0]
    res = await make_move(w, TEAM, add, drop, scoring_period=lg.today_sp, key="m1", actor="t")
    assert res.status == "done" and add in lg.roster_now(TEAM) and drop not in lg.roster_now(TEAM)
    transport = w._http._transport
    posts = [r for r in transport.requests if r.method == "POST"]
    assert len(posts) == 1 and posts[0].url.path.endswith(
        f"/leagues/{lg.league_id}/transactions/")
    # the league client sees the move at once
    league = await demo.get_league()
    assert add in {e.player.id for e in league.team(TEAM).roster}
    again = await make_move(w, TEAM, add, drop, scoring_period=lg.today_sp, key="m1", actor="t")
    assert again.status == "done" and len([r for r in transport.requests
                                           if r.method == "POST"]) == 1
    await w.aclose()


async def test_waiver_player_becomes_a_claim_processed_on_the_next_day(demo) -> None:
    lg = demo.demo
    w = writer(demo)
    add, drop = await free_agent(demo, "WAIVERS"), bench(lg)[0]
    res = await make_move(w, TEAM, add, drop, scoring_period=lg.today_sp, key="w1", actor="t")
    assert res.status == "pending" and "waivers" in res.note
    assert add not in lg.roster_now(TEAM)
    rec = await w.claim_result(res.claim_key, scoring_periods=[lg.today_sp])
    assert rec.status == "pending"
    lg.advance_to(lg.today + timedelta(days=1))  # waivers process
    rec = await w.claim_result(res.claim_key, scoring_periods=[lg.today_sp - 1, lg.today_sp])
    assert rec.status == "done"
    assert add in lg.roster_now(TEAM) and drop not in lg.roster_now(TEAM)
    await w.aclose()


async def test_a_claim_on_a_player_someone_else_got_fails_when_waivers_process(demo) -> None:
    lg = demo.demo
    w = writer(demo)
    add = await free_agent(demo, "WAIVERS")
    res = await make_move(w, TEAM, add, bench(lg)[0], scoring_period=lg.today_sp, key="w2",
                          actor="t")
    other = writer_for(demo, team_id=2, min_interval=0.0)
    other_bench = [p for p, s in lg.roster_now(2).items() if s == SLOT_BENCH]
    await other.claim(2, add, other_bench[0], scoring_period=lg.today_sp, key="w3", actor="o")
    lg.advance_to(lg.today + timedelta(days=1))
    mine = await w.claim_result(res.claim_key, scoring_periods=[lg.today_sp - 1])
    theirs = await other.claim_result("w3", scoring_periods=[lg.today_sp - 1])
    assert (mine.status, theirs.status) == ("done", "failed")  # first come first served
    assert theirs.error.startswith("FAILED")
    await w.aclose()
    await other.aclose()


async def test_refusals_follow_espns_rules(demo) -> None:
    lg = demo.demo
    w = writer(demo)
    fa, on_team = await free_agent(demo), next(iter(lg.roster_now(2)))
    drop = bench(lg)[0]
    with pytest.raises(EspnPlayerUnavailable):
        await w.add_drop(TEAM, on_team, drop, scoring_period=lg.today_sp, key="r1", actor="t")
    with pytest.raises(EspnRosterFull):
        await w.add_drop(TEAM, fa, None, scoring_period=lg.today_sp, key="r2", actor="t")
    with pytest.raises(EspnPlayerUnavailable) as ei:
        await w.add_drop(TEAM, await free_agent(demo, "WAIVERS"), drop,
                         scoring_period=lg.today_sp, key="r3", actor="t")
    assert ei.value.code == "TRAN_PLAYER_ON_WAIVERS"
    # only the team's owner: another member's id is refused
    stranger = EspnWriter(lg.league_id, lg.season, member_id="{DEMO-MEMBER-02}",
                          transport=lg.transport(), write_base_url=w.write_base_url,
                          read_base_url=w.read_base_url, min_interval=0.0)
    with pytest.raises(EspnCredentialsExpired):
        await stranger.add_drop(TEAM, fa, drop, scoring_period=lg.today_sp, key="r4",
                                actor="t")
    assert not lg.changes  # nothing changed
    await w.aclose()
    await stranger.aclose()


async def test_the_acquisition_limit_of_the_matchup(demo) -> None:
    lg = demo.demo
    w = writer(demo)
    used, limit = lg.acquisitions(TEAM)
    fas = [p.id for p in await demo.get_free_agents(size=50, statuses=("FREEAGENT",))]
    for i in range(limit - used):
        drop = bench(lg)[0]
        res = await make_move(w, TEAM, fas[i], drop, scoring_period=lg.today_sp,
                              key=f"a{i}", actor="t")
        assert res.status == "done", res.note
    res = await make_move(w, TEAM, fas[limit], bench(lg)[0], scoring_period=lg.today_sp,
                          key="over", actor="t")
    assert res.status == "failed" and isinstance(res.error, EspnMovesLimitReached)
    await w.aclose()


async def test_roster_lock_at_the_first_game_leaves_tomorrow_open(demo) -> None:
    lg = demo.demo
    writes_for(lg).now = lambda: first_game(lg) + timedelta(minutes=1)
    w = writer(demo)
    fa, drop = await free_agent(demo), bench(lg)[0]
    with pytest.raises(EspnLineupLocked):
        await w.add_drop(TEAM, fa, drop, scoring_period=lg.today_sp, key="l1", actor="t")
    out = await w.add_drop(TEAM, fa, drop, scoring_period=lg.today_sp + 1, key="l2", actor="t")
    assert out.status == "done"
    assert fa not in lg.roster_now(TEAM) and fa in lg.lineup_on(TEAM, lg.today_sp + 1)
    await w.aclose()


async def test_lineup_today_vs_future_and_the_lock(demo) -> None:
    lg = demo.demo
    w = writer(demo)
    roster = lg.roster_now(TEAM)
    ut = next(p for p, s in roster.items() if s == 11)
    bn = bench(lg)[0]
    today = lg.today_sp
    # LINEUP for a later day and FUTURE_ROSTER for today: ESPN refuses both
    for kind, sp in ((LINEUP, today + 1), (FUTURE_ROSTER, today)):
        with pytest.raises(EspnWriteRefused):
            await w.submit(Transaction(kind, TEAM, sp, (
                TxItem(ut, "LINEUP", from_slot=11, to_slot=SLOT_BENCH),)), key=f"k{kind}",
                actor="t")
    # a stale fromLineupSlotId
    with pytest.raises(EspnStaleSlot):
        await w.submit(Transaction(FUTURE_ROSTER, TEAM, today + 1, (
            TxItem(ut, "LINEUP", from_slot=0, to_slot=SLOT_BENCH),)), key="stale", actor="t")
    # a no-op item on a later day
    with pytest.raises(EspnWriteRefused) as ei:
        await w.submit(Transaction(FUTURE_ROSTER, TEAM, today + 1, (
            TxItem(ut, "LINEUP", from_slot=11, to_slot=11),)), key="noop", actor="t")
    assert ei.value.code == "TRAN_INVALID_SCORINGPERIOD_NOT_CURRENT"
    # IR only today (and only for a player who is out)
    out_player = next(p for p in roster if lg.injury_on(p, today)[0] == "OUT")
    with pytest.raises(EspnWriteRefused):
        await w.submit(Transaction(FUTURE_ROSTER, TEAM, today + 1, (
            TxItem(out_player, "LINEUP", from_slot=roster[out_player], to_slot=SLOT_IR),)),
            key="ir-later", actor="t")
    healthy = next(p for p in roster if lg.injury_on(p, today)[0] == "ACTIVE"
                   and roster[p] == SLOT_BENCH)
    with pytest.raises(EspnWriteRefused):
        await w.set_lineup(TEAM, {healthy: SLOT_IR}, scoring_period=today,
                           current_period=today, key="ir-healthy", actor="t")
    ir = await w.set_lineup(TEAM, {out_player: SLOT_IR}, scoring_period=today,
                            current_period=today, key="ir-today", actor="t")
    assert ir.status == "done" and lg.roster_now(TEAM)[out_player] == SLOT_IR
    assert not [c for c in lg.changes if c.kind == "lineup" and c.sp != today]
    # a later day is FUTURE_ROSTER and leaves today alone
    out = await w.set_lineup(TEAM, {ut: SLOT_BENCH, bn: 11}, scoring_period=today + 2,
                             current_period=today, key="f", actor="t")
    assert out.status == "done" and out.transaction.type == FUTURE_ROSTER
    assert lg.lineup_on(TEAM, today + 2)[bn] == 11 and lg.roster_now(TEAM)[bn] == SLOT_BENCH
    # after the first game (FIRSTGAME or every player's own game): today's lineup is locked
    writes_for(lg).now = lambda: datetime.combine(lg.today, time(23, 59), tzinfo=EASTERN)
    with pytest.raises(EspnLineupLocked):
        await w.set_lineup(TEAM, {ut: SLOT_BENCH, bn: 11}, scoring_period=today,
                           current_period=today, key="locked", actor="t")
    assert lg.roster_now(TEAM)[bn] == SLOT_BENCH
    await w.aclose()


async def test_individual_game_lock_locks_only_players_whose_game_started(demo) -> None:
    lg = demo.demo
    assert lg.settings["rosterSettings"]["lineupLocktimeType"] == "INDIVIDUAL_GAME"
    games = writes_for(lg)._games(lg.today_sp)
    first = min(games.values())
    later = [t for t, st in games.items() if st > first]
    if not later:
        pytest.skip("one start time that day")
    writes_for(lg).now = lambda: first + timedelta(minutes=1)
    roster = lg.roster_now(TEAM)
    pro = {p: int(lg.base["players"][str(p)]["player"]["proTeamId"]) for p in roster}
    started = [p for p in roster if games.get(pro[p]) == first and roster[p] in STARTING_SLOTS]
    w = writer(demo)
    if started:
        with pytest.raises(EspnLineupLocked):
            await w.set_lineup(TEAM, {started[0]: SLOT_BENCH}, scoring_period=lg.today_sp,
                               current_period=lg.today_sp, key="started", actor="t")
    not_started = [p for p in roster if pro[p] in later and roster[p] in STARTING_SLOTS]
    if not_started:
        out = await w.set_lineup(TEAM, {not_started[0]: SLOT_BENCH},
                                 scoring_period=lg.today_sp, current_period=lg.today_sp,
                                 key="later", actor="t")
        assert out.status == "done"
    await w.aclose()


async def test_claims_and_log_survive_a_restart(tmp_path) -> None:
    client = open_demo_client("points", state_path=tmp_path / "state.json")
    lg = client.demo
    w = writer(client)
    add = await free_agent(client, "WAIVERS")
    res = await make_move(w, TEAM, add, bench(lg)[0], scoring_period=lg.today_sp, key="c",
                          actor="t")
    assert res.status == "pending"
    await w.aclose()
    await client.aclose()
    again = open_demo_client("points", state_path=tmp_path / "state.json")
    log = writes_for(again.demo).transactions_response(None)["transactions"]
    assert [t["status"] for t in log] == ["PENDING"]
    again.demo.advance_to(again.demo.today + timedelta(days=1))
    log = writes_for(again.demo).transactions_response(None)["transactions"]
    assert [t["status"] for t in log] == ["EXECUTED"] and add in again.demo.roster_now(TEAM)
    await again.aclose()


async def test_an_ir_move_is_two_transactions_in_the_log(demo) -> None:
    """A move to IR: the leaving player's lineup change to IR, then the add without a drop;
    both are in the league's transaction log (ESPN's mTransactions2), each once."""
    lg = demo.demo
    w = writer(demo)
    out_player = next(p for p in lg.roster_now(TEAM) if lg.injury_on(p, lg.today_sp)[0] == "OUT")
    add = await free_agent(demo)
    res = await make_move(w, TEAM, add, out_player, scoring_period=lg.today_sp, key="ir1",
                          actor="t", drop_to_ir=True)
    assert res.status == "done"
    again = await make_move(w, TEAM, add, out_player, scoring_period=lg.today_sp, key="ir1",
                            actor="t", drop_to_ir=True)
    assert again.status == "done"
    log = writes_for(lg).transactions_response(None)["transactions"]
    assert [(t["type"], [(i["playerId"], i.get("toLineupSlotId")) for i in t["items"]])
            for t in log] == [(LINEUP, [(out_player, SLOT_IR)]), ("FREEAGENT", [(add, None)])]
    await w.aclose()


async def test_a_claim_put_in_is_settled_and_never_sent_as_an_add_again(demo) -> None:
    """A waiver player: ESPN refuses the free-agent add, the claim goes in. Made again with
    the same key (a recovery re-running the approval), only reads happen: no second claim,
    and the refused add is not sent again."""
    lg = demo.demo
    w = writer(demo)
    add = await free_agent(demo, "WAIVERS")
    res = await make_move(w, TEAM, add, bench(lg)[0], scoring_period=lg.today_sp, key="c1",
                          actor="t")
    assert res.status == "pending"
    posts = len([r for r in w._http._transport.requests if r.method == "POST"])
    assert posts == 2  # the refused add, then the claim
    again = await make_move(w, TEAM, add, bench(lg)[0], scoring_period=lg.today_sp, key="c1",
                            actor="t")
    assert again.status == "pending"
    assert len([r for r in w._http._transport.requests if r.method == "POST"]) == posts
    claims = [t for t in writes_for(lg).transactions_response(None)["transactions"]
              if t["type"] == "WAIVER"]
    assert len(claims) == 1
    await w.aclose()


async def test_settle_reads_back_a_write_left_sending(demo) -> None:
    """A write killed right after its POST is journaled "sending"; `settle` reads the roster
    back and records it done without sending anything; one not made is recorded failed."""
    from fantasy.espn.writes import DONE, FAILED, SENDING, MemoryJournal

    class Killed(Exception):
        pass

    def crash(name: str) -> None:
        if name == "espn_write:after_post":
            raise Killed(name)

    lg = demo.demo
    journal = MemoryJournal()
    w = writer(demo, journal=journal, crash=crash)
    add, drop = await free_agent(demo), bench(lg)[0]
    with pytest.raises(Killed):
        await w.add_drop(TEAM, add, drop, scoring_period=lg.today_sp, key="s1", actor="t")
    assert journal.rows["s1"].status == SENDING and add in lg.roster_now(TEAM)
    fresh = writer(demo, journal=journal)
    rec = await fresh.settle("s1")
    assert rec is not None and rec.status == DONE
    assert not [r for r in fresh._http._transport.requests if r.method == "POST"]
    # a write recorded "sending" that never reached ESPN: read back, failed, nothing sent
    other = await free_agent(demo)
    journal.rows["s2"] = dataclasses.replace(journal.rows["s1"], key="s2", status=SENDING,
                                             body={**journal.rows["s1"].body, "items": [
                                                 {"playerId": other, "type": "ADD",
                                                  "toTeamId": TEAM}]})
    assert (await fresh.settle("s2")).status == FAILED
    assert await fresh.settle("nothing") is None
    await w.aclose()
    await fresh.aclose()
