"""Recorded RSS 2.0 demo feeds for the demo league (served offline by storage.news_ingest)."""
