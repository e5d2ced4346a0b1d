"""Daily lineup posts: one per scheduled channel per local day, at `HH:MM` in an IANA zone.

`DailyScheduler` is a plain asyncio loop with an injectable clock (`now()` -> aware
datetime) and `sleep`, so tests time-travel. Schedules come from storage.app_db
(`/daily` writes them) and are re-read on start and whenever `reload()` is called. The
ledger (`daily_posts`, keyed by channel + local date) is claimed before posting (the
intent), so a restart never posts twice: a claim a killed process left is taken over
(`AppDB.resume_daily_post`) and the poster gets the schedule with `resumed_at`, the time of
that claim, to adopt the messages posted since then. A post missed while the bot was down
is sent late if the bot comes back within `grace` (default 2 h), and a failed post is
retried after 5 minutes.

Pre-lock alerts: with `alerts` (the core's `prelock_check(surface, schedule)`) and
`alert_window` (`Prelock.window(schedule, now)` -> (alert time, first game) or None), each
pass also runs the alert check of every schedule whose window is open; the check itself
claims each alert in the ledger, so a restart inside the window sends nothing twice.

Scheduled moves: with `moves` (the core's move job, `MoveSchedule.run_due` for this
process's surfaces), each pass also makes the approved moves due today, each once (the job
claims every move before making it; see bot.core.move_schedule).

League posts: with `league` (the core's `LeagueLife.run_due` for this process's surfaces),
each pass also posts the league channels' due recaps, each claimed in its own ledger.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from storage.app_db import AppDB, DailySchedule

log = logging.getLogger(__name__)

Poster = Callable[[DailySchedule], Awaitable[str]]
Alerts = Callable[[DailySchedule], Awaitable[int]]
AlertWindow = Callable[[DailySchedule, datetime], Awaitable["tuple[datetime, datetime] | None"]]
MoveJob = Callable[[], Awaitable[object]]


def _at(hhmm: str, tz: str, day_local: datetime) -> datetime:
    hh, mm = (int(x) for x in hhmm.split(":"))
    zone = ZoneInfo(tz)
    return datetime.combine(day_local.date(), time(hh, mm), tzinfo=zone)


def fire_time_on(hhmm: str, tz: str, now: datetime) -> datetime:
    """Today's (in `tz`) fire time as an aware datetime."""
    return _at(hhmm, tz, now.astimezone(ZoneInfo(tz)))


def next_fire(hhmm: str, tz: str, now: datetime) -> datetime:
    """The next fire time strictly after `now` (aware, in `tz`)."""
    local_now = now.astimezone(ZoneInfo(tz))
    t = _at(hhmm, tz, local_now)
    if t <= local_now:
        t = _at(hhmm, tz, local_now + timedelta(days=1))
    return t


