"""Every `fanvise` command the docs give (README.md and docs/*.md, in code blocks and inline
code) is run by this test in the syntax the doc gives: each one is parsed by the real CLI
(an unknown command or option, or a missing argument, fails), and every one that finishes
on its own is run on the demo league and must succeed. The servers (`fanvise run …`,
`fanvise chat`) and the full evaluation are parsed only; their runs are tested elsewhere
(tests/bot, tests/onboarding/test_running_standin.py, tests/eval)."""

from __future__ import annotations

import itertools
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from bot.cli import build_app

try:  # the click that Typer's commands are made of (recent Typer vendors its own)
    from typer._click.exceptions import UsageError  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - older Typer on the real click
    from click import UsageError

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: what a placeholder of a usage line stands for on the demo league
PLACEHOLDERS = {"TEAM": "Hoop Dreamers", "NAME": "Jalen Brunson", "TEXT": "Brunson",
                "QUESTION": "is brunson playing tonight", "N": "1", "DIR": "{data}",
                "<id>": "help_01"}
#: parsed only: they serve until stopped, take minutes (tested elsewhere) or read the web
PARSE_ONLY = (("run",), ("chat",), ("eval",), ("news", "ingest"))
#: runnable after all: offline and quick
RUN_ANYWAY = (["eval", "--list"], ["news", "ingest", "--demo"])


def documented() -> dict[str, str]:
    """{command as a doc gives it: the doc}: every `fanvise …` line of a code block and
    every inline `fanvise …`."""
    found: dict[str, str] = {}
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        lines = [ln for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S)
                 for ln in block.splitlines()]
        lines += [m.replace("\n", " ") for m in
                  re.findall(r"`((?:[A-Z_]+=\S+ )*fanvise [^`]+)`", text)]
        for line in lines:
            for part in re.split(r"&&|;", line.split("  #")[0].split(" # ")[0]):
                part = part.strip().removeprefix("$ ").strip()
                if re.match(r"(?:[A-Z_]+=\S+ )*fanvise\b", part):
                    found.setdefault(part, doc.name)
    return found


def variants(usage: str, *, every: bool = True) -> list[list[str]]:
    """The argument lists a usage line stands for: each `a|b` alternative, each optional
    `[…]` group left out and put in, placeholders filled in (env assignments dropped).
    Not `every`: the line with no optional group and the line with all of them (each
    group's first alternative), the two a run needs."""
    usage = usage.replace("\\|", "|")
    words = shlex.split(usage)
    words = [w for w in words if not re.fullmatch(r"[A-Z_]+=\S*", w)][1:]  # no "fanvise"
    # optional groups: "[--slot C]" -> (), ("--slot", "C"); "[--yes|--no]" -> each
    groups: list[list[list[str]]] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w.startswith("["):
            j = i
            while not words[j].endswith("]"):
                j += 1
            inner = " ".join(words[i:j + 1])[1:-1]
            groups.append([[]] + [alt.split() for alt in inner.split("|")])
            i = j + 1
        elif "|" in w and not w.startswith("-") or re.fullmatch(r"--\w[\w-]*(\|--\w[\w-]*)+", w):
            groups.append([[alt] for alt in w.split("|")])
            i += 1
        else:
            groups.append([[w]])
            i += 1
    out = []
    combos = itertools.product(*groups) if every else [
        [g[0] for g in groups], [g[1] if len(g) > 1 and g[0] == [] else g[0] for g in groups]]
    for combo in combos:
        argv = [PLACEHOLDERS.get(a, a) for part in combo for a in part]
        if argv not in out:
            out.append(argv)
    return out


def _rest(ctx: Any) -> list[str]:
    """A group's words left for its subcommand (click 8.2 keeps them private)."""
    protected = getattr(ctx, "_protected_args", None)
    if protected is None:
        protected = getattr(ctx, "protected_args", [])
    return [*protected, *ctx.args]


def _cli() -> Any:
    return typer.main.get_command(build_app())


COMMANDS = documented()


def test_the_docs_give_commands() -> None:
    assert len(COMMANDS) >= 25, COMMANDS
    assert any(c.startswith("fanvise ask") for c in COMMANDS)


@pytest.mark.parametrize("usage", sorted(COMMANDS), ids=lambda u: u[:60])
def test_each_documented_command_parses(usage: str, tmp_path: Path) -> None:
    cli = _cli()
    for argv in variants(usage):
        argv = [a.replace("{data}", str(tmp_path)) for a in argv]
        if argv in (["--version"],):
            continue  # an eager option: run below
        try:
            ctx = cli.make_context("fanvise", list(argv), resilient_parsing=False)
            sub = _rest(ctx)
            cmd: Any = cli
            while sub and hasattr(cmd, "resolve_command"):  # a group: its subcommand
                name, cmd, sub = cmd.resolve_command(ctx, sub)
                assert cmd is not None and name is not None
                ctx = cmd.make_context(name, list(sub), parent=ctx)
                sub = _rest(ctx) if hasattr(cmd, "resolve_command") else []
        except UsageError as exc:
            pytest.fail(f"{usage!r} ({COMMANDS[usage]}) as {argv}: {exc}")


def _runnable(argv: list[str]) -> bool:
    return not any(tuple(argv[:len(p)]) == p for p in PARSE_ONLY) or argv in RUN_ANYWAY


RUNS = sorted({" ".join(shlex.quote(a) for a in argv)
               for usage in COMMANDS for argv in variants(usage, every=False)
               if _runnable(argv)})


@pytest.mark.parametrize("line", RUNS, ids=lambda u: u[:60])
def test_each_documented_command_runs_on_the_demo_league(line: str, tmp_path: Path,
                                                         monkeypatch) -> None:
    for var in ("FANVISE_ESPN_LEAGUE_ID", "ESPN_S2", "ESPN_SWID", "FANVISE_DATABASE_URL",
                "GOOGLE_API_KEY", "DISCORD_TOKEN", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("FANVISE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("FANVISE_TEAM_ID", "1")
    argv = [a.replace("{data}", str(tmp_path)) for a in shlex.split(line)]
    result = CliRunner().invoke(build_app(), argv)
    assert result.exit_code == 0 or (argv[0] == "doctor" and result.exit_code == 1
                                     and "FAIL" in result.output), \
        f"fanvise {line}\n{result.output[-3000:]}"
