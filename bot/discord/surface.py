"""ChatSurface for Discord: post / edit / ephemeral / create_thread / pin with the bot token.

A surface bound to an interaction can also answer privately (ephemeral followups); that is
the only way Discord shows a message to one user. Platform errors are mapped to the core's:
429 beyond discord.py's own retry -> RateLimitedError, Unknown Message/Channel/Webhook ->
MessageGone.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import discord

from bot.core.errors import ChatError, MessageGone, RateLimitedError, Refused
from bot.core.models import ThreadRef, UserRef
from bot.core.surface import quiet_title
from bot.discord.render import CONTENT_MAX, clip, render, render_edit, split_text

log = logging.getLogger(__name__)

# Discord JSON error codes meaning "this target no longer exists".
GONE_CODES = {10003, 10008, 10015, 50027, 50083}  # unknown channel/message/webhook, invalid
# webhook token (an interaction token Discord no longer accepts), archived thread
DEAD_TOKEN_CODES = {10015, 50027}  # unknown webhook / invalid webhook token
THREAD_NAME_MAX = 100
NO_THREAD_PERMISSION = ("I can't start a thread here. I need the View Channel, Send Messages, "
                        "Create Private Threads, Create Public Threads and Send Messages in "
                        "Threads permissions in "
                        "this channel.")


def card_page(client: Any, message_id: str) -> int:
    """The page of a paginated move card a member last turned to in this message (0: the
    first; kept by the bot while it runs, so the core's redraws stay on that page)."""
    pages = getattr(client, "card_pages", None)
    return int(pages.get(str(message_id), 0)) if isinstance(pages, dict) else 0


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
                 *, private: bool = False, root: discord.Message | None = None,
                 thread_title: str = "") -> None:
        self.client = client
        self.interaction = interaction
        self.private = private and interaction is not None
        self.root = root  # the command's response ("<user> asked: ..."): threads start on it
        self.thread_title = thread_title
        self.posted = 0  # public messages posted through this surface
        self.said = False  # something was said privately to the interaction's user
        self.started: ThreadRef | None = None

    def for_interaction(self, interaction: discord.Interaction, *, private: bool = False,
                        root: discord.Message | None = None, thread_title: str = "",
                        personal: bool = False, conversation: bool = False) -> DiscordSurface:
        """A surface whose ephemeral replies (and posts, if `private`) go to this interaction.
        `conversation` (or a `root` message to start the thread on): a DiscordCommandSurface,
        which offers `start_thread` to the core; `personal`: a DiscordPersonalSurface (the
        whole answer is private, in the channel, no thread)."""
        if personal:
            return DiscordPersonalSurface(self.client, interaction, private=True)
        cls = DiscordCommandSurface if conversation or root is not None else DiscordSurface
        return cls(self.client, interaction, private=private, root=root,
                   thread_title=thread_title)

    def public(self) -> DiscordSurface:
        """This interaction's surface posting publicly, with a conversation thread of its
        own (bot.core.link.resume: the question a link request interrupted, answered
        after the link click)."""
        return DiscordCommandSurface(self.client, self.interaction, private=False)

    def _private_in(self, thread: ThreadRef) -> bool:
        """Private surfaces answer privately, except in the thread they started (a
        conversation a click on a private answer opened: "Look for moves")."""
        return self.private and not (self.started is not None
                                     and thread.thread_id == self.started.thread_id)

    async def post(self, thread: ThreadRef, msg: Any) -> str:
        """Send `msg` (split at 2000 chars, cards as embeds); returns the last message's id."""
        parts = render(msg, max_text=self.max_text)
        last: discord.Message | discord.WebhookMessage | None = None
        try:
            for part in parts:
                if self._private_in(thread):
                    assert self.interaction is not None
                    last = await self.interaction.followup.send(
                        ephemeral=True, wait=True, **_followup_kwargs(part.kwargs()))
                else:
                    channel = self.client.get_partial_messageable(target_id(thread))
                    last = await channel.send(**part.kwargs())
                    self.posted += 1
        except (discord.HTTPException, discord.RateLimited) as exc:
            raise _map_errors(exc) from exc
        assert last is not None
        return str(last.id)

    async def edit(self, thread: ThreadRef, message_id: str, msg: Any) -> None:
        """Replace one message's text, embeds and buttons (disabled buttons stay drawn)."""
        part = render_edit(msg, max_text=self.max_text, page=card_page(self.client, message_id))
        try:
            if self._private_in(thread):
                assert self.interaction is not None
                own = self.interaction.message
                if own is not None and str(own.id) == str(message_id):
                    # a click on a private message: its own token edits that message
                    await self.interaction.edit_original_response(**part.kwargs(edit=True))
                else:
                    await self.interaction.followup.edit_message(int(message_id),
                                                                 **part.kwargs(edit=True))
            else:
                channel = self.client.get_partial_messageable(target_id(thread))
                await channel.get_partial_message(int(message_id)).edit(**part.kwargs(edit=True))
        except (discord.HTTPException, discord.RateLimited) as exc:
            raise _map_errors(exc) from exc

    async def find_messages(self, thread: ThreadRef, msg: Any, since: float) -> list[str]:
        """Ids of this bot's messages in the thread posted since `since` (Unix time, a few
        seconds of clock skew allowed) whose text is `msg`'s as `post` sends it, newest
        first: a message whose id a crash lost (bot.core.approvals)."""
        text = render(msg, max_text=self.max_text)[0].kwargs().get("content") or ""
        me = self.client.user
        channel = self.client.get_partial_messageable(target_id(thread))
        after = discord.Object(discord.utils.time_snowflake(
            datetime.fromtimestamp(since - 5.0, UTC)))
        found: list[int] = []
        try:
            async for m in channel.history(limit=100, after=after):
                if me is not None and m.author.id == me.id and m.content == text:
                    found.append(m.id)
        except (discord.HTTPException, discord.RateLimited) as exc:
            raise _map_errors(exc) from exc
        return [str(i) for i in sorted(found, reverse=True)]

    async def delete_message(self, thread: ThreadRef, message_id: str) -> bool:
        """Delete a message in the thread (a member's message needs Manage Messages);
        False when Discord refuses or it is already gone."""
        try:
            channel = self.client.get_partial_messageable(target_id(thread))
            await channel.get_partial_message(int(message_id)).delete()
            return True
        except (discord.HTTPException, ValueError) as exc:
            log.warning("could not delete a message (%s)", type(exc).__name__)
            return False

    async def ephemeral(self, thread: ThreadRef, user: UserRef, text: str) -> None:
        """Only `user` sees `text` (interaction response/followup). Without an interaction
        (a plain thread message), or when Discord rejects an expired interaction token, there is
        no private reply: mention the user in the thread."""
        interaction = self.interaction
        try:
            if interaction is not None and not interaction.is_expired():
                try:
                    self.said = True
                    for chunk in split_text(text, self.max_text):
                        if not interaction.response.is_done():
                            await interaction.response.send_message(chunk, ephemeral=True)
                        else:
                            await interaction.followup.send(chunk, ephemeral=True)
                    return
                except discord.HTTPException as exc:  # token rejected before its 15 min
                    if exc.code not in DEAD_TOKEN_CODES:
                        raise
                    log.warning("interaction token rejected (%s): replying in the channel",
                                exc.code)
            channel = self.client.get_partial_messageable(target_id(thread))
            await channel.send(clip(f"<@{user.user_id}> {text}", self.max_text),
                               allowed_mentions=discord.AllowedMentions(
                                   everyone=False, roles=False,
                                   users=[discord.Object(int(user.user_id))]))
        except (discord.HTTPException, discord.RateLimited) as exc:
            raise _map_errors(exc) from exc

    async def ephemeral_message(self, thread: ThreadRef, user: UserRef, msg: Any) -> None:
        """Like `ephemeral`, with the message's cards and buttons (e.g. "Link Hoop
        Dreamers"). Without a live interaction: in the thread, mentioning the user."""
        interaction = self.interaction
        try:
            if interaction is not None and not interaction.is_expired():
                self.said = True
                for part in render(msg, max_text=self.max_text):
                    kwargs = _followup_kwargs(part.kwargs())
                    if not interaction.response.is_done():
                        await interaction.response.send_message(ephemeral=True, **kwargs)
                    else:
                        await interaction.followup.send(ephemeral=True, **kwargs)
                return
            channel = self.client.get_partial_messageable(target_id(thread))
            mention = discord.AllowedMentions(everyone=False, roles=False,
                                              users=[discord.Object(int(user.user_id))])
            for i, part in enumerate(render(msg, max_text=self.max_text)):
                kwargs = part.kwargs()
                if i == 0:
                    kwargs["content"] = clip(f"<@{user.user_id}> {kwargs.get('content') or ''}",
                                             self.max_text)
                await channel.send(allowed_mentions=mention, **kwargs)
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
        remember = getattr(self.client, "remember_thread", None)
        if remember is not None:  # follow-ups in it continue a conversation (e.g. a digest's)
            remember(SimpleNamespace(id=int(data["id"]),
                                     parent_id=int(data.get("parent_id") or
                                                   channel_ref.channel_id)))
        return ThreadRef("discord", channel_ref.workspace_id, channel_ref.channel_id,
                         str(data["id"]))

    async def pin(self, thread: ThreadRef, message_id: str) -> bool:
        """Pin a message of the channel (discord.py's PartialMessage.pin). False when Discord
        refuses (the bot may not pin in this channel, or the channel's pins are full)."""
        channel = self.client.get_partial_messageable(target_id(thread))
        try:
            await channel.get_partial_message(int(message_id)).pin(reason="FanVise daily digest")
        except discord.Forbidden:
            log.warning("missing permission to pin in channel %s", thread.channel_id)
            return False
        except (discord.HTTPException, discord.RateLimited) as exc:
            mapped = _map_errors(exc)
            if isinstance(mapped, (RateLimitedError, MessageGone)):
                raise mapped from exc
            log.warning("could not pin a message (%s)", type(exc).__name__)
            return False
        return True


