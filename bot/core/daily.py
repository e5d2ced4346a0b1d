"""Daily posts: the `/daily` schedule per channel and the post itself."""

from __future__ import annotations

import asyncio
import logging
import re
import zoneinfo
from typing import TYPE_CHECKING, Any

from bot.core.commands import split_args
from bot.core.errors import InvalidInput
from bot.core.models import OutgoingMessage, ThreadRef, UserRef
from bot.core.surface import ChatSurface
from storage.app_db import DailySchedule

if TYPE_CHECKING:
    from bot.core.service import ChatCore

log = logging.getLogger(__name__)

_TIME_RE = re.compile(r"^([01]?\d|2[0-3])[:h.]?([0-5]\d)$")


class Daily:
    """Daily posts: the `/daily` schedule per channel and the post itself."""

    def __init__(self, core: ChatCore) -> None:
        self.core = core

    async def cmd_daily(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                         args: dict[str, Any]) -> None:
        args = dict(args)
        enabled = args.pop("enabled", None)
        kv, pos = split_args(args)
        if enabled is False or str(enabled).lower() in ("false", "off", "0", "no"):
            pos = ["off"]
        key = thread.channel_key
        if not kv and not pos:
            cur = next((s for s in await self.core.db.schedules() if s.channel_key == key), None)
            await surface.ephemeral(thread, user, "No daily lineup post in this channel. "
                                    "Admins: `/daily 09:30 America/New_York`." if cur is None
                                    else f"Daily lineup post at {cur.hhmm} {cur.tz} "
                                    f"for team {cur.team_id}.")
            return
        if not user.is_admin:
            raise InvalidInput("Only a server admin (Manage Server) or the workspace admin "
                               "who installed FanVise can change the daily post.")
        if [p.lower() for p in pos] in (["off"], ["stop"], ["disable"]):
            gone = await self.core.db.delete_schedule(key)
            await self.schedules_changed()
            await surface.post(thread, OutgoingMessage(
                "Daily lineup post turned off for this channel." if gone
                else "There was no daily lineup post in this channel."))
            return
        time_raw = kv.get("time") or (pos[0] if pos else "")
        tz_raw = kv.get("tz") or kv.get("timezone") or (pos[1] if len(pos) > 1 else "")
        if len(pos) > 2:
            raise InvalidInput("Use `/daily HH:MM Area/City`, e.g. `/daily 09:30 "
                               "America/New_York`.")
        m = _TIME_RE.match(time_raw.strip())
        if not m:
            raise InvalidInput(f"{time_raw[:20]!r} is not a time: use 24-hour HH:MM, e.g. "
                               "`/daily 09:30 America/New_York`.")
        hhmm = f"{int(m.group(1)):02d}:{m.group(2)}"
        if not tz_raw:
            raise InvalidInput("Add an IANA time zone, e.g. `/daily 09:30 America/New_York`.")
        try:
            if not re.fullmatch(r"[A-Za-z0-9_+\-/]{1,64}", tz_raw):
                raise ValueError
            zoneinfo.ZoneInfo(tz_raw)
        except (ValueError, zoneinfo.ZoneInfoNotFoundError):
            raise InvalidInput(f"Unknown time zone {tz_raw[:40]!r}: use an IANA name like "
                               "America/New_York or Europe/London.") from None
        team_id = await self.core.link.team_for(user)
        await self.core.db.set_schedule(DailySchedule(key, thread.platform, thread.workspace_id,
                                                 thread.channel_id, hhmm, tz_raw, team_id,
                                                 user.key))
        await self.schedules_changed()
        from bot.scheduler import next_fire
        nxt = next_fire(hhmm, tz_raw, self.core.now())
        await surface.post(thread, OutgoingMessage(
            f"Daily lineup post set for {hhmm} {tz_raw} in this channel (team {team_id}); "
            f"next one {nxt.strftime('%a %b %d %H:%M %Z')}."))

    async def schedules_changed(self) -> None:
        cb = self.core.on_schedule_change
        if cb is not None:
            res = cb()
            if asyncio.iscoroutine(res):
                await res

    async def post_daily(self, surface: ChatSurface, schedule: DailySchedule) -> str:
        """Post the daily lineup to a scheduled channel; returns the message id."""
        team_id = schedule.team_id if schedule.team_id is not None else self.core.default_team_id
        thread = ThreadRef(schedule.platform, schedule.workspace_id, schedule.channel_id, "")
        if team_id is None:
            return await surface.post(thread, OutgoingMessage(
                "Daily lineup: no team is linked for this channel. An admin can run "
                "`/link team=<id>` and `/daily` again."))
        msg = await self.core.lineup.lineup_message(team_id, None)
        return await self.core.turns.post_split(surface, thread, msg)
