"""What every maintainer tool shares: where the repository lives (the one
place its public address is written down), the lesson series (read from the
notebooks), the setup cell, and small notebook utilities (read, write, tags,
titles)."""

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

# The series is the notebooks folder, with no table of its own: lesson NN is
# notebooks/NN_*.ipynb (00, the start page, and the APPS aside), its title the
# notebook's first "# " heading and its goal, the one line the lesson list
# shows under "What you will do", the notebook's metadata["lesson"]["goal"]
# (JupyterLab: Property Inspector > Notebook metadata). See lessons().
LESSON_KEY = "lesson"


# ---------------------------------------------------------------------------
# The setup cell: identical in every notebook (tests compare it verbatim).
# Its source is tools/setup_cell.py, a real (linted) Python file; the
# placeholders __REPO__ and __BRANCH__ are filled in here.
# ---------------------------------------------------------------------------
SETUP_SOURCE = Path(__file__).resolve().parent / "setup_cell.py"
SETUP_CELL = (SETUP_SOURCE.read_text(encoding="utf-8").strip()
              .replace("__REPO__", REPO_SLUG).replace("__BRANCH__", BRANCH))
#: The setup cell's metadata: collapsed in JupyterLab; Colab shows the
#: ``# @title`` form instead of the code (``cellView``), and JupyterLab
#: shows that first line as a comment.
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


def goal_of(nb) -> str:
    """A lesson's one-line goal: ``metadata["lesson"]["goal"]`` of its notebook
    ("" when it has none)."""
    return str(nb.metadata.get(LESSON_KEY, {}).get("goal", "")).strip()


def lessons() -> dict[str, tuple[str, str]]:
    """The series, read from the notebooks: ``{stem: (title, goal)}`` of every
    lesson notebook in number order, the start page (CONTENTS) and the apps
    left out; e.g. ``"01_embeddings": ("01 · Embeddings: words as vectors",
    "Words become vectors ...")``."""
    out = {}
    for path in notebook_paths():
        if path.name != CONTENTS:
            nb = read(path)
            out[path.stem] = (title_of(nb, path.stem), goal_of(nb))
    return out


def _stable_id(*parts: str) -> str:
    return hashlib.sha1("\x00".join(parts).encode()).hexdigest()[:12]


# a cell that measures time: IPython's magics, timeit, perf_counter, or
# helpers.runtime.timing.best_ms (lesson 12's best of several runs)
_TIMING = re.compile(r"%%?timeit\b|%%?time\b|\btimeit\b|perf_counter|\bbest_ms\(")


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
