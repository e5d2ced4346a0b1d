"""A move card's controls grouped under its moves, for surfaces that draw each move with its
own controls (Slack sections, Discord Components V2).

bot.core.render draws one field per move (or plan spot), in order; that move's Approve /
Skip buttons and its menu of other players carry its move index (`fv:approve:<card>:<i>`,
`fv:pick:<card>:<i>`). `split_card` only places them: what a click means stays the core's
(`parse_custom_id`, `MoveCard.click`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.core.buttons import parse_custom_id
from bot.core.models import Button, Card, Select


@dataclass
class MoveBlock:
    """One move (or plan spot) of a card: its line, its details and its own controls."""

    name: str
    value: str
    buttons: list[Button] = field(default_factory=list)
    select: Select | None = None


@dataclass
class CardLayout:
    """A card split into its moves and the card-wide controls."""

    card: Card
    blocks: list[MoveBlock]
    card_buttons: list[Button]  # approve all / skip all (and any other card-wide button)
    links: list[Button]  # link buttons (open a page, e.g. ESPN's add page)
    card_id: str


def _move_index(custom_id: str) -> int | None:
    click = parse_custom_id(custom_id)
    if click is None or click.action not in ("approve", "decline") or click.index is None:
        return None
    return click.index


def _menu_index(custom_id: str) -> int | None:
    click = parse_custom_id(f"{custom_id}:0")  # a menu's id is its choices' id without a value
    return click.index if click is not None and click.action == "pick" else None


def is_move_card(card: Card) -> bool:
    """A card with controls per move (a move's menu, or an Approve/Skip button of one move);
    /link's team select is not one."""
    return any(_menu_index(s.custom_id) is not None for s in card.selects) or any(
        not b.url and _move_index(b.custom_id) is not None for b in card.buttons)


def split_card(card: Card) -> CardLayout:
    """Group a move card's controls under its moves: the k-th field is the k-th move index
    that has per-move buttons (the core's order), and its menu is the select of that index.
    Fields past the last move with buttons (the core draws buttons for the first
    `MAX_MOVE_BUTTONS` moves) get none."""
    groups: dict[int, list[Button]] = {}
    card_buttons: list[Button] = []
    links: list[Button] = []
    card_id = ""
    for b in card.buttons:
        if b.url:
            links.append(b)
            continue
        click = parse_custom_id(b.custom_id)
        if click is not None and click.card_id:
            card_id = card_id or click.card_id
        index = _move_index(b.custom_id)
        if index is None:
            card_buttons.append(b)
        else:
            groups.setdefault(index, []).append(b)
    menus = {i: s for s in card.selects if (i := _menu_index(s.custom_id)) is not None}
    order = list(groups)
    blocks = []
    for k, (name, value) in enumerate(card.fields):
        index = order[k] if k < len(order) else None
        blocks.append(MoveBlock(str(name), str(value),
                                groups.get(index, []) if index is not None else [],
                                menus.get(index) if index is not None else None))
    return CardLayout(card, blocks, card_buttons, links, card_id)


__all__ = ["CardLayout", "MoveBlock", "is_move_card", "split_card"]
