"""Notebook housekeeping: the shared setup cell, navigation, execution, checks.

Run it as a script from the repository root::

    python -m helpers.nbtools sync  [notebooks...]   # nav cells, setup cell, lists
    python -m helpers.nbtools run   [notebooks...]   # execute in place, normalise
    python -m helpers.nbtools check [notebooks...]   # report problems, exit 1 if any

Without notebook arguments every ``notebooks/*.ipynb`` is used.

What ``sync`` writes (and ``check`` expects):

* a markdown cell tagged ``nav-top`` (the first cell, or the second when the
  first is the title) and one tagged ``nav-bottom`` (the last cell):
  previous | contents | next, plus "Open in Colab" and "Binder" badges built
  from :data:`REPO_SLUG` and :data:`BRANCH`;
* the code cell tagged ``setup`` whose source is exactly :data:`SETUP_CELL`
  (inserted before the first code cell when missing);
* in ``00_start_here.ipynb`` the markdown cell tagged ``lesson-list``, and in
  ``README.md`` the text between the ``nbtools:...`` markers.

When a cell may carry nbval's ``nbval-ignore-output`` tag (see
:func:`ignore_tag_problems`): only when it is a *widget display cell* or a
*timing cell*:

* widget display cell: one of its stored outputs holds a widget view
  (mime ``application/vnd.jupyter.widget-view+json``, or the marker
  ``metadata["nbtools"]["widget_view"]`` that ``run`` leaves when it drops
  that mime), or its ``text/plain`` starts with the repr of an ipywidgets
  widget or of an explorer: ``SomeName(`` where ``SomeName`` is an ipywidgets
  class or ends in ``Explorer``/``Calculator``/``Taste``, or ``<some_name``
  where ``some_name`` ends in ``explorer``/``calculator``/``taste`` (the
  ``<sense_explorer: 11 tokens>`` summaries of helpers.widgets);
* timing cell: its source uses ``%time``, ``%%time``, ``%timeit``,
  ``%%timeit``, ``timeit`` or ``time.perf_counter`` / ``perf_counter``.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import re
import sys
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
}

# ---------------------------------------------------------------------------
# The setup cell: identical in every notebook (tests compare it verbatim).
# ---------------------------------------------------------------------------
SETUP_CELL = f'''\
# Setup: the same cell opens every notebook. Run it first.
# In Colab it fetches the project and installs its helpers; elsewhere it only
# makes `helpers` importable and configures numpy printing and matplotlib.
def _setup_notebook(repo="{REPO_SLUG}", branch="{BRANCH}"):
    import subprocess
    import sys
    from pathlib import Path

    root = Path("/content") / repo.split("/")[-1]
    url = f"https://github.com/{{repo}}.git"
    if "google.colab" in sys.modules and str(root) not in sys.path:
        try:
            if not (root / "helpers").is_dir():
                subprocess.run(
                    ["git", "clone", "-q", "--depth", "1", "-b", branch, url,
                     str(root)], check=True, capture_output=True, text=True)
            subprocess.run(
                [sys.executable, "-m", "pip", "install", "-q", "-e", str(root)],
                check=True, capture_output=True, text=True)
        except (OSError, subprocess.CalledProcessError) as err:
            detail = (getattr(err, "stderr", None) or str(err)).strip()
            print(f"Setup failed: could not fetch or install {{url}}.\\n{{detail}}\\n"
                  "Check that this runtime has internet access, then run this "
                  "cell again.")
            return
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))
        import os
        os.chdir(root / "notebooks")
        print(f"Ready: helpers installed from {{url}} ({{branch}}).")
    else:
        try:
            import helpers  # noqa: F401
        except ImportError:
            here = Path.cwd().resolve()
            for folder in (here, *here.parents):
                if (folder / "helpers" / "__init__.py").is_file():
                    sys.path.insert(0, str(folder))
                    break

    import numpy as np

    np.set_printoptions(precision=3, suppress=True)
    try:
        shell = get_ipython()  # noqa: F821 (defined inside IPython)
    except NameError:
        return
    shell.run_line_magic("matplotlib", "inline")
    from matplotlib_inline.backend_inline import set_matplotlib_formats

    # No "Software" entry in the PNGs: the stored images stay byte-identical.
    set_matplotlib_formats("png", metadata={{"Software": None}})
    from matplotlib.figure import Figure

    def figure_text(fig, printer, cycle):
        # A figure's text form is its title, not "<Figure size 640x480 ...>".
        titles = [fig._suptitle] if fig._suptitle else []
        titles += [ax.title for ax in fig.axes]
        title = next((t.get_text() for t in titles if t.get_text()), "")
        printer.text(f"<figure: {{title}}>" if title else "<figure>")

    shell.display_formatter.formatters["text/plain"].for_type(Figure, figure_text)


_setup_notebook()
del _setup_notebook'''


# ---------------------------------------------------------------------------
# Small notebook utilities
# ---------------------------------------------------------------------------
def _nbformat():
    import nbformat  # imported lazily: it is slow to import

    return nbformat


def notebook_paths(paths=None) -> list[Path]:
    """The notebooks to work on: the given ones, or every notebooks/*.ipynb."""
    if paths:
        return [Path(p).resolve() for p in paths]
    return sorted(NOTEBOOKS_DIR.glob("*.ipynb"))


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


# ---------------------------------------------------------------------------
# Navigation, lesson list and README regions
# ---------------------------------------------------------------------------
def colab_url(name: str) -> str:
    return (
        f"https://colab.research.google.com/github/{REPO_SLUG}/blob/{BRANCH}"
        f"/notebooks/{name}"
    )


def binder_url(name: str | None = None) -> str:
    base = f"https://mybinder.org/v2/gh/{REPO_SLUG}/{BRANCH}"
    return base + (f"?labpath=notebooks%2F{name}" if name else "")


def _titles(names: list[str]) -> dict[str, str]:
    titles = {}
    for name in names:
        stem = Path(name).stem
        planned = LESSONS.get(stem, (stem, ""))[0]
        titles[name] = title_of(read(NOTEBOOKS_DIR / name), planned)
    return titles


def nav_markdown(name: str, names: list[str], titles: dict[str, str],
                 bottom: bool = False) -> str:
    """The navigation line for notebook ``name`` within the series ``names``."""
    i = names.index(name) if name in names else -1
    parts = []
    if i > 0:
        prev = names[i - 1]
        parts.append(f"[← Previous: {titles[prev]}]({prev})")
    if name == CONTENTS:
        parts.append("**Contents**")
    else:
        parts.append(f"[Contents]({CONTENTS})")
    if 0 <= i < len(names) - 1:
        nxt = names[i + 1]
        parts.append(f"[Next: {titles[nxt]} →]({nxt})")
    badges = (
        f"[![Open In Colab]({COLAB_BADGE})]({colab_url(name)}) "
        f"[![Open in Binder]({BINDER_BADGE})]({binder_url(name)})"
    )
    line = " | ".join(parts)
    if bottom:
        return f"---\n{line}\n\n{badges}"
    return f"{line}\n\n{badges}"


def lesson_list_markdown(names: list[str], titles: dict[str, str],
                         link_prefix: str = "") -> str:
    """Markdown table of the series: linked where the notebook exists."""
    rows = ["| # | Lesson | What you will do |", "|---|---|---|"]
    stems = [Path(n).stem for n in names if n != CONTENTS]
    order = list(LESSONS) + [s for s in stems if s not in LESSONS]
    for stem in order:
        number = stem.split("_", 1)[0]
        name = stem + ".ipynb"
        planned, goal = LESSONS.get(stem, (stem, ""))
        if name in names:
            title = re.sub(r"^\d+\s*[·:.\-–]\s*", "", titles[name])
            cell = f"[{title}]({link_prefix}{name})"
        else:
            cell = f"{planned} *(in preparation)*"
        rows.append(f"| {number} | {cell} | {goal} |")
    return "\n".join(rows)


def lesson_list_cell(names, titles) -> str:
    return "## The lessons\n\n" + lesson_list_markdown(names, titles)


def readme_regions(names, titles) -> dict[str, str]:
    first = CONTENTS
    badges = (
        f"[![Open in Binder]({BINDER_BADGE})]({binder_url(first)}) "
        f"[![Open In Colab]({COLAB_BADGE})]({colab_url(first)})"
    )
    return {
        "badges": badges,
        "lessons": lesson_list_markdown(names, titles, link_prefix="notebooks/"),
    }


def _region(key: str) -> re.Pattern:
    return re.compile(
        rf"(<!-- nbtools:{key} -->\n)(.*?)(<!-- /nbtools:{key} -->)", re.DOTALL
    )


def _replace_region(text: str, key: str, body: str) -> str:
    return _region(key).sub(lambda m: m.group(1) + body + "\n" + m.group(3), text)


def _series() -> tuple[list[str], dict[str, str]]:
    names = [p.name for p in sorted(NOTEBOOKS_DIR.glob("*.ipynb"))]
    return names, _titles(names)


def _new_cell(kind: str, source: str, tag: str):
    nbf = _nbformat()
    make = nbf.v4.new_markdown_cell if kind == "markdown" else nbf.v4.new_code_cell
    cell = make(source, metadata={"tags": [tag]})
    cell["id"] = tag
    return cell


def _ensure_cell(nb, tag: str, kind: str, source: str, default_index) -> bool:
    """Make sure exactly one cell tagged ``tag`` exists with ``source``.

    Returns True when the notebook changed.  An existing cell keeps its place;
    a missing one is inserted at ``default_index(nb)``.
    """
    where = find_tagged(nb, tag)
    if not where:
        nb.cells.insert(default_index(nb), _new_cell(kind, source, tag))
        return True
    changed = False
    for extra in reversed(where[1:]):
        del nb.cells[extra]
        changed = True
    cell = nb.cells[where[0]]
    if cell.cell_type != kind:
        nb.cells[where[0]] = _new_cell(kind, source, tag)
        return True
    if source_of(cell) != source:
        cell.source = source
        if kind == "code":
            cell.outputs = []
            cell.execution_count = None
        changed = True
    return changed


def _after_title(nb) -> int:
    """Index just after a leading title cell (a markdown cell with a '# ' line)."""
    if nb.cells and nb.cells[0].cell_type == "markdown" and any(
        line.startswith("# ") for line in source_of(nb.cells[0]).splitlines()
    ):
        return 1
    return 0


def _before_first_code(nb) -> int:
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            return i
    bottom = find_tagged(nb, TAG_NAV_BOTTOM)
    return bottom[0] if bottom else len(nb.cells)


def sync_notebook(path: Path, names=None, titles=None) -> bool:
    """Refresh one notebook's nav cells, setup cell (and lesson list)."""
    if names is None:
        names, titles = _series()
    nb = read(path)
    name = Path(path).name
    changed = _ensure_cell(
        nb, TAG_NAV_TOP, "markdown", nav_markdown(name, names, titles), _after_title
    )
    changed |= _ensure_cell(
        nb, TAG_NAV_BOTTOM, "markdown",
        nav_markdown(name, names, titles, bottom=True), lambda nb: len(nb.cells),
    )
    changed |= _ensure_cell(nb, TAG_SETUP, "code", SETUP_CELL, _before_first_code)
    if name == CONTENTS and find_tagged(nb, TAG_LESSON_LIST):
        changed |= _ensure_cell(
            nb, TAG_LESSON_LIST, "markdown", lesson_list_cell(names, titles),
            lambda nb: 0,
        )
    if changed:
        _ensure_ids(nb)
        write(nb, path)
    return changed


def sync_readme(names=None, titles=None) -> bool:
    if names is None:
        names, titles = _series()
    if not README.exists():
        return False
    text = README.read_text(encoding="utf-8")
    new = text
    for key, body in readme_regions(names, titles).items():
        new = _replace_region(new, key, body)
    if new != text:
        README.write_text(new, encoding="utf-8")
    return new != text


def sync(paths=None) -> list[Path]:
    names, titles = _series()
    changed = [p for p in notebook_paths(paths) if sync_notebook(p, names, titles)]
    # Titles may have been the only change: refresh once more for stable links.
    names, titles = _series()
    if sync_readme(names, titles):
        changed.append(README)
    return changed


# ---------------------------------------------------------------------------
# Execution and normalisation
# ---------------------------------------------------------------------------
LANGUAGE_INFO = {
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
}
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python",
              "name": "python3"}
_VOLATILE_CELL_METADATA = ("execution", "ExecuteTime", "collapsed", "scrolled")


def _ensure_ids(nb) -> None:
    nb.nbformat, nb.nbformat_minor = 4, max(nb.get("nbformat_minor", 5), 5)
    seen = set()
    for i, cell in enumerate(nb.cells):
        cid = cell.get("id")
        if not cid or cid in seen:
            cid = _stable_id(str(i), cell.cell_type, source_of(cell))
            cell["id"] = cid
        seen.add(cid)


def _coalesce_streams(outputs: list) -> list:
    merged = []
    for out in outputs:
        prev = merged[-1] if merged else None
        if (out.get("output_type") == "stream" and prev is not None
                and prev.get("output_type") == "stream"
                and prev.get("name") == out.get("name")):
            prev["text"] = "".join(prev["text"]) + "".join(out["text"])
        else:
            merged.append(out)
    return merged


def normalise(nb) -> None:
    """Make the JSON of an executed notebook independent of the run."""
    nb.metadata.pop(WIDGET_STATE_KEY, None)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = dict(LANGUAGE_INFO)
    count = 0
    for cell in nb.cells:
        for key in _VOLATILE_CELL_METADATA:
            cell.metadata.pop(key, None)
        if cell.cell_type != "code":
            cell.pop("outputs", None)
            cell.pop("execution_count", None)
            continue
        outputs = _coalesce_streams(cell.get("outputs", []))
        for out in outputs:
            data = out.get("data")
            if data and WIDGET_MIME in data:
                del data[WIDGET_MIME]
                out.setdefault("metadata", {})["nbtools"] = {"widget_view": True}
        cell.outputs = [o for o in outputs
                        if o.get("output_type") not in ("display_data",
                                                        "execute_result")
                        or o.get("data")]
        if source_of(cell).strip():
            count += 1
            cell.execution_count = count
            for out in cell.outputs:
                if out.get("output_type") == "execute_result":
                    out["execution_count"] = count
        else:
            cell.execution_count = None
            cell.outputs = []
    _ensure_ids(nb)


def execute(nb, timeout: int = 600, cwd: Path = NOTEBOOKS_DIR):
    """Execute ``nb`` (in memory) with a fresh python3 kernel in ``cwd``."""
    from nbclient import NotebookClient

    client = NotebookClient(
        nb, timeout=timeout, kernel_name="python3",
        resources={"metadata": {"path": str(cwd)}},
        record_timing=False, store_widget_state=False,
    )
    client.execute()
    return nb


def keep_timing_outputs(old, new) -> None:
    """Give timing cells of ``new`` the stored outputs of the same cell in ``old``.

    Measured times differ on every run; refreshing them would churn git for no
    information. A timing cell (see :func:`is_timing_cell`) keeps its previous
    outputs when its source is unchanged and it had outputs already.
    """
    previous = {
        (c.get("id"), source_of(c)): c for c in old.cells
        if c.cell_type == "code" and c.get("outputs")
    }
    for cell in new.cells:
        if cell.cell_type == "code" and is_timing_cell(cell):
            before = previous.get((cell.get("id"), source_of(cell)))
            if before is not None:
                cell.outputs = copy.deepcopy(before.outputs)


def run(paths=None, timeout: int = 600,
        refresh_timings: bool = False) -> list[tuple[Path, str]]:
    """Execute notebooks in place; returns (path, error) for those that failed.

    Timing cells keep their stored outputs unless ``refresh_timings``.
    """
    failures = []
    for path in notebook_paths(paths):
        nb = read(path)
        old = copy.deepcopy(nb)
        try:
            execute(nb, timeout=timeout)
        except Exception as err:  # keep going: report every broken notebook
            reason = type(err).__name__
            if getattr(err, "ename", None):
                reason = f"{err.ename}: {err.evalue}"
            failures.append((path, reason))
            print(f"FAILED {path.name}: {reason}", file=sys.stderr)
            continue
        if not refresh_timings:
            keep_timing_outputs(old, nb)
        normalise(nb)
        write(nb, path)
        print(f"executed {path.name}")
    return failures


# ---------------------------------------------------------------------------
# Checks (each returns a list of human-readable problems; [] means fine)
# ---------------------------------------------------------------------------
_TIMING = re.compile(r"%%?timeit\b|%%?time\b|\btimeit\b|perf_counter")
_LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|href=\"([^\"]+)\"")


def _widget_class_names() -> set[str]:
    try:
        import ipywidgets
    except ImportError:  # pragma: no cover - ipywidgets is a dependency
        return set()
    return {
        name for name, obj in vars(ipywidgets).items()
        if isinstance(obj, type) and issubclass(obj, ipywidgets.Widget)
    }


_WIDGET_REPR = re.compile(r"^<?\s*([A-Za-z_][\w.]*)\(")
_EXPLORER_SUMMARY = re.compile(r"^<\w*(explorer|calculator|taste)\b", re.IGNORECASE)


def _text(out) -> str:
    if out.get("output_type") == "stream":
        return "".join(out.get("text", ""))
    text = out.get("data", {}).get("text/plain", "")
    return "".join(text) if isinstance(text, list) else text


def is_widget_output(out, widget_names=None) -> bool:
    if WIDGET_MIME in out.get("data", {}):
        return True
    if out.get("metadata", {}).get("nbtools", {}).get("widget_view"):
        return True
    if out.get("output_type") not in ("display_data", "execute_result"):
        return False
    text = _text(out)
    if _EXPLORER_SUMMARY.match(text):
        return True
    match = _WIDGET_REPR.match(text)
    if not match:
        return False
    cls = match.group(1).rsplit(".", 1)[-1]
    names = _widget_class_names() if widget_names is None else widget_names
    return cls in names or cls.endswith(("Explorer", "Calculator", "Taste"))


def is_timing_cell(cell) -> bool:
    return bool(_TIMING.search(source_of(cell)))


def may_ignore_output(cell, widget_names=None) -> bool:
    """The documented rule for the nbval-ignore-output tag (module docstring)."""
    if cell.cell_type != "code":
        return False
    if is_timing_cell(cell):
        return True
    names = _widget_class_names() if widget_names is None else widget_names
    return any(is_widget_output(o, names) for o in cell.get("outputs", []))


def setup_problems(nb) -> list[str]:
    where = find_tagged(nb, TAG_SETUP)
    if len(where) != 1:
        return [f"expected exactly one cell tagged '{TAG_SETUP}', found {len(where)}"]
    cell = nb.cells[where[0]]
    if cell.cell_type != "code" or source_of(cell) != SETUP_CELL:
        return ["setup cell differs from helpers.nbtools.SETUP_CELL "
                "(run `make nav`)"]
    first_code = _before_first_code(nb)
    if where[0] != first_code:
        return ["setup cell is not the first code cell"]
    return []


def nav_problems(path, nb, names=None, titles=None) -> list[str]:
    if names is None:
        names, titles = _series()
    name = Path(path).name
    problems = []
    for tag, bottom, want_index in ((TAG_NAV_TOP, False, _after_title(nb)),
                                    (TAG_NAV_BOTTOM, True, len(nb.cells) - 1)):
        where = find_tagged(nb, tag)
        expected = nav_markdown(name, names, titles, bottom=bottom)
        if len(where) != 1:
            problems.append(f"expected one '{tag}' cell, found {len(where)}")
        elif source_of(nb.cells[where[0]]) != expected:
            problems.append(f"'{tag}' navigation is stale (run `make nav`)")
        elif where[0] != want_index:
            problems.append(f"'{tag}' cell is not at position {want_index}")
    if name == CONTENTS:
        where = find_tagged(nb, TAG_LESSON_LIST)
        if len(where) != 1:
            problems.append(f"expected one '{TAG_LESSON_LIST}' cell")
        elif source_of(nb.cells[where[0]]) != lesson_list_cell(names, titles):
            problems.append("lesson list is stale (run `make nav`)")
    return problems


def link_problems(path, nb) -> list[str]:
    """Relative links in markdown cells must point to files that exist."""
    base = Path(path).resolve().parent
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        for m in _LINK.finditer(source_of(cell)):
            target = (m.group(1) or m.group(2)).split("#", 1)[0]
            if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                continue  # pure anchors and absolute URLs
            if not (base / target).exists():
                problems.append(f"cell {i}: link to missing file {target!r}")
    return problems


def output_problems(nb) -> list[str]:
    """Error outputs and stored ``<Figure size ...>`` texts."""
    problems = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                problems.append(f"cell {i}: stored error {out.get('ename')}")
            elif "<Figure size" in _text(out):
                problems.append(f"cell {i}: stored '<Figure size ...>' text "
                                "(run the setup cell first, end the cell with "
                                "the figure or plt.show())")
    return problems


def ignore_tag_problems(nb) -> list[str]:
    names = _widget_class_names()
    return [
        f"cell {i}: '{TAG_IGNORE}' on a cell that is neither a widget display "
        "nor a timing cell"
        for i, cell in enumerate(nb.cells)
        if TAG_IGNORE in cell_tags(cell) and not may_ignore_output(cell, names)
    ]


def execution_problems(nb) -> list[str]:
    """Every non-empty code cell must have been executed (outputs stored)."""
    return [
        f"cell {i}: not executed (run `make notebooks`)"
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and source_of(cell).strip()
        and cell.get("execution_count") is None
    ]


def check_notebook(path, names=None, titles=None) -> list[str]:
    nb = read(path)
    return (setup_problems(nb) + nav_problems(path, nb, names, titles)
            + link_problems(path, nb) + output_problems(nb)
            + ignore_tag_problems(nb) + execution_problems(nb))


def readme_problems(names=None, titles=None) -> list[str]:
    if names is None:
        names, titles = _series()
    text = README.read_text(encoding="utf-8") if README.exists() else ""
    problems = []
    for key, body in readme_regions(names, titles).items():
        m = _region(key).search(text)
        if not m:
            problems.append(f"README.md: missing the nbtools:{key} markers")
        elif m.group(2) != body + "\n":
            problems.append(f"README.md: the {key} section is stale "
                            "(run `make nav`)")
    return problems


def check(paths=None) -> dict[str, list[str]]:
    names, titles = _series()
    report = {str(p): check_notebook(p, names, titles) for p in notebook_paths(paths)}
    report["README.md"] = readme_problems(names, titles)
    return {k: v for k, v in report.items() if v}


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m helpers.nbtools",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["sync", "run", "check"])
    parser.add_argument("notebooks", nargs="*", help="default: notebooks/*.ipynb")
    parser.add_argument("--timeout", type=int, default=600,
                        help="seconds per cell for `run` (default 600)")
    parser.add_argument("--refresh-timings", action="store_true",
                        help="`run`: store new outputs of timing cells too")
    args = parser.parse_args(argv)
    if args.command == "sync":
        for path in sync(args.notebooks):
            print(f"updated {Path(path).name}")
        return 0
    if args.command == "run":
        failed = run(args.notebooks, timeout=args.timeout,
                     refresh_timings=args.refresh_timings)
        return 1 if failed else 0
    report = check(args.notebooks)
    for where, problems in report.items():
        for problem in problems:
            print(f"{where}: {problem}")
    if not report:
        print("all notebooks look right")
    return 1 if report else 0


if __name__ == "__main__":
    sys.exit(main())
