"""Console adapter: the same ChatCore in a terminal (`fanvise chat`).

- Progress is one live line (rewritten in place on a terminal; printed line by line when
  stdout is a pipe).
- Buttons become numbered choices: type the number to click; a select menu's options are
  numbered choices too (the preselected one is marked); link buttons print their address.
  A card's controls carry their own numbers, derived from the card (bot.core.render.
  choice_numbers), so "[3]" is the same click in every session that shows the card; other
  buttons get the next free numbers. A click with a confirmation (Slack's dialog) prints
  it under the choices, so the console says what each click does too.
- Answers and cards are chat Markdown: drawn for the terminal (bold, italic, code, lists;
  bot.console.markdown), plain words when stdout is a pipe.
- Reads stdin line by line (a daemon thread, so Ctrl-C / EOF never hang); exits on EOF,
  `quit` or `exit`. `echo "who should I start today?" | fanvise chat` works in scripts.
"""

from __future__ import annotations

import asyncio
import getpass
import secrets
import sys
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import tzinfo
from typing import Any, TextIO

from bot.console.markdown import render_line, render_markdown
from bot.core.models import Card, OutgoingMessage, ThreadRef, UserRef
from bot.core.timestamps import to_plain

QUIT_WORDS = {"quit", "exit", "/quit", "/exit", ":q", "bye"}
#: Seconds a start waits for restart recovery before reading input (it then goes on in the
#: background): long enough for cards and recorded decisions, short beside a replayed turn.
RECOVERY_WAIT = 2.0
_PROGRESS_MARKS = ("⏳", "✓")


@dataclass
class Choice:
    """A numbered button on the console."""

    number: int
    label: str
    custom_id: str
    message_id: str


def _is_progress(msg: OutgoingMessage) -> bool:
    return not msg.cards and msg.text.startswith(_PROGRESS_MARKS)


def format_card(card: Card) -> str:
    """A card as plain text ("" for a card of buttons alone: its choices are printed)."""
    if not (card.title or card.text or card.fields or card.footer):
        return ""
    lines = [f"┌ {card.title}"]
    if card.text:
        lines += [f"│ {ln}" for ln in card.text.splitlines()]
    for name, value in card.fields:
        value = str(value)
        if "\n" not in value and len(name) + len(value) < 70:
            lines.append(f"│ {name}: {value}")
            continue
        lines.append(f"│ {name}:")
        lines += [f"│   {ln}" for ln in value.splitlines()]
    if card.footer:
        lines.append(f"└ {card.footer}")
    else:
        lines.append("└")
    return "\n".join(lines)


