"""Every lesson as stored, opened in JupyterLab in a real Chromium (not run:
its outputs, text alternatives included, are stored with it): every output
image has a real text alternative, and axe-core finds no serious or critical
violation inside the output areas (issue 43). Per-lesson counts are printed.

The explorers live (alt text that follows the input, the keyboard, axe over
live widgets) are tested in test_explorers.py, in the one explorers notebook.
"""

import json
import time

import nbformat
import pytest
from a11y import alt_counts, alt_problems, axe_audit, axe_available, image_alts, \
    serious, violation_counts, violation_lines
from conftest import notebook_paths
from test_browser import JS_CLOSE, JS_OPEN, wait_for

pytestmark = pytest.mark.browser

#: ``(path) => number of output images shown, or -1 while not shown``.
JS_SHOWN = """(path) => {
  const panel = window.jupyterapp.shell.currentWidget;
  if (!panel || !panel.context || panel.context.path !== path
      || !panel.context.isReady || !panel.content) return -1;
  const imgs = panel.node.querySelectorAll('.jp-OutputArea-output img');
  if ([...imgs].some(i => !i.complete)) return -1;
  return imgs.length;
}"""


def stored_images(path):
    """How many images the stored notebook's outputs hold (an output shows
    its text/html ``<img>`` or its image/png, one picture either way)."""
    nb = nbformat.read(str(path), as_version=4)
    n = 0
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            html = data.get("text/html", "")
            html = "".join(html) if isinstance(html, list) else html
            if "<img" in html:
                n += html.count("<img")
            elif any(k.startswith("image/") for k in data):
                n += 1
    return n


def close_and_stop(lab_server, page, path):
    page.evaluate(JS_CLOSE)
    try:
        for s in lab_server.request("GET", "/api/sessions") or []:
            if s.get("path") == path:
                lab_server.request("DELETE", f"/api/sessions/{s['id']}")
    except OSError:
        pass


def audit_lesson(lab_server, lab_page, lesson):
    """Open ``lesson`` as stored; return (images, serious violations, all)."""
    path = f"notebooks/{lesson.name}"
    expected = stored_images(lesson)
    page = lab_page.get()
    page.evaluate(JS_OPEN, path)
    try:
        counts = []

        def steady():
            counts.append(page.evaluate(JS_SHOWN, path))
            last = counts[-3:]
            return (len(last) == 3 and last[0] >= min(expected, 1)
                    and last[0] == last[1] == last[2] and last[0] >= expected)

        wait_for(steady, 60, interval=0.3)
        images = image_alts(page)
        violations = axe_audit(page)
    finally:
        close_and_stop(lab_server, page, path)
    return images, expected, violations


def test_every_lesson_as_stored(lab_server, lab_page):
    if not axe_available():
        pytest.fail("axe-playwright-python is not installed (pip install -e '.[test]')",
                    pytrace=False)
    problems, table, rules = [], [], {}
    started = time.monotonic()
    for lesson in notebook_paths():
        images, expected, violations = audit_lesson(lab_server, lab_page, lesson)
        good, total = alt_counts(images)
        bad = serious(violations)
        counts = violation_counts(violations)
        for rule, n in counts.items():
            rules[rule] = rules.get(rule, 0) + n
        table.append(f"{lesson.stem:32s} images {total:3d} (stored {expected:3d}), "
                     f"with a text alternative {good:3d}; axe serious/critical "
                     f"{sum(len(v['nodes']) for v in bad):3d}, all "
                     f"{json.dumps(counts) if counts else '{}'}")
        if total < expected:
            problems.append(f"{lesson.stem}: {total} images shown, {expected} stored")
        problems += alt_problems(lesson.stem, images)
        problems += violation_lines(lesson.stem, bad)
    print(f"lessons as stored ({time.monotonic() - started:.1f} s):", *table,
          f"axe violations by rule (elements): {json.dumps(rules)}", sep="\n")
    assert not problems, "\n".join(problems)


