"""The graded release for nbgrader (``python -m tools assign --nbgrader``):
the same questions, points (``tools/points.toml``) and checker messages as
the Otter release (tools/assign.py), as an nbgrader course folder.

For each lesson, ``build/assignments/nbgrader/source/NN_name/NN_name.ipynb``
is the lesson with, for each exercise:

* its stub cell made a solution cell (``metadata.nbgrader.solution``): the
  stub, then the solution from ``tools/solutions/`` between
  ``### BEGIN SOLUTION`` and ``### END SOLUTION``, which nbgrader replaces
  by a comment in the student's copy;
* after the lesson's own check cell, two locked grade cells with their
  points: the public test (the check cell's call, through
  :func:`helpers.checks.grading.score`) and the hidden test (the same on
  other inputs, between ``### BEGIN HIDDEN TESTS`` and
  ``### END HIDDEN TESTS``, which nbgrader keeps out of the student's copy).

Then ``nbgrader generate_assignment`` writes ``release/NN_name/``, and
:func:`grade` runs ``nbgrader autograde`` on one submission.
"""

from __future__ import annotations

import copy
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tools import assign, solve
from tools.common import read, source_of, write

CONFIG = """\
# nbgrader's configuration for the graded release (tools/assign_nbgrader.py)
c = get_config()  # noqa: F821
# what replaces a solution in the student's copy: the stub above it stays
c.ClearSolutions.code_stub = {"python": "# (your answer: the function above)"}
c.Execute.timeout = 600
"""

#: A grade cell's value is its score (nbgrader's partial credit): the
#: checker's points or 0, with its message printed; it never raises, so the
#: student's Run All carries on past an exercise not done yet.
_PUBLIC = """\
from helpers.checks.grading import score
score(globals(), {call!r}, {points})"""

_HIDDEN = """\
from helpers.checks.grading import score
### BEGIN HIDDEN TESTS
score(globals(), {call!r}, {points}, hidden=True)
### END HIDDEN TESTS"""


def _meta(grade_id: str, *, solution=False, grade=False, points=0) -> dict:
    meta = {"grade": grade, "solution": solution, "locked": not solution,
            "grade_id": grade_id, "schema_version": 3}
    if grade:
        meta["points"] = points
    return meta


def source_notebook(path: Path, points_path: Path = assign.POINTS):
    """The nbgrader source notebook of a lesson."""
    from nbformat.v4 import new_code_cell

    nb = read(path)
    lesson = solve.lesson_of(path)
    table = solve.solutions(lesson)
    marks = assign.points(lesson, table, points_path)
    stubs = {solve._stub_index(nb, name): name for name in table}
    out = copy.deepcopy(nb)
    cells, pending = [], {}
    for i, cell in enumerate(nb.cells):
        text = source_of(cell)
        if cell.cell_type == "markdown" and assign._SUMMARY in text and any(
                f"def {name}(" in text for name in table):
            continue
        cell = copy.deepcopy(cell)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        if i in stubs:
            name = stubs[i]
            pending[table[name][1].__name__] = name
            cell.source = (text.rstrip("\n") + "\n### BEGIN SOLUTION\n"
                           + solve.source(table[name][0]).rstrip("\n")
                           + "\n### END SOLUTION")
            cell.metadata["nbgrader"] = _meta(f"{name}", solution=True)
        cells.append(cell)
        for checker, name in list(pending.items()):
            if cell.cell_type == "code" and checker + "(" in text:
                call = assign.check_call(text, checker)
                public, hidden = marks[name]
                for kind, points, template in (("public", public, _PUBLIC),
                                               ("hidden", hidden, _HIDDEN)):
                    if points:
                        test = new_code_cell(template.format(call=call,
                                                             points=points),
                                             id=f"{name}-{kind}")
                        test.metadata["nbgrader"] = _meta(
                            f"{name}_{kind}", grade=True, points=points)
                        cells.append(test)
                del pending[checker]
    if pending:
        raise ValueError(f"{path.name}: no check cell calls {sorted(pending)}")
    out.cells = cells
    return out


def _nbgrader(*args, cwd: Path) -> None:
    bin_dir = Path(sys.executable).parent  # nbgrader runs `alembic` from PATH
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    exe = bin_dir / "nbgrader"
    done = subprocess.run([str(exe) if exe.exists() else "nbgrader", *args], cwd=cwd,
                          capture_output=True, text=True, env=env)
    if done.returncode:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n{done.stdout}\n"
                           f"{done.stderr}")


def build(args=None, out: Path = assign.BUILD) -> Path:
    """The course folder ``out/nbgrader`` with every chosen lesson's source
    and release (``nbgrader generate_assignment``)."""
    root = out / "nbgrader"
    root.mkdir(parents=True, exist_ok=True)
    (root / "nbgrader_config.py").write_text(CONFIG, encoding="utf-8")
    for path in assign.lesson_paths(args):
        folder = root / "source" / path.stem
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        assign._copy_support(folder)
        write(source_notebook(path), folder / path.name)
        _nbgrader("generate_assignment", path.stem, "--force", cwd=root)
        print(f"{path.stem}: {assign._shown(root / 'release' / path.stem)}")
    return root


def grade(root: Path, assignment: str, student: str, notebook) -> dict:
    """``nbgrader autograde`` of one submission (an nbformat notebook):
    ``{grade_id: (score, max_score, feedback)}``, the feedback being what
    the grade cell printed (the checker's message) and any error."""
    from nbgrader.api import Gradebook

    folder = root / "submitted" / student / assignment
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(root / "release" / assignment, folder)
    write(notebook, folder / f"{assignment}.ipynb")
    _nbgrader("autograde", assignment, "--student", student, "--force", cwd=root)
    graded = read(root / "autograded" / student / assignment / f"{assignment}.ipynb")
    errors = {}
    for cell in graded.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade"):
            errors[meta["grade_id"]] = "\n".join(
                "".join(o.get("text", "")) if o.get("output_type") == "stream"
                else f"{o.get('ename')}: {o.get('evalue')}"
                for o in cell.get("outputs", [])
                if o.get("output_type") in ("stream", "error"))
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        submission = gradebook.find_submission_notebook(assignment, assignment, student)
        return {g.name: (g.score, g.max_score, errors.get(g.name, ""))
                for g in submission.grades}
