"""The move schedule's table (storage.app_db `move_schedule`) on both back ends (SQLite and
a real PostgreSQL server): storing a card's scheduled moves once, due moves by day and
timeline order, the claim before a move is made (one winner, also under a race), release
after a read-back, outcomes, and the redraw flag."""

from __future__ import annotations

import asyncio

import pytest

from storage.app_db import AppDB, ScheduledMove
from storage.backend import open_database


@pytest.fixture
async def app(app_target):
    db = await open_database(app_target)
    yield await AppDB.open(db)
    await db.close()


def _row(card: str, seq: int, day: str, **kw) -> ScheduledMove:
    base = dict(card_id=card, plan_move_id=f"{day}:{10 + seq}-{20 + seq}",
                move_id=f"{day}:{10 + seq}-{20 + seq}", seq=seq, team_id=1, day=day,
                drop_id=10 + seq, drop_name=f"Drop {seq}", add_id=20 + seq,
                add_name=f"Add {seq}", line=f"Thu: drop Drop {seq}, add Add {seq}",
                expected_gain=12.5, gain_unit="fantasy points")
    base.update(kw)
    return ScheduledMove(**base)


async def test_schedule_due_claim_finish(app: AppDB) -> None:
    rows = [_row("c1", 1, "2023-01-26", drop_to_ir=True), _row("c1", 2, "2023-01-27"),
            _row("c1", 4, "2023-01-29", needs=22), _row("c2", 1, "2023-01-26")]
    assert await app.schedule_moves(rows) == 4
    assert await app.schedule_moves(rows[:2]) == 0  # a recovery storing them again
    assert [r.seq for r in await app.scheduled_moves("c1")] == [1, 2, 4]
    thu, fri, sun = await app.scheduled_moves("c1")
    assert thu.drop_to_ir and not fri.drop_to_ir
    assert sun.needs == 22 and sun.expected_gain == 12.5 and sun.status == "scheduled"
    due = await app.due_moves("2023-01-26")
    assert [(r.card_id, r.day) for r in due] == [("c1", "2023-01-26"), ("c2", "2023-01-26")]
    assert len(await app.due_moves("2023-01-29")) == 4
    r = due[0]
    assert await app.claim_scheduled_move(r.card_id, r.plan_move_id)
    assert not await app.claim_scheduled_move(r.card_id, r.plan_move_id)  # made once
    assert [x.plan_move_id for x in await app.scheduled_moves_in("making")] == [r.plan_move_id]
    assert [x.card_id for x in await app.due_moves("2023-01-26")] == ["c2"]
    assert await app.release_scheduled_move(r.card_id, r.plan_move_id)  # read back: not made
    assert not await app.release_scheduled_move(r.card_id, r.plan_move_id)
    assert await app.claim_scheduled_move(r.card_id, r.plan_move_id)
    await app.finish_scheduled_move(r.card_id, r.plan_move_id, status="applied",
                                    note="made Thu Jan 26")
    assert await app.unshown_schedule_cards() == ["c1"]
    done = (await app.scheduled_moves("c1"))[0]
    assert (done.status, done.note, done.shown) == ("applied", "made Thu Jan 26", False)
    assert not await app.claim_scheduled_move(r.card_id, r.plan_move_id)
    await app.mark_schedule_shown("c1")
    assert await app.unshown_schedule_cards() == []


async def test_claim_race_has_one_winner(app: AppDB) -> None:
    await app.schedule_moves([_row("c9", 1, "2023-01-26")])
    pid = (await app.scheduled_moves("c9"))[0].plan_move_id
    wins = await asyncio.gather(*(app.claim_scheduled_move("c9", pid) for _ in range(8)))
    assert sum(wins) == 1


async def test_orphan_filters(app: AppDB, backend: str) -> None:
    """Start-up recovery takes this instance's claimed moves; a takeover pass never takes a
    live instance's own in-flight work (SQLite: one process, takeover never runs)."""
    await app.schedule_moves([_row("c7", 1, "2023-01-26")])
    pid = (await app.scheduled_moves("c7"))[0].plan_move_id
    assert await app.claim_scheduled_move("c7", pid)
    mine = await app.scheduled_moves_in("making", orphaned_only=True)
    assert [r.card_id for r in mine] == ["c7"]
    assert await app.scheduled_moves_in("making", takeover=True) == []
    assert [r.card_id for r in await app.due_moves("2023-01-27", orphaned_only=True)] == []
