"""The typed request one chat message (or slash command) becomes.

    req = understand(text, ctx)           # agents.understanding.understand
    req.intent, req.players, req.day ...  # every graph and command reads this

A `Request` is a pydantic model so it crosses layers typed and stays JSON-able for graph
state and checkpoints (`req.model_dump(mode="json")` / `Request.model_validate(d)`).
Slash commands build it directly (`Request.command(...)`): no round trip through English.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field


class Intent(StrEnum):
    """What a member asks for. Each intent has exactly one answer path."""

    HELP = "help"                                  # hi / what can you do / how do I approve
    PLAYER_RESEARCH = "player_research"            # status, injury, news, playing tonight
    PLAYER_FORM = "player_form"                    # how has X been playing, game logs
    PLAYER_DECISION = "player_decision"            # should I drop / start / hold / sit X
    FREE_AGENT_SCAN = "free_agent_scan"            # best free agents, who is on waivers
    STREAMING = "streaming"                        # who do I stream (moves card)
    MATCHUP_STATUS = "matchup_status"              # score, am I winning, projection
    MATCHUP_ANALYSIS = "matchup_analysis"          # review / optimize my matchup (moves card)
    LINEUP_OPTIMIZATION = "lineup_optimization"    # who do I start today / tmrw / Thursday
    INJURY_REEVALUATION = "injury_reevaluation"    # my guard is DTD: hold or stream?
    EXPLICIT_MOVE = "explicit_move"                # drop X for Y / pick up Y / add the top one
    STANDINGS = "standings"                        # standings, league activity
    ROSTER = "roster"                              # who is on my / my opponent's team
    SCHEDULE = "schedule"                          # how many games left this week
    LEAGUE_SETTINGS = "league_settings"            # roster size, IR, acquisition limit, deadline
    PLAYER_OWNER = "player_owner"                  # whose team is X on, who has X
    PAST_MATCHUP = "past_matchup"                  # what did I score last week, week 3 result
    LEAGUE_ACTIVITY = "league_activity"            # what changed, recent adds/drops/trades
    TEAM_BOX_SCORE = "team_box_score"              # who did well for me last night
    CATEGORY_OUTLOOK = "category_outlook"          # which categories can I still win
    WEEK_PLAN = "week_plan"                        # what's my plan this week, moves I approved
    POWER_RANKINGS = "power_rankings"              # power rankings, who's the best team
    PLAYOFF_ODDS = "playoff_odds"                  # playoff chances, who's in, my seed
    TRADE_ANALYSIS = "trade_analysis"              # is this trade good: X for Y and Z
    GENERAL_ADVICE = "general_advice"              # open league question (model + tools)
    OUT_OF_SCOPE = "out_of_scope"                  # weather, poems, other sports


#: Intents answered by the matchup optimizer graph (an approval card may follow).
OPTIMIZER_INTENTS: frozenset[Intent] = frozenset({
    Intent.MATCHUP_ANALYSIS, Intent.STREAMING, Intent.LINEUP_OPTIMIZATION,
    Intent.EXPLICIT_MOVE})
#: Intents that need the member's linked team.
TEAM_INTENTS: frozenset[Intent] = frozenset({
    Intent.MATCHUP_ANALYSIS, Intent.STREAMING, Intent.LINEUP_OPTIMIZATION,
    Intent.EXPLICIT_MOVE, Intent.MATCHUP_STATUS, Intent.INJURY_REEVALUATION,
    Intent.ROSTER, Intent.SCHEDULE, Intent.TEAM_BOX_SCORE, Intent.CATEGORY_OUTLOOK,
    Intent.WEEK_PLAN})

ResolutionStatus = Literal["resolved", "ambiguous", "not_found"]
#: What is asked (agents.understanding.frame): a status, should-I, who/which, how many,
#: when, a comparison, an explanation, or something to do.
Ask = Literal["status", "should", "who", "how_many", "when", "compare", "explain", "do"]
#: What it is asked about.
Subject = Literal["player", "my_team", "opponent", "other_team", "league", "rules",
                  "category", "nba_team"]
#: When: a day or a week that is over, now, tonight, a day to come, the rest of the week or
#: the season.
When = Literal["past_day", "past_week", "now", "tonight", "future_day", "rest_of_week",
               "season"]
Source = Literal["command", "semantic", "model", "context", "rules", "clarified"]
Action = Literal["drop", "start", "sit", "hold", "add", "trade", "stream"]
#: A message that only thanks ("thx!") or only acknowledges ("ok cool").
SmallTalk = Literal["thanks", "ack"]
#: What FanVise will not do (the out-of-scope answer says which and why): accept moves by
#: itself, drop a whole roster, act as the league's commissioner, give out credentials.
Limit = Literal["auto_accept", "mass_drop", "commissioner", "credentials"]
#: Which week of the season a past-matchup question picks by its score: the member's best or
#: worst, or the league's high or low score of the week asked.
WeekPick = Literal["best", "worst", "league_high", "league_low"]


class PlayerRef(BaseModel):
    """A player named in a message, as written (`words`) and as resolved."""

    words: str
    status: ResolutionStatus
    player_id: int | None = None
    name: str | None = None
    candidates: list[str] = Field(default_factory=list)  # ambiguous / not found: close names
    carried: bool = False   # neither named nor pointed at ("he") in this message: carried over
    outside: bool = False   # not found: someone known who is no current NBA player ("kobe")

    @property
    def resolved(self) -> bool:
        """True when exactly one league player is meant."""
        return self.status == "resolved" and self.player_id is not None


class TeamRef(BaseModel):
    """Whose team: mine (default), my opponent's, or another fantasy team by name."""

    kind: Literal["mine", "opponent", "other"] = "mine"
    name: str | None = None
    team_id: int | None = None


