"""Writes to ESPN's private transaction endpoint: add/drop, waiver claims, lineups.

ESPN publishes no write API; its own apps make every roster change with one POST
(reference espn-api.md section 9, community-documented, unofficial):

    POST {writes host}/seasons/{season}/segments/0/leagues/{league}/transactions/

Every shape of that endpoint lives here (bodies, item types, error codes), so the demo league
(`fantasy.demo.transactions`) and the tests' fake server answer the same ones.

`EspnWriter` is the one write path, for the demo league and live leagues alike:

- typed methods: `add_drop` (a free agent), `claim` (a waiver player, with a bid in FAAB
  leagues), `set_lineup` (one scoring period: LINEUP today, FUTURE_ROSTER later, built from
  the slots ESPN has for that period, read first) and `set_lineups` (several periods);
- the acting member's own cookies (`Credentials`) go to the write host and the read host
  only, as a per-request header; nothing is kept in a cookie jar, redirects are never followed;
- every answer becomes a typed error of `fantasy.espn.errors` (an error body inside a 200
  too);
- never retried blind: after a timeout, a connection error or a 5xx the roster (or the
  league's transactions) is read back, and only a read that shows nothing happened allows
  one more attempt;
- writes to one league are paced at least `MIN_INTERVAL` apart (in this process);
- each write has a key and is journaled (`WriteJournal`, the app DB's `espn_writes` table)
  before the POST and after: who, what, the payload without secrets, ESPN's answer and the
  verification read. A key already done is never sent again; a key left "sending" by a crash
  is settled by reading back first (`crash` names the points on both sides of the POST:
  `espn_write:before_post` / `espn_write:after_post`, and the same with the transaction's
  type, e.g. `espn_write:after_post:WAIVER`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

import httpx

from fantasy.constants import ESPN_READS_BASE_URL, SLOT_BENCH, SLOT_IR, STARTING_SLOTS, slot_name
from fantasy.espn.errors import (
    EspnCredentialsExpired,
    EspnError,
    EspnLineupLocked,
    EspnMovesLimitReached,
    EspnPlayerUnavailable,
    EspnRosterFull,
    EspnStaleSlot,
    EspnWriteError,
    EspnWriteNotSent,
    EspnWriteOutcomeUnknown,
    EspnWriteRefused,
    EspnWritesDisabled,
)
from fantasy.redact import MASK, redact, register_secret

log = logging.getLogger(__name__)

ESPN_WRITES_BASE_URL = "https://lm-api-writes.fantasy.espn.com/apis/v3/games/fba/"
#: Seconds between two writes to one league (one project saw throttling below ~300 ms).
MIN_INTERVAL = 0.3

# transaction types (`type` of the body)
FREEAGENT = "FREEAGENT"
WAIVER = "WAIVER"
LINEUP = "LINEUP"
FUTURE_ROSTER = "FUTURE_ROSTER"
# item types
ADD = "ADD"
DROP = "DROP"

# ESPN's error types (`details[].type`) as the community documented them; the demo league
# and the test server answer with these.
LINEUP_LOCKED = "TRAN_LINEUP_LOCKED"
ROSTER_LOCKED = "TRAN_ROSTER_LOCKED"
ROSTER_FULL = "TRAN_ROSTER_LIMIT_EXCEEDED"
PLAYER_NOT_AVAILABLE = "TRAN_PLAYER_NOT_AVAILABLE"
PLAYER_ON_WAIVERS = "TRAN_PLAYER_ON_WAIVERS"
PLAYER_NOT_ON_WAIVERS = "TRAN_PLAYER_NOT_ON_WAIVERS"
PLAYER_NOT_ON_ROSTER = "TRAN_PLAYER_NOT_ON_ROSTER"
ACQUISITION_LIMIT = "TRAN_ACQUISITION_LIMIT_EXCEEDED"
NOT_CURRENT = "TRAN_INVALID_SCORINGPERIOD_NOT_CURRENT"
INVALID_BID = "TRAN_INVALID_BID_AMOUNT"
NOT_TEAM_OWNER = "TRAN_NOT_TEAM_OWNER"
#: The bare message ESPN sends for a stale `fromLineupSlotId` (and today's lineup after lock).
INVALID_INPUT = "Invalid Input."

_ERROR_CLASSES: dict[str, type[EspnWriteError]] = {
    LINEUP_LOCKED: EspnLineupLocked, ROSTER_LOCKED: EspnLineupLocked,
    ROSTER_FULL: EspnRosterFull, PLAYER_NOT_AVAILABLE: EspnPlayerUnavailable,
    PLAYER_ON_WAIVERS: EspnPlayerUnavailable, PLAYER_NOT_ON_WAIVERS: EspnPlayerUnavailable,
    ACQUISITION_LIMIT: EspnMovesLimitReached, NOT_TEAM_OWNER: EspnCredentialsExpired,
}

# journal statuses
SENDING = "sending"      # recorded before the POST: may or may not have happened
DONE = "done"            # ESPN made it (and the read back agrees, see `verified`)
PENDING = "pending"      # a waiver claim waiting for waivers to process
FAILED = "failed"        # ESPN refused it: nothing changed
UNKNOWN = "unknown"      # no answer and the read back could not tell
DRY_RUN = "dry_run"      # printed, never sent
NOOP = "noop"            # nothing to change
SETTLED = (DONE, PENDING)


@dataclass(frozen=True)
class Credentials:
    """A member's ESPN cookies (from /link; decrypted only for the request). Never in reprs."""

    espn_s2: str = field(repr=False)
    swid: str = field(repr=False)

    def __post_init__(self) -> None:
        register_secret(self.espn_s2)
        register_secret(self.swid)

    @property
    def member_id(self) -> str:
        """The SWID with its braces (ESPN's `memberId`)."""
        s = self.swid.strip()
        return s if s.startswith("{") else "{" + s.strip("{}") + "}"

    def cookie_header(self) -> str:
        return f"espn_s2={self.espn_s2}; SWID={self.member_id}"


