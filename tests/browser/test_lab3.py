"""The explorers in ipywidgets 7.7's own front end (issue 51, parts 7 and 8).

Colab runs ipywidgets 7.7 with a front end of its own, which no test here
can start. The closest is JupyterLab 3.6 with ipywidgets 7.7's widget
manager and anywidget 0.9's JupyterLab 3 extension: the environment
``.venv-lab3`` made by ``make test-lab3`` (tests/compat/lab3.mk). This test
runs only when ``ATTN_LAB_PYTHON`` names that environment's Python (the
server and its kernel run there; pytest and Playwright run here), and then
checks, in a real Chromium, for the explorers of :data:`LESSONS`:

- the kernel runs ipywidgets 7 and the page is JupyterLab 3 (else the test
  proves nothing and says so);
- Run All gives no error, and each explorer's picture (and its text
  alternative) changes when its input changes;
- everything test_pointer.py checks in JupyterLab 4: a hover read-out equal
  to the explorer's own number, a row read by the keys (summing to 1 for an
  attention row), a pick with Enter, cleared with Escape, no key reaching
  JupyterLab, and the Guess first mode (a wrong and a right guess, the
  score);
- every control named, with a visible focus, its keys kept in the explorer
  (a11y.py), HTML typed into a sentence box shown as text;
- an explorer drawn for the screen (``fit_screen(0, draw_for_screen=True)``,
  what projection mode does) measures the room JupyterLab 3's notebook area
  gives it (no ``.jp-WindowedPanel-outer`` there) and fills it without
  overflowing it;
- no uncaught JavaScript error from the explorers' front-end code.
"""

import os
import re

import nbformat
import pytest
from a11y import keyboard_problems, name_problems
from test_explorers import fit_of, size_line
from test_browser import CHANGE_TIMEOUT, JS_PICTURE, check_escaping, check_explorer, \
    notebook_open, rendered_explorers, run_all, wait_for
from test_pointer import DUMP, GUESS_LESSONS, check_guess, check_one, read_dump

from helpers.widgets import EXPLORERS
from tools.common import SETUP_CELL

pytestmark = pytest.mark.browser

NAME = "ipywidgets7.ipynb"
#: Lesson 04's pattern (one grid, a guess), lesson 07's heads (a grid per
#: head, Page Down between them) and lesson 11's GPT (the small model in
#: data/gpt, a guess).
LESSONS = (4, 7, 11)
ROWS = [(i, row) for i, row in enumerate(EXPLORERS)
        if row.lesson in LESSONS and row.title != "Parameters"]
VERSIONS = "ATTN-VERSIONS "

#: The front end's JupyterLab version, and which widget manager drew.
JS_FRONT = """() => ({lab: window.jupyterapp ? window.jupyterapp.version : null,
  widgets7: !!document.querySelector('.jupyter-widgets.widget-box, .widget-vbox'),
  windowed: !!document.querySelector('.jp-WindowedPanel-outer')})"""


def lab3_notebook():
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                 "display_name": "Python 3 (ipykernel)"}
    cells = [nbformat.v4.new_code_cell(SETUP_CELL),
             nbformat.v4.new_code_cell(
                 "import sys, ipywidgets, anywidget\n"
                 "from helpers import widgets\nEXS = []\n"
                 f"print({VERSIONS!r} + ' '.join([ipywidgets.__version__, "
                 "anywidget.__version__, sys.prefix]))")]
    for i, row in ROWS:
        cells.append(nbformat.v4.new_code_cell(
            f"# Lesson {row.lesson:02d}: {row.title}\n"
            f"EXS.append(widgets.EXPLORERS[{i}].factory())\nEXS[-1]"))
    cells.append(nbformat.v4.new_code_cell(DUMP))
    first = ROWS[0][0]
    cells.append(nbformat.v4.new_code_cell(
        "# drawn for the screen, as projection mode draws\n"
        f"PROJ = widgets.EXPLORERS[{first}].factory()\n"
        "PROJ.fit_screen(0, draw_for_screen=True)\nPROJ"))
    nb.cells = cells
    return nb


