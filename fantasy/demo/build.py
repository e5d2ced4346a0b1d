"""Build the embedded demo league data (run once; output is committed).

    python -m fantasy.demo.build [--fixtures tests/data] [--seed 2023]

Inputs (real, recorded ESPN data, see tests/data / shared/espn-fixtures):
- league_players_2023.json: the 975 real 2022-23 players (names, teams, eligible slots,
  percentOwned);
- league_2023_pro_schedule.json: the real NBA schedule (copied verbatim, gzipped);
- league_2023_playerCard.json: Jalen Brunson's real card (his real 2023 game logs are used);
- league_2023_draft.json: real league settings (points scoring items, lineup slots,
  matchup periods, acquisition settings).

Generated with a seeded numpy Generator: which players are in the pool, a snake draft
into 12 teams, per-player skill profiles (from position and ownership rank), per-game box
scores on the player's real NBA game dates, injury spells (OUT / DAY_TO_DAY /
QUESTIONABLE / PROBABLE), waiver flags and acquisitions used. The output
`recorded/demo_league.json.gz` stores ESPN-shaped player/team/member/settings objects plus a
compact game-log array per player (`GAME_FIELDS`); `fantasy.demo.league` expands it into
ESPN responses for any "today".
"""

from __future__ import annotations

import argparse
import gzip
import json
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from fantasy.schedule import espn_ms_to_date

HERE = Path(__file__).parent
DATA_DIR = HERE / "recorded"
SEASON = 2023
DEMO_LEAGUE_ID = 20230125
DEFAULT_TODAY = date(2023, 1, 25)
N_TEAMS = 12
ROSTER_SIZE = 13
BRUNSON = 3934672

#: Compact per-game record: ESPN stat ids of each field after [sp, gameId].
GAME_FIELDS = ["min", "fgm", "fga", "ftm", "fta", "3pm", "3pa", "oreb", "dreb", "ast", "stl",
               "blk", "to", "pf"]
_ESPN_IDS = {"min": 40, "fgm": 13, "fga": 14, "ftm": 15, "fta": 16, "3pm": 17, "3pa": 18,
             "oreb": 4, "dreb": 5, "ast": 3, "stl": 2, "blk": 1, "to": 11, "pf": 9}

TEAMS = [
    (1, "HOOP", "Hoop Dreamers", "Alex Rivera"),
    (2, "SPLA", "Splash Bros Inc", "Jordan Lee"),
    (3, "GLAS", "Glass Cleaners", "Sam Patel"),
    (4, "FBF", "Fast Break Fam", "Chris Novak"),
    (5, "PAIN", "Paint Protectors", "Taylor Brooks"),
    (6, "TDT", "Triple Double Trouble", "Morgan Chen"),
    (7, "MOB", "Bench Mob", "Riley Okafor"),
    (8, "OOP", "Alley-Oop Academy", "Casey Nguyen"),
    (9, "FCP", "Full Court Press", "Jamie Fischer"),
    (10, "BUZZ", "Buzzer Beaters", "Drew Santos"),
    (11, "PNR", "Pick and Roll Co", "Avery Kim"),
    (12, "ZONE", "Zone Defense", "Quinn Murphy"),
]

# per-36 profile by defaultPositionId: ast, reb, stl, blk, 3pa share, 2p%, 3p%, ft%, to, fta/fga
PROFILES = {
    1: (7.0, 4.6, 1.4, 0.3, 0.42, 0.50, 0.36, 0.83, 2.8, 0.26),
    2: (4.2, 4.8, 1.2, 0.4, 0.45, 0.50, 0.37, 0.82, 2.0, 0.24),
    3: (3.2, 6.6, 1.1, 0.6, 0.38, 0.52, 0.36, 0.78, 1.8, 0.25),
    4: (2.6, 8.6, 0.9, 1.0, 0.28, 0.54, 0.35, 0.75, 1.7, 0.28),
    5: (2.3, 11.6, 0.8, 1.8, 0.08, 0.60, 0.32, 0.69, 2.0, 0.36),
}


def _load(fixtures: Path, name: str) -> Any:
    return json.loads((fixtures / name).read_text())


def _games_by_team(schedule: dict[str, Any]) -> dict[int, list[tuple[int, int]]]:
    out: dict[int, list[tuple[int, int]]] = {}
    for t in schedule["settings"]["proTeams"]:
        games = []
        for sp, gl in t.get("proGamesByScoringPeriod", {}).items():
            for g in gl:
                games.append((int(g.get("scoringPeriodId") or sp), int(g["id"])))
        out[int(t["id"])] = sorted(games)
    return out


