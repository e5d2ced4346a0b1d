"""After a demo move, only what the move changes is rendered and parsed again (issue 14),
and every answer still reflects the move: the kept renders and parsed players give exactly
what a fresh league (no memo) gives."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from fantasy.constants import SLOT_BENCH
from fantasy.demo import open_demo_client
from fantasy.demo.league import DemoLeague, _dumps, _dumps_spliced
from fantasy.espn import parse
from fantasy.espn.readonly import is_read_only
from storage.cache import TTLCache
from storage.db import Database


def _moves(lg: DemoLeague, n: int) -> list[tuple[int, int, int]]:
    rostered = {p for t in lg.team_ids() for p in lg.roster_now(t)}
    free = [int(p) for p in lg.base["players"] if int(p) not in rostered][:n]
    mine = sorted(lg.roster_now(1))[:n]
    return [(1, d, a) for d, a in zip(mine, free, strict=True)]


def _bodies(lg: DemoLeague) -> list[str]:
    fa = {"players": {"limit": 150}}
    return [json.dumps(x, sort_keys=True) for x in (
        lg.league_response(), lg.free_agents_response(fa),
        lg.box_score_response([lg.current_period], lg.today_sp - 1),
        lg.player_cards_response({"players": {"filterIds": {"value": sorted(lg.roster_now(1))}}}),
    )]


def _swap_in_bench(lg: DemoLeague, team: int) -> None:
    """A lineup change: the team's first bench player who fits a starter's slot takes it."""
    roster = lg.roster_now(team)
    for b in (p for p, s in roster.items() if s == SLOT_BENCH):
        for p, slot in roster.items():
            if slot not in (SLOT_BENCH, 13) and slot in lg._eligible(b):
                lg.set_lineup(team, {b: slot, p: SLOT_BENCH})
                return
    raise AssertionError("no lineup change possible")


@pytest.mark.parametrize("variant", ["points", "categories"])
def test_renders_as_days_pass_equal_a_fresh_league(variant: str) -> None:
    """Windows, played days and finished matchups are kept from one date to the next
    (a move and lineup changes on the way, into the next matchup period): every response
    is the one a fresh league renders for the same date and changes."""
    kept = DemoLeague(variant)
    _bodies(kept)
    start = kept.today
    (team, drop, add), = _moves(kept, 1)
    for k in (1, 2, 5, 6):  # Thu, Fri, then Mon and Tue of the next matchup
        kept.advance_to(start + timedelta(days=k))
        _bodies(kept)
        if k == 1:
            kept.apply_move(team, drop, add)
        _swap_in_bench(kept, 2)
        fresh = DemoLeague(variant, today=kept.today)
        fresh.changes = list(kept.changes)
        assert _bodies(kept) == _bodies(fresh)
        prev = kept.current_period - 1
        assert (kept.box_score_response([prev], kept.period_sps[prev][-1])
                == fresh.box_score_response([prev], fresh.period_sps[prev][-1]))
    assert kept.current_period == 16


def test_renders_after_moves_equal_a_fresh_league() -> None:
    kept = DemoLeague("points")
    _bodies(kept)  # fill the render memo before the moves
    moves = _moves(kept, 3)
    for k, (team, drop, add) in enumerate(moves, 1):
        kept.apply_move(team, drop, add)
        fresh = DemoLeague("points")
        for t, d, a in moves[:k]:
            fresh.apply_move(t, d, a)
        assert _bodies(kept) == _bodies(fresh)
    kept.reset()
    assert _bodies(kept) == _bodies(DemoLeague("points"))


async def test_parsed_league_after_a_move_shares_only_unchanged_players(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "c.sqlite")
    client = open_demo_client("points", cache=TTLCache(db))
    try:
        before = await client.get_league()
        fas_before = await client.get_free_agents(size=150)
        (team, drop, add), = _moves(client.demo, 1)
        client.demo.apply_move(team, drop, add)
        after = await client.get_league()
        fas_after = await client.get_free_agents(size=150)
        # the move is there
        assert add in {e.player.id for e in after.team(team).roster}
        assert drop not in {e.player.id for e in after.team(team).roster}
        assert add not in {p.id for p in fas_after}
        # the same objects a parse without the memo gives
        raw = client.demo.league_response()
        plain = parse.parse_league(raw, league_id=client.league_id, season=client.season,
                                   calendar=await client.calendar())
        assert after == plain
        # unchanged players are the same (read-only) objects; changed ones are new
        old = {e.player.id: e.player for t in before.teams for e in t.roster}
        new = {e.player.id: e.player for t in after.teams for e in t.roster}
        other = next(t for t in after.teams if t.id != team)
        assert all(new[e.player.id] is old[e.player.id] for e in other.roster)
        assert new[add] is not old.get(add) and is_read_only(new[add])
        shared = {p.id for p in fas_after} & {p.id for p in fas_before}
        assert shared and all(is_read_only(p) for p in fas_after)
    finally:
        await client.aclose()
        await db.close()


def test_sent_bytes_are_the_rendered_bodies_json() -> None:
    """The league and free-agent bodies are sent with each player object's kept JSON
    spliced in: the same bytes as encoding the body, after a lineup change too (the same
    player objects, kept JSON reused)."""
    lg = DemoLeague("points")
    fa = {"players": {"filterStatus": {"value": ["FREEAGENT", "WAIVERS"]}, "limit": 80}}
    assert lg.free_agents_response_bytes(fa) == _dumps(lg.free_agents_response(fa))
    _swap_in_bench(lg, 3)
    assert lg.league_response_bytes() == _dumps(lg.league_response())
    assert lg.free_agents_response_bytes(fa) == _dumps(lg.free_agents_response(fa))
    lg.advance_to(lg.today + timedelta(days=1))
    assert lg.league_response_bytes() == _dumps(lg.league_response())


def test_a_spliced_body_whose_text_looks_like_a_mark_is_encoded_whole() -> None:
    body = {"a": {"name": "\x000"}, "b": [{"player": {"x": 1.5}}, {"player": {"y": [2]}}]}
    slots = [(e, "player") for e in body["b"]]
    want = _dumps({"a": {"name": "\x000"}, "b": [{"player": {"x": 1.5}}, {"player": {"y": [2]}}]})
    assert _dumps_spliced(body, slots, _dumps) == want


async def test_a_new_day_parses_only_the_matchups_it_changed(tmp_path: Path) -> None:
    """Finished matchups keep their parsed (read-only) objects from one date to the next;
    the current period's are parsed again, and the league is what a plain parse gives."""
    db = await Database.open(tmp_path / "c.sqlite")
    client = open_demo_client("points", cache=TTLCache(db))
    try:
        before = await client.get_league()
        client.demo.advance_to(client.demo.today + timedelta(days=1))
        after = await client.get_league()
        current = after.current_matchup_period
        old = {m.id: m for m in before.matchups}
        for m in after.matchups:
            if m.matchup_period < current:
                assert m is old[m.id]
            elif m.matchup_period == current:
                assert m is not old[m.id] and m != old[m.id]
        plain = parse.parse_league(client.demo.league_response(), league_id=client.league_id,
                                   season=client.season, calendar=await client.calendar())
        assert after == plain
        # a player's new JSON keeps the stat lines of the windows it did not change (the
        # season projection never does), read-only as before
        was = {e.player.id: e.player for t in before.teams for e in t.roster}
        now = [e.player for t in after.teams for e in t.roster if e.player.id in was]
        assert now and any(p is not was[p.id] for p in now)
        kept = [k for p in now for k, line in p.stats.items() if line is was[p.id].stats.get(k)]
        assert kept and all(is_read_only(p.stats[k]) for p in now for k in p.stats)
    finally:
        await client.aclose()
        await db.close()
