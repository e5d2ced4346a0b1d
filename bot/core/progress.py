"""Progress by editing one message: coalesced, rate-limit aware (see reference/discord-slack.md).

- One `ProgressEditor` per progress message; one background writer task serialises edits.
- Intermediate progress: at most one edit per `min_interval` seconds per message, the first
  one not before `first_delay` seconds (so a fast answer shows no progress flicker); only the
  newest state is sent, identical states are never re-sent.
- The final state (`aclose(final)`) goes out at once: the edit interval paces progress only.
  Only a rate limit (a 429's retry-after, the workspace budget) can hold it back.
- A `WorkspaceBudget` (token bucket per workspace) is shared by every editor of a ChatCore:
  Slack's chat.update is rate-limited per workspace, not per message.
- `RateLimitedError(retry_after)` -> wait and send only the newest state;
  `MessageGone` -> stop editing; the final state is then posted as a new message.
  Any other failure of an edit (a 5xx, a network error) also stops the editing: the final
  state is posted as a new message, so one bad edit never loses the answer.
- The final state does not wait longer than `max_final_wait` seconds for a rate limit (e.g.
  Discord's 429 beyond discord.py's 30 s): it is posted as a new message instead (posting
  is another rate-limit bucket than editing). Posting the final state waits out a 429
  (`post_retrying`).
- Clock and sleep are injectable, so tests can run in virtual time.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from bot.core.errors import MessageGone, RateLimitedError
from bot.core.models import OutgoingMessage, ThreadRef
from bot.core.surface import ChatSurface

log = logging.getLogger(__name__)

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]


class EditBudget(Protocol):
    """A workspace's message-edit budget as the editors use it: `WorkspaceBudget` (one
    process) or `storage.shared_budget.SharedWorkspaceBudget` (every process on one
    database)."""

    def reserve(self, workspace: str) -> float:
        """Take a token now if there is one (0.0); else the seconds to wait."""
        ...

    def penalize(self, workspace: str, seconds: float) -> None:
        """Hold the workspace's edits back `seconds` (a platform rate limit)."""
        ...


class WorkspaceBudget:
    """Token bucket per workspace: `per_minute` edits, bursts up to `burst`."""

    def __init__(self, per_minute: float = 40.0, burst: float = 5.0, *,
                 clock: Clock = time.monotonic) -> None:
        self.rate = per_minute / 60.0
        self.burst = burst
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}

    def reserve(self, workspace: str) -> float:
        """Take a token now if there is one (returns 0.0); else the seconds to wait (nothing
        is taken)."""
        now = self._clock()
        tokens, at = self._buckets.get(workspace, (self.burst, now))
        tokens = min(self.burst, tokens + max(0.0, now - at) * self.rate)
        if tokens >= 1.0:
            self._buckets[workspace] = (tokens - 1.0, now)
            return 0.0
        self._buckets[workspace] = (tokens, now)
        return (1.0 - tokens) / self.rate if self.rate > 0 else math.inf

    def penalize(self, workspace: str, seconds: float) -> None:
        """After a 429: no tokens for that workspace for `seconds`."""
        now = self._clock()
        self._buckets[workspace] = (-seconds * self.rate, now)


