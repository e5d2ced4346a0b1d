"""Discord adapter (discord.py 2.x): slash commands, thread follow-ups and decision buttons.

The application commands are registered from the one command table (bot.core.commands):
names, descriptions, options, fixed choices and autocomplete (answered by the core's
`choices` providers: league players, the league's teams, days, time zones).

Thin by design: every event becomes one ChatCore call (handle_command / handle_message /
handle_click) with a ThreadRef, a UserRef and a DiscordSurface; all conversation logic lives
in bot/core. Conversations happen in a thread started from the slash command's response;
messages in threads the bot owns continue them.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from typing import Any

import discord
from discord import app_commands

from bot.core.buttons import is_share_id
from bot.core.commands import (
    COMMANDS,
    Command,
    Option,
    carries_credentials,
    command,
    invocation,
    options_to_args,
)
from bot.core.errors import Refused
from bot.core.models import ThreadRef, UserRef
from bot.core.surface import ready_note, slow
from bot.discord.items import FvButton, FvPage, FvSelect, FvShare
from bot.discord.render import clip, render_edit, shared_copy, with_share
from bot.discord.surface import (
    NO_THREAD_PERMISSION,
    DiscordCommandSurface,
    DiscordPersonalSurface,
    DiscordSurface,
)

log = logging.getLogger(__name__)


def thread_ref(guild_id: int | None, channel: Any) -> ThreadRef:
    """The core's ThreadRef for a Discord channel or thread (threads keep their parent)."""
    workspace = str(guild_id) if guild_id else "@me"
    if isinstance(channel, discord.Thread):
        return ThreadRef("discord", workspace, str(channel.parent_id), str(channel.id))
    return ThreadRef("discord", workspace, str(channel.id), "")


def user_ref(user: discord.abc.User, permissions: discord.Permissions | None) -> UserRef:
    """UserRef; is_admin = Manage Server permission in this guild."""
    return UserRef("discord", str(user.id), user.display_name,
                   is_admin=bool(permissions and permissions.manage_guild))