class ConsoleSurface:
    """ChatSurface for a terminal (see module docstring)."""

    max_text = 4000

    def __init__(self, out: TextIO | None = None, *, live: bool | None = None,
                 tz: tzinfo | None = None) -> None:
        self.out = out or sys.stdout
        #: time zone of the `<t:...>` timestamps shown (None: this machine's local zone)
        self.tz = tz
        self.live = self.out.isatty() if live is None else live
        self._next_id = 0
        self._prefix = secrets.token_hex(3)
        self._live_line = False
        self._last_progress: dict[str, str] = {}
        self._shown: dict[str, tuple[str, int]] = {}  # message id -> (text, cards) printed
        self.choices: dict[int, Choice] = {}
        self._numbers: dict[str, int] = {}
        self._reserved: set[int] = set()  # numbers a card gave its controls
        self._next_choice = 1

    # -------------------------------------------------------------- output helpers

    def _write(self, text: str) -> None:
        if self._live_line:
            self.out.write("\r\x1b[2K" if self.live else "")
            self._live_line = False
        self.out.write(render_markdown(to_plain(text, self.tz), color=self.live) + "\n")
        self.out.flush()

    def _progress(self, message_id: str, msg: OutgoingMessage) -> None:
        line = msg.text.strip().splitlines()[-1] if msg.text.strip() else "…"
        line = render_line(to_plain(line, self.tz))
        if self._last_progress.get(message_id) == line:
            return
        self._last_progress[message_id] = line
        if self.live:
            self.out.write("\r\x1b[2K" + line[:200])
            self.out.flush()
            self._live_line = True
        else:
            self.out.write(line + "\n")
            self.out.flush()

    def _show(self, message_id: str, msg: OutgoingMessage, *, updated: bool = False) -> None:
        parts = []
        # a card drawn into the message that announced it ("root, review these moves:"):
        # the card follows the line already printed
        same = updated and msg.cards and self._shown.get(message_id) == (msg.text, 0)
        self._shown[message_id] = (msg.text, len(msg.cards))
        if msg.text and not same:
            parts.append(("(updated) " if updated else "") + msg.text)
        for card in msg.cards:
            if drawn := format_card(card):
                parts.append(drawn)
        # drop old choices of this message, add the enabled buttons
        for n in [n for n, c in self.choices.items() if c.message_id == message_id]:
            del self.choices[n]
        opts = []
        menus = []
        confirms = []
        for card in msg.cards:
            for b in card.buttons:
                if b.url:
                    parts.append(f"{b.label}: {b.url}")
                    continue
                if b.disabled:
                    continue
                n = self._choice(b.custom_id, b.label, message_id, b.number)
                opts.append(f"[{n}] {b.label}")
                if b.confirm:
                    confirms.append(f"  [{n}] {b.confirm}")
            for sel in card.selects:
                if sel.disabled:
                    continue
                items = []
                for o in sel.options:
                    label = o.label + (" (preselected)" if o.default else "")
                    n = self._choice(sel.click_id(o.value), f"{sel.placeholder}: {o.label}",
                                     message_id, o.number)
                    items.append(f"[{n}] {label}")
                menus.append(f"{sel.placeholder}: " + "  ".join(items))
        if opts:
            parts.append("Type a number to choose: " + "  ".join(opts))
        if confirms:
            parts.append("What these do:\n" + "\n".join(confirms))
        parts += menus
        self._write("\n".join(parts))

    def _choice(self, custom_id: str, label: str, message_id: str, number: int = 0) -> int:
        """The number of a choice: the card's own (`number`, the same in every session),
        else the one this session gave it, else the next number no card uses."""
        n = number or self._numbers.get(custom_id)
        if not n:
            while self._next_choice in self.choices or self._next_choice in self._reserved:
                self._next_choice += 1
            n = self._next_choice
            self._next_choice += 1
        if number:
            self._reserved.add(number)
        self._numbers[custom_id] = n
        self.choices[n] = Choice(n, label, custom_id, message_id)
        return n

    # -------------------------------------------------------------- ChatSurface

    async def post(self, thread: ThreadRef, msg: OutgoingMessage) -> str:
        """Print a message; returns its id."""
        self._next_id += 1
        mid = f"c{self._prefix}-{self._next_id}"
        if _is_progress(msg):
            self._progress(mid, msg)
        else:
            self._show(mid, msg)
        return mid

    async def edit(self, thread: ThreadRef, message_id: str, msg: OutgoingMessage) -> None:
        """Progress edits rewrite the live line; other edits print the new version."""
        if _is_progress(msg):
            self._progress(message_id, msg)
        else:
            self._show(message_id, msg, updated=message_id not in self._last_progress)
            self._last_progress.pop(message_id, None)

    async def ephemeral(self, thread: ThreadRef, user: UserRef, text: str) -> None:
        """Print a private notice."""
        self._write(text)


def _stdin_reader(stream: TextIO, loop: asyncio.AbstractEventLoop,
                  queue: asyncio.Queue[str | None]) -> None:
    try:
        for line in iter(stream.readline, ""):
            loop.call_soon_threadsafe(queue.put_nowait, line)
    except (ValueError, OSError):
        pass
    loop.call_soon_threadsafe(queue.put_nowait, None)


async def prepare_router(surface: ConsoleSurface, offline: bool = True) -> float:
    """Before the first question: the offline router's phrase vectors, read from the store
    built at install (milliseconds). When a start must embed phrases no store holds, it says
    so once, with about how long, and embeds them off the event loop. Returns the seconds
    spent embedding (0 when nothing had to be)."""
    if not offline:
        return 0.0
    from agents.understanding.router import default_router

    router = default_router()
    if router.loaded or not await asyncio.to_thread(router.to_embed):
        return 0.0
    loop = asyncio.get_running_loop()

    def notice(count: int, seconds: float) -> None:
        loop.call_soon_threadsafe(surface._write, (
            f"First start: preparing the question router, {count:,} phrases to embed once "
            f"(about {max(1, round(seconds))} s; `bash scripts/install.sh` does this at "
            "install)…"))

    router.notice = notice
    t0 = loop.time()
    await asyncio.to_thread(router.load)
    return loop.time() - t0


