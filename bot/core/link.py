"""Linking: which fantasy team a chat member acts for (`/link`).

Every chat member acts for their own linked team; the deployment's default team
(`ChatCore.default_team_id`) serves only the console. A member without a link who asks
something about "my team" (a team intent, a move card, `/lineup`) is asked, privately, to
link first (`require_team`), with the team whose ESPN owner matches their display name
offered as a one-tap button and every team in a select. `/link` takes a team id or name;
with nothing else it shows the member's link and the teams to pick from. One team per
member per league (re-linking replaces); a team linked to another member is refused unless
an admin links it; admins link members who don't use the bot (`member=<@id>`).

The question that prompted the link request is kept (a turn row with status 'needs_link',
`remember`) and answered once the member links (`resume`), at most once and within an hour.
"""

from __future__ import annotations

import difflib
import logging
import re
import unicodedata
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any

from bot.core.buttons import LINK_SELECT_ID, link_custom_id
from bot.core.commands import PERSONAL_NAMES, invocation
from bot.core.errors import ChatError, InvalidInput, Refused
from bot.core.models import (
    Button,
    Card,
    Choice,
    OutgoingMessage,
    Select,
    SelectOption,
    ThreadRef,
    UserRef,
)
from bot.core.render import clip
from bot.core.surface import ChatSurface
from storage.app_db import LeagueLink, SecretKeyMissing, TurnRow, new_card_id

if TYPE_CHECKING:
    from bot.core.service import ChatCore

log = logging.getLogger(__name__)

#: the platform whose unlinked user acts for the deployment's default team
CONSOLE = "console"
#: words of the /link text that start an option (the rest of a `team=` value may follow)
_KEYS = ("team", "team_id", "league", "league_id", "season", "espn_s2", "s2", "swid",
         "member", "user", "remove", "writes", "autolineup", "auto_lineup")
#: the words of an on/off option (`writes:on`, `autolineup:off`)
_ON, _OFF = ("on", "true", "yes", "1"), ("off", "false", "no", "0")
#: a member mention: Discord <@123> / <@!123>, Slack <@U123> / <@U123|name>, or a bare id
_MENTION = re.compile(r"^<@!?([A-Za-z0-9_]+)(?:\|[^>]*)?>$")
_BARE_ID = re.compile(r"^(?:[0-9]{5,25}|[UW][A-Z0-9]{5,20})$")
#: a suggestion needs at least this owner-name score (see `owner_score`)
SUGGEST_SCORE = 0.8
#: a question waiting for its asker's link is answered when they link within this time (s)
RESUME_WITHIN = 3600.0
#: the status of a turn row whose question waits for its asker's link
NEEDS_LINK = "needs_link"


def _words(name: str) -> list[str]:
    text = unicodedata.normalize("NFKD", name or "").encode("ascii", "ignore").decode()
    return [w for w in re.split(r"[^a-z0-9]+", text.lower()) if w]


def owner_score(display_name: str, owner: str) -> float:
    """How well a chat display name matches an ESPN owner name, 0..1: "Alex Rivera" 1,
    "alexrivera" / "alex.rivera" 0.95, "Alex R." 0.9, "alex" 0.8, "arivera" 0.85, a typo
    by the similarity of the two; unrelated names 0."""
    d, o = _words(display_name), _words(owner)
    if not d or not o:
        return 0.0
    if d == o:
        return 1.0
    if "".join(d) == "".join(o):
        return 0.95
    if d[0] == o[0]:
        rest = d[1:]
        if not rest:
            return 0.8
        if len(rest) <= len(o) - 1 and all(o[i + 1].startswith(w)
                                           for i, w in enumerate(rest)):
            return 0.9
    if len(d) == 1 and len(o) >= 2 and d[0] in (o[0][0] + o[-1], o[0] + o[-1][0]):
        return 0.85
    ratio = difflib.SequenceMatcher(None, " ".join(d), " ".join(o)).ratio()
    return round(ratio * 0.9, 3) if ratio >= 0.85 else 0.0


def parse_member(raw: str) -> str | None:
    """The user id of a member mention (`<@123>`, `<@U123|alex>`) or bare id, else None."""
    raw = (raw or "").strip()
    m = _MENTION.match(raw)
    if m:
        return m.group(1)
    return raw if _BARE_ID.match(raw) else None


