"""Turn runtime events and optimizer results into the neutral chat model (text + Cards).

Adapters draw `Card`s; nothing here knows about Discord or Slack. Button ids follow the
contract `fv:<approve|decline|approveall|declineall>:<card_id 12 hex>[:<move index>]`;
an answer's follow-up offers are `fv:do:<offers id 12 hex>:<offer index>`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.core.models import Button, Card, OutgoingMessage, Select, SelectOption
from bot.core.timestamps import discord_ts
from fantasy.constants import OUT_STATUSES, UNCERTAIN_STATUSES
from fantasy.moves import text_of

ACTIONS = ("approve", "decline", "approveall", "declineall", "do", "pick")
#: fv:pick:<card_id>:<move index> is a select menu; choosing option v is fv:pick:...:<index>:v
#: fv:link:team:<team id> links the clicker to that team (a button, or the choice of the
#: `fv:link:team` select of /link)
CUSTOM_ID_RE = re.compile(
    r"^fv:(?:(?P<action>approve|decline|approveall|declineall|do|pick):"
    r"(?P<card_id>[0-9a-f]{12})(?::(?P<index>[0-9]{1,3}))?(?::(?P<value>[0-9]{1,3}))?"
    r"|link:team(?::(?P<team>[0-9]{1,4}))?)$")
#: the /link team select; choosing team t is the click `fv:link:team:<t>`
LINK_SELECT_ID = "fv:link:team"
#: At most this many offer buttons under an answer.
MAX_OFFERS = 5
#: Per-move buttons are drawn for at most this many moves (Discord: 25 buttons per message).
MAX_MOVE_BUTTONS = 10

_REC_COLORS = {"ACTIVE": "green", "MONITOR": "yellow", "HOLD": "blue", "STREAM": "orange",
               "DROP": "red"}
_STATUS_ICONS = {"approve": "✅", "decline": "❌"}


@dataclass(frozen=True)
class ClickId:
    """A parsed button id."""

    action: str
    card_id: str
    index: int | None = None
    value: int | None = None  # pick: the card index of the chosen move; link: the team id

    @property
    def decision(self) -> str:
        """"approve" or "decline" (a pick from a menu approves the chosen move)."""
        return "approve" if self.action.startswith("approve") or self.action == "pick" \
            else "decline"

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


# ---------------------------------------------------------------------- text

def clip(text: str, limit: int) -> str:
    """Cut `text` to at most `limit` characters, marking the cut with an ellipsis."""
    text = text or ""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def split_text(text: str, limit: int) -> list[str]:
    """Split text into chunks of at most `limit` chars, preferring paragraph, line, then
    word boundaries. Never returns an empty list."""
    if limit < 20:
        raise ValueError("limit too small")
    text = text or ""
    chunks: list[str] = []
    rest = text
    while len(rest) > limit:
        window = rest[:limit]
        cut = -1
        for sep in ("\n\n", "\n", " "):
            pos = window.rfind(sep)
            if pos >= limit // 3:
                cut = pos
                break
        if cut <= 0:
            chunks.append(window)
            rest = rest[limit:]
        else:
            chunks.append(rest[:cut].rstrip())
            rest = rest[cut:].lstrip("\n ")
    if rest or not chunks:
        chunks.append(rest)
    return chunks


def progress_text(lines: Sequence[str], *, done: bool = False, limit: int = 2000) -> str:
    """The live progress message: the last few steps, the newest marked as running."""
    shown = list(lines)[-6:]
    out = []
    for i, line in enumerate(shown):
        last = i == len(shown) - 1
        out.append(("⏳ " if last and not done else "✓ ") + line)
    text = "\n".join(out) or "⏳ Working on it…"
    if len(text) > limit:
        text = "…" + text[-(limit - 1):]
    return text


# ---------------------------------------------------------------------- player report

def _fmt_source(src: Any) -> str:
    if isinstance(src, dict):
        title = src.get("title") or src.get("source") or src.get("name") or "source"
        url = src.get("url") or src.get("link") or ""
        when = src.get("published") or src.get("publishedAt") or src.get("date") or ""
        base = f"{title}" + (f" ({when})" if when else "")
        return f"{base} — {url}" if url else base
    return str(src)


#: Statuses that keep a player out for a reason other than an injury.
_NOT_INJURY = {"SUSPENSION": "suspension", "BEREAVEMENT": "bereavement leave",
               "PATERNITY": "paternity leave"}


def _injury_text(status: str, injury: Any) -> str:
    """The Injury field, consistent with the status: "none reported" only for a player
    ESPN lists as available; an out or doubtful player without a known injury says so."""
    if status in _NOT_INJURY:
        return f"none: {_NOT_INJURY[status]}"
    if injury:
        return str(injury)
    if status in ("", "UNKNOWN"):
        return "unknown"
    if status in OUT_STATUSES or status in UNCERTAIN_STATUSES:
        return "not specified by ESPN or the news"
    return "none reported"


def _return_text(status: str, ret: Any) -> str | None:
    """Expected return: the date when known; "unknown" only when he is out or doubtful."""
    if ret:
        return str(ret)
    if status in OUT_STATUSES or status in UNCERTAIN_STATUSES or status in ("", "UNKNOWN"):
        return "unknown"
    return None  # healthy: nothing to return from


def _fetched_footer(fetched: Any) -> str:
    """"Fetched <t:EPOCH:R>" (a local time on every platform); an unparsable value as it is."""
    if not fetched:
        return ""
    try:
        return f"Fetched {discord_ts(fetched, 'R')}"
    except (TypeError, ValueError, OverflowError):
        return f"Fetched {fetched}"


def render_report(report: dict[str, Any]) -> Card:
    """A player report (playerName, status, injuryType, expectedReturnDate, recommendation,
    confidence, summary, sources, fetchedAt) as a Card whose fields agree with each other."""
    rec = str(report.get("recommendation") or "").upper()
    status = str(report.get("status") or "").upper()
    fields: list[tuple[str, str]] = [
        ("Status", status or "unknown"),
        ("Injury", _injury_text(status, report.get("injuryType"))),
    ]
    ret = _return_text(status, report.get("expectedReturnDate"))
    if ret is not None:
        fields.append(("Expected return", ret))
    fields += [("Recommendation", rec or "—"),
               ("Confidence", str(report.get("confidence") or "—"))]
    sources = report.get("sources") or []
    if isinstance(sources, (str, dict)):
        sources = [sources]
    if sources:
        fields.append(("Sources", "\n".join(f"• {_fmt_source(s)}" for s in list(sources)[:5])))
    return Card(title=f"Player report: {report.get('playerName') or 'unknown player'}",
                text=str(report.get("summary") or ""), fields=fields,
                color=_REC_COLORS.get(rec, "grey"), footer=_fetched_footer(report.get("fetchedAt")))


def is_player_report(report: Any) -> bool:
    """True when a dict looks like a player research report."""
    return isinstance(report, dict) and "playerName" in report and "recommendation" in report


# ---------------------------------------------------------------------- move cards

def conflicts(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """True when two moves drop or add the same player (alternatives: only one can apply)."""
    def pid(m: dict[str, Any], side: str) -> Any:
        return (m.get(side) or {}).get("id")
    return ((pid(a, "drop") is not None and pid(a, "drop") == pid(b, "drop"))
            or (pid(a, "add") is not None and pid(a, "add") == pid(b, "add")))


def move_label(move: dict[str, Any]) -> str:
    """"Drop X, add Y" for one move dict (fantasy.moves.text_of, the one formatter)."""
    return text_of(move, capital=True)


def _move_field(i: int, move: dict[str, Any], decision: str | None,
                outcome: dict[str, str] | None = None) -> tuple[str, str]:
    gain = move.get("expected_gain")
    unit = str(move.get("gain_unit") or "").strip()
    parts = []
    if isinstance(gain, (int, float)):
        parts.append(f"Expected gain: {gain:+.2f}" + (f" {unit}" if unit else "")
                     + " over the rest of the matchup")
    elif gain is not None:
        parts.append(f"Expected gain: {gain}")
    games = move.get("games")
    if isinstance(games, int) and not isinstance(games, bool) and games:
        parts.append(f"{games:+d} game{'s' if abs(games) != 1 else ''} started")
    if move.get("confidence"):
        parts.append(f"confidence: {move['confidence']}")
    reasons = [str(r) for r in (move.get("reasons") or [])][:4]
    body = " · ".join(parts)
    if reasons:
        body += "\n" + "\n".join(f"• {r}" for r in reasons)
    icon = (_STATUS_ICONS.get(decision, "") + " ") if decision else ""
    status = (outcome or {}).get("status")
    if decision == "approve" and status and status not in ("applied", "recorded"):
        # failed / skipped (an alternative for the same player was applied)
        # approved, but it did not happen (a player was taken meanwhile, a conflict...)
        icon = "⚠️ "
        note = clip(str((outcome or {}).get("note") or ""), 200)
        body = f"Not applied ({status})" + (f": {note}" if note else "") + "\n" + (body or "")
    return (f"{icon}{i + 1}. {move_label(move)}", body.strip() or "—")


# ---------------------------------------------------------------------- people and facts

def mention(platform: str, user_id: str, name: str = "") -> str:
    """How the core names a chat member: a mention `<@id>` on Discord and Slack (drawn as
    their current name, and it notifies them), the name elsewhere (the console)."""
    if platform in ("discord", "slack") and user_id and re.fullmatch(r"[A-Za-z0-9_]+",
                                                                         user_id):
        return f"<@{user_id}>"
    return name or user_id


#: Separates a card's summary from the progress facts stored with it (one text column).
_CONTEXT_MARK = "\n\n\u2063"


def with_context(summary: str, context: str) -> str:
    """A card summary carrying the run's last progress facts (`split_context` undoes it)."""
    return f"{summary}{_CONTEXT_MARK}{context}" if context else summary


