"""End-to-end through ChatCore with the REAL runtime (demo league, offline model, SQLite
checkpoints) and a recording ChatSurface (the platform adapters have their own fake-server
tests): message -> progress edits (<= 1/s) -> card with buttons -> stranger refused ->
requester resumes -> restart -> old card still works -> double click applies once; links
with encrypted cookies; long answers split at max_text; malformed commands explained.
Cards come from agents-workflows' real matchup optimizer graph through the runtime.
"""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet

from bot.core.app import FanViseApp
from bot.core.buttons import CUSTOM_ID_RE
from bot.core.models import OutgoingMessage, ThreadRef, UserRef
from bot.core.render import plan_spots
from bot.settings import Settings
from tests.bot.harness.links import link
from tests.reliability.test_gemini_faults import FakeGemini

REQ = UserRef("slack", "U_REQ", "Ann")
STRANGER = UserRef("slack", "U_X", "Stranger")
OWNER = UserRef("slack", "U_OWN", "Co-owner")
CHANNEL = ThreadRef("slack", "T1", "C1", "")
S2 = "AEB" + "x9Yz" * 30 + "%2F%3D"
SWID = "{11111111-2222-3333-4444-555555555555}"


class RecordingSurface:
    """An in-memory ChatSurface that records every call with a monotonic timestamp."""

    def __init__(self, max_text: int = 2000) -> None:
        self.max_text = max_text
        self.messages: dict[str, OutgoingMessage] = {}
        self.log: list[tuple[str, float, str, Any]] = []
        self.private: list[tuple[str, str]] = []
        self.n = 0

    async def post(self, thread: ThreadRef, msg: OutgoingMessage) -> str:
        assert len(msg.text) <= self.max_text
        self.n += 1
        mid = f"{time.time():.6f}.{self.n}"  # Slack-like ts
        self.messages[mid] = msg
        self.log.append(("post", time.monotonic(), mid, (thread, msg)))
        return mid

    async def edit(self, thread: ThreadRef, message_id: str, msg: OutgoingMessage) -> None:
        assert len(msg.text) <= self.max_text
        self.messages[message_id] = msg
        self.log.append(("edit", time.monotonic(), message_id, (thread, msg)))

    async def ephemeral(self, thread: ThreadRef, user: UserRef, text: str) -> None:
        self.private.append((user.user_id, text))

    def edits_of(self, mid: str) -> list[tuple[float, OutgoingMessage]]:
        return [(t, m[1]) for k, t, i, m in self.log if k == "edit" and i == mid]

    def card_messages(self) -> list[tuple[str, OutgoingMessage]]:
        return [(mid, m) for mid, m in self.messages.items()
                if m.cards and m.cards[0].buttons]


async def _open(data_dir: Path, key: str) -> FanViseApp:
    settings = Settings(data_dir=data_dir, secret_key=key, llm_per_minute=600, llm_burst=50)
    return await FanViseApp.open(settings)


def _button(msg: OutgoingMessage, label: str) -> str:
    for b in msg.cards[0].buttons:
        if b.label == label:
            return b.custom_id
    raise AssertionError(f"no button {label!r} in {[b.label for b in msg.cards[0].buttons]}")


def _roster(app: FanViseApp) -> set[int]:
    return set(app.espn.demo.roster_now(1))


# ------------------------------------------------------------------ the main flow

