"""Scheduled moves across SIGKILLs: a real bot process (FanViseApp, matchup optimizer graph,
SQLite, demo league; tests/reliability/core_driver.py) approves the plan, then is killed
while making a scheduled move (after its claim, after the move, after its outcome is
stored), or while "Approve plan" is being applied. A fresh process recovers and advances
the demo to the end of the week. Each move is made exactly once, on its own day, and the card
reports what was really made. (A streaming chain read back after a crash:
tests/bot/test_move_schedule.py::test_recovery_reads_a_chain_on_its_days.)"""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from tests.reliability.crash_chat import Chat, run_driver

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")

ALICE = "100"
TEAM = 1


def _plan_moves(data: Path) -> list[dict[str, Any]]:
    """The plan moves (timeline order) of the newest card."""
    with sqlite3.connect(data / "fanvise.sqlite") as db:
        (raw,) = db.execute("SELECT moves FROM cards ORDER BY created_at DESC LIMIT 1").fetchone()
    return [m for m in json.loads(raw) if not m.get("alternative_of")]


def _schedule(data: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(data / "fanvise.sqlite") as db:
        return db.execute("SELECT day, plan_move_id, status FROM move_schedule "
                          "ORDER BY day, seq").fetchall()


def _made(data: Path) -> list[tuple[int, int, int]]:
    """(scoring period, drop (0: to IR), add) of every move team 1 made on the demo."""
    state = json.loads((data / "demo-state-points.json").read_text())
    return sorted((c["sp"], c.get("drop") or 0, c["add"]) for c in state["changes"]
                  if c["kind"] == "move" and int(c["team_id"]) == TEAM)


def _sp(data: Path, day: str) -> int:
    from fantasy.demo import DemoLeague
    return DemoLeague("points", state_path=data / "demo-state-points.json") \
        .calendar.scoring_period_for(date.fromisoformat(day))


def _expected(data: Path, moves: list[dict[str, Any]]) -> list[tuple[int, int, int]]:
    return sorted((_sp(data, m["day"]), 0 if m.get("drop_to_ir") else int(m["drop"]["id"]),
                   int(m["add"]["id"])) for m in moves)


def _footer(chat: Chat) -> str:
    cards = [c for _, c in chat.cards() if c.get("footer", "").startswith("Decided by")]
    assert cards, chat.texts()[-600:]
    return cards[-1]["footer"]


@pytest.fixture(scope="module")
def approved(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Chat]:
    """Alice's plan approved on Wednesday (no crash): today's moves made, the rest
    scheduled."""
    base = tmp_path_factory.mktemp("approved")
    run = run_driver(base, f"optimize:{ALICE}", f"click:{ALICE}:approveall")
    assert run.code == 0, run.lines[-3:]
    chat = Chat().feed(run)
    assert any(s == "scheduled" for *_, s in _schedule(base)), _schedule(base)
    return base, chat


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, dirs_exist_ok=True)
    return dst


@pytest.mark.parametrize("point", ["schedule:claimed", "schedule:made", "schedule:finished"])
@pytest.mark.parametrize("which", ["first", "last"])
def test_kill_while_a_scheduled_move_is_made(point: str, which: str, approved: tuple,
                                             tmp_path: Path) -> None:
    base, chat = approved
    data = _copy(base, tmp_path / "d")
    chat = Chat(messages=dict(chat.messages))
    moves = _plan_moves(data)
    later = [m for m in moves if m["day"] > "2023-01-25"]
    target = later[0] if which == "first" else later[-1]  # the first / last scheduled move
    before = date.fromisoformat(target["day"]).toordinal() - date(2023, 1, 25).toordinal() - 1
    if before:
        warm = run_driver(data, f"ask:{ALICE}:/advance {before}")
        assert warm.code == 0, warm.lines[-3:]
        chat.feed(warm)
    first = run_driver(data, f"ask:{ALICE}:/advance 1", crash_at=point)
    assert first.killed, f"{point} was never reached"
    chat.feed(first)
    last = max(m["day"] for m in moves)
    after = run_driver(data, "recover", f"ask:{ALICE}:/advance {last}", "recover")
    assert after.code == 0, after.lines[-3:]
    chat.feed(after)
    # every move made exactly once, on its own day
    assert _made(data) == _expected(data, moves), (point, which)
    assert {s for *_, s in _schedule(data)} == {"applied"}
    footer = _footer(chat)
    assert footer == f"Decided by Alice: {len(moves)} applied", footer


@pytest.mark.parametrize("point", ["decide:recorded", "stage:apply_moves",
                                   "writes:apply_moves", "click:run-finished"])
def test_kill_during_approve_plan_reports_what_was_made(point: str, tmp_path: Path) -> None:
    data = tmp_path / "d"
    card = run_driver(data, f"optimize:{ALICE}")
    assert card.code == 0
    chat = Chat().feed(card)
    first = run_driver(data, f"click:{ALICE}:approveall", crash_at=point)
    assert first.killed, f"{point} was never reached"
    chat.feed(first)
    after = run_driver(data, "recover")
    assert after.code == 0, after.lines[-3:]
    chat.feed(after)
    moves = _plan_moves(data)
    today = [m for m in moves if m["day"] == "2023-01-25"]
    later = [m for m in moves if m["day"] > "2023-01-25"]
    assert _made(data) == _expected(data, today)
    assert _footer(chat) == f"Decided by Alice: {len(today)} applied, {len(later)} scheduled"
    assert [s for *_, s in _schedule(data)] == ["scheduled"] * len(later)
    end = run_driver(data, f"ask:{ALICE}:/advance {max(m['day'] for m in moves)}")
    assert end.code == 0
    chat.feed(end)
    assert _made(data) == _expected(data, moves)
    assert _footer(chat) == f"Decided by Alice: {len(moves)} applied"
