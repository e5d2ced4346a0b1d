"""Issue 25 item 6: another process holding the SQLite database locked. A turn used to wait
the 30 s busy timeout and end with "Sorry, something went wrong"; now it says the database
is busy and which file. Real FanViseApp (ChatCore, runtime, SQLite, demo league); the other
process is a real Python process holding a write transaction on the file. The busy timeout
is shortened for the test (storage.db.BUSY_TIMEOUT_MS, read when the file is opened).
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import storage.checkpoints
import storage.db
from bot.core.app import FanViseApp
from bot.core.models import ThreadRef, UserRef
from bot.settings import Settings
from storage.db import Database, DatabaseBusy, is_busy
from tests.bot.harness.links import link
from tests.reliability.surface import FaultySurface

USER = UserRef("discord", "100", "Alice")
THREAD = ThreadRef("discord", "G1", "C1", "T1")

HOLDER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()  # until the test closes our stdin
"""


@pytest.fixture
def hold() -> Iterator:
    procs: list[subprocess.Popen[str]] = []

    def lock(path: Path) -> None:
        proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], text=True,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        procs.append(proc)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"

    yield lock
    for proc in procs:
        proc.communicate("", timeout=10)


def test_busy_errors_are_recognised() -> None:
    assert is_busy(sqlite3.OperationalError("database is locked"))
    assert not is_busy(sqlite3.OperationalError("no such table: x"))
    assert not is_busy(ValueError("database is locked"))


async def test_a_statement_on_a_locked_file_names_it(tmp_path, monkeypatch, hold) -> None:
    monkeypatch.setattr(storage.db, "BUSY_TIMEOUT_MS", 300)
    db = await Database.open(tmp_path / "fanvise.sqlite")
    try:
        await db.execute("CREATE TABLE t (x INTEGER)")
        hold(tmp_path / "fanvise.sqlite")
        with pytest.raises(DatabaseBusy) as ei:
            await db.execute("INSERT INTO t VALUES (1)")
        assert isinstance(ei.value, sqlite3.OperationalError)  # old handlers still match
        assert ei.value.path == str(tmp_path / "fanvise.sqlite")
        text = str(ei.value)
        assert "fanvise.sqlite is busy" in text and "another program" in text
        assert str(tmp_path) not in text  # the file, not the server's folders
    finally:
        await db.close()


@pytest.mark.parametrize(("file", "module", "setting", "short"), [
    ("fanvise.sqlite", storage.db, "BUSY_TIMEOUT_MS", 500),
    ("checkpoints.sqlite", storage.checkpoints, "BUSY_TIMEOUT_S", 0.5),
])
async def test_a_turn_on_a_locked_file_says_it_is_busy(tmp_path, monkeypatch, hold, file,
                                                       module, setting, short) -> None:
    monkeypatch.setattr(module, setting, short)
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path))
    try:
        await link(app.core, "discord", "G1", USER.user_id, 1)
        hold(tmp_path / file)
        texts = ["who should I start today?"] + (["/lineup"] if file == "fanvise.sqlite"
                                                  else [])
        for text in texts:
            surface = FaultySurface()
            await app.core.handle_message(surface, THREAD, USER, text)
            said = surface.all_text()
            assert f"The database file {file} is busy" in said, said
            assert "something went wrong" not in said.lower(), said
    finally:
        await app.close()
