"""Every state of the plan card (issue 13), through the REAL ChatCore, runtime, matchup
optimizer graph, app DB and demo league (offline model):

- console: pending (numbered Approve/Skip, numbered menu options with the plan's pick
  preselected), a move approved (👍), a player chosen from the menu ("Your choice instead
  of"), a move skipped (⏭️), decided with applied ✅ / skipped ⏭️ / not possible ⚠️ (the
  player was claimed meanwhile), a partial decision re-planned as a new card; a live league:
  waiting for ESPN ⏳ with the steps and the add-page link, then settled by the next league
  read (done ✅ / player taken ⚠️) in the card and the audit;
- Discord (real discord.py over the fake REST server): the select menu with the plan's pick as
  default, a choice from it, Approve the rest, the decided card;
- Slack (real slack-bolt over the fake Web API): the static_select with initial_option, a
  choice from it, Skip the rest, the decided card.
"""

from __future__ import annotations

import io
import json
from datetime import date, datetime, time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bot.console.adapter import ConsoleSurface
from bot.core.app import FanViseApp
from bot.core.buttons import parse_custom_id
from bot.core.handoff import reconcile
from bot.core.models import ThreadRef, UserRef
from bot.core.render import plan_spots
from bot.settings import Settings
from fantasy.constants import SLOT_IR
from fantasy.formatting import day_text_of
from tests.bot.harness import discord_events as ev
from tests.bot.harness import fake_discord as fd
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.servers import wait_for

USER = UserRef("console", "ann", "Ann", is_admin=True)
THREAD = ThreadRef("console", "local", "console", "s1")


async def _open(data_dir: Path) -> FanViseApp:
    return await FanViseApp.open(Settings(_env_file=None, data_dir=data_dir,
                                          llm_per_minute=600, llm_burst=50))


def _choice(surface: ConsoleSurface, label: str) -> str:
    hits = [c for c in surface.choices.values() if c.label == label]
    assert hits, f"no choice {label!r}: {[c.label for c in surface.choices.values()]}"
    return hits[-1].custom_id


async def _console_card(app: FanViseApp) -> tuple[ConsoleSurface, io.StringIO, Any]:
    out = io.StringIO()
    surface = ConsoleSurface(out, live=False)
    await app.core.handle_message(surface, THREAD, USER, "Review my matchup")
    row = (await app.app_db.pending_cards(THREAD.conversation_id))[0]
    return surface, out, row


async def _click(app: FanViseApp, surface: ConsoleSurface, custom_id: str, row: Any) -> None:
    await app.core.handle_click(surface, THREAD, USER, custom_id, row.message_id or "")


