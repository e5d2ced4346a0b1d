"""League-life storage: each channel's alert settings and the ledger of its posts.

Two tables of their own, created on first use in the app database (SQLite or Postgres,
the same SQL): `league_alerts` (one row per channel that ran `/alerts setup`) and
`league_posts` (one row per post and channel, claimed before the post goes out, as the
daily digest's ledger is: a restart or a second process never posts it twice), and
`league_projected_winners` (each matchup's projected winner when a channel's close-matchup
alert last looked: the alert is about a change of it).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS league_alerts (
    channel_key TEXT PRIMARY KEY,
    platform TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    settings TEXT NOT NULL,
    created_by TEXT NOT NULL DEFAULT '',
    updated_at REAL NOT NULL
);

CREATE TABLE IF NOT EXISTS league_posts (
    channel_key TEXT NOT NULL,
    post_key TEXT NOT NULL,
    status TEXT NOT NULL,
    message_id TEXT,
    at REAL NOT NULL,
    PRIMARY KEY (channel_key, post_key)
);
CREATE TABLE IF NOT EXISTS league_projected_winners (
    channel_key TEXT NOT NULL,
    matchup_key TEXT NOT NULL,
    team_id INTEGER NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (channel_key, matchup_key)
);
"""

#: post types with a switch of their own, in the order `/alerts` shows them
POST_TYPES = ("feed", "recap", "preview", "close")
DEFAULT_TZ = "America/New_York"


@dataclass(frozen=True)
class PostSetting:
    """One post type's switch and local time (HH:MM; the feed polls instead)."""

    on: bool
    hhmm: str = "09:00"


@dataclass(frozen=True)
class ChannelAlerts:
    """A channel's league-life settings. `since`: the league's date when `/alerts setup`
    ran (nothing that happened before it is posted); `close_threshold`: the close-matchup
    alert's distance from 50% (percentage points)."""

    channel_key: str
    platform: str
    workspace_id: str
    channel_id: str
    since: str
    tz: str = DEFAULT_TZ
    posts: dict[str, PostSetting] = field(default_factory=lambda: {
        "feed": PostSetting(True), "recap": PostSetting(True), "preview": PostSetting(True),
        "close": PostSetting(False)})
    close_threshold: int = 10

    def on(self, kind: str) -> bool:
        """Is post type `kind` switched on in this channel?"""
        p = self.posts.get(kind)
        return bool(p and p.on)

    def with_post(self, kind: str, **changes: Any) -> ChannelAlerts:
        """A copy with post type `kind` changed."""
        posts = dict(self.posts)
        posts[kind] = replace(posts[kind], **changes)
        return replace(self, posts=posts)

    def to_json(self) -> str:
        """The settings column."""
        return json.dumps({"since": self.since, "tz": self.tz,
                           "close_threshold": self.close_threshold,
                           "posts": {k: asdict(v) for k, v in self.posts.items()}},
                          sort_keys=True)

    @classmethod
    def from_row(cls, row: Any) -> ChannelAlerts:
        """From a `league_alerts` row."""
        data = json.loads(row["settings"])
        posts = {k: PostSetting(bool(v["on"]), str(v.get("hhmm") or "09:00"))
                 for k, v in (data.get("posts") or {}).items()}
        return cls(row["channel_key"], row["platform"], row["workspace_id"], row["channel_id"],
                   str(data["since"]), str(data.get("tz") or DEFAULT_TZ), posts,
                   int(data.get("close_threshold") or 10))


