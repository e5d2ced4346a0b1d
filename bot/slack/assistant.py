"""Slack's AI assistant features (slack-bolt's `AsyncAssistant`): FanVise in the assistant
side panel and its DM threads.

- `assistant_thread_started`: a greeting and suggested prompts;
- a user's message in an assistant thread: the thread's title from the first question, the
  status ("is thinking…", with the core's progress steps as loading messages) while the
  core works, then the answer. The message goes to the same `ChatCore.handle_message` as
  any thread reply; only the surface differs (`SlackAssistantSurface`).
- A long text answer is streamed (slack-sdk's `chat_stream`: chat.startStream /
  appendStream / stopStream). Where streaming is unavailable (an older workspace, a
  missing scope) or fails, the answer grows by `chat.update` instead.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncAssistant
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.models import ThreadRef, UserRef
from bot.core.timestamps import to_utc_text
from bot.slack.render import (
    card_blocks,
    clip,
    fallback_text,
    is_progress,
    neutralize_mentions,
    split_text,
    to_mrkdwn,
)
from bot.slack.surface import SlackSurface, _map_error, slack_message

log = logging.getLogger(__name__)

#: what the assistant panel offers before the first question (title, message)
SUGGESTED_PROMPTS: tuple[tuple[str, str], ...] = (
    ("Am I winning this week?", "How is my matchup going this week?"),
    ("Who do I start tomorrow?", "Who should I start tomorrow?"),
    ("Moves for this week", "Review my matchup and suggest moves"),
    ("Injuries on my team", "Is anyone on my team hurt?"),
)
GREETING = ("Hi! Ask me about your fantasy league: your matchup, who to start, injuries, "
            "free agents and moves to make this week.")
THINKING_STATUS = "is thinking…"
TITLE_MAX = 60
#: answers at least this long are streamed; shorter ones are posted at once
STREAM_MIN_CHARS = 600
#: how much of the answer each append (or fallback edit) adds
STREAM_CHUNK = 400
#: errors that mean this workspace or token cannot stream: stop trying for this process
_NO_STREAMING = {"unknown_method", "not_allowed_token_type", "missing_scope",
                 "method_deprecated", "feature_not_enabled", "not_allowed"}
#: the id the core gets for its progress message (shown as the assistant's status)
STATUS_ID = "assistant-status"

SetStatus = Callable[..., Awaitable[Any]]


class SlackAssistantSurface(SlackSurface):
    """An assistant thread as the core sees it. The core's progress message becomes the
    assistant's status (no message is posted for it); its final state, the answer, is
    posted in the thread: streamed when it is a long text, else as Block Kit."""

    #: workspaces where Slack said streaming is unavailable (not tried again this process)
    no_streaming: set[str] = set()

    def __init__(self, client: AsyncWebClient, *, team_id: str, user_id: str,
                 set_status: SetStatus) -> None:
        super().__init__(client)
        self.team_id = team_id
        self.user_id = user_id
        self.set_status = set_status

    async def post(self, thread: ThreadRef, msg: Any) -> str:
        if is_progress(msg):
            await self._status(msg)
            return STATUS_ID
        return await self.answer(thread, msg)

    async def edit(self, thread: ThreadRef, message_id: str, msg: Any) -> None:
        if message_id != STATUS_ID:
            await super().edit(thread, message_id, msg)
        elif is_progress(msg):
            await self._status(msg)
        else:
            await self.answer(thread, msg)

    async def _status(self, msg: Any) -> None:
        steps = [line[2:].strip() for line in str(msg.text).splitlines() if line.strip()]
        try:
            await self.set_status(THINKING_STATUS,
                                  loading_messages=[clip(s, 100) for s in steps[-1:]] or None)
        except SlackApiError as exc:
            raise _map_error(exc) from exc

    async def answer(self, thread: ThreadRef, msg: Any) -> str:
        """Post an answer in the thread (posting it ends the status): a long text streamed,
        anything else (short, or with a card other than buttons) as Block Kit."""
        msg = slack_message(msg)
        cards = list(getattr(msg, "cards", None) or [])
        text = msg.text or ""
        if len(text) < STREAM_MIN_CHARS or any(c.fields or c.selects for c in cards):
            return await super().post(thread, msg)
        blocks = [b for c in cards for b in card_blocks(c)][:50]
        markdown = to_utc_text(neutralize_mentions(text, tuple(msg.mentions or ())))
        chunks = split_text(markdown, STREAM_CHUNK)
        ts = ""
        if self.team_id not in self.no_streaming:
            ts, done = await self._stream(thread, chunks, blocks)
            if done:
                return ts
            if ts:  # the stream broke off: its message gets the whole answer at once
                chunks = ["\n".join(chunks)]
        return await self._grow_by_updates(thread, msg, chunks, blocks, ts)

    async def _stream(self, thread: ThreadRef, chunks: list[str],
                      blocks: list[dict[str, Any]]) -> tuple[str, bool]:
        """(the message's ts, True) once streamed; ("" or the ts of a stream that broke
        off, False) when streaming is unavailable or failed."""
        ts = ""
        try:
            streamer = await self.client.chat_stream(
                channel=thread.channel_id, thread_ts=thread.thread_id,
                recipient_team_id=self.team_id or None, recipient_user_id=self.user_id,
                buffer_size=STREAM_CHUNK // 2)  # each append is sent
            for k, chunk in enumerate(chunks):
                sent = await streamer.append(markdown_text=chunk + ("\n" if k < len(chunks) - 1
                                                                    else ""))
                if sent is not None:  # None while the chunk waits in the buffer
                    ts = ts or str(sent.get("ts") or "")
            stopped = await streamer.stop(blocks=blocks or None)
            return ts or str(stopped.get("ts") or ""), True
        except SlackApiError as exc:
            error = str(exc.response.get("error") or "")
            if error in _NO_STREAMING:
                self.no_streaming.add(self.team_id)
            log.warning("streaming the answer failed (%s): using chat.update",
                        error or exc.response.status_code)
        except Exception as exc:  # noqa: BLE001 - a network error mid-stream
            log.warning("streaming the answer failed (%s): using chat.update",
                        type(exc).__name__)
        return ts, False

    async def _grow_by_updates(self, thread: ThreadRef, msg: Any, chunks: list[str],
                               blocks: list[dict[str, Any]], ts: str) -> str:
        """The answer without streaming: its first part posted (unless a stream that broke
        off already shows some), then `chat.update` with more of it until it is whole."""
        try:
            shown = ""
            for k, chunk in enumerate(chunks):
                shown = f"{shown}\n{chunk}" if shown else chunk
                whole = k == len(chunks) - 1
                text = to_mrkdwn(shown, mentions=tuple(msg.mentions or ()))
                parts = [{"type": "section", "text": {"type": "mrkdwn", "text": part}}
                         for part in split_text(text, 3000)]
                parts = (parts + (blocks if whole else []))[:50]
                body = fallback_text(msg) if whole else clip(text, 3000)
                if not ts:
                    resp = await self.client.chat_postMessage(
                        channel=thread.channel_id, thread_ts=thread.thread_id, text=body,
                        blocks=parts, unfurl_links=False, unfurl_media=False)
                    ts = str(resp["ts"])
                else:
                    await self.client.chat_update(channel=thread.channel_id, ts=ts,
                                                  text=body, blocks=parts)
        except SlackApiError as exc:
            raise _map_error(exc) from exc
        return ts


def thread_title(question: str) -> str:
    """The thread's title in the assistant's history: the first question, shortened."""
    return clip(" ".join((question or "").split()), TITLE_MAX) or "FanVise"


def build_assistant(core: Any, *, user_ref: Callable[[str], UserRef],
                    first_seen: Callable[[str], Awaitable[bool]],
                    threads: Any, fail: Callable[..., Awaitable[None]]) -> AsyncAssistant:
    """The `AsyncAssistant` middleware for `app.use(...)`: suggested prompts when a thread
    starts, then each message through `core.handle_message` with title and status."""
    assistant = AsyncAssistant()

    @assistant.thread_started
    async def started(say: Any, set_suggested_prompts: Any) -> None:
        await say(GREETING)
        await set_suggested_prompts(
            prompts=[{"title": t, "message": m} for t, m in SUGGESTED_PROMPTS],
            title="Try asking")

    @assistant.user_message
    async def message(body: dict[str, Any], payload: dict[str, Any], client: AsyncWebClient,
                      set_status: Any, set_title: Any) -> None:
        if not await first_seen(body.get("event_id", "")):
            return
        team = body.get("team_id") or payload.get("team", "")
        thread = ThreadRef("slack", team, payload["channel"], payload["thread_ts"])
        user = user_ref(payload.get("user", ""))
        text = (payload.get("text") or "").strip()
        surface = SlackAssistantSurface(client, team_id=team, user_id=user.user_id,
                                        set_status=set_status)
        try:
            if not await threads.known(thread.conversation_id):
                await threads.remember(thread.conversation_id)
                await set_title(thread_title(text))
            await set_status(THINKING_STATUS)
            await core.handle_message(surface, thread, user, text)
        except Exception as exc:  # noqa: BLE001
            await fail(surface, thread, user, "assistant message", exc)
        finally:
            try:
                await set_status("")  # cleared (posting an answer clears it too)
            except Exception:  # noqa: BLE001 - a nicety
                log.warning("could not clear the assistant status")

    return assistant


__all__ = ["SUGGESTED_PROMPTS", "SlackAssistantSurface", "build_assistant", "thread_title"]
