"""Recorded demo-league data files (built by fantasy.demo.build)."""
