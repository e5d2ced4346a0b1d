"""A whole bot process (FanViseApp: real ChatCore, runtime, matchup optimizer graph, SQLite,
demo league) for the crash tests, with a chat surface that prints every post / edit /
private reply as a JSON line (flushed), so the parent can rebuild the chat after SIGKILLs.

    ops: link:USER:TEAM | optimize:USER | ask:USER:TEXT | click:USER:ACTION[:INDEX] | recover
         | roster:TEAM | cards (every card row: id, status, decisions, audit results)
         | delete-card (a member deletes the newest card's message: editing it raises
           MessageGone from then on, in every process)
         | digest (channel C1's daily post, for Alice's team 1) | rule-out:TEAM (a starter
           of TEAM who plays today is ruled out, in this process) | prelock (the pre-lock
           re-check of C1) | prelock-click:USER (a tap on the newest fix button)
         | prelock-rows (the alerts' ledger rows and fix buttons)
         | daily (a pass of the daily scheduler, C1's digest due a minute ago: the ledger
           claim, the post, its id) | daily-rows (C1's digest ledger rows and fix buttons)
         | lineup:USER (`/lineup`) | fix-click:USER:lineup|digest|alert (a tap on the newest
           "Set this lineup" of `/lineup`'s card, the digest or the pre-lock alert)
         | lineup-writes (the demo's lineup changes, the write journal, the fix rows)
         | writes (the app DB's `espn_writes` journal) | demo-log (the transactions the
           demo's endpoint accepted) | advance:N (`/advance N` by Alice)

`$FANVISE_CRASH_AT` (storage.crashpoint) makes the process SIGKILL itself at a named point.
Users are Discord users of guild G1 (ids as given); the conversation thread is T1, or a
new thread per `optimize`/`ask` posted as a root message in channel C1. Message ids are
`<pid>-<n>`, unique across processes. `click` uses the newest card of the app DB.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bot.core.app import FanViseApp
from bot.core.digest import league_optimizer
from bot.core.errors import MessageGone
from bot.core.models import OutgoingMessage, ThreadRef, UserRef
from bot.settings import Settings
from fantasy.constants import OUT_STATUSES, STARTING_SLOTS
from storage.app_db import DailySchedule
from tests.bot.harness.links import link

CHANNEL = ThreadRef("discord", "G1", "C1", "")
#: channel C1's daily post (the digest the pre-lock alert compares with)
SCHEDULE = DailySchedule("discord:G1:C1", "discord", "G1", "C1", "09:30", "America/New_York",
                         None)
NAMES = {"100": "Alice", "200": "Bob", "666": "Eve"}


def emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, default=str) + "\n")
    sys.stdout.flush()


class PrintingSurface:
    """A ChatSurface that prints what it does; every message is in channel C1 threads.
    Like a chat platform, it keeps the messages posted (`history`, a JSON-lines file in the
    data dir, written before `post` returns) across the processes, for `find_messages`."""

    max_text = 2000

    def __init__(self, history: Path | None = None) -> None:
        self.n = 0
        self.history = history

    def deleted(self) -> set[str]:
        """Ids of the messages members deleted (kept next to the history)."""
        path = self.history.with_suffix(".deleted") if self.history is not None else None
        if path is None or not path.exists():
            return set()
        return set(path.read_text().split())

    def delete_by_member(self, message_id: str) -> None:
        """A member deletes a message: later edits of it raise MessageGone."""
        assert self.history is not None
        with self.history.with_suffix(".deleted").open("a", encoding="utf-8") as fh:
            fh.write(message_id + "\n")
        emit({"kind": "delete", "mid": message_id})

    async def post(self, thread: ThreadRef, msg: OutgoingMessage) -> str:
        self.n += 1
        mid = f"{os.getpid()}-{self.n}"
        emit({"kind": "post", "mid": mid, "thread": thread.thread_id, "msg": asdict(msg)})
        if self.history is not None:
            with self.history.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps({"mid": mid, "thread": thread.thread_id,
                                     "text": msg.text, "at": time.time()}) + "\n")
        return mid

    async def find_messages(self, thread: ThreadRef, msg: OutgoingMessage,
                            since: float) -> list[str]:
        """This bot's messages in `thread` posted since `since` with `msg`'s text, newest
        first (what a platform's history answers)."""
        if self.history is None or not self.history.exists():
            return []
        rows = [json.loads(line) for line in self.history.read_text().splitlines() if line]
        gone = self.deleted()
        return [r["mid"] for r in reversed(rows) if r["thread"] == thread.thread_id
                and r["text"] == msg.text and r["at"] >= since - 1.0 and r["mid"] not in gone]

    async def edit(self, thread: ThreadRef, message_id: str, msg: OutgoingMessage) -> None:
        if message_id in self.deleted():
            raise MessageGone("deleted by a member")
        emit({"kind": "edit", "mid": message_id, "thread": thread.thread_id, "msg": asdict(msg)})

    async def ephemeral(self, thread: ThreadRef, user: UserRef, text: str) -> None:
        emit({"kind": "ephemeral", "user": user.user_id, "text": text})

    async def delete_message(self, thread: ThreadRef, message_id: str) -> bool:
        emit({"kind": "delete", "mid": message_id})
        return True


async def rule_out(app: FanViseApp, team_id: int) -> str:
    """Rule out a starter of `team_id` who plays today (as an injury report would, in
    this process's demo league); returns his name."""
    return (await rule_out_player(app, team_id))[0]


async def rule_out_player(app: FanViseApp, team_id: int, player_id: int | None = None
                          ) -> tuple[str, int]:
    """Rule out a starter of `team_id` who plays today (or `player_id`), as an injury
    report would, in this process's demo league; returns his name and id."""
    opt = await league_optimizer(app.espn, team_id)
    playing = opt.schedule.teams_playing_on(opt.today)
    entry = next(e for e in opt.league.team(team_id).roster
                 if e.player.id == player_id or player_id is None and (
                     e.lineup_slot_id in STARTING_SLOTS and e.player.pro_team_id in playing
                     and e.player.injury_status not in OUT_STATUSES))
    demo = app.espn.demo
    players = dict(demo.base["players"])
    pid = str(entry.player.id)
    players[pid] = {**players[pid], "injuries": [[demo.today_sp, demo.today_sp, "OUT"],
                                                 *players[pid]["injuries"]]}
    demo.base = {**demo.base, "players": players}
    demo._player_objs.clear()
    await app.espn.invalidate_cache()
    return entry.player.name, entry.player.id


def user(uid: str) -> UserRef:
    return UserRef("discord", uid, NAMES.get(uid, uid))


async def open_app(data_dir: Path) -> FanViseApp:
    settings = Settings(data_dir=data_dir, secret_key="test passphrase", llm_per_minute=1e6,
                        llm_burst=1e6, slack_updates_per_minute=1e6)
    app = await FanViseApp.open(settings, edit_interval=0.0)
    if await app.core.db.get_link("discord", CHANNEL.workspace_id, "100") is None:
        # Alice's team unless a test linked her to another (test_crash_sweep: team 5): a
        # relink in every process would hand her card to team 1's owner after a restart
        await link(app.core, "discord", CHANNEL.workspace_id, "100", 1)
    return app


async def run_op(app: FanViseApp, surface: PrintingSurface, op: str) -> None:
    name, _, rest = op.partition(":")
    core = app.core
    if name == "link":
        uid, team = rest.split(":")
        await core.handle_command(surface, CHANNEL, user(uid), "link", {"text": f"team={team}"})
    elif name == "optimize":
        await core.handle_command(surface, CHANNEL, user(rest), "optimize", {})
    elif name == "ask":
        uid, _, text = rest.partition(":")
        await core.handle_message(surface, CHANNEL, user(uid), text, message_id="user-msg")
    elif name == "click":
        uid, _, action = rest.partition(":")  # "approve" / "declineall" / "approve:0"
        verb, _, index = action.partition(":")
        row = await app.app_db.fetchone("SELECT card_id, message_id, thread_id FROM cards "
                                        "ORDER BY created_at DESC LIMIT 1")
        thread = CHANNEL.in_thread(row["thread_id"])
        cid = f"fv:{verb}:{row['card_id']}" + (f":{index}" if index else "")
        await core.handle_click(surface, thread, user(uid), cid, row["message_id"] or "")
    elif name == "click-own":  # click-own:USER:ACTION: on the newest card USER asked for
        uid, _, action = rest.partition(":")
        row = await app.app_db.fetchone("SELECT card_id, message_id, thread_id FROM cards "
                                        "WHERE requester_id=? ORDER BY created_at DESC LIMIT 1",
                                        (uid,))
        await core.handle_click(surface, CHANNEL.in_thread(row["thread_id"]), user(uid),
                                f"fv:{action}:{row['card_id']}", row["message_id"] or "")
    elif name == "cards":
        for row in await app.app_db.fetchall("SELECT card_id FROM cards ORDER BY created_at"):
            card = await app.app_db.get_card(row["card_id"])
            audit = await app.app_db.audit_rows(card.card_id)
            emit({"kind": "card", "card_id": card.card_id, "status": card.status,
                  "title": card.title, "decisions": card.decisions,
                  "audit": [[a["move_index"], a["result"]] for a in audit]})
    elif name == "delete-card":
        row = await app.app_db.fetchone("SELECT message_id FROM cards "
                                        "ORDER BY created_at DESC LIMIT 1")
        surface.delete_by_member(row["message_id"])
    elif name == "digest":
        await core.post_daily(surface, SCHEDULE)
    elif name == "rule-out":
        team, _, pid = rest.partition(":")  # rule-out:TEAM[:PLAYER ID]
        who, pid_out = await rule_out_player(app, int(team), int(pid) if pid else None)
        emit({"kind": "ruled-out", "name": who, "id": pid_out})
    elif name == "prelock":
        emit({"kind": "prelock", "sent": await core.prelock_check(surface, SCHEDULE)})
    elif name == "prelock-click":
        row = await app.app_db.fetchone("SELECT fix_id, message_id FROM prelock_fixes "
                                        "ORDER BY at DESC LIMIT 1")
        await core.handle_click(surface, CHANNEL, user(rest), f"fv:approve:{row['fix_id']}",
                                row["message_id"] or "")
    elif name == "lineup":
        await core.handle_command(surface, CHANNEL, user(rest), "lineup", {})
    elif name == "fix-click":  # fix-click:USER:lineup|digest|alert (its newest "today" fix)
        uid, _, where = rest.partition(":")
        on = {"lineup": "message_id IS NULL", "digest": "message_id = 'shared'",
              "alert": "message_id IS NOT NULL AND message_id <> 'shared'"}[where]
        row = await app.app_db.fetchone("SELECT fix_id, message_id FROM prelock_fixes WHERE "
                                        f"scope='today' AND {on} ORDER BY at DESC LIMIT 1")
        await core.handle_click(surface, CHANNEL, user(uid), f"fv:approve:{row['fix_id']}",
                                row["message_id"] or "")
    elif name == "lineup-writes":  # what the demo league holds: lineup changes, journal
        changes = [c.__dict__ for c in app.espn.demo.changes if c.kind == "lineup"]
        writes = [{"key": r.key, "status": r.status, "attempts": r.attempts}
                  for r in await app.app_db.writes()]
        fixes = await app.app_db.fetchall("SELECT fix_id, scope, message_id, status FROM "
                                          "prelock_fixes ORDER BY at")
        emit({"kind": "lineup-writes", "changes": changes, "writes": writes,
              "fixes": [dict(r) for r in fixes]})
    elif name == "prelock-rows":
        ledger = await app.app_db.fetchall(
            "SELECT channel_key, status, message_id FROM daily_posts WHERE channel_key "
            "LIKE 'prelock:%'")
        fixes = await app.app_db.fetchall("SELECT fix_id, message_id, status FROM "
                                          "prelock_fixes")
        emit({"kind": "prelock-rows", "ledger": [dict(r) for r in ledger],
              "fixes": [dict(r) for r in fixes]})
    elif name == "daily":
        from datetime import UTC, datetime, timedelta

        from bot.scheduler import DailyScheduler, fire_time_on
        await app.app_db.set_schedule(SCHEDULE)
        due = fire_time_on(SCHEDULE.hhmm, SCHEDULE.tz, datetime.now(UTC)) + timedelta(minutes=1)
        sched = DailyScheduler(app.app_db, lambda s: core.post_daily(surface, s),
                               platforms={"discord"}, now=lambda: due)
        await sched.reload()
        emit({"kind": "daily", "posted": await sched.run_due()})
    elif name == "daily-rows":
        ledger = await app.app_db.daily_posts(SCHEDULE.channel_key)
        fixes = await app.app_db.fetchall("SELECT fix_id, message_id, status FROM "
                                          "prelock_fixes")
        emit({"kind": "daily-rows", "ledger": [
            {"status": r["status"], "message_id": r["message_id"]} for r in ledger],
              "fixes": [dict(r) for r in fixes]})
    elif name == "writes":  # the journal: every write FanVise made (storage espn_writes)
        emit({"kind": "writes", "rows": [
            {"key": r.key, "kind": r.kind, "status": r.status, "sp": r.scoring_period,
             "summary": r.summary, "attempts": r.attempts, "items": r.body.get("items")}
            for r in await app.app_db.writes()]})
    elif name == "demo-log":  # the transactions the demo's endpoint accepted
        from fantasy.demo.transactions import writes_for
        emit({"kind": "demo-log", "txs": writes_for(app.espn.demo).transactions_response(
            None)["transactions"]})
    elif name == "advance":  # /advance N (the demo's date, the scheduler's moves of each day)
        await core.handle_command(surface, CHANNEL, user("100"), "advance", {"text": rest})
    elif name == "recover":
        await core.recover({"discord": surface})
    elif name == "roster":
        emit({"kind": "roster", "team": int(rest),
              "players": sorted(app.espn.demo.roster_now(int(rest)))})
    else:
        emit({"kind": "error", "text": f"unknown op {op}"})
    emit({"kind": "op-done", "op": op})


async def main(argv: list[str]) -> int:
    data_dir, ops = Path(argv[0]), argv[1:]
    app = await open_app(data_dir)
    try:
        surface = PrintingSurface(data_dir / "chat-history.jsonl")
        emit({"kind": "ready", "pid": os.getpid()})
        for op in ops:
            await run_op(app, surface, op)
        emit({"kind": "end"})
        return 0
    finally:
        await app.close()


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
