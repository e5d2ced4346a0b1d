"""The compositional reading of a message: what is asked (the ask), about what (the subject)
and when (the time), beside the routed intent.

    frame = read_frame(low, players=..., team_kind=..., ...)  # Frame(ask, subject, time)
    intent = composed_intent(intent, frame)                   # a combination the bank lacks

The ask comes from the question's words, the subject from the entities (a player, a fantasy
team, an NBA team, a category, the league's rules) and the time from the day read. Known parts
combine into an answer kind without a bank utterance for each combination: "how many points
did my opponent put up last week" (how many x opponent x past week) is the past matchup's
result, "who was bad for me saturday" (who x my team x past day) is that day's box score.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from agents.understanding.request import Ask, DayRef, Intent, Subject, When

#: The ask by the question's words, first match wins (order matters: "should i" before "who").
_ASKS: tuple[tuple[Ask, re.Pattern[str]], ...] = (
    ("should", re.compile(r"\b(?:should|shld|shud|worth|do i (?:start|sit|drop|hold|keep|add|"
                          r"grab|pick|claim|sign|get|stash|wait)|is it (?:time|smart|wise)|"
                          r"would you|good idea|smart move|would (?:adding|grabbing|picking|"
                          r"claiming|dropping|signing) .{0,40}(?:help|be))\b")),
    ("compare", re.compile(r"\b(?:vs\.?|versus|better|compare|comparison|or)\b")),
    ("how_many", re.compile(r"\bhow (?:many|much)\b|\bnumber of\b|\bcount\b")),
    ("when", re.compile(r"\bwhen\b|\bwhat (?:day|time|date)\b|\bhow long\b")),
    ("explain", re.compile(r"\bwhy\b|\bexplain\b|\bhow come\b|\bwhat does .* mean\b")),
    ("who", re.compile(r"\b(?:who|whos|who's|whom|whose|which)\b|\bwhat (?:players?|guys?|"
                       r"cats|categories|team)\b")),
    ("do", re.compile(r"^\W*(?:please\s+|pls\s+|can you\s+|could you\s+)?(?:drop|add|pick|grab|"
                      r"set|optimi[sz]e|find|stream|make|show|give|list|review|tell|run|plan|"
                      r"start|sit|bench|swap|trade)\b")),
)
#: A week that is over: "last week", "the week before", "two weeks ago".
PAST_WEEK = re.compile(r"\b(?:last|past|previous|prior)\s+(?:week|matchup|weekend)\b|"
                       r"\bweek before\b|\b(?:a|one|two|three|\d)\s+weeks?\s+ago\b")
#: The rest of the season: "rest of the season", "ros", "long term".
SEASON = re.compile(r"\b(?:rest of (?:the )?season|ros|long[- ]term|this season|season long|"
                    r"for the season)\b")
#: A past day named as the start of now ("still ahead after last night", "since monday").
SINCE_DAY = re.compile(r"\b(?:after|since|from)\s+(?:last|yesterday|yday|mon|tue|wed|thu|fri|"
                       r"sat|sun|the\s+\w+\s+games?)|\bstill\b")
#: Tonight's words (the time is tonight rather than now).
TONIGHT = re.compile(r"\b(?:tonight|tonite|tnight|2night)\b")


@dataclass(frozen=True)
class Frame:
    """What is asked, about what, and when."""

    ask: Ask
    subject: Subject
    time: When


def read_ask(low: str) -> Ask:
    """The ask of a folded message ("status" when no question word says otherwise)."""
    for ask, pattern in _ASKS:
        if pattern.search(low):
            if ask == "compare" and not re.search(r"\b(?:vs\.?|versus|better|compare)\b", low):
                continue  # a bare "or" compares only between names (read_frame checks)
            return ask
    return "status"


def read_frame(low: str, *, intent: Intent, players: int, team_kind: str,
               pro_team: str | None, categories: int, day: DayRef | None,
               today: date, rules: bool = False) -> Frame:
    """The frame of one folded message from its entities (see module doc)."""
    ask = read_ask(low)
    if ask == "status" and players >= 2 and re.search(r"\bor\b", low):
        ask = "compare"
    if players:
        subject: Subject = "player"
    elif intent == Intent.LEAGUE_SETTINGS or rules:
        subject = "rules"  # or words about the acquisition budget / waiver order
    elif pro_team is not None:
        subject = "nba_team"
    elif team_kind == "opponent":
        subject = "opponent"
    elif team_kind == "other":
        subject = "other_team"
    elif categories or intent == Intent.CATEGORY_OUTLOOK:
        subject = "category"
    elif intent in (Intent.STANDINGS, Intent.LEAGUE_ACTIVITY):
        subject = "league"
    else:
        subject = "my_team"
    return Frame(ask=ask, subject=subject, time=read_time(low, day, today))


def read_time(low: str, day: DayRef | None, today: date) -> When:
    """The time of a message: a week that is over, a day (past, tonight, now, future), the
    rest of the week, the season, else now."""
    if PAST_WEEK.search(low):
        return "past_week"
    if day is not None and day.date:
        try:
            d = date.fromisoformat(day.date)
        except ValueError:
            d = today
        if d < today:
            # "am i still ahead after last night": the day is where "now" starts from
            return "now" if SINCE_DAY.search(low) else "past_day"
        if d > today:
            return "future_day"
        return "tonight" if TONIGHT.search(low) else "now"
    if day is not None and day.week:
        return "rest_of_week"
    if SEASON.search(low):
        return "season"
    return "now"


#: Team-level answers about the present that a past time turns into a past answer.
_TEAM_NOW = frozenset({Intent.MATCHUP_STATUS, Intent.SCHEDULE, Intent.STANDINGS,
                       Intent.ROSTER, Intent.LINEUP_OPTIMIZATION, Intent.MATCHUP_ANALYSIS})
_TEAMS = frozenset({"my_team", "opponent", "other_team"})


#: Answers about the team or the wire now that words about the league's rules (adds left, the
#: waiver order) turn into the settings answer ("what's my priority on waivers").
_ABOUT_NOW = frozenset({Intent.FREE_AGENT_SCAN, Intent.LEAGUE_ACTIVITY, Intent.MATCHUP_STATUS,
                        Intent.MATCHUP_ANALYSIS, Intent.STANDINGS, Intent.ROSTER})
#: Answers about one named player that a hold-or-replace question on his injury turns into
#: the injury answer about him.
_ABOUT_PLAYER = frozenset({Intent.PLAYER_DECISION, Intent.PLAYER_RESEARCH, Intent.EXPLICIT_MOVE,
                           Intent.PLAYER_FORM})


def composed_intent(intent: Intent, frame: Frame, *, one_sided_move: bool = False,
                    hold_or_replace: bool = False) -> Intent:
    """The answer kind the parts make when the routed intent cannot answer them: a team's
    score or games asked for a week that is over is that matchup's result; who did well or
    badly for a team on a day that is over is that day's box score; "should I add X" (a
    should-ask about one side of a move) is a yes / no with reasons, not a move card; an
    injured player asked as hold him or bring in someone else ("X is questionable, hold or
    pick someone up") is the injury answer about him."""
    if frame.subject == "rules" and intent in _ABOUT_NOW:
        return Intent.LEAGUE_SETTINGS
    if frame.subject == "player" and hold_or_replace and intent in _ABOUT_PLAYER:
        return Intent.INJURY_REEVALUATION
    if intent == Intent.EXPLICIT_MOVE and frame.ask == "should" and one_sided_move:
        return Intent.PLAYER_DECISION
    if frame.subject in _TEAMS and frame.time == "past_week" and intent in _TEAM_NOW:
        return Intent.PAST_MATCHUP
    if frame.subject in _TEAMS and frame.time == "past_day" and frame.ask in ("who", "status") \
            and intent in _TEAM_NOW | {Intent.INJURY_REEVALUATION, Intent.STREAMING}:
        return Intent.TEAM_BOX_SCORE
    return intent


__all__ = ["Frame", "PAST_WEEK", "composed_intent", "read_ask", "read_frame", "read_time"]
