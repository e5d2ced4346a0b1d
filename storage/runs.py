"""The `fanvise_runs` table and checkpoint retention, written once for both checkpoint stores.

`RunsTable` holds the run-row SQL (SQLite-style, `?` placeholders, valid on both back ends),
its WHERE building, the `RunRecord` mapping and the retention that reads or deletes run
rows. A store gives it three primitives, each one statement committed on its own:

- `_write(sql, args) -> int` (affected rows), `_write_many(sql, rows)`,
- `_rows(sql, args) -> list[tuple]` (rows as tuples, in column order; an `UPDATE ...
  RETURNING` is committed too),

plus its `saver` (for `adelete_thread`) and two hooks for what differs between back ends:
`_stamp()` (columns every run-row write of this process sets: Postgres stamps `owner`) and
`_owner_filter(takeover=...)` (the `orphaned_only` / `takeover` condition). The SQLite
store (`storage.checkpoints.CheckpointStore`) runs each primitive in one hop on its
connection's thread; the Postgres one (`storage.postgres.PgCheckpointStore`) on a pooled
autocommit connection, `?` translated to `%s` by `storage.postgres.PgDatabase`.
"""

from __future__ import annotations

import json
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

RUN_STATUSES = ("running", "pending", "resuming", "done", "failed", "expired")

#: The runs table (SQLite types; `storage.postgres.translate_ddl` makes Postgres' of them).
RUNS_DDL = """
CREATE TABLE IF NOT EXISTS fanvise_runs (
    run_thread_id   TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    workflow        TEXT NOT NULL DEFAULT 'matchup_optimizer',
    intent          TEXT NOT NULL DEFAULT '',
    status          TEXT NOT NULL,
    requester       TEXT NOT NULL DEFAULT '',
    team_id         INTEGER,
    created         REAL NOT NULL,
    updated         REAL NOT NULL,
    decided_by      TEXT NOT NULL DEFAULT '',
    decision        TEXT NOT NULL DEFAULT '',
    decided_interrupt TEXT NOT NULL DEFAULT '',
    input           TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS fanvise_runs_conv ON fanvise_runs (conversation_id, status);
CREATE INDEX IF NOT EXISTS fanvise_runs_status ON fanvise_runs (status);
"""

#: Columns of a `RunRecord`, in its field order.
RUN_COLUMNS = ("run_thread_id, conversation_id, workflow, intent, status, requester, team_id,"
               " created, updated, decided_by, decision, decided_interrupt, input")

#: Columns `record_run` writes; on a conflict the decision columns go back to ''.
_RECORD_COLUMNS = ("run_thread_id", "conversation_id", "workflow", "intent", "status",
                   "requester", "team_id", "created", "updated", "input")

#: Offset between the UUID epoch (1582-10-15) and the Unix epoch, in 100 ns intervals.
_UUID_EPOCH_OFFSET = 0x01B21DD213814000

_HAS_CHECKPOINTS = ("EXISTS (SELECT 1 FROM checkpoints c"
                    " WHERE c.thread_id = fanvise_runs.run_thread_id)")


@dataclass(frozen=True)
class RunRecord:
    """One approval-gated workflow run."""

    run_thread_id: str
    conversation_id: str
    workflow: str
    intent: str
    status: str
    requester: str
    team_id: int | None
    created: float
    updated: float
    decided_by: str = ""
    decision: str = ""  # JSON {move_id: "approve"|"decline"} of the last decision
    decided_interrupt: str = ""  # the interrupt that decision answers
    input: str = ""  # JSON input of the run (re-run after a crash before its 1st checkpoint)

    def decisions(self) -> dict[str, str]:
        """The recorded decision as {move_id: "approve"|"decline"} ({} when none)."""
        try:
            out = json.loads(self.decision) if self.decision else {}
        except ValueError:
            return {}
        return out if isinstance(out, dict) else {}

    def run_input(self) -> dict[str, Any] | None:
        """The run's recorded input, or None."""
        try:
            out = json.loads(self.input) if self.input else None
        except ValueError:
            return None
        return out if isinstance(out, dict) else None


def check_status(status: str) -> str:
    """`status` if it is one of RUN_STATUSES, else ValueError."""
    if status not in RUN_STATUSES:
        raise ValueError(f"unknown run status {status!r}")
    return status


