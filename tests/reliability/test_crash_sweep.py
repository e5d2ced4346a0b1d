"""Crash-point sweep (issue 12): a real bot process (FanViseApp, matchup optimizer graph,
SQLite, demo league) SIGKILLs itself at every progress stage of a matchup review and at
every step of applying a decision (storage.crashpoint, $FANVISE_CRASH_AT); a fresh process
recovers. After the restart: the requester (Alice, linked to team 5) and her team are kept
(Bob, linked to the default team 1, is refused), the card is shown exactly once, a decision
is applied at most once and never reversed by a later click, and no request ends silently.

Defect regressions among the points: #1 `stage:gather_rosters` (authority), #2
`click:claimed` / `decide:recorded` (a Decline after a crash applied the earlier Approve
all), `writes:apply_moves` (the moves' writes saved, the next checkpoint lost: the snapshot
has no `next`, and recovery took the run for finished without an answer), #3 `stage:check_injuries` (empty answer, no card), #4 `card:create` (orphan
interrupt without a card).

Issue 25 item 2: a partial decision (approve move #1, then "Skip the rest") killed at every
point of applying it, re-planning the rest and posting the rest's card (`run:pending` and
`click:run-finished` reopened card 1 with live buttons, "the outcome of this decision was
lost" and every move audited `error`): card 1 closes stating exactly 1 applied and the rest
skipped, #1 is made once, the rest's card is shown once and waits."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from bot.core.recovery import RERUN_LINE
from bot.core.turns import THINKING
from tests.reliability.crash_chat import Chat, roster, run_driver

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")

ALICE, BOB = "100", "200"
#: kill points of a matchup review, in order (turn ledger, supervisor, run, optimizer
#: stages, interrupt, card row, the card's own message posted and stored but not drawn)
REQUEST_POINTS = [
    "turn:started", "turn:progress-posting", "turn:progress-posted", "run:recorded",
    "stage:gather_rosters",
    "stage:analyze_schedule", "stage:check_injuries", "writes:check_injuries",
    "stage:plan_moves", "writes:plan_moves", "stage:compose_lineup",
    "stage:present_and_confirm",
    "run:pending", "card:create", "card:stored", "card:posting", "card:post-sent",
    "card:posted",
]
#: kill points of applying an "Approve plan"
DECISION_POINTS = [
    "click:claimed", "click:card-edited", "decide:recorded",
    "stage:apply_moves", "writes:apply_moves", "stage:replan", "writes:replan",
    "run:done", "click:run-finished", "click:card-finished",
]


#: kill points of a partial decision: the decided moves applied, the rest re-planned and
#: offered as a new card (run:pending: the run paused again; card:*: the rest's card)
PARTIAL_POINTS = [
    "click:claimed", "click:card-edited", "decide:recorded", "stage:apply_moves",
    "writes:apply_moves", "stage:replan", "writes:replan", "stage:plan_moves",
    "writes:plan_moves", "stage:present_and_confirm", "run:pending", "click:run-finished",
    "click:card-finished", "card:create", "card:stored", "card:posting", "card:post-sent",
    "card:posted",
]


@pytest.fixture(scope="module")
def linked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir where Alice is linked to team 5 and Bob to team 1 (the default team)."""
    base = tmp_path_factory.mktemp("linked")
    run = run_driver(base, f"link:{ALICE}:5", f"link:{BOB}:1", "roster:5")
    assert run.code == 0, run.lines[-3:]
    return base


@pytest.fixture(scope="module")
def with_card(tmp_path_factory: pytest.TempPathFactory, linked: Path) -> tuple[Path, list]:
    """Alice's pending card (no crash), plus her roster before any decision."""
    base = tmp_path_factory.mktemp("card")
    shutil.copytree(linked, base, dirs_exist_ok=True)
    run = run_driver(base, f"optimize:{ALICE}", "roster:5")
    assert run.code == 0
    (card,) = Chat().feed(run).cards()
    return base, roster(run, 5), Chat().feed(run)


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, dirs_exist_ok=True)
    return dst


