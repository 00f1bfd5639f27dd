"""The shape of ``helpers/``: imports run one way, nothing of the maintainer
tools leaks in, and every file stays readable in one sitting. Also where the
models live (their old addresses kept) and where the checker tests live."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

HELPERS = Path(__file__).resolve().parents[1] / "helpers"
FILES = sorted(HELPERS.rglob("*.py"))
MAINTAINER_ONLY = {"nbformat", "nbclient", "nbval", "jupyter_client", "pytest"}


def _module(path: Path) -> str:
    parts = path.relative_to(HELPERS.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module named anywhere in the file: ``import x``, ``from x import
    y`` (also ``x.y`` when y is a module), inside functions too (lazy
    imports), and ``importlib.import_module("x")`` / ``__import__("x")``."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = _module(path)
                if path.name != "__init__.py":
                    package = package.rpartition(".")[0]
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Call):
            f = node.func
            called = getattr(f, "attr", None) or getattr(f, "id", None)
            if called in ("import_module", "__import__") and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    names.add(arg.value)
                else:  # a computed name hides what is imported
                    names.add("<dynamic import>")
    return names


# The models' old addresses: helpers/__init__.py's __getattr__ gives these
# modules under the old names, so an import by an old name is an edge to the
# module in helpers/models/ (not to the package helpers).
OLD_ADDRESSES = {"helpers.pretrained": "helpers.models.pretrained",
                 "helpers.gpt": "helpers.models.gpt"}


def _target(imp: str, modules) -> str | None:
    """The helpers module an imported name is in: "helpers.widgets.engine.
    MAX_TOKENS" -> the longest module prefix; an old address -> its module."""
    for old, new in OLD_ADDRESSES.items():
        if imp == old or imp.startswith(old + "."):
            imp = new + imp[len(old):]
    parts = imp.split(".")
    for k in range(len(parts), 0, -1):
        if ".".join(parts[:k]) in modules:
            return ".".join(parts[:k])
    return None


# The one module allowed to import by a computed name: the checker registry
# helpers/checks/__init__.py imports every helpers/checks/lessonNN.py it finds
# in its folder. The graph counts an edge to each of those modules (the test
# below checks that these are exactly what it imports), so it stays complete.
REGISTRY = HELPERS / "checks" / "__init__.py"


def _registry_imports() -> set[str]:
    return {f"helpers.checks.{p.stem}"
            for p in (HELPERS / "checks").glob("lesson[0-9][0-9].py")}


def _graph():
    modules = {_module(p): p for p in FILES}
    graph = {}
    for name, path in modules.items():
        imports = _imports(path)
        if path == REGISTRY:
            imports = (imports - {"<dynamic import>"}) | _registry_imports()
        deps = {_target(imp, modules) for imp in imports} - {None}
        deps.discard(name)
        # a package's own __init__ is not an edge back from its submodules
        graph[name] = {d for d in deps if not name.startswith(d + ".")}
    return graph


def _find_cycle(graph):
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == "open":
                return stack[stack.index(dep):] + [dep]
            if dep not in state:
                found = visit(dep)
                if found:
                    return found
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_cycle_finder_finds_a_cycle():
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_import_reader_sees_lazy_and_importlib_imports(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("def f():\n    import helpers.heads\n"
                 "import importlib\nimportlib.import_module('helpers.lexicon')\n")
    assert {"helpers.heads", "helpers.lexicon"} <= _imports(f)


def test_helpers_has_no_import_cycle():
    graph = _graph()
    assert "helpers.widgets.base" in graph and graph["helpers.widgets.base"]
    assert _find_cycle(graph) is None, " -> ".join(_find_cycle(graph))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(HELPERS)))
