"""Navigation cells, the setup cell, the lesson list and the README regions
(``python -m tools sync``)."""

from __future__ import annotations

import re
from pathlib import Path

from tools import hub_link
from tools.execute import language_info
from tools.common import (
    APPS,
    LESSON_KEY,
    BINDER_BADGE,
    BRANCH,
    COLAB_BADGE,
    CONTENTS,
    NOTEBOOKS_DIR,
    README,
    REPO_SLUG,
    SETUP_CELL,
    SETUP_METADATA,
    TAG_LESSON_LIST,
    TAG_NAV_BOTTOM,
    TAG_NAV_TOP,
    TAG_SETUP,
    _ensure_ids,
    _nbformat,
    app_paths,
    find_tagged,
    goal_of,
    notebook_paths,
    read,
    source_of,
    title_of,
    write,
)


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
        titles[name] = title_of(read(NOTEBOOKS_DIR / name), Path(name).stem)
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
    # Plain links, not badge images: a notebook opened offline (or projected
    # in class) fetches nothing from outside (the README keeps the badges).
    badges = (
        f"[Open in Colab]({colab_url(name)}) · "
        f"[Open in Binder]({binder_url(name)})"
    )
    line = " | ".join(parts)
    if bottom:
        return f"---\n{line}\n\n{badges}"
    return f"{line}\n\n{badges}"


def lesson_list_markdown(names: list[str], titles: dict[str, str],
                         link_prefix: str = "") -> str:
    """Markdown table of the series, read from the lessons themselves: number,
    linked title (the notebook's "# " heading without its number) and goal
    (its ``metadata["lesson"]["goal"]``, see ``common.goal_of``)."""
    rows = ["| # | Lesson | What you will do |", "|---|---|---|"]
    for name in sorted(n for n in names if n != CONTENTS):
        number = name.split("_", 1)[0]
        goal = goal_of(read(NOTEBOOKS_DIR / name))
        if not goal:
            raise ValueError(
                f"notebooks/{name} has no one-line goal for the lesson list: give "
                f'its notebook metadata {{"{LESSON_KEY}": {{"goal": "..."}}}}')
        title = re.sub(r"^\d+\s*[·:.\-–]\s*", "", titles[name])
        rows.append(f"| {number} | [{title}]({link_prefix}{name}) | {goal} |")
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
    names = [p.name for p in notebook_paths()]  # the lessons, not the apps
    return names, _titles(names)


def _new_cell(kind: str, source: str, tag: str):
    nbf = _nbformat()
    make = nbf.v4.new_markdown_cell if kind == "markdown" else nbf.v4.new_code_cell
    cell = make(source, metadata={"tags": [tag]})
    cell["id"] = tag
    return cell


def _ensure_setup_metadata(nb) -> bool:
    """The setup cell collapsed: hidden source in JupyterLab, a form in Colab."""
    changed = False
    for i in find_tagged(nb, TAG_SETUP):
        meta = nb.cells[i].metadata
        for key, value in SETUP_METADATA.items():
            if meta.get(key) != value:
                meta[key] = value
                changed = True
    return changed


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
    if name in APPS:  # an app: the setup cell only (no navigation)
        return sync_app(path, nb)
    changed = _ensure_cell(
        nb, TAG_NAV_TOP, "markdown", nav_markdown(name, names, titles), _after_title
    )
    changed |= _ensure_cell(
        nb, TAG_NAV_BOTTOM, "markdown",
        nav_markdown(name, names, titles, bottom=True), lambda nb: len(nb.cells),
    )
    changed |= _ensure_cell(nb, TAG_SETUP, "code", SETUP_CELL, _before_first_code)
    changed |= _ensure_setup_metadata(nb)
    if name == CONTENTS and find_tagged(nb, TAG_LESSON_LIST):
        changed |= _ensure_cell(
            nb, TAG_LESSON_LIST, "markdown", lesson_list_cell(names, titles),
            lambda nb: 0,
        )
    if changed:
        _ensure_ids(nb)
        write(nb, path)
    return changed


def sync_app(path: Path, nb=None) -> bool:
    """An app notebook (APPS) keeps the canonical setup cell and no outputs."""
    nb = read(path) if nb is None else nb
    changed = _ensure_cell(nb, TAG_SETUP, "code", SETUP_CELL, _before_first_code)
    changed |= _ensure_setup_metadata(nb)
    info = language_info(nb.metadata.get("language_info", {}).get("version"))
    if nb.metadata.get("language_info") != info:  # opens unmodified in JupyterLab
        nb.metadata["language_info"] = info
        changed = True
    for cell in nb.cells:
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count):
            cell.outputs, cell.execution_count = [], None
            changed = True
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


GUIDE = NOTEBOOKS_DIR / "instructor_guide.md"


def sync_guide() -> bool:
    """Regenerate the instructor guide's nbgitpuller link from ``REPO_SLUG``."""
    if not GUIDE.exists():
        return False
    text = GUIDE.read_text(encoding="utf-8")
    new = hub_link.update_text(text, REPO_SLUG, BRANCH)
    if new != text:
        GUIDE.write_text(new, encoding="utf-8")
    return new != text


def sync(paths=None) -> list[Path]:
    names, titles = _series()
    changed = [p for p in notebook_paths(paths) if sync_notebook(p, names, titles)]
    if not paths:
        changed += [p for p in app_paths() if sync_app(p)]
    # Titles may have been the only change: refresh once more for stable links.
    names, titles = _series()
    if sync_readme(names, titles):
        changed.append(README)
    if sync_guide():
        changed.append(GUIDE)
    return changed