@pytest.mark.parametrize("point", REQUEST_POINTS)
def test_kill_during_a_matchup_review(point: str, linked: Path, tmp_path: Path) -> None:
    data = _copy(linked, tmp_path / "d")
    before = run_driver(data, "roster:5", "roster:1")
    first = run_driver(data, f"optimize:{ALICE}", crash_at=point)
    assert first.killed, f"{point} was never reached"
    chat = Chat().feed(first)
    after = run_driver(data, "recover", f"click:{BOB}:approveall", f"click:{ALICE}:declineall",
                       "roster:5", "roster:1")
    assert after.code == 0, after.lines[-3:]
    chat.feed(after)
    first_cards = [c for _, c in chat.cards() if c["title"].startswith("Your plan")]
    assert first_cards, (point, [c["title"] for _, c in chat.cards()], chat.texts()[-800:])
    card_id = first_cards[0]["buttons"][-1]["custom_id"].split(":")[2]
    shown = chat.cards(card_id)
    assert len(shown) == 1, f"{point}: card shown {len(shown)} times"
    _, card = shown[0]
    assert card["footer"].startswith("Decided by Alice: ") and \
        card["footer"].endswith("skipped by you") and "applied" not in card["footer"], \
        (point, card["footer"])
    assert "Paint Protectors" in card["title"]  # team 5, not the default team 1
    assert any("Only Alice" in t for t in chat.private_to(BOB)), point
    # the card's message was posted once (one ping) and no message is left without its card
    heads = [x for x in chat.log if x["kind"] == "post"
             and "review these moves" in (x["msg"].get("text") or "")]
    assert len(heads) == 1, f"{point}: the requester was pinged {len(heads)} times"
    orphans = [mid for mid, msg in chat.messages.items()
               if "review these moves" in (msg.get("text") or "") and not msg.get("cards")]
    assert not orphans, f"{point}: a card message without its card"
    stuck = [msg.get("text") for msg in chat.messages.values()
             if (msg.get("text") or "").endswith(THINKING) and not msg.get("cards")]
    assert not stuck, f"{point}: a progress message left as it was: {stuck}"
    assert "(no answer)" not in chat.texts()
    assert roster(after, 5) == roster(before, 5) and roster(after, 1) == roster(before, 1)


@pytest.mark.parametrize("point", DECISION_POINTS)
def test_kill_while_applying_a_decision(point: str, with_card: tuple, approved: dict,
                                       tmp_path: Path) -> None:
    base, start_roster, chat = with_card
    data = _copy(base, tmp_path / "d")
    chat = Chat(messages=dict(chat.messages))
    first = run_driver(data, f"click:{ALICE}:approveall", crash_at=point)
    assert first.killed, f"{point} was never reached"
    chat.feed(first)
    after = run_driver(data, "recover", "roster:5", f"click:{ALICE}:declineall", "roster:5",
                       "recover", "roster:5")
    assert after.code == 0, after.lines[-3:]
    chat.feed(after)
    applied, after_late_click, after_restart = (x["players"] for x in after.of("roster"))
    assert applied != start_roster, f"{point}: the recorded approval was not applied"
    assert after_late_click == applied == after_restart, f"{point}: decision reversed"
    added = set(applied) - set(start_roster)
    dropped = set(start_roster) - set(applied)
    assert len(added) == len(dropped) >= 1  # each applied move once: one drop per add
    shown = chat.cards()
    assert len(shown) == 1, f"{point}: card shown {len(shown)} times"
    _, card = shown[0]
    # exactly what an uncrashed "Approve all" states (N applied, M scheduled)
    assert card["footer"] == approved["footer"], (point, card["footer"], approved["footer"])
    assert applied == approved["roster"], point
    assert all(b["disabled"] for b in card["buttons"])
    assert any("already decided" in t for t in chat.private_to(ALICE)), point


