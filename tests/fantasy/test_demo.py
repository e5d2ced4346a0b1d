"""The embedded demo league, loaded through the real EspnClient path."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from fantasy.constants import OUT_STATUSES, SLOT_BENCH, STARTING_SLOTS, ScoringType
from fantasy.demo import DEFAULT_TODAY, DemoError, DemoLeague, DemoTransport, open_demo_client
from fantasy.espn.factory import open_league_client
from fantasy.models import League
from storage.cache import TTLCache
from storage.db import Database


@pytest.fixture
async def client():
    c = open_demo_client("points")
    yield c
    await c.aclose()


async def test_league_through_client(client) -> None:
    assert isinstance(client.demo, DemoLeague)
    assert isinstance(client._http._transport, DemoTransport)  # the real client, demo wire
    lg = await client.get_league()
    assert len(lg.teams) == 12 and lg.settings.size == 12
    assert lg.settings.scoring_type is ScoringType.POINTS
    assert lg.today == DEFAULT_TODAY == date(2023, 1, 25)
    assert lg.current_scoring_period == 101 and lg.current_matchup_period == 15
    assert lg.matchup_dates()[0] == date(2023, 1, 23) and lg.matchup_dates()[-1] == date(2023, 1, 29)
    assert len(lg.remaining_dates()) == 5
    me = lg.team(1)
    assert me.name == "Hoop Dreamers" and me.owners == ["Alex Rivera"]
    assert lg.find_team("hoop") is me and lg.find_team("alex rivera") is me
    assert 3934672 in me.player_ids
    assert len(me.roster) == 13
    assert sum(1 for e in me.roster if e.lineup_slot_id in STARTING_SLOTS) == 10
    # live matchup: days before today are scored, today onwards not yet
    m = lg.current_matchup(1)
    assert m is not None and m.away is not None and m.winner == "UNDECIDED"
    opp = lg.opponent_of(1)
    assert opp is not None and m.involves(opp.id)
    mine = m.side_for(1)
    assert mine.points > 0 and set(mine.points_by_scoring_period) == {99, 100, 101}
    assert mine.points_by_scoring_period[101] == 0
    assert mine.points == pytest.approx(sum(mine.points_by_scoring_period.values()))
    # finished periods have winners and feed the records
    done = [x for x in lg.matchups if x.matchup_period < 15]
    assert done and all(x.winner in ("HOME", "AWAY", "TIE") for x in done)
    assert sum(t.record.wins for t in lg.teams) == sum(t.record.losses for t in lg.teams) == 84
    assert me.acquisitions_used(15) == 2 and lg.settings.acquisition_limit_for(15) == 7
    assert len(lg.all_rostered_player_ids()) == 156
    assert League.from_dict(json.loads(json.dumps(lg.to_dict()))) == lg


async def test_injuries_present(client) -> None:
    lg = await client.get_league()
    players = [e.player for t in lg.teams for e in t.roster]
    out = [p for p in players if p.injury_status == "OUT"]
    dtd = [p for p in players if p.injury_status == "DAY_TO_DAY"]
    gtd = [p for p in players if p.injury_status in ("QUESTIONABLE", "PROBABLE")]
    assert len(out) >= 5 and len(dtd) >= 4 and len(gtd) >= 2
    assert all(p.injured and p.expected_return_date and p.expected_return_date > lg.today
               for p in out)
    poole = next(p for p in players if p.name == "Jordan Poole")
    assert poole.on_team_id == 1 and poole.is_out
    assert poole.expected_return_date == date(2023, 2, 4)
    # OUT players do not play: no games logged while out
    (card,) = await client.get_player_cards([poole.id])
    assert not [g for g in card.game_log if g.scoring_period >= 95]


async def test_free_agents_at_pg(client) -> None:
    lg = await client.get_league()
    fas = await client.get_free_agents(slot=0, size=25)
    assert len(fas) == 25
    rostered = lg.all_rostered_player_ids()
    assert all(0 in p.eligible_slots and p.id not in rostered for p in fas)
    assert all(p.status in ("FREEAGENT", "WAIVERS") and p.on_team_id == 0 for p in fas)
    owned = [p.percent_owned for p in fas]
    assert owned == sorted(owned, reverse=True)
    assert any(p.injury_status == "ACTIVE" and p.stat_line("last_7").games_played for p in fas)
    everyone = await client.get_free_agents(size=200)
    for slot in (0, 1, 2, 3, 4):  # healthy streamers at every position
        assert any(slot in p.eligible_slots and not p.is_out for p in everyone)
    assert any(p.is_out for p in everyone) and any(p.status == "WAIVERS" for p in everyone)


async def test_player_card_and_box_scores(client) -> None:
    lg = await client.get_league()
    (b,) = await client.get_player_cards([3934672])
    assert b.name == "Jalen Brunson" and b.on_team_id == 1 and b.pro_team == "NYK"
    assert b.game_log and max(g.scoring_period for g in b.game_log) < lg.current_scoring_period
    assert b.game_log[0].scoring_period == 3  # his real first game log
    assert set(b.stats) == {"season", "last_7", "last_15", "last_30", "projected"}
    assert b.stats["season"].games_played == len(b.game_log)
    boxes = await client.get_box_scores(15, 100)
    assert len(boxes) == 6
    mine = next(m for m in boxes if m.involves(1)).side_for(1)
    day = sum(e.player.game_log[0].applied_points or 0 for e in mine.lineup
              if e.is_starting and e.player.game_log)
    assert day == pytest.approx(mine.points_by_scoring_period[100])


async def test_apply_move_changes_roster_and_persists(tmp_path: Path) -> None:
    state = tmp_path / "demo.json"
    db = await Database.open(tmp_path / "c.sqlite")
    client = open_demo_client("points", cache=TTLCache(db), state_path=state)
    lg = await client.get_league()
    me = lg.team(1)
    drop = next(e.player for e in me.roster if e.lineup_slot_id == SLOT_BENCH)
    add = (await client.get_free_agents(slot=0, size=1))[0]
    with pytest.raises(DemoError):
        client.demo.apply_move(1, 999, add.id)
    with pytest.raises(DemoError):
        client.demo.apply_move(1, drop.id, lg.team(2).roster[0].player.id)
    client.demo.apply_move(1, drop.id, add.id)
    lg2 = await client.get_league()  # the cache must not serve the pre-move roster
    me2 = lg2.team(1)
    assert add.id in me2.player_ids and drop.id not in me2.player_ids
    assert me2.entry_for(add.id).lineup_slot_id == SLOT_BENCH
    assert me2.acquisitions_used(15) == 3
    fas = await client.get_free_agents(size=200)
    assert add.id not in {p.id for p in fas}
    assert next(p for p in fas if p.id == drop.id).status == "WAIVERS"
    activity = await client.get_recent_activity()
    assert [(a.action, a.player_id) for a in activity] == [("FA ADDED", add.id),
                                                           ("DROPPED", drop.id)]
    await client.aclose()
    await db.close()
    # a restart with the same state file keeps the move
    again = open_league_client(state_path=state)
    lg3 = await again.get_league()
    assert add.id in lg3.team(1).player_ids
    await again.aclose()


async def test_set_lineup(client) -> None:
    lg = await client.get_league()
    me = lg.team(1)
    poole = next(e for e in me.roster if e.player.name == "Jordan Poole")
    bench = next(e for e in me.roster if e.lineup_slot_id == SLOT_BENCH)
    util = next(e for e in me.roster if e.lineup_slot_id == 11)
    with pytest.raises(DemoError, match="too many"):
        client.demo.set_lineup(1, {bench.player.id: 11})
    with pytest.raises(DemoError, match="not OUT"):
        client.demo.set_lineup(1, {bench.player.id: 13})
    with pytest.raises(DemoError, match="not eligible"):
        client.demo.set_lineup(1, {bench.player.id: 99})
    client.demo.set_lineup(1, {poole.player.id: 13, util.player.id: SLOT_BENCH,
                               bench.player.id: 11})
    me2 = (await client.get_league()).team(1)
    assert me2.entry_for(poole.player.id).lineup_slot_id == 13
    assert me2.entry_for(bench.player.id).lineup_slot_id == 11
    assert me2.entry_for(util.player.id).lineup_slot_id == SLOT_BENCH


async def test_categories_variant() -> None:
    client = open_demo_client("categories")
    lg = await client.get_league()
    s = lg.settings
    assert s.scoring_type is ScoringType.H2H_CATEGORY
    assert sorted(s.categories) == sorted([0, 6, 3, 2, 1, 17, 19, 20, 11])
    assert s.reverse_categories == {11}
    assert s.acquisition_limit_for(15) == 4
    m = lg.current_matchup(1)
    home, away = m.home, m.away
    assert home.wins + home.losses + home.ties == 9
    assert (home.wins, home.losses) == (away.losses, away.wins)
    assert home.categories[13].result is None and home.categories[19].result in ("WIN", "LOSS",
                                                                                 "TIE")
    fg = home.categories[13].score / home.categories[14].score
    assert home.categories[19].score == pytest.approx(fg, abs=1e-5)
    assert sum(t.record.wins + t.record.losses + t.record.ties for t in lg.teams) == 14 * 12 * 9
    await client.aclose()


async def test_other_today_and_bounds() -> None:
    client = open_demo_client("points", today=date(2022, 12, 1))
    lg = await client.get_league()
    assert lg.today == date(2022, 12, 1) and lg.current_scoring_period == 46
    assert lg.current_matchup_period == 7
    statuses = {e.player.injury_status for t in lg.teams for e in t.roster}
    assert statuses & OUT_STATUSES or "DAY_TO_DAY" in statuses
    await client.aclose()
    with pytest.raises(DemoError):
        DemoLeague(today=date(2023, 6, 1))
    with pytest.raises(DemoError):
        DemoLeague(variant="roto")


async def test_factory_live_vs_demo() -> None:
    live = open_league_client(league_id=42, season=2025, espn_s2="S2VALUE", swid="{SWIDVALUE}")
    assert live.demo is None and live.league_id == 42 and live.authenticated
    assert "S2VALUE" not in repr(live) and "SWIDVALUE" not in repr(live)
    await live.aclose()
    demo = open_league_client(demo_variant="categories")
    assert demo.demo is not None and demo.demo.variant == "categories"
    await demo.aclose()


async def test_acquisition_limit_enforced() -> None:
    client = open_demo_client("categories")  # 4 per matchup; team 1 has used 2
    lg = await client.get_league()
    assert client.demo.acquisitions(1) == (2, 4)
    fas = [p.id for p in await client.get_free_agents(size=5)]
    bench = [e.player.id for e in lg.team(1).roster][-3:]
    client.demo.apply_move(1, bench[0], fas[0])
    client.demo.apply_move(1, bench[1], fas[1])
    with pytest.raises(DemoError, match="used all 4 acquisitions"):
        client.demo.apply_move(1, bench[2], fas[2])
    assert (await client.get_league()).team(1).acquisitions_used(15) == 4
    await client.aclose()
