"""Every word list of understanding, once: days, stat categories, positions, actions,
list references and follow-up openers. Entity extraction (entities.py) reads these; intent
comes from the semantic router (router.py), not from these words.
"""

from __future__ import annotations

import re

from fantasy.constants import OUT_STATUSES, UNCERTAIN_STATUSES

#: Words for today / tomorrow as members type them.
TODAY_WORDS = ("today", "tonight", "tonite", "tnight", "2night", "2day", "rn", "right now")
#: today words that mean "as things stand", not "the games of today" ("best free agents
#: right now" asks who is best now, not who plays today)
NOW_WORDS = ("rn", "right now")
TOMORROW_WORDS = ("tomorrow", "tmrw", "tmr", "tmrow", "tmw", "tomm", "tommorow", "tommorrow",
                  "tomorow", "2morrow", "2moro", "tomoro")
#: The day before today ("how did he do last night").
YESTERDAY_WORDS = ("yesterday", "yday", "ystd", "yest", "last night", "last nite", "lastnight",
                   "yesterdays", "yesterday's")
WEEK_WORDS = ("this week", "rest of the week", "the week", "this matchup", "rest of the matchup",
              "for the week", "whole week", "entire week", "whole matchup", "entire matchup",
              "weekly", "week")
#: Weekday -> the words for it (full names, common short forms; "sat"/"sun"/"wed" are words).
WEEKDAYS: dict[str, tuple[str, ...]] = {
    "monday": ("monday", "mon"),
    "tuesday": ("tuesday", "tues", "tue"),
    "wednesday": ("wednesday", "weds", "wednes"),
    "thursday": ("thursday", "thurs", "thur", "thu"),
    "friday": ("friday", "fri"),
    "saturday": ("saturday",),
    "sunday": ("sunday",),
}
#: Short weekday forms that are also English words ("who sat out", "the sun"): a day only
#: after a word that introduces a day ("on sat", "for wed", "this sun") or before "night" /
#: "game", or as the whole rest of a follow-up ("and sat?"; see entities.extract_day).
SHORT_WEEKDAYS: dict[str, str] = {"sat": "saturday", "sun": "sunday", "wed": "wednesday"}
DAY_LEAD = r"(?:on|for|by|this|next|til|till|until|thru|through|before|after|abt|about|bout)"

#: ESPN category name -> regex of the words members use for it.
CATEGORIES: dict[str, str] = {
    "AST": r"\bast\b|\bassists?\b|\bdimes?\b|\bdishes\b|\bapg\b",
    "STL": r"\bstl\b|\bsteals?\b|\bspg\b",
    "REB": r"\breb\b|\brebs\b|\brebounds?\b|\brebounding\b|\bboards\b|\brpg\b",
    "BLK": r"\bblk\b|\bblks\b|\bblocks?\b|\bswats\b|\brim protection\b|\bbpg\b",
    "3PM": r"\b3pm\b|\b3pt\b|\b3ptm\b|\bthrees\b|\b3s\b|\btreys\b|\b3-pointers?\b"
           r"|\bthree-pointers?\b|\bthree pointers?\b|\b3 pointers?\b",
    "PTS": r"\bpts\b|\bppg\b|\bscoring\b",
    "TO": r"\bturnovers?\b|\btov\b|\btos\b",
    "FG%": r"\bfg%|\bfg ?pct\b|\bfield goal|\bfg percentage\b",
    "FT%": r"\bft%|\bft ?pct\b|\bfree throw|\bft percentage\b",
}

#: Position words -> lineup position (longest phrases are tried first).
POSITIONS: dict[str, str] = {
    "point guard": "PG", "shooting guard": "SG", "small forward": "SF",
    "power forward": "PF", "point guards": "PG", "shooting guards": "SG",
    "small forwards": "SF", "power forwards": "PF", "big man": "C", "big men": "C",
    "pg": "PG", "pgs": "PG", "sg": "SG", "sgs": "SG", "sf": "SF", "sfs": "SF", "pf": "PF", "pfs": "PF",
    "center": "C", "centers": "C", "centre": "C", "centres": "C", "bigs": "C", "big": "C",
    "guard": "G", "guards": "G", "forward": "F", "forwards": "F", "wing": "F", "wings": "F",
}

#: Action verbs ("should I drop X") -> Request.action.
ACTIONS: tuple[tuple[str, str], ...] = (
    ("drop", r"\b(?:drop|dropping|dropped|cut|cutting|release|waive|droppable|let go of)\b"),
    ("trade", r"\b(?:trade|trading|sell|buy low|sell high)\b"),
    ("stream", r"\b(?:stream|streaming|streamer)\b"),
    ("sit", r"\b(?:sit(?! tight)|sitting(?! tight)|bench|benching)\b"),
    ("start", r"\b(?:start|starting|play him|put in)\b"),
    ("hold", r"\b(?:hold|holding|keep|keeping|stash|sit tight|ride (?:it|him) out|wait it out)\b"),
    ("add", r"\b(?:add|adding|pick up|pickup|picking up|pick him up|grab|grabbing|claim|"
            r"claiming|sign|signing)\b"),
)

#: Verbs that make the next player the one dropped / added in an explicit move.
DROP_VERBS = r"(?:drop|dropping|cut|cutting|release|waive|replace|swap|swapping|switch|bench)"
ADD_VERBS = r"(?:add|adding|pick ?up|picking up|grab|grabbing|get|claim|sign|bring in)"

