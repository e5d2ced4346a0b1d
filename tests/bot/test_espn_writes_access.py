"""Who may have FanVise write to a live ESPN team, and approvals acting on a live league.

The league reads come from the demo league, but the app treats it as live (`espn.demo` is
None): writes then need the deployment switch, the member's own link with their own cookies
and their opt-in, and they go to ESPN's write host, faked at the wire by the demo league's
transport (it serves ESPN's transaction endpoint by path, with ESPN's rules)."""

from __future__ import annotations

import json
from typing import Any

import httpx
from cryptography.fernet import Fernet

from bot.core.app import FanViseApp
from bot.core.handoff import WritesConfig, make_card_moves, settle_claims, writes_of
from bot.core.models import UserRef
from bot.settings import Settings
from fantasy.demo.league import DemoTransport
from fantasy.espn.writes import ESPN_WRITES_BASE_URL
from fantasy.move_card import MoveOutcome
from storage.app_db import CardRow

S2 = "AEBdemoS2cookie" + "x" * 70
OWNER_SWID = "{DEMO-MEMBER-01}"   # the demo's owner id of team 1 (ESPN checks the member)
WS = "G1"


class Wire(DemoTransport):
    """ESPN at the wire: the demo's endpoint, recording each request's host and cookies."""

    def __init__(self, league: Any) -> None:
        super().__init__(league)
        self.seen: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        return await super().handle_async_request(request)


async def open_live(tmp_path, *, enabled: bool = True) -> tuple[FanViseApp, Any, Wire]:
    app = await FanViseApp.open(Settings(data_dir=tmp_path,
                                         secret_key=Fernet.generate_key().decode(),
                                         espn_writes=enabled))
    demo = app.espn.demo
    wire = Wire(demo)
    app.espn.demo = None  # live from here on: ESPN's write host, the member's cookies
    assert app.core.writes_config.enabled is enabled
    app.core.writes_config = WritesConfig(enabled=enabled, transport=wire)
    return app, demo, wire


async def link(app: FanViseApp, user: str, team: int, *, cookies: bool = True,
               writes: bool = True) -> None:
    await app.app_db.set_link(platform="discord", workspace_id=WS, user_id=user,
                              league_id=app.core.league_id, season=app.core.season,
                              team_id=team, cookies=(S2, OWNER_SWID) if cookies else None)
    if writes:
        await app.app_db.set_write_prefs("discord", WS, user, writes=True)


async def test_writes_need_the_switch_the_opt_in_and_the_members_own_cookies(tmp_path):
    app, _, _ = await open_live(tmp_path, enabled=False)
    try:
        await link(app, "alex", 1)
        w = writes_of(app.core)
        off = await w.access("discord", WS, "alex", 1)
        assert not off.allowed and "FANVISE_ESPN_WRITES" in off.why
        app.core.writes_config = WritesConfig(enabled=True)
        assert (await w.access("discord", WS, "alex", 1)).allowed
        # not the member's team: never with anyone else's cookies
        other = await w.access("discord", WS, "alex", 2)
        assert not other.allowed and "owner" in other.why
        assert not (await w.access("discord", WS, "nobody", 1)).allowed
        # opted out
        await app.app_db.set_write_prefs("discord", WS, "alex", writes=False)
        assert "writes:on" in (await w.access("discord", WS, "alex", 1)).why
        # linked without cookies
        await link(app, "sam", 3, cookies=False)
        nocookie = await w.access("discord", WS, "sam", 3)
        assert not nocookie.allowed and "cookies" in nocookie.why
        assert S2 not in repr(nocookie) and S2 not in repr(await w.access("discord", WS,
                                                                         "alex", 1))
    finally:
        await app.close()


async def test_prefs_are_off_by_default_and_per_member(tmp_path):
    app, _, _ = await open_live(tmp_path)
    try:
        assert await app.app_db.write_prefs("discord", WS, "x") == (False, False)
        await app.app_db.set_write_prefs("discord", WS, "x", auto_lineup=True)
        assert await app.app_db.write_prefs("discord", WS, "x") == (False, True)
        assert await app.app_db.write_prefs("discord", WS, "y") == (False, False)
        assert await app.app_db.write_prefs("slack", WS, "x") == (False, False)
    finally:
        await app.close()