@dataclass(frozen=True)
class TxItem:
    """One item of a transaction."""

    player_id: int
    type: str  # ADD | DROP | LINEUP
    team_id: int = 0
    from_slot: int | None = None
    to_slot: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The item as ESPN's body has it."""
        if self.type == ADD:
            return {"playerId": self.player_id, "type": ADD, "toTeamId": self.team_id}
        if self.type == DROP:
            return {"playerId": self.player_id, "type": DROP, "fromTeamId": self.team_id}
        return {"playerId": self.player_id, "type": LINEUP, "fromLineupSlotId": self.from_slot,
                "toLineupSlotId": self.to_slot}


@dataclass(frozen=True)
class Transaction:
    """A transaction to POST: type, team, scoring period and its items."""

    type: str
    team_id: int
    scoring_period: int
    items: tuple[TxItem, ...]
    bid_amount: int | None = None

    def body(self, member_id: str) -> dict[str, Any]:
        """The exact JSON body (espn-api.md section 9)."""
        out: dict[str, Any] = {
            "isLeagueManager": False, "teamId": self.team_id, "type": self.type,
            "memberId": member_id, "scoringPeriodId": self.scoring_period,
            "executionType": "EXECUTE", "items": [i.to_json() for i in self.items]}
        if self.type == WAIVER:
            out["bidAmount"] = int(self.bid_amount or 0)
        return out

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        """"add X, drop Y" / "lineup SP 98: X BE->PG" (for the audit and logs)."""
        names = names or {}

        def n(pid: int) -> str:
            return names.get(pid, str(pid))
        if self.type in (FREEAGENT, WAIVER):
            parts = [f"{i.type.lower()} {n(i.player_id)}" for i in self.items]
            bid = f" (bid ${self.bid_amount})" if self.type == WAIVER and self.bid_amount else ""
            return ("claim " if self.type == WAIVER else "") + ", ".join(parts) + bid
        moves = ", ".join(f"{n(i.player_id)} {slot_name(i.from_slot or 0)}->"
                          f"{slot_name(i.to_slot or 0)}" for i in self.items)
        return f"lineup SP {self.scoring_period}: {moves}"


def masked_body(body: Mapping[str, Any]) -> dict[str, Any]:
    """A body or ESPN answer without secrets (memberId is the SWID), safe to audit and print."""
    out = json.loads(redact(json.dumps(body)))
    for k in ("memberId", "proposedBy", "ownerId"):
        if k in out:
            out[k] = MASK
    return out


@dataclass
class WriteOutcome:
    """What one write did. `status`: done | pending (a waiver claim) | dry_run | noop."""

    status: str
    key: str
    transaction: Transaction | None
    body: dict[str, Any] = field(default_factory=dict)       # masked
    answer: dict[str, Any] | None = None                    # ESPN's answer, masked
    espn_id: str | None = None
    verified: bool | None = None
    note: str = ""
    skipped: list[str] = field(default_factory=list)        # items left out, with why


@dataclass
class WriteRecord:
    """One journaled write (the `espn_writes` table): no secret in any field."""

    key: str
    league_id: int
    team_id: int
    actor: str
    kind: str
    scoring_period: int
    summary: str = ""
    body: dict[str, Any] = field(default_factory=dict)
    status: str = SENDING
    answer: dict[str, Any] | None = None
    verification: dict[str, Any] | None = None
    error: str = ""
    espn_id: str | None = None
    attempts: int = 0


class WriteJournal(Protocol):
    """Durable record of writes (storage.app_db.AppDB implements it)."""

    async def write_get(self, key: str) -> WriteRecord | None: ...

    async def write_put(self, rec: WriteRecord) -> None: ...


class MemoryJournal:
    """A journal in memory (the CLI's dry runs; tests use the app DB's)."""

    def __init__(self) -> None:
        self.rows: dict[str, WriteRecord] = {}

    async def write_get(self, key: str) -> WriteRecord | None:
        return self.rows.get(key)

    async def write_put(self, rec: WriteRecord) -> None:
        self.rows[rec.key] = rec


# ---------------------------------------------------------------------- pacing

#: Per event loop (weakly held: a closed loop's pacers go with it, and a new loop whose id
#: reuses a dead one's never inherits its last-write times): (host, league) -> pacer.
_PACERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop,
                                   dict[tuple[str, int], tuple[asyncio.Lock, list[float]]]] = \
    weakref.WeakKeyDictionary()


def _pacer(host: str, league_id: int) -> tuple[asyncio.Lock, list[float]]:
    """The lock and last-write time of one league's writes in this process (per event loop)."""
    pacers = _PACERS.setdefault(asyncio.get_running_loop(), {})
    key = (host, league_id)
    if key not in pacers:
        pacers[key] = (asyncio.Lock(), [float("-inf")])
    return pacers[key]


# ---------------------------------------------------------------------- answers

