"""One storage interface, two back ends: SQLite files (the embedded default) or one Postgres
database shared by several FanVise processes (`FANVISE_DATABASE_URL=postgresql://...`).

    db = await open_database(url or data_dir / "fanvise.sqlite")        # app tables
    store = await open_checkpoint_store(url or data_dir / "checkpoints.sqlite")

`open_database` gives a `storage.db.Database` (aiosqlite) or a `storage.postgres.PgDatabase`
(psycopg pool); both have the `AppDatabase` methods, take SQLite-style SQL (`?`
placeholders, `INSERT OR IGNORE` / `INSERT OR REPLACE`, SQLite column types in DDL) and say
which they are in `dialect`. `open_checkpoint_store` gives a `storage.checkpoints.
CheckpointStore` (AsyncSqliteSaver) or a `storage.postgres.PgCheckpointStore`
(AsyncPostgresSaver); both have the runs table and the retention methods.

A database URL is a secret (it may hold a password): `redact_url` masks the password for
logs and errors, `url_password` hands it to fantasy.redact.
"""

from __future__ import annotations

import os
import socket
import time
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlsplit, urlunsplit

POSTGRES_SCHEMES = ("postgresql", "postgres")



def _seconds(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, "") or default)
    except ValueError:
        return default
    return value if value > 0 else default


#: Seconds between a Postgres process's heartbeats, and after which a silent one is dead
#: ($FANVISE_HEARTBEAT_EVERY / $FANVISE_PROCESS_STALE_AFTER: shorter only in tests).
HEARTBEAT_EVERY = _seconds("FANVISE_HEARTBEAT_EVERY", 10.0)
PROCESS_STALE_AFTER = _seconds("FANVISE_PROCESS_STALE_AFTER", 30.0)

#: Live FanVise processes on a shared database (written by PgCheckpointStore).
PROCESSES_DDL = """
CREATE TABLE IF NOT EXISTS fanvise_processes (
    owner TEXT PRIMARY KEY,
    heartbeat REAL NOT NULL
)"""


def instance_id() -> str:
    """Who owns the in-flight rows this process writes: $FANVISE_INSTANCE, else the host
    name (a container's is its id, the same after a restart). A restarted process finds its
    previous incarnation's unfinished work as its own; rows of another live instance are
    left to it (see `orphan_filter`)."""
    return os.environ.get("FANVISE_INSTANCE") or socket.gethostname()


def orphan_filter(dialect: str, owner: str, *, column: str = "owner",
                  now: float | None = None, takeover: bool = False
                  ) -> tuple[str, tuple[Any, ...]]:
    """An SQL condition (with `?` params) true for rows no other live process owns: no
    owner, this instance, or an owner whose heartbeat is older than PROCESS_STALE_AFTER.
    SQLite: always true (one process per file; "" and no params).

    `takeover`: only rows of *another* instance that died (not this instance's own, which
    may be in flight right now, nor unowned rows, which start-up recovery takes): what a
    live process picks up periodically after a host went down. SQLite: never true."""
    if dialect != "postgres":
        return (" AND 1 = 0", ()) if takeover else ("", ())
    cutoff = (now if now is not None else time.time()) - PROCESS_STALE_AFTER
    if takeover:
        return (f" AND {column} IS NOT NULL AND {column} <> '' AND {column} <> ? AND"
                f" {column} NOT IN (SELECT owner FROM fanvise_processes WHERE heartbeat > ?)",
                (owner, cutoff))
    return (f" AND ({column} IS NULL OR {column} = '' OR {column} = ? OR {column} NOT IN"
            " (SELECT owner FROM fanvise_processes WHERE heartbeat > ?))", (owner, cutoff))


class DatabaseURLError(ValueError):
    """A FANVISE_DATABASE_URL that is not a postgresql:// URL (the message never shows the
    password)."""


