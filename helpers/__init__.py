"""Helpers for the self-attention notebooks: one module per idea.

``attention`` (the math), ``lexicon`` (the toy embedding table; its pieces
``tokens``, ``features``, ``wordforms`` and ``positions``), ``sentences`` (the lessons'
example sentences), ``heads`` (hand-built heads), ``models/`` (the models,
numpy only: lesson 09's tiny model, lesson 10's pretrained encoder
``models.pretrained`` and lesson 11's small GPT ``models.gpt``), ``tinymodel``
(lesson 09's model under one name), ``plots`` (the still figures any lesson
uses, gathered from ``figures/``), ``figures/`` (every figure: by kind in
``heatmaps``, ``vectors``, ``charts``, ``diagrams``; one lesson's own figures in
``gptplots``, ``scaleplots``, ``imageplots``, ``inductionplots``), ``style``
(normal and projector sizes), ``widgets`` (the explorers), ``checks``
(exercise checkers), ``notebook`` (what each lesson's first cell sets up),
``probing`` (lesson 10's measurements on the pretrained model),
``nexttoken`` (the toy unembedding and the no-mask experiment, lesson 11) and
``timing`` (lesson 12's best-of-several timing on one BLAS thread).

``from helpers import pretrained`` and ``from helpers import gpt`` still work:
they give the very module ``helpers.models.pretrained`` / ``helpers.models.gpt``
(one object, so a test that patches ``pretrained.load`` patches what the
helpers call), imported on first use. ``import helpers.pretrained`` does not:
the files live in ``helpers/models/``.
"""

from helpers.notebook import setup_notebook

__version__ = "0.1.0"
__all__ = ["setup_notebook"]


def __getattr__(name):
    """``helpers.pretrained`` and ``helpers.gpt``, the models' old addresses:
    the module of ``helpers/models/``, imported on first use (PEP 562)."""
    if name == "pretrained":
        from helpers.models import pretrained as module
    elif name == "gpt":
        from helpers.models import gpt as module
    else:
        raise AttributeError(f"module 'helpers' has no attribute {name!r}")
    globals()[name] = module
    return module