async def test_console_card_states_and_a_partial_decision(tmp_path: Path) -> None:
    app = await _open(tmp_path)
    demo = app.espn.demo
    try:
        surface, out, row = await _console_card(app)
        text = out.getvalue()
        spots = plan_spots(row.moves)
        assert len(spots) == 5
        plan = [row.moves[p] for p, _ in spots]
        assert f"1. {plan[0]['line']}" in text and plan[0]["line"].startswith("Wed: ")
        assert plan[0]["per_game"] in text
        assert "doing nothing" in text and "the best single move alone" in text
        assert "[1] Approve #1" in text and "Approve plan" in text and "Skip all" in text
        assert f"{plan[0]['add']['name']} (plan's pick) (preselected)" in text
        # move 1: approve; move 2: another player from its menu; move 3: skip
        await _click(app, surface, _choice(surface, "Approve #1"), row)
        p2, alts2 = spots[1]
        alt = row.moves[alts2[0]]
        pick = next(c.custom_id for c in surface.choices.values()
                    if parse_custom_id(c.custom_id).action == "pick"
                    and parse_custom_id(c.custom_id).value == alts2[0])
        await _click(app, surface, pick, row)
        # the menu only chose the player: #2 is still open, Approve #2 / Skip #2 stay
        chosen = out.getvalue().split("(updated)")[-1]
        assert "not approved yet" in chosen and "Approve #2" in chosen and "Skip #2" in chosen
        assert (await app.app_db.get_card(row.card_id)).decisions.get(str(p2)) is None
        await _click(app, surface, _choice(surface, "Approve #2"), row)
        await _click(app, surface, _choice(surface, "Skip #3"), row)
        shown = out.getvalue().split("(updated)")[-1]
        assert "👍 1. Wed: " in shown and "👍 2. " in shown
        assert alt["add"]["name"] in shown.split("👍 2. ")[1].split("\n")[0]
        assert f"Your choice instead of {plan[1]['add']['name']}." in shown
        assert "⏭️ 3." in shown and "Approve the rest" in shown
        # another team claims the player of move 4 before the rest is approved
        p4 = plan[3]
        other = next(t for t in demo.team_ids() if t != row.team_id)
        demo.apply_move(other, sorted(demo.roster_now(other))[0], int(p4["add"]["id"]))
        await _click(app, surface, _choice(surface, "Approve the rest"), row)
        decided = out.getvalue().split("(updated)")[-1]
        # today's moves are made now; the later ones are scheduled for their day
        assert "✅ 1." in decided and "✅ 2." in decided and "⏭️ 3." in decided
        assert f"🗓️ 4. {p4['line'][:3]}" in decided and "🗓️ 5." in decided
        assert "Decided by Ann: 2 applied, 2 scheduled, 1 skipped by you" in decided
        roster = set(demo.roster_now(row.team_id))
        assert int(alt["add"]["id"]) in roster and int(plan[0]["add"]["id"]) in roster
        # moves are scheduled: no new plan is made over them
        assert "The rest of your plan" not in out.getvalue()
        assert await app.app_db.pending_cards(THREAD.conversation_id) == []
        # on its day the claimed pickup is not made: the card says why
        await app.core.handle_command(surface, THREAD, USER, "advance",
                                      {"text": str(p4["day"])})
        decided = out.getvalue().split("(updated)")[-1]
        assert "⚠️ 4. " in decided
        assert f"Not possible: {p4['add']['name']} was claimed by " \
               f"{demo.team_name(other)}." in decided
        audit = await app.app_db.audit_rows(row.card_id)
        results = {(a["move_id"], a["result"]) for a in audit}
        assert (p4["move_id"], "scheduled:not_possible") in results
        assert (plan[0]["move_id"], "applied") in results
    finally:
        await app.close()


async def test_skipping_a_chain_move_skips_the_moves_that_need_it(tmp_path: Path) -> None:
    """A streaming chain (Thu: drop A, add X; Sun: drop X, add Z): skipping the Thursday
    move skips the Sunday one at once (it cannot happen), so nothing on the card can be
    approved that cannot be made. (The demo's season-aware plan has no chain today: the card
    is built from one with the real MoveCard.)"""
    from fantasy.move_card import CardMove, MoveCard
    from fantasy.moves import PlayerRef, move_id
    from storage.app_db import CardRow, new_card_id

    app = await _open(tmp_path)
    demo = app.espn.demo
    try:
        out = io.StringIO()
        surface = ConsoleSurface(out, live=False)
        roster = [p for p, s in demo.roster_now(1).items() if s != SLOT_IR]
        free = [int(p) for p in demo.base["players"] if demo.owner_of(int(p)) == 0][:4]
        ref = {pid: PlayerRef(id=pid, name=demo.player_name(pid)) for pid in roster + free}
        thu, sun = date(2023, 1, 26), date(2023, 1, 29)
        rows = ((thu, roster[0], free[0]), (thu, roster[1], free[1]), (sun, free[0], free[2]))
        moves = [CardMove(move_id=move_id(d, a, b), drop=ref[a], add=ref[b], day=d,
                          line=f"{d:%a}: drop {ref[a].name}, add {ref[b].name}")
                 for d, a, b in rows]
        card = CardRow(card_id=new_card_id(), run_thread_id="r", interrupt_id="i",
                       conversation_id=THREAD.conversation_id, platform="console",
                       workspace_id="local", channel_id="console", thread_id="s1",
                       message_id=None, requester_id="ann", requester_name="Ann", team_id=1,
                       title="Plan", summary="", moves=MoveCard(moves=moves).move_dicts(),
                       decisions={}, status="pending", shown=False)
        await app.app_db.create_card(card)
        await app.core.approvals.show_card(surface, THREAD, card)
        card = await app.app_db.get_card(card.card_id)
        x = ref[free[0]].name
        await _click(app, surface, _choice(surface, "Skip #1"), card)
        shown = out.getvalue().split("(updated)")[-1]
        assert f"⏭️ 3. Sun: drop {x}" in shown
        assert f"Skipped with #1: without #1's pick, {x} is not on your roster" in shown
        assert "Approve #3" not in shown.split("Type a number")[-1]
        row = await app.app_db.get_card(card.card_id)
        assert row.decisions["2"] == "decline"
        audit = {(a["move_index"], a["result"]) for a in await app.app_db.audit_rows(
            card.card_id)}
        assert (2, "auto-declined: needs #1") in audit
    finally:
        await app.close()