@pytest.mark.parametrize("point", PARTIAL_POINTS)
def test_kill_while_applying_a_partial_decision(point: str, with_card: tuple,
                                                tmp_path: Path) -> None:
    base, start_roster, chat = with_card
    data = _copy(base, tmp_path / "d")
    chat = Chat(messages=dict(chat.messages))
    (_, card0), = chat.cards()
    spots = sum(1 for b in card0["buttons"] if b["label"].startswith("Approve #"))
    first = run_driver(data, f"click:{ALICE}:approve:0", f"click:{ALICE}:declineall",
                       crash_at=point)
    assert first.killed, f"{point} was never reached"
    chat.feed(first)
    after = run_driver(data, "recover", "roster:5", "cards", "recover", "roster:5")
    assert after.code == 0, after.lines[-3:]
    chat.feed(after)
    applied, after_restart = (x["players"] for x in after.of("roster"))
    assert applied == after_restart
    added, dropped = set(applied) - set(start_roster), set(start_roster) - set(applied)
    assert len(added) == 1 and len(dropped) <= 1, (point, added, dropped)  # #1 made once
    rows = after.of("card")
    assert len(rows) == 2, (point, [r["status"] for r in rows])
    one, rest = rows
    assert one["status"] == "partial", (point, one["status"])
    assert not any(res == "error" for _, res in one["audit"]), (point, one["audit"])
    if point != "click:card-finished":
        # (a kill after the card row is closed and before its audit loses the audit of the
        # outcome; the card row and its footer keep it)
        assert [0, "applied"] in one["audit"], (point, one["audit"])
    assert rest["status"] == "pending" and rest["title"].startswith("The rest of your plan")
    card1 = chat.cards(one["card_id"])
    assert len(card1) == 1, f"{point}: card 1 shown {len(card1)} times"
    (_, c1), = card1
    assert c1["footer"] == f"Decided by Alice: 1 applied, {spots - 1} skipped by you", \
        (point, c1["footer"])
    assert all(b["disabled"] or b.get("url") for b in c1["buttons"]), point
    assert c1["fields"][0][0].startswith("✅ 1."), (point, c1["fields"][0][0])
    card2 = chat.cards(rest["card_id"])
    assert len(card2) == 1, f"{point}: the rest's card shown {len(card2)} times"
    assert any(not b["disabled"] for b in card2[0][1]["buttons"])
    assert "lost in a restart" not in chat.texts(), point
    # the rest's card message was posted once (one ping), none is left without its card
    heads = [x for x in chat.log if x["kind"] == "post"
             and "review these moves" in (x["msg"].get("text") or "")]
    assert len(heads) == 1, f"{point}: the requester was pinged {len(heads)} times"
    assert not [mid for mid, msg in chat.messages.items()
                if "review these moves" in (msg.get("text") or "") and not msg.get("cards")], \
        f"{point}: a card message without its card"


