"""The graded release (``python -m tools assign [NN ...]``, ``make assignments``):
the lessons' exercises as Otter-Grader assignments, from the sources we have.

For each lesson with exercises (or the lessons named, ``04`` or a notebook):

1. :func:`master` writes an Otter master notebook from the lesson notebook:
   every cell of the lesson, and each exercise's stub cell made a question
   (``# BEGIN QUESTION``): the stub stays, the solution after it comes from
   ``tools/solutions/lessonNN.py`` (Otter removes it from the student's),
   and two tests run the lesson's own check cell call
   (``check_attention(attention)``) through
   :func:`helpers.checks.grading.verdict`: the public one as in the lesson,
   the hidden one on other inputs. Points: ``tools/points.toml``. The
   collapsed solution (``<details><summary>Solution``) is left out.
2. ``otter assign`` turns it into ``dist/autograder/`` (the Gradescope zip,
   which ``otter run`` also grades locally) and ``dist/student/``.
3. :func:`release` copies the student notebooks, with the lesson's stored
   outputs (those of the stubs) put back, into one folder laid out like the
   repository, ``build/assignments/student/``: it opens and runs like the
   lessons, and passes ``python -m tools check``.

Written under ``build/assignments/`` (see the instructor guide, "The graded
release"). Needs the ``grading`` extra (``pip install -e ".[grading]"``).
"""

from __future__ import annotations

import ast
import copy
import shutil
import subprocess
import sys
from pathlib import Path

from tools import solve
from tools.common import (
    CONTENTS,
    NOTEBOOKS_DIR,
    ROOT,
    notebook_paths,
    read,
    source_of,
    write,
)

BUILD = ROOT / "build" / "assignments"
POINTS = ROOT / "tools" / "points.toml"
#: What the autograder and the student folder need beside the notebook.
SUPPORT = ("helpers", "data")
_SUMMARY = "<summary>Solution</summary>"


def _toml(path: Path) -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    with open(path, "rb") as f:
        return tomllib.load(f)


def points(lesson: str, names, path: Path = POINTS) -> dict[str, tuple[int, int]]:
    """``{exercise: (public, hidden)}`` of lesson ``"04"`` from points.toml;
    ValueError naming what is missing."""
    table = _toml(path).get(f"lesson{lesson}", {})
    out = {}
    for name in names:
        entry = table.get(name)
        if not isinstance(entry, dict) or not {"public", "hidden"} <= set(entry):
            raise ValueError(
                f"{path.name}: no points for lesson {lesson}'s exercise {name}; add "
                f"`{name} = {{public = 1, hidden = 1}}` under [lesson{lesson}]")
        out[name] = (entry["public"], entry["hidden"])
    return out


def lesson_paths(args=None) -> list[Path]:
    """The lessons with exercises: all, or those named by number or path."""
    chosen = []
    for arg in args or []:
        if Path(arg).suffix == ".ipynb":
            chosen.append(Path(arg))
        else:
            found = sorted(NOTEBOOKS_DIR.glob(f"{int(arg):02d}_*.ipynb"))
            if not found:
                raise ValueError(f"no lesson {arg} in notebooks/")
            chosen.extend(found)
    return [p for p in notebook_paths(chosen or None)
            if solve.solutions(solve.lesson_of(p))]


def check_call(source: str, checker: str) -> str:
    """The checker call of a lesson's check cell, e.g.
    ``passed = checks.check_real_head(real_head_pattern, model)`` gives
    ``"check_real_head(real_head_pattern, model)"``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(
                func, "id", None)
            if name == checker:
                node.func = ast.Name(id=checker)
                return ast.unparse(node)
    raise ValueError(f"no call of {checker} in {source!r}")


def _raw(text: str, cell_id: str):
    from nbformat.v4 import new_raw_cell

    return new_raw_cell(text, id=cell_id)


def _code(text: str, cell_id: str, metadata=None):
    from nbformat.v4 import new_code_cell

    cell = new_code_cell(text, id=cell_id)
    cell.metadata = copy.deepcopy(metadata or {})
    return cell


#: The assignment's configuration. It names no assignment on purpose: with a
#: name, Otter refuses a notebook that lacks its metadata (a new, empty one)
#: instead of grading it 0. No init, check or export cell: the learner's
#: check is the lesson's own check cell (the public test's very call).
_CONFIG = """\
# ASSIGNMENT CONFIG
requirements: requirements.txt
files: [{files}]
init_cell: false
check_all_cell: false
export_cell: false
run_tests: false
solutions_pdf: false
tests:
  files: true
  ok_format: false
