"""The daily digest and the pre-lock alert act: an owner who opted in to the automatic lineup
has it written before the digest (which says so) and again before lock when a starter is
ruled out; the others get a "Set this lineup" button that writes through the endpoint and
leaves the shared digest as it is. On the real app and demo league (its transport serves
ESPN's transaction endpoint)."""

from __future__ import annotations

import pytest

from bot.core.app import FanViseApp
from bot.core.models import ThreadRef, UserRef
from bot.scheduler import DailyScheduler
from bot.settings import Settings
from storage.app_db import DailySchedule
from tests.bot.test_prelock import at, rule_out
from tests.bot.test_scheduler import Recorder

KEY = "slack:T1:C1"


@pytest.fixture(autouse=True)
def _no_demo_disk_cache(monkeypatch):
    monkeypatch.setenv("FANVISE_DEMO_DISK_CACHE", "0")


async def open_app(tmp_path, clock):
    app = await FanViseApp.open(Settings(data_dir=tmp_path), now=lambda: clock[0])
    for uid, team in (("U_ALEX", 1), ("U_JORDAN", 2)):
        await app.app_db.set_link(platform="slack", workspace_id="T1", user_id=uid,
                                  league_id=app.core.league_id, season=app.core.season,
                                  team_id=team)
    await app.app_db.set_write_prefs("slack", "T1", "U_ALEX", writes=True, auto_lineup=True)
    await app.app_db.set_schedule(DailySchedule(KEY, "slack", "T1", "C1", "09:30",
                                                "America/New_York", None))
    rec = Recorder()
    sched = DailyScheduler(app.app_db, lambda s: app.core.post_daily(rec, s),
                           now=lambda: clock[0], alerts=lambda s: app.core.prelock_check(rec, s),
                           alert_window=app.core.prelock.window)
    await sched.reload()
    return app, rec, sched


def lineups(app, team: int) -> list:
    return [c for c in app.espn.demo.changes if c.kind == "lineup" and c.team_id == team]


async def test_auto_lineup_before_the_digest_and_a_button_for_the_others(tmp_path):
    clock = [at(9, 30)]
    app, rec, sched = await open_app(tmp_path, clock)
    try:
        await sched.run_due()
        # Alex opted in: his lineup was written through the endpoint before the post
        assert lineups(app, 1) and not lineups(app, 2)
        [row] = [r for r in await app.app_db.writes() if r.key.startswith("auto:morning:1:")]
        assert row.status == "done" and row.kind == "LINEUP" and row.actor == "slack:U_ALEX"
        text = "\n".join(m.text + " ".join(c.text for c in m.cards) for _, m in rec.posts)
        assert "Auto lineup is on" in text
        # Jordan did not: his card has the button; a tap writes his lineup, privately
        cards = [c for _, m in rec.posts for c in m.cards if c.buttons]
        assert cards and all("Hoop Dreamers" not in c.title for c in cards)
        assert "in the demo league" in cards[0].footer
        [button] = cards[0].buttons
        assert button.label == f"Set lineup: {cards[0].title.split(' · ')[0]}"  # whose
        posts = len(rec.posts)
        channel = ThreadRef("slack", "T1", "C1", "")
        await app.core.handle_click(rec, channel, UserRef("slack", "U_ALEX", "Alex"),
                                    button.custom_id, "m1")
        assert not lineups(app, 2)  # not Alex's team
        await app.core.handle_click(rec, channel, UserRef("slack", "U_JORDAN", "Jordan"),
                                    button.custom_id, "m1")
        assert lineups(app, 2)
        assert any(u == "U_JORDAN" and "lineup is set" in t for u, t in rec.private)
        assert len(rec.posts) == posts  # the shared digest is not replaced or reposted
    finally:
        await app.close()


async def test_auto_lineup_again_before_lock_when_a_starter_is_ruled_out(tmp_path):
    clock = [at(9, 30)]
    app, rec, sched = await open_app(tmp_path, clock)
    try:
        # Alex turns the automatic lineup on after this morning's digest (his lineup still
        # has the morning's fixes to make), then a starter of his is ruled out
        await app.app_db.set_write_prefs("slack", "T1", "U_ALEX", auto_lineup=False)
        await sched.run_due()
        before = len(lineups(app, 1))
        await app.app_db.set_write_prefs("slack", "T1", "U_ALEX", auto_lineup=True)
        name = await rule_out(app, 1)
        clock[0] = at(18, 31)
        await sched.run_due()
        [alert] = [m for _, m in rec.posts if m.cards and m.cards[0].title.startswith(
            "Before lock")]
        card = alert.cards[0]
        assert name in card.text and "FanVise set your lineup" in card.text
        assert not card.buttons  # nothing left to tap
        assert len(lineups(app, 1)) == before + 1
        rows = [r for r in await app.app_db.writes() if r.key.startswith("auto:prelock:1:")]
        assert [r.status for r in rows] == ["done"]
    finally:
        await app.close()


async def test_a_claim_put_in_yesterday_is_settled_when_the_digest_posts(tmp_path):
    from datetime import timedelta

    from bot.core.handoff import writes_of
    from fantasy.move_card import MoveOutcome
    from storage.app_db import CardRow

    clock = [at(9, 30)]
    app, rec, sched = await open_app(tmp_path, clock)
    try:
        demo = app.espn.demo
        wv = next(p for p in await app.espn.get_free_agents(size=50, statuses=("WAIVERS",)))
        drop = next(p for p, s in demo.roster_now(1).items() if s == 12)
        move = {"move_id": "m1", "drop": {"id": drop, "name": "D"},
                "add": {"id": wv.id, "name": wv.name}}
        card = CardRow("c1a1m0000001", "run", "i", "slack:T1:C1:t", "slack", "T1", "C1", "t",
                       "msg", "U_ALEX", "Alex", 1, "plan", "", [move], {"0": "approve"},
                       "pending")
        await app.app_db.create_card(card)
        w = writes_of(app.core)
        access = await w.access("slack", "T1", "U_ALEX", 1)
        res = await w.make_move(access, 1, add_id=wv.id, add_name=wv.name, drop_id=drop,
                                drop_name="D", key=f"card:{card.card_id}:m1")
        assert res["status"] == "waiting"
        waiting = MoveOutcome.of({**move, **res, "move_id": "m1"})
        await app.app_db.finish_card(card.card_id, status="approved",
                                     result={"outcomes": {"m1": waiting.to_json()}})
        demo.advance_to(demo.today + timedelta(days=1))  # waivers process overnight
        await app.espn.invalidate_cache()
        await app.core.post_daily(rec, (await app.app_db.schedules())[0])
        out = (await app.app_db.get_card(card.card_id)).result["outcomes"]["m1"]
        assert out["status"] == "applied" and wv.id in demo.roster_now(1)
    finally:
        await app.close()
