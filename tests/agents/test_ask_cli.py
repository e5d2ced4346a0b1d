"""`fanvise ask` through typer's CliRunner on the demo league (offline model)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _runtime_support import contract_optimizer  # type: ignore[import-not-found]
from typer.testing import CliRunner

import agents.runtime as runtime_mod
from bot.cli import app
from bot.commands.ask import parse_choice

runner = CliRunner()


@pytest.fixture
def optimizer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Use the real matchup optimizer when it is installed, else the contract graph."""
    if runtime_mod.optimizer_builder() is None:
        monkeypatch.setattr(runtime_mod, "optimizer_builder", lambda: contract_optimizer)


def test_ask_prints_progress_and_answer(tmp_path: Path) -> None:
    res = runner.invoke(app, ["ask", "Is Jalen Brunson playing tonight?",
                              "--data-dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "... Understanding your question..." in res.output
    assert "Jalen Brunson" in res.output and "Offline mode" in res.output
    assert (tmp_path / "checkpoints.sqlite").exists()


def test_ask_numbered_choices_from_stdin(tmp_path: Path, optimizer: None) -> None:
    res = runner.invoke(app, ["ask", "Review my matchup and suggest moves",
                              "--data-dir", str(tmp_path)], input="1\n")
    assert res.exit_code == 0, res.output
    assert "1) approve move 1: Wed: drop Gordon Hayward, add Kelly Olynyk" in res.output
    assert "approve all" in res.output and "decline" in res.output
    # after the choice the run finished with an answer (no pending approval left)
    again = runner.invoke(app, ["ask", "hello", "--data-dir", str(tmp_path)])
    assert again.exit_code == 0


def test_ask_no_flag_declines_and_bad_flags(tmp_path: Path, optimizer: None) -> None:
    res = runner.invoke(app, ["ask", "Review my matchup", "--data-dir", str(tmp_path), "--no"])
    assert res.exit_code == 0, res.output
    assert "decline" in res.output
    both = runner.invoke(app, ["ask", "x", "--yes", "--no", "--data-dir", str(tmp_path)])
    assert both.exit_code == 1 and "either --yes or --no" in both.output
    bad = runner.invoke(app, ["ask", "hi", "--variant", "bogus", "--data-dir", str(tmp_path)])
    assert bad.exit_code == 1 and "Traceback" not in bad.output


def test_ask_eof_leaves_approval_pending(tmp_path: Path, optimizer: None) -> None:
    res = runner.invoke(app, ["ask", "Review my matchup", "--data-dir", str(tmp_path)],
                        input="")
    assert res.exit_code == 0, res.output
    assert "stays pending" in res.output


def test_parse_choice() -> None:
    moves = [{"move_id": "a"}, {"move_id": "b"}]
    assert parse_choice("3", moves) == "approve"
    assert parse_choice("all", moves) == "approve"
    assert parse_choice("4", moves) == "decline"
    assert parse_choice("2", moves) == {"a": "decline", "b": "approve"}
    assert parse_choice("1,2", moves) == {"a": "approve", "b": "approve"}
    assert parse_choice("9", moves) is None
    assert parse_choice("what", moves) is None


def test_ask_uses_news_store_in_data_dir(tmp_path: Path) -> None:
    ingest = runner.invoke(app, ["news", "ingest", "--demo", "--data-dir", str(tmp_path)])
    assert ingest.exit_code == 0, ingest.output
    res = runner.invoke(app, ["ask", "Is Jarrett Allen playing tonight?",
                              "--data-dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "Checking get player news" in res.output
    assert "Rotowire" in res.output and "Conflicting reports" in res.output
