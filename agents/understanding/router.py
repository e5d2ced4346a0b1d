"""Offline intent: semantic routing over a bank of member-style utterances.

    router = default_router()
    router.rank("is {player} playing tonight")   # [(Intent.PLAYER_RESEARCH, 0.83), ...]

The bank (agents/understanding/bank/<intent>.txt, one utterance a line, player names written
as {player}) is embedded with the bundled MiniLM (storage.minilm, numpy only) when FanVise is
installed, into a store beside the bank (agents.understanding.vectors); a start reads it in
milliseconds, and embeds (then caches under FANVISE_CACHE_DIR, default ~/.cache/fanvise) only
lines the store lacks. An intent's score for a
message is the mean cosine similarity of its K nearest bank utterances.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agents.understanding.lexicon import CATEGORIES
from agents.understanding.request import Intent
from agents.understanding.vectors import STORE_NAME, Notice, bank_vectors, installed_path, missing
from storage.minilm import MiniLMEncoder, default_encoder

log = logging.getLogger(__name__)

BANK_DIR = Path(__file__).parent / "bank"
ENV_CACHE_DIR = "FANVISE_CACHE_DIR"
#: Nearest bank utterances averaged per intent.
K_NEAREST = 3
#: Version of the embedding recipe: part of the cache key.
RECIPE = "minilm-l6-v2/mean/l2/slot-v2"
#: Scores of this many recent embedded texts are kept per router (members repeat "who should
#: I start today"; player names are already masked). FANVISE_ROUTER_CACHE=0 turns it off.
RANK_CACHE_SIZE = 1024
ENV_RANK_CACHE = "FANVISE_ROUTER_CACHE"


#: Stat-category words ("dimes", "boards", "ft%"): one {stat} placeholder, so "am i losing in
#: dimes" and "am i losing in blocks" read alike.
_STAT_WORDS = re.compile("|".join(f"(?:{p})" for p in CATEGORIES.values()), re.IGNORECASE)


def embed_text(text: str) -> str:
    """The form of a message (or bank line) that gets embedded: one placeholder each for a
    player, a fantasy team and a stat category."""
    t = re.sub(r"\{player\d*\}", "{player}", text.strip())
    t = re.sub(r"\{team\d*\}", "{team}", t)
    t = _STAT_WORDS.sub("{stat}", t)
    return re.sub(r"\s+", " ", t)


def load_bank(folder: Path = BANK_DIR) -> list[tuple[Intent, str]]:
    """(intent, utterance) of every bank line; files are named by intent value."""
    out: list[tuple[Intent, str]] = []
    for path in sorted(folder.glob("*.txt")):
        try:
            intent = Intent(path.stem)
        except ValueError:
            log.warning("bank file %s names no intent; skipped", path.name)
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                out.append((intent, embed_text(line)))
    return out


def bank_hash(bank: Sequence[tuple[Intent, str]]) -> str:
    """Hash of the bank's content and the embedding recipe (the disk cache key)."""
    h = hashlib.sha256(RECIPE.encode())
    for intent, text in bank:
        h.update(f"{intent.value}\t{text}\n".encode())
    return h.hexdigest()[:20]


def cache_dir() -> Path:
    """Where bank vectors are cached."""
    env = os.environ.get(ENV_CACHE_DIR)
    return Path(env) if env else Path.home() / ".cache" / "fanvise"


