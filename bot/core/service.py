"""ChatCore: all conversation logic once, for every chat surface.

Adapters call exactly three coroutines (see docs/running.md):

    await core.handle_message(surface, thread, user, text)            # a message in a thread
    await core.handle_command(surface, thread, user, name, args)      # /ask /player ... /help
    await core.handle_click(surface, thread, user, custom_id, message_id)   # a button

plus `await core.seen_event(event_id)` to de-duplicate Slack retries.

A turn: (input checks, rate limit) -> thread (only now, so a refusal leaves none: when
`thread.thread_id` is "", `surface.start_thread` if the adapter has one, else a root message)
-> a progress message edited by a `ProgressEditor` (<= 1 edit/s per message, per-workspace
budget) -> the answer replaces the progress message (long text split at `surface.max_text`)
or a move card with Approve/Decline buttons is drawn and stored (storage.app_db cards).
A click: only the requester or a user linked to the card's fantasy team may decide; a
per-card lock plus an atomic DB claim make double clicks apply once; the runtime resumes the
run; the card is edited with disabled buttons and "Approved by <name>"; every decision is
audited.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
import zoneinfo
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, date, datetime
from typing import Any

from agents.shared.llm import with_offline_note
from agents.shared.types import Answer, ApprovalRequest, Notice, Progress
from agents.understanding.entities import extract_day
from agents.understanding.request import Intent, Request
from bot.core.errors import (
    ChatError,
    InvalidInput,
    MessageGone,
    RateLimitedError,
    Refused,
)
from bot.core.handoff import check_handoffs
from bot.core.lineup import daily_lineup_message
from bot.core.models import OutgoingMessage, ThreadRef, UserRef
from bot.core.progress import ProgressEditor, WorkspaceBudget, post_retrying
from bot.core.render import (
    chain_blocks,
    clip,
    conflicts,
    is_plan_card,
    move_label,
    parse_custom_id,
    plan_card_status,
    plan_spots,
    progress_text,
    render_answer,
    render_approval,
    split_text,
)
from bot.core.surface import ChatSurface
from fantasy.redact import looks_like_credentials
from storage.app_db import (
    AppDB,
    CardRow,
    DailySchedule,
    SecretKeyMissing,
    TurnRow,
    new_card_id,
)
from storage.crashpoint import crash_point

log = logging.getLogger(__name__)

#: Progress stage of the plan graph's move outcomes (agents.matchup_optimizer.graph)
OUTCOMES_STAGE = "move_outcomes"

COMMANDS = ("ask", "player", "optimize", "lineup", "stream", "link", "daily", "help")
LLM_COMMANDS = ("ask", "player", "optimize", "stream")
MAX_QUESTION = 2000
ALREADY_DECIDED_RUNTIME = "already decided"

HELP = """**FanVise commands**
• `/ask <question>`: anything about your league ("Review my matchup this week")
• `/player <name>`: injury and news report with a recommendation
• `/optimize [categories]`: this week's drop/add moves, approved with buttons
• `/lineup [today|tomorrow|YYYY-MM-DD]`: optimal starters vs your ESPN lineup
• `/stream [position or categories]`: streaming pickups for this week
• `/link team=<id> [league=<id>] [season=<year>] [espn_s2=… swid=…]`: link your ESPN team \
(cookies are stored encrypted and never shown; use it privately). `/link` shows it, \
`/link off` removes it.
• `/daily HH:MM <Area/City>` (admins): daily lineup post in this channel, e.g. \
`/daily 09:30 America/New_York`; `/daily off`; `/daily` shows it.
• `/help`: this text. In a thread, just write: follow-ups continue the conversation."""

CREDENTIALS_REFUSAL = (
    "Your message contains what looks like ESPN cookies or a token (espn_s2 / SWID). "
    "I did not read, store or repeat it.")
CREDENTIALS_ADVICE = (
    " Delete that message now (anyone in the channel can read it), and link your team "
    "privately with the `/link` slash command: its reply is only visible to you.")

_SLOT_WORDS = {"c": "center", "g": "guard", "f": "forward"}
_TIME_RE = re.compile(r"^([01]?\d|2[0-3])[:h.]?([0-5]\d)$")


def parse_command_text(line: str) -> tuple[str, dict[str, Any]] | None:
    """"/daily 09:30 America/New_York" -> ("daily", {"text": "09:30 America/New_York"}).
    Returns None when the line is not a known command (the leading "/" is optional only for
    exact command words)."""
    s = (line or "").strip()
    if not s:
        return None
    has_slash = s.startswith("/")
    s = s.lstrip("/")
    if s.lower().startswith("fanvise "):
        s = s[8:].lstrip()
        has_slash = True
    name, _, rest = s.partition(" ")
    name = name.lower()
    if name not in COMMANDS:
        return (name, {"text": rest.strip()}) if has_slash else None
    if not has_slash and rest and name not in ("help",):
        return None  # "player of the week?" is a question, not a command
    return name, {"text": rest.strip()}


def _split_args(args: dict[str, Any] | None) -> tuple[dict[str, str], list[str]]:
    """Structured args plus `key=value` / positional tokens parsed from args["text"]."""
    args = dict(args or {})
    text = str(args.pop("text", "") or "")
    kv = {str(k).lower(): str(v).strip() for k, v in args.items() if v not in (None, "")}
    pos: list[str] = []
    for tok in text.split():
        m = re.match(r"^([A-Za-z_0-9]+)[=:](.+)$", tok)
        if m and not re.fullmatch(r"\d{1,2}[:h.]\d{1,2}", tok):  # 09:30, also a bad 25:00
            kv.setdefault(m.group(1).lower(), m.group(2))
        else:
            pos.append(tok)
    return kv, pos


class ChatCore:
    """Platform-neutral conversation logic (see module docstring)."""

    def __init__(self, runtime: Any, app_db: AppDB, *, espn: Any = None,
                 default_team_id: int | None = None, min_edit_interval: float = 1.0,
                 budget: WorkspaceBudget | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 llm_per_minute: float = 6.0, llm_burst: float = 3.0,
                 now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.runtime = runtime
        self.db = app_db
        self.espn = espn if espn is not None else getattr(runtime, "espn", None)
        if default_team_id is None:
            default_team_id = getattr(runtime, "my_team_id", None)
        if default_team_id is None and getattr(self.espn, "demo", None) is not None:
            from fantasy.demo import DEMO_USER_TEAM_ID
            default_team_id = DEMO_USER_TEAM_ID
        self.default_team_id = default_team_id
        self.min_edit_interval = min_edit_interval
        self.budget = budget or WorkspaceBudget(clock=clock)
        self.budget_platforms: set[str] = {"slack"}
        self._clock = clock
        self._sleep = sleep
        self._now = now
        self.llm_per_minute = llm_per_minute
        self.llm_burst = llm_burst
        self.rate_limit = True  # `fanvise chat` turns it off: one local user, piped scripts
        self._card_locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.on_schedule_change: Callable[[], Any] | None = None

    # ------------------------------------------------------------------ properties

    @property
    def league_id(self) -> int | None:
        """The ESPN league this instance serves."""
        lid = getattr(self.espn, "league_id", None)
        return int(lid) if lid is not None else None

    @property
    def season(self) -> int | None:
        """The ESPN season this instance serves."""
        s = getattr(self.espn, "season", None)
        return int(s) if s is not None else None

    def league_today(self) -> date:
        """The league's current date (the demo league has its own clock)."""
        demo = getattr(self.espn, "demo", None)
        if demo is not None:
            return demo.today
        from fantasy.schedule import today_eastern
        return today_eastern()

    async def seen_event(self, event_id: str) -> bool:
        """True if this platform event id was already handled (Slack retries)."""
        return not await self.db.mark_event_processed(event_id)

    # ------------------------------------------------------------------ entry points

    async def handle_message(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                             text: str, *, message_id: str | None = None) -> None:
        """A user's message in a thread (or the console): a command line or a question.
        A message carrying cookies or tokens is refused before anything else (never echoed,
        checkpointed or logged; deleted when the surface can, `message_id` being its id)."""
        text = (text or "").strip()
        if not text:
            return
        if looks_like_credentials(text):
            await self._refuse_credentials(surface, thread, user, message_id)
            return
        parsed = parse_command_text(text)
        if parsed is not None:
            await self.handle_command(surface, thread, user, parsed[0], parsed[1])
            return
        await self._guarded(surface, thread, user, self._turn(surface, thread, user, text))

    async def handle_command(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                             name: str, args: dict[str, Any] | None = None) -> None:
        """A slash command: ask, player, optimize, lineup, stream, link, daily, help."""
        name = (name or "").strip().lstrip("/").lower()
        if name != "link" and any(looks_like_credentials(str(v)) for v in (args or {}).values()):
            await self._refuse_credentials(surface, thread, user, None)
            return
        handler = {
            "ask": self._cmd_ask, "player": self._cmd_player, "optimize": self._cmd_optimize,
            "lineup": self._cmd_lineup, "stream": self._cmd_stream, "link": self._cmd_link,
            "daily": self._cmd_daily, "help": self._cmd_help,
        }.get(name)
        if handler is None:
            await surface.ephemeral(thread, user, f"Unknown command `{name[:40]}`.\n\n{HELP}")
            return
        await self._guarded(surface, thread, user, handler(surface, thread, user, args or {}))

    async def _refuse_credentials(self, surface: ChatSurface, thread: ThreadRef,
                                  user: UserRef, message_id: str | None) -> None:
        """Tell the user privately that a message with cookies was not stored; delete it
        where the surface can (Discord with Manage Messages)."""
        deleted = False
        delete = getattr(surface, "delete_message", None)
        if delete is not None and message_id:
            try:
                deleted = bool(await delete(thread, message_id))
            except Exception as exc:  # noqa: BLE001 - refusing matters more than deleting
                log.warning("could not delete a message with credentials: %s",
                            type(exc).__name__)
        log.warning("refused a %s message with credentials (not stored, not logged)",
                    thread.platform)
        advice = (" I deleted it. Link your team privately with the `/link` slash command: "
                  "its reply is only visible to you.") if deleted else CREDENTIALS_ADVICE
        try:
            await surface.ephemeral(thread, user, CREDENTIALS_REFUSAL + advice)
        except Exception as exc:  # noqa: BLE001
            log.warning("could not tell the user about refused credentials: %s",
                        type(exc).__name__)

    async def _guarded(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                       coro: Awaitable[None]) -> None:
        try:
            await coro
        except InvalidInput as exc:
            await surface.ephemeral(thread, user, str(exc))
        except Refused:
            pass  # the surface already told the user
        except Exception as exc:  # noqa: BLE001 - the user gets a message, never a traceback
            log.error("chat handler failed: %s: %s", type(exc).__name__, exc,
                      exc_info=log.isEnabledFor(logging.DEBUG))
            try:
                await surface.ephemeral(thread, user, "Sorry, something went wrong. "
                                        "Please try again.")
            except Exception:  # noqa: BLE001
                log.warning("could not report the failure to the user")

    # ------------------------------------------------------------------ commands

    async def _cmd_help(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                        args: dict[str, Any]) -> None:
        await surface.ephemeral(thread, user, HELP)

    async def _cmd_ask(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                       args: dict[str, Any]) -> None:
        question = str(args.get("question") or args.get("text") or "").strip()
        if not question:
            raise InvalidInput("Ask me something, e.g. `/ask Review my matchup this week`.")
        await self._turn(surface, thread, user, question)

    async def _cmd_player(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                          args: dict[str, Any]) -> None:
        name = str(args.get("name") or args.get("player") or args.get("text") or "").strip()
        if not name:
            raise InvalidInput("Which player? e.g. `/player Jarrett Allen`.")
        if len(name) > 60 or not re.fullmatch(r"[A-Za-z][A-Za-z .'\-]*", name):
            raise InvalidInput("A player name has letters, spaces, dots, apostrophes and "
                               "hyphens only, e.g. `/player De'Aaron Fox`.")
        await self._command_turn(surface, thread, user, Intent.PLAYER_RESEARCH, player=name,
                                 title=name)

    async def _cmd_optimize(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                            args: dict[str, Any]) -> None:
        focus = str(args.get("focus") or args.get("categories") or args.get("text") or "")
        focus = focus.strip()
        if len(focus) > 200:
            raise InvalidInput("Keep the focus short, e.g. `/optimize AST STL`.")
        await self._command_turn(surface, thread, user, Intent.MATCHUP_ANALYSIS, args=focus,
                                 title="Matchup moves")

    async def _cmd_stream(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                          args: dict[str, Any]) -> None:
        what = str(args.get("position") or args.get("categories") or args.get("text") or "")
        what = what.strip()
        if len(what) > 200:
            raise InvalidInput("Keep it short, e.g. `/stream C` or `/stream assists`.")
        # `/stream C`: a one-letter slot is a position here (in free text "c" is too short to
        # trust), so name it for the entity reader (PG, SG, SF, PF are read as they are).
        what = " ".join(_SLOT_WORDS.get(w.lower(), w) for w in what.split())
        await self._command_turn(surface, thread, user, Intent.STREAMING, args=what,
                                 title="Streaming")

    async def _command_turn(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                            intent: Intent, *, args: str = "", player: str | None = None,
                            title: str = "") -> None:
        """A slash command's turn: its Request is built directly (no English round trip)."""
        team_id = await self._team_for(user)
        request = await self.runtime.command_request(intent, args=args, player=player,
                                                     team_id=team_id)
        await self._turn(surface, thread, user, request.text, title=title, request=request)

    async def _cmd_lineup(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                          args: dict[str, Any]) -> None:
        kv, pos = _split_args(args)
        raw = (kv.get("day") or " ".join(pos)).strip().lower()
        today = self.league_today()
        ref = extract_day(raw, today) if raw else None
        if not raw:
            day = today
        elif ref is None or ref.date is None:
            raise InvalidInput("Use `/lineup`, `/lineup tomorrow`, `/lineup thursday` or "
                               "`/lineup 2023-01-26`.")
        else:
            day = date.fromisoformat(ref.date)
            if abs((day - today).days) > 14:
                raise InvalidInput(f"Pick a day within two weeks of {today.isoformat()}.")
        team_id = await self._team_for(user)
        if team_id is None:
            raise InvalidInput("Link your team first: `/link team=<id>`.")
        msg = await self._lineup_message(team_id, day)
        if getattr(surface, "start_thread", None) is not None:  # Discord: a thread per command
            thread = await self._ensure_thread(surface, thread, user, f"/lineup {day}",
                                               f"Lineup {day.isoformat()}")
        await self._post_split(surface, thread, msg)

    async def _lineup_message(self, team_id: int, day: date | None) -> OutgoingMessage:
        from fantasy.espn.errors import EspnError
        try:
            return await daily_lineup_message(self.espn, team_id, day=day)
        except EspnError as exc:
            from agents.runtime import espn_notice
            return OutgoingMessage("⚠️ " + espn_notice(exc).text)
        except LookupError as exc:
            raise InvalidInput(f"{str(exc).strip(chr(39))}. Check `/link`.") from None

    async def _cmd_link(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                        args: dict[str, Any]) -> None:
        kv, pos = _split_args(args)
        ws = thread.workspace_id
        if [p.lower() for p in pos] in (["off"], ["remove"], ["unlink"]):
            gone = await self.db.delete_link(user.platform, ws, user.user_id)
            await surface.ephemeral(thread, user, "Your league link (and any stored cookies) "
                                    "was removed." if gone else "You had no league link.")
            return
        if not kv and not pos:
            link = await self.db.get_link(user.platform, ws, user.user_id)
            if link is None:
                await surface.ephemeral(thread, user, "You have no league link. Use "
                                        "`/link team=<id>` (see `/help`).")
            else:
                await surface.ephemeral(
                    thread, user, f"Linked to team {link.team_id} in ESPN league "
                    f"{link.league_id} ({link.season or 'current season'}); cookies "
                    f"{'stored encrypted' if link.has_cookies else 'not stored'}.")
            return
        nums = [p for p in pos if p.isascii() and p.isdigit()]
        if len(nums) != len(pos):
            raise InvalidInput("Use `/link team=<id> [league=<id>] [season=<year>] "
                               "[espn_s2=… swid=…]` (numbers only for ids).")
        if len(nums) == 1:
            kv.setdefault("team", nums[0])
        elif len(nums) == 2:
            kv.setdefault("league", nums[0])
            kv.setdefault("team", nums[1])
        elif len(nums) == 3:
            kv.setdefault("league", nums[0])
            kv.setdefault("season", nums[1])
            kv.setdefault("team", nums[2])
        elif nums:
            raise InvalidInput("Too many numbers: use `/link team=<id> league=<id>`.")
        team_raw = kv.get("team") or kv.get("team_id")
        league_raw = kv.get("league") or kv.get("league_id")
        season_raw = kv.get("season")
        s2 = kv.get("espn_s2") or kv.get("s2")
        swid = kv.get("swid")
        if not team_raw:
            raise InvalidInput("Which team? `/link team=<id>` (your team id is in the ESPN "
                               "team page URL: ...&teamId=<id>).")
        try:
            team_id = int(team_raw)
            league_id = int(league_raw) if league_raw else self.league_id
            season = int(season_raw) if season_raw else self.season
        except ValueError:
            raise InvalidInput("team, league and season must be numbers.") from None
        if league_id is None:
            raise InvalidInput("Which league? `/link league=<id> team=<id>`.")
        if season is not None and not 2000 <= season <= 2100:
            raise InvalidInput("Season is the year the NBA season ends, e.g. 2025.")
        if bool(s2) != bool(swid):
            raise InvalidInput("Give both espn_s2 and swid, or neither. Nothing was stored.")
        if self.league_id is not None and league_id != self.league_id:
            raise InvalidInput(f"This FanVise serves ESPN league {self.league_id}; league "
                               f"{league_id} needs its own deployment "
                               "(FANVISE_ESPN_LEAGUE_ID). Nothing was stored.")
        if self.espn is not None:
            from fantasy.espn.errors import EspnError
            try:
                league = await self.espn.get_league()
                ids = {t.id for t in league.teams}
                if team_id not in ids:
                    raise InvalidInput(f"League {league_id} has no team {team_id}; team ids: "
                                       f"{', '.join(str(i) for i in sorted(ids))}.")
            except EspnError:
                log.warning("could not verify the team of a /link (ESPN unavailable)")
        taken = [lk for lk in await self.db.links_for_team(league_id, team_id)
                 if (lk.platform, lk.user_id) != (user.platform, user.user_id)]
        if taken and not user.is_admin:  # else a stranger could decide that member's cards
            raise InvalidInput(f"Team {team_id} is already linked to another member. Ask them "
                               "to run `/link off` first, or ask an admin. Nothing was stored.")
        cookies = (s2, swid) if s2 and swid else None
        try:
            await self.db.set_link(platform=user.platform, workspace_id=ws, user_id=user.user_id,
                                   league_id=league_id, season=season, team_id=team_id,
                                   cookies=cookies)
        except SecretKeyMissing as exc:
            raise InvalidInput(str(exc)) from None
        if cookies:
            from fantasy.redact import register_secret
            register_secret(s2)
            register_secret(swid)
        await surface.ephemeral(
            thread, user, f"Linked you to team {team_id} in ESPN league {league_id}"
            f" ({season or 'current season'})."
            + (" Your ESPN cookies are stored encrypted." if cookies else ""))

    async def _cmd_daily(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                         args: dict[str, Any]) -> None:
        args = dict(args)
        enabled = args.pop("enabled", None)
        kv, pos = _split_args(args)
        if enabled is False or str(enabled).lower() in ("false", "off", "0", "no"):
            pos = ["off"]
        key = thread.channel_key
        if not kv and not pos:
            cur = next((s for s in await self.db.schedules() if s.channel_key == key), None)
            await surface.ephemeral(thread, user, "No daily lineup post in this channel. "
                                    "Admins: `/daily 09:30 America/New_York`." if cur is None
                                    else f"Daily lineup post at {cur.hhmm} {cur.tz} "
                                    f"for team {cur.team_id}.")
            return
        if not user.is_admin:
            raise InvalidInput("Only a server admin (Manage Server) or the workspace admin "
                               "who installed FanVise can change the daily post.")
        if [p.lower() for p in pos] in (["off"], ["stop"], ["disable"]):
            gone = await self.db.delete_schedule(key)
            await self._schedules_changed()
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
        team_id = await self._team_for(user)
        await self.db.set_schedule(DailySchedule(key, thread.platform, thread.workspace_id,
                                                 thread.channel_id, hhmm, tz_raw, team_id,
                                                 user.key))
        await self._schedules_changed()
        from bot.scheduler import next_fire
        nxt = next_fire(hhmm, tz_raw, self._now())
        await surface.post(thread, OutgoingMessage(
            f"Daily lineup post set for {hhmm} {tz_raw} in this channel (team {team_id}); "
            f"next one {nxt.strftime('%a %b %d %H:%M %Z')}."))

    async def _schedules_changed(self) -> None:
        cb = self.on_schedule_change
        if cb is not None:
            res = cb()
            if asyncio.iscoroutine(res):
                await res

    # ------------------------------------------------------------------ helpers

    async def _team_for(self, user: UserRef) -> int | None:
        """The user's linked team in this league, else the instance's default team."""
        for ws in await self._link_workspaces(user):
            link = await self.db.get_link(user.platform, ws, user.user_id)
            if link is not None and (self.league_id is None or link.league_id == self.league_id):
                return link.team_id
        return self.default_team_id

    async def _link_workspaces(self, user: UserRef) -> list[str]:
        rows = await self.db.db.fetchall(
            "SELECT workspace_id FROM league_links WHERE platform=? AND user_id=? "
            "ORDER BY updated_at DESC", (user.platform, user.user_id))
        return [r["workspace_id"] for r in rows]

    async def _rate_ok(self, surface: ChatSurface, thread: ThreadRef, user: UserRef) -> bool:
        if not self.rate_limit:
            return True
        wait = await self.db.take_token(user.key, capacity=self.llm_burst,
                                        per_minute=self.llm_per_minute)
        if wait > 0:
            await surface.ephemeral(thread, user, f"You're asking quickly: try again in "
                                    f"{max(1, round(wait))} s.")
            return False
        return True

    async def _ensure_thread(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                             text: str, title: str) -> ThreadRef:
        """The conversation's thread; called only once a request is accepted, so a refused
        request leaves no thread behind."""
        if thread.thread_id:
            return thread
        shown = clip(text, 200)
        start = getattr(surface, "start_thread", None)
        if start is not None:  # the adapter already shows the request (Discord command)
            made = await start(thread, (title or shown)[:90])
            if isinstance(made, ThreadRef):
                return made
        root_id = await surface.post(thread, OutgoingMessage(f"{user.name} asked: {shown}"))
        create = getattr(surface, "create_thread", None)
        if create is not None:
            try:
                made = await create(thread, (title or shown)[:90], root_id)
                if isinstance(made, ThreadRef):
                    return made
            except NotImplementedError:
                pass
            except ChatError as exc:
                log.warning("could not create a thread: %s", exc)
                return thread
        return thread.in_thread(root_id)

    async def _post_split(self, surface: ChatSurface, thread: ThreadRef,
                          msg: OutgoingMessage) -> str:
        chunks = split_text(msg.text, surface.max_text)
        last = ""
        for i, chunk in enumerate(chunks):
            cards = msg.cards if i == len(chunks) - 1 else []
            last = await surface.post(thread, OutgoingMessage(chunk, cards=list(cards)))
        return last

    def _editor(self, surface: ChatSurface, thread: ThreadRef, message_id: str
                ) -> ProgressEditor:
        # Slack rate-limits chat.update per workspace; Discord buckets are per channel, and
        # each Discord conversation has its own thread channel, so 1 edit/s is enough there.
        budget = self.budget if thread.platform in self.budget_platforms else None
        return ProgressEditor(surface, thread, message_id, min_interval=self.min_edit_interval,
                              budget=budget, clock=self._clock, sleep=self._sleep)

    async def _stream_into(self, surface: ChatSurface, thread: ThreadRef,
                           events: AsyncIterator[Any], first_line: str, *,
                           message_id: str | None = None, turn_id: str | None = None
                           ) -> tuple[ProgressEditor, list[Any]]:
        """Post a progress message (or take over `message_id`, e.g. the progress message of
        a request a crash interrupted), feed Progress events to its editor, return the editor
        and the terminal events (Answer / ApprovalRequest / Notice). If the progress message
        cannot be posted the run goes on anyway (its result is stored); the final state is
        then posted as a new message. `turn_id`: the message id is recorded on that turn."""
        posted = True
        mid = message_id or ""
        try:
            if message_id:
                await surface.edit(thread, message_id,
                                   OutgoingMessage(progress_text([first_line])))
            else:
                mid = await surface.post(thread, OutgoingMessage(progress_text([first_line])))
        except Exception as exc:  # noqa: BLE001 - the chat failing must not stop the run
            log.warning("could not post the progress message (%s): running anyway",
                        type(exc).__name__)
            mid, posted = "", False
        if turn_id and mid:
            await self.db.set_turn(turn_id, message_id=mid)
        editor = self._editor(surface, thread, mid)
        editor.gone = not posted
        lines = [first_line]
        final: list[Any] = []
        try:
            async for ev in events:
                if isinstance(ev, Progress) and ev.stage == OUTCOMES_STAGE:
                    final.append(ev)  # a plan card's move outcomes (data, not a line)
                elif isinstance(ev, Progress):
                    if ev.text and ev.text != lines[-1]:
                        lines.append(ev.text)
                        editor.update(progress_text(lines, limit=surface.max_text))
                else:
                    final.append(ev)
        except Exception as exc:  # noqa: BLE001
            log.error("runtime stream failed: %s", type(exc).__name__,
                      exc_info=log.isEnabledFor(logging.DEBUG))
            final.append(Notice("Sorry, something went wrong while answering. Please try "
                                "again.", level="error"))
        return editor, final

    # ------------------------------------------------------------------ turns

    async def _turn(self, surface: ChatSurface, thread: ThreadRef, user: UserRef, text: str,
                    *, title: str = "", request: Request | None = None) -> None:
        if len(text) > MAX_QUESTION:
            raise InvalidInput(f"That is {len(text)} characters; keep questions under "
                               f"{MAX_QUESTION}.")
        if not await self._rate_ok(surface, thread, user):
            return
        thread = await self._ensure_thread(surface, thread, user, text, title or text)
        await check_handoffs(self, surface, thread)  # live moves made on ESPN since
        team_id = await self._team_for(user)
        turn_id = new_card_id()
        await self.db.start_turn(TurnRow(
            turn_id=turn_id, conversation_id=thread.conversation_id, platform=thread.platform,
            workspace_id=thread.workspace_id, channel_id=thread.channel_id,
            thread_id=thread.thread_id, user_id=user.user_id, user_name=user.name,
            team_id=team_id, text=text,
            request=request.model_dump(mode="json") if request is not None else None,
            message_id=None, status="running", attempts=1, created_at=0.0, updated_at=0.0))
        crash_point("turn:started")
        events = self.runtime.ask(thread.conversation_id, text, user_id=user.user_id,
                                  team_id=team_id, request=request)
        try:
            editor, final = await self._stream_into(surface, thread, events, "Thinking…",
                                                    turn_id=turn_id)
            await self._deliver(surface, thread, user, team_id, editor, final)
        finally:
            await self.db.set_turn(turn_id, status="done")

    async def _deliver(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                       team_id: int | None, editor: ProgressEditor, final: list[Any]) -> None:
        """Replace the progress message with the first outgoing message; post the rest."""
        msgs: list[tuple[OutgoingMessage, str | None]] = []  # (message, card_id)
        for ev in final or [Notice("No answer this time. Please try again.", level="warning")]:
            if isinstance(ev, ApprovalRequest):
                # the card goes into the progress message when it is the first message: its
                # id is stored before it is drawn, so after a crash recovery redraws it there
                # (shown once) instead of posting a second copy
                where = editor.message_id if not msgs and not editor.gone else None
                msg, card_id = await self._approval_message(thread, user, team_id, ev,
                                                            message_id=where or None)
                msgs.append((msg, card_id))
            elif isinstance(ev, Answer):
                text = with_offline_note(ev.text) if ev.offline else ev.text
                for m in render_answer(text, ev.report, offline=False,
                                       max_text=surface.max_text, offers_id=ev.offers_id,
                                       offers=ev.offers):
                    msgs.append((m, None))
            elif isinstance(ev, Notice):
                icon = {"error": "⚠️ ", "warning": "⚠️ "}.get(ev.level, "ℹ️ ")
                for chunk in split_text(icon + ev.text, surface.max_text):
                    msgs.append((OutgoingMessage(chunk), None))
        first, first_card = msgs[0]
        mid = await editor.aclose(first)
        if first_card:
            await self.db.mark_card_shown(first_card, mid)
        for msg, card_id in msgs[1:]:
            mid = await post_retrying(surface, thread, msg, sleep=self._sleep)
            if card_id:
                await self.db.mark_card_shown(card_id, mid)

    async def _approval_message(self, thread: ThreadRef, user: UserRef, team_id: int | None,
                                req: ApprovalRequest, *, message_id: str | None = None
                                ) -> tuple[OutgoingMessage, str]:
        """Store (once) and render the card of an approval. The requester and the team come
        from the run record when there is one (a card drawn by recovery or after another
        member's decision still belongs to whoever asked, for their team)."""
        existing = await self.db.card_for_run(req.run_thread_id, req.interrupt_id)
        if existing is not None:
            card = existing
        else:
            requester, team_id = await self._requester_of(req.run_thread_id, user, team_id)
            crash_point("card:create")
            card = CardRow(
                card_id=new_card_id(), run_thread_id=req.run_thread_id,
                interrupt_id=req.interrupt_id, conversation_id=thread.conversation_id,
                platform=thread.platform, workspace_id=thread.workspace_id,
                channel_id=thread.channel_id, thread_id=thread.thread_id,
                message_id=message_id, requester_id=requester.user_id,
                requester_name=requester.name, team_id=team_id, title=req.title,
                summary=req.summary, moves=list(req.moves), decisions={}, status="pending",
                shown=False)
            await self.db.create_card(card)
            crash_point("card:stored")
        return self._card_message(card), card.card_id

    async def _requester_of(self, run_thread_id: str, fallback: UserRef,
                            team_id: int | None) -> tuple[UserRef, int | None]:
        """(requester, team) of a run from its record; `fallback` when it has none."""
        info = getattr(self.runtime, "run_info", None)
        run = await info(run_thread_id) if info is not None else None
        if run is None or not run.requester:
            return fallback, team_id
        if (run.requester == fallback.user_id):
            name = fallback.name
        else:
            turn = await self.db.last_turn_of(run.conversation_id, run.requester)
            name = turn.user_name if turn is not None else ""
        thread = ThreadRef.from_conversation_id(run.conversation_id)
        platform = thread.platform if thread is not None else fallback.platform
        return UserRef(platform, run.requester, name), run.team_id

    # ------------------------------------------------------------------ clicks

    async def handle_click(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                           custom_id: str, message_id: str) -> None:
        """A button click (possibly on a card drawn before a restart)."""
        try:
            await self._click(surface, thread, user, custom_id, message_id)
        except Exception as exc:  # noqa: BLE001
            log.error("click failed: %s: %s", type(exc).__name__, exc,
                      exc_info=log.isEnabledFor(logging.DEBUG))
            try:
                await surface.ephemeral(thread, user, "Sorry, that click could not be "
                                        "processed. Please try again.")
            except Exception:  # noqa: BLE001
                log.warning("could not report the click failure")

    async def _take_offer(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                          offers_id: str, index: int) -> None:
        """A follow-up offer under an answer ("Look for moves", a clarifying choice): run the
        request it carries as a new turn in the same thread."""
        offer = await self.runtime.offered_request(thread.conversation_id, offers_id, index)
        if offer is None:
            await surface.ephemeral(thread, user, "That choice belongs to an earlier answer. "
                                    "Ask again and pick from the newest one.")
            return
        label, request = offer
        await self._turn(surface, thread, user, label or request.text, request=request)

    async def may_decide(self, card: CardRow, user: UserRef) -> bool:
        """The requester, or a user linked to the card's fantasy team in this league."""
        if user.platform == card.platform and user.user_id == card.requester_id:
            return True
        if card.team_id is None:
            return False
        link = await self.db.get_link(user.platform, card.workspace_id, user.user_id)
        # only a link that existed when the card was made: linking the team afterwards
        # (e.g. the default team of an unlinked requester) gives no say over this card
        return (link is not None and link.team_id == card.team_id
                and link.linked_at <= card.created_at
                and (self.league_id is None or link.league_id == self.league_id))

    async def _click(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                     custom_id: str, message_id: str) -> None:
        cid = parse_custom_id(custom_id)
        if cid is None:
            await surface.ephemeral(thread, user, "That button is not one of FanVise's.")
            return
        if cid.action == "do":
            await self._take_offer(surface, thread, user, cid.card_id, cid.index or 0)
            return
        card = await self.db.get_card(cid.card_id)
        if card is None:
            await surface.ephemeral(thread, user, "This card is no longer available.")
            return
        if not await self.may_decide(card, user):
            await self.db.audit(card_id=card.card_id, run_thread_id=card.run_thread_id,
                                platform=user.platform, user_id=user.user_id,
                                user_name=user.name, decision=cid.decision, result="refused",
                                move_index=cid.index)
            await surface.ephemeral(
                thread, user, f"Only {card.requester_name or 'the requester'} (or the owner of "
                "that fantasy team) can decide on these moves.")
            return
        card_thread = ThreadRef(card.platform, card.workspace_id, card.channel_id,
                                card.thread_id)
        card_mid = card.message_id or message_id
        async with self._card_locks[card.card_id]:
            card = await self.db.get_card(card.card_id) or card
            if card.status != "pending":
                await self._already(surface, thread, user, card, cid.decision, cid.index)
                return
            n = len(card.moves)
            plan = is_plan_card(card.moves)
            per_move = cid.index is not None and not cid.action.endswith("all")
            if per_move:
                idx = cid.index or 0
                if not 0 <= idx < n:
                    await surface.ephemeral(thread, user, "That move is not on this card.")
                    return
                also_declined: list[int] = []
                if plan:  # a choice names one move of a spot; skipping a spot skips its menu
                    spot = next(((p, alts) for p, alts in plan_spots(card.moves)
                                 if idx == p), None)
                    if spot is None:
                        await surface.ephemeral(thread, user, "That move is not on this card.")
                        return
                    if cid.action == "pick":
                        if cid.value not in (spot[0], *spot[1]):
                            await surface.ephemeral(thread, user,
                                                    "That player is not a choice for this "
                                                    "spot.")
                            return
                        if str(spot[0]) in card.decisions:
                            await self._already(surface, thread, user, card, "approve", idx)
                            return
                        idx = int(cid.value)
                    elif cid.decision == "decline":
                        also_declined = list(spot[1])
                if not await self.db.record_move_decision(card.card_id, idx, cid.decision):
                    await self._already(surface, thread, user, card, cid.decision, idx)
                    return
                await self.db.audit(card_id=card.card_id, run_thread_id=card.run_thread_id,
                                    platform=user.platform, user_id=user.user_id,
                                    user_name=user.name, decision=cid.decision,
                                    result="recorded", move_index=idx,
                                    move_id=str(card.moves[idx].get("move_id")),
                                    move_label=move_label(card.moves[idx]))
                if cid.decision == "approve":  # alternatives of an approved move cannot apply
                    for j, other in enumerate(card.moves):
                        if j != idx and str(j) not in card.decisions \
                                and conflicts(card.moves[idx], other):
                            await self._auto_decline(card, user, j,
                                                     f"alternative of #{idx + 1}")
                for j in also_declined:
                    await self._auto_decline(card, user, j,
                                             f"its spot was skipped (#{idx + 1})")
                card = await self.db.get_card(card.card_id) or card
                if plan:
                    card = await self._decline_blocked(card, user)
                if len(card.decisions) < n:
                    await self._edit_card(surface, card_thread, card_mid, card,
                                          decided_by=user.name)
                    return
                decisions: dict[str, str] = {}
            elif plan and cid.decision == "approve":
                # "Approve plan": exactly the moves on display (the plan's pick, or the
                # choice already made, per spot); alternatives not chosen are declined
                decisions = {str(i): "decline" if m.get("alternative_of") else "approve"
                             for i, m in enumerate(card.moves)}
                for p, alts in plan_spots(card.moves):
                    if any(card.decisions.get(str(i)) == "approve" for i in alts):
                        decisions[str(p)] = "decline"
                # a chain move whose earlier spot was skipped or replaced cannot happen
                blocked = chain_blocks(card.moves, {**decisions, **card.decisions})
                for p, alts in plan_spots(card.moves):
                    if p in blocked:
                        decisions.update({str(i): "decline" for i in (p, *alts)})
            elif cid.decision == "approve":
                # "Approve all/the rest": never two moves for the same player; the first
                # (best ranked) of a set of alternatives is approved, the others declined
                taken = [card.moves[int(i)] for i, d in card.decisions.items()
                         if d == "approve"]
                decisions = {}
                for i, m in enumerate(card.moves):
                    if str(i) in card.decisions:
                        continue
                    ok = not any(conflicts(m, t) for t in taken)
                    decisions[str(i)] = "approve" if ok else "decline"
                    if ok:
                        taken.append(m)
            else:
                decisions = {str(i): cid.decision for i in range(n)}
            if not await self.db.claim_card(card.card_id, user_id=user.user_id,
                                            user_name=user.name, decisions=decisions):
                await self._already(surface, thread, user, card, cid.decision, cid.index)
                return
            crash_point("click:claimed")  # the decision is durable in the card row
            card = await self.db.get_card(card.card_id) or card
            await self._edit_card(surface, card_thread, card_mid, card, decided_by=user.name)
            crash_point("click:card-edited")
            await self._resume(surface, card_thread, card_mid, user, card)

    async def _decline_blocked(self, card: CardRow, user: UserRef) -> CardRow:
        """Decline the plan moves a skipped or replaced earlier move made impossible (a
        streaming chain: "Sun: drop Coby White" needs "Thu: add Coby White"), with audit."""
        blocked = chain_blocks(card.moves, card.decisions)
        done = False
        for p, alts in plan_spots(card.moves):
            if p in blocked:
                for j in (p, *alts):
                    done |= await self._auto_decline(card, user, j, f"needs #{blocked[p]}")
        return (await self.db.get_card(card.card_id) or card) if done else card

    async def _auto_decline(self, card: CardRow, user: UserRef, j: int, why: str) -> bool:
        """Decline move `j` of a card as a consequence of `user`'s click (audited
        "auto-declined: <why>"); False when it was already decided."""
        if not await self.db.record_move_decision(card.card_id, j, "decline"):
            return False
        await self.db.audit(card_id=card.card_id, run_thread_id=card.run_thread_id,
                            platform=user.platform, user_id=user.user_id, user_name=user.name,
                            decision="decline", result=f"auto-declined: {why}", move_index=j,
                            move_id=str(card.moves[j].get("move_id")),
                            move_label=move_label(card.moves[j]))
        return True

    async def _already(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                       card: CardRow, decision: str, index: int | None) -> None:
        await self.db.audit(card_id=card.card_id, run_thread_id=card.run_thread_id,
                            platform=user.platform, user_id=user.user_id, user_name=user.name,
                            decision=decision, result="already-decided", move_index=index)
        who = f" ({_status_word(card.status)} by {card.decided_by_name})" \
            if card.decided_by_name \
            and card.status in ("approved", "declined", "partial", "failed") \
            else ""
        what = "This move was" if index is not None and card.status == "pending" \
            else "This card was"
        await surface.ephemeral(thread, user, f"{what} already decided{who}. Nothing changed.")

    @staticmethod
    def _card_message(card: CardRow, *, decided_by: str = "",
                      result_text: str = "") -> OutgoingMessage:
        rendered = render_approval(card.card_id, card.title, card.summary, card.moves,
                                   card.requester_name, decisions=card.decisions,
                                   status=card.status,
                                   decided_by_name=card.decided_by_name or decided_by,
                                   result_text=result_text,
                                   outcomes=(card.result or {}).get("outcomes"))
        return OutgoingMessage(f"{card.requester_name}, review these moves:"
                               if card.status == "pending" else rendered.footer,
                               cards=[rendered])

    async def edit_card(self, surface: ChatSurface, card: CardRow) -> None:
        """Redraw a card in its message (e.g. a live hand-off settled by a league read)."""
        await self._edit_card(surface, _card_thread(card), card.message_id, card)

    async def _edit_card(self, surface: ChatSurface, thread: ThreadRef, message_id: str | None,
                         card: CardRow, *, decided_by: str = "", result_text: str = "") -> None:
        msg = self._card_message(card, decided_by=decided_by, result_text=result_text)
        try:
            if message_id:
                await surface.edit(thread, message_id, msg)
            else:
                await surface.post(thread, msg)
        except MessageGone:
            mid = await surface.post(thread, msg)
            await self.db.set_card_message(card.card_id, mid)
        except RateLimitedError as exc:
            await self._sleep(min(exc.retry_after, 30.0))
            try:
                await surface.edit(thread, message_id or "", msg)
            except ChatError as exc2:
                log.warning("card edit failed after a rate limit: %s", exc2)

    async def _resume(self, surface: ChatSurface, thread: ThreadRef, card_mid: str | None,
                      user: UserRef, card: CardRow, *, first_line: str = "") -> None:
        by_move = {str(card.moves[int(i)].get("move_id")): d
                   for i, d in card.decisions.items() if int(i) < len(card.moves)}
        events = self.runtime.decide(card.run_thread_id, card.interrupt_id, by_move,
                                     user_id=user.user_id)
        editor, final = await self._stream_into(
            surface, thread, events, first_line or f"Applying {user.name}'s decision…")
        crash_point("click:run-finished")
        await self._finish_card(surface, thread, card_mid, user, card, editor, final)

    async def _finish_card(self, surface: ChatSurface, thread: ThreadRef,
                           card_mid: str | None, user: UserRef, card: CardRow,
                           editor: ProgressEditor, final: list[Any]) -> None:
        """Close a card from the events of its resumed run; post the run's answer."""
        answer = next((e for e in final if isinstance(e, Answer)), None)
        notice = next((e for e in final if isinstance(e, Notice)), None)
        approvals = [e for e in final if isinstance(e, ApprovalRequest)]
        if answer is None and not approvals and notice is not None:
            low = notice.text.lower()
            if ALREADY_DECIDED_RUNTIME in low or "expired" in low or "no longer" in low:
                await self.db.finish_card(card.card_id, status="expired",
                                          result={"notice": notice.text})
                result = "expired"
            else:
                await self.db.release_card(card.card_id)
                result = "error"
            await self._audit_moves(card, user, result, {})
            fresh = await self.db.get_card(card.card_id) or card
            await self._edit_card(surface, thread, card_mid, fresh)
            await self.db.mark_card_shown(card.card_id)
            await editor.aclose(("⚠️ " if notice.level != "info" else "ℹ️ ") + notice.text)
            return
        report = answer.report if answer else _outcomes_report(final)
        applied = _applied_ids(report)
        outcomes = _move_outcomes(report)
        status = (plan_card_status(card.moves, card.decisions, outcomes)
                  if is_plan_card(card.moves) else
                  card_status(card.moves, card.decisions, outcomes))
        await self.db.finish_card(card.card_id, status=status,
                                  result={"applied": sorted(applied) if applied is not None
                                          else None, "outcomes": outcomes,
                                          "answer": (answer.text[:1000] if answer else "")})
        crash_point("click:card-finished")
        await self._audit_moves(card, user, "", applied)
        fresh = await self.db.get_card(card.card_id) or card
        await self._edit_card(surface, thread, card_mid, fresh)
        await self.db.mark_card_shown(card.card_id)
        await self._deliver(surface, thread, user, card.team_id, editor, final)

    async def recover(self, surfaces: dict[str, ChatSurface], *, takeover: bool = False) -> int:
        """After a restart (see docs: crash safety), in this order:

        1. the runtime finishes runs a crash left mid-flight (and decisions it had recorded);
        2. a card stuck in `deciding` holds a decision recorded before it was acted on: it is
           finished (applied if the run still waits for it), never asked again;
        3. the outcome of every other recovered run goes to its thread, for the requester and
           team of its run record (a card keeps who asked and for which team);
        4. every pending interrupt without a card gets one; a card stored but maybe never
           drawn is drawn in its message (or posted), so each card is shown once;
        5. requests that crashed before their run started are run again (once; a second
           crash tells the requester to ask again), so no request ends silently.

        Only orphaned work is taken (storage.backend.orphan_filter): on a shared Postgres
        database, runs, cards and turns of another live process are left to it; on SQLite
        (one process per file) everything is. `takeover=True` (the periodic pass of a live
        Postgres process, bot/commands/run.py): only the work of another instance that died,
        never this process's own in-flight work. Passes of several processes take turns
        (one lease), so a dead instance's work is taken over by one of them.

        `surfaces` maps platform -> surface. Returns the number of runs the runtime finished."""
        store = getattr(self.runtime, "store", None)
        lease = getattr(store, "lease", None)
        if lease is None:
            return await self._recover(surfaces, takeover=takeover)
        # a short ttl (renewed every ttl/3 while held): a process killed mid-recovery holds
        # up the next pass (its own restart's included) for seconds, not minutes
        async with lease("fanvise:recovery", ttl=15.0):
            return await self._recover(surfaces, takeover=takeover)

    async def _recover(self, surfaces: dict[str, ChatSurface], *, takeover: bool) -> int:
        try:
            if takeover:
                results = list(await self.runtime.recover_crashed_runs(takeover=True))
                pending = await self.runtime.pending_approvals(takeover=True)
            else:
                results = list(await self.runtime.recover_crashed_runs())
                pending = await self.runtime.pending_approvals(orphaned_only=True)
            waiting = {(a.run_thread_id, a.interrupt_id): a for a in pending}
        except Exception as exc:  # noqa: BLE001 - recovery must not stop the bot
            log.error("recovery failed: %s: %s", type(exc).__name__, exc)
            return 0
        orphans = {"takeover": True} if takeover else {"orphaned_only": True}
        by_run: dict[str, tuple[str, list[Any], Any]] = {}
        loose: list[tuple[str, list[Any], Any]] = []
        for item in results:
            conv, events = item[0], item[1]
            run = getattr(item, "run", None)
            if run is not None:
                by_run[run.run_thread_id] = (conv, events, run)
            else:
                loose.append((conv, events, None))
        for card in await self.db.cards_by_status("deciding", **orphans):
            try:
                await self._recover_decision(surfaces, card, waiting, by_run)
            except Exception as exc:  # noqa: BLE001
                log.error("could not finish a recorded decision: %s", type(exc).__name__)
        for conv, events, run in [*by_run.values(), *loose]:
            try:
                await self._recover_run(surfaces, conv, events, run)
            except Exception as exc:  # noqa: BLE001
                log.error("could not deliver a recovered run: %s", type(exc).__name__)
        try:
            await self._post_undelivered_cards(surfaces, waiting, orphans)
            await self._recover_turns(surfaces, orphans)
        except Exception as exc:  # noqa: BLE001
            log.error("recovery of cards/requests failed: %s", type(exc).__name__)
        return len(results)

    async def _recover_decision(self, surfaces: dict[str, ChatSurface], card: CardRow,
                                waiting: dict[tuple[str, str], Any],
                                by_run: dict[str, tuple[str, list[Any], Any]]) -> None:
        """Finish the decision a `deciding` card recorded before a crash."""
        surface = surfaces.get(card.platform)
        if surface is None:
            return
        thread = _card_thread(card)
        decider = UserRef(card.platform, card.decided_by or card.requester_id,
                          card.decided_by_name or card.requester_name)
        line = f"Finishing {decider.name}'s decision interrupted by a restart…"
        if await self._waits_for(card, waiting):
            # the run never received it: apply exactly the recorded decision now
            await self._resume(surface, thread, card.message_id, decider, card, first_line=line)
            return
        got = by_run.pop(card.run_thread_id, None)
        final = list(got[1]) if got is not None else \
            await self.runtime.run_outcome(card.run_thread_id)
        final = [e for e in final if not isinstance(e, Progress)]
        if not final:
            final = [Notice("The outcome of this decision was lost in a restart; check your "
                            "roster before deciding again.", level="warning")]
        mid = await post_retrying(surface, thread, OutgoingMessage(progress_text([line])),
                                  sleep=self._sleep)
        await self._finish_card(surface, thread, card.message_id, decider, card,
                                self._editor(surface, thread, mid), final)

    async def _waits_for(self, card: CardRow, waiting: dict[tuple[str, str], Any]) -> bool:
        """True when the card's run still waits at the card's interrupt. `waiting` holds the
        orphaned pending runs only; a pending run nobody drives may carry another (live)
        instance's stamp while this card is orphaned (the click or the card came to a
        process that died), so the card's own conversation is checked too."""
        key = (card.run_thread_id, card.interrupt_id)
        if key in waiting:
            return True
        try:
            more = await self.runtime.pending_approvals(card.conversation_id)
        except Exception:  # noqa: BLE001 - treated as not waiting
            return False
        return key in {(a.run_thread_id, a.interrupt_id) for a in more}

    async def _recover_run(self, surfaces: dict[str, ChatSurface], conv: str,
                           events: list[Any], run: Any) -> None:
        """Deliver a run finished by recovery, as its requester, for its team."""
        thread = ThreadRef.from_conversation_id(conv)
        surface = surfaces.get(thread.platform) if thread else None
        if thread is None or surface is None:
            log.warning("a recovered run has no surface here (%s)", conv.split(":")[0])
            return
        final = [e for e in events if not isinstance(e, Progress)]
        requester = run.requester if run is not None and run.requester else ""
        turn = await self.db.last_turn_of(conv, requester) if requester else None
        user = UserRef(thread.platform, requester or "fanvise",
                       turn.user_name if turn is not None else ("" if requester else "FanVise"))
        team_id = run.team_id if run is not None else self.default_team_id
        line = "Finishing a request interrupted by a restart…"
        reuse = turn.message_id if turn is not None and turn.status == "running" else None
        editor = await self._recovery_editor(surface, thread, line, reuse)
        await self._deliver(surface, thread, user, team_id, editor, final)
        if turn is not None:
            await self.db.set_turn(turn.turn_id, status="done")

    async def _recovery_editor(self, surface: ChatSurface, thread: ThreadRef, line: str,
                               message_id: str | None) -> ProgressEditor:
        msg = OutgoingMessage(progress_text([line]))
        if message_id:
            try:
                await surface.edit(thread, message_id, msg)
                return self._editor(surface, thread, message_id)
            except ChatError:
                pass
        mid = await post_retrying(surface, thread, msg, sleep=self._sleep)
        return self._editor(surface, thread, mid)

    async def _post_undelivered_cards(self, surfaces: dict[str, ChatSurface],
                                      waiting: dict[tuple[str, str], Any],
                                      orphans: dict[str, bool] | None = None) -> None:
        """Every pending interrupt gets its card, drawn once: a missing card row is created
        (requester and team from the run record) and posted; a stored card that may never
        have been drawn is drawn in its message (or posted when it has none)."""
        for (run_tid, iid), req in waiting.items():
            if await self.db.card_for_run(run_tid, iid) is not None:
                continue
            info = getattr(self.runtime, "run_info", None)
            run = await info(run_tid) if info is not None else None
            thread = ThreadRef.from_conversation_id(run.conversation_id if run else "")
            surface = surfaces.get(thread.platform) if thread else None
            if run is None or thread is None or surface is None:
                continue
            turn = await self.db.last_turn_of(run.conversation_id, run.requester)
            user = UserRef(thread.platform, run.requester,
                           turn.user_name if turn is not None else "")
            reuse = turn.message_id if turn is not None and turn.status == "running" else None
            await self._approval_message(thread, user, run.team_id, req, message_id=reuse)
            if turn is not None:
                await self.db.set_turn(turn.turn_id, status="done")
        for card in await self.db.unshown_cards(**(orphans or {"orphaned_only": True})):
            surface = surfaces.get(card.platform)
            if surface is None or card.status == "deciding" or (
                    card.status == "pending" and not await self._waits_for(card, waiting)):
                continue
            msg = self._card_message(card)
            try:
                if card.message_id:
                    try:
                        await surface.edit(_card_thread(card), card.message_id, msg)
                        await self.db.mark_card_shown(card.card_id)
                        continue
                    except MessageGone:
                        pass
                mid = await post_retrying(surface, _card_thread(card), msg, sleep=self._sleep)
            except Exception as exc:  # noqa: BLE001 - recovery must not stop the bot
                log.warning("could not post an undelivered card: %s", type(exc).__name__)
                continue
            await self.db.mark_card_shown(card.card_id, mid)

    async def _recover_turns(self, surfaces: dict[str, ChatSurface],
                             orphans: dict[str, bool] | None = None) -> None:
        """Requests a crash interrupted before their run was recorded: run them again once;
        after a second crash, tell the requester to ask again."""
        for turn in await self.db.open_turns(**(orphans or {"orphaned_only": True})):
            thread = ThreadRef(turn.platform, turn.workspace_id, turn.channel_id,
                               turn.thread_id)
            surface = surfaces.get(turn.platform)
            if surface is None:
                continue
            runs_of = getattr(self.runtime, "runs_of", None)
            runs = await runs_of(turn.conversation_id) if runs_of is not None else []
            if any(r.requester == turn.user_id and r.created >= turn.created_at for r in runs):
                await self.db.set_turn(turn.turn_id, status="done")  # its run was recovered
                continue
            user = UserRef(turn.platform, turn.user_id, turn.user_name)
            if turn.attempts >= 2:
                await self.db.set_turn(turn.turn_id, status="failed")
                text = (f"⚠️ {user.name}, your request \"{clip(turn.text, 80)}\" was "
                        "interrupted by a restart twice. Please ask again.")
                editor = await self._recovery_editor(surface, thread, text, turn.message_id)
                await editor.aclose(text)
                continue
            await self.db.set_turn(turn.turn_id, attempts=turn.attempts + 1)
            request = None
            if turn.request:
                try:
                    request = Request.model_validate(turn.request)
                except ValueError:
                    request = None
            try:
                events = self.runtime.ask(turn.conversation_id, turn.text,
                                          user_id=turn.user_id, team_id=turn.team_id,
                                          request=request)
                line = "Finishing a request interrupted by a restart…"
                editor = await self._recovery_editor(surface, thread, line, turn.message_id)
                final: list[Any] = []
                async for ev in events:
                    if isinstance(ev, Progress):
                        editor.update(progress_text([line, ev.text], limit=surface.max_text))
                    else:
                        final.append(ev)
                await self._deliver(surface, thread, user, turn.team_id, editor, final)
            finally:
                await self.db.set_turn(turn.turn_id, status="done")

    async def _audit_moves(self, card: CardRow, user: UserRef, result: str,
                           applied: set[str] | None) -> None:
        for i, move in enumerate(card.moves):
            decision = card.decisions.get(str(i), "decline")
            mid = str(move.get("move_id"))
            if result:
                res = result
            elif decision == "decline":
                res = "declined"
            elif applied is None:
                res = "approved"
            else:
                res = "applied" if mid in applied else "not-applied"
            await self.db.audit(card_id=card.card_id, run_thread_id=card.run_thread_id,
                                platform=user.platform, user_id=user.user_id,
                                user_name=user.name, decision=decision, result=res,
                                move_index=i, move_id=mid, move_label=move_label(move))

    # ------------------------------------------------------------------ daily posts

    async def post_daily(self, surface: ChatSurface, schedule: DailySchedule) -> str:
        """Post the daily lineup to a scheduled channel; returns the message id."""
        team_id = schedule.team_id if schedule.team_id is not None else self.default_team_id
        thread = ThreadRef(schedule.platform, schedule.workspace_id, schedule.channel_id, "")
        if team_id is None:
            return await surface.post(thread, OutgoingMessage(
                "Daily lineup: no team is linked for this channel. An admin can run "
                "`/link team=<id>` and `/daily` again."))
        msg = await self._lineup_message(team_id, None)
        return await self._post_split(surface, thread, msg)


