"""storage/app_db: cards and claims, audit, encrypted league links, daily ledger, event
de-dup and rate buckets on a real SQLite file."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from storage.app_db import AppDB, CardRow, DailySchedule, SecretKeyMissing, new_card_id
from storage.db import Database

S2 = "AEBx" + "Zq7" * 40 + "%3D"
SWID = "{8C1E2C7A-1B2C-4D5E-9F00-ABCDEF123456}"


@pytest.fixture
async def db(tmp_path: Path):
    d = await Database.open(tmp_path / "fanvise.sqlite")
    yield d
    await d.close()


def _card(card_id: str) -> CardRow:
    return CardRow(card_id=card_id, run_thread_id="c:opt:abc", interrupt_id="i1",
                   conversation_id="c", platform="slack", workspace_id="T", channel_id="C",
                   thread_id="1.0", message_id=None, requester_id="U1", requester_name="Ann",
                   team_id=1, title="Moves", summary="s",
                   moves=[{"move_id": "1-2"}, {"move_id": "3-4"}], decisions={},
                   status="pending")


async def test_cookies_are_encrypted_at_rest_and_never_in_the_file(tmp_path: Path, db) -> None:
    key = Fernet.generate_key().decode()
    app = await AppDB.open(db, secret_key=key)
    await app.set_link(platform="discord", workspace_id="G", user_id="42", league_id=7,
                       season=2025, team_id=3, cookies=(S2, SWID))
    link = await app.get_link("discord", "G", "42")
    assert link is not None and link.cookies() == (S2, SWID) and link.has_cookies
    assert S2 not in repr(link) and SWID not in repr(link)
    await db.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    assert S2.encode() not in raw and SWID.encode() not in raw
    assert b"8C1E2C7A" not in raw
    # reopen with the same key: still readable; with another key: not decryptable
    db2 = await Database.open(tmp_path / "fanvise.sqlite")
    try:
        again = await AppDB.open(db2, secret_key=key)
        assert (await again.cookies_for_league(7)) == (S2, SWID)
        wrong = await AppDB.open(db2, secret_key=Fernet.generate_key().decode())
        assert (await wrong.get_link("discord", "G", "42")).cookies() is None
        # a passphrase (not a Fernet key) works too
        pp = await AppDB.open(db2, secret_key="correct horse battery staple")
        await pp.set_link(platform="slack", workspace_id="T", user_id="U", league_id=7,
                          season=None, team_id=2, cookies=("s2value", "{GUID-ish}"))
        assert (await pp.get_link("slack", "T", "U")).cookies() == ("s2value", "{GUID-ish}")
    finally:
        await db2.close()


async def test_no_key_refuses_cookies_but_links_without_them(db) -> None:
    app = await AppDB.open(db)
    with pytest.raises(SecretKeyMissing, match="FANVISE_SECRET_KEY"):
        await app.set_link(platform="slack", workspace_id="T", user_id="U", league_id=1,
                           season=2025, team_id=1, cookies=(S2, SWID))
    assert await app.get_link("slack", "T", "U") is None  # nothing stored
    await app.set_link(platform="slack", workspace_id="T", user_id="U", league_id=1,
                       season=2025, team_id=4)
    link = await app.get_link("slack", "T", "U")
    assert link.team_id == 4 and not link.has_cookies
    assert [x.user_id for x in await app.links_for_team(1, 4)] == ["U"]
    assert await app.delete_link("slack", "T", "U") and not await app.delete_link("slack", "T", "U")


async def test_card_claim_is_won_once_even_concurrently(db) -> None:
    app = await AppDB.open(db)
    cid = new_card_id()
    assert len(cid) == 12 and int(cid, 16) >= 0
    await app.create_card(_card(cid))
    results = await asyncio.gather(*(app.claim_card(cid, user_id=f"U{i}", user_name="x",
                                                    decisions={"0": "approve"})
                                     for i in range(8)))
    assert sum(results) == 1
    await app.finish_card(cid, status="approved", result={"applied": ["1-2"]})
    row = await app.get_card(cid)
    assert row.status == "approved" and row.result == {"applied": ["1-2"]}
    assert not await app.claim_card(cid, user_id="U1", user_name="x")
    assert await app.pending_cards() == []


async def test_move_decisions_and_release(db) -> None:
    clock = [1000.0]
    app = await AppDB.open(db, clock=lambda: clock[0])
    await app.create_card(_card("a" * 12))
    assert await app.record_move_decision("a" * 12, 0, "approve")
    assert not await app.record_move_decision("a" * 12, 0, "decline")  # already decided
    assert (await app.get_card("a" * 12)).decisions == {"0": "approve"}
    assert await app.claim_card("a" * 12, user_id="U1", user_name="Ann")
    assert not await app.claim_card("a" * 12, user_id="U1", user_name="Ann")
    clock[0] += 601  # a crash left it in `deciding`: claimable again after stale_after
    assert await app.claim_card("a" * 12, user_id="U1", user_name="Ann")
    await app.release_card("a" * 12)
    assert (await app.get_card("a" * 12)).status == "pending"
    assert (await app.card_for_run("c:opt:abc", "i1")).card_id == "a" * 12


async def test_audit_rows(db) -> None:
    app = await AppDB.open(db, clock=lambda: 5.0)
    await app.audit(card_id="c1", run_thread_id="r", platform="slack", user_id="U1",
                    user_name="Ann", decision="approve", result="applied", move_index=0,
                    move_id="1-2", move_label="Drop A, add B")
    rows = await app.audit_rows("c1")
    assert rows[0]["user_id"] == "U1" and rows[0]["at"] == 5.0
    assert rows[0]["move_label"] == "Drop A, add B" and rows[0]["result"] == "applied"


async def test_daily_ledger_one_post_per_channel_and_day(tmp_path: Path) -> None:
    clock = [0.0]
    d = await Database.open(tmp_path / "a.sqlite")
    app = await AppDB.open(d, clock=lambda: clock[0])
    await app.set_schedule(DailySchedule("discord:G:C", "discord", "G", "C", "09:30",
                                         "America/New_York", 1, "discord:7"))
    assert [s.hhmm for s in await app.schedules("discord")] == ["09:30"]
    assert await app.claim_daily_post("discord:G:C", "2026-11-23")
    assert not await app.claim_daily_post("discord:G:C", "2026-11-23")
    await app.finish_daily_post("discord:G:C", "2026-11-23", ok=False)
    assert not await app.claim_daily_post("discord:G:C", "2026-11-23")  # retry waits
    clock[0] += 301
    assert await app.claim_daily_post("discord:G:C", "2026-11-23")
    await app.finish_daily_post("discord:G:C", "2026-11-23", ok=True, message_id="m1")
    await d.close()
    d = await Database.open(tmp_path / "a.sqlite")  # restart
    app = await AppDB.open(d, clock=lambda: clock[0] + 10_000)
    assert not await app.claim_daily_post("discord:G:C", "2026-11-23")
    assert await app.claim_daily_post("discord:G:C", "2026-11-24")
    assert (await app.daily_posts("discord:G:C"))[0]["message_id"] == "m1"
    assert await app.delete_schedule("discord:G:C")
    await d.close()


async def test_event_dedup_and_rate_bucket(db) -> None:
    clock = [0.0]
    app = await AppDB.open(db, clock=lambda: clock[0])
    assert await app.mark_event_processed("Ev1")
    assert not await app.mark_event_processed("Ev1")
    waits = [await app.take_token("slack:U1", capacity=3, per_minute=6) for _ in range(4)]
    assert waits[:3] == [0.0, 0.0, 0.0] and waits[3] == pytest.approx(10.0)
    assert await app.take_token("slack:U2", capacity=3, per_minute=6) == 0.0
    clock[0] += 10.0
    assert await app.take_token("slack:U1", capacity=3, per_minute=6) == 0.0
