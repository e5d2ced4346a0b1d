"""ESPN fantasy-basketball (fba) constants with the real ESPN values.

Sources: ESPN's own `settings.typeNames` (pro-schedule fixture) and espn-api's
`basketball/constant.py`, checked against the recorded fixtures (see
shared/reference/espn-api.md).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

# --------------------------------------------------------------------------- lineup slots
SLOT_PG: Final = 0
SLOT_SG: Final = 1
SLOT_SF: Final = 2
SLOT_PF: Final = 3
SLOT_C: Final = 4
SLOT_G: Final = 5
SLOT_F: Final = 6
SLOT_SG_SF: Final = 7
SLOT_G_F: Final = 8
SLOT_PF_C: Final = 9
SLOT_F_C: Final = 10
SLOT_UTIL: Final = 11
SLOT_BENCH: Final = 12
SLOT_IR: Final = 13
SLOT_UNUSED: Final = 14
SLOT_ROOKIE: Final = 15

#: lineupSlotId -> display name.
SLOT_NAMES: Final[dict[int, str]] = {
    SLOT_PG: "PG",
    SLOT_SG: "SG",
    SLOT_SF: "SF",
    SLOT_PF: "PF",
    SLOT_C: "C",
    SLOT_G: "G",
    SLOT_F: "F",
    SLOT_SG_SF: "SG/SF",
    SLOT_G_F: "G/F",
    SLOT_PF_C: "PF/C",
    SLOT_F_C: "F/C",
    SLOT_UTIL: "UT",
    SLOT_BENCH: "BE",
    SLOT_IR: "IR",
    SLOT_UNUSED: "",
    SLOT_ROOKIE: "Rookie",
}

#: Upper-case display name (and common aliases) -> lineupSlotId.
SLOT_IDS: Final[dict[str, int]] = {name: sid for sid, name in SLOT_NAMES.items() if name} | {
    "UTIL": SLOT_UTIL,
    "UTL": SLOT_UTIL,
    "BENCH": SLOT_BENCH,
    "BN": SLOT_BENCH,
    "ROOKIE": SLOT_ROOKIE,
}

#: The five base positions, as lineup slot ids.
BASE_POSITION_SLOTS: Final[tuple[int, ...]] = (SLOT_PG, SLOT_SG, SLOT_SF, SLOT_PF, SLOT_C)

#: Which base positions (slot ids 0-4) each slot accepts. Bench and IR accept everyone
#: (IR additionally needs an OUT/IR injury status, see `IR_ELIGIBLE_STATUSES`).
#: Derived from the eligibleSlots patterns of all 975 players in the 2023 player fixture.
SLOT_ACCEPTS: Final[dict[int, frozenset[int]]] = {
    SLOT_PG: frozenset({SLOT_PG}),
    SLOT_SG: frozenset({SLOT_SG}),
    SLOT_SF: frozenset({SLOT_SF}),
    SLOT_PF: frozenset({SLOT_PF}),
    SLOT_C: frozenset({SLOT_C}),
    SLOT_G: frozenset({SLOT_PG, SLOT_SG}),
    SLOT_F: frozenset({SLOT_SF, SLOT_PF}),
    SLOT_SG_SF: frozenset({SLOT_SG, SLOT_SF}),
    SLOT_G_F: frozenset({SLOT_PG, SLOT_SG, SLOT_SF, SLOT_PF}),
    SLOT_PF_C: frozenset({SLOT_PF, SLOT_C}),
    SLOT_F_C: frozenset({SLOT_SF, SLOT_PF, SLOT_C}),
    SLOT_UTIL: frozenset(BASE_POSITION_SLOTS),
    SLOT_BENCH: frozenset(BASE_POSITION_SLOTS),
    SLOT_IR: frozenset(BASE_POSITION_SLOTS),
}

#: Slots whose players score (everything except bench, IR and the unused ids).
STARTING_SLOTS: Final[frozenset[int]] = frozenset(range(SLOT_PG, SLOT_UTIL + 1))
#: Slots that never score.
NON_STARTING_SLOTS: Final[frozenset[int]] = frozenset({SLOT_BENCH, SLOT_IR, SLOT_UNUSED})

#: `player.defaultPositionId` is 1-based: 1 PG, 2 SG, 3 SF, 4 PF, 5 C.
#: (`rosterSettings.positionLimits` is keyed by this id; -1 means no limit.)
DEFAULT_POSITION_NAMES: Final[dict[int, str]] = {1: "PG", 2: "SG", 3: "SF", 4: "PF", 5: "C"}


def default_position_slot(default_position_id: int) -> int:
    """Lineup slot id of a player's default position (defaultPositionId is 1-based)."""
    return default_position_id - 1