def _outcomes_report(final: list[Any]) -> dict[str, Any] | None:
    """The move outcomes a plan run streamed before it paused again (a partial decision
    re-plans the rest as a new card: the decided card still states what happened)."""
    for ev in reversed(final):
        if isinstance(ev, Progress) and ev.stage == OUTCOMES_STAGE:
            try:
                records = json.loads(ev.text)
            except ValueError:
                return None
            return {"applied_moves": records} if isinstance(records, list) else None
    return None


def _card_thread(card: CardRow) -> ThreadRef:
    return ThreadRef(card.platform, card.workspace_id, card.channel_id, card.thread_id)


def _status_word(status: str) -> str:
    return {"approved": "approved", "declined": "declined", "partial": "partly approved",
            "failed": "approved but not applied"}.get(status, status)


def _applied_list(report: Any) -> list[Any] | None:
    """The run report's list of applied-move records ("applied_moves", or "applied"), or
    None when the report has none."""
    if not isinstance(report, dict):
        return None
    applied = report.get("applied_moves")
    if applied is None:
        applied = report.get("applied")
    return applied if isinstance(applied, list) else None


def _move_outcomes(report: Any) -> dict[str, dict[str, Any]] | None:
    """{move_id: {"status": applied|recorded|waiting|declined|failed|skipped, "note": ...,
    ["espn_link", "steps"]}} from a run's report (None when it does not say)."""
    applied = _applied_list(report)
    if applied is None:
        return None
    out: dict[str, dict[str, Any]] = {}
    for m in applied:
        if isinstance(m, dict) and m.get("move_id") is not None:
            rec: dict[str, Any] = {"status": str(m.get("status") or "applied"),
                                   "note": str(m.get("note") or "")[:300]}
            if m.get("espn_link"):  # a live league's hand-off: the add page and the steps
                rec["espn_link"] = str(m["espn_link"])
                rec["steps"] = [str(x) for x in m.get("steps") or []][:5]
            out[str(m["move_id"])] = rec
    return out