#: "the top one", "the second guy", "#3", "number 2" -> index into the last list.
ORDINALS: dict[str, int] = {
    "top": 0, "first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2,
    "fourth": 3, "4th": 3, "fifth": 4, "5th": 4, "last": -1,
}
LIST_REF = re.compile(
    r"\b(?:the\s+)?(top|first|1st|second|2nd|third|3rd|fourth|4th|fifth|5th|last)"
    r"\s+(?:one|guy|player|pick|option|dude|name|choice|1)\b"
    r"|\b(?:number|no\.?|#)\s*([1-9])\b|#([1-9])\b")

NUMBER_WORDS: dict[str, int] = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fifteen": 15,
    "twenty": 20, "few": 3, "couple": 2,
}

#: Acknowledgements that may lead a follow-up ("ok", "cool,", "thx and ...").
_ACK = r"(?:ok(?:ay)?|k|kk|so|and|also|hm+|cool|nice|thanks|thx|ty|alright|aight|yeah|ya|yep)"
_LEAD = rf"^(?:{_ACK}[,.!]*\s+)*"
_STRONG = (r"wh?at\s+(?:about|abt|bout|abour|abut)|how\s+(?:about|abt|bout)|whatabout|"
           r"what\s+of|wbu|hbu|same\s+(?:for|with|but|w/?|question for|q for|thing for)|"
           r"(?:and|also|now|ok(?:ay)?)\s+(?:for|on|with)|now\s+do|do\s+the\s+same\s+for|"
           r"same\s+thing|same\s+question|same|"
           # a correction: "no wait, tatum", "actually i meant friday", "sorry, assists"
           r"(?:(?:no+(?=\s*[,.!]|\s+(?:wait|i\s+mean|sorry|actually|not))|nah|nope|wait|"
           r"actually|sorry|oops|my bad|correction|scratch that|i\s+meant|i\s+mean|meant|"
           r"make\s+(?:that|it)|change\s+(?:that|it)\s+to|not\s+that\s+one)[\s,.!:]*)+")
#: Openers that make a short message lean on the previous turn by themselves: "what about
#: tomorrow?", "how bout lebron", "same for sat", "and for steals?", "now do jokic".
STRONG_FOLLOWUP = re.compile(rf"{_LEAD}(?:{_STRONG})\b")
#: Any opener of a follow-up: a strong one, or a bare "ok" / "and" / "also" ("ok and jokic").
FOLLOWUP_OPENERS = re.compile(rf"{_LEAD}(?:{_STRONG}|what\s+if|{_ACK}|now|then|for|only|just)\b")
#: A day counted from the previous turn's day: "two days later", "the day after", "a day
#: earlier", "the next day".
#: The words members type about their league, which misspellings are corrected into
#: (agents.understanding.spelling): "shoud" -> should, "strat" -> start, "mathcup" -> matchup.
CHAT_VOCABULARY: frozenset[str] = frozenset("""
should would could what who when where which start starting starter starters sit bench drop
dropping pick pickup pickups playing play plays played tonight tomorrow today yesterday week
weekend matchup matchups winning losing lineup free agent agents waiver waivers wire center
centers guard guards forward forwards injured injury injuries hurt healthy games game left
doing score standings roster team teams stream streaming streamer streamers trade trades
available best worst better rebounds assists steals blocks points threes turnovers categories
category player players status news update recommend think league playoffs playoff schedule
optimize moves move add adding questionable minutes stats average averaging season opponent
winning against ahead behind many much right now still keep hold replace someone anyone whos whats hows doin
""".split())
#: Someone to take the previous turn's player's place ("who do i get in his place", "find a
#: replacement for him", "pick someone up instead of him"): a move that drops him.
REPLACE_HIM = re.compile(r"\b(?:instead of (?:him|he)|in place of him|in his (?:place|spot)|"
                         r"for his (?:spot|place|slot|roster spot)|(?:a |his )?replacement "
                         r"(?:for him)?|replac\w* (?:him|he)\b|someone (?:else )?for him)")
#: A message that corrects the previous turn ("cut X instead", "no, add Y", "actually Z").
CORRECTION = re.compile(r"\binstead\b|^\W*(?:no|nah|nope|actually|wait|sorry|rather|make it|"
                        r"scratch that|i meant|i mean|change (?:it|that))\b|\brather\b")
#: Days counted from today inside any message: "the day after tomorrow", "in two days",
#: "3 days from now".
DAYS_FROM_TODAY = re.compile(
    r"\b(?:(?:the\s+)?day\s+after\s+(?:tomorrow|tmrw|tmr|tomorow|tommorow|2morrow)|overmorrow"
    r"|in\s+(?P<n>a|one|two|three|four|five|six|\d)\s+days?"
    r"|(?P<n2>a|one|two|three|four|five|six|\d)\s+days?\s+(?:from\s+(?:now|today)|out))\b")
#: Month names and their short forms -> month number ("jan 27", "27th of january").
MONTHS: dict[str, int] = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12}
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
#: A date by month name: "jan 27", "january 27th", "27 jan", "the 27th of january".
MONTH_DATE = re.compile(
    rf"\b(?:(?P<m1>{_MONTH})\.?\s+(?P<d1>[0-3]?\d)(?:st|nd|rd|th)?"
    rf"|(?:the\s+)?(?P<d2>[0-3]?\d)(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m2>{_MONTH}))\b")
#: A day of this month by its ordinal ("on the 27th", "for the 3rd"), not a rank ("the 3rd
#: best guy", "the 2nd one").
MONTH_DAY = re.compile(
    r"\bthe\s+(?P<d>[0-3]?\d)(?:st|nd|rd|th)\b(?!\s+(?:one|ones|guy|guys|option|pick|player|"
    r"best|worst|man|name|spot|place|ranked|overall|most|highest|lowest|team|week|round|"
    r"quarter|game|\w+est)\b)")
