"""Form checks of the notebooks (``python -m tools check``): each returns a
list of human-readable problems; [] means fine."""

from __future__ import annotations

import re
from pathlib import Path

from tools.common import (
    CONTENTS,
    README,
    SETUP_CELL,
    SETUP_METADATA,
    TAG_IGNORE,
    TAG_LESSON_LIST,
    TAG_NAV_BOTTOM,
    TAG_NAV_TOP,
    TAG_SETUP,
    WIDGET_MIME,
    app_paths,
    cell_tags,
    find_tagged,
    is_timing_cell,
    notebook_paths,
    read,
    source_of,
)
from tools import solve
from tools.nav import (
    _after_title,
    _before_first_code,
    _region,
    _series,
    lesson_list_cell,
    nav_markdown,
    readme_regions,
)


# ---------------------------------------------------------------------------
# Checks (each returns a list of human-readable problems; [] means fine)
# ---------------------------------------------------------------------------
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
    match = _WIDGET_REPR.match(_text(out))
    if not match:
        return False
    cls = match.group(1).rsplit(".", 1)[-1]
    names = _widget_class_names() if widget_names is None else widget_names
    return cls in names


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
        return ["setup cell differs from tools/setup_cell.py (run `make nav`)"]
    meta = cell.get("metadata", {})
    if any(meta.get(k) != v for k, v in SETUP_METADATA.items()):
        return ["setup cell is not collapsed (run `make nav`)"]
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
            + ignore_tag_problems(nb) + execution_problems(nb)
            + solve.stale(nb, path))


def app_problems(path) -> list[str]:
    """An app notebook (common.APPS): the canonical setup cell, working
    links, and no stored outputs (Voila runs it; nbval does not)."""
    nb = read(path)
    stored = [f"cell {i}: stored outputs (an app is stored without; `make nav`)"
              for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
              and (cell.get("outputs") or cell.get("execution_count"))]
    return setup_problems(nb) + link_problems(path, nb) + stored


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
    if not paths:
        report.update({str(p): app_problems(p) for p in app_paths()})
    report["README.md"] = readme_problems(names, titles)
    return {k: v for k, v in report.items() if v}


