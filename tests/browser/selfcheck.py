"""Show that the browser test fails when it should (and passes when it should).

    .venv/bin/python tests/browser/selfcheck.py        (or: make test-browser-selfcheck)

Writes the demo notebooks of make_demo_notebooks.py to a temporary folder, runs
the browser test on them and checks the outcome of each: demo_ok must pass,
every other demo (a frozen explorer, an error cell, a callback that raises,
unescaped HTML, no explorer) must fail. Exit status 0 when all is as expected.
"""

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
}


def run():
    with tempfile.TemporaryDirectory() as tmp:
        write_demos(tmp)
        env = dict(os.environ, ATTN_BROWSER_NOTEBOOKS=tmp, COLUMNS="400")
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                str(HERE),
                "-q",
                "-rA",
                "-p",
                "no:cacheprovider",
            ],
            env=env,
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
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(run())