def _gen_game(rng: np.random.Generator, prof: dict[str, float], minutes_scale: float = 1.0
              ) -> list[int]:
    mins = max(6.0, rng.normal(prof["min"], 4.0) * minutes_scale)
    s = mins / 36.0
    fga = int(rng.poisson(prof["fga36"] * s))
    tpa = int(rng.binomial(fga, prof["share3"]))
    tpm = int(rng.binomial(tpa, prof["p3"]))
    twm = int(rng.binomial(fga - tpa, prof["p2"]))
    fta = int(rng.poisson(prof["fga36"] * prof["ftr"] * s))
    ftm = int(rng.binomial(fta, prof["ft"]))
    reb = int(rng.poisson(prof["reb36"] * s))
    oreb = int(rng.binomial(reb, 0.24))
    return [round(mins), twm + tpm, fga, ftm, fta, tpm, tpa, oreb, reb - oreb,
            int(rng.poisson(prof["ast36"] * s)), int(rng.poisson(prof["stl36"] * s)),
            int(rng.poisson(prof["blk36"] * s)), int(rng.poisson(prof["to36"] * s)),
            int(rng.poisson(2.6 * s))]


def _profile(rng: np.random.Generator, pos: int, q: float) -> dict[str, float]:
    ast, reb, stl, blk, share3, p2, p3, ft, to, ftr = PROFILES.get(pos, PROFILES[3])
    jit = lambda: float(np.exp(rng.normal(0, 0.18)))  # noqa: E731
    pts36 = (15.0 + 13.0 * q) * jit()
    p2 = min(0.68, p2 * jit() ** 0.3)
    p3 = min(0.45, p3 * jit() ** 0.3)
    ft = min(0.93, ft * jit() ** 0.3)
    per_fga = 2 * p2 * (1 - share3) + 3 * p3 * share3 + ftr * ft
    return {
        "min": 13.0 + 22.0 * q ** 0.8 + rng.normal(0, 1.5),
        "fga36": pts36 / per_fga, "share3": share3, "p2": p2, "p3": p3, "ft": ft, "ftr": ftr,
        "ast36": ast * jit() * (0.8 + 0.4 * q), "reb36": reb * jit(), "stl36": stl * jit(),
        "blk36": blk * jit(), "to36": to * jit() * (0.8 + 0.4 * q),
    }