async def test_console_skip_all_and_approve_plan(tmp_path: Path) -> None:
    app = await _open(tmp_path / "a")
    try:
        surface, out, row = await _console_card(app)
        before = set(app.espn.demo.roster_now(row.team_id))
        await _click(app, surface, _choice(surface, "Skip all"), row)
        text = out.getvalue()
        assert "Decided by Ann: 5 skipped by you" in text and "✅" not in text
        assert "You skipped all 5 moves of the plan" in text
        assert set(app.espn.demo.roster_now(row.team_id)) == before
    finally:
        await app.close()
    app = await _open(tmp_path / "b")
    try:
        surface, out, row = await _console_card(app)
        today = app.espn.demo.today.isoformat()
        plan = [row.moves[p] for p, _ in plan_spots(row.moves)]
        now = [m for m in plan if m["day"] == today]
        await _click(app, surface, _choice(surface, "Approve plan"), row)
        text = out.getvalue()
        assert f"Decided by Ann: {len(now)} applied, {5 - len(now)} scheduled" in text
        decided = text.split("(updated)")[-1]
        assert decided.count("✅ ") == len(now) and "The rest of your plan" not in text
        changes = [c for c in app.espn.demo.changes if c.kind == "move"]
        assert len(changes) == len(now)  # the plan's picks of today, none of the others
    finally:
        await app.close()


