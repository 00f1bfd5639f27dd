"""Every explorer of the one table (``helpers.widgets.EXPLORERS``), in one
notebook opened in JupyterLab in a real Chromium: Run All, no error, every
explorer's picture changes when its input changes, and HTML typed into any
sentence box is shown as text, never run.

This is the browser part of ``make test``. The lessons' own kernel work is
nbval's (it executes every lesson and compares the stored outputs); here the
front end is tested: the widgets as JupyterLab draws them, driven like a
learner drives them, all in one kernel. ``make test-browser`` also runs every
lesson's Run All in the browser (test_browser.py), as before.
"""

import nbformat
import pytest
from test_browser import check_escaping, drive_explorers, notebook_open, run_all

from helpers.widgets import EXPLORERS
from tools.common import SETUP_CELL

pytestmark = pytest.mark.browser

NAME = "every_explorer.ipynb"


def explorers_notebook():
    """The lessons' setup cell, then one cell per row of EXPLORERS."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    cells = [nbformat.v4.new_markdown_cell("# Every explorer (browser test)"),
             nbformat.v4.new_code_cell(SETUP_CELL),
             nbformat.v4.new_code_cell("from helpers import widgets")]
    for i, row in enumerate(EXPLORERS):
        source = (f"# Lesson {row.lesson:02d}: {row.title}\n"
                  f"widgets.EXPLORERS[{i}].factory()")
        cells.append(nbformat.v4.new_code_cell(source))
    nb.cells = cells
    return nb


def test_every_explorer_in_jupyterlab(lab_server, lab_page, screenshot_dir):
    nbformat.write(explorers_notebook(), str(lab_server.root / "notebooks" / NAME))
    shot = screenshot_dir / "every-explorer"
    with notebook_open(lab_server, lab_page, f"notebooks/{NAME}", shot) as page:
        run_all(page, NAME)
        explorers, driven = drive_explorers(page, NAME, shot)
        assert explorers.count() == len(EXPLORERS), (
            f"{explorers.count()} explorers on the page, {len(EXPLORERS)} in the table")
        names = [row.name for row in EXPLORERS]
        idle = [names[i] for i in range(len(names)) if i not in driven]
        assert not idle, f"explorers with no input that changes the picture: {idle}"
        typed = 0
        for i, name in enumerate(names):
            box = explorers.nth(i).locator(
                ".attn-sentence input, input.attn-sentence, "
                ".attn-sentence textarea, textarea.attn-sentence").first
            if box.count():
                typed += 1
                problem = check_escaping(page, explorers.nth(i))
                assert problem is None, f"{name}: {problem}"
        assert typed >= len(names) // 2, f"only {typed} explorers have a sentence box"
        kernel_errors = page.evaluate("window.__attnKernelErrors")
        assert not kernel_errors, f"errors in widget callbacks: {kernel_errors}"
        page.screenshot(path=f"{shot}-end.png")
