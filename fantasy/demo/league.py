"""The embedded demo league, served as ESPN-shaped JSON through an httpx transport.

`DemoLeague` holds the recorded season (recorded/demo_league.json.gz, made by
`fantasy.demo.build`) plus mutable state (moves, lineup changes), and renders ESPN
responses "as of" a configurable today: stats windows and game logs only include days
before today, matchups are live for the current period, injuries follow the recorded
spells. `DemoTransport` routes requests like ESPN does (path, `view`, `scoringPeriodId`,
`x-fantasy-filter`), so the real `EspnClient` and parsers run unchanged.
"""

from __future__ import annotations

import bisect
import functools
import gzip
import hashlib
import json
import logging
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from fantasy.constants import (
    OUT_STATUSES,
    SLOT_BENCH,
    SLOT_IR,
    STARTING_SLOTS,
    slot_name,
)
from fantasy.demo.changes import _Change
from fantasy.demo.pro_schedule import load_pro_schedule
from fantasy.espn.writes import EspnWriter
from fantasy.schedule import ScoringCalendar, espn_ms_to_date, week_scoring_periods

log = logging.getLogger(__name__)

#: What the user reads when a change cannot be saved (no paths, no errno).
SAVE_FAILED = ("could not save the demo league (the disk may be full or the data folder "
               "read-only), so the change was not applied")

DATA_DIR = Path(__file__).parent / "recorded"
DEMO_BASE_URL = "https://demo.fanvise.invalid/apis/v3/games/fba/"
VARIANTS = ("points", "categories")
_VARIANT_ALIASES = {"points": "points", "pts": "points", "categories": "categories",
                    "cat": "categories", "cats": "categories", "9cat": "categories",
                    "9-cat": "categories", "category": "categories"}
_FIELD_IDS = {"min": 40, "fgm": 13, "fga": 14, "ftm": 15, "fta": 16, "3pm": 17, "3pa": 18,
              "oreb": 4, "dreb": 5, "ast": 3, "stl": 2, "blk": 1, "to": 11, "pf": 9}
_CAT_SUM_STATS = (0, 6, 3, 2, 1, 17, 11, 13, 14, 15, 16)


#: Where renders of the unchanged demo league are kept between processes (the router's bank
#: vectors live there too). FANVISE_DEMO_DISK_CACHE=0 turns this cache off.
ENV_CACHE_DIR = "FANVISE_CACHE_DIR"
ENV_DISK_CACHE = "FANVISE_DEMO_DISK_CACHE"
#: Part of the disk cache key; the key also hashes the recorded data, the source of the
#: modules that render (this one, fantasy.constants, fantasy.schedule) and numpy's version.
RENDER_RECIPE = "demo-render-v1"


def _disk_cache_dir() -> Path | None:
    """The folder of the demo's disk cache, or None when it is turned off."""
    if os.environ.get(ENV_DISK_CACHE, "").strip().lower() in ("0", "off", "false", "no"):
        return None
    env = os.environ.get(ENV_CACHE_DIR)
    return Path(env) if env else Path.home() / ".cache" / "fanvise"


@functools.lru_cache(maxsize=1)
def _render_key() -> str:
    """Hash of everything a render of the unchanged league depends on besides the variant
    and today: the recorded files, the rendering code and numpy (it sums the stats)."""
    import sys

    h = hashlib.sha256(RENDER_RECIPE.encode())
    files = [DATA_DIR / "demo_league.json.gz", DATA_DIR / "pro_schedule_2023.json.gz",
             Path(__file__)]
    files += [Path(str(getattr(sys.modules[m], "__file__", "")))
              for m in ("fantasy.constants", "fantasy.schedule")]
    for path in files:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    h.update(np.__version__.encode())
    return h.hexdigest()[:20]


def _disk_read(name: str) -> bytes | None:
    folder = _disk_cache_dir()
    if folder is None:
        return None
    try:
        return (folder / name).read_bytes()
    except OSError:
        return None


def _disk_write(name: str, data: bytes) -> None:
    """Write one cache file atomically (a temp file, then rename); failures are ignored
    (a read-only home only means the next process renders again)."""
    folder = _disk_cache_dir()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, folder / name)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError as exc:
        log.info("demo render cache not written (%s)", type(exc).__name__)


#: "on": the demo's other managers make their scripted moves as its date advances
ENV_SCRIPT = "FANVISE_DEMO_SCRIPT"


class DemoError(ValueError):
    """A demo-league request that cannot be applied (bad move, bad lineup, bad date)."""


class _GamesBySp(Mapping[int, tuple[int, dict[str, float]]]):
    """A player's recorded games as {scoring period: (game id, ESPN stats)}, expanded from
    the compact rows on first use (a cold start renders only the players it is asked for)."""

    __slots__ = ("_rows", "_fields", "_games", "_ordered", "_sps", "_prefix")

    def __init__(self, rows: list[list[Any]], fields: list[str]) -> None:
        self._rows = rows
        self._fields = fields
        self._games: dict[int, tuple[int, dict[str, float]]] | None = None
        self._ordered: list[tuple[int, int, dict[str, float]]] | None = None
        self._sps: list[int] | None = None
        #: (stat keys, running totals: row i sums the first i games) or None when the games'
        #: keys differ (then `totals` sums them with `_sum`)
        self._prefix: tuple[tuple[str, ...], np.ndarray] | None = None

    def _expanded(self) -> dict[int, tuple[int, dict[str, float]]]:
        if self._games is None:
            expand = _expander(tuple(self._fields))
            self._games = {row[0]: (row[1], expand(row[2:])) for row in self._rows}
        return self._games

    def __getitem__(self, sp: int) -> tuple[int, dict[str, float]]:
        return self._expanded()[sp]

    def __iter__(self) -> Iterator[int]:
        return iter(self._expanded())

    def __len__(self) -> int:
        return len(self._expanded())

    # the dict's own views and lookups (Mapping's generic ones go through __getitem__)
    def __contains__(self, sp: object) -> bool:
        return sp in self._expanded()

    def get(self, sp: int, default: Any = None) -> Any:
        return self._expanded().get(sp, default)

    def keys(self) -> Any:
        return self._expanded().keys()

    def items(self) -> Any:
        return self._expanded().items()

    def values(self) -> Any:
        return self._expanded().values()

    def in_order(self) -> list[tuple[int, int, dict[str, float]]]:
        """(scoring period, game id, stats) of every game, by scoring period."""
        if self._ordered is None:
            self._ordered = [(sp, gid, st) for sp, (gid, st) in sorted(self._expanded().items())]
        return self._ordered

    def span(self, first_sp: int, end_sp: int) -> tuple[int, int]:
        """(i, j): `in_order()[i:j]` are the games with first_sp <= scoring period < end_sp."""
        if self._sps is None:
            self._sps = [g[0] for g in self.in_order()]
        return bisect.bisect_left(self._sps, first_sp), bisect.bisect_left(self._sps, end_sp)

    def totals(self, i: int, j: int) -> dict[str, float]:
        """`_sum` of the stats of `in_order()[i:j]` (i < j), from running totals: the stats
        are whole numbers, so a difference of running totals is the exact sum, the same
        floats and keys in the same order as `_sum` gives."""
        games = self.in_order()
        if self._prefix is None:
            keys = tuple(games[0][2])
            if not all(tuple(g[2]) == keys for g in games):
                return _sum(g[2] for g in games[i:j])
            rows = np.array([list(g[2].values()) for g in games], dtype=np.float64)
            run = np.zeros((len(games) + 1, len(keys)), dtype=np.float64)
            np.cumsum(rows, axis=0, out=run[1:])
            self._prefix = (keys, run)
        keys, run = self._prefix
        out = {k: v for k, v in zip(keys, (run[j] - run[i]).tolist(), strict=True)
               if k not in _RATIO_STATS}
        return _with_ratios(out)


