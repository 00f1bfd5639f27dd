"""The models of the series, side by side, numpy only (no module here draws).

* ``tiny`` (lesson 09: the tiny attention model) with its data
  (``tiny_corpus``), its training (``tiny_training``) and its weights file
  (``tiny_io``); ``helpers.models.tiny`` gathers them under one name.
* ``pretrained`` (lesson 10): all-MiniLM-L6-v2, a real pretrained encoder,
  read from its published files and run in numpy.
* ``gpt`` (lesson 11): the small GPT trained on Shakespeare (``data/gpt/``).
* ``sinks`` (lesson 12): that GPT's forward pass with any mask (a sliding
  window, with or without its first tokens kept) on a held-out passage.

``from helpers import pretrained`` and ``from helpers import gpt`` give the
same two module objects (``helpers/__init__.py``). What measures, draws or
explores them lives apart: ``helpers.analysis.probing``, ``helpers.figures.gptplots``,
``helpers.widgets``.
"""
