"""App tables of the chat surfaces on the shared app database: `storage.db.Database`
(fanvise.sqlite) or, with FANVISE_DATABASE_URL, `storage.postgres.PgDatabase` (one Postgres
database shared by several processes; see storage.backend).

Claims that must hold across processes are single atomic statements or row-locked
transactions (`db.row_lock`): a card is claimed by one caller (`claim_card`, `SELECT ... FOR
UPDATE` on Postgres), a day's post by one process (`claim_daily_post`, a conditional
upsert on the ledger's primary key), an event id once (`mark_event_processed`, primary key),
and token buckets (`take_token`, also the shared Slack edit budget) are row-locked.

Tables:
- `cards`: one row per approval card (card_id 12 hex -> run_thread_id, interrupt_id,
  requester, team, where the card message lives, per-move decisions, status).
- `audit`: every decision on a card (who, when, which move, decision, result).
- `league_links`: `/link` per chat user: league id, season, team id and the ESPN cookies
  (espn_s2 / SWID) encrypted at rest with Fernet (key from FANVISE_SECRET_KEY). Without a
  key, storing cookies is refused (`SecretKeyMissing`); cookies are never returned in reprs.
- `daily_schedules` + `daily_posts` (ledger keyed by channel + local date: one post a day,
  also after a restart; pre-lock alerts claim `prelock:<channel>:<team>:<day>` keys in it).
- `digest_teams`: what each linked team's lineup looked like in a day's digest (starters
  ruled out, fixable empty slots), so the pre-lock alert pings only for what changed since.
- `prelock_fixes`: the one-tap fix button of a pre-lock alert (team, day; applied once).
- `processed_events`: Slack event ids already handled (Slack retries unacked events).
- `rate_buckets`: per-user token buckets for LLM-backed commands, and per-workspace buckets
  of the Slack edit budget shared by processes (`storage.shared_budget`).
- `espn_writes`: every write to ESPN's transaction endpoint (fantasy.espn.writes), keyed so
  it is made at most once: who, what, the payload without secrets, ESPN's answer, the
  verification read and the status (sending / done / pending / failed / unknown).
- `espn_write_prefs`: each member's opt-in to writes and to the automatic daily lineup.
- `turns`: one row per accepted request while it runs (who asked, for which team, in which
  thread, its progress message), so a restart can finish or re-run it instead of losing it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cryptography.fernet import Fernet, InvalidToken

from fantasy.week_plan import WeekPlan
from storage.db import Database  # or storage.postgres.PgDatabase (same methods)
from storage.processes import instance_id, orphan_filter

SCHEMA = """
CREATE TABLE IF NOT EXISTS cards (
    card_id TEXT PRIMARY KEY,
    run_thread_id TEXT NOT NULL,
    interrupt_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    platform TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    message_id TEXT,
    requester_id TEXT NOT NULL,
    requester_name TEXT NOT NULL DEFAULT '',
    team_id INTEGER,
    title TEXT NOT NULL DEFAULT '',
    summary TEXT NOT NULL DEFAULT '',
    moves TEXT NOT NULL DEFAULT '[]',
    decisions TEXT NOT NULL DEFAULT '{}',
    status TEXT NOT NULL DEFAULT 'pending',
    decided_by TEXT,
    decided_by_name TEXT,
    decided_at REAL,
    result TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    shown INTEGER NOT NULL DEFAULT 1,
    owner TEXT
);
CREATE INDEX IF NOT EXISTS cards_run ON cards(run_thread_id);
CREATE INDEX IF NOT EXISTS cards_conv ON cards(conversation_id, status);

CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at REAL NOT NULL,
    card_id TEXT NOT NULL,
    run_thread_id TEXT NOT NULL DEFAULT '',
    platform TEXT NOT NULL,
    user_id TEXT NOT NULL,
    user_name TEXT NOT NULL DEFAULT '',
    move_index INTEGER,
    move_id TEXT,
    move_label TEXT NOT NULL DEFAULT '',
    decision TEXT NOT NULL,
    result TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_card ON audit(card_id);

CREATE TABLE IF NOT EXISTS league_links (
    platform TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    league_id INTEGER NOT NULL,
    season INTEGER,
    team_id INTEGER NOT NULL,
    cookies BLOB,
    updated_at REAL NOT NULL,
    PRIMARY KEY (platform, workspace_id, user_id)
);

