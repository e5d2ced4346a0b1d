"""The week plans' table (storage.app_db `week_plans`) on both back ends (SQLite and a real
PostgreSQL server): one plan per team and matchup (a re-plan replaces it), the latest
period by default, and the scheduled moves' status read from `move_schedule`, not copied."""

from __future__ import annotations

from datetime import date

import pytest

from fantasy.moves import PlayerRef
from fantasy.week_plan import DayLineup, LineupSlot, WeekMove, WeekPlan
from storage.app_db import AppDB, ScheduledMove
from storage.backend import open_database

WED, THU = date(2023, 1, 25), date(2023, 1, 26)


@pytest.fixture
async def app(app_target):
    db = await open_database(app_target)
    yield await AppDB.open(db)
    await db.close()


def _plan(card: str, period: int = 15, total: float = 1226.0) -> WeekPlan:
    moves = [
        WeekMove(card_id=card, plan_move_id="m1", move_id="m1", day=WED,
                 drop=PlayerRef(id=1, name="Gordon Hayward"),
                 add=PlayerRef(id=2, name="Tyus Jones"), status="applied"),
        WeekMove(card_id=card, plan_move_id="m2", move_id="m2", day=THU,
                 drop=PlayerRef(id=3, name="Dennis Schroder"),
                 add=PlayerRef(id=4, name="Coby White"), in_schedule=True),
    ]
    lineups = [DayLineup(day=THU, scoring_period=99, roster=[2, 4, 5],
                         starters=[LineupSlot(player=PlayerRef(id=4, name="Coby White"),
                                              slot_id=5, value=31.0)], value=31.0)]
    return WeekPlan.build(team_id=7, matchup_period=period, scoring="points",
                          unit="fantasy points", planned_on=WED, card_id=card, moves=moves,
                          lineups=lineups, projected_total=total, baseline_total=979.0,
                          writes=True)


async def test_one_plan_per_team_and_matchup(app: AppDB) -> None:
    assert await app.current_week_plan(7) is None
    await app.put_week_plan(_plan("c1"))
    got = await app.current_week_plan(7)
    assert got is not None and got.card_ids == ["c1"] and round(got.gain) == 247
    assert got.lineup_on(THU).assignment() == {4: 5}
    assert got.needs_text(THU) == "start Coby White at G on Thu"
    await app.put_week_plan(got.replan(_plan("c2", total=1250.0)))  # a re-plan: the same row
    again = await app.current_week_plan(7, 15)
    assert again is not None and again.card_ids == ["c1", "c2"]
    assert again.projected_total == 1250.0 and again.baseline_total == 979.0
    rows = await app.db.fetchall("SELECT card_id FROM week_plans WHERE team_id=?", (7,))
    assert [r["card_id"] for r in rows] == ["c2"]
    await app.put_week_plan(_plan("c3", period=16))
    assert (await app.current_week_plan(7)).matchup_period == 16  # the latest by default
    assert (await app.current_week_plan(7, 15)).card_id == "c2"
    assert await app.current_week_plan(8) is None


async def test_scheduled_moves_read_their_status_from_the_schedule(app: AppDB) -> None:
    await app.schedule_moves([ScheduledMove(
        card_id="c1", plan_move_id="m2", move_id="m2", seq=1, team_id=7,
        day=THU.isoformat(), drop_id=3, drop_name="Dennis Schroder", add_id=4,
        add_name="Coby White")])
    await app.put_week_plan(_plan("c1"))
    plan = await app.current_week_plan(7)
    assert [m.status for m in plan.moves] == ["applied", "scheduled"]
    assert plan.acquisitions_planned() == 1 and plan.dropped_ids() == {1, 3}
    assert await app.claim_scheduled_move("c1", "m2")
    await app.finish_scheduled_move("c1", "m2", status="not_possible",
                                    note="Coby White was claimed by Bench Mob")
    plan = await app.current_week_plan(7)
    assert plan.moves[1].status == "not_possible"
    assert plan.moves[1].note == "Coby White was claimed by Bench Mob"
    assert plan.acquisitions_planned() == 0 and plan.dropped_ids() == {1}