async def run_console(core: Any, *, stdin: TextIO | None = None, stdout: TextIO | None = None,
                      session: str = "local", user_name: str | None = None,
                      banner: str = "", surface: ConsoleSurface | None = None,
                      first: str | None = None, decide: str | None = None,
                      recover: Callable[[], Coroutine[Any, Any, Any]] | None = None) -> int:
    """Chat on the console until EOF / quit. Returns the number of lines handled.

    `first` (`fanvise ask`): that question is handled first, then lines are read only while
    a card it drew waits for a decision; `decide` ("approve" / "decline", its --yes / --no)
    answers that card with its approve-all / skip-all button instead.

    `recover` (the core's restart recovery) starts first; when it is not done within
    RECOVERY_WAIT (a request a restart interrupted is being answered again), it goes on in
    the background, said once, while lines are read: it is finished beside the member's new
    questions, never before them; the console waits for it only before it exits."""
    stdin = stdin or sys.stdin
    surface = surface or ConsoleSurface(stdout)
    name = user_name or _user_name()
    user = UserRef("console", name, name, is_admin=True)
    thread = ThreadRef("console", "local", "console", session)
    if banner:
        surface._write(banner)
    background: asyncio.Task[Any] | None = None
    try:
        if recover is not None:
            background = asyncio.create_task(recover(), name="fanvise-console-recovery")
            try:  # quick recovery (cards, decisions) before the pending cards are drawn
                await asyncio.wait_for(asyncio.shield(background), RECOVERY_WAIT)
            except TimeoutError:
                surface._write("A request interrupted by a restart is being finished in "
                               "the background; you can ask meanwhile.")
        if first is not None:
            return await _ask_once(core, surface, thread, user, first, stdin, decide)
        pending = await core.db.pending_cards(thread.conversation_id)
        for row in reversed(pending):
            # the one card renderer (summary, progress facts, decisions, its own numbers)
            await core.approvals.number_base(row)
            drawn = core.approvals.card_message(row)
            mid = row.message_id or f"restored-{row.card_id}"
            surface._show(mid, OutgoingMessage("Still waiting for your decision:",
                                               cards=drawn.cards))
        return await _read_lines(core, surface, thread, user, stdin)
    finally:
        if background is not None:
            await background  # the interrupted request is finished, not dropped again


async def _read_lines(core: Any, surface: ConsoleSurface, thread: ThreadRef, user: UserRef,
                      stdin: TextIO, *, while_pending: set[str] | None = None) -> int:
    """Handle stdin line by line (a number clicks that choice, other text is a message)
    until EOF / quit, or (`while_pending`) once none of those cards waits any more."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    reader = threading.Thread(target=_stdin_reader, args=(stdin, loop, queue),
                              name="fanvise-console-stdin", daemon=True)
    reader.start()
    handled = 0
    while while_pending is None or await _waiting(core, thread, while_pending):
        if surface.live:
            surface.out.write("> ")
            surface.out.flush()
        line = await queue.get()
        if line is None:
            break
        text = line.strip()
        if not text:
            continue
        if text.lower() in QUIT_WORDS:
            break
        handled += 1
        number = text.isascii() and text.isdigit()
        if number and int(text) in surface.choices:
            choice = surface.choices[int(text)]
            await core.handle_click(surface, thread, user, choice.custom_id, choice.message_id)
        elif number and not surface.choices:
            surface._write("There is nothing to choose right now: ask a question instead.")
        elif number:
            surface._write(f"No choice {text}; options: "
                           + ", ".join(f"[{c.number}] {c.label}"
                                       for c in surface.choices.values()))
        else:
            await core.handle_message(surface, thread, user, text)
    return handled


async def _waiting(core: Any, thread: ThreadRef, card_ids: set[str]) -> bool:
    return any(c.card_id in card_ids for c in await core.db.pending_cards(
        thread.conversation_id))


async def _ask_once(core: Any, surface: ConsoleSurface, thread: ThreadRef, user: UserRef,
                    question: str, stdin: TextIO, decide: str | None) -> int:
    """`fanvise ask`: one question through the chat core (the same guard, answer and card
    as `fanvise chat`); then the card it drew is decided by its numbers from stdin, or by
    `decide` (its approve-all / skip-all button). EOF leaves the card pending."""
    before = {c.card_id for c in await core.db.pending_cards(thread.conversation_id)}
    await core.handle_message(surface, thread, user, question)
    new = {c.card_id for c in await core.db.pending_cards(thread.conversation_id)} - before
    if not new:
        return 1
    if decide is not None:
        for card_id in sorted(new):
            action = "approveall" if decide == "approve" else "declineall"
            row = await core.db.get_card(card_id)
            await core.handle_click(surface, thread, user, f"fv:{action}:{card_id}",
                                    (row.message_id if row else "") or "")
        return 1 + len(new)
    handled = 1 + await _read_lines(core, surface, thread, user, stdin, while_pending=new)
    if await _waiting(core, thread, new):
        surface._write("No decision: the card stays pending (`fanvise chat` shows it again "
                       "with the same numbers).")
    return handled


def _user_name() -> str:
    try:
        return getpass.getuser() or "you"
    except Exception:  # noqa: BLE001 - no login name in some containers
        return "you"


__all__ = ["ConsoleSurface", "format_card", "prepare_router", "run_console"]
