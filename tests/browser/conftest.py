"""Fixtures for the real-browser test: one JupyterLab server and one Chromium.

The server is started the way ``make lab`` starts it, but headless: on
127.0.0.1, on a free port, with a random token, in a temporary copy of the
repository (Run All dirties notebooks, so the real ones are never touched).
Chromium is Debian's package driven by Playwright; ``playwright install`` is
never used.

Environment:
- ``CI=true``: the test must run; a missing Chromium or Playwright fails it.
- ``ATTN_CHROMIUM``: Chromium executable (default /usr/bin/chromium).
- ``ATTN_BROWSER_NOTEBOOKS``: folder of notebooks to test instead of notebooks/.
- ``ATTN_BROWSER_TIMEOUT``: seconds allowed for one notebook's Run All (300).
- ``ATTN_LAB_PYTHON``: the Python whose JupyterLab (and kernel) to start
  instead of this one's, e.g. ``.venv-lab3/bin/python``: JupyterLab 3 with
  ipywidgets 7.7 (``make test-lab3``, tests/compat/lab3.mk). The kernel is
  the server's own ``python3``, so the widgets' Python side runs there too.
"""

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "build" / "screenshots"
CHROMIUM = Path(os.environ.get("ATTN_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# What the repository copy needs besides notebooks/ (helpers are imported from
# it by the setup cell; data/ is read by helpers).
LINKED = ("helpers", "data", "pyproject.toml", "README.md")


def lab_python():
    """The Python that runs JupyterLab: ``ATTN_LAB_PYTHON``, else this one."""
    chosen = os.environ.get("ATTN_LAB_PYTHON", "").strip()
    return str(Path(chosen).absolute()) if chosen else sys.executable


_MAJOR = []


def lab_major():
    """JupyterLab's major version in :func:`lab_python` (4, or 3 for
    ``make test-lab3``); asked once."""
    if not _MAJOR:
        if lab_python() == sys.executable:
            import jupyterlab

            version = jupyterlab.__version__
        else:
            ask = "import jupyterlab; print(jupyterlab.__version__)"
            version = subprocess.run([lab_python(), "-c", ask], capture_output=True,
                                     text=True, check=True).stdout
        _MAJOR.append(int(version.strip().split(".")[0]))
    return _MAJOR[0]


def in_ci():
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def notebook_dir():
    return Path(os.environ.get("ATTN_BROWSER_NOTEBOOKS", REPO / "notebooks"))


def notebook_paths():
    """The lessons (the playground app is tested in Voila: test_playground.py)."""
    from tools.common import APPS

    return sorted(p for p in notebook_dir().glob("*.ipynb") if p.name not in APPS)


def unavailable(reason):
    """Skip with a one-line reason, except in CI where the test must run."""
    if in_ci():
        pytest.fail(f"browser test cannot run in CI: {reason}", pytrace=False)
    pytest.skip(reason)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "browser: real-browser test (JupyterLab + Chromium), slow"
    )


def pytest_generate_tests(metafunc):
    """One test per notebook (notebooks/*.ipynb, or ATTN_BROWSER_NOTEBOOKS)."""
    if "notebook" in metafunc.fixturenames:
        paths = notebook_paths()
        metafunc.parametrize("notebook", paths, ids=[p.stem for p in paths])


@pytest.fixture(scope="session")
def chromium_path():
    if not CHROMIUM.exists():
        unavailable(
            f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium, as root)"
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        unavailable("the playwright pip package is not installed")
    return str(CHROMIUM)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LabServer:
    """A running JupyterLab: its base URL, token and a tiny REST client."""

    def __init__(self, root, log_path):
        self.root = root
        self.log_path = log_path
        self.port = free_port()
        self.token = secrets.token_hex(16)
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = None

    def request(self, method, path, body=None, timeout=60):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.base + path,
            data=data,
            method=method,
            headers={
                "Authorization": f"token {self.token}",
                "Content-Type": "application/json",
            },
        )
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            text = resp.read().decode()
        return json.loads(text) if text else None

    def log_tail(self, n=40):
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-n:])

    def start(self, env):
        cmd = [
            lab_python(),
            "-m",
            "jupyterlab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
            "--ServerApp.terminals_enabled=False",
            # window.jupyterapp, as JupyterLab's own Playwright tests (Galata) use
            "--LabApp.expose_app_in_browser=True",
        ]
        if lab_major() >= 4:  # unknown to JupyterLab 3: it would not link at all
            cmd += [
                "--LabApp.news_url=None",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                "--LabApp.extension_manager=readonly",
            ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:  # CI runs as root
            cmd.append("--allow-root")
        log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            cmd, cwd=self.root, env=env, stdout=log, stderr=subprocess.STDOUT
        )
        log.close()
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"JupyterLab exited with {self.proc.returncode}:\n"
                    + self.log_tail()
                )
            try:
                self.request("GET", "/api/status", timeout=5)
                return
            except (urllib.error.URLError, OSError):
                time.sleep(0.3)
        self.stop()
        raise RuntimeError("JupyterLab did not answer within 90 s:\n" + self.log_tail())

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()  # JupyterLab shuts its kernels down on SIGTERM
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


