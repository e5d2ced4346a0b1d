"""Issue 34: a host SIGKILLed inside a decision on Postgres is taken over within seconds.

Host A takes Alice's "Approve plan" click and dies (a real SIGKILL, `FANVISE_CRASH_AT`)
inside `runtime.decide`, holding the run's lease: right after the decision is recorded
(`decide:recorded`), as the moves are applied (`stage:apply_moves`), right after their
writes are checkpointed (`writes:apply_moves`) and as the rest is re-planned
(`stage:replan`). Host B, running with the periodic takeover pass (as `fanvise run` does on
Postgres), finishes that decision once. Before, the `run:<id>` lease lived its 120 s
whatever A's heartbeat said, so B waited two minutes; now a lease held by an instance whose
heartbeat stopped is free, and B finishes within 10 s of A's death (heartbeat timeout 3 s
here, takeover pass every 1 s).

One host B and one database serve the four kill points: four members, each with a card
of their own team, each clicked by a host of its own that dies at one point."""

from __future__ import annotations

import signal
import time
from collections import Counter
from pathlib import Path

from storage.backend import open_database
from tests.storage.test_two_processes import _bot, _lines, _stream, _wait_for

POINTS = ["decide:recorded", "stage:apply_moves", "writes:apply_moves", "stage:replan"]
#: member -> team (the demo league's teams whose matchup review offers moves)
MEMBERS = {"100": 5, "200": 1, "101": 2, "102": 3}


async def test_a_host_killed_inside_a_decision_is_taken_over_within_seconds(
        pg_server, tmp_path: Path) -> None:
    url = pg_server.create_database("lease_takeover")
    data = tmp_path / "shared"
    every, stale = 1.0, 3.0
    fast = {"FANVISE_HEARTBEAT_EVERY": "0.5", "FANVISE_PROCESS_STALE_AFTER": str(stale)}
    setup = [f"link:{u}:{t}" for u, t in MEMBERS.items()]
    _lines(_bot(url, data, *setup, env={"FANVISE_INSTANCE": "setup", **fast}))
    done_file = tmp_path / "done"
    b = _bot(url, data, *[f"optimize:{u}" for u in MEMBERS], f"takeover:{every}",
             f"waitfile:{done_file}", env={"FANVISE_INSTANCE": "host-b", **fast})
    b_lines: list[tuple[float, dict]] = []
    reader = _stream(b, b_lines)
    took: dict[str, float] = {}
    try:
        _wait_for(b_lines, lambda x: x["kind"] == "takeover-started", 300)
        for k, (point, member) in enumerate(zip(POINTS, MEMBERS, strict=True)):
            a = _bot(url, data, f"click-own:{member}:approveall",
                     env={"FANVISE_INSTANCE": f"host-a{k}", "FANVISE_CRASH_AT": point, **fast})
            _, err = a.communicate(timeout=240)
            died = time.time()
            assert a.returncode == -signal.SIGKILL, f"{point} was never reached: {err[-1500:]}"
            finished = await _decided(url, member, 60)
            took[point] = finished - died
        time.sleep(3 * every)  # more passes: nothing is applied again
    finally:
        done_file.touch()
        b.wait(timeout=120)
        reader.join(timeout=10)
    assert b.returncode == 0, b.stderr.read()[-2000:] if b.stderr else ""
    assert all(t < 10.0 for t in took.values()), took
    db = await open_database(url)
    try:
        cards = await db.fetchall("SELECT card_id, status, decided_by FROM cards "
                                  "WHERE status <> 'pending' OR decided_by IS NOT NULL")
        decided = {c["card_id"]: c for c in cards}
        assert len(decided) >= len(POINTS), cards
        assert all(c["status"] in ("approved", "partial") for c in decided.values()), cards
        rows = await db.fetchall("SELECT card_id, move_index, result FROM audit")
        applied = Counter((r["card_id"], r["move_index"]) for r in rows
                          if r["result"] in ("applied", "scheduled"))
        assert applied and set(applied.values()) == {1}, applied  # each move once
    finally:
        await db.close()


async def _decided(url: str, member: str, timeout: float) -> float:
    """When the member's newest card left `deciding` (its decision applied by B)."""
    import asyncio
    db = await open_database(url)
    try:
        deadline = time.time() + timeout
        while time.time() < deadline:
            row = await db.fetchone("SELECT status FROM cards WHERE requester_id = ? "
                                    "ORDER BY created_at DESC LIMIT 1", (member,))
            if row is not None and row["status"] not in ("pending", "deciding"):
                return time.time()
            await asyncio.sleep(0.2)
    finally:
        await db.close()
    raise AssertionError(f"B never finished {member}'s decision")