#: The cells of the projector check: an explorer, its picture's size at the
#: normal sizes printed, then projection mode switched on (it redraws).
PROJECTOR_CELLS = (
    "from helpers import widgets; from helpers.figures import style\n"
    "from helpers.widgets.base import png_size\n"
    "ex = widgets.pattern_explorer()\n"
    "ex.flush()\n"
    "print('normal size', *png_size(ex.picture.value))\n"
    "ex",
    "style.projector()",
)


def test_projection_mode_in_a_lesson_enlarges_the_picture_text(lab_server, lab_page):
    """``style.projector()`` in a lesson, on a projector's 1920 x 1080: the
    explorer's picture, and so its text, is drawn larger than at the normal
    sizes (as large as the notebook area allows), and the explorer still
    fits the notebook area (issue 43)."""
    from conftest import LAPTOP
    from nbformat import v4
    from test_browser import CHANGE_TIMEOUT, JS_PICTURE, notebook_open, \
        rendered_explorers, run_all
    from test_explorers import fit_of
    from tools.common import SETUP_CELL

    nb = v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                 "display_name": "Python 3 (ipykernel)"}
    nb.cells = [v4.new_code_cell(SETUP_CELL)] + [v4.new_code_cell(c)
                                                 for c in PROJECTOR_CELLS]
    name = "projector_check.ipynb"
    nbformat.write(nb, str(lab_server.root / "notebooks" / name))
    page = lab_page.get()
    page.set_viewport_size({"width": 1920, "height": 1080})
    try:
        with notebook_open(lab_server, lab_page, f"notebooks/{name}",
                           lab_server.root / "projector") as page:
            run_all(page, name)
            explorer = rendered_explorers(page).first
            picture = explorer.locator(".attn-picture").first
            normal = page.locator(".jp-OutputArea-output", has_text="normal size")
            w0, h0 = (int(v) for v in normal.first.inner_text().split()[-2:])
            explorer.evaluate("el => el.scrollIntoView({block: 'start'})")
            grown = wait_for(lambda: (lambda f: f if f["shown"] and f["shown"][1]
                                      >= 1.3 * h0 else None)(fit_of(explorer)),
                             CHANGE_TIMEOUT)
            wait_for(lambda: picture.evaluate(JS_PICTURE)["loaded"], CHANGE_TIMEOUT)
            fit = grown or fit_of(explorer)
            print(f"projection mode in a lesson at 1920 x 1080: picture "
                  f"{fit['shown'][0]:.0f} x {fit['shown'][1]:.0f} shown, "
                  f"{fit['shown'][1] / h0:.2f}x its normal {w0} x {h0}; explorer "
                  f"{fit['height']:.0f} px of a {fit['area']:.0f} px notebook area")
            assert grown, (f"the picture is not drawn larger in projection mode: "
                           f"{fit['shown']} shown, {w0} x {h0} normally")
            assert fit["height"] <= fit["area"] + 0.5, fit
    finally:
        page.set_viewport_size(LAPTOP)


#: The cells of the hearing check: lesson 04's explorer, whose temperature
#: slider moves in steps of 0.05 (where a float sum shows its last bits).
HEARING_CELLS = ("from helpers import widgets\nex = widgets.pattern_explorer()\nex",)

JS_HEARD = """(root) => {
  const h = root.querySelector('[role=slider]');
  const box = h ? h.closest('.widget-slider, .jupyter-widget-slider, '
                            + '.widget-hslider') : null;
  const readout = box ? box.querySelector('.widget-readout') : null;
  const say = root.querySelector('.attn-announce');
  return {now: h ? h.getAttribute('aria-valuenow') : null,
          text: h ? h.getAttribute('aria-valuetext') : null,
          readout: readout ? readout.textContent.trim() : null,
          readoutName: readout ? readout.getAttribute('aria-label') : null,
          said: say ? say.textContent : null,
          sayRole: say ? say.getAttribute('role') : null,
          nulls: root.querySelectorAll("[aria-label='null'], [title='null']").length};
}"""


