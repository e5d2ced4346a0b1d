"""Issue 12 minors, through the REAL ChatCore, runtime, matchup optimizer graph, app DB and
demo league (offline model), with the in-memory FaultySurface (no faults injected):

- a stranger who runs `/link team=1` (the default team of an unlinked requester) after the
  card was made gets no say over it: a card belongs to its requester, and to the team's
  linked owner only if that link existed when the card was made;
- a move whose added player was taken by another team meanwhile shows "Not possible: <player>
  was claimed by <team>" on the card (not ✅ as if it had happened).
"""

from __future__ import annotations

from pathlib import Path

from bot.core.app import FanViseApp
from bot.core.models import OutgoingMessage, ThreadRef, UserRef
from bot.settings import Settings
from tests.bot.harness.links import link
from tests.reliability.surface import FaultySurface

REQ = UserRef("discord", "100", "Alice")
EVE = UserRef("discord", "666", "Eve")
ADMIN = UserRef("discord", "1", "Admin", is_admin=True)
CHANNEL = ThreadRef("discord", "G1", "C1", "")


async def _open(data_dir: Path) -> FanViseApp:
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=data_dir,
                                         llm_per_minute=600, llm_burst=50))
    await link(app.core, "discord", CHANNEL.workspace_id, REQ.user_id, 1)  # Alice's team
    return app


def _card(s: FaultySurface) -> tuple[str, OutgoingMessage]:
    cards = [(mid, m) for mid, m in s.posts.items() if m.cards and m.cards[0].buttons]
    assert cards, f"no card was posted: {s.all_text()[-500:]}"
    return cards[-1]


def _button(msg: OutgoingMessage, label: str) -> str:
    return next(b.custom_id for b in msg.cards[0].buttons if b.label == label)


async def test_a_link_made_after_the_card_gives_no_say_over_it(tmp_path: Path) -> None:
    app = await _open(tmp_path)
    s = FaultySurface()
    try:
        await app.core.handle_command(s, CHANNEL, REQ, "optimize", {"text": ""})
        mid, msg = _card(s)
        row = (await app.app_db.pending_cards())[0]
        assert row.team_id == 1 and row.requester_id == REQ.user_id
        before = set(app.espn.demo.roster_now(1))
        # the stranger cannot link himself to Alice's team; an admin links him only now
        await app.core.handle_command(s, CHANNEL, EVE, "link", {"text": "team=1"})
        assert "already linked to another member" in s.ephemeral_for(EVE.user_id)[-1]
        await app.core.handle_command(s, CHANNEL, ADMIN, "link",
                                      {"text": f"member=<@{EVE.user_id}> team=1"})
        assert (await app.app_db.get_link("discord", "G1", EVE.user_id)).team_id == 1
        await app.core.handle_click(s, CHANNEL, EVE, _button(msg, "Approve plan"), mid)
        assert "can decide" in s.ephemeral_for(EVE.user_id)[-1]
        assert (await app.app_db.get_card(row.card_id)).status == "pending"
        assert set(app.espn.demo.roster_now(1)) == before
        assert not any(b.disabled for b in s.posts[mid].cards[0].buttons)
        audit = await app.app_db.audit_rows(row.card_id)
        assert [(a["user_id"], a["result"]) for a in audit] == [(EVE.user_id, "refused")]
        # the requester still decides
        await app.core.handle_click(s, CHANNEL, REQ, _button(msg, "Skip all"), mid)
        assert (await app.app_db.get_card(row.card_id)).status == "declined"
    finally:
        await app.close()


