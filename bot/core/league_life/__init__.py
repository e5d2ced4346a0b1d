"""League life in the chat: the league channel's posts and their commands.

`/recap [period]` posts a matchup period's recap on demand (fantasy.league_life.text,
math in fantasy.league_life). `/alerts setup` switches a channel on (admins; nothing posts
in a channel before it; the channel gets one announcement of the defaults, posted like
every league post), `/alerts` shows and changes its settings. `run_due(surfaces)`
posts what is due in every set-up channel, each post claimed in the ledger
(`LeagueLifeStore.claim`) before it goes out; the scheduler runs it on every pass and
`/advance` after each demo day.

When a recap is due: in a live league at the channel's recap time (default 09:00 in its
time zone) on the first day after the period's last day; in the demo league as soon as its
date is past that day (the demo's date has no time of day). Only periods whose last day is
on or after the channel's setup day are posted.
"""

from __future__ import annotations

import asyncio
import logging
import re
import zoneinfo
from collections.abc import Mapping
from datetime import date, datetime, time
from typing import TYPE_CHECKING, Any

from bot.core.commands import invocation, split_args
from bot.core.errors import InvalidInput
from bot.core.league_life.store import (
    DEFAULT_TZ,
    POST_TYPES,
    ChannelAlerts,
    LeagueLifeStore,
)
from bot.core.models import OutgoingMessage, ThreadRef, UserRef
from bot.core.surface import ChatSurface
from fantasy.constants import STATS_MAP
from fantasy.formatting import day_text
from fantasy.league_life import Recap, build_recap, load_period
from fantasy.league_life.text import close_alert_text, recap_text
from fantasy.models import League
from fantasy.optimizer.lineup import SlotLayout
from storage.crashpoint import crash_point

if TYPE_CHECKING:
    from bot.core.service import ChatCore

log = logging.getLogger(__name__)

ADMINS_ONLY = ("Only a server admin (Manage Server) or the workspace admin who installed "
               "FanVise can change this channel's league alerts.")
FEED_EVERY = 600.0  # seconds between two reads of the activity view per channel
_TIME_RE = re.compile(r"^([01]?\d|2[0-3])[:h.]?([0-5]\d)$")
_LABELS = {"feed": "Transaction feed", "recap": "Weekly recap", "preview": "Matchup preview",
           "close": "Close-matchup alert"}
_ON = {"on", "true", "yes", "1", "enable"}
_OFF = {"off", "false", "no", "0", "disable"}


