"""Point at any number in the playground at 720p (issue 51): Voila on a
projector's 1280 x 720 screen, every page whose picture has a grid.

For each such page the test hovers the grid's first and last cells and
checks that a read-out appears, ends in a number (or "masked"/"−∞"), differs
between the two, and lies wholly inside the window (a short screen: the
picture fills it, so a read-out under the last row would be cut off); then
it reads the first row with the keys (Ctrl+Home, Home, the arrows), checks
that an attention row sums to 1 within 0.02, picks it with Enter and clears
it with Escape. The numbers themselves are checked against the explorers'
in JupyterLab (test_pointer.py); here the screen is what is new.
"""

import time

import pytest
from test_browser import CHANGE_TIMEOUT, picture_state, wait_for
from test_playground import SCREENS, choose_page, settled, voila_url  # noqa: F401
from test_pointer import ATTENTION_ROWS, number_of

from helpers.widgets import EXPLORERS

pytestmark = pytest.mark.browser

#: ``el => [{rows, cols, box}]``: the explorer's grids (``role=grid`` of a
#: heat map, not a bar chart) and their boxes in the window.
JS_GRIDS = """(el) => [...el.querySelectorAll('[role=grid]')]
  .filter((g) => /grid of/.test(g.getAttribute('aria-label') || ''))
  .map((g) => { const r = g.getBoundingClientRect();
    return {rows: +g.getAttribute('aria-rowcount'),
            cols: +g.getAttribute('aria-colcount'),
            box: [r.left, r.top, r.right, r.bottom]}; })"""

#: ``el => {text, box}``: the read-out shown now ('' when hidden).
JS_TIP = """(el) => { const t = el.querySelector('[role=tooltip]');
  if (!t || t.style.display === 'none') return {text: '', box: null};
  const r = t.getBoundingClientRect();
  return {text: t.textContent, box: [r.left, r.top, r.right, r.bottom]}; }"""

#: ``el => name``: the cell the focused grid names.
JS_CELL = """(el) => { const g = document.activeElement;
  if (!g || g.getAttribute('role') !== 'grid' || !el.contains(g)) return null;
  const c = document.getElementById(g.getAttribute('aria-activedescendant'));
  return c ? c.textContent : ''; }"""


def tip_problems(name, tip, size):
    out = []
    if not tip["text"]:
        return [f"{name}: no read-out"]
    x0, y0, x1, y1 = tip["box"]
    w, h = size["width"], size["height"]
    if x0 < -0.5 or y0 < -0.5 or x1 > w + 0.5 or y1 > h + 0.5:
        out.append(f"{name}: read-out '{tip['text']}' at "
                   f"{[round(v) for v in tip['box']]}, outside the {w} x {h} window")
    return out


def test_pointer_in_playground_at_720p(voila_url, browser, screenshot_dir):  # noqa: F811
    size = SCREENS["720p"]
    context = browser.new_context(viewport=size)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    problems, checked = [], 0
    try:
        page.goto(voila_url, timeout=120_000)
        page.locator(".attn-playground .attn-menu select").first.wait_for(
            timeout=120_000)
        for i, row in enumerate(EXPLORERS):
            name = f"720p {row.tab}"
            explorer = choose_page(page, i)
            picture = explorer.locator(".attn-picture").first
            wait_for(lambda: picture_state(picture)["loaded"], CHANGE_TIMEOUT)
            settled(picture)
            page.evaluate("window.scrollTo(0, 0)")
            time.sleep(0.3)
            grids = explorer.evaluate(JS_GRIDS)
            if not grids:
                continue
            checked += 1
            g = grids[0]
            n, m = g["rows"], g["cols"]
            x0, y0, x1, y1 = g["box"]
            texts = []
            for r, c in ((0, 0), (n - 1, m - 1)):
                page.mouse.move(x0 + (c + 0.5) * (x1 - x0) / m,
                                y0 + (r + 0.5) * (y1 - y0) / n)
                time.sleep(0.15)
                tip = explorer.evaluate(JS_TIP)
                texts.append(tip["text"])
                problems += tip_problems(f"{name} cell ({r}, {c})", tip, size)
            if texts[0] and texts[0] == texts[1]:
                problems.append(f"{name}: first and last cells read the same: "
                                f"{texts[0]!r}")
            page.mouse.move(2, 2)
            # the heat map's grid (a bar chart before it is a grid too: lesson 02)
            explorer.locator('[role=grid][aria-label*="grid of"]').first.focus()
            page.keyboard.press("Control+Home")
            page.keyboard.press("Home")
            names = [explorer.evaluate(JS_CELL)]
            for _ in range(m - 1):
                page.keyboard.press("ArrowRight")
                names.append(explorer.evaluate(JS_CELL))
            problems += tip_problems(f"{name} by keys, last cell of row 0",
                                     explorer.evaluate(JS_TIP), size)
            values = [number_of(t or "") for t in names]
            if row.lesson in ATTENTION_ROWS and row.title != "Picture":
                total = sum(v for v in values if v is not None)
                print(f"  {name}: row 0 by keys sums to {total:.4f}; {texts[1]}")
                if abs(total - 1.0) > 0.02:
                    problems.append(f"{name}: row 0 read by keys sums to {total:.3f}")
            message = explorer.locator(".attn-message").first
            page.keyboard.press("Enter")
            if not wait_for(lambda: "Picked '" in message.inner_text(),
                            CHANGE_TIMEOUT):
                problems.append(f"{name}: Enter picked nothing")
            page.keyboard.press("Escape")
            if not wait_for(lambda: "Picked '" not in message.inner_text(),
                            CHANGE_TIMEOUT):
                problems.append(f"{name}: Escape did not clear the pick")
            page.keyboard.press("Escape")
            shot = screenshot_dir / f"playground-720p-pointer-{i:02d}.png"
            page.screenshot(path=str(shot))
        print(f"playground at 720p: {checked} pages with a grid pointed at")
        assert checked, "no page of the playground has a grid"
        assert not problems, "\n".join(problems)
        assert not errors, errors
    finally:
        context.close()