async def test_a_move_whose_player_was_taken_meanwhile_is_not_shown_as_applied(
        tmp_path: Path) -> None:
    app = await _open(tmp_path)
    s = FaultySurface()
    try:
        await app.core.handle_command(s, CHANNEL, REQ, "optimize", {"text": ""})
        mid, msg = _card(s)
        row = (await app.app_db.pending_cards())[0]
        demo = app.espn.demo
        first = row.moves[0]
        add_id = int(first["add"]["id"])
        # another team picks up the player the first move would add
        other = next(t for t in demo.team_ids() if t != row.team_id)
        drop_other = sorted(demo.roster_now(other))[0]
        demo.apply_move(other, drop_other, add_id)
        assert demo.owner_of(add_id) == other
        await app.core.handle_click(s, CHANNEL, REQ, _button(msg, "Approve plan"), mid)
        card = s.posts[mid].cards[0]
        assert all(b.disabled for b in card.buttons)
        name, value = card.fields[0]
        assert "✅" not in name, card.fields
        owner = demo.team_name(other)
        assert f"Not possible: {first['add']['name']} was claimed by {owner}" in value, \
            card.fields
        assert "1 not possible" in card.footer, card.footer
        assert add_id not in demo.roster_now(row.team_id)
        assert demo.owner_of(add_id) == other
    finally:
        await app.close()


async def test_an_admin_may_only_skip_a_whole_card(tmp_path: Path) -> None:
    """Issue 25 item 9: a server / workspace admin who is neither the requester nor the
    team's owner may decline a pending card (to clean up a thread) and never approve or
    choose a move for someone else's team; a member who is not an admin cannot touch it."""
    from bot.core.buttons import make_custom_id

    app = await _open(tmp_path)
    s = FaultySurface()
    try:
        await app.core.handle_command(s, CHANNEL, REQ, "optimize", {"text": ""})
        mid, msg = _card(s)
        row = (await app.app_db.pending_cards())[0]
        before = set(app.espn.demo.roster_now(1))
        # Alice marks #1 approved; the card stays open
        await app.core.handle_click(s, CHANNEL, REQ, _button(msg, "Approve #1"), mid)
        assert (await app.app_db.get_card(row.card_id)).decisions.get("0") == "approve"
        # the admin can neither approve, nor choose a player, nor skip one move
        alt = next(i for i, m in enumerate(row.moves) if m.get("alternative_of"))
        for cid in (_button(msg, "Approve plan"), _button(msg, "Approve #2"),
                    _button(msg, "Skip #2"), f"{make_custom_id('pick', row.card_id, 0)}:{alt}"):
            await app.core.handle_click(s, CHANNEL, ADMIN, cid, mid)
            assert "As an admin you can only skip this whole card" in \
                s.ephemeral_for(ADMIN.user_id)[-1]
        # a member who is not an admin cannot even skip it
        await app.core.handle_click(s, CHANNEL, EVE, _button(msg, "Skip all"), mid)
        assert "can decide" in s.ephemeral_for(EVE.user_id)[-1]
        card = await app.app_db.get_card(row.card_id)
        assert card.status == "pending" and "pick:0" not in card.decisions
        assert set(app.espn.demo.roster_now(1)) == before
        # the admin's Skip all closes it: every move declined, Alice's mark included
        await app.core.handle_click(s, CHANNEL, ADMIN, _button(msg, "Skip all"), mid)
        card = await app.app_db.get_card(row.card_id)
        assert card.status == "declined" and card.decided_by == ADMIN.user_id
        assert set(card.decisions.values()) == {"decline"}
        assert set(app.espn.demo.roster_now(1)) == before  # nothing made for Alice's team
        shown = s.posts[mid].cards[0]
        assert all(b.disabled for b in shown.buttons)
        assert shown.footer.startswith("Decided by Admin: ") and "applied" not in shown.footer
        audit = await app.app_db.audit_rows(row.card_id)
        assert (ADMIN.user_id, "admin clean-up") in {(a["user_id"], a["result"]) for a in audit}
        assert not any(a["result"] == "applied" for a in audit)
        # Alice's late click changes nothing
        await app.core.handle_click(s, CHANNEL, REQ, _button(msg, "Approve #3"), mid)
        assert "already decided" in s.ephemeral_for(REQ.user_id)[-1]
    finally:
        await app.close()
