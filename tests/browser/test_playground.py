"""The playground (notebooks/playground.ipynb) served by Voila, as
``make playground`` serves it, in a real Chromium: every tab shows an
explorer whose picture changes when its input changes, with no error on the
page, and nothing is fetched from outside the machine (requests that try are
refused and listed; the page's template leaves out Voila's Font Awesome CSS).

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
from test_browser import CHANGE_TIMEOUT, JS_DOM_ERRORS, change_input, changed, \
    picture_state, wait_for
from test_explorers import clipped_controls

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
    cmd = [sys.executable, "-m", "voila", str(PLAYGROUND), "--no-browser",
           "--Voila.ip=127.0.0.1", f"--port={port}", "--strip_sources=True",
           "--theme=light", "--template=attn-playground"]
    with open(log_path, "wb") as log:
        env = dict(lab_env(tmp), JUPYTER_PATH=str(REPO / "tools"))
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


def test_playground_in_voila(voila_url, browser, screenshot_dir):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
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
        page.goto(voila_url, timeout=RENDER_TIMEOUT * 1000)
        tabs = page.locator(".attn-playground")
        tabs.wait_for(timeout=RENDER_TIMEOUT * 1000)
        titles = page.locator(".attn-playground .lm-TabBar-tab")
        count = titles.count()
        explorers = page.locator(".attn-playground .attn-explorer")
        # one tab per row of the table of explorers, in its order
        assert [titles.nth(i).inner_text().strip() for i in range(count)] == [
            row.tab for row in EXPLORERS]
        assert explorers.count() == count
        assert page.locator(".attn-instruction").count() == count
        # every tab title whole, none cut to "02 Weighted su"
        problems = clipped_controls(page.locator(
            ".attn-playground .lm-TabBar, .attn-playground .p-TabBar").first)
        for i in range(count):
            titles.nth(i).click()
            explorer = explorers.nth(i)
            explorer.wait_for(state="visible", timeout=CHANGE_TIMEOUT * 1000)
            title = titles.nth(i).inner_text().strip()
            problems += [f"{title}: {p}" for p in clipped_controls(explorer)]
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
            if "Could not" in message:
                problems.append(f"{title}: {message}")
            if i in (0, 4):
                explorer.screenshot(path=str(screenshot_dir / f"playground-{i}.png"))
        page.screenshot(path=str(screenshot_dir / "playground.png"))
        errors = page.evaluate(JS_DOM_ERRORS) + page_errors
        assert not problems, "\n".join(problems)
        assert not errors, errors
        assert not outside, f"the page asked other machines for: {outside}"
    finally:
        context.close()
