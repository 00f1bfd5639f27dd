"""Print issue 37's bar figures for an induction model folder (numpy only).

``tests/test_induction.py`` asserts the bar on :func:`copy_losses` and
:func:`head_scores`. The sequences are the bar's: seeds
515000-515039, each ``<|endoftext|>``, a random prefix, then 8-20 random
tokens written twice, drawn from ids 1 .. vocab_size - 1. Printed:

* the first and second copy's mean loss after 0, 5, 11, 17 and 23 random
  tokens, and their ratio;
* every head's previous-token and prefix-matching score (each seed with its
  own random prefix of 0-23 tokens), and the heads ``report.json`` names;
* the second copy's loss with each head ablated, and with the named
  previous-token heads ablated together, as a multiple of the intact
  model's, at every prefix;
* the K-, Q- and V-composition of the induction head with each layer-0 head,
  against random matrices (mean and 95th percentile).

Run from the repository root::

    python -m tools.measure_induction              # data/induction
    python -m tools.measure_induction build/induction/some_pilot
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from helpers.analysis import induction

SEEDS = range(515000, 515040)
PREFIXES = (0, 5, 11, 17, 23)


def copy_losses(model, prefix, ablate=()):
    """Mean (first, second) copy loss over the bar's seeds after ``prefix``
    random tokens, with the heads of ``ablate`` removed."""
    pairs = []
    for seed in SEEDS:
        L = int(np.random.default_rng(seed).integers(8, 21))
        ids, start = induction.repeated_ids(model.vocab_size, L, prefix, seed)
        loss = model.run(ids, ablate=ablate).loss_per_position()
        pairs.append(induction.copy_losses(loss, start, L))
    return np.mean(pairs, axis=0)


def head_scores(model):
    """``(prev, pm)``, each ``(n_layers, n_heads)``, averaged over the seeds,
    each with its own random prefix of 0-23 tokens."""
    prev, pm = [], []
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        L, prefix = int(rng.integers(8, 21)), int(rng.integers(0, 24))
        ids, start = induction.repeated_ids(model.vocab_size, L, prefix, seed)
        A = model.run(ids).attention
        prev.append(induction.previous_token(A))
        pm.append(induction.prefix_matching(A, start, L))
    return np.mean(prev, axis=0), np.mean(pm, axis=0)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default=str(induction.FOLDER))
    folder = Path(parser.parse_args(argv).folder)
    model = induction.load(folder)
    report = induction.report(folder)
    named = tuple(report["induction_head"])
    prev_heads = {tuple(h) for h in report["previous_token_heads"]}
    print(f"{folder}: {model}")

    print("\nsecond copy / first copy (mean loss, nats)")
    base = {}
    for prefix in PREFIXES:
        first, second = copy_losses(model, prefix)
        base[prefix] = second
        print(
            f"  after {prefix:2d} random tokens: {first:.2f} -> {second:.2f}"
            f"  ratio {second / first:.3f}"
        )

    prev, pm = head_scores(model)
    print("\nhead scores (rows: layers, columns: heads)")
    for name, grid in (("previous token", prev), ("prefix matching", pm)):
        print(f"  {name}:")
        for layer, row in enumerate(grid):
            print(f"    layer {layer}: " + "  ".join(f"{x:.3f}" for x in row))
    best = np.unravel_index(np.argmax(pm[1:]), pm[1:].shape)
    print(
        f"  best prefix matching in layer >= 1: L{best[0] + 1}H{best[1]}"
        f" {pm[1:].max():.3f}; report.json names L{named[0]}H{named[1]}"
        f" and previous-token heads {sorted(prev_heads)}"
    )

    print("\nsecond-copy loss with heads ablated, times the intact model's")
    print("  prefix:     " + "".join(f"{p:>7d}" for p in PREFIXES))
    rows = [
        ((layer, head),)
        for layer in range(model.n_layers)
        for head in range(model.n_heads)
    ]
    if len(prev_heads) > 1:  # the named previous-token heads together
        rows.append(tuple(sorted(prev_heads)))
    for heads in rows:
        ratios = [copy_losses(model, p, set(heads))[1] / base[p] for p in PREFIXES]
        name = "+".join(f"L{layer}H{head}" for layer, head in heads)
        print(f"  {name:<11} " + "".join(f"{r:7.2f}" for r in ratios))

    base_k = induction.k_composition_baseline(model)
    p95 = np.percentile(base_k, 95)
    print(
        f"\ncomposition of L{named[0]}H{named[1]} with layer 0 (random matrices:"
        f" mean {base_k.mean():.3f}, 95th percentile {p95:.3f})"
    )
    for head in range(model.n_heads):
        scores = [induction.composition(model, named, (0, head), k) for k in "QKV"]
        print(f"  L0H{head}: Q {scores[0]:.3f}  K {scores[1]:.3f}  V {scores[2]:.3f}")

    print_circuits(model, named, min(prev_heads))


def print_circuits(model, named, prev):
    """Lesson 13's path ablation (its section 3 texts: seeds 100-109, 12 words
    twice after 20), the OV and QK circuits' diagonal shares, and the
    in-context-learning score (200 Markov chains, seeds 900000-900199)."""
    seqs = [induction.repeated_ids(model.vocab_size, 12, 20, s)
            for s in range(100, 110)]
    print(f"\npath ablation: L{prev[0]}H{prev[1]} removed from layer 1's input"
          f" (stripe = L{named[0]}H{named[1]}'s prefix matching)")
    for name, paths in (("nothing", ""), ("queries", "Q"), ("keys", "K"),
                        ("values", "V"), ("all (ablated)", None)):
        runs = [(model.run(s, ablate={prev}) if paths is None
                 else induction.path_ablation(model, s, prev, paths), st)
                for s, st in seqs]
        stripe = np.mean([induction.prefix_matching(r.attention[named], st, 12)
                          for r, st in runs])
        second = np.mean([induction.copy_losses(r.loss_per_position(), st, 12)[1]
                          for r, st in runs])
        print(f"  {name:<14} stripe {stripe:.2f}  second copy {second:.2f} nats")
    ov = induction.diagonal_share(induction.ov_circuit(model, named))
    qk = induction.diagonal_share(induction.qk_circuit(model, named, prev))
    print(f"OV copying score {ov:.0%}, full QK circuit on the diagonal {qk:.0%}")
    texts = [induction.markov_text(model.vocab_size, 64, s)
             for s in range(900000, 900200)]
    losses = np.array([model.run(t).loss_per_position() for t in texts])
    print(f"in-context-learning score (token 50 - token 10): "
          f"{induction.icl_score(losses):+.2f} nats")


if __name__ == "__main__":
    main()
