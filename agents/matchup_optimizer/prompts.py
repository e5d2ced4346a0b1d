"""Keyword tables and answer templates of the matchup optimizer (no LLM math, no LLM calls:
intent parsing is keyword-based and the explanation is templated from optimizer results)."""

from __future__ import annotations

INTENT_KEYWORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("lineup_optimization", ("who sits", "who should sit", "sit ", "bench ", "lineup", "start ",
                             "who starts", "active ", "players active")),
    ("injury_reevaluation", ("day-to-day", "day to day", "dtd", "injur", "hold or", "hold vs",
                             "hold him", "questionable", "gtd")),
    ("streaming", ("stream", "streamer", "streaming")),
    ("free_agent_scan", ("free agent", "waiver", "pickup", "pick up", "who to add", "fa ")),
    ("matchup_analysis", ("matchup", "optimi", "review", "week", "analy")),
)

CATEGORY_WORDS: dict[str, str] = {
    "ast": "AST", "assist": "AST", "assists": "AST", "dimes": "AST",
    "stl": "STL", "steal": "STL", "steals": "STL",
    "reb": "REB", "rebound": "REB", "rebounds": "REB", "boards": "REB",
    "blk": "BLK", "block": "BLK", "blocks": "BLK",
    "pts": "PTS",
    "3pm": "3PM", "threes": "3PM", "3s": "3PM", "3pt": "3PM", "3-pointers": "3PM",
    "tov": "TO", "turnovers": "TO",
    "fg%": "FG%", "field goal": "FG%", "field goals": "FG%",
    "ft%": "FT%", "free throw": "FT%", "free throws": "FT%",
}

POSITION_WORDS: dict[str, str] = {
    "pg": "PG", "point guard": "PG", "sg": "SG", "shooting guard": "SG", "sf": "SF",
    "small forward": "SF", "pf": "PF", "power forward": "PF", "center": "C", "centre": "C",
    "big man": "C", "guard": "G", "forward": "F",
}

APPROVAL_TITLE = "Approve roster moves for {team}"
APPROVAL_SUMMARY = ("{n} move(s) ranked by the exact optimizer for the rest of this matchup "
                    "({days} day(s) left, {acq}). Moves that drop the same player are "
                    "alternatives: approve one of them.")
ALT_TITLE = "Next alternatives for {team}"
NO_MOVE = ("No roster move improves your team for the rest of this matchup{focus}: keep your "
           "roster as it is. {why}")
OFFLINE_LIVE_NOTE = ("ESPN has no public write API: make the move on ESPN ({link}); FanVise "
                     "re-planned your week as if it were done.")
