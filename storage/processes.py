"""The FanVise processes sharing one Postgres database, and the in-flight rows each owns.

Each process beats in `fanvise_processes` (storage.postgres.PgCheckpointStore); a row whose
owner stopped beating for PROCESS_STALE_AFTER seconds is an orphan another process may take
(`orphan_filter`). On SQLite (one process per file) every row is this process's.
"""

from __future__ import annotations

import os
import socket
import time
from typing import Any


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


__all__ = ["HEARTBEAT_EVERY", "PROCESSES_DDL", "PROCESS_STALE_AFTER", "instance_id",
           "orphan_filter"]
