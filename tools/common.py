"""What every maintainer tool shares: where the repository lives (the one
place its public address is written down), the lesson series, the setup
cell, and small notebook utilities (read, write, tags, titles)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

# ---------------------------------------------------------------------------
# The one place where the repository's public location is written down.
# ---------------------------------------------------------------------------
REPO_SLUG = "self-attention-notebooks/attention-from-scratch"
BRANCH = "main"

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS_DIR = ROOT / "notebooks"
README = ROOT / "README.md"
CONTENTS = "00_start_here.ipynb"

TAG_SETUP = "setup"
TAG_NAV_TOP = "nav-top"
TAG_NAV_BOTTOM = "nav-bottom"
TAG_LESSON_LIST = "lesson-list"
TAG_IGNORE = "nbval-ignore-output"

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE_KEY = "widgets"

COLAB_BADGE = "https://colab.research.google.com/assets/colab-badge.svg"
BINDER_BADGE = "https://mybinder.org/badge_logo.svg"

# The planned series: file stem -> (working title, one-line goal).  The title
# shown anywhere is the notebook's own first "# " heading once the file exists.
LESSONS: dict[str, tuple[str, str]] = {
    "01_embeddings": (
        "Embeddings and the context problem",
        "Words become vectors by table lookup, and why a lookup alone cannot "
        "tell one 'bank' from another.",
    ),
    "02_context_as_weighted_sum": (
        "Context as a weighted sum",
        "Mix every word's vector into a new one, weighting by relevance, and "
        "see where that simple idea falls short.",
    ),
    "03_queries_keys_values": (
        "Queries, keys and values",
        "Split each token into what it asks for, what it offers and what it "
        "passes on, and compute the whole score grid at once.",
    ),
    "04_attention_pattern": (
        "The attention pattern",
        "Turn raw scores into rows of probabilities with softmax, and find out "
        "why we divide by the square root of d_k.",
    ),
    "05_values_and_update": (
        "Values and the update",
        "Move information between tokens: each embedding takes a weighted sum "
        "of values and shifts towards its meaning in context.",
    ),
    "06_masking": (
        "Masking and context size",
        "Hide the future from each token the right way, and measure how the "
        "cost grows with the length of the context.",
    ),
    "07_multi_head": (
        "Multi-head attention",
        "Run several heads side by side, add up what they propose, and count "
        "the parameters of a GPT-3-sized block.",
    ),
    "08_cross_attention": (
        "Cross-attention",
        "Let one sentence ask questions of another: queries from a translation,"
        " keys and values from its source.",
    ),
    "09_learning_the_weights": (
        "Learning the weights",
        "Train a tiny model in a few seconds and read the patterns its heads "
        "have learned.",
    ),
    "10_a_real_transformer": (
        "A real transformer",
        "Run a small pretrained model in numpy with your own attention, name "
        "its heads by measurement and watch context separate 'bank'.",
    ),
    "11_a_gpt_you_can_read": (
        "A GPT you can read",
        "Turn the last vector into next-token probabilities, generate text with "
        "a KV cache, and measure which heads a small Shakespeare GPT grew (and "
        "why no induction head).",
    ),
    "12_attention_at_scale": (
        "Attention at scale",
        "Tiled attention with an online softmax, grouped-query attention, rotary "
        "positions and sliding windows: computed, checked and measured.",
    ),
}


# ---------------------------------------------------------------------------
# The setup cell: identical in every notebook (tests compare it verbatim).
# Its source is tools/setup_cell.py, a real (linted) Python file; the
# placeholders __REPO__ and __BRANCH__ are filled in here.
# ---------------------------------------------------------------------------
SETUP_SOURCE = Path(__file__).resolve().parent / "setup_cell.py"
SETUP_CELL = (SETUP_SOURCE.read_text(encoding="utf-8").strip()
              .replace("__REPO__", REPO_SLUG).replace("__BRANCH__", BRANCH))
#: The setup cell's metadata: collapsed in JupyterLab; Colab shows the
#: ``#@title`` form instead of the code.
SETUP_METADATA = {"jupyter": {"source_hidden": True}, "cellView": "form"}

# ---------------------------------------------------------------------------
# Small notebook utilities
# ---------------------------------------------------------------------------
def _nbformat():
    import nbformat  # imported lazily: it is slow to import

    return nbformat


#: App notebooks: no lesson text, not numbered, outside the lesson list and
#: the navigation, stored WITHOUT outputs (Voila runs them; see
#: ``make playground``), so neither ``make notebooks`` nor nbval runs them.
#: They keep the canonical setup cell (``make nav``).
APPS = ("playground.ipynb",)


def notebook_paths(paths=None) -> list[Path]:
    """The lessons to work on: the given notebooks, or every notebooks/*.ipynb
    except the app notebooks (APPS)."""
    if paths:
        return [Path(p).resolve() for p in paths]
    return sorted(p for p in NOTEBOOKS_DIR.glob("*.ipynb") if p.name not in APPS)


def app_paths() -> list[Path]:
    """The app notebooks that exist (notebooks/playground.ipynb)."""
    return [NOTEBOOKS_DIR / name for name in APPS if (NOTEBOOKS_DIR / name).exists()]


def read(path):
    return _nbformat().read(str(path), as_version=4)


def write(nb, path) -> None:
    """Write with nbformat's canonical JSON (indent 1, sorted keys, newline)."""
    _nbformat().write(nb, str(path))


def cell_tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def source_of(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def find_tagged(nb, tag: str) -> list[int]:
    return [i for i, c in enumerate(nb.cells) if tag in cell_tags(c)]


def title_of(nb, default: str = "") -> str:
    """The text of the first ``# `` heading in a markdown cell (nav excluded)."""
    for cell in nb.cells:
        if cell.cell_type != "markdown" or TAG_NAV_TOP in cell_tags(cell):
            continue
        for line in source_of(cell).splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    return default


def _stable_id(*parts: str) -> str:
    return hashlib.sha1("\x00".join(parts).encode()).hexdigest()[:12]


_TIMING = re.compile(r"%%?timeit\b|%%?time\b|\btimeit\b|perf_counter")


def is_timing_cell(cell) -> bool:
    return bool(_TIMING.search(source_of(cell)))


def _ensure_ids(nb) -> None:
    nb.nbformat, nb.nbformat_minor = 4, max(nb.get("nbformat_minor", 5), 5)
    seen = set()
    for i, cell in enumerate(nb.cells):
        cid = cell.get("id")
        if not cid or cid in seen:
            cid = _stable_id(str(i), cell.cell_type, source_of(cell))
            cell["id"] = cid
        seen.add(cid)