def card_row(card_id: str, moves: list[dict[str, Any]], decided_by: str = "alex") -> CardRow:
    return CardRow(card_id, "run", "int", "discord:G1:C1:T1", "discord", WS, "C1", "T1", "m1",
                   decided_by, "Alex", 1, "plan", "", moves, {"0": "approve"}, "approved",
                   decided_by=decided_by)


def outcome(move: dict[str, Any]) -> MoveOutcome:
    return MoveOutcome.of({"move_id": move["move_id"], "status": "waiting",
                           "drop": move["drop"], "add": move["add"], "steps": ["by hand"]})


async def test_an_approved_live_move_is_made_on_espn_once_with_the_members_cookies(tmp_path):
    app, demo, wire = await open_live(tmp_path)
    try:
        await link(app, "alex", 1)
        fa = next(p for p in await app.espn.get_free_agents(size=30, statuses=("FREEAGENT",)))
        drop = next(p for p, s in demo.roster_now(1).items() if s == 12)
        move = {"move_id": "m0", "drop": {"id": drop, "name": "Drop Guy"},
                "add": {"id": fa.id, "name": fa.name}}
        card = card_row("c0ffee000001", [move])
        user = UserRef("discord", "alex", "Alex")
        [done] = await make_card_moves(app.core, card, user, [outcome(move)])
        assert done.status == "applied" and "done on ESPN" in done.note
        assert fa.id in demo.roster_now(1) and drop not in demo.roster_now(1)
        posts = [r for r in wire.seen if r.method == "POST"]
        assert len(posts) == 1 and str(posts[0].url).startswith(ESPN_WRITES_BASE_URL)
        body = json.loads(posts[0].content)
        assert body["type"] == "FREEAGENT" and body["memberId"] == OWNER_SWID
        # the member's cookies, to ESPN's hosts only
        assert all(S2 in r.headers["cookie"] for r in wire.seen)
        assert {r.url.host for r in wire.seen} <= {"lm-api-writes.fantasy.espn.com",
                                                   "demo.fanvise.invalid"}
        # a second decision pass (a recovery) sends nothing more
        [again] = await make_card_moves(app.core, card, user, [outcome(move)])
        assert again.status == "applied" and len([r for r in wire.seen
                                                  if r.method == "POST"]) == 1
        [row] = await app.app_db.writes()
        assert row.actor == "discord:alex" and row.status == "done"
        assert S2 not in json.dumps([row.body, row.answer, row.verification, row.summary])
        assert OWNER_SWID not in json.dumps(row.body)
    finally:
        await app.close()


async def test_refused_move_says_espns_reason_and_the_next_best_choice(tmp_path):
    app, demo, _ = await open_live(tmp_path)
    try:
        await link(app, "alex", 1)
        taken = next(iter(demo.roster_now(2)))  # on another team
        drop = next(p for p, s in demo.roster_now(1).items() if s == 12)
        move = {"move_id": "m1", "drop": {"id": drop, "name": "Drop Guy"},
                "add": {"id": taken, "name": demo.player_name(taken)}}
        [res] = await make_card_moves(app.core, card_row("c0ffee000002", [move]),
                                      UserRef("discord", "alex", "Alex"), [outcome(move)])
        assert res.status == "not_possible"
        assert res.note.startswith(f"{demo.player_name(taken)} is on {demo.team_name(2)}")
        assert "Not possible:" in res.text()
    finally:
        await app.close()


async def test_the_next_best_choice_is_the_optimizers_best_other_move(tmp_path):
    app = await FanViseApp.open(Settings(data_dir=tmp_path))  # the demo: a real matchup week
    try:
        w = writes_of(app.core)
        best = await w.next_best(1, exclude=set())
        assert best.startswith("drop ") and ", add " in best
        add_name = best.split(", add ")[1]
        fa = {p.name: p.id for p in await app.espn.get_free_agents(size=100)}
        other = await w.next_best(1, exclude={fa[add_name]})
        assert other and add_name not in other
    finally:
        await app.close()