RELATIVE_DAY = re.compile(
    r"\b(?:(?P<n>a|an|one|two|three|four|five|six|\d)\s+days?\s+(?P<dir>later|after(?:wards)?|"
    r"from then|past that|out|on|earlier|before)|the\s+(?:next|following)\s+day|"
    r"(?:the\s+)?day\s+(?P<dir2>after|before)(?:\s+that)?|(?:next|following)\s+day)\b")
#: Words that ask about playing or a game ("is he playing", "suit up", "tip-off").
GAME_WORDS = re.compile(r"\bpla?y|\bgame|\bsuit(?:ing)? up|\btip[- ]?off|\bdress(?:ing)?\b")
#: Words that put a question in the past ("what happened", "who went off", "lately"): a
#: tie-breaker towards answers about what is over (activity, a past matchup, a box score).
PAST_CUE = re.compile(r"\b(?:did|happened|went|was|were|made|had|been|lately|recently|recent|"
                      r"changed|yesterday|yday|last night|last week|ago|so far this week|"
                      r"went through|got (?:claimed|dropped|picked))\b")
#: Words about the league's acquisition budget or waiver rules ("how many adds do i get", "am i
#: out of moves", "adds remaining", "the waiver order", "who's first in line on waivers"): a
#: tie-breaker towards the league's settings.
RULES_CUE = re.compile(
    r"\b(?:adds|moves|acquisitions?|transactions|pickups|claims)\b[^.?!]{0,30}?\b(?:left|"
    r"remaining|remain|allowed|limit|max(?:imum)?|cap|per (?:week|matchup)|each (?:week|"
    r"matchup))\b|\bhow many (?:adds|moves|acquisitions|transactions|pickups|claims)\b"
    r"(?![^.?!]{0,12}\bshould\b)|"
    r"\bout of (?:adds|moves|acquisitions|transactions|pickups)\b|"
    r"\b(?:use[sd]?(?: up)?|run out of|ran out of|burn(?:ed)?(?: through)?)\b[^.?!]{0,15}"
    r"\b(?:adds|moves|acquisitions|transactions)\b|"
    r"\b(?:any|how many) (?:adds|moves|acquisitions|transactions) (?:left|remaining)\b|"
    r"\bwaivers?\W+(?:\w+\W+)?(?:order|priority|position|rank(?:ing)?|line|period|process|"
    r"type|system)\b|\bpriority (?:on|for) waivers\b|"
    r"\b(?:first|next|top|last|where)\b[^.?!]{0,20}\bin line\b|"
    r"\b(?:kind|type|sort) of waivers\b|\bfaab\b|\brolling waivers\b")
#: Words that report moves already made, by the member or anyone in the league ("who picked
#: up who", "what did my opponent add", "what has everyone been doing on waivers", "catch me up
#: on moves", "recent transactions"): a tie-breaker towards league activity.
ACTIVITY_CUE = re.compile(
    r"\b(?:picked up|added|dropped|traded|claimed|snagged|released|waived)\b"
    r"(?!\s+(?:guys?|players?|ones?|dudes?|off)\b)|"
    r"\bdid\b[^.?!]{0,40}\b(?:add|pick(?: \w+)? up|drop|trade|claim|grab|make|do)\b|"
    r"\b(?:have|has)\b[^.?!]{0,30}\b(?:made|done|been)\b|"
    r"\b(?:pickups?|adds|drops|moves|trades|transactions|claims)\s+(?:by|from|of|made|worth "
    r"noting)\b|"
    r"\b(?:everyone|everybody|anyone|anybody|people|other teams|other managers|others|the "
    r"league)\b[^.?!]{0,30}\b(?:doing|done|been|making|made|active|busy)\b|"
    r"\b(?:most|been) (?:active|busy)\b|\bcatch me up\b|\bfill me in\b|"
    r"\b(?:recent|latest|new) (?:moves|adds|drops|pickups|trades|transactions|claims)\b|"
    r"\btransactions\b")
#: Words that ask for advice in general rather than about this team now ("in general", "any
#: tips", "a good strategy", "how should i approach", "is it smart to hoard centers").
GENERAL_CUE = re.compile(
    r"\bin general\b|\bgenerally\b|\bstrateg(?:y|ies|ic)\b|\btips?\b|\bapproach\b|"
    r"\brule of thumb\b|\bphilosophy\b|\b(?:smart|wise) to\b|\bbest practices?\b|"
    r"\baffect\b|\bhow do (?:\w+ )?(?:work|matter)\b|\bovervalued\b|\bundervalued\b")
#: Words that ask which categories can still be won or given up ("can i still win enough
#: cats", "could i flip threes", "should i punt assists", "which cats are in reach").
CATEGORY_CUE = re.compile(
    r"\b(?:punt(?:ing)?|flip(?:pable)?|winnable|in reach|within reach|still (?:win|take|"
    r"steal|get)|catch up in|swing(?:able)?|close (?:cats|categories))\b")
#: A named player's injury asked as hold him or bring in someone else ("X is questionable, do
#: i hold or pick someone up", "keep him or grab a replacement"): the injury answer about him.
REPLACE_CUE = re.compile(
    r"\b(?:someone|somebody|some1|anyone|another|replacement|someone else|a healthy|backup|"
    r"back-up|fill-in|fill in|insurance|"
    r"stream(?:er)?|replace|wait (?:on|it out)|ride it out|stash)\b")
