"""`python -m fanvise_eval`: see fanvise_eval.cli."""

from __future__ import annotations

import sys

from fanvise_eval.cli import main

if __name__ == "__main__":
    sys.exit(main())