def checkpoint_id_time(checkpoint_id: str) -> float | None:
    """Unix time encoded in a LangGraph checkpoint id (a UUIDv6), or None if not a v6 id."""
    try:
        u = uuid.UUID(checkpoint_id)
    except (ValueError, TypeError):
        return None
    if u.version != 6:
        return None
    ticks = (u.time_low << 28) | (u.time_mid << 12) | (u.time_hi_version & 0x0FFF)
    return (ticks - _UUID_EPOCH_OFFSET) / 1e7


def _cutoff(days: float, now: float | None) -> float:
    return (now if now is not None else time.time()) - days * 86400.0


class RunsTable(ABC):
    """The runs-table and retention methods of a checkpoint store (see module docstring)."""

    saver: Any
    _closed: bool

    @abstractmethod
    async def _write(self, sql: str, args: Sequence[Any] = ()) -> int:
        """One statement, committed; the affected row count."""

    @abstractmethod
    async def _write_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """One statement for each parameter row, committed."""

    @abstractmethod
    async def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """One statement's rows as tuples (committed when it writes)."""

    def _stamp(self) -> dict[str, Any]:
        """Columns set on every run-row write of this process (none by default)."""
        return {}

    @abstractmethod
    def _owner_filter(self, *, takeover: bool) -> tuple[str, tuple[Any, ...]] | None:
        """The condition (" AND ..." or "", with params) of `list_runs(orphaned_only=True)`
        or `takeover=True`; None when no run can qualify."""

    @property
    def closed(self) -> bool:
        """True after `close()`."""
        return self._closed

    async def ping(self) -> None:
        """One query (health check)."""
        await self._rows("SELECT 1")

    # ------------------------------------------------------------------ runs table

    async def record_run(self, run_thread_id: str, conversation_id: str, *, status: str,
                         requester: str = "", team_id: int | None = None, intent: str = "",
                         workflow: str = "matchup_optimizer",
                         run_input: dict[str, Any] | None = None) -> None:
        """Insert (or replace) a run row; `run_input` (JSON-able) lets recovery start the
        run again when a crash came before its first checkpoint."""
        now = time.time()
        stamp = self._stamp()
        cols = [*_RECORD_COLUMNS, *stamp]
        sets = ", ".join([*(f"{c} = excluded.{c}" for c in cols[1:]),
                          "decided_by = ''", "decision = ''", "decided_interrupt = ''"])
        await self._write(
            f"INSERT INTO fanvise_runs ({', '.join(cols)}) VALUES"
            f" ({', '.join('?' * len(cols))}) ON CONFLICT (run_thread_id) DO UPDATE SET {sets}",
            (run_thread_id, conversation_id, workflow, intent, check_status(status),
             requester, team_id, now, now,
             json.dumps(run_input, default=str) if run_input is not None else "",
             *stamp.values()))

    async def _update_run(self, run_thread_id: str, sets: dict[str, Any]) -> None:
        """UPDATE one run row: `sets` (a value or, for "status", None to keep it), `updated`
        and the stamp."""
        sets = {**sets, "updated": time.time(), **self._stamp()}
        text = ", ".join("status = COALESCE(?, status)" if c == "status" else f"{c} = ?"
                         for c in sets)
        await self._write(f"UPDATE fanvise_runs SET {text} WHERE run_thread_id = ?",
                          (*sets.values(), run_thread_id))

    async def set_run_status(self, run_thread_id: str, status: str) -> None:
        """Update a run's status."""
        await self._update_run(run_thread_id, {"status": check_status(status)})

    async def record_decision(self, run_thread_id: str, user_id: str,
                              decisions: dict[str, str], *, interrupt_id: str = "",
                              status: str | None = None) -> None:
        """Record who decided which interrupt of a run and what, durably (one commit,
        with the new `status`) before the decision is acted on: recovery finishes it."""
        await self._update_run(run_thread_id, {
            "decided_by": user_id, "decision": json.dumps(decisions, sort_keys=True),
            "decided_interrupt": interrupt_id,
            "status": check_status(status) if status is not None else None})

    async def get_run(self, run_thread_id: str) -> RunRecord | None:
        """The run row, or None."""
        rows = await self._select("WHERE run_thread_id = ?", (run_thread_id,))
        return rows[0] if rows else None

    async def list_runs(self, *, statuses: tuple[str, ...] | None = None,
                        conversation_id: str | None = None,
                        orphaned_only: bool = False, takeover: bool = False
                        ) -> list[RunRecord]:
        """Runs filtered by status and conversation, oldest first. `orphaned_only`: not
        those another live process drives; `takeover`: only those of another instance
        that died (see `storage.processes.orphan_filter`)."""
        where: list[str] = []
        args: list[Any] = []
        if orphaned_only or takeover:
            owned = self._owner_filter(takeover=takeover)
            if owned is None:
                return []
            if owned[0]:
                where.append(owned[0].removeprefix(" AND "))
                args.extend(owned[1])
        if statuses:
            where.append(f"status IN ({', '.join('?' * len(statuses))})")
            args.extend(statuses)
        if conversation_id is not None:
            where.append("conversation_id = ?")
            args.append(conversation_id)
        clause = ("WHERE " + " AND ".join(where)) if where else ""
        return await self._select(clause + " ORDER BY created", tuple(args))

    async def _select(self, clause: str, args: tuple[Any, ...]) -> list[RunRecord]:
        rows = await self._rows(f"SELECT {RUN_COLUMNS} FROM fanvise_runs {clause}", args)
        return [RunRecord(*r) for r in rows]

    # ------------------------------------------------------------------ retention

    async def thread_ids(self) -> list[str]:
        """Every thread id that has checkpoints."""
        return [r[0] for r in await self._rows("SELECT DISTINCT thread_id FROM checkpoints")]

    async def thread_last_activity(self) -> dict[str, float]:
        """thread_id -> Unix time of its newest checkpoint."""
        out: dict[str, float] = {}
        for tid, cid in await self._rows(
                "SELECT thread_id, max(checkpoint_id) FROM checkpoints GROUP BY thread_id"):
            t = checkpoint_id_time(cid)
            if t is not None:
                out[tid] = t
        return out

    async def delete_idle_threads(self, max_idle_days: float, *, now: float | None = None
                                  ) -> list[str]:
        """Delete threads (and their run rows) idle longer than `max_idle_days`."""
        cutoff = _cutoff(max_idle_days, now)
        idle = [tid for tid, t in (await self.thread_last_activity()).items() if t < cutoff]
        for tid in idle:
            await self.saver.adelete_thread(tid)
        if idle:
            await self._write_many("DELETE FROM fanvise_runs WHERE run_thread_id = ?",
                                   [(t,) for t in idle])
        # run rows whose checkpoints are gone and that are old
        await self._write(f"DELETE FROM fanvise_runs WHERE updated < ? AND NOT"
                          f" {_HAS_CHECKPOINTS}", (cutoff,))
        return idle

    async def delete_finished_run_threads(self, older_than_days: float, *,
                                          now: float | None = None) -> list[str]:
        """Delete the checkpoints of runs that ended ("done"/"failed") more than
        `older_than_days` ago; their run rows stay, so a late click still reads
        "already decided". Returns the thread ids deleted."""
        ended = [r[0] for r in await self._rows(
            "SELECT run_thread_id FROM fanvise_runs WHERE status IN ('done', 'failed')"
            f" AND updated < ? AND {_HAS_CHECKPOINTS}", (_cutoff(older_than_days, now),))]
        for tid in ended:
            await self.saver.adelete_thread(tid)
        return ended

    async def expire_pending_runs(self, older_than_days: float, *,
                                  now: float | None = None) -> list[str]:
        """Runs waiting for approval longer than `older_than_days`: mark them "expired" (one
        statement: with several processes one wins each run) and delete their checkpoints
        (the moves were planned for a week long gone). Returns the thread ids expired."""
        stale = [r[0] for r in await self._rows(
            "UPDATE fanvise_runs SET status = 'expired', updated = ? WHERE status = 'pending'"
            " AND updated < ? RETURNING run_thread_id",
            (time.time(), _cutoff(older_than_days, now)))]
        for tid in stale:
            await self.saver.adelete_thread(tid)
        return stale


__all__ = ["RUN_COLUMNS", "RUN_STATUSES", "RUNS_DDL", "RunRecord", "RunsTable",
           "check_status", "checkpoint_id_time"]