def _messages(data: Any) -> tuple[list[str], list[str]]:
    """(error types, messages) of an ESPN error body ({"messages": [...], "details": [...]})."""
    if not isinstance(data, Mapping):
        return [], []
    codes, msgs = [], [str(m) for m in data.get("messages") or [] if m]
    for d in data.get("details") or []:
        if isinstance(d, Mapping):
            if d.get("type"):
                codes.append(str(d["type"]))
            if d.get("message") and str(d["message"]) not in msgs:
                msgs.append(str(d["message"]))
    if data.get("type") and str(data.get("type", "")).startswith("TRAN_"):
        codes.append(str(data["type"]))
    return codes, msgs


def _is_error_body(data: Any) -> bool:
    """True for an error inside a 200: messages/details without a transaction status, or a
    transaction whose status is a failure."""
    if not isinstance(data, Mapping):
        return True
    status = str(data.get("status") or "")
    if status.startswith("FAILED") or status in ("CANCELED", "ERROR"):
        return True
    codes, msgs = _messages(data)
    return bool(codes or msgs) and not status


def classify(status: int, data: Any, tx: Transaction) -> EspnWriteError:
    """The typed error of a refused write (HTTP status and body)."""
    codes, msgs = _messages(data)
    reason = "; ".join(msgs) or (str(data.get("status")) if isinstance(data, Mapping)
                                 and data.get("status") else f"HTTP {status}")
    view = f"transactions:{tx.type}"
    if status in (401, 403) and not codes:
        return EspnCredentialsExpired(
            "ESPN refused the member's cookies (expired, or not this team's owner): link "
            "again with fresh espn_s2 and SWID", status=status, view=view, code=f"HTTP{status}",
            reason=reason)
    for code in codes:
        cls = _ERROR_CLASSES.get(code)
        if cls is not None:
            return cls(f"ESPN refused the change: {reason}", status=status, view=view,
                       code=code, reason=reason)
    if any(INVALID_INPUT.rstrip(".").lower() in m.lower() for m in msgs) and \
            tx.type in (LINEUP, FUTURE_ROSTER):
        return EspnStaleSlot(f"ESPN refused the lineup: {reason}", status=status, view=view,
                             code="INVALID_INPUT", reason=reason)
    return EspnWriteRefused(f"ESPN refused the change: {reason}", status=status, view=view,
                            code=codes[0] if codes else "", reason=reason)


# ---------------------------------------------------------------------- the writer

Crash = Callable[[str], None]


def _no_crash(name: str) -> None:
    return None


