"""The transaction feed: the league's adds, drops, waiver adds and trades from ESPN's recent
activity view, one post per transaction (its ESPN id claimed in the channel's ledger before
the post), each add with a one-line take: fantasy points per game of the player added
against the one dropped and games left this matchup (points leagues). Lineup moves are
never posted; a channel's first look at the feed only records what is there (nothing older
than its setup is posted)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from fantasy.formatting import day_text
from fantasy.models import ActivityItem, League

#: actions the feed posts (lineup moves, "MOVED", never are)
POSTED = frozenset({"FA ADDED", "WAIVER ADDED", "DROPPED", "TRADED"})


@dataclass
class Transaction:
    """One transaction: its ESPN id, day, team and parts (action, player id, name)."""

    transaction_id: str
    day: date | None
    team_id: int | None
    parts: list[tuple[str, int | None, str]] = field(default_factory=list)
    #: the team of each part (a trade's parts come from both of its teams)
    part_teams: list[int | None] = field(default_factory=list)

    @property
    def adds(self) -> list[tuple[str, int | None, str]]:
        """The add parts (free agent or waiver)."""
        return [p for p in self.parts if p[0] in ("FA ADDED", "WAIVER ADDED")]

    @property
    def drops(self) -> list[tuple[str, int | None, str]]:
        """The drop parts."""
        return [p for p in self.parts if p[0] == "DROPPED"]


def transactions(items: Iterable[ActivityItem]) -> list[Transaction]:
    """Activity items grouped into transactions (oldest first); lineup moves left out."""
    by_id: dict[str, Transaction] = {}
    for it in items:
        if it.action not in POSTED or not it.transaction_id:
            continue
        tx = by_id.setdefault(it.transaction_id,
                              Transaction(it.transaction_id, it.date, it.team_id))
        tx.parts.append((it.action, it.player_id, it.player_name))
        tx.part_teams.append(it.team_id)
    return sorted(by_id.values(), key=lambda t: (t.day or date.min, t.transaction_id))


def _ppg(p: Any, league: League) -> float:
    from fantasy.projections import project
    return max(project(p, as_of=league.today).points(league.settings.scoring_weights), 0.0)


async def transaction_text(tx: Transaction, league: League, client: Any) -> str:
    """One feed line: who did what, with the add's take in points leagues."""
    team = next((t.name for t in league.teams if t.id == tx.team_id), f"Team {tx.team_id}")
    ids = [p[1] for p in tx.parts if p[1] is not None]
    players = {p.id: p for p in await client.get_player_cards(ids)} if ids else {}

    def name(part: tuple[str, int | None, str]) -> str:
        pid = part[1]
        return part[2] or (players[pid].name if pid in players else f"player {pid}")

    when = f" ({day_text(tx.day)})" if tx.day else ""
    if any(p[0] == "TRADED" for p in tx.parts):
        names: dict[int | None, str] = {t.id: t.name for t in league.teams}
        sent: dict[int | None, list[str]] = {}
        for p, tid in zip(tx.parts, tx.part_teams or [tx.team_id] * len(tx.parts), strict=True):
            if p[0] == "TRADED":
                sent.setdefault(tid, []).append(name(p))
        if len(sent) == 2:
            (a, gives), (b, gets) = sent.items()
            return (f"🔁 Trade processed{when}: {names.get(a, f'Team {a}')} sends "
                    f"{' and '.join(gives)} to {names.get(b, f'Team {b}')} for "
                    f"{' and '.join(gets)}.")
        got = ", ".join(name(p) for p in tx.parts if p[0] == "TRADED")
        return f"🔁 Trade processed{when}: {team} traded {got}."
    bits = []
    for p in tx.adds:
        how = "claimed off waivers" if p[0] == "WAIVER ADDED" else "added"
        bits.append(f"{how} {name(p)}")
    for p in tx.drops:
        bits.append(f"dropped {name(p)}")
    line = f"➕ {team} {' and '.join(bits)}{when}."
    if league.settings.is_points and tx.adds and all(p[1] in players for p in tx.adds):
        schedule = await client.get_pro_schedule()
        days = [d for d in league.matchup_dates() if d >= league.today]
        takes = []
        for p in tx.adds:
            pl = players[p[1]]
            games = schedule.count_games(pl.pro_team_id, days)
            takes.append(f"{pl.name} {_ppg(pl, league):.1f} fantasy points a game, {games} "
                         f"game{'s' if games != 1 else ''} left this matchup")
        for p in tx.drops:
            if p[1] in players:
                takes.append(f"{players[p[1]].name} {_ppg(players[p[1]], league):.1f}")
        line += " Take: " + "; ".join(takes) + "."
    elif not league.settings.is_points and len(tx.adds) == 1 and len(tx.drops) == 1 \
            and tx.adds[0][1] in players and tx.drops[0][1] in players:
        line += " " + category_take(players[tx.adds[0][1]], players[tx.drops[0][1]], league)
    return line


def category_take(add: Any, drop: Any, league: League) -> str:
    """A category league's take on an add for a drop: each category's change per game
    (percentages in points of percentage; turnovers as they are, fewer is better)."""
    from fantasy.constants import PERCENTAGE_STATS, STATS_MAP
    from fantasy.projections import project
    pa, pd = project(add, as_of=league.today), project(drop, as_of=league.today)
    parts = []
    for c in league.settings.categories:
        delta = pa.stat(c) - pd.stat(c)
        name = STATS_MAP.get(c, str(c))
        if c in PERCENTAGE_STATS:
            parts.append(f"{name} {100 * delta:+.1f}")
        else:
            parts.append(f"{name} {delta:+.1f}")
    return f"Take: {add.name} for {drop.name}, per game: " + ", ".join(parts) + "."
