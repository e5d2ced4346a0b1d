"""Each move is made on its day (issue 22, part 2), through the REAL ChatCore, runtime, matchup
optimizer graph, app DB and demo league (offline model):

- "Approve plan" makes today's moves now and schedules each later move for its day; the card
  says "Scheduled for Thu ..." and the re-planned week is the card's projected total;
- `/advance` moves the demo's date day by day and makes each scheduled move on its day: the
  realised roster of every day is the plan's, and the realised optimal-lineup value over the
  week under the projections the card was planned on equals the card's total (after every
  advance too), in both scoring variants; the card is redrawn (✅ Applied) each time;
- a changed situation (another team claims a scheduled pickup) is not made blindly: the card
  says why, the owner gets a message in the card's thread with the optimizer's best choice
  now, and a later move of its chain is not possible either;
- a live league gets a reminder in the card's thread on the move's day (hand-off steps and
  the add-page link, then the lineup changes the week plan needs that day), the decided card
  lists the plan's lineup changes by day, and `/advance` is refused there with one clear
  line;
- Slack (real slack-bolt over the fake Web API): approve, `/fanvise advance`, the card's
  message updated in place.
"""

from __future__ import annotations

import io
import re
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any

import pytest

from agents.shared.deps import AgentDeps, optimizer_for
from bot.console.adapter import ConsoleSurface
from bot.core.app import FanViseApp
from bot.core.models import ThreadRef, UserRef
from bot.settings import Settings
from fantasy.constants import SLOT_IR
from fantasy.moves import Plan
from fantasy.schedule import EASTERN
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.servers import wait_for

USER = UserRef("console", "ann", "Ann", is_admin=True)
THREAD = ThreadRef("console", "local", "console", "s1")


async def _open(data_dir: Path, variant: str = "points") -> FanViseApp:
    return await FanViseApp.open(Settings(_env_file=None, data_dir=data_dir,
                                          demo_variant=variant, llm_per_minute=600,
                                          llm_burst=50))


def _choice(surface: ConsoleSurface, label: str) -> str:
    hits = [c for c in surface.choices.values() if c.label == label]
    assert hits, f"no choice {label!r}: {[c.label for c in surface.choices.values()]}"
    return hits[-1].custom_id


async def _planned(app: FanViseApp) -> tuple[Any, Plan]:
    """The optimizer of the league as the card is planned, and its plan for team 1."""
    deps = AgentDeps.for_client(app.espn, model=None, my_team_id=1)  # type: ignore[arg-type]
    svc = await optimizer_for(deps)
    return svc, svc.move_plan(1)


async def _approve_plan(app: FanViseApp) -> tuple[ConsoleSurface, io.StringIO, Any, Any, Plan]:
    out = io.StringIO()
    surface = ConsoleSurface(out, live=False)
    svc, plan = await _planned(app)
    await app.core.handle_message(surface, THREAD, USER, "Review my matchup")
    row = (await app.app_db.pending_cards(THREAD.conversation_id))[0]
    shown = [m["move_id"] for m in row.moves if not m.get("alternative_of")]
    assert shown == [m.move_id for m in plan.moves], "the card is the optimizer's plan"
    await app.core.handle_click(surface, THREAD, USER, _choice(surface, "Approve plan"),
                                row.message_id or "")
    return surface, out, row, svc, plan


def _plan_rosters(start: dict[int, int], plan: Plan) -> list[tuple[frozenset[int], frozenset[int]]]:
    """(roster, IR) per day of the plan: each move from its day on."""
    roster = {p for p, s in start.items() if s != SLOT_IR}
    ir = {p for p, s in start.items() if s == SLOT_IR}
    out = []
    for day in plan.dates:
        for m in plan.moves:
            if m.day == day:
                roster.discard(m.drop.id)
                if m.drop_to_ir:
                    ir.add(m.drop.id)
                roster.add(m.add.id)
        out.append((frozenset(roster), frozenset(ir)))
    return out


