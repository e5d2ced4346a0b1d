"""ChatCore: all conversation logic once, for every chat surface.

Adapters call exactly three coroutines (see docs/running.md):

    await core.handle_message(surface, thread, user, text)            # a message in a thread
    await core.handle_command(surface, thread, user, name, args)      # a slash command
    await core.handle_click(surface, thread, user, custom_id, message_id)   # a button

plus `await core.seen_event(event_id)` to de-duplicate Slack retries.

ChatCore only wires the features and the cross-cutting checks (credentials, errors); each
feature is a module of its own, like a discord.py cog, holding its commands:

- `bot.core.turns`: a question or conversation command -> thread, progress, answer/card;
- `bot.core.approvals`: move cards, clicks and decisions;
- `bot.core.link`: `/link`, which team a member acts for;
- `bot.core.daily`: `/daily` schedules and the daily post, a league digest (`bot.core.digest`);
- `bot.core.prelock`: the pre-lock alert and its one-tap fix button;
- `bot.core.lineup_command`: `/lineup`;
- `bot.core.matchup`: `/matchup`;
- `bot.core.recovery`: finishing what a crash interrupted.

The commands themselves (names, options, help) are listed once in `bot.core.commands`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime
from typing import Any

from bot.core.approvals import Approvals
from bot.core.choices import day_choices, player_choices, timezone_choices
from bot.core.commands import NAMES as COMMANDS
from bot.core.commands import carries_credentials, help_text, parse_command_text
from bot.core.daily import Daily
from bot.core.errors import InvalidInput, Refused
from bot.core.handoff import WritesConfig
from bot.core.league_life import LeagueLife
from bot.core.lineup_command import LineupCommand
from bot.core.link import Linking
from bot.core.matchup import Matchup
from bot.core.models import Choice, ThreadRef, UserRef
from bot.core.move_schedule import MoveSchedule
from bot.core.prelock import Prelock
from bot.core.progress import EditBudget, WorkspaceBudget
from bot.core.recovery import Recovery
from bot.core.surface import ChatSurface
from bot.core.turns import MAX_QUESTION, Turns
from bot.core.week_plan import WeekPlans
from fantasy.espn.client import espn_turn
from fantasy.espn.errors import EspnError
from fantasy.redact import looks_like_credentials
from storage.app_db import AppDB, CardRow, DailySchedule
from storage.db import DatabaseBusy

log = logging.getLogger(__name__)

HANDLER_FAILED = "Sorry, something went wrong. Please try again."
CLICK_FAILED = "Sorry, that click could not be processed. Please try again."
CREDENTIALS_REFUSAL = (
    "Your message contains what looks like ESPN cookies or a token (espn_s2 / SWID). "
    "I did not read, store or repeat it.")
CREDENTIALS_ADVICE = (
    " Delete that message now (anyone in the channel can read it), and link your team "
    "privately with the `/link` slash command: its reply is only visible to you.")


class ChatCore:
    """Platform-neutral conversation logic (see module docstring)."""

    def __init__(self, runtime: Any, app_db: AppDB, *, espn: Any = None,
                 default_team_id: int | None = None, min_edit_interval: float = 1.0,
                 budget: EditBudget | None = None,
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
        self.budget: EditBudget = budget or WorkspaceBudget(clock=clock)
        self.writes_config = WritesConfig()  # the deployment's (bot.core.app sets it)
        self.budget_platforms: set[str] = {"slack"}
        self.clock = clock
        self.sleep = sleep
        self.now = now
        self.llm_per_minute = llm_per_minute
        self.llm_burst = llm_burst
        self.rate_limit = True  # `fanvise chat` turns it off: one local user, piped scripts
        self.card_locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.on_schedule_change: Callable[[], Any] | None = None
        # the features (one module each, like discord.py cogs); each owns its commands
        self.turns = Turns(self)
        self.approvals = Approvals(self)
        self.link = Linking(self)
        self.daily = Daily(self)
        self.prelock = Prelock(self)
        self.lineup = LineupCommand(self)
        self.recovery = Recovery(self)
        self.matchup = Matchup(self)
        self.moves = MoveSchedule(self)
        self.league_life = LeagueLife(self)
        self.week_plans = WeekPlans(self)
        if runtime is not None and hasattr(runtime, "scheduled"):
            runtime.scheduled = self.moves.planned  # every answer reads the week plan
            runtime.week_moves = self.moves.week_moves
        if runtime is not None and hasattr(runtime, "writers"):  # approval-time writes: the one writer
            from bot.core.handoff import writes_of
            runtime.writers = writes_of(self).run_writer
        self._handlers: dict[str, Callable[..., Awaitable[None]]] = {
            "ask": self.turns.cmd_ask, "player": self.turns.cmd_player,
            "optimize": self.turns.cmd_optimize, "stream": self.turns.cmd_stream,
            "lineup": self.lineup.cmd_lineup, "link": self.link.cmd_link,
            "daily": self.daily.cmd_daily, "help": self._cmd_help,
            "matchup": self.matchup.cmd_matchup, "advance": self.moves.cmd_advance,
            "recap": self.league_life.cmd_recap, "alerts": self.league_life.cmd_alerts,
            "powerrankings": self.league_life.cmd_powerrankings,
            "odds": self.league_life.cmd_odds, "preview": self.league_life.cmd_preview,
            "feed": self.league_life.cmd_feed, "trade": self.league_life.cmd_trade,
        }

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

    def league_client(self) -> Any:
        """The ESPN league client; an EspnError (which every ESPN read handles) when this
        instance serves no league."""
        if self.espn is None:
            raise EspnError("no ESPN league is set up here")
        return self.espn

    def league_today(self) -> date:
        """The league's current date, from the one clock (`EspnClient.league_today`: the
        demo's own date, or the day of ESPN's current scoring period)."""
        today = getattr(self.espn, "league_today", None)
        if today is not None:
            return today()
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
        with espn_turn():  # the turn's wait on ESPN is bounded (settings.espn_wait)
            await self._guarded(surface, thread, user,
                                self.turns.turn(surface, thread, user, text))

    async def handle_command(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                             name: str, args: dict[str, Any] | None = None) -> None:
        """A slash command of the command table (bot.core.commands)."""
        name = (name or "").strip().lstrip("/").lower()
        if carries_credentials(name, args):
            await self._refuse_credentials(surface, thread, user, None)
            return
        handler = self._handlers.get(name)
        if handler is None:
            await surface.ephemeral(thread, user, f"Unknown command `{name[:40]}`.\n\n"
                                    + help_text(thread.platform))
            return
        with espn_turn():
            await self._guarded(surface, thread, user,
                                handler(surface, thread, user, args or {}))

    async def choices(self, provider: str, query: str, thread: ThreadRef,
                      user: UserRef) -> list[Choice]:
        """Suggestions for a command option (`Option.autocomplete` in bot.core.commands):
        "teams", "players", "days" or "timezones"; [] for an unknown provider."""
        if provider == "teams":
            return await self.link.team_choices(query)
        if provider == "players":
            return await player_choices(self.espn, query)
        if provider == "days":
            return day_choices(self.league_today(), query)
        if provider == "timezones":
            return timezone_choices(query)
        return []

    async def handle_click(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                           custom_id: str, message_id: str) -> None:
        """A button click or a menu choice (possibly on a card drawn before a restart)."""
        await self._guarded(surface, thread, user,
                            self._click(surface, thread, user, custom_id, message_id),
                            failure=CLICK_FAILED)

    async def _click(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                     custom_id: str, message_id: str) -> None:
        if await self.prelock.handle_click(surface, thread, user, custom_id, message_id):
            return  # a pre-lock alert's fix button
        await self.approvals.click(surface, thread, user, custom_id, message_id)

    async def recover(self, surfaces: dict[str, ChatSurface], *, takeover: bool = False) -> int:
        """After a restart: see `Recovery.recover`."""
        return await self.recovery.recover(surfaces, takeover=takeover)

    async def post_daily(self, surface: ChatSurface, schedule: DailySchedule) -> str:
        """The scheduled post of a channel: see `Daily.post_daily`."""
        return await self.daily.post_daily(surface, schedule)

    async def prelock_check(self, surface: ChatSurface, schedule: DailySchedule) -> int:
        """The pre-lock re-check of a channel's digest teams: see `Prelock.check`."""
        return await self.prelock.check(surface, schedule)

    async def edit_card(self, surface: ChatSurface, card: CardRow) -> None:
        """Redraw a card in its message (e.g. a live hand-off settled by a league read)."""
        await self.approvals.edit_card(surface, card)

    async def may_decide(self, card: CardRow, user: UserRef) -> bool:
        """The requester, or a user linked to the card's fantasy team in this league."""
        return await self.approvals.may_decide(card, user)

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
                       coro: Awaitable[None], *, failure: str = HANDLER_FAILED) -> None:
        """Run a handler: bad input is explained to the user, a refusal was already, any
        other failure gets `failure` (never a traceback)."""
        try:
            await coro
        except InvalidInput as exc:
            await surface.ephemeral(thread, user, str(exc))
        except Refused:
            pass  # the surface already told the user
        except DatabaseBusy as exc:  # another process holds the file: say so, and which
            log.error("database busy: %s is locked by another connection", exc.path)
            try:
                await surface.ephemeral(thread, user, str(exc))
            except Exception:  # noqa: BLE001
                log.warning("could not report the busy database to the user")
        except Exception as exc:  # noqa: BLE001 - the user gets a message, never a traceback
            log.error("chat handler failed: %s: %s", type(exc).__name__, exc,
                      exc_info=log.isEnabledFor(logging.DEBUG))
            try:
                await surface.ephemeral(thread, user, failure)
            except Exception:  # noqa: BLE001
                log.warning("could not report the failure to the user")

    async def _cmd_help(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                        args: dict[str, Any]) -> None:
        await surface.ephemeral(thread, user, help_text(thread.platform))


__all__ = ["COMMANDS", "MAX_QUESTION", "ChatCore", "parse_command_text"]
