"""Issue 34: writes only as the team's owner, cookie failures that say so, outcomes that
are true, unknown outcomes settled by the next league read, and button ids honoured only
in the form a card issued.

The app (ChatCore, app DB, handoff) runs as for a live league; ESPN is the demo league's
transaction endpoint at the wire (`tests/bot/test_espn_writes_access.Wire`, ESPN's rules:
a POST with cookies that own another team gets ESPN's 403 "not the owner")."""

from __future__ import annotations

import httpx

from bot.core.handoff import WritesConfig, check_handoffs, make_card_moves, writes_of
from bot.core.models import ThreadRef, UserRef
from fantasy.move_card import MoveOutcome
from tests.bot.test_espn_writes_access import (
    OWNER_SWID,
    S2,
    WS,
    Wire,
    card_row,
    link,
    open_live,
    outcome,
)
from tests.bot.test_scheduler import Recorder

ALEX = UserRef("discord", "alex", "Alex")


def _posts(wire: Wire) -> list[httpx.Request]:
    return [r for r in wire.seen if r.method == "POST"]


def _move(demo, team: int, move_id: str, k: int = 0) -> dict:
    fa = sorted(p for p in demo.base["players"] if int(p) not in {
        pid for t in demo.team_ids() for pid in demo.roster_now(t)})
    drop = [p for p, s in sorted(demo.roster_now(team).items()) if s == 12][k]
    add = int(fa[k * 7])
    return {"move_id": move_id, "drop": {"id": drop, "name": demo.player_name(drop)},
            "add": {"id": add, "name": demo.player_name(add)}}


async def test_cookies_of_another_teams_owner_never_write(tmp_path):
    """Alex links team 2 with the cookies of team 1's owner: no POST, a clear reason, and
    `/link writes:on` refuses (before: FanVise POSTed and only ESPN's 403 stopped it)."""
    app, demo, wire = await open_live(tmp_path)
    try:
        await link(app, "alex", 2)  # cookies: SWID {DEMO-MEMBER-01}, team 1's owner
        access = await writes_of(app.core).access("discord", WS, "alex", 2)
        assert not access.allowed and "not those of an owner" in access.why
        move = _move(demo, 2, "m0")
        [res] = await make_card_moves(app.core, card_row("c0ffee0000a1", [move]), ALEX,
                                      [outcome(move)])
        assert res.status == "waiting" and not _posts(wire)  # the hand-off, nothing sent
        rec = Recorder()
        thread = ThreadRef("discord", WS, "C1", "")
        await app.app_db.set_write_prefs("discord", WS, "alex", writes=False)
        await app.core.handle_command(rec, thread, ALEX, "link", {"text": "writes:on"})
        assert "Writes stay off" in rec.private[-1][1]
        assert await app.app_db.write_prefs("discord", WS, "alex") == (False, False)
        assert OWNER_SWID not in rec.private[-1][1] and S2 not in rec.private[-1][1]
        # the owner's own cookies may
        await link(app, "sam", 1)
        assert (await writes_of(app.core).access("discord", WS, "sam", 1)).allowed
        # an admin linking a member to another team turns their writes off
        admin = UserRef("discord", "boss", "Boss", is_admin=True)
        await app.core.handle_command(rec, thread, admin, "link",
                                      {"text": "member:<@sam> team=3"})
        assert await app.app_db.write_prefs("discord", WS, "sam") == (False, False)
    finally:
        await app.close()


async def test_refused_cookies_say_so_offer_no_next_best_and_stop_later_writes(tmp_path):
    """ESPN answers 403 to the member's write (expired cookies): the card says the cookies
    were refused and how to link again, offers no next best (it would need the same
    cookies), and the member's later writes are not sent."""
    app, demo, wire = await open_live(tmp_path)

    class Refusing(Wire):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            self.seen.append(request)
            if request.method == "POST":
                return httpx.Response(403, json={"messages": ["Forbidden"]})
            return await super(Wire, self).handle_async_request(request)
    wire = Refusing(demo)
    app.core.writes_config = WritesConfig(enabled=True, transport=wire)
    try:
        await link(app, "alex", 1)
        moves = [_move(demo, 1, "m0", 0), _move(demo, 1, "m1", 1)]
        card = card_row("c0ffee0000a2", moves)
        first, second = await make_card_moves(app.core, card, ALEX,
                                               [outcome(m) for m in moves])
        assert first.status == "not_possible"
        assert "ESPN refused your cookies" in first.note and "link again" in first.note
        assert "Next best" not in first.note
        assert len(_posts(wire)) == 1  # the second move was not sent with the same cookies
        assert second.status == "waiting"
        why = (await writes_of(app.core).access("discord", WS, "alex", 1)).why
        assert "refused your cookies" in why and "link again" in why
        await link(app, "alex", 1)  # linking again (fresh cookies) lifts it
        assert (await writes_of(app.core).access("discord", WS, "alex", 1)).allowed
    finally:
        await app.close()


