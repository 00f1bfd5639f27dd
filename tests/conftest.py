"""Shared pytest configuration: kept minimal on purpose."""

import os
import sys
from pathlib import Path

# Figures in tests never need a screen.
os.environ.setdefault("MPLBACKEND", "Agg")

# Let the tests import `helpers` from this checkout even without `pip install -e`.
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