def versions(page):
    out = page.locator(".jp-OutputArea-output", has_text=VERSIONS).last
    text = out.inner_text()
    widgets, anyw, prefix = text[text.index(VERSIONS) + len(VERSIONS):].split()[:3]
    return widgets, anyw, prefix


def test_explorers_in_ipywidgets7(lab_server, lab_page, screenshot_dir):
    if not os.environ.get("ATTN_LAB_PYTHON"):
        pytest.skip("JupyterLab 3 + ipywidgets 7.7 only: make test-lab3 "
                    "(ATTN_LAB_PYTHON names its Python)")
    nbformat.write(lab3_notebook(), str(lab_server.root / "notebooks" / NAME))
    shot = screenshot_dir / "lab3"
    with notebook_open(lab_server, lab_page, f"notebooks/{NAME}", shot) as page:
        run_all(page, NAME)
        front = page.evaluate(JS_FRONT)
        widgets_v, anywidget_v, prefix = versions(page)
        print(f"front end: JupyterLab {front['lab']}, kernel: ipywidgets "
              f"{widgets_v}, anywidget {anywidget_v} ({prefix})")
        assert re.match(r"3\.", front["lab"] or ""), f"not JupyterLab 3: {front}"
        assert widgets_v.startswith("7."), f"the kernel runs ipywidgets {widgets_v}"
        explorers = rendered_explorers(page)
        assert explorers.count() == len(ROWS) + 1, (
            f"{explorers.count()} explorers drawn, {len(ROWS) + 1} made")
        wait_for(lambda: all(explorers.nth(k).evaluate(JS_PICTURE)["loaded"]
                             for k in range(explorers.count())), CHANGE_TIMEOUT)
        dump = read_dump(page)
        problems, latencies = [], []
        for k, (_, row) in enumerate(ROWS):
            el = explorers.nth(k)
            name = f"{row.lesson:02d} {row.title}"
            check_one(page, el, row, dump[k], problems, latencies)
            if row.lesson in GUESS_LESSONS:
                check_guess(page, el, row, dump[k], problems)
            problems += name_problems(el, name)
            found, presses = keyboard_problems(page, el, name, pause=0.05)
            problems += found
            print(f"  {name}: {presses} keys pressed on its controls, "
                  f"{len(found)} escaped or failed")
        page.screenshot(path=f"{shot}-pointer.png")
        for k, (_, row) in enumerate(ROWS):
            name = f"{row.lesson:02d} {row.title}"
            action, failure = check_explorer(page, explorers.nth(k),
                                             f"{shot}-explorer{k}")
            print(f"  {name}: {action}")
            if failure:
                problems.append(f"{name}: {failure}")
            xss = check_escaping(page, explorers.nth(k))
            if xss:
                problems.append(f"{name}: {xss}")
        # -- drawn for the screen: the room measured in JupyterLab 3
        proj = explorers.nth(len(ROWS))
        proj.evaluate("el => el.scrollIntoView({block: 'start'})")
        wait_for(lambda: fit_of(proj)["height"] > 0.6 * fit_of(proj)["area"],
                 CHANGE_TIMEOUT)
        fit = fit_of(proj)
        print("drawn for the screen:", size_line("04 for the screen", fit))
        if not 0.6 * fit["area"] <= fit["height"] <= fit["area"] + 0.5:
            problems.append(f"drawn for the screen: {fit['height']:.0f} px tall in a "
                            f"notebook area of {fit['area']:.0f} px (want 60-100%)")
        if latencies:
            latencies.sort()
            print(f"pointer move to read-out (next frame), {len(latencies)} moves: "
                  f"median {latencies[len(latencies) // 2]:.1f} ms, max "
                  f"{latencies[-1]:.1f} ms (a shared machine: printed, not asserted)")
        problems += page.evaluate("window.__attnKernelErrors")
        if lab_page.errors:
            print("uncaught JavaScript errors:", *lab_page.errors, sep="\n  ")
        problems += [f"JavaScript: {e}" for e in lab_page.errors
                     if any(w in e for w in ("attn", "anywidget", "pointer"))]
        assert not problems, "\n".join(problems)