async def test_a_move_never_sent_says_not_made(tmp_path):
    """The league read before the write fails: nothing is sent and the card says "not
    made", not "could not confirm whether the change was made"."""
    app, demo, wire = await open_live(tmp_path)

    class NoReads(Wire):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            self.seen.append(request)
            raise httpx.ConnectError("down")
    try:
        await link(app, "alex", 1)
        move = {**_move(demo, 1, "m0"), "drop_to_ir": True}
        app.core.writes_config = WritesConfig(enabled=True, transport=NoReads(demo))
        [res] = await make_card_moves(app.core, card_row("c0ffee0000a3", [move]), ALEX,
                                      [outcome(move)])
        assert res.status == "not_possible" and res.note.startswith("not made"), res
        assert "could not confirm" not in res.text()
    finally:
        await app.close()


async def test_next_best_never_offers_another_add_of_the_same_card(tmp_path):
    """Move 1 is refused (its player is on another team); "Next best" is the optimizer's
    best move whose player no other move of the card adds (before: move 2's player)."""
    from bot.core.app import FanViseApp
    from bot.settings import Settings
    app = await FanViseApp.open(Settings(data_dir=tmp_path))  # the demo: a real week
    demo = app.espn.demo
    try:
        await link(app, "alex", 1, cookies=False)
        w = writes_of(app.core)
        best = await w.next_best(1, exclude=set())
        name = best.split(", add ")[1]
        pid = next(int(p) for p in demo.base["players"] if demo.player_name(int(p)) == name)
        taken = next(iter(demo.roster_now(2)))  # move 1 adds a player on another team
        drop = [p for p, s in sorted(demo.roster_now(1).items()) if s == 12]
        moves = [{"move_id": "m0", "drop": {"id": drop[0], "name": "A"},
                  "add": {"id": taken, "name": demo.player_name(taken)}},
                 {"move_id": "m1", "drop": {"id": drop[1], "name": "B"},
                  "add": {"id": pid, "name": name}}]
        [res] = await make_card_moves(app.core, card_row("c0ffee0000a4", moves), ALEX,
                                      [outcome(moves[0])])
        assert res.status == "not_possible"
        assert name not in res.note, res.note  # move 2 of the same card adds him
    finally:
        await app.close()


async def test_an_unknown_outcome_is_settled_by_the_next_league_read(tmp_path):
    """The POST times out and the read back fails: the move is "waiting" (unknown) and the
    league cache is cleared; the next league read settles it from ESPN's roster."""
    app, demo, _ = await open_live(tmp_path)

    class Lost(Wire):
        """The POST is made on ESPN's side but its answer is lost; so is the read back."""

        lose = True
        fail_reads = 0

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            self.seen.append(request)
            if self.lose and request.method == "POST":
                await super(Wire, self).handle_async_request(request)
                self.fail_reads = 1  # the read back after it fails too
                raise httpx.ReadTimeout("lost")
            if self.fail_reads:
                self.fail_reads -= 1
                raise httpx.ConnectError("down")
            return await super(Wire, self).handle_async_request(request)

    wire = Lost(demo)
    app.core.writes_config = WritesConfig(enabled=True, transport=wire)
    try:
        await link(app, "alex", 1)
        move = _move(demo, 1, "m0")
        card = card_row("c0ffee0000a5", [move])
        await app.espn.get_league()  # cached before the write
        [res] = await make_card_moves(app.core, card, ALEX, [outcome(move)])
        assert res.status == "waiting" and res.note == "unknown", res
        assert move["add"]["id"] in demo.roster_now(1)  # ESPN made it
        [row] = await app.app_db.writes()
        assert row.status == "unknown"
        await app.app_db.create_card(card)
        await app.app_db.finish_card(card.card_id, status="approved",
                                     result={"outcomes": {"m0": res.to_json()}})
        wire.lose = False
        rec = Recorder()
        await check_handoffs(app.core, rec, ThreadRef("discord", WS, "C1", "T1"))
        out = MoveOutcome.of((await app.app_db.get_card(card.card_id)).result["outcomes"]["m0"])
        assert out.status == "applied", out
        [row] = await app.app_db.writes()
        assert row.status == "done"
    finally:
        await app.close()


async def test_a_button_id_counts_only_in_the_form_the_card_issued(tmp_path):
    """`fv:approveall:<card>:0` (an index on a whole-card button) is not "Approve plan"."""
    from storage.app_db import CardRow
    app, demo, _ = await open_live(tmp_path)
    try:
        await link(app, "alex", 1, writes=False)
        moves = [_move(demo, 1, "m0")]
        card = CardRow("c0ffee0000a6", "run", "int", "discord:G1:C1:T1", "discord", WS, "C1",
                       "T1", "m1", "alex", "Alex", 1, "plan", "", moves, {}, "pending")
        await app.app_db.create_card(card)
        rec = Recorder()
        await app.core.handle_click(rec, ThreadRef("discord", WS, "C1", "T1"), ALEX,
                                    "fv:approveall:c0ffee0000a6:0", "m1")
        assert "not one of this card's" in rec.private[-1][1]
        assert (await app.app_db.get_card("c0ffee0000a6")).status == "pending"
    finally:
        await app.close()