class EspnWriter:
    """The one write path of a league (see module docstring). One writer per acting member:
    `credentials` are that member's own (None: the demo league, which needs none, with
    `member_id` the team owner's id)."""

    def __init__(self, league_id: int, season: int, *, credentials: Credentials | None = None,
                 member_id: str | None = None, journal: WriteJournal | None = None,
                 transport: httpx.AsyncBaseTransport | None = None,
                 write_base_url: str = ESPN_WRITES_BASE_URL,
                 read_base_url: str = ESPN_READS_BASE_URL, dry_run: bool = False,
                 timeout: float = 15.0, min_interval: float = MIN_INTERVAL,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 clock: Callable[[], float] = time.monotonic, crash: Crash = _no_crash,
                 names: Mapping[int, str] | None = None,
                 shared_pace: Callable[[], Awaitable[float]] | None = None) -> None:
        self.league_id = int(league_id)
        self.season = int(season)
        self.credentials = credentials
        self.member_id = credentials.member_id if credentials else (member_id or "")
        self.journal: WriteJournal = journal or MemoryJournal()
        self.dry_run = dry_run
        self.write_base_url = write_base_url if write_base_url.endswith("/") else write_base_url + "/"
        self.read_base_url = read_base_url if read_base_url.endswith("/") else read_base_url + "/"
        self._hosts = {(u.scheme, u.netloc) for u in (urlsplit(self.write_base_url),
                                                      urlsplit(self.read_base_url))}
        self._http = httpx.AsyncClient(transport=transport, timeout=timeout,
                                       follow_redirects=False,
                                       headers={"Accept": "application/json",
                                                "User-Agent": "fanvise/0.1"})
        self.min_interval = float(min_interval)
        self._sleep = sleep
        self._clock = clock
        self._crash = crash
        #: pacing shared with other processes (the app DB's token bucket of the league): a
        #: call takes the league's write slot, or returns the seconds to wait for it
        self._shared_pace = shared_pace
        #: player id -> name, for readable audit summaries (optional)
        self.names: dict[int, str] = dict(names or {})
        #: the masked bodies this writer sent or, in a dry run, would send (newest last)
        self.sent: list[dict[str, Any]] = []

    def __repr__(self) -> str:
        return (f"EspnWriter(league_id={self.league_id}, season={self.season}, "
                f"authenticated={self.credentials is not None}, dry_run={self.dry_run})")

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._http.aclose()

    # ------------------------------------------------------------------ URLs and HTTP

    @property
    def transactions_url(self) -> str:
        return (f"{self.write_base_url}seasons/{self.season}/segments/0/leagues/"
                f"{self.league_id}/transactions/")

    @property
    def league_url(self) -> str:
        return f"{self.read_base_url}seasons/{self.season}/segments/0/leagues/{self.league_id}"

    def _headers(self, url: str) -> dict[str, str]:
        """Cookies only for the configured write and read hosts (https, exact host)."""
        parts = urlsplit(url)
        headers = {"X-Fantasy-Source": "kona"}
        if self.credentials is not None and (parts.scheme, parts.netloc) in self._hosts \
                and parts.scheme == "https":
            headers["Cookie"] = self.credentials.cookie_header()
        return headers

    async def _get(self, params: Sequence[tuple[str, Any]],
                   fantasy_filter: dict[str, Any] | None = None) -> Any:
        headers = self._headers(self.league_url)
        if fantasy_filter is not None:
            headers["x-fantasy-filter"] = json.dumps(fantasy_filter, separators=(",", ":"))
        try:
            resp = await self._http.get(self.league_url, params=list(params), headers=headers)
        except httpx.HTTPError as exc:
            raise EspnWriteOutcomeUnknown(
                f"could not read the league back from ESPN ({type(exc).__name__})",
                view="verify") from None
        if resp.status_code in (401, 403) or resp.is_redirect:
            raise EspnCredentialsExpired("ESPN refused the member's cookies on the read back",
                                         status=resp.status_code, view="verify")
        if resp.status_code != 200:
            raise EspnWriteOutcomeUnknown(f"ESPN read back failed (HTTP {resp.status_code})",
                                          status=resp.status_code, view="verify")
        try:
            return resp.json()
        except ValueError:
            raise EspnWriteOutcomeUnknown("ESPN read back was not JSON", view="verify") from None

    async def roster_slots(self, team_id: int, scoring_period: int | None = None
                           ) -> dict[int, int]:
        """{player id: lineup slot} of a team for a scoring period (`view=mRoster`, fresh)."""
        params: list[tuple[str, Any]] = [("view", "mRoster")]
        if scoring_period is not None:
            params.insert(0, ("scoringPeriodId", int(scoring_period)))
        data = await self._get(params)
        for team in (data or {}).get("teams") or []:
            if int(team.get("id", -1)) == int(team_id):
                return {int(e["playerId"]): int(e.get("lineupSlotId", SLOT_BENCH))
                        for e in (team.get("roster") or {}).get("entries") or []}
        raise EspnWriteRefused(f"team {team_id} is not in league {self.league_id}",
                               view="verify", code="NO_TEAM")

    async def transactions(self, scoring_period: int) -> list[dict[str, Any]]:
        """The league's transactions of a scoring period (`view=mTransactions2`, fresh)."""
        flt = {"transactions": {"filterType": {"value": [FREEAGENT, WAIVER, "WAIVER_ERROR"]}}}
        data = await self._get([("view", "mTransactions2"),
                                ("scoringPeriodId", int(scoring_period))], flt)
        return [t for t in (data or {}).get("transactions") or [] if isinstance(t, dict)]

    # ------------------------------------------------------------------ typed writes

    async def add_drop(self, team_id: int, add_id: int, drop_id: int | None, *,
                       scoring_period: int, key: str, actor: str) -> WriteOutcome:
        """Add a free agent (dropping `drop_id`, or none when the roster has room)."""
        items = [TxItem(int(add_id), ADD, int(team_id))]
        if drop_id is not None:
            items.append(TxItem(int(drop_id), DROP, int(team_id)))
        return await self.submit(Transaction(FREEAGENT, int(team_id), int(scoring_period),
                                             tuple(items)), key=key, actor=actor)

    async def claim(self, team_id: int, add_id: int, drop_id: int | None, *,
                    scoring_period: int, key: str, actor: str, bid: int = 0) -> WriteOutcome:
        """Claim a waiver player (bid in FAAB leagues, 0 otherwise): PENDING until waivers
        process; `claim_result` reads its fate then."""
        items = [TxItem(int(add_id), ADD, int(team_id))]
        if drop_id is not None:
            items.append(TxItem(int(drop_id), DROP, int(team_id)))
        return await self.submit(Transaction(WAIVER, int(team_id), int(scoring_period),
                                             tuple(items), bid_amount=int(bid)),
                                 key=key, actor=actor)

    async def set_lineup(self, team_id: int, assignment: Mapping[int, int] | None = None, *,
                         scoring_period: int, current_period: int, key: str, actor: str,
                         starters: Mapping[int, int] | None = None,
                         slot_caps: Mapping[int, int] | None = None) -> WriteOutcome:
        """Put players in slots for one scoring period: reads ESPN's slots for that period,
        leaves out no-op items (and IR moves on a later day, which ESPN refuses), orders
        moves out of a slot before moves into it, and sends LINEUP (today) or FUTURE_ROSTER
        (later). A stale slot is read again and rebuilt once. Give `assignment` ({player id:
        slot id}) or `starters` with the league's `slot_caps`: the starters go to their
        slots and everyone else stays where he is unless a starter needs his slot
        (`plan_lineup`), so only the moves that matter are sent."""
        if scoring_period < current_period:
            raise EspnWriteRefused(f"scoring period {scoring_period} is over", code=NOT_CURRENT,
                                   reason="that day is over")
        tx_type = LINEUP if scoring_period == current_period else FUTURE_ROSTER
        out: WriteOutcome | None = None
        for attempt in range(2):
            try:
                current = await self.roster_slots(team_id, scoring_period)
            except EspnWriteOutcomeUnknown as exc:
                raise await self._read_failed(key, exc) from None
            wanted = assignment if assignment is not None else plan_lineup(
                current, starters or {}, slot_caps or {})
            items, skipped = lineup_items(current, wanted, future=tx_type == FUTURE_ROSTER,
                                          names=self.names)
            if not items:
                rec = await self.journal.write_get(key)
                if rec is not None and rec.status in (SENDING, UNKNOWN):
                    # an earlier attempt (a crash, a timeout) did it: the read shows it
                    rec.status, rec.error = DONE, ""
                    rec.verification = {"read": "mRoster", "slots": "as wanted"}
                    await self.journal.write_put(rec)
                    return WriteOutcome(DONE, key, None, rec.body, rec.answer, verified=True,
                                        note="already made (read back)", skipped=skipped)
                return WriteOutcome(NOOP, key, None, note="the lineup is already set",
                                    skipped=skipped)
            tx = Transaction(tx_type, int(team_id), int(scoring_period), tuple(items))
            try:
                out = await self.submit(tx, key=key, actor=actor, before=current)
            except EspnStaleSlot:
                if attempt:
                    raise
                continue
            out.skipped = skipped
            return out
        raise AssertionError("unreachable")  # pragma: no cover

    async def set_lineups(self, team_id: int, by_period: Mapping[int, Mapping[int, int]], *,
                          current_period: int, key: str, actor: str) -> list[WriteOutcome]:
        """`set_lineup` for each scoring period in order (each reads its own slots first);
        a refusal on one day stops there (raised with the days done in `done`)."""
        outs: list[WriteOutcome] = []
        for sp in sorted(by_period):
            try:
                outs.append(await self.set_lineup(team_id, by_period[sp], scoring_period=sp,
                                                  current_period=current_period,
                                                  key=f"{key}:sp{sp}", actor=actor))
            except EspnWriteError as exc:
                exc.done = outs  # type: ignore[attr-defined]
                raise
        return outs

    # ------------------------------------------------------------------ the one POST

    async def submit(self, tx: Transaction, *, key: str, actor: str,
                     before: Mapping[int, int] | None = None) -> WriteOutcome:
        """Send one transaction at most once for `key` (module docstring)."""
        body = tx.body(self.member_id)
        shown = masked_body(body)
        if self.dry_run:
            self.sent.append(shown)
            return WriteOutcome(DRY_RUN, key, tx, shown, note="dry run: not sent")
        rec = await self.journal.write_get(key)
        if rec is not None and rec.status in SETTLED:
            return WriteOutcome(rec.status, key, tx, rec.body, rec.answer, rec.espn_id,
                                verified=True, note="already made")
        if rec is not None and rec.status in (SENDING, UNKNOWN):
            settled = await self._settle(rec, tx, before)
            if settled is not None:
                return settled
        rec = WriteRecord(key, self.league_id, tx.team_id, actor, tx.type, tx.scoring_period,
                          redact(tx.describe(self.names)), shown,
                          attempts=(rec.attempts if rec else 0))
        for attempt in range(2):
            rec.status, rec.attempts = SENDING, rec.attempts + 1
            await self.journal.write_put(rec)
            self._crash("espn_write:before_post")
            self._crash(f"espn_write:before_post:{tx.type}")
            try:
                status, data = await self._post(body)
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                status, data = 0, {"messages": [f"no answer from ESPN ({type(exc).__name__})"]}
            self._crash("espn_write:after_post")
            self._crash(f"espn_write:after_post:{tx.type}")
            if status == 200 and not _is_error_body(data):
                return await self._succeeded(rec, tx, data)
            if status in (0, 429) or status >= 500:
                rec.answer = {"http": status, **masked_body(data if isinstance(data, Mapping)
                                                            else {})}
                happened = await self._read_back(rec, tx, before)
                if happened is True:
                    return await self._succeeded(rec, tx, None, verified_by_read=True)
                if happened is None or attempt:
                    rec.status, rec.error = UNKNOWN, "ESPN did not answer; read back unclear"
                    if happened is False:
                        rec.status, rec.error = FAILED, f"ESPN did not answer (HTTP {status})"
                    await self.journal.write_put(rec)
                    if happened is False:
                        raise EspnWriteRefused("ESPN did not make the change (it did not "
                                               "answer twice); nothing changed", status=status,
                                               code=f"HTTP{status}",
                                               reason="ESPN is not answering right now")
                    raise EspnWriteOutcomeUnknown(
                        "ESPN did not answer and reading back could not tell whether the "
                        "change was made: check ESPN before trying again", status=status,
                        code=f"HTTP{status}", reason="ESPN did not answer")
                continue  # the read shows nothing happened: one more attempt
            err = classify(status, data, tx)
            if isinstance(err, EspnStaleSlot) and tx.type == LINEUP and before is not None:
                err = await self._stale_or_locked(tx, err)
            rec.status, rec.answer = FAILED, {"http": status, **masked_body(
                data if isinstance(data, Mapping) else {"body": str(data)[:200]})}
            rec.error = f"{type(err).__name__}: {err.reason}"
            await self.journal.write_put(rec)
            raise err
        raise AssertionError("unreachable")  # pragma: no cover

    async def _post(self, body: dict[str, Any]) -> tuple[int, Any]:
        lock, last = _pacer(urlsplit(self.write_base_url).netloc, self.league_id)
        async with lock:
            wait = last[0] + self.min_interval - self._clock()
            if wait > 0:
                await self._sleep(wait)
            if self._shared_pace is not None:  # another process wrote to this league
                wait = await self._shared_pace()
                if wait > 0:
                    await self._sleep(min(wait, 5.0))
                    await self._shared_pace()
            try:
                resp = await self._http.post(self.transactions_url, json=body,
                                             headers=self._headers(self.transactions_url))
            finally:
                last[0] = self._clock()
        self.sent.append(masked_body(body))
        if resp.is_redirect:
            return 401, {"messages": ["redirected to sign in"]}
        try:
            data = resp.json()
        except ValueError:
            data = {"messages": [resp.text[:200]]} if resp.text else {}
        return resp.status_code, data

    async def _succeeded(self, rec: WriteRecord, tx: Transaction, data: Any, *,
                         verified_by_read: bool = False) -> WriteOutcome:
        answer = masked_body(data) if isinstance(data, Mapping) else rec.answer
        espn_id = str(data.get("id")) if isinstance(data, Mapping) and data.get("id") else None
        pending = tx.type == WAIVER or (isinstance(data, Mapping)
                                        and str(data.get("status")) == "PENDING")
        rec.status = PENDING if pending else DONE
        rec.answer, rec.espn_id, rec.error = answer, espn_id, ""
        verified: bool | None = True if verified_by_read else None
        if not verified_by_read:
            try:  # the verification read: does ESPN show what it said it did?
                verified = await self._read_back(rec, tx, None)
            except EspnError as exc:
                rec.verification = {"error": type(exc).__name__}
        await self.journal.write_put(rec)
        note = ("claim sent: pending until waivers process" if rec.status == PENDING
                else "done on ESPN" + ("" if verified else " (not yet visible on the read back)"))
        return WriteOutcome(rec.status, rec.key, tx, rec.body, answer, espn_id,
                            verified=verified, note=note)

    async def _read_back(self, rec: WriteRecord, tx: Transaction,
                         before: Mapping[int, int] | None) -> bool | None:
        """Whether ESPN shows the transaction as made (True), not made (False) or cannot
        say (None); the read is recorded on `rec.verification`."""
        try:
            if tx.type == WAIVER:
                txs = await self.transactions(tx.scoring_period)
                found = _find_claim(txs, tx)
                rec.verification = {"read": "mTransactions2", "claim": found and {
                    "id": found.get("id"), "status": found.get("status")}}
                if found is not None and not rec.espn_id and found.get("id"):
                    rec.espn_id = str(found["id"])
                return found is not None
            slots = await self.roster_slots(tx.team_id, tx.scoring_period
                                            if tx.type == FUTURE_ROSTER else None)
        except EspnWriteOutcomeUnknown:
            rec.verification = {"read": "failed"}
            return None
        rec.verification = {"read": "mRoster", "slots": {str(i.player_id): slots.get(
            i.player_id) for i in tx.items}}
        return applied(tx, slots)

    async def _settle(self, rec: WriteRecord, tx: Transaction,
                      before: Mapping[int, int] | None) -> WriteOutcome | None:
        """A key left "sending"/"unknown" (a crash, a timeout): read back first. Made ->
        the outcome (never sent again); not made -> None (the caller may send); unclear ->
        EspnWriteOutcomeUnknown."""
        happened = await self._read_back(rec, tx, before)
        if happened is True:
            return await self._succeeded(rec, tx, None, verified_by_read=True)
        if happened is None:
            await self.journal.write_put(rec)
            raise EspnWriteOutcomeUnknown("reading back could not tell whether the earlier "
                                          "attempt was made: nothing sent", code="UNSETTLED",
                                          reason="ESPN did not answer the read back")
        log.info("write %s: earlier attempt not made (read back); sending", rec.key)
        return None

    async def _read_failed(self, key: str, exc: EspnWriteOutcomeUnknown) -> EspnWriteError:
        """The error of a read before a write that failed: nothing sent now, so "not sent"
        unless an earlier attempt of `key` (a crash, a timeout) may have been made."""
        rec = await self.journal.write_get(key)
        if rec is not None and rec.status in (SENDING, UNKNOWN):
            return EspnWriteOutcomeUnknown(
                "reading the roster back could not tell whether the earlier attempt was "
                "made: nothing sent", code="UNSETTLED", reason="ESPN did not answer the read")
        return EspnWriteNotSent(f"could not read the roster before the change ({exc}): "
                                "nothing was sent", status=exc.status, view=exc.view,
                                code="NOT_SENT", reason="ESPN did not answer the roster read")

    async def _stale_or_locked(self, tx: Transaction, err: EspnStaleSlot) -> EspnWriteError:
        """A bare "Invalid Input" on today's lineup: stale slots, or the lineup is locked
        (ESPN says the same for both). Read again: slots unchanged -> locked."""
        try:
            now = await self.roster_slots(tx.team_id, tx.scoring_period)
        except EspnError:
            return err
        if all(now.get(i.player_id) == i.from_slot for i in tx.items):
            return EspnLineupLocked("ESPN refused today's lineup: it is locked (games have "
                                    "started)", status=err.status, view=err.view,
                                    code=LINEUP_LOCKED, reason="today's lineup is locked")
        return err

    async def settle(self, key: str) -> WriteRecord | None:
        """Settle a journaled write left "sending" (a crash) or "unknown" (no answer, no
        read) by reading ESPN back: done when the roster (or the league's claims) shows it,
        failed ("not made") when it shows none of it, unchanged when the read cannot tell.
        Never sends anything. Returns the record (None: no such write)."""
        rec = await self.journal.write_get(key)
        if rec is None or rec.status not in (SENDING, UNKNOWN):
            return rec
        tx = transaction_of(rec)
        happened = await self._read_back(rec, tx, None)
        if happened is True:
            rec.status, rec.error = (PENDING if tx.type == WAIVER else DONE), ""
        elif happened is False:
            rec.status, rec.error = FAILED, "not made (read back: ESPN shows no change)"
        await self.journal.write_put(rec)
        return rec

    async def claim_result(self, key: str, *, scoring_periods: Sequence[int]) -> WriteRecord:
        """Read a pending claim's fate from the league's transactions of `scoring_periods`
        (the periods since it was sent): EXECUTED -> done, FAILED_*/CANCELED -> failed with
        ESPN's status; still PENDING (or not found yet) -> pending. Journaled."""
        rec = await self.journal.write_get(key)
        if rec is None or rec.status != PENDING:
            if rec is None:
                raise KeyError(key)
            return rec
        found: Mapping[str, Any] | None = None
        for sp in scoring_periods:
            for t in await self.transactions(sp):
                if rec.espn_id and str(t.get("id")) == rec.espn_id:
                    found = t
        if found is None:
            return rec
        status = str(found.get("status") or "")
        rec.verification = {"read": "mTransactions2", "claim": {"id": found.get("id"),
                                                                 "status": status}}
        if status == "EXECUTED":
            rec.status = DONE
        elif status.startswith("FAILED") or status == "CANCELED":
            rec.status, rec.error = FAILED, status
        await self.journal.write_put(rec)
        return rec


