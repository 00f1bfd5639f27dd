"""Helpers for the self-attention notebooks: one module per idea.

``attention`` (the math), ``lexicon`` (the toy embedding table; its pieces
``tokens``, ``features``, ``wordforms`` and ``positions``), ``sentences`` (the lessons'
example sentences), ``heads`` (hand-built heads), ``tinymodel`` (the
trainable model of lesson 09, numpy only; its parts live in ``models/``),
``plots`` (figures of data; by kind in ``figures/``), ``diagrams`` (the
pipeline and block drawings), ``style`` (normal and projector sizes), ``widgets`` (the
explorers), ``checks`` (exercise checkers), ``notebook`` (what each
lesson's first cell sets up),
``pretrained`` (a real pretrained transformer in numpy, lesson 10),
``nexttoken`` (the toy unembedding and the no-mask experiment, lesson 11),
``gpt`` (a small GPT trained on Shakespeare, in numpy, lesson 11) and
``gptplots`` (lesson 11's figures).
"""

from helpers.notebook import setup_notebook

__version__ = "0.1.0"
__all__ = ["setup_notebook"]
