"""The recorded demo feed matches the demo league and loads offline through the ingest code."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from fantasy.demo import DEFAULT_TODAY, open_demo_client
from storage.news_ingest import DEMO_NEWS_DIR, demo_feed_urls, load_demo_news
from storage.news_store import NewsStore, sanitize_news_text


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory, demo_players):
    import asyncio

    store = NewsStore(tmp_path_factory.mktemp("demo-news"))
    report = asyncio.run(load_demo_news(store, demo_players))
    return store, report


def _xml_items() -> int:
    return sum(len(re.findall(r"<item>", p.read_text("utf-8")))
               for p in DEMO_NEWS_DIR.glob("*.xml"))


def test_demo_feed_loads_offline(demo_store) -> None:
    store, report = demo_store
    assert len(demo_feed_urls()) >= 3
    assert report.ok, report.summary()
    assert report.fetched == _xml_items() == store.count() >= 30
    assert report.suspicious == 1 and report.tagged >= report.fetched - 5
    sources = {i.source for i in store.search("injury update", limit=40, min_similarity=-1)}
    assert {"ESPN", "Rotowire", "Rumor Mill"} <= sources


async def test_idempotent_reload(demo_store, demo_players) -> None:
    store, report = demo_store
    again = await load_demo_news(store, demo_players)
    assert again.new == 0 and store.count() == report.fetched


async def test_every_injured_demo_player_has_news(demo_store) -> None:
    store, _ = demo_store
    client = open_demo_client("points")
    try:
        league = await client.get_league()
        players = [e.player for t in league.teams for e in t.roster]
        players += await client.get_free_agents(size=200)
    finally:
        await client.aclose()
    injured = [p for p in players if p.injury_status in ("OUT", "DAY_TO_DAY")]
    assert len(injured) >= 15
    missing = [p.name for p in injured if not store.news_for_player(p.id)]
    assert missing == []


def test_items_dated_around_demo_today(demo_store) -> None:
    store, _ = demo_store
    items = store.search("news", limit=100, min_similarity=-1)
    end = datetime.combine(DEFAULT_TODAY, datetime.max.time(), tzinfo=UTC)
    assert all(datetime(2023, 1, 15, tzinfo=UTC) <= i.published_at <= end for i in items)


def test_conflicting_reports_newer_first(demo_store) -> None:
    store, _ = demo_store
    allen = store.news_for_player("Jarrett Allen")
    assert len(allen) == 2
    assert "cleared" in allen[0].title.lower()
    assert "two weeks" in allen[1].title.lower()
    assert allen[0].published_at > allen[1].published_at


def test_star_rumours_are_low_trust(demo_store) -> None:
    store, _ = demo_store
    top = store.search("Kevin Durant trade rumours", limit=3)
    rumour = next(i for i in top if "rumour" in i.title.lower())
    assert rumour.source == "Rumor Mill" and rumour.trust < 0.5
    assert rumour.player_names == ("Kevin Durant",)
    rest = store.news_for_player("LeBron James")
    assert rest and "might rest" in rest[0].title and rest[0].trust < 0.5


def test_injection_item_flagged_and_kept_as_data(demo_store) -> None:
    store, _ = demo_store
    flagged = [i for i in store.news_for_player("Jalen Brunson", limit=10) if i.suspicious]
    assert len(flagged) == 1
    text = flagged[0].summary
    assert "IGNORE PREVIOUS INSTRUCTIONS" in text  # quoted faithfully, not rewritten
    assert "ignore-instructions" in sanitize_news_text(text).reasons
    assert flagged[0].to_dict()["suspicious"] is True


def test_demo_xml_is_rss2() -> None:
    import feedparser

    for p in Path(DEMO_NEWS_DIR).glob("*.xml"):
        parsed = feedparser.parse(p.read_bytes())
        assert parsed.version == "rss20" and not parsed.bozo, p.name
