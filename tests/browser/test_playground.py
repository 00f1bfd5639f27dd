"""The playground (notebooks/playground.ipynb) served by Voila, as
``make playground`` serves it, in a real Chromium: every tab shows an
explorer whose picture changes when its input changes, with no error on the
page, and nothing is fetched from outside the machine (requests that try are
refused and listed; the page's template leaves out Voila's Font Awesome CSS).

At 1920 x 1080 and 1280 x 720 (a projector) every page shows its controls
and its whole picture without scrolling, its picture at most 1.15 times its
pixels, its controls' text grown with the pictures, and the menu in one row.
Screenshots go to build/screenshots/playground-*.png.

``ATTN_PLAYGROUND`` names another app notebook to serve instead (selfcheck.py
serves a broken copy to show that this test fails on it); Voila runs in the
folder above it, as in the repository.
"""

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

from pathlib import Path

import pytest
from conftest import REPO, free_port, lab_env
from helpers.widgets import EXPLORERS
from tools.playground import voila_args, voila_env
from test_browser import CHANGE_TIMEOUT, JS_DOM_ERRORS, change_input, changed, \
    picture_state, wait_for
from test_explorers import clipped_controls, fit_of, fit_problems, \
    size_line

pytestmark = pytest.mark.browser

PLAYGROUND = Path(
    os.environ.get("ATTN_PLAYGROUND", REPO / "notebooks" / "playground.ipynb")
)
START_TIMEOUT = 90  # seconds for Voila to answer
RENDER_TIMEOUT = 120  # seconds for the page to show every explorer


