"""Matchup optimizer graph with a human approval gate.

    read_request -> gather_rosters -> analyze_schedule -> check_injuries -> plan_moves
    -> compose_lineup -> present_and_confirm (interrupt: the plan card) -> apply_moves
    -> replan -> (a partial decision: plan_moves again, the rest as a new card) -> finish
    (matchup / streaming / free-agent requests: the card is the exact multi-move plan;
    injury re-evaluation and a points league ranked by named categories:
    check_injuries -> identify_candidates -> validate_moves (widened search, at most 3
    rounds) -> compose_lineup -> present_and_confirm (at most 2 rounds) -> ...)
    (explicit_move: check_injuries -> evaluate_move -> compose_lineup -> ...)

    graph = build_matchup_optimizer_graph(checkpointer=saver)     # once per process
    await graph.ainvoke({"request_obj": request.model_dump(mode="json"),
                         "requester_id": "u1"}, config, context=deps)
    # paused: payload = state["__interrupt__"][0].value  (type "move_approval")
    await graph.ainvoke(Command(resume={interrupt_id: {"decisions": {move_id: "approve"}}}),
                        config, context=deps)

Nodes are top-level functions; those that read the league take `runtime: Runtime[AgentDeps]`
and use `runtime.context` (the turn's deps), so they can be named and tested alone.

All math comes from fantasy.optimizer (OptimizerService). The graph never re-reads English: it
takes intent (an `Intent` value), categories, day, position, count, players and the explicit
move from the typed Request (`request_obj`, understood upstream), its only input. The
answer is templated, so a run makes no LLM call (`llm_calls` stays 0). A move is applied
only after an explicit "approve" for its move_id. No valid move -> no interrupt.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import Any

from langgraph.config import get_config, get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import interrupt
from pydantic import ValidationError

from agents.answers.lineup import lineup_moves, lineup_view
from agents.matchup_optimizer import prompts
from agents.matchup_optimizer.state import (
    MatchupOptimizerInput,
    MatchupOptimizerOutput,
    MatchupOptimizerState,
)
from agents.shared.deps import AgentDeps, load_context, optimizer_for, scheduled_moves
from agents.shared.progress import progress
from agents.shared.tool_registry import FanviseTools
from agents.understanding.request import OPTIMIZER_INTENTS, Intent, Request
from fantasy.constants import OUT_STATUSES, UNCERTAIN_STATUSES, parse_slot
from fantasy.espn.errors import EspnError
from fantasy.espn.messages import espn_trouble
from fantasy.formatting import (
    POINTS,
    categories_text,
    day_text_of,
    gain_text,
    one_decimal,
    plural,
    season_effect_text,
    total_text,
    whole,
)
from fantasy.move_card import CardMove, MoveCard, MoveOutcome
from fantasy.moves import Plan, move_text, text_of

log = logging.getLogger(__name__)

MAX_SEARCH_ROUNDS = 3
MAX_OFFER_ROUNDS = 2
MOVES_PER_CARD = 3
#: Moves a lineup answer lists (the best of a move scan), as the daily lineup card did.
LINEUP_MOVES = 3
#: (top, drop position filter?, fa_limit, keep focus categories?) per search round.
SEARCH_ROUNDS = ((8, True, 50, True), (15, False, 100, True), (30, False, 200, False))
ESPN_ADD_URL = "https://fantasy.espn.com/basketball/players/add?leagueId={league_id}"
#: The player's add page in the member's league (the hand-off: the member adds there).
ESPN_PLAYER_ADD_URL = ("https://fantasy.espn.com/basketball/players/add?leagueId={league_id}"
                       "&playerId={player_id}")
#: Custom stream event carrying a decided card's typed outcomes ({"stage": OUTCOMES_STAGE,
#: "outcomes": [MoveOutcome JSON]}): the runtime yields it as a MoveOutcomes event.
OUTCOMES_STAGE = "move_outcomes"
#: Intents answered with the exact multi-move plan (the card is the plan).
PLAN_INTENTS = frozenset({Intent.MATCHUP_ANALYSIS, Intent.STREAMING, Intent.FREE_AGENT_SCAN})
#: Intents this graph answers (any other request is reviewed as a matchup).
GRAPH_INTENTS = OPTIMIZER_INTENTS | {Intent.INJURY_REEVALUATION, Intent.FREE_AGENT_SCAN}


def _ref(p: Any) -> dict[str, Any] | None:
    """A resolved PlayerRef as {"id", "name"}; None when absent or not resolved."""
    if p is None or not p.resolved:
        return None
    return {"id": int(p.player_id), "name": p.name or p.words}


def read_request(raw: dict[str, Any] | None) -> dict[str, Any]:
    """What the graph needs from the typed Request (JSON): intent, focus categories, day
    (ISO date when known, else the word), position, count, resolved player ids and the
    explicit move. Empty when there is no request."""
    if not raw:
        return {}
    req = Request.model_validate(raw)
    out: dict[str, Any] = {"intent": req.intent.value, "request": req.text,
                           "focus_categories": [c.upper() for c in req.categories],
                           "position": req.position, "count": req.count,
                           "player_ids": [p.player_id for p in req.resolved_players()
                                          if p.player_id is not None],
                           "day": None, "move": None}
    if req.day is not None and not req.day.week:
        out["day"] = req.day.date or req.day.word
    mv = req.move
    if mv is not None:
        out["move"] = {"drop": _ref(mv.drop), "add": _ref(mv.add),
                       "unresolved": [p.words for p in (mv.drop, mv.add)
                                      if p is not None and not p.resolved]}
    elif req.intent.value == "explicit_move" and req.resolved_players():
        first = _ref(req.resolved_players()[0])
        out["move"] = ({"drop": first, "add": None, "unresolved": []} if req.action == "drop"
                       else {"drop": None, "add": first, "unresolved": []})
    return out


def _move_payload(m: dict[str, Any]) -> dict[str, Any]:
    out = {"move_id": m["move_id"], "drop": m["drop"], "add": m["add"],
           "expected_gain": round(float(m["expected_gain"]), 3), "gain_unit": m["gain_unit"],
           "games": m["games"], "confidence": m["confidence"], "reasons": list(m["reasons"])}
    if m.get("drop_to_ir"):  # the leaving player goes to the free IR slot
        out["drop_to_ir"] = True
    if m.get("category_delta"):  # ranked by named categories: the plan's change too
        out["category_delta"] = dict(m["category_delta"])
        out["plan_delta"] = round(float(m.get("plan_delta") or 0.0), 3)
        out["plan_unit"] = m.get("plan_unit") or ""
    return out


def _explicit_summary(ev: dict[str, Any], days: str, acq: str) -> str:
    """Card summary for the move the member named (one move, its exact gain)."""
    d, a, unit = ev["drop"], ev["add"], ev["gain_unit"]
    if ev.get("drop_to_ir"):
        head = (f"Room for {a['name']}: {move_text(d['name'], a['name'], to_ir=True)} (your IR "
                "slot is free, so nobody is released).")
    elif ev.get("drop_chosen"):
        head = f"Best drop for adding {a['name']}: {d['name']}."
    elif ev.get("add_chosen"):
        head = f"Best free agent for {d['name']}'s spot: {a['name']}."
    else:
        head = f"The move you asked for: {move_text(d['name'], a['name'])}."
    s = (f"{head} Exact optimizer for the rest of this matchup ({days} left, {acq}): "
         f"{gain_text(float(ev['expected_gain']), unit)} "
         f"({total_text(float(ev['base_value']), unit)} without it, "
         f"{total_text(float(ev['planned_value']), unit)} with it).")
    if ev.get("overall") is not None and not ev.get("drop_to_ir"):
        s += f" Keeping {a['name']}: {season_effect_text(float(ev['season_effect']), unit)}"
        if "point" in unit:  # per-game figures a member knows (category values are not)
            s += (f" ({a['name']} {float(ev.get('add_ros_per_game') or 0.0):.1f} "
                  f"{ev.get('per_game_unit') or 'per game'} over {ev.get('add_ros_games', 0)} "
                  f"games, {d['name']} {float(ev.get('drop_ros_per_game') or 0.0):.1f} over "
                  f"{ev.get('drop_ros_games', 0)})")
        s += "."
    if ev.get("warning"):
        s = "WARNING: " + str(ev["warning"]) + " " + s
    alt = ev.get("alternative")
    if alt:
        s += (f" For the same drop, {alt['add']['name']} instead: "
              f"{gain_text(float(alt['expected_gain']), alt.get('gain_unit') or unit)}.")
    return s


def _plan_summary(plan: dict[str, Any]) -> dict[str, Any]:
    """Compact weekly plan: per-day starters, games and totals."""
    out = {"dates": plan["dates"], "games_played": plan["games_played"],
           "value_unit": plan["value_unit"],
           "days": [{"date": d["date"], "games": d["games"], "value": round(d["value"], 2),
                     "starters": [s["name"] for s in d["starters"]]} for d in plan["days"]],
           "moves_applied": plan.get("moves_applied", []), "notes": plan.get("notes", [])}
    for k in ("total_points", "expected_categories_won", "current_points",
              "projected_final_points", "opponent_current_points", "opponent_projected_points"):
        if plan.get(k) is not None:
            out[k] = round(float(plan[k]), 2)
    if plan.get("categories"):
        out["categories"] = [{"name": c["name"], "win_probability": round(c["win_probability"], 3)}
                             for c in plan["categories"]]
    return out


def _plan_value(plan: dict[str, Any]) -> float:
    v = plan.get("total_points")
    return float(v if v is not None else plan.get("expected_categories_won") or 0.0)


def _decisions(value: Any, card: MoveCard) -> dict[str, str]:
    """The resume value as {move_id: approve|decline} for every move of the card
    (MoveCard.resolve): "approve" = the plan's pick of each spot; an unreadable or
    conflicting value declines everything (nothing is made without a clear approval)."""
    if isinstance(value, dict) and "decisions" in value:
        value = value["decisions"]
    if isinstance(value, str):
        value = "approve" if value.strip().lower() in ("approve", "approveall", "yes") \
            else "decline"
    elif isinstance(value, dict):
        ids = {m.move_id for m in card.moves}
        value = {str(k): ("approve" if str(v).strip().lower() in ("approve", "approved", "yes")
                          else "decline") for k, v in value.items() if str(k) in ids}
    else:
        value = "decline"
    try:
        return card.resolve(value)
    except ValueError as exc:
        log.warning("matchup optimizer: refused a decision: %s", exc)
        return card.resolve("decline")


def plan_card_moves(plan: Plan) -> list[dict[str, Any]]:
    """A plan's card moves as JSON (MoveCard.from_plan): the plan moves in timeline order,
    then each move's other players for the same spot (`alternative_of`)."""
    return MoveCard.from_plan(plan).move_dicts()


