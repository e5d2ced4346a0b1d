"""Every write of the demo goes through the one writer, and a kill at any write sends it once.

A real bot process (FanViseApp: chat core, runtime, matchup optimizer graph, SQLite, demo
league; tests/reliability/core_driver.py) makes the demo's writes the way a live league's
are made: `fantasy.espn.writes.EspnWriter` journaled in the app DB's `espn_writes` with the
crash points, the demo differing only in its transport. Checked here, against the
transactions the demo's endpoint accepted (its transaction log, ESPN's `mTransactions2`):

- every accepted transaction of the demo, at approval (the graph's `apply_moves`: a free
  agent, an IR move's lineup change and its add, a waiver claim) and scheduled (the
  scheduler's moves on their days), has exactly one row in `espn_writes`, and no journaled
  write is left unsettled;
- the process SIGKILLed right before and right after each POST of "Approve plan" (the Nth
  POST: `espn_write:after_post#N`), of a waiver claim and of a scheduled move, then a fresh
  process recovers: each transaction is in the demo's log once, the roster is the one an
  uncrashed run leaves, and the card says what was made.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.reliability.crash_chat import Chat, Run, roster, run_driver

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")

ALICE = "100"
TEAM = 1
#: the explicit move whose added player is on waivers today (Wed Jan 25): a claim
CLAIM_ASK = f"ask:{ALICE}:drop Ben Simmons and pick up Mo Bamba"
MO_BAMBA, BEN_SIMMONS = 4277919, 3907387
SLOT_IR = 13


def _sig(tx_type: str, sp: int, items: list[dict[str, Any]]) -> tuple[str, int, str]:
    return tx_type, int(sp), json.dumps(sorted(items, key=lambda i: (i["type"],
                                                                     i["playerId"])))


def demo_log(run: Run, which: int = -1) -> list[dict[str, Any]]:
    return run.of("demo-log")[which]["txs"]


def journal(run: Run, which: int = -1) -> list[dict[str, Any]]:
    return run.of("writes")[which]["rows"]


def accepted(txs: list[dict[str, Any]]) -> Counter[tuple[str, int, str]]:
    """The demo's accepted transactions, each with how many times it is in the log."""
    return Counter(_sig(t["type"], t["scoringPeriodId"], t["items"]) for t in txs)


def assert_journaled(txs: list[dict[str, Any]], rows: list[dict[str, Any]]) -> None:
    """Each accepted transaction has exactly one made (done / pending claim) row in the
    journal and each made row one transaction; nothing is left sending or unknown."""
    made = Counter(_sig(r["kind"], r["sp"], r["items"]) for r in rows
                   if r["status"] in ("done", "pending"))
    assert made == accepted(txs), (made, accepted(txs))
    assert not [r for r in rows if r["status"] in ("sending", "unknown")], rows


def _footer(chat: Chat) -> str:
    cards = [c for _, c in chat.cards() if c.get("footer", "").startswith("Decided by")]
    assert cards, chat.texts()[-600:]
    return cards[-1]["footer"]


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, dirs_exist_ok=True)
    return dst


@pytest.fixture(scope="module")
def card(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Chat]:
    """Alice's plan card for Hoop Dreamers on Wednesday, not decided yet."""
    base = tmp_path_factory.mktemp("card")
    run = run_driver(base, f"optimize:{ALICE}")
    assert run.code == 0, run.lines[-3:]
    return base, Chat().feed(run)


@pytest.fixture(scope="module")
def approved(tmp_path_factory: pytest.TempPathFactory, card: tuple) -> dict[str, Any]:
    """The plan approved with no crash (today's moves made, the rest scheduled), then the
    demo advanced to Sunday: what every crashed run must end up as."""
    base = _copy(card[0], tmp_path_factory.mktemp("approved"))
    chat = Chat(messages=dict(card[1].messages))
    run = run_driver(base, f"click:{ALICE}:approveall", "writes", "demo-log", "roster:1")
    assert run.code == 0, run.lines[-3:]
    chat.feed(run)
    snapshot = _copy(base, tmp_path_factory.mktemp("approved-wed"))
    week = run_driver(base, "advance:4", "writes", "demo-log", "roster:1")
    assert week.code == 0, week.lines[-3:]
    chat_wed = Chat(messages=dict(chat.messages))
    chat.feed(week)
    return {"wed": snapshot, "chat_wed": chat_wed, "run": run, "week": week,
            "footer_wed": _footer(chat_wed), "footer_sun": _footer(chat)}


def test_every_write_of_the_demo_is_journaled(approved: dict[str, Any]) -> None:
    run, week = approved["run"], approved["week"]
    # at approval: the graph's moves, one of them to IR (its lineup change is a transaction)
    wed_txs, wed_rows = demo_log(run), journal(run)
    assert_journaled(wed_txs, wed_rows)
    assert {t["type"] for t in wed_txs} >= {"FREEAGENT", "LINEUP"}, wed_txs
    assert any(i.get("toLineupSlotId") == SLOT_IR for t in wed_txs for i in t["items"]
               if t["type"] == "LINEUP"), "the IR move's lineup change is not in the log"
    moves = [r for r in wed_rows if r["kind"] == "FREEAGENT"
             or any(i.get("toLineupSlotId") == SLOT_IR for i in r["items"] or [])]
    assert len(moves) == 3 and all(r["key"].startswith("run:") for r in moves), wed_rows
    # then each scheduled move on its day, by the scheduler, through the same journal
    txs, rows = demo_log(week), journal(week)
    assert_journaled(txs, rows)
    scheduled = [r for r in rows if r["key"].startswith("card:")]
    assert {r["kind"] for r in scheduled} >= {"FREEAGENT"}, rows
    assert len(txs) > len(wed_txs)
    assert approved["footer_sun"].startswith("Decided by Alice: ") and \
        "scheduled" not in approved["footer_sun"], approved["footer_sun"]


