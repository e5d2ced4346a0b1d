"""The grammar of every FanVise button and menu id, built and parsed here only.

Ids are strings the platforms keep on posted messages, so a click on a card sent before a
restart still means the same thing. All of them start with `fv:`:

    fv:<approve|decline|approveall|declineall>:<card id>[:<move index>]   a card's decision
    fv:approve:<fix id>                     "Set this lineup" (a lineup fix; a card-wide approve)
    fv:do:<offers id>:<offer index>         an answer's follow-up offer
    fv:pick:<card id>:<move index>          a move's menu of other players; choosing option v
                                            is the click fv:pick:<card id>:<move index>:<v>
    fv:link:team:<team id>                  link the clicker to that team (the /link select's
                                            own id is fv:link:team)
    fv:page:<card id>:<page>                Discord: another page of a long card (decides nothing)
    fv:share:<command>                      Discord: post a private answer to the channel

Card, fix and offers ids are 12 hex characters (`storage.app_db.new_card_id`). Slack's link
buttons (which open a page and decide nothing) get the action id `fvlink:<k>`.

The Discord persistent-item templates and Slack's action pattern are derived from the same
fragments (`DISCORD_BUTTON_TEMPLATE`, `DISCORD_SELECT_TEMPLATE`, `PAGE_TEMPLATE`,
`SHARE_TEMPLATE`, `CUSTOM_ID_RE`), so the grammar changes in this module alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: a card, lineup-fix or offers id
ID = r"[0-9a-f]{12}"
#: a move (or offer) index, and a menu's chosen option
INDEX = r"[0-9]{1,3}"
TEAM = r"[0-9]{1,4}"
PAGE = r"[0-9]{1,2}"
SHARE_NAME = r"[a-z]{1,32}"

#: card decisions (each with its card id and, for one move, the move's index)
DECISIONS = ("approve", "decline", "approveall", "declineall")
ACTIONS = (*DECISIONS, "do", "pick")
#: the /link team select; choosing team t is the click `fv:link:team:<t>`
LINK_SELECT_ID = "fv:link:team"
SHARE_PREFIX = "fv:share:"
#: Slack's action id of a link button (`fvlink:<k>`): acknowledged, never routed
SLACK_LINK_PREFIX = "fvlink:"

_DECISION_ALT = "|".join(DECISIONS)

#: every id the core routes (a click, a menu choice, a team link)
CUSTOM_ID_RE = re.compile(
    rf"^fv:(?:(?P<action>{_DECISION_ALT}|do|pick):"
    rf"(?P<card_id>{ID})(?::(?P<index>{INDEX}))?(?::(?P<value>{INDEX}))?"
    rf"|link:team(?::(?P<team>{TEAM}))?)$")
#: Discord: the buttons the core routes (DynamicItem templates are fullmatched)
DISCORD_BUTTON_TEMPLATE = (rf"fv:(?:(?P<action>{_DECISION_ALT}|do):"
                           rf"(?P<card_id>{ID})(?::(?P<index>{INDEX}))?"
                           rf"|link:team:{TEAM})")
#: Discord: a move's menu (its options complete the click id) and the /link team select
DISCORD_SELECT_TEMPLATE = rf"fv:(?:pick:(?P<card_id>{ID}):(?P<index>{INDEX})|link:team)"
#: Discord: Previous / Next of a paginated card
PAGE_TEMPLATE = rf"fv:page:(?P<card_id>{ID}):(?P<page>{PAGE})"
#: Discord: "Post to channel" under a personal command's private answer
SHARE_TEMPLATE = rf"{SHARE_PREFIX}(?P<name>{SHARE_NAME})"
#: Slack: the action ids of link buttons
SLACK_LINK_RE = re.compile(rf"^{SLACK_LINK_PREFIX}")


@dataclass(frozen=True)
class ClickId:
    """A parsed button id."""

    action: str
    card_id: str
    index: int | None = None
    value: int | None = None  # pick: the card index of the chosen move; link: the team id

    @property
    def decision(self) -> str:
        """"approve", "decline" or "pick" (a menu choice: it chooses, never approves)."""
        if self.action == "pick":
            return "pick"
        return "approve" if self.action.startswith("approve") else "decline"

    @property
    def all_moves(self) -> bool:
        """True for approveall / declineall (and for a per-move-less approve/decline)."""
        return self.action.endswith("all") or self.index is None


def make_custom_id(action: str, card_id: str, index: int | None = None) -> str:
    """Build a button id (asserts the contract's shape and < 100 chars)."""
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}")
    cid = f"fv:{action}:{card_id}" + (f":{index}" if index is not None else "")
    if action == "pick" and index is None:
        raise ValueError("a pick menu needs its move index")
    if not CUSTOM_ID_RE.fullmatch(cid) or len(cid) >= 100:
        raise ValueError(f"bad custom id {cid!r}")
    return cid