class DiscordCommandSurface(DiscordSurface):
    """A conversation command's surface: bot/core calls `start_thread` only once it accepts
    the request, so a refusal leaves no empty thread. The thread starts without a starter
    message (no public "<user> asked" line; with `root`, on that message instead); the asker
    is added to it and told privately where the answer is."""

    #: the command as the member typed it ("/ask is brunson playing?"): never shown
    asked: str = ""

    async def start_thread(self, channel_ref: ThreadRef, title: str) -> ThreadRef:
        """Called by bot/core once the request is accepted: open the conversation thread
        (DMs have no threads: the DM is the conversation). Without thread permissions the
        user is told privately and the request ends (Refused).

        The thread is private (the asker is added to it): a public thread without a starter
        message shows "FanVise started a thread: <name>" in the channel. Its name says what
        the conversation is and whose, never what was asked (`quiet_title`): "Matchup
        review · Hoop Dreamers", "Question · alice"; the adapter's `thread_title` (the
        command's name) only when the core gives none. On a `root` message (the member's
        own public message) the thread is public."""
        if channel_ref.thread_id or channel_ref.workspace_id == "@me":
            return channel_ref
        name = quiet_title(title or self.thread_title or "FanVise", self.asked)
        asker = getattr(getattr(self.interaction, "user", None), "display_name", "")
        if " · " not in name and asker:
            name = f"{name} · {asker}"
        name = clip(name, THREAD_NAME_MAX)
        try:
            if self.root is not None:
                created: Any = await self.root.create_thread(name=name,
                                                             auto_archive_duration=1440)
            else:
                data = await self.client.http.start_thread_without_message(
                    int(channel_ref.channel_id), name=name, auto_archive_duration=1440,
                    type=discord.ChannelType.private_thread.value)
                created = SimpleNamespace(id=int(data["id"]), parent_id=int(
                    data.get("parent_id") or channel_ref.channel_id))
        except discord.Forbidden as exc:
            log.warning("missing permissions to start a thread in channel %s",
                        channel_ref.channel_id)
            await self.ephemeral(channel_ref, UserRef("discord", "0"), NO_THREAD_PERMISSION)
            raise Refused("missing permission to create threads") from exc
        except (discord.HTTPException, discord.RateLimited) as exc:
            raise _map_errors(exc) from exc
        remember = getattr(self.client, "remember_thread", None)
        if remember is not None:
            remember(created)
        self.started = ThreadRef("discord", channel_ref.workspace_id,
                                 str(created.parent_id or channel_ref.channel_id),
                                 str(created.id))
        await self._invite(int(created.id))
        return self.started

    async def _invite(self, thread_id: int) -> None:
        """Add the asker to the new thread (it shows in their list and notifies them) and
        tell them privately where the answer is."""
        interaction = self.interaction
        if interaction is None:
            return
        try:
            await self.client.http.add_user_to_thread(thread_id, interaction.user.id)
        except discord.HTTPException as exc:
            log.warning("could not add the asker to thread %s (%s)", thread_id,
                        type(exc).__name__)
        pointer = f"Answering in <#{thread_id}>."
        try:
            if interaction.type == discord.InteractionType.component \
                    or not interaction.response.is_done():
                await interaction.followup.send(pointer, ephemeral=True)
            else:  # the command's own private "thinking…" becomes the pointer
                await interaction.edit_original_response(content=pointer)
            self.said = True
        except discord.HTTPException as exc:
            log.warning("could not say where the answer is (%s)", type(exc).__name__)


class DiscordPersonalSurface(DiscordSurface):
    """A personal command's surface (`Command.personal`): everything is an ephemeral
    followup, no thread is started, and the last message posted or edited (the answer) is
    remembered so the adapter can add "Post to channel" under it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.answer_id = ""
        self.answer: Any = None

    async def start_thread(self, channel_ref: ThreadRef, title: str) -> ThreadRef:
        """No thread: a private answer stays where it was asked."""
        return channel_ref

    async def create_thread(self, channel_ref: ThreadRef, title: str,
                            first_message_id: str) -> ThreadRef:
        raise NotImplementedError("a personal answer starts no thread")

    async def post(self, thread: ThreadRef, msg: Any) -> str:
        mid = await super().post(thread, msg)
        self.answer_id, self.answer = mid, msg
        return mid

    async def edit(self, thread: ThreadRef, message_id: str, msg: Any) -> None:
        await super().edit(thread, message_id, msg)
        if message_id == self.answer_id:
            self.answer = msg


def _followup_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    out = dict(kwargs)
    if out.get("content") is None:
        out.pop("content", None)
    return out
