"""Issue 25: the daily digest killed on either side of its post (a real bot process
SIGKILLed at `daily:posting` / `daily:post-sent`, and at `daily:part-sent` between the
messages of a long digest; real SQLite, demo league, the daily scheduler's ledger, the
printing surface of tests/reliability/core_driver.py whose history survives processes).

Before: the scheduler's claim stayed "posting" after a kill, so a kill before the post lost
that day's digest and a kill after it lost the digest's id (nothing to pin, nothing to find
it by). Now the restarted bot takes the claim over and the digest is in the channel exactly
once with its id in the ledger: it posts the digest the dead process never posted, or adopts
the one it did (found by its text since the claim) and draws it as it is now."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.reliability.crash_chat import Chat, run_driver

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")

HEAD = "**Daily lineup digest"


def _digest_posts(chat: Chat) -> list[dict]:
    return [x for x in chat.log if x["kind"] == "post" and x["thread"] == ""]


#: on Discord an owner card with its "Set lineup" button ends its message (the button sits
#: under that owner's lineup): 7 linked teams with something to do make 7 messages
SEVEN = tuple(f"link:{200 + team}:{team}" for team in range(2, 8))


@pytest.mark.parametrize(("point", "links"), [
    (None, ()), ("daily:posting", ()), ("daily:post-sent", ()),
    (None, SEVEN), ("daily:posting", SEVEN), ("daily:part-sent", SEVEN),
    ("daily:post-sent", SEVEN)])
def test_kill_posting_the_daily_digest(point: str | None, links: tuple[str, ...],
                                       tmp_path: Path) -> None:
    chat = Chat()
    first = run_driver(tmp_path, *links, "daily", crash_at=point)
    assert first.killed == (point is not None), f"{point} was never reached"
    chat.feed(first)
    after = run_driver(tmp_path, "daily", "daily", "daily-rows")
    assert after.code == 0, after.lines[-3:]
    chat.feed(after)
    posts = _digest_posts(chat)
    heads = [x for x in posts if x["msg"]["text"].startswith(HEAD)]
    assert len(heads) == 1, f"{point}: the digest was posted {len(heads)} times"
    # every message of the digest once (a card message has no text of its own: by its cards)
    keys = [(x["msg"]["text"], tuple(c["title"] for c in x["msg"]["cards"])) for x in posts]
    assert len(keys) == len(set(keys)), f"{point}: a digest message was posted twice"
    assert len(posts) == (7 if links else 1), (point, keys)
    mid = heads[0]["mid"]
    (rows,) = after.of("daily-rows")
    assert [(r["status"], r["message_id"]) for r in rows["ledger"]] == [("posted", mid)], \
        (point, rows["ledger"])
    # the pass after it sends nothing more
    assert [x["posted"] for x in after.of("daily")] == \
        ([[], []] if point is None else [["discord:G1:C1"], []]), point
    # Alice's digest card as it shows now: its fix button is a live fix row
    pending = {f["fix_id"] for f in rows["fixes"] if f["status"] == "pending"}
    shown = [b["custom_id"] for x in posts for c in chat.messages[x["mid"]]["cards"]
             for b in c.get("buttons") or [] if b["custom_id"].startswith("fv:approve:")]
    assert shown and all(b.split(":")[2] in pending for b in shown), (point, shown, rows)
    # and the only ones made: a take-over keeps the dead process's buttons
    assert len(rows["fixes"]) == len(shown), (point, shown, rows["fixes"])
    assert "<@100>" in chat.messages[mid]["text"], (point, chat.messages[mid]["text"])
