"""The daily post as a league digest: one post per channel that mentions each linked owner
with their own lineup fixes, the best move when one is worth it and their ESPN team page.

    owners = await linked_owners(core, platform, workspace_id)
    opt = await league_optimizer(core.espn, owners)
    entries = [owner_entry(opt, o, ...) for o in owners]
    messages = render_digest(entries, platform=..., day=..., max_text=surface.max_text)

The fixes are `OptimizerService.daily_lineup`'s changes (rendered with agents.answers.lineup's
own lines), the move is `scan_moves`' best; each entry also carries the team's
`fantasy.lineup_alerts.LineupState`, which the digest records for the pre-lock alert.

Mentions: every owner with something to do (and every owner who is all set) is mentioned in
the first message's text (`<@id>`), on both platforms: Discord pings the users named in a
message's content, and Slack's renderer lets the ids in `OutgoingMessage.mentions` through
(it neutralises every other mention). A card names its owners too: in its text on Discord,
in its footer on Slack (Slack neutralises mentions in a card's text, not in its footer).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from bot.core.commands import invocation
from bot.core.models import Button, Card, OutgoingMessage
from fantasy.constants import OUT_STATUSES
from fantasy.formatting import day_text
from fantasy.lineup_alerts import LineupState, espn_team_url, lineup_state
from fantasy.moves import Move

log = logging.getLogger(__name__)

#: Owner cards per message (Discord allows 10 embeds, Slack 50 blocks: 5 cards stay well
#: inside both), and at most this many characters of card text per message, in max_texts.
CARDS_PER_MESSAGE = 5
TEXT_PER_MESSAGE = 2


@dataclass
class Owner:
    """A linked team and the chat members linked to it in this workspace."""

    team_id: int
    user_ids: list[str]


@dataclass
class OwnerEntry:
    """One team's part of the digest."""

    team_id: int
    user_ids: list[str]
    team_name: str
    owner_names: str
    fixes: list[str]
    move: str | None
    url: str
    state: LineupState = field(default_factory=LineupState)
    #: "Set this lineup" (bot.core.handoff writes) when FanVise may write for the owner
    buttons: list[Button] = field(default_factory=list)
    #: what the automatic lineup did this morning ("" when the owner has it off)
    auto_note: str = ""
    #: the footer's words about the buttons ("One tap sets it on ESPN.")
    button_note: str = ""

    @property
    def mentions(self) -> str:
        return " ".join(f"<@{u}>" for u in self.user_ids)


def mentions_in_cards(platform: str) -> bool:
    """True where a mention in a card's text shows as the member (Discord, console); Slack
    neutralises it there, so a Slack card names its owners in its footer (module docstring).
    Mentions in a message's text ping everywhere (`OutgoingMessage.mentions` on Slack)."""
    return platform != "slack"


async def linked_owners(core: Any, platform: str, workspace_id: str) -> list[Owner]:
    """The teams linked by members of this workspace on this platform (this league only),
    in team order; a team linked by several members lists each of them."""
    rows = await core.db.db.fetchall(
        "SELECT * FROM league_links WHERE platform=? AND workspace_id=? ORDER BY team_id, "
        "updated_at", (platform, workspace_id))
    by_team: dict[int, Owner] = {}
    for r in rows:
        if core.league_id is not None and int(r["league_id"]) != core.league_id:
            continue
        tid = int(r["team_id"])
        by_team.setdefault(tid, Owner(tid, [])).user_ids.append(str(r["user_id"]))
    return list(by_team.values())


async def league_optimizer(espn: Any, team_id: int | None) -> Any:
    """A fresh `OptimizerService` of the league (one for every team of the digest)."""
    from agents.shared.deps import AgentDeps, optimizer_for

    deps = AgentDeps.for_client(espn, model=None, my_team_id=team_id)  # type: ignore[arg-type]
    return await optimizer_for(deps, refresh=True)


def fix_lines(res: dict[str, Any]) -> list[str]:
    """The lineup fixes of a `DailyLineupResult.to_dict()`: starts (bench players who should
    start, empty slots filled, starters without a game or injured replaced), then injured
    starters nobody replaces. Benching players who count for nothing either way is left out."""
    from agents.answers.lineup import change_lines, day_ranks, status_word

    unit = str(res.get("value_unit", ""))
    lines = [ln for ln in change_lines(res.get("changes") or [], unit, day_ranks(res))
             if "can stay where" not in ln]
    named = " ".join(lines)
    playing = {s.get("player_id") for s in res.get("starters") or []}
    for i in res.get("injured_starters") or []:
        if i["name"] in named:
            continue
        status = str(i.get("injury_status") or "")
        if status in OUT_STATUSES:
            lines.append(f"{i['name']} ({status_word(status)}) is in your {i['slot']} slot and "
                         "no one on your roster can take it")
        elif i.get("player_id") in playing:
            lines.append(f"{i['name']} is {status_word(status)}: check his status before lock")
    return lines


def best_move_line(moves: dict[str, Any] | None, platform: str) -> str | None:
    """The plan's best move (`agents.answers.lineup.lineup_moves`: the card's first move, its
    line and numbers, the week plan's scheduled moves fixed) with how to approve it."""
    best = str((moves or {}).get("best") or "")
    if not best:
        return None
    return f"Best move: {best}: `{invocation('optimize', '', platform)}` to approve it"