CREATE TABLE IF NOT EXISTS daily_schedules (
    channel_key TEXT PRIMARY KEY,
    platform TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    hhmm TEXT NOT NULL,
    tz TEXT NOT NULL,
    team_id INTEGER,
    created_by TEXT NOT NULL DEFAULT '',
    updated_at REAL NOT NULL,
    pin INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS daily_posts (
    channel_key TEXT NOT NULL,
    local_date TEXT NOT NULL,
    status TEXT NOT NULL,
    message_id TEXT,
    at REAL NOT NULL,
    PRIMARY KEY (channel_key, local_date)
);

CREATE TABLE IF NOT EXISTS digest_teams (
    channel_key TEXT NOT NULL,
    day TEXT NOT NULL,
    team_id INTEGER NOT NULL,
    user_id TEXT NOT NULL,
    state TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (channel_key, day, team_id)
);

CREATE TABLE IF NOT EXISTS prelock_fixes (
    fix_id TEXT PRIMARY KEY,
    channel_key TEXT NOT NULL,
    day TEXT NOT NULL,
    team_id INTEGER NOT NULL,
    user_id TEXT NOT NULL,
    message_id TEXT,
    status TEXT NOT NULL DEFAULT 'pending',
    decided_by TEXT,
    at REAL NOT NULL
);

CREATE TABLE IF NOT EXISTS processed_events (
    event_id TEXT PRIMARY KEY,
    at REAL NOT NULL
);

CREATE TABLE IF NOT EXISTS turns (
    turn_id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    platform TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    user_name TEXT NOT NULL DEFAULT '',
    team_id INTEGER,
    text TEXT NOT NULL DEFAULT '',
    request TEXT,
    message_id TEXT,
    status TEXT NOT NULL DEFAULT 'running',
    attempts INTEGER NOT NULL DEFAULT 1,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    owner TEXT
);
CREATE INDEX IF NOT EXISTS turns_status ON turns(status, conversation_id);
CREATE TABLE IF NOT EXISTS fanvise_processes (
    owner TEXT PRIMARY KEY,
    heartbeat REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS rate_buckets (
    user_key TEXT PRIMARY KEY,
    tokens REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS espn_writes (
    write_key TEXT PRIMARY KEY,
    league_id INTEGER NOT NULL,
    team_id INTEGER NOT NULL,
    actor TEXT NOT NULL,
    kind TEXT NOT NULL,
    scoring_period INTEGER NOT NULL,
    summary TEXT NOT NULL DEFAULT '',
    body TEXT NOT NULL DEFAULT '{}',
    status TEXT NOT NULL,
    answer TEXT,
    verification TEXT,
    error TEXT NOT NULL DEFAULT '',
    espn_id TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS espn_writes_status ON espn_writes(status, league_id);
CREATE TABLE IF NOT EXISTS espn_write_prefs (
    platform TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    writes INTEGER NOT NULL DEFAULT 0,
    auto_lineup INTEGER NOT NULL DEFAULT 0,
    updated_at REAL NOT NULL,
    PRIMARY KEY (platform, workspace_id, user_id)
);
"""

_KDF_SALT = b"fanvise-app-db-cookies-v1"


class SecretKeyMissing(RuntimeError):
    """Cookies cannot be stored: FANVISE_SECRET_KEY is not set."""

    def __init__(self) -> None:
        super().__init__(
            "Storing ESPN cookies needs an encryption key: set FANVISE_SECRET_KEY "
            "(e.g. the output of `python -c \"from cryptography.fernet import Fernet; "
            "print(Fernet.generate_key().decode())\"`). Nothing was stored.")


def make_fernet(secret: str | None) -> Fernet | None:
    """A Fernet from FANVISE_SECRET_KEY: a Fernet key is used as is, any other passphrase is
    stretched with PBKDF2-SHA256. None/empty -> None."""
    if not secret:
        return None
    raw = secret.strip().encode()
    try:
        return Fernet(raw)
    except (ValueError, TypeError):
        key = hashlib.pbkdf2_hmac("sha256", raw, _KDF_SALT, 100_000, dklen=32)
        return Fernet(base64.urlsafe_b64encode(key))


def new_card_id() -> str:
    """A fresh 12-hex card id."""
    return secrets.token_hex(6)


@dataclass
class CardRow:
    """One approval card."""

    card_id: str
    run_thread_id: str
    interrupt_id: str
    conversation_id: str
    platform: str
    workspace_id: str
    channel_id: str
    thread_id: str
    message_id: str | None
    requester_id: str
    requester_name: str
    team_id: int | None
    title: str
    summary: str
    moves: list[dict[str, Any]]
    decisions: dict[str, str]
    status: str
    decided_by: str | None = None
    decided_by_name: str | None = None
    decided_at: float | None = None
    result: dict[str, Any] | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    shown: bool = True  # False until the card's message was drawn (crash-safe posting)
    #: when a process set out to post the card's message (its id is stored after the post:
    #: a crash in between leaves a message to find and adopt, see Approvals.show_card)
    posting_at: float | None = None
    #: the progress message of recovery finishing the card's decision, and when a process
    #: set out to post it (bot.core.recovery: a second crash takes it over)
    progress_id: str | None = None
    progress_at: float | None = None
    #: the optimizer's plan the card shows (`fantasy.moves.Plan` as JSON; None: a card of
    #: ranked moves): its totals are what the card promises (`fantasy.week_plan`)
    plan: dict[str, Any] | None = None


@dataclass
class TurnRow:
    """A request being answered: who asked, for which team, where, its progress message."""

    turn_id: str
    conversation_id: str
    platform: str
    workspace_id: str
    channel_id: str
    thread_id: str
    user_id: str
    user_name: str
    team_id: int | None
    text: str
    request: dict[str, Any] | None
    message_id: str | None
    status: str
    attempts: int
    created_at: float
    updated_at: float
    #: when its progress message was about to be posted (the id is stored after the post)
    posting_at: float | None = None


@dataclass
class LeagueLink:
    """A user's `/link`. `has_cookies` only says whether encrypted cookies are stored."""

    platform: str
    workspace_id: str
    user_id: str
    league_id: int
    season: int | None
    team_id: int
    has_cookies: bool = False
    _cookies: tuple[str, str] | None = field(default=None, repr=False, compare=False)
    linked_at: float = 0.0  # when the link was last set (a card trusts older links only)

    def cookies(self) -> tuple[str, str] | None:
        """Decrypted (espn_s2, swid), or None."""
        return self._cookies


@dataclass(frozen=True)
class DailySchedule:
    """A channel's daily lineup post time."""

    channel_key: str
    platform: str
    workspace_id: str
    channel_id: str
    hhmm: str
    tz: str
    team_id: int | None
    created_by: str = ""
    #: pin the digest (Discord)
    pin: bool = False
    #: set by the scheduler when it takes over a post a killed process left: the time of
    #: that claim (the post, if any, came after it; bot.core.daily adopts it)
    resumed_at: float | None = None


#: `move_schedule`: the approved moves of decided cards that are made on a later day
#: (bot.core.move_schedule). One row per card and plan move (its spot), claimed
#: (`scheduled` -> `making`) before the move is made, so it is made at most once; then
#: `applied` / `waiting` (a live league's reminder) / `not_possible` with the reason.
#: `shown` is 0 until the card was redrawn with the row's state (crash-safe redraw).
MOVE_SCHEDULE_SCHEMA = """
CREATE TABLE IF NOT EXISTS move_schedule (
    card_id TEXT NOT NULL,
    plan_move_id TEXT NOT NULL,
    move_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    team_id INTEGER NOT NULL,
    day TEXT NOT NULL,
    drop_id INTEGER NOT NULL,
    drop_name TEXT NOT NULL DEFAULT '',
    add_id INTEGER NOT NULL,
    add_name TEXT NOT NULL DEFAULT '',
    needs INTEGER,
    drop_to_ir INTEGER NOT NULL DEFAULT 0,
    line TEXT NOT NULL DEFAULT '',
    expected_gain REAL,
    gain_unit TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'scheduled',
    note TEXT NOT NULL DEFAULT '',
    shown INTEGER NOT NULL DEFAULT 1,
    owner TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (card_id, plan_move_id)
);
CREATE INDEX IF NOT EXISTS move_schedule_due ON move_schedule(status, day);
"""

#: Statuses of a `move_schedule` row.
SCHEDULED, MAKING = "scheduled", "making"

#: `week_plans`: each team's one plan for a matchup period (`fantasy.week_plan.WeekPlan` as
#: JSON), written when a card is decided and re-written by a re-plan or as its days' lineups
#: are set. Its moves scheduled for a later day are `move_schedule` rows (their status is
#: read from there when the plan is read, never copied); `card_id` is the card that made it
#: last.
WEEK_PLAN_SCHEMA = """
CREATE TABLE IF NOT EXISTS week_plans (
    team_id INTEGER NOT NULL,
    matchup_period INTEGER NOT NULL,
    card_id TEXT NOT NULL DEFAULT '',
    last_day TEXT NOT NULL DEFAULT '',
    plan TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (team_id, matchup_period)
);
"""


@dataclass
class ScheduledMove:
    """One approved move made on its day: the card and its spot (`plan_move_id`), the move
    to make (`move_id`, the chosen player), its day (ISO), the players, `needs` (a streaming
    chain: the player an earlier move of the card adds, dropped here) and its status."""

    card_id: str
    plan_move_id: str
    move_id: str
    seq: int
    team_id: int
    day: str
    drop_id: int
    drop_name: str
    add_id: int
    add_name: str
    needs: int | None = None
    drop_to_ir: bool = False  # the leaving player goes to the IR slot (not released)
    line: str = ""
    expected_gain: float | None = None
    gain_unit: str = ""
    status: str = SCHEDULED
    note: str = ""
    shown: bool = True
    created_at: float = 0.0
    updated_at: float = 0.0


async def _add_column(db: Database, table: str, column: str, ddl: str) -> None:
    """Add a column missing from a table made by an older version. Two processes starting
    at once on one Postgres may both try: the loser's "already exists" error is fine."""
    if column in await db.columns(table):
        return
    try:
        await db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {ddl}")
    except Exception:
        if column not in await db.columns(table):
            raise


class AppDB:
    """Typed access to the app tables. Create with `await AppDB.open(db, secret_key=...)`."""

    def __init__(self, db: Database, *, fernet: Fernet | None = None,
                 clock: Callable[[], float] = time.time, owner: str | None = None) -> None:
        self.db = db
        self._fernet = fernet
        self._clock = clock
        #: the instance stamped on the cards it claims and the turns it runs
        self.owner = owner or instance_id()

    @classmethod
    async def open(cls, db: Database, *, secret_key: str | None = None,
                   clock: Callable[[], float] = time.time, owner: str | None = None) -> AppDB:
        """Create the tables if needed."""
        await db.executescript(SCHEMA)
        await db.executescript(MOVE_SCHEDULE_SCHEMA)
        await db.executescript(WEEK_PLAN_SCHEMA)
        await _add_column(db, "week_plans", "last_day", "TEXT NOT NULL DEFAULT ''")
        await _add_column(db, "move_schedule", "drop_to_ir", "INTEGER NOT NULL DEFAULT 0")
        # a cards table made before crash-safe posting
        await _add_column(db, "cards", "shown", "INTEGER NOT NULL DEFAULT 1")
        # crash-safe first post (DOUBLE PRECISION: a REAL is 4 bytes on Postgres)
        await _add_column(db, "cards", "posting_at", "DOUBLE PRECISION")
        await _add_column(db, "turns", "posting_at", "DOUBLE PRECISION")
        # recovery's progress message of a decision it finishes (crash-safe too)
        await _add_column(db, "cards", "progress_id", "TEXT")
        await _add_column(db, "cards", "progress_at", "DOUBLE PRECISION")
        await _add_column(db, "cards", "plan", "TEXT")  # the optimizer's plan of the card
        for table in ("cards", "turns", "prelock_fixes"):  # made before several processes
            await _add_column(db, table, "owner", "TEXT")
        await _add_column(db, "daily_schedules", "pin", "INTEGER NOT NULL DEFAULT 0")
        # lineup fix buttons beyond the pre-lock alert's: "today", "week" or "day:<iso>"
        await _add_column(db, "prelock_fixes", "scope", "TEXT NOT NULL DEFAULT 'today'")
        # when ESPN last refused a member's cookies on a write (401/403): no write with them
        # until they link again
        await _add_column(db, "espn_write_prefs", "refused_at", "DOUBLE PRECISION")
        return cls(db, fernet=make_fernet(secret_key), clock=clock, owner=owner)

    def _orphans(self, takeover: bool = False) -> tuple[str, tuple[Any, ...]]:
        return orphan_filter(self.db.dialect, self.owner, now=self._clock(), takeover=takeover)

    def _filter(self, orphaned_only: bool, takeover: bool) -> tuple[str, tuple[Any, ...]]:
        if takeover:
            return self._orphans(takeover=True)
        return self._orphans() if orphaned_only else ("", ())

    # raw helpers of the underlying Database, for adapters' own small tables
    async def execute(self, sql: str, params: Any = (), *, commit: bool = True) -> int:
        """`Database.execute` (returns the affected row count)."""
        return await self.db.execute(sql, params, commit=commit)

    async def executescript(self, script: str) -> None:
        """`Database.executescript`."""
        await self.db.executescript(script)

    async def fetchone(self, sql: str, params: Any = ()) -> Any:
        """`Database.fetchone`."""
        return await self.db.fetchone(sql, params)

    async def fetchall(self, sql: str, params: Any = ()) -> list[Any]:
        """`Database.fetchall`."""
        return await self.db.fetchall(sql, params)

    @property
    def can_store_secrets(self) -> bool:
        """True when an encryption key is configured."""
        return self._fernet is not None

    # ------------------------------------------------------------------ cards

    async def create_card(self, row: CardRow) -> None:
        """Insert a new card row (`row.shown` False: not drawn yet, see `mark_card_shown`)."""
        now = self._clock()
        await self.db.execute(
            "INSERT INTO cards (card_id, run_thread_id, interrupt_id, conversation_id, platform,"
            " workspace_id, channel_id, thread_id, message_id, requester_id, requester_name,"
            " team_id, title, summary, moves, decisions, status, created_at, updated_at, shown,"
            " owner, plan) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (row.card_id, row.run_thread_id, row.interrupt_id, row.conversation_id, row.platform,
             row.workspace_id, row.channel_id, row.thread_id, row.message_id, row.requester_id,
             row.requester_name, row.team_id, row.title, row.summary, json.dumps(row.moves),
             json.dumps(row.decisions), row.status, now, now, int(row.shown), self.owner,
             json.dumps(row.plan) if row.plan is not None else None))

    async def mark_card_shown(self, card_id: str, message_id: str | None = None) -> None:
        """The card's message is drawn (in `message_id` when given)."""
        if message_id:
            await self.db.execute(
                "UPDATE cards SET shown=1, message_id=?, updated_at=? WHERE card_id=?",
                (message_id, self._clock(), card_id))
        else:
            await self.db.execute("UPDATE cards SET shown=1, updated_at=? WHERE card_id=?",
                                  (self._clock(), card_id))

    async def unshown_cards(self, *, orphaned_only: bool = False,
                           takeover: bool = False) -> list[CardRow]:
        """Cards stored (or decided) but maybe never drawn so (a crash in between).
        `orphaned_only`: not those of another live process (storage.processes.orphan_filter);
        `takeover`: only those of another instance that died."""
        extra, args = self._filter(orphaned_only, takeover)
        rows = await self.db.fetchall(
            "SELECT * FROM cards WHERE (shown=0 OR (status='pending' AND message_id IS NULL))"
            + extra + " ORDER BY created_at", args)
        return [_card(r) for r in rows]

    # ------------------------------------------------------------------ turns

    async def start_turn(self, row: TurnRow) -> None:
        """Record a request that is being answered."""
        now = self._clock()
        await self.db.execute(
            "INSERT OR REPLACE INTO turns (turn_id, conversation_id, platform, workspace_id,"
            " channel_id, thread_id, user_id, user_name, team_id, text, request, message_id,"
            " status, attempts, created_at, updated_at, owner)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (row.turn_id, row.conversation_id, row.platform, row.workspace_id, row.channel_id,
             row.thread_id, row.user_id, row.user_name, row.team_id, row.text,
             json.dumps(row.request) if row.request is not None else None, row.message_id,
             row.status, row.attempts, row.created_at or now, now, self.owner))

    async def set_turn(self, turn_id: str, *, status: str | None = None,
                       message_id: str | None = None, attempts: int | None = None) -> None:
        """Update a turn's status / progress message / attempts."""
        await self.db.execute(
            "UPDATE turns SET status=COALESCE(?, status), message_id=COALESCE(?, message_id),"
            " attempts=COALESCE(?, attempts), updated_at=?, owner=? WHERE turn_id=?",
            (status, message_id, attempts, self._clock(), self.owner, turn_id))

    async def mark_turn_posting(self, turn_id: str) -> float:
        """Record that the turn's progress message is about to be posted (before the post,
        so a crash before its id is stored leaves a trace); returns the time recorded."""
        now = self._clock()
        await self.db.execute("UPDATE turns SET posting_at=? WHERE turn_id=?", (now, turn_id))
        return now

    async def open_turns(self, *, orphaned_only: bool = False,
                        takeover: bool = False) -> list[TurnRow]:
        """Turns still running (after a crash: requests nobody answered yet), oldest first.
        `orphaned_only`: not those another live process is answering; `takeover`: only those
        of another instance that died."""
        extra, args = self._filter(orphaned_only, takeover)
        rows = await self.db.fetchall("SELECT * FROM turns WHERE status='running'" + extra
                                      + " ORDER BY created_at", args)
        return [_turn(r) for r in rows]

    async def last_turn_of(self, conversation_id: str, user_id: str) -> TurnRow | None:
        """The newest turn of a user in a conversation (who asked, where, how named)."""
        r = await self.db.fetchone(
            "SELECT * FROM turns WHERE conversation_id=? AND user_id=? "
            "ORDER BY created_at DESC LIMIT 1", (conversation_id, user_id))
        return _turn(r) if r else None

    async def turn_waiting_for_link(self, platform: str, workspace_id: str, user_id: str,
                                    *, within: float = 3600.0) -> TurnRow | None:
        """The newest question of a member that waits for their `/link` (status
        'needs_link', asked in the last `within` seconds), or None."""
        r = await self.db.fetchone(
            "SELECT * FROM turns WHERE status='needs_link' AND platform=? AND workspace_id=?"
            " AND user_id=? AND created_at >= ? ORDER BY created_at DESC LIMIT 1",
            (platform, workspace_id, user_id, self._clock() - within))
        return _turn(r) if r else None

    async def claim_turn(self, turn_id: str, *, from_status: str, to_status: str) -> bool:
        """Move a turn from one status to another; True for the one caller that did."""
        return await self.db.execute(
            "UPDATE turns SET status=?, updated_at=? WHERE turn_id=? AND status=?",
            (to_status, self._clock(), turn_id, from_status)) == 1

    async def prune_turns(self, older_than: float = 7 * 86400.0) -> int:
        """Forget finished turns older than `older_than` seconds."""
        return await self.db.execute("DELETE FROM turns WHERE status!='running' AND "
                                     "updated_at < ?", (self._clock() - older_than,))

    async def mark_card_posting(self, card_id: str) -> float:
        """Record that the card's message is about to be posted (before the post, so a
        crash before its id is stored leaves a trace); returns the time recorded."""
        now = self._clock()
        await self.db.execute("UPDATE cards SET posting_at=? WHERE card_id=?", (now, card_id))
        return now

    async def mark_card_progress(self, card_id: str, message_id: str | None = None
                                 ) -> float:
        """Recovery's progress message for finishing a card's decision: the intent (before
        the post, `message_id` None) or its id (after); returns the time recorded."""
        now = self._clock()
        if message_id is None:
            await self.db.execute("UPDATE cards SET progress_at=? WHERE card_id=?",
                                  (now, card_id))
        else:
            await self.db.execute("UPDATE cards SET progress_id=? WHERE card_id=?",
                                  (message_id, card_id))
        return now

    async def card_of_message(self, message_id: str) -> str | None:
        """The id of the card shown in chat message `message_id`, or None."""
        r = await self.db.fetchone("SELECT card_id FROM cards WHERE message_id=?",
                                   (message_id,))
        return r["card_id"] if r else None

    async def set_card_message(self, card_id: str, message_id: str) -> None:
        """Remember which chat message shows the card."""
        await self.db.execute("UPDATE cards SET message_id=?, updated_at=? WHERE card_id=?",
                              (message_id, self._clock(), card_id))

    async def get_card(self, card_id: str) -> CardRow | None:
        """The card, or None."""
        r = await self.db.fetchone("SELECT * FROM cards WHERE card_id=?", (card_id,))
        return _card(r) if r else None

    async def card_for_run(self, run_thread_id: str, interrupt_id: str) -> CardRow | None:
        """The card of a pending interrupt, if one was already drawn."""
        r = await self.db.fetchone(
            "SELECT * FROM cards WHERE run_thread_id=? AND interrupt_id=?",
            (run_thread_id, interrupt_id))
        return _card(r) if r else None

    async def record_move_decision(self, card_id: str, move_index: int, decision: str) -> bool:
        """Record one move's decision on a pending card; False if already decided (atomic)."""
        async with self.db.transaction():
            r = await self.db.fetchone("SELECT status, decisions FROM cards WHERE card_id=?"
                                       + self.db.row_lock, (card_id,))
            if r is None or r["status"] != "pending":
                return False
            decisions = json.loads(r["decisions"])
            key = str(move_index)
            if key in decisions:
                return False
            decisions[key] = decision
            await self.db.execute("UPDATE cards SET decisions=?, updated_at=? WHERE card_id=?",
                                  (json.dumps(decisions), self._clock(), card_id), commit=False)
            return True

    async def set_card_pick(self, card_id: str, spot: int, index: int) -> bool:
        """Remember the player chosen from spot `spot`'s menu (move `index`) on a pending card
        whose spot is still open; a later choice replaces it. False otherwise (atomic)."""
        async with self.db.transaction():
            r = await self.db.fetchone("SELECT status, decisions FROM cards WHERE card_id=?"
                                       + self.db.row_lock, (card_id,))
            if r is None or r["status"] != "pending":
                return False
            decisions = json.loads(r["decisions"])
            if str(spot) in decisions or str(index) in decisions:
                return False
            decisions[f"pick:{spot}"] = str(index)
            await self.db.execute("UPDATE cards SET decisions=?, updated_at=? WHERE card_id=?",
                                  (json.dumps(decisions), self._clock(), card_id), commit=False)
            return True

    async def claim_card(self, card_id: str, *, user_id: str, user_name: str,
                         decisions: dict[str, str] | None = None,
                         stale_after: float = 600.0, replace: bool = False) -> bool:
        """Move a card from pending to deciding (only one caller wins). A card stuck in
        `deciding` for `stale_after` seconds (crash mid-decision) can be claimed again.
        `decisions` fill the moves not decided yet; `replace=True` overrides the recorded
        ones too (an admin's clean-up declines every move)."""
        now = self._clock()
        async with self.db.transaction():
            r = await self.db.fetchone("SELECT status, decisions, updated_at FROM cards "
                                       "WHERE card_id=?" + self.db.row_lock, (card_id,))
            if r is None:
                return False
            if r["status"] == "deciding" and now - r["updated_at"] < stale_after:
                return False
            if r["status"] not in ("pending", "deciding"):
                return False
            merged = json.loads(r["decisions"])
            if decisions:
                for k, v in decisions.items():
                    if replace:
                        merged[k] = v
                    else:
                        merged.setdefault(k, v)
            await self.db.execute(
                "UPDATE cards SET status='deciding', decisions=?, decided_by=?, "
                "decided_by_name=?, updated_at=?, owner=? WHERE card_id=?",
                (json.dumps(merged), user_id, user_name, now, self.owner, card_id),
                commit=False)
            return True

    async def finish_card(self, card_id: str, *, status: str,
                          result: dict[str, Any] | None = None) -> None:
        """Mark the card decided (`approved` | `declined` | `partial` | `expired` | `failed`)."""
        now = self._clock()
        await self.db.execute(
            "UPDATE cards SET status=?, result=?, decided_at=?, updated_at=?, shown=0"
            " WHERE card_id=?",
            (status, json.dumps(result) if result is not None else None, now, now, card_id))

    async def release_card(self, card_id: str) -> None:
        """Put a card back to pending (the decision could not be delivered)."""
        await self.db.execute(
            "UPDATE cards SET status='pending', decided_by=NULL, decided_by_name=NULL, "
            "updated_at=? WHERE card_id=? AND status='deciding'", (self._clock(), card_id))

    async def cards_by_status(self, status: str, *, orphaned_only: bool = False,
                              takeover: bool = False) -> list[CardRow]:
        """Cards in one status (oldest first), e.g. `deciding` after a crash.
        `orphaned_only`: not those another live process is deciding; `takeover`: only those
        of another instance that died."""
        extra, args = self._filter(orphaned_only, takeover)
        rows = await self.db.fetchall("SELECT * FROM cards WHERE status=?" + extra
                                      + " ORDER BY created_at", (status, *args))
        return [_card(r) for r in rows]

    async def pending_cards(self, conversation_id: str | None = None) -> list[CardRow]:
        """Cards still waiting for a decision (newest first)."""
        if conversation_id is None:
            rows = await self.db.fetchall(
                "SELECT * FROM cards WHERE status='pending' ORDER BY created_at DESC")
        else:
            rows = await self.db.fetchall(
                "SELECT * FROM cards WHERE status='pending' AND conversation_id=? "
                "ORDER BY created_at DESC", (conversation_id,))
        return [_card(r) for r in rows]

    # ------------------------------------------------------------------ audit

    async def audit(self, *, card_id: str, run_thread_id: str, platform: str, user_id: str,
                    user_name: str, decision: str, result: str, move_index: int | None = None,
                    move_id: str | None = None, move_label: str = "") -> None:
        """Append one decision to the audit table."""
        await self.db.execute(
            "INSERT INTO audit (at, card_id, run_thread_id, platform, user_id, user_name, "
            "move_index, move_id, move_label, decision, result) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (self._clock(), card_id, run_thread_id, platform, user_id, user_name, move_index,
             move_id, move_label, decision, result))

    async def audit_rows(self, card_id: str | None = None) -> list[dict[str, Any]]:
        """Audit rows (oldest first), optionally of one card."""
        if card_id is None:
            rows = await self.db.fetchall("SELECT * FROM audit ORDER BY id")
        else:
            rows = await self.db.fetchall("SELECT * FROM audit WHERE card_id=? ORDER BY id",
                                          (card_id,))
        return [dict(r) for r in rows]

    # ------------------------------------------------------------------ league links

    async def set_link(self, *, platform: str, workspace_id: str, user_id: str, league_id: int,
                       season: int | None, team_id: int,
                       cookies: tuple[str, str] | None = None) -> None:
        """Store a user's league link; cookies are encrypted (SecretKeyMissing without a key).
        A link without cookies keeps previously stored cookies."""
        blob: bytes | None = None
        if cookies is not None:
            if self._fernet is None:
                raise SecretKeyMissing()
            blob = self._fernet.encrypt(json.dumps(list(cookies)).encode())
        now = self._clock()
        await self.db.execute(
            "INSERT INTO league_links (platform, workspace_id, user_id, league_id, season, "
            "team_id, cookies, updated_at) VALUES (?,?,?,?,?,?,?,?) "
            "ON CONFLICT(platform, workspace_id, user_id) DO UPDATE SET "
            "league_id=excluded.league_id, season=excluded.season, team_id=excluded.team_id, "
            "cookies=COALESCE(excluded.cookies, league_links.cookies), "
            "updated_at=excluded.updated_at",
            (platform, workspace_id, user_id, league_id, season, team_id, blob, now))

    async def get_link(self, platform: str, workspace_id: str, user_id: str) -> LeagueLink | None:
        """A user's link (cookies decrypted when the key allows), or None."""
        r = await self.db.fetchone(
            "SELECT * FROM league_links WHERE platform=? AND workspace_id=? AND user_id=?",
            (platform, workspace_id, user_id))
        return self._link(r) if r else None

    async def linked_teams(self, platform: str, user_id: str) -> list[tuple[int, int]]:
        """(league_id, team_id) of each of a user's links on a platform (one per workspace),
        newest first; one query, nothing decrypted (what a turn needs to know its team)."""
        rows = await self.db.fetchall(
            "SELECT league_id, team_id FROM league_links WHERE platform=? AND user_id=? "
            "ORDER BY updated_at DESC", (platform, user_id))
        return [(int(r["league_id"]), int(r["team_id"])) for r in rows]

    async def links_for_team(self, league_id: int, team_id: int) -> list[LeagueLink]:
        """Every user linked to that fantasy team."""
        rows = await self.db.fetchall(
            "SELECT * FROM league_links WHERE league_id=? AND team_id=?", (league_id, team_id))
        return [self._link(r) for r in rows]

    async def links_for_league(self, league_id: int) -> list[LeagueLink]:
        """Every member's link in that league (newest first)."""
        rows = await self.db.fetchall(
            "SELECT * FROM league_links WHERE league_id=? ORDER BY updated_at DESC",
            (league_id,))
        return [self._link(r) for r in rows]

    async def cookies_for_league(self, league_id: int) -> tuple[str, str] | None:
        """Decrypted cookies of the most recent link of that league that has some."""
        rows = await self.db.fetchall(
            "SELECT * FROM league_links WHERE league_id=? AND cookies IS NOT NULL "
            "ORDER BY updated_at DESC", (league_id,))
        for r in rows:
            c = self._link(r).cookies()
            if c:
                return c
        return None

    async def delete_link(self, platform: str, workspace_id: str, user_id: str) -> bool:
        """Remove a user's link (and its cookies)."""
        n = await self.db.execute(
            "DELETE FROM league_links WHERE platform=? AND workspace_id=? AND user_id=?",
            (platform, workspace_id, user_id))
        return n > 0

    def _link(self, r: Any) -> LeagueLink:
        cookies: tuple[str, str] | None = None
        blob = r["cookies"]
        if blob is not None and self._fernet is not None:
            try:
                s2, swid = json.loads(self._fernet.decrypt(bytes(blob)))
                cookies = (s2, swid)
            except (InvalidToken, ValueError):
                cookies = None
        return LeagueLink(r["platform"], r["workspace_id"], r["user_id"], int(r["league_id"]),
                          r["season"], int(r["team_id"]), blob is not None, cookies,
                          linked_at=float(r["updated_at"] or 0.0))

    # ------------------------------------------------------------------ ESPN writes

    async def write_get(self, key: str) -> Any:
        """The journaled ESPN write of `key` (a `fantasy.espn.writes.WriteRecord`) or None."""
        r = await self.db.fetchone("SELECT * FROM espn_writes WHERE write_key=?", (key,))
        return _write_record(r) if r else None

    async def write_put(self, rec: Any) -> None:
        """Insert or update one journaled ESPN write (its fields hold no secret)."""
        now = self._clock()
        await self.db.execute(
            "INSERT INTO espn_writes (write_key, league_id, team_id, actor, kind, "
            "scoring_period, summary, body, status, answer, verification, error, espn_id, "
            "attempts, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
            "ON CONFLICT(write_key) DO UPDATE SET status=excluded.status, "
            "answer=excluded.answer, verification=excluded.verification, "
            "error=excluded.error, espn_id=excluded.espn_id, attempts=excluded.attempts, "
            "body=excluded.body, summary=excluded.summary, updated_at=excluded.updated_at",
            (rec.key, rec.league_id, rec.team_id, rec.actor, rec.kind, rec.scoring_period,
             rec.summary, json.dumps(rec.body), rec.status,
             None if rec.answer is None else json.dumps(rec.answer),
             None if rec.verification is None else json.dumps(rec.verification),
             rec.error, rec.espn_id, rec.attempts, now, now))

    async def writes(self, *, status: str | None = None, league_id: int | None = None
                     ) -> list[Any]:
        """Journaled ESPN writes (oldest first), optionally of one status / league."""
        sql = "SELECT * FROM espn_writes WHERE 1=1"
        params: list[Any] = []
        if status is not None:
            sql, params = sql + " AND status=?", [*params, status]
        if league_id is not None:
            sql, params = sql + " AND league_id=?", [*params, league_id]
        rows = await self.db.fetchall(sql + " ORDER BY created_at, write_key", tuple(params))
        return [_write_record(r) for r in rows]

    async def set_write_prefs(self, platform: str, workspace_id: str, user_id: str, *,
                              writes: bool | None = None,
                              auto_lineup: bool | None = None) -> tuple[bool, bool]:
        """Change a member's opt-ins (None keeps one); returns (writes, auto_lineup)."""
        cur = await self.write_prefs(platform, workspace_id, user_id)
        new = (cur[0] if writes is None else bool(writes),
               cur[1] if auto_lineup is None else bool(auto_lineup))
        await self.db.execute(
            "INSERT INTO espn_write_prefs (platform, workspace_id, user_id, writes, "
            "auto_lineup, updated_at) VALUES (?,?,?,?,?,?) ON CONFLICT(platform, "
            "workspace_id, user_id) DO UPDATE SET writes=excluded.writes, "
            "auto_lineup=excluded.auto_lineup, updated_at=excluded.updated_at",
            (platform, workspace_id, user_id, int(new[0]), int(new[1]), self._clock()))
        return new

    async def write_prefs(self, platform: str, workspace_id: str, user_id: str
                          ) -> tuple[bool, bool]:
        """A member's (writes, auto_lineup) opt-ins; both off by default."""
        r = await self.db.fetchone(
            "SELECT writes, auto_lineup FROM espn_write_prefs WHERE platform=? AND "
            "workspace_id=? AND user_id=?", (platform, workspace_id, user_id))
        return (bool(r["writes"]), bool(r["auto_lineup"])) if r else (False, False)

    async def refuse_cookies(self, platform: str, workspace_id: str, user_id: str) -> None:
        """ESPN refused this member's cookies on a write (401/403): FanVise writes no more
        with them until they link again (`cookies_refused_at`)."""
        await self.db.execute(
            "INSERT INTO espn_write_prefs (platform, workspace_id, user_id, writes, "
            "auto_lineup, updated_at, refused_at) VALUES (?,?,?,0,0,?,?) ON CONFLICT("
            "platform, workspace_id, user_id) DO UPDATE SET refused_at=excluded.refused_at",
            (platform, workspace_id, user_id, self._clock(), self._clock()))

    async def cookies_refused_at(self, platform: str, workspace_id: str, user_id: str
                                 ) -> float | None:
        """When ESPN last refused this member's cookies on a write, or None."""
        r = await self.db.fetchone(
            "SELECT refused_at FROM espn_write_prefs WHERE platform=? AND workspace_id=? AND "
            "user_id=?", (platform, workspace_id, user_id))
        return float(r["refused_at"]) if r and r["refused_at"] is not None else None

    # ------------------------------------------------------------------ daily posts

    async def set_schedule(self, s: DailySchedule) -> None:
        """Create or replace a channel's daily post schedule."""
        await self.db.execute(
            "INSERT INTO daily_schedules (channel_key, platform, workspace_id, channel_id, hhmm,"
            " tz, team_id, created_by, updated_at, pin) VALUES (?,?,?,?,?,?,?,?,?,?)"
            " ON CONFLICT(channel_key) DO UPDATE SET hhmm=excluded.hhmm, tz=excluded.tz,"
            " team_id=excluded.team_id, created_by=excluded.created_by,"
            " updated_at=excluded.updated_at, pin=excluded.pin",
            (s.channel_key, s.platform, s.workspace_id, s.channel_id, s.hhmm, s.tz, s.team_id,
             s.created_by, self._clock(), 1 if s.pin else 0))

    async def delete_schedule(self, channel_key: str) -> bool:
        """Turn a channel's daily post off."""
        return await self.db.execute("DELETE FROM daily_schedules WHERE channel_key=?",
                                     (channel_key,)) > 0

    async def schedules(self, platform: str | None = None) -> list[DailySchedule]:
        """All daily schedules (optionally of one platform)."""
        if platform is None:
            rows = await self.db.fetchall("SELECT * FROM daily_schedules ORDER BY channel_key")
        else:
            rows = await self.db.fetchall(
                "SELECT * FROM daily_schedules WHERE platform=? ORDER BY channel_key", (platform,))
        return [DailySchedule(r["channel_key"], r["platform"], r["workspace_id"],
                              r["channel_id"], r["hhmm"], r["tz"], r["team_id"], r["created_by"],
                              bool(r["pin"]))
                for r in rows]

    async def claim_daily_post(self, channel_key: str, local_date: str, *,
                               retry_failed_after: float = 300.0) -> bool:
        """Claim the day's post for a channel; False if it was already posted or is being
        posted. A failed attempt can be claimed again after `retry_failed_after` seconds."""
        now = self._clock()
        # one atomic statement: a concurrent claim (another process) waits for this row
        # and then sees it taken
        n = await self.db.execute(
            "INSERT INTO daily_posts (channel_key, local_date, status, at) VALUES (?,?,?,?) "
            "ON CONFLICT(channel_key, local_date) DO UPDATE SET status=excluded.status, "
            "at=excluded.at WHERE daily_posts.status='failed' AND daily_posts.at <= ?",
            (channel_key, local_date, "posting", now, now - retry_failed_after))
        return n > 0

    async def finish_daily_post(self, channel_key: str, local_date: str, *, ok: bool,
                                message_id: str | None = None) -> None:
        """Mark the day's post as posted (or failed, so it can be retried)."""
        await self.db.execute(
            "UPDATE daily_posts SET status=?, message_id=?, at=? "
            "WHERE channel_key=? AND local_date=?",
            ("posted" if ok else "failed", message_id, self._clock(), channel_key, local_date))

    async def resume_daily_post(self, channel_key: str, local_date: str, *,
                                stale_after: float = 120.0) -> float | None:
        """Take over a post a killed process left claimed ("posting": maybe posted, its id
        not stored). Returns the time of that claim (the post, if any, came after it) or
        None. SQLite: any such row (one process per file); Postgres: a claim older than
        `stale_after` seconds (another live process may be posting it right now)."""
        row = await self.db.fetchone(
            "SELECT at FROM daily_posts WHERE channel_key=? AND local_date=? AND "
            "status='posting'", (channel_key, local_date))
        if row is None:
            return None
        now = self._clock()
        cutoff = now if self.db.dialect != "postgres" else now - stale_after
        n = await self.db.execute(
            "UPDATE daily_posts SET at=? WHERE channel_key=? AND local_date=? AND "
            "status='posting' AND at=? AND at<=?",
            (now, channel_key, local_date, row["at"], cutoff))
        return float(row["at"]) if n > 0 else None

    async def daily_posts(self, channel_key: str) -> list[dict[str, Any]]:
        """The ledger of one channel."""
        rows = await self.db.fetchall(
            "SELECT * FROM daily_posts WHERE channel_key=? ORDER BY local_date", (channel_key,))
        return [dict(r) for r in rows]

    async def save_digest_team(self, channel_key: str, day: str, team_id: int, user_id: str,
                               state: dict[str, Any]) -> None:
        """Remember what a team's lineup looked like in the day's digest of a channel."""
        await self.db.execute(
            "INSERT INTO digest_teams (channel_key, day, team_id, user_id, state, at) "
            "VALUES (?,?,?,?,?,?) ON CONFLICT(channel_key, day, team_id) DO UPDATE SET "
            "user_id=excluded.user_id, state=excluded.state, at=excluded.at",
            (channel_key, day, int(team_id), user_id, json.dumps(state, sort_keys=True),
             self._clock()))

    async def digest_teams(self, channel_key: str, day: str) -> list[dict[str, Any]]:
        """The teams of a day's digest in a channel: team_id, user_id, state (a dict)."""
        rows = await self.db.fetchall(
            "SELECT * FROM digest_teams WHERE channel_key=? AND day=? ORDER BY team_id",
            (channel_key, day))
        return [{"team_id": int(r["team_id"]), "user_id": r["user_id"],
                 "state": json.loads(r["state"])} for r in rows]

    async def create_prelock_fix(self, *, channel_key: str, day: str, team_id: int,
                                 user_id: str, scope: str = "today") -> str:
        """A lineup fix button (pre-lock alert, digest, /lineup); returns its id (12 hex, a
        card id's shape). `scope`: "today", "week" (the later days) or "day:<iso>"."""
        fix_id = new_card_id()
        await self.db.execute(
            "INSERT INTO prelock_fixes (fix_id, channel_key, day, team_id, user_id, status, at,"
            " scope) VALUES (?,?,?,?,?,?,?,?)",
            (fix_id, channel_key, day, int(team_id), user_id, "pending", self._clock(), scope))
        return fix_id

    async def set_prelock_fix_message(self, fix_id: str, message_id: str) -> None:
        """Where the alert with this fix button was posted."""
        await self.db.execute("UPDATE prelock_fixes SET message_id=? WHERE fix_id=?",
                              (message_id, fix_id))

    async def unposted_prelock_fix(self, *, channel_key: str, day: str, team_id: int,
                                   since: float, message_id: str | None = None) -> str | None:
        """The newest fix button made for a pre-lock alert since `since` whose message id
        was never stored (a crash between its post and storing the id), or None. With
        `message_id`: one on that message (the digest's shared one, `bot.core.daily`)."""
        on = "message_id IS NULL" if message_id is None else "message_id=?"
        r = await self.db.fetchone(
            "SELECT fix_id FROM prelock_fixes WHERE channel_key=? AND day=? AND team_id=? "
            f"AND scope='today' AND {on} AND at>=? ORDER BY at DESC LIMIT 1",
            (channel_key, day, int(team_id), *([] if message_id is None else [message_id]),
             since))
        return r["fix_id"] if r else None

    async def get_prelock_fix(self, fix_id: str) -> dict[str, Any] | None:
        """A fix button's row, or None when it is not one."""
        r = await self.db.fetchone("SELECT * FROM prelock_fixes WHERE fix_id=?", (fix_id,))
        return dict(r) if r is not None else None

    async def claim_prelock_fix(self, fix_id: str, decided_by: str) -> bool:
        """Take a pending fix (one caller wins, also across processes); the row names this
        instance while it is being applied."""
        return await self.db.execute(
            "UPDATE prelock_fixes SET status='applying', decided_by=?, at=?, owner=? "
            "WHERE fix_id=? AND status='pending'",
            (decided_by, self._clock(), self.owner, fix_id)) > 0

    async def retake_prelock_fix(self, fix_id: str, *, takeover: bool = False) -> bool:
        """Take over a fix left `applying` by a process that died (storage.processes.
        orphan_filter: this instance's earlier incarnation, or another instance whose
        heartbeat stopped): one caller wins. The caller makes sure it is not its own fix in
        flight. Its write is then settled by reading back (`bot.core.prelock`)."""
        where, params = self._orphans(takeover=takeover)
        return await self.db.execute(
            "UPDATE prelock_fixes SET owner=?, at=? WHERE fix_id=? AND status='applying'"
            + where, (self.owner, self._clock(), fix_id, *params)) > 0

    async def abandoned_prelock_fixes(self, *, takeover: bool = False) -> list[dict[str, Any]]:
        """Fix rows left `applying` whose process died (see `retake_prelock_fix`), oldest
        first: recovery settles them."""
        where, params = self._orphans(takeover=takeover)
        rows = await self.db.fetchall("SELECT * FROM prelock_fixes WHERE status='applying'"
                                      + where + " ORDER BY at", params)
        return [dict(r) for r in rows]

    async def finish_prelock_fix(self, fix_id: str, status: str) -> None:
        """'applied', 'expired', or 'pending' again when applying failed (nothing made, or
        an outcome the next tap settles by reading back)."""
        await self.db.execute("UPDATE prelock_fixes SET status=?, at=? WHERE fix_id=?",
                              (status, self._clock(), fix_id))

    # ------------------------------------------------------------------ move schedule

    async def schedule_moves(self, rows: list[ScheduledMove]) -> int:
        """Store the scheduled moves of a decided card; a row stored before (a recovery
        finishing the same card) is kept as it is. Returns how many were new."""
        now = self._clock()
        new = 0
        for r in rows:
            new += await self.db.execute(
                "INSERT OR IGNORE INTO move_schedule (card_id, plan_move_id, move_id, seq,"
                " team_id, day, drop_id, drop_name, add_id, add_name, needs, drop_to_ir, line,"
                " expected_gain, gain_unit, status, note, shown, owner, created_at,"
                " updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (r.card_id, r.plan_move_id, r.move_id, int(r.seq), int(r.team_id), r.day,
                 int(r.drop_id), r.drop_name, int(r.add_id), r.add_name, r.needs,
                 int(r.drop_to_ir), r.line, r.expected_gain, r.gain_unit, r.status, r.note,
                 int(r.shown), self.owner, now, now))
        return new

    async def scheduled_moves(self, card_id: str) -> list[ScheduledMove]:
        """Every scheduled move of a card, in its timeline order."""
        rows = await self.db.fetchall(
            "SELECT * FROM move_schedule WHERE card_id=? ORDER BY seq", (card_id,))
        return [_scheduled(r) for r in rows]

    async def open_scheduled_moves(self, team_id: int, *, from_day: str = "",
                                   every: bool = False) -> list[ScheduledMove]:
        """A team's approved moves still to be made (`scheduled`, or `making` right now) on
        `from_day` (ISO) or later, by day and timeline order: its week plan's open moves.
        `every`: whatever their status (made, waiting, not possible...)."""
        if every:
            rows = await self.db.fetchall(
                "SELECT * FROM move_schedule WHERE team_id=? AND day>=?"
                " ORDER BY day, created_at, card_id, seq", (int(team_id), from_day))
        else:
            rows = await self.db.fetchall(
                "SELECT * FROM move_schedule WHERE team_id=? AND status IN (?,?) AND day>=?"
                " ORDER BY day, created_at, card_id, seq",
                (int(team_id), SCHEDULED, MAKING, from_day))
        return [_scheduled(r) for r in rows]

    async def due_moves(self, day: str, *, orphaned_only: bool = False,
                        takeover: bool = False) -> list[ScheduledMove]:
        """Moves still to make whose day is `day` (ISO) or earlier: by day, then card, then
        timeline order. `orphaned_only` / `takeover`: as `cards_by_status`."""
        extra, args = self._filter(orphaned_only, takeover)
        rows = await self.db.fetchall(
            "SELECT * FROM move_schedule WHERE status=? AND day<=?" + extra
            + " ORDER BY day, created_at, card_id, seq", (SCHEDULED, day, *args))
        return [_scheduled(r) for r in rows]

    async def scheduled_moves_in(self, status: str, *, orphaned_only: bool = False,
                                 takeover: bool = False) -> list[ScheduledMove]:
        """Scheduled moves in one status (e.g. `making` after a crash), oldest day first."""
        extra, args = self._filter(orphaned_only, takeover)
        rows = await self.db.fetchall(
            "SELECT * FROM move_schedule WHERE status=?" + extra
            + " ORDER BY day, created_at, card_id, seq", (status, *args))
        return [_scheduled(r) for r in rows]

    async def claim_scheduled_move(self, card_id: str, plan_move_id: str) -> bool:
        """`scheduled` -> `making` before the move is made; only one caller wins (one
        atomic statement on both back ends)."""
        return await self.db.execute(
            "UPDATE move_schedule SET status=?, owner=?, updated_at=? WHERE card_id=? AND"
            " plan_move_id=? AND status=?",
            (MAKING, self.owner, self._clock(), card_id, plan_move_id, SCHEDULED)) == 1

    async def release_scheduled_move(self, card_id: str, plan_move_id: str) -> bool:
        """`making` -> `scheduled` (the move was read back as not made: it may be made)."""
        return await self.db.execute(
            "UPDATE move_schedule SET status=?, updated_at=? WHERE card_id=? AND"
            " plan_move_id=? AND status=?",
            (SCHEDULED, self._clock(), card_id, plan_move_id, MAKING)) == 1

    async def finish_scheduled_move(self, card_id: str, plan_move_id: str, *, status: str,
                                    note: str = "", move_id: str | None = None) -> None:
        """The move's outcome (`applied` / `waiting` / `not_possible` with `note`); the
        card is to be redrawn (`shown` 0 until `mark_schedule_shown`)."""
        await self.db.execute(
            "UPDATE move_schedule SET status=?, note=?, move_id=COALESCE(?, move_id),"
            " shown=0, updated_at=? WHERE card_id=? AND plan_move_id=?",
            (status, note, move_id, self._clock(), card_id, plan_move_id))

    async def mark_schedule_shown(self, card_id: str) -> None:
        """The card was redrawn with the state of all its scheduled moves."""
        await self.db.execute("UPDATE move_schedule SET shown=1 WHERE card_id=? AND shown=0",
                              (card_id,))

    async def unshown_schedule_cards(self) -> list[str]:
        """Cards whose message does not show a scheduled move's state yet (a crash between
        making the move and redrawing the card)."""
        rows = await self.db.fetchall(
            "SELECT DISTINCT card_id FROM move_schedule WHERE shown=0 ORDER BY card_id")
        return [str(r["card_id"]) for r in rows]

    # ------------------------------------------------------------------ week plans

    async def put_week_plan(self, plan: WeekPlan) -> None:
        """Store a team's week plan (replacing the one of its matchup period: one plan per
        team and matchup). The moves kept in `move_schedule` are stored with their status
        of now; reading the plan takes the schedule's."""
        now = self._clock()
        await self.db.execute(
            "INSERT OR REPLACE INTO week_plans (team_id, matchup_period, card_id, last_day,"
            " plan, created_at, updated_at) VALUES (?,?,?,?,?,"
            " COALESCE((SELECT created_at FROM week_plans WHERE team_id=? AND"
            " matchup_period=?), ?), ?)",
            (int(plan.team_id), int(plan.matchup_period), plan.card_id,
             plan.last_day.isoformat() if plan.last_day else "",
             json.dumps(plan.to_json(), separators=(",", ":")), int(plan.team_id),
             int(plan.matchup_period), now, now))

    async def current_week_plan(self, team_id: int, matchup_period: int | None = None
                                ) -> WeekPlan | None:
        """The team's week plan of `matchup_period` (default: its latest), its scheduled
        moves with the status `move_schedule` has for them now; None when the team has
        none."""
        if matchup_period is None:
            row = await self.db.fetchone(
                "SELECT plan FROM week_plans WHERE team_id=? ORDER BY matchup_period DESC"
                " LIMIT 1", (int(team_id),))
        else:
            row = await self.db.fetchone(
                "SELECT plan FROM week_plans WHERE team_id=? AND matchup_period=?",
                (int(team_id), int(matchup_period)))
        if row is None:
            return None
        plan = WeekPlan.model_validate(json.loads(row["plan"]))
        statuses: dict[tuple[str, str], tuple[str, str]] = {}
        for card_id in {m.card_id for m in plan.moves if m.in_schedule}:
            for r in await self.scheduled_moves(card_id):
                statuses[(r.card_id, r.plan_move_id)] = (r.status, r.note)
        return plan.with_move_status(statuses) if statuses else plan

    async def week_plans_through(self, day: str) -> list[WeekPlan]:
        """Every team's week plan that has a day on or after `day` (ISO): the plans whose
        lineups the scheduler still sets (scheduled moves' status as `current_week_plan`)."""
        rows = await self.db.fetchall(
            "SELECT team_id, matchup_period FROM week_plans WHERE last_day>=?"
            " ORDER BY team_id, matchup_period", (day,))
        out = []
        for r in rows:
            plan = await self.current_week_plan(int(r["team_id"]), int(r["matchup_period"]))
            if plan is not None:
                out.append(plan)
        return out

    # ------------------------------------------------------------------ events / rate limits

    async def mark_event_processed(self, event_id: str, *, keep_seconds: float = 86400.0
                                   ) -> bool:
        """True the first time an event id is seen; False for a retry/duplicate."""
        now = self._clock()
        n = await self.db.execute(
            "INSERT INTO processed_events (event_id, at) VALUES (?,?) "
            "ON CONFLICT(event_id) DO NOTHING", (event_id, now))
        if n and secrets.randbelow(50) == 0:
            await self.db.execute("DELETE FROM processed_events WHERE at < ?",
                                  (now - keep_seconds,))
        return n > 0

    async def take_token(self, user_key: str, *, capacity: float, per_minute: float) -> float:
        """Take one token from a user's bucket. Returns 0.0 when allowed, else the seconds
        to wait until a token is available (nothing is taken)."""
        now = self._clock()
        rate = per_minute / 60.0
        async with self.db.transaction():
            # the row exists before it is locked, so two processes' first takes serialise
            await self.db.execute(
                "INSERT INTO rate_buckets (user_key, tokens, updated) VALUES (?,?,?) "
                "ON CONFLICT(user_key) DO NOTHING", (user_key, capacity, now), commit=False)
            r = await self.db.fetchone("SELECT tokens, updated FROM rate_buckets WHERE "
                                       "user_key=?" + self.db.row_lock, (user_key,))
            if r is None:  # inserted just above, in this transaction
                raise RuntimeError(f"rate bucket {user_key!r} vanished inside its transaction")
            tokens = min(capacity, r["tokens"] + max(0.0, now - r["updated"]) * rate)
            if tokens < 1.0:
                return (1.0 - tokens) / rate if rate > 0 else float("inf")
            await self.db.execute(
                "UPDATE rate_buckets SET tokens=?, updated=? WHERE user_key=?",
                (tokens - 1.0, now, user_key), commit=False)
            return 0.0

    async def penalize_bucket(self, user_key: str, seconds: float, *, per_minute: float
                              ) -> None:
        """Empty a bucket so it refills only after `seconds` (e.g. after an HTTP 429)."""
        tokens = -max(0.0, seconds) * per_minute / 60.0
        await self.db.execute(
            "INSERT INTO rate_buckets (user_key, tokens, updated) VALUES (?,?,?) "
            "ON CONFLICT(user_key) DO UPDATE SET tokens=excluded.tokens, "
            "updated=excluded.updated", (user_key, tokens, self._clock()))