#: before and after each POST of "Approve plan" on Wednesday (a free agent; an IR move: its
#: lineup change, then its add), and the checkpoint of the node's writes
APPROVAL_POINTS = [f"espn_write:{side}_post#{n}" for n in (1, 2, 3)
                   for side in ("before", "after")] + ["writes:apply_moves"]


@pytest.mark.parametrize("point", APPROVAL_POINTS)
def test_kill_at_each_write_of_approve_plan(point: str, card: tuple, approved: dict,
                                            tmp_path: Path) -> None:
    data = _copy(card[0], tmp_path / "d")
    chat = Chat(messages=dict(card[1].messages))
    first = run_driver(data, f"click:{ALICE}:approveall", crash_at=point)
    assert first.killed, f"{point} was never reached"
    chat.feed(first)
    after = run_driver(data, "recover", "writes", "demo-log", "roster:1")
    assert after.code == 0, after.lines[-3:]
    chat.feed(after)
    # each write once: the demo accepted exactly what an uncrashed approval sends
    assert accepted(demo_log(after)) == accepted(demo_log(approved["run"])), point
    assert_journaled(demo_log(after), journal(after))
    assert roster(after, TEAM) == roster(approved["run"], TEAM), point
    assert _footer(chat) == approved["footer_wed"], (point, _footer(chat))


@pytest.mark.parametrize("point", ["espn_write:before_post#1", "espn_write:after_post#1"])
def test_kill_at_a_scheduled_write(point: str, approved: dict, tmp_path: Path) -> None:
    """Thursday's scheduled move, killed around its POST: made once, on its day."""
    data = _copy(approved["wed"], tmp_path / "d")
    chat = Chat(messages=dict(approved["chat_wed"].messages))
    first = run_driver(data, "advance:1", crash_at=point)
    assert first.killed, f"{point} was never reached"
    chat.feed(first)
    after = run_driver(data, "recover", "advance:3", "writes", "demo-log", "roster:1")
    assert after.code == 0, after.lines[-3:]
    chat.feed(after)
    assert accepted(demo_log(after)) == accepted(demo_log(approved["week"])), point
    assert_journaled(demo_log(after), journal(after))
    assert roster(after, TEAM) == roster(approved["week"], TEAM), point
    assert _footer(chat) == approved["footer_sun"], (point, _footer(chat))


@pytest.fixture(scope="module")
def claim_card(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Chat]:
    """Alice's card for a move whose added player is on waivers (not decided yet)."""
    base = tmp_path_factory.mktemp("claim")
    run = run_driver(base, CLAIM_ASK)
    assert run.code == 0, run.lines[-3:]
    return base, Chat().feed(run)


#: the free-agent add ESPN refuses (he is on waivers), then the claim
CLAIM_POINTS = [None, "espn_write:before_post#1", "espn_write:after_post#1",
                "espn_write:before_post:WAIVER", "espn_write:after_post:WAIVER",
                "writes:apply_moves"]


@pytest.mark.parametrize("point", CLAIM_POINTS)
def test_kill_at_each_write_of_a_claim(point: str | None, claim_card: tuple,
                                       tmp_path: Path) -> None:
    """One claim put in, whatever the kill: processed once when waivers do, and the card
    says so (waiting for waivers, then applied)."""
    data = _copy(claim_card[0], tmp_path / "d")
    chat = Chat(messages=dict(claim_card[1].messages))
    first = run_driver(data, f"click:{ALICE}:approveall", crash_at=point)
    if point is not None:
        assert first.killed, f"{point} was never reached"
    chat.feed(first)
    after = run_driver(data, "recover", "writes", "demo-log", "advance:1", "writes",
                       "demo-log", "roster:1", "cards")
    assert after.code == 0, after.lines[-3:]
    chat.feed(after)
    claims = [t for t in demo_log(after, 0) if t["type"] == "WAIVER"]
    assert [t["status"] for t in claims] == ["PENDING"], (point, demo_log(after, 0))
    assert [t["type"] for t in demo_log(after, 0)] == ["WAIVER"], point
    assert_journaled(demo_log(after, 0), journal(after, 0))
    # waivers processed on Thursday: the one claim executed, the move made once
    assert [t["status"] for t in demo_log(after) if t["type"] == "WAIVER"] == ["EXECUTED"]
    assert_journaled(demo_log(after), journal(after))
    players = roster(after, TEAM)
    assert MO_BAMBA in players and BEN_SIMMONS not in players, point
    (row,) = after.of("card")
    assert row["status"] == "approved" and [0, "espn:done"] in row["audit"], (point, row)
    assert _footer(chat) == "Decided by Alice: 1 applied", (point, _footer(chat))