#: "with 3 games left", "4 games this week", "at least 3 games", "play 4 times": a number of
#: games left this matchup a player must have (a filter), not how many players to list.
GAMES_FILTER = re.compile(
    r"\b(?:with|has|have|having|got|at least|min(?:imum)?|w/)\s+(\d|one|two|three|four|five)"
    r"(?:\+|\s+or more)?\s+games?\b|"
    r"\b(\d|one|two|three|four|five)(?:\+|\s+or more)?\s+games?\s+(?:left|remaining|this "
    r"(?:week|matchup)|the rest of)|"
    r"\bplays?\s+(\d|one|two|three|four|five)\s+(?:times|games)\b|"
    r"\b(\d|one|two|three|four|five)[- ]game (?:week|players?|guys?)\b")
#: "their" / "them" for the team of the previous turn ("their top guy?").
THEIR = re.compile(r"\b(?:their|theirs|they|them|they're|theyre)\b")
#: Endings that lean on the previous turn: "is brunson playing then?", "him too?".
FOLLOWUP_TAIL = re.compile(r"\b(?:then|that day|that night|too|as well|instead)\W*$")
#: Words that add nothing to a follow-up ("tho", "instead", "as well").
FILLER = frozenset("""bout abt tho though instead too either lol lmao again then thx thanks
ty pls plz yeah yea ya yep cool nice hey btw wbu hbu aight alright well now same question
thing q k kk as well one night nite morning afternoon evening""".split())
#: Pronouns that point at the previous turn's player.
PRONOUNS = re.compile(r"\b(?:he|him|his|he's|hes|himself|that guy|this guy|dude)\b")

#: Words that say "of my opponent" / "of another team".
OPPONENT = re.compile(r"\b(?:opponent'?s?|opp|opps|the other guy'?s?|my matchup'?s? team|"
                      r"who (?:am i|i'm|im) (?:playing|facing|up against)|their team|"
                      r"(?:team|guy|squad|dude|manager) (?:i'm|im|i am|that i'm|that im) "
                      r"(?:playing|facing|up against|against)|"
                      r"they have|they got)\b")

#: NBA team (the common abbreviation, fantasy.constants.PRO_TEAM_ABBREVS) -> the words
#: members use for it. Nicknames that are also English words ("heat", "magic", "jazz",
#: "nets", "kings"...) count only as NBA teams next to a cue (NBA_TEAM_CUE).
NBA_TEAMS: dict[str, tuple[str, ...]] = {
    "ATL": ("hawks", "atlanta"), "BOS": ("celtics", "celts", "boston"),
    "BKN": ("nets", "brooklyn"), "CHA": ("hornets", "charlotte"),
    "CHI": ("bulls", "chicago"), "CLE": ("cavaliers", "cavs", "cleveland"),
    "DAL": ("mavericks", "mavs", "dallas"), "DEN": ("nuggets", "nugs", "denver"),
    "DET": ("pistons", "detroit"), "GSW": ("warriors", "dubs", "golden state", "gsw"),
    "HOU": ("rockets", "houston"), "IND": ("pacers", "indiana"),
    "LAC": ("clippers", "clips", "lac"), "LAL": ("lakers", "lal"),
    "MEM": ("grizzlies", "grizz", "memphis"), "MIA": ("heat", "miami"),
    "MIL": ("bucks", "milwaukee"), "MIN": ("timberwolves", "wolves", "minnesota"),
    "NOP": ("pelicans", "pels", "new orleans", "nola", "nop"),
    "NYK": ("knicks", "nyk"), "OKC": ("thunder", "okc", "oklahoma city"),
    "ORL": ("magic", "orlando"), "PHL": ("76ers", "sixers", "philly", "philadelphia"),
    "PHO": ("suns", "phoenix", "phx"), "POR": ("trail blazers", "blazers", "portland"),
    "SAC": ("kings", "sacramento"), "SAS": ("spurs", "san antonio"),
    "TOR": ("raptors", "raps", "toronto"), "UTA": ("jazz", "utah"),
    "WAS": ("wizards", "wiz", "washington"),
}
#: NBA team words that are also ordinary words: teams only after "the" / "vs" / "@" or
#: before "game" / "play" ("is the heat game on", "the magic play tonight?").
NBA_TEAM_WORDS = frozenset({"heat", "magic", "jazz", "nets", "kings", "suns", "thunder",
                            "bulls", "bucks", "hawks", "spurs", "rockets", "wolves", "clips",
                            "raps", "wiz", "dubs", "clippers", "pistons", "warriors",
                            "wizards", "hornets", "pelicans", "raptors", "nuggets",
                            "charlotte", "orlando", "phoenix", "washington"})
NBA_TEAM_CUE = (r"(?:\bthe|\bvs\.?|\bversus|@|\bagainst|\bplays?|\bplaying|\bfacing|"
                r"\bface)\s+{word}\b|\b{word}\s+(?:game|games|play|plays|playing|"
                r"schedule|tonight|tonite|today|tomorrow|tmrw|this week|on)\b")

#: Words right before a player the member wants kept in any plan: "keep X", "don't drop X",
#: "hold onto X", "without dropping X", "anyone but X", "protect X".
_NEG = r"(?:don'?t|do not|dont|never|not|no|without|won'?t|wont|can'?t|cant|shouldn'?t)"
KEEP_BEFORE = re.compile(
    rf"(?:\b(?:keep|keeping|protect|protecting|hold onto|hold on to|hang onto|hang on to|"
    rf"leave|except|besides|other than|anyone but|anybody but|but not)"
    rf"|\b{_NEG}\s+(?:\w+\s+)?(?:drop|dropping|cut|cutting|touch|touching|trade|trading|"
    rf"release|waive|move|moving|lose|losing|part with|get rid of|swap|bench)"
    rf")\s*(?:@\s*)?$")