async def test_card_flow_refusal_restart_double_click(tmp_path: Path) -> None:
    key = Fernet.generate_key().decode()
    app = await _open(tmp_path, key)
    s1 = RecordingSurface()
    try:
        await link(app.core, "slack", "T1", "U_REQ", 1)  # Ann's team
        before = _roster(app)
        await app.core.handle_command(s1, CHANNEL, REQ, "optimize", {"text": ""})
        # a thread was started from a root message (Slack: thread_ts = root ts)
        kind, _, root_id, (thread, root) = s1.log[0]
        assert kind == "post" and thread.thread_id == "" and "Ann asked" in root.text
        _, _, progress_id, (pthread, first) = s1.log[1]
        assert pthread.thread_id == root_id and first.text.startswith("⏳")
        edits = s1.edits_of(progress_id)
        times = [t for t, _ in edits]
        assert edits, "the progress message was never edited"  # (a fast turn: the summary)
        # <= 1 progress edit/s; the final state (the summary line) goes out at once
        progress = times[:-1]
        assert all(b - a >= 0.99 for a, b in zip(progress, progress[1:], strict=False)), times
        if len(edits) >= 2:  # live progress lines when the turn outlasts an edit interval
            assert edits[0][1].text.startswith("✓ ") and "\n⏳ " in edits[0][1].text
        summary = edits[-1][1]
        assert summary.text.startswith("Plan ready: ") and not summary.cards, summary.text
        # the card is a new message (posted, which notifies, then drawn in place)
        card_mid, final = s1.card_messages()[-1]
        assert card_mid != progress_id and final.text.startswith("<@U_REQ>, review these")
        assert [k for k, _, i, _ in s1.log if i == card_mid] == ["post", "edit"]
        assert "Requested by <@U_REQ>" in final.cards[0].footer
        card = final.cards[0]
        row = (await app.app_db.pending_cards())[0]
        n = len(plan_spots(row.moves))
        assert n >= 2, "the demo league's plan has several moves"
        labels = [x for i in range(1, n + 1) for x in (f"Approve #{i}", f"Skip #{i}")]
        assert [b.label for b in card.buttons] == labels + ["Approve plan", "Skip all"]
        for b in card.buttons:
            assert CUSTOM_ID_RE.match(b.custom_id) and len(b.custom_id) < 100
        assert card.fields[0][0].startswith("1. Wed: drop ")
        assert card.selects and card.selects[0].options[0].default
        assert row.message_id == card_mid and row.requester_id == "U_REQ"

        # a stranger is refused, privately; nothing changes
        await app.core.handle_click(s1, pthread, STRANGER, _button(final, "Approve plan"),
                                    card_mid)
        assert s1.private[-1][0] == "U_X" and "Only Ann" in s1.private[-1][1]
        assert (await app.app_db.get_card(row.card_id)).status == "pending"

        # the requester declines move 1 (per-move): recorded, card still open
        await app.core.handle_click(s1, pthread, REQ, _button(final, "Skip #1"), card_mid)
        shown = s1.messages[card_mid].cards[0]
        assert shown.fields[0][0].startswith("⏭️")
        assert [b.disabled for b in shown.buttons] == [True, True] + [False] * (2 * n)
        assert shown.buttons[-2].label == "Approve the rest"
        assert len(shown.selects) == len(card.selects) - 1  # skipped: no menu
        assert _roster(app) == before
    finally:
        await app.close()

    # ---- restart: new runtime + core on the same data dir; the old card still works
    app = await _open(tmp_path, key)
    s2 = RecordingSurface()
    try:
        await app.core.handle_click(s2, pthread, REQ, _button(final, "Approve #2"), "ignored")
        # alternatives of move 2 (its choices) are declined with it; skip the rest
        await app.core.handle_click(s2, pthread, REQ, _button(final, "Skip all"), card_mid)
        after = s2.messages[card_mid].cards[0]
        # a mention on Slack (drawn as the member's name, never a raw handle)
        assert after.footer == f"Decided by <@{REQ.user_id}>: 1 applied, {n - 1} skipped by you"
        assert all(b.disabled for b in after.buttons) and not after.selects
        assert after.fields[0][0].startswith("⏭️") and after.fields[1][0].startswith("✅")
        assert sum(f[0].startswith("✅") for f in after.fields) == 1  # only the applied one
        moved = _roster(app)
        m1, m2 = row.moves[0], row.moves[1]
        # (a move to IR keeps the injured player, in the IR slot)
        assert (m2["drop"]["id"] not in moved or m2.get("drop_to_ir")) and \
            m2["add"]["id"] in moved
        if m1["add"]["id"] != m2["add"]["id"]:
            assert m1["add"]["id"] not in moved  # declined: not added
        answers = [m for mid, m in s2.messages.items() if mid != card_mid
                   and not m.text.startswith(("⏳", "✓"))]
        assert answers, "the run's answer is posted after the decision"

        # double click after the decision: clear notice, nothing applied again
        await app.core.handle_click(s2, pthread, REQ, _button(final, "Approve plan"),
                                    card_mid)
        assert "already decided" in s2.private[-1][1] and "<@U_REQ>" in s2.private[-1][1]
        assert _roster(app) == moved

        audit = await app.app_db.audit_rows(row.card_id)
        summary = [(a["user_id"], a["move_index"], a["decision"], a["result"]) for a in audit]
        assert ("U_X", None, "approve", "refused") in summary
        assert ("U_REQ", 0, "decline", "recorded") in summary
        assert ("U_REQ", 1, "approve", "recorded") in summary
        assert ("U_REQ", 1, "approve", "applied") in summary
        assert ("U_REQ", 0, "decline", "declined") in summary
        assert summary[-1] == ("U_REQ", None, "approve", "already-decided")
        assert all(a["at"] > 0 and a["user_name"] for a in audit)
        assert any(a["move_label"].startswith("Drop ") for a in audit)
        # the partial decision re-planned the rest: a new card in the same thread
        rest = [m for mid, m in s2.card_messages() if mid != card_mid]
        assert rest and rest[-1].cards[0].title.startswith("The rest of your plan")

        # ---- a co-owner of team 1 cannot take the team Ann linked by himself; an admin
        # links him (without cookies: those are each member's own); then he may decide; two
        # simultaneous clicks apply once
        await app.core.handle_command(s2, CHANNEL, OWNER, "link", {"team_id": 1})
        assert "already linked to another member" in s2.private[-1][1]
        assert (await app.app_db.get_link("slack", CHANNEL.workspace_id, "U_OWN")) is None
        admin = UserRef("slack", "U_ADM", "Admin", is_admin=True)
        await app.core.handle_command(s2, CHANNEL, admin, "link",
                                      {"member": "<@U_OWN>", "team_id": 1, "espn_s2": S2,
                                       "swid": SWID})
        assert "each member's own" in s2.private[-1][1]
        await app.core.handle_command(s2, CHANNEL, admin, "link",
                                      {"member": "<@U_OWN>", "team_id": 1})
        reply = s2.private[-1][1]
        assert "Hoop Dreamers" in reply, reply
        assert (await app.app_db.get_link("slack", CHANNEL.workspace_id, "U_OWN")).team_id == 1
        assert S2 not in reply and SWID not in reply
        changes_before = len(app.espn.demo.changes)
        await app.core.handle_message(s2, pthread, REQ, "Review my matchup this week")
        new_mid, new_msg = s2.card_messages()[-1]
        assert new_mid != card_mid
        cid = _button(new_msg, "Approve plan")
        await asyncio.gather(
            app.core.handle_click(s2, pthread, OWNER, cid, new_mid),
            app.core.handle_click(s2, pthread, REQ, cid, new_mid))
        new_row = next(c for c in [await app.app_db.get_card(CUSTOM_ID_RE.match(cid)["card_id"])])
        assert new_row.status == "approved"
        rows = await app.app_db.audit_rows(new_row.card_id)
        assert sum(1 for a in rows if a["result"] == "already-decided") == 1
        # today's moves are made now (each once), the later ones are scheduled for their day
        today = app.espn.demo.today.isoformat()
        plan = [m for m in new_row.moves if not m.get("alternative_of")]
        now = [m for m in plan if m["day"] == today]
        assert now
        made = [c for c in app.espn.demo.changes[changes_before:] if c.kind == "move"]
        assert len(made) == len(now)  # each move once
        footer = s2.messages[new_mid].cards[0].footer
        assert footer.startswith("Decided by ") and f"{len(now)} applied" in footer
        assert len(await app.app_db.scheduled_moves(new_row.card_id)) == len(plan) - len(now)
    finally:
        await app.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.rglob("*.sqlite*") if p.is_file())
    assert S2.encode() not in raw and SWID.encode() not in raw


