"""RSS/Atom ingest into the NewsStore: httpx (async) + feedparser + player tagging.

    report = await ingest_feeds(store, players=[(4279888, "Ja Morant"), ...])
    report = await load_demo_news(store, players)      # recorded feeds, fully offline

Feeds are fetched concurrently with a timeout; a feed that is down, slow, returns an HTTP
error or is not a feed is reported in `report.failed` with a clear reason, never raised.
Players are tagged by the one player resolver (fantasy.player_resolver: full names, fuzzy
full-name match (rapidfuzz, for misspellings) and unambiguous last names ("Morant (ankle)").
The HTTP transport is injectable, so tests and the demo feed run the same code offline.
"""

from __future__ import annotations

import asyncio
import calendar
import html
import logging
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import feedparser
import httpx

from fantasy.formatting import plural
from fantasy.models import Player
from fantasy.player_resolver import PlayerResolver
from storage.news_store import NewsItem, NewsStore

log = logging.getLogger(__name__)

ESPN_NBA_FEED = "https://www.espn.com/espn/rss/nba/news"
ROTOWIRE_NBA_FEED = "https://www.rotowire.com/rss/news.php?sport=NBA"
DEFAULT_FEEDS: tuple[str, ...] = (ESPN_NBA_FEED, ROTOWIRE_NBA_FEED)

#: Trust per source (0..1), by lower-case source name. Unknown sources get DEFAULT_TRUST.
DEFAULT_SOURCE_TRUST: dict[str, float] = {
    "espn": 0.9, "rotowire": 0.85, "nba.com": 0.95, "the athletic": 0.9,
    "team beat writer": 0.75, "rumor mill": 0.35, "fan blog": 0.3,
}
DEFAULT_TRUST = 0.5
_HOST_SOURCES = {"espn.com": "ESPN", "rotowire.com": "Rotowire", "nba.com": "NBA.com"}

DEFAULT_TIMEOUT = 10.0
MAX_FEED_BYTES = 5_000_000
USER_AGENT = "FanVise/0.1 (+news ingest)"

#: Recorded demo feeds (RSS 2.0) served offline by DemoFeedTransport.
DEMO_NEWS_DIR = Path(__file__).resolve().parents[1] / "fantasy" / "demo" / "news"
DEMO_FEED_BASE = "https://demo.fanvise.invalid/news/"


# --------------------------------------------------------------------------- reports


@dataclass
class FeedFailure:
    """A feed that could not be ingested, with a human-readable reason."""

    url: str
    reason: str


@dataclass
class IngestReport:
    """Counts of one ingest run."""

    feeds: int = 0
    fetched: int = 0
    new: int = 0
    tagged: int = 0
    suspicious: int = 0
    failed: list[FeedFailure] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every feed was read."""
        return not self.failed

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return asdict(self)

    def summary(self) -> str:
        """One line for humans."""
        line = (f"{plural(self.feeds, 'feed')}: {plural(self.fetched, 'item')} fetched, "
                f"{self.new} new, "
                f"{self.tagged} tagged with players")
        if self.suspicious:
            line += f", {self.suspicious} flagged suspicious"
        if self.failed:
            line += "; failed: " + "; ".join(f"{f.url} ({f.reason})" for f in self.failed)
        return line


class FeedError(Exception):
    """A feed could not be fetched or parsed (message is the reason)."""


# --------------------------------------------------------------------------- player tagging


class PlayerMatcher:
    """Finds which known players a news text mentions, with the one player resolver
    (fantasy.player_resolver) without the nickname table: full names, typos of full names
    and unique last names. News is edited prose, so a one-word name counts only when written
    capitalised."""

    def __init__(self, players: Iterable[tuple[int, str]]) -> None:
        self.players: dict[int, str] = {int(pid): name for pid, name in players if name}
        self._resolver = PlayerResolver([Player(id=pid, name=name)
                                         for pid, name in self.players.items()], aliases={})

    def match(self, text: str) -> list[tuple[int, str]]:
        """Players mentioned in `text`, in order of first mention: [(player_id, full_name)]."""
        if not self.players or not text:
            return []
        found: dict[int, str] = {}
        for m in self._resolver.find(text, limit=50):
            if m.resolved and m.player is not None and (" " in m.words.strip()
                                                        or m.words[:1].isupper()):
                found.setdefault(m.player.id, self.players[m.player.id])
        return list(found.items())


# --------------------------------------------------------------------------- parsing


def _strip_html(text: str) -> str:
    text = re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", text or "")
    text = re.sub(r"(?i)<br\s*/?>|</p>", "\n", text)
    text = re.sub(r"<[^>]+>", " ", text)
    return html.unescape(text)


def source_for(url: str, feed_title: str | None = None) -> str:
    """Source name of a feed: a known host (ESPN, Rotowire...) or the feed's title."""
    host = (urlparse(url).hostname or "").lower()
    for suffix, name in _HOST_SOURCES.items():
        if host == suffix or host.endswith("." + suffix):
            return name
    return (feed_title or host or "unknown").strip()[:60]


