"""Turns: a question or a conversation command becomes one run of the runtime.

Input checks and the rate limit come first; only then a thread (a refusal leaves
none), a progress message edited by a `ProgressEditor`, and the answer, a card or a
notice delivered when the run ends. Commands: ask, player, optimize, stream.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from datetime import date
from typing import TYPE_CHECKING, Any

from agents.shared.llm import OFFLINE_NOTE
from agents.shared.types import Answer, ApprovalRequest, Notice, NoticeCode, Progress
from agents.understanding.request import TEAM_INTENTS, Intent, Request
from bot.core.commands import answer_for_platform, invocation
from bot.core.errors import ChatError, InvalidInput
from bot.core.handoff import check_handoffs
from bot.core.lineup import lineup_answer_message
from bot.core.link import NEEDS_LINK
from bot.core.models import OutgoingMessage, ThreadRef, UserRef
from bot.core.progress import ProgressEditor, post_retrying, progress_facts
from bot.core.render import (
    clip,
    mention,
    progress_text,
    render_answer,
    split_text,
)
from bot.core.surface import ChatSurface
from storage.app_db import CardRow, TurnRow, new_card_id
from storage.crashpoint import crash_point

if TYPE_CHECKING:
    from bot.core.service import ChatCore

log = logging.getLogger(__name__)

MAX_QUESTION = 2000
#: the first line of a turn's progress message (recovery looks for it after a crash)
THINKING = "Thinking…"
_SLOT_WORDS = {"c": "center", "g": "guard", "f": "forward"}
#: an answer later than this (seconds) is posted anew, mentioning its asker (`is_late`)
NOTIFY_AFTER = 8.0
#: platforms where a mention notifies the member
MENTION_PLATFORMS = ("discord", "slack")
#: what a progress message becomes when its answer is posted below it
ANSWER_READY = "Answer ready ↓"


class Turns:
    """Turns: a question or a conversation command becomes one run of the runtime."""

    def __init__(self, core: ChatCore) -> None:
        self.core = core
        self._offline_told: set[str] = set()  # conversations told about offline mode

    async def cmd_ask(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                       args: dict[str, Any]) -> None:
        question = str(args.get("question") or args.get("text") or "").strip()
        if not question:
            raise InvalidInput("Ask me something, e.g. "
                               f"`{invocation('ask', 'Review my matchup this week', thread.platform)}`.")
        await self.turn(surface, thread, user, question,
                        title=f"Question · {clip(question, 80)}")

    async def cmd_player(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                          args: dict[str, Any]) -> None:
        name = str(args.get("name") or args.get("player") or args.get("text") or "").strip()
        if not name:
            raise InvalidInput("Which player? e.g. "
                               f"`{invocation('player', 'Jarrett Allen', thread.platform)}`.")
        if len(name) > 60 or not re.fullmatch(r"[A-Za-z][A-Za-z .'\-]*", name):
            raise InvalidInput("A player name has letters, spaces, dots, apostrophes and "
                               "hyphens only, e.g. "
                               f"`{invocation('player', 'De' + chr(39) + 'Aaron Fox', thread.platform)}`.")
        await self.command_turn(surface, thread, user, Intent.PLAYER_RESEARCH, player=name,
                                 title=f"Player · {name}")

    async def cmd_optimize(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                            args: dict[str, Any]) -> None:
        focus = str(args.get("focus") or args.get("categories") or args.get("text") or "")
        focus = focus.strip()
        if len(focus) > 200:
            raise InvalidInput("Keep the focus short, e.g. "
                               f"`{invocation('optimize', 'AST STL', thread.platform)}`.")
        await self.command_turn(surface, thread, user, Intent.MATCHUP_ANALYSIS, args=focus,
                                 title="Matchup review", command=("optimize", args))

    async def cmd_stream(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                          args: dict[str, Any]) -> None:
        what = str(args.get("position") or args.get("categories") or args.get("text") or "")
        what = what.strip()
        if len(what) > 200:
            raise InvalidInput(f"Keep it short, e.g. `{invocation('stream', 'C', thread.platform)}`"
                               f" or `{invocation('stream', 'assists', thread.platform)}`.")
        # `/stream C`: a one-letter slot is a position here (in free text "c" is too short to
        # trust), so name it for the entity reader (PG, SG, SF, PF are read as they are).
        what = " ".join(_SLOT_WORDS.get(w.lower(), w) for w in what.split())
        await self.command_turn(surface, thread, user, Intent.STREAMING, args=what,
                                 title="Streaming", command=("stream", args))

    async def command_turn(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                            intent: Intent, *, args: str = "", player: str | None = None,
                            title: str = "",
                            command: tuple[str, dict[str, Any]] | None = None) -> None:
        """A slash command's turn: its Request is built directly (no English round trip).
        `command` (name, arguments): run again once an unlinked member links."""
        if intent in TEAM_INTENTS:  # /optimize, /stream: the member's own team
            team_id: int | None = await self.core.link.require_team(surface, thread, user,
                                                                    command=command)
        else:
            team_id = await self.core.link.team_for(user, thread.platform)
        request = await self.core.runtime.command_request(intent, args=args, player=player,
                                                     team_id=team_id)
        await self.turn(surface, thread, user, request.text, title=title, request=request)

    async def _rate_ok(self, surface: ChatSurface, thread: ThreadRef, user: UserRef) -> bool:
        """The per-member limit protects the model (its quota and cost): an offline build
        calls none, so its members are never told to wait (ESPN has its own cache and
        circuit breaker)."""
        if not self.core.rate_limit or getattr(self.core.runtime, "offline", False):
            return True
        wait = await self.core.db.take_token(user.key, capacity=self.core.llm_burst,
                                        per_minute=self.core.llm_per_minute)
        if wait > 0:
            await surface.ephemeral(thread, user, f"You're asking quickly: try again in "
                                    f"{max(1, round(wait))} s.")
            return False
        return True

    async def team_name(self, team_id: int | None) -> str:
        """The fantasy team's name ("" when unknown or ESPN is unavailable)."""
        if team_id is None or self.core.espn is None:
            return ""
        try:
            league = await self.core.espn.get_league()
        except Exception:  # noqa: BLE001 - a name is a nicety
            return ""
        return next((str(t.name) for t in getattr(league, "teams", None) or []
                     if t.id == team_id), "")

    async def thread_title(self, title: str, team_id: int | None,
                           request: Request | None) -> str:
        """What the thread is: "Matchup review · Hoop Dreamers" (a command about a team
        names it), "Player · Jalen Brunson", "Question · …"."""
        if not title or request is None or request.intent not in TEAM_INTENTS:
            return title
        team = await self.team_name(team_id)
        return f"{title} · {team}" if team and team not in title else title

    async def ensure_thread(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
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
        # no thread titles everywhere (Slack): the root says what the thread is, when the
        # title tells more than the request ("Matchup review · Hoop Dreamers")
        head = f"**{clip(title, 90)}**\n" if title and title.rpartition(" · ")[2] not in text \
            else ""
        root_id = await surface.post(thread, OutgoingMessage(f"{head}{user.name} asked: {shown}"))
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

    async def post_split(self, surface: ChatSurface, thread: ThreadRef,
                          msg: OutgoingMessage) -> str:
        chunks = split_text(msg.text, surface.max_text)
        last = ""
        for i, chunk in enumerate(chunks):
            cards = msg.cards if i == len(chunks) - 1 else []
            last = await surface.post(thread, OutgoingMessage(chunk, cards=list(cards),
                                                              mentions=msg.mentions))
        return last

    def editor(self, surface: ChatSurface, thread: ThreadRef, message_id: str
                ) -> ProgressEditor:
        # Slack rate-limits chat.update per workspace; Discord buckets are per channel, and
        # each Discord conversation has its own thread channel, so 1 edit/s is enough there.
        budget = self.core.budget if thread.platform in self.core.budget_platforms else None
        return ProgressEditor(surface, thread, message_id, min_interval=self.core.min_edit_interval,
                              budget=budget, clock=self.core.clock, sleep=self.core.sleep)

    async def stream_into(self, surface: ChatSurface, thread: ThreadRef,
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
                if turn_id:  # the intent first: recovery finds a post whose id a crash lost
                    await self.core.db.mark_turn_posting(turn_id)
                    crash_point("turn:progress-posting")
                mid = await surface.post(thread, OutgoingMessage(progress_text([first_line])))
                if turn_id:
                    crash_point("turn:progress-posted")
        except Exception as exc:  # noqa: BLE001 - the chat failing must not stop the run
            log.warning("could not post the progress message (%s): running anyway",
                        type(exc).__name__)
            mid, posted = "", False
        if turn_id and mid:
            await self.core.db.set_turn(turn_id, message_id=mid)
        editor = self.editor(surface, thread, mid)
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
                                "again.", level="error", code=NoticeCode.ERROR))
        # a fast run shows little of its progress (one edit per second): its last facts
        # stay on the card or answer as a context line
        editor.facts = progress_facts(lines[1:])
        return editor, final

    async def turn(self, surface: ChatSurface, thread: ThreadRef, user: UserRef, text: str,
                    *, title: str = "", request: Request | None = None) -> None:
        if len(text) > MAX_QUESTION:
            raise InvalidInput(f"That is {len(text)} characters; keep questions under "
                               f"{MAX_QUESTION}.")
        team_id = await self.core.link.team_for(user, thread.platform)
        if team_id is None and request is not None and request.intent in TEAM_INTENTS:
            # kept, and answered once they link (Linking.resume)
            await self.core.link.remember(thread, user, text,
                                          request=request.model_dump(mode="json"))
            team_id = await self.core.link.require_team(surface, thread, user)  # or Refused
        if not await self._rate_ok(surface, thread, user):
            return
        title = await self.thread_title(title, team_id, request)
        thread = await self.ensure_thread(surface, thread, user, text, title or text)
        await check_handoffs(self.core, surface, thread)  # live moves made on ESPN since
        turn_id = new_card_id()
        await self.core.db.start_turn(TurnRow(
            turn_id=turn_id, conversation_id=thread.conversation_id, platform=thread.platform,
            workspace_id=thread.workspace_id, channel_id=thread.channel_id,
            thread_id=thread.thread_id, user_id=user.user_id, user_name=user.name,
            team_id=team_id, text=text,
            request=request.model_dump(mode="json") if request is not None else None,
            message_id=None, status="running", attempts=1, created_at=0.0, updated_at=0.0))
        crash_point("turn:started")
        # a member without a link has no team (never the deployment's): a question about
        # "my team" then gets the runtime's needs-team answer (`Answer.needs_team`), replaced
        # by the link prompt
        no_team = {"default_team": False} if team_id is None else {}
        events = self.core.runtime.ask(thread.conversation_id, text, user_id=user.user_id,
                                  team_id=team_id, request=request, **no_team)
        status = "done"
        try:
            editor, final = await self.stream_into(surface, thread, events, THINKING,
                                                    turn_id=turn_id)
            if no_team and any(isinstance(ev, Answer) and ev.needs_team for ev in final):
                await self.core.link.ask_to_link(surface, thread, user)
                status = NEEDS_LINK  # answered once they link (Linking.resume)
                final = [Notice("That is about your own team, and you haven't linked one "
                                f"yet: link it with `{invocation('link', '', thread.platform)}`"
                                " (I sent you how, privately), and I'll answer this then.",
                                code=NoticeCode.NEEDS_LINK)]
            await self.deliver(surface, thread, user, team_id, editor, final)
        finally:
            await self.core.db.set_turn(turn_id, status=status)

    def offline_note(self, thread: ThreadRef) -> str:
        """The offline-mode notice, once per conversation (this process): the first
        offline answer of a thread carries it, later ones don't."""
        if thread.conversation_id in self._offline_told:
            return ""
        if len(self._offline_told) > 10_000:
            self._offline_told.clear()
        self._offline_told.add(thread.conversation_id)
        return f"_{OFFLINE_NOTE}_"

    def _league_day(self) -> date | None:
        """The league's today (None when it cannot be read): dates are on its clock."""
        today = getattr(self.core, "league_today", None)
        try:
            return today() if callable(today) else None
        except Exception:  # noqa: BLE001 - a footer's nicety
            return None

    def is_late(self, thread: ThreadRef, editor: ProgressEditor) -> bool:
        """True when the answer is not the immediate reply: the run took longer than
        `ChatCore.notify_after` seconds (default NOTIFY_AFTER) on a chat platform, so the
        asker may have looked away and an edit would notify nobody."""
        if thread.platform not in MENTION_PLATFORMS:
            return False
        after = float(getattr(self.core, "notify_after", NOTIFY_AFTER))
        return editor.elapsed() >= after

    async def _week_plan_kept(self, text: str, report: Any, thread: ThreadRef, user: UserRef,
                              team_id: int | None) -> str:
        """A plan request answered "no roster move improves your team": the team's week plan
        is made anyway (no moves, each day's best lineup: `WeekPlans.keep`), and the answer
        says who sets those lineups."""
        plans = getattr(self.core, "week_plans", None)
        if plans is None or not isinstance(report, dict) or not report.get("no_move_plan"):
            return text
        team = team_id if team_id is not None else (report.get("team") or {}).get("id")
        if team is None:
            return text
        plan = await plans.keep(thread.platform, thread.workspace_id, user.user_id, int(team))
        return f"{text}\n{plans.keep_text(plan)}" if plan is not None else text

    async def deliver(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                       team_id: int | None, editor: ProgressEditor, final: list[Any], *,
                       notify: bool | None = None) -> None:
        """Replace the progress message with the first outgoing message and post the rest.
        A card is posted as a new message mentioning its requester (an edit notifies
        nobody; `Approvals.show_card`, shown once across crashes); the progress message
        then becomes a one-line summary, "Plan ready: 3 moves for Hoop Dreamers ↓".
        An answer that is not the immediate reply (`notify`, default `is_late`) is posted
        the same way: a new message mentioning the asker, under "Answer ready ↓"."""
        facts = editor.facts
        msgs: list[tuple[OutgoingMessage, CardRow | None]] = []
        for ev in final or [Notice("No answer this time. Please try again.", level="warning")]:
            if isinstance(ev, ApprovalRequest):
                msg, card = await self.core.approvals.approval_message(
                    thread, user, team_id, ev, context=facts)
                msgs.append((msg, card))
            elif isinstance(ev, Answer):
                # (no progress facts under an answer: "31 player-games left…" under "who
                # do i start tomorrow" is noise; the card keeps them as its context line)
                text = answer_for_platform(ev.text, thread.platform)  # its command list
                text = await self._week_plan_kept(text, ev.report, thread, user, team_id)
                note = self.offline_note(thread) if ev.offline else ""  # once per thread
                text = f"{note}\n{text}" if note else text
                lineup = await lineup_answer_message(self.core, ev, thread=thread, user=user,
                                                     team_id=team_id, offline_note=note)
                if lineup is not None:  # /lineup and lineup questions: one lineup card
                    msgs.append((lineup, None))
                    continue
                for m in render_answer(text, ev.report, offline=False,
                                       max_text=surface.max_text, offers_id=ev.offers_id,
                                       offers=ev.offers, league_day=self._league_day()):
                    msgs.append((m, None))
            elif isinstance(ev, Notice):
                icon = {"error": "⚠️ ", "warning": "⚠️ "}.get(ev.level, "ℹ️ ")
                for chunk in split_text(icon + ev.text, surface.max_text):
                    msgs.append((OutgoingMessage(chunk), None))
        first, first_card = msgs[0]
        late = self.is_late(thread, editor) if notify is None else notify
        if first_card is None and late and thread.platform in MENTION_PLATFORMS:
            who = mention(thread.platform, user.user_id, user.name)
            msgs[0] = (OutgoingMessage(f"{who} {first.text}", cards=first.cards,
                                       mentions=tuple(dict.fromkeys(
                                           (*first.mentions, user.user_id)))), None)
            try:  # the progress message: one line; the answer below notifies them
                await editor.aclose(None if editor.gone else OutgoingMessage(ANSWER_READY))
            except Exception as exc:  # noqa: BLE001
                log.warning("could not shorten the progress message (%s)", type(exc).__name__)
            for msg, _ in msgs:
                await post_retrying(surface, thread, msg, sleep=self.core.sleep)
            return
        if first_card is not None:
            try:  # a nicety: the card below matters more than its summary line
                await editor.aclose(OutgoingMessage(
                    await self.core.approvals.ready_line(first_card)))
            except Exception as exc:  # noqa: BLE001
                log.warning("could not show the card's summary line (%s)", type(exc).__name__)
        else:
            await editor.aclose(first)
            msgs = msgs[1:]
        for msg, shown in msgs:
            if shown is not None:
                await self.core.approvals.show_card(surface, thread, shown, msg)
            else:
                await post_retrying(surface, thread, msg, sleep=self.core.sleep)

    async def take_offer(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                          offers_id: str, index: int) -> None:
        """A follow-up offer under an answer ("Look for moves", a clarifying choice): run the
        request it carries as a new turn in the same thread."""
        offer = await self.core.runtime.offered_request(thread.conversation_id, offers_id, index)
        if offer is None:
            await surface.ephemeral(thread, user, "That choice belongs to an earlier answer. "
                                    "Ask again and pick from the newest one.")
            return
        label, request = offer
        await self.turn(surface, thread, user, label or request.text, request=request)
