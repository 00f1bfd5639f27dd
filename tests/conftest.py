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

# Tests never reach a model hub (lesson 10): they read the offline copy that
# `make test` keeps (tools/fetch_test_model.py), wherever pytest is started.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault(
    "HF_HUB_CACHE",
    str(Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        / "attention-notebooks" / "hub"),
)


def model_available() -> bool:
    """True when the offline copy of all-MiniLM-L6-v2 is in HF_HUB_CACHE."""
    folder = (Path(os.environ["HF_HUB_CACHE"])
              / "models--sentence-transformers--all-MiniLM-L6-v2" / "snapshots")
    return any(folder.glob("*/model.safetensors"))