def split_context(summary: str) -> tuple[str, str]:
    """(summary, progress facts) of a stored card summary."""
    text, _, context = (summary or "").partition(_CONTEXT_MARK)
    return text, context.strip()


def drop_confirm(moves: Sequence[dict[str, Any]]) -> str:
    """The question asked before approving moves that drop players ("" when none does)."""
    names = list(dict.fromkeys(str((m.get("drop") or {}).get("name") or "") for m in moves
                               if isinstance(m.get("drop"), dict)))
    names = [n for n in names if n]
    if not names:
        return ""
    who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return clip(f"This drops {who} from your roster. A dropped player can be claimed by "
                "another team. Go ahead?", 300)


def _pending_footer(requester: str, context: str) -> str:
    line = f"Requested by {requester} · only they (or the team's owner) can decide"
    return f"{context}\n{line}" if context else line


# ---------------------------------------------------------------------- plan cards

_OUTCOME_ICONS = {"applied": "✅ ", "recorded": "✅ ", "waiting": "⏳ ", "declined": "⏭️ ",
                  "failed": "⚠️ ", "skipped": "⚠️ "}


def is_plan_card(moves: Sequence[dict[str, Any]]) -> bool:
    """A card drawn from the exact plan (fantasy.moves.Plan): its moves carry timeline lines."""
    return any(m.get("line") for m in moves)


