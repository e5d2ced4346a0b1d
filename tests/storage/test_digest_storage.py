"""The digest and pre-lock tables on SQLite and on a throwaway PostgreSQL server (the
storage contract's fixtures): the schedule's pin setting, each team's digest state, the
pre-lock ledger key claimed once (also by concurrent callers) and the fix button applied
once."""

from __future__ import annotations

import asyncio

import pytest

from storage.app_db import AppDB, DailySchedule
from storage.backend import open_database


@pytest.fixture
async def app(app_target):
    db = await open_database(app_target)
    yield await AppDB.open(db)
    await db.close()


async def test_pin_digest_state_prelock_claims_and_fix(app) -> None:
    await app.set_schedule(DailySchedule("discord:G:C", "discord", "G", "C", "09:30",
                                         "America/New_York", None, pin=True))
    [s] = await app.schedules()
    assert s.pin
    await app.set_schedule(DailySchedule("discord:G:C", "discord", "G", "C", "10:00",
                                         "America/New_York", None))
    assert not (await app.schedules())[0].pin

    state = {"out": {"42": {"name": "Jordan Poole", "slot": "SG"}}, "idle": 3, "fixable": 1}
    await app.save_digest_team("discord:G:C", "2023-01-25", 1, "111", state)
    await app.save_digest_team("discord:G:C", "2023-01-25", 2, "222", {"idle": 0})
    await app.save_digest_team("discord:G:C", "2023-01-25", 1, "111", state)  # re-post
    rows = await app.digest_teams("discord:G:C", "2023-01-25")
    assert [(r["team_id"], r["user_id"]) for r in rows] == [(1, "111"), (2, "222")]
    assert rows[0]["state"] == state
    assert await app.digest_teams("discord:G:C", "2023-01-26") == []

    key = "prelock:discord:G:C:1:2023-01-25"
    wins = await asyncio.gather(*(app.claim_daily_post(key, "2023-01-25") for _ in range(5)))
    assert sum(wins) == 1
    await app.finish_daily_post(key, "2023-01-25", ok=True, message_id="M1")
    assert not await app.claim_daily_post(key, "2023-01-25", retry_failed_after=0.0)

    fix = await app.create_prelock_fix(channel_key="discord:G:C", day="2023-01-25",
                                       team_id=1, user_id="111")
    assert len(fix) == 12 and await app.get_prelock_fix("0" * 12) is None
    await app.set_prelock_fix_message(fix, "M1")
    row = await app.get_prelock_fix(fix)
    assert (row["team_id"], row["message_id"], row["status"]) == (1, "M1", "pending")
    claims = await asyncio.gather(*(app.claim_prelock_fix(fix, "discord:111")
                                    for _ in range(4)))
    assert sum(claims) == 1
    await app.finish_prelock_fix(fix, "applied")
    assert (await app.get_prelock_fix(fix))["status"] == "applied"
    assert not await app.claim_prelock_fix(fix, "discord:111")
