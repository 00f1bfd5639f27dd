"""Measure a trained GPT folder against lesson 11's copying bars, in numpy.

    .venv/bin/python tools/probe_gpt.py [FOLDER] [--heads]

FOLDER is a Hugging Face GPT-2 folder (default ``data/gpt``; a pilot of
``tools/train_gpt.py --out build/gpt/NAME`` too). Prints, with
``helpers.models.gpt`` only (no torch):

* the three head scores of ``gpt.head_scores`` and the named heads;
* on repeated random sequences of 20, 40 and 60 tokens (seeds 777000-777009,
  never the lesson's or the log's probes): the mean loss on the first and the
  second copy, their ratio (bar: <= 0.5), and the second copy with the named
  induction head ablated (bar: >= 1.5 times);
* the same 40-token repeat after 0, 5, 15 and 30 random tokens: an induction
  head finds the earlier occurrence wherever it is, while a copy by position
  (pilots R, G4 and W2 of data/README.md) fails once the repeat moves. With
  each, the best prefix-matching score in every layer on those sequences (a
  layer-0 head that scores high copies by distance: no layer-0 head can see
  which token followed an earlier occurrence);
* with ``--heads``, the second copy of those repeats (after
  ``--ablate-prefix`` random tokens) with each head ablated in turn, to find
  where a copying circuit lives.

Pilots trained on short windows (A3 of data/README.md) are probed inside
them: ``--lengths 8 12 --check 12 --prefixes 0 6 --ablate-prefix 6``.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from helpers.models import gpt  # noqa: E402

SEEDS = range(777000, 777010)


def repeat_ids(model, length, prefix, seed):
    """BOS, ``prefix`` random tokens, then ``length`` random tokens written
    twice: (1 + prefix + 2 length,) ids, from ``default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    r = rng.integers(1, model.vocab_size, size=length)
    p = rng.integers(1, model.vocab_size, size=prefix)
    return np.concatenate([[gpt.BOS], p, r, r]).astype(np.int64)


def copy_losses(model, length, prefix=0, ablate=None, seeds=SEEDS):
    """Mean loss (nats) on the first and the second copy of ``length`` random
    tokens written twice after BOS and ``prefix`` random tokens; the first
    copy's first token (unpredictable by anything) is left out."""
    first, second = [], []
    for seed in seeds:
        ids = repeat_ids(model, length, prefix, seed)
        loss = model.run(ids, ablate=ablate).loss_per_position()  # (n - 1,)
        o = 1 + prefix  # position of the first copy's first token
        first.append(loss[o : o + length - 1].mean())
        second.append(loss[o + length - 1 : o + 2 * length - 1].mean())
    return float(np.mean(first)), float(np.mean(second))


def prefix_matching(model, length, prefix=0, seeds=SEEDS):
    """(n_layers, n_heads): ``gpt.prefix_matching_scores`` on the sequences of
    :func:`copy_losses`; cutting off the ``prefix`` leaves the layout it scores."""
    return np.mean(
        [
            gpt.prefix_matching_scores(
                model.run(repeat_ids(model, length, prefix, s)).attention[
                    ..., prefix:, prefix:
                ],
                length,
            )
            for s in seeds
        ],
        axis=0,
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", nargs="?", default=str(ROOT / "data" / "gpt"))
    ap.add_argument("--heads", action="store_true", help="ablate each head in turn")
    ap.add_argument("--lengths", type=int, nargs="+", default=[20, 40, 60])
    ap.add_argument("--check", type=int, default=40, help="repeat length of the checks")
    ap.add_argument("--prefixes", type=int, nargs="+", default=[0, 5, 15, 30])
    ap.add_argument("--ablate-prefix", type=int, default=0)
    args = ap.parse_args()
    model = gpt.load(args.folder)
    np.set_printoptions(precision=3, suppress=True, linewidth=120)
    scores = gpt.head_scores(model)
    for kind, s in scores.items():
        print(f"{kind} scores (rows = layers, columns = heads):\n{s}")
    named = model.heads
    for kind, (layer, head) in named.items():
        print(f"{kind:>15}: layer {layer} head {head}, {scores[kind][layer, head]:.3f}")
    ind = named["induction"]
    print("\nrepeat  first  second  ratio  second, induction head ablated")
    for length in args.lengths:
        a, b = copy_losses(model, length)
        _, c = copy_losses(model, length, ablate={ind})
        print(f"{length:6d} {a:6.2f} {b:7.2f} {b / a:6.2f}  {c:.2f} (x{c / b:.2f})")
    L = args.check
    print(f"\n{L}-token repeat after a random prefix:")
    for prefix in args.prefixes:
        a, b = copy_losses(model, L, prefix)
        pm = prefix_matching(model, L, prefix)
        best = ", ".join(
            f"{pm[la].max():.2f} (head {pm[la].argmax()})" for la in range(len(pm))
        )
        print(f"  prefix {prefix:2d}: first {a:.2f}, second {b:.2f} ({b / a:.2f})")
        chance = 1 / (L + prefix + 1)
        print(f"    best prefix matching per layer: {best}; chance {chance:.3f}")
    if args.heads:
        seeds, P = SEEDS[:6], args.ablate_prefix
        base = copy_losses(model, L, P, seeds=seeds)[1]
        print(
            f"\nsecond copy of {L}-token repeats after {P} random tokens ({base:.2f})"
            " with one head ablated:"
        )
        for layer in range(model.n_layers):
            row = [
                copy_losses(model, L, P, ablate={(layer, h)}, seeds=seeds)[1]
                for h in range(model.n_heads)
            ]
            print(f"  layer {layer}: " + "  ".join(f"{x:5.2f}" for x in row))


if __name__ == "__main__":
    main()
