"""The CLI's league flags are spelled and typed the same in every command; `chat` and `run`
take them too; the old `ask --variant` still works (hidden)."""

from __future__ import annotations

from typing import Any

import typer

from bot.cli import build_app

SHARED = ("--league-id", "--season", "--demo-variant", "--demo-today", "--team-id",
          "--data-dir")


def _commands(group: Any, prefix: str = "") -> dict[str, Any]:
    """Every command (typer's click objects, duck-typed: typer vendors its click)."""
    out: dict[str, Any] = {}
    for name, cmd in group.commands.items():
        if hasattr(cmd, "commands"):
            out.update(_commands(cmd, f"{prefix}{name} "))
        else:
            out[prefix + name] = cmd
    return out


def _kind(param: Any) -> str:
    """The option's value type (typer's annotation, or click's type name)."""
    desc = getattr(param, "type_descriptor", None)
    kind = getattr(desc, "annotation", None) or getattr(getattr(param, "type", None), "name", "")
    return getattr(kind, "__name__", str(kind))


def _options(cmd: Any) -> dict[str, Any]:
    return {opt: p for p in cmd.params if p.param_type_name == "option" for opt in p.opts}


def test_each_flag_has_one_spelling_and_type() -> None:
    commands = _commands(typer.main.get_command(build_app()))
    seen: dict[str, set[str]] = {}
    for name, cmd in commands.items():
        opts = _options(cmd)
        for flag in SHARED:
            if flag in opts:
                seen.setdefault(flag, set()).add(f"{_kind(opts[flag])}|{opts[flag].help}")
        assert "--variant" not in opts or opts["--variant"].hidden, name
    for flag, kinds in seen.items():
        assert len(kinds) == 1, (flag, kinds)
    assert next(iter(seen["--league-id"])).startswith("int|")
    assert next(iter(seen["--season"])).startswith("int|")
    for name in ("chat", "run", "ask", "league show", "team show", "free-agents"):
        opts = _options(commands[name])
        assert {"--league-id", "--season", "--demo-variant", "--data-dir"} <= set(opts), name


def test_ask_keeps_the_old_variant_spelling(tmp_path) -> None:
    from typer.testing import CliRunner

    app = build_app(("ask",))
    bad = CliRunner().invoke(app, ["ask", "hi", "--variant", "bogus",
                                   "--data-dir", str(tmp_path)])
    assert bad.exit_code == 1 and "--demo-variant must be points or categories" in bad.output
    bad = CliRunner().invoke(app, ["ask", "hi", "--demo-variant", "bogus",
                                   "--data-dir", str(tmp_path)])
    assert bad.exit_code == 1 and "--demo-variant must be points or categories" in bad.output
    bad = CliRunner().invoke(app, ["ask", "hi", "--league-id", "abc"])
    assert bad.exit_code == 2 and "--league-id" in bad.output


def test_chat_takes_the_league_options(espn, tmp_path, monkeypatch) -> None:
    """`fanvise chat --league-id ... --season ...` answers on that league (a public one here,
    served at the wire) instead of the demo; the console asks to link, then acts for it."""
    from typer.testing import CliRunner

    from tests.onboarding.conftest import CONFIG_VARS, LEAGUE_ID, SEASON

    for var in CONFIG_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    espn.private = False
    monkeypatch.setenv("FANVISE_ESPN_BASE_URL", espn.base_url)
    result = CliRunner().invoke(
        build_app(("run",)),
        ["chat", "--data-dir", str(tmp_path / "d"), "--league-id", str(LEAGUE_ID),
         "--season", str(SEASON)], input="/link 1\nwho is in first place?\nquit\n")
    assert result.exit_code == 0, result.output
    assert f"ESPN league {LEAGUE_ID}" in result.output  # the banner: not the demo league
    assert "Linked you to Hoop Dreamers (team 1)" in result.output  # bold drawn
    assert "lead the league" in result.output and espn.cookies  # answered, read over HTTP