class FanViseDiscordBot(discord.Client):
    """discord.py client wired to a ChatCore."""

    def __init__(self, core: Any, *, guild_id: int | None = None, sync_commands: bool = True,
                 message_content: bool = True, **client_kwargs: Any) -> None:
        intents = discord.Intents.default()
        # Privileged: needed to read the text of follow-up messages in the bot's threads.
        intents.message_content = message_content
        client_kwargs.setdefault("max_ratelimit_timeout", 30.0)
        # Answers may quote text: never ping @everyone/@here or roles.
        client_kwargs.setdefault("allowed_mentions", discord.AllowedMentions(
            everyone=False, roles=False, users=True, replied_user=False))
        super().__init__(intents=intents, **client_kwargs)
        # discord.gateway logs every raw event at DEBUG, including /link's cookie options.
        gateway_log = logging.getLogger("discord.gateway")
        if gateway_log.getEffectiveLevel() < logging.INFO:
            gateway_log.setLevel(logging.INFO)
        self.core = core
        self.guild_id = guild_id
        self.sync_commands = sync_commands
        self.surface = DiscordSurface(self)
        self.tree = app_commands.CommandTree(self)
        self.tree.error(self._on_tree_error)
        _add_commands(self.tree)
        self._thread_owner: dict[int, tuple[int, int]] = {}  # thread id -> (owner, parent)
        self._lookups: dict[int, asyncio.Future[tuple[int, int]]] = {}
        #: message id -> the page of its move card a member turned to (bot.discord.layout)
        self.card_pages: dict[str, int] = {}

    async def setup_hook(self) -> None:
        """Route button clicks (also on cards sent before a restart) and sync commands."""
        self.add_dynamic_items(FvButton, FvSelect, FvPage, FvShare)
        if self.sync_commands:
            if self.guild_id:
                guild = discord.Object(self.guild_id)
                self.tree.copy_global_to(guild=guild)
                await self.tree.sync(guild=guild)  # instant in one server
            else:
                await self.tree.sync()  # global: may take a while to appear

    # ------------------------------------------------------------------ slash commands
    async def run_command(self, interaction: discord.Interaction, name: str,
                          args: dict[str, Any], summary: str) -> None:
        """Defer first (3 s rule, privately: nothing public is written before the core
        accepts), then hand the command to the core.

        Conversation commands: the core starts the conversation thread only once it accepts
        the request (DiscordCommandSurface.start_thread): a thread without a starter message,
        so no public "<user> asked" line; the asker is added to it and the private
        "thinking…" becomes "Answering in #thread". A refused request (bad input, rate limit,
        no thread permission) gets a private reply and leaves nothing behind. Typed in a
        thread, the answer continues that thread. Personal commands (`Command.personal`:
        player, matchup, lineup) answer privately where they were asked, with "Post to
        channel". Private commands (`Command.private`: link, help, daily) answer with
        ephemeral followups only, and so does any command whose text carries cookies or
        tokens (`carries_credentials`, checked before the defer: the core then refuses it
        privately, nothing public is ever written)."""
        cmd = command(name)
        secret = carries_credentials(name, args)
        personal = cmd is not None and cmd.personal and not secret
        private = (cmd is not None and cmd.private) or secret or personal
        await interaction.response.defer(ephemeral=True, thinking=True)
        user = user_ref(interaction.user, interaction.permissions)
        channel = interaction.channel
        command_surface: DiscordCommandSurface | None = None
        surface: DiscordSurface | None = None
        told = False  # the user got a private notice of a failure
        try:
            if private or channel is None:
                thread = thread_ref(interaction.guild_id, channel or discord.Object(0))
                if isinstance(channel, discord.Thread):
                    thread = ThreadRef("discord", thread.workspace_id, thread.channel_id, "")
                surface = self.surface.for_interaction(interaction, private=True,
                                                       personal=personal)
            else:
                surface = self.surface.for_interaction(interaction, conversation=True,
                                                       thread_title=name)
                assert isinstance(surface, DiscordCommandSurface)
                surface.asked = summary  # never in the thread's name
                command_surface = surface
                thread = thread_ref(interaction.guild_id, channel)  # in a thread: continue it
            started = time.monotonic()
            await self.core.handle_command(surface, thread, user, name, args)
            if isinstance(surface, DiscordPersonalSurface) and surface.answer_id:
                await self._offer_share(interaction, surface, name)
                if slow(self.core, started, time.monotonic()):
                    await self._tell_ready(interaction, f"/{name}")
        except Refused:
            pass  # the user was told privately
        except discord.Forbidden:
            log.warning("/%s: missing permissions in channel %s", name, interaction.channel_id)
            await _say(interaction, NO_THREAD_PERMISSION)
            told = True
        except Exception as exc:  # noqa: BLE001 - tell the user, log without the arguments
            log.exception("/%s failed: %s", name, type(exc).__name__)
            await _say_failed(interaction)
            told = True
        if command_surface is not None and not command_surface.said and not told:
            try:  # answered in this thread (or refused silently): no private "thinking…" left
                await interaction.delete_original_response()
            except discord.HTTPException:
                log.warning("could not delete the private response of /%s", name)

    async def suggest(self, interaction: discord.Interaction, option: Option,
                      current: str) -> list[app_commands.Choice[str]]:
        """Autocomplete for `option` (an autocomplete interaction, answered with up to 25
        choices): the core's provider (`ChatCore.choices`: league players, the league's
        teams, days, time zones), then the table's own suggestions ("off" for /daily's
        time). Slow or failing suggestions give none: Discord waits 3 s at most."""
        found: list[tuple[str, str]] = []
        provider = getattr(self.core, "choices", None)
        if option.autocomplete and provider is not None:
            user = user_ref(interaction.user, interaction.permissions)
            thread = thread_ref(interaction.guild_id, interaction.channel or discord.Object(0))
            try:
                got = await asyncio.wait_for(provider(option.autocomplete, current or "",
                                                      thread, user), AUTOCOMPLETE_TIMEOUT)
                found += [(c.label, c.value) for c in got]
            except Exception as exc:  # noqa: BLE001 - suggestions are optional
                log.info("no %s suggestions: %s", option.autocomplete, type(exc).__name__)
        q = (current or "").strip().lower()
        found += [(s, s) for s in option.suggestions if q in s.lower()]
        out: dict[str, app_commands.Choice[str]] = {}
        for label, value in found:
            value = value[:100]
            if value and value not in out:
                out[value] = app_commands.Choice(name=clip(label, 100) or value, value=value)
        return list(out.values())[:25]

    def remember_thread(self, thread: discord.Thread) -> None:
        """Record a thread this bot started (follow-ups in it continue the conversation)."""
        self._thread_owner[thread.id] = (self.user.id if self.user else 0,
                                         thread.parent_id or 0)

    async def _on_tree_error(self, interaction: discord.Interaction,
                             error: app_commands.AppCommandError) -> None:
        log.warning("command error: %s", type(error).__name__)
        text = ("This command works in a server channel only."
                if isinstance(error, app_commands.NoPrivateMessage)
                else "Sorry, that command failed.")
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True)
            else:
                await interaction.response.send_message(text, ephemeral=True)
        except discord.HTTPException:
            pass

    # ------------------------------------------------------------------ buttons
    async def handle_button(self, interaction: discord.Interaction, custom_id: str) -> None:
        """A click on a core button: acknowledge, then let the core authorize and decide.
        A refusal comes back through surface.ephemeral (discord.py itself sends nothing)."""
        await interaction.response.defer()  # DEFERRED_UPDATE_MESSAGE: no visible change
        user = user_ref(interaction.user, interaction.permissions)
        thread = thread_ref(interaction.guild_id, interaction.channel)
        message_id = str(interaction.message.id) if interaction.message else ""
        try:
            private = bool(interaction.message and interaction.message.flags.ephemeral)
            # a button under a private answer (a personal command's) answers privately too;
            # a conversation it starts ("Look for moves") opens a thread of its own
            started = time.monotonic()
            surface = self.surface.for_interaction(interaction, private=private,
                                                   conversation=private)
            await self.core.handle_click(surface, thread, user, custom_id, message_id)
            if private and surface.started is None and slow(self.core, started,
                                                             time.monotonic()):
                await self._tell_ready(interaction, "")
        except Exception as exc:  # noqa: BLE001
            log.exception("button %s failed: %s", custom_id, type(exc).__name__)
            await _say_failed(interaction)

    async def handle_page(self, interaction: discord.Interaction, card_id: str,
                          page: int) -> None:
        """Previous / Next on a paginated move card: the core redraws the stored card into
        its message on that page. Anyone may turn pages; nothing is decided."""
        await interaction.response.defer()
        message_id = str(interaction.message.id) if interaction.message else ""
        get_card = getattr(getattr(self.core, "db", None), "get_card", None)
        card = await get_card(card_id) if get_card is not None else None
        if card is None or not message_id or str(card.message_id or "") != message_id:
            await _say(interaction, "This card is no longer available.")
            return
        self.card_pages[message_id] = max(0, page)
        try:
            await self.core.edit_card(self.surface, card)
        except Exception as exc:  # noqa: BLE001
            log.exception("page %s of card %s failed: %s", page, card_id, type(exc).__name__)
            await _say_failed(interaction)

    async def _tell_ready(self, interaction: discord.Interaction, command: str) -> None:
        """A slow private answer notifies its member: a direct message saying where it is
        (an ephemeral followup or its edit notifies nobody)."""
        where = f"<#{interaction.channel_id}>" if interaction.channel_id else "the channel"
        try:
            await interaction.user.send(ready_note(command, where))
        except discord.HTTPException as exc:  # DMs closed: the answer is there anyway
            log.warning("could not tell the member the answer is ready (%s)",
                        type(exc).__name__)

    async def _offer_share(self, interaction: discord.Interaction,
                           surface: DiscordPersonalSurface, name: str) -> None:
        """Put "Post to channel" under a personal command's private answer."""
        part = with_share(render_edit(surface.answer), name)
        try:
            await interaction.followup.edit_message(int(surface.answer_id),
                                                    **part.kwargs(edit=True))
        except discord.HTTPException as exc:
            log.warning("could not offer to post /%s (%s)", name, type(exc).__name__)

    async def handle_share(self, interaction: discord.Interaction, name: str) -> None:
        """"Post to channel": the same answer, posted publicly where it was asked (with who
        shared it in small text), and the private copy's button says it was posted."""
        await interaction.response.defer()
        message = interaction.message
        if message is None or interaction.channel_id is None:
            return
        shared = f"-# Shared by {interaction.user.mention} · /{name}"
        view = shared_copy(message)
        layout = isinstance(view, discord.ui.LayoutView)
        channel = self.get_partial_messageable(interaction.channel_id,
                                               guild_id=interaction.guild_id)
        try:
            if layout:
                assert view is not None
                await channel.send(view=view, allowed_mentions=discord.AllowedMentions.none())
            else:
                kwargs: dict[str, Any] = {"content": clip(f"{shared}\n{message.content}".strip(),
                                                          2000),
                                          "embeds": message.embeds}
                if view is not None:
                    kwargs["view"] = view
                await channel.send(allowed_mentions=discord.AllowedMentions.none(), **kwargs)
        except discord.Forbidden:
            await _say(interaction, "I can't post in this channel: I need the Send Messages "
                                    "permission here.")
            return
        except discord.HTTPException as exc:
            log.warning("could not post a shared /%s (%s)", name, type(exc).__name__)
            await _say_failed(interaction)
            return
        done = discord.ui.View.from_message(message, timeout=None)
        for item in done.walk_children():
            if is_share_id(getattr(item, "custom_id", None)):
                item.disabled = True  # type: ignore[attr-defined]
                item.label = "Posted to channel"  # type: ignore[attr-defined]
        try:
            await interaction.edit_original_response(view=done)
        except discord.HTTPException:
            log.warning("could not mark a shared /%s as posted", name)

    # ------------------------------------------------------------------ thread follow-ups
    async def on_message(self, message: discord.Message) -> None:
        """A message in a thread the bot started continues that conversation."""
        if message.author.bot or self.user is None or message.guild is None:
            return
        if message.type not in (discord.MessageType.default, discord.MessageType.reply):
            return
        text = (message.content or "").replace(self.user.mention, "").strip()
        if not text:
            return
        owned = await self._owned_thread_parent(message.channel)
        if owned is None:
            return
        thread = ThreadRef("discord", str(message.guild.id), str(owned), str(message.channel.id))
        perms = getattr(message.author, "guild_permissions", None)
        user = user_ref(message.author, perms)
        try:
            await self.core.handle_message(self.surface, thread, user, text,
                                           message_id=str(message.id))
        except Exception as exc:  # noqa: BLE001
            log.exception("thread message failed: %s", type(exc).__name__)

    async def _lookup_thread(self, channel_id: int) -> tuple[int, int]:
        try:
            fetched = await self.fetch_channel(channel_id)
        except discord.HTTPException:
            return (0, 0)
        if isinstance(fetched, discord.Thread):
            return (fetched.owner_id or 0, fetched.parent_id or 0)
        return (0, 0)

    async def _owned_thread_parent(self, channel: Any) -> int | None:
        """Parent channel id if `channel` is a thread this bot created, else None."""
        assert self.user is not None
        if isinstance(channel, discord.Thread):
            return channel.parent_id if channel.owner_id == self.user.id else None
        if not isinstance(channel, discord.PartialMessageable) or channel.guild_id is None:
            return None
        known = self._thread_owner.get(channel.id)
        if known is None:  # not in the gateway cache (e.g. just after a restart): ask once
            task = self._lookups.get(channel.id)
            if task is None:
                task = asyncio.ensure_future(self._lookup_thread(channel.id))
                self._lookups[channel.id] = task
            known = await task
            self._thread_owner[channel.id] = known
            self._lookups.pop(channel.id, None)
        owner, parent = known
        return parent if owner == self.user.id else None


