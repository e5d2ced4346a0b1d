"""Matchup: the `/matchup` command, the member's score, projection and categories this week.

The answer is the runtime's matchup-status answer ("am i winning this week?"), asked for the
member's team without an English round trip (`Turns.command_turn`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agents.understanding.request import Intent
from bot.core.errors import InvalidInput
from bot.core.models import ThreadRef, UserRef
from bot.core.surface import ChatSurface

if TYPE_CHECKING:
    from bot.core.service import ChatCore


class Matchup:
    """Matchup: the `/matchup` command (the answer is the runtime's matchup status)."""

    def __init__(self, core: ChatCore) -> None:
        self.core = core

    async def cmd_matchup(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                          args: dict[str, Any]) -> None:
        """`/matchup [categories]`: this week's score, projection and categories."""
        focus = str(args.get("categories") or args.get("text") or "").strip()
        if len(focus) > 200:
            raise InvalidInput("Keep it short, e.g. `/matchup` or `/matchup AST STL`.")
        await self.core.turns.command_turn(surface, thread, user, Intent.MATCHUP_STATUS,
                                           args=focus, title="Matchup this week")
