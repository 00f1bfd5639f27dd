"""Every notebook has the shared form (see tools/README.md for the rules).

The first half checks the real notebooks; the second half feeds the checks
broken notebooks, so that a check that could never fail would be caught.
"""

import copy
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from tools import common, execute, form, nav

NOTEBOOKS = common.notebook_paths()
IDS = [p.name for p in NOTEBOOKS]


@pytest.fixture(scope="module")
def series():
    return nav._series()


@pytest.fixture(scope="module")
def notebooks():
    return {p.name: common.read(p) for p in NOTEBOOKS}


def test_the_series_has_its_contents_notebook():
    assert common.CONTENTS in IDS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
class TestEveryNotebook:
    def test_setup_cell_is_the_canonical_one(self, path, notebooks):
        assert form.setup_problems(notebooks[path.name]) == []

    def test_stores_the_language_info_the_kernel_fills_in(self, path, notebooks):
        # JupyterLab marks a notebook modified when the kernel's language_info
        # differs from the stored one (issue 39): store all of it, version too
        info = notebooks[path.name].metadata["language_info"]
        version = info.get("version", "")
        assert re.fullmatch(r"3\.\d+\.\d+\S*", version), info
        assert dict(info) == execute.language_info(version)

    def test_navigation_is_fresh(self, path, notebooks, series):
        names, titles = series
        assert form.nav_problems(path, notebooks[path.name], names, titles) == []

    def test_links_point_to_existing_files(self, path, notebooks):
        assert form.link_problems(path, notebooks[path.name]) == []

    def test_no_error_outputs_and_no_figure_texts(self, path, notebooks):
        assert form.output_problems(notebooks[path.name]) == []

    def test_ignore_output_only_on_widget_or_timing_cells(self, path, notebooks):
        assert form.ignore_tag_problems(notebooks[path.name]) == []

    def test_is_committed_executed(self, path, notebooks):
        assert form.execution_problems(notebooks[path.name]) == []

    def test_has_a_title(self, path, notebooks):
        assert common.title_of(notebooks[path.name]), "no '# ' heading"


def test_readme_lesson_table_and_badges_are_fresh(series):
    assert form.readme_problems(*series) == []


def test_repo_slug_is_written_in_one_place_only():
    root = common.ROOT
    holders = [
        str(p.relative_to(root))
        for folder in ("helpers", "tests", "tools")
        for p in sorted((root / folder).rglob("*.py"))
        if common.REPO_SLUG in p.read_text(encoding="utf-8")
    ]
    assert holders == ["tools/common.py"]


# --- the checks themselves can fail -----------------------------------------


def toy_notebook(name="05_values_and_update.ipynb"):
    """A small notebook in the shared form, as `sync` and `run` would leave it."""
    names = [common.CONTENTS, name, "06_masking.ipynb"]
    titles = {n: n for n in names}
    setup = new_code_cell(common.SETUP_CELL,
                          metadata={"tags": ["setup"], **common.SETUP_METADATA},
                          execution_count=1)
    plot = new_code_cell("fig = plot();", execution_count=2, outputs=[
        new_output("display_data", data={"image/png": "iVBOR",
                                         "text/plain": "<figure: Values>"})])
    nb = new_notebook(cells=[
        new_markdown_cell("# 05 · Values"),
        new_markdown_cell(nav.nav_markdown(name, names, titles),
                          metadata={"tags": ["nav-top"]}),
        setup,
        plot,
        new_markdown_cell(nav.nav_markdown(name, names, titles, bottom=True),
                          metadata={"tags": ["nav-bottom"]}),
    ])
    return nb, names, titles


def test_toy_notebook_passes_every_check():
    nb, names, titles = toy_notebook()
    assert form.setup_problems(nb) == []
    assert form.nav_problems("05_values_and_update.ipynb", nb, names, titles) == []
    assert form.output_problems(nb) == []
    assert form.ignore_tag_problems(nb) == []
    assert form.execution_problems(nb) == []


def test_an_edited_setup_cell_is_reported():
    nb, _, _ = toy_notebook()
    nb.cells[2].source += "\nimport os"
    assert form.setup_problems(nb)
    nb, _, _ = toy_notebook()
    del nb.cells[2].metadata["jupyter"]  # shown in full: reported
    assert "collapsed" in form.setup_problems(nb)[0]
    nb, _, _ = toy_notebook()
    nb.cells[2].metadata["tags"] = []
    assert form.setup_problems(nb)


def test_stale_navigation_is_reported():
    nb, names, titles = toy_notebook()
    names = names + ["07_multi_head.ipynb"]  # a lesson was added
    titles = {**titles, "06_masking.ipynb": "06 · Renamed", "07_multi_head.ipynb": "7"}
    problems = form.nav_problems("05_values_and_update.ipynb", nb, names, titles)
    assert any("stale" in p for p in problems)


