"""The demo league's transaction endpoint, with ESPN's rules (reference espn-api.md section 9).

`DemoTransport` hands every POST to `.../leagues/{id}/transactions/` to `DemoWrites.post`,
and the two reads a writer verifies with to `roster_response` (`view=mRoster` for a
scoring period) and `transactions_response` (`view=mTransactions2`). So the demo's moves and
lineup fixes go through `fantasy.espn.writes.EspnWriter`, the same code a live league uses.

Rules enforced (each answer is ESPN's shape; the codes are `fantasy.espn.writes`'):
- the body: `executionType` EXECUTE, the team's own member (`memberId` one of the team's
  owners; `isLeagueManager` is refused: the demo has no manager acting for others);
- FREEAGENT: the added player is a free agent (not on a team, not on waivers), the dropped
  one is on the team, the roster has room without a drop, the matchup acquisition limit,
  the roster lock at the first game of the day (then only tomorrow's period is open);
- WAIVER: the player is on waivers, the bid (FAAB leagues) within the budget; the claim is
  PENDING and processed when the demo's today reaches its process day (first come first
  served): EXECUTED, or FAILED_... when the player is gone, the drop is gone, the roster is
  full or the limit is used;
- LINEUP only for today, FUTURE_ROSTER only for a later period; each `fromLineupSlotId` must
  be the player's slot for that period (else a bare 400 "Invalid Input."); a move into a full
  slot is refused (moves out are sent first); eligibility; IR only today and only for a
  player who is out; a future no-op item gives TRAN_INVALID_SCORINGPERIOD_NOT_CURRENT;
  today's lineup locks per the league's lineup lock (each player at his game's start, or all
  at the first game), answered like ESPN with a bare "Invalid Input.".

The demo's clock (`DemoWrites.now`) stands at noon US/Eastern of the demo's today unless set
(tests set it past the first game to see the locks). Claims and the transaction log (every
accepted transaction: moves, claims, lineup changes and IR moves) live in a file next to the
demo state (`<state>.transactions.json`), written atomically.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import uuid
import weakref
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime, time
from pathlib import Path
from typing import Any

import httpx

from fantasy.constants import OUT_STATUSES, SLOT_BENCH, SLOT_IR, STARTING_SLOTS, slot_name
from fantasy.demo.changes import _Change
from fantasy.demo.pro_schedule import load_pro_schedule
from fantasy.espn import writes as w
from fantasy.schedule import EASTERN, espn_ms_to_datetime

log = logging.getLogger(__name__)


class _Refusal(Exception):
    def __init__(self, status: int, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.code = status, message, code

    def body(self) -> dict[str, Any]:
        if self.code is None:
            return {"messages": [self.message]}
        return {"messages": [self.message], "details": [
            {"message": self.message, "shortMessage": self.message, "resolved": False,
             "type": self.code, "metaData": None}]}


@dataclass
class DemoTx:
    """One transaction the demo accepted (the log `mTransactions2` serves)."""

    id: str
    type: str
    team_id: int
    scoring_period: int
    items: list[dict[str, Any]]
    status: str
    bid_amount: int = 0
    process_sp: int | None = None
    proposed_sp: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "teamId": self.team_id,
                "scoringPeriodId": self.scoring_period, "items": self.items,
                "status": self.status, "bidAmount": self.bid_amount,
                "executionType": "EXECUTE", "isPending": self.status == "PENDING",
                "processScoringPeriodId": self.process_sp}


@dataclass
class _State:
    log: list[DemoTx] = field(default_factory=list)


_WRITES: weakref.WeakKeyDictionary[Any, DemoWrites] = weakref.WeakKeyDictionary()


def writes_for(league: Any) -> DemoWrites:
    """The one `DemoWrites` of a DemoLeague."""
    dw = _WRITES.get(league)
    if dw is None:
        dw = _WRITES[league] = DemoWrites(league)
    return dw


class DemoWrites:
    """The transaction endpoint of one DemoLeague (module docstring)."""

    def __init__(self, league: Any, now: Callable[[], datetime] | None = None) -> None:
        self.league = league
        #: the demo's clock (aware); default: noon US/Eastern of the demo's today
        self.now: Callable[[], datetime] = now or (
            lambda: datetime.combine(league.today, time(12, 0), tzinfo=EASTERN))
        self.state = _State()
        self._load()

    # ------------------------------------------------------------------ persistence

    @property
    def path(self) -> Path | None:
        sp = self.league.state_path
        return sp.with_name(sp.name + ".transactions.json") if sp else None

    def _load(self) -> None:
        if self.path is None or not self.path.exists():
            return
        try:
            data = json.loads(self.path.read_text())
            self.state.log = [DemoTx(**t) for t in data.get("log", [])]
        except (OSError, ValueError, TypeError) as exc:
            log.warning("demo transaction log unreadable (%s): starting empty",
                        type(exc).__name__)

    def _save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"log": [asdict(t) for t in self.state.log]}, fh)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    # ------------------------------------------------------------------ time and locks

    def _games(self, sp: int) -> dict[int, datetime]:
        """Pro team id -> game start on a scoring period."""
        out: dict[int, datetime] = {}
        for t in load_pro_schedule()["settings"]["proTeams"]:
            for g in t["proGamesByScoringPeriod"].get(str(sp)) or []:
                start = espn_ms_to_datetime(g["date"])
                out[int(g["homeProTeamId"])] = start
                out[int(g["awayProTeamId"])] = start
        return out

    def _first_game_started(self) -> bool:
        games = self._games(self.league.today_sp)
        return bool(games) and self.now() >= min(games.values())

    def _player_started(self, pid: int) -> bool:
        if self.league.settings["rosterSettings"].get("lineupLocktimeType") != "INDIVIDUAL_GAME":
            return self._first_game_started()
        pro = int(self.league.base["players"][str(pid)]["player"].get("proTeamId", 0))
        start = self._games(self.league.today_sp).get(pro)
        return start is not None and self.now() >= start

    # ------------------------------------------------------------------ reads

    def roster_response(self, sp: int) -> dict[str, Any]:
        """`?scoringPeriodId=N&view=mRoster`: every team's roster and slots that period."""
        lg = self.league
        return {"id": lg.league_id, "scoringPeriodId": sp, "seasonId": lg.season,
                "teams": [{"id": tid, "roster": {"entries": [
                    {"playerId": pid, "lineupSlotId": slot}
                    for pid, slot in sorted(lg.lineup_on(tid, sp).items())]}}
                    for tid in lg.team_ids()]}

    def transactions_response(self, sp: int | None) -> dict[str, Any]:
        """`view=mTransactions2`: the transactions proposed or processed on a period."""
        self.process_claims()
        txs = [t.to_json() for t in self.state.log
               if sp is None or sp in (t.scoring_period, t.proposed_sp, t.process_sp)]
        return {"id": self.league.league_id, "scoringPeriodId": sp, "transactions": txs}

    # ------------------------------------------------------------------ the POST

    async def post(self, request: httpx.Request) -> httpx.Response:
        """Answer one transaction POST as ESPN would."""
        self.process_claims()
        try:
            body = json.loads(request.content or b"{}")
            if not isinstance(body, dict):
                raise ValueError
        except ValueError:
            return httpx.Response(400, json={"messages": [w.INVALID_INPUT]})
        try:
            tx = self._apply(body)
        except _Refusal as r:
            return httpx.Response(r.status, json=r.body())
        except ValueError as exc:  # DemoError from the league (a failed save)
            return httpx.Response(500, json={"messages": [str(exc)]})
        return httpx.Response(200, json=tx.to_json())

    def _apply(self, body: dict[str, Any]) -> DemoTx:
        lg = self.league
        try:
            team_id = int(body["teamId"])
            sp = int(body["scoringPeriodId"])
            kind = str(body["type"])
            items = list(body["items"])
            member = str(body["memberId"])
        except (KeyError, TypeError, ValueError):
            raise _Refusal(400, w.INVALID_INPUT) from None
        if body.get("executionType") != "EXECUTE" or not items:
            raise _Refusal(400, w.INVALID_INPUT)
        team = next((t for t in lg.base["teams"] if int(t["id"]) == team_id), None)
        if team is None:
            raise _Refusal(400, w.INVALID_INPUT)
        if body.get("isLeagueManager") or member not in (team.get("owners") or []):
            raise _Refusal(403, "You are not the owner of this team.", w.NOT_TEAM_OWNER)
        if kind == w.FREEAGENT:
            return self._free_agent(team_id, sp, items)
        if kind == w.WAIVER:
            return self._claim(team_id, sp, items, int(body.get("bidAmount") or 0))
        if kind in (w.LINEUP, w.FUTURE_ROSTER):
            return self._lineup(kind, team_id, sp, items)
        raise _Refusal(400, w.INVALID_INPUT)

    def _add_drop(self, team_id: int, items: list[dict[str, Any]]) -> tuple[int, int | None]:
        adds = [i for i in items if i.get("type") == w.ADD]
        drops = [i for i in items if i.get("type") == w.DROP]
        if len(adds) != 1 or len(drops) > 1 or len(adds) + len(drops) != len(items):
            raise _Refusal(400, w.INVALID_INPUT)
        if int(adds[0].get("toTeamId", -1)) != team_id or \
                (drops and int(drops[0].get("fromTeamId", -1)) != team_id):
            raise _Refusal(400, w.INVALID_INPUT)
        return int(adds[0]["playerId"]), (int(drops[0]["playerId"]) if drops else None)

    def _roster_room(self, team_id: int, sp: int, drop: int | None) -> bool:
        counts = {int(k): int(v) for k, v in
                  self.league.settings["rosterSettings"]["lineupSlotCounts"].items()}
        room = sum(v for k, v in counts.items() if k != SLOT_IR)
        active = [p for p, s in self.league.lineup_on(team_id, sp).items() if s != SLOT_IR]
        return len(active) - (1 if drop is not None else 0) + 1 <= room

    def _check_move(self, team_id: int, sp: int, add: int, drop: int | None) -> None:
        """The rules every add shares (free agent or processed claim); raises _Refusal."""
        lg = self.league
        if str(add) not in lg.base["players"]:
            raise _Refusal(400, w.INVALID_INPUT)
        owner = lg.owner_of(add, sp)
        if owner:
            raise _Refusal(409, f"{lg.player_name(add)} is on {lg.team_name(owner)}.",
                           w.PLAYER_NOT_AVAILABLE)
        if drop is not None and drop not in lg.lineup_on(team_id, sp):
            raise _Refusal(409, f"{lg.player_name(drop)} is not on {lg.team_name(team_id)}.",
                           w.PLAYER_NOT_ON_ROSTER)
        if not self._roster_room(team_id, sp, drop):
            raise _Refusal(409, "Your roster is full: drop a player to add one.", w.ROSTER_FULL)
        period = next(p for p, sps in lg.period_sps.items() if sp in sps)
        used, limit = lg.acquisitions(team_id, period)
        if limit is not None and used >= limit:
            raise _Refusal(409, f"You have used all {limit} acquisitions of this matchup.",
                           w.ACQUISITION_LIMIT)

    def _commit_move(self, team_id: int, sp: int, add: int, drop: int | None) -> None:
        self.league._commit(_Change("move", team_id, sp, drop, add))

    def _free_agent(self, team_id: int, sp: int, items: list[dict[str, Any]]) -> DemoTx:
        lg = self.league
        add, drop = self._add_drop(team_id, items)
        if sp not in (lg.today_sp, lg.today_sp + 1):
            raise _Refusal(400, "Transactions are only open for the current scoring period.",
                           w.NOT_CURRENT)
        if sp == lg.today_sp and self._first_game_started():
            raise _Refusal(409, "Rosters are locked for today: the first game has started.",
                           w.ROSTER_LOCKED)
        if lg._pool_entry(add)["status"] == "WAIVERS":
            raise _Refusal(409, f"{lg.player_name(add)} is on waivers: put in a claim.",
                           w.PLAYER_ON_WAIVERS)
        self._check_move(team_id, sp, add, drop)
        self._commit_move(team_id, sp, add, drop)
        tx = DemoTx(uuid.uuid4().hex, w.FREEAGENT, team_id, sp, items, "EXECUTED",
                    proposed_sp=lg.today_sp)
        self.state.log.append(tx)
        self._save()
        return tx

    def _claim(self, team_id: int, sp: int, items: list[dict[str, Any]], bid: int) -> DemoTx:
        lg = self.league
        add, drop = self._add_drop(team_id, items)
        if sp != lg.today_sp:
            raise _Refusal(400, "Claims are only open for the current scoring period.",
                           w.NOT_CURRENT)
        entry = lg._pool_entry(add)
        if entry["status"] != "WAIVERS":
            raise _Refusal(409, f"{lg.player_name(add)} is not on waivers.",
                           w.PLAYER_NOT_ON_WAIVERS if entry["status"] == "FREEAGENT"
                           else w.PLAYER_NOT_AVAILABLE)
        acq = lg.settings["acquisitionSettings"]
        if acq.get("isUsingAcquisitionBudget"):
            spent = sum(t.bid_amount for t in self.state.log if t.team_id == team_id
                        and t.type == w.WAIVER and t.status == "EXECUTED")
            if not int(acq.get("minimumBid") or 0) <= bid <= int(acq["acquisitionBudget"]) - spent:
                raise _Refusal(409, f"Bid ${bid} is not allowed (budget left "
                               f"${int(acq['acquisitionBudget']) - spent}).", w.INVALID_BID)
        elif bid:
            raise _Refusal(400, "This league does not use a budget: bid 0.", w.INVALID_BID)
        if drop is not None and drop not in lg.roster_now(team_id):
            raise _Refusal(409, f"{lg.player_name(drop)} is not on {lg.team_name(team_id)}.",
                           w.PLAYER_NOT_ON_ROSTER)
        tx = DemoTx(uuid.uuid4().hex, w.WAIVER, team_id, sp, items, "PENDING", bid,
                    process_sp=sp + 1, proposed_sp=lg.today_sp)
        self.state.log.append(tx)
        self._save()
        return tx

    def process_claims(self) -> list[DemoTx]:
        """Process the pending claims whose day has come (in the order sent): EXECUTED or
        FAILED_<reason>. Returns the claims settled now."""
        lg = self.league
        due = [t for t in self.state.log if t.status == "PENDING"
               and (t.process_sp or 0) <= lg.today_sp]
        if not due:
            return []
        for t in due:
            add, drop = self._add_drop(t.team_id, t.items)
            sp = int(t.process_sp or lg.today_sp)
            try:
                self._check_move(t.team_id, sp, add, drop)
            except _Refusal as r:
                t.status = {w.PLAYER_NOT_AVAILABLE: "FAILED_PLAYERALREADYDROPPED",
                            w.PLAYER_NOT_ON_ROSTER: "FAILED_INVALIDPLAYERSOURCE",
                            w.ROSTER_FULL: "FAILED_ROSTERLIMIT",
                            w.ACQUISITION_LIMIT: "FAILED_MOVESLIMIT"}.get(r.code or "",
                                                                          "FAILED_OTHER")
                continue
            self._commit_move(t.team_id, sp, add, drop)
            t.status = "EXECUTED"
        if due:
            self._save()
        return due

    def _lineup(self, kind: str, team_id: int, sp: int, items: list[dict[str, Any]]) -> DemoTx:
        lg = self.league
        if (kind == w.LINEUP) != (sp == lg.today_sp) or sp < lg.today_sp:
            raise _Refusal(400, f"{kind} is not allowed for scoring period {sp}.",
                           w.NOT_CURRENT)
        slots = dict(lg.lineup_on(team_id, sp))
        counts = {int(k): int(v) for k, v in
                  lg.settings["rosterSettings"]["lineupSlotCounts"].items()}
        moved: dict[int, int] = {}
        for item in items:
            try:
                pid, frm, to = (int(item["playerId"]), int(item["fromLineupSlotId"]),
                                int(item["toLineupSlotId"]))
            except (KeyError, TypeError, ValueError):
                raise _Refusal(400, w.INVALID_INPUT) from None
            if item.get("type") != w.LINEUP or pid not in slots:
                raise _Refusal(400, w.INVALID_INPUT)
            if frm == to:
                if kind == w.FUTURE_ROSTER:
                    raise _Refusal(400, "No change for a future scoring period.", w.NOT_CURRENT)
                continue
            if slots[pid] != frm:  # stale slot: ESPN's bare answer
                raise _Refusal(400, w.INVALID_INPUT)
            if kind == w.LINEUP and self._player_started(pid):
                raise _Refusal(400, w.INVALID_INPUT)  # locked: ESPN says the same
            if to not in lg._eligible(pid):
                raise _Refusal(400, f"{lg.player_name(pid)} is not eligible at "
                               f"{slot_name(to)}.", w.INVALID_INPUT)
            if SLOT_IR in (frm, to) and kind == w.FUTURE_ROSTER:
                raise _Refusal(400, "IR moves are only allowed for today.", w.NOT_CURRENT)
            if to == SLOT_IR and lg.injury_on(pid, sp)[0] not in OUT_STATUSES:
                raise _Refusal(409, f"{lg.player_name(pid)} is not out, so he cannot go to IR.",
                               "TRAN_PLAYER_NOT_IR_ELIGIBLE")
            if to == SLOT_BENCH and frm == SLOT_IR and not self._roster_room_back(slots, counts):
                raise _Refusal(409, "No room to activate him: drop a player first.",
                               w.ROSTER_FULL)
            slots[pid] = to
            moved[pid] = to
        # a full slot is judged on the whole transaction, as ESPN applies it (a swap of two
        # players, or a rotation through full slots, is one change)
        for to in set(moved.values()):
            if (to in STARTING_SLOTS or to == SLOT_IR) and \
                    sum(1 for s in slots.values() if s == to) > counts.get(to, 0):
                raise _Refusal(400, w.INVALID_INPUT)  # into a full slot
        tx = DemoTx(uuid.uuid4().hex, kind, team_id, sp, items, "EXECUTED",
                    proposed_sp=lg.today_sp)
        if moved:
            lg._commit(_Change("lineup", team_id, sp, slots=moved))
            self.state.log.append(tx)  # in the log like every change (an IR move's too)
            self._save()
        return tx

    def _roster_room_back(self, slots: dict[int, int], counts: dict[int, int]) -> bool:
        room = sum(v for k, v in counts.items() if k != SLOT_IR)
        return sum(1 for s in slots.values() if s != SLOT_IR) + 1 <= room


__all__ = ["DemoTx", "DemoWrites", "writes_for"]
