"""The one write path (fantasy.espn.writes.EspnWriter) against a fake ESPN at the wire
(tests/fantasy/espn_write_server.py): the documented bodies, every error path, never a blind
retry, the journal in the real app DB, pacing, and cookies only to ESPN's two hosts."""

from __future__ import annotations

import json

import httpx
import pytest

from fantasy.espn.errors import (
    EspnCredentialsExpired,
    EspnLineupLocked,
    EspnMovesLimitReached,
    EspnPlayerUnavailable,
    EspnRosterFull,
    EspnStaleSlot,
    EspnWriteOutcomeUnknown,
    EspnWriteRefused,
)
from fantasy.espn.writes import (
    Credentials,
    EspnWriter,
    Transaction,
    TxItem,
    lineup_items,
    plan_lineup,
)
from fantasy.redact import MASK
from storage.app_db import AppDB
from storage.db import Database
from tests.fantasy.espn_write_server import (
    BENCH,
    IR,
    LEAGUE,
    OTHER_SWID,
    READS,
    S2,
    SEASON,
    SWID,
    UT,
    WRITES,
    FakeEspn,
)

pytestmark = pytest.mark.asyncio


@pytest.fixture
async def journal(tmp_path):
    db = await Database.open(tmp_path / "app.sqlite")
    app = await AppDB.open(db)
    yield app
    await db.close()


def writer(espn: FakeEspn, journal, *, swid: str = SWID, sleeps: list[float] | None = None,
           clock: list[float] | None = None, **kw) -> EspnWriter:
    async def sleep(s: float) -> None:
        if sleeps is not None:
            sleeps.append(s)
        if clock is not None:
            clock[0] += s
    return EspnWriter(LEAGUE, SEASON, credentials=Credentials(S2, swid), journal=journal,
                      transport=espn.transport(), sleep=sleep,
                      clock=(lambda: clock[0]) if clock is not None else (lambda: 0.0),
                      min_interval=kw.pop("min_interval", 0.0), **kw)


def posts_to(espn: FakeEspn) -> list[httpx.Request]:
    return [r for r in espn.requests if r.method == "POST"]


# ---------------------------------------------------------------------- bodies


async def test_add_drop_sends_the_documented_body_once_and_verifies(journal) -> None:
    espn = FakeEspn()
    w = writer(espn, journal)
    out = await w.add_drop(1, 500, 107, scoring_period=40, key="card:a:1", actor="discord:7")
    assert out.status == "done" and out.verified is True
    assert espn.posts == [{
        "isLeagueManager": False, "teamId": 1, "type": "FREEAGENT", "memberId": SWID,
        "scoringPeriodId": 40, "executionType": "EXECUTE",
        "items": [{"playerId": 500, "type": "ADD", "toTeamId": 1},
                  {"playerId": 107, "type": "DROP", "fromTeamId": 1}]}]
    [post] = posts_to(espn)
    assert str(post.url) == (f"https://{WRITES}/apis/v3/games/fba/seasons/{SEASON}/segments/"
                             f"0/leagues/{LEAGUE}/transactions/")
    assert post.headers["content-type"] == "application/json"
    assert 500 in espn.roster(1) and 107 not in espn.roster(1)
    # the same key again (a second click, a recovery): nothing sent
    again = await w.add_drop(1, 500, 107, scoring_period=40, key="card:a:1", actor="x")
    assert again.status == "done" and len(espn.posts) == 1
    rec = await journal.write_get("card:a:1")
    assert rec.status == "done" and rec.actor == "discord:7" and rec.body["memberId"] == MASK
    assert rec.verification["read"] == "mRoster"
    assert SWID not in json.dumps([rec.body, rec.answer, rec.verification, rec.summary])
    await w.aclose()


async def test_waiver_claim_is_pending_then_read_back_when_waivers_process(journal) -> None:
    espn = FakeEspn()
    w = writer(espn, journal)
    out = await w.claim(1, 600, 107, scoring_period=40, key="claim:1", actor="slack:U1")
    assert out.status == "pending" and espn.posts[0]["type"] == "WAIVER"
    assert espn.posts[0]["bidAmount"] == 0 and out.espn_id
    assert 600 not in espn.roster(1)  # not until waivers process
    rec = await w.claim_result("claim:1", scoring_periods=[40])
    assert rec.status == "pending"
    espn.process_waivers()
    rec = await w.claim_result("claim:1", scoring_periods=[40, 41])
    assert rec.status == "done" and 600 in espn.roster(1)
    await w.aclose()


