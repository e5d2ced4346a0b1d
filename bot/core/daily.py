"""Daily posts: the `/daily` schedule per channel and the post itself, a league digest
(bot.core.digest) that mentions each linked owner; bot.core.prelock re-checks it before lock."""

from __future__ import annotations

import asyncio
import logging
import re
import zoneinfo
from datetime import date
from typing import TYPE_CHECKING, Any

from bot.core import digest
from bot.core.buttons import lineup_fix_id
from bot.core.commands import invocation, split_args
from bot.core.errors import InvalidInput, MessageGone
from bot.core.models import OutgoingMessage, ThreadRef, UserRef
from bot.core.surface import ChatSurface
from fantasy.formatting import day_text
from storage.app_db import DailySchedule
from storage.crashpoint import crash_point

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
        pin_opt = args.pop("pin", None)
        kv, pos = split_args(args)
        if enabled is False or str(enabled).lower() in ("false", "off", "0", "no"):
            pos = ["off"]
        pin = pin_opt is True or str(pin_opt).lower() in ("true", "yes", "1", "pin")
        pin = pin or str(kv.pop("pin", "")).lower() in ("true", "yes", "1", "on")
        if any(p.lower() == "pin" for p in pos):
            pos, pin = [p for p in pos if p.lower() != "pin"], True
        key = thread.channel_key
        plat = thread.platform
        example = invocation("daily", "09:30 America/New_York", plat)
        if not kv and not pos:
            cur = next((s for s in await self.core.db.schedules() if s.channel_key == key), None)
            await surface.ephemeral(thread, user, "No daily lineup digest in this channel. "
                                    f"Admins: `{example}`." if cur is None
                                    else f"Daily lineup digest at {cur.hhmm} {cur.tz} for "
                                    "every linked owner"
                                    + (", pinned." if cur.pin else "."))
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
            raise InvalidInput(f"Use `{invocation('daily', 'HH:MM Area/City [pin]', plat)}`, "
                               f"e.g. `{example} pin`.")
        m = _TIME_RE.match(time_raw.strip())
        if not m:
            raise InvalidInput(f"{time_raw[:20]!r} is not a time: use 24-hour HH:MM, e.g. "
                               f"`{example}`.")
        hhmm = f"{int(m.group(1)):02d}:{m.group(2)}"
        if not tz_raw:
            raise InvalidInput(f"Add an IANA time zone, e.g. `{example}`.")
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
                                                 user.key, pin=pin))
        await self.schedules_changed()
        from bot.scheduler import next_fire
        nxt = next_fire(hhmm, tz_raw, self.core.now())
        await surface.post(thread, OutgoingMessage(
            f"Daily lineup digest set for {hhmm} {tz_raw} in this channel"
            + (", pinned" if pin else "")
            + f": it mentions every member who linked a team with their own lineup fixes; "
            f"next one {day_text(nxt)} {nxt:%H:%M %Z}."))

    async def schedules_changed(self) -> None:
        cb = self.core.on_schedule_change
        if cb is not None:
            res = cb()
            if asyncio.iscoroutine(res):
                await res

    async def post_daily(self, surface: ChatSurface, schedule: DailySchedule) -> str:
        """Post the day's league digest to a scheduled channel (see bot.core.digest); returns
        the id of its first message, which is pinned (when the schedule says so) and carries
        the follow-up thread. Records each team's lineup state for the pre-lock alert."""
        channel = ThreadRef(schedule.platform, schedule.workspace_id, schedule.channel_id, "")
        day = self.core.league_today()
        from bot.core.handoff import check_handoffs  # waivers processed overnight: claims
        await check_handoffs(self.core, surface, workspace=(schedule.platform,
                                                            schedule.workspace_id))
        owners = await digest.linked_owners(self.core, schedule.platform, schedule.workspace_id)
        entries: list[digest.OwnerEntry] = []
        if not owners:
            messages = [digest.no_links_message(schedule.platform, day)]
        else:
            from fantasy.espn.errors import EspnError
            try:
                opt = await digest.league_optimizer(self.core.espn, owners[0].team_id)
                known = {t.id for t in opt.league.teams}
                for o in owners:
                    if o.team_id not in known:
                        log.warning("digest: linked team %s is not in the league", o.team_id)
                owners = [o for o in owners if o.team_id in known]
                auto = await self._auto_lineups(schedule, owners, opt, day)
                if any(w.changed for w in auto.values()):  # the digest shows the lineups set
                    opt = await digest.league_optimizer(self.core.espn, owners[0].team_id)
                for owner in owners:
                    entry = digest.owner_entry(
                        opt, owner, league_id=self.core.league_id, season=self.core.season,
                        platform=schedule.platform, day=day,
                        planned=await self.core.moves.planned(owner.team_id))
                    entry.auto_note = _auto_note(auto.get(owner.team_id))
                    entries.append(entry)
                await self._fix_buttons(schedule, entries, day)
            except EspnError as exc:
                from agents.runtime import espn_notice
                notice = OutgoingMessage(
                    f"Daily lineup digest · {day_text(day)}: ⚠️ {espn_notice(exc).text}")
                return (await self._post_messages(surface, channel, [notice],
                                                  schedule.resumed_at))[0]
            first_game = await self.core.prelock.first_game_text()
            messages = digest.render_digest(entries, platform=schedule.platform, day=day,
                                            max_text=surface.max_text, first_game=first_game)
        first = (await self._post_messages(surface, channel, messages,
                                           schedule.resumed_at))[0]
        for e in entries:  # what the pre-lock alert compares with
            await self.core.db.save_digest_team(schedule.channel_key, day.isoformat(),
                                                e.team_id, e.user_ids[0], e.state.to_dict())
        await self._pin_and_thread(surface, channel, schedule, first, day)
        return first

    async def _post_messages(self, surface: ChatSurface, channel: ThreadRef,
                             messages: list[OutgoingMessage], since: float | None) -> list[str]:
        """Post the digest's messages in order; their ids. Crash-safe like a card's message
        (`Approvals.post_card_message`): the intent is the scheduler's ledger claim, stored
        before, and the first message's id is stored after (`finish_daily_post`). `since`:
        the time of a claim a killed process left; the messages it posted since then are
        adopted and drawn as they are now, without a second ping, and only the rest is
        posted. Crash points `daily:posting` / `daily:post-sent` on both sides, and
        `daily:part-sent` after each message but the last."""
        ids = await self._posted_since(surface, channel, messages, since)
        crash_point("daily:posting")
        for i, msg in enumerate(messages):
            if ids[i]:
                try:
                    await surface.edit(channel, ids[i], msg)
                    continue
                except MessageGone:  # deleted meanwhile: posted again
                    pass
            ids[i] = await surface.post(channel, msg)
            if i + 1 < len(messages):
                crash_point("daily:part-sent")  # a digest of several messages, cut short
        crash_point("daily:post-sent")
        return ids

    @staticmethod
    async def _posted_since(surface: ChatSurface, channel: ThreadRef,
                            messages: list[OutgoingMessage], since: float | None) -> list[str]:
        """Per message, the id of the same message (its text as the surface posts it: the
        surface's `find_messages`) posted since `since`, or "": the digest a killed process
        posted. Messages go out in order, so what was posted is a prefix of them."""
        ids = [""] * len(messages)
        find = getattr(surface, "find_messages", None)
        if since is None or find is None:
            return ids
        taken: set[str] = set()
        try:
            for i, msg in enumerate(messages):
                hits = [m for m in reversed(await find(channel, msg, since))
                        if m not in taken]  # the first posted after the claim
                if not hits:
                    break
                ids[i] = str(hits[0])
                taken.add(ids[i])
        except Exception as exc:  # noqa: BLE001 - posting anew beats no digest
            log.warning("could not look for the digest's earlier messages: %s",
                        type(exc).__name__)
            return [""] * len(messages)
        return ids

    async def _auto_lineups(self, schedule: DailySchedule, owners: list[digest.Owner],
                            opt: Any, day: date) -> dict[int, Any]:
        """Set today's lineup of each owner who opted in to the automatic lineup (and may
        have FanVise write: bot.core.handoff), once per team and day; {team id: LineupWrite}."""
        from bot.core.handoff import writes_of
        writes = writes_of(self.core)
        out: dict[int, Any] = {}
        for owner in owners:
            access = await writes.access(schedule.platform, schedule.workspace_id,
                                         owner.user_ids[0], owner.team_id)
            if not (access.allowed and access.auto_lineup) or access.dry_run:
                continue
            out[owner.team_id] = await writes.set_lineups(
                access, owner.team_id, opt=opt, key=f"auto:morning:{owner.team_id}:{day}")
        return out

    async def _fix_buttons(self, schedule: DailySchedule, entries: list[digest.OwnerEntry],
                           day: date) -> None:
        """A "Set this lineup" button on each owner card with fixes, for owners FanVise may
        write for; a tap answers privately (the digest is shared: it is not edited). A
        digest taken over after a kill (`resumed_at`) keeps the buttons it was posted with."""
        from bot.core.handoff import writes_of
        from bot.core.models import Button
        from bot.core.prelock import SHARED_MESSAGE
        for e in entries:
            if not any(f.startswith(("Start ", "Move ", "Bench ")) for f in e.fixes):
                continue  # nothing a tap could change (e.g. an out starter nobody can cover)
            access = await writes_of(self.core).access(schedule.platform,
                                                       schedule.workspace_id, e.user_ids[0],
                                                       e.team_id)
            if not access.allowed:
                continue
            fix = None if schedule.resumed_at is None else \
                await self.core.db.unposted_prelock_fix(  # the killed process's button
                    channel_key=schedule.channel_key, day=day.isoformat(), team_id=e.team_id,
                    since=schedule.resumed_at, message_id=SHARED_MESSAGE)
            if fix is None:
                fix = await self.core.db.create_prelock_fix(
                    channel_key=schedule.channel_key, day=day.isoformat(), team_id=e.team_id,
                    user_id=e.user_ids[0])
                await self.core.db.set_prelock_fix_message(fix, SHARED_MESSAGE)
            # the team named: on Discord a message's buttons sit under all its cards
            e.buttons.append(Button(f"Set lineup: {e.team_name}", lineup_fix_id(fix),
                                    "primary"))
            e.button_note = ("One tap sets it in the demo league." if access.demo
                             else "One tap sets it on ESPN.")

    async def _pin_and_thread(self, surface: ChatSurface, channel: ThreadRef,
                              schedule: DailySchedule, message_id: str, day: date) -> None:
        """Pin the digest (when the schedule says so and the surface can) and open its
        follow-up thread. The post is out already: a failure here is logged, never raised
        (a raise would make the scheduler post the digest again)."""
        pin = getattr(surface, "pin", None)
        if schedule.pin and pin is not None:
            try:
                await pin(channel, message_id)
            except Exception as exc:  # noqa: BLE001
                log.warning("could not pin the digest in %s: %s", schedule.channel_key,
                            type(exc).__name__)
        try:
            if schedule.platform == "discord":
                create = getattr(surface, "create_thread", None)
                if create is None:
                    return
                thread = await create(channel, f"Lineup questions · {day_text(day)}", message_id)
                await surface.post(thread, OutgoingMessage(
                    "Questions about today's lineup? Ask here, e.g. \"who should I start at "
                    "C?\" or \"is my lineup set?\": FanVise answers for your linked team."))
            elif schedule.platform == "slack":
                # replies to a bot post reach the bot already; registering the thread keeps
                # them ours whatever Slack says about the parent
                from bot.slack.store import ThreadRegistry
                await ThreadRegistry(self.core.db.db).remember(
                    channel.in_thread(message_id).conversation_id)
        except Exception as exc:  # noqa: BLE001
            log.warning("could not open the digest's thread in %s: %s", schedule.channel_key,
                        type(exc).__name__)


def _auto_note(done: Any) -> str:
    """The digest's line about an owner's automatic lineup ("" when it is off)."""
    if done is None:
        return ""
    if done.error is not None:
        from bot.core.handoff import failure_text
        return f"Auto lineup is on but could not set it: {failure_text(done.error)}"
    if done.changed:
        return "Auto lineup is on: FanVise set your best lineup for today."
    return "Auto lineup is on: your lineup was already the best one."
