"""Answer templates of the matchup optimizer (no LLM math, no LLM calls: the explanation is
templated from optimizer results). Word lists live in agents.understanding, once."""

from __future__ import annotations

APPROVAL_TITLE = "Approve roster moves for {team}"
APPROVAL_SUMMARY = ("{moves} ranked by the exact optimizer for the rest of this matchup "
                    "({days} left, {acq}). Moves that drop the same player are "
                    "alternatives: approve one of them.")
CATEGORY_SUMMARY = ("{moves} ranked by {cats} (value per game in those categories x games "
                    "left) for the rest of this matchup ({days} left, {acq}); each "
                    "shows its effect on your fantasy points in the exact weekly plan. Moves "
                    "that drop the same player are alternatives: approve one of them.")
ALT_TITLE = "Next alternatives for {team}"
NO_MOVE = ("No roster move improves your team for the rest of this matchup{focus}: keep your "
           "roster as it is. {why}")
MOVE_NOT_ALLOWED = "That move is not possible: {reason}."
MOVE_NOT_WORTH = "Not worth it: {what} {reason}."
MOVE_MISSING = "{reason}: tell me who to drop and who to add, e.g. \"drop Simmons for Coby White\"."
OFFLINE_LIVE_NOTE = ("Make the move on ESPN ({link}); FanVise re-planned your week as if it "
                     "were done.")
PLAN_TITLE = "Your plan for the rest of the matchup: {team}"
REST_TITLE = "The rest of your plan: {team}"
PLAN_SUMMARY = ("{totals} {how}, {days} left, {acq}. Approve or skip each "
                "move, or approve the whole plan; a menu offers other players for the same "
                "spot.")
PLAN_HOW_POINTS = "Exact optimizer"
PLAN_HOW_CATEGORIES = ("Exact lineups (moves chosen on a linear model of your category odds, "
                       "their effect computed exactly)")
LIVE_HANDOFF_NOTE = ("FanVise makes approved moves on ESPN only for a member who turned "
                     "writes on (`/link writes:on`, with their own ESPN cookies); the card "
                     "shows what ESPN did. Otherwise make them on ESPN with the steps above: "
                     "I check your roster on the next league read and update the card.")
DEMO_NOW_NOTE = ("The demo league makes approved moves at once, so a move planned for a later "
                 "day already counts from today in the re-planned week; in a live league make "
                 "each move on its day.")
