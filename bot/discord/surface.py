"""ChatSurface for Discord: post / edit / ephemeral / create_thread with the bot token.

A surface bound to an interaction can also answer privately (ephemeral followups); that is
the only way Discord shows a message to one user. Platform errors are mapped to the core's:
429 beyond discord.py's own retry -> RateLimitedError, Unknown Message/Channel/Webhook ->
MessageGone.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.core.errors import ChatError, MessageGone, RateLimitedError
from bot.core.models import ThreadRef, UserRef
from bot.discord.render import CONTENT_MAX, clip, render, render_edit, split_text

log = logging.getLogger(__name__)

# Discord JSON error codes meaning "this target no longer exists".
GONE_CODES = {10003, 10008, 10015, 50083}  # unknown channel/message/webhook, archived thread
THREAD_NAME_MAX = 100


def target_id(thread: ThreadRef) -> int:
    """The channel a ThreadRef posts into: the thread if any, else the channel."""
    return int(thread.thread_id or thread.channel_id)


def _map_errors(exc: Exception) -> Exception:
    if isinstance(exc, discord.RateLimited):
        return RateLimitedError(exc.retry_after)
    if isinstance(exc, discord.HTTPException):
        if exc.status == 429:
            retry = getattr(exc.response, "headers", {}).get("Retry-After", "1")
            return RateLimitedError(float(retry))
        if isinstance(exc, discord.NotFound) or exc.code in GONE_CODES:
            return MessageGone(str(exc.text or "Unknown Message"))
    return exc


class DiscordSurface:
    """Draws the core's messages in Discord. One per bot; `for_interaction` binds one
    interaction so `ephemeral` (and, when `private`, `post`) answer only the user."""

    max_text = CONTENT_MAX

    def __init__(self, client: discord.Client, interaction: discord.Interaction | None = None,
                 *, private: bool = False) -> None:
        self.client = client
        self.interaction = interaction
        self.private = private and interaction is not None

    def for_interaction(self, interaction: discord.Interaction, *,
                        private: bool = False) -> DiscordSurface:
        """A surface whose ephemeral replies (and posts, if `private`) go to this interaction."""
        return DiscordSurface(self.client, interaction, private=private)

    async def post(self, thread: ThreadRef, msg: Any) -> str:
        """Send `msg` (split at 2000 chars, cards as embeds); returns the last message's id."""
        parts = render(msg, max_text=self.max_text)
        last: discord.Message | discord.WebhookMessage | None = None
        try:
            for part in parts:
                if self.private:
                    assert self.interaction is not None
                    last = await self.interaction.followup.send(
                        ephemeral=True, wait=True, **_followup_kwargs(part.kwargs()))
                else:
                    channel = self.client.get_partial_messageable(target_id(thread))
                    last = await channel.send(**part.kwargs())
        except (discord.HTTPException, discord.RateLimited) as exc:
            raise _map_errors(exc) from exc
        assert last is not None
        return str(last.id)

    async def edit(self, thread: ThreadRef, message_id: str, msg: Any) -> None:
        """Replace one message's text, embeds and buttons (disabled buttons stay drawn)."""
        part = render_edit(msg, max_text=self.max_text)
        try:
            if self.private:
                assert self.interaction is not None
                await self.interaction.followup.edit_message(int(message_id), **part.kwargs())
            else:
                channel = self.client.get_partial_messageable(target_id(thread))
                await channel.get_partial_message(int(message_id)).edit(**part.kwargs())
        except (discord.HTTPException, discord.RateLimited) as exc:
            raise _map_errors(exc) from exc

    async def ephemeral(self, thread: ThreadRef, user: UserRef, text: str) -> None:
        """Only `user` sees `text` (interaction response/followup). Without an interaction
        (a plain thread message) Discord has no private reply: mention the user in the thread."""
        interaction = self.interaction
        try:
            if interaction is not None and not interaction.is_expired():
                for chunk in split_text(text, self.max_text):
                    if not interaction.response.is_done():
                        await interaction.response.send_message(chunk, ephemeral=True)
                    else:
                        await interaction.followup.send(chunk, ephemeral=True)
                return
            channel = self.client.get_partial_messageable(target_id(thread))
            await channel.send(clip(f"<@{user.user_id}> {text}", self.max_text),
                               allowed_mentions=discord.AllowedMentions(
                                   everyone=False, roles=False,
                                   users=[discord.Object(int(user.user_id))]))
        except (discord.HTTPException, discord.RateLimited) as exc:
            raise _map_errors(exc) from exc

    async def create_thread(self, channel_ref: ThreadRef, title: str,
                            first_message_id: str) -> ThreadRef:
        """Start a public thread on message `first_message_id` of the channel."""
        try:
            data = await self.client.http.start_thread_with_message(
                int(channel_ref.channel_id), int(first_message_id),
                name=clip(title or "FanVise", THREAD_NAME_MAX), auto_archive_duration=1440,
                rate_limit_per_user=None)
        except discord.Forbidden as exc:  # no thread permissions: the core stays in the channel
            raise ChatError("missing permission to create threads") from exc
        except (discord.HTTPException, discord.RateLimited) as exc:
            raise _map_errors(exc) from exc
        return ThreadRef("discord", channel_ref.workspace_id, channel_ref.channel_id,
                         str(data["id"]))


def _followup_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    out = dict(kwargs)
    if out.get("content") is None:
        out.pop("content")
    return out
