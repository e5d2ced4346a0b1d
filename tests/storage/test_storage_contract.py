"""The storage contract: the same tests on SQLite (embedded default) and on a real
PostgreSQL server (FANVISE_DATABASE_URL), through storage.backend's factories: the raw
database (SQL dialect, rows, transactions), the app tables (cards and claims, audit, links,
daily ledger, events, rate buckets, turns), the ESPN TTL cache, the Slack event de-dup, and
the checkpoint store (LangGraph saver, runs table, retention, crash point)."""

from __future__ import annotations

import asyncio
import operator
import time
import uuid
from typing import Annotated, Any, TypedDict

import pytest
from cryptography.fernet import Fernet
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from storage.app_db import AppDB, CardRow, DailySchedule, TurnRow, new_card_id
from storage.backend import open_checkpoint_store, open_database

S2 = "AEBx" + "Zq7" * 40 + "%3D"
SWID = "{8C1E2C7A-1B2C-4D5E-9F00-ABCDEF123456}"


@pytest.fixture
async def db(app_target):
    d = await open_database(app_target)
    yield d
    await d.close()


@pytest.fixture
async def app(db):
    return await AppDB.open(db, secret_key=Fernet.generate_key().decode())


@pytest.fixture
async def store(checkpoint_target):
    s = await open_checkpoint_store(checkpoint_target)
    yield s
    await s.close()


def _card(card_id: str, **kw: Any) -> CardRow:
    base: dict[str, Any] = dict(
        card_id=card_id, run_thread_id="c:opt:abc", interrupt_id="i1", conversation_id="c",
        platform="slack", workspace_id="T", channel_id="C", thread_id="1.0", message_id=None,
        requester_id="U1", requester_name="Ann", team_id=1, title="Moves", summary="s",
        moves=[{"move_id": "1-2"}, {"move_id": "3-4"}], decisions={}, status="pending")
    base.update(kw)
    return CardRow(**base)


# ---------------------------------------------------------------------------- raw database


async def test_dialect_rows_and_placeholders(db, backend) -> None:
    assert db.dialect == backend
    await db.executescript("CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v REAL, "
                           "n INTEGER, b BLOB);"
                           "CREATE TABLE IF NOT EXISTS log (id INTEGER PRIMARY KEY "
                           "AUTOINCREMENT, msg TEXT NOT NULL)")
    await db.executescript("CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v REAL)")
    now = time.time()
    assert await db.execute("INSERT INTO kv (k, v, n, b) VALUES (?, ?, ?, ?)",
                            ("a%b", now, 2**40, b"\x00\xff")) == 1
    row = await db.fetchone("SELECT k, v, n, b FROM kv WHERE k LIKE ? ESCAPE '\\'",
                            ("a\\%%",))
    assert row is not None
    assert row["v"] == now  # a Unix time survives exactly (REAL is 8 bytes on both)
    assert row[0] == "a%b" and row["n"] == 2**40 and bytes(row["b"]) == b"\x00\xff"
    assert list(row.keys()) == ["k", "v", "n", "b"] and dict(row)["k"] == "a%b"
    # a literal % in the SQL text next to placeholders
    assert await db.fetchone("SELECT k FROM kv WHERE k LIKE 'a%' AND n = ?", (2**40,))
    # INSERT OR IGNORE / OR REPLACE keep working (ON CONFLICT on Postgres)
    assert await db.execute("INSERT OR IGNORE INTO kv (k, v) VALUES (?, ?)", ("a%b", 1.0)) == 0
    await db.execute("INSERT OR REPLACE INTO kv (k, v, n) VALUES (?, ?, ?)", ("a%b", 2.5, 7))
    assert (await db.fetchone("SELECT v, n FROM kv WHERE k = ?", ("a%b",)))["n"] == 7
    await db.executemany("INSERT INTO log (msg) VALUES (?)", [("x",), ("y",)])
    assert [r["msg"] for r in await db.fetchall("SELECT msg FROM log ORDER BY id")] == \
        ["x", "y"]
    assert {"k", "v", "n", "b"} <= await db.columns("kv")
    assert await db.columns("nope") == set()
    await db.ping()


