"""`python -m agents.understanding.build_vectors [PATH]`: embed the router's bank into the
installed vector store (`build`), the install step of
scripts/install.sh and the Docker image. Prints where the store is and how long it took."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

from agents.understanding.router import RECIPE, cache_dir, load_bank
from agents.understanding.vectors import (
    STORE_NAME,
    VectorStore,
    bank_vectors,
    installed_path,
    missing,
)
from storage.minilm import default_encoder


def build(path: Path | None = None) -> Path:
    """Embed the shipped bank into the installed store (or `path`), reusing what a store
    holds already. Returns the file written (the user cache when the install is
    read-only)."""
    target = path or installed_path()
    cache = cache_dir() / STORE_NAME
    texts = [t for _, t in load_bank()]
    if missing(texts, RECIPE, [target]) == 0:
        return target
    bank_vectors(texts, default_encoder(), RECIPE, read=[target, cache], write=[target, cache])
    return target if VectorStore.read(target, RECIPE) is not None else cache


def main(argv: Sequence[str] | None = None) -> int:
    """Build the store (at PATH when given); returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    t0 = time.perf_counter()
    written = build(Path(args[0]) if args else None)
    print(f"router vectors ready: {written} ({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
