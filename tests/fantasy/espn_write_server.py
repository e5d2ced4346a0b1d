"""A fake ESPN at the wire for the write tests: an httpx transport serving ESPN's two hosts
(lm-api-reads for `view=mRoster` / `view=mTransactions2`, lm-api-writes for the transaction
POST) with the rules reference/espn-api.md section 9 documents. Independent of the demo
league's implementation of the same rules (fantasy.demo.transactions), so each checks the
other's reading of the reference.

Faults to inject (`fault`, used once): "timeout_before" (no answer, nothing done),
"timeout_after" (no answer, but done), "500_after" (HTTP 500, but done), "500_before",
"error_in_200" (a 200 whose body is an error), "401". Every request is kept in `requests`.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx

READS = "lm-api-reads.fantasy.espn.com"
WRITES = "lm-api-writes.fantasy.espn.com"
S2 = "AEBfakeS2cookieValue0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKL%2Bxyz"
SWID = "{11111111-2222-3333-4444-555555555555}"
OTHER_SWID = "{99999999-2222-3333-4444-555555555555}"
LEAGUE, SEASON = 777, 2026
BENCH, IR, UT = 12, 13, 11
STARTING = {0, 1, 2, 3, 4, 5, 6, 11}


@dataclass
class FakeEspn:
    """League state: team 1 (owner SWID) and team 2 (owner OTHER_SWID)."""

    today: int = 40
    caps: dict[int, int] = field(default_factory=lambda: {0: 1, 1: 1, 4: 1, 11: 2, 12: 2,
                                                          13: 1})
    #: sp -> team -> player -> slot (a period without its own entry uses `today`'s)
    slots: dict[int, dict[int, dict[int, int]]] = field(default_factory=dict)
    free_agents: set[int] = field(default_factory=lambda: {500, 501, 502})
    waivers: set[int] = field(default_factory=lambda: {600})
    eligible: dict[int, set[int]] = field(default_factory=dict)
    out: set[int] = field(default_factory=lambda: {104})
    locked: bool = False            # today's first game started
    acquisitions_left: int = 5
    txs: list[dict[str, Any]] = field(default_factory=list)
    requests: list[httpx.Request] = field(default_factory=list)
    posts: list[dict[str, Any]] = field(default_factory=list)
    fault: str | None = None

    def __post_init__(self) -> None:
        if not self.slots:
            self.slots = {self.today: {
                1: {101: 0, 102: 1, 103: 4, 104: 11, 105: 11, 106: 12, 107: 12},
                2: {201: 0, 202: 1, 203: 4, 204: 11, 205: 11, 206: 12, 207: 12}}}
        for pid in list(self.roster(1)) + list(self.roster(2)) + list(self.free_agents) + \
                list(self.waivers):
            self.eligible.setdefault(pid, {0, 1, 4, 11, 12, 13})

    # ------------------------------------------------------------------ state

    def roster(self, team: int, sp: int | None = None) -> dict[int, int]:
        sp = self.today if sp is None else sp
        known = [s for s in self.slots if s <= sp]
        return self.slots[max(known)][team]

    def _set(self, team: int, sp: int, roster: dict[int, int]) -> None:
        for s in sorted({sp, *[k for k in self.slots if k > sp]}):
            base = {t: dict(self.roster(t, s)) for t in (1, 2)}
            base[team] = dict(roster) if s == sp else base[team]
            self.slots[s] = base

    # ------------------------------------------------------------------ the wire

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return self.handle(request)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        cookie = request.headers.get("cookie", "")
        member = SWID if f"SWID={SWID}" in cookie else OTHER_SWID \
            if f"SWID={OTHER_SWID}" in cookie else None
        if member is None or f"espn_s2={S2}" not in cookie:
            return httpx.Response(401, json={"messages": ["not authorized"]})
        league_path = f"/apis/v3/games/fba/seasons/{SEASON}/segments/0/leagues/{LEAGUE}"
        if request.url.host == READS and request.method == "GET" and \
                request.url.path == league_path:
            views = request.url.params.get_list("view")
            sp = int(request.url.params.get("scoringPeriodId") or self.today)
            if views == ["mRoster"]:
                return httpx.Response(200, json={"scoringPeriodId": sp, "teams": [
                    {"id": t, "roster": {"entries": [{"playerId": p, "lineupSlotId": s}
                                                     for p, s in self.roster(t, sp).items()]}}
                    for t in (1, 2)]})
            if views == ["mTransactions2"]:
                return httpx.Response(200, json={"transactions": [
                    t for t in self.txs if sp in (t["scoringPeriodId"], t.get("processSp"))]})
            return httpx.Response(404, json={"messages": ["unknown view"]})
        if request.url.host == WRITES and request.method == "POST" and \
                request.url.path == league_path + "/transactions/":
            body = json.loads(request.content)
            self.posts.append(body)
            fault, self.fault = self.fault, None
            if fault == "401":
                return httpx.Response(401, json={"messages": ["expired"]})
            if fault == "timeout_before":
                raise httpx.ReadTimeout("no answer", request=request)
            if fault == "500_before":
                return httpx.Response(500, text="oops")
            if fault == "error_in_200":  # a borderline move: refused inside a 200
                return httpx.Response(200, json={"messages": ["Something went wrong"],
                                                 "details": [{"type": "GENERAL_ERROR",
                                                              "message": "Something went "
                                                              "wrong"}]})
            status, answer = self.apply(body, member)
            if fault == "timeout_after" and status == 200:
                raise httpx.ReadTimeout("no answer", request=request)
            if fault == "500_after" and status == 200:
                return httpx.Response(503, text="Service Unavailable")
            return httpx.Response(status, json=answer)
        return httpx.Response(404, json={"messages": ["not found"]})

    # ------------------------------------------------------------------ the rules

    @staticmethod
    def _err(status: int, code: str | None, msg: str) -> tuple[int, dict[str, Any]]:
        if code is None:
            return status, {"messages": [msg]}
        return status, {"messages": [msg], "details": [{"type": code, "message": msg}]}

    def apply(self, body: dict[str, Any], member: str) -> tuple[int, dict[str, Any]]:
        team, sp, kind = body["teamId"], body["scoringPeriodId"], body["type"]
        if body.get("isLeagueManager") or body.get("memberId") != member or \
                member != {1: SWID, 2: OTHER_SWID}[team]:
            return self._err(403, "TRAN_NOT_TEAM_OWNER", "not your team")
        if body.get("executionType") != "EXECUTE":
            return self._err(400, None, "Invalid Input.")
        if kind in ("FREEAGENT", "WAIVER"):
            return self._move(team, sp, kind, body)
        if kind in ("LINEUP", "FUTURE_ROSTER"):
            return self._lineup(team, sp, kind, body["items"])
        return self._err(400, None, "Invalid Input.")

    def _move(self, team: int, sp: int, kind: str, body: dict[str, Any]
              ) -> tuple[int, dict[str, Any]]:
        items = body["items"]
        add = next(i["playerId"] for i in items if i["type"] == "ADD")
        drop = next((i["playerId"] for i in items if i["type"] == "DROP"), None)
        if sp != self.today:
            return self._err(400, "TRAN_INVALID_SCORINGPERIOD_NOT_CURRENT", "not current")
        if kind == "FREEAGENT" and self.locked:
            return self._err(409, "TRAN_ROSTER_LOCKED", "Rosters are locked")
        pool = self.free_agents if kind == "FREEAGENT" else self.waivers
        if add not in pool:
            code = "TRAN_PLAYER_ON_WAIVERS" if add in self.waivers else \
                "TRAN_PLAYER_NOT_AVAILABLE"
            return self._err(409, code, "Player is not available")
        if self.acquisitions_left <= 0:
            return self._err(409, "TRAN_ACQUISITION_LIMIT_EXCEEDED", "Moves limit reached")
        roster = dict(self.roster(team))
        room = sum(c for s, c in self.caps.items() if s != IR)
        if drop is None and sum(1 for s in roster.values() if s != IR) + 1 > room:
            return self._err(409, "TRAN_ROSTER_LIMIT_EXCEEDED", "Roster is full")
        tx = {"id": uuid.uuid4().hex, "type": kind, "teamId": team, "scoringPeriodId": sp,
              "items": items, "status": "EXECUTED" if kind == "FREEAGENT" else "PENDING",
              "bidAmount": body.get("bidAmount", 0), "processSp": sp + 1}
        if kind == "FREEAGENT":
            self._execute(team, add, drop)
        self.txs.append(tx)
        return 200, tx

    def _execute(self, team: int, add: int, drop: int | None) -> None:
        self._set(team, self.today, dict(self.roster(team)))
        for sp in [s for s in self.slots if s >= self.today]:  # every period from today on
            roster = self.slots[sp][team]
            if drop is not None:
                roster.pop(drop, None)
            roster[add] = BENCH
        self.free_agents.discard(add)
        self.waivers.discard(add)
        self.acquisitions_left -= 1

    def process_waivers(self) -> None:
        """Waivers process: each pending claim EXECUTED (or FAILED when he is gone)."""
        self.today += 1
        for t in self.txs:
            if t["status"] != "PENDING":
                continue
            add = next(i["playerId"] for i in t["items"] if i["type"] == "ADD")
            drop = next((i["playerId"] for i in t["items"] if i["type"] == "DROP"), None)
            if add in self.waivers:
                self._execute(t["teamId"], add, drop)
                t["status"] = "EXECUTED"
            else:
                t["status"] = "FAILED_PLAYERALREADYDROPPED"

    def _lineup(self, team: int, sp: int, kind: str, items: list[dict[str, Any]]
                ) -> tuple[int, dict[str, Any]]:
        if (kind == "LINEUP") != (sp == self.today) or sp < self.today:
            return self._err(400, None, "Invalid Input.")
        if kind == "LINEUP" and self.locked:
            return self._err(400, None, "Invalid Input.")
        roster = dict(self.roster(team, sp))
        for i in items:
            pid, frm, to = i["playerId"], i["fromLineupSlotId"], i["toLineupSlotId"]
            if frm == to:
                if kind == "FUTURE_ROSTER":
                    return self._err(400, "TRAN_INVALID_SCORINGPERIOD_NOT_CURRENT", "no-op")
                continue
            if roster.get(pid) != frm:
                return self._err(400, None, "Invalid Input.")
            if IR in (frm, to) and kind == "FUTURE_ROSTER":
                return self._err(400, "TRAN_INVALID_SCORINGPERIOD_NOT_CURRENT", "IR today")
            if to == IR and pid not in self.out:
                return self._err(409, "TRAN_PLAYER_NOT_IR_ELIGIBLE", "not out")
            if to not in self.eligible[pid]:
                return self._err(400, None, "Invalid Input.")
            if to != BENCH and sum(1 for s in roster.values() if s == to) >= self.caps[to]:
                return self._err(400, None, "Invalid Input.")  # into an occupied slot
            roster[pid] = to
        self._set(team, sp, roster)
        return 200, {"id": uuid.uuid4().hex, "type": kind, "teamId": team,
                     "scoringPeriodId": sp, "items": items, "status": "EXECUTED"}