async def test_old_tables_gain_new_columns_once_under_concurrent_opens(db, app_target
                                                                        ) -> None:
    """Tables made by an older version (no `owner`) get the column when several processes
    open the app DB at once: the losers of the ALTER race are fine (it failed with
    DuplicateColumn on Postgres when two processes started together)."""
    await db.execute("DROP TABLE IF EXISTS cards")
    await db.execute("DROP TABLE IF EXISTS turns")
    await db.execute("CREATE TABLE cards (card_id TEXT PRIMARY KEY, run_thread_id TEXT,"
                     " conversation_id TEXT, status TEXT, shown INTEGER)")
    await db.execute("CREATE TABLE turns (turn_id TEXT PRIMARY KEY, conversation_id TEXT,"
                     " status TEXT)")
    others = [await open_database(app_target) for _ in range(3)]
    try:
        await asyncio.gather(*(AppDB.open(d) for d in [db, *others]))
    finally:
        for d in others:
            await d.close()
    assert "owner" in await db.columns("cards") and "owner" in await db.columns("turns")


async def test_transaction_commits_or_rolls_back(db) -> None:
    await db.executescript("CREATE TABLE IF NOT EXISTS t (k TEXT PRIMARY KEY)")
    async with db.transaction():
        await db.execute("INSERT INTO t (k) VALUES (?)", ("kept",), commit=False)
    with pytest.raises(RuntimeError):
        async with db.transaction():
            await db.execute("INSERT INTO t (k) VALUES (?)", ("lost",), commit=False)
            raise RuntimeError("boom")
    assert [r["k"] for r in await db.fetchall("SELECT k FROM t")] == ["kept"]


# ---------------------------------------------------------------------------- app tables


async def test_card_claimed_once_and_audited(app) -> None:
    cid = new_card_id()
    await app.create_card(_card(cid, shown=False))
    assert [c.card_id for c in await app.unshown_cards()] == [cid]
    await app.mark_card_shown(cid, "M1")
    assert (await app.card_for_run("c:opt:abc", "i1")).message_id == "M1"
    assert await app.record_move_decision(cid, 0, "approve")
    assert not await app.record_move_decision(cid, 0, "decline")
    wins = await asyncio.gather(*(app.claim_card(cid, user_id=f"U{i}", user_name="x",
                                                 decisions={"1": "approve"})
                                  for i in range(8)))
    assert sum(wins) == 1
    card = await app.get_card(cid)
    assert card.status == "deciding" and card.decisions == {"0": "approve", "1": "approve"}
    await app.release_card(cid)
    assert (await app.get_card(cid)).status == "pending"
    assert await app.claim_card(cid, user_id="U9", user_name="z")
    await app.finish_card(cid, status="approved", result={"ok": True})
    done = await app.get_card(cid)
    assert done.status == "approved" and done.result == {"ok": True} and not done.shown
    assert not await app.claim_card(cid, user_id="U1", user_name="a")
    assert [c.card_id for c in await app.cards_by_status("approved")] == [cid]
    assert await app.pending_cards() == []
    await app.audit(card_id=cid, run_thread_id="r", platform="slack", user_id="U1",
                    user_name="Ann", decision="approve", result="applied", move_index=0)
    await app.audit(card_id=cid, run_thread_id="r", platform="slack", user_id="U2",
                    user_name="Bo", decision="approve", result="already-decided")
    rows = await app.audit_rows(cid)
    assert [r["user_id"] for r in rows] == ["U1", "U2"] and rows[0]["move_index"] == 0


async def test_links_store_encrypted_cookies(app, db) -> None:
    await app.set_link(platform="discord", workspace_id="G", user_id="42",
                       league_id=2_000_000_123, season=2025, team_id=3, cookies=(S2, SWID))
    await app.set_link(platform="discord", workspace_id="G", user_id="42",
                       league_id=2_000_000_123, season=2025, team_id=4)
    link = await app.get_link("discord", "G", "42")
    assert link.team_id == 4 and link.cookies() == (S2, SWID) and link.linked_at > 0
    raw = await db.fetchone("SELECT cookies FROM league_links")
    assert S2.encode() not in bytes(raw["cookies"])
    assert await app.cookies_for_league(2_000_000_123) == (S2, SWID)
    assert [x.user_id for x in await app.links_for_team(2_000_000_123, 4)] == ["42"]
    assert await app.delete_link("discord", "G", "42")
    assert await app.get_link("discord", "G", "42") is None


