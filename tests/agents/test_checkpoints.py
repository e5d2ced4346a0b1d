"""storage.checkpoints: one-connection AsyncSqliteSaver, runs table, retention."""

from __future__ import annotations

import operator
import subprocess
import sys
import time
from pathlib import Path
from typing import Annotated

import pytest
from langgraph.checkpoint.base.id import uuid6
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict

from storage.checkpoints import CheckpointStore, checkpoint_id_time


class _S(TypedDict, total=False):
    log: Annotated[list[str], operator.add]
    ok: bool


def _graph(store: CheckpointStore, *, gate: bool = False):  # type: ignore[no-untyped-def]
    async def talk(state: _S) -> dict:
        return {"log": ["x" * 300] * 4}

    async def ask(state: _S) -> dict:
        return {"ok": interrupt({"q": "ok?"}) == "yes"}

    b = StateGraph(_S)
    b.add_node("talk", talk)
    b.add_edge(START, "talk")
    if gate:
        b.add_node("ask", ask)
        b.add_edge("talk", "ask")
        b.add_edge("ask", END)
    else:
        b.add_edge("talk", END)
    return b.compile(checkpointer=store.saver)


def cfg(t: str) -> dict:
    return {"configurable": {"thread_id": t}}


async def test_open_pragmas_and_close(tmp_path: Path) -> None:
    store = await CheckpointStore.open(tmp_path / "cp.sqlite")
    def pragma(name: str):  # type: ignore[no-untyped-def]
        return lambda c: c.execute(f"PRAGMA {name}").fetchone()[0]

    assert await store.worker.call(pragma("busy_timeout")) == 30000
    assert await store.worker.call(pragma("journal_mode")) == "wal"
    assert await store.worker.call(pragma("synchronous")) == 1  # NORMAL
    await store.close()
    await store.close()  # idempotent
    assert store.closed


def test_checkpoint_id_time() -> None:
    assert abs(checkpoint_id_time(str(uuid6())) - time.time()) < 5
    assert checkpoint_id_time("not-a-uuid") is None
    assert checkpoint_id_time("2c5e8f2a-9a0e-4d3c-8b8b-1a2b3c4d5e6f") is None  # v4


async def test_runs_table(tmp_path: Path) -> None:
    store = await CheckpointStore.open(tmp_path / "cp.sqlite")
    try:
        await store.record_run("c:opt:1", "c", status="running", requester="u", team_id=3,
                               intent="streaming")
        await store.record_run("d:opt:2", "d", status="pending")
        await store.set_run_status("c:opt:1", "pending")
        run = await store.get_run("c:opt:1")
        assert run and run.status == "pending" and run.team_id == 3 and run.intent == "streaming"
        assert [r.run_thread_id for r in await store.list_runs(statuses=("pending",))] == [
            "c:opt:1", "d:opt:2"]
        assert [r.run_thread_id for r in await store.list_runs(conversation_id="d")] == ["d:opt:2"]
        assert await store.get_run("nope") is None
        with pytest.raises(ValueError):
            await store.set_run_status("c:opt:1", "weird")
    finally:
        await store.close()
    again = await CheckpointStore.open(tmp_path / "cp.sqlite")  # survives reopen
    try:
        assert (await again.get_run("c:opt:1")).status == "pending"
    finally:
        await again.close()


async def test_keep_latest_prune_bounds_growth_and_keeps_interrupt(tmp_path: Path) -> None:
    store = await CheckpointStore.open(tmp_path / "cp.sqlite")
    try:
        g = _graph(store)
        for _ in range(30):
            await g.ainvoke({"log": []}, cfg("chat"))
        big = await store.size_bytes()
        gated = _graph(store, gate=True)
        await gated.ainvoke({"log": []}, cfg("run"))
        assert (await gated.aget_state(cfg("run"))).interrupts
        deleted = await store.prune_thread("chat") + await store.prune_thread("run")
        assert deleted > 30
        await store.vacuum()
        assert await store.size_bytes() < big / 3
        # history intact, chatting continues, the paused run still resumes
        assert len((await g.aget_state(cfg("chat"))).values["log"]) == 120
        await g.ainvoke({"log": []}, cfg("chat"))
        snap = await gated.aget_state(cfg("run"))
        iid = snap.interrupts[0].id
        out = await gated.ainvoke(Command(resume={iid: "yes"}), cfg("run"))
        assert out["ok"] is True
    finally:
        await store.close()


async def test_delete_idle_threads(tmp_path: Path) -> None:
    store = await CheckpointStore.open(tmp_path / "cp.sqlite")
    try:
        g = _graph(store)
        await g.ainvoke({"log": []}, cfg("a:opt:1"))
        await store.record_run("a:opt:1", "a", status="done")
        assert await store.delete_idle_threads(30) == []
        gone = await store.delete_idle_threads(1, now=time.time() + 2 * 86400)
        assert gone == ["a:opt:1"]
        assert await store.thread_ids() == [] and await store.get_run("a:opt:1") is None
    finally:
        await store.close()


def test_process_exits_after_close(tmp_path: Path) -> None:
    """P1: close() ends the connection's thread and lets the process exit."""
    code = ("import asyncio, sys; from storage.checkpoints import CheckpointStore\n"
            "async def m():\n"
            f"    s = await CheckpointStore.open({str(tmp_path / 'x.sqlite')!r})\n"
            "    await s.close()\n"
            "asyncio.run(m()); print('bye')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0 and "bye" in proc.stdout, proc.stderr[-500:]


async def test_runs_table_migrates_old_schema(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE fanvise_runs (run_thread_id TEXT PRIMARY KEY, conversation_id "
                "TEXT NOT NULL, workflow TEXT NOT NULL DEFAULT 'matchup_optimizer', intent "
                "TEXT NOT NULL DEFAULT '', status TEXT NOT NULL, requester TEXT NOT NULL "
                "DEFAULT '', team_id INTEGER, created REAL NOT NULL, updated REAL NOT NULL)")
    con.execute("INSERT INTO fanvise_runs VALUES ('c:opt:1', 'c', 'matchup_optimizer', '',"
                " 'pending', 'u', 1, 1.0, 1.0)")
    con.commit()
    con.close()
    store = await CheckpointStore.open(path)
    try:
        await store.record_decision("c:opt:1", "alice", {"m1": "approve"})
        run = await store.get_run("c:opt:1")
        assert run.decided_by == "alice" and run.decision == '{"m1": "approve"}'
    finally:
        await store.close()