async def test_live_league_handoff_waits_then_the_next_read_settles_it(tmp_path: Path,
                                                                        monkeypatch) -> None:
    import agents.shared.deps as deps_module
    import fantasy.schedule as schedule_module
    from fantasy.schedule import EASTERN

    app = await _open(tmp_path)
    demo = app.espn.demo
    app.espn.demo = None  # a live ESPN league: FanVise does not write (the transport serves)
    monkeypatch.setattr(deps_module, "today_eastern", lambda: demo.today)
    monkeypatch.setattr(schedule_module, "today_eastern", lambda: demo.today)
    try:
        surface, out, row = await _console_card(app)
        spots = plan_spots(row.moves)
        m1, m3 = row.moves[spots[0][0]], row.moves[spots[2][0]]
        assert m1["day"] == demo.today.isoformat() and m3["day"] > m1["day"]
        await _click(app, surface, _choice(surface, "Approve #1"), row)
        await _click(app, surface, _choice(surface, "Approve #3"), row)
        await _click(app, surface, _choice(surface, "Skip the rest"), row)
        text = out.getvalue()
        a1, d1 = m1["add"]["name"], m1["drop"]["name"]
        assert f"⏳ 1. {m1['line'].split(':')[0]}" in text
        assert f"Waiting for ESPN: Open the link to {a1}'s add page in your ESPN " \
               f"league on {day_text_of(m1['day'])}." in text
        assert f"Choose {d1} to drop, then Submit." in text
        assert f"Add {a1} on ESPN: https://fantasy.espn.com/basketball/players/add?" \
               f"leagueId={app.espn.league_id}&playerId={m1['add']['id']}" in text
        assert "🗓️ 3." in text  # the later move waits for its day
        assert "1 scheduled, 1 waiting for ESPN, 3 skipped by you" in text
        assert demo.changes == []  # FanVise wrote nothing
        assert "The rest of your plan" not in text  # live: wait for ESPN before re-planning
        # on ESPN the member makes move 1; another team claims move 3's player
        demo.apply_move(row.team_id, int(m1["drop"]["id"]), int(m1["add"]["id"]))
        other = next(t for t in demo.team_ids() if t != row.team_id)
        demo.apply_move(other, sorted(demo.roster_now(other))[0], int(m3["add"]["id"]))
        await app.espn.invalidate_cache()  # the next league read sees ESPN as it is now
        await app.core.handle_message(surface, THREAD, USER, "who should I start today?")
        card = await app.app_db.get_card(row.card_id)
        outs = card.result["outcomes"]
        oc1 = next(v for k, v in outs.items() if m1["move_id"] in (k, v.get("move_id")))
        assert oc1["status"] == "applied"
        text = out.getvalue()
        assert "✅ 1. " in text.split("(updated)")[-1]
        audit = {a["result"] for a in await app.app_db.audit_rows(row.card_id)}
        assert "espn:done" in audit
        # move 3's day: its player was claimed meanwhile, so it is not handed off
        day = date.fromisoformat(m3["day"])
        demo.advance_to(day)  # the live league's clock: ESPN's current scoring period
        monkeypatch.setattr(schedule_module, "today_eastern", lambda: day)
        monkeypatch.setattr(deps_module, "today_eastern", lambda: day)
        await app.espn.invalidate_cache()
        await app.core.moves.run_due({"console": surface},
                                     now=datetime.combine(day, time(9, 0), tzinfo=EASTERN))
        text = out.getvalue().split("(updated)")[-1]
        assert f"Not possible: {m3['add']['name']} was claimed by " \
               f"{demo.team_name(other)}." in text
        assert "1 applied" in text and "1 not possible" in text
    finally:
        app.espn.demo = demo
        await app.close()


def _entry(player_id: int, slot: int = 12) -> Any:
    """A roster entry as the league model has it: the player and his lineup slot (bench)."""
    return type("E", (), {"player": type("P", (), {"id": player_id})(),
                          "lineup_slot_id": slot})()


def test_reconcile_still_pending_changes_nothing() -> None:
    class _T:
        def __init__(self, tid, ids):
            self.id, self.name = tid, f"T{tid}"
            self.roster = [_entry(i) for i in ids]

    class _L:
        teams = [_T(1, [10, 11]), _T(2, [20])]

        def team(self, tid):
            return next(t for t in self.teams if t.id == tid)

        def team_of_player(self, pid):
            return next((t for t in self.teams if pid in [e.player.id for e in t.roster]),
                        None)

    move = {"move_id": "d:10-30", "drop": {"id": 10, "name": "A"},
            "add": {"id": 30, "name": "B"}, "line": "x"}
    card = type("C", (), {"card_id": "c", "team_id": 1, "moves": [move],
                          "result": {"outcomes": {"d:10-30": {"status": "waiting"}}}})()
    outcomes, changes = reconcile(_L(), card)
    assert changes == [] and outcomes["d:10-30"]["status"] == "waiting"
    _L.teams[1].roster.append(_entry(30))
    outcomes, changes = reconcile(_L(), card)
    assert [c.result for c in changes] == ["taken"] and "claimed by T2" in changes[0].note


# ---------------------------------------------------------------------- Discord