@pytest.fixture(scope="module")
def voila_url(chromium_path, tmp_path_factory):
    try:
        import voila  # noqa: F401
    except ImportError:
        pytest.skip("voila is not installed (pip install -e '.[classroom]')")
    tmp = tmp_path_factory.mktemp("voila")
    port = free_port()
    log_path = tmp / "voila.log"
    cmd = [sys.executable, "-m", "voila", *voila_args(port, PLAYGROUND)]
    with open(log_path, "wb") as log:
        env = voila_env(lab_env(tmp))
        proc = subprocess.Popen(cmd, cwd=PLAYGROUND.parent.parent, env=env,
                                stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + START_TIMEOUT
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail("Voila exited:\n" + log_path.read_text(errors="replace"))
            try:  # the page itself executes the notebook: ask for a static file
                urllib.request.urlopen(url + "voila/static/voila.js", timeout=5)
                break
            except urllib.error.HTTPError:
                break  # it answers
            except (urllib.error.URLError, OSError):
                if time.monotonic() > deadline:
                    pytest.fail("Voila did not answer:\n"
                                + log_path.read_text(errors="replace"))
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


#: The projector's screens: each page of the playground shows its controls
#: and its whole picture without scrolling at both (issue 39).
SCREENS = {"1080p": {"width": 1920, "height": 1080},
           "720p": {"width": 1280, "height": 720}}

#: Projection mode draws the controls' text this much larger than
#: ipywidgets' 13 px (the pictures: helpers.figures.style.PROJECTOR.scale).
MIN_CONTROL_PX = 13 * 1.4

#: ``el => [problem, ...]``: text of the controls under ``el`` smaller than
#: ``px`` (text boxes, dropdowns, buttons, labels, slider readouts).
JS_SMALL_TEXT = """([el, px]) => {
  const out = [];
  const sel = 'input[type=text], textarea, select, button, .widget-label, '
              + '.widget-readout';
  for (const c of el.querySelectorAll(sel)) {
    if (!c.getClientRects().length) continue;
    const size = parseFloat(getComputedStyle(c).fontSize);
    const text = (c.value || c.innerText || '').trim().slice(0, 30);
    if (size < px - 0.1) out.push(`${c.tagName.toLowerCase()} "${text}": ${size} px`);
  }
  return out;
}"""


def choose_page(page, i):
    """Show page ``i`` of the playground's menu; wait until it is shown."""
    page.locator(".attn-playground .attn-menu select").first.select_option(index=i)
    explorer = page.locator(".attn-playground .attn-explorer").first
    hint = page.locator(".attn-playground .attn-instruction").first
    wait_for(lambda: " ".join(hint.inner_text().split())
             == EXPLORERS[i].instruction, CHANGE_TIMEOUT)
    explorer.wait_for(state="visible", timeout=CHANGE_TIMEOUT * 1000)
    return explorer


#: The playground draws each picture for its screen (issue 43): at 720p no
#: picture is shown below this share of its own pixels.
MIN_PLAYGROUND_SCALE = 0.85
#: The goal for the seconds from opening the playground to its first page's
#: picture: printed here and by tests/benchmarks/bench_browser.py, never
#: asserted (a busy machine misses it; RENDER_TIMEOUT catches a hang).
FIRST_PAGE_GOAL_S = 10.0


def settled(picture, timeout=6.0):
    """Wait until the picture has stopped changing (a page drawn for the
    screen it is on is drawn again once the front end told its room)."""
    last, same = None, 0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = picture_state(picture)
        if state["loaded"] and last is not None and state["hash"] == last:
            same += 1
            if same >= 2:
                return True
        else:
            same = 0
        last = state["hash"]
        time.sleep(0.25)
    return False


def screen_problems(page, screen, screenshot_dir, scales):
    """Every page at one screen size: the whole explorer in the window with
    the page scrolled to its top, its picture at MIN_SCALE-MAX_SCALE times
    its pixels, the menu in one row, the controls' text large. Screenshots:
    build/screenshots/playground-<screen>-NN.png; the sizes table in
    playground-<screen>-sizes.txt."""
    problems, lines = [], []
    menu_row = page.locator(".attn-playground > .widget-hbox, "
                            ".attn-playground > .jupyter-widgets.widget-hbox").first
    for i, row in enumerate(EXPLORERS):
        explorer = choose_page(page, i)
        picture = explorer.locator(".attn-picture").first
        wait_for(lambda: picture_state(picture)["loaded"], CHANGE_TIMEOUT)
        name = f"{screen} {row.tab}"
        # the front end told the page's room and Python answered that it has
        # drawn for it (helpers/widgets/access.py: data-attn-fit); a busy
        # kernel answers late, never not at all
        if not wait_for(lambda: explorer.get_attribute("data-attn-fit") == "done",
                        CHANGE_TIMEOUT):
            problems.append(f"{name}: not drawn for its room in {CHANGE_TIMEOUT} s "
                            f"(data-attn-fit="
                            f"{explorer.get_attribute('data-attn-fit')!r})")
        settled(picture)
        page.evaluate("window.scrollTo(0, 0); document.querySelectorAll("
                      "'.jp-WindowedPanel-outer, .jp-Notebook, body, html').forEach("
                      "e => e.scrollTop = 0)")
        time.sleep(0.3)
        fit = fit_of(explorer)
        lines.append(size_line(row.tab, fit) + f"   bottom {fit['bottom']:.0f} "
                     f"of {fit['screen']}")
        if fit["bottom"] > fit["screen"] + 0.5:
            problems.append(f"{name}: ends at {fit['bottom']:.0f} px, the window "
                            f"is {fit['screen']} px high")
        # drawn for the screen: shown at (nearly) its own pixels
        problems += [p for p in fit_problems(name, fit, MIN_PLAYGROUND_SCALE)
                     if "tall" not in p]
        room = page.evaluate(JS_ROOM, explorer.element_handle())
        scales.append({"screen": screen, "page": row.tab, "scale": fit["scale"],
                       "room": room})
        problems += [f"{name}: small text: {p}"
                     for p in page.evaluate(JS_SMALL_TEXT,
                                            [explorer.element_handle(),
                                             MIN_CONTROL_PX])]
        if i == 0:
            box = menu_row.bounding_box()
            if box and box["height"] > 2 * MIN_CONTROL_PX * 1.6:
                problems.append(f"{screen}: the menu row is {box['height']:.0f} px "
                                "high (more than one row)")
        page.screenshot(path=str(screenshot_dir / f"playground-{screen}-{i:02d}.png"))
    (screenshot_dir / f"playground-{screen}-sizes.txt").write_text(
        "\n".join(lines) + "\n")
    print(f"playground at {screen}:", *lines, sep="\n")
    return problems


#: ``el => share of the window's room below the explorer's controls that
#: its picture fills`` (the larger of width and height shares).
JS_ROOM = """(el) => {
  const img = el.querySelector('img.attn-picture, .attn-picture img');
  if (!img) return null;
  const r = el.getBoundingClientRect(), p = img.getBoundingClientRect();
  const h = window.innerHeight - r.top - (r.height - p.height);
  return Math.max(p.width / el.clientWidth, p.height / Math.max(h, 1));
}"""


def scale_summary(scales, screen):
    """``min scale, median room used`` of one screen's pages."""
    rows = [s for s in scales if s["screen"] == screen and s["scale"]]
    if not rows:
        return None, None
    used = sorted(s["room"] or 0 for s in rows)
    return min(s["scale"] for s in rows), used[len(used) // 2]


def test_playground_in_voila(voila_url, browser, screenshot_dir):
    context = browser.new_context(viewport=SCREENS["1080p"])
    page = context.new_page()
    outside, page_errors = [], []

    def local_only(route):
        if route.request.url.startswith(("http://127.0.0.1", "data:", "blob:")):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", local_only)
    page.on("pageerror", lambda exc: page_errors.append(str(exc)))
    try:
        opened = time.monotonic()
        page.goto(voila_url, timeout=RENDER_TIMEOUT * 1000)
        menu = page.locator(".attn-playground .attn-menu select").first
        menu.wait_for(timeout=RENDER_TIMEOUT * 1000)
        first = page.locator(".attn-playground .attn-picture").first
        wait_for(lambda: first.count() and picture_state(first)["loaded"],
                 RENDER_TIMEOUT)
        first_page_s = time.monotonic() - opened
        # one page per row of the table of explorers, in its order
        options = menu.evaluate(
            "s => [...s.options].map(o => o.text.replace(/\\s+/g, ' ').trim())")
        assert options == [row.tab for row in EXPLORERS]
        problems = []
        for i in range(len(options)):
            explorer = choose_page(page, i)
            title = EXPLORERS[i].tab
            problems += [f"{title}: {p}" for p in clipped_controls(
                page.locator(".attn-playground").first)]
            picture = explorer.locator(".attn-picture").first
            if not wait_for(lambda: picture_state(picture)["loaded"], CHANGE_TIMEOUT):
                problems.append(f"{title}: no picture")
                continue
            before = picture_state(picture)
            action = change_input(page, explorer)
            if action is None:
                problems.append(f"{title}: no input to change")
                continue
            after = wait_for(lambda: (lambda s: s if changed(before, s) else None)(
                picture_state(picture)), CHANGE_TIMEOUT)
            if after is None:
                problems.append(f"{title}: picture did not change after {action}")
            message = explorer.locator(".attn-message").first.inner_text()
            if "Could not update" in message or "Could not draw" in message:
                problems.append(f"{title}: {message}")
        # the next button steps through the pages
        choose_page(page, 0)
        page.locator(".attn-playground button", has_text="next").first.click()
        if not wait_for(lambda: menu.evaluate("s => s.selectedIndex") == 1,
                        CHANGE_TIMEOUT):
            problems.append("the next button did not show the second page")
        scales = []
        for screen, size in SCREENS.items():
            page.set_viewport_size(size)
            time.sleep(0.5)
            problems += screen_problems(page, screen, screenshot_dir, scales)
        low720, _ = scale_summary(scales, "720p")
        low1080, used1080 = scale_summary(scales, "1080p")
        print(f"playground: first page ready {first_page_s:.1f} s after opening "
              f"(goal {FIRST_PAGE_GOAL_S:.0f} s on a quiet machine); "
              f"720p smallest picture scale {low720:.2f}x; 1080p smallest scale "
              f"{low1080:.2f}x, pictures fill {used1080:.0%} of their room "
              f"(median)")
        errors = page.evaluate(JS_DOM_ERRORS) + page_errors
        assert not problems, "\n".join(problems)
        assert not errors, errors
        assert not outside, f"the page asked other machines for: {outside}"
    finally:
        context.close()