class LeagueLifeStore:
    """The two tables over the app database (`storage.db.Database` or PgDatabase)."""

    def __init__(self, db: Any, clock: Any) -> None:
        self.db = db
        self._clock = clock
        self._ready = False

    async def _setup(self) -> None:
        if not self._ready:
            await self.db.executescript(SCHEMA)
            self._ready = True

    async def get(self, channel_key: str) -> ChannelAlerts | None:
        """A channel's settings (None before `/alerts setup`)."""
        await self._setup()
        row = await self.db.fetchone("SELECT * FROM league_alerts WHERE channel_key=?",
                                     (channel_key,))
        return ChannelAlerts.from_row(row) if row else None

    async def all(self) -> list[ChannelAlerts]:
        """Every channel that ran `/alerts setup`."""
        await self._setup()
        rows = await self.db.fetchall("SELECT * FROM league_alerts ORDER BY channel_key")
        return [ChannelAlerts.from_row(r) for r in rows]

    async def create(self, alerts: ChannelAlerts, created_by: str) -> bool:
        """Store a channel's first settings; False when it has settings already."""
        await self._setup()
        n = await self.db.execute(
            "INSERT INTO league_alerts (channel_key, platform, workspace_id, channel_id, "
            "settings, created_by, updated_at) VALUES (?,?,?,?,?,?,?) "
            "ON CONFLICT(channel_key) DO NOTHING",
            (alerts.channel_key, alerts.platform, alerts.workspace_id, alerts.channel_id,
             alerts.to_json(), created_by, self._clock()))
        return n > 0

    async def save(self, alerts: ChannelAlerts) -> None:
        """Replace a channel's settings."""
        await self._setup()
        await self.db.execute(
            "UPDATE league_alerts SET settings=?, updated_at=? WHERE channel_key=?",
            (alerts.to_json(), self._clock(), alerts.channel_key))

    async def claim(self, channel_key: str, post_key: str, *,
                    retry_failed_after: float = 300.0) -> bool:
        """Claim a post for a channel before it goes out; False when it was posted or is
        being posted (a failed one can be claimed again after `retry_failed_after` s)."""
        await self._setup()
        now = self._clock()
        n = await self.db.execute(
            "INSERT INTO league_posts (channel_key, post_key, status, at) VALUES (?,?,?,?) "
            "ON CONFLICT(channel_key, post_key) DO UPDATE SET status=excluded.status, "
            "at=excluded.at WHERE league_posts.status='failed' AND league_posts.at <= ?",
            (channel_key, post_key, "posting", now, now - retry_failed_after))
        return n > 0

    async def resume(self, channel_key: str, post_key: str, *,
                     stale_after: float = 120.0) -> float | None:
        """Take over a claim a killed process left ("posting": maybe posted, its id not
        stored); the time of that claim, or None. SQLite: any such claim (one process per
        file); Postgres: one older than `stale_after` s."""
        await self._setup()
        row = await self.db.fetchone(
            "SELECT at FROM league_posts WHERE channel_key=? AND post_key=? AND "
            "status='posting'", (channel_key, post_key))
        if row is None:
            return None
        now = self._clock()
        cutoff = now if self.db.dialect != "postgres" else now - stale_after
        n = await self.db.execute(
            "UPDATE league_posts SET at=? WHERE channel_key=? AND post_key=? AND "
            "status='posting' AND at=? AND at<=?",
            (now, channel_key, post_key, row["at"], cutoff))
        return float(row["at"]) if n > 0 else None

    async def finish(self, channel_key: str, post_key: str, *, ok: bool,
                     message_id: str | None = None) -> None:
        """Mark a claimed post posted (or failed, to be tried again)."""
        await self.db.execute(
            "UPDATE league_posts SET status=?, message_id=?, at=? "
            "WHERE channel_key=? AND post_key=?",
            ("posted" if ok else "failed", message_id, self._clock(), channel_key, post_key))

    async def swap_projected_winner(self, channel_key: str, matchup_key: str,
                                    team_id: int) -> int | None:
        """Record `team_id` as the matchup's projected winner in this channel; returns the
        one recorded before (None the first time)."""
        await self._setup()
        row = await self.db.fetchone(
            "SELECT team_id FROM league_projected_winners WHERE channel_key=? AND "
            "matchup_key=?", (channel_key, matchup_key))
        await self.db.execute(
            "INSERT INTO league_projected_winners (channel_key, matchup_key, team_id, at) "
            "VALUES (?,?,?,?) ON CONFLICT(channel_key, matchup_key) DO UPDATE SET "
            "team_id=excluded.team_id, at=excluded.at",
            (channel_key, matchup_key, team_id, self._clock()))
        return int(row["team_id"]) if row else None

    async def posts(self, channel_key: str) -> list[dict[str, Any]]:
        """The ledger of one channel (oldest first)."""
        await self._setup()
        rows = await self.db.fetchall(
            "SELECT * FROM league_posts WHERE channel_key=? ORDER BY at, post_key",
            (channel_key,))
        return [dict(r) for r in rows]
