"""Draw the core's neutral OutgoingMessage / Card model as Slack Block Kit.

Limits (slack_sdk validators, docs.slack.dev): 50 blocks per message, section text 3000,
10 fields per section (2000 each), header 150, button text 75, action_id 255, value 2000,
25 elements per actions block, context element text 3000. Slack buttons cannot be disabled:
a disabled button is not drawn (the card's footer says who decided).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Any

from bot.core.buttons import CUSTOM_ID_RE, SLACK_LINK_RE, slack_link_action_id
from bot.core.card_layout import MoveBlock, is_move_card, split_card
from bot.core.render import clip
from bot.core.timestamps import TOKEN_RE, to_slack, to_utc_text

SECTION_TEXT_MAX = 3000
FIELD_TEXT_MAX = 2000
FIELDS_PER_SECTION = 10
HEADER_MAX = 150
BUTTON_TEXT_MAX = 75
ACTION_ID_MAX = 255
ACTIONS_MAX = 25
BLOCKS_MAX = 50
FALLBACK_TEXT_MAX = 3000

# Core button ids (bot.core.buttons; bolt matches action_id with search).
ACTION_ID_PATTERN = CUSTOM_ID_RE
#: A link button (opens ESPN): Slack still sends its click, which is only acknowledged.
LINK_ACTION_PATTERN = SLACK_LINK_RE
SELECT_PLACEHOLDER_MAX = 150
OPTION_TEXT_MAX = 75
CONFIRM_TITLE_MAX = 100
CONFIRM_TEXT_MAX = 300


def split_text(text: str, limit: int = SECTION_TEXT_MAX) -> list[str]:
    """Split into chunks of at most `limit` chars at line or word breaks."""
    text = text or ""
    out: list[str] = []
    while len(text) > limit:
        cut = text.rfind("\n", 0, limit + 1)
        if cut < limit // 2:
            cut = text.rfind(" ", 0, limit + 1)
        if cut < limit // 2:
            cut = limit
        out.append(text[:cut].rstrip())
        text = text[cut:].lstrip("\n ")
    if text:
        out.append(text)
    return out


_USER_MENTION = re.compile(r"<@([A-Z0-9_]+)(?:\|([^>]*))?>")


def neutralize_mentions(text: str, keep: Collection[str] = ()) -> str:
    """`<@U123>` / `<@U123|bob>` -> `@U123` / `@bob`: readable, but no ping. Text from
    users (questions, player names echoed back) reaches posts, so mentions never pass,
    except those of the user ids in `keep` (the core's own, `OutgoingMessage.mentions`)."""
    return _USER_MENTION.sub(lambda m: m.group(0) if m.group(1) in keep
                             else "@" + (m.group(2) or m.group(1)).lstrip("@"), text or "")


def to_mrkdwn(text: str, *, mentions: bool | Collection[str] = False) -> str:
    """Common Markdown -> Slack mrkdwn: **bold** -> *bold*, [label](url) -> <url|label>,
    and `&`, `<`, `>` escaped (except Slack's <#C…>/<http…> tokens; <!here>, <!channel>,
    <!everyone> are escaped so answers never ping a whole channel). User mentions <@U…>
    are neutralised (`neutralize_mentions`) unless `mentions=True` (the core's own
    "Approved by <@U…>" footer) or their id is in `mentions` (a collection of ids)."""
    text = text or ""
    if mentions is not True:
        text = neutralize_mentions(text, () if mentions is False else mentions)
    # local timestamps: the core's <t:EPOCH:STYLE> becomes Slack's <!date^...> (kept out of
    # the escaping below, which would turn its < into &lt;)
    stamps: list[str] = []

    def hold(m: re.Match[str]) -> str:
        stamps.append(to_slack(m.group(0)))
        return f"\ue000{len(stamps) - 1}\ue001"
    text = TOKEN_RE.sub(hold, text.replace("\ue000", "").replace("\ue001", ""))
    text = re.sub(r"&(?!(amp|lt|gt);)", "&amp;", text)
    text = re.sub(r"<(?![@#]|https?://|mailto:)", "&lt;", text)
    text = re.sub(r"(?<![@#!\w|/])>", "&gt;", text)
    text = re.sub(r"\[([^\]]+)\]\((https?://[^)\s]+)\)", r"<\2|\1>", text)
    text = re.sub(r"\*\*(.+?)\*\*", r"*\1*", text)
    text = re.sub(r"__(.+?)__", r"_\1_", text)
    return re.sub("\ue000(\\d+)\ue001", lambda m: stamps[int(m.group(1))], text)


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": clip(text, SECTION_TEXT_MAX)}}


#: A field value up to this long, on one line, is a short fact drawn in a two-column field
#: (Discord's inline rule); a longer one gets a section of its own (full width).
FIELD_SHORT_MAX = 40


def field_blocks(fields: Any) -> list[dict[str, Any]]:
    """A card's fields in order: runs of short facts ("Status: Out") as field sections, two
    columns on desktop; a long or multi-line value (a lineup, sources, a list of changes)
    as a full-width section with its name in bold, never squeezed into a column."""
    blocks: list[dict[str, Any]] = []
    run: list[dict[str, Any]] = []

    def close_run() -> None:
        for i in range(0, len(run), FIELDS_PER_SECTION):
            blocks.append({"type": "section", "fields": run[i:i + FIELDS_PER_SECTION]})
        run.clear()

    for n, v in fields:
        name, value = to_mrkdwn(str(n)), to_mrkdwn(str(v))
        if len(str(v)) <= FIELD_SHORT_MAX and "\n" not in str(v):
            run.append({"type": "mrkdwn", "text": clip(f"*{name}*\n{value}", FIELD_TEXT_MAX)})
            continue
        close_run()
        blocks.append(_section(f"*{name}*\n{value}"))
    close_run()
    return blocks


def card_blocks(card: Any) -> list[dict[str, Any]]:
    """One Card -> header, text sections, field sections, context footer, actions."""
    blocks: list[dict[str, Any]] = []
    if card.title:
        title = neutralize_mentions(to_utc_text(card.title))  # plain_text: no <!date>
        blocks.append({"type": "header", "text": {"type": "plain_text", "emoji": True,
                                                  "text": clip(title, HEADER_MAX)}})
    for chunk in split_text(to_mrkdwn(card.text or "")):
        blocks.append(_section(chunk))
    blocks += field_blocks(card.fields or [])
    if card.footer:
        blocks.append({"type": "context", "elements": [
            {"type": "mrkdwn", "text": clip(to_mrkdwn(card.footer, mentions=True),
                                            SECTION_TEXT_MAX)}]})
    actions = _actions([b for b in card.buttons or [] if not b.disabled])
    if actions:
        blocks.append(actions)
    for sel in (s for s in getattr(card, "selects", None) or [] if not s.disabled):
        blocks.append({"type": "actions", "elements": [select_element(sel)]})
    return blocks


def button_element(b: Any, k: int = 0) -> dict[str, Any]:
    """A core Button -> a Block Kit button (a link button's action_id is `fvlink:<k>`)."""
    if len(b.custom_id) > ACTION_ID_MAX:
        raise ValueError("action_id longer than 255 chars")
    el: dict[str, Any] = {"type": "button", "action_id": b.custom_id, "value": b.custom_id,
                          "text": {"type": "plain_text", "emoji": True,
                                   "text": clip(to_utc_text(b.label), BUTTON_TEXT_MAX)}}
    if b.url:  # a link: opens the page; its click is only acknowledged
        el.update({"url": b.url, "action_id": slack_link_action_id(k), "value": "link"})
    if b.style in ("primary", "danger"):
        el["style"] = b.style
    if getattr(b, "confirm", "") and not b.url:  # e.g. an approval that drops a player
        el["confirm"] = confirm_dialog(b.label, b.confirm, danger=b.style == "danger")
    return el


def _actions(buttons: Sequence[Any], selects: Sequence[Any] = (), *, first_link: int = 0
             ) -> dict[str, Any] | None:
    """One actions block: the enabled buttons, then the menus (25 elements at most)."""
    elements = [button_element(b, first_link + k) for k, b in enumerate(buttons)]
    elements += [select_element(s) for s in selects if not s.disabled]
    if not elements:
        return None
    return {"type": "actions", "elements": elements[:ACTIONS_MAX]}


# ------------------------------------------------------------------ move cards

def _move_blocks(block: MoveBlock) -> list[dict[str, Any]]:
    """One move of a card: its line and details as one full-width section (no two-column
    fields: a phone shows it at its width), then its own Approve / Skip and menu."""
    text = f"*{to_mrkdwn(block.name)}*\n{to_mrkdwn(block.value)}".strip()
    out = [_section(chunk) for chunk in split_text(text, SECTION_TEXT_MAX)]
    actions = _actions([b for b in block.buttons if not b.disabled],
                       [block.select] if block.select is not None else [])
    if actions:
        out.append(actions)
    return out


def _page_note(title: str, page: int, pages: int, first: int, last: int, moves: int) -> dict:
    where = f"moves {first}-{last} of {moves}" if last > first else f"move {first} of {moves}"
    text = (f"Page {page} of {pages} ({where}): this card is longer than one Slack message "
            "holds, so it continues in the next message; the buttons for the whole card are "
            "on the last page." if page < pages else
            f"Page {page} of {pages} ({where}) of *{to_mrkdwn(title)}*.")
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": clip(text, 3000)}]}


def move_card_pages(card: Any, room: int = BLOCKS_MAX) -> list[list[dict[str, Any]]]:
    """A move card (bot.core.card_layout) as Block Kit pages: the header and text, then
    each move as its own section with its own controls, then the footer and the card-wide
    buttons (Approve plan / Skip all, ESPN links). One page when it fits in `room` blocks
    (the first message's room left by text above it), else several messages of at most 50
    blocks, each saying which moves it shows."""
    layout = split_card(card)
    head: list[dict[str, Any]] = []
    if card.title:
        title = neutralize_mentions(to_utc_text(card.title))
        head.append({"type": "header", "text": {"type": "plain_text", "emoji": True,
                                                "text": clip(title, HEADER_MAX)}})
    head += [_section(chunk) for chunk in split_text(to_mrkdwn(card.text or ""))]
    moves = [_move_blocks(b) for b in layout.blocks]
    tail: list[dict[str, Any]] = []
    if card.footer:
        tail.append({"type": "context", "elements": [
            {"type": "mrkdwn", "text": clip(to_mrkdwn(card.footer, mentions=True),
                                            SECTION_TEXT_MAX)}]})
    wide = _actions([b for b in layout.card_buttons if not b.disabled])
    links = _actions(layout.links)
    tail += [a for a in (wide, links) if a]
    if len(head) + sum(map(len, moves)) + len(tail) <= room:
        return [head + [b for m in moves for b in m] + tail]
    # pages: [start, end) of moves; each page has a note, the last one the tail
    spans: list[tuple[int, int]] = []
    cap, used, start = room - 1 - len(head), 0, 0
    for i, m in enumerate(moves):
        if i > start and used + len(m) > cap:
            spans.append((start, i))
            cap, used, start = BLOCKS_MAX - 1, 0, i
        used += len(m)
    if used + len(tail) > cap:  # the last page's moves and the card's controls do not fit
        cut = len(moves)
        while cut > start + 1 and used + len(tail) > cap:
            cut -= 1
            used -= len(moves[cut])
        spans.append((start, cut))
        start = cut
    spans.append((start, len(moves)))
    spans = [s for s in spans if s[1] > s[0]] or [(0, 0)]
    out = []
    for n, (a, b) in enumerate(spans, 1):
        page = head if n == 1 else []
        page = page + [_page_note(card.title or "", n, len(spans), a + 1, b, len(moves))]
        page += [blk for m in moves[a:b] for blk in m]
        if n == len(spans):
            page += tail
        out.append(page[:BLOCKS_MAX])
    return out


def confirm_dialog(label: str, question: str, *, danger: bool = False) -> dict[str, Any]:
    """Slack's confirmation dialog before a button's click is sent (title 100, text 300,
    confirm/deny 30 chars); red (`danger`) only when the click drops a player, as its
    button is."""
    return {"title": {"type": "plain_text", "emoji": True,
                      "text": clip(to_utc_text(label) + "?", CONFIRM_TITLE_MAX)},
            "text": {"type": "mrkdwn", "text": clip(to_mrkdwn(question), CONFIRM_TEXT_MAX)},
            "confirm": {"type": "plain_text", "text": "Yes, approve"},
            "deny": {"type": "plain_text", "text": "Cancel"},
            "style": "danger" if danger else "primary"}


def select_element(sel: Any) -> dict[str, Any]:
    """A core Select -> a static_select (the default option as initial_option). Choosing an
    option sends action_id = the select's id and selected_option.value."""
    options = [{"text": {"type": "plain_text", "emoji": True,
                         "text": clip(o.label, OPTION_TEXT_MAX)}, "value": o.value}
               for o in sel.options][:100]
    el: dict[str, Any] = {"type": "static_select", "action_id": sel.custom_id,
                          "placeholder": {"type": "plain_text", "emoji": True,
                                          "text": clip(sel.placeholder,
                                                       SELECT_PLACEHOLDER_MAX)},
                          "options": options}
    default = next((o for o, so in zip(options, sel.options, strict=True) if so.default), None)
    if default is not None:
        el["initial_option"] = default
    return el


_PROGRESS_LINE = re.compile(r"^(?:⏳|✓) ")


def is_progress(msg: Any) -> bool:
    """True for the core's live progress message (`bot.core.render.progress_text`: every
    line "⏳ step" or "✓ step", no cards), which some Slack surfaces show another way (the
    assistant's status) or not at all (a private answer)."""
    text = getattr(msg, "text", msg) or ""
    lines = [ln for ln in str(text).splitlines() if ln.strip()]
    return (not getattr(msg, "cards", None) and bool(lines)
            and all(_PROGRESS_LINE.match(ln) for ln in lines))


def fallback_text(msg: Any) -> str:
    """Plain text for notifications and clients without blocks."""
    parts = [msg.text or ""] + [c.title for c in (getattr(msg, "cards", None) or [])]
    return clip(to_mrkdwn("\n".join(p for p in parts if p), mentions=_mentions(msg)) or " ",
                FALLBACK_TEXT_MAX)


def _mentions(msg: Any) -> tuple[str, ...]:
    """The user ids a message mentions on purpose (they ping; other mentions do not)."""
    return tuple(getattr(msg, "mentions", None) or ())


def render(msg: Any) -> list[list[dict[str, Any]]]:
    """An OutgoingMessage -> the block lists of the Slack messages to post, in order (at
    most 50 blocks each). A move card draws each move as its own section with its controls;
    one that does not fit in a message is paginated (`move_card_pages`) and says so."""
    blocks = [_section(c) for c in split_text(to_mrkdwn(msg.text or "", mentions=_mentions(msg)))]
    messages: list[list[dict[str, Any]]] = []
    for card in getattr(msg, "cards", None) or []:
        if blocks:
            blocks.append({"type": "divider"})
        if not is_move_card(card):
            blocks.extend(card_blocks(card))
            continue
        pages = move_card_pages(card, max(BLOCKS_MAX - len(blocks), 1))
        blocks.extend(pages[0])
        for page in pages[1:]:
            messages.append(blocks)
            blocks = list(page)
    if not blocks:
        blocks.append(_section(" "))
    messages.append(blocks)
    return [part[i:i + BLOCKS_MAX] for part in messages for i in range(0, len(part), BLOCKS_MAX)]


def render_edit(msg: Any) -> list[dict[str, Any]]:
    """An OutgoingMessage -> the blocks of one message edit (kept within 50 blocks). A
    paginated move card: its last page (the message whose ts the core keeps, with the
    card-wide buttons and footer; `SlackSurface.edit` redraws the other pages it knows)."""
    parts = render(msg)
    if len(parts) > 1 and any(is_move_card(c) for c in getattr(msg, "cards", None) or []):
        return parts[-1]
    blocks = [b for part in parts for b in part]
    if len(blocks) > BLOCKS_MAX:
        actions = [b for b in blocks if b["type"] == "actions"]
        rest = [b for b in blocks if b["type"] != "actions"]
        blocks = rest[: BLOCKS_MAX - len(actions[:1])] + actions[:1]
    return blocks
