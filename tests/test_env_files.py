"""The environment files agree with each other and with what the code imports."""

import ast
import os
import re
import sys
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent

# conda-forge package name -> the pip name of the same thing
CONDA_TO_PIP = {"matplotlib-base": "matplotlib"}
# Not packages the notebooks use, but the environment itself.
CONDA_INFRA = {"python", "pip"}
# What Google Colab ships (late 2025); installing our ranges must keep them.
COLAB = {"numpy": "2.0.2", "matplotlib": "3.10.0", "ipywidgets": "7.7.1",
         # lesson 10's packages (preinstalled with Colab's transformers; versions
         # of late 2025 as far as known)
         "safetensors": "0.6.2", "tokenizers": "0.22.1", "huggingface_hub": "0.36.0"}


def requirements_txt() -> dict[str, SpecifierSet]:
    reqs = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            req = Requirement(line)
            reqs[req.name.lower()] = req.specifier
    return reqs


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def pyproject_deps() -> dict[str, SpecifierSet]:
    reqs = [Requirement(r) for r in pyproject()["project"]["dependencies"]]
    return {r.name.lower(): r.specifier for r in reqs}


def environment_yml() -> dict:
    return yaml.safe_load((ROOT / "environment.yml").read_text())


def conda_deps() -> dict[str, SpecifierSet]:
    deps = {}
    for item in environment_yml()["dependencies"]:
        if not isinstance(item, str):
            continue  # a nested `pip:` list
        name, spec = re.match(r"([A-Za-z0-9_.-]+)\s*(.*)", item).groups()
        if name in CONDA_INFRA:
            continue
        deps[CONDA_TO_PIP.get(name, name).lower()] = SpecifierSet(spec)
    return deps


def test_requirements_and_environment_name_the_same_packages():
    assert set(requirements_txt()) == set(conda_deps())


def test_requirements_and_environment_use_the_same_ranges():
    assert requirements_txt() == conda_deps()


def test_requirements_match_pyproject_dependencies():
    assert requirements_txt() == pyproject_deps()


def test_ranges_are_ranges_not_pins():
    for name, spec in requirements_txt().items():
        assert any(s.operator == ">=" for s in spec), f"{name}: no lower bound"
        assert any(s.operator == "<" for s in spec), f"{name}: no upper bound"
        assert not any(s.operator in ("==", "===") for s in spec), f"{name} pinned"


@pytest.mark.parametrize("name, version", sorted(COLAB.items()))
def test_colab_versions_are_accepted(name, version):
    """pip keeps Colab's own copy when it already satisfies our range."""
    assert Version(version) in requirements_txt()[name]


def test_environment_is_conda_forge_with_a_supported_python():
    env = environment_yml()
    assert env["channels"] == ["conda-forge"]
    pythons = [d for d in env["dependencies"] if isinstance(d, str)
               and d.startswith("python")]
    assert len(pythons) == 1
    # repo2docker understands an explicit version (python=3.X), not a range.
    version = pythons[0].removeprefix("python=")
    assert Version(version) >= Version("3.10")


def test_environment_does_not_pip_install_the_repository():
    """repo2docker installs environment.yml before copying the repository."""
    for item in environment_yml()["dependencies"]:
        if isinstance(item, dict):
            for entry in item.get("pip", []):
                assert not entry.startswith(("-e", ".")), entry


def test_python_requirement_is_310():
    assert pyproject()["project"]["requires-python"] == ">=3.10"


def _third_party_imports(folder: Path) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top and top not in sys.stdlib_module_names and top != "helpers":
                    found.setdefault(top, set()).add(path.name)
    return found


def test_helpers_import_only_declared_packages():
    declared = {n.replace("-", "_") for n in pyproject_deps()}
    # Installed with the declared ones: matplotlib needs Pillow (PIL),
    # ipywidgets needs IPython; ipykernel, which every notebook runs in,
    # brings matplotlib_inline.
    declared |= {"PIL", "IPython", "matplotlib_inline"}
    for module, files in _third_party_imports(ROOT / "helpers").items():
        allowed = declared
        assert module in allowed, f"{sorted(files)} import undeclared {module!r}"


def test_makefile_reinstalls_only_when_dependency_files_change():
    text = (ROOT / "Makefile").read_text()
    assert "$(STAMP): pyproject.toml requirements.txt" in text
    assert "test: $(STAMP)" in text and "lab: $(STAMP)" in text


def test_ci_script_is_strict_and_runs_make_test():
    path = ROOT / ".ci" / "run"
    text = path.read_text()
    assert text.startswith("#!/usr/bin/env bash")
    assert "set -euo pipefail" in text
    # make test (the README's) runs whatever the parts before it gave, and the
    # run fails when any part failed: every part's status is kept
    lines = [ln.strip() for ln in text.splitlines()
             if ln.strip() and not ln.lstrip().startswith("#")]
    assert "make test || status=$?" in lines
    assert lines[-1] == 'exit "$status"' and "status=0" in lines
    runs = [ln for ln in lines if ln.startswith("make ")]
    assert all(ln.endswith("|| status=$?") for ln in runs), runs
    assert os.access(path, os.X_OK)
