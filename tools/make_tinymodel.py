"""Maintainer tool: retrain lesson 09's sense model from its seeds and rewrite
``data/tinymodel_weights.npz`` (byte for byte the same file)::

    .venv/bin/python -m tools.make_tinymodel [--out PATH]

The settings are ``helpers.models.tiny.SENSE_SETTINGS``; ``tests/test_tinymodel.py``
checks that the shipped file is what they give.
"""

from __future__ import annotations

import argparse

from helpers.models.tiny import (
    DEFAULT_WEIGHTS,
    evaluate_sense,
    held_out_sense,
    save_params,
    train_sense_model,
)


def main(argv=None):
    """Retrain the sense model from its seed and write the weights file."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--out", default=str(DEFAULT_WEIGHTS))
    args = parser.parse_args(argv)
    params, history, seconds = train_sense_model()
    save_params(params, args.out)
    result = evaluate_sense(params, held_out_sense())
    print(f"trained {len(history)} steps in {seconds:.2f} s, final loss "
          f"{history[-1]:.4f}")
    print(f"held-out accuracy {result['accuracy']:.1%}; the most-attended key "
          f"is a topic word in {result['topic_attention']:.1%} of held-out "
          "sentences")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
