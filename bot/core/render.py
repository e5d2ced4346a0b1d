"""Turn runtime events and optimizer results into the neutral chat model (text + Cards).

Adapters draw `Card`s; nothing here knows about Discord or Slack. Button ids are built by
`bot.core.buttons`, the one home of their grammar.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Any

from bot.core.buttons import make_custom_id
from bot.core.models import Button, ButtonStyle, Card, OutgoingMessage, Select, SelectOption
from bot.core.timestamps import discord_ts, epoch_of
from fantasy.constants import OUT_STATUSES, UNCERTAIN_STATUSES
from fantasy.formatting import (
    day_text,
    day_text_of,
    gain_text,
    recommendation_text,
    status_text,
    word_text,
)
from fantasy.move_card import CardMove, MoveCard, MoveOutcome
from fantasy.moves import text_of
from fantasy.schedule import EASTERN

#: At most this many offer buttons under an answer.
MAX_OFFERS = 5
#: Per-move buttons are drawn for at most this many moves (Discord: 25 buttons per message).
MAX_MOVE_BUTTONS = 10

_REC_COLORS = {"ACTIVE": "green", "MONITOR": "yellow", "HOLD": "blue", "STREAM": "orange",
               "DROP": "red"}
_STATUS_ICONS = {"approve": "✅", "decline": "❌"}


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
        base = f"{title}" + (f" ({day_text_of(when)})" if when else "")
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
    """Expected return: the date when known ("Sat Feb 4"); "unknown" only when he is out or
    doubtful."""
    if ret:
        try:
            return day_text(date.fromisoformat(str(ret)[:10]))
        except ValueError:
            return str(ret)
    if status in OUT_STATUSES or status in UNCERTAIN_STATUSES or status in ("", "UNKNOWN"):
        return "unknown"
    return None  # healthy: nothing to return from


def _fetched_footer(fetched: Any, league_day: date | None = None) -> str:
    """"Fetched <t:EPOCH:R>" (a local time on every platform); an unparsable value as it is.
    On a league whose clock is not this machine's (the demo league's day is in its season),
    the league's day with the time of the fetch in the league's time zone (NBA days run on
    Eastern time; no token: a platform would draw the token on this machine's date):
    "Fetched Wed Jan 25 04:55 EST"."""
    if not fetched:
        return ""
    try:
        token = discord_ts(fetched, "R")
        if league_day is not None:
            when = datetime.fromtimestamp(epoch_of(fetched), UTC).astimezone(EASTERN)
            if abs((when.date() - league_day).days) > 1:
                return f"Fetched {day_text(league_day)} {when:%H:%M} {when.tzname()}"
        return f"Fetched {token}"
    except (TypeError, ValueError, OverflowError):
        return f"Fetched {fetched}"


def render_report(report: dict[str, Any], *, league_day: date | None = None) -> Card:
    """A player report (playerName, status, injuryType, expectedReturnDate, recommendation,
    confidence, summary, sources, fetchedAt) as a Card whose fields agree with each other;
    `league_day`: the league's today (its fetch time is shown on the league's clock)."""
    rec = str(report.get("recommendation") or "").upper()
    status = str(report.get("status") or "").upper()
    fields: list[tuple[str, str]] = [
        ("Status", word_text(status_text(status), capital=True)),
        ("Injury", _injury_text(status, report.get("injuryType"))),
    ]
    ret = _return_text(status, report.get("expectedReturnDate"))
    if ret is not None:
        fields.append(("Expected return", ret))
    fields += [("Recommendation", recommendation_text(rec, capital=True) or "—"),
               ("Confidence", word_text(report.get("confidence"), capital=True) or "—")]
    sources = report.get("sources") or []
    if isinstance(sources, (str, dict)):
        sources = [sources]
    if sources:
        fields.append(("Sources", "\n".join(f"• {_fmt_source(s)}" for s in list(sources)[:5])))
    return Card(title=f"Player report: {report.get('playerName') or 'unknown player'}",
                text=str(report.get("summary") or ""), fields=fields,
                color=_REC_COLORS.get(rec, "grey"), footer=_fetched_footer(report.get("fetchedAt"), league_day))


def is_player_report(report: Any) -> bool:
    """True when a dict looks like a player research report."""
    return isinstance(report, dict) and "playerName" in report and "recommendation" in report


# ---------------------------------------------------------------------- move cards

def card_of(moves: Sequence[dict[str, Any]] | MoveCard, decisions: dict[str, str] | None = None,
            outcomes: dict[str, Any] | None = None) -> MoveCard:
    """The typed card (fantasy.move_card.MoveCard) of stored move JSON with its decisions
    and outcomes."""
    card = moves if isinstance(moves, MoveCard) else MoveCard.from_moves(moves)
    if decisions is None and outcomes is None:
        return card
    return card.with_state(decisions if decisions is not None else card.decisions,
                           outcomes if outcomes is not None else
                           {k: v.to_json() for k, v in card.outcomes.items()})


def conflicts(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """True when two moves drop or add the same player (only one can be made)."""
    return CardMove.model_validate(a).conflicts(CardMove.model_validate(b))


def move_label(move: dict[str, Any] | CardMove) -> str:
    """"Drop X, add Y" for one move (fantasy.moves.text_of, the one formatter)."""
    return move.label if isinstance(move, CardMove) else text_of(move, capital=True)


def choice_numbers(card: MoveCard, base: int = 0) -> dict[str, int]:
    """Stable numbers of a card's controls for text surfaces (the console), derived from the
    card alone: Approve #k = k, Skip #k = S + k, approve all = 2S + 1, skip all = 2S + 2, the
    menu option of move i = 2S + 3 + i (S spots), plus `base` (one hundred per earlier card
    of the conversation). Menu numbers never overlap the approve/skip numbers."""
    spots = card.spots()
    n = len(spots)
    out = {}
    for s in spots:
        out[f"approve:{s.index}"] = base + s.number
        out[f"decline:{s.index}"] = base + n + s.number
    out["approveall"] = base + 2 * n + 1
    out["declineall"] = base + 2 * n + 2
    for i in range(len(card.moves)):
        out[f"pick:{i}"] = base + 2 * n + 3 + i
    return out


def _move_field(i: int, card: MoveCard, outcome: MoveOutcome | None) -> tuple[str, str]:
    move = card.moves[i]
    decision = card.decision(i)
    parts = []
    gain, unit = move.expected_gain, move.gain_unit.strip()
    parts.append(f"Expected gain: {gain_text(gain, unit)} over the rest of the matchup")
    if move.games:
        parts.append(f"{move.games:+d} game{'s' if abs(move.games) != 1 else ''} started")
    if move.confidence:
        parts.append(f"confidence: {move.confidence}")
    body = " · ".join(parts)
    reasons = move.reasons[:4]
    if reasons:
        body += "\n" + "\n".join(f"• {r}" for r in reasons)
    icon = (_STATUS_ICONS.get(decision, "") + " ") if decision else ""
    if outcome is not None and decision == "approve" and outcome.status != "applied":
        icon = outcome.icon if outcome.status in ("waiting", "scheduled") else "⚠️ "
        body = outcome.text() + "\n" + body
    return (f"{icon}{i + 1}. {move.label}", body.strip() or "—")


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


def _pending_footer(requester: str, context: str) -> str:
    line = f"Requested by {requester} · only they (or the team's owner) can decide"
    return f"{context}\n{line}" if context else line


# ---------------------------------------------------------------------- plan cards

def is_plan_card(moves: Sequence[dict[str, Any]] | MoveCard) -> bool:
    """A card drawn from the exact plan (fantasy.moves.Plan): its moves carry timeline lines."""
    return card_of(moves).is_plan


def plan_spots(moves: Sequence[dict[str, Any]] | MoveCard) -> list[tuple[int, list[int]]]:
    """(index of a plan move, indexes of its other players) per spot (MoveCard.spots)."""
    return [(s.index, list(s.alternatives)) for s in card_of(moves).spots()]


def plan_card_status(moves: Sequence[dict[str, Any]], decisions: dict[str, str],
                     outcomes: dict[str, Any] | None) -> str:
    """The stored status of a decided card (MoveCard.status)."""
    return card_of(moves, decisions, outcomes or {}).status() if outcomes is not None \
        else card_of(moves, decisions).status()


def _blocked_text(card: MoveCard, p: int, k: int) -> str:
    return (f"Skipped with #{k}: without #{k}'s pick, {card.moves[p].drop.name} is not on "
            "your roster to drop.")


def _approve_style(card: MoveCard, action: str, index: int | None = None) -> ButtonStyle:
    """"danger" for an approval whose click releases a player (it decides the card and a
    move it makes drops someone to waivers), else "primary": danger means danger, never
    a skip or an approval that only marks a move."""
    res = card.click(action, index)  # type: ignore[arg-type]
    if not res.closes:
        return "primary"
    made = card.steps(card.resume_decisions(res.decisions))
    return "danger" if any(st.move is not None and not st.move.drop_to_ir for st in made) \
        else "primary"


def _decided_footer(card: MoveCard, status: str, name: str) -> str:
    if status in ("pending", "deciding", "expired") or (not card.outcomes and status not in (
            "approved", "declined", "partial", "failed")):
        return decided_footer(status, name)
    if not card.outcomes and not card.is_plan:
        return decided_footer(status, name)
    return card.footer(status, name)


def _plan_card(card_id: str, card: MoveCard, title: str, summary: str, requester_name: str,
               *, status: str, decided_by_name: str, result_text: str, context: str,
               live: bool, number_base: int, writes: bool = False) -> Card:
    """The plan card: one field per move of the timeline with its labelled per-game values,
    injury notes, the other players for the same spot and, once decided, what really
    happened. Pending: Approve #k / Skip #k per open move (they stay until the member decides
    that move), a menu of other players per open move (it chooses, it never approves), and
    Approve plan / Skip all. Waiting-for-ESPN moves get a link button to the add page."""
    pending = status == "pending"
    nums = choice_numbers(card, number_base)
    spots = card.spots()
    blocked = card.blocked()
    swaps = card.swaps()
    taken = {card.moves[i].add.id for s in spots for i in s.indexes
             if card.decision(i) == "approve"}
    fields: list[tuple[str, str]] = []
    buttons: list[Button] = []
    selects: list[Select] = []
    links: list[Button] = []
    for s in spots:
        k, p = s.number, s.index
        state, chosen = card.spot_state(s)
        shown_i = chosen if chosen is not None else card.pick(s)
        shown = card.shown(s)  # a chain move drops the player chosen for its earlier spot
        oc = card.outcome_of(s)
        is_blocked = p in blocked and (oc is None or oc.status == "skipped")
        if is_blocked:
            icon = "⏭️ "
        elif oc is not None:
            icon = oc.icon
        else:
            icon = {"approved": "👍 ", "skipped": "⏭️ "}.get(state, "")
        body = [shown.per_game, *shown.notes[:3]]
        if shown_i != p:
            body.append(f"Your choice instead of {card.moves[p].add.name}"
                        + ("." if state == "approved" else " (not approved yet)."))
        if p in swaps:
            k_src, alt = swaps[p]
            body.append(f"Drops {card.moves[alt].add.name}, your choice for #{k_src}, instead "
                        f"of {card.moves[p].drop.name}.")
        others = [i for i in s.indexes if i != shown_i]
        if state == "open" and others and not is_blocked:
            body.append("Other players for this spot: " + ", ".join(
                f"{card.moves[i].add.name} ("
                + ("plan's pick" if i == p else card.moves[i].vs_pick_text) + ")"
                for i in others))
        if is_blocked:
            body.append(_blocked_text(card, p, blocked[p]))
        elif oc is not None:
            body.append(oc.text())
            if oc.status == "waiting" and oc.espn_link:
                links.append(Button(clip(f"Add {shown.add.name} on ESPN", 80),
                                    f"link:{card_id}:{k}", "secondary", url=oc.espn_link))
        elif state == "approved":
            body.append(card.approved_text(shown_i))
        elif state == "skipped":
            body.append("Skipped by you.")
        fields.append((f"{icon}{k}. {shown.line or shown.label}",
                       "\n".join(b for b in body if b).strip() or "—"))
        open_ = pending and state == "open" and p not in blocked
        if k <= MAX_MOVE_BUTTONS:  # decided: kept, disabled (a stale click is answered)
            buttons.append(Button(f"Approve #{k}", make_custom_id("approve", card_id, p),
                                  _approve_style(card, "approve", p) if open_ else "primary",
                                  disabled=not open_,
                                  confirm=card.confirm_text(
                                      "approve", p, live=live, writes=writes,
                                      schedule_later=True)
                                  if open_ else "", number=nums[f"approve:{p}"]))
            buttons.append(Button(f"Skip #{k}", make_custom_id("decline", card_id, p),
                                  "secondary", disabled=not open_,
                                  number=nums[f"decline:{p}"]))
            free = [i for i in s.alternatives if card.moves[i].add.id not in taken]
            if open_ and free:
                opts = [SelectOption(clip(f"{card.moves[p].add.name} (plan's pick)", 100),
                                     str(p), default=shown_i == p, number=nums[f"pick:{p}"])]
                opts += [SelectOption(clip(f"{card.moves[i].add.name} "
                                           f"({card.moves[i].vs_pick_text})", 100),
                                      str(i), default=shown_i == i, number=nums[f"pick:{i}"])
                         for i in free]
                leaving = card.moves[swaps[p][1]].add.name if p in swaps \
                    else card.moves[p].drop.name
                selects.append(Select(make_custom_id("pick", card_id, p),
                                      clip(f"#{k}: choose another player for {leaving}'s "
                                           "spot (choosing does not approve)", 150),
                                      tuple(opts)))
    some = pending and any(card.spot_state(s)[0] != "open" for s in spots)
    buttons.append(Button("Approve the rest" if some else "Approve plan",
                          make_custom_id("approveall", card_id),
                          _approve_style(card, "approveall") if pending else "primary",
                          disabled=not pending,
                          confirm=card.confirm_text("approveall", live=live, writes=writes,
                                                    schedule_later=True) if pending else "",
                          number=nums["approveall"]))
    buttons.append(Button("Skip the rest" if some else "Skip all",
                          make_custom_id("declineall", card_id), "secondary",
                          disabled=not pending, number=nums["declineall"]))
    text = card.summary_text(summary)  # the totals follow the menu choices
    if pending:
        footer = _pending_footer(requester_name, context)
        color = "blue"
        how = card.how_text(live=live, writes=writes, schedule_later=True)
        text = (text + "\n" if text else "") + f"_{how}_"
    else:
        footer = _decided_footer(card, status, decided_by_name)
        color = {"approved": "green", "declined": "grey", "partial": "orange",
                 "failed": "red"}.get(status, "grey")
    if result_text:
        text = (text + "\n\n" if text else "") + result_text
    return Card(title=title or "Your plan", text=text, fields=fields,
                buttons=buttons + links, selects=selects, color=color, footer=footer)


def render_approval(card_id: str, title: str, summary: str,
                    moves: Sequence[dict[str, Any]] | MoveCard,
                    requester_name: str, *, decisions: dict[str, str] | None = None,
                    status: str = "pending", decided_by_name: str = "",
                    result_text: str = "",
                    outcomes: dict[str, Any] | None = None,
                    context: str = "", live: bool = False, number_base: int = 0,
                    writes: bool = False) -> Card:
    """A move card (fantasy.move_card.MoveCard) for every surface. Pending: per-move
    Approve / Decline (what each does is said by its confirmation, from the card), approve /
    decline all, the footer "Requested by <requester>" under `context` (the run's last
    progress facts). Decided: buttons disabled and what happened to each move. A plan card
    (moves with timeline lines) has a spot per plan move with a menu of other players.
    `live`: a live league (the member makes approved moves on ESPN, or FanVise does when
    `writes`: the requester turned writes on); `number_base`: added to the card's stable
    console numbers (`choice_numbers`)."""
    card = card_of(moves, decisions, outcomes)
    if card.is_plan:
        return _plan_card(card_id, card, title, summary, requester_name, status=status,
                          decided_by_name=decided_by_name, result_text=result_text,
                          context=context, live=live, number_base=number_base,
                          writes=writes)
    nums = choice_numbers(card, number_base)
    fields = [_move_field(i, card, card.outcomes.get(m.move_id))
              for i, m in enumerate(card.moves)]
    pending = status == "pending"
    buttons: list[Button] = []
    multi = len(card.moves) > 1
    if multi:
        for i in range(min(len(card.moves), MAX_MOVE_BUTTONS)):
            open_ = pending and card.decision(i) is None
            buttons.append(Button(f"Approve #{i + 1}", make_custom_id("approve", card_id, i),
                                  _approve_style(card, "approve", i) if open_ else "primary",
                                  disabled=not open_,
                                  confirm=card.confirm_text("approve", i, live=live, writes=writes)
                                  if open_ else "", number=nums[f"approve:{i}"]))
            buttons.append(Button(f"Decline #{i + 1}", make_custom_id("decline", card_id, i),
                                  "secondary", disabled=not open_,
                                  number=nums[f"decline:{i}"]))
    rest = "the rest" if card.undecided() != list(range(len(card.moves))) else "all"
    open_moves = card.undecided()
    approve_all = not any(card.conflicts(a, b) for a in open_moves for b in open_moves
                          if a < b)
    if approve_all:
        # alternatives (same player) are approved one at a time, never "all" together
        buttons.append(Button(f"Approve {rest}" if multi else "Approve",
                              make_custom_id("approveall", card_id),
                              _approve_style(card, "approveall") if pending else "primary",
                              disabled=not pending,
                              confirm=card.confirm_text("approveall", live=live, writes=writes)
                              if pending else "", number=nums["approveall"]))
    buttons.append(Button(f"Decline {rest}" if multi else "Decline",
                          make_custom_id("declineall", card_id), "secondary",
                          disabled=not pending, number=nums["declineall"]))
    text = summary
    if pending:
        footer = _pending_footer(requester_name, context)
        color = "blue"
        if multi:
            text = (text + "\n" if text else "") + \
                f"_{card.how_text(live=live, approve_all=approve_all, writes=writes)}_"
    else:
        footer = _decided_footer(card, status, decided_by_name)
        color = {"approved": "green", "declined": "red", "partial": "orange",
                 "failed": "red"}.get(status, "grey")
    if result_text:
        text = (text + "\n\n" if text else "") + result_text
    return Card(title=title or "Proposed moves", text=text, fields=fields, buttons=buttons,
                color=color, footer=footer)


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
                  offers: Sequence[str] = (),
                  league_day: date | None = None) -> list[OutgoingMessage]:
    """An answer as one or more messages: text split at `max_text`, a report card attached
    to the last message, and the follow-up offers as buttons under it (on the report card,
    else a card with buttons only: no title, so no empty "What next?" holder)."""
    body = text or ""
    if offline:
        body = body + "\n\n_(offline mode: no LLM key set, answers come from rules and data)_"
    chunks = split_text(body.strip() or "(no answer)", max_text)
    msgs = [OutgoingMessage(c) for c in chunks]
    if is_player_report(report):
        card = render_report(report, league_day=league_day)  # type: ignore[arg-type]
        if card.text and card.text.strip() in body:
            card.text = ""  # the answer already says it
        msgs[-1].cards.append(card)
    buttons = offer_buttons(offers_id, offers)
    if buttons and msgs[-1].cards:  # under the report card: no holder of their own
        msgs[-1].cards[-1].buttons.extend(buttons)
    elif buttons:  # a card of buttons alone: no title, no empty text (no holder message)
        msgs[-1].cards.append(Card(title="", buttons=buttons))
    return msgs


__all__ = [
    "MAX_MOVE_BUTTONS", "card_of", "choice_numbers", "clip",
    "conflicts", "decided_footer", "is_player_report", "mention", "split_context",
    "with_context", "is_plan_card", "move_label", "offer_buttons",
    "plan_card_status", "plan_spots", "progress_text", "render_answer",
    "render_approval", "render_report", "split_text",
]
