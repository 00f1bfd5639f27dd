"""Helpers for the self-attention notebooks: one module per idea.

``attention`` (the math), ``lexicon`` (tokens and the toy embedding table),
``heads`` (hand-built heads), ``tinymodel`` (the trainable model, numpy
only), ``plots``, ``widgets`` (the explorers), ``style`` (picture sizes,
projection mode), ``checks`` (exercise checkers), ``notebook`` (what each
lesson's first cell sets up).
"""

from helpers.notebook import setup_notebook

__version__ = "0.1.0"
__all__ = ["setup_notebook"]