def test_what_a_screen_reader_hears_from_an_explorer(lab_server, lab_page):
    """Issue 51 part 6, in JupyterLab: a slider moved by ArrowRight gives a
    rounded aria-valuetext equal to its read-out (not 1.0500000000000003),
    the read-out is named, nothing is named "null", and the change is
    announced once in the explorer's status region with a number."""
    from nbformat import v4
    from test_browser import CHANGE_TIMEOUT, notebook_open, rendered_explorers, \
        run_all
    from tools.common import SETUP_CELL

    nb = v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                 "display_name": "Python 3 (ipykernel)"}
    nb.cells = [v4.new_code_cell(SETUP_CELL)] + [v4.new_code_cell(c)
                                                 for c in HEARING_CELLS]
    name = "hearing_check.ipynb"
    nbformat.write(nb, str(lab_server.root / "notebooks" / name))
    with notebook_open(lab_server, lab_page, f"notebooks/{name}",
                       lab_server.root / "hearing") as page:
        run_all(page, name)
        explorer = rendered_explorers(page).first
        handle = explorer.locator("[role=slider]").first
        wait_for(lambda: explorer.evaluate(JS_HEARD)["sayRole"], CHANGE_TIMEOUT)
        handle.focus()
        for _ in range(3):  # 1.0 -> 1.15: 1.0 + 3 x 0.05 is not 1.15 in floats
            page.keyboard.press("ArrowRight")
        heard = wait_for(lambda: (lambda h: h if "1.15" in (h["said"] or "")
                                  else None)(explorer.evaluate(JS_HEARD)),
                         CHANGE_TIMEOUT) or explorer.evaluate(JS_HEARD)
        print(f"slider: aria-valuenow {heard['now']}, aria-valuetext "
              f"{heard['text']!r}, read-out {heard['readout']!r}; announced: "
              f"{heard['said']!r}")
        assert heard["text"] == heard["readout"] == heard["now"] == "1.15", heard
        assert len(heard["text"]) <= 6, heard
        assert heard["readoutName"] and heard["readoutName"].endswith(" value")
        assert heard["nulls"] == 0
        assert heard["sayRole"] == "status"
        said = heard["said"]
        assert said.startswith("Temperature: 1.15. "), said


JS_OVERFLOW = """(root) => {
  const out = [];
  for (const el of [root, ...root.querySelectorAll('*')]) {
    const s = getComputedStyle(el);
    if (['auto', 'scroll'].includes(s.overflowX) && el.scrollWidth > el.clientWidth)
      out.push(`${el.className}: ${el.scrollWidth} > ${el.clientWidth}`);
  }
  const area = root.closest('.jp-OutputArea-output');
  if (area && area.scrollWidth > area.clientWidth)
    out.push(`output area: ${area.scrollWidth} > ${area.clientWidth}`);
  return out;
}"""


#: a sentence long enough that lesson 07's picture is wider than the output
#: area at 1366 x 768 (938 px drawn for 934)
WIDE_SENTENCE = ("the old fisherman pulled his boat onto the river bank at dawn "
                 "and the shrew ran")


def test_lesson_07s_explorer_has_no_horizontal_scrollbar(lab_server, lab_page):
    """Issue 51 part 6: lesson 07's picture, wider than the output area and
    scaled down to it, overflowed its box by its margins (a scrollbar)."""
    from nbformat import v4
    from test_browser import CHANGE_TIMEOUT, JS_PICTURE, notebook_open, \
        rendered_explorers, run_all
    from tools.common import SETUP_CELL

    nb = v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                 "display_name": "Python 3 (ipykernel)"}
    nb.cells = [v4.new_code_cell(SETUP_CELL), v4.new_code_cell(
        "from helpers.widgets import lesson07\nlesson07.multi_head_explorer("
        f"{WIDE_SENTENCE!r})")]
    name = "scrollbar_check.ipynb"
    nbformat.write(nb, str(lab_server.root / "notebooks" / name))
    with notebook_open(lab_server, lab_page, f"notebooks/{name}",
                       lab_server.root / "scrollbar") as page:
        run_all(page, name)
        explorer = rendered_explorers(page).first
        picture = explorer.locator(".attn-picture").first
        wait_for(lambda: picture.evaluate(JS_PICTURE)["loaded"], CHANGE_TIMEOUT)
        time.sleep(0.5)
        assert explorer.evaluate(JS_OVERFLOW) == []