async def test_daily_post_claimed_once_and_retried_after_failure(app) -> None:
    await app.set_schedule(DailySchedule("slack:T:C", "slack", "T", "C", "09:00",
                                         "America/New_York", 1))
    assert [s.hhmm for s in await app.schedules("slack")] == ["09:00"]
    wins = await asyncio.gather(*(app.claim_daily_post("slack:T:C", "2026-11-24")
                                  for _ in range(6)))
    assert sum(wins) == 1
    await app.finish_daily_post("slack:T:C", "2026-11-24", ok=False)
    assert not await app.claim_daily_post("slack:T:C", "2026-11-24")  # too soon
    assert await app.claim_daily_post("slack:T:C", "2026-11-24", retry_failed_after=0.0)
    await app.finish_daily_post("slack:T:C", "2026-11-24", ok=True, message_id="M")
    assert not await app.claim_daily_post("slack:T:C", "2026-11-24", retry_failed_after=0.0)
    assert [r["status"] for r in await app.daily_posts("slack:T:C")] == ["posted"]
    assert await app.delete_schedule("slack:T:C")


async def test_events_rate_buckets_and_turns(app) -> None:
    firsts = await asyncio.gather(*(app.mark_event_processed("Ev1") for _ in range(5)))
    assert sum(firsts) == 1
    waits = [await app.take_token("u", capacity=2, per_minute=6) for _ in range(3)]
    assert waits[:2] == [0.0, 0.0] and 0 < waits[2] <= 10.0
    await app.penalize_bucket("ws", 30.0, per_minute=60.0)
    assert await app.take_token("ws", capacity=5, per_minute=60.0) > 25.0
    now = time.time()
    turn = TurnRow("t1", "c", "slack", "T", "C", "1.0", "U1", "Ann", 1, "hi",
                   {"intent": "x"}, None, "running", 1, now, now)
    await app.start_turn(turn)
    await app.start_turn(turn)  # replaced, not duplicated
    await app.set_turn("t1", message_id="M1", attempts=2)
    [open_turn] = await app.open_turns()
    assert open_turn.message_id == "M1" and open_turn.attempts == 2
    assert open_turn.request == {"intent": "x"}
    assert (await app.last_turn_of("c", "U1")).turn_id == "t1"
    await app.set_turn("t1", status="done")
    assert await app.open_turns() == []
    assert await app.prune_turns(older_than=-10.0) == 1


async def test_espn_cache_and_slack_event_dedup(db) -> None:
    from bot.slack.store import EventDeduper
    from storage.cache import TTLCache

    cache = TTLCache(db)
    await cache.set("league:1:roster", {"teams": [1, 2]}, 45.0)
    await cache.set("league:1:fa", [1], None)
    await cache.set("league:2:roster", {"x": "100%"}, 45.0)
    assert await cache.get("league:1:roster") == {"teams": [1, 2]}
    assert await cache.invalidate_prefix("league:1:") == 2
    assert await cache.get("league:2:roster") == {"x": "100%"}
    dedup = EventDeduper(db)
    assert [await dedup.first_seen("Ev9") for _ in range(3)] == [True, False, False]


# ---------------------------------------------------------------------------- checkpoints


class _S(TypedDict):
    log: Annotated[list[str], operator.add]


def _graph(saver: Any) -> Any:
    def plan(state: _S) -> dict[str, Any]:
        return {"log": ["planned"]}

    def approve(state: _S) -> dict[str, Any]:
        answer = interrupt({"moves": ["drop A, add B"]})
        return {"log": [f"decided:{answer}"]}

    g = StateGraph(_S)
    g.add_node("plan", plan)
    g.add_node("approve", approve)
    g.add_edge(START, "plan")
    g.add_edge("plan", "approve")
    g.add_edge("approve", END)
    return g.compile(checkpointer=saver)


async def test_checkpoints_interrupt_resume_and_runs_table(store, backend) -> None:
    assert store.dialect == backend
    graph = _graph(store.saver)
    tid = f"conv:opt:{uuid.uuid4().hex[:6]}"
    cfg = {"configurable": {"thread_id": tid}}
    await store.record_run(tid, "conv", status="running", requester="U1", team_id=3,
                           intent="optimize", run_input={"week": 5})
    await graph.ainvoke({"log": []}, cfg)
    snap = await graph.aget_state(cfg)
    assert snap.next == ("approve",) and snap.interrupts
    await store.set_run_status(tid, "pending")
    assert [r.run_thread_id for r in await store.list_runs(statuses=("pending",))] == [tid]
    await store.record_decision(tid, "U1", {"m1": "approve"}, interrupt_id=snap.interrupts[0].id,
                                status="resuming")
    run = await store.get_run(tid)
    assert run.decisions() == {"m1": "approve"} and run.status == "resuming"
    assert run.run_input() == {"week": 5} and run.team_id == 3
    # prune keeps a resumable thread
    before = await store.size_bytes()
    assert before > 0
    await store.prune_thread(tid)
    out = await graph.ainvoke(Command(resume="yes"), cfg)
    assert out["log"] == ["planned", "decided:yes"]
    await store.set_run_status(tid, "done")
    assert [r.run_thread_id for r in await store.list_runs(conversation_id="conv")] == [tid]
    assert await store.get_run("missing") is None
    await store.ping()


