"""Draw the core's neutral OutgoingMessage / Card model as Discord messages (embeds + buttons).

Discord limits (discord-api-docs, resources/message.mdx): content 2000 chars, 10 embeds per
message, embed title 256, description 4096, 25 fields (name 256, value 1024), footer 2048 and
6000 characters over all embeds of one message; 5 action rows x 5 buttons, label 80 chars,
custom_id 1-100 chars.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.core.buttons import is_share_id, share_custom_id
from bot.core.render import clip
from bot.core.timestamps import TOKEN_RE, first_time, to_utc_text
from bot.discord.items import (
    BUTTON_LABEL_MAX,
    CUSTOM_ID_MAX,
    STYLES,
    FvButton,
    FvSelect,
    FvShare,
    parse_color,
)
from bot.discord.layout import build_layout, is_move_card

CONTENT_MAX = 2000
EMBEDS_PER_MESSAGE = 10
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4096
EMBED_FIELDS_MAX = 25
FIELD_NAME_MAX = 256
FIELD_VALUE_MAX = 1024
FOOTER_MAX = 2048
EMBED_TOTAL_MAX = 6000
BUTTONS_MAX = 25
LAYOUT_HEAD_MAX = 1000  # a move card's message text drawn above it in the same message

# Button and menu ids: bot.core.buttons (their grammar and these DynamicItem templates).
ROWS_MAX = 5
def split_text(text: str, limit: int = CONTENT_MAX) -> list[str]:
    """Split `text` into chunks of at most `limit` chars, preferring line then word breaks."""
    text = text or ""
    chunks: list[str] = []
    while len(text) > limit:
        cut = text.rfind("\n", 0, limit + 1)
        if cut < limit // 2:
            cut = text.rfind(" ", 0, limit + 1)
        if cut < limit // 2:
            cut = limit
        chunks.append(text[:cut].rstrip())
        text = text[cut:].lstrip("\n ") if cut < len(text) else ""
    if text or not chunks:
        chunks.append(text)
    return chunks


def embed_size(embed: discord.Embed) -> int:
    """Characters that count towards Discord's 6000-per-message embed total."""
    return len(embed)


def card_to_embed(card: Any, budget: int = EMBED_TOTAL_MAX) -> discord.Embed:
    """One Card -> one Embed within every per-embed limit and within `budget` total chars."""
    fields = list(card.fields or [])
    # <t:EPOCH:STYLE> renders in content, descriptions and field values only: a title or a
    # field name gets its UTC text, a footer's first one becomes the embed's own timestamp
    # (shown beside the footer in the reader's time zone)
    title = clip(to_utc_text(card.title or ""), EMBED_TITLE_MAX)
    when = first_time(card.footer or "")
    footer = card.footer or ""
    if when is not None:
        footer = re.sub(r"\s{2,}", " ", TOKEN_RE.sub("", footer, count=1)).strip(" ,;:·-")
    footer = clip(to_utc_text(footer), FOOTER_MAX)
    shown = fields[:EMBED_FIELDS_MAX]
    if len(fields) > EMBED_FIELDS_MAX:
        shown = fields[: EMBED_FIELDS_MAX - 1]
        shown.append(("…", f"{len(fields) - len(shown)} more not shown"))
    shown = [(clip(to_utc_text(str(n)) or "\u200b", FIELD_NAME_MAX), clip(str(v) or "\u200b", FIELD_VALUE_MAX))
             for n, v in shown]
    fixed = len(title) + len(footer)
    while shown and fixed + sum(len(n) + len(v) for n, v in shown) > budget:
        shown.pop()  # drop trailing fields if even an empty description does not fit
    room = budget - fixed - sum(len(n) + len(v) for n, v in shown)
    description = clip(card.text or "", min(EMBED_DESCRIPTION_MAX, max(room, 0)))
    embed = discord.Embed(title=title or None, description=description or None,
                          colour=parse_color(getattr(card, "color", None)))
    for name, value in shown:
        embed.add_field(name=name, value=value, inline=len(value) <= 40)
    if footer:
        embed.set_footer(text=footer)
    if when is not None:
        embed.timestamp = when
    return embed


def with_share(part: DiscordMessage, name: str) -> DiscordMessage:
    """`part` (a personal command's answer) with "Post to channel" under it."""
    button = FvShare(share_custom_id(name))
    view = part.view
    if isinstance(view, discord.ui.LayoutView):
        view.add_item(discord.ui.ActionRow(button))
        return part
    if view is None or not isinstance(view, discord.ui.View):
        view = discord.ui.View(timeout=None)
    if view.children:  # beside the answer's last buttons when that row has room
        last = max(getattr(i, "row", None) or 0 for i in view.children)
        in_row = [i for i in view.children if (getattr(i, "row", None) or 0) == last]
        full = len(in_row) >= 5 or any(isinstance(getattr(i, "item", i), discord.ui.Select)
                                       for i in in_row)
        button.row = min(last + 1, ROWS_MAX - 1) if full else last
    view.add_item(button)
    return DiscordMessage(content=part.content, embeds=part.embeds, view=view)


def shared_copy(message: discord.Message) -> discord.ui.View | discord.ui.LayoutView | None:
    """The components of a shared answer without its "Post to channel" button."""
    if not message.components:
        return None
    view = discord.ui.View.from_message(message, timeout=None)
    for item in list(view.walk_children()):
        if is_share_id(getattr(item, "custom_id", None)):
            parent = getattr(item, "parent", None)
            (parent if parent is not None else view).remove_item(item)  # type: ignore[union-attr]
    return view if view.children else None


