"""Lesson 11's GPT trainer with every pilot switch of data/README.md, gpt/.

    python3 tools/pilots/gpt_pilots.py --copy-steps 2400 --copy-rows 4 --out build/gpt/R

Until 2026-12-04 these options were ``tools/train_gpt.py``'s own; that
script now keeps only the shipped recipe's few (its defaults here are the
same, so this script with no option trains the shipped model). Each pilot
row of data/README.md names the switches it used.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from train_gpt import (  # noqa: E402
    COPY_ROWS,
    COPY_RUNS,
    COPY_STEPS,
    COPY_WINDOW,
    LR,
    STEPS,
    run,
)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=STEPS)
    ap.add_argument("--lr", type=float, default=LR, help="peak learning rate")
    ap.add_argument("--copy-steps", type=int, default=COPY_STEPS)
    ap.add_argument("--copy-rows", type=int, default=COPY_ROWS)
    ap.add_argument(
        "--sine-positions",
        action="store_true",
        help="start the learned positions from sinusoids (pilot S of data/README.md)",
    )
    ap.add_argument(
        "--copy-gap",
        type=int,
        default=0,
        help="0..N random filler tokens before each copy (data/README.md, gpt/)",
    )
    ap.add_argument(
        "--copy-vocab",
        type=int,
        default=0,
        help="phase 1's runs from the N most frequent tokens (data/README.md, gpt/)",
    )
    ap.add_argument(
        "--copy-prefix",
        type=int,
        default=0,
        help="0..N random tokens at the start of each copying window",
    )
    ap.add_argument(
        "--copy-bag",
        type=int,
        default=0,
        help="phase 1's windows: K random tokens drawn in random order, over and "
        "over (a head that copies whatever it attends to pays at once)",
    )
    ap.add_argument("--copy-window", type=int, default=COPY_WINDOW)
    ap.add_argument("--copy-runs", type=int, nargs=2, default=list(COPY_RUNS))
    ap.add_argument(
        "--guide-prev",
        type=int,
        nargs=2,
        metavar=("LAYER", "HEAD"),
        help="auxiliary loss that makes this head attend to the previous token",
    )
    ap.add_argument("--guide-weight", type=float, default=1.0)
    ap.add_argument(
        "--guide-steps",
        type=int,
        default=10**9,
        help="drop --guide-prev after this many steps (counted over both phases)",
    )
    ap.add_argument("--init", help="start from this folder's weights (pilots only)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "data" / "gpt"))
    ap.add_argument("--checkpoint-every", type=int, default=500)
    ap.add_argument(
        "--report-only",
        action="store_true",
        help="measure the model already in --out again (report.json); no training",
    )
    run(ap.parse_args())


if __name__ == "__main__":
    main()
