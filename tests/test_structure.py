"""The shape of ``helpers/``: imports run one way, nothing of the maintainer
tools leaks in, and every file stays readable in one sitting."""

from __future__ import annotations

import ast
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


def _graph():
    modules = {_module(p): p for p in FILES}
    graph = {}
    for name, path in modules.items():
        deps = set()
        for imp in _imports(path):
            # "helpers.widgets.engine.MAX_TOKENS" -> the longest module prefix
            parts = imp.split(".")
            for k in range(len(parts), 0, -1):
                if ".".join(parts[:k]) in modules:
                    deps.add(".".join(parts[:k]))
                    break
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
    assert "<dynamic import>" not in imports
    assert "importlib" not in {i.split(".")[0] for i in imports}
    leaked = {i.split(".")[0] for i in imports} & MAINTAINER_ONLY
    assert not leaked, f"{path.name} imports {leaked} (learners do not have it)"


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(HELPERS)))
def test_no_helpers_file_is_longer_than_1000_lines(path):
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= 1000, f"{path.name}: {n} lines; split it by idea"


def test_tinymodel_is_numpy_only():
    imports = {i.split(".")[0] for i in _imports(HELPERS / "tinymodel.py")}
    assert not imports & {"matplotlib", "ipywidgets", "IPython", "PIL"}


# The explorer modules of the lessons (topic names until they are renamed
# lessonNN.py): each is one lesson's, and none imports another's.
LESSON_WIDGETS = {"words", "patterns", "updates", "multihead", "cross", "trained",
                  "realmodel"}


def test_no_lesson_widget_module_imports_another():
    graph = _graph()
    lesson = {m for m in graph if m.startswith("helpers.widgets.")
              and (m.rsplit(".", 1)[1] in LESSON_WIDGETS
                   or m.rsplit(".", 1)[1].startswith("lesson"))}
    assert len(lesson) >= 9
    bad = {m: sorted(graph[m] & lesson) for m in lesson if graph[m] & lesson}
    assert bad == {}
