"""Card/OutgoingMessage -> Discord payloads within Discord's documented limits."""

from __future__ import annotations

import discord
import pytest

from bot.core.models import Button, Card, OutgoingMessage
from bot.discord.render import (
    EMBED_TOTAL_MAX,
    FvButton,
    card_to_embed,
    parse_color,
    render,
    render_edit,
    split_text,
)


def test_embed_limits_are_respected():
    card = Card(title="T" * 400, text="d" * 9000,
                fields=[(f"name{i}" * 40, "v" * 2000) for i in range(40)], footer="f" * 3000)
    embed = card_to_embed(card)
    data = embed.to_dict()
    assert len(data["title"]) == 256 and len(data["footer"]["text"]) == 2048
    assert len(data["fields"]) <= 25
    assert all(len(f["name"]) <= 256 and len(f["value"]) <= 1024 for f in data["fields"])
    assert len(data.get("description", "")) <= 4096
    assert len(embed) <= EMBED_TOTAL_MAX


def test_fields_over_25_say_how_many_are_hidden():
    embed = card_to_embed(Card("t", fields=[(f"f{i}", "v") for i in range(30)]))
    assert len(embed.fields) == 25 and embed.fields[-1].value == "6 more not shown"


def test_long_text_is_split_and_cards_ride_on_the_last_message():
    cards = [Card(f"c{i}", "x" * 500, buttons=[Button("Approve", f"fv:approveall:{i:012x}",
                                                       "primary")]) for i in range(12)]
    parts = render(OutgoingMessage("word " * 900, cards))
    assert all(len(p.content) <= 2000 for p in parts)
    assert sum(len(p.embeds) for p in parts) == 12
    assert all(len(p.embeds) <= 10 for p in parts)
    assert all(sum(len(e) for e in p.embeds) <= EMBED_TOTAL_MAX for p in parts)
    assert parts[-1].view is not None and all(p.view is None for p in parts[:-1])
    items = parts[-1].view.children
    assert len(items) == 12 and all(isinstance(i, FvButton) for i in items)
    assert max(i.row for i in items) == 2  # 5 buttons per row


def test_edit_is_one_message_and_keeps_disabled_buttons():
    card = Card("Moves", buttons=[Button("Approve", "fv:approveall:0123456789ab", "primary",
                                         disabled=True)], footer="Approved by Ann")
    edit = render_edit(OutgoingMessage("z" * 3000, [card]))
    assert len(edit.content) == 2000
    (button,) = edit.view.children
    assert button.item.disabled and button.item.style is discord.ButtonStyle.primary
    assert render_edit(OutgoingMessage("done")).view.children == []  # removes old buttons


def test_template_matches_core_ids_only():
    rx = FvButton.__discord_ui_compiled_template__
    assert rx.fullmatch("fv:approve:0123456789ab:3")
    assert rx.fullmatch("fv:declineall:0123456789ab")
    assert not rx.fullmatch("fv:delete:0123456789ab")
    assert not rx.fullmatch("fv:approve:XYZ")


def test_split_text_and_colors():
    assert split_text("a" * 4001) == ["a" * 2000, "a" * 2000, "a"]
    assert split_text("x" * 1500 + "\n" + "b" * 1000) == ["x" * 1500, "b" * 1000]
    assert [c.strip() for c in split_text("w " * 1500)] == [("w " * 1000).strip(), ("w " * 500).strip()]
    assert parse_color("green").value == 0x2ECC71 and parse_color("#123456").value == 0x123456
    assert parse_color("nope") is None and parse_color(None) is None


def test_a_card_of_buttons_only_draws_no_empty_embed():
    offers = Card("", buttons=[Button("Look for moves", "fv:do:0123456789ab:0", "primary")])
    (part,) = render(OutgoingMessage("You're up 75.", [offers]))
    assert part.content == "You're up 75." and part.embeds == []
    assert [i.item.label for i in part.view.children] == ["Look for moves"]


@pytest.mark.parametrize("moves", [1, 5, 6, 8, 12])
@pytest.mark.parametrize("card_wide", [2, 4, 5])
def test_every_move_of_a_v2_card_is_reachable_within_40_components(moves, card_wide):
    from bot.core.models import Select, SelectOption
    from bot.discord.layout import build_layout, pages_of, split_card

    cid = "0123456789ab"
    buttons = [b for k in range(moves) for b in (
        Button(f"Approve #{k + 1}", f"fv:approve:{cid}:{k}", "primary"),
        Button(f"Skip #{k + 1}", f"fv:decline:{cid}:{k}"))]
    buttons += [Button(f"All {j}", f"fv:approveall:{cid}") for j in range(card_wide)]
    buttons.append(Button("Add on ESPN", f"link:{cid}:1", url="https://fantasy.espn.com/x"))
    card = Card("Your plan", "x" * 900, fields=[(f"{k + 1}. move", "w " * 600)
                                                for k in range(moves)],
                buttons=buttons, footer="Requested by Ann",
                selects=[Select(f"fv:pick:{cid}:{k}", "others", (SelectOption("a", str(k)),))
                         for k in range(moves)])
    pages = pages_of(split_card(card), head=True)
    seen = set()
    for page in range(len(pages)):
        view = build_layout("<@1>, review these moves:", [card], page)
        assert view.total_children_count <= 40
        data = str(view.to_components())
        texts = [c["content"] for c in view.to_components()[1]["components"] if c["type"] == 10]
        assert sum(len(t) for t in texts) + len("<@1>, review these moves:") <= 4000
        seen |= {k for k in range(moves) if f"fv:approve:{cid}:{k}'" in data
                 and f"fv:pick:{cid}:{k}'" in data}
        if len(pages) > 1:
            assert f"Moves {pages[page][0] + 1}-{pages[page][1]} of {moves}" in data
            assert "fv:page:" in data
    assert seen == set(range(moves))  # every move with its buttons and its menu
