"""The live-league hand-off: ESPN has no write API, so an approved move on a live league is
made by the member on ESPN (the card shows the steps and a link to the player's add page)
and its outcome is "waiting for ESPN". On the next league read this module compares each
waiting move with the rosters and updates the card and the audit:

- done: the added player is on the member's team and the dropped one is not -> applied ✅;
- player taken: the added player is on another team -> "not possible: X was claimed by T";
- still pending: nothing changed yet -> the card keeps waiting.

`reconcile(league, cards)` is pure (tested alone); `check_handoffs(core, surface, thread)`
reads the league once and applies it to the waiting cards of one conversation (ChatCore calls
it at the start of a turn in that conversation, i.e. on the member's next league read).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from bot.core.render import move_label, plan_card_status
from fantasy.moves import text_of

log = logging.getLogger(__name__)

WAITING = "waiting"
#: card statuses that may hold moves waiting for ESPN
DECIDED = ("approved", "partial")


@dataclass(frozen=True)
class HandoffChange:
    """One waiting move whose state the league read settled."""

    card_id: str
    move_index: int
    move_id: str
    result: str  # "done" | "taken"
    note: str


def reconcile(league: Any, card: Any) -> tuple[dict[str, dict[str, Any]], list[HandoffChange]]:
    """The card's outcomes after a league read, and what changed (nothing: still pending)."""
    outcomes = {k: dict(v) for k, v in ((card.result or {}).get("outcomes") or {}).items()}
    changes: list[HandoffChange] = []
    team = league.team(card.team_id) if card.team_id is not None else None
    if team is None:
        return outcomes, changes
    mine = {e.player.id for e in team.roster}
    for i, m in enumerate(card.moves):
        mid = str(m.get("move_id"))
        oc = outcomes.get(mid)
        if not oc or oc.get("status") != WAITING:
            continue
        drop, add = int(m["drop"]["id"]), int(m["add"]["id"])
        if add in mine and drop not in mine:
            oc.update(status="applied", note=f"done on ESPN: {text_of(m)}")
            changes.append(HandoffChange(card.card_id, i, mid, "done", oc["note"]))
            continue
        owner = league.team_of_player(add)
        if owner is not None and owner.id != card.team_id:
            oc.update(status="failed", note=f"{m['add']['name']} was claimed by {owner.name}")
            changes.append(HandoffChange(card.card_id, i, mid, "taken", oc["note"]))
    return outcomes, changes


def waiting(card: Any) -> bool:
    """True when a decided card has moves waiting for ESPN."""
    outs = (card.result or {}).get("outcomes") or {}
    return card.status in DECIDED and any(o.get("status") == WAITING for o in outs.values())


async def check_handoffs(core: Any, surface: Any, thread: Any) -> list[HandoffChange]:
    """Settle the waiting moves of this conversation's cards against one league read; edit
    each changed card in place and audit every settled move. Never raises (a failed read
    leaves the cards waiting for the next one)."""
    if getattr(core.espn, "demo", None) is not None or core.espn is None:
        return []  # the demo league applies moves itself
    try:
        cards = [c for status in DECIDED for c in await core.db.cards_by_status(status)
                 if c.conversation_id == thread.conversation_id and waiting(c)]
        if not cards:
            return []
        league = await core.espn.get_league()
    except Exception as exc:  # noqa: BLE001 - a hand-off check never stops a turn
        log.warning("hand-off check skipped: %s", type(exc).__name__)
        return []
    done: list[HandoffChange] = []
    for card in cards:
        outcomes, changes = reconcile(league, card)
        if not changes:
            continue
        result = {**(card.result or {}), "outcomes": outcomes}
        status = plan_card_status(card.moves, card.decisions, outcomes)
        await core.db.finish_card(card.card_id, status=status, result=result)
        for ch in changes:
            await core.db.audit(card_id=card.card_id, run_thread_id=card.run_thread_id,
                                platform=card.platform, user_id=card.decided_by or "",
                                user_name=card.decided_by_name or "", decision="approve",
                                result=f"espn:{ch.result}", move_index=ch.move_index,
                                move_id=ch.move_id, move_label=move_label(card.moves[
                                    ch.move_index]))
        fresh = await core.db.get_card(card.card_id) or card
        try:
            await core.edit_card(surface, fresh)
            await core.db.mark_card_shown(card.card_id)
        except Exception as exc:  # noqa: BLE001 - the audit holds it; the card catches up
            log.warning("could not update a hand-off card: %s", type(exc).__name__)
        done += changes
    return done


__all__ = ["HandoffChange", "check_handoffs", "reconcile", "waiting"]
