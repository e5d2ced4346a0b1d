"""The `fanvise` command line: one Typer app, one module per feature area in bot/commands."""

from __future__ import annotations

import typer

from bot.commands import ask, evaluate, league, news, run

app = typer.Typer(no_args_is_help=True, help="FanVise: fantasy-basketball assistant for ESPN leagues.")

for _module in (league, news, ask, run, evaluate):
    _module.register(app)


def main() -> None:
    """Entry point of the `fanvise` console script."""
    app()


if __name__ == "__main__":
    main()
