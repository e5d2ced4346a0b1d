"""Discord adapter (discord.py 2.x): slash commands, thread follow-ups and decision buttons.

Thin by design: every event becomes one ChatCore call (handle_command / handle_message /
handle_click) with a ThreadRef, a UserRef and a DiscordSurface; all conversation logic lives
in bot/core. Conversations happen in a thread started from the slash command's response;
messages in threads the bot owns continue them.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord
from discord import app_commands

from bot.core.errors import Refused
from bot.core.models import ThreadRef, UserRef
from bot.discord.render import FvButton, FvSelect, clip
from bot.discord.surface import (
    NO_THREAD_PERMISSION,
    THREAD_NAME_MAX,
    DiscordCommandSurface,
    DiscordSurface,
)

log = logging.getLogger(__name__)

CONVERSATION_COMMANDS = ("ask", "player", "optimize", "lineup", "stream")
PRIVATE_COMMANDS = ("link", "help", "daily")


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
        self.tree.on_error = self._on_tree_error
        _add_commands(self.tree)
        self._thread_owner: dict[int, tuple[int, int]] = {}  # thread id -> (owner, parent)
        self._lookups: dict[int, asyncio.Future[tuple[int, int]]] = {}

    async def setup_hook(self) -> None:
        """Route button clicks (also on cards sent before a restart) and sync commands."""
        self.add_dynamic_items(FvButton, FvSelect)
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
        """Defer first (3 s rule), then hand the command to the core.

        Conversation commands answer publicly with "<user> asked: ..." (this also ends
        Discord's "thinking…" state, so refusals can be private); the core starts the
        conversation thread on that response only once it accepts the request
        (DiscordCommandSurface.start_thread). A refused request (bad input, rate limit, no
        thread permission) gets a private reply and its response is deleted: no empty
        thread or dangling header is left behind. Private commands (link, help, daily)
        answer with ephemeral followups only."""
        private = name in PRIVATE_COMMANDS
        await interaction.response.defer(ephemeral=private, thinking=True)
        user = user_ref(interaction.user, interaction.permissions)
        channel = interaction.channel
        command_surface: DiscordCommandSurface | None = None
        try:
            if private or channel is None:
                thread = thread_ref(interaction.guild_id, channel or discord.Object(0))
                if isinstance(channel, discord.Thread):
                    thread = ThreadRef("discord", thread.workspace_id, thread.channel_id, "")
                surface = self.surface.for_interaction(interaction, private=True)
            else:
                header = clip(f"{interaction.user.mention} asked: {summary}", 2000)
                root = await interaction.edit_original_response(
                    content=header, allowed_mentions=discord.AllowedMentions.none())
                title = clip(f"{name}: {summary.split(' ', 1)[-1]}" if " " in summary
                             else name, THREAD_NAME_MAX)
                surface = self.surface.for_interaction(interaction, root=root,
                                                       thread_title=title)
                assert isinstance(surface, DiscordCommandSurface)
                command_surface = surface
                thread = thread_ref(interaction.guild_id, channel)  # in a thread: continue it
            await self.core.handle_command(surface, thread, user, name, args)
        except Refused:
            pass  # the user was told privately
        except discord.Forbidden:
            log.warning("/%s: missing permissions in channel %s", name, interaction.channel_id)
            await _say(interaction, NO_THREAD_PERMISSION)
        except Exception as exc:  # noqa: BLE001 - tell the user, log without the arguments
            log.exception("/%s failed: %s", name, type(exc).__name__)
            await _say_failed(interaction)
        if command_surface is not None and command_surface.started is None \
                and command_surface.posted == 0:
            try:  # refused: the private reply is all the user needs
                await interaction.delete_original_response()
            except discord.HTTPException:
                log.warning("could not delete the response of a refused /%s", name)

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
            await self.core.handle_click(self.surface.for_interaction(interaction), thread, user,
                                         custom_id, message_id)
        except Exception as exc:  # noqa: BLE001
            log.exception("button %s failed: %s", custom_id, type(exc).__name__)
            await _say_failed(interaction)

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


def _add_commands(tree: app_commands.CommandTree) -> None:
    """Register the eight slash commands on `tree`."""

    @app_commands.guild_only()
    @tree.command(name="ask", description="Ask FanVise anything about your league")
    @app_commands.describe(question="Your question")
    async def ask(interaction: discord.Interaction, question: str) -> None:
        await _bot(interaction).run_command(interaction, "ask", {"text": question},
                                            f"/ask {question}")

    @app_commands.guild_only()
    @tree.command(name="player", description="Injury and status report for a player")
    @app_commands.describe(name="Player name")
    async def player(interaction: discord.Interaction, name: str) -> None:
        await _bot(interaction).run_command(interaction, "player", {"text": name, "player": name},
                                            f"/player {name}")

    @app_commands.guild_only()
    @tree.command(name="optimize", description="This week's drop/add moves to approve or decline")
    @app_commands.describe(focus="Optional categories to focus on, e.g. 'AST STL'")
    async def optimize(interaction: discord.Interaction, focus: str | None = None) -> None:
        await _bot(interaction).run_command(interaction, "optimize", {"text": focus or ""},
                                            f"/optimize {focus or ''}".strip())

    @app_commands.guild_only()
    @tree.command(name="lineup", description="Optimal starters vs your current ESPN lineup")
    @app_commands.describe(day="today, tomorrow or YYYY-MM-DD")
    async def lineup(interaction: discord.Interaction, day: str | None = None) -> None:
        args = {"text": day or ""}
        if day:
            args["day"] = day
        await _bot(interaction).run_command(interaction, "lineup", args,
                                            f"/lineup {day or ''}".strip())

    @app_commands.guild_only()
    @tree.command(name="stream", description="Streaming pickups for this week")
    @app_commands.describe(focus="Optional position or categories, e.g. 'C' or 'assists'")
    async def stream(interaction: discord.Interaction, focus: str | None = None) -> None:
        await _bot(interaction).run_command(interaction, "stream", {"text": focus or ""},
                                            f"/stream {focus or ''}".strip())

    @app_commands.guild_only()
    @tree.command(name="link", description="Link your ESPN team (private; no options: show it)")
    @app_commands.describe(team_id="Your team id (ESPN team page URL: teamId=…)",
                           league_id="ESPN league id (default: this bot's league)",
                           season="Season year, e.g. 2025",
                           espn_s2="espn_s2 cookie (private leagues; stored encrypted, never shown)",
                           swid="SWID cookie (private leagues; stored encrypted, never shown)",
                           remove="Remove your link and any stored cookies")
    async def link(interaction: discord.Interaction, team_id: int | None = None,
                   league_id: int | None = None, season: int | None = None,
                   espn_s2: str | None = None, swid: str | None = None,
                   remove: bool = False) -> None:
        args: dict[str, Any] = {"team_id": team_id, "league_id": league_id, "season": season,
                                "espn_s2": espn_s2, "swid": swid}
        args = {k: v for k, v in args.items() if v is not None}
        if remove:
            args = {"text": "off"}
        await _bot(interaction).run_command(interaction, "link", args, "/link")

    @app_commands.guild_only()
    @tree.command(name="daily", description="Daily lineup post in this channel (admins)")
    @app_commands.describe(time="Local time HH:MM", timezone="IANA time zone, e.g. America/New_York",
                           enabled="Turn the daily post on or off")
    async def daily(interaction: discord.Interaction, time: str | None = None,
                    timezone: str | None = None, enabled: bool | None = None) -> None:
        args = {k: v for k, v in {"time": time, "timezone": timezone,
                                  "enabled": enabled}.items() if v is not None}
        await _bot(interaction).run_command(interaction, "daily", args, "/daily")

    @app_commands.guild_only()
    @tree.command(name="help", description="What FanVise can do")
    async def help_(interaction: discord.Interaction) -> None:
        await _bot(interaction).run_command(interaction, "help", {}, "/help")


def build_discord_bot(core: Any, settings: Any = None, **client_kwargs: Any) -> FanViseDiscordBot:
    """A FanViseDiscordBot for `core`; reads discord_guild_id / discord_sync_commands /
    discord_message_content from `settings` when present."""
    guild = client_kwargs.pop("guild_id", None) or getattr(settings, "discord_guild_id", None)
    client_kwargs.setdefault("sync_commands", getattr(settings, "discord_sync_commands", True))
    client_kwargs.setdefault("message_content",
                             getattr(settings, "discord_message_content", True))
    return FanViseDiscordBot(core, guild_id=int(guild) if guild else None, **client_kwargs)
