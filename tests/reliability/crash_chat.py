"""Helpers of the crash tests: run tests/reliability/core_driver.py in a forked process
(imports already done; its own event loop, SQLite connections and demo-league state) that
may SIGKILL itself at `$FANVISE_CRASH_AT`, and rebuild the chat it left behind."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.reliability import core_driver


def _child(argv: list[str], env: dict[str, str], fd: int) -> None:
    os.environ.pop("FANVISE_CRASH_AT", None)
    os.environ.update(env)
    sys.stdout = os.fdopen(fd, "w")
    os._exit(asyncio.run(core_driver.main(argv)))


@dataclass
class Run:
    """One driver process: its exit code and the JSON lines it printed."""

    code: int | None
    lines: list[dict[str, Any]]

    @property
    def killed(self) -> bool:
        return self.code == -signal.SIGKILL

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [x for x in self.lines if x.get("kind") == kind]


def run_driver(data_dir: Path, *ops: str, crash_at: str | None = None,
               timeout: float = 120.0) -> Run:
    """Run the ops in a fresh bot process (SIGKILLed at `crash_at` if reached)."""
    env = {"FANVISE_CRASH_AT": crash_at} if crash_at else {}
    r, w = os.pipe()
    proc = multiprocessing.get_context("fork").Process(
        target=_child, args=([str(data_dir), *ops], env, w), daemon=True)
    proc.start()
    os.close(w)
    with os.fdopen(r) as fh:
        text = fh.read()
    proc.join(timeout)
    if proc.exitcode is None:
        proc.kill()
        proc.join()
        raise AssertionError(f"driver hung: {ops}")
    lines = []
    for line in text.splitlines():
        try:
            lines.append(json.loads(line))
        except json.JSONDecodeError:
            lines.append({"kind": "raw", "text": line})
    return Run(proc.exitcode, lines)


@dataclass
class Chat:
    """The chat as members see it after several processes: message id -> last content."""

    messages: dict[str, dict[str, Any]] = field(default_factory=dict)
    private: list[tuple[str, str]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)

    def feed(self, run: Run) -> Chat:
        for x in run.lines:
            if x.get("kind") in ("post", "edit"):
                self.messages[x["mid"]] = x["msg"]
                self.log.append(x)
            elif x.get("kind") == "delete":
                self.messages.pop(x["mid"], None)
            elif x.get("kind") == "ephemeral":
                self.private.append((x["user"], x["text"]))
        return self

    def cards(self, card_id: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        """(message id, card) of every message now showing a move card (of `card_id`)."""
        out = []
        for mid, msg in self.messages.items():
            for card in msg.get("cards") or []:
                ids = [b["custom_id"] for b in card.get("buttons") or []]
                if not any(i.startswith(("fv:approve", "fv:decline")) for i in ids):
                    continue
                if card_id is None or any(f":{card_id}" in i for i in ids):
                    out.append((mid, card))
        return out

    def texts(self) -> str:
        parts = [t for _, t in self.private]
        for msg in self.messages.values():
            parts.append(msg.get("text") or "")
            for c in msg.get("cards") or []:
                parts += [c.get("title") or "", c.get("text") or "", c.get("footer") or ""]
                parts += [f"{a} {b}" for a, b in c.get("fields") or []]
        return "\n".join(parts)

    def private_to(self, user: str) -> list[str]:
        return [t for u, t in self.private if u == user]


def roster(run: Run, team: int) -> list[int]:
    (r,) = [x for x in run.of("roster") if x["team"] == team]
    return r["players"]


__all__ = ["Chat", "Run", "roster", "run_driver"]
