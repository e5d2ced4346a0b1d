"""League-life posts as chat text (Markdown as the other posts write it; the surfaces
render it natively): the weekly recap, power rankings, playoff odds, the preview."""

from __future__ import annotations

from datetime import date

from fantasy.constants import STATS_MAP
from fantasy.formatting import month_day_text
from fantasy.league_life import Recap, Trophy
from fantasy.league_life.trade import TradeAnalysis, TradeSide
from fantasy.models import Player


def _names(recap: Recap, ids: tuple[int, ...]) -> str:
    return " and ".join(recap.team_names.get(t, f"Team {t}") for t in ids)


def _num(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.1f}"


def _cats(recap: Recap, ids: tuple[int, ...]) -> str:
    return " ".join(recap.category_names.get(c) or STATS_MAP.get(c, str(c)) for c in ids) or "none"


def _trophy_line(recap: Recap, t: Trophy) -> str:
    who = _names(recap, t.team_ids)
    shared = " (shared)" if len(t.team_ids) > 1 else ""
    unit = " categories" if recap.categories else ""
    if t.key in ("high", "low"):
        return f"• {t.title}: {who}, {_num(t.value)}{unit}{shared}"
    if t.key == "blowout":
        return f"• {t.title}: {who} by {_num(t.value)}{unit}{shared}"
    if t.key == "closest":
        return f"• {t.title}: {who} by {_num(t.value)}{unit}{shared}"
    if t.key in ("luckiest", "unluckiest"):
        verb = "won" if t.key == "luckiest" else "lost"
        recs = ", ".join(recap.all_play[i].text() for i in t.team_ids)
        return (f"• {t.title}: {who} {verb} with a {recs} all-play record "
                f"(against every team's score){shared}")
    if t.key == "best_manager":
        return f"• {t.title}: {who}, {t.value * 100:.1f}% of the best possible lineups{shared}"
    if t.key == "worst_manager":
        eff = recap.efficiency[t.team_ids[0]]
        left = (f"{_num(eff.left_on_bench)} points sat on the bench" if eff.unit == "points"
                else f"{_num(eff.left_on_bench)} more games could have been started")
        return f"• {t.title}: {who}, {t.value * 100:.1f}%: {left}{shared}"
    return f"• {t.title}: {who}"


def recap_text(recap: Recap, first_day: date, last_day: date) -> str:
    """The weekly recap post: results, trophies and manager efficiency."""
    head = (f"**Matchup {recap.period} recap** · {month_day_text(first_day)} – "
            f"{month_day_text(last_day)}")
    if not recap.finished:
        head += " (games still to play: results so far)"
    lines = [head, "", "**Results**"]
    for r in recap.results:
        h = recap.team_names.get(r.home_id, f"Team {r.home_id}")
        a = recap.team_names.get(r.away_id, f"Team {r.away_id}")
        if recap.categories:
            score = f"{h} {_num(r.home_score)}–{_num(r.away_score)}"
            if r.tied_categories:
                score += f"–{len(r.tied_categories)}"
            line = f"• {score} {a}"
            line += (f" ({h}: {_cats(recap, r.home_categories)}; "
                     f"{a}: {_cats(recap, r.away_categories)})")
        else:
            line = f"• {h} {_num(r.home_score)} – {_num(r.away_score)} {a}"
        if r.winner_id is None:
            line += " · tie"
        lines.append(line)
    lines += ["", "**Trophies**"]
    lines += [_trophy_line(recap, t) for t in recap.trophies]
    what = ("games started of the most that could have been started" if recap.categories
            else "points scored of the best possible lineups' points")
    lines += ["", f"**Manager efficiency** ({what}, day by day, from each day's roster)"]
    order = sorted(recap.efficiency.values(),
                   key=lambda e: (-(e.pct if e.pct is not None else -1.0), e.team_id))
    for e in order:
        name = recap.team_names.get(e.team_id, f"Team {e.team_id}")
        lines.append(f"• {name}: {e.pct_text()} ({_num(e.actual)} of {_num(e.optimal)})")
    return "\n".join(lines)


def _pct(p: float | None) -> str:
    return "—" if p is None else f"{p * 100:.1f}%"


