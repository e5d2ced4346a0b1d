"""`fanvise health`: the container HEALTHCHECK (exit 0 healthy, 1 unhealthy), one line per
check:

- database: Postgres answers `SELECT 1` (FANVISE_DATABASE_URL), or the data directory is a
  writable folder whose SQLite files open read-only;
- chat: the surface's connection settings are present (DISCORD_TOKEN; SLACK_BOT_TOKEN with
  SLACK_APP_TOKEN or SLACK_SIGNING_SECRET) and, when the running bot writes a heartbeat,
  that it is fresh and says the chat connection is up;
- espn: the ESPN circuit breaker's state from the heartbeat (closed / half_open / open and
  when ESPN is tried again). An open circuit means ESPN is down, which a restart does not
  fix: it is reported and fails the check only with `--strict`.

The heartbeat is `<data_dir>/heartbeat-<surface>.json`, rewritten every `HEARTBEAT_EVERY`
seconds by `heartbeat_loop(app, surface, connected)` in the serving process. Without a
heartbeat file (a bot that does not write one) those parts are reported as unknown and do
not fail the check. Nothing secret is printed: the database URL's password is masked.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

#: Seconds between heartbeats; a heartbeat older than 4 of these is stale (a hung bot).
HEARTBEAT_EVERY = 15.0
STALE_AFTER = 4 * HEARTBEAT_EVERY


@dataclass(frozen=True)
class Check:
    """One line of `fanvise health`."""

    name: str
    ok: bool
    detail: str


@dataclass(frozen=True)
class Heartbeat:
    """What the serving process last said about itself."""

    surface: str
    pid: int
    at: float
    chat_connected: bool | None
    espn_state: str | None
    espn_retry_in: float
    espn_last_error: str | None


def heartbeat_path(data_dir: Path, surface: str) -> Path:
    """Where a surface's heartbeat lives."""
    return Path(data_dir) / f"heartbeat-{surface}.json"


def make_heartbeat(app: Any, surface: str, connected: Callable[[], bool | None] | None
                   ) -> Heartbeat:
    """A heartbeat from a running FanViseApp (ESPN circuit of its client)."""
    from fantasy.redact import redact

    circuit = getattr(getattr(app, "espn", None), "circuit", None)
    status = circuit.status() if circuit is not None else None
    conn: bool | None = None
    if connected is not None:
        try:
            conn = bool(connected())
        except Exception:  # noqa: BLE001 - a probe that fails says "not connected"
            conn = False
    return Heartbeat(
        surface=surface, pid=os.getpid(), at=time.time(), chat_connected=conn,
        espn_state=status.state if status else None,
        espn_retry_in=float(status.retry_in) if status else 0.0,
        espn_last_error=redact(status.last_error)[:200] if status and status.last_error
        else None)


def write_heartbeat(path: Path, beat: Heartbeat) -> None:
    """Write atomically (rename), so the health check never reads half a file."""
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(asdict(beat)))
    os.replace(tmp, path)


async def heartbeat_loop(app: Any, surface: str,
                         connected: Callable[[], bool | None] | None = None, *,
                         every: float = HEARTBEAT_EVERY) -> None:
    """Rewrite the heartbeat every `every` seconds until cancelled, then remove it (errors
    are ignored: a full disk must not stop the bot; the check then sees a stale one)."""
    path = heartbeat_path(app.settings.data_dir, surface)
    try:
        while True:
            try:
                write_heartbeat(path, make_heartbeat(app, surface, connected))
            except OSError:
                pass
            await asyncio.sleep(every)
    finally:  # stopped: no heartbeat rather than a fresh-looking one
        path.unlink(missing_ok=True)


def read_heartbeat(path: Path) -> Heartbeat | None:
    """The heartbeat, or None when missing or unreadable."""
    try:
        data = json.loads(path.read_text())
        return Heartbeat(**data)
    except (OSError, ValueError, TypeError):
        return None


async def check_database(settings: Any) -> Check:
    """Postgres `SELECT 1`, or the SQLite data directory and files."""
    url = settings.secret("database_url")
    if url:
        from storage.backend import DatabaseUnavailable, open_database
        from storage.db_url import redact_url

        try:
            db = await asyncio.wait_for(open_database(url), timeout=20)
            try:
                await db.ping()
            finally:
                await db.close()
        except (DatabaseUnavailable, TimeoutError, OSError) as exc:
            return Check("database", False, f"{type(exc).__name__}: {exc}"[:300])
        return Check("database", True, f"postgres {redact_url(url)} answers")
    data_dir = Path(settings.data_dir)
    if not data_dir.is_dir() or not os.access(data_dir, os.W_OK):
        return Check("database", False, f"data directory {data_dir} is missing or not "
                                        "writable")
    for path in sorted(data_dir.glob("*.sqlite")):
        try:
            conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, timeout=5)
            try:
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            finally:
                conn.close()
        except sqlite3.Error as exc:
            return Check("database", False, f"{path.name}: {exc}")
    return Check("database", True, f"sqlite in {data_dir}")


