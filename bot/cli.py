"""The `fanvise` command line: one Typer app, one module per feature area in bot/commands."""

from __future__ import annotations

import importlib
import sys
from typing import Annotated, Any

import typer

#: The modules of bot/commands, in help order, and the top-level commands each registers.
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "league": ("league", "team", "free-agents"),
    "news": ("news",),
    "ask": ("ask",),
    "run": ("run", "chat"),
    "evaluate": ("eval",),
    "health": ("health",),
    "doctor": ("doctor",),
    "writes": ("set-lineup",),
}


def version() -> str:
    """The installed FanVise version (package metadata), else the one in pyproject.toml."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("fanvise")
    except PackageNotFoundError:
        import re
        from pathlib import Path

        text = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text()
        m = re.search(r'^version\s*=\s*"([^"]+)"', text, re.MULTILINE)
        return m.group(1) if m else "unknown"


def _version_cb(value: bool) -> None:
    if value:
        typer.echo(f"fanvise {version()}")
        raise typer.Exit()


def _root(version_: Annotated[bool, typer.Option(
        "--version", callback=_version_cb, is_eager=True,
        help="Print the FanVise version and exit.")] = False) -> None:
    """FanVise: fantasy-basketball assistant for ESPN leagues."""


def build_app(modules: tuple[str, ...] = tuple(COMMAND_MODULES)) -> typer.Typer:
    """The Typer app with the commands of `modules` (default: all)."""
    cli = typer.Typer(no_args_is_help=True,
                      help="FanVise: fantasy-basketball assistant for ESPN leagues.")
    cli.callback()(_root)
    for name in modules:
        importlib.import_module(f"bot.commands.{name}").register(cli)
    return cli


def _modules_for(argv: list[str]) -> tuple[str, ...]:
    """Only the module of the command being run (its imports are all a start pays for);
    every module for help, options before the command, or an unknown command."""
    if argv and not argv[0].startswith("-"):
        for module, commands in COMMAND_MODULES.items():
            if argv[0] in commands:
                return (module,)
    return tuple(COMMAND_MODULES)


def __getattr__(name: str) -> Any:
    """`bot.cli.app`: the app with every command, built on first use."""
    if name == "app":
        cli = build_app()
        globals()["app"] = cli
        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Entry point of the `fanvise` console script. A missing package stops any command
    (except help, --version and `doctor`, which reports it) with one line naming it and
    the install command."""
    argv = sys.argv[1:]
    if argv and not argv[0].startswith("-") and argv[0] != "doctor" \
            and not {"--help", "-h"} & set(argv):
        from bot.commands.doctor import require_parts
        require_parts()
    build_app(_modules_for(argv))()


if __name__ == "__main__":
    main()
