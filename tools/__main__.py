"""Notebook housekeeping: the shared setup cell, navigation, execution, checks.

Run it as a script from the repository root::

    python -m tools sync  [notebooks...]   # nav cells, setup cell, lists
    python -m tools run   [notebooks...]   # execute in place, normalise
    python -m tools check [notebooks...]   # report problems, exit 1 if any
    python -m tools solutions [notebooks...]  # instructor copies in build/solutions
    python -m tools assign [--nbgrader] [NN...]  # the graded release

Without notebook arguments every ``notebooks/*.ipynb`` is used.

What ``sync`` writes (and ``check`` expects):

* a markdown cell tagged ``nav-top`` (the first cell, or the second when the
  first is the title) and one tagged ``nav-bottom`` (the last cell):
  previous | contents | next, plus "Open in Colab" and "Open in Binder" links built
  from :data:`REPO_SLUG` and :data:`BRANCH`;
* the code cell tagged ``setup`` whose source is exactly :data:`SETUP_CELL`
  (inserted before the first code cell when missing);
* in ``00_start_here.ipynb`` the markdown cell tagged ``lesson-list``, and in
  ``README.md`` the text between the ``nbtools:...`` markers.

When a cell may carry nbval's ``nbval-ignore-output`` tag (see
:func:`ignore_tag_problems`): only when it is a *widget display cell* or a
*timing cell*:

* widget display cell: one of its stored outputs holds a widget view
  (mime ``application/vnd.jupyter.widget-view+json``, or the marker
  ``metadata["nbtools"]["widget_view"]`` that ``run`` leaves when it drops
  that mime; every explorer's display carries the view), or its
  ``text/plain`` is the repr of an ipywidgets widget (``IntSlider(...)``);
* timing cell: its source uses ``%time``, ``%%time``, ``%timeit``,
  ``%%timeit``, ``timeit`` or ``time.perf_counter`` / ``perf_counter``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tools.execute import run
from tools.form import check
from tools.nav import sync
from tools import solve

# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("command",
                        choices=["sync", "run", "check", "solutions", "assign"])
    parser.add_argument("notebooks", nargs="*", help="default: notebooks/*.ipynb "
                        "(assign: lesson numbers or notebooks, default every lesson "
                        "with exercises)")
    parser.add_argument("--timeout", type=int, default=600,
                        help="seconds per cell for `run` (default 600)")
    parser.add_argument("--nbgrader", action="store_true",
                        help="`assign`: the nbgrader course folder instead of Otter's")
    parser.add_argument("--refresh-timings", action="store_true",
                        help="`run`: store new outputs of timing cells too")
    args = parser.parse_args(argv)
    if args.command == "sync":
        for path in sorted(set(sync(args.notebooks)) | set(solve.sync(args.notebooks))):
            print(f"updated {Path(path).name}")
        return 0
    if args.command == "assign":
        # needs the grading extra (otter-grader, nbgrader)
        if args.nbgrader:
            from tools import assign_nbgrader

            assign_nbgrader.build(args.notebooks)
        else:
            from tools import assign

            assign.build(args.notebooks)
        return 0
    if args.command == "solutions":
        solve.build(args.notebooks, timeout=args.timeout)
        return 0
    if args.command == "run":
        failed = run(args.notebooks, timeout=args.timeout,
                     refresh_timings=args.refresh_timings)
        return 1 if failed else 0
    report = check(args.notebooks)
    for where, problems in report.items():
        for problem in problems:
            print(f"{where}: {problem}")
    if not report:
        print("all notebooks look right")
    return 1 if report else 0


if __name__ == "__main__":
    sys.exit(main())

