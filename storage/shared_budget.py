"""The Slack edit budget shared by every FanVise process on one database.

Slack rate-limits chat.update per workspace, whichever process calls it. With several bot
processes each keeping its own bucket (bot.core.progress.WorkspaceBudget), the workspace
would get N times the budget. `SharedWorkspaceBudget` has the same synchronous interface
(`reserve(workspace) -> seconds to wait`, `penalize(workspace, seconds)`) but takes each
token from a bucket row in the app database (`AppDB.take_token` on the key
`slack-edit:<workspace>`, row-locked on Postgres), so all processes draw on one budget:

- `reserve` returns 0.0 when a token leased from the database is in hand; otherwise it
  starts one lease in the background and returns a short wait (`poll`), or the wait the
  database gave, after which the caller asks again;
- `penalize` (after a 429) blocks locally at once and writes the penalty to the shared
  bucket, so the other processes hold back too.

If the database fails, the budget falls back to waiting `poll * 20` and logs it once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)


class SharedWorkspaceBudget:
    """Per-workspace token bucket in the app database (see module docstring)."""

    def __init__(self, app_db: Any, per_minute: float = 40.0, burst: float = 5.0, *,
                 key_prefix: str = "slack-edit:", poll: float = 0.05,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.app_db = app_db
        self.per_minute = per_minute
        self.burst = burst
        self.key_prefix = key_prefix
        self.poll = poll
        self._clock = clock
        self._granted: dict[str, int] = {}
        self._not_before: dict[str, float] = {}
        self._leases: dict[str, asyncio.Task[None]] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self._warned = False

    def reserve(self, workspace: str) -> float:
        """0.0 when an edit may go now (a token is taken); else the seconds to wait."""
        if self._granted.get(workspace, 0) > 0:
            self._granted[workspace] -= 1
            return 0.0
        now = self._clock()
        wait = self._not_before.get(workspace, 0.0) - now
        if wait > 0:
            return wait
        lease = self._leases.get(workspace)
        if lease is None or lease.done():
            self._leases[workspace] = asyncio.ensure_future(self._lease(workspace))
        return self.poll

    async def _lease(self, workspace: str) -> None:
        try:
            wait = await self.app_db.take_token(self.key_prefix + workspace,
                                                capacity=self.burst,
                                                per_minute=self.per_minute)
        except Exception as exc:  # noqa: BLE001 - a DB hiccup slows edits, never fails them
            if not self._warned:
                log.warning("shared edit budget unavailable (%s): waiting", type(exc).__name__)
                self._warned = True
            self._not_before[workspace] = self._clock() + self.poll * 20
            return
        if wait <= 0:
            self._granted[workspace] = self._granted.get(workspace, 0) + 1
        else:
            self._not_before[workspace] = self._clock() + wait

    def penalize(self, workspace: str, seconds: float) -> None:
        """After a 429: no edits to that workspace for `seconds`, in every process."""
        self._granted[workspace] = 0
        self._not_before[workspace] = self._clock() + seconds
        task = asyncio.ensure_future(self._penalize(workspace, seconds))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _penalize(self, workspace: str, seconds: float) -> None:
        try:
            await self.app_db.penalize_bucket(self.key_prefix + workspace, seconds,
                                              per_minute=self.per_minute)
        except Exception as exc:  # noqa: BLE001 - the local block still holds
            log.warning("shared edit budget penalty not stored: %s", type(exc).__name__)


__all__ = ["SharedWorkspaceBudget"]
