"""Parse every recorded basketball fixture (tests/data) and check real values."""

from __future__ import annotations

import collections
import json
from datetime import date
from pathlib import Path

import pytest

from fantasy.constants import SLOT_ACCEPTS, ScoringType, eligible_slots_for_positions
from fantasy.espn import parse
from fantasy.models import League, Matchup, Player, ProSchedule

DATA = Path(__file__).parents[1] / "data"
#: The recorded ESPN responses in shared/, beside the project's root.
SHARED_FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "espn-fixtures"
BRUNSON = 3934672


def load(name: str):
    return json.loads((DATA / name).read_text())


@pytest.fixture(scope="module")
def schedule() -> ProSchedule:
    return parse.parse_pro_schedule(load("league_2023_pro_schedule.json"), 2023)


def test_pro_schedule_games_and_calendar(schedule: ProSchedule) -> None:
    assert len(schedule.teams) == 31 and schedule.teams[18].abbrev == "NY"
    assert len(schedule.games) == 1230
    for tid in range(1, 31):
        assert len(schedule.games_for_team(tid)) == 82
    # Anchor derived from the data (SP 1 = Monday 2022-10-17), never hard-coded.
    assert schedule.calendar.anchor == date(2022, 10, 17)
    assert schedule.date_for(175) == date(2023, 4, 9)
    assert schedule.scoring_period_for(date(2023, 2, 2)) == 109
    # Opening night: PHI at BOS on 2022-10-18 (SP 2).
    first = schedule.games[0]
    assert (first.id, first.date, first.scoring_period) == (401468016, date(2022, 10, 18), 2)
    assert first.home_team_id == 2 and first.away_team_id == 20
    assert first.is_home(2) and first.opponent_of(20) == 2
    # Every game's date matches the calendar; no games on SP 1 or the All-Star break.
    assert all(schedule.scoring_period_for(g.date) == g.scoring_period for g in schedule.games)
    sps = {g.scoring_period for g in schedule.games}
    assert not sps & {1, 23, 39, 69, 124, 125, 126, 127, 128, 129, 169}
    week = [date(2023, 1, 23) + __import__("datetime").timedelta(days=i) for i in range(7)]
    assert 2 <= schedule.count_games(18, week) <= 4


def test_round_trip_pro_schedule(schedule: ProSchedule) -> None:
    again = ProSchedule.from_dict(json.loads(json.dumps(schedule.to_dict())))
    assert again.games == schedule.games and again.calendar == schedule.calendar


def test_player_card_brunson(schedule: ProSchedule) -> None:
    players = parse.parse_players_response(load("league_2023_playerCard.json"), 2023,
                                           schedule.calendar)
    (p,) = players
    assert (p.id, p.name, p.pro_team_id, p.pro_team) == (BRUNSON, "Jalen Brunson", 18, "NYK")
    assert p.eligible_slots == [0, 1, 5, 7, 8, 11, 12, 13]
    assert p.positions == ["PG", "SG"] and p.position == "PG"
    assert p.injury_status == "ACTIVE" and not p.injured and not p.is_out
    assert p.status == "ONTEAM" and p.on_team_id == 1
    assert p.percent_owned == pytest.approx(98.738, abs=1e-3)
    assert set(p.stats) == {"season", "last_7", "last_15", "last_30", "projected"}
    season = p.stats["season"]
    assert season.games_played == 49
    assert season.avg(0) == pytest.approx(22.816, abs=1e-3)
    assert season.applied_total == 1929.0
    assert p.stats["last_7"].games_played == 3 and p.stats["last_30"].games_played == 15
    assert p.stats["projected"].avg(0) == pytest.approx(21.133, abs=1e-3)
    # FG% is the ratio of totals, not an average of per-game percentages.
    assert season.avg(19) == pytest.approx(403 / 860)
    # 52 per-game (split 5) entries of 2023; the 30 from 2022 are skipped.
    assert len(p.game_log) == 52
    assert p.game_log[0].scoring_period == 3 and p.game_log[-1].scoring_period == 107
    assert p.game_log[-1].date == date(2023, 1, 31)
    assert all(g.game_id and g.date == schedule.date_for(g.scoring_period) for g in p.game_log)


def test_player_list() -> None:
    players = parse.parse_player_list(load("league_players_2023.json"), 2023)
    assert len(players) == 975
    by_id = {p.id: p for p in players}
    rw = by_id[3468]
    assert (rw.name, rw.pro_team, rw.eligible_slots) == ("Russell Westbrook", "LAL",
                                                         [0, 5, 8, 11, 12, 13])
    assert by_id[BRUNSON].pro_team == "NYK"
    # eligibleSlots agree with the composite-slot table for single-position players.
    for p in players:
        base = set(p.eligible_slots) & {0, 1, 2, 3, 4}
        assert set(p.eligible_slots) - {14, 15} == set(eligible_slots_for_positions(base))
        for s in p.eligible_slots:
            if s in SLOT_ACCEPTS:
                assert SLOT_ACCEPTS[s] & base


