"""The shape of ``helpers/``: its layers, and imports that run one way
through them (lowest first: runtime < attention < world < models < analysis <
figures < checks, widgets < notebook), nothing of the maintainer tools leaks
in, and every file stays readable in one sitting. Also where the checker tests
live."""

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


def _target(imp: str, modules) -> str | None:
    """The helpers module an imported name is in: "helpers.widgets.engine.
    MAX_TOKENS" -> the longest module prefix."""
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
    f.write_text("def f():\n    import helpers.world.heads\n"
                 "import importlib\nimportlib.import_module('helpers.world.lexicon')\n")
    assert {"helpers.world.heads", "helpers.world.lexicon"} <= _imports(f)


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
    assert {"helpers.models.tiny", "helpers.models.tiny.corpus",
            "helpers.models.tiny.training", "helpers.models.tiny.weights",
            "helpers.models.pretrained", "helpers.models.gpt"} <= models
    for name in sorted(models | {"helpers.models.tiny"}):
        for module in {name} | _reach(graph, name):
            path = HELPERS.parent / (module.replace(".", "/") + ".py")
            if not path.exists():
                path = path.with_suffix("") / "__init__.py"
            imports = {i.split(".")[0] for i in _imports(path)}
            assert not imports & DISPLAY, f"{name} reaches {module}, which draws"
            assert not any(m.startswith(("helpers.widgets", "helpers.figures"))
                           for m in graph[module])


def test_the_figures_compute_no_attention():
    # the still figures take arrays and draw them: no model, no widget
    graph = _graph()
    figures = [m for m in graph if m.startswith("helpers.figures")]
    assert len(figures) >= 4
    banned = ("helpers.models", "helpers.widgets", "helpers.attention")
    for name in figures:
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


def test_the_gathering_modules_export_everything_they_list():
    # helpers.models.tiny, helpers.figures.plots, helpers.world.lexicon and
    # helpers.attention gather modules that were split out of them; notebooks
    # import them by these names
    from helpers import attention
    from helpers.attention import core, fixed_state, scale
    from helpers.figures import heatmaps, plots
    from helpers.models import tiny
    from helpers.models.tiny import corpus, model, training, weights
    from helpers.world import heads, lexicon, positions, sentences

    for module in (tiny, plots, lexicon, heads, attention):
        missing = [n for n in module.__all__ if not hasattr(module, n)]
        assert missing == [], f"{module.__name__} lists {missing} but lacks them"
    assert tiny.forward is model.forward
    assert tiny.make_sense_corpus is corpus.make_sense_corpus
    assert tiny.train is training.train
    assert tiny.load_trained is weights.load_trained
    assert attention.softmax is core.softmax
    assert attention.kv_cache_bytes is scale.kv_cache_bytes
    assert attention.delta_rule is fixed_state.delta_rule
    public = {n for m in (core, scale, fixed_state) for n in m.__all__}
    assert public == set(attention.__all__)
    assert lexicon.positional_encoding is positions.positional_encoding
    assert heads.CURRICULUM_SENTENCES is sentences.CURRICULUM_SENTENCES
    assert plots.heatmap is heatmaps.heatmap


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
# notebooks (helpers.world.heads.CURRICULUM_SENTENCES, helpers.world.lexicon.
# positional_encoding); inside helpers/ they are imported from the new one.
MOVED = {("helpers.world.heads", "CURRICULUM_SENTENCES"): "helpers.world.sentences",
         ("helpers.world.lexicon", "positional_encoding"): "helpers.world.positions"}


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


# ---------------------------------------------------------------------------
# The layers of helpers/ (CONTRIBUTING.md, "The layout"; helpers/__init__.py).
# A module may import only from its own layer or a lower one; checks and
# widgets share a layer and neither imports the other; no module imports a
# private name (_x) or a private module of another layer's package. The
# package root helpers/__init__.py sits above them all.
# ---------------------------------------------------------------------------

LAYERS = {
    "runtime": 1,      # how the helpers run: BLAS threads, timing
    "attention": 2,    # the math
    "world": 3,        # the toy world: tokens, lexicon, heads, images, recall
    "models": 4,       # the tiny model, the pretrained encoder, the GPT, ...
    "analysis": 5,     # what lessons 10-14 measure on the models
    "figures": 6,      # every still figure (style, plots, heatmaps, ...)
    "checks": 7,       # the exercise checkers
    "widgets": 7,      # the explorers
    "notebook": 8,     # setup_notebook, the first cell of every lesson
}
ROOT_LAYER = 9         # helpers/__init__.py: re-exports setup_notebook


def _package(module: str) -> str:
    """``helpers.world.heads`` -> ``world`` (the layer's package)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _layer(module: str) -> int | None:
    return ROOT_LAYER if module == "helpers" else LAYERS.get(_package(module))


def _import_lines(path: Path):
    """``(line, module, names)`` for every import statement of the file, at
    any depth (lazy imports too); relative imports resolved."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name, []
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = _module(path)
                if path.name != "__init__.py":
                    package = package.rpartition(".")[0]
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            yield node.lineno, base, [a.name for a in node.names]