def _realised(demo: Any, team_id: int, days: list[date]
              ) -> list[tuple[frozenset[int], frozenset[int]]]:
    out = []
    for d in days:
        r = demo.roster_on(team_id, d)
        out.append((frozenset(p for p, s in r.items() if s != SLOT_IR),
                    frozenset(p for p, s in r.items() if s == SLOT_IR)))
    return out


def _moves_of(start: dict[int, int], rosters: list[tuple[frozenset[int], frozenset[int]]],
              days: list[date]) -> list[tuple[int, int, date]]:
    """Dated (leaving, added) pairs that turn the start roster into each day's roster."""
    prev = {p for p, s in start.items() if s != SLOT_IR}
    moves = []
    for (active, _), d in zip(rosters, days, strict=True):
        gone, came = sorted(prev - active), sorted(active - prev)
        assert len(gone) == len(came), (d, gone, came)
        moves += [(g, c, d) for g, c in zip(gone, came, strict=True)]
        prev = set(active)
    return moves


def _value(res: Any) -> float:
    return float(res.total_points if res.total_points is not None
                 else res.expected_categories_won)


@pytest.mark.parametrize("variant", ["points", "categories"])
async def test_approve_then_advance_delivers_the_card(tmp_path: Path, variant: str) -> None:
    app = await _open(tmp_path, variant)
    demo = app.espn.demo
    try:
        start = demo.roster_now(1)
        surface, out, row, svc, plan = await _approve_plan(app)
        today = demo.today
        later = [m for m in plan.moves if m.day > today]
        assert later, "the demo plan has moves dated after today"
        text = out.getvalue()
        # today's moves are made now, the later ones wait for their day
        made_now = [c for c in demo.changes if c.kind == "move" and c.team_id == 1]
        assert len(made_now) == len([m for m in plan.moves if m.day == today])
        for m in later:
            assert f"Scheduled for {m.day:%a %b %d}" in text
        rows = await app.app_db.scheduled_moves(row.card_id)
        assert [(r.day, r.drop_id, r.add_id) for r in rows] == \
            [(m.day.isoformat(), m.drop.id, m.add.id) for m in later]
        audit = {a["move_id"]: a["result"] for a in await app.app_db.audit_rows(row.card_id)}
        assert all(audit[m.move_id] == "scheduled" for m in later)
        # the re-planned week is what the card promised (the scheduled moves on their days)
        replanned = text.split("Re-planned week:")[-1].split("\n")[0]
        figure = float(re.search(r"[\d.]+", replanned).group().rstrip("."))
        assert figure == pytest.approx(plan.planned_value, abs=0.5 if variant == "points" else 0.05), replanned
        # day by day to the end of the plan
        for day in [d for d in plan.dates if d > today]:
            await app.core.handle_command(surface, THREAD, USER, "advance", {"text": "1"})
            assert demo.today == day
            for m in [m for m in later if m.day == day]:
                r = demo.roster_on(1, day)
                assert m.add.id in r and (m.drop.id not in r or r[m.drop.id] == SLOT_IR)
                assert m.add.id not in demo.roster_on(1, day - timedelta(days=1)) \
                    or m.replaces_added
            # what is realised so far plus what is still scheduled, valued on the card's
            # projections, is the card's figure after every advance
            days = plan.dates
            real = _moves_of(start, _realised(demo, 1, [d for d in days if d <= day]),
                             [d for d in days if d <= day])
            rest = [(r.drop_id, r.add_id, date.fromisoformat(r.day))
                    for r in await app.app_db.scheduled_moves(row.card_id)
                    if r.status == "scheduled"]
            assert _value(svc.weekly_plan(1, moves=real + rest)) == \
                pytest.approx(plan.planned_value, abs=1e-6)
        # every day's roster is the plan's, and its optimal lineups make the card's total
        realised = _realised(demo, 1, plan.dates)
        assert realised == _plan_rosters(start, plan)
        moves = _moves_of(start, realised, plan.dates)
        assert _value(svc.weekly_plan(1, moves=moves)) == \
            pytest.approx(plan.planned_value, abs=1e-6)
        assert {r.status for r in await app.app_db.scheduled_moves(row.card_id)} == \
            {"applied"}
        audit = [a["result"] for a in await app.app_db.audit_rows(row.card_id)]
        assert audit.count("scheduled:applied") == len(later)
        card = await app.app_db.get_card(row.card_id)
        decided = out.getvalue().split("(updated)")[-1]
        assert "Scheduled for" not in decided and decided.count("✅") == len(plan.moves)
        assert f"Decided by Ann: {len(plan.moves)} applied" in decided
        assert card.status == "approved"
        # each move was made once, dated its day
        made = [(demo.calendar.date_for(c.sp), c.add) for c in demo.changes
                if c.kind == "move" and c.team_id == 1]
        assert sorted(made) == sorted((m.day, m.add.id) for m in plan.moves)
        assert "Demo date:" in out.getvalue()
    finally:
        await app.close()


