"""bot/core/render: button ids, text splitting, player report and move cards."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.core.buttons import make_custom_id, parse_custom_id
from bot.core.render import (
    conflicts,
    decided_footer,
    progress_text,
    render_answer,
    render_approval,
    render_report,
    split_text,
)

MOVES = [
    {"move_id": "1-2", "drop": {"id": 1, "name": "A"}, "add": {"id": 2, "name": "B"},
     "expected_gain": 4.5, "games": 2, "confidence": "high", "reasons": ["B plays more"]},
    {"move_id": "1-3", "drop": {"id": 1, "name": "A"}, "add": {"id": 3, "name": "C"},
     "expected_gain": 1.25, "games": 1, "confidence": "low", "reasons": []},
    {"move_id": "4-5", "drop": {"id": 4, "name": "D"}, "add": {"id": 5, "name": "E"},
     "expected_gain": 0.5, "games": 0, "confidence": "medium", "reasons": ["x"]},
]


def test_custom_ids_round_trip_and_reject_garbage() -> None:
    cid = make_custom_id("approve", "0123456789ab", 2)
    assert cid == "fv:approve:0123456789ab:2" and len(cid) < 100
    p = parse_custom_id(cid)
    assert p and p.action == "approve" and p.index == 2 and p.decision == "approve"
    assert not p.all_moves
    q = parse_custom_id("fv:declineall:0123456789ab")
    assert q and q.all_moves and q.decision == "decline" and q.index is None
    for bad in ("", "fv:approve:XYZ", "fv:approve:0123456789ab:x", "rec:approve:0123456789ab",
                "fv:delete:0123456789ab", "fv:approve:0123456789ab:1:2"):
        assert parse_custom_id(bad) is None


@given(st.text(min_size=0, max_size=3000), st.integers(min_value=20, max_value=500))
def test_split_text_keeps_every_word_and_respects_the_limit(text: str, limit: int) -> None:
    chunks = split_text(text, limit)
    assert chunks and all(len(c) <= limit for c in chunks)
    assert "".join(text.split()) == "".join("".join(chunks).split())


def test_split_prefers_paragraphs() -> None:
    text = "a" * 50 + "\n\n" + "b" * 50
    assert split_text(text, 80) == ["a" * 50, "b" * 50]


def test_progress_text_marks_the_running_step() -> None:
    assert progress_text(["one", "two"]) == "✓ one\n⏳ two"
    assert progress_text(["one", "two"], done=True) == "✓ one\n✓ two"
    assert len(progress_text(["x" * 500] * 10, limit=300)) <= 300


def test_player_report_card() -> None:
    card = render_report({"playerName": "Jarrett Allen", "status": "DAY_TO_DAY",
                          "injuryType": "finger", "expectedReturnDate": None,
                          "recommendation": "MONITOR", "confidence": "MEDIUM",
                          "summary": "Game-time decision.",
                          "sources": [{"title": "Rotowire", "url": "https://x",
                                       "published": "2023-01-24"}, "ESPN injury feed"],
                          "fetchedAt": "2023-01-25T12:00:00Z"})
    f = dict(card.fields)
    assert card.title == "Player report: Jarrett Allen" and card.text == "Game-time decision."
    assert f["Status"] == "Day-to-day" and f["Expected return"] == "unknown"
    assert f["Recommendation"] == "Monitor" and f["Confidence"] == "Medium"
    assert "Rotowire (Tue Jan 24) — https://x" in f["Sources"]
    # the footer is a local timestamp: 2023-01-25T12:00:00Z is epoch 1674648000
    assert card.color == "yellow" and card.footer == "Fetched <t:1674648000:R>"
    assert f["Injury"] == "finger"
    msgs = render_answer("hello " * 100, {"playerName": "X", "recommendation": "DROP"},
                         offline=False, max_text=100)
    assert len(msgs) > 1 and msgs[-1].cards and not msgs[0].cards


def test_move_card_pending_partial_and_decided() -> None:
    card = render_approval("0123456789ab", "Moves", "3 moves", MOVES, "Ann")
    # moves 1 and 2 are alternatives (same player): approved one at a time, never "all"
    labels = [b.label for b in card.buttons]
    assert labels[-1] == "Decline all" and "Approve all" not in labels
    compatible = render_approval("0123456789ab", "Moves", "", [MOVES[0], MOVES[2]], "Ann")
    assert [b.label for b in compatible.buttons][-2:] == ["Approve all", "Decline all"]
    assert all(not b.disabled for b in card.buttons) and "Ann" in card.footer
    assert card.fields[0][0] == "1. Drop A, add B"
    assert "+4.5 " in card.fields[0][1] and "B plays more" in card.fields[0][1]
    part = render_approval("0123456789ab", "Moves", "", MOVES, "Ann",
                           decisions={"0": "approve", "1": "decline"})
    assert [b.disabled for b in part.buttons] == [True] * 4 + [False] * 4
    assert part.buttons[-1].label == "Decline the rest"
    assert part.fields[0][0].startswith("✅") and part.fields[1][0].startswith("❌")
    done = render_approval("0123456789ab", "Moves", "", MOVES, "Ann", status="approved",
                           decided_by_name="Bob", decisions={"0": "approve", "1": "decline",
                                                             "2": "approve"})
    assert all(b.disabled for b in done.buttons) and done.footer == "Approved by Bob"
    assert decided_footer("declined", "Bob") == "Declined by Bob"
    single = render_approval("0123456789ab", "One", "", MOVES[:1], "Ann")
    assert [b.label for b in single.buttons] == ["Approve", "Decline"]
    assert conflicts(MOVES[0], MOVES[1]) and not conflicts(MOVES[0], MOVES[2])