async def test_lost_claim_reads_back_as_failed_with_espn_status(journal) -> None:
    espn = FakeEspn()
    w = writer(espn, journal)
    await w.claim(1, 600, 107, scoring_period=40, key="claim:2", actor="u")
    espn.waivers.discard(600)  # someone else got him first
    espn.process_waivers()
    rec = await w.claim_result("claim:2", scoring_periods=[40, 41])
    assert rec.status == "failed" and rec.error == "FAILED_PLAYERALREADYDROPPED"
    await w.aclose()


async def test_lineup_today_is_LINEUP_built_from_espn_slots_out_before_in(journal) -> None:
    espn = FakeEspn()
    w = writer(espn, journal)
    # start bench player 106 at PG in place of 101, who goes to the bench
    out = await w.set_lineup(1, {106: 0, 101: BENCH}, scoring_period=40, current_period=40,
                             key="fix:1", actor="u")
    assert out.status == "done"
    body = espn.posts[0]
    assert body["type"] == "LINEUP" and body["scoringPeriodId"] == 40
    assert body["items"] == [
        {"playerId": 101, "type": "LINEUP", "fromLineupSlotId": 0, "toLineupSlotId": BENCH},
        {"playerId": 106, "type": "LINEUP", "fromLineupSlotId": BENCH, "toLineupSlotId": 0}]
    assert espn.roster(1)[106] == 0 and espn.roster(1)[101] == BENCH
    # the slots were read for that period before the POST
    reads = [r for r in espn.requests if r.method == "GET"]
    assert reads[0].url.params.get("scoringPeriodId") == "40"
    await w.aclose()


async def test_future_days_are_FUTURE_ROSTER_read_per_day_and_skip_noops_and_ir(journal):
    espn = FakeEspn()
    w = writer(espn, journal)
    espn.slots[42] = {t: dict(espn.roster(t)) for t in (1, 2)}
    espn.slots[42][1][106] = UT  # on ESPN he already starts day 42 (104 moved out)
    espn.slots[42][1][104] = BENCH
    outs = await w.set_lineups(1, {41: {106: UT, 104: BENCH, 105: IR},
                                   42: {106: UT, 104: BENCH}}, current_period=40,
                               key="week", actor="u")
    assert [o.status for o in outs] == ["done", "noop"]
    assert len(espn.posts) == 1
    body = espn.posts[0]
    assert body["type"] == "FUTURE_ROSTER" and body["scoringPeriodId"] == 41
    assert {i["playerId"] for i in body["items"]} == {104, 106}  # IR move left out
    assert outs[0].skipped and "IR" in outs[0].skipped[0]
    got = {r.url.params.get("scoringPeriodId") for r in espn.requests if r.method == "GET"}
    assert {"41", "42"} <= got
    await w.aclose()


async def test_plan_lineup_moves_only_who_must_move() -> None:
    current = {1: 0, 2: 11, 3: 11, 4: BENCH, 5: IR}
    # 4 starts at UT: one of the UTs must leave; the PG and IR stay
    plan = plan_lineup(current, {4: 11, 2: 11}, {0: 1, 11: 2})
    assert plan == {1: 0, 2: 11, 3: BENCH, 4: 11, 5: IR}
    items, _ = lineup_items(current, plan, future=False)
    assert [(i.player_id, i.from_slot, i.to_slot) for i in items] == [(3, 11, BENCH),
                                                                      (4, BENCH, 11)]


async def test_a_swap_between_full_slots_goes_through_the_bench() -> None:
    items, _ = lineup_items({1: 0, 2: 1}, {1: 1, 2: 0}, future=False)
    steps = [(i.player_id, i.from_slot, i.to_slot) for i in items]
    assert steps == [(1, 0, BENCH), (2, 1, 0), (1, BENCH, 1)]


# ---------------------------------------------------------------------- error paths


