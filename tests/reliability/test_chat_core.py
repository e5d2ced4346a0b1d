"""bot/core under races, faults and hostile users: concurrent clicks apply once, late and
foreign clicks are answered clearly, /link cannot take over another member's team, LLM
commands are rate limited per user, chat-side failures (deleted message, 429, platform
down) never lose the graph's result. Real ChatCore + FanViseRuntime + SQLite on a tmp data
dir; the optimizer is the contract-shaped graph of runtime_driver (counts applications)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from bot.core.app import FanViseApp
from bot.core.models import ThreadRef, UserRef
from bot.settings import Settings
from tests.bot.harness.links import link
from tests.reliability.runtime_driver import slow_optimizer_for
from tests.reliability.surface import FaultySurface
from tests.reliability.test_gemini_faults import FakeGemini

THREAD = ThreadRef("discord", "G1", "C1", "T1")
ALICE = UserRef("discord", "100", "Alice")
BOB = UserRef("discord", "200", "Bob")
EVE = UserRef("discord", "666", "Eve")


async def open_app(data_dir: Path, **settings: Any) -> FanViseApp:
    kw: dict[str, Any] = {"llm_per_minute": 1e6, "llm_burst": 1e6,
                          "slack_updates_per_minute": 1e6, "secret_key": "test passphrase"}
    kw.update(settings)
    app = await FanViseApp.open(
        Settings(data_dir=data_dir, **kw), edit_interval=0.0,
        runtime_kwargs={"optimizer_graph_builder": slow_optimizer_for(data_dir)})
    await link(app.core, "discord", THREAD.workspace_id, ALICE.user_id, 1)  # Alice's team
    return app


@pytest.fixture
async def app(tmp_path: Path) -> Any:
    a = await open_app(tmp_path)
    yield a
    await a.close()


def applied(data_dir: Path) -> list[dict[str, Any]]:
    f = data_dir / "applied.jsonl"
    return [json.loads(x) for x in f.read_text().splitlines()] if f.exists() else []


async def request_card(app: FanViseApp, surface: FaultySurface, user: UserRef = ALICE,
                       thread: ThreadRef = THREAD) -> tuple[str, str]:
    await app.core.handle_command(surface, thread, user, "optimize", {})
    (button,) = surface.buttons("fv:approveall")
    return button


@pytest.mark.parametrize("n", [2, 10])
async def test_concurrent_clicks_apply_once(app: FanViseApp, tmp_path: Path, n: int) -> None:
    s = FaultySurface()
    mid, cid = await request_card(app, s)
    await asyncio.gather(*(app.core.handle_click(s, THREAD, ALICE, cid, mid)
                           for _ in range(n)))
    assert len(applied(tmp_path)) == 1
    refusals = s.ephemeral_for(ALICE.user_id)
    assert len(refusals) == n - 1 and all("already decided" in r for r in refusals)
    card = await app.app_db.get_card(cid.split(":")[2])
    assert card.status == "approved" and card.decided_by_name == "Alice"
    assert "Applied: drop Jordan Poole" in s.all_text()
    assert await app.runtime.pending_approvals() == []


async def test_mixed_approve_and_decline_race_applies_one_decision(app, tmp_path) -> None:
    s = FaultySurface()
    mid, cid = await request_card(app, s)
    decline = cid.replace("approveall", "declineall")
    await asyncio.gather(*(app.core.handle_click(s, THREAD, ALICE, c, mid)
                           for c in [cid, decline] * 5))
    card = await app.app_db.get_card(cid.split(":")[2])
    assert card.status in ("approved", "declined")
    assert len(applied(tmp_path)) == (1 if card.status == "approved" else 0)
    assert len(s.ephemeral_for(ALICE.user_id)) == 9


async def test_click_on_decided_card_and_unknown_card(app: FanViseApp, tmp_path) -> None:
    s = FaultySurface()
    mid, cid = await request_card(app, s)
    await app.core.handle_click(s, THREAD, ALICE, cid.replace("approveall", "declineall"), mid)
    await app.core.handle_click(s, THREAD, ALICE, cid, mid)  # late approve
    (late,) = s.ephemeral_for(ALICE.user_id)
    assert "already decided" in late and "declined by Alice" in late
    assert applied(tmp_path) == []
    await app.core.handle_click(s, THREAD, ALICE, "fv:approveall:0123456789ab", mid)
    await app.core.handle_click(s, THREAD, ALICE, "hitl|x|y|approve", mid)
    assert s.ephemeral_for(ALICE.user_id)[1:] == ["This card is no longer available.",
                                                  "That button is not one of FanVise's."]


async def test_stranger_cannot_approve(app: FanViseApp, tmp_path: Path) -> None:
    s = FaultySurface()
    mid, cid = await request_card(app, s)
    await asyncio.gather(*(app.core.handle_click(s, THREAD, EVE, cid, mid) for _ in range(3)))
    assert applied(tmp_path) == []
    assert all("Only Alice" in t for t in s.ephemeral_for(EVE.user_id))
    card = await app.app_db.get_card(cid.split(":")[2])
    assert card.status == "pending"
    await app.core.handle_click(s, THREAD, ALICE, cid, mid)
    assert len(applied(tmp_path)) == 1
    audit = await app.app_db.audit_rows(card.card_id)
    assert sum(r["result"] == "refused" and r["user_id"] == EVE.user_id for r in audit) == 3


async def test_stranger_cannot_link_over_another_members_team(app: FanViseApp,
                                                              tmp_path: Path) -> None:
    s = FaultySurface()
    await app.core.handle_command(s, THREAD, ALICE, "link", {"text": "team=1"})
    mid, cid = await request_card(app, s)
    await app.core.handle_command(s, THREAD, EVE, "link", {"text": "team=1"})
    assert "already linked to another member" in s.ephemeral_for(EVE.user_id)[-1]
    assert await app.app_db.get_link("discord", "G1", EVE.user_id) is None
    await app.core.handle_click(s, THREAD, EVE, cid, mid)
    assert applied(tmp_path) == [], "Eve approved Alice's moves after linking her team"
    # Alice may re-link her own team; an admin may re-assign it
    await app.core.handle_command(s, THREAD, ALICE, "link", {"text": "team=1"})
    assert "Linked you to **Hoop Dreamers** (team 1)" in s.ephemeral_for(ALICE.user_id)[-1]
    admin = UserRef("discord", "1", "Admin", is_admin=True)
    await app.core.handle_command(s, THREAD, admin, "link", {"text": "team=1"})
    assert "Linked you to **Hoop Dreamers** (team 1)" in s.ephemeral_for(admin.user_id)[-1]


async def test_new_message_never_discards_a_pending_card(app: FanViseApp, tmp_path) -> None:
    s = FaultySurface()
    mid, cid = await request_card(app, s)
    for text in ("Is Jalen Brunson playing tonight?", "hello", "Review my matchup"):
        await app.core.handle_message(s, THREAD, ALICE, text)
    await app.core.handle_click(s, THREAD, ALICE, cid, mid)
    assert len(applied(tmp_path)) == 1 and "Applied: drop Jordan Poole" in s.all_text()


async def test_offline_questions_are_never_rate_limited(tmp_path: Path) -> None:
    """No model is called offline: the limit that protects it never stops a member."""
    app = await open_app(tmp_path, llm_per_minute=6.0, llm_burst=3.0)
    try:
        s = FaultySurface()
        for _ in range(5):
            await app.core.handle_command(s, THREAD, BOB, "ask", {"text": "hello"})
        assert not [t for t in s.ephemeral_for(BOB.user_id) if "asking quickly" in t]
    finally:
        await app.close()


async def test_llm_commands_are_rate_limited_per_user(tmp_path: Path) -> None:
    gemini = FakeGemini(["Hello! Ask me about your league."])  # the model, at the wire
    app = await FanViseApp.open(
        Settings(data_dir=tmp_path, llm_per_minute=6.0, llm_burst=3.0,
                 slack_updates_per_minute=1e6, secret_key="test passphrase"),
        model=gemini.model(retries=0), edit_interval=0.0,
        runtime_kwargs={"optimizer_graph_builder": slow_optimizer_for(tmp_path)})
    await link(app.core, "discord", THREAD.workspace_id, ALICE.user_id, 1)
    try:
        s = FaultySurface()
        for _ in range(5):
            await app.core.handle_command(s, THREAD, BOB, "ask", {"text": "hello"})
        limited = [t for t in s.ephemeral_for(BOB.user_id) if "asking quickly" in t]
        assert len(limited) == 2
        answers_before = len(s.posts)
        await app.core.handle_command(s, THREAD, ALICE, "ask", {"text": "hello"})
        assert len(s.posts) > answers_before  # another user is not affected
        await app.core.handle_command(s, THREAD, BOB, "help", {})  # not LLM-backed: no limit
        assert "FanVise commands" in s.ephemeral_for(BOB.user_id)[-1]
    finally:
        await app.close()
        gemini.httpd.shutdown()
        gemini.httpd.server_close()


# --------------------------------------------------------------------------- chat-side faults


async def test_progress_message_deleted_posts_a_new_message(app: FanViseApp) -> None:
    s = FaultySurface(fail_edits="gone")
    await app.core.handle_message(s, THREAD, ALICE, "Is Jalen Brunson playing tonight?")
    final = s.posts[s.order[-1]]
    assert len(s.order) >= 2 and "Jalen Brunson" in final.text
    assert s.failed >= 1 and not s.ephemerals


async def test_rate_limited_edits_are_retried_and_the_answer_arrives(app: FanViseApp) -> None:
    s = FaultySurface(fail_edits="ratelimit", fail_count=3)
    await app.core.handle_message(s, THREAD, ALICE, "Is Jalen Brunson playing tonight?")
    assert s.failed == 3 and "Jalen Brunson" in s.all_text() and not s.ephemerals


async def test_card_survives_when_the_chat_platform_fails(app: FanViseApp, tmp_path) -> None:
    """Every post after the progress message fails (and edits too): the user cannot see the
    card now, but the run is pending in the runtime and the card row is stored, so after
    the platform is back a click on it still applies the move, once."""
    s = FaultySurface(fail_edits="boom", fail_posts_after=1)
    await app.core.handle_command(s, THREAD, ALICE, "optimize", {})
    pending = await app.runtime.pending_approvals("discord:G1:C1:T1")
    assert len(pending) == 1
    cards = await app.app_db.pending_cards()
    assert len(cards) == 1 and cards[0].run_thread_id == pending[0].run_thread_id
    ok = FaultySurface()
    await app.core.handle_click(ok, THREAD, ALICE, f"fv:approveall:{cards[0].card_id}", "m1")
    assert len(applied(tmp_path)) == 1 and "Applied" in ok.all_text()


async def test_restart_between_card_and_click(tmp_path: Path) -> None:
    app1 = await open_app(tmp_path)
    s = FaultySurface()
    try:
        mid, cid = await request_card(app1, s)
    finally:
        await app1.close()
    app2 = await open_app(tmp_path)
    try:
        await asyncio.gather(app2.core.handle_click(s, THREAD, ALICE, cid, mid),
                             app2.core.handle_click(s, THREAD, ALICE, cid, mid),
                             app2.core.handle_click(s, THREAD, EVE, cid, mid))
        assert len(applied(tmp_path)) == 1
        assert any("Only Alice" in t for t in s.ephemeral_for(EVE.user_id))
    finally:
        await app2.close()


async def test_click_on_an_expired_card_answers_clearly(app: FanViseApp, tmp_path) -> None:
    """The retention job deleted the run (idle > max days): the click says so, applies
    nothing, and the card is closed; a second click is answered as already decided."""
    import time as _time

    s = FaultySurface()
    mid, cid = await request_card(app, s)
    deleted = await app.runtime.store.delete_idle_threads(30, now=_time.time() + 31 * 86400)
    assert any(":opt:" in t for t in deleted)
    await app.core.handle_click(s, THREAD, ALICE, cid, mid)
    assert applied(tmp_path) == []
    text = s.all_text().lower()
    assert "expired" in text or "no longer" in text
    card = await app.app_db.get_card(cid.split(":")[2])
    assert card.status == "expired"
    await app.core.handle_click(s, THREAD, ALICE, cid, mid)
    assert "already decided" in s.ephemeral_for(ALICE.user_id)[-1]
