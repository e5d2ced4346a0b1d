#!/usr/bin/env bash
# Install, lint and run the whole test suite offline.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
# the project venv when install.sh made one (an externally managed Python)
source scripts/activate.sh
bash scripts/install_postgres.sh
# With PostgreSQL's server programs present, the Postgres storage suites and the
# two-process tests must run (a server that cannot start fails them instead of a skip);
# without them they are skipped and pytest ends with one line saying so.
if bash scripts/install_postgres.sh --check; then
    export FANVISE_TEST_POSTGRES=required
fi
python3 -m ruff check .
# The type checker over fantasy, storage, agents, bot and benchmarks ([tool.mypy] in
# pyproject.toml); its cache (.mypy_cache) keeps a re-run to seconds.
python3 -m mypy
# Three workers on two cores: many tests wait on subprocesses, servers and kills, so a third
# worker keeps both cores busy (pytest-xdist; `python3 -m pytest` alone runs them in one).
python3 -m pytest -n 3