def plan_spots(moves: Sequence[dict[str, Any]]) -> list[tuple[int, list[int]]]:
    """(index of a plan move, indexes of its alternatives) for each move of a plan card, in
    timeline order. Alternatives are moves with `alternative_of` = the plan move's id."""
    spots = [(i, []) for i, m in enumerate(moves) if not m.get("alternative_of")]
    by_id = {str(moves[i].get("move_id")): alts for i, alts in spots}
    for i, m in enumerate(moves):
        alts = by_id.get(str(m.get("alternative_of"))) if m.get("alternative_of") else None
        if alts is not None:
            alts.append(i)
    return spots


def spot_state(decisions: dict[str, str], p: int, alts: Sequence[int]
               ) -> tuple[str, int | None]:
    """("approved", chosen index) | ("skipped", None) | ("open", None) for one spot."""
    for i in (p, *alts):
        if decisions.get(str(i)) == "approve":
            return "approved", i
    if str(p) in decisions:
        return "skipped", None
    return "open", None


def chain_blocks(moves: Sequence[dict[str, Any]], decisions: dict[str, str]
                 ) -> dict[int, int]:
    """Plan moves that can no longer happen because an earlier move of a streaming chain
    will not: {index of the blocked plan move: number (1-based) of the spot it needs}.

    A plan move may drop a player that an earlier move adds ("Thu: add Coby White", then
    "Sun: drop Coby White"). When that earlier spot is skipped the later drop is impossible;
    so are, in turn, the moves that need the later one. (When another player is chosen for
    the earlier spot, the later move drops that player instead: `chain_swaps`.)
    """
    spots = plan_spots(moves)
    by_add = {int((moves[p].get("add") or {}).get("id", -1)): (k, p, alts)
              for k, (p, alts) in enumerate(spots, start=1)}
    view = dict(decisions)
    out: dict[int, int] = {}
    changed = True
    while changed:
        changed = False
        for p, _alts in spots:
            src = by_add.get(int((moves[p].get("drop") or {}).get("id", -1)))
            if p in out or src is None:
                continue
            k, q, qalts = src
            state, chosen = spot_state(view, q, qalts)
            if q in out or state == "skipped":
                out[p] = k
                view[str(p)] = "decline"
                changed = True
    return out


