"""The protocol every chat adapter implements so bot/core can talk to users."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from bot.core.models import OutgoingMessage, ThreadRef, UserRef


@runtime_checkable
class ChatSurface(Protocol):
    """A chat platform as seen by bot/core.

    `max_text` is the longest plain text one message may carry (Discord 2000, Slack 3000 for
    a section, console large); bot/core splits longer text itself.
    """

    max_text: int

    async def post(self, thread: ThreadRef, msg: OutgoingMessage) -> str:
        """Post a message in the thread; returns its message id."""
        ...

    async def edit(self, thread: ThreadRef, message_id: str, msg: OutgoingMessage) -> None:
        """Replace a message. Raises `MessageGone` if it was deleted/expired and
        `RateLimitedError(retry_after)` on a 429 the library does not retry itself."""
        ...

    async def ephemeral(self, thread: ThreadRef, user: UserRef, text: str) -> None:
        """Show text to one user only (refusals, secrets confirmations)."""
        ...

    # Optional (Discord): open a thread from a message; returns the thread's ref. Surfaces
    # without threads omit it; bot/core looks it up with getattr:
    #
    #   async def create_thread(self, channel_ref: ThreadRef, title: str,
    #                           first_message_id: str) -> ThreadRef
    #
    # Optional (Discord slash commands): the adapter already shows the request as the
    # command's response. bot/core calls it only once a request is accepted (after input
    # checks and the rate limit), so a refused request leaves no empty thread behind:
    #
    #   async def start_thread(self, channel_ref: ThreadRef, title: str) -> ThreadRef
    #
    # returns the conversation's ThreadRef (a new thread on the response, or `channel_ref`
    # where threads do not exist); raises `bot.core.errors.Refused` after telling the user.
    #
    # Optional (Discord, Slack): find messages this bot posted whose ids a crash lost (the
    # card's message is posted, then its id stored: bot.core.approvals adopts the message
    # instead of posting it again):
    #
    #   async def find_messages(self, thread: ThreadRef, msg: OutgoingMessage,
    #                           since: float) -> list[str]
    #
    # ids of this bot's messages in `thread` posted since `since` (Unix time) whose text is
    # `msg`'s as `post` sends it, newest first.


def quiet_title(title: str, asked: str) -> str:
    """What a conversation is, without what the member asked: a slash command's text is
    private on Discord and Slack, so a thread name or a root message never quotes it. The
    title's part after " · " is dropped when it is the member's own text (or its clipped
    start): "Question · is brunson playing?" -> "Question"; "Matchup review · Hoop Dreamers"
    stays as it is."""
    kind, sep, rest = (title or "").partition(" · ")
    said = " ".join((asked or "").split()).lower()
    part = " ".join(rest.rstrip("…").split()).lower()
    if sep and part and part in said:
        return kind
    return title or ""


def slow(core: object, started: float, now: float) -> bool:
    """True when a private answer took long enough that its member may have looked away
    (the core's `notify_after`, as for a late public answer): an ephemeral message or its
    edit notifies nobody, so the adapter tells them in a direct message (`ready_note`)."""
    from bot.core.turns import NOTIFY_AFTER
    return now - started >= float(getattr(core, "notify_after", NOTIFY_AFTER))


def ready_note(command: str, where: str) -> str:
    """The direct message that tells a member their private answer is there: "Your
    `/lineup` answer is ready in <#C1> (only you can see it)." (no `command`: "Your
    answer is ready in …")."""
    what = f"`{command}` answer" if command else "answer"
    return f"Your {what} is ready in {where} (only you can see it)."