def _layer_violations(files: dict[str, Path], modules) -> list[str]:
    """Every import of ``files`` (module name -> path) that breaks the
    layers, named with its file, line and both layers."""
    bad = []
    for name, path in sorted(files.items()):
        here = _package(name) if name != "helpers" else ""
        top = len(path.parts) - 1 - path.parts[::-1].index("helpers")
        where = "/".join(path.parts[top + 1:])      # relative to helpers/
        for line, module, names in _import_lines(path):
            if not module.startswith("helpers"):
                continue
            targets = {(_target(f"{module}.{n}", modules), n) for n in names} \
                or {(_target(module, modules), None)}
            for target, imported in sorted(targets, key=str):
                if target is None or target == name:
                    continue
                if name.startswith(target + "."):
                    continue          # a submodule importing its own package
                there = _package(target)
                said = f"{where}:{line} imports {module}" + (
                    f".{imported}" if imported else "")
                mine, theirs = _layer(name), _layer(target)
                if mine is None or theirs is None:
                    bad.append(f"{said}: no layer for "
                               f"{name if mine is None else target}")
                elif theirs > mine:
                    bad.append(f"{said}: {here or 'helpers'} (layer {mine}) "
                               f"imports {there} (layer {theirs}), a higher one")
                elif theirs == mine and there != here:
                    bad.append(f"{said}: {here} and {there} share layer {mine} "
                               "and neither imports the other")
                if there != here:
                    private = [p for p in target.split(".") if p.startswith("_")]
                    if imported and imported.startswith("_") \
                            and not imported.startswith("__") \
                            and f"{module}.{imported}" not in modules:
                        private.append(imported)
                    if private:
                        bad.append(f"{said}: {', '.join(private)} is private to "
                                   f"helpers.{there}")
    return bad


def test_the_layer_check_names_a_wrong_way_import(tmp_path):
    root = tmp_path / "helpers"
    for rel, text in {
        "__init__.py": "",
        "world/__init__.py": "",
        "world/heads.py": "from helpers.models import gpt\n",
        "models/__init__.py": "",
        "models/gpt.py": "from helpers.world.heads import _select\n",
        "checks/__init__.py": "",
        "checks/a.py": "\n\nfrom helpers.widgets import engine\n",
        "widgets/__init__.py": "",
        "widgets/engine.py": "import helpers.world.heads\n",
        "nowhere/__init__.py": "from helpers.world import heads\n",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    files = {".".join(p.relative_to(tmp_path).with_suffix("").parts).removesuffix(
        ".__init__"): p for p in root.rglob("*.py")}
    found = _layer_violations(files, set(files))
    assert ("world/heads.py:1 imports helpers.models.gpt: world (layer 3) imports "
            "models (layer 4), a higher one") in "\n".join(found)
    assert any(f.startswith("models/gpt.py:1 imports helpers.world.heads._select: "
                            "_select is private to helpers.world") for f in found)
    assert any(f.startswith("checks/a.py:3 imports helpers.widgets.engine: checks "
                            "and widgets share layer 7") for f in found)
    assert ("nowhere/__init__.py:1 imports helpers.world.heads: no layer for "
            "helpers.nowhere") in found
    assert len(found) == 4, found          # widgets -> world is the right way
    assert _layer("helpers.nowhere") is None


def test_every_helpers_module_is_in_a_layer_and_the_root_holds_only_init():
    assert sorted(p.name for p in HELPERS.glob("*.py")) == ["__init__.py"]
    modules = {_module(p) for p in FILES}
    assert [m for m in sorted(modules) if _layer(m) is None] == []
    assert {_package(m) for m in modules} - {""} == set(LAYERS)


def test_helpers_imports_run_down_the_layers():
    files = {_module(p): p for p in FILES}
    found = _layer_violations(files, set(files))
    assert found == [], "imports against the layers:\n" + "\n".join(found)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(HELPERS)))
def test_nothing_in_helpers_imports_the_plots_gathering(path):
    # helpers.figures.plots gathers the figures for the notebooks; a helpers
    # module imports the module that defines what it uses
    used = [f"{path.relative_to(HELPERS)}:{line}"
            for line, module, names in _import_lines(path)
            if module == "helpers.figures.plots"
            or (module == "helpers.figures" and "plots" in names)]
    assert used == []


def test_the_package_root_gives_setup_notebook_and_no_old_addresses():
    import helpers

    assert helpers.__all__ == ["setup_notebook"]
    assert not hasattr(helpers, "__getattr__")
    code = ("import helpers\n"
            "for old in ('gpt', 'pretrained', 'lexicon', 'plots'):\n"
            "    assert not hasattr(helpers, old), old\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=HELPERS.parent,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


def test_contributing_and_the_package_docstring_give_the_layers_in_order():
    import helpers

    text = (HELPERS.parent / "CONTRIBUTING.md").read_text("utf-8")
    section = text.split("## The layout", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\d+\. `(\w+)/`", section, re.MULTILINE)
    ordered = sorted(LAYERS, key=lambda k: (LAYERS[k], k))
    assert listed == [k for k in ordered if k != "widgets"], listed
    assert "`widgets/`" in section
    said = re.findall(r"^\d+\. ``(\w+)``", helpers.__doc__, re.MULTILINE)
    assert said == listed, said


# One home for the pieces every model needs: softmax and its backward pass in
# helpers.attention.core, LayerNorm in helpers.models.layers (issue 53).
ONE_HOME = {"softmax": "attention/core.py", "softmax_backward": "attention/core.py",
            "layer_norm": "models/layers.py", "_layer_norm": None, "_ln": None,
            "_ln_back": None, "_as_float": "attention/inputs.py"}


def test_softmax_layer_norm_and_the_input_check_are_written_once():
    homes = {}
    for path in FILES:
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name in ONE_HOME:
                homes.setdefault(node.name, []).append(
                    str(path.relative_to(HELPERS)))
    assert homes == {k: [v] for k, v in ONE_HOME.items() if v}, homes