def chain_swaps(moves: Sequence[dict[str, Any]], decisions: dict[str, str]
                ) -> dict[int, tuple[int, int]]:
    """Plan moves that drop the player an earlier spot adds, where another player was chosen
    for that spot: {index of the later plan move: (spot number, index of the chosen move)}.
    The later move then drops the chosen player (the streaming chain follows the choice)."""
    spots = plan_spots(moves)
    by_add = {int((moves[p].get("add") or {}).get("id", -1)): (k, p, alts)
              for k, (p, alts) in enumerate(spots, start=1)}
    out: dict[int, tuple[int, int]] = {}
    for p, _alts in spots:
        src = by_add.get(int((moves[p].get("drop") or {}).get("id", -1)))
        if src is None:
            continue
        k, q, qalts = src
        state, chosen = spot_state(decisions, q, qalts)
        if state == "approved" and chosen is not None and chosen != q:
            out[p] = (k, chosen)
    return out


def _blocked_text(moves: Sequence[dict[str, Any]], p: int, k: int) -> str:
    return (f"Skipped with #{k}: without #{k}'s pick, {moves[p]['drop']['name']} is not on "
            "your roster to drop.")


def _outcome_of(outcomes: dict[str, Any], moves: Sequence[dict[str, Any]], p: int,
                alts: Sequence[int]) -> dict[str, Any] | None:
    for i in (p, *alts):
        oc = outcomes.get(str(moves[i].get("move_id")))
        if oc:
            return oc
    return None


def _outcome_text(oc: dict[str, Any], move: dict[str, Any]) -> str:
    st, note = oc.get("status"), str(oc.get("note") or "")
    if st in ("applied", "recorded"):
        return "Applied."
    if st == "waiting":
        steps = oc.get("steps") or []
        return "Waiting for ESPN: " + (" ".join(steps) if steps else "make it on ESPN.")
    if st == "declined":
        return "Skipped by you."
    return f"Not possible: {clip(note, 200) or 'it could not be made'}."


def plan_counts(moves: Sequence[dict[str, Any]], decisions: dict[str, str],
                outcomes: dict[str, Any] | None) -> dict[str, int]:
    """How many plan moves were applied / are waiting for ESPN / were skipped / failed."""
    out = {"applied": 0, "waiting": 0, "skipped": 0, "failed": 0}
    for p, alts in plan_spots(moves):
        oc = _outcome_of(outcomes or {}, moves, p, alts)
        state, _ = spot_state(decisions, p, alts)
        st = (oc or {}).get("status")
        if st in ("applied", "recorded"):
            out["applied"] += 1
        elif st == "waiting":
            out["waiting"] += 1
        elif st == "declined" or (st is None and state == "skipped"):
            out["skipped"] += 1
        elif st is not None:
            out["failed"] += 1
    return out


def plan_footer(status: str, name: str, counts: dict[str, int]) -> str:
    """"Decided by Ana: 2 applied, 1 skipped by you, 1 not possible" (what really happened)."""
    if status in ("pending", "deciding", "expired"):
        return decided_footer(status, name)
    words = [(counts["applied"], "applied"), (counts["waiting"], "waiting for ESPN"),
             (counts["skipped"], "skipped by you"), (counts["failed"], "not possible")]
    parts = [f"{n} {w}" for n, w in words if n]
    return f"Decided by {name}: " + (", ".join(parts) if parts else "nothing to do")