async def test_a_claimed_pickup_is_not_made_and_the_owner_hears(tmp_path: Path) -> None:
    app = await _open(tmp_path)
    demo = app.espn.demo
    try:
        surface, out, row, _svc, plan = await _approve_plan(app)
        later = [m for m in plan.moves if m.day > demo.today]
        first = later[0]
        chained = [m for m in plan.moves if m.drop.id == first.add.id]
        other = next(t for t in demo.team_ids() if t != 1)
        demo.apply_move(other, sorted(demo.roster_now(other))[0], first.add.id)
        before = len(out.getvalue())
        await app.core.handle_command(surface, THREAD, USER, "advance",
                                      {"text": first.day.isoformat()})
        text = out.getvalue()[before:]
        claimed = f"{first.add.name} was claimed by {demo.team_name(other)}"
        assert f"Not possible: {claimed}." in text
        # the owner's message in the card's thread: what was not made, why, the best choice
        msg = next(ln for ln in text.splitlines() if "move was not made" in ln)
        assert first.text() in msg and claimed in text
        best = next(ln for ln in text.splitlines() if ln.startswith("Best choice now:"))
        for m in later[1:]:  # never a player the schedule still adds on a later day
            assert m.add.name not in best, best
        assert first.add.id not in demo.roster_now(1)
        assert first.drop.id in demo.roster_now(1)  # nothing made blindly
        rows = {r.plan_move_id: r for r in await app.app_db.scheduled_moves(row.card_id)}
        assert rows[first.move_id].status == "not_possible"
        audit = {(a["move_id"], a["result"]) for a in await app.app_db.audit_rows(row.card_id)}
        assert (first.move_id, "scheduled:not_possible") in audit
        for m in chained:  # a later move dropping the player who never came: not possible
            assert rows[m.move_id].status == "not_possible"
            assert "was not added" in rows[m.move_id].note
        # advancing through the week never makes them
        await app.core.handle_command(surface, THREAD, USER, "advance",
                                      {"text": plan.dates[-1].isoformat()})
        assert all(c.add != first.add.id for c in demo.changes if c.team_id == 1)
    finally:
        await app.close()