@dataclass
class MoveResult:
    """What `make_move` did with one approved move: `status` "done" (made), "pending" (a
    waiver claim waiting for waivers to process), "dry_run", or "failed" with ESPN's typed
    `error` (its `reason` is what to tell the member). `outcomes` are the writes made."""

    status: str
    note: str
    outcomes: list[WriteOutcome] = field(default_factory=list)
    error: EspnWriteError | None = None
    claim_key: str | None = None


async def make_move(writer: EspnWriter, team_id: int, add_id: int, drop_id: int | None, *,
                    scoring_period: int, key: str, actor: str, drop_to_ir: bool = False,
                    bid: int = 0) -> MoveResult:
    """Make one approved move through the endpoint: a free agent at once (FREEAGENT), a
    waiver player as a claim (WAIVER, when ESPN says he is on waivers). `drop_to_ir` moves
    the leaving player to IR first (LINEUP, today only) and adds without a drop. Each write
    is made at most once for `key`; ESPN's refusals come back as `failed` with the error."""
    names = writer.names
    outs: list[WriteOutcome] = []
    try:
        if drop_to_ir and drop_id is not None:
            outs.append(await writer.set_lineup(team_id, {int(drop_id): SLOT_IR},
                                                scoring_period=scoring_period,
                                                current_period=scoring_period,
                                                key=f"{key}:ir", actor=actor))
            drop_id = None
        # a claim journaled for this move (put in before a crash) is settled, not re-made:
        # the free-agent add ESPN refused then (he is on waivers) is not sent again
        on_waivers = await writer.journal.write_get(f"{key}:claim") is not None
        if not on_waivers:
            try:
                outs.append(await writer.add_drop(team_id, add_id, drop_id,
                                                  scoring_period=scoring_period, key=key,
                                                  actor=actor))
            except EspnPlayerUnavailable as exc:
                if exc.code != PLAYER_ON_WAIVERS:
                    raise
                on_waivers = True
        if on_waivers:
            claim = await writer.claim(team_id, add_id, drop_id, scoring_period=scoring_period,
                                       key=f"{key}:claim", actor=actor, bid=bid)
            outs.append(claim)
            if claim.status == DRY_RUN:
                return MoveResult(DRY_RUN, "dry run: not sent", outs)
            who = names.get(int(add_id), "he")
            return MoveResult(PENDING, f"claim put in: {who} is on waivers, so the move is "
                              "made when waivers process", outs, claim_key=f"{key}:claim")
    except EspnWriteError as exc:
        return MoveResult(FAILED, exc.reason, outs, error=exc)
    if any(o.status == DRY_RUN for o in outs):
        return MoveResult(DRY_RUN, "dry run: not sent", outs)
    return MoveResult(DONE, "done on ESPN", outs)