async def test_retention_on_both(store) -> None:
    graph = _graph(store.saver)
    threads = {}
    for name, status in (("ended", "done"), ("waiting", "pending"), ("live", "running")):
        tid = f"c:{name}"
        threads[name] = tid
        await store.record_run(tid, "c", status=status)
        await graph.ainvoke({"log": []}, {"configurable": {"thread_id": tid}})
    assert set(await store.thread_ids()) == set(threads.values())
    last = await store.thread_last_activity()
    assert abs(last[threads["live"]] - time.time()) < 120
    later = time.time() + 10 * 86400
    assert await store.delete_finished_run_threads(1.0, now=later) == [threads["ended"]]
    assert await store.get_run(threads["ended"]) is not None  # the row stays
    assert await store.expire_pending_runs(1.0, now=later) == [threads["waiting"]]
    assert (await store.get_run(threads["waiting"])).status == "expired"
    assert await store.delete_idle_threads(1.0, now=later) == [threads["live"]]
    assert await store.thread_ids() == []
    await store.vacuum()


async def test_run_rows_same_on_both(store) -> None:
    """The run-row SQL both stores share (storage.runs): a re-recorded run starts over
    (decision cleared, one row), several statuses filter together, expiry marks each
    stale pending run once and idle clean-up drops the rows of runs without checkpoints."""
    await store.record_run("r1", "c", status="pending", requester="U1", run_input={"a": 1})
    await store.record_decision("r1", "U2", {"m": "approve"}, interrupt_id="i1")
    run = await store.get_run("r1")
    assert (run.decided_by, run.decisions(), run.status) == ("U2", {"m": "approve"}, "pending")
    await store.record_run("r1", "c2", status="running", team_id=4)
    run = await store.get_run("r1")
    assert (run.conversation_id, run.status, run.team_id, run.decided_by, run.decision,
            run.decided_interrupt, run.input) == ("c2", "running", 4, "", "", "", "")
    await store.record_run("r2", "c", status="pending")
    await store.record_run("r3", "c", status="done")
    assert [r.run_thread_id for r in await store.list_runs(
        statuses=("running", "pending"))] == ["r1", "r2"]
    assert [r.run_thread_id for r in await store.list_runs(
        statuses=("done", "pending"), conversation_id="c")] == ["r2", "r3"]
    with pytest.raises(ValueError):
        await store.set_run_status("r1", "bogus")
    await store.set_run_status("r1", "pending")
    later = time.time() + 10 * 86400
    assert sorted(await store.expire_pending_runs(1.0, now=later)) == ["r1", "r2"]
    assert await store.expire_pending_runs(1.0, now=later) == []
    assert [r.status for r in await store.list_runs()] == ["expired", "expired", "done"]
    assert await store.delete_idle_threads(1.0, now=later) == []
    assert await store.list_runs() == []


async def test_writes_crash_point_on_both(store, monkeypatch) -> None:
    import storage.crashpoint as cp

    hits: list[str] = []
    monkeypatch.setattr(cp, "crash_point", hits.append)  # both savers call writes_saved
    graph = _graph(store.saver)
    await graph.ainvoke({"log": []}, {"configurable": {"thread_id": "crash"}})
    assert "writes:plan" in hits


async def test_lease_excludes_other_processes_on_postgres(pg_server) -> None:
    """Two stores on one database (two pools, as two processes have): a lease is held by
    one at a time, and a holder that died loses it after its ttl. (On SQLite a lease is a
    no-op: one process per file.)"""
    url = pg_server.create_database("lease")
    a, b = await open_checkpoint_store(url), await open_checkpoint_store(url)
    try:
        order: list[str] = []

        async def hold(store: Any, tag: str) -> None:
            async with store.lease("conv:slack:T:C:1", ttl=5.0):
                order.append(f"{tag}+")
                await asyncio.sleep(0.3)
                order.append(f"{tag}-")

        await asyncio.gather(hold(a, "A"), hold(b, "B"), hold(a, "C"))
        assert [x[1] for x in order] == ["+", "-"] * 3, order  # never two holders at once
        assert await a.try_lease("dead", "crashed-process", 0.2)
        assert not await b.try_lease("dead", "other", 5.0)
        await asyncio.sleep(0.3)
        assert await b.try_lease("dead", "other", 5.0)  # the dead holder's lease expired
    finally:
        await a.close()
        await b.close()


