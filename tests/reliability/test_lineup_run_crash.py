"""A lineup run is checkpointed only when it ends (durability "exit": it never pauses for
approval, agents.runtime.run_durability). A SIGKILL in the middle of it leaves no
checkpoint; the next process starts the run again from its recorded input and delivers the
same lineup answer an uncrashed run gives."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.reliability.crash_chat import Chat, run_driver

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")

ALICE = "100"
ASK = f"ask:{ALICE}:Who should I start today?"


def _answers(chat: Chat) -> list[str]:
    return [m.get("text") or "" for m in chat.messages.values()
            if "lineup" in (m.get("text") or "").lower()]


@pytest.mark.parametrize("point", ["stage:gather_rosters", "stage:compose_lineup"])
def test_crash_mid_lineup_run_is_run_again_from_its_input(tmp_path: Path, point: str) -> None:
    linked = tmp_path / "linked"
    assert run_driver(linked, f"link:{ALICE}:5").code == 0
    clean, crashed = tmp_path / "clean", tmp_path / "crashed"
    shutil.copytree(linked, clean)
    shutil.copytree(linked, crashed)

    ok = run_driver(clean, ASK)
    assert ok.code == 0
    expected = _answers(Chat().feed(ok))
    assert expected, "the uncrashed lineup turn gave no lineup answer"

    died = run_driver(crashed, ASK, crash_at=point)
    assert died.killed, f"{point} was not reached"
    after = run_driver(crashed, "recover")
    assert after.code == 0
    chat = Chat().feed(died).feed(after)
    got = _answers(chat)
    assert got, chat.texts()[-500:]
    # the answer after the restart is the lineup an uncrashed run gives (day lines equal)
    assert got[-1].splitlines()[0] == expected[-1].splitlines()[0]