def transaction_of(rec: WriteRecord) -> Transaction:
    """The transaction a journaled write sent (from its masked body: the items are whole)."""
    items = []
    for i in rec.body.get("items") or []:
        kind = str(i.get("type"))
        items.append(TxItem(int(i["playerId"]), kind,
                            int(i.get("toTeamId") or i.get("fromTeamId") or rec.team_id),
                            i.get("fromLineupSlotId"), i.get("toLineupSlotId")))
    return Transaction(rec.kind, int(rec.team_id), int(rec.scoring_period), tuple(items),
                       bid_amount=rec.body.get("bidAmount"))


def applied(tx: Transaction, slots: Mapping[int, int]) -> bool | None:
    """Whether a roster read (`slots`: player id -> slot for the period) shows `tx` made:
    True (every item shows), False (none does) or None (a mix)."""
    checks: list[bool] = []
    for i in tx.items:
        if i.type == ADD:
            checks.append(i.player_id in slots)
        elif i.type == DROP:
            checks.append(i.player_id not in slots)
        else:
            if i.to_slot == i.from_slot:
                continue
            checks.append(slots.get(i.player_id) == i.to_slot)
    if not checks:
        return True
    if all(checks):
        return True
    if not any(checks):
        return False
    if tx.type in (FREEAGENT, WAIVER):
        return False  # the drop alone shows (he was dropped elsewhere): not this move
    return None