#: Words right after a player that say he stays: "X is untouchable", "X stays", "X is off
#: limits", "X isn't going anywhere", "X is safe", "X is a keeper".
KEEP_AFTER = re.compile(
    r"^\W*(?:(?:and|&|,|or)\s+\S+(?:\s+\S+)?\s+)?(?:(?:is|are|'s|s|stays?|remains?|must|has to|"
    r"have to|needs? to|should)\s+)*(?:untouchable|off[- ]?limits|safe\b(?!\s+to\s+(?:drop|cut))|staying|stay(?:s)?\b(?!\s+out)|"
    r"not (?:going|goin|droppable|available|for sale|on the table)|"
    r"(?:isn'?t|is not|aren'?t) (?:going|goin|droppable|available|for sale|on the table)|"
    r"a keeper|keepers|locked in|non[- ]?negotiable|sacred|a lock)")
#: "leave my stars alone", "don't gut my roster", "without destroying my team", "keep my core".
SPARE_CORE = re.compile(
    rf"\b(?:leave|keep|protect|spare|don'?t touch|dont touch|do not touch|not touching|"
    rf"without touching|{_NEG}\s+(?:\w+\s+)?(?:drop|dropping|cut|cutting|trade|trading|lose|losing))"
    r"\s+(?:any of\s+)?(?:my|the|our)\s+(?:\w+\s+)?(?:stars?|studs?|core|best (?:players?|guys)|"
    r"top (?:players?|guys|dudes)|starters|big names|main guys|good (?:players?|guys)|"
    r"franchise guys|cornerstones?|stud players|key (?:players?|guys))\b"
    rf"|\b{_NEG}\s+(?:\w+\s+)?(?:gut|gutting|destroy|destroying|wreck|wrecking|blow up|"
    r"blowing up|blow apart|tear up|tearing up|tear apart|ruin|ruining|nuke|nuking|trash|"
    r"trashing|overhaul|overhauling|mess up|messing up|blow(?:ing)? (?:it|this) up)"
    r"\s+(?:my|the|our)\s+(?:\w+\s+)?(?:roster|team|squad|lineup|core|group)\b"
    r"|\b(?:nothing|no(?:thing)?)\s+(?:too\s+)?(?:drastic|crazy|wild|radical)\b"
    r"|\bminimal (?:changes|moves)\b|\blight touch\b|\bsmall (?:tweaks|changes) only\b")

#: Where one message holds a second question: a question mark with more after it, ";", "+",
#: "&", "also", "(and) then", "and after that", or "and" before a question word ("am i ahead
#: and who's hurt").
#: A request of its own that starts with what to do: "then find me a streamer", "plus review
#: my matchup".
_DO = (r"(?:find|review|analy[sz]e|optimi[sz]e|set|stream|check|run|pull up|look at|suggest|"
       r"recommend|get me|help me|grab me)")
_QWORD = (r"(?:am|are|is|was|who|whos|who's|what|whats|what's|when|whens|when's|where|how|"
          r"hows|how's|which|do|does|did|can|could|should|will|would|any|give|show|tell|list)")
SECOND_QUESTION = re.compile(rf"\?+\s+(?=\S)|\s*;\s*|\s+\+\s*|\s+&\s+|,?\s+(?:and\s+)?also\s+|"
                             r",?\s+(?:and\s+)?then\s+(?=(?:my|the|show|give|tell|list|who|what|how)\b)|"
                             rf",?\s+(?:and\s+)?(?:then|plus)\s+(?={_DO}\b)|"
                             r",?\s+and\s+after\s+that\s+|"
                             rf",?\s+(?:and|plus|n)\s+(?={_QWORD}\b)",
                             re.IGNORECASE)

#: The start of a question of its own (after the first): a question word, or an opener.
QUESTION_START = re.compile(rf"^\W*(?:{_QWORD}|what\s+about|how\s+about|and|also|plus|now|"
                            r"then|whats|whos|hows|wheres|whens|is|are|do|does)\b|\?\s*$",
                            re.IGNORECASE)

#: Another sport or a non-basketball fantasy game named: the request is out of scope.
OTHER_SPORT = re.compile(r"\b(?:nfl|nhl|mlb|mls|epl|fpl|pga|nascar|ufc|f1|football|hockey|baseball|"
                         r"soccer|golf|tennis|cricket|rugby|premier league|quarterbacks?|qbs?|"
                         r"wide receivers?|running backs?|tight ends?|kickers?|touchdowns?|"
                         r"pitchers?|goalies?|goaltenders?|strikeouts?|home runs?|d/st|dst)\b")
#: "help me <do something>": the something is the request ("help me find a center").
HELP_ME = re.compile(r"^\W*(?:(?:hey|yo|pls|please|plz|can you|could you|would you|can u|"
                     r"will you|u)\s+)*help\s+me\s+(?:out\s+)?(?:to\s+|with\s+)?"
                     r"(?!(?:use|understand|link|connect|set up|get started|learn|know|with "
                     r"(?:the|this) bot)\b)(?=\S+\s+\S+)", re.IGNORECASE)