def eligible_slots_for_positions(base_slots: set[int] | frozenset[int]) -> list[int]:
    """All lineup slots that accept any of the given base positions (ESPN's eligibleSlots)."""
    return sorted(sid for sid, acc in SLOT_ACCEPTS.items() if acc & set(base_slots))


def slot_name(slot_id: int) -> str:
    """Display name of a lineup slot id ("PG", "UT", "BE"...); unknown ids as "slot N"."""
    return SLOT_NAMES.get(slot_id) or f"slot {slot_id}"


def parse_slot(text: str | int) -> int:
    """Parse "PG", "util", "g/f" or an id into a lineup slot id; ValueError if unknown."""
    if isinstance(text, int):
        if text in SLOT_NAMES:
            return text
        raise ValueError(f"unknown lineup slot id {text}")
    key = text.strip().upper()
    if key.isascii() and key.isdigit() and int(key) in SLOT_NAMES:
        return int(key)
    if key in SLOT_IDS:
        return SLOT_IDS[key]
    valid = ", ".join(n for n in SLOT_NAMES.values() if n)
    raise ValueError(f"unknown lineup slot {text!r}; use one of {valid}")


# --------------------------------------------------------------------------- stats
#: ESPN basketball stat id -> abbreviation.
STATS_MAP: Final[dict[int, str]] = {
    0: "PTS", 1: "BLK", 2: "STL", 3: "AST", 4: "OREB", 5: "DREB", 6: "REB", 7: "EJ",
    8: "FF", 9: "PF", 10: "TF", 11: "TO", 12: "DQ", 13: "FGM", 14: "FGA", 15: "FTM",
    16: "FTA", 17: "3PM", 18: "3PA", 19: "FG%", 20: "FT%", 21: "3PT%", 22: "AFG%",
    23: "FGMI", 24: "FTMI", 25: "3PMI", 26: "APG", 27: "BPG", 28: "MPG", 29: "PPG",
    30: "RPG", 31: "SPG", 32: "TOPG", 33: "3PG", 34: "PPM", 35: "A/TO", 36: "STR",
    37: "DD", 38: "TD", 39: "QD", 40: "MIN", 41: "GS", 42: "GP", 43: "TW", 44: "FTR",
    45: "45",
}
#: Abbreviation -> stat id.
STAT_IDS: Final[dict[str, int]] = {name: sid for sid, name in STATS_MAP.items()}

STAT_PTS: Final = 0
STAT_BLK: Final = 1
STAT_STL: Final = 2
STAT_AST: Final = 3
STAT_OREB: Final = 4
STAT_DREB: Final = 5
STAT_REB: Final = 6
STAT_TO: Final = 11
STAT_FGM: Final = 13
STAT_FGA: Final = 14
STAT_FTM: Final = 15
STAT_FTA: Final = 16
STAT_3PM: Final = 17
STAT_3PA: Final = 18
STAT_FG_PCT: Final = 19
STAT_FT_PCT: Final = 20
STAT_3P_PCT: Final = 21
STAT_MIN: Final = 40
STAT_GS: Final = 41
STAT_GP: Final = 42

#: The standard 9 categories (PTS, REB, AST, STL, BLK, 3PM, FG%, FT%, TO).
NINE_CAT_STATS: Final[tuple[int, ...]] = (
    STAT_PTS, STAT_REB, STAT_AST, STAT_STL, STAT_BLK, STAT_3PM, STAT_FG_PCT, STAT_FT_PCT, STAT_TO,
)
#: Categories where lower is better (ESPN marks them `isReverseItem`).
REVERSE_STATS: Final[frozenset[int]] = frozenset({STAT_TO, 7, 8, 9, 10, 12, 23, 24, 25})
#: Percentage stat -> (made stat, attempted stat). Percentages are ratios of totals, never
#: averages of per-game percentages.
PERCENTAGE_STATS: Final[dict[int, tuple[int, int]]] = {
    STAT_FG_PCT: (STAT_FGM, STAT_FGA),
    STAT_FT_PCT: (STAT_FTM, STAT_FTA),
    STAT_3P_PCT: (STAT_3PM, STAT_3PA),
}


def stat_name(stat_id: int) -> str:
    """Abbreviation of a stat id ("PTS"), or "stat N" when unknown."""
    return STATS_MAP.get(stat_id, f"stat {stat_id}")