# --------------------------------------------------------------------------- nodes


async def take_request(state: MatchupOptimizerState) -> dict[str, Any]:
    """The plan's inputs, read from the typed Request understood upstream (`request_obj`):
    nothing here reads English or a second list of intents."""
    progress("read_request", "Reading your request...")
    try:
        req = read_request(state.get("request_obj"))
    except ValidationError as exc:
        log.warning("matchup optimizer: unreadable request_obj: %s", exc)
        req = {}
    start = {"search_round": 0, "llm_calls": 0, "tool_calls": [], "notes": []}
    if not req:
        return {**start, "intent": Intent.MATCHUP_ANALYSIS.value,
                "error": "I could not read that request. Please ask again."}
    if req["intent"] not in GRAPH_INTENTS:  # the supervisor delegates only these
        req["intent"] = Intent.MATCHUP_ANALYSIS.value
    return {**start, **req}


async def gather_rosters(state: MatchupOptimizerState,
                         runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    deps = runtime.context
    tools = FanviseTools(deps)
    progress("gather_rosters", "Analyzing your roster...")
    try:
        await load_context(deps, with_free_agents=True, fa_size=150)
    except EspnError as exc:
        return {"error": espn_trouble(exc)}
    roster = await tools.get_my_roster()
    if "error" in roster:
        return {"error": roster["error"], "tool_calls": ["get_my_roster"]}
    matchup = await tools.get_matchup_details()
    ctx = await load_context(deps)
    opp = ctx.opponent
    acq = {"used": matchup.get("acquisitions_used"), "limit": matchup.get("acquisition_limit")}
    if acq["limit"] is not None and acq["used"] is not None:
        acq["remaining"] = max(int(acq["limit"]) - int(acq["used"]), 0)
    else:
        acq["remaining"] = None
    return {"team": {"id": roster["team_id"], "name": roster["team"]},
            "opponent": {"id": opp.id, "name": opp.name} if opp else None,
            "scoring": "points" if ctx.league.settings.is_points else "categories",
            "matchup": {k: v for k, v in matchup.items() if k != "window"},
            "roster": roster["players"], "acquisitions": acq,
            "tool_calls": ["get_my_roster", "get_matchup_details"]}


def after_read(state: MatchupOptimizerState) -> str:
    return "finish" if state.get("error") else "gather_rosters"


def after_gather(state: MatchupOptimizerState) -> str:
    return "finish" if state.get("error") else "analyze_schedule"


async def analyze_schedule(state: MatchupOptimizerState,
                           runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    tools = FanviseTools(runtime.context)
    mine = await tools.get_schedule("mine")
    opp = await tools.get_schedule("opponent") if state.get("opponent") else {}
    sched = {"days": [{"date": d["date"], "weekday": d["weekday"],
                       "players_with_games": d["players_with_games"]}
                      for d in mine.get("days", [])],
             "total_games": mine.get("total_games", 0),
             "opponent_total_games": opp.get("total_games") if "error" not in opp else None}
    text = f"Checking the schedule: {sched['total_games']} player-games left for you"
    opponent = state.get("opponent")
    if sched["opponent_total_games"] is not None and opponent:
        text += f" vs {sched['opponent_total_games']} for {opponent['name']}"
    progress("analyze_schedule", text + "...")
    return {"schedule": sched, "tool_calls": ["get_schedule"] * (2 if opp else 1)}


async def check_injuries(state: MatchupOptimizerState) -> dict[str, Any]:
    hurt = [{"id": p["id"], "name": p["name"], "status": p["injury_status"],
             "expected_return": p["expected_return"], "positions": p["positions"],
             "games_left": p["games_left"], "expected_games": p["expected_games"],
             "slot": p.get("slot")}
            for p in state.get("roster") or []
            if p["injury_status"] in OUT_STATUSES | UNCERTAIN_STATUSES]
    targets: list[dict[str, Any]] = []
    notes: list[str] = []
    if state.get("intent") == "injury_reevaluation":
        named = next((h for h in hurt if h["id"] in set(state.get("player_ids") or [])),
                     None)
        if named is not None:
            targets = [named]
        else:
            pos = state.get("position")
            want = {"G": {"PG", "SG"}, "F": {"SF", "PF"}}.get(pos or "", {pos} if pos else None)
            targets = [h for h in hurt if h["status"] in UNCERTAIN_STATUSES
                       and (want is None or want & set(h["positions"]))]
            if not targets:
                targets = [h for h in hurt if h["status"] in UNCERTAIN_STATUSES]
        if not targets:
            notes.append("None of your players is day-to-day or questionable right now.")
    if hurt:
        line = "Checking injuries: " + ", ".join(f"{h['name']} ({h['status'].replace('_', '-')})"
                                                for h in hurt) + "..."
    else:
        line = "Checking injuries: everyone is healthy..."
    progress("check_injuries", line)
    return {"injuries": hurt, "injury_targets": targets, "notes": notes}


def after_injuries(state: MatchupOptimizerState) -> str:
    if state.get("intent") == "lineup_optimization":
        return "compose_lineup"
    if state.get("intent") == "explicit_move":
        return "evaluate_move"
    if state.get("intent") == "injury_reevaluation" and not state.get("injury_targets"):
        return "compose_lineup"
    if _plan_route(state):
        return "plan_moves"
    return "identify_candidates"


def _plan_route(state: MatchupOptimizerState) -> bool:
    """The plan answers matchup / streaming / free-agent requests; a points league ranked by
    named categories keeps the category ranking (identify_candidates)."""
    if state.get("intent") not in PLAN_INTENTS:
        return False
    return not (state.get("focus_categories") and state.get("scoring") == "points")


async def plan_moves(state: MatchupOptimizerState,
                     runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    """The exact best plan for the rest of the matchup (OptimizerService.move_plan): the card.
    After a partial decision (round 2) it re-plans the rest: moves the member skipped are
    neither re-offered (their drops held, their adds left out)."""
    deps = runtime.context
    refresh = bool(state.get("applied_moves"))
    try:
        svc = await optimizer_for(deps, refresh=refresh)
    except EspnError as exc:
        return {"notes": [f"Could not re-plan: {exc}"], "valid_moves": []}
    team_id = state["team"]["id"]
    skipped = [a for a in state.get("applied_moves") or []
               if MoveOutcome.of(a).status == "skipped"]
    focus = state.get("focus_categories") if state.get("scoring") == "categories" else []
    position = None
    asked_position = state.get("position")
    if asked_position and state.get("intent") in ("streaming", "free_agent_scan"):
        try:
            position = parse_slot(asked_position)
        except (KeyError, ValueError):
            position = None
    progress("plan_moves", "Planning the best moves for the rest of the matchup..."
              if not refresh else "Re-planning the rest of your matchup...")
    keep, spare_core = _protection(state.get("request_obj"))
    planned = await scheduled_moves(deps, team_id)  # the week plan's moves stay as planned
    plan = svc.move_plan(team_id, focus_categories=focus or (), keep=keep,
                         spare_core=spare_core,
                         hold=[m["drop"]["id"] for m in skipped],
                         exclude_adds=[m["add"]["id"] for m in skipped], position=position,
                         planned=planned)
    moves = plan_card_moves(plan)
    progress("plan_moves",
              f"Exact plan: {plural(len(plan.moves), 'move')}, {plan.totals_line()[:-1]}...")
    out = {"move_plan": plan.to_json(), "valid_moves": moves,
           "holds": [h.model_dump(mode="json") for h in plan.holds],
           "scan_message": plan.message,
           "acquisitions": {**(state.get("acquisitions") or {}),
                            "remaining": plan.acquisitions_left}}
    if not refresh:  # the week before any move (a re-plan keeps it for the answer)
        out["plan"] = _plan_summary(svc.weekly_plan(
            team_id, moves=[(m.drop.id, m.add.id, m.day) for m in plan.scheduled]).to_dict())
    return out


def _protection(raw: dict[str, Any] | None) -> tuple[list[int], bool]:
    """The players the member's words protect ('keep X': their ids) and whether he asked to
    spare his core ('leave my stars alone', 'don't gut my roster'), from the typed Request."""
    if not raw:
        return [], False
    try:
        req = Request.model_validate(raw)
    except ValidationError:
        return [], False
    return ([int(p.player_id) for p in req.keep if p.resolved and p.player_id is not None],
            bool(req.spare_core))


async def identify_candidates(state: MatchupOptimizerState,
                              runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    deps = runtime.context
    rnd = int(state.get("search_round") or 0)
    top, use_pos, fa_limit, keep_focus = SEARCH_ROUNDS[min(rnd, len(SEARCH_ROUNDS) - 1)]
    ctx = await load_context(deps, with_free_agents=True, fa_size=150)
    base = await optimizer_for(deps)
    svc = base
    if fa_limit != base.fa_limit:
        svc = type(base)(ctx.league, ctx.schedule, ctx.free_agents or [],
                         today=deps.today_date(), untouchable=deps.untouchables,
                         fa_limit=fa_limit)
    team_id = state["team"]["id"]
    focus = state.get("focus_categories") or []
    notes: list[str] = []
    cats = None
    ranked_by = None
    targets = {t["id"] for t in state.get("injury_targets") or []}
    if focus and keep_focus:
        if state.get("scoring") == "categories":
            cats = focus
        elif not targets:
            ranked_by = focus  # points league: rank by the named categories
    position = None
    asked_position = state.get("position")
    if use_pos and asked_position and state.get("intent") in ("streaming",
                                                              "free_agent_scan"):
        try:
            position = parse_slot(asked_position)
        except (KeyError, ValueError):
            position = None
    if targets:
        top = 500  # rank every pair, keep those that drop the injured player
    try:
        if ranked_by:
            scan = svc.rank_by_categories(team_id, ranked_by, top=top, position=position)
        else:
            scan = svc.scan_moves(team_id, top=top, position=position,
                                  target_categories=cats)
    except ValueError as exc:
        notes.append(str(exc))
        ranked_by = None
        scan = svc.scan_moves(team_id, top=top, position=position)
    res = scan.to_dict()
    moves = res["moves"]
    if targets:
        moves = [m for m in moves if m["drop"]["id"] in targets][:8]
    cands = [{**m, "games": m["games_added"]} for m in moves]
    drops = list(dict.fromkeys(m["drop"]["name"] for m in cands))
    label = "Found" if rnd == 0 else f"Widened search (round {rnd + 1} of {MAX_SEARCH_ROUNDS}):"
    progress("identify_candidates",
              f"{label} {plural(len(drops), 'drop candidate')} and {plural(len(cands), 'move')} with a "
              f"positive gain...")
    return {"candidates": cands, "holds": [{"player": h["player"], "reason": h["reason"]}
                                           for h in res["holds"]],
            "scan_message": res["message"], "search_round": rnd + 1,
            "acquisitions": {**(state.get("acquisitions") or {}),
                             "remaining": res["acquisitions_remaining"]},
            "search_log": [{"round": rnd + 1, "top": top, "fa_limit": fa_limit,
                            "position": state.get("position") if position is not None else None,
                            "categories": cats or ranked_by,
                            "ranking": "categories" if ranked_by else res["gain_unit"],
                            "moves": len(cands), "message": res["message"]}],
            "ranked_by": ranked_by, "notes": notes}


async def evaluate_move(state: MatchupOptimizerState,
                        runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    """The move the member named, evaluated exactly (OptimizerService.evaluate_move): one
    valid move for the card when it is allowed and gains, else a verdict for the answer."""
    deps = runtime.context
    mv = state.get("move") or {}
    drop, add = mv.get("drop"), mv.get("add")
    svc = await optimizer_for(deps)
    team_id = state["team"]["id"]
    plan = _plan_summary(svc.weekly_plan(team_id).to_dict())
    if drop is None and add is None:
        words = ", ".join(mv.get("unresolved") or [])
        reason = (f"I could not tell which player you mean by {words}" if words else
                  "I could not tell which players the move is about")
        progress("evaluate_move", "Reading the move you asked for...")
        return {"move_eval": {"verdict": "missing", "reason": reason}, "plan": plan}
    if drop and add:
        what = f"dropping {drop['name']} for {add['name']}"
    elif add:
        what = f"adding {add['name']}"
    else:  # a drop alone (neither was returned for above)
        what = f"dropping {(drop or {})['name']}"
    progress("evaluate_move", f"Evaluating {what} with the exact optimizer...")
    ev = svc.evaluate_move(team_id, drop["id"] if drop else None,
                           add["id"] if add else None,
                           drop_name=drop["name"] if drop else None,
                           add_name=add["name"] if add else None).to_dict()
    out: dict[str, Any] = {"move_eval": ev, "plan": plan, "valid_moves": [],
                           "acquisitions": {**(state.get("acquisitions") or {}),
                                            "remaining": ev["acquisitions_remaining"]}}
    if ev["verdict"] in ("gain", "no_gain") and ev.get("drop") and ev.get("add"):
        # the member asked for it: always a card; one that projects worse says so
        d, a = ev["drop"], ev["add"]
        out["valid_moves"] = [{
            "move_id": f"{d['id']}-{a['id']}", "drop": d, "add": a,
            "expected_gain": ev["expected_gain"], "gain_unit": ev["gain_unit"],
            "games": ev["games_added"], "confidence": ev["confidence"],
            "reasons": ([ev["warning"]] if ev.get("warning") else []) + list(ev["reasons"]),
            "plan_delta": ev["expected_gain"], "drop_to_ir": bool(ev.get("drop_to_ir"))}]
    return out


async def validate_moves(state: MatchupOptimizerState,
                         runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    deps = runtime.context
    svc = await optimizer_for(deps)
    ctx = await load_context(deps)
    team_id = state["team"]["id"]
    team = ctx.league.team(team_id)
    roster_ids = {e.player.id for e in team.roster}
    rostered = ctx.league.all_rostered_player_ids()
    fa = {p.id: p for p in svc.free_agents}
    declined = {k for k, v in (state.get("decisions") or {}).items() if v != "approve"}
    remaining = (state.get("acquisitions") or {}).get("remaining")
    focus = bool(state.get("focus_categories")) and state.get("scoring") == "categories" \
        or bool(state.get("ranked_by"))
    base_plan = svc.weekly_plan(team_id).to_dict()
    base_value = _plan_value(base_plan)
    valid, rejected = [], []
    for m in state.get("candidates") or []:
        why = None
        add = fa.get(m["add"]["id"])
        if remaining == 0:
            why = "no acquisitions left this matchup"
        elif m["move_id"] in declined:
            why = "declined earlier"
        elif m["drop"]["id"] not in roster_ids:
            why = f"{m['drop']['name']} is no longer on your roster"
        elif m["add"]["id"] in rostered or add is None:
            why = f"{m['add']['name']} is no longer a free agent"
        elif add.injury_status in OUT_STATUSES:
            why = f"{m['add']['name']} is {add.injury_status}"
        elif float(m["expected_gain"]) <= 0:
            why = "no positive gain"
        if why is None:
            try:
                with_move = svc.weekly_plan(team_id, moves=[(m["drop"]["id"],
                                                             m["add"]["id"])]).to_dict()
            except ValueError as exc:
                why = str(exc)
            else:
                delta = _plan_value(with_move) - base_value
                if delta <= 1e-9 and not focus:
                    why = "the exact weekly plan does not improve with it"
                m = {**m, "plan_delta": round(delta, 3)}
        if why is None:
            valid.append(m)
        else:
            rejected.append({"move_id": m["move_id"], "reason": why})
    valid.sort(key=lambda x: -float(x["expected_gain"]))
    progress("validate_moves", f"Validated {len(valid)} of "
                               f"{plural(len(state.get('candidates') or []), 'move')} against "
                               "the exact weekly plan...")
    return {"valid_moves": valid, "rejected": rejected, "plan": _plan_summary(base_plan)}


def after_validate(state: MatchupOptimizerState) -> str:
    if state.get("valid_moves"):
        return "compose_lineup"
    if (state.get("acquisitions") or {}).get("remaining") == 0 or \
            state.get("intent") == "injury_reevaluation":
        return "compose_lineup"  # widening cannot help
    if int(state.get("search_round") or 0) < MAX_SEARCH_ROUNDS:
        progress("validate_moves", "No valid move yet: widening the search...")
        return "identify_candidates"
    return "compose_lineup"


async def compose_lineup(state: MatchupOptimizerState,
                         runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    deps = runtime.context
    tools = FanviseTools(deps)
    progress("compose_lineup", "Composing your lineup...")
    if state.get("intent") == "lineup_optimization":
        res = await tools.compose_daily_lineup(state.get("day"))
        scan = None
        if "error" not in res:  # the moves worth making, as the plan card would offer them
            try:
                svc = await optimizer_for(deps)
                planned = await scheduled_moves(deps, state["team"]["id"])
                scan = lineup_moves(svc.move_plan(state["team"]["id"], planned=planned))
            except (ValueError, LookupError, EspnError) as exc:
                log.info("lineup: no move plan (%s)", type(exc).__name__)
        return {"lineup": res, "lineup_scan": scan, "tool_calls": ["compose_daily_lineup"]}
    if state.get("plan"):
        return {}
    svc = await optimizer_for(deps)
    return {"plan": _plan_summary(svc.weekly_plan(state["team"]["id"]).to_dict())}


def after_compose(state: MatchupOptimizerState) -> str:
    if state.get("intent") != "lineup_optimization" and state.get("valid_moves"):
        return "present_and_confirm"
    return "finish"


def _next_batch(state: MatchupOptimizerState) -> list[dict[str, Any]]:
    offered = set(state.get("offered_ids") or [])
    return [m for m in state.get("valid_moves") or [] if m["move_id"] not in offered][
        :MOVES_PER_CARD]


async def present_and_confirm(state: MatchupOptimizerState) -> dict[str, Any]:
    # Everything before interrupt() is deterministic: the node re-runs on resume.
    batch = _next_batch(state)
    if not batch:
        return {}
    rnd = int(state.get("offer_rounds") or 0)
    acq = state.get("acquisitions") or {}
    acq_text = ("no acquisition limit" if acq.get("remaining") is None
                else f"{plural(int(acq['remaining']), 'acquisition')} left")
    title = (prompts.APPROVAL_TITLE if rnd == 0 else prompts.ALT_TITLE).format(
        team=state["team"]["name"])
    days = plural(len((state.get("plan") or {}).get("dates") or []), "day")
    ev = state.get("move_eval") or {}
    mp = state.get("move_plan")
    if mp:
        plan = Plan.model_validate(mp)
        batch = [m for m in state.get("valid_moves") or []
                 if m["move_id"] not in set(state.get("offered_ids") or [])]
        title = (prompts.PLAN_TITLE if rnd == 0 else prompts.REST_TITLE).format(
            team=state["team"]["name"])
        how = prompts.PLAN_HOW_POINTS if plan.exact else prompts.PLAN_HOW_CATEGORIES
        summary = prompts.PLAN_SUMMARY.format(totals=plan.totals_line(), how=how, days=days,
                                              acq=acq_text)
        if plan.scheduled:  # the week plan's moves, as planned (never offered again)
            summary = f"{plan.scheduled_line()} {summary}"
        held = [f"{h.player.name} ({h.reason.removeprefix('HOLD: ')})" for h in plan.holds
                if h.reason.startswith("HOLD:")]
        if held:  # injured players coming back soon stay on the roster
            summary += " Held: " + "; ".join(held) + "."
    elif state.get("intent") == "explicit_move" and ev.get("verdict") in ("gain", "no_gain"):
        summary = _explicit_summary(ev, days, acq_text)
    elif ranked_by := state.get("ranked_by"):
        summary = prompts.CATEGORY_SUMMARY.format(
            moves=plural(len(batch), "move"), cats=", ".join(ranked_by), days=days,
            acq=acq_text)
    else:
        summary = prompts.APPROVAL_SUMMARY.format(moves=plural(len(batch), "move"), days=days,
                                                  acq=acq_text)
    if state.get("focus_categories") and state.get("scoring") == "categories":
        summary += f" Focus: {', '.join(state['focus_categories'])}."
    card = MoveCard.from_moves(list(batch) if mp else [_move_payload(m) for m in batch],
                               title=title, summary=summary,
                               requester_id=state.get("requester_id") or "", round=rnd + 1,
                               plan=Plan.model_validate(mp) if mp else None)
    # the interrupt's payload is the card (type + MoveCard JSON)
    payload = {"type": "move_approval", **card.to_json()}
    progress("present_and_confirm",
              f"Waiting for your approval of {plural(len(batch), 'move')}...")
    value = interrupt(payload)
    decisions = _decisions(value, card)
    approved = [m for m in batch if decisions.get(m["move_id"]) == "approve"]
    return {"offered_ids": [m["move_id"] for m in batch], "offer_rounds": 1,
            "decisions": decisions, "last_approved": approved,
            "last_offered": [m["move_id"] for m in batch]}


def after_present(state: MatchupOptimizerState) -> str:
    if state.get("last_approved"):
        return "apply_moves"
    if state.get("move_plan"):
        return "finish"  # every move of the plan skipped: nothing to re-plan
    if int(state.get("offer_rounds") or 0) < MAX_OFFER_ROUNDS and _next_batch(state):
        return "present_and_confirm"
    return "finish"


def _offered_card(state: MatchupOptimizerState) -> MoveCard:
    """The card the member just decided (the moves of the last offer, as presented)."""
    offered = set(state.get("last_offered") or [])
    batch = [m for m in state.get("valid_moves") or [] if m["move_id"] in offered]
    mp = state.get("move_plan")
    return MoveCard.from_moves(batch if mp else [_move_payload(m) for m in batch])


async def apply_moves(state: MatchupOptimizerState,
                      runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    """Make the decided moves of the card, in its order (MoveCard.steps): the one apply
    path of every card (plan, explicit move, injury re-evaluation, category ranking). Each
    move gets its typed outcome (fantasy.move_card.MoveOutcome): applied (demo), waiting
    for ESPN (live), skipped by you, or not possible with the reason. A chain move (it
    drops a player an earlier move adds) drops the player chosen for that spot, and is not
    possible when that move was not made. The outcomes are streamed as a typed event too:
    the run may pause again with the rest of the plan."""
    deps = runtime.context
    team_id = state["team"]["id"]
    card = _offered_card(state)
    decisions = state.get("decisions") or {}
    steps = card.steps(decisions)
    n = sum(1 for st in steps if st.move is not None)
    progress("apply_moves", f"Applying {n} approved {'move' if n == 1 else 'moves'}...")
    demo = getattr(deps.espn, "demo", None)
    to_ir_ids = {v["move_id"] for v in state.get("valid_moves") or [] if v.get("drop_to_ir")}
    not_made: set[int] = set()  # plan add ids whose move was not made
    out: list[MoveOutcome] = []
    changed = False
    for st in steps:
        m = st.move or st.spot
        rec = {"move_id": m.move_id, "plan_move_id": st.spot.move_id, "drop": m.drop,
               "add": m.add, "day": m.day, "expected_gain": m.expected_gain,
               "gain_unit": m.gain_unit, "line": m.line,
               "drop_to_ir": m.move_id in to_ir_ids}
        if st.move is None:
            not_made.add(st.spot.add.id)
            if st.conflict:
                out.append(MoveOutcome(**rec, status="not_possible",
                                       note="conflicts with an approved move above (same "
                                            "player)"))
            elif card.is_plan:  # a ranked card records only what was approved
                out.append(MoveOutcome(**rec, status="skipped", note="skipped by you"))
            continue
        if st.needs is not None and st.needs in not_made:
            out.append(MoveOutcome(**rec, status="not_possible",
                                   note=f"{m.drop.name} is not on your roster: the move that "
                                        "adds him was not made"))
            not_made.add(st.spot.add.id)
            continue
        to_ir = m.move_id in to_ir_ids  # the leaving player goes to IR, not released
        if card.is_plan and m.day is not None and m.day > deps.today_date():
            # a later day's move: made on its day by the scheduler after a re-check
            # (bot.core.move_schedule stores it when the card closes)
            out.append(MoveOutcome(**rec, status="scheduled"))
            continue
        if demo is None:
            out.append(_handoff(deps, rec, m))
            continue
        key = _write_key(state, m)
        res = await _make_through_endpoint(
            deps, team_id, m, to_ir, key=key,
            actor=f"member:{state.get('requester_id') or 'unknown'}",
            made=partial(demo.move_made, team_id, m.day or deps.today_date(), m.drop.id,
                         m.add.id, to_ir=to_ir))
        if res is None:
            # made already on its day (a racing click); read on that day's roster, so a
            # later move dropping the player again hides nothing
            out.append(MoveOutcome(**rec, status="applied", note="already applied"))
            continue
        if res.status == "pending":  # a waiver player: a claim, made when waivers process
            out.append(MoveOutcome(**rec, status="waiting", note=res.note, write_key=key,
                                   steps=[f"Claim put in for {m.add.name}: made when "
                                          "waivers process, if he is still there."]))
            not_made.add(st.spot.add.id)
            continue
        if res.status != "done":
            out.append(MoveOutcome(**rec, status="not_possible", write_key=key,
                                   note=_why_not(demo, team_id, m, ValueError(res.note))))
            not_made.add(st.spot.add.id)
            continue
        changed = True
        out.append(MoveOutcome(**rec, status="applied", note="applied", write_key=key))
    records = [o.to_json() for o in out]
    get_stream_writer()({"stage": OUTCOMES_STAGE, "outcomes": records})
    if changed:
        deps.reset_context()
    return {"applied_moves": (state.get("applied_moves") or []) + records}


async def _make_through_endpoint(deps: AgentDeps, team_id: int, m: CardMove,
                                 to_ir: bool, *, key: str, actor: str,
                                 made: Callable[[], bool]) -> Any:
    """Make a demo move through ESPN's transaction endpoint, which the demo league serves
    with ESPN's rules: the write path a live league uses (fantasy.espn.writes.make_move)
    with the deployment's writer (`deps.writer`: the app DB's `espn_writes` journal and the
    crash points). A free agent is added at once, a waiver player claimed; ESPN's refusal
    is the note. `key` is the move's write key: a re-run of the node after a crash finds
    the write journaled and reads back instead of sending it again (a move journaled for
    `key` is always settled through the writer, which reads back first). None: nothing of
    this move is journaled and `made()` shows it made already (another path made it)."""
    from fantasy.espn.writes import MemoryJournal, make_move
    demo = deps.espn.demo
    if deps.writer is not None:
        writer = deps.writer(team_id, actor)
    else:  # a runtime without a chat core (the eval runner, graph tests): no app DB
        writer = deps.espn.writer(team_id, journal=MemoryJournal())
    writer.names.update({m.drop.id: m.drop.name, m.add.id: m.add.name})
    try:
        journaled = [await writer.journal.write_get(k)
                     for k in (key, f"{key}:ir", f"{key}:claim")]
        if not any(journaled) and made():
            return None
        return await make_move(writer, team_id, m.add.id, m.drop.id,
                               scoring_period=demo.today_sp, actor=actor, drop_to_ir=to_ir,
                               key=key)
    finally:
        await writer.aclose()


def _write_key(state: MatchupOptimizerState, m: CardMove) -> str:
    """The write key of a move approved in this run: its run thread, offer round and move
    id (one approval, one write; the same after a crash re-runs the node, a new one for the
    same move approved again in another run, e.g. after the demo was reset)."""
    thread = str((get_config().get("configurable") or {}).get("thread_id") or "")
    return f"run:{thread}:r{int(state.get('offer_rounds') or 0)}:{m.move_id}"


def _why_not(demo: Any, team_id: int, m: CardMove, exc: Exception) -> str:
    """Why the demo could not make a move, with names ("Coby White was claimed by Bench
    Mob")."""
    try:
        owner = demo.owner_of(m.add.id)
    except Exception:  # noqa: BLE001 - the reason below is enough
        owner = 0
    if owner and owner != team_id:
        return f"{m.add.name} was claimed by {demo.team_name(owner)}"
    return str(exc)


def handoff_steps(drop: str, add: str, when: str = "", *, to_ir: bool = False) -> list[str]:
    """The steps of a move the member makes on ESPN (`when`: " on 2026-01-26" or ""); a
    move to IR puts the leaving player in the IR slot first and drops nobody."""
    if to_ir:
        return [f"On your ESPN team page{when}, move {drop} to the IR slot.",
                f"Open the link to {add}'s add page in your ESPN league.",
                f"Click + next to {add} and Submit (nobody is dropped)."]
    return [f"Open the link to {add}'s add page in your ESPN league{when}.",
            f"Click + next to {add}.",
            f"Choose {drop} to drop, then Submit."]


def _handoff(deps: AgentDeps, rec: dict[str, Any], m: CardMove) -> MoveOutcome:
    """A live league: the member makes the move on ESPN unless the bot makes it with their
    own cookies (bot.core.handoff.make_card_moves, writes on). The outcome says how (steps,
    the add page link) and waits for the next league read."""
    link = ESPN_PLAYER_ADD_URL.format(league_id=deps.espn.league_id, player_id=m.add.id)
    when = f" on {day_text_of(m.day)}" if m.day else ""
    steps = handoff_steps(m.drop.name, m.add.name, when, to_ir=bool(rec.get("drop_to_ir")))
    return MoveOutcome(**rec, status="waiting", espn_link=link, steps=steps,
                       note="waiting for ESPN: " + " ".join(steps))


async def replan(state: MatchupOptimizerState,
                 runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    deps = runtime.context
    progress("replan", "Re-planning your week with the new roster...")
    team_id = state["team"]["id"]
    done = [m for m in state.get("applied_moves") or []
            if MoveOutcome.of(m).status in ("applied", "waiting", "scheduled")]
    if not done:
        return {"replan": None}
    # moves not in the roster yet (scheduled for their day, or waiting for ESPN) count from
    # their day: the re-planned week is the schedule the member approved
    later = [MoveOutcome.of(m) for m in done if MoveOutcome.of(m).status != "applied"]
    try:
        svc = await optimizer_for(deps, refresh=len(later) < len(done))
        plan = svc.weekly_plan(team_id, moves=[
            (o.drop.id, o.add.id, o.day or deps.today_date()) for o in later
            if o.drop is not None and o.add is not None]).to_dict()
    except (EspnError, ValueError) as exc:
        return {"replan": None, "notes": [f"Could not re-plan the week: {exc}"]}
    summary = _plan_summary(plan)
    before = state.get("plan") or {}
    key = "total_points" if "total_points" in summary else "expected_categories_won"
    if key in before and key in summary:
        summary["change"] = round(summary[key] - before[key], 2)
    return {"replan": summary}


def after_replan(state: MatchupOptimizerState) -> str:
    """A partial decision on a demo plan card re-plans the rest (a new card in the thread).
    A live league waits for ESPN first: its roster does not show the moves yet."""
    if not state.get("move_plan") or int(state.get("offer_rounds") or 0) >= MAX_OFFER_ROUNDS:
        return "finish"
    offered = set(state.get("last_offered") or [])
    this_round = [a for a in state.get("applied_moves") or []
                  if a.get("plan_move_id") in offered]
    if any(MoveOutcome.of(a).status == "scheduled" for a in this_round):
        return "finish"  # the rest of the week is a schedule now: no new plan over it
    if any(MoveOutcome.of(a).status == "skipped" for a in this_round) and \
            any(MoveOutcome.of(a).status == "applied" for a in this_round):
        return "plan_moves"
    return "finish"


async def finish(state: MatchupOptimizerState) -> dict[str, Any]:
    answer, report = _compose_answer(state)
    return {"answer": answer, "report": report,
            "applied_moves": state.get("applied_moves") or []}


def build_matchup_optimizer_graph(*, checkpointer: Any = None) -> Any:
    """Compile the matchup optimizer graph (see module docstring). It binds no deps: each
    run passes its `AgentDeps` as `context=`, so one compiled graph serves every turn."""
    g = StateGraph(MatchupOptimizerState, context_schema=AgentDeps,
                   input_schema=MatchupOptimizerInput, output_schema=MatchupOptimizerOutput)
    for name, fn in (("read_request", take_request), ("gather_rosters", gather_rosters),
                     ("analyze_schedule", analyze_schedule), ("check_injuries", check_injuries),
                     ("identify_candidates", identify_candidates),
                     ("evaluate_move", evaluate_move), ("validate_moves", validate_moves),
                     ("plan_moves", plan_moves),
                     ("compose_lineup", compose_lineup),
                     ("present_and_confirm", present_and_confirm), ("apply_moves", apply_moves),
                     ("replan", replan), ("finish", finish)):
        g.add_node(name, fn)
    g.add_edge(START, "read_request")
    g.add_conditional_edges("read_request", after_read, ["gather_rosters", "finish"])
    g.add_conditional_edges("gather_rosters", after_gather, ["analyze_schedule", "finish"])
    g.add_edge("analyze_schedule", "check_injuries")
    g.add_conditional_edges("check_injuries", after_injuries,
                            ["identify_candidates", "evaluate_move", "compose_lineup",
                             "plan_moves"])
    g.add_edge("plan_moves", "compose_lineup")
    g.add_edge("evaluate_move", "compose_lineup")
    g.add_edge("identify_candidates", "validate_moves")
    g.add_conditional_edges("validate_moves", after_validate,
                            ["identify_candidates", "compose_lineup"])
    g.add_conditional_edges("compose_lineup", after_compose, ["present_and_confirm", "finish"])
    g.add_conditional_edges("present_and_confirm", after_present,
                            ["apply_moves", "present_and_confirm", "finish"])
    g.add_edge("apply_moves", "replan")
    g.add_conditional_edges("replan", after_replan, ["plan_moves", "finish"])
    g.add_edge("finish", END)
    return g.compile(checkpointer=checkpointer, name="matchup_optimizer")


# --------------------------------------------------------------------------- answer


def _fmt_move(m: dict[str, Any]) -> str:
    unit = str(m.get("gain_unit") or "")
    if "categor" in unit:  # in words, never a category value
        return f"{text_of(m)} ({categories_text(float(m['expected_gain']))})"
    return f"{text_of(m)} ({gain_text(float(m['expected_gain']), unit or POINTS)})"


def _plan_outcome_lines(applied: list[dict[str, Any]]) -> list[str]:
    """Each decided plan move with what really happened to it (MoveOutcome.line_text)."""
    out = []
    for a in applied:
        oc = MoveOutcome.of(a)
        line = a.get("line")
        out.append(oc.line_text(line if oc.status == "applied" and line else text_of(a)))
    return out


def _plan_line(plan: dict[str, Any] | None) -> str:
    if not plan:
        return ""
    if "total_points" in plan:
        s = f"Optimal plan for the rest of the matchup: {whole(plan['total_points'])} " \
            f"fantasy points from {plan['games_played']} starts"
        if plan.get("projected_final_points") is not None and \
                plan.get("opponent_projected_points") is not None:
            s += (f" (projected final {whole(plan['projected_final_points'])} vs "
                  f"{whole(plan['opponent_projected_points'])})")
        return s + "."
    s = (f"Optimal plan for the rest of the matchup: "
         f"{one_decimal(plan.get('expected_categories_won', 0))} "
         f"expected categories won from {plan['games_played']} starts")
    cats = plan.get("categories") or []
    if cats:
        s += " (" + ", ".join(f"{c['name']} {c['win_probability']:.0%}" for c in cats) + ")"
    return s + "."


def _lineup_answer(state: MatchupOptimizerState) -> str:
    """The day's lineup in the words every lineup path uses (agents.answers.lineup)."""
    lu = state.get("lineup") or {}
    if "error" in lu:
        return f"I could not build that lineup: {lu['error']}"
    team = (state.get("team") or {}).get("name") or "your team"
    return lineup_view(lu, state.get("lineup_scan"), team_name=team,
                       asked=state.get("count")).text()


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _explicit_verdict(ev: dict[str, Any]) -> list[str]:
    """Why the move the member named gets no card: not possible, or not worth it (numbers)."""
    verdict, reason = ev.get("verdict"), str(ev.get("reason") or "")
    if verdict == "missing" or not ev:
        return [prompts.MOVE_MISSING.format(reason=reason or "I could not read the move")]
    if verdict == "not_allowed":
        return [prompts.MOVE_NOT_ALLOWED.format(reason=reason)]
    d, a, unit = ev.get("drop"), ev.get("add"), ev.get("gain_unit", "")
    if d is None or a is None:  # a pick-up with no worthwhile drop, or a drop with no add
        return [f"Not worth it: {reason}."]
    lines = [f"Not worth it: dropping {d['name']} for {a['name']}, your optimal plan for the "
             f"rest of this matchup: {gain_text(float(ev['expected_gain']), unit)} "
             f"({total_text(float(ev['base_value']), unit)} without it, "
             f"{total_text(float(ev['planned_value']), unit)} with it)."]
    if ev.get("reasons"):
        lines.append("Why: " + "; ".join(ev["reasons"]) + ".")
    alt = ev.get("alternative")
    if alt:
        lines.append(f"Better for the same drop: add {alt['add']['name']} "
                     f"({gain_text(float(alt['expected_gain']), alt.get('gain_unit') or unit)}). "
                     f"Ask \"drop {d['name']} for {alt['add']['name']}\" to get that card.")
    return lines


def _compose_answer(state: MatchupOptimizerState) -> tuple[str, dict[str, Any]]:
    intent = state.get("intent") or "matchup_analysis"
    report: dict[str, Any] = {
        "intent": intent, "team": state.get("team"), "opponent": state.get("opponent"),
        "focus_categories": state.get("focus_categories") or [],
        "plan": state.get("plan"), "replanned": state.get("replan"),
        "lineup": state.get("lineup"), "lineup_scan": state.get("lineup_scan"),
        "asked_count": state.get("count"), "injuries": state.get("injuries") or [],
        "holds": state.get("holds") or [],
        "moves_offered": [m for m in state.get("valid_moves") or []
                          if m["move_id"] in set(state.get("offered_ids") or [])],
        "decisions": state.get("decisions") or {},
        "applied_moves": state.get("applied_moves") or [],
        "search_rounds": int(state.get("search_round") or 0),
        "search_log": state.get("search_log") or [],
        "notes": state.get("notes") or [],
    }
    if error := state.get("error"):
        report["error"] = error
        return error, report
    if intent == "lineup_optimization":
        return _lineup_answer(state), report

    lines: list[str] = []
    team = (state.get("team") or {}).get("name", "your team")
    m = state.get("matchup") or {}
    if m.get("opponent"):
        head = f"**{team} vs {m['opponent']}** (matchup {m.get('matchup_period')}, " \
               f"{plural(int(m.get('days_left') or 0), 'day')} left)"
        if "my_points" in m:
            head += f": {m['my_points']} - {m['opponent_points']} so far"
        elif m.get("record"):
            r = m["record"]
            head += f": categories {r['wins']}-{r['losses']}-{r['ties']} so far"
        lines.append(head + ".")
    hurt = state.get("injuries") or []
    if hurt and intent in ("matchup_analysis", "injury_reevaluation"):
        lines.append("Injuries: " + ", ".join(
            f"{h['name']} {h['status'].replace('_', '-').lower()}"
            + (f" (back {day_text_of(h['expected_return'])})" if h.get("expected_return")
               else "")
            for h in hurt) + ".")
    if intent == "injury_reevaluation":
        holds = {h["player"]["id"]: h["reason"] for h in state.get("holds") or []}
        for t in state.get("injury_targets") or []:
            best = next((v for v in state.get("valid_moves") or []
                         if v["drop"]["id"] == t["id"]), None)
            if t["id"] in holds:
                lines.append(f"HOLD {t['name']}: {holds[t['id']]}.")
            elif best is None:
                lines.append(f"HOLD {t['name']}: no free agent beats his expected value "
                             f"({t['expected_games']} expected games of {t['games_left']}).")
            else:
                lines.append(f"STREAM over {t['name']}: {_fmt_move(best)}; he is "
                             f"{t['status'].replace('_', '-').lower()} with "
                             f"{t['expected_games']} expected games of {t['games_left']}.")
    ev = state.get("move_eval") or {}
    if ev:
        report["move_evaluation"] = ev
    applied = state.get("applied_moves") or []
    offered = report["moves_offered"]
    if intent == "explicit_move" and not applied and not (
            ev.get("verdict") in ("gain", "no_gain") and state.get("valid_moves")):
        lines.extend(_explicit_verdict(ev))
        lines.extend(state.get("notes") or [])
        return "\n".join(x for x in lines if x), report
    if applied and state.get("move_plan"):
        lines.extend(_plan_outcome_lines(applied))
        rp = state.get("replan")
        if rp:
            lines.append("Re-planned week: " + _plan_line(rp)[len(
                "Optimal plan for the rest of the matchup: "):])
        if any(MoveOutcome.of(a).status == "waiting" for a in applied):
            lines.append(prompts.LIVE_HANDOFF_NOTE)
        first_day = ((state.get("plan") or {}).get("dates") or [None])[0]
        if first_day and any(MoveOutcome.of(a).status == "applied"
                             and str(a.get("day") or "") > first_day for a in applied):
            lines.append(prompts.DEMO_NOW_NOTE)
    elif applied:
        # each move with what happened to it, in the card's one wording
        lines.extend(MoveOutcome.of(a).line_text(_fmt_move(a)) for a in applied)
        rp = state.get("replan")
        if rp:
            line = "Re-planned week: " + _plan_line(rp)[len("Optimal plan for the rest of the "
                                                            "matchup: "):]
            if rp.get("change") is not None:
                line += (f" Change: {whole(rp['change'], signed=True)} fantasy points."
                         if "total_points" in rp else
                         f" Change: {one_decimal(rp['change'], signed=True)} expected "
                         "categories won.")
            lines.append(line)
    elif offered and state.get("move_plan"):
        n = len([m for m in offered if not m.get("alternative_of")])
        lines.append(("You skipped the plan's move" if n == 1 else
                      f"You skipped all {n} moves of the plan") + "; your roster is unchanged.")
        lines.append(_plan_line(state.get("plan")))
    elif offered:
        lines.append(f"You declined {plural(len(offered), 'suggested move')}; your roster is "
                     "unchanged.")
        lines.append(_plan_line(state.get("plan")))
    elif not state.get("valid_moves"):
        focus = state.get("focus_categories") or []
        focus_txt = f" for {', '.join(focus)}" if focus else ""
        why = state.get("scan_message") or ""
        rounds = int(state.get("search_round") or 0)
        if rounds >= MAX_SEARCH_ROUNDS:
            why = (why + f" Searched {rounds} times with a wider pool each time.").strip()
        if intent != "injury_reevaluation" or not state.get("injury_targets"):
            lines.append(prompts.NO_MOVE.format(focus=focus_txt, why=why).strip())
        mp = state.get("move_plan")
        if mp and state.get("plan"):  # a plan request with no move: the week plan keeps
            report["no_move_plan"] = True  # the lineups (bot.core.week_plan.keep)
        if mp and mp.get("scheduled"):  # the week plan's moves, as planned
            lines.append(Plan.model_validate(mp).scheduled_line())
        lines.append(_plan_line(state.get("plan")))
    for note in state.get("notes") or []:
        lines.append(note)
    return "\n".join(x for x in lines if x), report


__all__ = ["MAX_OFFER_ROUNDS", "MAX_SEARCH_ROUNDS", "build_matchup_optimizer_graph",
           "read_request"]
