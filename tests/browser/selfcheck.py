"""Show that the browser test fails when it should (and passes when it should).

    .venv/bin/python tests/browser/selfcheck.py        (or: make test-browser-selfcheck)

Writes the demo notebooks of make_demo_notebooks.py to a temporary folder, runs
the browser test on them and checks the outcome of each: demo_ok must pass,
every other demo (a frozen explorer, an error cell, a callback that raises,
unescaped HTML, no explorer) must fail. Then it serves a copy of the playground
whose "04 Pattern" tab is frozen (its inputs no longer reach the explorer)
and checks that the playground test fails and names that tab. Exit status 0
when all is as expected.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from make_demo_notebooks import main as write_demos  # noqa: E402

EXPECTED = {
    "demo_ok": "PASSED",
    "demo_frozen": "FAILED",
    "demo_error": "FAILED",
    "demo_callback_error": "FAILED",
    "demo_unescaped": "FAILED",
    "demo_no_explorer": "FAILED",
    "demo_not_done": "PASSED",
}


# Appended to the playground's TABS cell: the "04 Pattern" tab's explorer with
# every observer of its inputs removed, so nothing the learner does reaches it.
FREEZE = """

def _frozen(make):
    def build():
        explorer = make()
        stack = [explorer]
        while stack:
            w = stack.pop()
            stack.extend(getattr(w, "children", ()))
            if not isinstance(w, ipywidgets.Image):
                w.unobserve_all()
        return explorer
    return build


import ipywidgets  # noqa: E402
TABS = [(t, _frozen(m) if t == "04 Pattern" else m, h) for t, m, h in TABS]
"""


def pytest_outcomes(env, target):
    """Run the browser test file ``target`` with ``env``; its outcome per test."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", str(target), "-q", "-rA",
         "-p", "no:cacheprovider"],
        env=dict(os.environ, COLUMNS="400", **env),
        capture_output=True,
        text=True,
        cwd=HERE.parents[1],
    )
    outcomes = dict(
        (m.group(2), m.group(1))
        for m in re.finditer(
            r"^(PASSED|FAILED|ERROR|SKIPPED)\S* .*?\[(\w+)\]", proc.stdout, re.M
        )
    )
    playground = r"^(PASSED|FAILED|ERROR|SKIPPED) \S*::(test_playground_in_voila)"
    for m in re.finditer(playground, proc.stdout, re.M):
        outcomes[m.group(2)] = m.group(1)
    return proc, outcomes


def broken_playground(tmp):
    """A repository-like folder whose playground has a frozen "04 Pattern" tab."""
    repo = HERE.parents[1]
    root = Path(tmp) / "repo"
    (root / "notebooks").mkdir(parents=True)
    for name in ("helpers", "data"):
        (root / name).symlink_to(repo / name)
    nb = json.loads((repo / "notebooks" / "playground.ipynb").read_text())
    cell = next(c for c in nb["cells"] if "TABS = [" in "".join(c["source"]))
    cell["source"] = "".join(cell["source"]) + FREEZE
    path = root / "notebooks" / "playground.ipynb"
    path.write_text(json.dumps(nb))
    return path


def run_playground():
    """The playground test on a copy with one frozen tab: it must fail there."""
    with tempfile.TemporaryDirectory() as tmp:
        path = broken_playground(tmp)
        proc, outcomes = pytest_outcomes(
            {"ATTN_PLAYGROUND": str(path)}, HERE / "test_playground.py"
        )
    got = outcomes.get("test_playground_in_voila", "missing")
    named = "04 Pattern: picture did not change" in proc.stdout
    ok = got == "FAILED" and named
    mark = "ok " if ok else "BAD"
    print(f"{mark} playground with a frozen '04 Pattern' tab: expected FAILED naming "
          f"that tab, got {got}{'' if named else ' (tab not named)'}")
    if not ok:
        print(proc.stdout[-3000:], proc.stderr[-2000:], sep="\n")
    return ok


def run():
    with tempfile.TemporaryDirectory() as tmp:
        write_demos(tmp)
        proc, outcomes = pytest_outcomes(
            {"ATTN_BROWSER_NOTEBOOKS": tmp}, HERE / "test_browser.py"
        )
    reasons = re.findall(r"^FAILED .*? - (.*)$", proc.stdout, re.M)
    ok = True
    for name, want in EXPECTED.items():
        got = outcomes.get(name, "missing")
        mark = "ok " if got == want else "BAD"
        ok &= got == want
        print(f"{mark} {name}: expected {want}, got {got}")
    for reason in reasons:
        print("    ", reason[:160])
    if not ok:
        print(proc.stdout[-3000:], proc.stderr[-2000:], sep="\n")
    ok &= run_playground()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(run())