#: Injury words that make a player question about health (tie-breaker only).
INJURY = re.compile(r"injur|injry|\bdtd\b|day[- ]to[- ]day|\bgtd\b|questionable|doubtful|"
                    r"\bout\b|\bhurt\b|banged up|\bsore\b|sprain|\bankle|\bknee|\bhamstring|"
                    r"\bback from\b|\bsidelined\b|\bil\b|\bir\b")


#: Words that ask to list injured players too ("best free agents including injured guys").
INCLUDE_INJURED = re.compile(r"injured|any status|including out|include injured|even injured|"
                             r"stash")
#: Injury-status words -> the ESPN statuses they ask about ("who on my team is out").
STATUS_WORDS: dict[str, frozenset[str]] = {
    "dtd": frozenset({"DAY_TO_DAY"}), "day-to-day": frozenset({"DAY_TO_DAY"}),
    "day to day": frozenset({"DAY_TO_DAY"}), "questionable": frozenset({"QUESTIONABLE"}),
    "gtd": UNCERTAIN_STATUSES, "game-time": UNCERTAIN_STATUSES,
    "doubtful": frozenset({"DOUBTFUL"}), "probable": frozenset({"PROBABLE"}),
    " out": OUT_STATUSES, "ruled out": OUT_STATUSES,
}
#: Which league settings line a question is after (its first word), by the words asking for
#: it, first match wins.
SETTING_WORDS: tuple[tuple[str, str], ...] = (
    ("Waiver order", r"\bwaivers?\W+(?:\w+\W+)?(?:order|priority|position|rank|spot)|"
                     r"\bpriority\b|\bin line\b|\bfirst dibs\b|\b(?:top|first) claim"),
    ("Acquisitions", r"\b(?:acquisitions?|adds?|pickups?|pick ?ups|moves|transactions?)\b"),
    ("Trades", r"\bvetos?\b|\bvetoe[sd]\b|\bvotes?\b|\breview (?:period|time|window)|"
               r"\btrades?\b[^.?!]{0,25}\b(?:to go through|get processed|reviewed)"),
    ("Ties", r"\btie-?break|\btie rules?\b|\bties? (?:work|count)|\bties? (?:are |get )?"
             r"(?:broken|decided|settled|handled)|\b(?:if|when) (?:we|i|you|two teams|teams|"
             r"it|a matchup|a category|the matchup|a cat|both teams)\s+(?:\w+\s+)?(?:tie|ties|"
             r"are tied|end up tied|finish tied|end in a tie)\b|\btied (?:on|in) (?:record|the "
             r"standings)"),
    ("Trade deadline", r"\btrade|deadline"),
    ("Playoffs", r"\bplayoffs?|regular season"),
    ("Waivers", r"\bwaivers?|\bfaab|claims?"),
    ("Roster", r"\b(?:ir|il|roster|bench|slots?|spots?|starters?|util|positions?)\b"),
    ("Lineups lock", r"\block"),
)
#: A matchup period named by its number: "week 5", "wk 12", "matchup #3".
PERIOD_NUMBER = re.compile(r"\b(?:week|wk|matchup(?: period)?|round)\s*#?\s*(\d{1,2})\b")
#: A past matchup period counted back from the one being played: "two weeks ago", "3 weeks
#: back", "the week before last".
PERIOD_AGO = re.compile(r"\b(?P<n>a|one|two|three|four|five|six|\d{1,2})\s+(?:weeks?|matchups?)\s+"
                        r"(?:ago|back|before this one|earlier)\b|\b(?P<two>(?:the\s+)?week\s+"
                        r"before\s+last|(?:the\s+)?matchup\s+before\s+last)\b")
#: A week picked by its score: the member's best / worst week, the league's high / low score.
WEEK_BEST = re.compile(r"\b(?:best|highest|biggest|top|most|strongest|greatest)[- ](?:\w+[- ])?(?:scoring[- ])?"
                       r"(?:week|matchup|score|total)s?\b|\b(?:which|what|the) (?:week|matchup)\b"
                       r"[^.?!]{0,30}\b(?:most|highest|best|biggest)\b")
WEEK_WORST = re.compile(r"\b(?:worst|lowest|smallest|fewest|weakest|poorest|ugliest)[- ](?:\w+[- ])?(?:scoring[- ])?"
                        r"(?:week|matchup|score|total)s?\b|\b(?:which|what|the) (?:week|matchup)\b"
                        r"[^.?!]{0,30}\b(?:least|fewest|lowest|worst)\b")
LEAGUE_HIGH = re.compile(r"\b(?:who|which team|what team|whose team|anyone|anybody)\b[^.?!]{0,25}"
                         r"\b(?:scored|put up|had|dropped|posted|got)\s+the\s+(?:most|highest|"
                         r"biggest|top)\b|\b(?:league'?s?|weekly|week'?s?)\s+(?:high|top)\s+"
                         r"score|\b(?:high|top)\s+score\s+(?:of|in|for|from|last)\b")
LEAGUE_LOW = re.compile(r"\b(?:who|which team|what team)\b[^.?!]{0,25}\b(?:scored|put up|had|"
                        r"posted|got)\s+the\s+(?:least|fewest|lowest)\b|\b(?:league'?s?|weekly|"
                        r"week'?s?)\s+low\s+score")
#: The next matchup's opponent asked: "who do i play next week", "my opponent after this one".
NEXT_OPPONENT = re.compile(
    r"^(?=.*\b(?:next (?:week|matchup|round)|after this (?:one|week|matchup)|following week|"
    r"the week after)\b)(?=.*\b(?:who|whom|opponent|opp|play(?:ing)?|fac(?:e|ing)|against|vs|"
    r"matched up|matchup against)\b)(?!.*\b(?:how many|games?|schedule|stream|start|lineup)\b)")
