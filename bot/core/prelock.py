"""Pre-lock alert: a configurable number of minutes before the day's first NBA game (from
the league client's pro schedule), re-check every team of the channel's digest and mention
its owner only when something changed for the worse since the digest: a starter ruled out,
or an empty slot that someone on the roster could now fill (`fantasy.lineup_alerts`).

It follows the league's lineup lock (ESPN `rosterSettings.lineupLocktimeType`,
`fantasy.lineup_alerts.LockRule`): per player at his own game (it names the team's first
game), the whole lineup at the day's first game, or for the whole matchup (then only on the
matchup's first game day: afterwards nothing can be fixed).

The alert offers a one-tap fix: a button that writes the optimal lineup through ESPN's
transaction endpoint (`bot.core.handoff.EspnWrites`: the demo league's, or ESPN's for a
member who turned writes on with their own cookies); otherwise the steps and a link to the
team page. A member who opted in to the automatic lineup gets it set right away. The fix
button is an ordinary core button id (`fv:approve:<fix id>`, so both adapters route it)
whose id names a `prelock_fixes` row, not a card: ChatCore asks `Prelock.handle_click`
first. The same rows serve the digest's and `/lineup`'s "Set this lineup" and "Set the
rest of the week" buttons (their `scope`).

Once only, also after a restart and across processes: each alert claims
`prelock:<channel>:<team>:<day>` in the daily-post ledger before it is posted.
`bot.scheduler.DailyScheduler` runs `check` while `window` says it is time.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from bot.core import digest
from bot.core.buttons import lineup_fix_id, parse_custom_id
from bot.core.handoff import LineupWrite, failure_text, writes_of
from bot.core.models import Button, Card, OutgoingMessage, ThreadRef, UserRef
from bot.core.render import clip
from bot.core.surface import ChatSurface
from fantasy.constants import STARTING_SLOTS, slot_name
from fantasy.espn.errors import EspnError, EspnWriteOutcomeUnknown
from fantasy.formatting import day_text
from fantasy.lineup_alerts import (
    LineupNews,
    LineupState,
    LockRule,
    changes_since,
    espn_team_url,
    first_game_start,
    lineup_state,
    optimal_assignment,
    team_first_game,
)
from fantasy.schedule import EASTERN
from storage.app_db import DailySchedule
from storage.crashpoint import crash_point

if TYPE_CHECKING:
    from bot.core.service import ChatCore

log = logging.getLogger(__name__)

DEFAULT_MINUTES = 30
#: the `message_id` of a fix whose button sits on a message shared by several owners (the
#: digest): a tap answers privately and leaves the message as it is
SHARED_MESSAGE = "shared"


class _Shared(Exception):
    pass


def claim_key(channel_key: str, team_id: int, day: str) -> str:
    """The ledger key of one team's alert on one day (durable on SQLite and Postgres)."""
    return f"prelock:{channel_key}:{team_id}:{day}"


def _clock(t: datetime) -> str:
    return t.astimezone(EASTERN).strftime("%I:%M %p").lstrip("0") + " ET"


