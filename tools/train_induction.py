"""Train lesson 13's attention-only GPT on copying data (a data/induction/ folder).

    .venv/bin/python tools/train_induction.py --numpy --out build/induction/numpy
    python3 tools/train_induction.py --torch --out data/induction   # as shipped
    .venv/bin/python tools/train_induction.py --numpy --set lr=6e-3 --out DIR

``--numpy`` trains with :mod:`helpers.models.gpt_training` alone (no torch:
it runs in the project's own environment, with one BLAS thread, which is
faster for its small matrices and holds on a busy machine: issue 53), from the recipe
``gpt_training.RECIPE`` and its seed; ``--set KEY=VALUE`` changes one
setting of it (a pilot; data/README.md, induction/, lists them). It prints a
line every ``--log-every`` steps and writes ``config.json``,
``model.safetensors`` (GPT-2's layout, the unused MLP as zeros),
``tokenizer.json``, ``training_log.csv`` and ``report.json`` (the heads
named by measurement). ``python -m tools.measure_induction DIR`` then prints
the bar's figures.

``--torch`` runs the torch trainer that made the shipped ``data/induction/``
(recipe F3, ``tools/pilots/induction_pilots.py`` with its defaults, in the
throwaway environment ``build/gpt/venv``, made if missing); that script
keeps every pilot switch of the past.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "build" / "induction" / "numpy"


def parse_setting(text: str, recipe: dict):
    """``"lr=6e-3"`` -> ``("lr", 0.006)``; the key must be one of ``recipe``'s."""
    key, _, value = text.partition("=")
    if key not in recipe:
        raise SystemExit(f"--set {text}: no setting {key!r} (settings: "
                         f"{', '.join(recipe)})")
    value = ast.literal_eval(value)
    return key, tuple(value) if isinstance(value, list) else value


def train_numpy(args) -> None:
    sys.path.insert(0, str(ROOT))
    from helpers.models import gpt_training as gt

    changes = dict(parse_setting(s, gt.RECIPE) for s in args.set)
    if args.seed is not None:
        changes["seed"] = args.seed
    if args.steps is not None:
        changes["steps"] = args.steps

    def show(row):
        prev, pm = row["prev"], row["pm"]
        print(f"step {row['step']:6d} {row['seconds']:6.0f}s train "
              f"{row['train_loss']:.3f}  copy1 {row['copy1_loss']:.3f} copy2 "
              f"{row['copy2_loss']:.3f}  prev L0 "
              + " ".join(f"{x:.2f}" for x in prev[0])
              + "  pm L1 " + " ".join(f"{x:.2f}" for x in pm[1]), flush=True)

    print("training the numpy recipe, one BLAS thread "
          "(helpers.runtime.timing.blas_threads)", flush=True)
    start = time.perf_counter()
    params, log, recipe = gt.train(changes, callback=show, every=args.log_every)
    seconds = time.perf_counter() - start
    report = gt.save(params, args.out, log=log, recipe=recipe, seconds=seconds)
    print(f"{args.out}: {seconds:.0f} s; induction head L{report['induction_head'][0]}"
          f"H{report['induction_head'][1]} (prefix matching "
          f"{report['induction_prefix_matching']}), previous-token heads "
          f"{report['previous_token_heads']} {report['previous_token_scores']}; "
          f"second copy {report['probe_second_copy_loss']} against "
          f"{report['probe_first_copy_loss']} for the first")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    kind = ap.add_mutually_exclusive_group(required=True)
    kind.add_argument("--numpy", action="store_true", help="the numpy recipe")
    kind.add_argument("--torch", action="store_true",
                      help="the shipped torch recipe (F3)")
    ap.add_argument("--out", default=None, help=f"default: {OUT.relative_to(ROOT)}")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--steps", type=int, default=None)
    ap.add_argument("--log-every", type=int, default=250)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="numpy only: change one setting of the recipe")
    args = ap.parse_args(argv)
    if args.torch:
        script = ROOT / "tools" / "pilots" / "induction_pilots.py"
        cmd = [sys.executable, str(script), "--out", args.out or str(OUT)]
        cmd += [] if args.seed is None else ["--seed", str(args.seed)]
        cmd += [] if args.steps is None else ["--steps", str(args.steps)]
        os.execv(sys.executable, cmd)
    args.out = args.out or str(OUT)
    train_numpy(args)


if __name__ == "__main__":
    main()