@runtime_checkable
class AppDatabase(Protocol):
    """What AppDB, the ESPN cache and the adapters' small tables use of a database."""

    dialect: str

    async def execute(self, sql: str, params: Any = (), *, commit: bool = True) -> int: ...
    async def executemany(self, sql: str, rows: Any) -> None: ...
    async def executescript(self, script: str) -> None: ...
    async def fetchone(self, sql: str, params: Any = ()) -> Any: ...
    async def fetchall(self, sql: str, params: Any = ()) -> list[Any]: ...
    async def columns(self, table: str) -> set[str]: ...
    def transaction(self) -> AbstractAsyncContextManager[Any]: ...
    async def ping(self) -> None: ...
    async def close(self) -> None: ...


def is_postgres_url(target: object) -> bool:
    """True for a `postgresql://` / `postgres://` URL (a Path or a file name is SQLite)."""
    if not isinstance(target, str):
        return False
    return urlsplit(target).scheme.split("+", 1)[0] in POSTGRES_SCHEMES


def url_password(url: str) -> str | None:
    """The password in a database URL, or None."""
    try:
        return urlsplit(url).password
    except ValueError:
        return None


def redact_url(url: str) -> str:
    """The URL with its password replaced by `***` (safe to log)."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        user = parts.username or ""
        host = parts.hostname or ""
        if parts.port is not None:
            host = f"{host}:{parts.port}"
        return urlunsplit((parts.scheme, f"{user}:***@{host}", parts.path, parts.query,
                           parts.fragment))
    except ValueError:
        return "<unparsable database URL>"


def check_database_url(url: str) -> None:
    """Raise DatabaseURLError unless `url` is a postgresql:// URL with a host or a socket."""
    if not is_postgres_url(url):
        scheme = urlsplit(url).scheme if "://" in url else ""
        raise DatabaseURLError(
            "FANVISE_DATABASE_URL must be a postgresql://user:password@host:5432/dbname URL"
            + (f" (got scheme {scheme!r})" if scheme else "")
            + "; unset it to keep SQLite files in the data directory")


def _redacting(url: str, exc: BaseException) -> str:
    text = str(exc).replace(url, redact_url(url))
    password = url_password(url)
    if password:
        text = text.replace(password, "***")
    return " ".join(text.split())  # one line


class DatabaseUnavailable(RuntimeError):
    """The database could not be opened; the message names the (redacted) URL."""


def _unavailable(what: str, url: str, exc: BaseException) -> DatabaseUnavailable:
    """"could not open the <what> <redacted url>: <error>", the password never shown."""
    return DatabaseUnavailable(f"could not open the {what} {redact_url(url)}: "
                               f"{type(exc).__name__}: {_redacting(url, exc)}")


async def open_database(target: str | Path) -> Any:
    """The app database: Postgres for a postgresql:// URL, else a SQLite file path."""
    if is_postgres_url(target):
        from storage.postgres import PgDatabase

        url = str(target)
        try:
            return await PgDatabase.open(url)
        except Exception as exc:  # noqa: BLE001 - re-raised without the password
            raise _unavailable("database", url, exc) from None
    from storage.db import Database

    return await Database.open(target)


async def open_checkpoint_store(target: str | Path) -> Any:
    """The LangGraph checkpoint store + runs table: AsyncPostgresSaver for a postgresql://
    URL, else AsyncSqliteSaver on a SQLite file path."""
    if is_postgres_url(target):
        from storage.postgres import PgCheckpointStore

        url = str(target)
        try:
            return await PgCheckpointStore.open(url)
        except Exception as exc:  # noqa: BLE001 - re-raised without the password
            raise _unavailable("checkpoint database", url, exc) from None
    from storage.checkpoints import CheckpointStore

    return await CheckpointStore.open(target)


__all__ = ["HEARTBEAT_EVERY", "PROCESS_STALE_AFTER", "instance_id", "orphan_filter",
           "AppDatabase", "DatabaseURLError", "DatabaseUnavailable", "check_database_url",
           "is_postgres_url", "open_checkpoint_store", "open_database", "redact_url",
           "url_password"]