class DailyScheduler:
    """Fires `poster(schedule)` once per channel per local day (see module docstring).

    `platforms` restricts which schedules this process serves (e.g. {"discord"})."""

    def __init__(self, db: AppDB, poster: Poster, *, platforms: set[str] | None = None,
                 now: Callable[[], datetime] = lambda: datetime.now(UTC),
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 grace: timedelta = timedelta(hours=2), max_sleep: float = 60.0,
                 alerts: Alerts | None = None, alert_window: AlertWindow | None = None,
                 moves: MoveJob | None = None, league: MoveJob | None = None) -> None:
        self.db = db
        self.league = league
        self.poster = poster
        self.alerts = alerts
        self.moves = moves
        self.alert_window = alert_window
        #: channel key -> today's alert time (for the sleep until the next thing to do)
        self._alert_at: dict[str, datetime] = {}
        self.platforms = platforms
        self._now = now
        self._sleep = sleep
        self.grace = grace
        self.max_sleep = max_sleep
        self._schedules: list[DailySchedule] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self.posted: list[tuple[str, str]] = []

    async def reload(self) -> None:
        """Re-read the schedules (called on start and after `/daily`)."""
        rows = await self.db.schedules()
        self._schedules = [s for s in rows
                           if self.platforms is None or s.platform in self.platforms]
        self._wake.set()

    @property
    def schedules(self) -> list[DailySchedule]:
        """The registered schedules."""
        return list(self._schedules)

    async def run_due(self) -> list[str]:
        """Post every schedule that is due now and not yet in the ledger; returns the
        channel keys posted."""
        now = self._now()
        done: list[str] = []
        for s in list(self._schedules):
            try:
                fire = fire_time_on(s.hhmm, s.tz, now)
            except (ValueError, KeyError) as exc:
                log.warning("bad schedule for %s: %s", s.channel_key, exc)
                continue
            if not fire <= now < fire + self.grace:
                continue
            local_date = fire.date().isoformat()
            post = s
            if not await self.db.claim_daily_post(s.channel_key, local_date):
                # a process killed while posting it: maybe posted, its id lost; the poster
                # adopts what it finds since that claim (bot.core.daily) instead of
                # posting the digest twice
                since = await self.db.resume_daily_post(s.channel_key, local_date)
                if since is None:
                    continue
                post = replace(s, resumed_at=since)
            try:
                mid = await self.poster(post)
            except Exception as exc:  # noqa: BLE001 - retried later, never crashes the loop
                log.error("daily post to %s failed: %s: %s", s.channel_key,
                          type(exc).__name__, exc)
                await self.db.finish_daily_post(s.channel_key, local_date, ok=False)
                continue
            await self.db.finish_daily_post(s.channel_key, local_date, ok=True,
                                            message_id=str(mid) if mid is not None else None)
            self.posted.append((s.channel_key, local_date))
            done.append(s.channel_key)
            log.info("daily post sent to %s for %s", s.channel_key, local_date)
        await self.run_alerts(now)
        await self.run_moves()
        await self.run_league()
        return done

    async def run_league(self) -> None:
        """The league posts due now (nothing without `league`); a failure is logged and the
        next pass tries again (each post is claimed before it goes out)."""
        if self.league is None:
            return
        try:
            await self.league()
        except Exception as exc:  # noqa: BLE001 - never stops the loop
            log.error("league posts failed: %s: %s", type(exc).__name__, exc)

    async def run_moves(self) -> None:
        """The scheduled moves due now (nothing without `moves`); a failure is logged and
        the next pass tries again (each move is claimed before it is made)."""
        if self.moves is None:
            return
        try:
            await self.moves()
        except Exception as exc:  # noqa: BLE001 - never stops the loop
            log.error("scheduled moves failed: %s: %s", type(exc).__name__, exc)

    async def run_alerts(self, now: datetime | None = None) -> int:
        """Run the pre-lock check of every schedule whose alert window is open; returns the
        number of alerts sent (0 without `alerts`)."""
        if self.alerts is None or self.alert_window is None:
            return 0
        now = now or self._now()
        sent = 0
        for s in list(self._schedules):
            try:
                window = await self.alert_window(s, now)
            except Exception as exc:  # noqa: BLE001
                log.warning("no pre-lock time for %s: %s", s.channel_key, type(exc).__name__)
                continue
            if window is None:
                self._alert_at.pop(s.channel_key, None)
                continue
            self._alert_at[s.channel_key] = window[0]
            if not window[0] <= now < window[1]:
                continue
            try:
                sent += await self.alerts(s)
            except Exception as exc:  # noqa: BLE001 - retried on the next pass
                log.error("pre-lock check of %s failed: %s: %s", s.channel_key,
                          type(exc).__name__, exc)
        return sent

    def seconds_until_next(self) -> float:
        """Seconds until the next fire time of any schedule (capped at `max_sleep`)."""
        now = self._now()
        best = self.max_sleep
        for s in self._schedules:
            try:
                delta = (next_fire(s.hhmm, s.tz, now) - now).total_seconds()
            except (ValueError, KeyError):
                continue
            best = min(best, max(delta, 0.0))
        for at in self._alert_at.values():
            delta = (at - now).total_seconds()
            if delta > 0:
                best = min(best, delta)
        return best

    async def start(self) -> None:
        """Load the schedules and start the loop (catches up posts missed within `grace`)."""
        await self.reload()
        self._stopping = False
        self._task = asyncio.create_task(self._loop(), name="fanvise-daily-scheduler")

    async def _loop(self) -> None:
        while not self._stopping:
            try:
                await self.run_due()
            except Exception as exc:  # noqa: BLE001
                log.error("scheduler pass failed: %s: %s", type(exc).__name__, exc)
            self._wake.clear()
            delay = self.seconds_until_next()
            sleeper = asyncio.ensure_future(self._sleep(delay + 0.01))
            waker = asyncio.ensure_future(self._wake.wait())
            try:
                await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for f in (sleeper, waker):
                    if not f.done():
                        f.cancel()

    async def stop(self) -> None:
        """Stop the loop."""
        self._stopping = True
        self._wake.set()
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None


__all__ = ["DailyScheduler", "fire_time_on", "next_fire"]
