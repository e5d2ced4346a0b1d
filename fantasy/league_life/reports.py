"""League-life reports from a league snapshot and its client: the power rankings and the
playoff odds with their texts (the bot's posts and the answers to members' questions share
them)."""

from __future__ import annotations

from typing import Any

from fantasy.league_life.odds import PlayoffOdds, default_seed, league_inputs, simulate
from fantasy.league_life.projection import league_projector, projected_scores, served_scores
from fantasy.league_life.rankings import RankingRow, power_rankings
from fantasy.league_life.text import odds_text, rankings_text
from fantasy.models import League


async def rankings_report(client: Any, league: League) -> tuple[list[RankingRow], str]:
    """The power rankings now (`fantasy.league_life.rankings`) and their text."""
    cur = league.current_matchup_period
    last = league.settings.regular_season_matchup_periods or max(
        league.settings.matchup_periods)
    finished = [served_scores(league, p) for p in range(1, min(cur, last + 1))]
    projector = await league_projector(client, league)
    projected = [projected_scores(projector.period_all(p), league)
                 for p in range(cur, last + 1)]
    pf = {t.id: t.record.points_for for t in league.teams}
    rows = power_rankings(finished, projected, pf, categories=league.settings.categories,
                          reverse=league.settings.reverse_categories,
                          teams=[t.id for t in league.teams])
    names = {t.id: t.name for t in league.teams}
    return rows, rankings_text(rows, names, min(cur, last + 1) - 1)


async def odds_report(client: Any, league: League, *, seed: int | None = None
                      ) -> tuple[PlayoffOdds, str]:
    """The playoff odds now (`fantasy.league_life.odds`; seeded by the league and its date
    unless `seed` is given) and their text."""
    projector = await league_projector(client, league)
    records, h2h, games = league_inputs(league, projector)
    if seed is None:
        seed = default_seed(league.league_id, league.season, league.today.isoformat())
    result = simulate(records, games, league.settings.playoff_team_count, h2h=h2h,
                      rule=league.settings.playoff_seeding_rule, seed=seed)
    names = {t.id: t.name for t in league.teams}
    return result, odds_text(result, names, records)
