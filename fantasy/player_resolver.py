"""The one player resolver: names as members write them -> league players.

    resolver = PlayerResolver(players)                    # rostered + free agents + ESPN list
    resolver.resolve("goebert")                           # NameMatch(status="resolved", Rudy Gobert)
    resolver.find("drop simmons and pick up coby white")  # two NameMatches, in order

It reads full names, last names in any case, first names where unique, "J. Brunson",
nicknames and short forms (fantasy/lexicon/player_aliases.txt: KD, Steph, SGA, Jokic...),
accents folded (Jokić = jokic), single-word typos against first and last names with a margin,
and ESPN ids. A name shared by several players is `ambiguous` with the candidates. A
name-shaped span that matches nobody ("marcus thornbury", "Zephyr Quillington") is
`not_found`: the caller says so and never shows a status for it.

Ordinary words are never read as players: a word that is both English and a surname
(young, love, green, smart...: fantasy/lexicon/common_words.txt) names a player only with a cue
("is love playing", "start Young", "drop green"). Typo matching never applies to English
words; pass the embedder's `vocabulary` (whole words) to also keep typos of ordinary words
("injry", "whens") from being taken for unknown names.
"""

from __future__ import annotations

import re
import unicodedata
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Literal

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA, Levenshtein

from fantasy.models import Player

DATA = Path(__file__).parent / "lexicon"
Status = Literal["resolved", "ambiguous", "not_found"]

#: Name suffixes left out of last-name keys ("Jaren Jackson Jr." -> jackson).
SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv", "v"})
#: Words right before a common-word surname that make it a player ("start young").
CUE_BEFORE = frozenset({"is", "isnt", "start", "starting", "sit", "sitting", "bench", "drop",
                        "dropping", "add", "adding", "pick", "up", "grab", "cut", "trade",
                        "stream", "hold", "about", "on", "with", "was", "does", "has", "did",
                        "keep", "over", "vs", "for", "will", "wont", "meant", "mean",
                        "not"})
#: Words right after a common-word surname that make it a player ("love playing").
CUE_AFTER = frozenset({"playing", "play", "injured", "injury", "hurt", "out", "status",
                       "healthy", "back", "doing", "been", "or", "vs", "and", "s", "is",
                       "questionable", "dtd", "gtd", "tonight", "today", "tomorrow", "tmrw",
                       "news", "update", "stats", "game", "games"})
#: Chat words and spellings that are never names without a cue ("ja that makes sense",
#: "sit tonite"), besides fantasy/lexicon/common_words.txt.
CHAT_WORDS = frozenset("""ja nah yea yeh tonite tonit tnite 2nite 2night tmr tmrw tmrow tmw tomm
2moro 2morrow wat wut wht bout abt rn lol lmao smh tbh ngl imo idk pls plz thx ty bro fr
lowkey wyd rip bruh""".split())
#: Words right before a common word that make it an ordinary word ("the ad is annoying").
ARTICLES = frozenset({"the", "a", "an", "this", "that", "no", "any"})
#: A message of at most this many words that holds a common-word alias is about him
#: ("and ad?", "ja tho").
SHORT_MESSAGE = 3
#: Fuzzy score needed to take a single word for a misspelt name, and its margin over the
#: next different player.
TYPO_SCORE = 84.0
TYPO_MARGIN = 5.0
#: Fuzzy score of a surname close enough to suggest ("durand" -> Durant).
SUGGEST_SCORE = 80.0
#: Fuzzy score of a given name close enough to a league player's to be a typo of it
#: ("jaylen" / Jalen, "steven" / Stephen).
FIRST_NAME_TYPO = 70.0
#: Fuzzy score of a 2-3 word span against a full name ("jordan pool").
FULL_SCORE = 88.0
#: Shortest word read as a one-edit typo (a letter changed, added, dropped or two swapped:
#: "lebrun", "tatom", "kyrei") when its ratio is under TYPO_SCORE.
ONE_EDIT_LEN = 5
#: How many answers (texts and names) a resolver remembers.
ANSWERS_KEPT = 512
#: Shortest unknown single word reported as an invented name.
MIN_UNKNOWN_LEN = 5
#: Suffix -> endings of the stem that make a known word: "optimize" (optimal), "prioritize"
#: (priority), "hoarding", "playin" (playing). A morphological variant of an English word
#: is an English word: never a player by typo, never an unknown name.
MORPHOLOGY: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("izations", ("ize", "al", "y", "e", "")), ("ization", ("ize", "al", "y", "e", "")),
    ("izing", ("ize", "al", "y", "ic", "e", "")), ("ising", ("ise", "al", "y", "ic", "e", "")),
    ("ized", ("ize", "al", "y", "ic", "e", "")), ("ised", ("ise", "al", "y", "ic", "e", "")),
    ("izes", ("ize", "al", "y", "ic", "e", "")), ("ises", ("ise", "al", "y", "ic", "e", "")),
    ("ize", ("al", "y", "ic", "ity", "ation", "e", "")),
    ("ise", ("al", "y", "ic", "ity", "ation", "e", "")),
    ("ing", ("", "e")), ("in", ("ing",)), ("ed", ("", "e")), ("es", ("", "e")), ("s", ("",)),
    ("ers", ("", "e")), ("er", ("", "e")), ("ly", ("",)), ("ness", ("",)), ("ment", ("",)),
    ("able", ("", "e")), ("ful", ("",)),
)


