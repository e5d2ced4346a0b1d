"""ChatSurface for Slack (Web API through slack_sdk's AsyncWebClient).

Threads are implicit in Slack (a reply carries the root's `thread_ts`), so `create_thread`
only returns a ref. Errors: HTTP 429 -> RateLimitedError(Retry-After); message_not_found and
friends -> MessageGone.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot.core.commands import platform_text
from bot.core.errors import MessageGone, RateLimitedError, Refused
from bot.core.models import Card, OutgoingMessage, ThreadRef, UserRef
from bot.core.surface import quiet_title
from bot.slack.render import (
    BLOCKS_MAX,
    SECTION_TEXT_MAX,
    clip,
    fallback_text,
    is_progress,
    render,
    render_edit,
    split_text,
    to_mrkdwn,
)
from bot.slack.store import SharedAnswers

log = logging.getLogger(__name__)

GONE_ERRORS = {"message_not_found", "cant_update_message", "channel_not_found",
               "thread_not_found", "is_archived", "edit_window_closed"}


def slack_text(text: str) -> str:
    """Command references as Slack has them: `/link team=<id>` (as the core's agents and
    Discord write them) -> `/fanvise link team=<id>`."""
    return platform_text(text, "slack")


def slack_message(msg: Any) -> Any:
    """`msg` with every text (message, card title, text, fields, footer, button labels and
    confirmations) naming commands the Slack way (`slack_text`)."""
    if isinstance(msg, str):
        return slack_text(msg)
    if not isinstance(msg, OutgoingMessage):
        return msg
    cards = [card if not isinstance(card, Card) else dataclasses.replace(
        card, title=slack_text(card.title), text=slack_text(card.text),
        fields=[(slack_text(n), slack_text(v)) for n, v in card.fields],
        footer=slack_text(card.footer),
        buttons=[dataclasses.replace(b, label=slack_text(b.label),
                                     confirm=slack_text(b.confirm)) for b in card.buttons])
        for card in msg.cards]
    return dataclasses.replace(msg, text=slack_text(msg.text), cards=cards)


class _PageRegistry:
    """The messages of each paginated card drawn by this process (its pages' ts, under each
    page's ts), so an edit of any page redraws every page. After a restart the pages are
    not known: an edit then redraws the message it names and posts the other pages anew."""

    def __init__(self, size: int = 500) -> None:
        self._pages: OrderedDict[tuple[str, str], list[str]] = OrderedDict()
        self._size = size

    def remember(self, channel: str, pages: list[str]) -> None:
        for ts in pages:
            self._pages[(channel, ts)] = list(pages)
        while len(self._pages) > self._size:
            self._pages.popitem(last=False)

    def pages(self, channel: str, ts: str) -> list[str]:
        return self._pages.get((channel, ts), [])


_PAGES = _PageRegistry()


def _map_error(exc: SlackApiError) -> Exception:
    resp = exc.response
    if resp.status_code == 429 or resp.get("error") == "ratelimited":
        return RateLimitedError(float(resp.headers.get("Retry-After", 1)))
    if resp.get("error") in GONE_ERRORS:
        return MessageGone(str(resp.get("error")))
    return exc


class SlackSurface:
    """Draws the core's messages in Slack. `private_to(user_id)` gives a surface whose posts
    are ephemeral to that user (used for /fanvise link, help, daily)."""

    max_text = SECTION_TEXT_MAX

    def __init__(self, client: AsyncWebClient, *, private_user: str | None = None,
                 response_url: str | None = None) -> None:
        self.client = client
        self.private_user = private_user
        self.response_url = response_url

    def private_to(self, user_id: str, response_url: str | None = None) -> SlackSurface:
        """A surface whose `post`/`edit` only `user_id` sees; with a slash command's
        `response_url` the replies work even in channels FanVise was not invited to."""
        return SlackSurface(self.client, private_user=user_id, response_url=response_url)

    async def post(self, thread: ThreadRef, msg: Any) -> str:
        """Post `msg` (Block Kit, split at 50 blocks; a long move card in pages); returns the
        last message's ts (the page with the card-wide buttons)."""
        ts = ""
        msg = slack_message(msg)
        text = fallback_text(msg)
        posted: list[str] = []
        try:
            for blocks in render(msg):
                if self.private_user and self.response_url:
                    await self._respond(text, blocks)
                elif self.private_user:
                    resp = await self.client.chat_postEphemeral(
                        channel=thread.channel_id, user=self.private_user, text=text,
                        blocks=blocks, thread_ts=thread.thread_id or None)
                    ts = str(resp.get("message_ts") or "")
                else:
                    resp = await self.client.chat_postMessage(
                        channel=thread.channel_id, thread_ts=thread.thread_id or None,
                        text=text, blocks=blocks, unfurl_links=False, unfurl_media=False)
                    ts = str(resp["ts"])
                    posted.append(ts)
        except SlackApiError as exc:
            raise _map_error(exc) from exc
        if len(posted) > 1:
            _PAGES.remember(thread.channel_id, posted)
        return ts

    async def _respond(self, text: str, blocks: list[dict[str, Any]] | None, *,
                       replace: bool = False) -> None:
        assert self.response_url
        if replace:  # the ephemeral message the response_url came from, redrawn
            sent = await AsyncWebhookClient(self.response_url).send(
                text=text, blocks=blocks, replace_original=True)
        else:
            sent = await AsyncWebhookClient(self.response_url).send(
                text=text, blocks=blocks, response_type="ephemeral")
        if sent.status_code == 429:
            raise RateLimitedError(float(sent.headers.get("Retry-After", 1)))
        if sent.status_code >= 400:  # expired or used-up response_url
            raise MessageGone(f"response_url: HTTP {sent.status_code}")

    async def find_messages(self, thread: ThreadRef, msg: Any, since: float) -> list[str]:
        """The ts of bot messages in the thread (or the channel) posted since `since` (Unix
        time, a few seconds of skew allowed) whose text is `msg`'s as `post` sends it,
        newest first: a message whose ts a crash lost (bot.core.approvals)."""
        text = fallback_text(slack_message(msg))
        oldest = f"{max(0.0, since - 5.0):.6f}"
        try:
            if thread.thread_id:
                resp = await self.client.conversations_replies(
                    channel=thread.channel_id, ts=thread.thread_id, oldest=oldest, limit=200)
            else:
                resp = await self.client.conversations_history(
                    channel=thread.channel_id, oldest=oldest, limit=200)
        except SlackApiError as exc:
            raise _map_error(exc) from exc
        found = [m for m in resp.get("messages") or []
                 if m.get("bot_id") and m.get("text") == text and m.get("ts")]
        return [str(m["ts"]) for m in sorted(found, key=lambda m: float(m["ts"]),
                                              reverse=True)]

    async def edit(self, thread: ThreadRef, message_id: str, msg: Any) -> None:
        """chat.update one message (ephemeral messages cannot be updated: posted anew)."""
        if self.private_user:
            await self.post(thread, msg)
            return
        msg = slack_message(msg)
        parts = render(msg)
        text = fallback_text(msg)
        try:
            if len(parts) == 1:
                await self.client.chat_update(channel=thread.channel_id, ts=message_id,
                                              text=text, blocks=render_edit(msg))
                return
            # a card longer than one message: every page; pages it has not yet are posted
            # after it (a card is drawn into the message that announced it)
            pages = _PAGES.pages(thread.channel_id, message_id) or [message_id]
            for ts, blocks in zip(pages, parts, strict=False):
                await self.client.chat_update(channel=thread.channel_id, ts=ts, text=text,
                                              blocks=blocks)
            for blocks in parts[len(pages):]:
                resp = await self.client.chat_postMessage(
                    channel=thread.channel_id, thread_ts=thread.thread_id or None, text=text,
                    blocks=blocks, unfurl_links=False, unfurl_media=False)
                pages.append(str(resp["ts"]))
            for ts in pages[len(parts):]:  # the card needs fewer pages now
                await self.client.chat_update(
                    channel=thread.channel_id, ts=ts, text=text,
                    blocks=[{"type": "context", "elements": [{
                        "type": "mrkdwn", "text": "This page of the card is now shown above."}]}])
            _PAGES.remember(thread.channel_id, pages)
        except SlackApiError as exc:
            raise _map_error(exc) from exc

    async def ephemeral(self, thread: ThreadRef, user: UserRef, text: str) -> None:
        """Only `user` sees it: through the slash command's response_url when this surface
        has one, else chat.postEphemeral (in the thread when there is one)."""
        text = slack_text(text)
        try:
            for chunk in split_text(text, SECTION_TEXT_MAX) or [" "]:
                if self.response_url and user.user_id == self.private_user:
                    try:
                        await self._respond(to_mrkdwn(chunk), None)
                        continue
                    except Exception as exc:  # noqa: BLE001 - expired / unreachable URL
                        log.warning("response_url failed (%s): using chat.postEphemeral",
                                    type(exc).__name__)
                await self.client.chat_postEphemeral(
                    channel=thread.channel_id, user=user.user_id, text=clip(to_mrkdwn(chunk), 3000),
                    thread_ts=thread.thread_id or None)
        except SlackApiError as exc:
            raise _map_error(exc) from exc

    async def ephemeral_message(self, thread: ThreadRef, user: UserRef, msg: Any) -> None:
        """Like `ephemeral`, with the message's cards, buttons and selects (Block Kit)."""
        text = fallback_text(msg)
        try:
            for blocks in render(msg):
                if self.response_url and user.user_id == self.private_user:
                    try:
                        await self._respond(text, blocks)
                        continue
                    except Exception as exc:  # noqa: BLE001 - expired / unreachable URL
                        log.warning("response_url failed (%s): using chat.postEphemeral",
                                    type(exc).__name__)
                await self.client.chat_postEphemeral(
                    channel=thread.channel_id, user=user.user_id, text=clip(text, 3000),
                    blocks=blocks, thread_ts=thread.thread_id or None)
        except SlackApiError as exc:
            raise _map_error(exc) from exc

    async def create_thread(self, channel_ref: ThreadRef, title: str,
                            first_message_id: str) -> ThreadRef:
        """Slack threads hang off a message: the thread id is that message's ts."""
        return channel_ref.in_thread(first_message_id)


NOT_IN_CHANNEL = ("I can't post in this channel. Invite me first (`/invite @FanVise`) or use "
                  "me in a channel I'm in.")


class SlackCommandSurface(SlackSurface):
    """A surface for one `/fanvise` conversation command. bot/core calls `start_thread` only
    once it accepts the request, so a refusal (bad input, rate limit) leaves no orphan
    root message in the channel; refusals go to the user through the command's
    `response_url` (which works even where FanVise was not invited)."""

    def __init__(self, client: AsyncWebClient, *, header: str, user_id: str,
                 response_url: str | None = None,
                 on_thread: Callable[[str], Awaitable[Any]] | None = None,
                 asked: str = "") -> None:
        super().__init__(client)
        self.header = header
        self.asked = asked  # the command's text: private, never in the root
        self.user_id = user_id
        self.response_url = response_url or None
        self.on_thread = on_thread
        self.started: ThreadRef | None = None

    async def start_thread(self, channel_ref: ThreadRef, title: str) -> ThreadRef:
        """Post the thread's root: what the conversation is, as Slack threads have no title
        ("*Matchup review · Hoop Dreamers* · `/fanvise optimize`", "*Question* · `/fanvise
        ask`"), never a public "<user> asked" line (the card in the thread mentions its
        requester) nor the command's text (`quiet_title`: private on Slack)."""
        if channel_ref.thread_id:
            return channel_ref
        text = self.header
        title = quiet_title(title, self.asked)
        if title:
            text = f"*{to_mrkdwn(slack_text(clip(title, 150)))}*"
            if title.rpartition(" · ")[2] not in self.header:
                text += f" · {self.header}"
        try:
            root = await self.client.chat_postMessage(channel=channel_ref.channel_id,
                                                      text=text)
        except SlackApiError as exc:
            error = exc.response.get("error")
            if error in ("not_in_channel", "channel_not_found", "is_archived",
                         "restricted_action"):
                await self.ephemeral(channel_ref, UserRef("slack", self.user_id), NOT_IN_CHANNEL)
                raise Refused(f"cannot post: {error}") from exc
            raise _map_error(exc) from exc
        self.started = channel_ref.in_thread(str(root["ts"]))
        if self.on_thread is not None:
            await self.on_thread(self.started.conversation_id)
        return self.started

    async def ephemeral(self, thread: ThreadRef, user: UserRef, text: str) -> None:
        """The command's user hears back through its response_url (falling back to
        chat.postEphemeral when it expired); others as usual."""
        if self.response_url and user.user_id == self.user_id:
            text = slack_text(text)
            try:
                for chunk in split_text(text, SECTION_TEXT_MAX) or [" "]:
                    await self._respond(to_mrkdwn(chunk), None)
                return
            except Exception as exc:  # noqa: BLE001 - expired / unreachable response_url
                log.warning("response_url failed (%s): using chat.postEphemeral",
                            type(exc).__name__)
        await super().ephemeral(thread, user, text)

    async def ephemeral_message(self, thread: ThreadRef, user: UserRef, msg: Any) -> None:
        """Through the command's response_url for its user (chat.postEphemeral when that
        fails), like `ephemeral`."""
        if self.response_url and user.user_id == self.user_id:
            try:
                for blocks in render(msg):
                    await self._respond(fallback_text(msg), blocks)
                return
            except Exception as exc:  # noqa: BLE001 - expired / unreachable response_url
                log.warning("response_url failed (%s): using chat.postEphemeral",
                            type(exc).__name__)
        await super().ephemeral_message(thread, user, msg)


SHARE_ACTION = "fvshare"
#: "Post to channel" under a private answer: fvshare:<share id>
SHARE_ACTION_PATTERN = re.compile(r"^fvshare:[0-9a-f]{12}$")


def share_block(share_id: str) -> dict[str, Any]:
    """The actions block with the "Post to channel" button of a private answer."""
    return {"type": "actions", "block_id": "fvshare", "elements": [{
        "type": "button", "action_id": f"{SHARE_ACTION}:{share_id}", "value": share_id,
        "text": {"type": "plain_text", "emoji": True, "text": "Post to channel"}}]}


def without_share(blocks: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """A private answer's blocks without its "Post to channel" button."""
    return [b for b in blocks or [] if b.get("block_id") != "fvshare"]


class SlackPersonalSurface(SlackSurface):
    """A personal command's surface (`Command.personal`: /fanvise matchup, lineup, player),
    and a click on a button of such a private answer (`clicked_ts`: that message).
    The answer is private: no thread and no "asked" line (`start_thread` returns the
    channel). Slack edits an ephemeral message only through a `response_url`, which takes
    5 posts, so nothing is shown while the core works: the messages it posts and edits are
    kept, the live progress message dropped, and `flush` sends the answer at the end,
    privately (the clicked message redrawn in place), a personal command's with a "Post to
    channel" button (`SharedAnswers`). Refusals (`ephemeral`) go out at once."""

    def __init__(self, client: AsyncWebClient, user_id: str, response_url: str | None, *,
                 clicked_ts: str = "") -> None:
        super().__init__(client, private_user=user_id, response_url=response_url)
        self.clicked_ts = clicked_ts
        self._held: dict[str, Any] = {}  # message id -> its latest state, in posting order
        self._count = 0
        #: after the first `flush`, later posts and edits are sent at once
        self.flushed = False

    async def start_thread(self, channel_ref: ThreadRef, title: str) -> ThreadRef:
        """No thread: a private answer stays where it was asked."""
        return channel_ref

    async def create_thread(self, channel_ref: ThreadRef, title: str,
                            first_message_id: str) -> ThreadRef:
        raise NotImplementedError("a personal answer starts no thread")

    async def post(self, thread: ThreadRef, msg: Any) -> str:
        self._count += 1
        mid = f"private-{self._count}"
        self._held[mid] = msg
        if self.flushed:
            await self.flush(thread)
        return mid

    async def edit(self, thread: ThreadRef, message_id: str, msg: Any) -> None:
        if message_id not in self._held and self.clicked_ts and (
                message_id.startswith("private-") or message_id == self.clicked_ts):
            # a message of an earlier private answer (its id is this surface's kind, not a
            # Slack ts) can only be the one clicked: redrawn in place
            message_id = self.clicked_ts
        elif message_id not in self._held:
            raise MessageGone(message_id)
        self._held[message_id] = msg
        if self.flushed:  # the core goes on after its handler returned (a decision applied)
            await self.flush(thread)

    async def find_messages(self, thread: ThreadRef, msg: Any, since: float) -> list[str]:
        return []  # nothing is posted before `flush`

    def answer(self) -> list[tuple[str, Any]]:
        """(id, message) of the answer, in order (the progress message left out)."""
        return [(mid, m) for mid, m in self._held.items() if not is_progress(m)]

    async def flush(self, thread: ThreadRef, shares: SharedAnswers | None = None,
                    command: str = "") -> None:
        """Send the answer privately; with `shares`, "Post to channel" under its last
        message."""
        messages = [(mid, fallback_text(m), blocks)
                    for mid, m in ((mid, slack_message(m)) for mid, m in self.answer())
                    for blocks in render(m)]
        self._held.clear()
        self.flushed = True
        if not messages:
            return
        if shares is not None:
            shared = await shares.keep(
                self.private_user or "", thread.channel_id, command,
                [{"text": t, "blocks": b} for _, t, b in messages])
            mid, last_text, last = messages[-1]
            if len(last) < BLOCKS_MAX:
                messages[-1] = (mid, last_text, [*last, share_block(shared.share_id)])
            else:
                messages.append(("", "Post to channel", [share_block(shared.share_id)]))
        for mid, text, blocks in messages:
            await self._send_private(thread, text, blocks,
                                     replace=bool(mid) and mid == self.clicked_ts)

    async def _send_private(self, thread: ThreadRef, text: str,
                            blocks: list[dict[str, Any]], *, replace: bool = False) -> None:
        """Through the response_url; chat.postEphemeral when it fails."""
        if self.response_url:
            try:
                await self._respond(text, blocks, replace=replace)
                return
            except Exception as exc:  # noqa: BLE001 - expired / used-up response_url
                log.warning("response_url failed (%s): using chat.postEphemeral",
                            type(exc).__name__)
        try:
            await self.client.chat_postEphemeral(channel=thread.channel_id,
                                                 user=self.private_user or "", text=text,
                                                 blocks=blocks)
        except SlackApiError as exc:
            raise _map_error(exc) from exc
