"""Link a chat member to a fantasy team in a test's app DB (members must link before a
team-specific turn, command or click: bot.core.link)."""

from __future__ import annotations

from typing import Any


async def link(core: Any, platform: str, workspace_id: str, user_id: str | int,
               team_id: int = 1) -> None:
    """`/link team=<team_id>` for that member, without going through a chat surface."""
    await core.db.set_link(platform=platform, workspace_id=str(workspace_id),
                           user_id=str(user_id), league_id=core.league_id or 0,
                           season=core.season, team_id=team_id)
