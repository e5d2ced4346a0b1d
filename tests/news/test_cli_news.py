"""`fanvise news ingest/search/player` through the real Typer app."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from bot.cli import app

runner = CliRunner()

RSS = "<rss version='2.0'><channel><title>Wire</title>" + "".join(
    f"<item><title>Ja Morant update {i}</title><link>http://x/{i}</link>"
    f"<pubDate>Tue, 24 Jan 2023 1{i}:00:00 GMT</pubDate></item>" for i in range(5)
) + "</channel></rss>"


def test_demo_ingest_then_search_and_player(tmp_path: Path) -> None:
    res = runner.invoke(app, ["news", "ingest", "--demo", "--data-dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "34 items fetched, 34 new" in res.output and "1 flagged suspicious" in res.output
    res = runner.invoke(app, ["news", "search", "groin strain", "--data-dir", str(tmp_path),
                              "--limit", "3"])
    assert res.exit_code == 0, res.output
    assert "Gobert" in res.output or "Allen" in res.output
    res = runner.invoke(app, ["news", "player", "Jalen Brunson"],
                        env={"FANVISE_DATA_DIR": str(tmp_path)})
    assert res.exit_code == 0 and "[suspicious]" in res.output
    res = runner.invoke(app, ["news", "ingest", "--demo", "--data-dir", str(tmp_path)])
    assert "34 items fetched, 0 new" in res.output


def test_ingest_feed_from_local_server_and_errors(tmp_path: Path, feed_server) -> None:
    good = feed_server.add("/a.rss", RSS)
    bad = feed_server.add("/b.rss", "boom", status=503, ctype="text/plain")
    res = runner.invoke(app, ["news", "ingest", "--feed", good, "--feed", bad,
                              "--data-dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "5 items fetched, 5 new" in res.output and "HTTP 503" in res.output
    res = runner.invoke(app, ["news", "ingest", "--feed", bad, "--data-dir", str(tmp_path)])
    assert res.exit_code == 1 and "HTTP 503" in res.output


def test_search_bad_input_and_empty_store(tmp_path: Path) -> None:
    res = runner.invoke(app, ["news", "search", "ankle", "--data-dir", str(tmp_path)])
    assert res.exit_code == 0 and "No news stored yet" in res.output
    res = runner.invoke(app, ["news", "search", "ankle", "--since", "yesterday",
                              "--data-dir", str(tmp_path)])
    assert res.exit_code == 1 and "--since must be a date" in res.output
