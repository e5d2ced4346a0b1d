"""Issue 34: "Set this lineup" survives a crash on either side of its write, from each of
its three entry points (the `/lineup` card, the daily digest and the pre-lock alert).

A real bot process (tests/reliability/core_driver.py: ChatCore, SQLite, the demo league
whose transport serves ESPN's transaction endpoint) is SIGKILLed right before the lineup
POST (`espn_write:before_post`: nothing sent) or right after it (`espn_write:after_post`:
made, answer lost). Before, the fix row stayed `applying` and the journal row `sending` for
ever: every later tap said "This lineup was already set", also when nothing had been sent.
Now the restarted bot settles the row by reading the demo's roster back, at start-up
recovery or on the next tap: done when the lineup shows it, sent once when it never
happened. The lineup is changed exactly once and the member told what is true."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.reliability.crash_chat import Chat, run_driver

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")

ALICE = "100"  # linked to team 1 by the driver


@pytest.fixture(autouse=True)
def _no_demo_disk_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    # the ruled-out starter lives in each process's memory (the forked driver inherits it)
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


#: (entry point, the ops that show its button, kill point, how the restart settles it)
CASES = [
    ("lineup", ["lineup:100"], "espn_write:before_post", "recover"),
    ("lineup", ["lineup:100"], "espn_write:after_post", "tap"),
    ("digest", [], "espn_write:before_post", "tap"),
    ("digest", [], "espn_write:after_post", "recover"),
    ("alert", ["prelock"], "espn_write:before_post", "tap"),
    ("alert", ["prelock"], "espn_write:after_post", "recover"),
]


@pytest.mark.parametrize(("entry", "show", "point", "settle"), CASES,
                         ids=[f"{c[0]}-{c[2].split(':')[1]}-{c[3]}" for c in CASES])
def test_a_lineup_write_killed_is_made_once_and_told_truly(
        entry: str, show: list[str], point: str, settle: str, digested: Path,
        tmp_path: Path) -> None:
    data = tmp_path / "d"
    shutil.copytree(digested, data)
    chat = Chat()
    first = run_driver(data, "rule-out:1", *show, f"fix-click:{ALICE}:{entry}",
                       crash_at=point)
    assert first.killed, f"{entry}: {point} was never reached: {first.lines[-3:]}"
    chat.feed(first)
    [out] = first.of("ruled-out")
    rule_out = f"rule-out:1:{out['id']}"  # the same starter out in the next process
    ops = ["recover"] if settle == "recover" else []
    after = run_driver(data, rule_out, *ops, "lineup-writes", f"fix-click:{ALICE}:{entry}",
                       "lineup-writes")
    assert after.code == 0, after.lines[-3:]
    chat.feed(after)
    settled, final = after.of("lineup-writes")
    # the lineup was changed exactly once, whether the kill came before or after the POST
    assert len(final["changes"]) == 1, (entry, point, final["changes"])
    [write] = [w for w in final["writes"] if w["key"].startswith("fix:")]
    assert write["status"] == "done", (entry, point, final["writes"])
    fix = next(f for f in final["fixes"] if write["key"].startswith(f"fix:{f['fix_id']}:"))
    assert fix["status"] == "applied", (entry, point, final["fixes"])
    replies = [t for _, t in chat.private]
    if settle == "recover":  # settled at start-up: the tap after it is told it is set
        assert [f["status"] for f in settled["fixes"] if f["fix_id"] == fix["fix_id"]] == \
            ["applied"], (entry, point, settled["fixes"])
        assert replies[-1] == "This lineup was already set.", replies
    else:  # settled by the tap itself, which says it is done
        assert replies[-1].startswith("Done: today's lineup is set"), replies
    assert "already set" not in " ".join(replies[:-1]), replies
    if entry == "alert":  # the alert itself shows what was done
        [alert] = [m for m in chat.messages.values() if any(
            (c.get("title") or "").startswith(("Before lock", "Lineup set"))
            for c in m.get("cards") or [])]
        assert alert["cards"][0]["title"].startswith("Lineup set"), alert
