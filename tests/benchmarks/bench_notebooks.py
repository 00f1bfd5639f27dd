"""Print how long each notebook takes to execute (a benchmark, not a test).

    .venv/bin/python tests/benchmarks/bench_notebooks.py [notebooks...]

Each notebook runs in a fresh kernel, as `make notebooks` and nbval run it;
nothing is written back. "total" includes starting the kernel; "cells" is the
total minus the time to start a kernel and run an empty notebook (the median
of three such runs), which is what the lessons' "<= 6 s beyond kernel start"
target refers to.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools import common, execute  # noqa: E402


def kernel_start_seconds(repeats: int = 3) -> float:
    """Median time to execute an empty notebook (kernel start and shutdown)."""
    import statistics

    import nbformat

    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        execute.execute(nbformat.v4.new_notebook())
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str]) -> int:
    failed = 0
    total = 0.0
    base = kernel_start_seconds()
    print(f"kernel start (empty notebook): {base:.1f} s")
    print(f"{'notebook':40s} {'total':>8s} {'cells':>8s}")
    for path in common.notebook_paths(argv or None):
        nb = common.read(path)
        start = time.perf_counter()
        try:
            execute.execute(nb)
            status = ""
        except Exception as err:  # report and go on with the others
            status = f"  FAILED: {getattr(err, 'ename', type(err).__name__)}"
            failed += 1
        seconds = time.perf_counter() - start
        total += seconds
        print(f"{path.name:40s} {seconds:8.1f} {seconds - base:8.1f}{status}",
              flush=True)
    print(f"{'total':40s} {total:8.1f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
