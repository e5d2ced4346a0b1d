"""Issue 12 #5: a bad data directory never hangs start-up.

Garbage or truncated `fanvise.sqlite` / `checkpoints.sqlite`, a read-only data directory and
a full disk: `fanvise chat`, `fanvise run discord` and `fanvise run slack` (real processes)
exit non-zero within seconds with one clear line naming the file and what to do, and
`Database.open` leaves no connection thread behind when a PRAGMA fails."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from storage.db import Database, DatabaseFileError, SqliteWorker, check_database_file

#: Generous for 2 shared cores; a hang is caught by it (the defect never exited at all).
EXIT_WITHIN = 30.0
REPO = Path(__file__).resolve().parents[2]
SECRET_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.testonlytokenvalue0123456789abcdefg"


def _garbage(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(os.urandom(8192))


def _truncated(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x TEXT)")
    conn.executemany("INSERT INTO t VALUES (?)", [("x" * 500,) for _ in range(400)])
    conn.commit()
    conn.close()
    os.truncate(path, 4096 * 3 + 100)


def _workers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == SqliteWorker.THREAD_NAME]


@pytest.mark.parametrize("damage", [_garbage, _truncated])
async def test_database_open_failure_leaves_no_worker_thread(tmp_path, damage) -> None:
    path = tmp_path / "fanvise.sqlite"
    damage(path)
    before = len(_workers())
    with pytest.raises(sqlite3.DatabaseError):
        db = await Database.open(path)
        await db.fetchall("SELECT * FROM sqlite_master")  # a truncated file may open
        await db.close()
    for t in _workers()[before:]:
        t.join(timeout=5)
    assert len([t for t in _workers() if t.is_alive()]) == before


@pytest.mark.parametrize("damage", [_garbage, _truncated])
def test_check_database_file_names_the_file_and_the_fix(tmp_path, damage) -> None:
    path = tmp_path / "fanvise.sqlite"
    damage(path)
    with pytest.raises(DatabaseFileError) as ei:
        check_database_file(path)
    msg = str(ei.value)
    assert str(path) in msg and "\n" not in msg
    assert "move it away" in msg.lower() or "restore" in msg.lower()


def test_check_database_file_accepts_a_good_or_missing_file(tmp_path) -> None:
    check_database_file(tmp_path / "new.sqlite")  # missing: created later, fine
    assert not (tmp_path / "new.sqlite").exists()
    conn = sqlite3.connect(tmp_path / "ok.sqlite")
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    check_database_file(tmp_path / "ok.sqlite")


# --------------------------------------------------------------------------- real processes


def _fanvise(args: list[str], data_dir: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("FANVISE_", "DISCORD_", "SLACK_", "ESPN_", "GOOGLE_"))}
    env.update({"FANVISE_DATA_DIR": str(data_dir), "HOME": str(tmp_path),
                "DISCORD_TOKEN": SECRET_TOKEN, "SLACK_BOT_TOKEN": "xoxb-1-2-testonlyslack",
                "SLACK_SIGNING_SECRET": "testonlysigningsecret0123",
                "SLACK_API_URL": "http://127.0.0.1:9/api/", "FANVISE_LOG_LEVEL": "INFO", "PYTHONPATH": str(REPO)})
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=tmp_path, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=EXIT_WITHIN)


def _assert_one_clear_line(proc: subprocess.CompletedProcess, names: str, fix: tuple[str, ...]
                           ) -> None:
    assert proc.returncode != 0, proc.stderr
    err = proc.stderr
    assert "Traceback" not in err and SECRET_TOKEN not in err + proc.stdout
    lines = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1, err
    assert names in lines[0], lines[0]
    assert any(f in lines[0].lower() for f in fix), lines[0]


SURFACES = [["chat"], ["run", "discord"], ["run", "slack"]]


@pytest.mark.parametrize("args", SURFACES, ids=lambda a: "-".join(a))
def test_garbage_app_db_exits_with_one_line(tmp_path, args) -> None:
    data = tmp_path / "data"
    _garbage(data / "fanvise.sqlite")
    proc = _fanvise(args, data, tmp_path)
    _assert_one_clear_line(proc, str(data / "fanvise.sqlite"), ("move it away", "restore"))


def test_truncated_app_db_exits_with_one_line(tmp_path) -> None:
    data = tmp_path / "data"
    _truncated(data / "fanvise.sqlite")
    proc = _fanvise(["chat"], data, tmp_path)
    _assert_one_clear_line(proc, str(data / "fanvise.sqlite"), ("move it away", "restore"))


@pytest.mark.parametrize("args", [["chat"], ["run", "slack"]], ids=lambda a: "-".join(a))
def test_garbage_checkpoints_db_exits_with_one_line(tmp_path, args) -> None:
    data = tmp_path / "data"
    _garbage(data / "checkpoints.sqlite")
    proc = _fanvise(args, data, tmp_path)
    _assert_one_clear_line(proc, str(data / "checkpoints.sqlite"), ("move it away", "restore"))


def test_data_dir_that_is_a_file_exits_with_one_line(tmp_path) -> None:
    data = tmp_path / "data"
    data.write_text("not a folder")
    proc = _fanvise(["chat"], data, tmp_path)
    _assert_one_clear_line(proc, str(data), ("--data-dir", "fanvise_data_dir"))


def _mount_tmpfs(where: Path, options: str) -> None:
    where.mkdir(parents=True, exist_ok=True)
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                         capture_output=True, text=True)
    if res.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({res.stderr.strip()})")


@pytest.fixture
def mounted(tmp_path) -> Iterator[Path]:
    where = tmp_path / "mnt"
    yield where
    subprocess.run(["umount", "-l", str(where)], capture_output=True)


@pytest.mark.parametrize("args", SURFACES, ids=lambda a: "-".join(a))
def test_read_only_data_dir_exits_with_one_line(tmp_path, mounted, args) -> None:
    if os.geteuid() == 0:
        _mount_tmpfs(mounted, "ro,size=1m")  # root ignores permission bits
    else:
        mounted.mkdir()
        mounted.chmod(0o555)
    proc = _fanvise(args, mounted, tmp_path)
    _assert_one_clear_line(proc, str(mounted), ("writable", "permission"))


def test_full_disk_exits_with_one_line(tmp_path, mounted) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a small tmpfs")
    _mount_tmpfs(mounted, "size=256k")
    with open(mounted / "filler", "wb", buffering=0) as fh:
        try:
            while True:
                fh.write(b"\0" * 4096)
        except OSError:
            pass
    proc = _fanvise(["chat"], mounted, tmp_path)
    _assert_one_clear_line(proc, str(mounted), ("free some space", "full"))
