#!/usr/bin/env bash
# Install, lint and run the whole test suite offline.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
bash scripts/install_postgres.sh
python3 -m ruff check .
python3 -m pytest