def rankings_text(rows: list, names: dict[int, str], after_period: int) -> str:
    """The power rankings with the formula, each team's three parts (all-play records and
    percentages) and movement since the rankings before matchup `after_period`."""
    from fantasy.league_life.rankings import RECENT_PERIODS, WEIGHTS
    ws, wr, wp = WEIGHTS
    lines = [f"**Power rankings** · after matchup {after_period}",
             f"power = {ws} × season all-play % + {wr} × all-play % over the last "
             f"{RECENT_PERIODS} matchups + {wp} × projected all-play % for the rest of the "
             "season (all-play: each week's score against every other team's); ties: "
             "points for"]
    for r in rows:
        move = r.movement
        arrow = "" if move is None else " (=)" if move == 0 else \
            f" (▲{move})" if move > 0 else f" (▼{-move})"
        lines.append(
            f"{r.rank}. {names.get(r.team_id, f'Team {r.team_id}')} {r.score * 100:.1f}{arrow}: "
            f"season {r.season.text()} {_pct(r.season.pct)} · last {RECENT_PERIODS} "
            f"{r.recent.text()} {_pct(r.recent.pct)} · projected {r.projected.text()} "
            f"{_pct(r.projected.pct)}" + (f" · PF {r.points_for:,.0f}" if r.points_for else ""))
    return "\n".join(lines)


def odds_text(odds: object, names: dict[int, str], records: dict) -> str:
    """The playoff odds table: how they are made, then each team's record and odds."""
    from fantasy.league_life.odds import PlayoffOdds, pct_text
    assert isinstance(odds, PlayoffOdds)
    head = "**Playoff odds** (regular season)"
    if not odds.computable:
        return (f"{head}: not computable: no regular-season games remain, the standings "
                "are final.")
    rule = {"H2H_RECORD": "head-to-head record", "TOTAL_POINTS_SCORED": "points for"}.get(
        odds.rule.upper(), "points for")
    lines = [head,
             f"{odds.simulations:,} simulations (seed {odds.seed}) of the {odds.games_left} "
             f"remaining matchups, each decided by the preview's win probability; top "
             f"{odds.spots} by record make it (ties: {rule}, then points for). \"Clinched\" "
             "and \"eliminated\" are certain; the rest are simulated shares."]
    for k, t in enumerate(odds.teams, 1):
        r = records[t.team_id]
        rec = f"{r.wins:g}-{r.losses:g}" + (f"-{r.ties:g}" if r.ties else "")
        best = max(range(len(t.seeds)), key=lambda i: t.seeds[i]) if any(t.seeds) else None
        seed = (f" · most likely seed {best + 1} ({pct_text(t.seeds[best])})"
                if best is not None and not t.eliminated else "")
        lines.append(f"{k}. {names.get(t.team_id, f'Team {t.team_id}')} ({rec}): "
                     f"{t.text()}{seed}")
    return "\n".join(lines)


#: a matchup is close when its favourite's win probability is at most this
CLOSE_AT = 0.65


def _prob(p: float) -> str:
    """A win probability as shown: whole percent, never a flat 0% or 100%."""
    return "<1%" if p < 0.005 else ">99%" if p > 0.995 else f"{p:.0%}"


def preview_text(period: int, first_day: date, last_day: date, lines: list[dict]) -> str:
    """The matchup preview: each matchup's projected finals (or categories), games left per
    side and win probability; close matchups flagged. `lines`: one dict per matchup with
    home/away names, finals, games, win probabilities and (category leagues) the
    categories each side is favoured in."""
    out = [f"**Matchup {period} preview** · {month_day_text(first_day)} – "
           f"{month_day_text(last_day)}",
           "Projected finals from each team's best daily lineups with no moves (games left, "
           f"win probability); close: the favourite at {CLOSE_AT:.0%} or less."]
    for m in lines:
        fav = max(m["p_home"], m["p_away"])
        close = " · **close**" if fav <= CLOSE_AT else ""
        if m.get("cats") is not None:
            hc, ac = m["cats"]
            out.append(f"• {m['home']} {len(hc)}–{len(ac)} {m['away']} in categories "
                       f"({m['home']}: {' '.join(hc) or 'none'}; {m['away']}: "
                       f"{' '.join(ac) or 'none'}) · {m['games_home']:.0f} vs "
                       f"{m['games_away']:.0f} games left · {_prob(m['p_home'])} vs "
                       f"{_prob(m['p_away'])}{close}")
        else:
            out.append(f"• {m['home']} {_num(round(m['final_home']))} vs "
                       f"{_num(round(m['final_away']))} {m['away']} · {m['games_home']:.0f} vs "
                       f"{m['games_away']:.0f} games left · {_prob(m['p_home'])} vs "
                       f"{_prob(m['p_away'])}{close}")
    return "\n".join(out)


