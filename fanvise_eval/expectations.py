"""Expected values computed from the demo league's DATA at run time, never from the model.

A case refers to a value as `{"from": "<source>", ...params}`; `Oracle.resolve(case)` opens
an untouched demo league of the case's variant through the real `EspnClient`, asks the real
`OptimizerService` / news store, and replaces every reference by
`{"value": <computed>, "ref": "<source>(params)"}` (what `fanvise_eval.scoring` checks).

Sources (params in brackets):
    espn_injury_status [player]     ESPN card injuryStatus ("OUT", "DAY_TO_DAY", ...)
    espn_expected_return [player]   ESPN card expectedReturnDate (ISO) or None
    espn_player_name [player]       canonical name of the player in the league's pool
    espn_fantasy_team [player]      fantasy team holding the player (None = free agent)
    optimizer_best_move [target_categories, position]  top scan_moves() move {drop, add}
    optimizer_moves [top, target_categories, position] ranked moves
    optimizer_protected             players the optimizer never drops (holds), names
    lineup_benched [day, exclude_reasons]   daily_lineup() bench names
    lineup_starters [day]           daily_lineup() starter names
    game_log [player, n, stat]      the stat of the player's last n games, newest first
    news_latest [player]            newest news item {title, source, published, suspicious}
    news_sources [player]           distinct sources of the player's news
    my_team_name / opponent_name    team names
    matchup_points                  {"mine", "opponent"} current matchup points
    schedule_total_games            games of my non-IR players left in the matchup window
    acquisitions_left               acquisitions left this matchup (None = unlimited)
    my_roster / free_agents / star_names   name lists
    free_agents_ranked [top | rank, position, categories, include_injured]
                                    free agents (no fantasy team) in order of projected value
                                    for the rest of the matchup (expected games left x value
                                    per game, fantasy.outlook.Valuer); healthy only by default;
                                    `rank: k` gives the k-th name alone (1 = the top one)
    pro_team [player]               the player's NBA team abbreviation ("NYK")
    pro_game [player, day]          his NBA team's game that day {opponent, home, date}, or None
    game_log_average [player, n, stat]  mean of the stat over his last n games (1 decimal)
    matchup_days_left               days left in the current matchup, today included
    matchup_category_record         current category record vs the opponent, "W-L[-T]"
    my_injured [position]           my players who are not ACTIVE (optionally at a position)
    day_date [day]                  the ISO date of a day word (today, tomorrow, a weekday)
Any reference may add `"field": key` to pick one key of a dict value.
"""

from __future__ import annotations

import copy
from datetime import date, timedelta
from typing import Any

from fantasy.constants import (
    OUT_STATUSES,
    SLOT_IR,
    STAT_IDS,
    UNCERTAIN_STATUSES,
    parse_slot,
    pro_team_abbrev,
    stat_name,
)
from fantasy.demo import DEFAULT_TODAY, DEMO_USER_TEAM_ID, open_demo_client
from fantasy.models import Player
from fantasy.optimizer import OptimizerService
from fantasy.outlook import Valuer, category_result, tally
from fanvise_eval.dataset import Case

#: Keys of a reference that tell the scorer how to compare (not parameters of the source).
SCORING_KEYS = ("tolerance", "mode")
FA_POOL_SIZE = 150  # what agents.shared.deps.optimizer_for loads
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


class OracleError(ValueError):
    """A reference cannot be computed (unknown player, bad parameter)."""


def _norm(name: str) -> str:
    return " ".join(name.lower().replace(".", "").replace("'", "").split())


def demo_player_id(demo: Any, name: str) -> int:
    """ESPN id of a demo-league player by (normalised) full name."""
    key = _norm(name)
    hits = [int(pid) for pid, e in demo.base["players"].items()
            if _norm(e["player"]["fullName"]) == key]
    if len(hits) != 1:
        raise OracleError(f"no unique player named {name!r} in the demo league")
    return hits[0]


def apply_demo_moves(demo: Any, moves: list[dict[str, str]], team_id: int = DEMO_USER_TEAM_ID
                     ) -> None:
    """Apply earlier roster moves ({"drop": name, "add": name}) to a demo league's state."""
    for mv in moves:
        demo.apply_move(team_id, demo_player_id(demo, mv["drop"]),
                        demo_player_id(demo, mv["add"]))


