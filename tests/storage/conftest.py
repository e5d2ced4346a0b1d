"""Fixtures of the storage contract tests: `pg_server` (one throwaway PostgreSQL server per
test session, or a skip with one clear line) and `backend` ("sqlite" | "postgres") with
`database_target(backend, tmp_path)` giving what storage.backend opens.

When no server can start, every Postgres test is skipped and the run ends with one line
saying why. `FANVISE_TEST_POSTGRES=required` (set by scripts/test.sh once the server
programs are installed) turns that skip into a failure, so CI never passes without them."""

from __future__ import annotations

import atexit
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.storage.pg_server import PgServer, PgUnavailable

os.environ.pop("FANVISE_DATABASE_URL", None)

_server: PgServer | PgUnavailable | None = None


def _get_server() -> PgServer:
    global _server
    if _server is None:
        try:
            _server = PgServer.start()
            atexit.register(_server.stop)  # also when the session ends abnormally
        except PgUnavailable as exc:
            _server = exc
    if isinstance(_server, PgUnavailable):
        if os.environ.get("FANVISE_TEST_POSTGRES") == "required":
            pytest.fail(f"FANVISE_TEST_POSTGRES=required but {_server}", pytrace=False)
        pytest.skip(str(_server))
    return _server


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """The session's PostgreSQL server (skips every Postgres test when none can start)."""
    server = _get_server()
    yield server


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One clear line when the Postgres suites were skipped (not one per test)."""
    if isinstance(_server, PgUnavailable):
        terminalreporter.write_line(f"NOTE: {_server}", yellow=True)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if isinstance(_server, PgServer):
        _server.stop()


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    """Each contract test runs on both back ends."""
    return str(request.param)


@pytest.fixture
def app_target(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str | Path:
    """The app database to open: a SQLite file, or a fresh Postgres database."""
    if backend == "sqlite":
        return tmp_path / "fanvise.sqlite"
    server: PgServer = request.getfixturevalue("pg_server")
    return server.create_database("app")


@pytest.fixture
def checkpoint_target(backend: str, tmp_path: Path, request: pytest.FixtureRequest
                      ) -> str | Path:
    """The checkpoint database to open: a SQLite file, or a fresh Postgres database."""
    if backend == "sqlite":
        return tmp_path / "checkpoints.sqlite"
    server: PgServer = request.getfixturevalue("pg_server")
    return server.create_database("ckpt")
