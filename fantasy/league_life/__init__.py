"""League life: what a league channel gets from FanVise beyond each member's own thread.

The math lives here (no chat code): a matchup period's box scores read day by day
(`boxscores`), all-play records (`allplay`), manager efficiency against the exact daily
optimum (`efficiency`) and the weekly recap with its trophies (`recap`). The posts and
commands that show them are in `bot.core.league_life`.
"""

from fantasy.league_life.allplay import AllPlayRecord, all_play
from fantasy.league_life.boxscores import DayEntry, PeriodBox, TeamPeriod, load_period
from fantasy.league_life.efficiency import Efficiency, team_efficiency
from fantasy.league_life.recap import Recap, Result, Trophy, build_recap

__all__ = ["AllPlayRecord", "DayEntry", "Efficiency", "PeriodBox", "Recap", "Result",
           "TeamPeriod", "Trophy", "all_play", "build_recap", "load_period",
           "team_efficiency"]