@lru_cache(maxsize=8192)
def name_key(name: str) -> str:
    """Normalised player-name key: ascii, lower case, words joined by '_'
    ("Luka Dončić" -> luka_doncic)."""
    ascii_ = unicodedata.normalize("NFKD", name or "").encode("ascii", "ignore").decode("ascii")
    return "_".join(re.findall(r"[a-z0-9]+", ascii_.lower()))


@lru_cache(maxsize=8)
def _word_list(filename: str) -> frozenset[str]:
    """The words of a lexicon file (whitespace-separated, '#' lines are comments)."""
    words: set[str] = set()
    for line in (DATA / filename).read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            words.update(line.split())
    return frozenset(words)


def common_words() -> frozenset[str]:
    """English and chat words that are never read as a name without a cue."""
    return _word_list("common_words.txt")


def first_names() -> frozenset[str]:
    """Common given names (fantasy/lexicon/first_names.txt): the first word of a name-shaped
    span ("<first name> <unknown surname>")."""
    return _word_list("first_names.txt")


@lru_cache(maxsize=1)
def not_players() -> frozenset[str]:
    """Names of people who are no current NBA player (fantasy/lexicon/not_players.txt: retired
    NBA players, other sports' athletes), normalised, words joined by spaces."""
    out: set[str] = set()
    for line in (DATA / "not_players.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            out.add(" ".join(w for w in name_key(line.replace("'", "")).split("_") if w))
    return frozenset(out)


def surnames() -> frozenset[str]:
    """Common surnames of people (fantasy/lexicon/surnames.txt): a word of it that is no league
    player's surname names someone else, never a typo of a league surname."""
    return _word_list("surnames.txt")


@lru_cache(maxsize=1)
def _alias_lines() -> tuple[tuple[str, str], ...]:
    out = []
    for line in (DATA / "player_aliases.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#") and "=" in line:
            alias, _, full = line.partition("=")
            out.append((name_key(alias).replace("_", " "), full.strip()))
    return tuple(out)


#: Nickname / short form (normalised, words joined by spaces) -> full name.
ALIASES: Mapping[str, str] = dict(_alias_lines())


@dataclass(frozen=True)
class NameMatch:
    """A name found in a text (or given alone) and what it resolves to."""

    words: str
    status: Status
    player: Player | None = None
    candidates: tuple[Player, ...] = ()
    score: float = 0.0
    start: int = 0
    end: int = 0
    #: not found because the name is someone known who is no current NBA player (a retired
    #: star, another sport's athlete: fantasy/lexicon/not_players.txt)
    outside: bool = False

    @property
    def resolved(self) -> bool:
        """True when exactly one player is meant."""
        return self.status == "resolved" and self.player is not None


@dataclass(frozen=True)
class _Token:
    text: str        # folded lower case
    raw: str         # as written
    start: int
    end: int


_TOKEN_RE = re.compile(r"[A-Za-zÀ-ÿĀ-ž0-9]+(?:[.'’][A-Za-zÀ-ÿĀ-ž]+)*\.?")


def _tokens(text: str) -> list[_Token]:
    """Words with their spans; "brunson's" -> brunson + s, "o.g." -> og, "j." -> j."""
    out: list[_Token] = []
    for m in _TOKEN_RE.finditer(text or ""):
        raw = m.group(0).rstrip(".")
        start = m.start()
        poss = re.search(r"['’]s$", raw, flags=re.IGNORECASE)
        core = raw[: poss.start()] if poss else raw
        folded = "".join(re.findall(r"[a-z0-9]+", name_key(core).replace("_", "")))
        if re.fullmatch(r"[A-Za-z]\.[A-Za-z]\.?", m.group(0)):  # O.G., P.J.
            folded = re.sub(r"[^a-z]", "", m.group(0).lower())
        if folded:
            out.append(_Token(folded, core, start, start + len(core)))
        if poss:
            out.append(_Token("s", "s", start + len(core), m.end()))
    return out


@dataclass
class _Index:
    by_id: dict[int, Player] = field(default_factory=dict)
    full: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    last: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    first: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    alias: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    first_names: set[str] = field(default_factory=set)


def _name_parts(name: str) -> tuple[list[str], str, str]:
    """(all words, first name, last name) of a player's name; "O.G. Anunoby" -> og."""
    words = [w for w in re.split(r"[\s\-]+", name_key(name.replace(".", "")).replace("_", " "))
             if w]
    core = [w for w in words if w not in SUFFIXES] or words
    return words, core[0], core[-1]


class PlayerResolver:
    """Resolves names as members write them against one player pool (see module doc)."""

    def __init__(self, players: Iterable[Player], *, aliases: Mapping[str, str] | None = None,
                 vocabulary: Iterable[str] | None = None,
                 other_names: Iterable[str] = ()) -> None:
        """`vocabulary`: whole English words (e.g. the embedder's); `other_names`: names that
        are not players and must not be reported as unknown players (fantasy team names)."""
        self._ix = _Index()
        ix = self._ix
        for p in players:
            if p.id in ix.by_id:
                continue
            ix.by_id[p.id] = p
            words, first, last = _name_parts(p.name)
            ix.full[" ".join(words)].append(p.id)
            core = [w for w in words if w not in SUFFIXES]
            if core != words:
                ix.full[" ".join(core)].append(p.id)
            if len(words) >= 2:
                ix.last[last].append(p.id)
                if "-" in p.name:  # Gilgeous-Alexander: also "gilgeous" and "alexander"
                    for part in re.split(r"[\s\-]+", name_key(p.name).replace("_", " "))[1:]:
                        if part != last and part not in SUFFIXES:
                            ix.last[part].append(p.id)
                ix.first[first].append(p.id)
                ix.first_names.add(first)
            joined = re.sub(r"['’]", "", p.name)  # "Jae'Sean" is typed (and tokenised) whole
            if joined != p.name:
                jwords, jfirst, jlast = _name_parts(joined)
                if jwords != words:
                    ix.full[" ".join(jwords)].append(p.id)
                    if len(jwords) >= 2:
                        if jfirst != first:
                            ix.first[jfirst].append(p.id)
                            ix.first_names.add(jfirst)
                        if jlast != last:
                            ix.last[jlast].append(p.id)
        names = {name_key(p.name).replace("_", " "): p.id for p in ix.by_id.values()}
        for alias, full in (aliases if aliases is not None else ALIASES).items():
            pid = names.get(name_key(full).replace("_", " "))
            if pid is not None:
                ix.alias[name_key(alias).replace("_", " ")].append(pid)
        #: people who are no league player ("michael jordan", "kobe"), unless one is
        self._others = frozenset(n for n in not_players() if n not in ix.full
                                 and n not in ix.alias)
        self._common = common_words() | CHAT_WORDS
        self._vocab = frozenset(w for w in (vocabulary or ()) if w.isalpha())
        self._vocab_list = sorted(self._vocab)
        self._other = {name_key(n).replace("_", " ") for n in other_names}
        self._other_words = {w for n in self._other for w in n.split()}
        self._first_lex = (first_names() | ix.first_names) - self._common
        self._surnames = surnames() - self._common
        self._single = sorted(set(ix.last) | set(ix.first) | {a for a in ix.alias if " " not in a})
        self._full_keys = sorted(ix.full)
        #: Answers of `resolve` / `find` by (query, kind), newest last: a resolver is
        #: immutable and kept per league snapshot, and a turn reads the same text and names
        #: several times (understanding, the model, each tool resolving its argument).
        self._answers: OrderedDict[tuple[str, bool], tuple[NameMatch, ...]] = OrderedDict()

    # ------------------------------------------------------------------ public

    @classmethod
    def from_names(cls, names: Iterable[str], **kw: object) -> PlayerResolver:
        """A resolver over bare names (ids -1, -2, ...), for callers without Player objects."""
        players = [Player(id=-1 - i, name=n) for i, n in enumerate(dict.fromkeys(names))]
        return cls(players, **kw)  # type: ignore[arg-type]

    @property
    def players(self) -> list[Player]:
        """Every player of the pool."""
        return list(self._ix.by_id.values())

    def player(self, player_id: int) -> Player | None:
        """The pool's player with that ESPN id."""
        return self._ix.by_id.get(player_id)

    def name_word(self, word: str) -> bool:
        """True when `word` (lower case) is a league player's first or last name or a
        nickname word ("brunson", "jalen", "kd"): spelling fixes leave it alone."""
        ix = self._ix
        return word in ix.last or word in ix.first or word in ix.alias \
            or any(word in a.split() for a in ix.alias if " " in a)

    def resolve(self, query: str) -> NameMatch:
        """A name given alone (a /player argument, a tool argument, an ESPN id)."""
        return self._remembered(query or "", True, lambda: (self._resolve(query),))[0]

    def find(self, text: str, *, limit: int = 5) -> list[NameMatch]:
        """Every player named in a free text, in order of mention (not_found spans included)."""
        found = self._remembered(text or "", False, lambda: tuple(
            self._scan(_tokens(text), text or "", alone=False)))
        return list(found[:limit])

    def _remembered(self, text: str, alone: bool, compute: Callable[[], tuple[NameMatch, ...]]
                    ) -> tuple[NameMatch, ...]:
        key = (text, alone)
        hit = self._answers.get(key)
        if hit is not None:
            self._answers.move_to_end(key)
            return hit
        hit = self._answers[key] = compute()
        if len(self._answers) > ANSWERS_KEPT:
            self._answers.popitem(last=False)
        return hit

    def _resolve(self, query: str) -> NameMatch:
        q = (query or "").strip()
        if not q:
            return NameMatch(q, "not_found")
        if q.isascii() and q.isdigit():
            p = self._ix.by_id.get(int(q))
            return NameMatch(q, "resolved" if p else "not_found", p, (), 100.0 if p else 0.0,
                             0, len(q))
        toks = _tokens(q)
        found = self._scan(toks, q, alone=True)
        hit = next((m for m in found if m.status != "not_found"), None)
        if hit is not None and hit.end - hit.start >= len(q.strip()) * 0.5:
            return NameMatch(q, hit.status, hit.player, hit.candidates, hit.score, 0, len(q))
        outside = next((m.outside for m in found if m.outside), False)
        return NameMatch(q, "not_found", None, () if outside else self._close(q), 0.0, 0,
                         len(q), outside=outside)

    # ------------------------------------------------------------------ scanning

    def _match(self, pid_list: list[int], words: str, score: float, a: _Token, b: _Token
               ) -> NameMatch:
        ids = list(dict.fromkeys(pid_list))
        if len(ids) == 1:
            return NameMatch(words, "resolved", self._ix.by_id[ids[0]], (), score, a.start, b.end)
        cands = tuple(sorted((self._ix.by_id[i] for i in ids),
                             key=lambda p: -p.percent_owned))
        return NameMatch(words, "ambiguous", None, cands, score, a.start, b.end)

    def _cued(self, toks: list[_Token], i: int, text: str, alone: bool) -> bool:
        """A common word names a player only with a cue around it."""
        if alone:
            return True
        t = toks[i]
        if t.raw[:1].isupper() and not self._sentence_start(text, t.start):
            return True
        before = toks[i - 1].text if i > 0 else ""
        after = toks[i + 1].text if i + 1 < len(toks) else ""
        if before in ARTICLES:
            return False
        ix = self._ix
        if len(toks) <= SHORT_MESSAGE and (t.text in ix.alias or t.text in ix.last
                                           or t.text in ix.first):
            return True
        return before in CUE_BEFORE or after in CUE_AFTER

    @staticmethod
    def _sentence_start(text: str, pos: int) -> bool:
        head = text[:pos].rstrip()
        return not head or head[-1] in ".!?\n"

    def _scan(self, toks: list[_Token], text: str, *, alone: bool) -> list[NameMatch]:
        out: list[NameMatch] = []
        i = 0
        n = len(toks)
        while i < n:
            m = self._at(toks, i, text, alone)
            if m is not None:
                prev = out[-1] if out else None
                if prev is not None and prev.resolved and m[0].resolved \
                        and prev.player == m[0].player and not text[prev.end:m[0].start].strip():
                    # "ant edwards": a nickname and the surname of one player are one mention
                    out[-1] = NameMatch(text[prev.start:m[0].end], "resolved", prev.player, (),
                                        max(prev.score, m[0].score), prev.start, m[0].end)
                else:
                    out.append(m[0])
                i += m[1]
                continue
            unknown = self._unknown_span(toks, i, text)
            if unknown is not None:
                span, k = unknown
                out.append(span)
                i += k
                continue
            i += 1
        return self._joined_typos(out, text)

    def _joined_typos(self, found: list[NameMatch], text: str) -> list[NameMatch]:
        """Two neighbouring spans that are one player's full name with a typo in each word
        ("kelli olynik", "shai gilgeus alexander", "jonathon isaak") become that one player,
        instead of a first name read as someone else and a surname read alone."""
        out: list[NameMatch] = []
        for m in found:
            prev = out[-1] if out else None
            if prev is not None and not text[prev.end:m.start].strip() \
                    and not (prev.score >= 100.0 and m.score >= 100.0):
                words = [t.text for t in _tokens(text[prev.start:m.end])]
                pid = self._typed_full_name(words) if 2 <= len(words) <= 3 else None
                if pid is not None:
                    out[-1] = NameMatch(text[prev.start:m.end], "resolved", self._ix.by_id[pid],
                                        (), TYPO_SCORE, prev.start, m.end)
                    continue
            out.append(m)
        return out

    def _typed_full_name(self, words: list[str]) -> int | None:
        """The one player whose full name these words are, each word at most two edits off
        (one for a word of four letters or fewer); None when no player or several fit."""
        hits = process.extract(" ".join(words), self._full_keys, scorer=fuzz.ratio, limit=4,
                               score_cutoff=SUGGEST_SCORE - 10)
        fits = []
        for key, _score, _i in hits:
            parts = key.split()
            if len(parts) != len(words):
                continue
            if all(Levenshtein.distance(w, k) <= (1 if len(k) <= 4 else 2)
                   for w, k in zip(words, parts, strict=True)):
                fits.append(key)
        ids = {pid for key in fits for pid in self._ix.full[key]}
        return next(iter(ids)) if len(ids) == 1 else None

    def _at(self, toks: list[_Token], i: int, text: str, alone: bool
            ) -> tuple[NameMatch, int] | None:
        """The longest name starting at token i: (match, tokens used)."""
        ix = self._ix
        for k in (4, 3, 2):
            if i + k > len(toks):
                continue
            words = " ".join(t.text for t in toks[i:i + k])
            a, b = toks[i], toks[i + k - 1]
            raw = text[a.start:b.end]
            if words in ix.full:
                return self._match(ix.full[words], raw, 100.0, a, b), k
            if words in ix.alias:
                return self._match(ix.alias[words], raw, 95.0, a, b), k
            if words in self._others:  # "michael jordan": someone, but no league player
                return NameMatch(raw, "not_found", None, (), 0.0, a.start, b.end,
                                 outside=True), k
        if i + 1 < len(toks):
            a, b = toks[i], toks[i + 1]
            raw = text[a.start:b.end]
            # "J. Brunson": an initial and a last name
            if len(a.text) == 1 and b.text in ix.last:
                ids = [pid for pid in ix.last[b.text]
                       if _name_parts(ix.by_id[pid].name)[1].startswith(a.text)]
                if ids:
                    return self._match(ids, raw, 92.0, a, b), 2
            # a first name and another person's real surname ("kevin durand", "lebron
            # jamison"): someone else, with the league's close names as suggestions
            if self._someone_else(a, b):
                return NameMatch(raw, "not_found", None, self._close(raw), 0.0, a.start,
                                 b.end), 2
            # a short form of one league player's given name and his surname ("cam johnson"
            # with Cameron Johnson, "mike conley"): him, not every Johnson
            # (a league surname first is that player: "brunson brown" names two players)
            if b.text in ix.last and a.text not in self._common and len(a.text) >= 2 \
                    and not (a.text in ix.last and a.text not in ix.first):
                ids = [pid for pid in dict.fromkeys(ix.last[b.text])
                       if _same_given_name(a.text, _name_parts(ix.by_id[pid].name)[1])]
                if len(ids) == 1:
                    return self._match(ids, raw, 92.0, a, b), 2
            # a misspelt full name: "jalen brunsen", "jayson tatem"; a surname that is a
            # league surname with letters added is another name ("lebron jamesson")
            if a.text in ix.first and a.text not in self._common and len(b.text) >= 3:
                hit = self._fuzzy_full(f"{a.text} {b.text}")
                if hit is not None:
                    surname = _name_parts(ix.by_id[hit[0]].name)[2]
                    if b.text.startswith(surname) and len(b.text) - len(surname) >= 2:
                        return NameMatch(raw, "not_found", None, self._close(raw), 0.0,
                                         a.start, b.end), 2
                    return NameMatch(raw, "resolved", ix.by_id[hit[0]], (), hit[1], a.start,
                                     b.end), 2
            # a given name and a league surname that no league player has with a given name
            # like it ("seth brunson", "darius collins"): someone else, never that player
            if self._other_first_name(a, b):
                return NameMatch(raw, "not_found", None, self._close(raw), 0.0, a.start,
                                 b.end), 2
            # a first name and a surname that is no league player's with that first name
            # ("terrell winslowe", "cortez ambrose"): not found, never a surname typo
            if self._first_then_surname(a, b):
                return NameMatch(raw, "not_found", None, self._close(raw), 0.0, a.start,
                                 b.end), 2
        t = toks[i]
        w = t.text
        if len(w) < 2 or w.isdigit():
            return None
        if w in self._others and w not in ix.last and w not in ix.first:
            return NameMatch(t.raw, "not_found", None, (), 0.0, t.start, t.end,
                             outside=True), 1  # "kobe"
        common = w in self._common
        if common and not self._cued(toks, i, text, alone):
            return None
        nxt = toks[i + 1].text if i + 1 < len(toks) else ""
        if w in ix.first and w not in ix.last and w not in ix.alias and not alone \
                and len(nxt) >= 3 and not self._is_word(nxt) and self._at(
                    toks, i + 1, text, alone) is None:
            return None  # "marcus thornbury": a first name and an unknown surname
        for table, score in ((ix.alias, 95.0), (ix.last, 95.0), (ix.first, 90.0)):
            if w in table:
                ids = list(dict.fromkeys(table[w]))
                if table is ix.first and len(ids) > 1 and w in ix.last:
                    ids = list(dict.fromkeys(ix.last[w] + ids))
                elif table is ix.last and w in ix.first:
                    ids = list(dict.fromkeys(ids + ix.first[w]))
                return self._match(ids, t.raw, score, t, t), 1
        if common or (not alone and self._english(w)) or (alone and w in self._vocab) \
                or len(w) < 4 or not w.isalpha():
            return None
        word_hit = self._fuzzy_word(w)
        if word_hit is not None:
            word_ids, score = word_hit
            return self._match(word_ids, t.raw, score, t, t), 1
        return None

    def _fuzzy_word(self, w: str) -> tuple[list[int], float] | None:
        """A single misspelt first/last name or alias, with a margin over other players."""
        hits = process.extract(w, self._single, scorer=fuzz.ratio, limit=6,
                               score_cutoff=TYPO_SCORE - TYPO_MARGIN)
        if not hits or hits[0][1] < TYPO_SCORE:
            return self._one_edit(w)
        best_key, best = hits[0][0], hits[0][1]
        ids = self._ids_of(best_key)
        for key, score, _ in hits[1:]:
            if best - score < TYPO_MARGIN and not set(self._ids_of(key)) <= set(ids):
                ids = list(dict.fromkeys(ids + self._ids_of(key)))
        return ids, float(best)

    def _one_edit(self, w: str) -> tuple[list[int], float] | None:
        """A name one edit away from `w` (length >= ONE_EDIT_LEN, the same first letter),
        when exactly one name is."""
        if len(w) < ONE_EDIT_LEN:
            return None
        hits = process.extract(w, self._single, scorer=OSA.distance, limit=2, score_cutoff=1)
        hits = [h for h in hits if h[0][:1] == w[:1] and len(h[0]) >= ONE_EDIT_LEN]
        if len(hits) != 1:
            return None
        return self._ids_of(hits[0][0]), float(fuzz.ratio(w, hits[0][0]))

    def _ids_of(self, key: str) -> list[int]:
        ix = self._ix
        return list(dict.fromkeys(ix.alias.get(key, []) + ix.last.get(key, [])
                                  + ix.first.get(key, [])))

    def _fuzzy_full(self, words: str) -> tuple[int, float] | None:
        hits = process.extract(words, self._full_keys, scorer=fuzz.ratio, limit=2,
                               score_cutoff=FULL_SCORE - TYPO_MARGIN)
        if not hits or hits[0][1] < FULL_SCORE:
            return None
        if len(hits) > 1 and hits[0][1] - hits[1][1] < TYPO_MARGIN \
                and self._ix.full[hits[0][0]] != self._ix.full[hits[1][0]]:
            return None
        return self._ix.full[hits[0][0]][0], float(hits[0][1])

    # ------------------------------------------------------------------ unknown names

    def _english(self, w: str) -> bool:
        """An English / chat word or a morphological variant of one ("optimize", "hoarding",
        "playin"), or a word of a fantasy team's name."""
        if w in self._common or w in self._vocab or w in self._other_words:
            return True
        if not self._vocab:
            return False
        for suffix, endings in MORPHOLOGY:
            if len(w) - len(suffix) < 3 or not w.endswith(suffix):
                continue
            stem = w[: -len(suffix)]
            stems = (stem, stem[:-1]) if len(stem) > 3 and stem[-1] == stem[-2] else (stem,)
            if any(st + e in self._vocab or st + e in self._common
                   for st in stems for e in endings):
                return True
        return False

    def _first_then_surname(self, a: _Token, b: _Token) -> bool:
        """`a b` is a first name and a surname that is no league player's with that first
        name: a given name, then a name-shaped word that is no English word (when the first
        name is a league player's) or at least no chat word (otherwise)."""
        ix = self._ix
        first, last = a.text, b.text
        if first not in self._first_lex or not last.isalpha() or len(last) < 3:
            return False
        if last in self._common or last in CUE_AFTER or last in CUE_BEFORE \
                or last in self._other_words or last in self._first_lex:
            return False
        if last in ix.last or last in ix.alias or last in ix.first \
                or f"{first} {last}" in ix.full:
            return False  # an exact league name: read as such
        if first in ix.first or first in ix.alias or first in ix.last:
            # a league first name: "jalen playin" is jalen, "marcus thornbury" is not found
            return not self._english(last) and not self._typo_of_word(last)
        return not self._english(last) or last in self._vocab and not self._morph_only(last)

    def _other_first_name(self, a: _Token, b: _Token) -> bool:
        """`a b` is a given name (no league player's surname or nickname) and a league surname
        whose players all have another given name: not its short form ("cam" / Cameron), not
        a typo of it ("jaylen" / Jalen)."""
        ix = self._ix
        first, last = a.text, b.text
        if first not in self._first_lex or first in ix.last or first in ix.alias \
                or last not in ix.last or f"{first} {last}" in ix.full:
            return False
        for pid in ix.last[last]:
            given = _name_parts(ix.by_id[pid].name)[1]
            if _same_given_name(first, given):
                return False
        return True

    def _someone_else(self, a: _Token, b: _Token) -> bool:
        """`a b` is a given name and a real surname that is no league player's: a surname of
        the census list, not an ordinary word (or, if the encoder knows it as a word, a league
        surname with a letter added: "anthony davies"; "jordan pool" is a typo of Poole)."""
        ix = self._ix
        first, last = a.text, b.text
        if first not in self._first_lex or last not in self._surnames or len(last) < 3:
            return False
        if last in ix.last or last in ix.alias or last in ix.first \
                or f"{first} {last}" in ix.full:
            return False
        if last in self._common or last in CUE_AFTER or last in CUE_BEFORE \
                or last in self._other_words or last in self._first_lex:
            return False
        if last in self._vocab:  # a word the encoder knows: another name only with a letter
            # more than a league surname ("davies", "browne"); one letter short is a typo
            return any(OSA.distance(last, s) <= 1 for s in ix.last if len(s) + 1 == len(last))
        near = [s for s in ix.last if abs(len(s) - len(last)) <= 1 and OSA.distance(last, s) <= 1]
        # one letter off a league surname: another person's name when the ending differs
        # ("durand" / Durant), a typo when the middle does ("heyward" / Hayward)
        return not near or any(_ending_differs(last, s) for s in near)

    def _morph_only(self, w: str) -> bool:
        """True when w is English only as an inflection (a verb or plural: "playing")."""
        return w.endswith(("ing", "ed", "ly", "s"))

    def _typo_of_word(self, w: str) -> bool:
        if not self._vocab_list or len(w) < 4:
            return False
        return process.extractOne(w, self._vocab_list, scorer=Levenshtein.distance,
                                  score_cutoff=1) is not None

    def _is_word(self, w: str) -> bool:
        """An ordinary word (or a typo of one), not a name."""
        if self._english(w) or not w.isalpha():
            return True
        if not self._vocab_list or len(w) < 4:
            return False
        hit = process.extractOne(w, self._vocab_list, scorer=Levenshtein.distance,
                                 score_cutoff=1)
        return hit is not None

    def _unknown_span(self, toks: list[_Token], i: int, text: str
                      ) -> tuple[NameMatch, int] | None:
        """A name-shaped span that is no league player: capitalised words ("Zephyr
        Quillington") or unknown words next to a first name ("marcus thornbury")."""
        t = toks[i]
        caps = [j for j in range(i, min(i + 3, len(toks)))
                if toks[j].raw[:1].isupper() and toks[j].raw[1:2].islower()
                and toks[j].text not in self._common and toks[j].text not in self._other_words]
        run = 0
        for j in range(i, min(i + 3, len(toks))):
            if j in caps and (j == i or toks[j].start - toks[j - 1].end <= 1):
                run += 1
            else:
                break
        if run >= 2 and not (self._sentence_start(text, t.start)
                             and toks[i].text in self._vocab and run == 2
                             and toks[i + 1].text in self._vocab):
            a, b = toks[i], toks[i + run - 1]
            words = text[a.start:b.end]
            if name_key(words).replace("_", " ") not in self._other:
                return NameMatch(words, "not_found", None, self._close(words), 0.0,
                                 a.start, b.end), run
        if t.text in self._first_lex and t.text not in self._ix.first_names \
                and t.text not in self._ix.last and self._cued(toks, i, text, alone=False):
            # a given name no league player has, in a player's place ("start lorenzo"),
            # with the surname after it ("for tony bradley": not Bradley Beal)
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            if nxt is not None and nxt.start - t.end <= 1 and nxt.text not in self._common \
                    and (nxt.text in self._surnames or nxt.text in self._ix.first
                         or nxt.text in self._ix.last):
                words = text[t.start:nxt.end]
                return NameMatch(words, "not_found", None, self._close(words), 0.0, t.start,
                                 nxt.end), 2
            return NameMatch(t.raw, "not_found", None, (), 0.0, t.start, t.end), 1
        if self._is_word(t.text) and t.text not in self._ix.first_names:
            return None
        # a known first name followed by an unknown word, or unknown word(s)
        j = i
        if t.text in self._ix.first_names or t.text in self._vocab:
            if i + 1 < len(toks) and not self._is_word(toks[i + 1].text) \
                    and len(toks[i + 1].text) >= 3:
                j = i + 1
            else:
                return None
        elif len(t.text) < MIN_UNKNOWN_LEN:
            return None
        if j + 1 < len(toks) and not self._is_word(toks[j + 1].text) \
                and len(toks[j + 1].text) >= 3:
            j += 1
        if j == i and not self._cued(toks, i, text, alone=False):
            return None  # one unknown word outside a player's place: slang, a rare word
        a, b = toks[i], toks[j]
        words = text[a.start:b.end]
        return NameMatch(words, "not_found", None, self._close(words), 0.0, a.start, b.end), \
            j - i + 1

    def _close(self, words: str) -> tuple[Player, ...]:
        """League players whose name is really close to `words` (suggestions)."""
        key = name_key(words).replace("_", " ")
        if not key:
            return ()
        hits = process.extract(key, self._full_keys, scorer=fuzz.token_sort_ratio, limit=3,
                               score_cutoff=75)
        out: list[Player] = []
        for k, _, _ in hits:
            for pid in self._ix.full[k]:
                p = self._ix.by_id[pid]
                if p not in out:
                    out.append(p)
        key_words = key.split()
        if key_words:  # "terrell winslowe", "durand": players with a close surname
            for k, _, _ in process.extract(key_words[-1], list(self._ix.last), scorer=fuzz.ratio,
                                           limit=3, score_cutoff=SUGGEST_SCORE):
                for pid in self._ix.last[k]:
                    p = self._ix.by_id[pid]
                    if p not in out:
                        out.append(p)
        return tuple(out[:3])


#: Short forms of given names that do not start like the name ("tony" / Anthony).
GIVEN_SHORT_FORMS: Mapping[str, frozenset[str]] = {
    "tony": frozenset({"anthony", "antonio"}), "bob": frozenset({"robert"}),
    "bobby": frozenset({"robert"}), "rob": frozenset({"robert"}),
    "bill": frozenset({"william"}), "billy": frozenset({"william"}),
    "will": frozenset({"william"}), "jim": frozenset({"james"}),
    "jimmy": frozenset({"james"}), "larry": frozenset({"lawrence"}),
    "rick": frozenset({"richard"}), "ricky": frozenset({"richard"}),
    "ted": frozenset({"edward", "theodore"}), "hank": frozenset({"henry"}),
    "jack": frozenset({"john", "jackson"}), "sandy": frozenset({"alexander"}),
}


def _same_given_name(written: str, given: str) -> bool:
    """`written` can be `given` as members type it: a short form ("cam" / Cameron, "mike" /
    Michael, "tony" / Anthony), a longer form, or a typo ("jaylen" / Jalen)."""
    if given.startswith(written) or written.startswith(given):
        return True
    if given in GIVEN_SHORT_FORMS.get(written, ()) or written in GIVEN_SHORT_FORMS.get(given, ()):
        return True
    ratio = fuzz.ratio(written, given)
    if ratio >= FIRST_NAME_TYPO:
        return True
    # a looser likeness for spellings that are no name of their own ("jalin" / Jalen); a
    # given name of someone else ("jamal" / Jalen) is that other person, never a typo
    return written[:2] == given[:2] and ratio >= 50 and written not in first_names()


def _ending_differs(a: str, b: str) -> bool:
    """True when two words one edit apart differ in their last two letters."""
    k = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
             min(len(a), len(b)))
    return k >= min(len(a), len(b)) - 2


def in_context(match: NameMatch, tiers: Sequence[Collection[int]]) -> NameMatch:
    """An ambiguous match read in context: `tiers` are sets of player ids, most likely first
    (the member's roster, the players just discussed, the opponent's roster, the rest of the
    league; free agents are whoever is in none). The first tier holding any candidate decides:
    one candidate there resolves the name ("allen" with Jarrett Allen on my team is him); several
    stay ambiguous, those first. Resolved and not-found matches are returned as they are."""
    if match.status != "ambiguous" or not match.candidates:
        return match
    for tier in tiers:
        inside = [p for p in match.candidates if p.id in tier]
        if len(inside) == 1:
            return NameMatch(match.words, "resolved", inside[0], (), match.score, match.start,
                             match.end)
        if inside:
            rest = [p for p in match.candidates if p not in inside]
            return NameMatch(match.words, "ambiguous", None, (*inside, *rest), match.score,
                             match.start, match.end)
    return match


__all__ = ["ALIASES", "in_context", "MORPHOLOGY", "NameMatch", "PlayerResolver", "common_words", "surnames",
           "first_names", "name_key"]
