"""The models of the series, side by side, numpy only (no module here draws).

* ``tiny/`` (lesson 09): the tiny attention model (``tiny.model``) with its
  data (``tiny.corpus``), its training (``tiny.training``) and its weights
  file (``tiny.weights``); ``from helpers.models import tiny as tm`` gathers
  them under one name.
* ``nexttoken`` (lesson 11): the toy unembedding (from the last vector to the
  next word) and the no-mask experiment, which trains the tiny model twice.
* ``pretrained`` (lesson 10): all-MiniLM-L6-v2, a real pretrained encoder,
  read from its published files and run in numpy.
* ``gpt`` (lessons 11-13): the small GPT trained on Shakespeare
  (``data/gpt/``), and lesson 13's attention-only model (``data/induction/``);
  ``gpt_training`` trains the latter, forward and backward pass written out.
* ``repeats``: sequences written twice and the scores measured on them
  (what ``gpt_training`` needs; ``helpers.analysis.induction`` re-exports them).
* ``qknorm`` (lesson 14): the one-head QK-norm training toy.
* ``layers``: the pieces the models share (LayerNorm, its backward pass).

Imports the layers below: ``runtime``, ``attention``, ``world``. What
measures, draws or explores the models lives above: ``helpers.analysis``,
``helpers.figures``, ``helpers.widgets``.
"""