def test_no_dynamic_imports_and_no_maintainer_packages(path):
    imports = _imports(path)
    if path != REGISTRY:              # its imports are counted by _registry_imports
        assert "<dynamic import>" not in imports
        assert "importlib" not in {i.split(".")[0] for i in imports}
    leaked = {i.split(".")[0] for i in imports} & MAINTAINER_ONLY
    assert not leaked, f"{path.name} imports {leaked} (learners do not have it)"


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(HELPERS)))
def test_no_helpers_file_is_longer_than_600_lines(path):
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= 600, f"{path.relative_to(HELPERS)}: {n} lines; split it by idea"


DISPLAY = {"matplotlib", "ipywidgets", "IPython", "PIL"}


def _reach(graph, start):
    """Every helpers module ``start`` imports, directly or through others."""
    seen, todo = set(), [start]
    while todo:
        for dep in graph.get(todo.pop(), ()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def test_the_models_are_numpy_only():
    # the tiny model and everything it imports, and every module of
    # helpers/models/: numpy, no drawing (display stays apart from them)
    graph = _graph()
    models = {m for m in graph if m.startswith("helpers.models")}
    assert {"helpers.models.tiny", "helpers.models.tiny_corpus",
            "helpers.models.tiny_training", "helpers.models.tiny_io",
            "helpers.models.pretrained", "helpers.models.gpt"} <= models
    for name in sorted(models | {"helpers.tinymodel"}):
        for module in {name} | _reach(graph, name):
            path = HELPERS.parent / (module.replace(".", "/") + ".py")
            if not path.exists():
                path = path.with_suffix("") / "__init__.py"
            imports = {i.split(".")[0] for i in _imports(path)}
            assert not imports & DISPLAY, f"{name} reaches {module}, which draws"
            assert not any(m.startswith(("helpers.widgets", "helpers.plots",
                                         "helpers.figures")) for m in graph[module])


def test_the_figures_compute_no_attention():
    # the still figures take arrays and draw them: no model, no widget
    graph = _graph()
    figures = [m for m in graph if m.startswith("helpers.figures")]
    assert len(figures) >= 4
    banned = ("helpers.models", "helpers.tinymodel", "helpers.widgets",
              "helpers.attention")
    for name in figures + ["helpers.plots"]:
        assert not {d for d in graph[name] if d.startswith(banned)}, name


# The explorer modules of the lessons (helpers/widgets/lessonNN.py): each is
# one lesson's, and none imports another's.


def test_no_lesson_widget_module_imports_another():
    graph = _graph()
    lesson = {m for m in graph if m.startswith("helpers.widgets.")
              and m.rsplit(".", 1)[1].startswith("lesson")}
    assert len(lesson) >= 9
    bad = {m: sorted(graph[m] & lesson) for m in lesson if graph[m] & lesson}
    assert bad == {}


def test_the_old_addresses_still_export_everything_they_list():
    # helpers.tinymodel, helpers.plots and helpers.lexicon gather modules that
    # were split out of them; notebooks import them by the old names
    from helpers import heads, lexicon, plots, positions, sentences, tinymodel
    from helpers.figures import heatmaps
    from helpers.models import tiny, tiny_corpus, tiny_io, tiny_training

    for module in (tinymodel, plots, lexicon, heads):
        missing = [n for n in module.__all__ if not hasattr(module, n)]
        assert missing == [], f"{module.__name__} lists {missing} but lacks them"
    assert tinymodel.forward is tiny.forward
    assert tinymodel.make_sense_corpus is tiny_corpus.make_sense_corpus
    assert tinymodel.train is tiny_training.train
    assert tinymodel.load_trained is tiny_io.load_trained
    assert lexicon.positional_encoding is positions.positional_encoding
    assert heads.CURRICULUM_SENTENCES is sentences.CURRICULUM_SENTENCES
    assert plots.heatmap is heatmaps.heatmap


# The models moved to helpers/models/; their old public addresses
# (``from helpers import pretrained``, ``from helpers import gpt``) give the
# same module object, imported only when asked for.


def test_the_old_model_addresses_are_the_same_module_objects():
    import helpers
    from helpers import gpt, pretrained
    from helpers.models import gpt as gpt_module
    from helpers.models import pretrained as pretrained_module

    assert pretrained is pretrained_module and gpt is gpt_module
    assert helpers.pretrained is pretrained_module and helpers.gpt is gpt_module
    assert pretrained.__name__ == "helpers.models.pretrained"
    assert not (HELPERS / "pretrained.py").exists()
    assert not (HELPERS / "gpt.py").exists()
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        helpers.nope


def test_the_old_model_addresses_are_resolved_in_the_import_graph():
    # an edge through an old address counts as one to the module itself
    modules = {_module(p): p for p in FILES}
    assert _target("helpers.pretrained", modules) == "helpers.models.pretrained"
    assert _target("helpers.gpt.load", modules) == "helpers.models.gpt"
    assert _target("helpers.figures.gptplots", modules) == "helpers.figures.gptplots"
    assert _target("numpy.linalg", modules) is None
    graph = _graph()
    assert {"helpers.models.pretrained", "helpers.models.gpt"} <= graph["helpers"]
    assert "helpers.models.gpt" in graph["helpers.checks.lesson11"]
    assert "helpers.models.pretrained" in graph["helpers.probing"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(HELPERS)))