async def test_advance_input_and_live_league(tmp_path: Path, monkeypatch) -> None:
    import agents.shared.deps as deps_module
    import fantasy.schedule as schedule_module

    app = await _open(tmp_path)
    demo = app.espn.demo
    try:
        out = io.StringIO()
        surface = ConsoleSurface(out, live=False)
        for bad, why in (("yesterday", "only moves forward"), ("0", "1 to 60"),
                         ("2023-06-01", "season ends"), ("soon", "Use /advance, /advance 3")):
            await app.core.handle_command(surface, THREAD, USER, "advance", {"text": bad})
            assert why in out.getvalue().splitlines()[-1] or why in out.getvalue(), bad
        assert demo.today == date(2023, 1, 25)
        # a live league: the plan's later moves come due on their day as reminders
        app.espn.demo = None
        monkeypatch.setattr(deps_module, "today_eastern", lambda: demo.today)
        monkeypatch.setattr(schedule_module, "today_eastern", lambda: demo.today)
        await app.core.handle_command(surface, THREAD, USER, "advance", {"text": "1"})
        assert "only moves on the demo league" in out.getvalue().splitlines()[-1]
        app.espn.demo = demo
        surface2, out2, row, _svc, plan = await _approve_plan_live(app, monkeypatch)
        later = [m for m in plan.moves if m.day > demo.today]
        assert demo.changes == []  # FanVise wrote nothing
        # FanVise may not set the lineups: the card says which ones the total needs, when
        week = await app.app_db.current_week_plan(1)
        assert week is not None and not week.writes and week.member_lineups
        assert f"Lineups this plan's total needs (set them on ESPN): {week.member_lineups}" \
            in out2.getvalue()
        assert re.search(r"start [A-Z][\w.' -]+ at (PG|SG|SF|PF|C|G|F|UT) on \w{3}",
                         week.member_lineups)
        day = later[0].day
        # the live league's clock is ESPN's current scoring period (the one clock): the
        # stand-in league serving the reads is on that day
        demo.advance_to(day)
        monkeypatch.setattr(deps_module, "today_eastern", lambda: day)
        monkeypatch.setattr(schedule_module, "today_eastern", lambda: day)
        app.espn.demo = None
        early = datetime.combine(day, time(7, 0), tzinfo=EASTERN)  # before 08:00 ET
        assert await app.core.moves.run_due({"console": surface2}, now=early) == []
        morning = datetime.combine(day, time(8, 5), tzinfo=EASTERN)
        done = await app.core.moves.run_due({"console": surface2}, now=morning)
        app.espn.demo = demo
        assert [d.outcome.status for d in done] == ["waiting"] * len(
            [m for m in later if m.day == day])
        text = out2.getvalue()
        assert f"today ({day:%a %b} {day.day}) is the day for this move: " \
               f"{later[0].text()}" in text
        assert f"playerId={later[0].add.id}" in text and "then Submit." in text
        needs = week.needs_text(day)  # that day's lineup changes come with its moves
        assert needs and f"Then set today's lineup as your plan assumes: {needs}." in text
        assert demo.changes == []
        # once only
        app.espn.demo = None
        assert await app.core.moves.run_due({"console": surface2}, now=morning) == []
    finally:
        app.espn.demo = demo
        await app.close()


async def _approve_plan_live(app: FanViseApp, monkeypatch):
    demo = app.espn.demo
    svc, plan = await _planned(app)
    app.espn.demo = None
    try:
        out = io.StringIO()
        surface = ConsoleSurface(out, live=False)
        thread = THREAD.in_thread("live")
        await app.core.handle_message(surface, thread, USER, "Review my matchup")
        row = (await app.app_db.pending_cards(thread.conversation_id))[0]
        await app.core.handle_click(surface, thread, USER, _choice(surface, "Approve plan"),
                                    row.message_id or "")
    finally:
        app.espn.demo = demo
    return surface, out, row, svc, plan


async def test_slack_approve_and_advance(fake_slack, tmp_path: Path) -> None:
    from tests.bot.test_slack_e2e import actions, card_ts, context_text, start

    run = await start(fake_slack, tmp_path)
    demo = run.app.espn.demo
    try:
        _svc, plan = await _planned(run.app)
        assert await run.post(sr.slash_body("optimize")) == 200
        ts = await wait_for(lambda: card_ts(fake_slack))
        root_ts = fake_slack.messages[ts]["thread_ts"]
        approve = next(a["action_id"] for a in actions(fake_slack.messages[ts])
                       if a["action_id"].startswith("fv:approveall:"))
        assert await run.post(sr.block_action_body(approve, clicker="U_REQ", message_ts=ts,
                                                   thread_ts=root_ts)) == 200
        n_later = len([m for m in plan.moves if m.day > demo.today])
        msg = await wait_for(lambda: "Decided by" in context_text(fake_slack.messages[ts])
                             and fake_slack.messages[ts])
        assert f"{n_later} scheduled" in context_text(msg)
        assert str(msg["blocks"]).count("Scheduled for") == n_later
        assert await run.post(sr.slash_body(f"advance {plan.dates[-1].isoformat()}")) == 200
        msg = await wait_for(lambda: f"{len(plan.moves)} applied" in context_text(
            fake_slack.messages[ts]) and fake_slack.messages[ts])
        assert "Scheduled for" not in str(msg["blocks"])

        def said() -> list[str]:
            return [c.body.get("text", "") for c in fake_slack.named("chat.postMessage")]

        await wait_for(lambda: any(re.search(r"Demo date: \w{3} \w{3} \d+", t)
                                   for t in said()))
        assert demo.today == plan.dates[-1]
    finally:
        await run.close()