async def test_discord_select_menu_choice_and_decided_card(fake_discord, tmp_path: Path
                                                           ) -> None:
    from tests.bot.test_discord_e2e import REQUESTER, buttons, card_message, open_bot

    app, bot = await open_bot(tmp_path)
    try:
        ev.send(bot, fake_discord, ev.slash("optimize", REQUESTER))
        thread_id = (await wait_for(lambda: list(fake_discord.threads)))[0]
        card = await wait_for(lambda: card_message(fake_discord, thread_id))
        selects = [c for c in buttons(card) if c["type"] == 3]
        assert selects, "the plan card has a select menu"
        menu = selects[0]
        assert menu["custom_id"].startswith("fv:pick:")
        assert [o.get("default", False) for o in menu["options"]][0] is True
        assert "(plan's pick)" in menu["options"][0]["label"]
        # Components V2: every spot has its own menu (not only the first rows' spots)
        assert len(selects) == len([c for c in buttons(card) if c.get("label", "")
                                    .startswith("Approve #")])
        text = fd.message_text(card)
        # Discord has no confirmation dialog: the card itself says what each control does
        assert "A menu only chooses the player for its move" in text
        assert "nothing is made until every move is decided" in text
        assert "**1. Wed: drop Gordon Hayward" in text
        # choose the first alternative from the menu
        thread = fd.thread_channel(thread_id, "optimize")
        choice = ev.click(menu["custom_id"], REQUESTER, card, thread)
        choice["data"] = {"custom_id": menu["custom_id"], "component_type": 3,
                          "values": [menu["options"][1]["value"]]}
        ev.send(bot, fake_discord, choice)
        mid = int(card["id"])
        await wait_for(lambda: "Your choice instead of" in fd.message_text(
            fake_discord.messages[mid]))
        now = fake_discord.messages[mid]
        # a choice never approves: the menu (now on the chosen player), Approve #1 and
        # Skip #1 stay; the card is still the whole plan to decide
        assert "(not approved yet)" in fd.message_text(now)
        menu_now = next(c for c in buttons(now) if c.get("custom_id") == menu["custom_id"])
        assert [o["value"] for o in menu_now["options"] if o.get("default")] == \
            [menu["options"][1]["value"]]
        live = {c.get("label"): not c.get("disabled") for c in buttons(now) if c["type"] == 2}
        assert live["Approve #1"] and live["Skip #1"] and live["Approve plan"]
        approve_plan = next(c["custom_id"] for c in buttons(now)
                            if c.get("label") == "Approve plan")
        ev.send(bot, fake_discord, ev.click(approve_plan, REQUESTER, now, thread))
        footer = await wait_for(lambda: next((
            t for t in fd.message_text(fake_discord.messages[mid]).splitlines()
            if t.startswith("-# Decided by")), None))
        done = fake_discord.messages[mid]
        assert "applied" in footer
        assert all(c.get("disabled") for c in buttons(done) if c["type"] == 2)
        assert not [c for c in buttons(done) if c["type"] == 3]
        moves = [c["content"] for c in done["components"][-1]["components"]
                 if c["type"] == 10 and c["content"].startswith("**")]
        assert moves[0].startswith("**✅ 1. Wed: drop Gordon Hayward")
        chosen = moves[0]
        pick_name = menu["options"][0]["label"].removesuffix(" (plan's pick)")
        assert f"Your choice instead of {pick_name}." in chosen and "Applied." in chosen
    finally:
        await bot.close()
        await app.close()


# ---------------------------------------------------------------------- Slack


def _select_body(action_id: str, value: str, *, clicker: str, message_ts: str,
                 thread_ts: str) -> str:
    payload = json.loads(__import__("urllib.parse").parse.unquote(
        sr.block_action_body(action_id, clicker=clicker, message_ts=message_ts,
                             thread_ts=thread_ts).removeprefix("payload=")))
    payload["actions"] = [{"type": "static_select", "action_id": action_id, "block_id": "b2",
                           "selected_option": {"text": {"type": "plain_text", "text": "x"},
                                               "value": value},
                           "action_ts": "1700000002.0"}]
    return "payload=" + quote(json.dumps(payload))