def parse_link_args(args: dict[str, Any] | None) -> tuple[dict[str, str], list[str]]:
    """Structured options (Discord) plus the words of `text` (Slack, console): `key=value`
    options (a `team=` value runs on to the next option, so team names may have spaces), a
    member mention, and the other words in order."""
    args = dict(args or {})
    text = str(args.pop("text", "") or "")
    kv = {str(k).lower(): str(v).strip() for k, v in args.items()
          if v not in (None, "", False)}
    pos: list[str] = []
    current = ""
    for tok in text.split():
        m = re.match(r"^([A-Za-z_0-9]+)[=:](.*)$", tok)
        if m and m.group(1).lower() in _KEYS:
            current = m.group(1).lower()
            kv.setdefault(current, m.group(2))
            continue
        if _MENTION.match(tok) and "member" not in kv and "user" not in kv:
            kv["member"] = tok
            current = ""
            continue
        if current in ("team", "team_id"):
            kv[current] = f"{kv[current]} {tok}".strip()
            continue
        current = ""
        pos.append(tok)
    return kv, pos


def _owner(team: Any) -> str:
    return ", ".join(getattr(team, "owners", None) or [])


def team_label(team: Any) -> str:
    """"Hoop Dreamers · Alex Rivera" (the name alone when ESPN sends no owner)."""
    owner = _owner(team)
    return f"{team.name} · {owner}" if owner else str(team.name)