class ProgressEditor:
    """Coalescing editor of one chat message (see module docstring)."""

    def __init__(self, surface: ChatSurface, thread: ThreadRef, message_id: str, *,
                 min_interval: float = 1.0, first_delay: float = 0.4,
                 budget: EditBudget | None = None,
                 clock: Clock = time.monotonic, sleep: Sleep = asyncio.sleep,
                 max_retries: int = 5, max_final_wait: float = 5.0) -> None:
        self.surface = surface
        self.thread = thread
        self.message_id = message_id
        self.min_interval = min_interval
        self.first_delay = first_delay
        self.budget = budget
        self._clock = clock
        self._sleep = sleep
        self._max_retries = max_retries
        self.max_final_wait = max_final_wait
        self._closed = asyncio.Event()  # set by aclose: cuts a long wait short
        self._latest: OutgoingMessage | None = None
        self._sent_key: tuple | None = None
        self._last_sent_at = -math.inf
        self.started_at = clock()
        self._first_at = self.started_at + first_delay  # no progress edit before this
        self._blocked_until = -math.inf  # a 429's retry-after (holds the final state too)
        self._wake = asyncio.Event()
        self._closing = False
        self.gone = False
        self._task: asyncio.Task[None] | None = None
        self.edits_sent = 0
        self.edit_times: list[float] = []
        #: the run's last progress facts (`progress_facts`), kept on its card or answer
        self.facts = ""

    def elapsed(self) -> float:
        """Seconds since this editor took over its progress message."""
        return self._clock() - self.started_at

    def update(self, msg: OutgoingMessage | str) -> None:
        """Record the newest state (never blocks) and wake the writer."""
        if self._closing or self.gone:
            return
        self._latest = OutgoingMessage(msg) if isinstance(msg, str) else msg
        self._wake.set()
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="fanvise-progress-editor")

    async def aclose(self, final: OutgoingMessage | str | None = None) -> str:
        """Deliver the final state (posting a new message if the old one is gone) and stop.
        Returns the id of the message that shows the final state."""
        if final is not None:
            self._latest = OutgoingMessage(final) if isinstance(final, str) else final
        self._closing = True
        self._closed.set()
        self._wake.set()
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="fanvise-progress-editor")
        await self._task
        if self.gone and final is not None:
            latest = self._latest or OutgoingMessage("")
            self.message_id = await post_retrying(self.surface, self.thread, latest,
                                                  sleep=self._sleep)
            self._sent_key = _key(latest)
        return self.message_id

    async def cancel(self) -> None:
        """Stop without a final flush."""
        self._closing = True
        if self._task is not None and not self._task.done():
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    async def _run(self) -> None:
        retries = 0
        while True:
            await self._wake.wait()
            self._wake.clear()
            while True:
                delay = self._due() - self._clock()
                if delay <= 0 and self.budget is not None and self._needs_send():
                    delay = self.budget.reserve(self.thread.workspace_id)
                if delay <= 0:
                    break
                if self._closing and delay > self.max_final_wait and self._needs_send():
                    log.warning("final progress state would wait %.0f s: posting it anew",
                                delay)
                    self.gone = True
                    break
                await self._pause(delay)  # states arriving meanwhile are coalesced
            msg = self._latest
            if msg is not None and not self.gone and _key(msg) != self._sent_key:
                try:
                    await self.surface.edit(self.thread, self.message_id, msg)
                    self._sent_key = _key(msg)
                    self.edits_sent += 1
                    self.edit_times.append(self._clock())
                    retries = 0
                except RateLimitedError as exc:
                    retries += 1
                    if self.budget is not None:
                        self.budget.penalize(self.thread.workspace_id, exc.retry_after)
                    self._blocked_until = self._clock() + exc.retry_after
                    if retries <= self._max_retries:
                        self._wake.set()
                        continue
                    log.warning("progress edit gave up after %d rate limits", retries)
                    self.gone = True
                except MessageGone:
                    self.gone = True
                except Exception as exc:  # noqa: BLE001 - a 5xx / network error: stop editing
                    log.warning("progress edit failed (%s): the final state will be posted "
                                "anew", type(exc).__name__)
                    self.gone = True
                self._last_sent_at = self._clock()
            if self._closing and (self.gone or self._latest is None
                                  or _key(self._latest) == self._sent_key):
                return

    def _due(self) -> float:
        """When the next edit may go out: the final state at once (unless a 429 asked to
        wait), progress `min_interval` after the last edit and not before `first_delay`."""
        if self._closing:
            return self._blocked_until
        return max(self._last_sent_at + self.min_interval, self._first_at, self._blocked_until)

    async def _pause(self, delay: float) -> None:
        """Sleep `delay`; a wait for a progress edit ends early when `aclose` is called
        (the final state is then due at once)."""
        if self._closing:
            await self._sleep(delay)
            return
        sleeper = asyncio.ensure_future(self._sleep(delay))
        closer = asyncio.ensure_future(self._closed.wait())
        try:
            await asyncio.wait({sleeper, closer}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for fut in (sleeper, closer):
                fut.cancel()

    def _needs_send(self) -> bool:
        return (self._latest is not None and not self.gone
                and _key(self._latest) != self._sent_key)


async def post_retrying(surface: ChatSurface, thread: ThreadRef, msg: OutgoingMessage, *,
                        sleep: Sleep = asyncio.sleep, attempts: int = 3,
                        max_wait: float = 30.0) -> str:
    """`surface.post`, waiting out up to `attempts - 1` rate limits (429) of at most
    `max_wait` seconds each; other errors are raised at once."""
    for attempt in range(1, attempts + 1):
        try:
            return await surface.post(thread, msg)
        except RateLimitedError as exc:
            if attempt == attempts or exc.retry_after > max_wait:
                raise
            log.warning("post rate limited: retrying in %.1f s", exc.retry_after)
            await sleep(exc.retry_after)
    raise AssertionError("unreachable")


#: steps that are no facts, or that the card itself states (the plan's totals)
_FACT_SKIP = re.compile(r"^(waiting for your approval|applying|finishing|re-planning|"
                        r"exact plan)", re.I)
_FACT_PREFIX = re.compile(r"^checking the schedule:\s*", re.I)


def progress_facts(lines: list[str], *, keep: int = 2, limit: int = 300) -> str:
    """The last facts a run's progress showed, as one context line for its card or answer:
    "31 player-games left for you vs 34 for Full Court Press · Validated 8 of 8 move(s)
    against the exact weekly plan". A fact is a step that states a number (steps such as
    "Thinking…" or "Applying 2 approved move(s)" are not kept); "" when there is none."""
    facts: list[str] = []
    for line in lines:
        text = _FACT_PREFIX.sub("", str(line or "").strip()).rstrip(".… ").strip()
        if not text or _FACT_SKIP.match(text) or not re.search(r"\d", text):
            continue
        text = text[0].upper() + text[1:]
        if text in facts:
            facts.remove(text)
        facts.append(text)
    out = " · ".join(facts[-keep:])
    return out if len(out) <= limit else out[: limit - 1] + "…"


def _key(msg: OutgoingMessage) -> tuple:
    return (msg.text, repr(msg.cards))


def fit_tail(text: str, limit: int, marker: str = "…") -> str:
    """Keep the tail of a growing progress text within `limit` characters."""
    if len(text) <= limit:
        return text
    return marker + text[-(limit - len(marker)):]


__all__ = ["EditBudget", "ProgressEditor", "WorkspaceBudget", "fit_tail", "post_retrying", "progress_facts"]