def check_chat(settings: Any, surface: str, beat: Heartbeat | None) -> Check:
    """The surface's connection settings, and the heartbeat's word on the connection."""
    missing: list[str] = []
    if surface == "discord" and not settings.secret("discord_token"):
        missing.append("DISCORD_TOKEN")
    if surface == "slack":
        if not settings.secret("slack_bot_token"):
            missing.append("SLACK_BOT_TOKEN")
        if not (settings.secret("slack_app_token") or settings.secret("slack_signing_secret")):
            missing.append("SLACK_APP_TOKEN or SLACK_SIGNING_SECRET")
    if missing:
        return Check("chat", False, f"{surface}: missing " + ", ".join(missing))
    if beat is None:
        return Check("chat", True, f"{surface}: configured (no heartbeat yet)")
    age = time.time() - beat.at
    if age > STALE_AFTER:
        return Check("chat", False, f"{surface}: heartbeat is {age:.0f} s old (bot hung or "
                                    "stopped)")
    if beat.chat_connected is False:
        return Check("chat", False, f"{surface}: not connected")
    word = "connected" if beat.chat_connected else "running"
    return Check("chat", True, f"{surface}: {word} (pid {beat.pid}, {age:.0f} s ago)")


def check_espn(beat: Heartbeat | None, *, strict: bool) -> Check:
    """The ESPN circuit breaker's state (fails only with `strict` when open)."""
    if beat is None or beat.espn_state is None:
        return Check("espn", True, "circuit state unknown (no heartbeat)")
    if beat.espn_state == "open":
        detail = f"circuit open, retry in {beat.espn_retry_in:.0f} s"
        if beat.espn_last_error:
            detail += f" (last: {beat.espn_last_error})"
        return Check("espn", not strict, detail)
    return Check("espn", True, f"circuit {beat.espn_state}")


def default_surface(settings: Any) -> str:
    """discord when DISCORD_TOKEN is set, else slack when SLACK_BOT_TOKEN is, else console."""
    if settings.secret("discord_token"):
        return "discord"
    if settings.secret("slack_bot_token"):
        return "slack"
    return "console"


async def run_checks(settings: Any, surface: str | None = None, *, strict: bool = False
                     ) -> list[Check]:
    """Every check, in order: database, chat, espn."""
    surface = surface or default_surface(settings)
    beat = read_heartbeat(heartbeat_path(settings.data_dir, surface))
    return [await check_database(settings), check_chat(settings, surface, beat),
            check_espn(beat, strict=strict)]


SurfaceOpt = Annotated[str | None, typer.Option(
    "--surface", help="discord, slack or console (default: from the configured tokens)")]
StrictOpt = Annotated[bool, typer.Option(
    "--strict", help="Also fail while the ESPN circuit is open")]


def register(app: typer.Typer) -> None:
    """Add `fanvise health` to the root app."""

    @app.command("health")
    def health_cmd(surface: SurfaceOpt = None, strict: StrictOpt = False) -> None:
        """Check the database, the chat connection and the ESPN circuit (exit 1 if not
        healthy); used by the Docker HEALTHCHECK."""
        from pydantic import ValidationError

        from bot.settings import Settings
        from fantasy.redact import redact

        try:
            settings = Settings()
        except ValidationError as exc:
            lines = [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
            typer.echo("config: FAIL " + redact("; ".join(lines)))
            raise typer.Exit(code=1) from None
        settings.register_secrets()
        checks = asyncio.run(run_checks(settings, surface, strict=strict))
        for c in checks:
            detail = " ".join(redact(c.detail).split())
            typer.echo(f"{c.name}: {'ok' if c.ok else 'FAIL'} {detail}")
        if not all(c.ok for c in checks):
            raise typer.Exit(code=1)


__all__ = ["Check", "Heartbeat", "check_chat", "check_database", "check_espn",
           "heartbeat_loop", "heartbeat_path", "make_heartbeat", "read_heartbeat",
           "register", "run_checks", "write_heartbeat"]
