"""Restart durability with a real bot process killed by SIGKILL (no clean shutdown):
mid-run, while an approval is pending, and in the middle of applying a decision. A fresh
process finds the pending card, finishes the crashed run, and every move is applied once
even with concurrent and late clicks. Driver: tests/reliability/runtime_driver.py.

Each "bot process" is forked from the test process (imports already done: a fresh
interpreter spends seconds importing LangChain), then runs the driver's `main` with its own
event loop, SQLite connections and demo-league state, and is killed with SIGKILL.
Set FV_SIGKILL_SPAWN=1 to start real `python -m` interpreters instead."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agents.runtime import ALREADY_DECIDED
from tests.reliability import runtime_driver

ROOT = Path(__file__).resolve().parents[2]
ASK = "Review my matchup and suggest moves"
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")


def _child(argv: list[str], env: dict[str, str], fd: int) -> None:
    os.environ.update(env)
    sys.stdout = os.fdopen(fd, "w")
    os._exit(asyncio.run(runtime_driver.main(argv)))


class _Forked:
    """The bits of Popen the tests use, for a forked driver."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        r, w = os.pipe()
        self._proc = multiprocessing.get_context("fork").Process(
            target=_child, args=(argv, env, w), daemon=True)
        self._proc.start()
        os.close(w)
        self.pid = self._proc.pid
        self.stdout = os.fdopen(r)
        self.stderr = None

    @property
    def returncode(self) -> int | None:
        return self._proc.exitcode

    def poll(self) -> int | None:
        return self._proc.exitcode

    def wait(self, timeout: float | None = None) -> int | None:
        self._proc.join(timeout)
        return self._proc.exitcode


class Proc:
    """A driver process whose JSON lines are read by a thread."""

    def __init__(self, data_dir: Path, *args: str, **env: str) -> None:
        argv = [str(data_dir), *args]
        if os.environ.get("FV_SIGKILL_SPAWN"):
            full_env = {**os.environ, "PYTHONPATH": str(ROOT), **env}
            self.p: Any = subprocess.Popen(
                [sys.executable, "-m", "tests.reliability.runtime_driver", *argv],
                cwd=ROOT, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True)
        else:
            self.p = _Forked(argv, env)
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.p.stdout is not None
        for line in self.p.stdout:
            try:
                self.lines.put(json.loads(line))
            except json.JSONDecodeError:
                self.lines.put({"kind": "raw", "text": line})

    def wait_for(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 90.0
                 ) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                self.kill()
                raise AssertionError(f"timed out; seen {self.seen}; stderr {self.stderr()}")
            try:
                ev = self.lines.get(timeout=min(left, 1.0))
            except queue.Empty:
                if self.p.poll() is not None and self.lines.empty():
                    raise AssertionError(f"exited {self.p.returncode}; seen {self.seen}; "
                                         f"stderr {self.stderr()}") from None
                continue
            self.seen.append(ev)
            if pred(ev):
                return ev

    def kill(self) -> None:
        if self.p.poll() is None:
            os.kill(self.p.pid, signal.SIGKILL)
        self.p.wait(timeout=30)

    def finish(self) -> list[dict[str, Any]]:
        self.wait_for(lambda e: e.get("kind") == "end")
        assert self.p.wait(timeout=60) == 0, self.stderr()
        return self.seen

    def stderr(self) -> str:
        if self.p.poll() is None or self.p.stderr is None:
            return ""
        return self.p.stderr.read()[-3000:]


def applied(data_dir: Path) -> list[dict[str, Any]]:
    f = data_dir / "applied.jsonl"
    return [json.loads(x) for x in f.read_text().splitlines()] if f.exists() else []


def of_kind(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e.get("kind") == kind]


def test_sigkill_mid_run_then_recover_and_concurrent_clicks(tmp_path: Path) -> None:
    p1 = Proc(tmp_path, "ask", "discord:g:c:t1", "u1", ASK, FV_CRUNCH_SECONDS="120")
    p1.wait_for(lambda e: e.get("stage") == "crunch")
    time.sleep(0.5)  # let the async checkpoint of the previous step land
    p1.kill()
    assert p1.p.returncode == -signal.SIGKILL
    assert not of_kind(p1.seen, "approval")

    p2 = Proc(tmp_path, "ops", "recover", "pending", "decide:approve:10", "pending")
    events = p2.finish()
    (rec,) = of_kind(events, "recovered")
    assert rec["conversation_id"] == "discord:g:c:t1"
    card = rec["events"][-1]
    assert card["kind"] == "approval" and card["moves"][0]["drop"]["name"] == "Jordan Poole"
    pend_before, pend_after = of_kind(events, "pending")
    assert [a["interrupt_id"] for a in pend_before["approvals"]] == [card["interrupt_id"]]
    (dec,) = of_kind(events, "decided")
    finals = [r[-1] for r in dec["results"]]
    answers = [f for f in finals if f["kind"] == "answer"]
    notices = [f for f in finals if f["kind"] == "notice"]
    assert len(answers) == 1 and "drop Jordan Poole" in answers[0]["text"]
    assert len(notices) == 9 and {n["text"] for n in notices} == {ALREADY_DECIDED}
    assert pend_after["approvals"] == []
    assert len(applied(tmp_path)) == 1


def test_sigkill_while_pending_and_while_applying(tmp_path: Path) -> None:
    p1 = Proc(tmp_path, "ask", "slack:T1:C1:171.1", "u1", ASK, "--hold")
    card = p1.wait_for(lambda e: e.get("kind") == "approval")
    p1.wait_for(lambda e: e.get("kind") == "holding")
    p1.kill()

    # restart: the card is still pending; decide, and die half-way through applying it
    p2 = Proc(tmp_path, "decide", card["run_thread_id"], card["interrupt_id"], "approve", "u1",
              FV_APPLY_SECONDS="120")
    p2.wait_for(lambda e: e.get("stage") == "apply")
    time.sleep(0.3)
    p2.kill()
    assert applied(tmp_path) == []  # died before the side effect

    # restart: the crashed resume is finished by recover_crashed_runs, exactly once
    p3 = Proc(tmp_path, "ops", "recover", "pending", "recover",
              f"redecide:{card['run_thread_id']}:{card['interrupt_id']}:decline")
    events = p3.finish()
    recs = of_kind(events, "recovered")
    assert len(recs) == 1 and recs[0]["conversation_id"] == "slack:T1:C1:171.1"
    final = recs[0]["events"][-1]
    assert final["kind"] == "answer" and "drop Jordan Poole" in final["text"]
    assert of_kind(events, "pending")[0]["approvals"] == []
    (late,) = of_kind(events, "redecided")
    assert [e["text"] for e in late["results"]] == [ALREADY_DECIDED]
    moves = applied(tmp_path)
    assert len(moves) == 1 and moves[0]["pid"] == p3.p.pid