def owner_entry(opt: Any, owner: Owner, *, league_id: int | None, season: int | None,
                platform: str, day: date | None = None,
                planned: Sequence[Move] = ()) -> OwnerEntry:
    """One team's digest entry (`opt` an OptimizerService of the league; `planned`: the
    team's scheduled moves, its week plan)."""
    from agents.answers.lineup import lineup_moves

    team = opt.league.team(owner.team_id)
    result = opt.daily_lineup(owner.team_id, day, planned=planned)
    res = result.to_dict()
    try:
        scan = lineup_moves(opt.move_plan(owner.team_id, planned=planned))
    except (ValueError, LookupError):
        scan = None
    return OwnerEntry(
        owner.team_id, owner.user_ids, getattr(team, "name", f"team {owner.team_id}"),
        ", ".join(getattr(team, "owners", None) or []), fix_lines(res),
        best_move_line(scan, platform),
        espn_team_url(league_id, owner.team_id, season),
        lineup_state(opt, owner.team_id, day, result=result))


def _when(day: date) -> str:
    return day_text(day)


def no_links_message(platform: str, day: date) -> OutgoingMessage:
    """The digest of a channel whose members linked no team yet: how to link."""
    return OutgoingMessage(
        f"**Daily lineup digest · {_when(day)}**\nNo one here has linked their ESPN team yet, "
        f"so there is no one to tell about their lineup. Link yours with "
        f"`{invocation('link', '', platform)}` (pick your team) and tomorrow's digest "
        "mentions you with your own fixes.")


def _owner_card(e: OwnerEntry, platform: str, max_text: int) -> Card:
    lines = [f"• {f}" for f in e.fixes]
    if e.auto_note:
        lines.insert(0, e.auto_note)
    if e.move:
        lines.append(f"• {e.move}")
    head = f"{e.mentions} " if mentions_in_cards(platform) else ""
    n = len(e.fixes)
    summary = (f"{head}{n} lineup fix{'es' if n != 1 else ''} for today"
               if n else f"{head}Lineup is set; one move worth a look")
    text = "\n".join([summary + ":", *lines, f"[Open {e.team_name} on ESPN]({e.url})"])
    if len(text) > max_text - 50:
        text = text[: max_text - 51].rsplit("\n", 1)[0] + "\n…"
    title = e.team_name + (f" · {e.owner_names}" if e.owner_names else "")
    footer = (e.button_note or "One tap sets it.") if e.buttons \
        else "Set these on your ESPN team page."
    if not mentions_in_cards(platform):
        footer = f"For {e.mentions} · {footer}"
    return Card(title=title, text=text, color="orange" if e.fixes else "blue", footer=footer,
                buttons=list(e.buttons))


def _all_set_line(e: OwnerEntry) -> str:
    auto = f" ({e.auto_note[0].lower()}{e.auto_note[1:]})" if e.auto_note else ""
    return f"✅ {e.mentions} {e.team_name}: nothing to fix{auto}"


def render_digest(entries: list[OwnerEntry], *, platform: str, day: date,
                  max_text: int, first_game: str = "") -> list[OutgoingMessage]:
    """The digest as the messages to post in order: the first carries the header and every
    owner's mention (its `mentions`, so they ping on Slack too), then a card per owner with
    something to do, at most `CARDS_PER_MESSAGE` cards and about `TEXT_PER_MESSAGE` x `max_text`
    characters per message. Owners with nothing to fix get one short line."""
    todo = [e for e in entries if e.fixes or e.move]
    done = [e for e in entries if not (e.fixes or e.move)]
    lock = f" before the first game ({first_game})" if first_game else " before lock"
    head = [f"**Daily lineup digest · {_when(day)}**",
            f"{len(todo)} of {len(entries)} linked team{'s' if len(entries) != 1 else ''} "
            f"have something to do{lock}. Reply in the thread under this post to ask "
            "FanVise about your lineup."]
    if todo:
        head.append(" ".join(e.mentions for e in todo))
    cards = [_owner_card(e, platform, max_text) for e in todo]
    head.extend(_all_set_line(e) for e in done)
    text = "\n".join(head)
    if len(text) > max_text:
        text = text[: max_text - 1].rsplit("\n", 1)[0]
    pinged = dict.fromkeys(u for e in todo + done for u in e.user_ids if f"<@{u}>" in text)
    messages = [OutgoingMessage(text, mentions=tuple(pinged))]
    budget = TEXT_PER_MESSAGE * max_text
    used = 0
    for card in cards:
        size = len(card.title) + len(card.text) + len(card.footer)
        cur = messages[-1]
        # Discord draws a message's buttons below all its cards: an owner card with a button
        # ends its message, so the button sits right under that owner's lineup
        ends = platform == "discord" and bool(cur.cards) and bool(cur.cards[-1].buttons)
        if cur.cards and (len(cur.cards) >= CARDS_PER_MESSAGE or used + size > budget or ends):
            messages.append(OutgoingMessage(""))
            used = 0
        messages[-1].cards.append(card)
        used += size
    return messages


__all__ = ["Owner", "OwnerEntry", "best_move_line", "fix_lines", "league_optimizer",
           "linked_owners", "mentions_in_cards", "no_links_message", "owner_entry",
           "render_digest"]