@pytest.mark.parametrize(("setup", "call", "error", "code"), [
    (lambda e: setattr(e, "locked", True), "fa", EspnLineupLocked, "TRAN_ROSTER_LOCKED"),
    (lambda e: e.free_agents.discard(500), "fa", EspnPlayerUnavailable,
     "TRAN_PLAYER_NOT_AVAILABLE"),
    (lambda e: None, "fa_waiver_player", EspnPlayerUnavailable, "TRAN_PLAYER_ON_WAIVERS"),
    (lambda e: setattr(e, "acquisitions_left", 0), "fa", EspnMovesLimitReached,
     "TRAN_ACQUISITION_LIMIT_EXCEEDED"),
    (lambda e: None, "fa_no_drop", EspnRosterFull, "TRAN_ROSTER_LIMIT_EXCEEDED"),
    (lambda e: setattr(e, "fault", "401"), "fa", EspnCredentialsExpired, "HTTP401"),
    (lambda e: setattr(e, "fault", "error_in_200"), "fa", EspnWriteRefused, "GENERAL_ERROR"),
    (lambda e: None, "not_owner", EspnCredentialsExpired, "TRAN_NOT_TEAM_OWNER"),
    (lambda e: setattr(e, "locked", True), "lineup", EspnLineupLocked, "TRAN_LINEUP_LOCKED"),
])
async def test_every_espn_refusal_is_a_typed_error_and_nothing_changes(
        journal, setup, call, error, code) -> None:
    espn = FakeEspn()
    setup(espn)
    before = {sp: {t: dict(r) for t, r in teams.items()} for sp, teams in espn.slots.items()}
    w = writer(espn, journal)
    with pytest.raises(error) as ei:
        if call == "fa":
            await w.add_drop(1, 500, 107, scoring_period=40, key="k", actor="u")
        elif call == "fa_waiver_player":
            await w.add_drop(1, 600, 107, scoring_period=40, key="k", actor="u")
        elif call == "fa_no_drop":
            await w.add_drop(1, 500, None, scoring_period=40, key="k", actor="u")
        elif call == "not_owner":
            await w.add_drop(2, 500, 207, scoring_period=40, key="k", actor="u")
        else:
            await w.set_lineup(1, {106: 0, 101: BENCH}, scoring_period=40,
                               current_period=40, key="k", actor="u")
    assert ei.value.code == code and ei.value.reason
    assert S2 not in str(ei.value) and SWID not in str(ei.value)
    assert espn.slots == before
    rec = await journal.write_get("k")
    assert rec.status == "failed" and type(ei.value).__name__ in rec.error
    assert rec.answer["http"] in (200, 400, 401, 403, 409)
    assert len(espn.posts) == 1  # a refusal is never sent again
    await w.aclose()


async def test_stale_slot_is_read_again_and_rebuilt_once(journal) -> None:
    espn = FakeEspn()
    w = writer(espn, journal)
    real_handle = espn.handle
    moved = []

    def racing(request: httpx.Request) -> httpx.Response:
        # between FanVise's read and its POST the member moved 106 on ESPN's app
        if request.method == "POST" and not moved:
            moved.append(1)
            espn.roster(1)[106] = UT
            espn.roster(1)[104] = BENCH
        return real_handle(request)
    w._http._transport = httpx.MockTransport(racing)
    out = await w.set_lineup(1, {106: 0, 101: BENCH}, scoring_period=40, current_period=40,
                             key="stale", actor="u")
    assert out.status == "done" and len(espn.posts) == 2
    assert espn.posts[1]["items"][-1] == {"playerId": 106, "type": "LINEUP",
                                          "fromLineupSlotId": UT, "toLineupSlotId": 0}
    assert espn.roster(1)[106] == 0
    await w.aclose()