class Prelock:
    """Pre-lock alerts (see module docstring). `minutes` before the first game."""

    def __init__(self, core: ChatCore, minutes: int = DEFAULT_MINUTES) -> None:
        self.core = core
        self.minutes = minutes
        self._checked: set[tuple[str, str]] = set()
        #: fix ids this process is setting now (a row `applying` not here is a dead one's)
        self._inflight: set[str] = set()

    # ------------------------------------------------------------------ when

    async def _first_game(self) -> datetime | None:
        """The league day's first game start (aware), or None (no games, no schedule)."""
        espn = self.core.espn
        if espn is None:
            return None
        from fantasy.espn.errors import EspnError
        try:
            schedule = await espn.get_pro_schedule()
        except EspnError as exc:
            log.warning("pre-lock: no pro schedule (%s)", type(exc).__name__)
            return None
        return first_game_start(schedule, self.core.league_today())

    async def first_game_text(self) -> str:
        """"7:00 PM ET" for the league day's first game, "" without one."""
        start = await self._first_game()
        return _clock(start) if start is not None else ""

    async def window(self, schedule: DailySchedule, now: datetime
                     ) -> tuple[datetime, datetime] | None:
        """(alert time, first game) today, or None on a day without games. The first game's
        US/Eastern time of day is taken on `now`'s date: the same day for a live league,
        and the demo league (which keeps its own recorded day) gets its alert every day."""
        start = await self._first_game()
        if start is None or not await self._lock_allows_alert():
            return None
        today = now.astimezone(EASTERN).date()
        first = datetime.combine(today, start.astimezone(EASTERN).time(), tzinfo=EASTERN)
        return first - timedelta(minutes=self.minutes), first

    async def _lock_allows_alert(self) -> bool:
        """False on a day when the league's lineups are already locked for the week
        (`LockRule.alerts_on`: a weekly lock alerts on the matchup's first game day only)."""
        try:
            espn = self.core.league_client()
            league = await espn.get_league()
            schedule = await espn.get_pro_schedule()
        except EspnError as exc:
            log.warning("pre-lock: no league settings (%s)", type(exc).__name__)
            return True  # the check itself reads the league again and says what it can
        rule = LockRule(league.settings.lineup_lock_type)
        game_days = [d for d in league.matchup_dates() if schedule.games_on(d)]
        return rule.alerts_on(self.core.league_today(), game_days)

    # ------------------------------------------------------------------ the check

    async def check(self, surface: ChatSurface, schedule: DailySchedule) -> int:
        """Re-check the teams of the channel's digest today; alert each owner whose lineup
        got worse since. Returns the number of alerts posted. Runs once per channel and day
        in this process; the ledger claim keeps every alert to one across restarts."""
        day = self.core.league_today().isoformat()
        key = (schedule.channel_key, day)
        if key in self._checked:
            return 0
        rows = await self.core.db.digest_teams(schedule.channel_key, day)
        if not rows:
            return 0  # no digest today (yet): nothing to compare with
        if not await self._lock_allows_alert():
            self._checked.add(key)
            return 0  # lineups are locked for the week: nothing left to fix
        owners = {o.team_id: o.user_ids for o in await digest.linked_owners(
            self.core, schedule.platform, schedule.workspace_id)}
        rows = [r for r in rows if r["team_id"] in owners]
        sent = 0
        if rows:
            opt = await digest.league_optimizer(self.core.espn, rows[0]["team_id"])
            for row in rows:
                tid = row["team_id"]
                result = opt.daily_lineup(tid)
                news = changes_since(LineupState.from_dict(row["state"]),
                                     lineup_state(opt, tid, result=result))
                if not news:
                    continue
                ledger = claim_key(schedule.channel_key, tid, day)
                since: float | None = None
                if not await self.core.db.claim_daily_post(ledger, day):
                    # a process killed while posting this alert: maybe posted, id lost
                    since = await self.core.db.resume_daily_post(ledger, day)
                    if since is None:
                        continue
                try:
                    mid = await self._alert(surface, schedule, tid, owners[tid], opt, result,
                                            news, day, resumed=since)
                except Exception as exc:  # noqa: BLE001 - the other owners still hear
                    log.error("pre-lock alert for team %s in %s failed: %s: %s", tid,
                              schedule.channel_key, type(exc).__name__, exc)
                    await self.core.db.finish_daily_post(ledger, day, ok=False)
                    continue
                await self.core.db.finish_daily_post(ledger, day, ok=True, message_id=mid)
                sent += 1
        self._checked.add(key)
        return sent

    async def _alert(self, surface: ChatSurface, schedule: DailySchedule, team_id: int,
                     user_ids: list[str], opt: Any, result: Any, news: LineupNews,
                     day: str, *, resumed: float | None = None) -> str:
        """Post one owner's alert, crash-safe like a card's message: the ledger claim and
        the fix button's row are the intent, stored before the post, and the message id
        after it. `resumed`: the time of a claim a killed process left; the alert it
        posted (its text since then, the surface's `find_messages`) is adopted, with the
        fix button it carries, instead of pinging the owner again."""
        team = opt.league.team(team_id)
        name = getattr(team, "name", f"team {team_id}")
        url = espn_team_url(self.core.league_id, team_id, self.core.season)
        fixes = digest.fix_lines(result.to_dict())
        reasons = [f"{who}{f' ({slot})' if slot else ''} was ruled out since this "
                   "morning's digest" for who, slot in news.ruled_out]
        if news.more_fixable:
            n = news.more_fixable
            reasons.append(f"{n} empty slot{'s' if n != 1 else ''} in your lineup "
                           "can now be filled from your bench")
        assignment = optimal_assignment(opt, team_id, result=result)
        writes = writes_of(self.core)
        access = await writes.access(schedule.platform, schedule.workspace_id, user_ids[0],
                                     team_id)
        auto: LineupWrite | None = None
        if access.allowed and access.auto_lineup and assignment and not access.dry_run:
            # the member asked FanVise to set it when a starter is ruled out: set it now
            auto = await writes.set_lineups(access, team_id, opt=opt,
                                            key=f"auto:prelock:{team_id}:{day}")
        lines = [f"• {r}" for r in reasons]
        if auto is not None and auto.ok and auto.changed:
            lines += ["", "FanVise set your lineup (auto lineup is on):"] + [
                f"• {f}" for f in fixes]
        elif fixes:
            lines += ["", "Fix:"] + [f"• {f}" for f in fixes]
        else:
            lines += ["", "No one on your roster can cover it today."]
        if auto is not None and auto.error is not None:
            lines += ["", f"Auto lineup could not set it: {failure_text(auto.error)}"]
        buttons: list[Button] = []
        fix_id = None
        if auto is not None and auto.ok and auto.changed:
            footer_tail = "Set automatically: turn it off with /link autolineup:off."
        elif access.allowed and assignment:
            fix_id = None if resumed is None else await self.core.db.unposted_prelock_fix(
                channel_key=schedule.channel_key, day=day, team_id=team_id, since=resumed)
            fix_id = fix_id or await self.core.db.create_prelock_fix(
                channel_key=schedule.channel_key, day=day, team_id=team_id,
                user_id=user_ids[0])
            buttons.append(Button("Set this lineup", lineup_fix_id(fix_id), "primary"))
            footer_tail = ("One tap sets it in the demo league." if access.demo
                           else "One tap sets it on ESPN.")
        else:
            if fixes:
                lines += ["", "On ESPN: open your team, tap MOVE beside each player above, "
                          "pick the slot shown and confirm."]
            buttons.append(Button("Open team on ESPN", "fvlink:espn", url=url))
            footer_tail = ("Set it on your team page." if not access.why
                           else f"Set it on your team page ({access.why}).")
        lines.append(f"[Open {name} on ESPN]({url})")
        mentions = " ".join(f"<@{u}>" for u in user_ids)
        first = await self.first_game_text()
        rule = LockRule(opt.league.settings.lineup_lock_type)
        mine = team_first_game(opt.schedule, opt.today, {
            e.player.pro_team_id for e in getattr(team, "roster", [])}) \
            if rule.kind == "game" else None
        head = (rule.headline(name, self.minutes, first, _clock(mine) if mine else "")
                + " Something changed since this morning's digest.")
        card = Card(title=f"Before lock · {name}", text="\n".join(lines), buttons=buttons,
                    color="red", footer=footer_tail)
        channel = ThreadRef(schedule.platform, schedule.workspace_id, schedule.channel_id, "")
        # the owners' mentions ping from the text (`mentions`: Slack lets these through); the
        # text is one short line, so it is posted as is (post_split would drop `mentions`)
        msg = OutgoingMessage(clip(f"{mentions} {head}", surface.max_text), cards=[card],
                              mentions=tuple(user_ids))
        mid = await self._adopt(surface, channel, msg, resumed)
        if mid:  # posted before the kill: drawn as it is now, no second ping
            await surface.edit(channel, mid, msg)
        else:
            crash_point("prelock:posting")
            mid = await surface.post(channel, msg)
            crash_point("prelock:post-sent")
        if fix_id is not None:
            await self.core.db.set_prelock_fix_message(fix_id, str(mid))
        log.info("pre-lock alert for team %s in %s", team_id, schedule.channel_key)
        return str(mid)

    @staticmethod
    async def _adopt(surface: ChatSurface, channel: ThreadRef, msg: OutgoingMessage,
                     since: float | None) -> str:
        """The alert a killed process posted since `since` (the same message, as the
        surface posts it: on Slack its text includes the card's), or ""."""
        find = getattr(surface, "find_messages", None)
        if since is None or find is None:
            return ""
        try:
            found = await find(channel, msg, since)
        except Exception as exc:  # noqa: BLE001 - posting anew beats not alerting
            log.warning("could not look for the alert's earlier message: %s",
                        type(exc).__name__)
            return ""
        return str(found[-1]) if found else ""  # the first posted after the claim

    # ------------------------------------------------------------------ the fix button

    async def handle_click(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                           custom_id: str, message_id: str) -> bool:
        """A click on a lineup fix button: set the optimal lineup for the team's owner,
        once. A fix a killed process left being set is settled first by reading ESPN back
        (`_apply`). False when the click is not a fix button (the caller goes on)."""
        cid = parse_custom_id(custom_id)
        if cid is None or cid.action != "approve" or cid.index is not None:
            return False
        fix = await self.core.db.get_prelock_fix(cid.card_id)
        if fix is None:
            return False
        platform, workspace, _ = str(fix["channel_key"]).split(":", 2)
        team_id = int(fix["team_id"])
        if not await self._may_fix(user, platform, workspace, team_id, str(fix["user_id"])):
            await surface.ephemeral(thread, user, "Only the member linked to that team can "
                                    "set its lineup.")
            return True
        fix_id = cid.card_id
        if not await self._take(fix, user.key):
            now = await self.core.db.get_prelock_fix(fix_id) or fix
            await surface.ephemeral(thread, user, {
                "applied": "This lineup was already set.",
                "applying": "This lineup is being set right now.",
                "expired": "This lineup is no longer current: check `/lineup` for today's "
                           "lineup."}.get(str(now["status"]), "This lineup was already set."))
            return True
        settling = fix["status"] == "applying"
        self._inflight.add(fix_id)
        try:
            done = await self._apply(fix, user.user_id, settling=settling, by=user.name)
        finally:
            self._inflight.discard(fix_id)
        if done.message is not None:
            await self._show(surface, thread, fix, done.message)
        await surface.ephemeral(thread, user, done.reply)
        return True

    async def _take(self, fix: dict[str, Any], by: str) -> bool:
        """Claim a pending fix, or take over one a dead process left `applying` (never one
        this process is setting now)."""
        fix_id = str(fix["fix_id"])
        if fix["status"] == "pending":
            return await self.core.db.claim_prelock_fix(fix_id, by)
        if fix["status"] == "applying" and fix_id not in self._inflight:
            return await self.core.db.retake_prelock_fix(fix_id)
        return False

    async def settle_abandoned(self, surfaces: dict[str, ChatSurface], *,
                               takeover: bool = False) -> int:
        """Recovery: every fix a killed process left `applying` is settled now (read back:
        done, or sent once if it never happened, or the truth when ESPN cannot tell); an
        alert's message shows the outcome. Returns how many were settled."""
        n = 0
        for fix in await self.core.db.abandoned_prelock_fixes(takeover=takeover):
            fix_id = str(fix["fix_id"])
            if fix_id in self._inflight or not await self.core.db.retake_prelock_fix(
                    fix_id, takeover=takeover):
                continue
            user_id = str(fix.get("decided_by") or fix["user_id"]).split(":", 1)[-1]
            self._inflight.add(fix_id)
            try:
                done = await self._apply(fix, user_id, settling=True)
            except Exception as exc:  # noqa: BLE001 - the next tap settles it
                log.error("could not settle a lineup fix: %s", type(exc).__name__)
                await self.core.db.finish_prelock_fix(fix_id, "pending")
                continue
            finally:
                self._inflight.discard(fix_id)
            n += 1
            surface = surfaces.get(str(fix["channel_key"]).split(":", 1)[0])
            if surface is not None and done.message is not None:
                await self._show(surface, None, fix, done.message)
        return n

    async def _show(self, surface: ChatSurface, thread: ThreadRef | None, fix: dict[str, Any],
                    msg: OutgoingMessage) -> None:
        """What a fix did, where its button was: the pre-lock alert becomes it; a
        `/lineup` card gets it below (in the tap's thread); the digest, shared by several
        owners, stays as it is."""
        platform, workspace, channel_id = str(fix["channel_key"]).split(":", 2)
        try:
            if fix["message_id"] == SHARED_MESSAGE:
                return
            if not fix["message_id"]:
                if thread is not None:
                    await surface.post(thread, msg)
                return
            await surface.edit(ThreadRef(platform, workspace, channel_id, ""),
                               str(fix["message_id"]), msg)
        except Exception as exc:  # noqa: BLE001 - the lineup is set; the message is cosmetic
            log.warning("could not update the lineup message: %s", type(exc).__name__)

    async def _apply(self, fix: dict[str, Any], user_id: str, *, settling: bool,
                     by: str = "") -> FixDone:
        """Set a claimed fix's lineup for `user_id` and finish its row: applied, expired,
        or pending again (nothing made, or an outcome the next tap reads back). The writes
        are keyed by the fix (`fix:<id>:sp<period>`): a fix a crash left being set
        (`settling`) is read back first by the writer, never sent twice."""
        db = self.core.db
        fix_id = str(fix["fix_id"])
        platform, workspace, _ = str(fix["channel_key"]).split(":", 2)
        team_id = int(fix["team_id"])
        if fix["day"] != self.core.league_today().isoformat():
            await db.finish_prelock_fix(fix_id, "expired")
            return FixDone("This lineup is no longer current: check `/lineup` for today's "
                           "lineup.")
        writes = writes_of(self.core)
        access = await writes.access(platform, workspace, user_id, team_id)
        if not access.allowed:
            await db.finish_prelock_fix(fix_id, "pending")
            return FixDone(f"FanVise cannot set it: {access.why}.")
        scope = str(fix.get("scope") or "today")
        if settling:  # the cached league may predate the killed process's write
            await writes.after_write()
        try:
            opt = await digest.league_optimizer(self.core.espn, team_id)
            days = fix_days(opt, scope)
            fixes = digest.fix_lines(opt.daily_lineup(team_id, days[0]).to_dict()) \
                if days else []
            done = await writes.set_lineups(access, team_id, key=f"fix:{fix_id}",
                                            days=days, opt=opt) if days else LineupWrite()
        except (EspnError, LookupError) as exc:
            await db.finish_prelock_fix(fix_id, "pending")
            if settling:
                return FixDone(await self._unsure(team_id))
            return FixDone(f"Could not set the lineup (nothing was sent): {exc}")
        except BaseException:
            await db.finish_prelock_fix(fix_id, "pending")
            raise
        name = getattr(opt.league.team(team_id), "name", f"team {team_id}")
        if done.dry_run:
            await db.finish_prelock_fix(fix_id, "pending")
            return FixDone("Dry run: FanVise would send these to ESPN (nothing was sent):\n"
                           + done.payloads_text())
        lines = outcome_lines(done, fixes, scope)
        if isinstance(done.error, EspnWriteOutcomeUnknown):
            await db.finish_prelock_fix(fix_id, "pending")  # the next tap reads it back
            return FixDone(await self._unsure(team_id))
        if done.error is not None:
            await db.finish_prelock_fix(fix_id, "pending")
            return FixDone("Could not set the lineup. " + failure_text(done.error)
                           + ("\n" + "\n".join(lines) if done.changed else ""))
        await db.finish_prelock_fix(fix_id, "applied")
        where = "in the demo league" if access.demo else "on ESPN"
        what = "the rest of the week" if scope == "week" else "lineup"
        msg = OutgoingMessage(f"✅ {name}: {what} set.", cards=[Card(
            title=f"Lineup set · {name}", text="\n".join(lines), color="green",
            footer=f"Set by {by} {where}." if by else f"Set {where}.")])
        done_what = "the rest of the week" if scope == "week" else "today's lineup" \
            if scope == "today" else f"the lineup for {day_text(days[0])}"
        return FixDone(f"Done: {done_what} is set for {name} {where}.", msg)

    async def _unsure(self, team_id: int) -> str:
        """The truth when ESPN cannot say whether a lineup write was made: the lineup as
        ESPN shows it now (a fresh read), or where to look."""
        head = "I could not tell whether your lineup was set (ESPN did not answer)"
        url = espn_team_url(self.core.league_id, team_id, self.core.season)
        try:
            await writes_of(self.core).after_write()
            league = await self.core.league_client().get_league()
            team = league.team(team_id)
            starters = [f"• {slot_name(e.lineup_slot_id)}: {e.player.name}"
                        for e in sorted(team.roster, key=lambda e: e.lineup_slot_id)
                        if e.lineup_slot_id in STARTING_SLOTS]
        except Exception as exc:  # noqa: BLE001 - then say where to look
            log.info("lineup read after an unknown write failed: %s", type(exc).__name__)
            return (f"{head}, and ESPN is not answering reads either: check it on your team "
                    f"page ({url}). Tap again to have FanVise check with ESPN.")
        return (f"{head}; here it is now on ESPN:\n" + "\n".join(starters)
                + "\nTap again to have FanVise check with ESPN and set what is missing.")

    async def _may_fix(self, user: UserRef, platform: str, workspace: str, team_id: int,
                       alerted: str) -> bool:
        if user.platform != platform:
            return False
        if user.user_id == alerted:
            return True
        link = await self.core.db.get_link(platform, workspace, user.user_id)
        return (link is not None and link.team_id == team_id
                and (self.core.league_id is None or link.league_id == self.core.league_id))