def lineup_fix_id(fix_id: str) -> str:
    """The id of "Set this lineup" under a lineup fix (`fv:approve:<fix id>`): the pre-lock
    handler claims it before the approvals do (`Prelock.handle_click`)."""
    return make_custom_id("approve", fix_id)


def parse_custom_id(custom_id: str) -> ClickId | None:
    """Parse a button id; None when it is not one of ours."""
    m = CUSTOM_ID_RE.fullmatch(custom_id or "")  # `$` alone accepted a trailing "\n"
    if m and m["action"] is None:  # fv:link:team:<id>; the select's own id is no click
        return ClickId("link", "", None, int(m["team"])) if m["team"] else None
    if not m or (m["action"] == "do" and m["index"] is None):
        return None
    if (m["action"] == "pick") != (m["value"] is not None) or \
            (m["action"] == "pick" and m["index"] is None):
        return None  # a choice names its menu and its option; nothing else has a value
    idx, val = m["index"], m["value"]
    return ClickId(m["action"], m["card_id"], int(idx) if idx is not None else None,
                   int(val) if val is not None else None)


def link_custom_id(team_id: int) -> str:
    """The id of a button that links the clicker to fantasy team `team_id`."""
    cid = f"{LINK_SELECT_ID}:{int(team_id)}"
    if not CUSTOM_ID_RE.fullmatch(cid):
        raise ValueError(f"bad team id {team_id!r}")
    return cid


def page_custom_id(card_id: str, page: int) -> str:
    """The id of a page button (shows page `page` of the card)."""
    cid = f"fv:page:{card_id}:{page}"
    if not re.fullmatch(PAGE_TEMPLATE, cid):
        raise ValueError(f"bad page id {cid!r}")
    return cid


def parse_page_id(custom_id: str) -> tuple[str, int] | None:
    """(card id, page) of a page button's id; None when it is not one."""
    m = re.fullmatch(PAGE_TEMPLATE, custom_id or "")
    return (m["card_id"], int(m["page"])) if m else None


def share_custom_id(name: str) -> str:
    """The id of "Post to channel" under the private answer of command `name`."""
    cid = f"{SHARE_PREFIX}{name}"
    if not re.fullmatch(SHARE_TEMPLATE, cid):
        raise ValueError(f"bad share id {cid!r}")
    return cid


def parse_share_id(custom_id: str) -> str | None:
    """The command name of a "Post to channel" id; None when it is not one."""
    m = re.fullmatch(SHARE_TEMPLATE, custom_id or "")
    return m["name"] if m else None


def is_share_id(custom_id: str | None) -> bool:
    """True for the id of a "Post to channel" button."""
    return str(custom_id or "").startswith(SHARE_PREFIX)


def slack_link_action_id(k: int) -> str:
    """Slack's action id of the k-th link button of a message (opens a page, decides
    nothing)."""
    return f"{SLACK_LINK_PREFIX}{k}"


__all__ = ["ACTIONS", "CUSTOM_ID_RE", "DECISIONS", "DISCORD_BUTTON_TEMPLATE",
           "DISCORD_SELECT_TEMPLATE", "LINK_SELECT_ID", "PAGE_TEMPLATE", "SHARE_TEMPLATE",
           "SLACK_LINK_RE", "ClickId", "is_share_id", "lineup_fix_id", "link_custom_id",
           "make_custom_id", "page_custom_id", "parse_custom_id", "parse_page_id",
           "parse_share_id", "share_custom_id", "slack_link_action_id"]
