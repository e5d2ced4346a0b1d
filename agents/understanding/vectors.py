"""The router's bank vectors on disk, so no question waits for the bank to be embedded.

A store is one `.npz` file: the embedding recipe, the embedded texts (as `embed_text`
writes them) and their MiniLM vectors, row for row. Vectors are looked up per text, so a
store made for an older bank still serves every line that did not change; only the new
lines are embedded, and the store is written again with the whole bank.

Two places are read, in this order:

- the installed store, `agents/understanding/bank/router-vectors.npz` beside the bank
  itself: `scripts/install.sh` and the Docker image build it (`python -m
  agents.understanding.build_vectors`), so every home directory, user and new container of that
  install finds it;
- the user's cache, `router-vectors.npz` in FANVISE_CACHE_DIR (default ~/.cache/fanvise),
  written when a start had to embed lines the installed store lacks (or it is read-only).

Embedding runs BLAS on one thread (storage.minilm): on a busy machine more threads spin.
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from storage.minilm import MiniLMEncoder

log = logging.getLogger(__name__)

STORE_NAME = "router-vectors.npz"
#: Texts embedded per call while embedding a bank: the first chunk times the rest.
CHUNK = 128

#: Called once before a start embeds: (texts to embed, estimated seconds).
Notice = Callable[[int, float], None]


def installed_path() -> Path:
    """The store built at install, beside the bank files."""
    return Path(__file__).parent / "bank" / STORE_NAME


@dataclass(frozen=True)
class VectorStore:
    """Texts and their vectors (one row each) for one embedding recipe."""

    recipe: str
    texts: tuple[str, ...]
    vectors: np.ndarray

    @classmethod
    def read(cls, path: Path, recipe: str) -> VectorStore | None:
        """The store at `path`, or None when it is missing, unreadable or of another recipe."""
        try:
            with np.load(path, allow_pickle=False) as data:
                if str(data["recipe"]) != recipe:
                    return None
                texts = tuple(str(t) for t in data["texts"])
                vectors = np.asarray(data["vectors"], dtype=np.float32)
        except (OSError, ValueError, KeyError):
            return None
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            return None
        return cls(recipe, texts, vectors)

    def write(self, path: Path) -> bool:
        """Write atomically (a temp file, then rename); False when the folder is not writable."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".router-", suffix=".npz")
            try:
                with os.fdopen(fd, "wb") as f:
                    np.savez(f, recipe=np.array(self.recipe), texts=np.array(self.texts),
                             vectors=self.vectors)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            log.info("router vectors not written to %s (%s)", path.parent, type(exc).__name__)
            return False
        return True


def _known(paths: Sequence[Path], recipe: str) -> dict[str, np.ndarray]:
    known: dict[str, np.ndarray] = {}
    for path in paths:
        store = VectorStore.read(path, recipe)
        if store is not None:
            for text, vec in zip(store.texts, store.vectors, strict=True):
                known.setdefault(text, vec)
    return known


def missing(texts: Sequence[str], recipe: str, paths: Sequence[Path]) -> int:
    """How many distinct `texts` none of the stores at `paths` holds."""
    known = _known(paths, recipe)
    return len({t for t in texts if t not in known})


def bank_vectors(texts: Sequence[str], encoder: MiniLMEncoder, recipe: str, *,
                 read: Sequence[Path], write: Sequence[Path],
                 notice: Notice | None = None) -> np.ndarray:
    """Vectors of `texts` (float32, one row each): from the stores at `read`, embedding
    only the texts none holds. When any were embedded, the whole set is written to the
    first of `write` that takes it. `notice` hears once, before embedding, how many texts
    and about how long (timed on the first chunk)."""
    known = _known(read, recipe)
    todo = list(dict.fromkeys(t for t in texts if t not in known))
    if todo:
        t0 = time.perf_counter()
        told = notice is None
        for start in range(0, len(todo), CHUNK):
            chunk = todo[start:start + CHUNK]
            vecs = encoder.encode(chunk).astype(np.float32)
            known.update(zip(chunk, vecs, strict=True))
            if not told:
                per = (time.perf_counter() - t0) / len(chunk)
                assert notice is not None
                notice(len(todo), per * len(todo))
                told = True
        log.info("embedded %d router phrases in %.1f s", len(todo), time.perf_counter() - t0)
    out = np.stack([known[t] for t in texts]).astype(np.float32)
    if todo:
        store = VectorStore(recipe, tuple(dict.fromkeys(texts)),
                            np.stack([known[t] for t in dict.fromkeys(texts)]))
        for path in write:
            if store.write(path):
                break
    return out


__all__ = ["CHUNK", "STORE_NAME", "VectorStore", "bank_vectors", "installed_path", "missing"]