async def test_stale_twice_is_a_stale_slot_error(journal) -> None:
    espn = FakeEspn()
    w = writer(espn, journal)
    real_handle = espn.handle

    def always_moving(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            r = espn.roster(1)
            r[101] = UT if r[101] == 0 else 0  # someone keeps moving him on ESPN's app
            body = json.loads(request.content)
            espn.posts.append(body)
            return httpx.Response(400, json={"messages": ["Invalid Input."]})
        return real_handle(request)
    w._http._transport = httpx.MockTransport(always_moving)
    with pytest.raises(EspnStaleSlot):
        await w.set_lineup(1, {106: 0, 101: BENCH}, scoring_period=40, current_period=40,
                           key="stale2", actor="u")
    assert len(espn.posts) == 2
    await w.aclose()


# ---------------------------------------------------------------------- never blind


@pytest.mark.parametrize("fault", ["timeout_after", "500_after"])
async def test_no_answer_but_made_is_read_back_and_never_sent_again(journal, fault) -> None:
    espn = FakeEspn(fault=fault)
    w = writer(espn, journal)
    out = await w.add_drop(1, 500, 107, scoring_period=40, key="t1", actor="u")
    assert out.status == "done" and out.verified is True
    assert len(espn.posts) == 1 and 500 in espn.roster(1)
    # the read back came between the failed POST and any retry
    kinds = [(r.method, r.url.params.get_list("view")) for r in espn.requests]
    assert kinds == [("POST", []), ("GET", ["mRoster"])]
    await w.aclose()


@pytest.mark.parametrize("fault", ["timeout_before", "500_before"])
async def test_no_answer_and_not_made_is_sent_once_more_after_the_read(journal, fault):
    espn = FakeEspn(fault=fault)
    w = writer(espn, journal)
    out = await w.add_drop(1, 500, 107, scoring_period=40, key="t2", actor="u")
    assert out.status == "done" and len(espn.posts) == 2 and 500 in espn.roster(1)
    kinds = [(r.method, r.url.params.get_list("view")) for r in espn.requests]
    assert kinds[:3] == [("POST", []), ("GET", ["mRoster"]), ("POST", [])]
    assert (await journal.write_get("t2")).attempts == 2
    await w.aclose()


async def test_no_answer_and_no_read_back_is_unknown_and_then_settled_by_a_read(journal):
    espn = FakeEspn(fault="timeout_after")
    w = writer(espn, journal)
    real_handle = espn.handle
    down = [True]

    def reads_down(request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and down[0]:
            raise httpx.ConnectError("down", request=request)
        return real_handle(request)
    w._http._transport = httpx.MockTransport(reads_down)
    with pytest.raises(EspnWriteOutcomeUnknown):
        await w.add_drop(1, 500, 107, scoring_period=40, key="t3", actor="u")
    assert (await journal.write_get("t3")).status == "unknown"
    # pressing again while ESPN's reads are down sends nothing
    with pytest.raises(EspnWriteOutcomeUnknown):
        await w.add_drop(1, 500, 107, scoring_period=40, key="t3", actor="u")
    assert len(espn.posts) == 1
    down[0] = False  # ESPN reads again: the read shows it was made; still one POST
    out = await w.add_drop(1, 500, 107, scoring_period=40, key="t3", actor="u")
    assert out.status == "done" and len(espn.posts) == 1
    await w.aclose()


# ---------------------------------------------------------------------- crash points


class Killed(BaseException):
    """Stands for SIGKILL at a crash point (nothing after it runs)."""


@pytest.mark.parametrize("point", ["espn_write:before_post", "espn_write:after_post"])
async def test_a_crash_on_either_side_of_the_post_changes_the_league_at_most_once(
        tmp_path, point) -> None:
    espn = FakeEspn()
    db = await Database.open(tmp_path / "app.sqlite")
    app = await AppDB.open(db)

    def crash(name: str) -> None:
        if name == point:
            raise Killed(name)
    w = writer(espn, app, crash=crash)
    with pytest.raises(Killed):
        await w.add_drop(1, 500, 107, scoring_period=40, key="card:c:0", actor="u")
    await db.close()  # the process is gone; its journal row says "sending"
    sent = len(espn.posts)
    assert sent == (0 if point.endswith("before_post") else 1)

    db = await Database.open(tmp_path / "app.sqlite")  # the restarted process
    app = await AppDB.open(db)
    assert (await app.write_get("card:c:0")).status == "sending"
    w2 = writer(espn, app)
    out = await w2.add_drop(1, 500, 107, scoring_period=40, key="card:c:0", actor="u")
    assert out.status == "done"
    assert len(espn.posts) == 1  # made exactly once, whichever side the crash was on
    assert 500 in espn.roster(1) and 107 not in espn.roster(1)
    # recovery read the roster back before deciding
    first_after = next(r for r in espn.requests[sent:])
    assert first_after.method == "GET" and first_after.url.params.get_list("view") == ["mRoster"]
    await w.aclose()
    await w2.aclose()
    await db.close()


# ---------------------------------------------------------------------- hosts, pacing


async def test_cookies_go_to_the_read_and_write_hosts_only(journal) -> None:
    espn = FakeEspn()
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.host not in (READS, WRITES):
            return httpx.Response(200, json={})
        return espn.handle(request)
    w = writer(espn, journal)
    w._http._transport = httpx.MockTransport(handler)
    await w.add_drop(1, 500, 107, scoring_period=40, key="h", actor="u")
    assert {r.url.host for r in seen} == {READS, WRITES}
    assert all(S2 in r.headers["cookie"] for r in seen)
    # the writer refuses to put them on any other host, http included
    for url in ("https://evil.example.com/x", f"http://{WRITES}/x",
                "https://lm-api-writes.fantasy.espn.com.evil.example/x"):
        assert "Cookie" not in w._headers(url)
    assert S2 not in repr(w) and S2 not in repr(w.credentials)
    await w.aclose()


async def test_a_redirect_is_never_followed_and_reads_as_expired(journal) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(302, headers={"Location": "https://registerdisney.go.com/login"})
    w = EspnWriter(LEAGUE, SEASON, credentials=Credentials(S2, SWID), journal=journal,
                   transport=httpx.MockTransport(handler), min_interval=0.0)
    with pytest.raises(EspnCredentialsExpired):
        await w.submit(Transaction("FREEAGENT", 1, 40, (TxItem(500, "ADD", 1),)), key="r",
                       actor="u")
    assert {r.url.host for r in seen} == {WRITES}
    await w.aclose()


async def test_writes_to_one_league_are_paced_300ms_apart(journal) -> None:
    espn = FakeEspn()
    clock = [100.0]
    sleeps: list[float] = []
    w = writer(espn, journal, sleeps=sleeps, clock=clock, min_interval=0.3)
    await w.add_drop(1, 500, 107, scoring_period=40, key="p1", actor="u")
    await w.add_drop(1, 501, 106, scoring_period=40, key="p2", actor="u")
    assert sleeps and abs(sleeps[0] - 0.3) < 1e-9


async def test_dry_run_prints_the_exact_body_and_sends_nothing(journal) -> None:
    espn = FakeEspn()
    w = writer(espn, journal, dry_run=True)
    out = await w.add_drop(1, 500, 107, scoring_period=40, key="d", actor="u")
    assert out.status == "dry_run" and espn.posts == [] and await journal.write_get("d") is None
    assert out.body["items"][0] == {"playerId": 500, "type": "ADD", "toTeamId": 1}
    assert out.body["memberId"] == MASK
    await w.aclose()


async def test_another_members_cookies_cannot_write_to_a_team(journal) -> None:
    espn = FakeEspn()
    w = writer(espn, journal, swid=OTHER_SWID)
    with pytest.raises(EspnCredentialsExpired):
        await w.add_drop(1, 500, 107, scoring_period=40, key="o", actor="u")
    assert 500 not in espn.roster(1)
    await w.aclose()


async def test_pacing_is_shared_with_other_processes_through_the_app_db(journal) -> None:
    """Two writers with their own in-process pacing (as two processes would have) share the
    league's write slot through the app DB's token bucket: the second waits its turn."""
    from fantasy.espn import writes as w_mod

    espn = FakeEspn()
    sleeps: list[float] = []

    def shared() -> float:
        return journal.take_token("espn-writes:777", capacity=1.0, per_minute=200.0)
    first = writer(espn, journal, sleeps=sleeps, shared_pace=shared)
    await first.add_drop(1, 500, 107, scoring_period=40, key="s1", actor="u")
    w_mod._PACERS.clear()  # the other process knows nothing of this one's last write
    second = writer(espn, journal, sleeps=sleeps, shared_pace=shared)
    await second.add_drop(1, 501, 106, scoring_period=40, key="s2", actor="u")
    assert len(sleeps) == 1 and 0.2 < sleeps[0] <= 0.3
    await first.aclose()
    await second.aclose()
