"""`fanvise ask` through typer's CliRunner on the demo league (offline model)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _runtime_support import contract_optimizer  # type: ignore[import-not-found]
from typer.testing import CliRunner

import agents.runtime as runtime_mod
from bot.cli import app

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
    # progress lines, coalesced as in `fanvise chat` (which ones show depends on timing)
    assert res.output.startswith("⏳ Thinking…") and res.output.count("⏳ ") >= 2
    assert "Jalen Brunson" in res.output and "Offline mode" in res.output
    assert (tmp_path / "checkpoints.sqlite").exists()


def _card_choices(output: str) -> dict[str, int]:
    """label -> number of the card's choices printed by the console ("[3] Approve #3")."""
    return {label.strip(): int(n) for n, label in
            re.findall(r"\[(\d+)\] ([^\[\n]+?)(?=\s+\[|\n|$)", output)}


def test_ask_draws_the_chat_card_and_numbers_from_stdin(tmp_path: Path,
                                                         optimizer: None) -> None:
    """`fanvise ask` shows the card `fanvise chat` shows (the plan's moves once, other
    players as a menu that never approves), no outcome JSON, and a number clicks."""
    res = runner.invoke(app, ["ask", "Review my matchup and suggest moves",
                              "--data-dir", str(tmp_path)], input="")
    assert res.exit_code == 0, res.output
    assert "1. Wed: drop Gordon Hayward" in res.output
    assert "(choosing does not approve)" in res.output and "Approve plan" in res.output
    assert "move_id" not in res.output and '"status"' not in res.output
    assert "stays pending" in res.output
    first = _card_choices(res.output)
    # the same card in the next session: the same numbers; a menu number only chooses
    menu = next(n for label, n in first.items() if "(vs " in label)  # another player
    again = runner.invoke(app, ["chat", "--data-dir", str(tmp_path), "--session", "cli"],
                          input=f"{menu}\n")
    assert "Still waiting for your decision" in again.output, again.output
    assert _card_choices(again.output)["Approve #1"] == first["Approve #1"]
    assert "not approved yet" in again.output
    chat = runner.invoke(app, ["chat", "--data-dir", str(tmp_path), "--session", "cli"],
                         input=f"{first['Approve #1']}\n")
    assert _card_choices(chat.output)["Approve #1"] == first["Approve #1"]
    assert "👍 1." in chat.output.split("(updated)")[-1]


def test_ask_yes_no_flags_and_bad_flags(tmp_path: Path, optimizer: None) -> None:
    res = runner.invoke(app, ["ask", "Review my matchup", "--data-dir", str(tmp_path), "--no",
                              "--user", "ann"])
    assert res.exit_code == 0, res.output
    assert "Decided by ann: 5 skipped by you" in res.output
    both = runner.invoke(app, ["ask", "x", "--yes", "--no", "--data-dir", str(tmp_path)])
    assert both.exit_code == 1 and "either --yes or --no" in both.output
    bad = runner.invoke(app, ["ask", "hi", "--variant", "bogus", "--data-dir", str(tmp_path)])
    assert bad.exit_code == 1 and "Traceback" not in bad.output


def test_ask_refuses_credentials_like_chat_and_stores_nothing(tmp_path: Path) -> None:
    """Issue 25 item 10: the chat core's credential guard serves `fanvise ask` too."""
    s2 = "AEBq" + "x7" * 40
    swid = "{11111111-2222-3333-4444-555555555555}"
    res = runner.invoke(app, ["ask", f"link team=1 espn_s2={s2} swid={swid}",
                              "--data-dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "looks like ESPN cookies" in res.output and s2 not in res.output
    stored = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert s2.encode() not in stored and b"11111111-2222" not in stored


def test_ask_uses_news_store_in_data_dir(tmp_path: Path) -> None:
    ingest = runner.invoke(app, ["news", "ingest", "--demo", "--data-dir", str(tmp_path)])
    assert ingest.exit_code == 0, ingest.output
    res = runner.invoke(app, ["ask", "Is Jarrett Allen playing tonight?",
                              "--data-dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
    # (progress lines are coalesced as in `fanvise chat`; the answer shows the news used)
    assert "Rotowire" in res.output and "Conflicting reports" in res.output
