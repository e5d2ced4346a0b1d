"""The NBA schedule the demo league replays: ESPN's recorded 2022-23 `proTeamSchedules_wl`."""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).parent / "recorded"


@functools.lru_cache(maxsize=1)
def load_pro_schedule() -> dict[str, Any]:
    """The real 2022-23 `proTeamSchedules_wl` response."""
    with gzip.open(DATA_DIR / "pro_schedule_2023.json.gz", "rt", encoding="utf-8") as fh:
        return json.load(fh)


__all__ = ["load_pro_schedule"]