async def _say(interaction: discord.Interaction, text: str) -> None:
    try:
        await interaction.followup.send(text, ephemeral=True)
    except discord.HTTPException:
        log.warning("could not send a notice to the user")


async def _say_failed(interaction: discord.Interaction) -> None:
    await _say(interaction, "Sorry, something went wrong. Please try again.")


def _bot(interaction: discord.Interaction) -> FanViseDiscordBot:
    client = interaction.client
    assert isinstance(client, FanViseDiscordBot)
    return client


#: the Python annotation of each option kind (discord.py derives the option type from it)
_KINDS: dict[str, Any] = {"text": str, "int": int, "bool": bool, "user": discord.User}
#: Discord answers an autocomplete only within 3 s
AUTOCOMPLETE_TIMEOUT = 2.5


def _option_value(value: Any) -> Any:
    """A member option becomes its mention (`<@id>`, as Slack writes one); the rest as is."""
    if isinstance(value, discord.abc.User):
        return value.mention
    return value


def _summary(cmd: Command, values: dict[str, Any]) -> str:
    """What the public header repeats, as typed on Slack: "/lineup tomorrow" (a true bool
    option by its word or name)."""
    parts = []
    for opt in cmd.options:
        value = values.get(opt.name)
        if value is None or value is False:
            continue
        parts.append((opt.word or opt.name) if value is True else str(value))
    return invocation(cmd.name, " ".join(parts))