def _find_claim(txs: Sequence[Mapping[str, Any]], tx: Transaction) -> Mapping[str, Any] | None:
    want = {(i.player_id, i.type) for i in tx.items}
    for t in txs:
        if str(t.get("type")) != WAIVER or int(t.get("teamId", -1)) != tx.team_id:
            continue
        got = {(int(i.get("playerId", 0)), str(i.get("type"))) for i in t.get("items") or []}
        if want <= got:
            return t
    return None


def plan_lineup(current: Mapping[int, int], starters: Mapping[int, int],
                slot_caps: Mapping[int, int]) -> dict[int, int]:
    """The whole lineup of a period from its `starters` ({player id: starting slot}): the
    starters in their slots; every other player keeps his `current` slot when it is the bench,
    IR, or a starting slot with room left after the starters (`slot_caps`), else the bench."""
    room = {s: int(c) for s, c in slot_caps.items()}
    for slot in starters.values():
        room[slot] = room.get(slot, 0) - 1
    out: dict[int, int] = {}
    for pid, slot in sorted(current.items(), key=lambda x: x[0]):
        if pid in starters:
            out[pid] = int(starters[pid])
        elif slot in STARTING_SLOTS and room.get(slot, 0) <= 0:
            out[pid] = SLOT_BENCH
        else:
            out[pid] = slot
            if slot in STARTING_SLOTS:
                room[slot] -= 1
    return out


