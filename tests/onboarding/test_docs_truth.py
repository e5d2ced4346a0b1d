"""The docs say what the code does: their command tables, the Slack manifest and the slash
command list match the one command table (bot/core/commands.py), Discord-style options in
the docs are options of that command, and the console's choice names in docs/running.md
are the ones the console shows (read by running the console on the demo league)."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from bot.cli import build_app
from bot.core.commands import NAMES, command

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def read(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def section(text: str, heading: str) -> str:
    """The text under the heading that starts with `heading`, up to the next heading."""
    m = re.search(rf"^#+ {re.escape(heading)}.*?$(.*?)(?=^#+ |\Z)", text, re.M | re.S)
    assert m, heading
    return m.group(1)


def first_cells(table_text: str) -> list[str]:
    """The first cell (inside backticks) of each row of the markdown tables in the text."""
    return re.findall(r"^\| `([^`]+)`", table_text, re.M)


def test_discord_setup_table_lists_every_command_with_its_options() -> None:
    cells = first_cells(section(read("docs/discord-setup.md"), "4. Use it"))
    rows = {c.split()[0].lstrip("/"): c for c in cells}
    assert set(rows) == set(NAMES)
    for name, cell in rows.items():
        written = set(re.findall(r"([a-z_0-9]+):", cell))
        assert written == {o.name for o in command(name).options}, (name, cell)


def test_slack_setup_table_and_manifest_list_every_command() -> None:
    text = read("docs/slack-setup.md")
    cells = first_cells(section(text, "5. Use it"))
    names = {c.split()[1] for c in cells if c.startswith("/fanvise ")}
    assert set(NAMES) <= names <= set(NAMES) | {"<question>"}
    described = re.search(r'description: "FanVise: ([^"]+)"', text)
    assert described and [n.strip() for n in described.group(1).split(",")] == list(NAMES)
    assert "@FanVise" in "".join(cells)
    # doctor checks a token's scopes against the manifest's
    from bot.commands.doctor import SLACK_SCOPES

    bot_scopes = re.search(r"scopes:\n\s+bot:\n((?:\s+- .*\n)+)", text)
    assert bot_scopes
    listed = [ln.split("-", 1)[1].split("#")[0].strip()
              for ln in bot_scopes.group(1).splitlines()]
    assert listed == list(SLACK_SCOPES)


def test_running_md_lists_the_slash_commands() -> None:
    m = re.search(r"slash commands `(/[^`]+)`", read("docs/running.md"))
    assert m and m.group(1).split() == [f"/{n}" for n in NAMES]


def test_command_references_in_the_docs_exist() -> None:
    """Every `/fanvise X` is a command, and every `/name option:value` written the Discord
    way names an option of that command."""
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for sub in re.findall(r"`/fanvise ([a-z]+)", text):
            assert sub in NAMES or sub in ("help",), (doc.name, sub)
        for name, rest in re.findall(r"`/([a-z]+)((?: [^`]*)?)`", text):
            cmd = command(name)
            if cmd is None or "=" in rest:
                continue
            for opt in re.findall(r"(?:^|\s|\[)([a-z][a-z_0-9]*):", rest):
                assert opt in {o.name for o in cmd.options}, (doc.name, name, opt)


def test_team_id_is_documented_as_what_it_does() -> None:
    for doc in DOCS:
        assert "default team for users without" not in doc.read_text(encoding="utf-8"), doc


def _labels(line: str) -> set[str]:
    found = re.findall(r"\[\d+\] (.+?)(?=\s+\[\d+\]|\s+\.\.\.|`|$)", line)
    return {re.sub(r"#\d+", "#N", label.strip()) for label in found}


def test_console_choices_in_running_md_are_the_consoles(tmp_path) -> None:
    result = CliRunner().invoke(build_app(("run",)), ["chat", "--data-dir", str(tmp_path)],
                                input="review my matchup\nquit\n")
    assert result.exit_code == 0, result.output
    shown = [ln for ln in result.output.splitlines() if "[1] " in ln]
    assert shown, result.output[-2000:]
    console = _labels(shown[0])
    doc = section(read("docs/running.md"), "Console")
    documented = [ln for ln in re.findall(r"`([^`]*\[1\] [^`]*)`", doc.replace("\n  ", " "))]
    assert documented, "docs/running.md shows no console choices"
    assert _labels(documented[0]) == console, (documented[0], shown[0])


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_links_to_doc_sections_exist() -> None:
    """Every `docs/x.md#anchor` (or `x.md#anchor`) in the docs and in doctor's fixes names a
    heading of that file."""
    sources = DOCS + [ROOT / "bot" / "commands" / "doctor.py"]
    checked = 0
    for src in sources:
        text = src.read_text(encoding="utf-8")
        for target, anchor in re.findall(r"([a-z\-]+\.md)#([a-z0-9\-]+)", text):
            path = ROOT / "docs" / target
            if target == "README.md" or not path.exists():
                continue
            headings = re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), re.M)
            assert anchor in {_slug(h) for h in headings}, (src.name, target, anchor)
            checked += 1
    assert checked >= 5