generate:
  pdf: false
  show_stdout: false
  show_hidden: false"""

_TEST = '''\
""" # BEGIN TEST CONFIG
hidden: {hidden}
""" # END TEST CONFIG
def test_{name}(env):
    from helpers.checks.grading import verdict
    verdict(env, {call!r}{extra})'''


def _solution_cell(stub: str, solution: str, cell_id: str, metadata):
    """The stub, then the solution in Otter's solution block: the student
    gets the stub alone; the autograder's notebook runs both, and the
    solution defines the function again."""
    return _code(stub.rstrip("\n") + "\n# BEGIN SOLUTION NO PROMPT\n"
                 + solution.rstrip("\n") + "\n# END SOLUTION", cell_id, metadata)


def master(path: Path, points_path: Path = POINTS):
    """The Otter master notebook of a lesson (an nbformat notebook)."""
    nb = read(path)
    lesson = solve.lesson_of(path)
    table = solve.solutions(lesson)
    marks = points(lesson, table, points_path)
    stubs = {solve._stub_index(nb, name): name for name in table}
    stubs.pop(None, None)
    missing = set(table) - set(stubs.values())
    if missing:
        raise ValueError(f"{path.name}: no stub cell for {sorted(missing)}")
    out = copy.deepcopy(nb)
    cells = [_raw(_CONFIG.format(files=", ".join(SUPPORT)),
                  "otter-config")]
    pending = {}  # checker name -> exercise, until its check cell is seen
    for i, cell in enumerate(nb.cells):
        text = source_of(cell)
        if cell.cell_type == "markdown" and _SUMMARY in text and any(
                f"def {name}(" in text for name in table):
            continue  # the collapsed solution: not in the graded release
        if i in stubs:
            name = stubs[i]
            pending[table[name][1].__name__] = name
            cells.append(_solution_cell(text, solve.source(table[name][0]),
                                        cell.get("id", f"stub-{name}"), cell.metadata))
            continue
        cell = copy.deepcopy(cell)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        for checker, name in list(pending.items()):
            if cell.cell_type == "code" and checker + "(" in text:
                cells.extend(_question(lesson, name, check_call(text, checker),
                                       marks[name], cells.pop()))
                del pending[checker]
        cells.append(cell)
    if pending:
        raise ValueError(f"{path.name}: no check cell calls {sorted(pending)}")
    out.cells = cells
    return out


def _question(lesson, name, call, marks, solution_cell):
    """The question block around an exercise's solution cell."""
    public, hidden = marks
    qname = f"lesson{lesson}_{name}"
    tests = []
    if public:
        tests.append((public, _TEST.format(hidden="false", name="public", call=call,
                                           extra="")))
    if hidden:
        tests.append((hidden, _TEST.format(hidden="true", name="hidden", call=call,
                                           extra=", hidden=True")))
    if not tests:
        raise ValueError(f"lesson {lesson}: {name} has no points")
    marks = ", ".join(str(p) for p, _ in tests)
    head = f"# BEGIN QUESTION\nname: {qname}\npoints: [{marks}]\ncheck_cell: false"
    return ([_raw(head, f"{qname}-begin"), _raw("# BEGIN SOLUTION", f"{qname}-sol"),
             solution_cell, _raw("# END SOLUTION", f"{qname}-endsol"),
             _raw("# BEGIN TESTS", f"{qname}-tests")]
            + [_code(test, f"{qname}-test{k}") for k, (_, test) in enumerate(tests)]
            + [_raw("# END TESTS", f"{qname}-endtests"),
               _raw("# END QUESTION", f"{qname}-end")])


