"""Exact lineup optimizer: daily lineups, weekly plans, move scans and multi-move plans.

`OptimizerService` (fantasy.optimizer.service) is the API the agents call; the modules below it
work on plain arrays: lineup (daily matroid assignment), week (weekly plans, PuLP for per-slot
games caps), scan (points move scan), categories (H2H categories model and scan), multimove
(PuLP plan of up to k moves with their days), guardrails (protected players, acquisitions).
"""

from fantasy.optimizer.service import OptimizerService

__all__ = ["OptimizerService"]