@functools.lru_cache(maxsize=1)
def load_base() -> dict[str, Any]:
    """The recorded demo season (loaded once per process; treat as read-only). Each player's
    `by_sp` maps scoring period -> (game id, stats), expanded when first read."""
    with gzip.open(DATA_DIR / "demo_league.json.gz", "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    fields = data["game_fields"]
    for entry in data["players"].values():
        entry["by_sp"] = _GamesBySp(entry["games"], fields)
    return data


@functools.cache
def _season_value(pid: int, weights: tuple[tuple[str, float], ...]) -> float:
    """Mean fantasy points per game of a player's recorded games (0.0 without games)."""
    games = load_base()["players"][str(pid)]["by_sp"].values()
    if not games:
        return 0.0
    return sum(sum(w * s.get(sid, 0.0) for sid, w in weights) for _, s in games) / len(games)


@functools.lru_cache(maxsize=1)
def _calendar() -> ScoringCalendar:
    sched = load_pro_schedule()
    pairs = [(int(g["scoringPeriodId"]), espn_ms_to_date(g["date"]))
             for t in sched["settings"]["proTeams"]
             for gl in t["proGamesByScoringPeriod"].values() for g in gl]
    return ScoringCalendar.from_games(pairs)


@functools.lru_cache(maxsize=4)
def _expander(fields: tuple[str, ...]) -> Callable[[list[int]], dict[str, float]]:
    """`_expand_stats` for rows of raw values in `fields` order, by position (the same dict,
    key order included; about twice as fast, it runs for every recorded game)."""
    keys = tuple(str(_FIELD_IDS[f]) for f in fields)
    at = {f: i for i, f in enumerate(fields)}
    fgm, fga, ftm, fta, tpm, tpa = (at[f] for f in ("fgm", "fga", "ftm", "fta", "3pm", "3pa"))
    oreb, dreb, ast, stl, blk, mins = (at[f] for f in ("oreb", "dreb", "ast", "stl", "blk",
                                                        "min"))

    def expand(v: list[int]) -> dict[str, float]:
        s = dict(zip(keys, map(float, v), strict=True))
        pts = 2 * v[fgm] + v[tpm] + v[ftm]
        reb = v[oreb] + v[dreb]
        s["0"] = float(pts)
        s["6"] = float(reb)
        s["19"] = round(v[fgm] / v[fga], 5) if v[fga] else 0.0
        s["20"] = round(v[ftm] / v[fta], 5) if v[fta] else 0.0
        s["21"] = round(v[tpm] / v[tpa], 5) if v[tpa] else 0.0
        tens = sum(1 for x in (pts, reb, v[ast], v[stl], v[blk]) if x >= 10)
        s["37"] = 1.0 if tens >= 2 else 0.0
        s["38"] = 1.0 if tens >= 3 else 0.0
        s["41"] = 1.0 if v[mins] >= 26 else 0.0
        s["42"] = 1.0
        return s

    return expand


def _expand_stats(v: dict[str, int]) -> dict[str, float]:
    s = {str(_FIELD_IDS[k]): float(x) for k, x in v.items()}
    pts = 2 * v["fgm"] + v["3pm"] + v["ftm"]
    reb = v["oreb"] + v["dreb"]
    s["0"] = float(pts)
    s["6"] = float(reb)
    s["19"] = round(v["fgm"] / v["fga"], 5) if v["fga"] else 0.0
    s["20"] = round(v["ftm"] / v["fta"], 5) if v["fta"] else 0.0
    s["21"] = round(v["3pm"] / v["3pa"], 5) if v["3pa"] else 0.0
    tens = sum(1 for x in (pts, reb, v["ast"], v["stl"], v["blk"]) if x >= 10)
    s["37"] = 1.0 if tens >= 2 else 0.0
    s["38"] = 1.0 if tens >= 3 else 0.0
    s["41"] = 1.0 if v["min"] >= 26 else 0.0
    s["42"] = 1.0
    return s


_RATIO_STATS = ("19", "20", "21")


def _sum(stat_dicts: Iterable[dict[str, float]]) -> dict[str, float]:
    """Totals of stat dicts (ratios recomputed from makes and attempts).

    Summed stats are whole numbers (counts, 0/1 flags), so the sum is exact in any order:
    dicts with the same keys in the same order (every game of the demo) are summed as one
    numpy array, others key by key."""
    dicts = list(stat_dicts)
    keys = tuple(dicts[0]) if dicts else ()
    out: dict[str, float] = {}
    if len(dicts) > 1 and all(tuple(d) == keys for d in dicts):
        totals = np.array([list(d.values()) for d in dicts], dtype=np.float64).sum(axis=0)
        out = {k: v for k, v in zip(keys, totals.tolist(), strict=True)
               if k not in _RATIO_STATS}
        dicts = []
    for d in dicts:
        for k, v in d.items():
            if k in _RATIO_STATS:
                continue
            out[k] = out.get(k, 0.0) + v
    return _with_ratios(out)


def _with_ratios(out: dict[str, float]) -> dict[str, float]:
    """Summed stats with their ratios (FG%, FT%, 3P%) added last, from makes and attempts."""
    out["19"] = out["13"] / out["14"] if out.get("14") else 0.0
    out["20"] = out["15"] / out["16"] if out.get("16") else 0.0
    out["21"] = out["17"] / out["18"] if out.get("18") else 0.0
    return out


def _dumps(body: Any) -> bytes:
    """A response body as the transport sends it (compact JSON)."""
    return json.dumps(body, separators=(",", ":")).encode()


class _Spliced:
    """Stands for a part of a response body whose JSON is already made (`_dumps_spliced`)."""

    __slots__ = ("at",)

    def __init__(self, at: int) -> None:
        self.at = at


#: How `_dumps_spliced` writes a `_Spliced` part before putting its JSON in its place.
_SPLICE_MARK = re.compile(rb'"\\u0000(\d+)"')


def _dumps_spliced(body: Any, slots: list[tuple[dict[str, Any], str]],
                   encoded: Callable[[Any], bytes]) -> bytes:
    """`_dumps(body)`, the values at `slots` ((dict, key) pairs inside `body`) written by
    `encoded` (their kept JSON) instead of being encoded again. The dicts at `slots` are
    changed on the way (they must be the caller's own); the bytes are `_dumps(body)`'s."""
    parts = [encoded(d[k]) for d, k in slots]
    for at, (d, k) in enumerate(slots):
        d[k] = _Spliced(at)
    raw = json.dumps(body, separators=(",", ":"),
                     default=lambda o: f"\x00{o.at}").encode()
    out, n = _SPLICE_MARK.subn(lambda m: parts[int(m.group(1))], raw)
    if n == len(parts):
        return out
    for (d, k), part in zip(slots, parts, strict=True):  # a string of the body looked alike
        d[k] = json.loads(part)
    return _dumps(body)


def _normalize_variant(variant: str) -> str:
    key = (variant or "points").strip().lower()
    if key not in _VARIANT_ALIASES:
        raise DemoError(f"unknown demo variant {variant!r}; use 'points' or 'categories'")
    return _VARIANT_ALIASES[key]


class DemoLeague:
    """The demo league's state and ESPN-response renderer.

    `today` defaults to 2023-01-25 (matchup period 15 in progress, 5 days left incl. today).
    Changes (`apply_move`, `set_lineup`) take effect from today on and are saved to
    `state_path` (JSON) when given, so a restart keeps them.
    """

    def __init__(self, variant: str = "points", today: date | None = None,
                 state_path: Path | str | None = None, script: bool | None = None) -> None:
        self.base = load_base()
        #: the other managers' scripted moves are made as the date advances
        #: (fantasy.demo.scripted); default: FANVISE_DEMO_SCRIPT=on
        self.script = script if script is not None else \
            os.environ.get(ENV_SCRIPT, "").strip().lower() in ("1", "on", "true", "yes")
        self.variant = _normalize_variant(variant)
        self.calendar = _calendar()
        self.season: int = self.base["season"]
        self.league_id: int = self.base["league_id"]
        self.state_path = Path(state_path) if state_path else None
        self.changes: list[_Change] = []
        self.today = today or date.fromisoformat(self.base["default_today"])
        #: the day this league starts on (given or the default): `reset` goes back to it
        self.start_day = self.today
        self.settings: dict[str, Any] = self.base["settings"][self.variant]
        weeks = {int(k): v for k, v in self.settings["scheduleSettings"]["matchupPeriods"].items()}
        self.period_sps = {p: [sp for w in ws for sp in week_scoring_periods(w)]
                           for p, ws in weeks.items()}
        self.regular_periods = int(self.settings["scheduleSettings"]["matchupPeriodCount"])
        if self.state_path and self.state_path.exists():
            saved = self._load_state()
            if today is None and saved is not None:  # the date a `advance_to` moved it to
                self.today = saved
        self.today_sp, self.current_period = self._day_position(self.today)
        self.weights = {int(i["statId"]): float(i["points"])
                        for i in self.base["settings"]["points"]["scoringSettings"]["scoringItems"]}
        #: (stat key, weight) pairs of `weights`, keys as in the stats dicts
        self._weights = [(str(sid), w) for sid, w in self.weights.items()]
        self._base_lineups = self._initial_lineups()
        self.version = 0
        self._clients: list[Any] = []
        #: Rendered player objects by (player id, stats kind, scoring period): they depend on
        #: the recorded season, the variant and today only, never on moves or lineups, so a
        #: state after a move renders only what the move changes (who owns whom).
        self._player_objs: dict[tuple[int, str, int | None], dict[str, Any]] = {}
        #: Owner maps by (scoring period, the changes made): player id -> team id.
        self._owners: dict[tuple[Any, ...], dict[int, int]] = {}
        #: Rendered matchups by (period, id, teams, box day, the two teams' changes so far).
        self._matchups: dict[tuple[Any, ...], dict[str, Any]] = {}
        #: Matchups of finished periods (no box day) by the same key: once a period is over
        #: its render no longer depends on today, so a new date keeps them.
        self._final_matchups: dict[tuple[Any, ...], dict[str, Any]] = {}
        #: A team's played day (points, summed stats) by (team, scoring period, the team's
        #: changes up to that day): a played day never changes with today.
        self._team_days: dict[tuple[Any, ...], tuple[float, dict[str, float]]] = {}
        #: Stats windows by (player id, split, games covered) and season projections by
        #: player id: neither depends on today beyond the games covered (`_span_entry`).
        self._windows: dict[tuple[int, int, int, int], dict[str, Any]] = {}
        self._projections: dict[int, dict[str, Any] | None] = {}
        #: JSON of rendered player objects by object identity (`_player_json`).
        self._player_jsons: dict[int, tuple[dict[str, Any], bytes]] = {}
        #: Responses of the unchanged league read from the disk cache and not yet used to
        #: fill the two caches above ((kind, JSON bytes)): a later state renders only what
        #: its changes touch, as it would after rendering the unchanged league itself.
        self._unseeded: list[tuple[str, bytes]] = []

    # ------------------------------------------------------------------ state

    @property
    def cache_namespace(self) -> str:
        """Cache namespace of this league state: changes with every move or lineup change,
        and names the changes themselves (a reset then another move is a new state)."""
        digest = hashlib.sha1(json.dumps([c.__dict__ for c in self.changes], sort_keys=True,
                                         default=str).encode()).hexdigest()[:12]
        return f"demo:{self.variant}:{self.today.isoformat()}:v{len(self.changes)}-{digest}"

    #: Cache namespace of what no move changes (the pro schedule and the player universe,
    #: the same recorded data for both variants and every demo date).
    STATIC_NAMESPACE = "demo:static"

    def attach_client(self, client: Any) -> None:
        """Keep a client's cache namespace in step with this state."""
        self._clients.append(client)
        client.cache_namespace = self.cache_namespace
        client.static_namespace = self.STATIC_NAMESPACE

    def _commit(self, change: _Change | None = None, *, clear: bool = False) -> None:
        """Apply one change (or clear all) in memory and on disk, all or nothing: when the
        save fails, memory is restored and DemoError(SAVE_FAILED) is raised."""
        before = list(self.changes)
        if clear:
            self.changes.clear()
        if change is not None:
            self.changes.append(change)
        try:
            self._save_state()
        except OSError as exc:
            self.changes[:] = before
            log.warning("demo state not saved (%s: %s); change not applied",
                        type(exc).__name__, exc.strerror or exc)
            raise DemoError(SAVE_FAILED) from None
        for c in self._clients:
            c.cache_namespace = self.cache_namespace

    def _save_state(self) -> None:
        """Write the state file atomically: a temp file in the same folder, fsync, replace."""
        if not self.state_path:
            return
        data = {"variant": self.variant, "today": self.today.isoformat(),
                "changes": [c.__dict__ | {"slots": {str(k): v for k, v in (c.slots or {}).items()}}
                            for c in self.changes]}
        folder = self.state_path.parent
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{self.state_path.name}.",
                                   suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(json.dumps(data, indent=1))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.state_path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    def _load_state(self) -> date | None:
        """Read the saved changes; returns the saved today (None: not saved / unreadable)."""
        assert self.state_path is not None
        try:
            data = json.loads(self.state_path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise DemoError(f"cannot read demo state {self.state_path}: "
                            f"{exc.strerror or type(exc).__name__}") from None
        except ValueError:  # not UTF-8 text, or not JSON
            raise self._bad_state("it is not JSON text") from None
        if not isinstance(data, dict):
            raise self._bad_state("it is not a JSON object")
        if data.get("variant") != self.variant:
            return None  # state of another variant: start fresh, keep the file untouched
        try:
            for c in data.get("changes") or []:
                slots = {int(k): int(v) for k, v in (c.get("slots") or {}).items()} or None
                self.changes.append(_Change(str(c["kind"]), int(c["team_id"]), int(c["sp"]),
                                            c.get("drop"), c.get("add"), slots,
                                            str(c.get("via") or "")))
        except (AttributeError, KeyError, TypeError, ValueError):
            self.changes.clear()
            raise self._bad_state('its "changes" is not a list of saved moves') from None
        try:
            return date.fromisoformat(str(data["today"])) if data.get("today") else None
        except ValueError:
            return None

    def _bad_state(self, why: str) -> DemoError:
        """The error for a state file FanVise cannot read: which file, why, what to do."""
        return DemoError(
            f"the demo state file {self.state_path} is damaged ({why}); delete it to start "
            "the demo league afresh (its moves are lost), or restore a saved copy: FanVise "
            'writes a JSON object like {"variant": "points", "today": "2023-01-25", '
            '"changes": []}')

    def _day_position(self, day: date) -> tuple[int, int]:
        """(scoring period, matchup period) of a demo day; DemoError outside the season."""
        sp = self.calendar.scoring_period_for(day)
        last_sp = self.period_sps[self.regular_periods][-1]
        if not 2 <= sp <= last_sp:
            raise DemoError(
                f"demo today {day} is outside the demo regular season "
                f"({self.calendar.date_for(2)} .. {self.calendar.date_for(last_sp)})")
        return sp, next(p for p, sps in self.period_sps.items() if sp in sps)

    @property
    def last_day(self) -> date:
        """The last day of the demo's regular season (the latest `advance_to` accepts)."""
        return self.calendar.date_for(self.period_sps[self.regular_periods][-1])

    def advance_to(self, day: date) -> None:
        """Move the demo's today forward to `day`: the days in between are played (their
        box scores count for each team's roster of that day), and moves and lineup changes
        made from now on are dated `day`. Saved with the state (all or nothing: a refusal or
        a failed save leaves memory and the file unchanged); the clients' cache namespace
        moves with it. Only forward, within the regular season (DemoError otherwise)."""
        if day < self.today:
            raise DemoError(f"the demo's date only moves forward (today is "
                            f"{self.today:%a %b} {self.today.day})")
        if day == self.today:
            return
        if not self.script:
            self._set_day(day)
            return
        from fantasy.demo.scripted import play_script
        before = list(self.changes)
        play_script(self, self.today_sp + 1, self.calendar.scoring_period_for(day))
        try:
            self._set_day(day)
        except DemoError:
            self.changes[:] = before
            raise

    def _set_day(self, day: date, *, clear: bool = False) -> None:
        """Set today (and forget every change with `clear`), saved all or nothing."""
        sp, period = self._day_position(day)
        before = (self.today, self.today_sp, self.current_period)
        self.today, self.today_sp, self.current_period = day, sp, period
        try:
            self._commit(clear=clear)
        except DemoError:
            self.today, self.today_sp, self.current_period = before
            raise
        # renders that depend on today (stats windows, injuries, live matchups)
        self._player_objs.clear()
        self._player_jsons.clear()
        self._matchups.clear()
        self._unseeded.clear()
        for c in self._clients:
            c.cache_namespace = self.cache_namespace

    def writer(self, team_id: int, *, transport: httpx.AsyncBaseTransport | None = None,
               **kwargs: Any) -> EspnWriter:
        """The ESPN writer of this league acting for `team_id`: its team owner as the member,
        on the league's own transaction endpoint (`DemoTransport`, unless `transport` is given).
        `fantasy.espn.writes.writer_for` hands a demo client's writes here; `kwargs` are
        EspnWriter's."""
        team = next(t for t in self.base["teams"] if int(t["id"]) == int(team_id))
        return EspnWriter(self.league_id, self.season, member_id=str(team["owners"][0]),
                          transport=transport or DemoTransport(self),
                          write_base_url=DEMO_BASE_URL, read_base_url=DEMO_BASE_URL, **kwargs)

    def roster_on(self, team_id: int, day: date) -> dict[int, int]:
        """A team's roster (player id -> slot) on a day, every change up to it applied: what
        a move dated that day left (a chain's later drop is not yet seen on earlier days)."""
        return self.lineup_on(team_id, self.calendar.scoring_period_for(day))

    def move_made(self, team_id: int, day: date, drop_id: int, add_id: int, *,
                  to_ir: bool = False) -> bool:
        """Does a move dated `day` show in the team's roster of that day: the added player
        there and the leaving one gone (in the IR slot for a move to IR)? Read on its own
        day, so a later move of a streaming chain (dropping the player again) hides nothing."""
        roster = self.roster_on(team_id, day)
        gone = roster.get(drop_id) == SLOT_IR if to_ir else drop_id not in roster
        return add_id in roster and gone

    def reset(self) -> None:
        """Forget all moves and lineup changes and go back to the day the league started on
        (all or nothing, like every change)."""
        if self.today != self.start_day:
            self._set_day(self.start_day, clear=True)
        else:
            self._commit(clear=True)

    # ------------------------------------------------------------------ rosters

    def _value(self, pid: int) -> float:
        """Mean fantasy points per game of a player's season (the same for every state)."""
        return _season_value(pid, tuple(self._weights))

    def _points(self, stats: dict[str, float]) -> float:
        return sum(w * stats.get(sid, 0.0) for sid, w in self._weights)

    def _initial_lineups(self) -> dict[int, dict[int, int]]:
        """Each team's starting lineup before any change: the best season averages start.
        Ranking needs every rostered player's recorded games (about 0.2 s), so the result is
        kept on disk keyed by the recorded data and this code (`_render_key`)."""
        name = f"demo-lineups-{_render_key()}-{self.variant}.json"
        raw = _disk_read(name)
        if raw is not None:
            try:
                return {int(tid): {int(p): int(slot) for p, slot in pairs}
                        for tid, pairs in json.loads(raw)}
            except (ValueError, TypeError):
                pass
        out = self._rank_lineups()
        _disk_write(name, json.dumps([[tid, list(lineup.items())]
                                      for tid, lineup in out.items()]).encode())
        return out

    def _rank_lineups(self) -> dict[int, dict[int, int]]:
        counts = {int(k): int(v) for k, v in
                  self.settings["rosterSettings"]["lineupSlotCounts"].items()}
        out: dict[int, dict[int, int]] = {}
        for team in self.base["teams"]:
            ranked = sorted(team["roster"], key=self._value, reverse=True)
            lineup: dict[int, int] = {}
            for slot in sorted(s for s in counts if s in STARTING_SLOTS):
                for _ in range(counts[slot]):
                    pid = next((p for p in ranked if p not in lineup
                                and slot in self._eligible(p)), None)
                    if pid is not None:
                        lineup[pid] = slot
            for pid in ranked:
                lineup.setdefault(pid, SLOT_BENCH)
            out[int(team["id"])] = lineup
        return out

    def _eligible(self, pid: int) -> list[int]:
        return self.base["players"][str(pid)]["player"]["eligibleSlots"]

    def lineup_on(self, team_id: int, sp: int) -> dict[int, int]:
        """player id -> lineup slot of a team on a scoring period (changes applied)."""
        lineup = dict(self._base_lineups[team_id])
        for c in self.changes:
            if c.team_id != team_id or c.sp > sp:
                continue
            if c.kind == "move":
                if c.drop is not None:
                    lineup.pop(c.drop, None)
                if c.add is not None:
                    lineup[c.add] = SLOT_BENCH
                if c.slots:  # a move to IR: the leaving player stays, in the IR slot
                    lineup.update({p: s for p, s in c.slots.items() if p in lineup})
            elif c.kind == "lineup" and c.slots:
                lineup.update({p: s for p, s in c.slots.items() if p in lineup})
        return lineup

    def roster_now(self, team_id: int) -> dict[int, int]:
        """Current roster (player id -> slot) of a team."""
        return self.lineup_on(team_id, self.today_sp)

    def owner_of(self, pid: int, sp: int | None = None) -> int:
        """Team id holding a player on a scoring period (0 = free agent)."""
        sp = self.today_sp if sp is None else sp
        return self._owner_map(sp).get(pid, 0)

    def _owner_map(self, sp: int) -> dict[int, int]:
        """player id -> team id of every rostered player on a scoring period (kept per set
        of changes: a move or lineup change is a new key)."""
        key = (sp, tuple(c.key() for c in self.changes))
        owners = self._owners.get(key)
        if owners is None:
            owners = {}
            for team in self.base["teams"]:
                tid = int(team["id"])
                for p in self.lineup_on(tid, sp):
                    owners.setdefault(p, tid)
            if len(self._owners) >= 16:
                self._owners.clear()
            self._owners[key] = owners
        return owners

    def team_ids(self) -> list[int]:
        """All team ids."""
        return [int(t["id"]) for t in self.base["teams"]]

    def injury_on(self, pid: int, sp: int) -> tuple[str, date | None]:
        """(injury status, expected return date) of a player on a scoring period."""
        for start, end, status in self.base["players"][str(pid)]["injuries"]:
            if start <= sp <= end:
                ret = self.calendar.date_for(end + 1) if status in OUT_STATUSES else None
                return status, ret
        return "ACTIVE", None

    # ------------------------------------------------------------------ changes

    def player_name(self, pid: int) -> str:
        """A player's full name ("player <id>" only for an id the league does not know)."""
        entry = self.base["players"].get(str(pid))
        return entry["player"]["fullName"] if entry else f"player {pid}"

    def team_name(self, team_id: int) -> str:
        """A team's name ("team <id>" only for an unknown id)."""
        team = next((t for t in self.base["teams"] if int(t["id"]) == int(team_id)), None)
        return team["name"] if team else f"team {team_id}"

    def apply_move(self, team_id: int, drop_player_id: int, add_player_id: int, *,
                   to_ir: bool = False) -> None:
        """Drop a rostered player and add a free agent (to the bench) as of today.
        to_ir=True: the leaving player goes to the IR slot instead of being released (he
        must be OUT and the IR slot free); the add needs no drop.

        All or nothing: a refusal or a failed save (DemoError, readable message naming
        players and teams, no paths) leaves memory and the state file unchanged."""
        if team_id not in self.team_ids():
            raise DemoError(f"no team with id {team_id}")
        roster = self.roster_now(team_id)
        team = self.team_name(team_id)
        if drop_player_id not in roster:
            raise DemoError(f"{self.player_name(drop_player_id)} is not on {team}")
        if to_ir:
            name = self.player_name(drop_player_id)
            if self.injury_on(drop_player_id, self.today_sp)[0] not in ("OUT", "INJURY_RESERVE"):
                raise DemoError(f"{name} is not OUT, so he cannot go to IR")
            counts = {int(k): int(v) for k, v in
                      self.settings["rosterSettings"]["lineupSlotCounts"].items()}
            if sum(1 for sl in roster.values() if sl == SLOT_IR) >= counts.get(SLOT_IR, 0):
                raise DemoError(f"{team}'s IR slot is not free")
        if str(add_player_id) not in self.base["players"]:
            raise DemoError(f"unknown player {add_player_id}")
        owner = self.owner_of(add_player_id)
        if owner:
            raise DemoError(f"{self.player_name(add_player_id)} is already on "
                            f"{self.team_name(owner)}")
        used, limit = self.acquisitions(team_id)
        if limit is not None and used >= limit:
            raise DemoError(f"{team} has used all {limit} acquisitions of matchup "
                            f"period {self.current_period}")
        if to_ir:
            self._commit(_Change("move", team_id, self.today_sp, None, add_player_id,
                                 slots={drop_player_id: SLOT_IR}))
            return
        self._commit(_Change("move", team_id, self.today_sp, drop_player_id, add_player_id))

    def acquisitions(self, team_id: int, period: int | None = None) -> tuple[int, int | None]:
        """(acquisitions used, limit or None) of a team in a matchup period (default current)."""
        period = self.current_period if period is None else period
        used = int(self.base["acquisitions"][str(team_id)].get(str(period), 0))
        used += sum(1 for c in self.changes if c.kind == "move" and c.via != "trade"
                    and c.team_id == team_id
                    and c.sp in self.period_sps[period])
        acq = self.settings["acquisitionSettings"]
        rate = acq.get("matchupAcquisitionLimit")
        if rate is None or rate < 0:
            return used, None
        days = len(self.period_sps[period])
        limit = round(rate * days) if acq.get("matchupLimitPerScoringPeriod") else int(rate)
        return used, limit

    def set_lineup(self, team_id: int, assignments: dict[int, int]) -> None:
        """Put players into lineup slots from today on ({player id: slot id}).

        Validates roster membership, eligibility (IR needs OUT/IR status) and slot counts.
        """
        if team_id not in self.team_ids():
            raise DemoError(f"no team with id {team_id}")
        roster = self.roster_now(team_id)
        new = dict(roster)
        for pid, slot in assignments.items():
            pid, slot = int(pid), int(slot)
            if pid not in roster:
                raise DemoError(f"{self.player_name(pid)} is not on {self.team_name(team_id)}")
            if slot not in self._eligible(pid):
                raise DemoError(f"{self.player_name(pid)} is not eligible at {slot_name(slot)}")
            if slot == SLOT_IR and self.injury_on(pid, self.today_sp)[0] not in ("OUT",
                                                                                 "INJURY_RESERVE"):
                raise DemoError(f"{self.player_name(pid)} is not OUT, so he cannot go to IR")
            new[pid] = slot
        counts = {int(k): int(v) for k, v in
                  self.settings["rosterSettings"]["lineupSlotCounts"].items()}
        for slot in set(new.values()):
            used = sum(1 for s in new.values() if s == slot)
            if slot != SLOT_BENCH and used > counts.get(slot, 0):
                raise DemoError(f"too many players in {slot_name(slot)} ({used} > "
                                f"{counts.get(slot, 0)})")
        self._commit(_Change("lineup", team_id, self.today_sp,
                             slots={int(k): int(v) for k, v in assignments.items()}))

    # ------------------------------------------------------------------ stats

    def _games_before(self, pid: int, first_sp: int, end_sp: int) -> list[tuple[int, int, dict]]:
        games = self.base["players"][str(pid)]["by_sp"].in_order()
        return [g for g in games if first_sp <= g[0] < end_sp]

    def _window_entry(self, stat_id: str, source: int, split: int,
                      games: list[dict[str, float]], *, per_game: dict[str, float] | None = None,
                      gp: int | None = None, totals: dict[str, float] | None = None
                      ) -> dict[str, Any]:
        """One stats window: the sum of `games` (or `totals`, their sum already made), or
        `per_game` averages over `gp` games (a projection)."""
        if per_game is not None:
            n = gp or 0
            avgs = dict(per_game)
            totals = {k: v * n for k, v in per_game.items()}
            for k in ("19", "20", "21"):
                totals[k] = per_game.get(k, 0.0)
        else:
            if totals is None:
                n = len(games)
                totals = _sum(games) if games else {}
            else:
                n = gp or 0
            avgs = {k: (v / n if k not in ("19", "20", "21") else v)
                    for k, v in totals.items()} if n else {}
        entry: dict[str, Any] = {
            "id": stat_id, "externalId": str(self.season) if split != 5 else stat_id[2:],
            "proTeamId": 0, "scoringPeriodId": 0, "seasonId": self.season,
            "statSourceId": source, "statSplitTypeId": split, "stats": totals,
            "averageStats": avgs,
        }
        if self.variant == "points" and n:
            applied = self._points(totals)
            entry["appliedTotal"] = round(applied, 1)
            entry["appliedAverage"] = applied / n
        return entry

    def _span_entry(self, pid: int, split: int, first_sp: int, end_sp: int) -> dict[str, Any]:
        """The actual-stats window of split `split` over a player's games in
        [first_sp, end_sp). It depends only on which games it covers, so it is kept by them
        for every date (shared between renders: read-only): a new date renders only the
        windows a game entered or left."""
        by_sp = self.base["players"][str(pid)]["by_sp"]
        i, j = by_sp.span(first_sp, end_sp)
        key = (pid, split, i, j)
        hit = self._windows.get(key)
        if hit is None:
            if len(self._windows) >= 65536:
                self._windows.clear()
            s = str(self.season)
            hit = self._windows[key] = self._window_entry(
                f"0{split}{s}", 0, split, [], totals=by_sp.totals(i, j) if j > i else {},
                gp=j - i)
        return hit

    def _projection_entry(self, pid: int) -> dict[str, Any] | None:
        """The season projection window (the player's whole recorded season per game): the
        same for every date (shared between renders: read-only). None without games."""
        if pid in self._projections:
            return self._projections[pid]
        by_sp = self.base["players"][str(pid)]["by_sp"]
        full = [st for _, (_, st) in by_sp.items()]
        entry = None
        if full:
            tot = _sum(full)
            per = {k: (v / len(full) if k not in ("19", "20", "21") else v) for k, v in tot.items()}
            entry = self._window_entry("10" + str(self.season), 1, 0, [], per_game=per,
                                       gp=len(full))
        self._projections[pid] = entry
        return entry

    def _stats_entries(self, pid: int, *, game_logs: bool, only_sp: int | None = None
                       ) -> list[dict[str, Any]]:
        today = self.today_sp
        if only_sp is not None:
            out = []
            for sp, gid, stats in self._games_before(pid, only_sp, min(only_sp + 1, today)):
                out.append(self._game_entry(sp, gid, stats))
            return out
        entries = [self._span_entry(pid, 0, 1, today)]
        for split, days in ((1, 7), (2, 15), (3, 30)):
            entries.append(self._span_entry(pid, split, today - days, today))
        projection = self._projection_entry(pid)
        if projection is not None:
            entries.append(projection)
        if game_logs:
            for sp, gid, stats in self._games_before(pid, 1, today):
                entries.append(self._game_entry(sp, gid, stats))
        return entries

    def _game_entry(self, sp: int, gid: int, stats: dict[str, float]) -> dict[str, Any]:
        e: dict[str, Any] = {
            "id": f"05{gid}", "externalId": str(gid), "proTeamId": 0, "scoringPeriodId": sp,
            "seasonId": self.season, "statSourceId": 0, "statSplitTypeId": 5, "stats": stats,
        }
        if self.variant == "points":
            e["appliedStats"] = {str(k): w * stats.get(str(k), 0.0) for k, w in self.weights.items()}
            e["appliedTotal"] = round(self._points(stats), 1)
        return e

    def _player_obj(self, pid: int, *, stats: str = "windows", sp: int | None = None
                    ) -> dict[str, Any]:
        """The `player` object of a pool entry (shared between renders: read-only)."""
        key = (pid, stats, sp)
        obj = self._player_objs.get(key)
        if obj is None and self._unseeded:
            self._seed_renders()
            obj = self._player_objs.get(key)
        if obj is None:
            obj = self._player_objs[key] = self._render_player_obj(pid, stats=stats, sp=sp)
        return obj

    def _from_disk(self, kind: str, name: str, render: Callable[[], bytes]) -> bytes:
        """A response of the unchanged league: from the disk cache, else rendered and
        written there. What is read is kept to fill the render caches when needed."""
        raw = _disk_read(name)
        if raw is not None and raw.startswith(b"{") and raw.endswith(b"}"):  # written whole
            self._unseeded.append((kind, raw))
            return raw
        raw = render()
        _disk_write(name, raw)
        return raw

    def _seed_renders(self) -> None:
        """Fill the matchup and player-object caches from the unchanged league's responses
        read from disk (the same objects a render of that state makes, key for key)."""
        pending, self._unseeded = self._unseeded, []
        for kind, raw in pending:
            data = json.loads(raw)
            entries = data.get("players") or []
            if kind == "league":
                # _schedule_json renders base["matchups"] in order; past and current
                # periods through _matchup_json, whose key has no changes in this state
                for (period, mid, home, away), m in zip(self.base["matchups"],
                                                       data["schedule"], strict=True):
                    if period <= self.current_period:
                        self._matchups.setdefault((period, mid, home, away, None, ()), m)
                entries = [e["playerPoolEntry"] for t in data["teams"]
                           for e in t["roster"]["entries"]]
            for entry in entries:
                self._player_objs.setdefault((int(entry["id"]), "windows", None),
                                             entry["player"])

    def _render_player_obj(self, pid: int, *, stats: str = "windows", sp: int | None = None
                           ) -> dict[str, Any]:
        # a shallow copy: only top-level keys are set, and rendered objects are read-only
        obj = dict(self.base["players"][str(pid)]["player"])
        status, ret = self.injury_on(pid, self.today_sp)
        obj["injuryStatus"] = status
        obj["injured"] = status in OUT_STATUSES
        if ret:
            obj["expectedReturnDate"] = ret.isoformat()
        if stats == "windows":
            obj["stats"] = self._stats_entries(pid, game_logs=False)
        elif stats == "card":
            obj["stats"] = self._stats_entries(pid, game_logs=True)
        elif stats == "day":
            obj["stats"] = self._stats_entries(pid, game_logs=False, only_sp=sp)
        return obj

    def _pool_entry(self, pid: int, *, stats: str = "windows", sp: int | None = None
                    ) -> dict[str, Any]:
        owner = self.owner_of(pid)
        if owner:
            status = "ONTEAM"
        elif self._on_waivers(pid):
            status = "WAIVERS"
        else:
            status = "FREEAGENT"
        entry = {"id": pid, "onTeamId": owner, "status": status, "lineupLocked": False,
                 "rosterLocked": False, "tradeLocked": False,
                 "player": self._player_obj(pid, stats=stats, sp=sp)}
        if status == "WAIVERS":
            entry["waiverProcessDate"] = int(
                (self.calendar.date_for(self.today_sp + 1).toordinal() - 719163) * 86400000
                + 11 * 3600000)
        return entry

    def _on_waivers(self, pid: int) -> bool:
        """The recorded waiver list is the default today's: those claims process the next
        day, so from then on (a later demo date) they are free agents; a dropped player is
        on waivers for two days."""
        default_sp = self.calendar.scoring_period_for(
            date.fromisoformat(self.base["default_today"]))
        return (pid in self.base["waivers"] and self.today_sp <= default_sp) or \
            self._dropped_recently(pid)

    def _dropped_recently(self, pid: int) -> bool:
        return any(c.kind == "move" and c.via != "trade" and c.drop == pid
                   and self.today_sp - c.sp < 2 for c in self.changes)

    # ------------------------------------------------------------------ matchups

    def _team_day(self, team_id: int, sp: int) -> tuple[float, dict[str, float]]:
        """(fantasy points, summed stats) of a team's starters on a played day (kept: a
        played day never changes); nothing for today and later."""
        if sp >= self.today_sp:
            return 0.0, {}
        key = (team_id, sp, tuple(c.key() for c in self.changes
                                  if c.team_id == team_id and c.sp <= sp))
        hit = self._team_days.get(key)
        if hit is None:
            if len(self._team_days) >= 16384:
                self._team_days.clear()
            hit = self._team_days[key] = self._render_team_day(team_id, sp)
        return hit

    def _render_team_day(self, team_id: int, sp: int) -> tuple[float, dict[str, float]]:
        pts = 0.0
        games = []
        for pid, slot in self.lineup_on(team_id, sp).items():
            if slot not in STARTING_SLOTS:
                continue
            g = self.base["players"][str(pid)]["by_sp"].get(sp)
            if g:
                games.append(g[1])
                pts += self._points(g[1])
        return pts, (_sum(games) if games else {})

    @functools.cached_property
    def _categories(self) -> list[tuple[int, bool]]:
        return [(int(i["statId"]), bool(i["isReverseItem"]))
                for i in self.settings["scoringSettings"]["scoringItems"]]

    def _matchup_json(self, period: int, mid: int, home: int, away: int,
                      box_sp: int | None = None) -> dict[str, Any]:
        """One matchup as ESPN renders it (shared between renders: read-only). It depends on
        the two teams' changes up to its last day only, so it is kept per those changes: a
        move today re-renders the current matchup of its team. A box score's players say
        who owns them today: it is kept per all changes."""
        last = self.period_sps[period][-1]
        relevant = tuple(c.key() for c in self.changes
                         if box_sp is not None or (c.team_id in (home, away) and c.sp <= last))
        key = (period, mid, home, away, box_sp, relevant)
        final = box_sp is None and last < self.today_sp
        if final:
            hit = self._final_matchups.get(key)
            if hit is not None:
                return hit
        hit = self._matchups.get(key)
        if hit is None and self._unseeded:
            self._seed_renders()
            hit = self._matchups.get(key)
        if hit is None:
            if len(self._matchups) >= 4096:
                self._matchups.clear()
            hit = self._matchups[key] = self._render_matchup(period, mid, home, away, box_sp)
        if final:
            if len(self._final_matchups) >= 4096:
                self._final_matchups.clear()
            self._final_matchups[key] = hit
        return hit

    def _render_matchup(self, period: int, mid: int, home: int, away: int,
                        box_sp: int | None = None) -> dict[str, Any]:
        sps = self.period_sps[period]
        sides = {}
        totals = {}
        for tid in (home, away):
            by_day = {sp: self._team_day(tid, sp) for sp in sps if sp <= self.today_sp}
            pts = sum(v[0] for v in by_day.values())
            cat = _sum([v[1] for v in by_day.values() if v[1]]) if any(
                v[1] for v in by_day.values()) else {}
            totals[tid] = (pts, cat)
            side: dict[str, Any] = {"teamId": tid, "tiebreak": 0.0, "adjustment": 0.0}
            if self.variant == "points":
                side["totalPoints"] = round(pts, 1)
                side["totalPointsLive"] = round(pts, 1)
                side["pointsByScoringPeriod"] = {str(sp): round(v[0], 1) for sp, v in by_day.items()}
            else:
                side["totalPoints"] = 0.0
            sides[tid] = side
        finished = sps[-1] < self.today_sp
        winner = "UNDECIDED"
        for tid, opp in ((home, away), (away, home)):
            cum: dict[str, Any] = {"wins": 0, "losses": 0, "ties": 0, "statBySlot": None,
                                   "scoreByStat": {}}
            mine, theirs = totals[tid][1], totals[opp][1]
            if self.variant == "categories":
                cats = dict(self._categories)
                for sid in sorted(set(_CAT_SUM_STATS) | set(cats)):
                    a, b = mine.get(str(sid), 0.0), theirs.get(str(sid), 0.0)
                    result = None
                    if sid in cats and (mine or theirs):
                        better = a < b if cats[sid] else a > b
                        worse = a > b if cats[sid] else a < b
                        result = "WIN" if better else "LOSS" if worse else "TIE"
                        cum[{"WIN": "wins", "LOSS": "losses", "TIE": "ties"}[result]] += 1
                    cum["scoreByStat"][str(sid)] = {"score": round(a, 6), "result": result,
                                                    "rank": 0.0, "ineligible": False}
            else:
                for sid in self.weights:
                    cum["scoreByStat"][str(sid)] = {"score": mine.get(str(sid), 0.0),
                                                    "result": None, "rank": 0.0,
                                                    "ineligible": False}
            sides[tid]["cumulativeScore"] = cum
        if finished:
            if self.variant == "points":
                a, b = totals[home][0], totals[away][0]
            else:
                a, b = sides[home]["cumulativeScore"]["wins"], sides[away]["cumulativeScore"]["wins"]
            winner = "HOME" if a > b else "AWAY" if b > a else "TIE"
        if box_sp is not None:
            for tid in (home, away):
                entries = []
                day_total = 0.0
                for pid, slot in sorted(self.lineup_on(tid, box_sp).items(), key=lambda x: x[1]):
                    pe = self._pool_entry(pid, stats="day", sp=box_sp)
                    g = self.base["players"][str(pid)]["by_sp"].get(box_sp)
                    applied = self._points(g[1]) if g and box_sp < self.today_sp else 0.0
                    if slot in STARTING_SLOTS:
                        day_total += applied
                    pe["appliedStatTotal"] = round(applied, 1)
                    entries.append({"lineupSlotId": slot, "playerId": pid,
                                    "injuryStatus": "NORMAL", "status": "NORMAL",
                                    "playerPoolEntry": pe})
                sides[tid]["rosterForCurrentScoringPeriod"] = {
                    "appliedStatTotal": round(day_total, 1), "entries": entries}
        return {"id": mid, "matchupPeriodId": period, "playoffTierType": "NONE",
                "winner": winner, "home": sides[home], "away": sides[away]}

    def _schedule_json(self, periods: Iterable[int] | None = None,
                       box_sp: int | None = None) -> list[dict[str, Any]]:
        wanted = set(periods) if periods is not None else None
        out = []
        for period, mid, home, away in self.base["matchups"]:
            if wanted is not None and period not in wanted:
                continue
            if period > self.current_period and box_sp is None:
                out.append({"id": mid, "matchupPeriodId": period, "playoffTierType": "NONE",
                            "winner": "UNDECIDED",
                            "home": {"teamId": home, "totalPoints": 0.0},
                            "away": {"teamId": away, "totalPoints": 0.0}})
                continue
            out.append(self._matchup_json(period, mid, home, away, box_sp))
        return out

    # ------------------------------------------------------------------ responses

    def _header(self) -> dict[str, Any]:
        return {"gameId": 3, "id": self.league_id, "scoringPeriodId": self.today_sp,
                "seasonId": self.season, "segmentId": 0}

    def league_response_bytes(self) -> bytes:
        """`league_response()` as the transport sends it. The unchanged league's (no move,
        no lineup change: every demo data folder's first state) is kept on disk keyed by
        `_render_key`, the variant and today, so a fresh process does not render it again."""
        if self.changes:
            return self._league_bytes()
        return self._from_disk("league", f"demo-league-{self._state_tag()}.json",
                               self._league_bytes)

    def _league_bytes(self) -> bytes:
        body = self.league_response()
        return _dumps_spliced(body, [(e["playerPoolEntry"], "player") for t in body["teams"]
                                     for e in t["roster"]["entries"]], self._player_json)

    def _free_agents_bytes(self, flt: dict[str, Any]) -> bytes:
        body = self.free_agents_response(flt)
        return _dumps_spliced(body, [(e, "player") for e in body["players"]],
                              self._player_json)

    def _player_json(self, obj: dict[str, Any]) -> bytes:
        """The JSON of a rendered player object, made once per object: a new date renders
        new objects, and until then the league after each change and every free-agent
        list share them."""
        hit = self._player_jsons.get(id(obj))
        if hit is None or hit[0] is not obj:
            if len(self._player_jsons) >= 8192:
                self._player_jsons.clear()
            hit = self._player_jsons[id(obj)] = (obj, _dumps(obj))
        return hit[1]

    def _state_tag(self) -> str:
        """The unchanged league's disk cache name part: data and code, variant, today."""
        return (f"{_render_key()}-{self.variant}-{self.today.isoformat()}-{self.today_sp}-"
                f"{self.current_period}")

    def free_agents_response_bytes(self, flt: dict[str, Any]) -> bytes:
        """`free_agents_response(flt)` as the transport sends it; the unchanged league's
        is kept on disk like `league_response_bytes` (per filter)."""
        if self.changes:
            return self._free_agents_bytes(flt)
        digest = hashlib.sha1(json.dumps(flt, sort_keys=True).encode()).hexdigest()[:12]
        return self._from_disk("free_agents", f"demo-fa-{self._state_tag()}-{digest}.json",
                               lambda: self._free_agents_bytes(flt))

    def league_response(self) -> dict[str, Any]:
        """`?view=mTeam&view=mRoster&view=mMatchup&view=mSettings&view=mStandings`."""
        schedule = self._schedule_json()
        records: dict[int, dict[str, Any]] = {tid: {"wins": 0, "losses": 0, "ties": 0, "pointsFor": 0.0,
                         "pointsAgainst": 0.0} for tid in self.team_ids()}
        for m in schedule:
            if m["matchupPeriodId"] >= self.current_period:
                continue
            h, a = m["home"], m["away"]
            for me, opp in ((h, a), (a, h)):
                r = records[me["teamId"]]
                if self.variant == "points":
                    r["pointsFor"] += me["totalPoints"]
                    r["pointsAgainst"] += opp["totalPoints"]
                    if me["totalPoints"] > opp["totalPoints"]:
                        r["wins"] += 1
                    elif me["totalPoints"] < opp["totalPoints"]:
                        r["losses"] += 1
                    else:
                        r["ties"] += 1
                else:
                    c = me["cumulativeScore"]
                    r["wins"] += c["wins"]
                    r["losses"] += c["losses"]
                    r["ties"] += c["ties"]
        order = sorted(records, key=lambda t: (-(records[t]["wins"] + records[t]["ties"] / 2),
                                               -records[t]["pointsFor"], t))
        teams = []
        for team in self.base["teams"]:
            tid = int(team["id"])
            r = records[tid]
            games = r["wins"] + r["losses"] + r["ties"]
            r["percentage"] = (r["wins"] + r["ties"] / 2) / games if games else 0.0
            r["gamesBack"] = 0.0
            r["streakLength"] = 0
            r["streakType"] = "NONE"
            acq = {int(k): v for k, v in self.base["acquisitions"][str(tid)].items()
                   if int(k) <= self.current_period}
            moves = [c for c in self.changes if c.kind == "move" and c.team_id == tid
                     and c.via != "trade"]
            for c in moves:
                p = next(p for p, sps in self.period_sps.items() if c.sp in sps)
                acq[p] = acq.get(p, 0) + 1
            lineup = self.roster_now(tid)
            teams.append({
                "id": tid, "abbrev": team["abbrev"], "name": team["name"],
                "owners": team["owners"], "primaryOwner": team["primaryOwner"],
                "divisionId": team["divisionId"], "playoffSeed": order.index(tid) + 1,
                "rankCalculatedFinal": 0, "currentProjectedRank": order.index(tid) + 1,
                # ESPN's waiverRank (1 = first claim): the demo orders waivers by reverse
                # standings, the worst record first
                "waiverRank": len(order) - order.index(tid),
                "record": {"overall": r},
                "transactionCounter": {
                    "acquisitions": sum(acq.values()), "drops": sum(acq.values()),
                    "trades": sum(1 for c in self.changes if c.team_id == tid
                                  and c.via == "trade"), "moveToActive": 0, "moveToIR": 0, "acquisitionBudgetSpent": 0,
                    "matchupAcquisitionTotals": {str(k): v for k, v in acq.items() if v},
                },
                "roster": {"entries": [
                    {"lineupSlotId": slot, "playerId": pid, "injuryStatus": "NORMAL",
                     "status": "NORMAL", "acquisitionType": "DRAFT",
                     "playerPoolEntry": self._pool_entry(pid)}
                    for pid, slot in sorted(lineup.items(), key=lambda x: (x[1], x[0]))
                ]},
            })
        status = dict(self.base["status"])
        status.update({"currentMatchupPeriod": self.current_period,
                       "latestScoringPeriod": self.today_sp,
                       "transactionScoringPeriod": self.today_sp})
        return {**self._header(), "members": self.base["members"], "settings": self.settings,
                "status": status, "teams": teams, "schedule": schedule}

    def box_score_response(self, matchup_periods: list[int], scoring_period: int
                           ) -> dict[str, Any]:
        """`?view=mMatchupScore&view=mScoreboard&scoringPeriodId=N` + period filter."""
        return {**self._header(), "scoringPeriodId": scoring_period,
                "schedule": self._schedule_json(matchup_periods, box_sp=scoring_period)}

    def free_agents_response(self, flt: dict[str, Any]) -> dict[str, Any]:
        """`kona_player_info` with filterStatus / filterSlotIds / limit."""
        p = flt.get("players", {})
        statuses = set((p.get("filterStatus") or {}).get("value") or ["FREEAGENT", "WAIVERS"])
        slots = set((p.get("filterSlotIds") or {}).get("value") or [])
        limit = int(p.get("limit") or 50)
        rostered = {pid for tid in self.team_ids() for pid in self.roster_now(tid)}
        out = []
        cands = sorted(self.base["players"].values(),
                       key=lambda e: -e["player"]["ownership"]["percentOwned"])
        for e in cands:
            pid = int(e["player"]["id"])
            if pid in rostered:
                continue
            if slots and not slots & set(e["player"]["eligibleSlots"]):
                continue
            entry = self._pool_entry(pid)
            if entry["status"] not in statuses:
                continue
            out.append(entry)
            if len(out) >= limit:
                break
        return {"players": out}

    def player_cards_response(self, flt: dict[str, Any]) -> dict[str, Any]:
        """`kona_playercard` for filterIds: injury + windows + per-game logs."""
        ids = (flt.get("players", {}).get("filterIds") or {}).get("value") or []
        return {"players": [self._pool_entry(int(i), stats="card") for i in ids
                            if str(int(i)) in self.base["players"]]}

    def players_response(self) -> list[dict[str, Any]]:
        """`players_wl`: the player universe (bare players, no stats)."""
        out = []
        for e in self.base["players"].values():
            obj = dict(e["player"])
            out.append(obj)
        return out

    def activity_response(self, flt: dict[str, Any]) -> dict[str, Any]:
        """`kona_league_communication`: the moves made in this demo state, newest first."""
        limit = int((flt.get("topics") or {}).get("limit") or 25)
        topics = []
        # a move's id is its place among the changes (they are only ever appended) with
        # its day, team and player: stable while the state lives, new after a reset
        moves = [(k, c) for k, c in enumerate(self.changes) if c.kind == "move"]
        for k, c in reversed(moves):
            when = int((self.calendar.date_for(c.sp).toordinal() - 719163) * 86400000
                       + 17 * 3600000)
            if c.via == "trade":  # one topic per trade: each side's player leaving it
                first = next(j for j, d in moves if d.via == "trade" and d.sp == c.sp)
                if k != first:
                    continue
                sides = [d for _, d in moves if d.via == "trade" and d.sp == c.sp]
                topics.append({"id": f"demo-trade-{c.sp}-{k}", "type": "ACTIVITY_TRANSACTIONS",
                               "date": when, "messages": [
                                   {"messageTypeId": 244, "targetId": d.drop, "from": d.team_id,
                                    "to": next(e.team_id for e in sides if e.add == d.drop),
                                    "date": when} for d in sides]})
                continue
            add_type = 180 if c.via == "waiver" else 178
            msgs = [{"messageTypeId": add_type, "targetId": c.add, "to": c.team_id,
                     "date": when}]
            if c.drop is not None:  # a move to IR releases nobody
                msgs.append({"messageTypeId": 179, "targetId": c.drop, "to": c.team_id,
                             "date": when})
            topics.append({"id": f"demo-{c.sp}-{k}-{c.team_id}-{c.add}",
                           "type": "ACTIVITY_TRANSACTIONS", "date": when,
                           "messages": msgs})
        return {"topics": topics[:limit]}

    def transport(self) -> DemoTransport:
        """An httpx transport serving this league."""
        return DemoTransport(self)


class DemoTransport(httpx.AsyncBaseTransport):
    """Serves a `DemoLeague` like ESPN's fba API: reads (routing by path, view, filter) and
    the transaction POST with ESPN's rules (`fantasy.demo.transactions`)."""

    def __init__(self, league: DemoLeague) -> None:
        self.league = league
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        from fantasy.demo.transactions import writes_for
        writes_for(self.league).process_claims()  # waivers process when their day comes
        if request.method == "POST":
            lg = self.league
            want = (f"/games/fba/seasons/{lg.season}/segments/0/leagues/{lg.league_id}"
                    "/transactions")
            if not request.url.path.rstrip("/").endswith(want):
                return httpx.Response(404, json={"messages": ["not found"]})
            return await writes_for(lg).post(request)
        views = request.url.params.get_list("view")
        if views in (["mRoster"], ["mTransactions2"]):  # a writer's read back
            sp = request.url.params.get("scoringPeriodId")
            dw = writes_for(self.league)
            body = (dw.roster_response(int(sp) if sp else self.league.today_sp)
                    if views == ["mRoster"] else
                    dw.transactions_response(int(sp) if sp else None))
            return httpx.Response(200, content=_dumps(body),
                                  headers={"content-type": "application/json"})
        try:
            body = self._route(request)
        except DemoError as exc:
            return httpx.Response(400, json={"messages": [str(exc)]})
        if body is None:
            return httpx.Response(404, json={"messages": ["not found"]})
        content = body if isinstance(body, bytes) else _dumps(body)
        return httpx.Response(200, content=content,
                              headers={"content-type": "application/json"})

    def _route(self, request: httpx.Request) -> Any:
        lg = self.league
        path = request.url.path.rstrip("/")
        views = request.url.params.get_list("view")
        raw = request.headers.get("x-fantasy-filter")
        flt = json.loads(raw) if raw else {}
        marker = "/games/fba/seasons/"
        if marker not in path:
            return None
        rest = path.split(marker, 1)[1].split("/")
        if rest[0] != str(lg.season):
            return None
        if len(rest) == 1:
            return load_pro_schedule() if "proTeamSchedules_wl" in views else None
        if rest[1:] == ["players"]:
            return lg.players_response()
        if len(rest) < 5 or rest[1:4] != ["segments", "0", "leagues"] or rest[4] != str(lg.league_id):
            return None
        if rest[5:] == ["communication"]:
            return lg.activity_response(flt)
        if rest[5:]:
            return None
        if "mMatchupScore" in views or "mScoreboard" in views:
            periods = ((flt.get("schedule") or {}).get("filterMatchupPeriodIds") or {}).get(
                "value") or [lg.current_period]
            sp = int(request.url.params.get("scoringPeriodId") or lg.today_sp)
            return lg.box_score_response([int(p) for p in periods], sp)
        if "kona_player_info" in views:
            return lg.free_agents_response_bytes(flt)
        if "kona_playercard" in views:
            return lg.player_cards_response(flt)
        if views:
            return lg.league_response_bytes()
        return None