async def test_slack_static_select_choice_and_decided_card(fake_slack, tmp_path: Path) -> None:
    from tests.bot.test_slack_e2e import actions, card_ts, context_text, start

    run = await start(fake_slack, tmp_path)
    try:
        assert await run.post(sr.slash_body("optimize")) == 200
        ts = await wait_for(lambda: card_ts(fake_slack))
        root_ts = fake_slack.messages[ts]["thread_ts"]
        menus = [a for a in actions(fake_slack.messages[ts]) if a["type"] == "static_select"]
        assert menus and menus[0]["initial_option"]["text"]["text"].endswith("(plan's pick)")
        menu = menus[0]
        alt = menu["options"][1]
        assert await run.post(_select_body(menu["action_id"], alt["value"], clicker="U_REQ",
                                           message_ts=ts, thread_ts=root_ts)) == 200
        await wait_for(lambda: "Your choice instead of" in str(fake_slack.messages[ts]["blocks"]))
        # a choice never approves: the menu stays (on the chosen player) with Approve #1 /
        # Skip #1; Approve #1's dialog says it only marks the move
        now = actions(fake_slack.messages[ts])
        menu_now = next(a for a in now if a["action_id"] == menu["action_id"])
        assert menu_now["initial_option"]["value"] == alt["value"]
        approve1 = next(a for a in now if a.get("text", {}).get("text") == "Approve #1")
        dialog = approve1["confirm"]["text"]["text"]
        assert dialog.startswith("Marks #1") and "nothing is made until" in dialog
        assert any(a.get("text", {}).get("text") == "Skip #1" for a in now)
        assert await run.post(sr.block_action_body(approve1["action_id"], clicker="U_REQ",
                                                   message_ts=ts, thread_ts=root_ts)) == 200
        await wait_for(lambda: "Approve the rest" in str(fake_slack.messages[ts]["blocks"]))
        skip_rest = next(a["action_id"] for a in actions(fake_slack.messages[ts])
                         if a["action_id"].startswith("fv:declineall:"))
        assert await run.post(sr.block_action_body(skip_rest, clicker="U_REQ", message_ts=ts,
                                                   thread_ts=root_ts)) == 200
        msg = await wait_for(lambda: (not actions(fake_slack.messages[ts])
                                      and "Decided by" in context_text(fake_slack.messages[ts])
                                      and fake_slack.messages[ts]))
        assert "Decided by <@U_REQ>: 1 applied, 4 skipped by you" in context_text(msg)
        blocks = str(msg["blocks"])
        assert "✅ 1. Wed: drop Gordon Hayward" in blocks and blocks.count("✅") == 1
        moves = [c for c in run.app.espn.demo.changes if c.kind == "move"]
        assert len(moves) == 1
    finally:
        await run.close()



async def test_ranked_card_never_approves_two_alternatives(tmp_path: Path) -> None:
    """A points league asked for blocks gets moves ranked by BLK that all add the same
    player: no "Approve all" is offered, and even a forged approve-all click approves only
    the best of the alternatives; the card counts what happened, with units."""
    from bot.core.buttons import make_custom_id
    from bot.core.render import conflicts

    app = await _open(tmp_path)
    try:
        out = io.StringIO()
        surface = ConsoleSurface(out, live=False)
        await app.core.handle_message(surface, THREAD, USER, "stream me some blocks this week")
        row = (await app.app_db.pending_cards(THREAD.conversation_id))[0]
        assert len(row.moves) >= 2 and conflicts(row.moves[0], row.moves[1])
        text = out.getvalue()
        assert "Approve all" not in text and "Decline all" in text
        assert "BLK score over the rest of the matchup" in text
        before = set(app.espn.demo.roster_now(row.team_id))
        await _click(app, surface, make_custom_id("approveall", row.card_id), row)
        after = set(app.espn.demo.roster_now(row.team_id))
        assert len(after - before) == 1 and len(before - after) == 1
        card = await app.app_db.get_card(row.card_id)
        assert card.decisions["0"] == "approve"
        assert all(card.decisions[str(i)] == "decline" for i in range(1, len(row.moves))
                   if conflicts(row.moves[0], row.moves[i]))
        decided = out.getvalue().split("(updated)")[-1]
        assert "Decided by Ann: 1 applied" in decided and "conflicts" not in decided
    finally:
        await app.close()
