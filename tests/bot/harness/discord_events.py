"""Raw Discord gateway payloads (as the gateway would send them) for driving a real client."""

from __future__ import annotations

from typing import Any

import discord

from tests.bot.harness import fake_discord as fd

ADMIN_PERMS = str(discord.Permissions.all().value)
MEMBER_PERMS = str(discord.Permissions(send_messages=True, view_channel=True,
                                       use_application_commands=True).value)


def member(uid: int, *, admin: bool = False) -> dict[str, Any]:
    """A guild member payload as carried by interactions (with resolved permissions)."""
    return {"user": fd.user(uid, f"user{uid % 1000}"), "roles": [], "joined_at": fd.now_iso(),
            "deaf": False, "mute": False, "flags": 0,
            "permissions": ADMIN_PERMS if admin else MEMBER_PERMS}


def interaction(itype: int, uid: int, channel: dict[str, Any], *,
                admin: bool = False) -> dict[str, Any]:
    """Common fields of an INTERACTION_CREATE payload."""
    return {"id": str(fd.next_id()), "application_id": str(fd.APP_ID), "type": itype,
            "token": f"itoken-{fd.next_id()}", "version": 1, "guild_id": str(fd.GUILD_ID),
            "guild": {"id": str(fd.GUILD_ID), "locale": "en-US", "features": []},
            "channel_id": channel["id"], "channel": channel, "member": member(uid, admin=admin),
            "app_permissions": ADMIN_PERMS, "locale": "en-US", "guild_locale": "en-US",
            "attachment_size_limit": 8388608, "entitlements": [], "context": 0,
            "authorizing_integration_owners": {"0": str(fd.GUILD_ID)}}


def slash(name: str, uid: int, options: dict[str, Any] | None = None, *,
          channel: dict[str, Any] | None = None, admin: bool = False) -> dict[str, Any]:
    """A slash command interaction; option types are inferred from the Python values."""
    payload = interaction(2, uid, channel or fd.text_channel(), admin=admin)
    opts = []
    for key, value in (options or {}).items():
        kind = 5 if isinstance(value, bool) else 4 if isinstance(value, int) else 3
        opts.append({"name": key, "type": kind, "value": value})
    payload["data"] = {"id": str(fd.next_id()), "name": name, "type": 1, "options": opts}
    return payload


def click(custom_id: str, uid: int, message: dict[str, Any], channel: dict[str, Any], *,
          admin: bool = False) -> dict[str, Any]:
    """A button click on `message` (a message dict as stored by the fake)."""
    payload = interaction(3, uid, channel, admin=admin)
    payload["data"] = {"custom_id": custom_id, "component_type": 2}
    payload["message"] = message
    return payload


def guild_create(channels: list[dict[str, Any]],
                 threads: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A GUILD_CREATE payload so the client caches the guild, channels and threads."""
    return {"id": str(fd.GUILD_ID), "name": "League", "icon": None, "owner_id": "1",
            "region": "us", "afk_channel_id": None, "afk_timeout": 300, "verification_level": 0,
            "default_message_notifications": 0, "explicit_content_filter": 0,
            "roles": [{"id": str(fd.GUILD_ID), "name": "@everyone", "permissions":
                       fd.EVERYONE_PERMS, "position": 0, "color": 0, "hoist": False,
                       "managed": False, "mentionable": False, "flags": 0}],
            "emojis": [], "stickers": [], "features": [], "mfa_level": 0, "system_channel_id": None,
            "system_channel_flags": 0, "rules_channel_id": None, "vanity_url_code": None,
            "description": None, "banner": None, "premium_tier": 0, "preferred_locale": "en-US",
            "public_updates_channel_id": None, "nsfw_level": 0, "premium_progress_bar_enabled":
            False, "member_count": 2, "large": False, "unavailable": False, "members": [],
            "channels": channels, "threads": threads or [], "presences": [], "voice_states": [],
            "stage_instances": [], "guild_scheduled_events": [], "joined_at": fd.now_iso()}


def message_create(channel_id: int, uid: int, content: str, *, bot: bool = False,
                   admin: bool = False) -> dict[str, Any]:
    """A MESSAGE_CREATE payload from a guild member."""
    author = fd.user(uid, f"user{uid % 1000}")
    if bot:
        author["bot"] = True
    mem = member(uid, admin=admin)
    mem.pop("user")
    return {"id": str(fd.next_id()), "channel_id": str(channel_id), "guild_id": str(fd.GUILD_ID),
            "author": author, "member": mem, "content": content, "timestamp": fd.now_iso(),
            "edited_timestamp": None, "tts": False, "mention_everyone": False, "mentions": [],
            "mention_roles": [], "attachments": [], "embeds": [], "pinned": False, "type": 0,
            "flags": 0, "components": []}


def feed(client: discord.Client, event: str, payload: dict[str, Any]) -> None:
    """Hand a raw gateway event to the client's parser (what the websocket reader does)."""
    client._connection.parsers[event](payload)


def send(client: discord.Client, fake: fd.FakeDiscord, payload: dict[str, Any]) -> str:
    """Deliver an interaction as the gateway would, after telling the fake server which
    channel it came from (its followups are recorded there); returns its id."""
    fake.interaction_channels[payload["id"]] = int(payload["channel_id"])
    if (payload.get("message") or {}).get("id"):
        fake.interaction_messages[payload["id"]] = int(payload["message"]["id"])
    feed(client, "INTERACTION_CREATE", payload)
    return payload["id"]

