"""Helpers for the self-attention notebooks: one module per idea, grouped in
layers. A layer imports only from the layers before it (and from itself):

1. ``runtime``: how the helpers run on the machine they are given
   (``timing``: lesson 12's best-of-several timing on one BLAS thread).
2. ``attention``: the math, numpy only. ``core`` (softmax and its backward
   pass, the causal mask, scaled dot-product, multi-head and cross
   attention), ``scale`` (lesson 12: tiled and grouped-query attention, RoPE,
   the sliding window, the KV cache's size), ``fixed_state`` (lesson 14:
   linear attention, the delta rule) and ``inputs`` (their shared input
   checks). ``from helpers.attention import softmax`` gives every public
   function.
3. ``world``: the toy world. ``tokens``, ``wordforms``, ``features`` and
   ``positions``, gathered by ``lexicon`` (the toy embedding table);
   ``sentences`` (the lessons' example sentences), ``heads`` (the hand-built
   heads), ``images`` (lesson 08's picture world), ``recall`` (lesson 14's
   task).
4. ``models``: the models, numpy only. ``tiny/`` (lesson 09), ``nexttoken``
   (lesson 11's toy unembedding), ``pretrained`` (lesson 10's encoder),
   ``gpt`` and ``gpt_training`` (lessons 11-13), ``repeats`` (the repeated
   sequences lesson 13 trains and measures on), ``qknorm`` (lesson 14's
   QK-norm toy), ``layers`` (what the models share: LayerNorm).
5. ``analysis``: what lessons 10-14 measure on the models. ``probing``
   (lesson 10), ``sinks`` (lesson 12), ``induction`` and ``circuits``
   (lesson 13).
6. ``figures``: every still figure. ``style`` (normal and projector sizes),
   ``alt`` (text alternatives), ``common``, the figures by kind
   (``heatmaps``, ``vectors``, ``charts``, ``diagrams``) and by lesson
   (``imageplots``, ``gptplots``, ``scaleplots``, ``inductionplots``,
   ``fixedplots``); ``plots`` gathers the first kinds under one name for the
   notebooks.
7. ``checks`` (the exercise checkers, one module per lesson) and ``widgets``
   (the explorers, one module per lesson, and their kit): one layer; neither
   imports the other.
8. ``notebook``: ``setup_notebook``, what the first cell of every lesson calls
   (also ``helpers.setup_notebook``, the one name this package root gives).

No module imports a private name (``_x``) of another layer's package.
``tests/test_structure.py`` enforces the order over the import graph (lazy
imports included) and names any import that breaks it.
"""

from helpers.notebook import setup_notebook

__version__ = "0.1.0"
__all__ = ["setup_notebook"]