async def test_answers_split_and_bad_input_explained(tmp_path: Path) -> None:
    app = await _open(tmp_path, "")
    s = RecordingSurface(max_text=120)
    thread = ThreadRef("console", "local", "console", "t1")
    try:
        await app.core.handle_command(s, thread, REQ, "player", {"text": "Jarrett Allen"})
        texts = [m.text for m in s.messages.values()]
        assert len([t for t in texts if not t.startswith(("⏳", "✓"))]) >= 2
        assert all(len(t) <= 120 for t in texts)
        assert "Jarrett Allen" in " ".join(texts)
        report = [c for m in s.messages.values() for c in m.cards]
        assert report and report[-1].title == "Player report: Jarrett Allen"
        fields = dict(report[-1].fields)
        assert fields["Status"] and fields["Recommendation"] in (
            "Start", "Monitor", "Hold", "Stream", "Drop")  # words, not ESPN's codes
        assert not any(k == "post" and m[0].thread_id != "t1" for k, _, _, m in s.log)

        cases = [
            ("player", {"text": ""}, "Which player"),
            ("player", {"text": "Robert'); DROP TABLE--"}, "letters"),
            ("ask", {"text": ""}, "Ask me something"),
            ("ask", {"text": "x" * 2001}, "keep questions under"),
            ("lineup", {"text": "someday"}, "/lineup tomorrow"),
            ("lineup", {"day": "2030-01-01"}, "within two weeks"),
            ("link", {"text": "abc"}, 'No team matches "abc"'),
            ("link", {"team_id": 99}, "has no team 99"),
            ("link", {"team_id": 1, "espn_s2": S2}, "both espn_s2 and swid"),
            ("link", {"team_id": 1, "league_id": 5}, "serves ESPN league"),
            ("link", {"team_id": 1, "espn_s2": S2, "swid": SWID}, "FANVISE_SECRET_KEY"),
            ("frobnicate", {}, "Unknown command"),
        ]
        for name, args, expect in cases:
            await app.core.handle_command(s, thread, REQ, name, args)
            assert expect in s.private[-1][1], (name, args, s.private[-1])
            assert S2 not in s.private[-1][1]
        assert await app.app_db.get_link("slack", "local", "U_REQ") is None
        await app.core.handle_command(s, thread, REQ, "help", {})
        assert "/daily" in s.private[-1][1]
        n = len(s.messages)
        await app.core.handle_command(s, thread, REQ, "lineup", {"text": "tomorrow"})
        lineup = list(s.messages.values())[n:]
        assert lineup[-1].cards[0].title.startswith("Daily lineup for Hoop Dreamers")
        assert "Thu Jan 26" in lineup[-1].cards[0].title  # fantasy.formatting.day_text
    finally:
        await app.close()


