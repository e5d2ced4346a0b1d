"""Issue 12 minor: a button id with a trailing newline (or anything after the id) is not
one of ours: `$` matched before a final "\n"; ids are now matched in full."""

from __future__ import annotations

import pytest

from bot.core.render import make_custom_id, parse_custom_id


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
