"""Exercise solutions from one source: ``tools/solutions/lessonNN.py``.

* :func:`sync` writes each solution's source into the notebook's collapsed
  solution (the markdown ``<details><summary>Solution</summary>`` cell whose
  code block defines the same function); run by ``make nav``/``notebooks``.
* :func:`build` writes instructor copies to ``build/solutions/``: every
  exercise stub replaced by its solution, executed (``make solutions``).
* :func:`exercises` lists (notebook, name, solution, checker, stub source)
  for the tests.

The conventions are in tools/README.md.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import re
from pathlib import Path

from helpers import checks
from tools.common import NOTEBOOKS_DIR, ROOT, notebook_paths, read, source_of, write

BUILD = ROOT / "build" / "solutions"
_BLOCK = re.compile(r"(```python\n)(def (\w+)\(.*?)(```)", re.DOTALL)
_SUMMARY = "<summary>Solution</summary>"


def lesson_of(path) -> str:
    return Path(path).name[:2]


def solutions(lesson: str) -> dict:
    """``{name: (function, checker)}`` of ``tools/solutions/lessonNN.py``."""
    try:
        module = importlib.import_module(f"tools.solutions.lesson{lesson}")
    except ModuleNotFoundError:
        return {}
    return {name: (getattr(module, name), getattr(checks, checker))
            for name, checker in module.CHECKERS.items()}


def source(function) -> str:
    return inspect.getsource(function)


def _stub_index(nb, name: str):
    """The code cell that defines ``name`` and raises NotImplementedError."""
    for i, cell in enumerate(nb.cells):
        src = source_of(cell)
        if (cell.cell_type == "code" and re.search(rf"^def {name}\(", src, re.M)
                and "NotImplementedError" in src):
            return i
    return None


def exercises(paths=None):
    """(notebook path, name, solution, checker, stub source or None)."""
    found = []
    for path in notebook_paths(paths):
        table = solutions(lesson_of(path))
        if not table:
            continue
        nb = read(path)
        for name, (function, checker) in table.items():
            i = _stub_index(nb, name)
            stub = source_of(nb.cells[i]) if i is not None else None
            found.append((path, name, function, checker, stub))
    return found


def _write_solutions(nb, table) -> bool:
    changed = False
    for cell in nb.cells:
        text = source_of(cell)
        if cell.cell_type != "markdown" or _SUMMARY not in text:
            continue

        def fill(m):
            name = m.group(3)
            if name not in table:
                return m.group(0)
            return m.group(1) + source(table[name][0]) + m.group(4)

        new = _BLOCK.sub(fill, text)
        if new != text:
            cell.source = new
            changed = True
    return changed


def sync(paths=None) -> list[Path]:
    """Write every solution into its notebook; returns the changed notebooks."""
    changed = []
    for path in notebook_paths(paths):
        table = solutions(lesson_of(path))
        if not table:
            continue
        nb = read(path)
        if _write_solutions(nb, table):
            write(nb, path)
            changed.append(path)
    return changed


def stale(nb, path) -> list[str]:
    """Solution cells that differ from tools/solutions (for ``make check``)."""
    probe = copy.deepcopy(nb)
    table = solutions(lesson_of(path))
    return (["a solution differs from tools/solutions (run `make nav`)"]
            if _write_solutions(probe, table) else [])


def build(paths=None, timeout: int = 600) -> list[Path]:
    """Executed instructor copies with every stub replaced by its solution."""
    from tools.execute import execute, normalise

    BUILD.mkdir(parents=True, exist_ok=True)
    written = []
    for path in notebook_paths(paths):
        nb = read(path)
        for name, (function, _) in solutions(lesson_of(path)).items():
            i = _stub_index(nb, name)
            if i is not None:
                nb.cells[i].source = source(function).rstrip("\n")
        execute(nb, timeout=timeout, cwd=NOTEBOOKS_DIR)
        normalise(nb)
        out = BUILD / Path(path).name
        write(nb, out)
        written.append(out)
        print(f"wrote {out.relative_to(ROOT)}")
    return written
