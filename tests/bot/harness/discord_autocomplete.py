"""Autocomplete interactions (type 4) and member options for driving the real discord.py
client: discord.py answers an autocomplete with callback type 8 and `data.choices`."""

from __future__ import annotations

from typing import Any

from tests.bot.harness import discord_events as ev
from tests.bot.harness import fake_discord as fd


def autocomplete(name: str, uid: int, focused: str, current: str,
                 options: dict[str, Any] | None = None, *,
                 channel: dict[str, Any] | None = None, admin: bool = False) -> dict[str, Any]:
    """An APPLICATION_COMMAND_AUTOCOMPLETE interaction: the user is typing `current` into
    option `focused` of /`name` (other options already filled in `options`)."""
    payload = ev.interaction(4, uid, channel or fd.text_channel(), admin=admin)
    opts = [{"name": k, "type": 5 if isinstance(v, bool) else 4 if isinstance(v, int) else 3,
             "value": v} for k, v in (options or {}).items()]
    opts.append({"name": focused, "type": 3, "value": current, "focused": True})
    payload["data"] = {"id": str(fd.next_id()), "name": name, "type": 1, "options": opts}
    return payload


def with_member(payload: dict[str, Any], option: str, uid: int) -> dict[str, Any]:
    """Add a user option (type 6) naming member `uid` to a slash payload, with the
    `resolved` data Discord sends along."""
    mem = ev.member(uid)
    user = mem.pop("user")
    data = payload["data"]
    data.setdefault("options", []).append({"name": option, "type": 6, "value": str(uid)})
    resolved = data.setdefault("resolved", {})
    resolved.setdefault("users", {})[str(uid)] = user
    resolved.setdefault("members", {})[str(uid)] = mem
    return payload


def choices_answered(fake: fd.FakeDiscord, interaction_id: str) -> list[dict[str, Any]] | None:
    """The choices discord.py answered autocomplete `interaction_id` with (None: not yet)."""
    for r in fake.find("POST", rf"^/interactions/{interaction_id}/[^/]+/callback$"):
        if r.json.get("type") == 8:
            return r.json["data"]["choices"]
    return None