# Stat entry ids are "{statSourceId}{statSplitTypeId}{externalId}". statSourceId 0 = real,
# 1 = projected. In fba, split 0 = season, 1 = last 7 days, 2 = last 15, 3 = last 30,
# 5 = one game / scoring period (NOT split 1 as in football).
STAT_SOURCE_REAL: Final = 0
STAT_SOURCE_PROJECTED: Final = 1
SPLIT_SEASON: Final = 0
SPLIT_LAST_7: Final = 1
SPLIT_LAST_15: Final = 2
SPLIT_LAST_30: Final = 3
SPLIT_GAME: Final = 5

#: (statSourceId, statSplitTypeId) -> key in `Player.stats`.
STAT_SPLIT_KEYS: Final[dict[tuple[int, int], str]] = {
    (STAT_SOURCE_REAL, SPLIT_SEASON): "season",
    (STAT_SOURCE_REAL, SPLIT_LAST_7): "last_7",
    (STAT_SOURCE_REAL, SPLIT_LAST_15): "last_15",
    (STAT_SOURCE_REAL, SPLIT_LAST_30): "last_30",
    (STAT_SOURCE_PROJECTED, SPLIT_SEASON): "projected",
}
STAT_WINDOWS: Final[tuple[str, ...]] = ("season", "last_7", "last_15", "last_30", "projected")


# --------------------------------------------------------------------------- pro teams
#: proTeamId -> common abbreviation (espn-api's PRO_TEAM_MAP).
PRO_TEAM_ABBREVS: Final[dict[int, str]] = {
    0: "FA", 1: "ATL", 2: "BOS", 3: "NOP", 4: "CHI", 5: "CLE", 6: "DAL", 7: "DEN", 8: "DET",
    9: "GSW", 10: "HOU", 11: "IND", 12: "LAC", 13: "LAL", 14: "MIA", 15: "MIL", 16: "MIN",
    17: "BKN", 18: "NYK", 19: "ORL", 20: "PHL", 21: "PHO", 22: "POR", 23: "SAC", 24: "SAS",
    25: "OKC", 26: "UTA", 27: "WAS", 28: "TOR", 29: "MEM", 30: "CHA",
}
#: proTeamId -> ESPN's own `abbrev` (proTeamSchedules_wl) where it differs.
ESPN_PRO_TEAM_ABBREVS: Final[dict[int, str]] = PRO_TEAM_ABBREVS | {
    3: "NO", 9: "GS", 18: "NY", 20: "PHI", 21: "PHX", 24: "SA", 26: "UTAH", 27: "WSH",
}
FREE_AGENT_PRO_TEAM: Final = 0


def pro_team_abbrev(pro_team_id: int) -> str:
    """Common abbreviation of a pro team id ("NYK"); "FA" for 0, "T<id>" if unknown."""
    return PRO_TEAM_ABBREVS.get(pro_team_id, f"T{pro_team_id}")


def pro_team_id(abbrev: str) -> int:
    """Pro team id from either abbreviation style ("NYK", "NY", "Utah"); ValueError if unknown."""
    key = abbrev.strip().upper()
    for table in (PRO_TEAM_ABBREVS, ESPN_PRO_TEAM_ABBREVS):
        for tid, name in table.items():
            if name.upper() == key:
                return tid
    raise ValueError(f"unknown NBA team abbreviation {abbrev!r}")


# --------------------------------------------------------------------------- enums
class InjuryStatus(StrEnum):
    """`player.injuryStatus` values (ESPN `typeNames.injuryStatusTypes`)."""

    ACTIVE = "ACTIVE"
    PROBABLE = "PROBABLE"
    QUESTIONABLE = "QUESTIONABLE"
    DOUBTFUL = "DOUBTFUL"
    OUT = "OUT"
    INJURY_RESERVE = "INJURY_RESERVE"
    DAY_TO_DAY = "DAY_TO_DAY"
    FIFTEEN_DAY_DL = "FIFTEEN_DAY_DL"
    SIXTY_DAY_DL = "SIXTY_DAY_DL"
    SEVEN_DAY_DL = "SEVEN_DAY_DL"
    TEN_DAY_DL = "TEN_DAY_DL"
    BEREAVEMENT = "BEREAVEMENT"
    PATERNITY = "PATERNITY"
    SUSPENSION = "SUSPENSION"