def trust_for(source: str, overrides: dict[str, float] | None = None) -> float:
    """Trust of a source (0..1): overrides, then DEFAULT_SOURCE_TRUST, then DEFAULT_TRUST."""
    key = source.strip().lower()
    table = {**DEFAULT_SOURCE_TRUST, **{k.lower(): v for k, v in (overrides or {}).items()}}
    return float(table.get(key, DEFAULT_TRUST))


def parse_feed(content: bytes | str, url: str, *, matcher: PlayerMatcher | None = None,
               source_trust: dict[str, float] | None = None,
               now: Callable[[], datetime] | None = None) -> list[NewsItem]:
    """Parse RSS/Atom bytes into NewsItems; raises FeedError when it is not a usable feed."""
    parsed = feedparser.parse(content)
    entries = list(parsed.get("entries") or [])

    def malformed() -> FeedError:
        exc = parsed.get("bozo_exception")
        return FeedError(f"malformed feed: {type(exc).__name__}: {str(exc)[:120]}")

    if not entries:
        if not parsed.get("version"):
            raise malformed() if parsed.get("bozo") else FeedError("not an RSS/Atom feed")
        if parsed.get("bozo"):
            raise malformed()
        return []
    feed_title = (parsed.get("feed") or {}).get("title")
    items: list[NewsItem] = []
    for e in entries:
        source = source_for(url, feed_title)
        # Per-item source (RSS <source>) wins, e.g. aggregated feeds.
        src_tag = e.get("source")
        if isinstance(src_tag, dict) and src_tag.get("title"):
            source = str(src_tag["title"]).strip()[:60]
        title = _strip_html(str(e.get("title") or "")).strip()
        summary = _strip_html(str(e.get("summary") or e.get("description") or "")).strip()
        link = str(e.get("link") or "").strip()
        guid = str(e.get("id") or "").strip() or None
        if not title and not summary:
            continue
        if not link and not guid:
            continue
        stamp = e.get("published_parsed") or e.get("updated_parsed")
        published = (datetime.fromtimestamp(calendar.timegm(stamp), tz=UTC) if stamp
                     else (now() if now else datetime.now(UTC)))
        tags = matcher.match(f"{title}\n{summary}") if matcher else []
        items.append(NewsItem.create(
            title=title, summary=summary, url=link, guid=guid, source=source,
            published_at=published, trust=trust_for(source, source_trust),
            player_ids=[p for p, _ in tags], player_names=[n for _, n in tags]))
    if not items and parsed.get("bozo"):
        raise malformed()  # a broken document whose fragments held no usable item
    return items


# --------------------------------------------------------------------------- fetching


async def fetch_feed(client: httpx.AsyncClient, url: str) -> bytes:
    """GET a feed's bytes; raises FeedError with a clear reason."""
    try:
        resp = await client.get(url)
    except httpx.TimeoutException:
        raise FeedError("timed out") from None
    except httpx.HTTPError as exc:
        raise FeedError(f"connection failed: {type(exc).__name__}: {str(exc)[:120]}") from None
    if resp.status_code >= 400:
        raise FeedError(f"HTTP {resp.status_code}")
    if len(resp.content) > MAX_FEED_BYTES:
        raise FeedError(f"feed too large ({len(resp.content)} bytes)")
    return resp.content


