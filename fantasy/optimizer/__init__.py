"""Exact lineup optimizer: daily lineups, weekly plans, move scans and multi-move plans."""
