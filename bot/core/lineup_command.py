"""Lineup: the `/lineup` command, a command turn of the runtime (the lineup run answers it,
the chat shows it with `bot.core.lineup`'s card)."""

from __future__ import annotations

import logging
from datetime import date
from typing import TYPE_CHECKING, Any

from agents.understanding.entities import extract_day
from agents.understanding.request import Intent
from bot.core.commands import invocation, split_args
from bot.core.errors import InvalidInput
from bot.core.models import ThreadRef, UserRef
from bot.core.surface import ChatSurface
from fantasy.formatting import day_text

if TYPE_CHECKING:
    from bot.core.service import ChatCore

log = logging.getLogger(__name__)


class LineupCommand:
    """Lineup: the `/lineup [day]` command."""

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
        # a command turn of the runtime, as `/matchup`: the lineup run answers it and the
        # chat shows its card (bot.core.lineup.lineup_answer_message)
        await self.core.turns.command_turn(surface, thread, user, Intent.LINEUP_OPTIMIZATION,
                                           args=day.isoformat(),
                                           title=f"Lineup · {day_text(day)}")