async def test_a_waiver_player_becomes_a_claim_and_its_result_is_read_back(tmp_path):
    app, demo, _ = await open_live(tmp_path)
    try:
        await link(app, "alex", 1)
        wv = next(p for p in await app.espn.get_free_agents(size=50, statuses=("WAIVERS",)))
        drop = next(p for p, s in demo.roster_now(1).items() if s == 12)
        move = {"move_id": "m2", "drop": {"id": drop, "name": "Drop Guy"},
                "add": {"id": wv.id, "name": wv.name}}
        card = card_row("c0ffee000003", [move])
        [res] = await make_card_moves(app.core, card, UserRef("discord", "alex", "Alex"),
                                      [outcome(move)])
        assert res.status == "waiting" and "Claim put in" in res.text()
        # someone else is given him before waivers process: the claim fails
        await app.app_db.create_card(card)
        await app.app_db.finish_card(card.card_id, status="approved", result={
            "outcomes": {"m2": res.to_json()}})
        from fantasy.demo.transactions import writes_for
        other = writes_for(demo)
        other.state.log[-1].status = "FAILED_PLAYERALREADYDROPPED"  # ESPN's verdict
        fresh = await app.app_db.get_card(card.card_id)
        await settle_claims(app.core, fresh)
        out = (await app.app_db.get_card(card.card_id)).result["outcomes"]["m2"]
        assert out["status"] == "not_possible" and "FAILED_PLAYERALREADYDROPPED" in out["note"]
    finally:
        await app.close()


async def test_without_access_the_hand_off_stays(tmp_path):
    app, demo, wire = await open_live(tmp_path)
    try:
        await link(app, "alex", 1, writes=False)
        move = {"move_id": "m3", "drop": {"id": 1, "name": "A"}, "add": {"id": 2, "name": "B"}}
        oc = outcome(move)
        [res] = await make_card_moves(app.core, card_row("c0ffee000004", [move]),
                                      UserRef("discord", "alex", "Alex"), [oc])
        assert res == oc and not [r for r in wire.seen if r.method == "POST"]
    finally:
        await app.close()


def test_the_answer_says_what_espn_did_not_the_hand_off() -> None:
    from agents.matchup_optimizer.graph import _plan_outcome_lines
    from agents.matchup_optimizer.prompts import LIVE_HANDOFF_NOTE
    from agents.shared.types import Answer
    from bot.core.handoff import revise_answers

    move = {"move_id": "m0", "drop": {"id": 1, "name": "T.J. McConnell"},
            "add": {"id": 2, "name": "Coby White"}}
    waiting = MoveOutcome.of({**move, "status": "waiting", "note": "waiting for ESPN: x",
                              "steps": ["Open the link.", "Click +."]})
    text = "\n".join(["Plan:", *_plan_outcome_lines([waiting.to_json()]), LIVE_HANDOFF_NOTE])
    made = MoveOutcome.of({**move, "status": "applied", "note": "done on ESPN"})
    [ans] = revise_answers([Answer(text)], [waiting], [made])
    assert "Waiting for ESPN" not in ans.text and LIVE_HANDOFF_NOTE not in ans.text
    assert "Done: drop T.J. McConnell, add Coby White." in ans.text
    # a move still handed off keeps its steps and the note
    [same] = revise_answers([Answer(text)], [waiting], [waiting])
    assert same.text == text


async def test_link_writes_on_is_the_members_own_choice(tmp_path):
    from bot.core.models import ThreadRef
    from tests.bot.test_scheduler import Recorder

    app, _, _ = await open_live(tmp_path)
    rec = Recorder()
    thread = ThreadRef("slack", WS, "C1", "")
    alex = UserRef("slack", "alex", "Alex")
    try:
        await app.core.handle_command(rec, thread, alex, "link", {"text": "writes:on"})
        assert await app.app_db.write_prefs("slack", WS, "alex") == (True, False)
        [(who, text)] = rec.private
        assert who == "alex" and "Writes are on" in text and "unofficial" in text
        assert "Not yet in effect" in text  # not linked to a team with cookies yet
        await app.core.handle_command(rec, thread, alex, "link", {"text": "autolineup:on"})
        assert await app.app_db.write_prefs("slack", WS, "alex") == (True, True)
        await app.core.handle_command(rec, thread, alex, "link", {"text": "writes:maybe"})
        assert await app.app_db.write_prefs("slack", WS, "alex") == (True, True)
        assert "writes:on" in rec.private[-1][1]  # how to say it, nothing changed
        # an admin linking another member cannot turn writes on for them
        admin = UserRef("slack", "boss", "Boss", is_admin=True)
        await app.core.handle_command(rec, thread, admin, "link",
                                      {"text": "member:<@U_OTHER> writes:on"})
        assert await app.app_db.write_prefs("slack", WS, "U_OTHER") == (False, False)
        assert "Only the member" in rec.private[-1][1]
    finally:
        await app.close()
