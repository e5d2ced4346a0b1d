"""docs/running.md's "Trying a live configuration against a local ESPN stand-in": its shell
block, run as the doc gives it (bash, from the project folder), shows the league's day in the
doctor and the matchup's days in chat from the stand-in, not this machine's calendar."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## Trying a live configuration against a local ESPN stand-in"


def _block() -> str:
    text = (ROOT / "docs" / "running.md").read_text(encoding="utf-8")
    section = text[text.index(SECTION):]
    m = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert m, "the section has no bash block"
    return m.group(1)


def test_the_stand_in_block_runs_as_written(tmp_path: Path) -> None:
    script = _block()
    assert "FANVISE_ESPN_BASE_URL" in script and "fanvise doctor" in script
    # run where its files may go (the project on PYTHONPATH stands for "from the project
    # folder"); the stand-in sleeps an hour in the doc: it is stopped here
    script = f"cd {str(tmp_path)!r}\n{script}\nkill $!\n"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FANVISE_", "ESPN_"))}
    env["FANVISE_DATA_DIR"] = str(tmp_path / "data")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    done = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True,
                          timeout=600)
    out = done.stdout + done.stderr
    assert "today Wed Jan 25, 5 days left in the matchup" in out, out
    assert "5 days left." in out and "matchup is over" not in out, out