#: Statuses under which a player will not play (and may be moved to IR).
OUT_STATUSES: Final[frozenset[str]] = frozenset({
    "OUT", "INJURY_RESERVE", "SUSPENSION", "FIFTEEN_DAY_DL", "SIXTY_DAY_DL", "SEVEN_DAY_DL",
    "TEN_DAY_DL", "BEREAVEMENT", "PATERNITY",
})
#: Statuses where playing is uncertain (game-time decision / day-to-day).
UNCERTAIN_STATUSES: Final[frozenset[str]] = frozenset(
    {"DAY_TO_DAY", "PROBABLE", "QUESTIONABLE", "DOUBTFUL"}
)
#: ESPN lets OUT / IR players go into the IR slot (rule from ESPN help; not in the data).
IR_ELIGIBLE_STATUSES: Final[frozenset[str]] = frozenset({"OUT", "INJURY_RESERVE"})

#: Short labels as ESPN shows them next to a name.
INJURY_SHORT: Final[dict[str, str]] = {
    "ACTIVE": "",
    "PROBABLE": "P",
    "QUESTIONABLE": "Q",
    "DOUBTFUL": "D",
    "OUT": "O",
    "INJURY_RESERVE": "IR",
    "DAY_TO_DAY": "DTD",
    "SUSPENSION": "SSPD",
}


def injury_label(status: str | None) -> str:
    """Short display label for an injury status ("O", "DTD", "Q", "" for healthy)."""
    if not status:
        return ""
    return INJURY_SHORT.get(status, status)


#: Roster-entry-level status (NOT the injury status; see reference pitfall).
ROSTER_INJURY_STATUS_TYPES: Final[tuple[str, ...]] = ("NORMAL", "FUTURE_FROM_IR", "FUTURE_TO_IR")


class ScoringType(StrEnum):
    """Normalised league scoring type (ESPN's H2H_POINTS/TOTAL_SEASON_POINTS -> POINTS)."""

    POINTS = "POINTS"
    H2H_CATEGORY = "H2H_CATEGORY"
    H2H_MOST_CATEGORIES = "H2H_MOST_CATEGORIES"
    ROTO = "ROTO"

    @classmethod
    def from_espn(cls, value: str) -> ScoringType:
        """Map ESPN `scoringSettings.scoringType` to this enum."""
        if value in ("H2H_POINTS", "TOTAL_SEASON_POINTS", "POINTS"):
            return cls.POINTS
        return cls(value)

    @property
    def is_categories(self) -> bool:
        """True for category-based scoring (H2H categories, most categories, roto)."""
        return self is not ScoringType.POINTS


#: ESPN `scoringTypes`.
ESPN_SCORING_TYPES: Final[tuple[str, ...]] = (
    "ROTO", "H2H_POINTS", "H2H_CATEGORY", "H2H_MOST_CATEGORIES", "TOTAL_SEASON_POINTS",
)


class PlayerStatus(StrEnum):
    """ESPN `playerStatusTypes` (pool status of a player in a league)."""

    FREEAGENT = "FREEAGENT"
    WAIVERS = "WAIVERS"
    ONTEAM = "ONTEAM"


class LockType(StrEnum):
    """ESPN `locktimeTypes` for lineup and roster locks."""

    INDIVIDUAL_GAME = "INDIVIDUAL_GAME"
    FIRSTGAME_SCORINGPERIOD = "FIRSTGAME_SCORINGPERIOD"
    INDIVIDUAL_FIRSTGAME_WEEKLY = "INDIVIDUAL_FIRSTGAME_WEEKLY"
    FIRSTGAME_WEEKLY = "FIRSTGAME_WEEKLY"


ACQUISITION_TYPES: Final[tuple[str, ...]] = ("FREEAGENCY", "WAIVERS_TRADITIONAL", "WAIVERS_CONTINUOUS")
RESULT_TYPES: Final[tuple[str, ...]] = ("WIN", "LOSS", "TIE", "NONE")
WINNER_TYPES: Final[tuple[str, ...]] = ("HOME", "AWAY", "TIE", "UNDECIDED")

#: Default ESPN API host for reads (changed from fantasy.espn.com in 2024).
ESPN_READS_BASE_URL: Final = "https://lm-api-reads.fantasy.espn.com/apis/v3/games/fba/"
#: Public ESPN web page of a league (for "open on ESPN" links).
ESPN_LEAGUE_URL: Final = "https://fantasy.espn.com/basketball/league?leagueId={league_id}"
ESPN_TEAM_URL: Final = "https://fantasy.espn.com/basketball/team?leagueId={league_id}&teamId={team_id}"