async def test_rate_limit_per_user(tmp_path: Path) -> None:
    """The model's rate limit (Gemini faked at the wire; an offline build limits nobody)."""
    settings = Settings(data_dir=tmp_path, llm_per_minute=1, llm_burst=1)
    gemini = FakeGemini(["Start your five best players today."] * 4)
    app = await FanViseApp.open(settings, model=gemini.model(retries=0))
    s = RecordingSurface()
    thread = ThreadRef("console", "local", "console", "t")
    try:
        await app.core.handle_message(s, thread, REQ, "who should I start today?")
        n = len(s.messages)
        await app.core.handle_message(s, thread, REQ, "who should I start tomorrow?")
        assert len(s.messages) == n
        assert re.search(r"try again in \d+ s", s.private[-1][1])
        await app.core.handle_message(s, thread, STRANGER, "who should I start today?")
        assert len(s.messages) > n  # another user has their own bucket
    finally:
        await app.close()


@pytest.mark.parametrize("line,expected", [
    ("/daily 09:30 America/New_York", ("daily", {"text": "09:30 America/New_York"})),
    ("help", ("help", {"text": ""})),
    ("help lineup", ("help", {"text": "lineup"})),
    ("help me find a center on waivers", None),
    ("Help me optimize this week", None),
    ("player of the week?", None),
    ("/fanvise link team=3", ("link", {"text": "team=3"})),
    ("who should I start?", None),
])
def test_parse_command_text(line: str, expected: Any) -> None:
    from bot.core.service import parse_command_text
    assert parse_command_text(line) == expected


async def test_restart_finishes_a_decision_recorded_before_a_crash(tmp_path: Path) -> None:
    """A crash between the click's claim (the decision, durable in the card row) and the
    runtime's resume leaves the card in `deciding`; `recover()` on start applies exactly
    that decision (issue 12, defect 2: it used to reopen the card and let a later Decline
    apply the earlier Approve all). A later click answers "already decided"."""
    app = await _open(tmp_path, "")
    s = RecordingSurface()
    try:
        await link(app.core, "slack", "T1", "U_REQ", 1)
        await app.core.handle_command(s, CHANNEL, REQ, "optimize", {"text": ""})
        mid, msg = s.card_messages()[-1]
        row = (await app.app_db.pending_cards())[0]
        before = _roster(app)
        all_approved = {str(i): "approve" for i in range(len(row.moves))}
        assert await app.app_db.claim_card(row.card_id, user_id="U_REQ", user_name="Ann",
                                           decisions=all_approved)
    finally:
        await app.close()  # "crash": the claim is stored, the run was never resumed
    app = await _open(tmp_path, "")
    s2 = RecordingSurface()
    try:
        await app.core.recover({"slack": s2})
        card = await app.app_db.get_card(row.card_id)
        assert card.status in ("approved", "partial")
        assert card.decisions == all_approved
        assert s2.messages[mid].cards[0].footer.startswith(f"Decided by <@{REQ.user_id}>: ")
        assert all(b.disabled or b.url for b in s2.messages[mid].cards[0].buttons)
        assert _roster(app) != before  # the recorded approval was applied
        after = _roster(app)
        await app.core.handle_click(s2, CHANNEL, REQ, _button(msg, "Skip all"), mid)
        assert "already decided" in s2.private[-1][1]
        assert (await app.app_db.get_card(row.card_id)).status == card.status
        assert _roster(app) == after
    finally:
        await app.close()