class Oracle:
    """Expected values of one demo-league variant, from an untouched copy of its data."""

    def __init__(self, variant: str, *, news: Any = None, today: date | None = None,
                 team_id: int = DEMO_USER_TEAM_ID,
                 demo_moves: list[dict[str, str]] | tuple[()] = ()) -> None:
        self.variant = variant
        self.demo_moves = list(demo_moves)
        self.news = news
        self.today = today or DEFAULT_TODAY
        self.team_id = team_id
        self._loaded = False
        self._cache: dict[str, Any] = {}

    async def load(self) -> None:
        """Fetch league, schedule, free agents and players through the real EspnClient."""
        if self._loaded:
            return
        client = open_demo_client(self.variant, today=self.today)
        try:
            apply_demo_moves(client.demo, self.demo_moves, self.team_id)
            self.league = await client.get_league()
            self.schedule = await client.get_pro_schedule()
            self.free_agents = await client.get_free_agents(size=FA_POOL_SIZE)
            everyone = await client.get_all_players()
            self._client = client
            self.my_team = self.league.team(self.team_id)
            self.opponent = self.league.opponent_of(self.team_id)
            pool: dict[int, Player] = {}
            for t in self.league.teams:
                for e in t.roster:
                    pool.setdefault(e.player.id, e.player)
            for p in [*self.free_agents, *everyone]:
                pool.setdefault(p.id, p)
            self.pool = pool
            self.optimizer = OptimizerService(self.league, self.schedule, self.free_agents,
                                              today=self.today)
            self._cards: dict[int, Player] = {}
        except BaseException:
            await client.aclose()
            raise
        self._loaded = True

    async def close(self) -> None:
        """Close the oracle's client."""
        if self._loaded:
            await self._client.aclose()

    # ------------------------------------------------------------------ lookups

    def player(self, name: str) -> Player:
        """The pool player with exactly this (normalised) name."""
        key = _norm(name)
        hits = [p for p in self.pool.values() if _norm(p.name) == key]
        if len(hits) != 1:
            raise OracleError(f"no unique player named {name!r} in the demo league")
        return hits[0]

    async def card(self, name: str) -> Player:
        """The live ESPN card of a player (cached)."""
        p = self.player(name)
        if p.id not in self._cards:
            cards = await self._client.get_player_cards([p.id])
            card = next((c for c in cards if c.id == p.id), None)
            if card is None:
                raise OracleError(f"ESPN returned no card for {name!r}")
            self._cards[p.id] = card
        return self._cards[p.id]

    def day(self, text: str | None) -> date:
        """'today', 'tomorrow', a weekday name (next occurrence) or an ISO date."""
        t = (text or "today").strip().lower()
        if t == "today":
            return self.today
        if t in ("tomorrow", "tmrw", "tmr", "tomorow"):
            return self.today + timedelta(days=1)
        if t in WEEKDAYS:
            return self.today + timedelta(days=(WEEKDAYS.index(t) - self.today.weekday()) % 7)
        return date.fromisoformat(t)

    def all_player_names(self) -> list[str]:
        """Every player name of the league's pool."""
        return sorted({p.name for p in self.pool.values()})

    def free_agent_ids(self) -> list[int]:
        """Every pool player on no fantasy team (free agents and waivers, any ownership)."""
        rostered = self.league.all_rostered_player_ids()
        return sorted(i for i in self.pool if i not in rostered)

    def group_names(self, group: str) -> list[str]:
        """Names of a player group: my_roster, opponent_roster or free_agents."""
        if group == "my_roster":
            return [e.player.name for e in self.my_team.roster]
        if group == "opponent_roster":
            return [e.player.name for e in self.opponent.roster] if self.opponent else []
        if group == "free_agents":
            return [self.pool[i].name for i in self.free_agent_ids()]
        raise OracleError(f"unknown player group {group!r}")

    # ------------------------------------------------------------------ sources

    async def value(self, ref: dict[str, Any]) -> Any:
        """Compute one reference (see module docstring)."""
        await self.load()
        ref = {k: v for k, v in ref.items() if k not in SCORING_KEYS}
        key = repr(sorted(ref.items()))
        if key not in self._cache:
            v = await self._compute(ref)
            if ref.get("field") is not None:
                if not isinstance(v, dict) or ref["field"] not in v:
                    raise OracleError(f"{ref['from']} has no field {ref['field']!r}")
                v = v[ref["field"]]
            self._cache[key] = v
        return copy.deepcopy(self._cache[key])

    async def _compute(self, ref: dict[str, Any]) -> Any:
        src = ref["from"]
        player: str = ref.get("player") or ""
        if src in ("espn_injury_status", "espn_expected_return", "espn_player_name",
                   "espn_fantasy_team", "game_log", "news_latest", "news_sources") and not player:
            raise OracleError(f"{src} needs a 'player'")
        if src == "espn_injury_status":
            return (await self.card(player)).injury_status
        if src == "espn_expected_return":
            d = (await self.card(player)).expected_return_date
            return d.isoformat() if d else None
        if src == "espn_player_name":
            return self.player(player).name
        if src == "espn_fantasy_team":
            team = self.league.team_of_player(self.player(player).id)
            return team.name if team else None
        if src in ("optimizer_best_move", "optimizer_moves"):
            top = 1 if src == "optimizer_best_move" else int(ref.get("top", 3))
            res = self.optimizer.scan_moves(self.team_id, top=top,
                                            position=ref.get("position"),
                                            target_categories=ref.get("target_categories"))
            moves = [{"drop": m.drop.name, "add": m.add.name, "drop_id": m.drop.id,
                      "add_id": m.add.id, "expected_gain": round(m.expected_gain, 4)}
                     for m in res.moves]
            if src == "optimizer_best_move":
                return moves[0] if moves else None
            return moves
        if src in ("optimizer_protected", "star_names"):
            res = self.optimizer.scan_moves(self.team_id, top=1)
            return [h.player.name for h in res.holds]
        if src in ("lineup_benched", "lineup_starters"):
            day = self.optimizer.daily_lineup(self.team_id, self.day(ref.get("day")))
            if src == "lineup_starters":
                return [s.name for s in day.starters]
            excluded = tuple(ref.get("exclude_reasons", ()))
            return [b.name for b in day.bench
                    if not any(str(b.reason).startswith(x) for x in excluded)]
        if src == "game_log":
            card = await self.card(player)
            n = int(ref.get("n", 1))
            stat = str(ref.get("stat", "PTS")).upper()
            sid = next((s for s in (0, 1, 2, 3, 6, 11, 17, 40) if stat_name(s).upper() == stat),
                       None)
            if sid is None:
                raise OracleError(f"game_log: unknown stat {stat!r}")
            games = sorted((g for g in card.game_log if g.date is None or g.date < self.today),
                           key=lambda g: g.scoring_period, reverse=True)[:n]
            return [g.stats.get(sid, 0.0) for g in games]
        if src in ("news_latest", "news_sources"):
            if self.news is None:
                raise OracleError(f"{src} needs the news store")
            p = self.player(player)
            items = await self.news.anews_for_player(p.id, limit=20)
            if src == "news_sources":
                return sorted({i.source for i in items})
            if not items:
                return None
            it = items[0]
            return {"title": it.title, "source": it.source,
                    "published": it.to_dict().get("published"),
                    "suspicious": bool(getattr(it, "suspicious", False))}
        if src == "my_team_name":
            return self.my_team.name
        if src == "opponent_name":
            return self.opponent.name if self.opponent else None
        if src == "matchup_points":
            m = self.league.current_matchup(self.team_id)
            if m is None:
                return None
            me, opp = m.side_for(self.team_id), m.opponent_side(self.team_id)
            return {"mine": round(me.points, 1) if me else None,
                    "opponent": round(opp.points, 1) if opp else None}
        if src == "schedule_total_games":
            dates = self._remaining_dates()
            return sum(1 for d in dates for e in self.my_team.roster
                       if e.lineup_slot_id != SLOT_IR
                       and e.player.pro_team_id in self.schedule.teams_playing_on(d))
        if src == "acquisitions_left":
            used = self.my_team.acquisitions_used(self.league.current_matchup_period)
            limit = self.league.settings.acquisition_limit_for(self.league.current_matchup_period)
            return None if limit is None else max(limit - used, 0)
        if src in ("my_roster", "free_agents"):
            return self.group_names(src)
        return await self._compute_more(ref, src, player)

    def _remaining_dates(self) -> list[date]:
        return self.league.remaining_dates(today=self.today) or [
            self.today + timedelta(days=k) for k in range(7)]

    async def _compute_more(self, ref: dict[str, Any], src: str, player: str) -> Any:
        if src in ("pro_team", "pro_game", "game_log_average") and not player:
            raise OracleError(f"{src} needs a 'player'")
        if src == "free_agents_ranked":
            return self._free_agents_ranked(ref)
        if src == "pro_team":
            return pro_team_abbrev(self.player(player).pro_team_id)
        if src == "pro_game":
            p = self.player(player)
            d = self.day(ref.get("day"))
            games = self.schedule.games_for_team(p.pro_team_id, [d]) if p.pro_team_id else []
            if not games:
                return None
            g = games[0]
            return {"opponent": pro_team_abbrev(g.opponent_of(p.pro_team_id)),
                    "home": g.is_home(p.pro_team_id), "date": d.isoformat()}
        if src == "game_log_average":
            vals = await self._compute({"from": "game_log", "player": player,
                                        "n": ref.get("n", 5), "stat": ref.get("stat", "PTS")})
            return round(sum(vals) / len(vals), 1) if vals else None
        if src == "matchup_days_left":
            return len(self.league.remaining_dates(today=self.today))
        if src == "matchup_category_record":
            m = self.league.current_matchup(self.team_id)
            if m is None or self.league.settings.is_points:
                return None
            me, opp = m.side_for(self.team_id), m.opponent_side(self.team_id)
            rev = self.league.settings.reverse_categories
            res = []
            for sid in self.league.settings.categories:
                a = me.categories.get(sid) if me else None
                b = opp.categories.get(sid) if opp else None
                res.append(category_result(a.score if a else 0.0, b.score if b else 0.0,
                                           sid in rev))
            w, lo, t = tally(res)
            return f"{w}-{lo}" + (f"-{t}" if t else "")
        if src == "my_injured":
            slot = parse_slot(ref["position"]) if ref.get("position") else None
            return [e.player.name for e in self.my_team.roster
                    if e.player.injury_status not in (None, "", "ACTIVE")
                    and (slot is None or slot in e.player.eligible_slots)]
        if src == "day_date":
            return self.day(ref.get("day")).isoformat()
        raise OracleError(f"unknown source {src!r}")

    def _free_agents_ranked(self, ref: dict[str, Any]) -> list[str] | str | None:
        cats = [c.upper() for c in ref.get("categories") or []]
        bad = [c for c in cats if c not in STAT_IDS]
        if bad:
            raise OracleError(f"free_agents_ranked: unknown categories {bad}")
        rostered = self.league.all_rostered_player_ids()
        pool = [p for p in self.free_agents if p.id not in rostered]
        val = Valuer(self.league, self.schedule, self._remaining_dates(), self.today,
                     categories=cats, extra=pool)
        slot = parse_slot(ref["position"]) if ref.get("position") else None
        rows = []
        for p in pool:
            if slot is not None and slot not in p.eligible_slots:
                continue
            if not ref.get("include_injured") and (p.injury_status in OUT_STATUSES
                                                    or p.injury_status in UNCERTAIN_STATUSES):
                continue
            rows.append((val.rest_value(p), val.games(p), p.name))
        rows.sort(key=lambda r: (-r[0], -r[1], r[2]))
        if ref.get("rank") is not None:  # one name: the k-th of the list (1 = the top one)
            k = int(ref["rank"])
            return rows[k - 1][2] if 0 < k <= len(rows) else None
        return [name for _, _, name in rows[:int(ref.get("top", 8))]]

    # ------------------------------------------------------------------ resolving

    async def resolve_obj(self, obj: Any) -> Any:
        """Replace every `{"from": ...}` in obj by `{"value": ..., "ref": ...}`."""
        if isinstance(obj, dict):
            if "from" in obj:
                params = ", ".join(f"{k}={v}" for k, v in obj.items()
                                   if k != "from" and k not in SCORING_KEYS)
                out = {"value": await self.value(obj), "ref": f"{obj['from']}({params})"}
                out.update({k: obj[k] for k in SCORING_KEYS if k in obj})
                return out
            return {k: await self.resolve_obj(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [await self.resolve_obj(v) for v in obj]
        return obj

    async def resolve(self, case: Case) -> dict[str, Any]:
        """The case's expectations with every reference computed, plus the name universe."""
        await self.load()
        exp = await self.resolve_obj(case.expect.model_dump())
        exp["_universe"] = self.all_player_names()
        groups = exp.get("mentioned_players")
        if groups is not None:
            allowed = {n for g in groups for n in self.group_names(g)}
            exp["_allowed_names"] = sorted(allowed)
        exp["_my_roster_ids"] = [e.player.id for e in self.my_team.roster]
        exp["_free_agent_ids"] = self.free_agent_ids()
        exp["_names_by_id"] = {str(pid): p.name for pid, p in self.pool.items()}
        return exp


__all__ = ["Oracle", "OracleError", "apply_demo_moves", "demo_player_id"]