async def test_recovery_reads_a_chain_on_its_days(tmp_path: Path) -> None:
    """A streaming chain (Thu: drop A, add X; Sun: drop X, add Z) made on its days, then a
    crash left both rows claimed: recovery reads each move on its own day's roster (X is on
    Thursday's roster although Sunday's drops him), so both are reported done and neither is
    made again; the card says so."""
    from fantasy.move_card import CardMove, MoveCard, MoveOutcome
    from fantasy.moves import PlayerRef, move_id
    from storage.app_db import CardRow, new_card_id

    app = await _open(tmp_path)
    demo = app.espn.demo
    try:
        out = io.StringIO()
        surface = ConsoleSurface(out, live=False)
        thu, sun = date(2023, 1, 26), date(2023, 1, 29)
        a = min((p for p, s in demo.roster_now(1).items() if s != SLOT_IR), key=demo._value)
        x, z = [int(p) for p in demo.base["players"] if demo.owner_of(int(p)) == 0
                and not demo._on_waivers(int(p))
                and demo.injury_on(int(p), demo.today_sp)[0] == "ACTIVE"][:2]
        ref = {pid: PlayerRef(id=pid, name=demo.player_name(pid)) for pid in (a, x, z)}
        moves = [CardMove(move_id=move_id(d, dr, ad), drop=ref[dr], add=ref[ad], day=d,
                          line=f"{d:%a}: drop {ref[dr].name}, add {ref[ad].name}")
                 for d, dr, ad in ((thu, a, x), (sun, x, z))]
        card = MoveCard(moves=moves)
        row = CardRow(card_id=new_card_id(), run_thread_id="r", interrupt_id="i",
                      conversation_id=THREAD.conversation_id, platform="console",
                      workspace_id="local", channel_id="console", thread_id="s1",
                      message_id=None, requester_id="ann", requester_name="Ann", team_id=1,
                      title="Plan", summary="", moves=card.move_dicts(),
                      decisions={}, status="pending")
        await app.app_db.create_card(row)
        assert await app.app_db.claim_card(row.card_id, user_id="ann", user_name="Ann",
                                           decisions={"0": "approve", "1": "approve"})
        await app.app_db.finish_card(row.card_id, status="approved", result={"outcomes": {}})
        row = await app.app_db.get_card(row.card_id)
        outs = [MoveOutcome(move_id=m.move_id, plan_move_id=m.move_id, status="scheduled",
                            day=m.day, drop=m.drop, add=m.add, line=m.line) for m in moves]
        await app.core.moves.schedule(row, [o.to_json() for o in outs])
        rows = await app.app_db.scheduled_moves(row.card_id)
        assert rows[1].needs == x  # the chain: Sunday drops the player Thursday adds
        made = await app.core.moves.advance(sun, {"console": surface})
        assert [m.outcome.status for m in made] == ["applied", "applied"]
        changes = list(demo.changes)
        assert x in demo.roster_on(1, thu) and x not in demo.roster_now(1)
        # a crash right after the moves: both rows still claimed, nothing finished
        await app.app_db.execute("UPDATE move_schedule SET status='making', shown=0 "
                                 "WHERE card_id=?", (row.card_id,))
        assert await app.core.moves.recover({"console": surface}) == 2
        rows = await app.app_db.scheduled_moves(row.card_id)
        assert [r.status for r in rows] == ["applied", "applied"]
        assert demo.changes == changes  # nothing made twice
        card_now = await app.app_db.get_card(row.card_id)
        assert {v["status"] for v in card_now.result["outcomes"].values()} == {"applied"}
        assert "Decided by Ann: 2 applied" in out.getvalue().split("(updated)")[-1]
    finally:
        await app.close()


