"""Issue 25: the pre-lock alert killed on either side of its post (a real bot process
SIGKILLed at `prelock:posting` / `prelock:post-sent`, real SQLite, demo league, the
printing surface of tests/reliability/core_driver.py whose history survives processes).

Before: the ledger claim stayed "posting", so a kill before the post lost the alert for
good, and a kill after it left the fix button without its message (a tap then posted a
second message and the alert kept a live button). Now the restarted bot alerts the owner
exactly once: it posts the alert the dead process never posted, or adopts the one it did
(found by its text since the claim), and the fix button edits that very message."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.reliability.crash_chat import Chat, run_driver

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")

ALICE = "100"  # linked to team 1 by the driver


@pytest.fixture(autouse=True)
def _no_demo_disk_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    # the ruled-out starter lives in each process's memory; a render kept on disk would
    # hide it (the forked driver inherits this environment)
    monkeypatch.setenv("FANVISE_DEMO_DISK_CACHE", "0")


@pytest.fixture(scope="module")
def digested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir with the day's digest of channel C1 posted (Alice's team 1)."""
    import os
    os.environ["FANVISE_DEMO_DISK_CACHE"] = "0"
    base = tmp_path_factory.mktemp("digest")
    run = run_driver(base, "digest")
    assert run.code == 0, run.lines[-3:]
    return base


def _alerts(chat: Chat) -> list[dict]:
    return [x for x in chat.log if x["kind"] == "post" and any(
        (c.get("title") or "").startswith("Before lock") for c in x["msg"].get("cards") or [])]


@pytest.mark.parametrize("point", [None, "prelock:posting", "prelock:post-sent"])
def test_kill_posting_the_prelock_alert(point: str | None, digested: Path,
                                        tmp_path: Path) -> None:
    import shutil
    data = tmp_path / "d"
    shutil.copytree(digested, data)
    chat = Chat()
    first = run_driver(data, "rule-out:1", "prelock", crash_at=point)
    assert first.killed == (point is not None), f"{point} was never reached"
    chat.feed(first)
    after = run_driver(data, "rule-out:1", "prelock", "prelock", "prelock-rows",
                       f"prelock-click:{ALICE}", "prelock-rows")
    assert after.code == 0, after.lines[-3:]
    chat.feed(after)
    alerts = _alerts(chat)
    assert len(alerts) == 1, f"{point}: Alice was alerted {len(alerts)} times"
    mid = alerts[0]["mid"]
    assert f"<@{ALICE}>" in alerts[0]["msg"]["text"]
    rows, done = after.of("prelock-rows")
    assert [(r["status"], r["message_id"]) for r in rows["ledger"]] == [("posted", mid)], \
        (point, rows["ledger"])
    # the alert's fix button (the digest's own, on its shared message, aside)
    fixes = [f for f in rows["fixes"] if f["message_id"] != "shared"]
    assert [f["message_id"] for f in fixes] == [mid], (point, rows["fixes"])
    # the tap sets the lineup and turns that very alert into what was done
    assert [f["status"] for f in done["fixes"] if f["fix_id"] == fixes[0]["fix_id"]] == \
        ["applied"], (point, done["fixes"])
    final = chat.messages[mid]
    assert [c["title"] for c in final["cards"]][0].startswith("Lineup set"), (point, final)
    assert not [m for m in chat.messages.values() if any(
        (c.get("title") or "").startswith("Before lock") for c in m.get("cards") or [])], \
        f"{point}: an alert still shows its button"
    assert len([x for x in chat.log if x["kind"] == "post"
                and "set." in (x["msg"].get("text") or "")]) == 0, point
