"""CLI commands for this feature area (filled in by its issue)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this area's commands to the root app."""