def close_alert_text(m: dict, home_wins: bool) -> str:
    """The close-matchup alert: the matchup's new projected winner, its win probability and
    the projected finals (or categories), from a preview line (`preview_text`'s)."""
    win, lose = (m["home"], m["away"]) if home_wins else (m["away"], m["home"])
    p = m["p_home"] if home_wins else m["p_away"]
    if m.get("cats") is not None:
        hc, ac = m["cats"]
        wc, lc = (hc, ac) if home_wins else (ac, hc)
        proj = f"projected {len(wc)}–{len(lc)} in categories"
    else:
        fw, fl = (m["final_home"], m["final_away"]) if home_wins else \
            (m["final_away"], m["final_home"])
        proj = f"projected {_num(round(fw))}–{_num(round(fl))}"
    return (f"⚡ **Close matchup flips:** {win} is now projected to beat {lose} "
            f"({_prob(p)} to win, {proj}).")


_VERDICT_WORDS = {"helps": "helps", "hurts": "hurts", "even": "about even"}


def _players(ps: tuple[Player, ...]) -> str:
    names = [p.name for p in ps]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _side_lines(s: TradeSide, points: bool, you: bool) -> list[str]:
    who = f"{s.team_name} (you)" if you else s.team_name
    verdict = _VERDICT_WORDS[s.verdict]
    if points:
        head = (f"**{who}: {verdict}** ({s.change:+,.0f} fantasy points rest of season, "
                f"{100 * s.share:+.1f}%)")
    else:
        head = f"**{who}: {verdict}**"

    def part(p: Player) -> str:
        if points:
            return f"{p.name} {_num(round(s.values.get(p.id, 0.0)))}"
        return f"{p.name} {_num(round(s.games.get(p.id, 0.0), 1))} starts"

    unit = "points from their starts" if points else "games started"
    lines = [head, f"• gets {', '.join(map(part, s.gets))}; gives "
                   f"{', '.join(map(part, s.gives))} ({unit} to the season's end, in its "
                   "best lineup each day)"]
    if s.drops:
        why = "your named drop" if s.named_drop else "the drop that costs it least"
        lines.append(f"• must drop {_players(s.drops)} to stay within the roster limit ({why})")
    if s.adds:
        lines.append(f"• fills the open spot with the best free agent: {_players(s.adds)}")
    if points:
        lines.append(f"• rest of season {_num(round(s.before))} → {_num(round(s.after))}; "
                     f"this matchup {_num(round(s.week_before))} → {_num(round(s.week_after))}"
                     " still to come")
    else:
        rev = set(s.reversed_categories)
        moved = [f"{c} {100 * (-v if c in rev else v):+.0f}%"
                 for c, v in s.category_change.items() if abs(v) >= 0.005]
        lines.append("• categories rest of season: " + (", ".join(moved) or "no change"))
        lines.append(f"• games started rest of season {_num(round(s.before, 1))} → "
                     f"{_num(round(s.after, 1))}; this matchup {_num(round(s.week_before, 1))}"
                     f" → {_num(round(s.week_after, 1))}")
    return lines


def trade_text(a: TradeAnalysis, my_team_id: int | None = None) -> str:
    """A trade verdict for both sides, with injuries, warnings and the rule."""
    first, second = a.sides
    lines = [f"**Trade:** {first.team_name} gives {_players(first.gives)}; "
             f"{second.team_name} gives {_players(second.gives)}.", ""]
    for side in a.sides:
        lines += _side_lines(side, a.points, side.team_id == my_team_id)
        lines.append("")
    lines.append("Injuries: " + ("; ".join(a.injuries) + "." if a.injuries
                                 else "none of the players moved is hurt."))
    lines += [f"⚠️ {w}" for w in a.warnings]
    rule = ("helps at +2% of the team's rest-of-season projection, hurts at −2%" if a.points
            else "helps when more categories gain 2% than lose it, hurts when more lose")
    lines.append(f"_Every day's best lineup to the season's end, no other moves; {rule}._")
    return "\n".join(lines)
