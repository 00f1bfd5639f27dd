"""Helpers for the self-attention notebooks: one module per idea.

``attention`` (the math), ``lexicon`` (tokens and the toy embedding table),
``heads`` (hand-built heads), ``plots``, ``widgets`` (the explorers),
``checks`` (exercise checkers), ``tinymodel`` (the trainable model),
``pretrained`` (a real pretrained transformer in numpy, lesson 10).
"""

__version__ = "0.1.0"
