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
import logging
import re
import time
import zoneinfo
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from agents.shared.llm import with_offline_note
from agents.shared.types import Answer, ApprovalRequest, Notice, Progress
from agents.understanding.request import Intent, Request
from bot.core.errors import (
    ChatError,
    InvalidInput,
    MessageGone,
    RateLimitedError,
    Refused,
)
from bot.core.lineup import daily_lineup_message
from bot.core.models import OutgoingMessage, ThreadRef, UserRef
from bot.core.progress import ProgressEditor, WorkspaceBudget, post_retrying
from bot.core.render import (
    clip,
    conflicts,
    move_label,
    parse_custom_id,
    progress_text,
    render_answer,
    render_approval,
    split_text,
)
from bot.core.surface import ChatSurface
from storage.app_db import AppDB, CardRow, DailySchedule, SecretKeyMissing, new_card_id

log = logging.getLogger(__name__)

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
                             text: str) -> None:
        """A user's message in a thread (or the console): a command line or a question."""
        text = (text or "").strip()
        if not text:
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
        handler = {
            "ask": self._cmd_ask, "player": self._cmd_player, "optimize": self._cmd_optimize,
            "lineup": self._cmd_lineup, "stream": self._cmd_stream, "link": self._cmd_link,
            "daily": self._cmd_daily, "help": self._cmd_help,
        }.get(name)
        if handler is None:
            await surface.ephemeral(thread, user, f"Unknown command `{name[:40]}`.\n\n{HELP}")
            return
        await self._guarded(surface, thread, user, handler(surface, thread, user, args or {}))

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
        if raw in ("", "today"):
            day = today
        elif raw == "tomorrow":
            day = today + timedelta(days=1)
        else:
            try:
                day = date.fromisoformat(raw)
            except ValueError:
                raise InvalidInput("Use `/lineup`, `/lineup tomorrow` or `/lineup 2023-01-26`."
                                   ) from None
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
                           events: AsyncIterator[Any], first_line: str
                           ) -> tuple[ProgressEditor, list[Any]]:
        """Post a progress message, feed Progress events to its editor, return the editor and
        the terminal events (Answer / ApprovalRequest / Notice). If the progress message
        cannot be posted the run goes on anyway (its result is stored); the final state is
        then posted as a new message."""
        posted = True
        try:
            mid = await surface.post(thread, OutgoingMessage(progress_text([first_line])))
        except Exception as exc:  # noqa: BLE001 - the chat failing must not stop the run
            log.warning("could not post the progress message (%s): running anyway",
                        type(exc).__name__)
            mid, posted = "", False
        editor = self._editor(surface, thread, mid)
        editor.gone = not posted
        lines = [first_line]
        final: list[Any] = []
        try:
            async for ev in events:
                if isinstance(ev, Progress):
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
        team_id = await self._team_for(user)
        events = self.runtime.ask(thread.conversation_id, text, user_id=user.user_id,
                                  team_id=team_id, request=request)
        editor, final = await self._stream_into(surface, thread, events, "Thinking…")
        await self._deliver(surface, thread, user, team_id, editor, final)

    async def _deliver(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                       team_id: int | None, editor: ProgressEditor, final: list[Any]) -> None:
        """Replace the progress message with the first outgoing message; post the rest."""
        msgs: list[tuple[OutgoingMessage, str | None]] = []  # (message, card_id)
        for ev in final or [Notice("No answer this time. Please try again.", level="warning")]:
            if isinstance(ev, ApprovalRequest):
                msg, card_id = await self._approval_message(thread, user, team_id, ev)
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
            await self.db.set_card_message(first_card, mid)
        for msg, card_id in msgs[1:]:
            mid = await post_retrying(surface, thread, msg, sleep=self._sleep)
            if card_id:
                await self.db.set_card_message(card_id, mid)

    async def _approval_message(self, thread: ThreadRef, user: UserRef, team_id: int | None,
                                req: ApprovalRequest) -> tuple[OutgoingMessage, str]:
        existing = await self.db.card_for_run(req.run_thread_id, req.interrupt_id)
        if existing is not None:
            card_id = existing.card_id
        else:
            card_id = new_card_id()
            await self.db.create_card(CardRow(
                card_id=card_id, run_thread_id=req.run_thread_id, interrupt_id=req.interrupt_id,
                conversation_id=thread.conversation_id, platform=thread.platform,
                workspace_id=thread.workspace_id, channel_id=thread.channel_id,
                thread_id=thread.thread_id, message_id=None, requester_id=user.user_id,
                requester_name=user.name, team_id=team_id, title=req.title,
                summary=req.summary, moves=list(req.moves), decisions={}, status="pending"))
        card = render_approval(card_id, req.title, req.summary, req.moves, user.name)
        return OutgoingMessage(f"{user.name}, review these moves:", cards=[card]), card_id

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
        return (link is not None and link.team_id == card.team_id
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
            per_move = cid.index is not None and not cid.action.endswith("all")
            if per_move:
                idx = cid.index or 0
                if not 0 <= idx < n:
                    await surface.ephemeral(thread, user, "That move is not on this card.")
                    return
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
                        if j == idx or str(j) in card.decisions \
                                or not conflicts(card.moves[idx], other):
                            continue
                        if await self.db.record_move_decision(card.card_id, j, "decline"):
                            await self.db.audit(
                                card_id=card.card_id, run_thread_id=card.run_thread_id,
                                platform=user.platform, user_id=user.user_id,
                                user_name=user.name, decision="decline",
                                result=f"auto-declined: alternative of #{idx + 1}",
                                move_index=j, move_id=str(other.get("move_id")),
                                move_label=move_label(other))
                card = await self.db.get_card(card.card_id) or card
                if len(card.decisions) < n:
                    await self._edit_card(surface, card_thread, card_mid, card,
                                          decided_by=user.name)
                    return
                decisions: dict[str, str] = {}
            else:
                decisions = {str(i): cid.decision for i in range(n)}
            if not await self.db.claim_card(card.card_id, user_id=user.user_id,
                                            user_name=user.name, decisions=decisions):
                await self._already(surface, thread, user, card, cid.decision, cid.index)
                return
            card = await self.db.get_card(card.card_id) or card
            await self._edit_card(surface, card_thread, card_mid, card, decided_by=user.name)
            await self._resume(surface, card_thread, card_mid, user, card)

    async def _already(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                       card: CardRow, decision: str, index: int | None) -> None:
        await self.db.audit(card_id=card.card_id, run_thread_id=card.run_thread_id,
                            platform=user.platform, user_id=user.user_id, user_name=user.name,
                            decision=decision, result="already-decided", move_index=index)
        who = f" ({_status_word(card.status)} by {card.decided_by_name})" \
            if card.decided_by_name and card.status in ("approved", "declined", "partial") \
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
                                   result_text=result_text)
        return OutgoingMessage(f"{card.requester_name}, review these moves:"
                               if card.status == "pending" else rendered.footer,
                               cards=[rendered])

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
                      user: UserRef, card: CardRow) -> None:
        by_move = {str(card.moves[int(i)].get("move_id")): d
                   for i, d in card.decisions.items() if int(i) < len(card.moves)}
        events = self.runtime.decide(card.run_thread_id, card.interrupt_id, by_move,
                                     user_id=user.user_id)
        editor, final = await self._stream_into(surface, thread, events,
                                                f"Applying {user.name}'s decision…")
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
            await editor.aclose(("⚠️ " if notice.level != "info" else "ℹ️ ") + notice.text)
            return
        values = {d for i, d in card.decisions.items() if int(i) < len(card.moves)}
        status = "approved" if values == {"approve"} else (
            "declined" if values <= {"decline"} else "partial")
        applied = _applied_ids(answer.report if answer else None)
        await self.db.finish_card(card.card_id, status=status,
                                  result={"applied": sorted(applied) if applied is not None
                                          else None,
                                          "answer": (answer.text[:1000] if answer else "")})
        await self._audit_moves(card, user, "", applied)
        fresh = await self.db.get_card(card.card_id) or card
        await self._edit_card(surface, thread, card_mid, fresh)
        await self._deliver(surface, thread, user, card.team_id, editor, final)

    async def recover(self, surfaces: dict[str, ChatSurface]) -> int:
        """After a restart: finish runs a crash left mid-flight (runtime.recover_crashed_runs)
        and post their outcome; cards stuck in `deciding` whose run still waits for a
        decision are opened again; pending cards that never reached the chat (the platform
        failed on the final post) are posted in their thread. `surfaces` maps platform ->
        surface. Returns the number of runs finished."""
        try:
            results = await self.runtime.recover_crashed_runs()
            waiting = {(a.run_thread_id, a.interrupt_id)
                       for a in await self.runtime.pending_approvals()}
        except Exception as exc:  # noqa: BLE001 - recovery must not stop the bot
            log.error("recovery failed: %s: %s", type(exc).__name__, exc)
            return 0
        stuck = await self.db.cards_by_status("deciding")
        for card in stuck:
            if (card.run_thread_id, card.interrupt_id) in waiting:
                await self.db.release_card(card.card_id)
                surface = surfaces.get(card.platform)
                if surface is not None:
                    fresh = await self.db.get_card(card.card_id) or card
                    await self._edit_card(surface, _card_thread(fresh), fresh.message_id, fresh)
        await self._post_undelivered_cards(surfaces, waiting)
        for conv, events in results:
            thread = ThreadRef.from_conversation_id(conv)
            surface = surfaces.get(thread.platform) if thread else None
            if thread is None or surface is None:
                log.warning("a recovered run has no surface here (%s)", conv.split(":")[0])
                continue
            final = [e for e in events if not isinstance(e, Progress)]
            mine = [c for c in stuck if c.conversation_id == conv
                    and (c.run_thread_id, c.interrupt_id) not in waiting]
            for card in mine[:1]:
                user = UserRef(card.platform, card.decided_by or card.requester_id,
                               card.decided_by_name or card.requester_name)
                mid = await surface.post(thread, OutgoingMessage(progress_text(
                    ["Finishing a decision interrupted by a restart…"])))
                await self._finish_card(surface, _card_thread(card), card.message_id, user,
                                        card, self._editor(surface, thread, mid), final)
                break
            else:
                mid = await surface.post(thread, OutgoingMessage(progress_text(
                    ["Finishing a request interrupted by a restart…"])))
                await self._deliver(surface, thread, UserRef(thread.platform, "fanvise",
                                                             "FanVise"),
                                    self.default_team_id, self._editor(surface, thread, mid),
                                    final)
        return len(results)

    async def _post_undelivered_cards(self, surfaces: dict[str, ChatSurface],
                                      waiting: set[tuple[str, str]]) -> None:
        """Post pending cards without a message whose run still waits for a decision."""
        for card in await self.db.cards_by_status("pending"):
            surface = surfaces.get(card.platform)
            if card.message_id or surface is None \
                    or (card.run_thread_id, card.interrupt_id) not in waiting:
                continue
            try:
                mid = await surface.post(_card_thread(card), self._card_message(card))
            except Exception as exc:  # noqa: BLE001 - recovery must not stop the bot
                log.warning("could not post an undelivered card: %s", type(exc).__name__)
                continue
            await self.db.set_card_message(card.card_id, mid)

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


def _card_thread(card: CardRow) -> ThreadRef:
    return ThreadRef(card.platform, card.workspace_id, card.channel_id, card.thread_id)


def _status_word(status: str) -> str:
    return {"approved": "approved", "declined": "declined", "partial": "partly approved"}.get(
        status, status)


def _applied_ids(report: Any) -> set[str] | None:
    """Move ids the run applied, when its report says (None when it does not)."""
    if not isinstance(report, dict):
        return None
    applied = report.get("applied_moves")
    if applied is None:
        applied = report.get("applied")
    if not isinstance(applied, list):
        return None
    out: set[str] = set()
    for m in applied:
        if isinstance(m, dict):
            if m.get("status") not in (None, "applied", "recorded"):
                continue  # skipped / failed
            if m.get("move_id") is not None:
                out.add(str(m["move_id"]))
            elif isinstance(m.get("drop"), dict) and isinstance(m.get("add"), dict):
                out.add(f"{m['drop'].get('id')}-{m['add'].get('id')}")
        elif isinstance(m, str):
            out.add(m)
    return out


__all__ = ["COMMANDS", "HELP", "ChatCore", "parse_command_text"]