def test_missing_navigation_is_reported():
    nb, names, titles = toy_notebook()
    del nb.cells[-1]
    assert form.nav_problems("05_values_and_update.ipynb", nb, names, titles)


def test_link_to_a_missing_notebook_is_reported(tmp_path):
    nb, _, _ = toy_notebook()
    for name in (common.CONTENTS, "06_masking.ipynb"):
        (tmp_path / name).write_text("{}")
    nb.cells.append(new_markdown_cell(
        "See [lesson 6](06_masking.ipynb#top), [lesson 9](09_nowhere.ipynb) and "
        "[the web](https://example.org/x.ipynb)."))
    problems = form.link_problems(tmp_path / "05_values_and_update.ipynb", nb)
    assert len(problems) == 1 and "09_nowhere.ipynb" in problems[0]


def test_error_output_and_figure_text_are_reported():
    nb, _, _ = toy_notebook()
    nb.cells[3].outputs.append(new_output("error", ename="ValueError",
                                          evalue="bad", traceback=[]))
    nb.cells[3].outputs.append(new_output(
        "execute_result", data={"text/plain": "<Figure size 640x480 with 1 Axes>"},
        execution_count=2))
    problems = form.output_problems(nb)
    assert len(problems) == 2


def test_ignore_output_tag_on_an_ordinary_cell_is_reported():
    nb, _, _ = toy_notebook()
    nb.cells[3].metadata["tags"] = ["nbval-ignore-output"]
    assert form.ignore_tag_problems(nb)


@pytest.mark.parametrize("cell", [
    new_code_cell("%timeit softmax(x)"),
    new_code_cell("t0 = time.perf_counter()\nrun()"),
    new_code_cell("explorer", outputs=[new_output(
        "display_data", data={common.WIDGET_MIME: {"model_id": "abc"},
                              "text/plain": "VBox()"})]),
    new_code_cell("sense_explorer()", outputs=[new_output(
        "display_data", data={"text/plain": "<sense_explorer: 11 tokens>",
                              "image/png": "iVBOR"},
        metadata={"nbtools": {"widget_view": True}})]),
    new_code_cell("ipywidgets.IntSlider()", outputs=[new_output(
        "execute_result", data={"text/plain": "IntSlider(value=0)"},
        execution_count=1)]),
])
def test_ignore_output_tag_is_allowed_on_widget_and_timing_cells(cell):
    assert form.may_ignore_output(cell)


@pytest.mark.parametrize("text", ["<matplotlib.lines.Line2D at 0x7f>",
                                  "array([1, 2])", "<Figure size 640x480>",
                                  "<sense_explorer: 11 tokens>"])
def test_ignore_output_tag_is_refused_on_other_outputs(text):
    cell = new_code_cell("x", outputs=[new_output(
        "execute_result", data={"text/plain": text}, execution_count=1)])
    assert not form.may_ignore_output(cell)


def test_an_unexecuted_cell_is_reported():
    nb, _, _ = toy_notebook()
    nb.cells[3].execution_count = None
    assert form.execution_problems(nb)


def test_normalise_drops_widget_ids_and_is_idempotent():
    nb, _, _ = toy_notebook()
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {}}
    nb.cells[3].execution_count = 7
    nb.cells[3].metadata["execution"] = {"iopub.status.busy": "2026-01-01"}
    nb.cells[3].outputs = [
        new_output("stream", name="stdout", text="a\n"),
        new_output("stream", name="stdout", text="b\n"),
        new_output("display_data", data={
            common.WIDGET_MIME: {"model_id": "model-id-to-drop", "version_major": 2},
            "image/png": "iVBOR", "text/plain": "Explorer()"}),
    ]
    execute.normalise(nb)
    once = nbformat.writes(nb)
    execute.normalise(nb)
    assert nbformat.writes(nb) == once
    assert "widgets" not in nb.metadata and "model-id-to-drop" not in once
    cell = nb.cells[3]
    assert cell.execution_count == 2 and "execution" not in cell.metadata
    assert [o.output_type for o in cell.outputs] == ["stream", "display_data"]
    assert cell.outputs[0].text == "a\nb\n"
    assert set(cell.outputs[1].data) == {"image/png", "text/plain"}
    assert form.may_ignore_output(cell)


def test_timing_cells_keep_their_stored_outputs():
    old = new_notebook(cells=[new_code_cell("%timeit f()", outputs=[
        new_output("stream", name="stdout", text="1 ms per loop\n")])])
    new = copy.deepcopy(old)
    new.cells[0].outputs[0].text = "2 ms per loop\n"
    execute.keep_timing_outputs(old, new)
    assert new.cells[0].outputs[0].text == "1 ms per loop\n"


