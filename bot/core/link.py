"""Linking: which fantasy team a chat member acts for (`/link`)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from bot.core.commands import split_args
from bot.core.errors import InvalidInput
from bot.core.models import Choice, ThreadRef, UserRef
from bot.core.surface import ChatSurface
from storage.app_db import SecretKeyMissing

if TYPE_CHECKING:
    from bot.core.service import ChatCore

log = logging.getLogger(__name__)


class Linking:
    """Linking: which fantasy team a chat member acts for (`/link`)."""

    def __init__(self, core: ChatCore) -> None:
        self.core = core

    async def cmd_link(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                        args: dict[str, Any]) -> None:
        kv, pos = split_args(args)
        ws = thread.workspace_id
        if [p.lower() for p in pos] in (["off"], ["remove"], ["unlink"]):
            gone = await self.core.db.delete_link(user.platform, ws, user.user_id)
            await surface.ephemeral(thread, user, "Your league link (and any stored cookies) "
                                    "was removed." if gone else "You had no league link.")
            return
        if not kv and not pos:
            link = await self.core.db.get_link(user.platform, ws, user.user_id)
            if link is None:
                await surface.ephemeral(thread, user, "You have no league link. Use "
                                        "`/link team=<id>` (see `/help`).")
            else:
                await surface.ephemeral(
                    thread, user, f"Linked to team {link.team_id} in ESPN league "
                    f"{link.league_id} ({link.season or 'current season'}); cookies "
                    f"{'stored encrypted' if link.has_cookies else 'not stored'}.")
            return
        nums = [p for p in pos if p.isascii() and p.isdigit()]
        if len(nums) != len(pos):
            raise InvalidInput("Use `/link team=<id> [league=<id>] [season=<year>] "
                               "[espn_s2=… swid=…]` (numbers only for ids).")
        if len(nums) == 1:
            kv.setdefault("team", nums[0])
        elif len(nums) == 2:
            kv.setdefault("league", nums[0])
            kv.setdefault("team", nums[1])
        elif len(nums) == 3:
            kv.setdefault("league", nums[0])
            kv.setdefault("season", nums[1])
            kv.setdefault("team", nums[2])
        elif nums:
            raise InvalidInput("Too many numbers: use `/link team=<id> league=<id>`.")
        team_raw = kv.get("team") or kv.get("team_id")
        league_raw = kv.get("league") or kv.get("league_id")
        season_raw = kv.get("season")
        s2 = kv.get("espn_s2") or kv.get("s2")
        swid = kv.get("swid")
        if not team_raw:
            raise InvalidInput("Which team? `/link team=<id>` (your team id is in the ESPN "
                               "team page URL: ...&teamId=<id>).")
        try:
            team_id = int(team_raw)
            league_id = int(league_raw) if league_raw else self.core.league_id
            season = int(season_raw) if season_raw else self.core.season
        except ValueError:
            raise InvalidInput("team, league and season must be numbers.") from None
        if league_id is None:
            raise InvalidInput("Which league? `/link league=<id> team=<id>`.")
        if season is not None and not 2000 <= season <= 2100:
            raise InvalidInput("Season is the year the NBA season ends, e.g. 2025.")
        if bool(s2) != bool(swid):
            raise InvalidInput("Give both espn_s2 and swid, or neither. Nothing was stored.")
        if self.core.league_id is not None and league_id != self.core.league_id:
            raise InvalidInput(f"This FanVise serves ESPN league {self.core.league_id}; league "
                               f"{league_id} needs its own deployment "
                               "(FANVISE_ESPN_LEAGUE_ID). Nothing was stored.")
        if self.core.espn is not None:
            from fantasy.espn.errors import EspnError
            try:
                league = await self.core.espn.get_league()
                ids = {t.id for t in league.teams}
                if team_id not in ids:
                    raise InvalidInput(f"League {league_id} has no team {team_id}; team ids: "
                                       f"{', '.join(str(i) for i in sorted(ids))}.")
            except EspnError:
                log.warning("could not verify the team of a /link (ESPN unavailable)")
        taken = [lk for lk in await self.core.db.links_for_team(league_id, team_id)
                 if (lk.platform, lk.user_id) != (user.platform, user.user_id)]
        if taken and not user.is_admin:  # else a stranger could decide that member's cards
            raise InvalidInput(f"Team {team_id} is already linked to another member. Ask them "
                               "to run `/link off` first, or ask an admin. Nothing was stored.")
        cookies = (s2, swid) if s2 and swid else None
        try:
            await self.core.db.set_link(platform=user.platform, workspace_id=ws, user_id=user.user_id,
                                   league_id=league_id, season=season, team_id=team_id,
                                   cookies=cookies)
        except SecretKeyMissing as exc:
            raise InvalidInput(str(exc)) from None
        if cookies:
            from fantasy.redact import register_secret
            register_secret(s2)
            register_secret(swid)
        await surface.ephemeral(
            thread, user, f"Linked you to team {team_id} in ESPN league {league_id}"
            f" ({season or 'current season'})."
            + (" Your ESPN cookies are stored encrypted." if cookies else ""))

    async def team_for(self, user: UserRef) -> int | None:
        """The user's linked team in this league, else the instance's default team."""
        for ws in await self._link_workspaces(user):
            link = await self.core.db.get_link(user.platform, ws, user.user_id)
            if link is not None and (self.core.league_id is None or link.league_id == self.core.league_id):
                return link.team_id
        return self.core.default_team_id

    async def _link_workspaces(self, user: UserRef) -> list[str]:
        rows = await self.core.db.db.fetchall(
            "SELECT workspace_id FROM league_links WHERE platform=? AND user_id=? "
            "ORDER BY updated_at DESC", (user.platform, user.user_id))
        return [r["workspace_id"] for r in rows]

    async def team_choices(self, query: str) -> list[Choice]:
        """The league's teams, "Team name · owner", matching `query` (name, owner or id)."""
        if self.core.espn is None:
            return []
        from fantasy.espn.errors import EspnError
        try:
            league = await self.core.espn.get_league()
        except EspnError:
            return []
        q = (query or "").strip().lower()
        out = []
        for team in league.teams:
            owner = ", ".join(getattr(team, "owners", None) or []) or ""
            label = f"{team.name} · {owner}" if owner else team.name
            if not q or q in label.lower() or q == str(team.id):
                out.append(Choice(label[:100], str(team.id)))
        return out[:25]
