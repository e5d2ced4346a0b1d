"""`python -m agents.understanding.build_vectors [PATH]`: embed the router's bank into the
installed vector store (agents.understanding.vectors.build), the install step of
scripts/install.sh and the Docker image. Prints where the store is and how long it took."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

from agents.understanding.vectors import build


def main(argv: Sequence[str] | None = None) -> int:
    """Build the store (at PATH when given); returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    t0 = time.perf_counter()
    written = build(Path(args[0]) if args else None)
    print(f"router vectors ready: {written} ({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