def test_thread_ref_conversation_ids_round_trip() -> None:
    for t in (ThreadRef("slack", "T1", "C1", "1700000000.0001"),
              ThreadRef("discord", "1", "2", "3"), ThreadRef("discord", "1", "2", ""),
              ThreadRef("console", "local", "console", "s1")):
        assert ThreadRef.from_conversation_id(t.conversation_id) == t
    assert ThreadRef.from_conversation_id("nonsense") is None


async def test_slack_edits_share_one_workspace_budget(tmp_path: Path) -> None:
    """Two conversations in one Slack workspace: their progress edits together stay within
    the workspace budget (here 1 edit/s); every turn still gets its final answer."""
    from bot.core.progress import WorkspaceBudget

    app = await _open(tmp_path, "")
    app.core.budget = WorkspaceBudget(per_minute=60, burst=1)
    s = RecordingSurface()
    try:
        threads = [ThreadRef("slack", "T1", "C1", "100.1"), ThreadRef("slack", "T1", "C2", "200.2")]
        users = [REQ, STRANGER]
        await asyncio.gather(*(app.core.handle_message(s, t, u, "who should I start today?")
                               for t, u in zip(threads, users, strict=True)))
        edits = sorted(t for k, t, _, _ in s.log if k == "edit")
        # each turn's final answer is an edit of its progress message, so at least two edits
        # compete for the one workspace token; how many progress edits happen before the
        # finals depends on the machine's speed, the spacing must hold regardless
        assert len(edits) >= 2
        assert all(b - a >= 0.98 for a, b in zip(edits, edits[1:], strict=False)), edits
        finals = [m for m in s.messages.values() if not m.text.startswith(("⏳", "✓"))]
        assert len(finals) == 2
    finally:
        await app.close()


async def test_stream_position_letter_is_the_position(tmp_path: Path) -> None:
    """`/stream C` (the /help example) streams centers, like `/stream center`; before, the
    bare letter was ignored and the card proposed guards."""
    settings = Settings(_env_file=None, data_dir=tmp_path, llm_per_minute=600, llm_burst=50)
    app = await FanViseApp.open(settings)
    try:
        await link(app.core, "slack", "T1", "U_REQ", 1)
        adds: dict[str, list[str]] = {}
        for what in ("C", "center", ""):
            s = RecordingSurface()
            await app.core.handle_command(s, ThreadRef("slack", "T1", "C1", f"t-{what}"), REQ,
                                          "stream", {"text": what})
            (_, card), = s.card_messages()
            adds[what] = re.findall(r"add ([A-Z][\w.' ]+?)(?=:| Expected|\n|$)",
                                    card.cards[0].text + " ".join(
                                        f"{k} {v}" for k, v in card.cards[0].fields), re.M)
        assert adds["C"] and adds["C"] == adds["center"] != adds[""]
    finally:
        await app.close()


async def test_daily_bad_time_names_the_time(tmp_path: Path) -> None:
    """`/daily 25:00 America/New_York` used to answer "'America/New_York' is not a time"
    (25:00 was taken for a key=value option)."""
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path))
    admin = UserRef("slack", "U_ADM", "Admin", is_admin=True)
    try:
        s = RecordingSurface()
        await app.core.handle_message(s, CHANNEL, admin, "/daily 25:00 America/New_York")
        assert "'25:00' is not a time" in s.private[-1][1]
        await app.core.handle_message(s, CHANNEL, admin, "/daily 9:30 America/New_York")
        assert not s.private[1:] and "09:30 America/New_York" in list(s.messages.values())[-1].text
    finally:
        await app.close()