class SemanticRouter:
    """Nearest-neighbour intent scores over the embedded utterance bank."""

    def __init__(self, bank: Sequence[tuple[Intent, str]] | None = None,
                 encoder: MiniLMEncoder | None = None, *, cache: Path | None = None,
                 installed: Path | None = None) -> None:
        """`cache`: folder of the user's vector store (default `cache_dir()`); `installed`:
        the store built at install, read first (default: the one beside the bank, unless
        `cache` is given)."""
        self._bank = list(bank) if bank is not None else load_bank()
        if not self._bank:
            raise ValueError("the utterance bank is empty")
        self._encoder = encoder or default_encoder()
        self._cache = cache if cache is not None else cache_dir()
        self._installed = installed if installed is not None or cache is not None \
            else installed_path()
        #: told once, before a start embeds bank lines no store holds (how many, about how
        #: long); the console and the bots' warm-up set it
        self.notice: Notice | None = None
        self._lock = threading.Lock()
        self._vectors: np.ndarray | None = None
        self.intents = sorted({i for i, _ in self._bank}, key=lambda i: i.value)
        labels = np.array([self.intents.index(i) for i, _ in self._bank])
        self._masks = [labels == k for k in range(len(self.intents))]
        self.hash = bank_hash(self._bank)
        self._ranks: OrderedDict[str, list[tuple[Intent, float]]] = OrderedDict()
        self.cache_size = (0 if os.environ.get(ENV_RANK_CACHE, "").strip() in ("0", "off")
                           else RANK_CACHE_SIZE)
        self.hits = 0
        self.misses = 0

    @property
    def size(self) -> int:
        """Utterances in the bank."""
        return len(self._bank)

    def load(self) -> None:
        """Embed the bank (or load its cached vectors)."""
        if self._vectors is not None:
            return
        with self._lock:
            if self._vectors is None:
                self._vectors = self._load_vectors()

    @property
    def loaded(self) -> bool:
        """True once the bank's vectors are in memory."""
        return self._vectors is not None

    def _stores(self) -> list[Path]:
        return [p for p in (self._installed, self._cache / STORE_NAME) if p is not None]

    def to_embed(self) -> int:
        """Bank lines no vector store holds: what loading would embed (0 once loaded)."""
        if self._vectors is not None:
            return 0
        return missing([t for _, t in self._bank], RECIPE, self._stores())

    def _load_vectors(self) -> np.ndarray:
        return bank_vectors([t for _, t in self._bank], self._encoder, RECIPE,
                            read=self._stores(), write=[self._cache / STORE_NAME],
                            notice=self.notice)

    def rank(self, text: str) -> list[tuple[Intent, float]]:
        """Every intent with its score for `text`, best first (a text embedded before, as
        `embed_text` writes it, reuses its scores: the same encoder gives the same vector)."""
        key = embed_text(text)
        if self.cache_size:
            with self._lock:
                hit = self._ranks.get(key)
                if hit is not None:
                    self._ranks.move_to_end(key)
                    self.hits += 1
                    return list(hit)
        scores = self._rank(key)
        if self.cache_size:
            with self._lock:
                self.misses += 1
                self._ranks[key] = scores
                while len(self._ranks) > self.cache_size:
                    self._ranks.popitem(last=False)
        return list(scores)

    def cache_info(self) -> dict[str, int]:
        """Hits, misses and size of the score cache (0 size: turned off)."""
        return {"hits": self.hits, "misses": self.misses, "kept": len(self._ranks),
                "size": self.cache_size}

    def _rank(self, key: str) -> list[tuple[Intent, float]]:
        self.load()
        assert self._vectors is not None
        q = self._encoder.encode([key])[0].astype(np.float32)
        sims = self._vectors @ q
        scores = []
        for intent, mask in zip(self.intents, self._masks, strict=True):
            s = sims[mask]
            k = min(K_NEAREST, s.size)
            scores.append((intent, float(np.partition(s, -k)[-k:].mean())))
        return sorted(scores, key=lambda x: -x[1])


_default: SemanticRouter | None = None
_default_lock = threading.Lock()


def default_router() -> SemanticRouter:
    """The process-wide router over the shipped bank (embedded on first use)."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = SemanticRouter()
    return _default


__all__ = ["BANK_DIR", "K_NEAREST", "SemanticRouter", "bank_hash", "cache_dir",
           "default_router", "embed_text", "load_bank"]