def card_status(moves: list[dict[str, Any]], decisions: dict[str, str],
                outcomes: dict[str, dict[str, str]] | None) -> str:
    """A decided card's status from its decisions and the moves' real outcomes:
    declined (none approved), failed (approved but none applied), partial (a move declined
    or an approved one failed), approved (the rest; an alternative skipped because another
    was applied for the same player does not count against it)."""
    chosen = [decisions.get(str(i), "decline") for i in range(len(moves))]
    approved = [m for m, d in zip(moves, chosen, strict=True) if d == "approve"]
    if not approved:
        return "declined"
    if outcomes is None:
        return "approved" if len(approved) == len(moves) else "partial"
    status = [(outcomes.get(str(m.get("move_id"))) or {}).get("status") for m in approved]
    ok = [st for st in status if st in ("applied", "recorded")]
    if not ok:
        return "failed"
    failed = [st for st in status if st not in ("applied", "recorded", "skipped")]
    return "approved" if len(approved) == len(moves) and not failed else "partial"


def _applied_ids(report: Any) -> set[str] | None:
    """Move ids the run applied, when its report says (None when it does not)."""
    applied = _applied_list(report)
    if applied is None:
        return None
    out: set[str] = set()
    for m in applied:
        if isinstance(m, dict):
            if m.get("status") not in (None, "applied", "recorded", "waiting"):
                continue  # skipped / failed / declined
            if m.get("move_id") is not None:
                out.add(str(m["move_id"]))
            elif isinstance(m.get("drop"), dict) and isinstance(m.get("add"), dict):
                out.add(f"{m['drop'].get('id')}-{m['add'].get('id')}")
        elif isinstance(m, str):
            out.add(m)
    return out


__all__ = ["COMMANDS", "HELP", "ChatCore", "parse_command_text"]
