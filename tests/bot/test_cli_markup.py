"""Issue 12 #8 and minors: user text in CLI arguments is printed literally (Rich markup such
as "[/x]" never crashes with MarkupError), and a huge argument is refused or clipped instead
of echoed back in full. Real Typer app (bot.cli) on the demo league and demo news."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import app

MARKUP = "[/x]"
HUGE = "Z" * 100_000


@pytest.fixture
def runner(tmp_path, monkeypatch) -> CliRunner:
    monkeypatch.setenv("FANVISE_DATA_DIR", str(tmp_path))
    for var in ("FANVISE_ESPN_LEAGUE_ID", "FANVISE_ESPN_SEASON", "ESPN_S2", "ESPN_SWID",
                "FANVISE_ESPN_BASE_URL", "GOOGLE_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return CliRunner()


def _clean(res, code: int) -> str:
    out = res.output
    assert "MarkupError" not in out and "Traceback" not in out, out
    assert res.exit_code == code, out
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    return out


@pytest.mark.parametrize("args", [
    ["team", "show", MARKUP],
    ["free-agents", "--slot", MARKUP],
    ["league", "show", "--demo-today", MARKUP],
    ["team", "show", "HOOP", "--demo-today", MARKUP],
], ids=lambda a: " ".join(a))
def test_markup_in_league_arguments_is_printed_literally(runner, args) -> None:
    out = _clean(runner.invoke(app, args), 1)
    assert MARKUP in out and "error:" in out


def test_markup_in_news_arguments_is_printed_literally(runner, tmp_path: Path) -> None:
    res = runner.invoke(app, ["news", "ingest", "--demo", "--data-dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
    out = _clean(runner.invoke(app, ["news", "search", MARKUP, "--data-dir", str(tmp_path)]), 0)
    assert MARKUP in out
    out = _clean(runner.invoke(app, ["news", "player", MARKUP, "--data-dir", str(tmp_path)]), 0)
    assert MARKUP in out
    out = _clean(runner.invoke(app, ["news", "search", "ankle", "--player", MARKUP,
                                     "--data-dir", str(tmp_path)]), 0)
    out = _clean(runner.invoke(app, ["news", "search", "x", "--since", MARKUP,
                                     "--data-dir", str(tmp_path)]), 1)
    assert MARKUP in out


def test_markup_in_news_store_path_error(runner, tmp_path: Path) -> None:
    blocker = tmp_path / "[bold]file"
    blocker.write_text("a file where a folder should be")
    out = _clean(runner.invoke(app, ["news", "search", "x", "--data-dir",
                                     str(blocker / MARKUP)]), 1)
    assert "error:" in out


@pytest.mark.parametrize("args", [
    ["team", "show", HUGE],
    ["free-agents", "--slot", HUGE],
    ["news", "player", HUGE],
], ids=["team show", "free-agents --slot", "news player"])
def test_huge_argument_is_not_echoed_back(runner, args) -> None:
    res = runner.invoke(app, args)
    assert "Traceback" not in res.output
    assert len(res.output) < 3000, len(res.output)
    assert "Z" * 300 not in res.output


def test_ask_refuses_a_huge_question_before_running(runner, tmp_path: Path) -> None:
    res = runner.invoke(app, ["ask", HUGE, "--data-dir", str(tmp_path)])
    assert res.exit_code == 1, res.output
    assert "too long" in res.output and "Z" * 300 not in res.output
    assert not (tmp_path / "checkpoints.sqlite").exists()  # nothing ran
