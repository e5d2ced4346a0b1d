"""Console adapter and `fanvise chat` / `fanvise run console` on the demo league with the
offline model: piped stdin, EOF and quit, numbered choices, a card decided after a restart,
bad configuration."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from bot.cli import app

ENV_DROP = ("GOOGLE_API_KEY", "DISCORD_TOKEN", "SLACK_BOT_TOKEN", "ESPN_S2", "ESPN_SWID",
            "FANVISE_ESPN_LEAGUE_ID", "FANVISE_DATA_DIR")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ENV_DROP}
    env.update(extra)
    return env


def test_piped_question_answers_and_exits_on_eof(tmp_path: Path) -> None:
    """The README's command in a script: `echo "who should I start today?" | fanvise chat`."""
    exe = Path(sys.executable).with_name("fanvise")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "bot.cli"]
    proc = subprocess.run(cmd + ["chat", "--data-dir", str(tmp_path)],
                          input="who should I start today?\n", capture_output=True, text=True,
                          timeout=240, env=_env(), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    assert "FanVise chat: demo league (points), offline mode" in out
    # the lineup card (one renderer for /lineup, the daily post and lineup questions)
    assert "Daily lineup for Hoop Dreamers, Wed Jan 25" in out and "Optimal starters" in out
    assert "Traceback" not in out + proc.stderr
    assert (tmp_path / "fanvise.sqlite").exists() and (tmp_path / "checkpoints.sqlite").exists()


def test_quit_stops_before_later_lines(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["run", "console", "--data-dir", str(tmp_path)],
                             input="/help\nquit\nwho should I start today?\n", env=_env())
    assert res.exit_code == 0, res.output
    assert "FanVise commands" in res.output and "/daily HH:MM" in res.output
    assert "Start:" not in res.output


def _number_of(output: str, label: str) -> str:
    import re

    found = re.findall(r"\[(\d+)\] " + re.escape(label), output)
    assert found, f"no choice {label!r} in {output[-1500:]}"
    return found[-1]


def test_numbered_choices_and_decision_after_restart(tmp_path: Path) -> None:
    """The plan card on the console: numbered Approve/Skip per move, a numbered menu of other
    players per spot (the plan's pick preselected), Approve plan / Skip all; after a restart
    the pending card comes back with its choices and its recorded decisions."""
    runner = CliRunner()
    args = ["chat", "--data-dir", str(tmp_path), "--session", "s1"]
    first = runner.invoke(app, args, input="Review my matchup this week\n", env=_env())
    assert first.exit_code == 0, first.output
    assert "review these moves" in first.output
    assert "[1] Approve #1" in first.output and "Approve plan" in first.output
    assert "(plan's pick) (preselected)" in first.output
    assert "Wed: drop " in first.output and "fantasy points this week" in first.output

    # restart: the pending card is shown again with its choices (the same numbers); typing 1
    # approves move 1, then "Skip the rest" decides the card
    skip = _number_of(first.output, "Skip all")
    second = runner.invoke(app, args, input=f"99\n1\n{skip}\n", env=_env())
    assert second.exit_code == 0, second.output
    out = second.output
    assert "Still waiting for your decision" in out
    assert "No choice 99" in out
    assert "(updated)" in out and "👍 1." in out and "Skip the rest" in out
    assert "Decided by" in out and "1 applied" in out and "skipped by you" in out
    final = out.split("Decided by")[-1]
    assert "✅ 1." in out and "✅ 2." not in final  # ✅ only on the applied move
    # a partial decision re-plans the rest: a new card in the same conversation
    assert "The rest of your plan" in final and "Approve plan" in final

    third = runner.invoke(app, args, input="", env=_env())
    assert third.exit_code == 0 and "Still waiting" in third.output
    assert "The rest of your plan" in third.output


def test_bad_configuration_is_one_clear_line(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["chat", "--data-dir", str(tmp_path)], input="",
                        env=_env(FANVISE_ESPN_SEASON="abc"))
    assert res.exit_code == 2 and "bad configuration" in res.output
    res = runner.invoke(app, ["run", "discord", "--data-dir", str(tmp_path)], input="",
                        env=_env())
    assert res.exit_code == 2 and "DISCORD_TOKEN" in res.output
    res = runner.invoke(app, ["run", "slack", "--data-dir", str(tmp_path)], input="",
                        env=_env(SLACK_BOT_TOKEN="xoxb-123456789012-abcdefghijkl"))
    assert res.exit_code == 2 and "SLACK_SIGNING_SECRET" in res.output
    assert "xoxb-123456789012" not in res.output


def test_piped_script_of_many_questions_is_not_rate_limited(tmp_path: Path) -> None:
    """`printf '...' | fanvise chat` with more questions than FANVISE_LLM_BURST: the console
    is one local user, every line is answered (the per-user limit is for shared bots)."""
    questions = ["hello", "who should I start today?", "who should I start tomorrow?",
                 "How is Jarrett Allen doing?", "who should I start on 2023-01-27?"]
    res = CliRunner().invoke(app, ["chat", "--data-dir", str(tmp_path)],
                             input="".join(q + "\n" for q in questions),
                             env=_env(FANVISE_LLM_BURST="1", FANVISE_LLM_PER_MINUTE="1"))
    assert res.exit_code == 0, res.output
    assert "asking quickly" not in res.output
    assert "Jarrett Allen" in res.output and "Daily lineup for Hoop Dreamers, Fri Jan 27" \
        in res.output
