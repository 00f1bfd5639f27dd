"""Helpers for the self-attention notebooks: one module per idea.

``attention`` (the math), ``lexicon`` (tokens and the toy embedding table),
``heads`` (hand-built heads), ``tinymodel`` (the trainable model, numpy
only), ``plots`` (figures of data), ``diagrams`` (the pipeline and block
drawings), ``style`` (normal and projector sizes), ``widgets`` (the
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