class DayRef(BaseModel):
    """A day the message is about: `word` as written ("tmrw"), `date` ISO, or the week."""

    word: str
    date: str | None = None          # YYYY-MM-DD (None for "this week")
    week: bool = False               # "this week", "rest of the week"


class MoveRef(BaseModel):
    """An explicit move: "drop simmons for coby white", "pick up X", "add the top one"."""

    drop: PlayerRef | None = None
    add: PlayerRef | None = None
    add_list_index: int | None = None   # "add the top one" -> 0 (into Request.list_ref's list)


class Request(BaseModel):
    """One understood message. JSON-able; safe to store in graph state."""

    text: str = ""
    intent: Intent
    confidence: float = 1.0
    source: Source = "rules"
    players: list[PlayerRef] = Field(default_factory=list)
    team: TeamRef = Field(default_factory=TeamRef)
    categories: list[str] = Field(default_factory=list)   # ESPN names: PTS REB AST STL BLK 3PM FG% FT% TO
    day: DayRef | None = None
    pro_team: str | None = None        # an NBA team named ("the celtics" -> "BOS")
    position: str | None = None        # PG SG SF PF C G F
    count: int | None = None           # "last 5 games", "top 3"
    min_games: int | None = None       # "centers with 3 games left": games left a listed player needs
    action: Action | None = None       # should I drop / start / hold X
    move: MoveRef | None = None
    list_ref: int | None = None        # "the second guy" -> 1 (index into the last list shown)
    followup: bool = False             # inherited context from the previous turn
    alternatives: list[Intent] = Field(default_factory=list)  # runner-up intents (clarify)
    clarify: bool = False              # below the confidence margin: ask, don't guess
    ask: Ask = "status"                # the compositional frame (agents.understanding.frame)
    subject: Subject = "my_team"
    time: When = "now"
    asks_game: bool = False            # about playing / a game ("is X playing", "X's game")
    more: list[Request] = Field(default_factory=list)  # further questions of the message, in order
    keep: list[PlayerRef] = Field(default_factory=list)  # "keep X", "don't drop X", "X is untouchable"
    spare_core: bool = False           # "leave my stars alone", "don't gut my roster"
    # details read once from the words (agents.understanding.details); answers read these
    help_topics: list[str] = Field(default_factory=list)  # how-to topics asked ("link", ...)
    small_talk: SmallTalk | None = None  # the message only thanks / acknowledges
    include_injured: bool = False      # "best free agents including injured guys"
    statuses: list[str] = Field(default_factory=list)  # ESPN injury statuses asked ("is out")
    setting: str | None = None         # the league settings line asked ("Trade deadline")
    about_me: bool = False             # the member speaks about himself ("did I add")
    limit: Limit | None = None         # what it asks that FanVise will not do ("veto that trade")
    period: int | None = None          # the matchup period asked ("week 5", "two weeks ago")
    week_pick: WeekPick | None = None  # "my best week", "the league's high score last week"
    next_opponent: bool = False        # "who do i play next week", "my opponent after this one"

    @classmethod
    def command(cls, intent: Intent, **fields: object) -> Request:
        """A request built directly by a slash command (confidence 1, source "command")."""
        return cls(intent=intent, source="command", confidence=1.0, **fields)  # type: ignore[arg-type]

    @property
    def player(self) -> PlayerRef | None:
        """The first player named, if any."""
        return self.players[0] if self.players else None

    def resolved_players(self) -> list[PlayerRef]:
        """Players that resolved to exactly one league player."""
        return [p for p in self.players if p.resolved]

    def unresolved_players(self) -> list[PlayerRef]:
        """Players named that are ambiguous or not in the league."""
        return [p for p in self.players if not p.resolved]


__all__ = ["Ask", "Subject", "When", "Action", "DayRef", "Intent", "Limit", "MoveRef", "OPTIMIZER_INTENTS", "PlayerRef",
           "Request", "ResolutionStatus", "SmallTalk", "Source", "TEAM_INTENTS", "TeamRef",
           "WeekPick"]
