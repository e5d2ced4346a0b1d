"""Named crash points for the SIGKILL tests.

`crash_point("decide:recorded")` kills the current process with SIGKILL (no clean-up, like
a power cut or an OOM kill) when `$FANVISE_CRASH_AT` names that point; otherwise it does
nothing (one dictionary lookup). `name#N` names the point's Nth hit in the process (e.g.
`espn_write:after_post#3`: right after the third POST). tests/reliability uses it to kill a
real bot process at every progress stage of a run, at every step of applying a decision and
at every write, then restarts it.
"""

from __future__ import annotations

import os
import signal
from collections import Counter

ENV = "FANVISE_CRASH_AT"
_HITS: Counter[str] = Counter()


def crash_point(name: str) -> None:
    """SIGKILL this process if `$FANVISE_CRASH_AT` is `name`, or `name#N` and this is the
    Nth time the point is reached (a test hook; no-op otherwise)."""
    target = os.environ.get(ENV)
    if not target:
        return
    if target == name:
        os.kill(os.getpid(), signal.SIGKILL)
    point, sep, nth = target.rpartition("#")
    if sep and point == name:
        _HITS[name] += 1
        if str(_HITS[name]) == nth:
            os.kill(os.getpid(), signal.SIGKILL)


def writes_saved(task_path: str) -> None:
    """The `writes:<node>` crash point, for a checkpoint saver's `aput_writes` right after a
    node's writes are stored (LangGraph's task path of a node is "~__pregel_pull, <node>")
    and before the step's next checkpoint."""
    if task_path.startswith("~__pregel_pull, "):
        crash_point(f"writes:{task_path.rsplit(', ', 1)[-1]}")


__all__ = ["ENV", "crash_point", "writes_saved"]
