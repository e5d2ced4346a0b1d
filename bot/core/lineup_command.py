"""Lineup: the `/lineup` command (the message is `bot.core.lineup`'s)."""

from __future__ import annotations

import logging
from datetime import date
from typing import TYPE_CHECKING, Any

from agents.understanding.entities import extract_day
from bot.core.commands import invocation, split_args
from bot.core.errors import InvalidInput
from bot.core.lineup import daily_lineup_message
from bot.core.models import OutgoingMessage, ThreadRef, UserRef
from bot.core.surface import ChatSurface
from fantasy.formatting import day_text

if TYPE_CHECKING:
    from bot.core.service import ChatCore

log = logging.getLogger(__name__)


class LineupCommand:
    """Lineup: the `/lineup` command (the message is `bot.core.lineup`'s)."""

    def __init__(self, core: ChatCore) -> None:
        self.core = core

    async def cmd_lineup(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                          args: dict[str, Any]) -> None:
        kv, pos = split_args(args)
        raw = (kv.get("day") or " ".join(pos)).strip().lower()
        today = self.core.league_today()
        ref = extract_day(raw, today) if raw else None
        if not raw:
            day = today
        elif ref is None or ref.date is None:
            ways = [f"`{invocation('lineup', a, thread.platform)}`"
                    for a in ("", "tomorrow", "thursday", "2023-01-26")]
            raise InvalidInput(f"Use {', '.join(ways[:-1])} or {ways[-1]}.")
        else:
            day = date.fromisoformat(ref.date)
            if abs((day - today).days) > 14:
                raise InvalidInput(f"Pick a day within two weeks of {today.isoformat()}.")
        team_id = await self.core.link.require_team(surface, thread, user)
        msg = await self.lineup_message(team_id, day, thread.platform)
        if msg.cards:  # "Set this lineup" / "Set the rest of the week" (bot.core.handoff)
            from bot.core.lineup import add_fix_buttons
            await add_fix_buttons(self.core, msg.cards[0], thread=thread, user=user,
                                  team_id=team_id, day=day)
        if getattr(surface, "start_thread", None) is not None:  # Discord: a thread per command
            thread = await self.core.turns.ensure_thread(surface, thread, user, f"/lineup {day}",
                                               f"Lineup · {day_text(day)}")
        await self.core.turns.post_split(surface, thread, msg)

    async def lineup_message(self, team_id: int, day: date | None,
                             platform: str = "discord") -> OutgoingMessage:
        from fantasy.espn.errors import EspnError
        try:
            return await daily_lineup_message(self.core.espn, team_id, day=day)
        except EspnError as exc:
            from agents.runtime import espn_notice
            return OutgoingMessage("⚠️ " + espn_notice(exc).text)
        except LookupError as exc:
            raise InvalidInput(f"{str(exc).strip(chr(39))}. Check "
                               f"`{invocation('link', '', platform)}`.") from None