def _card(r: Any) -> CardRow:
    return CardRow(
        card_id=r["card_id"], run_thread_id=r["run_thread_id"], interrupt_id=r["interrupt_id"],
        conversation_id=r["conversation_id"], platform=r["platform"],
        workspace_id=r["workspace_id"], channel_id=r["channel_id"], thread_id=r["thread_id"],
        message_id=r["message_id"], requester_id=r["requester_id"],
        requester_name=r["requester_name"], team_id=r["team_id"], title=r["title"],
        summary=r["summary"], moves=json.loads(r["moves"]), decisions=json.loads(r["decisions"]),
        status=r["status"], decided_by=r["decided_by"], decided_by_name=r["decided_by_name"],
        decided_at=r["decided_at"], result=json.loads(r["result"]) if r["result"] else None,
        created_at=r["created_at"], updated_at=r["updated_at"],
        shown=bool(r["shown"]) if "shown" in r.keys() else True,
        posting_at=r["posting_at"] if "posting_at" in r.keys() else None,
        progress_id=r["progress_id"] if "progress_id" in r.keys() else None,
        progress_at=r["progress_at"] if "progress_at" in r.keys() else None,
        plan=json.loads(r["plan"]) if "plan" in r.keys() and r["plan"] else None)


def _scheduled(r: Any) -> ScheduledMove:
    gain = r["expected_gain"]
    return ScheduledMove(
        card_id=r["card_id"], plan_move_id=r["plan_move_id"], move_id=r["move_id"],
        seq=int(r["seq"]), team_id=int(r["team_id"]), day=str(r["day"]),
        drop_id=int(r["drop_id"]), drop_name=r["drop_name"], add_id=int(r["add_id"]),
        add_name=r["add_name"], needs=int(r["needs"]) if r["needs"] is not None else None,
        drop_to_ir=bool(r["drop_to_ir"]), line=r["line"], expected_gain=float(gain) if gain is not None else None,
        gain_unit=r["gain_unit"], status=r["status"], note=r["note"], shown=bool(r["shown"]),
        created_at=float(r["created_at"]), updated_at=float(r["updated_at"]))


