"""Misspelt chat words, fixed before a message is read: "who shoud i strat tonite" reads as
"who should i start tonite", "hw am i doin in my mathcup" as "how am i doing in my matchup".

Only a word that is no English word (the encoder's whole-word vocabulary), no league player's
name and no chat word is changed, and only into a word of the fantasy-chat vocabulary
(lexicon.CHAT_VOCABULARY) one edit away (a letter changed, added, dropped or two swapped; two
edits for words of 7+ letters), when exactly one such word is that close. Names are the player
resolver's business: its own typo matching reads "brunsn" and "jimy butler".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from rapidfuzz.distance import OSA

from agents.understanding import lexicon as lx

#: Shortest word corrected (shorter words are too often something else: "gud", "pik").
MIN_LEN = 4
#: Words this long or longer may be two edits off.
TWO_EDITS_LEN = 7

_WORD = re.compile(r"[A-Za-z]+")


@lru_cache(maxsize=1)
def _vocab() -> frozenset[str]:
    from storage.minilm import vocabulary
    return vocabulary()


def correction(word: str, *, is_name: Callable[[str], bool] = lambda w: False) -> str | None:
    """The chat word a misspelt `word` (lower case) stands for, or None."""
    if len(word) < MIN_LEN or word in lx.CHAT_VOCABULARY or word in _vocab() or is_name(word):
        return None
    limit = 2 if len(word) >= TWO_EDITS_LEN else 1
    best = [w for w in lx.CHAT_VOCABULARY
            if abs(len(w) - len(word)) <= limit and OSA.distance(word, w) <= limit]
    if len(best) > 1:  # the closest only, when one is closest
        d = {w: OSA.distance(word, w) for w in best}
        low = min(d.values())
        best = [w for w in best if d[w] == low]
    return best[0] if len(best) == 1 else None


def fix_typos(text: str, *, is_name: Callable[[str], bool] = lambda w: False) -> str:
    """`text` with each misspelt chat word replaced by its correction (lower case); the
    text keeps its length only when no word changes, so callers read entities from the
    corrected text."""
    def fix(m: re.Match[str]) -> str:
        word = m.group(0)
        if word[:1].isupper() and m.start() > 0:
            return word  # a capitalised word inside a sentence: a name, left alone
        fixed = correction(word.lower(), is_name=is_name)
        return fixed if fixed is not None else word
    return _WORD.sub(fix, text or "")


__all__ = ["correction", "fix_typos"]