def lineup_items(current: Mapping[int, int], assignment: Mapping[int, int], *,
                 future: bool, names: Mapping[int, str] | None = None
                 ) -> tuple[list[TxItem], list[str]]:
    """The LINEUP items that turn `current` slots into `assignment`, in an order ESPN takes
    (a slot is vacated before it is filled; a swap goes through the bench). Leaves out
    no-op items, players not on the roster, and on a later day IR moves (ESPN refuses
    them); returns (items, why each left-out item was left out)."""
    names = names or {}
    skipped: list[str] = []
    moves: dict[int, tuple[int, int]] = {}
    for pid, to in assignment.items():
        pid, to = int(pid), int(to)
        frm = current.get(pid)
        if frm is None:
            skipped.append(f"{names.get(pid, pid)} is not on the roster that day")
            continue
        if frm == to:
            continue
        if future and SLOT_IR in (frm, to):
            skipped.append(f"{names.get(pid, pid)}: IR moves only for today")
            continue
        moves[pid] = (frm, to)
    # send first what leaves starting slots for the bench/IR, then fill slots in an order
    # where each target slot has been vacated (a slot that holds several counts them)
    occupancy: dict[int, int] = {}
    for slot in current.values():
        occupancy[slot] = occupancy.get(slot, 0) + 1
    target: dict[int, int] = dict(occupancy)
    for frm, to in moves.values():
        target[frm] -= 1
        target[to] = target.get(to, 0) + 1
    cap = {s: max(occupancy.get(s, 0), target.get(s, 0)) for s in set(occupancy) | set(target)}
    items: list[TxItem] = []
    left = dict(moves)
    while left:
        ready = [pid for pid, (frm, to) in left.items()
                 if to not in STARTING_SLOTS or occupancy.get(to, 0) < cap[to]]
        if not ready:  # a cycle of full starting slots: one of them waits on the bench
            pid = min(left)
            frm, to = left[pid]
            items.append(TxItem(pid, LINEUP, from_slot=frm, to_slot=SLOT_BENCH))
            occupancy[frm] -= 1
            occupancy[SLOT_BENCH] = occupancy.get(SLOT_BENCH, 0) + 1
            left[pid] = (SLOT_BENCH, to)
            continue
        ready.sort(key=lambda p: (left[p][1] in STARTING_SLOTS, p))
        pid = ready[0]
        frm, to = left.pop(pid)
        items.append(TxItem(pid, LINEUP, from_slot=frm, to_slot=to))
        occupancy[frm] -= 1
        occupancy[to] = occupancy.get(to, 0) + 1
    return items, skipped




def writer_for(client: Any, *, team_id: int, credentials: Credentials | None = None,
               journal: WriteJournal | None = None, dry_run: bool = False,
               transport: httpx.AsyncBaseTransport | None = None,
               write_base_url: str | None = None, crash: Crash = _no_crash,
               **kwargs: Any) -> EspnWriter:
    """The writer of a league client's league acting for `team_id`: the demo league's own
    (`DemoLeague.writer`: its transaction endpoint, its team owner as the member), or ESPN's
    write host with the member's `credentials` (required: a live league never writes with
    anyone else's)."""
    demo = getattr(client, "demo", None)
    if demo is not None:
        writer: EspnWriter = demo.writer(team_id, journal=journal, transport=transport,
                                         dry_run=dry_run, crash=crash, **kwargs)
        return writer
    if credentials is None:
        raise EspnWritesDisabled("no ESPN cookies of this team's owner: FanVise cannot write",
                                 code="NO_CREDENTIALS", reason="link your ESPN cookies first")
    return EspnWriter(client.league_id, client.season, credentials=credentials,
                      journal=journal, transport=transport,
                      write_base_url=write_base_url or ESPN_WRITES_BASE_URL,
                      read_base_url=client.base_url, dry_run=dry_run, crash=crash, **kwargs)


__all__ = [
    "ADD", "DROP", "ESPN_WRITES_BASE_URL", "FREEAGENT", "FUTURE_ROSTER", "LINEUP",
    "MIN_INTERVAL", "WAIVER", "Credentials", "EspnWriter", "MemoryJournal", "Transaction",
    "TxItem", "WriteJournal", "WriteOutcome", "WriteRecord", "applied", "classify",
    "MoveResult", "lineup_items", "make_move", "masked_body", "plan_lineup", "transaction_of",
    "writer_for",
]