class Linking:
    """Linking: which fantasy team a chat member acts for (`/link`)."""

    def __init__(self, core: ChatCore) -> None:
        self.core = core

    # ------------------------------------------------------------------ which team

    async def team_for(self, user: UserRef, platform: str | None = None) -> int | None:
        """The user's linked team in this league. Without a link: the deployment's default
        team on the console, None for a chat member (who is asked to link)."""
        for league_id, team_id in await self.core.db.linked_teams(user.platform, user.user_id):
            if self.core.league_id is None or league_id == self.core.league_id:
                return team_id
        if (platform or user.platform) == CONSOLE:
            return self.core.default_team_id
        return None

    async def require_team(self, surface: ChatSurface, thread: ThreadRef,
                           user: UserRef, *,
                           command: tuple[str, dict[str, Any]] | None = None) -> int:
        """The user's team; without one, tell them privately how to link and raise
        `Refused` (the request ends there, before any thread or run). `command` (its name
        and arguments) is kept and run once they link (`resume`)."""
        team_id = await self.team_for(user, thread.platform)
        if team_id is not None:
            return team_id
        if command is not None:
            name, args = command
            await self.remember(thread, user, f"/{name}",
                                request={"command": name, "args": dict(args or {})})
        await self.ask_to_link(surface, thread, user)
        raise Refused("no linked team")

    async def remember(self, thread: ThreadRef, user: UserRef, text: str, *,
                       request: dict[str, Any] | None = None,
                       turn_id: str | None = None) -> None:
        """Keep a question that needs the asker's link: its turn (`turn_id`, already
        recorded) or a new turn row, with status 'needs_link'. `request`: a command
        ({"command": name, "args": {...}}) or the question's Request JSON."""
        if turn_id is not None:
            await self.core.db.set_turn(turn_id, status=NEEDS_LINK)
            return
        await self.core.db.start_turn(TurnRow(
            turn_id=new_card_id(), conversation_id=thread.conversation_id,
            platform=thread.platform, workspace_id=thread.workspace_id,
            channel_id=thread.channel_id, thread_id=thread.thread_id, user_id=user.user_id,
            user_name=user.name, team_id=None, text=text, request=request, message_id=None,
            status=NEEDS_LINK, attempts=1, created_at=0.0, updated_at=0.0))

    async def waiting_question(self, thread: ThreadRef, user: UserRef) -> TurnRow | None:
        """The member's question that waited for their link, claimed (so it is answered
        once), or None."""
        turn = await self.core.db.turn_waiting_for_link(user.platform, thread.workspace_id,
                                                        user.user_id, within=RESUME_WITHIN)
        if turn is None or not await self.core.db.claim_turn(
                turn.turn_id, from_status=NEEDS_LINK, to_status="relinked"):
            return None
        return turn

    async def resume(self, surface: ChatSurface, user: UserRef, turn: TurnRow) -> None:
        """Answer the question that prompted the link request, where it was asked: in the
        channel or thread (a surface bound to a private click offers `public()`, the same
        surface posting publicly), privately for a personal command."""
        where = ThreadRef(turn.platform, turn.workspace_id, turn.channel_id, turn.thread_id)
        req = turn.request if isinstance(turn.request, dict) else None
        command = str(req["command"]) if req is not None and "command" in req else None
        public = getattr(surface, "public", None)
        if command not in PERSONAL_NAMES and callable(public):
            surface = public()
        if req is not None and command is not None:
            await self.core.handle_command(surface, where, user, str(req["command"]),
                                           dict(req.get("args") or {}))
            return
        from agents.understanding.request import Request
        request = Request.model_validate(req) if req else None
        await self.core.turns.turn(surface, where, user, turn.text, request=request)

    async def ask_to_link(self, surface: ChatSurface, thread: ThreadRef, user: UserRef) -> None:
        """The private "link your team first" message (with a one-tap button where the
        surface can show one privately)."""
        send = getattr(surface, "ephemeral_message", None)
        if send is not None:
            msg = await self.link_prompt(user, thread.platform)
            try:
                await send(thread, user, msg)
                return
            except (NotImplementedError, ChatError) as exc:
                log.info("no private buttons here (%s): text only", type(exc).__name__)
        msg = await self.link_prompt(user, thread.platform, buttons=False)
        await surface.ephemeral(thread, user, msg.text)

    async def link_prompt(self, user: UserRef, platform: str, *,
                          buttons: bool = True) -> OutgoingMessage:
        """"You haven't linked your ESPN team yet ...": the command in the platform's syntax,
        the team whose owner matches the member's name, and the teams to pick from."""
        league = await self._league()
        taken = await self._taken(user)
        suggested = self.suggest(league, user, taken) if league is not None else None
        head = ("You haven't linked your ESPN team yet, so I don't know which team is yours. "
                "Questions about your team, lineups and moves need it.")
        if suggested is not None:
            tap = f"Tap *Link {suggested.name}*, or type" if buttons else "Type"
            how = (f"Is **{suggested.name}** ({_owner(suggested)}) yours? {tap} "
                   f"`{self._typed(suggested.name, platform)}`.")
        else:
            how = (f"Link it with `{invocation('link', '', platform)}`"
                   + (" and pick your team." if platform == "discord" else
                      f" (e.g. `{self._typed('<team name>', platform)}`)."))
        msg = OutgoingMessage(f"{head}\n{how}")
        card = self._picker(league, taken, suggested=suggested) if buttons else None
        if card is not None:
            msg.cards.append(card)
        return msg

    def suggest(self, league: Any, user: UserRef,
                taken: AbstractSet[int] = frozenset()) -> Any | None:
        """The one team (not linked to another member) whose ESPN owner name matches the
        member's display name, or None when none or several match."""
        name = user.display_name or ""
        if not name:
            return None
        scored = sorted(((max((owner_score(name, o) for o in (t.owners or [])), default=0.0), t)
                         for t in league.teams if t.id not in taken),
                        key=lambda st: -st[0])
        if not scored or scored[0][0] < SUGGEST_SCORE:
            return None
        if len(scored) > 1 and scored[1][0] >= scored[0][0]:
            return None  # two Alexes: no guess
        return scored[0][1]

    @staticmethod
    def _typed(team_name: str, platform: str) -> str:
        return invocation("link", f"team:{team_name}" if platform == "discord" else team_name,
                          platform)

    def _picker(self, league: Any, taken: set[int], *, suggested: Any = None,
                current: int | None = None) -> Card | None:
        """The card with a button for the suggested team and a select of every team."""
        if league is None or not league.teams:
            return None
        buttons = [Button(f"Link {suggested.name}"[:80], link_custom_id(suggested.id),
                          "primary")] if suggested is not None else []
        options = tuple(SelectOption(
            (team_label(t) + (" (yours)" if t.id == current else
                              " (linked)" if t.id in taken else ""))[:100],
            str(t.id), default=t.id == current) for t in league.teams[:25])
        return Card(title="Link your ESPN team", buttons=buttons,
                    selects=[Select(LINK_SELECT_ID, "Pick your team", options)])

    async def team_name(self, team_id: int | None) -> str:
        """A team's name ("team 3" when ESPN cannot say)."""
        if team_id is None:
            return ""
        league = await self._league()
        for t in getattr(league, "teams", None) or []:
            if t.id == team_id:
                return str(t.name)
        return f"team {team_id}"

    # ------------------------------------------------------------------ /link

    async def cmd_link(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                       args: dict[str, Any]) -> None:
        kv, pos = parse_link_args(args)
        target = user
        raw_member = kv.get("member") or kv.get("user")
        if raw_member:
            member_id = parse_member(raw_member)
            if member_id is None:
                raise InvalidInput("Name the member with a mention, e.g. "
                                   f"`{invocation('link', 'member:@alex team:<team>', thread.platform)}`.")
            if member_id != user.user_id:
                if not user.is_admin:
                    raise InvalidInput("Only admins can link another member. Nothing was "
                                       "stored.")
                target = UserRef(user.platform, member_id, "")
        prefs: dict[str, str] = {k: kv.pop(k) for k in ("writes", "autolineup", "auto_lineup")
                                 if k in kv}
        if prefs:
            if target is not user:
                raise InvalidInput("Only the member can turn FanVise's writes to their ESPN "
                                   "team on or off. Nothing was changed.")
            if not any(k in kv for k in ("team", "team_id", "espn_s2", "s2", "swid")) \
                    and not pos:
                await self.write_prefs(surface, thread, user, prefs)
                return
        words = [p.lower() for p in pos]
        if words in (["off"], ["remove"], ["unlink"]) or \
                kv.get("remove", "").lower() in ("true", "yes", "1", "on"):
            await self._unlink(surface, thread, user, target)
            return
        team_raw = kv.get("team") or kv.get("team_id")
        if not team_raw and not pos and not any(k in kv for k in ("league", "league_id",
                                                                  "season", "espn_s2", "s2",
                                                                  "swid")):
            await self.show(surface, thread, user, target)
            return
        nums = [p for p in pos if p.isascii() and p.isdigit()]
        if pos and len(nums) != len(pos):
            if team_raw or nums:
                raise InvalidInput(f"Use `{self._typed('<team name or id>', thread.platform)}`"
                                   " (private leagues add `espn_s2=… swid=…`).")
            team_raw = " ".join(pos)  # /fanvise link Hoop Dreamers
        elif len(nums) == 1:
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
        team_raw = team_raw or kv.get("team") or kv.get("team_id")
        league_raw = kv.get("league") or kv.get("league_id")
        season_raw = kv.get("season")
        s2 = kv.get("espn_s2") or kv.get("s2")
        swid = kv.get("swid")
        if not team_raw:
            raise InvalidInput(f"Which team? `{self._typed('<team name or id>', thread.platform)}`"
                               f" (`{invocation('link', '', thread.platform)}` alone lists the "
                               "teams).")
        try:
            league_id = int(league_raw) if league_raw else self.core.league_id
            season = int(season_raw) if season_raw else self.core.season
        except ValueError:
            raise InvalidInput("league and season must be numbers.") from None
        if league_id is None:
            raise InvalidInput("Which league? `/link league=<id> team=<id>`.")
        if season is not None and not 2000 <= season <= 2100:
            raise InvalidInput("Season is the year the NBA season ends, e.g. 2025.")
        if bool(s2) != bool(swid):
            raise InvalidInput("Give both espn_s2 and swid, or neither. Nothing was stored.")
        if s2 and target is not user:
            raise InvalidInput("ESPN cookies are each member's own: link the member without "
                               "them. Nothing was stored.")
        if self.core.league_id is not None and league_id != self.core.league_id:
            raise InvalidInput(f"This FanVise serves ESPN league {self.core.league_id}; league "
                               f"{league_id} needs its own deployment "
                               "(FANVISE_ESPN_LEAGUE_ID). Nothing was stored.")
        team_id, name = await self._resolve_team(team_raw, league_id)
        cookies = (s2, swid) if s2 and swid else None
        await self._link(surface, thread, user, target, team_id, name, league_id=league_id,
                         season=season, cookies=cookies)
        if prefs:
            await self.write_prefs(surface, thread, user, prefs)

    async def write_prefs(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                          prefs: dict[str, str]) -> None:
        """`/link writes:on|off` and `/link autolineup:on|off`: the member's own opt-ins to
        FanVise writing to their ESPN team (both off by default; bot.core.handoff)."""
        vals: dict[str, bool] = {}
        for key, raw in prefs.items():
            word = raw.strip().lower()
            if word not in _ON + _OFF:
                raise InvalidInput(f"Use `{invocation('link', 'writes:on', thread.platform)}` "
                                   f"or `{invocation('link', 'writes:off', thread.platform)}` "
                                   "(autolineup the same). Nothing was changed.")
            vals["writes" if key == "writes" else "auto_lineup"] = word in _ON
        if vals.get("writes") or vals.get("auto_lineup"):
            why = await self._not_owner(thread, user)
            if why:
                raise InvalidInput(f"Writes stay off: {why}. Nothing was changed.")
        writes, auto = await self.core.db.set_write_prefs(
            user.platform, thread.workspace_id, user.user_id, **vals)
        if vals.get("auto_lineup") and not writes:
            writes, auto = await self.core.db.set_write_prefs(
                user.platform, thread.workspace_id, user.user_id, writes=True)
        lines = [("Writes are on: the moves you approve and the lineups you tap are made on "
                  "ESPN with your own cookies, each once, and the card says what ESPN did."
                  if writes else "Writes are off: FanVise shows the steps and a link; you make "
                  "each change on ESPN."),
                 ("Auto lineup is on: FanVise sets your best lineup every morning and again "
                  "before lock when a starter is ruled out; the digest says so."
                  if auto else "Auto lineup is off.")]
        if getattr(self.core.espn, "demo", None) is not None:
            lines.insert(0, "(The demo league always takes FanVise's changes through its copy "
                         "of ESPN's endpoint; on a live league this is the switch.)")
        if writes:
            from bot.core.handoff import writes_of
            link = await self.core.db.get_link(user.platform, thread.workspace_id,
                                               user.user_id)
            access = await writes_of(self.core).access(
                user.platform, thread.workspace_id, user.user_id,
                link.team_id if link is not None else -1)
            if not access.allowed:
                lines.append(f"Not yet in effect: {access.why}.")
        lines.append("ESPN's write endpoint is unofficial: it may change without notice.")
        await surface.ephemeral(thread, user, " ".join(lines))

    async def _not_owner(self, thread: ThreadRef, user: UserRef) -> str:
        """Why the member's linked cookies may not write to their team ("" when they may,
        or when there are no cookies yet: the hand-off says so). A live league only: the
        cookies' SWID must be one of the team's owners on ESPN (`EspnWrites.owner_check`)."""
        if getattr(self.core.espn, "demo", None) is not None or self.core.espn is None:
            return ""
        link = await self.core.db.get_link(user.platform, thread.workspace_id, user.user_id)
        creds = link.cookies() if link is not None else None
        if link is None or creds is None:
            return ""
        from bot.core.handoff import writes_of
        return await writes_of(self.core).owner_check(link.team_id, creds[1])

    async def click(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                    team_id: int) -> None:
        """A `fv:link:team:<id>` click (the suggestion button or the /link select): link the
        clicker to that team, with the same checks as `/link team=<id>`."""
        try:
            if self.core.league_id is None:
                raise InvalidInput("This FanVise has no ESPN league configured.")
            team_id, name = await self._resolve_team(str(team_id), self.core.league_id)
            await self._link(surface, thread, user, user, team_id, name,
                             league_id=self.core.league_id, season=self.core.season,
                             cookies=None, ask_again=True)
        except InvalidInput as exc:
            await surface.ephemeral(thread, user, str(exc))

    async def show(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                   target: UserRef) -> None:
        """`/link` alone: the member's link (team by name) and the teams to pick from."""
        ws = thread.workspace_id
        link = await self.core.db.get_link(target.platform, ws, target.user_id)
        league = await self._league()
        taken = await self._taken(target)
        who = "You" if target is user else f"<@{target.user_id}>"
        if link is None:
            text = f"{who} have no league link." if target is user else \
                f"{who} has no league link."
            suggested = self.suggest(league, target, taken) if league is not None else None
            if suggested is not None:
                text += f" Is **{suggested.name}** ({_owner(suggested)}) yours?"
            text += (f" Pick the team below, or type "
                     f"`{self._typed('<team name>', thread.platform)}`.")
            if thread.platform == CONSOLE and self.core.default_team_id is not None:
                text += (" Until then the console acts for "
                         f"{await self.team_name(self.core.default_team_id)}.")
        else:
            suggested = None
            name = await self.team_name(link.team_id)
            text = (f"{who} {'are' if target is user else 'is'} linked to **{name}** (team "
                    f"{link.team_id}) in ESPN league {link.league_id} "
                    f"({link.season or 'current season'}); cookies "
                    f"{'stored encrypted' if link.has_cookies else 'not stored'}. Pick another "
                    f"team below to change it; `{invocation('link', 'off', thread.platform)}` "
                    "removes it.")
        card = self._picker(league, taken, suggested=suggested,
                            current=link.team_id if link is not None else None)
        if card is None or target is not user:  # the select links whoever picks
            await surface.ephemeral(thread, user, text)
            return
        await surface.post(thread, OutgoingMessage(text, cards=[card]))

    async def _unlink(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                      target: UserRef) -> None:
        gone = await self.core.db.delete_link(target.platform, thread.workspace_id,
                                              target.user_id)
        if target is user:
            text = ("Your league link (and any stored cookies) was removed." if gone
                    else "You had no league link.")
        else:
            text = (f"<@{target.user_id}>'s league link was removed." if gone
                    else f"<@{target.user_id}> had no league link.")
        await surface.ephemeral(thread, user, text)

    async def _resolve_team(self, raw: str, league_id: int) -> tuple[int, str]:
        """(team id, name) of a team id or name (exact name, abbreviation, owner, or a
        unique part of one); without ESPN only an id can be taken (unverified)."""
        raw = raw.strip()
        league = await self._league()
        if league is None:
            if raw.isascii() and raw.isdigit():
                log.warning("could not verify the team of a /link (ESPN unavailable)")
                return int(raw), f"team {raw}"
            raise InvalidInput("I can't reach ESPN to look teams up by name right now: use "
                               "the team id (in the ESPN team page URL: ...&teamId=<id>).")
        team = league.find_team(raw)
        if team is None:
            names = ", ".join(t.name for t in league.teams)
            if raw.isascii() and raw.isdigit():
                ids = ", ".join(str(t.id) for t in sorted(league.teams, key=lambda t: t.id))
                raise InvalidInput(f"League {league_id} has no team {raw}; team ids: {ids}.")
            raise InvalidInput(f"No team matches \"{raw[:60]}\" in league {league_id}. Teams: "
                               f"{names}.")
        return int(team.id), str(team.name)

    async def _link(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                    target: UserRef, team_id: int, name: str, *, league_id: int,
                    season: int | None, cookies: tuple[str, str] | None,
                    ask_again: bool = False) -> None:
        ws = thread.workspace_id
        others = [lk for lk in await self.core.db.links_for_team(league_id, team_id)
                  if (lk.platform, lk.user_id) != (target.platform, target.user_id)]
        if others and not user.is_admin:  # else a stranger could decide that member's cards
            raise InvalidInput(
                f"{name} is already linked to another member. Ask them to run "
                f"`{invocation('link', 'off', thread.platform)}` first, or ask an admin. "
                "Nothing was stored.")
        try:
            await self.core.db.set_link(platform=target.platform, workspace_id=ws,
                                        user_id=target.user_id, league_id=league_id,
                                        season=season, team_id=team_id, cookies=cookies)
        except SecretKeyMissing as exc:
            raise InvalidInput(str(exc)) from None
        if cookies:
            from fantasy.redact import register_secret
            register_secret(cookies[0])
            register_secret(cookies[1])
        if target is not user:  # an admin's link never writes for the member: they opt in
            await self.core.db.set_write_prefs(target.platform, ws, target.user_id,
                                               writes=False, auto_lineup=False)
        who = "you" if target is user else f"<@{target.user_id}>"
        text = (f"Linked {who} to **{name}** (team {team_id}) in ESPN league {league_id} "
                f"({season or 'current season'}).")
        if cookies:
            text += " Your ESPN cookies are stored encrypted."
        if others:
            text += " (An admin link: that team's other members stay linked too.)"
        waiting = await self.waiting_question(thread, target) if target is user else None
        if waiting is not None:
            text += f" Now answering your question: “{clip(waiting.text, 100)}”."
        elif ask_again:
            text += " Ask again and I'll use your team."
        await surface.ephemeral(thread, user, text)
        if waiting is not None:
            await self.resume(surface, user, waiting)

    # ------------------------------------------------------------------ helpers

    async def _league(self) -> Any | None:
        if self.core.espn is None:
            return None
        from fantasy.espn.errors import EspnError
        try:
            return await self.core.espn.get_league()
        except EspnError:
            return None

    async def _taken(self, user: UserRef) -> set[int]:
        """Teams linked to members other than `user` in this league."""
        if self.core.league_id is None:
            return set()
        links: list[LeagueLink] = await self.core.db.links_for_league(self.core.league_id)
        return {lk.team_id for lk in links
                if (lk.platform, lk.user_id) != (user.platform, user.user_id)}

    async def team_choices(self, query: str) -> list[Choice]:
        """The league's teams, "Team name · owner", matching `query` (name, owner or id);
        the value is the team id (`/link team=<id>`)."""
        league = await self._league()
        if league is None:
            return []
        q = (query or "").strip().lower()
        out = []
        for team in league.teams:
            label = team_label(team)
            if not q or q in label.lower() or q == str(team.id):
                out.append(Choice(label[:100], str(team.id)))
        return out[:25]