@dataclass(frozen=True)
class FixDone:
    """What setting a fix did: the member's private reply and, when it was set, the
    message that shows it where the button was."""

    reply: str
    message: OutgoingMessage | None = None


def _done_lines(fixes: Iterable[str]) -> list[str]:
    return [f"• {f}" for f in fixes] or ["• Lineup set."]


def fix_days(opt: Any, scope: str) -> list[Any]:
    """The days a fix button sets: today, one later day ("day:<iso>"), or the matchup's
    later days ("week")."""
    from datetime import date as _date
    if scope == "week":
        return [d for d in opt.league.remaining_dates(today=opt.today) if d > opt.today]
    if scope.startswith("day:"):
        return [_date.fromisoformat(scope[4:])]
    return [opt.today]


def outcome_lines(done: LineupWrite, fixes: Iterable[str], scope: str) -> list[str]:
    """What a lineup write did, for the card: the fixes made (one day) or a line per day."""
    if scope != "week":
        if done.outcomes and done.outcomes[0].status == "noop":
            return ["• Your lineup was already the best one."]
        return _done_lines(fixes)
    out = []
    for day, o in zip(done.days, done.outcomes, strict=False):
        n = len(o.transaction.items) if o.transaction is not None else 0
        out.append(f"• {day_text(day)}: " + (
            "already the best lineup" if o.status == "noop"
            else f"{n} slot change{'s' if n != 1 else ''} set"))
    if done.error is not None and len(done.outcomes) < len(done.days):
        out.append(f"• {day_text(done.days[len(done.outcomes)])}: not set")
    return out or ["• No later days left in this matchup."]


__all__ = ["DEFAULT_MINUTES", "Prelock", "claim_key"]