async def ingest_feeds(
    store: NewsStore,
    feeds: Sequence[str] = DEFAULT_FEEDS,
    players: Iterable[tuple[int, str]] = (),
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    source_trust: dict[str, float] | None = None,
    now: Callable[[], datetime] | None = None,
) -> IngestReport:
    """Fetch feeds concurrently, tag players, upsert into the store; never raises per feed."""
    matcher = PlayerMatcher(players)
    feeds = list(dict.fromkeys(f.strip() for f in feeds if f and f.strip()))
    report = IngestReport(feeds=len(feeds))
    if not feeds:
        return report

    async with httpx.AsyncClient(transport=transport, timeout=timeout, follow_redirects=True,
                                 headers={"User-Agent": USER_AGENT}) as client:
        async def one(url: str) -> list[NewsItem] | FeedFailure:
            if urlparse(url).scheme not in ("http", "https"):
                return FeedFailure(url, "not an http(s) URL")
            try:
                content = await fetch_feed(client, url)
                return parse_feed(content, url, matcher=matcher, source_trust=source_trust,
                                  now=now)
            except FeedError as exc:
                return FeedFailure(url, str(exc))
            except Exception as exc:  # noqa: BLE001 - one bad feed must not stop the rest
                return FeedFailure(url, f"unexpected {type(exc).__name__}: {str(exc)[:120]}")

        results = await asyncio.gather(*(one(u) for u in feeds))

    items: list[NewsItem] = []
    for url, res in zip(feeds, results, strict=True):
        if isinstance(res, FeedFailure):
            log.warning("news feed failed: %s (%s)", url, res.reason)
            report.failed.append(res)
        else:
            items.extend(res)
    report.fetched = len(items)
    report.tagged = sum(1 for it in items if it.player_ids)
    report.suspicious = sum(1 for it in items if it.suspicious)
    if items:
        report.new = await store.aadd_items(items)
    return report


# --------------------------------------------------------------------------- demo feed


class DemoFeedTransport(httpx.AsyncBaseTransport):
    """Serves the recorded demo feeds (`fantasy/demo/news/*.xml`) under DEMO_FEED_BASE."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or DEMO_NEWS_DIR

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        name = request.url.path.rsplit("/", 1)[-1]
        path = self.folder / name
        if not re.fullmatch(r"[\w.-]+\.xml", name) or not path.is_file():
            return httpx.Response(404, text="not found", request=request)
        return httpx.Response(200, content=path.read_bytes(), request=request,
                              headers={"Content-Type": "application/rss+xml; charset=utf-8"})


def demo_feed_urls(folder: Path | None = None) -> list[str]:
    """URLs of the recorded demo feeds (one per XML file)."""
    folder = folder or DEMO_NEWS_DIR
    return [DEMO_FEED_BASE + p.name for p in sorted(folder.glob("*.xml"))]


async def load_demo_news(store: NewsStore, players: Iterable[tuple[int, str]],
                         folder: Path | None = None) -> IngestReport:
    """Ingest the recorded demo feeds offline, through the same fetch/parse/tag code."""
    return await ingest_feeds(store, demo_feed_urls(folder), players,
                              transport=DemoFeedTransport(folder))


__all__ = [
    "DEFAULT_FEEDS", "DEFAULT_SOURCE_TRUST", "DEMO_FEED_BASE", "DEMO_NEWS_DIR", "ESPN_NBA_FEED",
    "ROTOWIRE_NBA_FEED", "DemoFeedTransport", "FeedError", "FeedFailure", "IngestReport",
    "PlayerMatcher", "demo_feed_urls", "fetch_feed", "ingest_feeds", "load_demo_news",
    "parse_feed", "source_for", "trust_for",
]
