"""Print how long each notebook takes to execute (a benchmark, not a test).

    .venv/bin/python tests/benchmarks/bench_notebooks.py [notebooks...]

Each notebook runs in a fresh kernel, as `make notebooks` and nbval run it;
nothing is written back. The time includes starting the kernel.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from helpers import nbtools  # noqa: E402


def main(argv: list[str]) -> int:
    failed = 0
    total = 0.0
    print(f"{'notebook':40s} {'seconds':>8s}")
    for path in nbtools.notebook_paths(argv or None):
        nb = nbtools.read(path)
        start = time.perf_counter()
        try:
            nbtools.execute(nb)
            status = ""
        except Exception as err:  # report and go on with the others
            status = f"  FAILED: {getattr(err, 'ename', type(err).__name__)}"
            failed += 1
        seconds = time.perf_counter() - start
        total += seconds
        print(f"{path.name:40s} {seconds:8.1f}{status}", flush=True)
    print(f"{'total':40s} {total:8.1f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