async def test_a_lineup_whose_outcome_is_unknown_is_told_truly_then_settled(tmp_path):
    """"Set this lineup": ESPN makes the change but its answer is lost, and so is the read
    back. The member reads "I could not tell whether your lineup was set; here it is now"
    with the lineup ESPN shows (not "already set", not a made-up success); the next tap
    reads ESPN back and settles it as done without sending it again."""
    from bot.core.app import FanViseApp
    from bot.settings import Settings
    app = await FanViseApp.open(Settings(data_dir=tmp_path))  # the demo's endpoint
    demo = app.espn.demo

    class Lost(Wire):
        lose = True
        fail_reads = 0

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            self.seen.append(request)
            if self.lose and request.method == "POST":
                await super(Wire, self).handle_async_request(request)
                self.fail_reads = 1
                raise httpx.ReadTimeout("lost")
            if self.fail_reads:
                self.fail_reads -= 1
                raise httpx.ConnectError("down")
            return await super(Wire, self).handle_async_request(request)
    wire = Lost(demo)
    app.core.writes_config = WritesConfig(transport=wire)
    try:
        await link(app, "alex", 1, cookies=False)
        fix = await app.app_db.create_prelock_fix(
            channel_key=f"discord:{WS}:C1", day=app.core.league_today().isoformat(),
            team_id=1, user_id="alex")
        before = dict(demo.roster_now(1))
        rec = Recorder()
        thread = ThreadRef("discord", WS, "C1", "T1")
        await app.core.handle_click(rec, thread, ALEX, f"fv:approve:{fix}", "")
        told = rec.private[-1][1]
        assert told.startswith("I could not tell whether your lineup was set"), told
        assert "here it is now" in told and "PG:" in told
        assert dict(demo.roster_now(1)) != before  # ESPN did make it
        wire.lose = False
        await app.core.handle_click(rec, thread, ALEX, f"fv:approve:{fix}", "")
        assert rec.private[-1][1].startswith("Done: today's lineup is set"), rec.private
        [row] = await app.app_db.writes()
        assert row.status == "done" and row.verification["read"] == "mRoster"
        assert len(_posts(wire)) == 1  # settled by reading back, never sent twice
        assert (await app.app_db.get_prelock_fix(fix))["status"] == "applied"
        await app.core.handle_click(rec, thread, ALEX, f"fv:approve:{fix}", "")
        assert rec.private[-1][1] == "This lineup was already set."
    finally:
        await app.close()


async def test_a_scheduled_move_whose_outcome_was_unknown_is_settled_by_the_next_read(
        tmp_path):
    """A move made on its day by the scheduler got no answer and no read back (its row
    `waiting`, its journal row `unknown`); the next league read of that conversation reads
    ESPN back and the card says it was made."""
    from bot.core.app import FanViseApp
    from bot.settings import Settings
    from fantasy.espn.writes import UNKNOWN
    from storage.app_db import CardRow, ScheduledMove
    app = await FanViseApp.open(Settings(data_dir=tmp_path))  # the demo's endpoint
    demo = app.espn.demo
    try:
        await link(app, "alex", 1, cookies=False)
        move = _move(demo, 1, "m0")
        card = CardRow("c0ffee0000a7", "run", "int", "discord:G1:C1:T1", "discord", WS, "C1",
                       "T1", "m1", "alex", "Alex", 1, "plan", "", [move], {"0": "approve"},
                       "approved", decided_by="alex")
        await app.app_db.create_card(card)
        row = ScheduledMove(card.card_id, "m0", "m0", 0, 1,
                            app.core.league_today().isoformat(), move["drop"]["id"],
                            move["drop"]["name"], move["add"]["id"], move["add"]["name"])
        await app.app_db.schedule_moves([row])
        w = writes_of(app.core)
        access = await w.access("discord", WS, "alex", 1)
        res = await w.make_move(access, 1, add_id=row.add_id, add_name=row.add_name,
                                drop_id=row.drop_id, drop_name=row.drop_name,
                                key=f"card:{card.card_id}:m0")
        assert res["status"] == "applied"  # made on ESPN; then its answer is "lost":
        rec = await app.app_db.write_get(f"card:{card.card_id}:m0")
        rec.status = UNKNOWN
        await app.app_db.write_put(rec)
        await app.app_db.finish_scheduled_move(card.card_id, "m0", status="waiting",
                                               note="ESPN did not answer")
        rec = Recorder()
        await check_handoffs(app.core, rec, ThreadRef("discord", WS, "C1", "T1"))
        [after] = await app.app_db.scheduled_moves(card.card_id)
        assert after.status == "applied" and "read back" in after.note, after
        assert (await app.app_db.write_get(f"card:{card.card_id}:m0")).status == "done"
    finally:
        await app.close()