def plan_card_status(moves: Sequence[dict[str, Any]], decisions: dict[str, str],
                     outcomes: dict[str, Any] | None) -> str:
    """The stored status of a decided plan card (the footer says the detail)."""
    c = plan_counts(moves, decisions, outcomes)
    made = c["applied"] + c["waiting"]
    spots = len(plan_spots(moves))
    if outcomes is None:
        chosen = sum(1 for p, alts in plan_spots(moves)
                     if spot_state(decisions, p, alts)[0] == "approved")
        return "declined" if not chosen else "approved" if chosen == spots else "partial"
    if not made:
        return "declined" if c["failed"] == 0 else "failed"
    return "approved" if made == spots else "partial"


def render_plan_card(card_id: str, title: str, summary: str, moves: Sequence[dict[str, Any]],
                     requester_name: str, *, decisions: dict[str, str] | None = None,
                     status: str = "pending", decided_by_name: str = "",
                     result_text: str = "", outcomes: dict[str, Any] | None = None,
                     context: str = "") -> Card:
    """The plan card: one field per move of the timeline with its labelled per-game values,
    injury notes, the other players for the same spot and, once decided, what really
    happened (✅ only on applied moves). Pending: Approve #k / Skip #k per move, a menu of
    other players per open move with alternatives (the plan's pick preselected), and
    Approve plan / Skip all. Waiting-for-ESPN moves get a link button to the add page."""
    decisions = decisions or {}
    outcomes = outcomes or {}
    pending = status == "pending"
    spots = plan_spots(moves)
    blocked = chain_blocks(moves, decisions)
    swaps = chain_swaps(moves, decisions)
    taken = {int((moves[i].get("add") or {}).get("id", -1)) for p, alts in spots
             for i in (p, *alts) if decisions.get(str(i)) == "approve"}
    fields: list[tuple[str, str]] = []
    buttons: list[Button] = []
    selects: list[Select] = []
    links: list[Button] = []
    for k, (p, alts) in enumerate(spots, start=1):
        state, chosen = spot_state(decisions, p, alts)
        shown = moves[chosen if chosen is not None else p]
        oc = _outcome_of(outcomes, moves, p, alts)
        if p in blocked and (oc or {}).get("status") in (None, "declined"):
            icon = "⏭️ "
        elif oc is not None:
            icon = _OUTCOME_ICONS.get(str(oc.get("status")), "⚠️ ")
        else:
            icon = {"approved": "👍 ", "skipped": "⏭️ "}.get(state, "")
        body = [str(shown.get("per_game") or "")]
        body += [str(n) for n in shown.get("notes") or []][:3]
        if chosen is not None and chosen != p:
            body.append(f"Your choice instead of {moves[p]['add']['name']}.")
        if p in swaps:
            k_src, alt = swaps[p]
            body.append(f"Drops {moves[alt]['add']['name']}, your choice for #{k_src}, instead "
                        f"of {moves[p]['drop']['name']}.")
        others = [i for i in alts if i != chosen]
        if state == "open" and others:
            body.append("Other players for this spot: " + ", ".join(
                f"{moves[i]['add']['name']} ({moves[i].get('vs_pick_text', '')})"
                for i in others))
        if p in blocked and (oc or {}).get("status") in (None, "declined"):
            body.append(_blocked_text(moves, p, blocked[p]))
        elif oc is not None:
            body.append(_outcome_text(oc, shown))
            if oc.get("status") == "waiting" and oc.get("espn_link"):
                links.append(Button(clip(f"Add {shown['add']['name']} on ESPN", 80),
                                    f"link:{card_id}:{k}", "secondary", url=oc["espn_link"]))
        elif state == "approved":
            body.append("Approved: made when the card is decided.")
        elif state == "skipped":
            body.append("Skipped by you.")
        fields.append((f"{icon}{k}. {shown.get('line') or move_label(shown)}",
                       "\n".join(b for b in body if b).strip() or "—"))
        if k <= MAX_MOVE_BUTTONS:  # decided: kept, disabled (a stale click is answered)
            buttons.append(Button(f"Approve #{k}", make_custom_id("approve", card_id, p),
                                  "primary", disabled=not pending or state != "open"
                                  or p in blocked, confirm=drop_confirm([moves[p]])))
            buttons.append(Button(f"Skip #{k}", make_custom_id("decline", card_id, p),
                                  "secondary", disabled=not pending or state != "open"
                                  or p in blocked))
            free = [i for i in alts if int(moves[i]["add"]["id"]) not in taken]
            if pending and state == "open" and free and p not in blocked:
                opts = [SelectOption(clip(f"{moves[p]['add']['name']} (plan's pick)", 100),
                                     str(p), default=True)]
                opts += [SelectOption(clip(f"{moves[i]['add']['name']} "
                                           f"({moves[i].get('vs_pick_text', '')})", 100),
                                      str(i)) for i in free]
                selects.append(Select(make_custom_id("pick", card_id, p),
                                      clip(f"#{k}: another player for "
                                           f"{moves[p]['drop']['name']}'s spot", 150),
                                      tuple(opts)))
    some = pending and any(spot_state(decisions, p, a)[0] != "open" for p, a in spots)
    rest = [moves[p] for p, a in spots if spot_state(decisions, p, a)[0] == "open"
            and p not in blocked]
    buttons.append(Button("Approve the rest" if some else "Approve plan",
                          make_custom_id("approveall", card_id), "primary",
                          disabled=not pending, confirm=drop_confirm(rest)))
    buttons.append(Button("Skip the rest" if some else "Skip all",
                          make_custom_id("declineall", card_id), "danger",
                          disabled=not pending))
    if pending:
        footer = _pending_footer(requester_name, context)
        color = "blue"
    else:
        counts = plan_counts(moves, decisions, outcomes)
        footer = plan_footer(status, decided_by_name, counts)
        color = {"approved": "green", "declined": "grey", "partial": "orange",
                 "failed": "red"}.get(status, "grey")
    text = summary
    if result_text:
        text = (text + "\n\n" if text else "") + result_text
    return Card(title=title or "Your plan", text=text, fields=fields,
                buttons=buttons + links, selects=selects, color=color, footer=footer)