def test_helpers_import_the_models_from_helpers_models(path):
    # one address inside helpers/: the old names are for learners' code only
    if path == HELPERS / "__init__.py":
        return
    assert not _imports(path) & set(OLD_ADDRESSES), path.relative_to(HELPERS)


def test_import_helpers_loads_no_model():
    code = ("import sys, helpers; "
            "print(sorted(m for m in sys.modules if m.startswith('helpers.models')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=HELPERS.parent,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_every_helpers_package_is_installed():
    # pyproject's [tool.setuptools] packages: a folder missing there is
    # missing from a non-editable install (pip install .)
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((HELPERS.parent / "pyproject.toml").read_text("utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    packages = {_module(p) for p in HELPERS.rglob("__init__.py")}
    assert packages == listed, sorted(packages ^ listed)


# The checker tests: one file per lesson in tests/checks/, and the folder (not
# a list of files) is what the old-versions run and the other-CPU run name.


def test_every_lessons_checkers_are_tested_in_its_own_file():
    # lesson N's checkers (helpers/checks/lessonNN.py) are each named in
    # tests/checks/test_lessonNN.py, the folder the old-versions run executes
    root = HELPERS.parent
    for module in sorted((HELPERS / "checks").glob("lesson[0-9][0-9].py")):
        test = root / "tests" / "checks" / f"test_{module.stem}.py"
        assert test.is_file(), f"{module.name}'s checkers have no {test.name}"
        names = {n.name for n in ast.parse(module.read_text("utf-8")).body
                 if isinstance(n, ast.FunctionDef) and n.name.startswith("check_")}
        text = test.read_text("utf-8")
        untested = sorted(n for n in names if n not in text)
        assert names and untested == [], f"{test.name} does not test {untested}"
    stray = sorted(p.name for p in (root / "tests").glob("test_*check*.py"))
    assert stray == [], f"checker tests belong in tests/checks/: {stray}"


def test_the_compat_and_other_cpu_runs_name_the_checks_folder():
    root = HELPERS.parent
    compat = (root / "tests" / "compat" / "compat.mk").read_text("utf-8")
    makefile = (root / "Makefile").read_text("utf-8")
    assert "COMPAT_TESTS  = tests/checks " in compat
    assert "NUMERIC_TESTS = tests/checks " in makefile


# One lesson, one address: a lesson's checkers are registered by its own
# module (helpers/checks/lessonNN.py and its ``__all__``), and its title and
# goal by its notebook; no hand-kept list of lessons or checkers remains.


def _static_all(path: Path) -> list[str]:
    """The module's ``__all__``, read as a literal list (readers see it)."""
    for node in ast.parse(path.read_text("utf-8")).body:
        if isinstance(node, ast.Assign) and any(
                getattr(t, "id", None) == "__all__" for t in node.targets):
            return list(ast.literal_eval(node.value))
    return []


def test_every_lesson_checker_module_lists_its_checkers_in_all():
    modules = sorted((HELPERS / "checks").glob("lesson[0-9][0-9].py"))
    assert len(modules) >= 12
    for path in modules:
        defined = [n.name for n in ast.parse(path.read_text("utf-8")).body
                   if isinstance(n, ast.FunctionDef) and n.name.startswith("check_")]
        assert defined and _static_all(path) == defined, (
            f"{path.name}: __all__ must list its check_ functions, in order")


def test_every_lessons_checkers_are_reachable_from_helpers_checks():
    from helpers import checks

    seen = {}
    for path in sorted((HELPERS / "checks").glob("lesson[0-9][0-9].py")):
        module = __import__(f"helpers.checks.{path.stem}", fromlist=["__all__"])
        for name in module.__all__:
            assert name not in seen, f"{name} in {seen.get(name)} and {path.stem}"
            seen[name] = path.stem
            assert getattr(checks, name) is getattr(module, name)
    assert sorted(seen) == checks.__all__
    assert checks.LESSON_OF == seen
    assert checks.LESSON_MODULES == tuple(sorted(set(seen.values())))


def test_the_checker_registry_imports_exactly_the_lesson_modules():
    code = ("import sys, helpers.checks; print(sorted(m for m in sys.modules "
            "if m.startswith('helpers.checks.lesson')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=HELPERS.parent,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert eval(out.stdout) == sorted(_registry_imports())
    assert _registry_imports() <= _graph()["helpers.checks"]


def test_the_checker_registry_refuses_a_name_two_lessons_use(tmp_path):
    package = tmp_path / "fakechecks"
    package.mkdir()
    (package / "__init__.py").write_text(REGISTRY.read_text("utf-8"), "utf-8")
    for lesson in ("lesson01", "lesson02"):
        (package / f"{lesson}.py").write_text(
            '__all__ = ["check_a"]\n\n\ndef check_a(fn):\n    return True\n', "utf-8")
    out = subprocess.run([sys.executable, "-c", "import fakechecks"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert "check_a is in the __all__ of both lesson01 and lesson02" in out.stderr


def test_no_hand_list_of_checkers_or_lessons_remains():
    # the registry names no checker, the maintainer tools keep no lesson table
    source = REGISTRY.read_text("utf-8")
    code = ast.unparse(ast.parse(source).body[1:])          # the docstring aside
    assert not re.search(r"\bcheck_\w+", code), code
    assert "from helpers.checks.lesson" not in source
    common = (HELPERS.parent / "tools" / "common.py").read_text("utf-8")
    assert "LESSONS: dict" not in common and "LESSONS = {" not in common


def _notebook_checker_names() -> dict[str, set[str]]:
    """{notebook: every name it imports from helpers.checks or uses as checks.x}."""
    import json

    found = {}
    for path in sorted((HELPERS.parent / "notebooks").glob("*.ipynb")):
        names = set()
        for cell in json.loads(path.read_text("utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            code = "\n".join(line for line in "".join(cell["source"]).splitlines()
                             if not line.lstrip().startswith(("%", "!")))
            for node in ast.walk(ast.parse(code)):
                if isinstance(node, ast.ImportFrom) and node.module == "helpers.checks":
                    names |= {a.name for a in node.names}
                elif (isinstance(node, ast.Attribute)
                      and getattr(node.value, "id", None) == "checks"):
                    names.add(node.attr)
        if names:
            found[path.name] = names
    return found


def test_every_notebooks_checker_import_resolves():
    from helpers import checks

    used = _notebook_checker_names()
    assert len(used) >= 12
    missing = {nb: sorted(n for n in names if not hasattr(checks, n))
               for nb, names in used.items()}
    assert {nb: m for nb, m in missing.items() if m} == {}


def test_every_lesson_notebook_gives_its_title_and_goal(monkeypatch):
    # the series is the notebooks folder: no table to edit for a new lesson
    from tools import common, nav

    series = common.lessons()
    folder = HELPERS.parent / "notebooks"
    stems = sorted(p.stem for p in folder.glob("[0-9][0-9]_*.ipynb"))
    assert list(series) == [s for s in stems if not s.startswith("00")]
    assert len(series) >= 12
    for stem, (title, goal) in series.items():
        assert title.startswith(stem[:2]), (stem, title)
        assert len(goal.split()) >= 8 and "\n" not in goal, (stem, goal)
    names, titles = nav._series()
    listed = nav.lesson_list_markdown(names, titles)
    assert all(goal in listed for _, goal in series.values())
    monkeypatch.setattr(nav, "goal_of", lambda nb: "")
    with pytest.raises(ValueError, match='no one-line goal.*"lesson": {"goal"'):
        nav.lesson_list_markdown(names, titles)


def test_contributings_add_a_lesson_checklist_is_the_real_one():
    # one file a step, at most 6 besides the notebook, and each is where every
    # lesson keeps that part (lesson NN's file exists for every lesson)
    from tools import common

    root = HELPERS.parent
    text = (root / "CONTRIBUTING.md").read_text("utf-8")
    section = re.search(r"^## Add a lesson \((\d+) files besides the notebook\)\n"
                        r"(.*?)^## ", text, flags=re.M | re.S)
    assert section, "CONTRIBUTING.md has no '## Add a lesson (N files ...)' checklist"
    steps = re.findall(r"^\d+\. `([^`]+)`", section.group(2), flags=re.M)
    assert len(steps) == int(section.group(1)) <= 6, steps
    assert len(set(steps)) == len(steps)
    for stem in common.lessons():
        for step in steps:
            path = root / step.replace("NN", stem[:2])
            assert path.is_file(), f"lesson {stem[:2]} has no {path.relative_to(root)}"


# Pieces that moved to their own module keep their old addresses for the
# notebooks (helpers.heads.CURRICULUM_SENTENCES, helpers.lexicon.
# positional_encoding); inside helpers/ they are imported from the new one.
MOVED = {("helpers.heads", "CURRICULUM_SENTENCES"): "helpers.sentences",
         ("helpers.lexicon", "positional_encoding"): "helpers.positions"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(HELPERS)))
def test_helpers_import_moved_pieces_from_their_own_module(path):
    old = sorted(f"{node.module}.{a.name} (use {MOVED[node.module, a.name]})"
                 for node in ast.walk(ast.parse(path.read_text("utf-8")))
                 if isinstance(node, ast.ImportFrom)
                 for a in node.names if (node.module, a.name) in MOVED)
    assert old == [], path.relative_to(HELPERS)


# The explorers' policy (the toy-token cap, the debounce, the shared colours)
# lives in helpers/widgets/policy.py, which needs nothing of helpers; the
# engine only draws; the still loss figure is a figure, not a widget.
def test_widget_policy_lives_apart_from_the_drawing():
    from helpers import widgets
    from helpers.figures import charts
    from helpers.widgets import engine, lesson09, policy

    graph = _graph()
    assert graph["helpers.widgets.policy"] == set()
    policy_names = ("MAX_TOKENS", "MAX_TOY_TOKENS", "SETTLE", "MAX_WAIT", "CMAP",
                    "WEIGHT_RANGE", "BAD_COLOUR", "mime_bundle")
    assert [n for n in policy_names if hasattr(engine, n)] == []
    assert policy.MAX_TOY_TOKENS == widgets.MAX_TOY_TOKENS == 24
    assert widgets.loss_figure is charts.loss_figure
    assert not hasattr(lesson09, "loss_figure")