@pytest.fixture(scope="module")
def approved(with_card: tuple, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Alice's "Approve all" with no crash: the footer and roster every crash must end with."""
    base, _, chat = with_card
    data = _copy(base, tmp_path_factory.mktemp("approved"))
    run = run_driver(data, f"click:{ALICE}:approveall", "roster:5")
    assert run.code == 0, run.lines[-3:]
    (_, card), = Chat(messages=dict(chat.messages)).feed(run).cards()
    assert card["footer"].startswith("Decided by Alice: ") and " applied" in card["footer"]
    return {"footer": card["footer"], "title": card["title"], "roster": roster(run, 5)}


def _one_reposted_card(point: str | None, chat: Chat, approved: dict) -> None:
    """The card shows once, in one re-posted message, stating exactly what was applied;
    no message is left with the re-post's first text (the card's title) and no card."""
    shown = chat.cards()
    assert len(shown) == 1, f"{point}: card shown {len(shown)} times"
    _, card = shown[0]
    assert card["footer"] == approved["footer"], (point, card["footer"])
    assert all(b["disabled"] or b.get("url") for b in card["buttons"]), point
    reposts = [x for x in chat.log if x["kind"] == "post"
               and x["msg"].get("text") == approved["title"]]
    assert len(reposts) == 1, f"{point}: the card was re-posted {len(reposts)} times"
    assert not [m for m in chat.messages.values()
                if m.get("text") == approved["title"] and not m.get("cards")], \
        f"{point}: a re-posted message without its card"


@pytest.mark.parametrize("point", [None, "repost:posting", "repost:post-sent"])
def test_kill_reposting_a_deleted_card_on_a_click(point: str | None, with_card: tuple,
                                                  approved: dict, tmp_path: Path) -> None:
    """Issue 25: Alice deleted her card's message, then approves (the deleted message is
    re-posted when the card is redrawn, `Approvals.redraw`), killed on either side of that
    post: the restarted bot adopts the message it posted, never posts a second one."""
    base, start_roster, chat = with_card
    data = _copy(base, tmp_path / "d")
    chat = Chat(messages=dict(chat.messages))
    first = run_driver(data, "delete-card", f"click:{ALICE}:approveall", crash_at=point)
    assert first.killed == (point is not None), f"{point} was never reached"
    chat.feed(first)
    after = run_driver(data, "recover", "roster:5", "recover", "roster:5")
    assert after.code == 0, after.lines[-3:]
    chat.feed(after)
    applied, after_restart = (x["players"] for x in after.of("roster"))
    assert applied == after_restart == approved["roster"] != start_roster, point
    _one_reposted_card(point, chat, approved)


@pytest.mark.parametrize("point", [None, "recover-card:posting", "recover-card:post-sent"])
def test_kill_reposting_a_decided_card_in_recovery(point: str | None, with_card: tuple,
                                                   approved: dict, tmp_path: Path) -> None:
    """Issue 25: a decision closed the card and the process died before redrawing it
    (`click:card-finished`); meanwhile the card's message was deleted, so recovery re-posts
    the decided card (`Recovery._post_undelivered_cards`), killed on either side of that
    post: the next recovery adopts that message, never posts a second one."""
    base, start_roster, chat = with_card
    data = _copy(base, tmp_path / "d")
    chat = Chat(messages=dict(chat.messages))
    first = run_driver(data, f"click:{ALICE}:approveall", crash_at="click:card-finished")
    assert first.killed
    chat.feed(first)
    second = run_driver(data, "delete-card", "recover", crash_at=point)
    assert second.killed == (point is not None), f"{point} was never reached"
    chat.feed(second)
    after = run_driver(data, "recover", "roster:5", "recover", "roster:5")
    assert after.code == 0, after.lines[-3:]
    chat.feed(after)
    applied, after_restart = (x["players"] for x in after.of("roster"))
    assert applied == after_restart == approved["roster"] != start_roster, point
    _one_reposted_card(point, chat, approved)


@pytest.mark.parametrize("point", ["recover-turn:posting", "recover-turn:post-sent",
                                   "stage:gather_rosters"])
def test_kill_while_recovery_runs_a_request_again(point: str, linked: Path,
                                                  tmp_path: Path) -> None:
    """Issue 25: a request killed before its progress message (`turn:started`) is run again
    by recovery under a new "Finishing a request interrupted by a restart…" message; a
    second kill on either side of that post, or during the rerun, leaves no message stuck
    at that line: the next recovery takes the message over (its id stored, or found)."""
    data = _copy(linked, tmp_path / "d")
    first = run_driver(data, f"optimize:{ALICE}", crash_at="turn:started")
    assert first.killed
    chat = Chat().feed(first)
    second = run_driver(data, "recover", crash_at=point)
    assert second.killed, f"{point} was never reached"
    chat.feed(second)
    after = run_driver(data, "recover", "recover")
    assert after.code == 0, after.lines[-3:]
    chat.feed(after)
    stuck = [m.get("text") for m in chat.messages.values()
             if RERUN_LINE in (m.get("text") or "") and not m.get("cards")]
    assert not stuck, f"{point}: a progress message left as it was: {stuck}"
    reruns = [x for x in chat.log if x["kind"] == "post"
              and RERUN_LINE in (x["msg"].get("text") or "")]
    assert len(reruns) <= 1, f"{point}: {len(reruns)} progress messages for one request"
    # the request ends with its card or with "... interrupted by a restart twice. Please
    # ask again.", never silently
    assert chat.cards() or "Please ask again" in chat.texts(), (point, chat.texts()[-500:])


DECISION_LINE = "decision interrupted by a restart"


@pytest.mark.parametrize("point", ["recover-decision:posting", "recover-decision:post-sent",
                                   "stage:apply_moves"])
def test_kill_while_recovery_finishes_a_decision(point: str, with_card: tuple,
                                                 approved: dict, tmp_path: Path) -> None:
    """Issue 25: Alice's "Approve all" was recorded and the process died before applying
    it (`click:card-edited`); recovery finishes it under a "Finishing Alice's decision
    interrupted by a restart…" message and is killed on either side of posting that
    message, or while applying: the next recovery takes that message over (its id stored
    on the card, or found since the intent), applies the decision once and closes the
    card stating exactly what an uncrashed run states."""
    base, start_roster, chat = with_card
    data = _copy(base, tmp_path / "d")
    chat = Chat(messages=dict(chat.messages))
    first = run_driver(data, f"click:{ALICE}:approveall", crash_at="click:card-edited")
    assert first.killed
    chat.feed(first)
    second = run_driver(data, "recover", crash_at=point)
    assert second.killed, f"{point} was never reached"
    chat.feed(second)
    after = run_driver(data, "recover", "roster:5", "recover", "roster:5")
    assert after.code == 0, after.lines[-3:]
    chat.feed(after)
    applied, after_restart = (x["players"] for x in after.of("roster"))
    assert applied == after_restart == approved["roster"] != start_roster, point
    (_, card), = chat.cards()
    assert card["footer"] == approved["footer"], (point, card["footer"])
    posts = [x for x in chat.log if x["kind"] == "post"
             and DECISION_LINE in (x["msg"].get("text") or "")]
    assert len(posts) <= 1, f"{point}: {len(posts)} progress messages for one decision"
    stuck = [m.get("text") for m in chat.messages.values()
             if (m.get("text") or "").startswith("⏳") and DECISION_LINE in m.get("text")]
    assert not stuck, f"{point}: a progress message left as it was: {stuck}"