#: Whether a named player can be picked up: "is X available", "is X still on waivers", "X a
#: free agent?", "is X up for grabs" (a day named makes "available" mean playing).
AVAILABLE_ASK = re.compile(
    r"\b(?:available|a free agent|free agent|an fa|on (?:the )?(?:waiver wire|waivers|wire)|"
    r"still out there|up for grabs|unowned|unrostered|still (?:there|free)|pick ?up ?able|"
    r"claimable|gettable)\b")
#: A message that opens by wanting more of something for the team: "need dimes", "i really
#: want blocks", "help me win rebounds", "gotta catch up in steals", "more threes please"
#: (with a category named: a plan for the matchup aimed at it).
WANT_MORE = re.compile(
    r"^\W*(?:(?:i|we)\s+)?(?:really\s+|badly\s+|desperately\s+|def(?:initely)?\s+)?"
    r"(?:need|needs|want|could use|gotta (?:get|win|catch up in|gain)|have to (?:win|get|gain)|"
    r"must (?:win|get))\b(?!\s+(?:to know|help with))"
    r"|^\W*help me (?:win|get|gain|catch up|boost|improve|grab|steal|flip)\b"
    r"|^\W*(?:boost|improve|bump up|pump up|get me more|more)\b"
    r"|^\W*(?:(?:i|we)\s+)?(?:gotta|got to|have to|need to)\s+(?:catch up|win|gain|boost|"
    r"improve|get|climb)\b")
#: Words that ask for players to list or stream, not a plan.
LIST_WORDS = re.compile(r"\b(?:stream\w*|pick ?ups?|free agents?|fa|fas|waivers?|who|whom|"
                        r"which|list|options)\b")
#: The seed a team holds now (the standings), not the one it is projected to get: "what seed
#: am i right now", "if the playoffs started today where would i be seeded".
CURRENT_SEED = re.compile(
    r"^(?=.*\bseed(?:s|ed|ing)?\b)(?=.*\b(?:right now|rn|now|currently|current|today|at the "
    r"moment|as of (?:now|today)|as it stands|as things stand|so far)\b)"
    r"(?!.*\b(?:projected|project|likely|odds|chances?|will i|gonna|going to|end up|finish)\b)")
#: Settings lines that only a rule answers: a question that names one is about the rules.
RULE_ONLY_SETTINGS = frozenset({"Trades", "Ties"})
#: The member speaks about himself ("what did I add"), not the whole league.
ABOUT_ME = re.compile(r"\b(?:i|i've|ive|my|me|mine)\b")
#: How-to help topics: (name, words that pick it), in the order of the help answers.
#: What FanVise will not do, by kind (Request.limit): accept moves by itself, empty a roster,
#: act as the league's commissioner, hand out anyone's ESPN credentials.
LIMITS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("auto_accept", re.compile(
        r"\bauto[- ]?(?:accept|approv|confirm|execut|apply)\w*"
        # on its own (automatically, without asking) + accepting/making + the moves
        r"|^(?=.*\b(?:automatic(?:ally)?|without (?:asking|checking|confirming|my (?:ok|okay|"
        r"approval))|by (?:your|it)self|on (?:your|its) own)\b)"
        r"(?=.*\b(?:accept|approv|take|make|execut|apply|confirm|do)\w*\b)"
        r"(?=.*\b(?:moves?|suggestions?|recommendations?|trades?|pickups?|adds?|drops?|"
        r"everything|all of them)\b)")),
    ("mass_drop", re.compile(
        r"\b(?:drop|cut|release|waive|dump|clear|wipe|nuke|gut|empty|get rid of)\w*\s+(?:out\s+)?"
        r"(?:my|the|our)\s+(?:whole|entire|full|complete)\s+(?:roster|team|squad|bench)"
        r"|\b(?:drop|cut|release|waive|dump|get rid of)\w*\s+(?:every(?:one|body| player|"
        r" single player| guy)|all\s+(?:of\s+)?(?:my\s+)?(?:players|guys|\d+))"
        r"|\b(?:wipe|clear|empty)\w*\s+(?:out\s+)?my\s+(?:roster|team)\b")),
    ("commissioner", re.compile(
        r"(?:^|\b(?:you|u|fanvise|bot|pls|please|can|could|go)\s+)veto(?:es|ed)?\b"
        r"|\bveto\s+(?:the|that|this|his|her|their)\s+trade"
        r"|\b(?:reverse|undo|cancel|block|overturn|void)\s+(?:the|that|this|his|her|their)\s+"
        r"trade"
        r"|\bas (?:the )?(?:commish|commissioner|league manager|lm)\b"
        r"|\b(?:kick|boot|remove)\s+\w+(?:\s+\w+)?\s+(?:out of|from) the league\b"
        r"|\b(?:change|edit)\s+(?:the\s+)?(?:league(?:'s)?\s+)?(?:scoring|settings|rules)\s+"
        r"(?:for us|to|so)\b")),
    ("credentials", re.compile(
        r"\b(?:what(?:'s|s| is| are)|give|send|tell|show|share|leak|find|get|dm)\b[^?.!]{0,30}"
        r"\b(?:password|passwd|pw|login|log-in|log in info|credentials|espn_s2|swid|cookies?)"
        r"\b")),
)
#: A how-to question ("how do i ...", "which command ...", "is there a slash command ...").
HOWTO_FORM = re.compile(r"\b(?:how (?:do|can|would|should|does) (?:i|we|u|you|one)|how to|"
                        r"what(?:'s|s| is) the (?:command|way)|which command|what command|"
                        r"is there (?:a|any|some)\b|where do i|can i (?:get|have|make|set|turn))")