def _autocomplete(option: Option) -> Any:
    async def suggest(interaction: discord.Interaction,
                      current: str) -> list[app_commands.Choice[str]]:
        return await _bot(interaction).suggest(interaction, option, current)
    suggest.__qualname__ = suggest.__name__ = f"autocomplete_{option.name}"
    return suggest


def app_command(cmd: Command) -> app_commands.Command[Any, ..., None]:
    """The application command for table entry `cmd`: its name, description and options
    (kind, required, description, fixed choices, autocomplete) all come from the table."""

    async def callback(interaction: discord.Interaction, **values: Any) -> None:
        values = {k: _option_value(v) for k, v in values.items()}
        await _bot(interaction).run_command(interaction, cmd.name,
                                            options_to_args(cmd.name, values),
                                            _summary(cmd, values))

    params = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                annotation=discord.Interaction)]
    for opt in cmd.options:
        kind = _KINDS[opt.kind]
        params.append(inspect.Parameter(
            opt.name, inspect.Parameter.KEYWORD_ONLY, annotation=kind if opt.required
            else kind | None, default=inspect.Parameter.empty if opt.required else None))
    callback.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    callback.__qualname__ = callback.__name__ = f"command_{cmd.name}"
    if cmd.options:
        app_commands.describe(**{o.name: o.description for o in cmd.options})(callback)
    fixed = {o.name: [app_commands.Choice(name=c, value=c) for c in o.choices]
             for o in cmd.options if o.choices}
    if fixed:
        app_commands.choices(**fixed)(callback)
    suggested = {o.name: _autocomplete(o) for o in cmd.options
                 if not o.choices and (o.autocomplete or o.suggestions)}
    if suggested:
        app_commands.autocomplete(**suggested)(callback)
    app_commands.guild_only()(callback)
    if cmd.admin_only:
        # shown to server managers by default (server settings can grant it to others);
        # the core still checks who may run it
        app_commands.default_permissions(manage_guild=True)(callback)
    return app_commands.Command(name=cmd.name, description=cmd.summary, callback=callback)


def _add_commands(tree: app_commands.CommandTree) -> None:
    """Register every command of the command table (bot.core.commands.COMMANDS)."""
    for cmd in COMMANDS:
        tree.add_command(app_command(cmd))


def build_discord_bot(core: Any, settings: Any = None, **client_kwargs: Any) -> FanViseDiscordBot:
    """A FanViseDiscordBot for `core`; reads discord_guild_id / discord_sync_commands /
    discord_message_content from `settings` when present."""
    guild = client_kwargs.pop("guild_id", None) or getattr(settings, "discord_guild_id", None)
    client_kwargs.setdefault("sync_commands", getattr(settings, "discord_sync_commands", True))
    client_kwargs.setdefault("message_content",
                             getattr(settings, "discord_message_content", True))
    return FanViseDiscordBot(core, guild_id=int(guild) if guild else None, **client_kwargs)
