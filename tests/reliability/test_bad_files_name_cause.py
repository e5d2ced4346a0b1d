"""Issue 25 item 7: error lines name their cause. A garbage demo state file, a demo state
whose "changes" is not a list, and a 40-digit FANVISE_ESPN_LEAGUE_ID each give one line that
says which file or setting is wrong and what a valid one looks like (they gave "'utf-8'
codec can't decode byte 0xa7…", "AttributeError: 'str' object has no attribute 'get'" and
"OverflowError: Python int too large…"). In-process checks of the demo league, the settings
and the CLI's league options, then real `fanvise` processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.commands._league_source import LeagueSource, SourceError
from bot.settings import Settings
from fantasy.demo.league import DemoError, DemoLeague

REPO = Path(__file__).resolve().parents[2]
LONG_ID = "1234567890" * 4

BAD_STATES = {
    "garbage": bytes(range(0xA7, 0xFF)) * 20,
    "changes-nope": json.dumps({"variant": "points", "changes": "nope"}).encode(),
    "change-no-kind": json.dumps({"variant": "points", "changes": [{"team_id": 1}]}).encode(),
    "a-list": b"[1, 2, 3]",
    "not-json": b"{variant: points",
}


def _valid_state_shown(text: str) -> None:
    assert '"variant": "points"' in text and '"changes": []' in text, text
    assert "delete it" in text, text


@pytest.mark.parametrize("name", list(BAD_STATES))
def test_a_damaged_demo_state_names_the_file_and_a_valid_one(tmp_path, name) -> None:
    path = tmp_path / "demo-state-points.json"
    path.write_bytes(BAD_STATES[name])
    with pytest.raises(DemoError) as ei:
        DemoLeague("points", state_path=path)
    text = str(ei.value)
    assert str(path) in text and "damaged" in text, text
    assert "codec" not in text and "Error" not in text and "object has no" not in text, text
    _valid_state_shown(text)
    assert path.read_bytes() == BAD_STATES[name]  # nothing lost: the file is left as it was


def test_a_saved_state_still_loads(tmp_path) -> None:
    path = tmp_path / "demo-state-points.json"
    path.write_text(json.dumps({"variant": "points", "today": "2023-01-26", "changes": []}))
    assert DemoLeague("points", state_path=path).today.isoformat() == "2023-01-26"


def test_a_40_digit_league_id_is_refused_by_settings_and_cli_options() -> None:
    with pytest.raises(ValidationError) as ei:
        Settings(_env_file=None, FANVISE_ESPN_LEAGUE_ID=LONG_ID)
    for text in (ei.value.errors()[0]["msg"],):  # what `fanvise` prints (bot/commands/run)
        assert "FANVISE_ESPN_LEAGUE_ID" in text and "leagueId=" in text and "12345678" in text
        assert "40-digit" in text and LONG_ID not in text
    with pytest.raises(SourceError) as ei2:
        LeagueSource.from_options(env={"FANVISE_ESPN_LEAGUE_ID": LONG_ID})
    assert "leagueId=" in str(ei2.value) and "40-digit" in str(ei2.value)
    with pytest.raises(SourceError):
        LeagueSource.from_options(league_id=0, env={})
    assert Settings(_env_file=None, FANVISE_ESPN_LEAGUE_ID="123456789012").espn_league_id \
        == 123456789012
    assert LeagueSource.from_options(league_id="987654", env={}).league_id == 987654


def _fanvise(args: list[str], tmp_path: Path, **env_vars: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("FANVISE_", "DISCORD_", "SLACK_", "ESPN_", "GOOGLE_"))}
    env.update({"FANVISE_DATA_DIR": str(tmp_path / "data"), "HOME": str(tmp_path),
                "PYTHONPATH": str(REPO), **env_vars})
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=tmp_path, env=env,
                          input="who should I start today?\n", capture_output=True,
                          text=True, timeout=120)


def _one_line(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode != 0, proc.stdout[-500:]
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1, proc.stderr
    return lines[0]


@pytest.mark.parametrize("name", ["garbage", "changes-nope"])
def test_fanvise_chat_on_a_damaged_demo_state_says_which_file(tmp_path, name) -> None:
    path = tmp_path / "data" / "demo-state-points.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(BAD_STATES[name])
    line = _one_line(_fanvise(["chat"], tmp_path))
    assert "demo-state-points.json is damaged" in line, line
    _valid_state_shown(line)


def test_fanvise_chat_with_a_40_digit_league_id_says_which_setting(tmp_path) -> None:
    line = _one_line(_fanvise(["chat"], tmp_path, FANVISE_ESPN_LEAGUE_ID=LONG_ID))
    assert "FANVISE_ESPN_LEAGUE_ID" in line and "leagueId=" in line, line
    assert "Overflow" not in line and "40-digit" in line, line
