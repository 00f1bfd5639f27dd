"""Benchmark of the tiny attention model (lesson 9). Prints figures, asserts nothing.

Run from the repository root:

    .venv/bin/python tests/benchmarks/bench_tinymodel.py [--repeat 3]

Prints, for the seeded sense model: the training time (wall clock and CPU),
the held-out accuracy, how often the ambiguous word's most-attended key is a
topic word, whether the result equals the shipped weights, and the same
figures for the next-word model.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from helpers.models import tiny as tm  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    test = tm.held_out_sense()
    walls, cpus = [], []
    for _ in range(args.repeat):
        cpu = time.process_time()
        params, history, wall = tm.train_sense_model()
        cpus.append(time.process_time() - cpu)
        walls.append(wall)
    result = tm.evaluate_sense(params, test)
    shipped = tm.load_trained()
    same = all(np.array_equal(params[k], shipped[k]) for k in tm.array_names(shipped))
    by_word = {}
    for word in tm.TARGET_WORDS:
        subset = [e for e in test if e.word == word]
        by_word[word] = tm.evaluate_sense(params, subset)
    s = tm.SENSE_SETTINGS
    print(f"sense model: {s['n_train']} training sentences, {s['steps']} steps of "
          f"{s['batch_size']}, {len(test)} held-out sentences")
    print(f"  training time (train loop, best of {args.repeat}): "
          f"{min(walls):.2f} s wall (all: {', '.join(f'{w:.2f}' for w in walls)}); "
          f"including corpus generation and embedding: {min(cpus):.2f} s CPU")
    print(f"  held-out accuracy: {result['accuracy']:.1%}")
    print(f"  most-attended key is a topic word: {result['topic_attention']:.1%}")
    for word, r in by_word.items():
        print(f"    {word}: accuracy {r['accuracy']:.1%}, "
              f"topic attention {r['topic_attention']:.1%}")
    print(f"  final training loss {history[-1]:.4f}; equals shipped weights: {same}")

    start = time.perf_counter()
    params, history, held = tm.train_next_model()
    seconds = time.perf_counter() - start
    r = tm.evaluate_next(params, held)
    print(f"next-word model: {len(history)} steps in {seconds:.2f} s, held-out "
          f"loss {r['loss']:.3f}, verb agreement {r['agreement']:.1%}")


if __name__ == "__main__":
    main()