def _turn(r: Any) -> TurnRow:
    return TurnRow(
        turn_id=r["turn_id"], conversation_id=r["conversation_id"], platform=r["platform"],
        workspace_id=r["workspace_id"], channel_id=r["channel_id"], thread_id=r["thread_id"],
        user_id=r["user_id"], user_name=r["user_name"], team_id=r["team_id"], text=r["text"],
        request=json.loads(r["request"]) if r["request"] else None,
        message_id=r["message_id"], status=r["status"], attempts=int(r["attempts"]),
        created_at=r["created_at"], updated_at=r["updated_at"],
        posting_at=r["posting_at"] if "posting_at" in r.keys() else None)


__all__ = ["AppDB", "CardRow", "DailySchedule", "LeagueLink", "SecretKeyMissing", "TurnRow",
           "make_fernet", "new_card_id"]


def _write_record(r: Any) -> Any:
    from fantasy.espn.writes import WriteRecord

    def js(v: Any) -> Any:
        return None if v is None else json.loads(v)
    return WriteRecord(r["write_key"], int(r["league_id"]), int(r["team_id"]), r["actor"],
                       r["kind"], int(r["scoring_period"]), r["summary"], js(r["body"]) or {},
                       r["status"], js(r["answer"]), js(r["verification"]), r["error"] or "",
                       r["espn_id"], int(r["attempts"] or 0))
