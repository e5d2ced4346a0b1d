"""The CBC solver PuLP bundles (pulp stays 3.x; its bundled CBC needs no extra install)."""

from __future__ import annotations

import warnings

import pulp


def cbc(time_limit: float | None = None) -> pulp.LpSolver:
    """Silent bundled CBC.  PuLP 3.3 warns that PULP_CBC_CMD goes away in 4.0; we pin 3.x."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return pulp.PULP_CBC_CMD(msg=False, timeLimit=time_limit)
