"""Issue 12 minor: a button id with a trailing newline (or anything after the id) is not
one of ours: `$` matched before a final "\n"; ids are now matched in full."""

from __future__ import annotations

import pytest

from bot.core.buttons import make_custom_id, parse_custom_id


@pytest.mark.parametrize("cid", [
    "fv:approve:0123456789ab:0\n", "fv:approveall:0123456789ab\n", "fv:decline:0123456789ab\n",
    "fv:approve:0123456789ab:0\r\n", "fv:approve:0123456789ab:0 ", "\nfv:approve:0123456789ab",
])
def test_trailing_or_leading_junk_is_refused(cid: str) -> None:
    assert parse_custom_id(cid) is None


def test_exact_ids_still_parse() -> None:
    click = parse_custom_id("fv:approve:0123456789ab:2")
    assert click is not None and click.index == 2
    assert parse_custom_id(make_custom_id("declineall", "0123456789ab")) is not None
    with pytest.raises(ValueError):
        make_custom_id("approve", "0123456789ab\n")


def test_every_built_id_is_routed_by_its_platform_template() -> None:
    """The one grammar (bot.core.buttons): what a card, a lineup fix, an offer, a menu, a
    team link, a page or a share button is built as, the Discord templates derived from the
    same fragments match in full, and parsing gives back what was built."""
    import re

    from bot.core import buttons as b

    card = "0123456789ab"
    for cid in (b.make_custom_id("approve", card, 3), b.make_custom_id("declineall", card),
                b.lineup_fix_id(card), b.make_custom_id("do", card, 1), b.link_custom_id(7)):
        assert re.fullmatch(b.DISCORD_BUTTON_TEMPLATE, cid), cid
        assert b.CUSTOM_ID_RE.fullmatch(cid), cid
    assert b.parse_custom_id(b.lineup_fix_id(card)) == b.ClickId("approve", card)
    menu = b.make_custom_id("pick", card, 2)
    assert re.fullmatch(b.DISCORD_SELECT_TEMPLATE, menu)
    assert re.fullmatch(b.DISCORD_SELECT_TEMPLATE, b.LINK_SELECT_ID)
    assert b.parse_custom_id(f"{menu}:5") == b.ClickId("pick", card, 2, 5)
    assert b.parse_page_id(b.page_custom_id(card, 4)) == (card, 4)
    assert b.parse_share_id(b.share_custom_id("lineup")) == "lineup"
    assert b.is_share_id(b.share_custom_id("lineup")) and not b.is_share_id(menu)
    assert b.SLACK_LINK_RE.match(b.slack_link_action_id(2))
    for bad in (lambda: b.page_custom_id("xyz", 1), lambda: b.share_custom_id("Lineup!"),
                lambda: b.lineup_fix_id("not-a-fix")):
        with pytest.raises(ValueError):
            bad()