def _copy_support(folder: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")
    for name in SUPPORT:
        shutil.copytree(ROOT / name, folder / name, ignore=ignore, dirs_exist_ok=True)
    shutil.copy2(ROOT / "requirements.txt", folder / "requirements.txt")


def otter_assign(path: Path, out: Path = BUILD) -> Path:
    """Master notebook, then ``otter assign``: returns the lesson's folder
    ``out/otter/NN_name`` (``master/``, ``dist/autograder/``, ``dist/student/``)."""
    folder = out / "otter" / path.stem
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "master").mkdir(parents=True)
    _copy_support(folder / "master")
    notebook = folder / "master" / path.name
    write(master(path), notebook)
    otter = Path(sys.executable).with_name("otter")
    command = [str(otter) if otter.exists() else "otter", "assign", "--no-pdfs",
               str(notebook), str(folder / "dist")]
    done = subprocess.run(command, cwd=folder / "master", capture_output=True,
                          text=True)
    if done.returncode:
        raise RuntimeError(f"otter assign failed for {path.name}:\n{done.stdout}\n"
                           f"{done.stderr}")
    return folder


def student_notebook(lesson_path: Path, otter_student: Path):
    """Otter's student notebook with the lesson's stored outputs put back
    (matched by cell id: the stubs' outputs, which are the lesson's own)."""
    lesson = read(lesson_path)
    stored = {c.get("id"): c for c in lesson.cells if c.cell_type == "code"}
    nb = read(otter_student)
    for cell in nb.cells:
        twin = stored.get(cell.get("id"))
        if cell.cell_type == "code" and twin is not None:
            cell.outputs = copy.deepcopy(twin.outputs)
            cell.execution_count = twin.execution_count
    # the lesson's metadata, and Otter's (the assignment name it checks)
    metadata = copy.deepcopy(lesson.metadata)
    if "otter" in nb.metadata:
        metadata["otter"] = nb.metadata["otter"]
    nb.metadata = metadata
    return nb


def release(built: dict[Path, Path], out: Path = BUILD) -> Path:
    """``out/student``: the repository's layout with the student notebooks."""
    folder = out / "student"
    (folder / "notebooks").mkdir(parents=True, exist_ok=True)
    _copy_support(folder)
    for path in notebook_paths():
        target = folder / "notebooks" / path.name
        if path in built:
            write(student_notebook(path, built[path] / "dist" / "student" / path.name),
                  target)
        elif path.name == CONTENTS or not target.exists():
            shutil.copy2(path, target)  # the start page; lessons not built yet
    guide = NOTEBOOKS_DIR / "instructor_guide.md"
    if guide.exists():
        shutil.copy2(guide, folder / "notebooks" / guide.name)
    return folder


def autograder_zip(folder: Path) -> Path:
    """The Gradescope zip ``otter assign`` wrote for a lesson's folder."""
    zips = sorted((folder / "dist" / "autograder").glob("*-autograder_*.zip"))
    if len(zips) != 1:
        raise RuntimeError(f"expected one autograder zip in {folder}, found {zips}")
    return zips[0]


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def build(args=None, out: Path = BUILD) -> dict[Path, Path]:
    """Every chosen lesson's Otter assignment and the student release."""
    built = {}
    for path in lesson_paths(args):
        folder = otter_assign(path, out)
        built[path.resolve()] = folder
        print(f"{path.stem}: {_shown(autograder_zip(folder))}")
    if built:
        print(f"student notebooks: {_shown(release(built, out) / 'notebooks')}")
    return built


def grade(submission: Path, autograder: Path, out: Path) -> dict[str, tuple]:
    """``otter run`` (local, no Docker) on one submission: ``{question:
    (score, max_score, feedback)}`` from its results.json, written in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    otter = Path(sys.executable).with_name("otter")
    command = [str(otter) if otter.exists() else "otter", "run", "--no-logo",
               "-a", str(autograder), "-o", str(out), str(submission)]
    done = subprocess.run(command, capture_output=True, text=True)
    results = out / "results.json"
    if not results.exists():
        raise RuntimeError(f"otter run wrote no results for {submission}:\n"
                           f"{done.stdout}\n{done.stderr}")
    import json

    tests = json.loads(results.read_text(encoding="utf-8"))["tests"]
    return {t["name"]: (t.get("score"), t.get("max_score"), t.get("output", ""))
            for t in tests}
