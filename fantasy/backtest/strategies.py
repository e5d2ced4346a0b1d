"""The baselines the season backtest compares FanVise with (issue 22; issue 30).

FanVise itself is not simulated here: its results come from the product run
(benchmarks/product_run.py), the managed team played through the chat core, the scheduler
and the demo league as a member plays it.

* `LineupsOnly`: no moves; the best lineup every day.
* `StreamingRule`: a diligent human. Each morning: an OUT player goes to a free IR slot and
  the free agent who projects highest today takes his roster spot (the most valuable OUT
  player first); then, when an acquisition is left, if the free agent who projects highest
  today (per-game value x his chance to play, his team playing today) is worth more than the
  lowest-valued rostered player whose team has no game today, swap them (one swap a day).
  The roster's top 5 by per-game value are never dropped.
"""

from __future__ import annotations

from fantasy.backtest.sim import CORE_N, Day


class LineupsOnly:
    """No moves: the best lineup every day, nothing else."""

    name = "lineups only"

    def moves(self, day: Day) -> list[tuple[int, int]]:
        return []


class StreamingRule:
    """The diligent human's streaming rule (module docstring)."""

    name = "streaming rule"

    def moves(self, day: Day) -> list[tuple]:
        roster = list(day.roster)
        value = day.value
        core = set(sorted(roster, key=lambda r: (-value[r], day.keys[r]))[:CORE_N])
        today = day.expected[:, 0]
        fas = sorted((r for r in day.free_agents if today[r] > 0),
                     key=lambda r: (-value[r] * today[r], day.keys[r]))
        out: list[tuple] = []
        left = day.acquisitions_left
        # an OUT player goes to a free IR slot, and the best free agent playing today takes
        # his roster spot (the most valuable OUT player first)
        out_now = sorted((r for r in roster if day.morning.prob[r] <= 0),
                         key=lambda r: (-value[r], day.keys[r]))
        for drop in out_now[:day.ir_free]:
            if left <= 0 or not fas:
                break
            add = fas.pop(0)
            out.append((drop, add, True))
            roster.remove(drop)
            roster.append(add)
            left -= 1
        for add in fas[:min(left, 1)]:
            idle = [r for r in roster if r not in core and not day.scheduled[r, 0]]
            if not idle:
                break
            drop = min(idle, key=lambda r: (value[r], day.keys[r]))
            if value[add] * today[add] <= value[drop]:
                break
            out.append((drop, add))
            roster.remove(drop)
            roster.append(add)
        return out


__all__ = ["LineupsOnly", "StreamingRule"]