async def test_the_scheduler_pass_makes_the_moves_due(tmp_path: Path) -> None:
    """bot.scheduler.DailyScheduler's move job: each pass makes the moves due now (the demo's
    date moved without /advance, as another process would), once; a failing job is logged
    and the loop goes on."""
    from bot.scheduler import DailyScheduler

    app = await _open(tmp_path)
    demo = app.espn.demo
    try:
        surface, out, row, _svc, plan = await _approve_plan(app)
        first = next(m for m in plan.moves if m.day > demo.today)

        async def poster(_s: Any) -> str:
            return ""

        sched = DailyScheduler(app.app_db, poster, platforms={"console"},
                               moves=lambda: app.core.moves.run_due({"console": surface}))
        await sched.reload()
        await sched.run_due()
        assert all(c.add != first.add.id for c in demo.changes)  # not its day yet
        demo.advance_to(first.day)
        await sched.run_due()
        await sched.run_due()
        made = [c for c in demo.changes if c.add == first.add.id]
        assert len(made) == 1 and demo.calendar.date_for(made[0].sp) == first.day
        rows = {r.plan_move_id: r for r in await app.app_db.scheduled_moves(row.card_id)}
        assert rows[first.move_id].status == "applied"

        async def broken() -> None:
            raise RuntimeError("boom")

        sched.moves = broken
        await sched.run_due()  # logged, not raised
    finally:
        await app.close()


async def test_discord_approve_and_advance(fake_discord, tmp_path: Path) -> None:
    """Real discord.py over the fake REST server: Approve plan, then the /advance app
    command; the card's message is edited in place as each scheduled move is made."""
    from tests.bot.harness import discord_events as ev
    from tests.bot.harness import fake_discord as fd
    from tests.bot.test_discord_e2e import REQUESTER, buttons, card_message, open_bot

    app, bot = await open_bot(tmp_path)
    demo = app.espn.demo
    try:
        _svc, plan = await _planned(app)
        ev.send(bot, fake_discord, ev.slash("optimize", REQUESTER))
        thread_id = (await wait_for(lambda: list(fake_discord.threads)))[0]
        card = await wait_for(lambda: card_message(fake_discord, thread_id))
        approve = next(c["custom_id"] for c in buttons(card) if c.get("label") == "Approve plan")
        ev.send(bot, fake_discord, ev.click(approve, REQUESTER, card,
                                            fd.thread_channel(thread_id, "optimize")))
        mid = int(card["id"])

        def footer() -> str:  # the card's footer: small text (-#) at its end
            return fd.message_text(fake_discord.messages[mid]).rpartition("\n-# ")[2]

        n_later = len([m for m in plan.moves if m.day > demo.today])
        await wait_for(lambda: f"{n_later} scheduled" in footer())
        assert fd.message_text(fake_discord.messages[mid]).count("Scheduled for") == n_later
        ev.send(bot, fake_discord, ev.slash("advance", REQUESTER,
                                            {"days": plan.dates[-1].isoformat()}))
        await wait_for(lambda: f"{len(plan.moves)} applied" in footer())
        await wait_for(lambda: demo.today == plan.dates[-1])
        assert "Scheduled for" not in fd.message_text(fake_discord.messages[mid])
    finally:
        await bot.close()
        await app.close()


