"""The `fanvise` command line: one Typer app, one module per feature area in bot/commands."""

from __future__ import annotations

from typing import Annotated

import typer

from bot.commands import ask, evaluate, health, league, news, run

app = typer.Typer(no_args_is_help=True, help="FanVise: fantasy-basketball assistant for ESPN leagues.")

for _module in (league, news, ask, run, evaluate, health):
    _module.register(app)


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


@app.callback()
def _root(version_: Annotated[bool, typer.Option(
        "--version", callback=_version_cb, is_eager=True,
        help="Print the FanVise version and exit.")] = False) -> None:
    """FanVise: fantasy-basketball assistant for ESPN leagues."""


def main() -> None:
    """Entry point of the `fanvise` console script."""
    app()


if __name__ == "__main__":
    main()