def render_approval(card_id: str, title: str, summary: str, moves: Sequence[dict[str, Any]],
                    requester_name: str, *, decisions: dict[str, str] | None = None,
                    status: str = "pending", decided_by_name: str = "",
                    result_text: str = "",
                    outcomes: dict[str, dict[str, str]] | None = None,
                    context: str = "") -> Card:
    """The move card. Pending: per-move Approve/Decline buttons (+ all; an approval that
    drops a player asks first where the platform can), the footer "Requested by
    <requester>" under `context` (the run's last progress facts). Decided: buttons
    disabled and "Approved by <name>" / "Declined by <name>"; `outcomes` ({move_id:
    {"status", "note"}}) marks an approved move that was not applied as such. A plan card
    (moves with timeline lines) is drawn by render_plan_card."""
    if is_plan_card(moves):
        return render_plan_card(card_id, title, summary, moves, requester_name,
                                decisions=decisions, status=status,
                                decided_by_name=decided_by_name, result_text=result_text,
                                outcomes=outcomes, context=context)
    decisions = decisions or {}
    outcomes = outcomes or {}
    fields = [_move_field(i, m, decisions.get(str(i)), outcomes.get(str(m.get("move_id"))))
              for i, m in enumerate(moves)]
    pending = status == "pending"
    buttons: list[Button] = []
    multi = len(moves) > 1
    if multi:
        for i in range(min(len(moves), MAX_MOVE_BUTTONS)):
            done = str(i) in decisions
            buttons.append(Button(f"Approve #{i + 1}", make_custom_id("approve", card_id, i),
                                  "primary", disabled=not pending or done,
                                  confirm=drop_confirm([moves[i]])))
            buttons.append(Button(f"Decline #{i + 1}", make_custom_id("decline", card_id, i),
                                  "secondary", disabled=not pending or done))
    rest = "the rest" if decisions else "all"
    open_moves = [m for i, m in enumerate(moves) if str(i) not in decisions]
    if not any(conflicts(a, b) for i, a in enumerate(open_moves) for b in open_moves[i + 1:]):
        # alternatives (same player) are approved one at a time, never "all" together
        buttons.append(Button(f"Approve {rest}" if multi else "Approve",
                              make_custom_id("approveall", card_id), "primary",
                              disabled=not pending, confirm=drop_confirm(open_moves)))
    buttons.append(Button(f"Decline {rest}" if multi else "Decline",
                          make_custom_id("declineall", card_id), "danger", disabled=not pending))
    if pending:
        footer = _pending_footer(requester_name, context)
        color = "blue"
    else:
        footer = decided_footer(status, decided_by_name)
        if outcomes and status in ("approved", "declined", "partial", "failed"):
            footer = plan_footer(status, decided_by_name,
                                 _card_counts(moves, decisions, outcomes))
        color = {"approved": "green", "declined": "red", "partial": "orange",
                 "failed": "red"}.get(status, "grey")
    text = summary
    if result_text:
        text = (text + "\n\n" if text else "") + result_text
    return Card(title=title or "Proposed moves", text=text, fields=fields, buttons=buttons,
                color=color, footer=footer)


