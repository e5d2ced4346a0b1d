"""`fanvise set-lineup`: the demo league's optimal lineup through the transaction endpoint;
--dry-run prints the exact body and sends nothing; a live league refuses without the owner's
cookies or the deployment switch."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import app

runner = CliRunner()


def body_of(output: str) -> dict:
    start = output.index("{")
    return json.loads(output[start: output.rindex("}") + 1])


def test_dry_run_prints_the_exact_body_and_sends_nothing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("FANVISE_ESPN_WRITES_DRY_RUN", raising=False)
    res = runner.invoke(app, ["set-lineup", "--team-id", "1", "--dry-run",
                              "--data-dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
    body = body_of(res.output)
    assert body["type"] == "LINEUP" and body["teamId"] == 1 and body["memberId"] == "[REDACTED]"
    assert set(body) == {"isLeagueManager", "teamId", "type", "memberId", "scoringPeriodId",
                         "executionType", "items"}
    state = tmp_path / "demo-state-points.json"
    assert not state.exists() or '"lineup"' not in state.read_text()


def test_set_then_again_sends_nothing_the_second_time(tmp_path: Path) -> None:
    first = runner.invoke(app, ["set-lineup", "--team-id", "1", "--data-dir", str(tmp_path)])
    assert first.exit_code == 0, first.output
    assert "-> done (verified)" in first.output
    again = runner.invoke(app, ["set-lineup", "--team-id", "1", "--data-dir", str(tmp_path)])
    assert again.exit_code == 0 and "nothing sent" in again.output


def test_a_live_league_needs_the_owners_cookies_and_the_switch(tmp_path: Path,
                                                                 monkeypatch) -> None:
    for name in ("ESPN_S2", "ESPN_SWID", "FANVISE_ESPN_WRITES", "FANVISE_ESPN_WRITES_DRY_RUN"):
        monkeypatch.delenv(name, raising=False)
    res = runner.invoke(app, ["set-lineup", "--league-id", "123", "--team-id", "2",
                              "--data-dir", str(tmp_path)])
    assert res.exit_code == 1 and "cookies" in res.output
    monkeypatch.setenv("ESPN_S2", "AEB" + "x" * 40)
    monkeypatch.setenv("ESPN_SWID", "{11111111-2222-3333-4444-555555555555}")
    res = runner.invoke(app, ["set-lineup", "--league-id", "123", "--team-id", "2",
                              "--data-dir", str(tmp_path)])
    assert res.exit_code == 1 and "FANVISE_ESPN_WRITES=1" in res.output
    assert "AEB" not in res.output and "11111111" not in res.output


@pytest.mark.parametrize("point", ["espn_write:before_post", "espn_write:after_post"])
def test_sigkill_on_either_side_of_the_post_changes_the_league_once(tmp_path: Path,
                                                                      point: str) -> None:
    """A real SIGKILL of `fanvise set-lineup` at each crash point, then a rerun: the demo
    league's state shows one lineup change, and the journal ends done."""
    env = {**os.environ, "FANVISE_CRASH_AT": point, "FANVISE_DEMO_DISK_CACHE": "0"}
    cmd = [sys.executable, "-m", "bot.cli", "set-lineup", "--team-id", "1",
           "--data-dir", str(tmp_path)]
    killed = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-500:]
    state = tmp_path / "demo-state-points.json"

    def lineup_changes() -> int:
        if not state.exists():
            return 0
        return sum(1 for c in json.loads(state.read_text())["changes"] if c["kind"] == "lineup")
    assert lineup_changes() == (0 if point.endswith("before_post") else 1)
    env.pop("FANVISE_CRASH_AT")
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert lineup_changes() == 1
    db = sqlite3.connect(tmp_path / "fanvise.sqlite")
    rows = db.execute("SELECT status, attempts FROM espn_writes").fetchall()
    db.close()
    assert [r[0] for r in rows] == ["done"]