async def test_sqlite_lease_is_a_no_op(tmp_path) -> None:
    store = await open_checkpoint_store(tmp_path / "checkpoints.sqlite")
    try:
        async with store.lease("x"), store.lease("x"):
            pass
    finally:
        await store.close()


async def test_recovery_sees_only_orphaned_work(backend, app_target, checkpoint_target,
                                                tmp_path) -> None:
    """Start-up recovery on a shared database must leave another live process's in-flight
    work alone and take over a dead one's (or its own previous incarnation's). On SQLite
    (one process per file) every row is an orphan."""
    same_db = backend == "postgres"
    db = await open_database(app_target)
    if same_db:  # the app tables and the checkpoints share one Postgres database
        from storage.postgres import PgCheckpointStore

        store_a = await PgCheckpointStore.open(str(app_target), owner="host-a")
        store_b = await PgCheckpointStore.open(str(app_target), owner="host-b")
    else:
        store_a = store_b = await open_checkpoint_store(checkpoint_target)
    try:
        a = await AppDB.open(db, owner="host-a")
        b = await AppDB.open(db, owner="host-b")
        again = await AppDB.open(db, owner="host-a")  # host-a restarted
        await store_a.record_run("r1", "c", status="running")
        now = time.time()
        await a.start_turn(TurnRow("t1", "c", "slack", "T", "C", "1.0", "U1", "Ann", 1, "hi",
                                   None, None, "running", 1, now, now))
        await a.create_card(_card("card1", shown=False))
        assert await a.claim_card("card1", user_id="U1", user_name="Ann")

        async def seen_by(app: AppDB, store: Any, *, takeover: bool = False
                          ) -> tuple[int, int, int, int]:
            f = {"takeover": True} if takeover else {"orphaned_only": True}
            return (len(await store.list_runs(statuses=("running",), **f)),
                    len(await app.open_turns(**f)),
                    len(await app.cards_by_status("deciding", **f)),
                    len(await app.unshown_cards(**f)))

        everything, nothing = (1, 1, 1, 1), (0, 0, 0, 0)
        assert await seen_by(again, store_a) == everything
        assert len(await b.open_turns()) == 1  # without the filter: all rows
        # periodic takeover never takes a process's own (maybe in-flight) work
        assert await seen_by(again, store_a, takeover=True) == nothing
        if not same_db:
            assert await seen_by(b, store_b) == everything
            assert await seen_by(b, store_b, takeover=True) == nothing  # SQLite: never
            return
        assert await seen_by(b, store_b) == nothing  # host-a is alive: its work
        assert await seen_by(b, store_b, takeover=True) == nothing
        await db.execute("UPDATE fanvise_processes SET heartbeat = 0 WHERE owner = ?",
                         ("host-a",))
        assert await seen_by(b, store_b) == everything  # host-a went silent: orphans
        assert await seen_by(b, store_b, takeover=True) == everything
        assert await seen_by(again, store_a, takeover=True) == nothing
        await store_a.beat()
        assert await seen_by(b, store_b) == nothing
        assert await seen_by(b, store_b, takeover=True) == nothing
        await store_a.close()  # a clean stop gives its leftovers up
        assert await seen_by(b, store_b) == everything
        assert await seen_by(b, store_b, takeover=True) == everything
    finally:
        await store_a.close()
        if store_b is not store_a:
            await store_b.close()
        await db.close()


async def test_the_retention_job_runs_on_both(backend, checkpoint_target, tmp_path) -> None:
    """`FanViseRuntime.prune` (the daily retention job) on either back end, after a turn."""
    from agents.runtime import FanViseRuntime

    url = str(checkpoint_target) if backend == "postgres" else None
    rt = await FanViseRuntime.open(tmp_path / "data", database_url=url)
    try:
        assert rt.store.dialect == backend
        events = [e async for e in rt.ask("c1", "hello", user_id="U1")]
        assert events
        stats = await rt.prune(max_idle_days=30.0)
        assert {"threads_deleted", "rows_deleted", "bytes_before", "bytes_after"} <= set(stats)
        assert stats["bytes_before"] > 0 and stats["threads_deleted"] == 0
    finally:
        await rt.close()