def make_repo_copy(tmp):
    """A throwaway repository: notebooks/ copied, helpers/ and data/ linked."""
    root = tmp / "repo"
    root.mkdir()
    for name in LINKED:
        if (REPO / name).exists():
            (root / name).symlink_to(REPO / name)
    (root / "notebooks").mkdir()
    for path in notebook_paths():
        shutil.copy2(path, root / "notebooks" / path.name)
    src = notebook_dir()
    for extra in src.iterdir():  # images or data a notebook may read beside it
        if extra.suffix != ".ipynb" and not extra.name.startswith("."):
            dest = root / "notebooks" / extra.name
            if extra.is_dir():
                shutil.copytree(extra, dest)
            else:
                shutil.copy2(extra, dest)
    return root


def lab_env(tmp):
    settings = tmp / "lab-settings"
    notification = settings / "@jupyterlab" / "apputils-extension"
    notification.mkdir(parents=True)
    (notification / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    for sub in ("lab-workspaces", "runtime", "config", "ipython"):
        (tmp / sub).mkdir()
    env = dict(os.environ)
    env.update(
        JUPYTERLAB_SETTINGS_DIR=str(settings),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp / "lab-workspaces"),
        JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
        JUPYTER_CONFIG_DIR=str(tmp / "config"),
        IPYTHONDIR=str(tmp / "ipython"),
        PYDEVD_DISABLE_FILE_VALIDATION="1",
    )
    env.pop("MPLBACKEND", None)
    return env


@pytest.fixture(scope="session")
def lab_server(chromium_path, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lab")
    server = LabServer(make_repo_copy(tmp), tmp / "jupyterlab.log")
    problem = None
    try:
        server.start(lab_env(tmp))
    except RuntimeError as exc:
        problem = str(exc)
    if problem:
        pytest.fail(problem, pytrace=False)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    try:
        chromium = pw.chromium.launch(
            executable_path=chromium_path, args=CHROMIUM_ARGS, headless=True
        )
    except Exception as exc:  # a broken Chromium install
        pw.stop()
        unavailable(f"Chromium at {chromium_path} did not start: {exc}")
    yield chromium
    chromium.close()
    pw.stop()


#: The window the notebooks must fit: a laptop's (issue 39). JupyterLab's
#: notebook area is then about 647 px high and 915 px wide.
LAPTOP = {"width": 1366, "height": 768}


@pytest.fixture(scope="session")
def browser_context(browser):
    """One context for all notebooks, so JupyterLab's scripts load from cache;
    its window is a laptop's (:data:`LAPTOP`)."""
    context = browser.new_context(viewport=LAPTOP)
    yield context
    context.close()


def _context_lost(exc):
    """Did a Playwright call fail because the page's document was replaced?"""
    text = str(exc)
    return any(
        sign in text
        for sign in (
            "garbage collected",
            "Execution context was destroyed",
            "navigat",
        )
    )


class LabPage:
    """One JupyterLab page for all notebooks (loading Lab costs seconds of CPU).

    ``get()`` returns it, loading it again if an earlier test broke it.
    """

    def __init__(self, server, context):
        self.server = server
        self.context = context
        self.page = None
        self.errors = []  # uncaught JavaScript errors, for failure messages

    def alive(self):
        if self.page is None or self.page.is_closed():
            return False
        try:
            return bool(self.page.evaluate("!!(window.jupyterapp && window.__attnLab)"))
        except Exception:
            return False

    def get(self):
        if self.alive():
            return self.page
        if self.page is not None and not self.page.is_closed():
            self.page.close()
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.goto(f"{self.server.base}/lab?reset&token={self.server.token}")
        # JupyterLab may replace its document while it starts (the ``reset``
        # of the workspace), and an ``evaluate`` that awaits across that fails
        # with "Resulting promise was garbage collected" (a red CI run,
        # 2026-12-04). So nothing awaits inside the page: a flag is set when
        # Lab is restored, and polled; a lost page context is simply retried.
        for attempt in range(3):
            try:
                self.page.wait_for_function(
                    "() => window.jupyterapp && window.jupyterapp.shell",
                    timeout=120_000,
                )
                self.page.evaluate(
                    "() => { window.jupyterapp.restored.then("
                    "() => { window.__attnLab = 1; }); }"
                )
                self.page.wait_for_function(
                    "() => window.__attnLab === 1", timeout=120_000
                )
                return self.page
            except Exception as exc:  # playwright's Error; imported lazily
                if attempt == 2 or not _context_lost(exc):
                    raise
        return self.page


@pytest.fixture(scope="session")
def lab_page(lab_server, browser_context):
    lab = LabPage(lab_server, browser_context)
    yield lab
    if lab.page is not None and not lab.page.is_closed():
        lab.page.close()


@pytest.fixture(scope="session")
def screenshot_dir():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