def build_view(buttons: Iterable[Any], selects: Iterable[Any] = ()) -> discord.ui.View | None:
    """Core Buttons (5 per row) and Selects (one row each, after the buttons, while rows are
    left: Discord allows 5) -> a View; None without any. Link buttons (url) open the page."""
    items = list(buttons)[:BUTTONS_MAX]
    menus = list(selects)
    if not items and not menus:
        return None
    view = discord.ui.View(timeout=None)
    compiled = FvButton.__discord_ui_compiled_template__
    for i, b in enumerate(items):
        if b.url:
            item: discord.ui.Item = discord.ui.Button(label=clip(b.label, BUTTON_LABEL_MAX),
                                                      url=b.url)
        elif len(b.custom_id) > CUSTOM_ID_MAX:
            raise ValueError(f"custom_id longer than {CUSTOM_ID_MAX} chars: {b.custom_id[:20]}…")
        elif compiled.fullmatch(b.custom_id):
            item = FvButton(b.custom_id, label=b.label, style=b.style, disabled=b.disabled)
        else:  # not a core decision button: drawn, but routed nowhere
            item = discord.ui.Button(label=clip(b.label, BUTTON_LABEL_MAX), custom_id=b.custom_id,
                                     style=STYLES.get(b.style, discord.ButtonStyle.secondary),
                                     disabled=b.disabled)
        item.row = i // 5
        view.add_item(item)
    row = (len(items) + 4) // 5
    for sel in menus:
        if row >= ROWS_MAX:
            break  # no row left: the card's text lists the other players
        menu = FvSelect(sel.custom_id, placeholder=sel.placeholder, options=sel.options,
                        disabled=sel.disabled)
        menu.row = row
        view.add_item(menu)
        row += 1
    return view


@dataclass
class DiscordMessage:
    """Keyword arguments for one Discord send/edit."""

    content: str = ""
    embeds: list[discord.Embed] = field(default_factory=list)
    view: discord.ui.View | discord.ui.LayoutView | None = None

    @property
    def layout(self) -> bool:
        """A Components V2 message (its text is in the view; no content, no embeds)."""
        return isinstance(self.view, discord.ui.LayoutView)

    def kwargs(self, *, edit: bool = False) -> dict[str, Any]:
        if self.layout:  # an edit clears the text a plain message had (e.g. a card's head)
            return {"view": self.view, "content": None, "embeds": []} if edit \
                else {"view": self.view}
        out: dict[str, Any] = {"content": self.content or None, "embeds": self.embeds}
        if self.view is not None:
            out["view"] = self.view
        return out


def render(msg: Any, *, max_text: int = CONTENT_MAX, page: int = 0) -> list[DiscordMessage]:
    """An OutgoingMessage -> the Discord messages to send, in order.

    A message with a move card (controls per move: bot.discord.layout) is one Components V2
    message showing page `page` of its moves. Otherwise long text is split into several
    messages; the cards' embeds go with the last text chunk (10 embeds and 6000 chars per
    message, overflow in extra messages); every card's buttons go on the final message, whose
    id is the one the core keeps for later edits.
    """
    cards: Sequence[Any] = list(getattr(msg, "cards", None) or [])
    if any(is_move_card(c) for c in cards):
        text = (msg.text or "").strip()
        if len(text) <= LAYOUT_HEAD_MAX:
            return [DiscordMessage(view=build_layout(text, cards, page))]
        return [DiscordMessage(content=c) for c in split_text(text, max_text)] + \
            [DiscordMessage(view=build_layout("", cards, page))]
    chunks = split_text(msg.text or "", max_text)
    out = [DiscordMessage(content=c) for c in chunks if c]
    if not out:
        out.append(DiscordMessage())
    current = out[-1]
    used = 0
    for card in cards:
        if not (card.title or card.text or card.fields or card.footer):
            continue  # buttons only (an answer's offers): they go under the text, no embed
        if len(current.embeds) >= EMBEDS_PER_MESSAGE or used >= EMBED_TOTAL_MAX - 200:
            current = DiscordMessage()
            out.append(current)
            used = 0
        embed = card_to_embed(card, budget=EMBED_TOTAL_MAX - used)
        used += embed_size(embed)
        current.embeds.append(embed)
    out[-1].view = build_view((b for card in cards for b in (card.buttons or [])),
                              (m for card in cards for m in (getattr(card, "selects", None)
                                                             or [])))
    if not out[-1].content and not out[-1].embeds:
        out[-1].content = "\u200b"  # Discord rejects an empty message
    return out


def render_edit(msg: Any, *, max_text: int = CONTENT_MAX, page: int = 0) -> DiscordMessage:
    """An OutgoingMessage -> one message edit (an edit cannot add messages: text is clipped)."""
    parts = render(msg, max_text=max_text, page=page)
    if parts[-1].layout:
        return parts[-1]
    text = "\n".join(p.content for p in parts if p.content)
    embeds = [e for p in parts for e in p.embeds][:EMBEDS_PER_MESSAGE]
    while embeds and sum(embed_size(e) for e in embeds) > EMBED_TOTAL_MAX:
        embeds.pop()
    view = parts[-1].view
    return DiscordMessage(content=clip(text, max_text), embeds=embeds,
                          view=view if view is not None else discord.ui.View(timeout=None))