class LeagueLife:
    """League life: `/recap`, `/alerts` and the scheduled league posts."""

    def __init__(self, core: ChatCore) -> None:
        self.core = core
        self.store = LeagueLifeStore(core.db.db, core.db._clock)
        self._feed_read: dict[str, float] = {}
        #: one pass at a time in this process: the ledger takes over a "posting" claim
        #: as a killed process's, so two passes at once (the scheduler's and /advance's)
        #: would both post it
        self._pass_lock = asyncio.Lock()

    # ------------------------------------------------------------------ the math

    async def recap(self, period: int | None = None) -> tuple[League, Recap, str]:
        """The recap of `period` (default: the last finished one): league, recap, text.
        InvalidInput for a period that does not exist or has not started."""
        league = await self.core.league_client().get_league()
        last = league.settings.regular_season_matchup_periods or max(
            league.settings.matchup_periods)
        if period is None:
            period = league.current_matchup_period - 1
            if period < 1:
                raise InvalidInput("No matchup period has finished yet.")
        if not 1 <= period <= max(last, max(league.settings.matchup_periods)):
            raise InvalidInput(f"Matchup {period} does not exist: this league has matchups "
                               f"1 to {last}.")
        if period > league.current_matchup_period:
            raise InvalidInput(f"Matchup {period} has not started yet (this is matchup "
                               f"{league.current_matchup_period}).")
        box = await load_period(self.core.espn, league, period)
        layout = SlotLayout.from_counts(league.settings.lineup_slot_counts)
        recap = build_recap(
            box, layout, categories=league.settings.categories,
            reverse=league.settings.reverse_categories,
            today_sp=league.current_scoring_period,
            team_names={t.id: t.name for t in league.teams},
            category_names={c: STATS_MAP.get(c, str(c)) for c in league.settings.categories})
        sps = league.settings.matchup_periods[period]
        text = recap_text(recap, league.calendar.date_for(sps[0]),
                          league.calendar.date_for(sps[-1]))
        if period == league.current_matchup_period - 1:  # the latest recap: the race now
            text += "\n\n" + (await self.rankings(league))[2]
            text += "\n\n" + (await self.odds(league))[2]
        return league, recap, text

    async def rankings(self, league: League | None = None) -> tuple[League, list[Any], str]:
        """The power rankings now: league, rows (`fantasy.league_life.rankings`), text."""
        from fantasy.league_life.reports import rankings_report
        league = league or await self.core.league_client().get_league()
        rows, text = await rankings_report(self.core.espn, league)
        return league, rows, text

    async def odds(self, league: League | None = None, *, seed: int | None = None
                   ) -> tuple[League, Any, str]:
        """The playoff odds now: league, `PlayoffOdds`, text (seeded by the league and its
        date unless `seed` is given: the same day gives the same odds)."""
        from fantasy.league_life.reports import odds_report
        league = league or await self.core.league_client().get_league()
        result, text = await odds_report(self.core.espn, league, seed=seed)
        return league, result, text

    async def preview(self, period: int | None = None) -> tuple[League, int, str]:
        """The preview of `period` (default: the current one): league, period, text."""
        from fantasy.league_life.text import preview_text
        league, period, lines = await self.preview_lines(period)
        sps = league.settings.matchup_periods[period]
        return league, period, preview_text(period, league.calendar.date_for(sps[0]),
                                            league.calendar.date_for(sps[-1]), lines)

    async def preview_lines(self, period: int | None = None
                            ) -> tuple[League, int, list[dict[str, Any]]]:
        """Every matchup of `period` (default: the current one) projected: teams, finals,
        games left, win probabilities (and categories in a category league)."""
        from fantasy.league_life.projection import league_projector
        league = await self.core.league_client().get_league()
        last = league.settings.regular_season_matchup_periods or max(
            league.settings.matchup_periods)
        period = period or league.current_matchup_period
        if not league.current_matchup_period <= period <= last:
            raise InvalidInput(f"Matchup {period} is not ahead: previews are for matchups "
                               f"{league.current_matchup_period} to {last}.")
        projector = await league_projector(self.core.espn, league)
        names = {t.id: t.name for t in league.teams}
        lines = []
        for m in league.matchups:
            if m.matchup_period != period or m.away is None:
                continue
            h = projector.period(m.home.team_id, period)
            a = projector.period(m.away.team_id, period)
            win, tie = projector.win_probability(h, a)
            line: dict[str, Any] = {
                "home_id": h.team_id, "away_id": a.team_id,
                "home": names.get(h.team_id, str(h.team_id)),
                "away": names.get(a.team_id, str(a.team_id)),
                "final_home": h.final_points, "final_away": a.final_points,
                "games_home": h.games_left, "games_away": a.games_left,
                "p_home": win, "p_away": max(0.0, 1.0 - win - tie), "cats": None}
            if not league.settings.is_points:
                probs = projector.category_probabilities(h, a)
                cats = [STATS_MAP.get(c, str(c)) for c in league.settings.categories]
                line["cats"] = ([c for c, p in zip(cats, probs, strict=True) if p > 0.5],
                                [c for c, p in zip(cats, probs, strict=True) if p < 0.5])
            lines.append(line)
        return league, period, lines

    # ------------------------------------------------------------------ commands

    async def cmd_preview(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                          args: dict[str, Any]) -> None:
        """`/preview`: this matchup's projected finals, games left and win probabilities."""
        _, period, text = await self.preview()
        if getattr(surface, "start_thread", None) is not None:  # Discord: a command thread
            thread = await self.core.turns.ensure_thread(
                surface, thread, user, "/preview", f"Matchup {period} preview")
        await self.core.turns.post_split(surface, thread, OutgoingMessage(text))

    async def cmd_odds(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                       args: dict[str, Any]) -> None:
        """`/odds`: the playoff odds table."""
        _, _, text = await self.odds()
        if getattr(surface, "start_thread", None) is not None:  # Discord: a command thread
            thread = await self.core.turns.ensure_thread(
                surface, thread, user, "/odds", "Playoff odds")
        await self.core.turns.post_split(surface, thread, OutgoingMessage(text))

    async def cmd_powerrankings(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                                args: dict[str, Any]) -> None:
        """`/powerrankings`: the power rankings with their formula, parts and movement."""
        _, _, text = await self.rankings()
        if getattr(surface, "start_thread", None) is not None:  # Discord: a command thread
            thread = await self.core.turns.ensure_thread(
                surface, thread, user, "/powerrankings", "Power rankings")
        await self.core.turns.post_split(surface, thread, OutgoingMessage(text))

    async def cmd_trade(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                        args: dict[str, Any]) -> None:
        """`/trade give:… get:… [drop:…]`: the trade's verdict for both teams, answered as
        a trade question is (agents.answers.league_life.answer_trade)."""
        from agents.understanding.request import Intent
        from bot.core.league_life.trade_args import TradeArgsError, parse_trade_args
        try:
            trade = parse_trade_args(args)
        except TradeArgsError as exc:
            ex = invocation("trade", "give:Brunson, Hayward get:Tatum", thread.platform)
            raise InvalidInput(f"{exc} e.g. `{ex}`.") from exc
        team_id = await self.core.link.team_for(user, thread.platform)
        request = await self.core.runtime.command_request(
            Intent.TRADE_ANALYSIS, players=[*trade.give, *trade.get], drop=trade.drop,
            team_id=team_id)
        await self.core.turns.turn(surface, thread, user, request.text, title="Trade",
                                   request=request)

    async def cmd_recap(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                        args: dict[str, Any]) -> None:
        """`/recap [period]`: a matchup period's results, trophies and manager efficiency
        (default: the last finished period)."""
        _, pos = split_args(args)
        raw = str(args.get("period") or " ".join(pos)).strip().lower()
        raw = re.sub(r"^(?:matchup|period|week)\s*", "", raw)
        if raw and not raw.isdigit():
            ex = invocation("recap", "14", thread.platform)
            raise InvalidInput(f"Give the matchup period as a number, e.g. `{ex}`, or "
                               "nothing for the last finished one.")
        _, recap, text = await self.recap(int(raw) if raw else None)
        if getattr(surface, "start_thread", None) is not None:  # Discord: a command thread
            thread = await self.core.turns.ensure_thread(
                surface, thread, user, f"/recap {raw}".strip(), f"Matchup {recap.period} recap")
        await self.core.turns.post_split(surface, thread, OutgoingMessage(text))

    async def cmd_alerts(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                         args: dict[str, Any]) -> None:
        """`/alerts` shows this channel's league alerts; `/alerts setup` switches them on
        (admins); `/alerts recap off`, `/alerts preview 08:30`, `/alerts timezone
        Europe/London`, `/alerts close on`, `/alerts close threshold 15` change one."""
        kv, pos = split_args(args)
        words = [w.lower() for w in pos] + [f"{k} {v}".lower() for k, v in kv.items()]
        words = " ".join(words).split()
        key = thread.channel_key
        current = await self.store.get(key)
        if not words or words == ["show"]:
            if current is None:
                ex = invocation("alerts", "setup", thread.platform)
                await surface.ephemeral(thread, user, "No league alerts in this channel: "
                                        f"nothing is posted here. Admins: `{ex}`.")
                return
            await surface.ephemeral(thread, user, self.settings_text(current))
            return
        if not user.is_admin:
            raise InvalidInput(ADMINS_ONLY)
        if words == ["setup"]:
            if current is not None:
                await surface.ephemeral(thread, user, "League alerts are set up in this "
                                        "channel already.\n" + self.settings_text(current))
                return
            alerts = ChannelAlerts(key, thread.platform, thread.workspace_id,
                                   thread.channel_id, self.core.league_today().isoformat())
            if await self.store.create(alerts, user.key):
                await self.feed_baseline(key)
                await surface.ephemeral(thread, user, "League alerts set up: FanVise "
                                        "announces them in this channel now.\n"
                                        + self.settings_text(alerts))
                await self.core.daily.schedules_changed()  # the scheduler's pass posts it
            return
        if current is None:
            ex = invocation("alerts", "setup", thread.platform)
            raise InvalidInput(f"Set this channel up first: `{ex}`.")
        updated = self._change(current, words, thread.platform)
        await self.store.save(updated)
        await surface.ephemeral(thread, user, "Saved for this channel.\n"
                                + self.settings_text(updated))

    def _change(self, cur: ChannelAlerts, words: list[str], platform: str) -> ChannelAlerts:
        ex = invocation("alerts", "recap off", platform)
        if words[0] in ("tz", "timezone", "zone") and len(words) == 2:
            return self._tz(cur, words[1])
        kind = {"transactions": "feed", "recaps": "recap", "previews": "preview",
                "closematchup": "close"}.get(words[0], words[0])
        if kind not in POST_TYPES or len(words) < 2:
            raise InvalidInput(f"Name a post type ({', '.join(POST_TYPES)}) and what to set, "
                               f"e.g. `{ex}`.")
        if kind == "close" and words[1] == "threshold":
            if len(words) != 3 or not words[2].rstrip("%").isdigit() \
                    or not 1 <= int(words[2].rstrip("%")) <= 49:
                raise InvalidInput("The close-matchup threshold is a number of percentage "
                                   "points from 50%, from 1 to 49, e.g. 10.")
            from dataclasses import replace
            return replace(cur, close_threshold=int(words[2].rstrip("%")))
        out = cur
        for w in words[1:]:
            if w in _ON:
                out = out.with_post(kind, on=True)
            elif w in _OFF:
                out = out.with_post(kind, on=False)
            elif (m := _TIME_RE.match(w)) and kind != "feed":
                out = out.with_post(kind, hhmm=f"{int(m.group(1)):02d}:{m.group(2)}")
            else:
                raise InvalidInput(f"{w[:20]!r}: use on, off or a 24-hour time HH:MM "
                                   f"(the feed has no time), e.g. `{ex}`.")
        return out

    @staticmethod
    def _tz(cur: ChannelAlerts, raw: str) -> ChannelAlerts:
        from dataclasses import replace
        name = next((z for z in zoneinfo.available_timezones() if z.lower() == raw.lower()),
                    None)
        if name is None:
            raise InvalidInput(f"Unknown time zone {raw[:40]!r}: use an IANA name like "
                               "America/New_York or Europe/London.")
        return replace(cur, tz=name)

    @staticmethod
    def settings_text(a: ChannelAlerts) -> str:
        """A channel's settings, one line per post type."""
        lines = [f"League alerts in this channel (time zone {a.tz}):"]
        for kind in POST_TYPES:
            p = a.posts[kind]
            state = "on" if p.on else "off"
            when = {"feed": "checked every 10 minutes",
                    "close": f"when the projected winner changes, at least "
                             f"{a.close_threshold} points from 50%"}.get(
                kind, f"at {p.hhmm}")
            lines.append(f"• {_LABELS[kind]}: {state} ({when})")
        return "\n".join(lines)

    def setup_text(self, a: ChannelAlerts) -> str:
        """The one announcement `/alerts setup` posts in the channel."""
        ex = invocation("alerts", "recap off", a.platform)
        close = (f"on (when a matchup's projected winner changes, at least "
                 f"{a.close_threshold} points from 50%)" if a.on("close") else "off")
        return ("**League alerts are on in this channel.** From now on FanVise posts here:\n"
                "• the transaction feed: every add, drop, waiver claim and trade, once each "
                "(checked every 10 minutes);\n"
                f"• the weekly recap after each matchup's last games are final, and the "
                f"matchup preview when a matchup starts (09:00 {a.tz});\n"
                f"• the close-matchup alert is {close}.\n"
                f"Nothing from before today is posted. Admins change each with `{ex}` "
                f"(see `{invocation('alerts', '', a.platform)}`).")

    # ------------------------------------------------------------------ scheduled posts

    async def run_due(self, surfaces: Mapping[str, ChatSurface],
                      now: datetime | None = None) -> int:
        """Post every league post that is due in the set-up channels of `surfaces`'
        platforms, each once (claimed in the ledger first); returns how many went out.
        A failure is logged and tried again on a later pass. Passes in one process run one
        at a time."""
        async with self._pass_lock:
            return await self._run_due(surfaces, now)

    async def _run_due(self, surfaces: Mapping[str, ChatSurface],
                       now: datetime | None = None) -> int:
        channels = [a for a in await self.store.all() if a.platform in surfaces]
        if not channels:
            return 0
        try:
            league = await self.core.league_client().get_league()
        except Exception as exc:  # noqa: BLE001 - the next pass tries again
            log.warning("league posts: no league (%s)", type(exc).__name__)
            return 0
        today = self.core.league_today()
        demo = getattr(self.core.espn, "demo", None) is not None
        now = now or self.core.now()
        sent = 0
        previews: dict[int, list[dict[str, Any]]] = {}  # one projection a pass
        for a in channels:
            sent += await self._post_once(surfaces[a.platform], a, "setup",
                                          lambda a=a: self._announce(a))
            if a.on("feed") and self._feed_due(a.channel_key, demo):
                sent += await self._feed(surfaces[a.platform], a, league)
            for period in self._recaps_due(league, a, today, now, demo):
                key = f"recap:{league.season}:{period}"
                sent += await self._post_once(surfaces[a.platform], a, key,
                                              lambda p=period: self.recap(p))
            if a.on("close"):
                sent += await self._close_alerts(surfaces[a.platform], a, league, today,
                                                 previews)
            preview_period = self._preview_due(league, a, today, now, demo)
            if preview_period is not None:
                sent += await self._post_once(surfaces[a.platform], a,
                                              f"preview:{league.season}:{preview_period}",
                                              lambda p=preview_period: self.preview(p))
        return sent

    async def _close_alerts(self, surface: ChatSurface, a: ChannelAlerts, league: League,
                            today: date, previews: dict[int, list[dict[str, Any]]]) -> int:
        """The close-matchup alert, mid-period only (after the period's first day, up to
        its last): a matchup whose projected winner changed since this channel last looked,
        now at least the channel's threshold from 50%, at most once per matchup a day."""
        period = league.current_matchup_period
        sps = league.settings.matchup_periods.get(period) or []
        if not sps or not league.calendar.date_for(sps[0]) < today <= \
                league.calendar.date_for(sps[-1]):
            return 0
        if period not in previews:
            previews[period] = (await self.preview_lines(period))[2]
        sent = 0
        for line in previews[period]:
            p = float(line["p_home"])
            if p == 0.5 or line["p_away"] == 0.5:
                continue
            home = p > 0.5
            winner = line["home_id"] if home else line["away_id"]
            mkey = f"{league.season}:{period}:{line['home_id']}-{line['away_id']}"
            before = await self.store.swap_projected_winner(a.channel_key, mkey, winner)
            share = p if home else float(line["p_away"])
            if before is None or before == winner or \
                    (share - 0.5) * 100 < a.close_threshold:
                continue
            text = close_alert_text(line, home)
            sent += await self._post_once(surface, a, f"close:{mkey}:{today.isoformat()}",
                                          lambda t=text: self._text(t))
        return sent

    @staticmethod
    async def _text(text: str) -> tuple[None, None, str]:
        return None, None, text

    async def _announce(self, a: ChannelAlerts) -> tuple[None, None, str]:
        return None, None, self.setup_text(a)

    @staticmethod
    def _recaps_due(league: League, a: ChannelAlerts, today: date, now: datetime,
                    demo: bool) -> list[int]:
        if not a.on("recap"):
            return []
        since = date.fromisoformat(a.since)
        out = []
        for period, sps in sorted(league.settings.matchup_periods.items()):
            last = league.calendar.date_for(sps[-1])
            if last < since or last >= today:
                continue
            if not demo:
                hh, mm = (int(x) for x in a.posts["recap"].hhmm.split(":"))
                zone = zoneinfo.ZoneInfo(a.tz)
                fire = datetime.combine(date.fromordinal(last.toordinal() + 1), time(hh, mm),
                                        tzinfo=zone)
                if now < fire:
                    continue
            out.append(period)
        return out

    def _feed_due(self, channel_key: str, demo: bool) -> bool:
        """The feed is read every 10 minutes per channel (each pass on the demo)."""
        import time as _time
        now = _time.monotonic()
        last = self._feed_read.get(channel_key)
        if not demo and last is not None and now - last < FEED_EVERY:
            return False
        self._feed_read[channel_key] = now
        return True

    async def _feed(self, surface: ChatSurface, a: ChannelAlerts, league: League) -> int:
        """Post each new transaction once. What was there at the channel's setup (or, when
        ESPN could not be read then, at its first read) is recorded, never posted."""
        from bot.core.league_life.feed import transaction_text, transactions
        txs = transactions(await self.core.league_client().get_recent_activity(50))
        if await self._baseline(a.channel_key, txs):
            return 0
        sent = 0
        for tx in txs:
            async def make(tx: Any = tx) -> tuple[None, None, str]:
                return None, None, await transaction_text(tx, league, self.core.espn)
            sent += await self._post_once(surface, a, f"tx:{tx.transaction_id}", make)
        return sent

    async def feed_baseline(self, channel_key: str) -> None:
        """Record the transactions already made when a channel is set up, so that only
        later ones are posted (when ESPN cannot be read now, the feed's first read does)."""
        from bot.core.league_life.feed import transactions
        if self.core.espn is None:
            return
        try:
            txs = transactions(await self.core.league_client().get_recent_activity(50))
        except Exception as exc:  # noqa: BLE001 - the first feed read records it instead
            log.warning("feed baseline of %s not read at setup: %s", channel_key, exc)
            return
        await self._baseline(channel_key, txs)

    async def _baseline(self, channel_key: str, txs: list[Any]) -> bool:
        """Claim every transaction of `txs` as seen, once per channel; False when the
        channel's baseline was recorded before."""
        if not await self.store.claim(channel_key, "feed:baseline"):
            return False
        for tx in txs:
            if await self.store.claim(channel_key, f"tx:{tx.transaction_id}"):
                await self.store.finish(channel_key, f"tx:{tx.transaction_id}", ok=True)
        await self.store.finish(channel_key, "feed:baseline", ok=True)
        return True

    async def recent_feed(self, hours: int = 24) -> str:
        """`/feed recent`: the transactions of the last day (the league's today and
        yesterday)."""
        from datetime import timedelta

        from bot.core.league_life.feed import transaction_text, transactions
        league = await self.core.league_client().get_league()
        since = league.today - timedelta(hours=hours)
        txs = [t for t in transactions(await self.core.league_client().get_recent_activity(50))
               if t.day is not None and t.day >= since]
        if not txs:
            return "No adds, drops or trades in the last 24 hours."
        lines = ["**Transactions, last 24 hours**"]
        lines += [await transaction_text(t, league, self.core.espn) for t in txs]
        return "\n".join(lines)

    async def cmd_feed(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                       args: dict[str, Any]) -> None:
        """`/feed recent`: the league's transactions of the last 24 hours."""
        _, pos = split_args(args)
        word = " ".join(pos).strip().lower() or "recent"
        if word != "recent":
            ex = invocation("feed", "recent", thread.platform)
            raise InvalidInput(f"Use `{ex}` for the last 24 hours of adds, drops and "
                               "trades; `/alerts feed on|off` switches the channel's feed.")
        text = await self.recent_feed()
        if getattr(surface, "start_thread", None) is not None:  # Discord: a command thread
            thread = await self.core.turns.ensure_thread(
                surface, thread, user, "/feed recent", "Transactions")
        await self.core.turns.post_split(surface, thread, OutgoingMessage(text))

    @staticmethod
    def _preview_due(league: League, a: ChannelAlerts, today: date, now: datetime,
                     demo: bool) -> int | None:
        """The current period when its preview is due: it started after the channel's
        setup day, at the preview time of its first day (demo: on its first day)."""
        if not a.on("preview"):
            return None
        period = league.current_matchup_period
        sps = league.settings.matchup_periods.get(period)
        last = league.settings.regular_season_matchup_periods or max(
            league.settings.matchup_periods)
        if not sps or period > last:
            return None
        first = league.calendar.date_for(sps[0])
        if first <= date.fromisoformat(a.since) or first > today:
            return None
        if not demo:
            hh, mm = (int(x) for x in a.posts["preview"].hhmm.split(":"))
            if now < datetime.combine(first, time(hh, mm), tzinfo=zoneinfo.ZoneInfo(a.tz)):
                return None
        return period

    async def _post_once(self, surface: ChatSurface, a: ChannelAlerts, key: str,
                         make: Any) -> int:  # make() -> (_, _, text)
        """Claim `key` in the channel's ledger, then post what `make()` returns (its text
        is the third item). A claim a killed process left is taken over: what it posted
        since is adopted (`Daily._posted_since`), only the rest goes out."""
        since = None
        if not await self.store.claim(a.channel_key, key):
            since = await self.store.resume(a.channel_key, key)
            if since is None:
                return 0
        try:
            text = (await make())[2]
            from bot.core.daily import Daily
            from bot.core.render import split_text
            channel = ThreadRef(a.platform, a.workspace_id, a.channel_id, "")
            msgs = [OutgoingMessage(c) for c in split_text(text, surface.max_text)]
            ids = await Daily._posted_since(surface, channel, msgs, since)
            crash_point("league:posting")
            for i, msg in enumerate(msgs):
                if not ids[i]:
                    ids[i] = await surface.post(channel, msg)
            crash_point("league:post-sent")
        except Exception as exc:  # noqa: BLE001 - tried again on a later pass
            log.error("league post %s to %s failed: %s: %s", key, a.channel_key,
                      type(exc).__name__, exc)
            await self.store.finish(a.channel_key, key, ok=False)
            return 0
        await self.store.finish(a.channel_key, key, ok=True, message_id=ids[0])
        log.info("league post %s sent to %s", key, a.channel_key)
        return 1


__all__ = ["DEFAULT_TZ", "LeagueLife", "day_text"]