def _brunson_games(card: dict[str, Any]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for s in card["players"][0]["player"]["stats"]:
        if s["statSplitTypeId"] != 5 or s["seasonId"] != SEASON or not s["stats"].get("42"):
            continue
        st = s["stats"]
        row = [int(st.get(str(_ESPN_IDS[f]), 0)) for f in GAME_FIELDS]
        out[int(s["scoringPeriodId"])] = [int(s["scoringPeriodId"]), int(s["externalId"])] + row
    return out


def build(fixtures: Path, seed: int = 2023, out_dir: Path = DATA_DIR) -> Path:
    """Generate the demo league from the real fixtures; returns the written file."""
    rng = np.random.default_rng(seed)
    players_all = _load(fixtures, "league_players_2023.json")
    schedule = _load(fixtures, "league_2023_pro_schedule.json")
    card = _load(fixtures, "league_2023_playerCard.json")
    draft = _load(fixtures, "league_2023_draft.json")
    games_by_team = _games_by_team(schedule)

    pool = sorted((p for p in players_all if p["proTeamId"] != 0),
                  key=lambda p: -p["ownership"]["percentOwned"])[:330]
    n = len(pool)
    quality = {p["id"]: 1.0 - i / n for i, p in enumerate(pool)}
    profiles = {p["id"]: _profile(rng, p["defaultPositionId"], quality[p["id"]]) for p in pool}

    # ---------------------------------------------------------------- draft (snake)
    by_id = {p["id"]: p for p in pool}
    value = {pid: quality[pid] + rng.normal(0, 0.03) for pid in by_id}
    value[BRUNSON] = 10.0  # Brunson goes to team 1 (his real card says onTeamId 1)
    available = sorted(by_id, key=lambda pid: -value[pid])
    rosters: dict[int, list[int]] = {t[0]: [] for t in TEAMS}
    order = [t[0] for t in TEAMS]
    for rnd in range(ROSTER_SIZE):
        for tid in order if rnd % 2 == 0 else list(reversed(order)):
            have = [by_id[x]["defaultPositionId"] for x in rosters[tid]]
            pick = None
            for pid in available:
                pos = by_id[pid]["defaultPositionId"]
                if have.count(pos) < 3 or rnd >= ROSTER_SIZE - 2:
                    pick = pid
                    break
            pick = pick or available[0]
            available.remove(pick)
            rosters[tid].append(pick)

    # ---------------------------------------------------------------- injuries
    final_sp = 175
    sched_anchor = min(espn_ms_to_date(g["date"]).toordinal() - int(g["scoringPeriodId"]) + 1
                       for t in schedule["settings"]["proTeams"]
                       for gl in t["proGamesByScoringPeriod"].values() for g in gl)
    today_sp = DEFAULT_TODAY.toordinal() - sched_anchor + 1
    injuries: dict[int, list[list[Any]]] = {}
    for pid in by_id:
        if pid == BRUNSON:
            continue
        for _ in range(int(rng.integers(0, 3))):
            start = int(rng.integers(5, final_sp - 5))
            if rng.random() < 0.45:
                end, kind = start + int(rng.integers(5, 21)), "OUT"
            else:
                end, kind = start + int(rng.integers(0, 4)), "DAY_TO_DAY"
            if not (start - 3 <= today_sp <= end + 3):
                injuries.setdefault(pid, []).append([start, end, kind])
    # forced spells so the default "today" shows every kind of status
    rostered = [pid for tid in rosters for pid in rosters[tid]]
    fas = [pid for pid in available]
    t1 = [pid for pid in rosters[1] if pid != BRUNSON]
    forced: list[tuple[int, list[Any]]] = [
        (t1[3], [today_sp - 6, today_sp + 9, "OUT"]),
        (t1[5], [today_sp - 1, today_sp + 1, "DAY_TO_DAY"]),
        (t1[8], [today_sp, today_sp, "QUESTIONABLE"]),
    ]
    others = [pid for pid in rostered if pid not in rosters[1]]
    picks = rng.choice(len(others), size=14, replace=False)
    for k, i in enumerate(picks):
        pid = others[int(i)]
        if k < 6:
            forced.append((pid, [today_sp - int(rng.integers(1, 10)),
                                 today_sp + int(rng.integers(3, 20)), "OUT"]))
        elif k < 11:
            forced.append((pid, [today_sp - int(rng.integers(0, 3)),
                                 today_sp + int(rng.integers(0, 3)), "DAY_TO_DAY"]))
        else:
            forced.append((pid, [today_sp, today_sp, "QUESTIONABLE" if k % 2 else "PROBABLE"]))
    fa_picks = rng.choice(len(fas[:80]), size=6, replace=False)
    for k, i in enumerate(fa_picks):
        pid = fas[int(i)]
        if k < 3:
            forced.append((pid, [today_sp - 5, today_sp + 6 + 3 * k, "OUT"]))
        else:
            forced.append((pid, [today_sp - 1, today_sp + 1, "DAY_TO_DAY"]))
    for pid, spell in forced:
        injuries.setdefault(pid, []).append(spell)

    # ---------------------------------------------------------------- game logs
    brunson = _brunson_games(card)
    logs: dict[int, list[list[int]]] = {}
    for pid, p in by_id.items():
        spells = injuries.get(pid, [])
        rows = []
        for sp, gid in games_by_team.get(p["proTeamId"], []):
            if pid == BRUNSON and sp in brunson:
                rows.append(brunson[sp])
                continue
            if pid == BRUNSON and sp <= max(brunson):
                continue  # a real DNP
            status = next((s[2] for s in spells if s[0] <= sp <= s[1]), None)
            if status == "OUT":
                continue
            miss = {"DAY_TO_DAY": 0.5, "QUESTIONABLE": 0.3, "PROBABLE": 0.05}.get(status or "", 0.04)
            if rng.random() < miss:
                continue
            rows.append([sp, gid] + _gen_game(rng, profiles[pid]))
        logs[pid] = rows

    # ---------------------------------------------------------------- settings
    base_settings = draft["settings"]
    pts_settings = json.loads(json.dumps(base_settings))
    pts_settings["name"] = "FanVise Demo League (Points)"
    pts_settings["size"] = N_TEAMS
    pts_settings["isPublic"] = False
    pts_settings["scheduleSettings"]["divisions"] = [{"id": 0, "name": "East", "size": 6},
                                                     {"id": 1, "name": "West", "size": 6}]
    pts_settings["rosterSettings"]["positionLimits"] = {"0": 0, "1": -1, "2": -1, "3": -1,
                                                        "4": -1, "5": 4}
    cat_settings = json.loads(json.dumps(pts_settings))
    cat_settings["name"] = "FanVise Demo League (9-Cat)"
    cat_settings["scoringSettings"]["scoringType"] = "H2H_CATEGORY"
    cat_settings["scoringSettings"]["scoringItems"] = [
        {"isReverseItem": sid == 11, "leagueRanking": 0.0, "leagueTotal": 0.0, "points": 0.0,
         "pointsOverrides": {}, "statId": sid}
        for sid in (0, 6, 3, 2, 1, 17, 19, 20, 11)
    ]
    cat_settings["acquisitionSettings"]["matchupAcquisitionLimit"] = 4.0
    cat_settings["acquisitionSettings"]["matchupLimitPerScoringPeriod"] = False

    # ---------------------------------------------------------------- league schedule
    ids = [t[0] for t in TEAMS]
    matchups: list[list[int]] = []
    mid = 1
    rot = ids[1:]
    for period in range(1, base_settings["scheduleSettings"]["matchupPeriodCount"] + 1):
        circle = [ids[0]] + rot
        for i in range(N_TEAMS // 2):
            a, b = circle[i], circle[N_TEAMS - 1 - i]
            home, away = (a, b) if (period + i) % 2 else (b, a)
            matchups.append([period, mid, home, away])
            mid += 1
        rot = rot[-1:] + rot[:-1]

    members = [{"id": f"{{DEMO-MEMBER-{tid:02d}}}", "displayName": owner,
                "firstName": owner.split()[0], "lastName": owner.split()[-1]}
               for tid, _, _, owner in TEAMS]
    teams = [{"id": tid, "abbrev": ab, "name": name, "owners": [f"{{DEMO-MEMBER-{tid:02d}}}"],
              "primaryOwner": f"{{DEMO-MEMBER-{tid:02d}}}", "divisionId": 0 if tid <= 6 else 1,
              "roster": rosters[tid]} for tid, ab, name, _ in TEAMS]
    acquisitions = {str(tid): {str(p): int(rng.integers(0, 3)) for p in range(1, 16)}
                    for tid in ids}
    acquisitions["1"]["15"] = 2

    players_out: dict[str, Any] = {}
    for pid, p in by_id.items():
        prof = profiles[pid]
        obj = {k: p[k] for k in ("id", "fullName", "firstName", "lastName", "proTeamId",
                                 "defaultPositionId", "eligibleSlots", "droppable")}
        obj["ownership"] = {"percentOwned": p["ownership"]["percentOwned"],
                            "percentStarted": round(p["ownership"]["percentOwned"] * 0.8, 3)}
        obj["active"] = True
        players_out[str(pid)] = {"player": obj, "injuries": injuries.get(pid, []),
                                 "games": logs[pid], "expected_minutes": round(prof["min"], 1)}
    waivers = [pid for pid in fas[:120] if rng.random() < 0.08]

    data = {
        "season": SEASON,
        "league_id": DEMO_LEAGUE_ID,
        "default_today": DEFAULT_TODAY.isoformat(),
        "seed": seed,
        "game_fields": GAME_FIELDS,
        "members": members,
        "teams": teams,
        "settings": {"points": pts_settings, "categories": cat_settings},
        "status": {"firstScoringPeriod": 1, "finalScoringPeriod": final_sp,
                   "isActive": True, "teamsJoined": N_TEAMS},
        "matchups": matchups,
        "acquisitions": acquisitions,
        "waivers": waivers,
        "players": players_out,
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / "demo_league.json.gz"
    with gzip.open(out, "wt", encoding="utf-8", compresslevel=9) as fh:
        json.dump(data, fh, separators=(",", ":"))
    with gzip.open(out_dir / "pro_schedule_2023.json.gz", "wt", encoding="utf-8",
                   compresslevel=9) as fh:
        json.dump(schedule, fh, separators=(",", ":"))
    return out


def main() -> None:
    """CLI entry: `python -m fantasy.demo.build`."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fixtures", type=Path, default=Path("tests/data"))
    ap.add_argument("--seed", type=int, default=2023)
    args = ap.parse_args()
    out = build(args.fixtures, args.seed)
    print(f"wrote {out} ({out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
