"""Per-snapshot lookups that turns repeat (issue 14): the resolver's remembered answers,
the schedule's games per team and date, the client's player names."""

from __future__ import annotations

import itertools
import random
from datetime import timedelta
from typing import Any

from fantasy.demo import open_demo_client
from fantasy.models import Player
from fantasy.player_resolver import PlayerResolver


def test_remembered_answers_are_the_computed_ones() -> None:
    players = [Player(id=1, name="Jalen Brunson"), Player(id=2, name="Jalen Green"),
               Player(id=3, name="Jordan Poole")]
    memo, fresh = PlayerResolver(players), PlayerResolver(players)
    for text in ("is brunson playing", "jalen or poole?", "Zephyr Quillington news", ""):
        first = memo.find(text)
        first.append(first[0] if first else None)  # the caller's own list
        assert memo.find(text) == fresh.find(text)
        assert memo.find(text, limit=1) == fresh.find(text, limit=1)
    for name in ("jalen", "J. Brunson", "2", "pool", ""):
        assert memo.resolve(name) == fresh.resolve(name) == memo.resolve(name)


async def test_games_for_team_on_dates_as_a_filter_of_the_season() -> None:
    client = open_demo_client("points")
    try:
        sched = await client.get_pro_schedule()
        days = sorted({g.date for g in sched.games})
        rng = random.Random(7)
        for team in itertools.islice(sched.teams, 8):
            for _ in range(5):
                start = rng.choice(days)
                dates = [start + timedelta(days=k) for k in rng.sample(range(-2, 9), 5)]
                want = [g for g in sched.games_for_team(team) if g.date in set(dates)]
                assert sched.games_for_team(team, dates) == want
                assert sched.count_games(team, dates) == len(want)
        assert sched.games_for_team(-5, days[:3]) == []
    finally:
        await client.aclose()


async def test_player_names_are_learnt_from_each_new_parse() -> None:
    client: Any = open_demo_client("points")
    try:
        league = await client.get_league()
        assert client._first_naming(league) is False  # named when it was read
        assert client._first_naming([*league.teams]) is True
        pid = league.teams[0].roster[0].player.id
        assert client._player_names[pid] == league.teams[0].roster[0].player.name
    finally:
        await client.aclose()
