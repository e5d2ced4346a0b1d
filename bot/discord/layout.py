"""Move cards as Discord Components V2 messages (`discord.ui.LayoutView`).

A card whose moves each have their own controls (the plan card, a multi-move card) is drawn
as one Container: the title and how-it-works line, then per move a TextDisplay with its
line and details, an ActionRow with its Approve / Skip buttons and an ActionRow with its
menu of other players, then the card-wide buttons and the footer in small text; separator
lines set the moves apart from the summary, from the card's own buttons and from each
other, as many as the component limit leaves room for. Discord
allows 40 components per message (nested ones included) and 4000 characters of text over
all TextDisplays; a card whose moves do not fit is paginated and says so ("Moves 1-5 of 8").

The meaning of every control comes from the core (bot.core.card_layout groups them under
their moves, as Slack's sections do): this module only places them. Page buttons (`fv:page:<card_id>:<page>`) change which moves are shown and
decide nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

from bot.core.buttons import page_custom_id
from bot.core.card_layout import CardLayout, MoveBlock, is_move_card, split_card
from bot.core.models import Button, Card, Select
from bot.core.render import clip
from bot.discord.items import (
    BUTTON_LABEL_MAX,
    CUSTOM_ID_MAX,
    STYLES,
    FvButton,
    FvPage,
    FvSelect,
    parse_color,
)

COMPONENTS_MAX = 40
TEXT_MAX = 4000  # all TextDisplays of one message together
ROW_BUTTONS_MAX = 5


def cost(block: MoveBlock) -> int:
    """Components a move takes: its text, its button row and its menu row."""
    return 1 + (1 + len(block.buttons) if block.buttons else 0) + (2 if block.select else 0)


def pages_of(layout: CardLayout, head: bool) -> list[tuple[int, int]]:
    """[start, end) move ranges per page within the 40-component limit."""
    fixed = (1 if head else 0) + 1 + 1 + 1  # message text, container, title, footer
    shown_buttons = layout.card_buttons[:ROW_BUTTONS_MAX]
    fixed += 1 + len(shown_buttons) if shown_buttons else 0
    fixed += (1 + min(len(layout.links), ROW_BUTTONS_MAX)) if layout.links else 0
    budget = COMPONENTS_MAX - fixed
    if sum(cost(b) for b in layout.blocks) <= budget:
        return [(0, len(layout.blocks))]
    # Previous / Next, and a row of their own when the card's row has no room for them
    budget -= 2 + (0 if 0 < len(layout.card_buttons) <= ROW_BUTTONS_MAX - 2 else 1)
    pages: list[tuple[int, int]] = []
    start, used = 0, 0
    for i, block in enumerate(layout.blocks):
        if i > start and used + cost(block) > budget:
            pages.append((start, i))
            start, used = i, 0
        used += cost(block)
    pages.append((start, len(layout.blocks)))
    return pages


def _button(b: Button) -> discord.ui.Item[Any]:
    if b.url:
        return discord.ui.Button(label=clip(b.label, BUTTON_LABEL_MAX), url=b.url)
    if len(b.custom_id) > CUSTOM_ID_MAX:
        raise ValueError(f"custom_id longer than {CUSTOM_ID_MAX} chars: {b.custom_id[:20]}…")
    if FvButton.__discord_ui_compiled_template__.fullmatch(b.custom_id):
        return FvButton(b.custom_id, label=b.label, style=b.style, disabled=b.disabled)
    if FvPage.__discord_ui_compiled_template__.fullmatch(b.custom_id):
        return FvPage(b.custom_id, label=b.label, disabled=b.disabled)
    return discord.ui.Button(label=clip(b.label, BUTTON_LABEL_MAX), custom_id=b.custom_id,
                             style=STYLES.get(b.style, discord.ButtonStyle.secondary),
                             disabled=b.disabled)


def _rows(buttons: Sequence[Button]) -> list[discord.ui.ActionRow[Any]]:
    out = []
    for i in range(0, len(buttons), ROW_BUTTONS_MAX):
        out.append(discord.ui.ActionRow(*[_button(b) for b in buttons[i:i + ROW_BUTTONS_MAX]]))
    return out


def _menu(s: Select) -> discord.ui.ActionRow[Any]:
    return discord.ui.ActionRow(FvSelect(s.custom_id, placeholder=s.placeholder,
                                         options=s.options, disabled=s.disabled))


def _move_text(block: MoveBlock, limit: int) -> str:
    return clip(f"**{block.name}**\n{block.value}".strip(), max(limit, 40))


def move_card_container(layout: CardLayout, page: int, *, head: bool,
                        text_budget: int) -> discord.ui.Container[Any]:
    """The card as one Container, showing page `page` of its moves."""
    card = layout.card
    pages = pages_of(layout, head)
    page = max(0, min(page, len(pages) - 1))
    start, end = pages[page]
    title = f"### {clip(card.title, 200)}" if card.title else ""
    where = f"Moves {start + 1}-{end} of {len(layout.blocks)}" if len(pages) > 1 else ""
    if where:
        where += (" · Next shows the others" if page < len(pages) - 1
                  else " · Previous shows the first ones")
    footer = "\n".join(f"-# {line}" for line in (card.footer or "").splitlines() if line)
    top = "\n".join(p for p in (title, card.text or "", f"**{where}**" if where else "") if p)
    shown = layout.blocks[start:end]
    room = text_budget - len(footer) - min(len(top), text_budget // 3)
    per_move = room // max(1, len(shown))
    container: discord.ui.Container[Any] = discord.ui.Container(
        accent_colour=parse_color(card.color))
    groups: list[list[discord.ui.Item[Any]]] = [
        [discord.ui.TextDisplay(clip(top or "\u200b", text_budget // 3))]]
    for block in shown:
        items: list[discord.ui.Item[Any]] = [discord.ui.TextDisplay(_move_text(block, per_move))]
        if block.buttons:
            items.append(_rows(block.buttons)[0])
        if block.select is not None:
            items.append(_menu(block.select))
        groups.append(items)
    controls = list(layout.card_buttons[:ROW_BUTTONS_MAX])
    tail: list[discord.ui.Item[Any]] = []
    if len(pages) > 1:
        nav = [Button("◀ Previous", page_custom_id(layout.card_id, max(page - 1, 0)),
                      "secondary", disabled=page == 0),
               Button("Next ▶", page_custom_id(layout.card_id, page + 1), "secondary",
                      disabled=page == len(pages) - 1)]
        if len(controls) + len(nav) <= ROW_BUTTONS_MAX:
            controls += nav
        else:  # a row of their own (counted in pages_of)
            tail.append(_rows(controls)[0])
            controls = nav
    tail += _rows(controls)[:1] + _rows(layout.links)[:1]
    if footer:
        tail.append(discord.ui.TextDisplay(clip(footer, 1000)))
    groups.append(tail)
    for item in _separated(groups, spare=COMPONENTS_MAX - (1 if head else 0) - 1
                           - sum(_count(i) for g in groups for i in g)):
        container.add_item(item)
    return container


def _count(item: discord.ui.Item[Any]) -> int:
    """Components an item takes (an action row and each of its children)."""
    return 1 + len(getattr(item, "children", ()) or ())


def _separated(groups: list[list[discord.ui.Item[Any]]],
               spare: int) -> list[discord.ui.Item[Any]]:
    """The card's parts in order with a separator line between them, as many as Discord's
    component limit leaves room for (`spare`): first around the moves (under the summary,
    above the card's own buttons), then between every two moves (all of them or none)."""
    parts = [g for g in groups if g]
    outer = [g for g in dict.fromkeys((1, len(parts) - 1)) if 0 < g < len(parts)]
    inner = [g for g in range(1, len(parts)) if g not in outer]
    lines = set(outer[:max(0, spare)])
    if spare >= len(outer) + len(inner):
        lines.update(inner)
    out: list[discord.ui.Item[Any]] = []
    for k, part in enumerate(parts):
        if k in lines:
            out.append(discord.ui.Separator())
        out += part
    return out


def plain_container(card: Card, text_budget: int) -> discord.ui.Container[Any]:
    """Any other card (a report, "What next?") as a Container in a Components V2 message."""
    lines = [f"### {clip(card.title, 200)}" if card.title else "", card.text or ""]
    lines += [f"**{n}**: {v}" for n, v in card.fields]
    body = "\n".join(x for x in lines if x)
    container: discord.ui.Container[Any] = discord.ui.Container(
        accent_colour=parse_color(card.color))
    if body:
        container.add_item(discord.ui.TextDisplay(clip(body, text_budget)))
    for row in _rows([b for b in card.buttons][:ROW_BUTTONS_MAX]):
        container.add_item(row)
    if card.footer:
        container.add_item(discord.ui.TextDisplay(f"-# {clip(card.footer, 500)}"))
    return container


def build_layout(text: str, cards: Sequence[Card], page: int = 0) -> discord.ui.LayoutView:
    """One Components V2 message: the message's text, then each card in its Container."""
    view = discord.ui.LayoutView(timeout=None)
    head = bool((text or "").strip())
    budget = TEXT_MAX
    if head:
        shown = clip(text.strip(), 1000)
        view.add_item(discord.ui.TextDisplay(shown))
        budget -= len(shown)
    moves = [c for c in cards if is_move_card(c)]
    share = budget // max(1, len(cards))
    for card in cards:
        if card in moves:
            view.add_item(move_card_container(split_card(card), page, head=head,
                                              text_budget=share))
        else:
            view.add_item(plain_container(card, share))
    return view