def _card_counts(moves: Sequence[dict[str, Any]], decisions: dict[str, str],
                 outcomes: dict[str, Any]) -> dict[str, int]:
    """What really happened to each move of a (non-plan) card, for its footer."""
    out = {"applied": 0, "waiting": 0, "skipped": 0, "failed": 0}
    for i, m in enumerate(moves):
        st = (outcomes.get(str(m.get("move_id"))) or {}).get("status")
        if st in ("applied", "recorded"):
            out["applied"] += 1
        elif st == "waiting":
            out["waiting"] += 1
        elif decisions.get(str(i)) != "approve" or st == "declined":
            out["skipped"] += 1
        else:
            out["failed"] += 1
    return out


def decided_footer(status: str, name: str) -> str:
    """"Approved by X" / "Declined by X" / "Partly approved by X" / "Expired"."""
    if status == "approved":
        return f"Approved by {name}"
    if status == "declined":
        return f"Declined by {name}"
    if status == "partial":
        return f"Partly approved by {name}"
    if status == "failed":
        return f"Approved by {name}, but not applied (see the answer)"
    if status == "expired":
        return "Expired: this run is no longer waiting for a decision"
    if status == "deciding":
        return f"Applying the decision of {name}…"
    return f"Decided by {name}" if name else "Decided"


# ---------------------------------------------------------------------- answers

def offer_buttons(offers_id: str, labels: Sequence[str]) -> list[Button]:
    """Buttons for an answer's follow-up offers (`fv:do:<offers id>:<index>`)."""
    if not offers_id or not labels:
        return []
    return [Button(clip(label, 80), make_custom_id("do", offers_id, i),
                   "primary" if i == 0 else "secondary")
            for i, label in enumerate(labels[:MAX_OFFERS])]


def render_answer(text: str, report: dict[str, Any] | None, *, offline: bool,
                  max_text: int, offers_id: str = "",
                  offers: Sequence[str] = ()) -> list[OutgoingMessage]:
    """An answer as one or more messages: text split at `max_text`, a report card attached
    to the last message, and the follow-up offers as buttons under it."""
    body = text or ""
    if offline:
        body = body + "\n\n_(offline mode: no LLM key set, answers come from rules and data)_"
    chunks = split_text(body.strip() or "(no answer)", max_text)
    msgs = [OutgoingMessage(c) for c in chunks]
    if is_player_report(report):
        card = render_report(report)  # type: ignore[arg-type]
        if card.text and card.text.strip() in body:
            card.text = ""  # the answer already says it
        msgs[-1].cards.append(card)
    buttons = offer_buttons(offers_id, offers)
    if buttons:
        msgs[-1].cards.append(Card(title="What next?", buttons=buttons))
    return msgs


__all__ = [
    "ACTIONS", "ClickId", "CUSTOM_ID_RE", "MAX_MOVE_BUTTONS", "clip", "conflicts", "decided_footer", "is_player_report",
    "drop_confirm", "mention", "split_context", "with_context",
    "is_plan_card", "make_custom_id", "move_label", "offer_buttons", "parse_custom_id", "plan_card_status",
    "chain_blocks", "chain_swaps", "plan_counts", "plan_footer", "plan_spots", "progress_text", "render_answer",
    "render_approval", "render_plan_card", "render_report", "spot_state", "split_text",
]
