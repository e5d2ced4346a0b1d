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

A database URL is a secret (it may hold a password): `storage.db_url` reads and redacts it.
The processes sharing one Postgres database and the rows each owns: `storage.processes`.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from storage.db_url import is_postgres_url, redact_url, url_password


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


__all__ = ["AppDatabase", "DatabaseUnavailable", "open_checkpoint_store", "open_database"]
