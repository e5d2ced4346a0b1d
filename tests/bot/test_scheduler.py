"""Daily lineup posts (the league digest) with time travel: set from chat, fires once at the
scheduled local time, never twice after a restart, re-registered on start; real app on the
demo league."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.core.app import FanViseApp
from bot.core.models import OutgoingMessage, ThreadRef, UserRef
from bot.scheduler import DailyScheduler, fire_time_on, next_fire
from bot.settings import Settings

NY = ZoneInfo("America/New_York")
CHANNEL = ThreadRef("discord", "G1", "C1", "")
ADMIN = UserRef("discord", "100", "Admin", is_admin=True)
MEMBER = UserRef("discord", "200", "Member")


class Recorder:
    max_text = 2000

    def __init__(self) -> None:
        self.posts: list[tuple[ThreadRef, OutgoingMessage]] = []
        self.private: list[tuple[str, str]] = []

    async def post(self, thread: ThreadRef, msg: OutgoingMessage) -> str:
        self.posts.append((thread, msg))
        return f"m{len(self.posts)}"

    async def edit(self, thread: ThreadRef, message_id: str, msg: OutgoingMessage) -> None:
        pass

    async def ephemeral(self, thread: ThreadRef, user: UserRef, text: str) -> None:
        self.private.append((user.user_id, text))


class Clock:
    def __init__(self, t: datetime) -> None:
        self.t = t

    def now(self) -> datetime:
        return self.t

    def travel(self, **kw: float) -> None:
        self.t += timedelta(**kw)


def ny(h: int, m: int, s: int = 0, day: int = 23) -> datetime:
    return datetime(2026, 11, day, h, m, s, tzinfo=NY).astimezone(UTC)


def test_next_fire_and_today() -> None:
    now = ny(9, 0)
    assert next_fire("09:30", "America/New_York", now) == datetime(2026, 11, 23, 9, 30, tzinfo=NY)
    assert next_fire("08:00", "America/New_York", now) == datetime(2026, 11, 24, 8, 0, tzinfo=NY)
    # same instant, another zone: 09:00 NY = 15:00 Paris
    assert next_fire("15:30", "Europe/Paris", now).astimezone(UTC) == ny(9, 30)
    assert fire_time_on("09:30", "America/New_York", ny(23, 59)).date().isoformat() == \
        "2026-11-23"


async def test_daily_post_fires_once_and_not_again_after_restart(tmp_path: Path) -> None:
    clock = Clock(ny(9, 0))
    settings = Settings(data_dir=tmp_path)
    app = await FanViseApp.open(settings, now=clock.now)
    rec = Recorder()
    try:
        core = app.core
        # members cannot set it; bad input is explained
        await core.handle_command(rec, CHANNEL, MEMBER, "daily", {"text": "09:30 America/New_York"})
        assert "admin" in rec.private[-1][1].lower()
        for bad, expect in (("25:00 America/New_York", "not a time"),
                            ("09:30 Mars/Olympus", "Unknown time zone"),
                            ("09:30", "time zone")):
            await core.handle_command(rec, CHANNEL, ADMIN, "daily", {"text": bad})
            assert expect in rec.private[-1][1], rec.private[-1]
        assert await app.app_db.schedules() == []
        await core.handle_command(rec, CHANNEL, ADMIN, "daily",
                                  {"time": "9:30", "timezone": "America/New_York"})
        assert "09:30 America/New_York" in rec.posts[-1][1].text
        rec.posts.clear()
        await app.app_db.set_link(platform="discord", workspace_id="G1", user_id="200",
                                  league_id=core.league_id, season=core.season, team_id=1)

        sched = DailyScheduler(app.app_db, lambda s: core.post_daily(rec, s), now=clock.now)
        core.on_schedule_change = sched.reload
        await sched.reload()
        assert await sched.run_due() == []
        assert sched.seconds_until_next() == pytest.approx(60.0)  # capped at max_sleep
        clock.travel(minutes=29, seconds=30)
        assert sched.seconds_until_next() == pytest.approx(30.0)
        clock.travel(seconds=35)  # 09:30:05
        assert await sched.run_due() == ["discord:G1:C1"]
        assert len(rec.posts) == 1
        thread, msg = rec.posts[0]
        assert thread.channel_id == "C1" and thread.thread_id == ""
        # the digest: one post for the channel, the linked owner mentioned with his fixes
        assert msg.text.startswith("**Daily lineup digest · Wed Jan 25**")
        assert "<@200>" in msg.text
        card = msg.cards[0]
        assert card.title.startswith("Hoop Dreamers") and card.text.startswith("<@200>")
        assert "Jordan Poole (out)" in card.text and "teamId=1" in card.text
        clock.travel(minutes=15)
        assert await sched.run_due() == []
    finally:
        await app.close()

    # restart at 09:50 the same day: schedules re-registered, no second post
    clock.t = ny(9, 50)
    app = await FanViseApp.open(settings, now=clock.now)
    try:
        rec2 = Recorder()
        posted = asyncio.Event()

        async def poster(s):
            mid = await app.core.post_daily(rec2, s)
            posted.set()
            return mid

        async def tiny_sleep(d: float) -> None:
            clock.travel(seconds=d)
            await asyncio.sleep(0.01)

        sched = DailyScheduler(app.app_db, poster, now=clock.now, sleep=tiny_sleep)
        await sched.start()
        assert [s.channel_key for s in sched.schedules] == ["discord:G1:C1"]
        await asyncio.sleep(0.2)   # the loop runs (and time advances) without posting
        assert rec2.posts == []
        # next day: the loop posts at 09:30 on the 24th
        clock.t = ny(9, 29, 0, day=24)
        await asyncio.wait_for(posted.wait(), 30)
        await sched.stop()
        assert len(rec2.posts) == 1
        ledger = await app.app_db.daily_posts("discord:G1:C1")
        assert [(r["local_date"], r["status"]) for r in ledger] == [
            ("2026-11-23", "posted"), ("2026-11-24", "posted")]
        assert clock.t >= ny(9, 30, 0, day=24)
        # /daily off removes it
        await app.core.handle_command(rec2, CHANNEL, ADMIN, "daily", {"enabled": False})
        assert await app.app_db.schedules() == []
    finally:
        await app.close()


async def test_missed_beyond_grace_is_skipped_and_failures_retry(tmp_path: Path) -> None:
    clock = Clock(ny(12, 0))
    from storage.app_db import AppDB, DailySchedule
    from storage.db import Database

    db = await Database.open(tmp_path / "x.sqlite")
    try:
        app_db = await AppDB.open(db)
        await app_db.set_schedule(DailySchedule("slack:T:C", "slack", "T", "C", "09:30",
                                                "America/New_York", 1))
        calls: list[str] = []

        async def flaky(s):
            calls.append(s.channel_key)
            if len(calls) == 1:
                raise RuntimeError("slack down")
            return "ts1"

        sched = DailyScheduler(app_db, flaky, now=clock.now, grace=timedelta(hours=2))
        await sched.reload()
        assert await sched.run_due() == []       # 2.5 h late: beyond grace
        assert calls == []
        clock.t = ny(9, 31, day=24)
        assert await sched.run_due() == []       # failed
        assert await sched.run_due() == []       # retry waits 5 min (app_db clock is real time)
        assert calls == ["slack:T:C"]
    finally:
        await db.close()