#: ...about FanVise's own workings: a command, a post, a link, a button, getting it to do a
#: thing ("how can i have the lineup posted every morning", "what command looks a player up").
HOWTO_FANVISE = re.compile(r"\b(?:commands?|slash|/[a-z]+|(?:get|make|have|tell|ask)s?\s+"
                           r"(?:you|u|fanvise|the bot|it)\b|post(?:ed|s|ing)?\b|every (?:morning|"
                           r"day)|each (?:morning|day)|daily|turn (?:it )?(?:on|off)|set (?:it )?up|"
                           r"hook|link|connect|unlink|buttons?|approve|decline|fanvise|this bot|"
                           r"the bot)")
HELP_TOPICS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("decline", ("decline", "reject", "say no", "don't want", "dont want", "undo", "cancel",
                 "turn down", "refuse", "not make the move", "skip the move", "no to")),
    ("approve", ("approve", "approval", "accept", "confirm", "button",
                 "card", "execute", "make the move", "apply")),
    ("link", ("link", "connect", "team id", "my team", "espn_s2", "swid", "cookie", "private",
              "unlink", "league id", "hook up", "hook", "espn team", "own league", "my league",
              "my own", "set up my", "real league", "instead of the demo")),
    ("daily", ("daily", "every day", "morning", "post", "posts", "posted", "schedule a", "alert",
               "reminder", "stop the", "turn off", "each day")),
    ("lineup", ("lineup", "start", "who sits", "bench")),
    ("stream", ("stream", "streaming", "streamer", "streamers", "waiver", "free agent",
                "pick up", "pickup", "pickups")),
    ("optimize", ("optimize", "optimise", "moves", "review my matchup")),
    ("player", ("look up", "looking up", "lookup", "look a player", "look someone",
                "look players", "player lookup",
                "player report", "injury report", "a player s status", "check on a player",
                "research a player")),
    ("matchup", ("score", "matchup score", "am i winning", "projection")),
    ("commands", ("command", "slash", "commands")),
)
#: Words of a how-to question ("how do i ...", "what's the command").
HOWTO_WORDS = (" how ", " where ", " what do i ", " can i ", " how to ", " what s the command",
               " command")
#: Words that thank ("thanks!", "ty", "appreciate it").
THANKS_WORDS = frozenset({"thanks", "thank", "thx", "thnx", "tx", "ty", "tysm", "tyvm",
                          "appreciate", "appreciated", "cheers"})
#: Words around a thank-you or an acknowledgement ("thank you so much", "ok man").
ACK_FILLER = frozenset({"much", "so", "you", "u", "a", "lot", "ton", "man", "bro", "dude",
                        "it", "that", "again"})
#: Every word of a message that only thanks or acknowledges ("ok cool", "got it, ty").
ACK_WORDS = THANKS_WORDS | ACK_FILLER | frozenset({
    "ok", "okay", "okey", "k", "kk", "cool", "nice", "great", "awesome", "perfect", "sweet",
    "good", "sounds", "got", "gotcha", "bet", "word", "noted", "alright", "aight", "sure",
    "lol", "haha", "yep", "yup", "np", "fine", "solid", "love", "helpful", "very", "super"})

__all__ = [
    "ABOUT_ME", "ACK_FILLER", "ACK_WORDS", "HELP_TOPICS", "HOWTO_FANVISE", "HOWTO_FORM",
    "HOWTO_WORDS", "LIMITS", "INCLUDE_INJURED",
    "SETTING_WORDS", "RULE_ONLY_SETTINGS", "PERIOD_NUMBER", "PERIOD_AGO", "WEEK_BEST",
    "WEEK_WORST", "LEAGUE_HIGH", "LEAGUE_LOW", "NEXT_OPPONENT", "AVAILABLE_ASK",
    "WANT_MORE", "LIST_WORDS", "CURRENT_SEED", "STATUS_WORDS", "THANKS_WORDS",
    "ACTIONS", "ADD_VERBS", "KEEP_AFTER", "KEEP_BEFORE", "SPARE_CORE", "OTHER_SPORT", "HELP_ME", "SECOND_QUESTION", "QUESTION_START", "RELATIVE_DAY", "THEIR", "GAME_WORDS", "PAST_CUE", "RULES_CUE", "ACTIVITY_CUE", "GENERAL_CUE", "CATEGORY_CUE", "REPLACE_CUE", "GAMES_FILTER", "CATEGORIES", "DAY_LEAD", "DROP_VERBS", "FILLER",
    "FOLLOWUP_OPENERS", "FOLLOWUP_TAIL", "INJURY",
    "LIST_REF", "NBA_TEAMS", "NBA_TEAM_CUE", "NBA_TEAM_WORDS", "NUMBER_WORDS", "OPPONENT", "ORDINALS", "POSITIONS", "PRONOUNS",
    "SHORT_WEEKDAYS", "STRONG_FOLLOWUP", "TODAY_WORDS", "TOMORROW_WORDS", "WEEKDAYS",
    "YESTERDAY_WORDS", "CHAT_VOCABULARY", "CORRECTION", "REPLACE_HIM", "DAYS_FROM_TODAY", "MONTHS", "MONTH_DATE", "MONTH_DAY",
    "WEEK_WORDS",
]