def test_draft_settings() -> None:
    data = load("league_2023_draft.json")
    s = parse.parse_settings(data["settings"], data["status"])
    assert s.name == "Orlando Beginner H2H Points League" and s.size == 10
    assert s.scoring_type is ScoringType.POINTS and s.espn_scoring_type == "H2H_POINTS"
    assert s.scoring_weights == {6: 1.0, 11: -2.0, 13: 2.0, 14: -1.0, 15: 1.0, 16: -1.0,
                                 0: 1.0, 17: 1.0, 1: 4.0, 2: 4.0, 3: 2.0}
    assert s.lineup_slot_counts[11] == 3 and s.lineup_slot_counts[12] == 3
    assert s.lineup_slot_counts[13] == 1 and s.lineup_slot_counts[7] == 0
    assert s.starting_slot_counts == {0: 1, 1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 11: 3}
    assert s.position_limits[5] == 4 and s.bench_unlimited
    assert s.lineup_lock_type == "INDIVIDUAL_GAME"
    assert s.roster_lock_type == "FIRSTGAME_SCORINGPERIOD"
    assert s.lineup_slot_stat_limits == {}
    assert s.matchup_periods[16] == list(range(106, 113))
    assert s.matchup_periods[21] == list(range(141, 155))
    assert s.matchup_period_for(109) == 16
    assert s.acquisition.matchup_limit == 1.0 and s.acquisition.matchup_limit_per_scoring_period
    assert s.acquisition_limit_for(16) == 7 and s.acquisition_limit_for(21) == 14
    assert s.final_scoring_period == 175 and s.trade_deadline == date(2023, 2, 17)
    again = type(s).from_dict(json.loads(json.dumps(s.to_dict())))
    assert again == s


def test_box_score_points(schedule: ProSchedule) -> None:
    ms = parse.parse_box_scores(load("league_2023_box_score_h2h_points.json"), 2023,
                                schedule.calendar)
    assert len(ms) == 5 and {m.matchup_period for m in ms} == {16}
    assert {t for m in ms for t in (m.home_team_id, m.away_team_id)} == set(range(1, 11))
    m = ms[0]
    assert (m.home_team_id, m.home.points, m.away_team_id, m.away.points) == (4, 896.0, 3, 901.0)
    assert m.home.points_by_scoring_period[106] == 344.0
    assert m.winner == "UNDECIDED"
    hali = m.home.lineup[0]
    assert (hali.player.name, hali.lineup_slot_id, hali.slot) == ("Tyrese Haliburton", 0, "PG")
    assert hali.player.injury_status == "ACTIVE"  # no injury data in this file
    (g,) = hali.player.game_log
    assert (g.scoring_period, g.date, g.applied_points, g.stats[0]) == (
        109, date(2023, 2, 2), 54.0, 26.0)
    slots = collections.Counter(e.lineup_slot_id for e in m.home.lineup)
    assert slots[12] >= 1 and slots[11] <= 3  # real slots, not the all-zero matchup roster
    assert Matchup.from_dict(json.loads(json.dumps(m.to_dict()))) == m


def test_box_score_categories() -> None:
    ms = parse.parse_box_scores(load("league_2023_box_score_h2h_cat.json"), 2023)
    assert len(ms) == 5
    home = ms[0].home
    assert (home.team_id, home.wins, home.losses, home.ties) == (2, 6, 2, 0)
    assert home.points == 0.0 and home.category_score == 6.0
    assert home.categories[19].result == "LOSS"
    assert home.categories[19].score == pytest.approx(0.50220264)
    assert home.categories[0].result == "WIN" and home.categories[0].score == 309.0
    assert home.categories[13].result is None  # FGM is a component of FG%
    for m in ms:
        a, b = m.home, m.away
        assert a.wins == b.losses and a.losses == b.wins


def test_box_score_roto() -> None:
    (m,) = parse.parse_box_scores(load("league_2023_box_score_roto.json"), 2023)
    assert m.away is None and len(m.teams) == 6
    pts = {s.team_id: s.points for s in m.teams}
    assert pts == {6: 26.0, 1: 32.0, 7: 25.0, 9: 20.0, 11: 35.0, 12: 30.0}
    for side in m.teams:  # roto points = sum of category ranks
        ranks = [c.rank for sid, c in side.categories.items() if sid in (0, 1, 2, 3, 6, 17, 19, 20)]
        assert sum(ranks) == side.points
    t6 = m.side_for(6)
    assert t6 is not None and t6.games_played_by_slot[11] == 121.0
    statuses = collections.Counter(e.player.injury_status for s in m.teams for e in s.lineup)
    assert statuses == {"ACTIVE": 58, "OUT": 15, "DAY_TO_DAY": 8}
    embiid = next(e.player for s in m.teams for e in s.lineup if e.player.id == 3059318)
    # player.injuryStatus, not the entry-level "NORMAL"
    assert embiid.injury_status == "DAY_TO_DAY" and embiid.is_uncertain
    outs = [e.player for s in m.teams for e in s.lineup if e.player.injury_status == "OUT"]
    assert all(p.is_out and p.ir_eligible for p in outs)


def test_models_round_trip_player() -> None:
    (p,) = parse.parse_players_response(load("league_2023_playerCard.json"), 2023)
    assert Player.from_dict(json.loads(json.dumps(p.to_dict()))) == p


def test_league_helpers_from_hockey_shape(schedule: ProSchedule) -> None:
    """The missing basketball league file's shape, via the hockey substitute."""
    path = SHARED_FIXTURES / "other-sports" / "hockey_league_data.json"
    if not path.exists():
        pytest.skip("hockey substitute not available (shared/espn-fixtures beside the project)")
    data = json.loads(path.read_text())
    lg = parse.parse_league(data, league_id=1, season=2020, today=date(2020, 3, 1))
    assert len(lg.teams) == 10 and lg.current_matchup_period == 13
    t1 = lg.team(1)
    assert t1.abbrev == "TITS" and str(t1.record) == "109-63-26"
    assert t1.transactions.matchup_acquisition_totals[6] == 1 and t1.acquisitions_used(7) == 1
    assert t1.owners and not t1.owners[0].startswith("{")  # member display names
    assert lg.find_team("tits") is t1 and lg.find_team(t1.owners[0].upper()) is t1
    assert lg.opponent_of(1) is not None
    assert League.from_dict(json.loads(json.dumps(lg.to_dict()))) == lg