async def test_a_league_read_failure_leaves_the_move_for_the_next_pass(tmp_path: Path,
                                                                       monkeypatch) -> None:
    """ESPN not answering when the move is due: nothing is made blindly, the move stays
    scheduled (not 'not possible'), and the next pass makes it once."""
    from fantasy.espn.errors import EspnError

    app = await _open(tmp_path)
    demo = app.espn.demo
    try:
        surface, _out, row, _svc, plan = await _approve_plan(app)
        first = next(m for m in plan.moves if m.day > demo.today)
        real = app.core.moves._optimizer

        async def down(*_a: Any, **_k: Any) -> Any:
            raise EspnError("ESPN is not answering")

        monkeypatch.setattr(app.core.moves, "_optimizer", down)
        demo.advance_to(first.day)
        assert await app.core.moves.run_due({"console": surface}) == []
        rows = {r.plan_move_id: r for r in await app.app_db.scheduled_moves(row.card_id)}
        assert rows[first.move_id].status == "scheduled"
        assert all(c.add != first.add.id for c in demo.changes)
        monkeypatch.setattr(app.core.moves, "_optimizer", real)
        made = await app.core.moves.run_due({"console": surface})
        assert [m.outcome.status for m in made if m.row.plan_move_id == first.move_id] == \
            ["applied"]
        assert len([c for c in demo.changes if c.add == first.add.id]) == 1
    finally:
        await app.close()


@pytest.mark.parametrize("upgrade", [False, True])
async def test_a_drop_that_became_core_is_not_made(tmp_path: Path, upgrade: bool,
                                                   monkeypatch) -> None:
    """The day check refuses a scheduled move whose drop is core on its day (the plan judged
    him replaceable; the rest of the roster changed since): nothing is made, the owner hears
    why in the card's thread, with the best choice now. An upgrade (the add is worth as much
    per game) is still made: a core player may leave for a better one."""
    app = await _open(tmp_path)
    demo = app.espn.demo
    try:
        surface, out, row, svc, plan = await _approve_plan(app)
        first = next(m for m in plan.moves if m.day > demo.today and not m.drop_to_ir
                     and m.drop.id in demo.roster_now(1))
        assert first.drop.id not in svc.core_players(1)  # replaceable when planned
        known = {p.id: p for p in svc.free_agents}
        known |= {e.player.id: e.player for t in svc.league.teams for e in t.roster}
        drop_pg = svc._per_game_points(known[first.drop.id])
        assert first.add_per_game >= drop_pg, "the plan's move is an upgrade"
        adds = {m.add.id for m in plan.moves}
        weak = sorted((p for p in svc.free_agents if p.id not in adds
                       and 0 < svc._per_game_points(p) < drop_pg / 2),
                      key=lambda p: (svc._per_game_points(p), p.id))
        add_id, add_name = first.add.id, first.add.name
        if not upgrade:  # the scheduled move adds a weaker player than the one it drops
            add = weak.pop()
            add_id, add_name = add.id, add.name
            await app.app_db.db.execute(
                "UPDATE move_schedule SET add_id=?, add_name=? WHERE card_id=? AND "
                "plan_move_id=?", (add_id, add_name, row.card_id, first.move_id))
        # the team's better players leave for the weakest free agents who play
        better = [known[pid] for pid, slot in demo.roster_now(1).items()
                  if slot != SLOT_IR and pid != first.drop.id
                  and svc._per_game_points(known[pid]) >= drop_pg]
        assert len(weak) >= len(better)
        # a league without an acquisition limit (the demo's settings are shared by every
        # DemoLeague of the process: monkeypatch restores them)
        monkeypatch.setitem(demo.settings["acquisitionSettings"], "matchupAcquisitionLimit", -1)
        for p, w in zip(better, weak, strict=False):
            demo.apply_move(1, p.id, w.id)
        before = len(out.getvalue())
        await app.core.handle_command(surface, THREAD, USER, "advance",
                                      {"text": first.day.isoformat()})
        text = out.getvalue()[before:]
        rows = {r.plan_move_id: r for r in await app.app_db.scheduled_moves(row.card_id)}
        if upgrade:
            assert rows[first.move_id].status == "applied", text
            assert first.add.id in demo.roster_now(1)
            return
        msg = next(ln for ln in text.splitlines() if "move was not made" in ln)
        assert f"drop {first.drop.name}, add {add_name}" in msg
        assert f"{first.drop.name} has become one of your core players: #" in text
        assert first.drop.id in demo.roster_now(1) and add_id not in demo.roster_now(1)
        assert rows[first.move_id].status == "not_possible"
        assert "core players" in rows[first.move_id].note
    finally:
        await app.close()
