"""Slack adapter state: event de-duplication by event_id (Slack retries events it thinks were
not acked) and the threads FanVise takes part in (so plain replies there continue the
conversation). Small tables in the app database survive restarts; without a database an
in-memory fallback is used.
"""

from __future__ import annotations

import json
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS slack_events (
    event_id TEXT PRIMARY KEY,
    seen_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS slack_threads (
    conversation_id TEXT PRIMARY KEY,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS slack_shares (
    share_id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    command TEXT NOT NULL,
    messages TEXT NOT NULL,
    created_at REAL NOT NULL
);
"""
#: a private answer can be posted to its channel for this long
SHARE_SECONDS = 7 * 24 * 3600.0
KEEP_SECONDS = 24 * 3600.0


class EventDeduper:
    """`await first_seen(event_id)` is True exactly once per event id."""

    def __init__(self, db: Any | None = None, *, memory_size: int = 5000) -> None:
        self.db = db
        self._ready = False
        self._memory: OrderedDict[str, float] = OrderedDict()
        self._memory_size = memory_size

    async def first_seen(self, event_id: str) -> bool:
        """Record `event_id`; True if it was not seen before (an empty id is never a dup)."""
        if not event_id:
            return True
        now = time.time()
        if self.db is None:
            if event_id in self._memory:
                return False
            self._memory[event_id] = now
            while len(self._memory) > self._memory_size:
                self._memory.popitem(last=False)
            return True
        if not self._ready:
            await self.db.executescript(SCHEMA)
            await self.db.execute("DELETE FROM slack_events WHERE seen_at < ?",
                                  (now - KEEP_SECONDS,))
            self._ready = True
        inserted = await self.db.execute(
            "INSERT OR IGNORE INTO slack_events (event_id, seen_at) VALUES (?, ?)",
            (event_id, now))
        return inserted == 1


class ThreadRegistry:
    """Threads FanVise started or was mentioned in (keyed by ThreadRef.conversation_id)."""

    def __init__(self, db: Any | None = None) -> None:
        self.db = db
        self._ready = False
        self._memory: set[str] = set()

    async def _setup(self, db: Any) -> None:
        if not self._ready:
            await db.executescript(SCHEMA)
            self._ready = True

    async def remember(self, conversation_id: str) -> None:
        """Record that FanVise takes part in this thread."""
        if self.db is None:
            self._memory.add(conversation_id)
            return
        await self._setup(self.db)
        await self.db.execute(
            "INSERT OR IGNORE INTO slack_threads (conversation_id, created_at) VALUES (?, ?)",
            (conversation_id, time.time()))

    async def known(self, conversation_id: str) -> bool:
        """True if FanVise takes part in this thread."""
        if self.db is None:
            return conversation_id in self._memory
        await self._setup(self.db)
        row = await self.db.fetchone(
            "SELECT 1 FROM slack_threads WHERE conversation_id = ?", (conversation_id,))
        return row is not None


@dataclass
class Shared:
    """A personal command's private answer, kept so "Post to channel" posts the same
    messages (Block Kit, as they were sent) publicly."""

    share_id: str
    user_id: str
    channel_id: str
    command: str
    messages: list[dict[str, Any]] = field(default_factory=list)  # {"text", "blocks"}


class SharedAnswers:
    """Private answers that may be posted to their channel (by their asker), kept in the app
    database (restarts keep the button working) or in memory without one."""

    def __init__(self, db: Any | None = None) -> None:
        self.db = db
        self._ready = False
        self._memory: dict[str, Shared] = {}

    async def _setup(self, db: Any) -> None:
        if not self._ready:
            await db.executescript(SCHEMA)
            await db.execute("DELETE FROM slack_shares WHERE created_at < ?",
                             (time.time() - SHARE_SECONDS,))
            self._ready = True

    async def keep(self, user_id: str, channel_id: str, command: str,
                   messages: list[dict[str, Any]]) -> Shared:
        """Store an answer; returns it with its new id (12 hex chars)."""
        shared = Shared(secrets.token_hex(6), user_id, channel_id, command, messages)
        if self.db is None:
            self._memory[shared.share_id] = shared
            return shared
        await self._setup(self.db)
        await self.db.execute(
            "INSERT INTO slack_shares (share_id, user_id, channel_id, command, messages, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (shared.share_id, user_id, channel_id, command, json.dumps(messages),
             time.time()))
        return shared

    async def get(self, share_id: str) -> Shared | None:
        """The stored answer (None when unknown or expired)."""
        if self.db is None:
            return self._memory.get(share_id)
        await self._setup(self.db)
        row = await self.db.fetchone(
            "SELECT share_id, user_id, channel_id, command, messages FROM slack_shares "
            "WHERE share_id = ?", (share_id,))
        if row is None:
            return None
        return Shared(row["share_id"], row["user_id"], row["channel_id"], row["command"],
                      json.loads(row["messages"]))