def test_sync_is_idempotent_and_repairs(tmp_path):
    source = common.NOTEBOOKS_DIR / common.CONTENTS
    if not source.exists():
        pytest.skip("no contents notebook")
    path = tmp_path / common.CONTENTS
    nb = common.read(source)
    nb.cells = [c for c in nb.cells
                if not {"setup", "nav-top"} & set(common.cell_tags(c))]
    common.write(nb, path)
    names, titles = nav._series()
    assert nav.sync_notebook(path, names, titles) is True
    fixed = common.read(path)
    assert form.setup_problems(fixed) == []
    assert form.nav_problems(path, fixed, names, titles) == []
    before = path.read_bytes()
    assert nav.sync_notebook(path, names, titles) is False
    assert path.read_bytes() == before


def test_setup_cell_makes_helpers_importable_without_install(tmp_path):
    """The kernel's cwd is notebooks/: the setup code finds the repository root.

    ``python -S`` skips site-packages' .pth files (an editable install of
    helpers), then site-packages itself is put back on the path by hand.
    """
    import sysconfig

    code = (
        "import sys\n"
        f"sys.path.append({sysconfig.get_paths()['purelib']!r})\n"
        f"sys.path.append({sysconfig.get_paths()['platlib']!r})\n"
        "try:\n    import helpers\nexcept ImportError:\n    pass\n"
        "else:\n    sys.exit('helpers importable before the setup cell')\n"
        f"exec({common.SETUP_CELL!r})\n"
        "import helpers, numpy\n"
        "print(helpers.__file__, numpy.get_printoptions()['precision'])\n"
    )
    result = subprocess.run(
        [sys.executable, "-S", "-c", code], cwd=common.NOTEBOOKS_DIR,
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr + result.stdout
    where, precision = result.stdout.split()
    assert Path(where).parent == common.ROOT / "helpers"
    assert precision == "3"


def test_setup_cell_is_silent_outside_colab():
    result = subprocess.run(
        [sys.executable, "-c", common.SETUP_CELL], cwd=common.NOTEBOOKS_DIR,
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0 and result.stdout == "", result.stderr


def test_setup_cell_is_short_and_a_colab_form():
    lines = common.SETUP_CELL.splitlines()
    assert len(lines) <= 15
    # Colab's form title, which reads as a plain comment in JupyterLab (the
    # first line of a collapsed cell): no raw { display-mode: ... } option
    assert lines[0].startswith("# @title ") and "{" not in lines[0]
    assert common.SETUP_METADATA["jupyter"] == {"source_hidden": True}


def test_setup_cell_in_colab_fetches_installs_then_imports(tmp_path):
    """A simulated Colab: ``google.colab`` is importable, git and pip are
    recorded instead of run (the "clone" copies this repository), and the
    project home is under tmp_path instead of /content."""
    home = tmp_path / "content" / "project"
    fake = tmp_path / "fake"
    (fake / "google").mkdir(parents=True)
    (fake / "google" / "__init__.py").write_text("")
    (fake / "google" / "colab.py").write_text("")
    cell = common.SETUP_CELL.replace(
        'HOME = "/content/" + REPO.split("/")[1]', f"HOME = {str(home)!r}")
    assert cell != common.SETUP_CELL
    code = (
        "import os, shutil, subprocess, sys\n"
        f"sys.path.insert(0, {str(fake)!r})\n"
        "import google.colab\n"
        "calls = []\n"
        "class Done:\n    returncode = 0\n"
        "def run(cmd, **kw):\n"
        "    calls.append(cmd[:2] if cmd[0] == 'git' else cmd[1:4])\n"
        "    if cmd[0] == 'git':\n"
        f"        src = {str(common.ROOT / 'helpers')!r}\n"
        "        shutil.copytree(src, cmd[-1] + '/helpers')\n"
        "        os.makedirs(cmd[-1] + '/notebooks')\n"
        "    return Done()\n"
        "subprocess.run = run\n"
        f"exec({cell!r})\n"
        "print(calls)\n"
        "import helpers\n"
        "print(helpers.__file__)\n"
        "print(os.getcwd())\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr + result.stdout
    calls, where, cwd = result.stdout.splitlines()
    assert calls == "[['git', 'clone'], ['-m', 'pip', 'install']]"
    assert Path(where).parent == home / "helpers"
    assert Path(cwd) == home / "notebooks"


@pytest.mark.parametrize("path", NOTEBOOKS + common.app_paths(),
                         ids=IDS + [p.name for p in common.app_paths()])
def test_no_notebook_fetches_an_image_from_outside(path):
    """Opened offline or projected, a notebook loads no remote image (the
    navigation has plain Colab/Binder links; the README keeps the badges)."""
    import re

    nb = common.read(path)
    remote = [m.group(0) for cell in nb.cells if cell.cell_type == "markdown"
              for m in re.finditer(r"!\[[^\]]*\]\(\s*https?:[^)]*\)|<img[^>]+"
                                   r"src=[\"']https?:", common.source_of(cell))]
    assert remote == []
