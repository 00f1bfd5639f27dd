"""Every still figure of the series lives here, in one scheme (numpy arrays
in, a matplotlib ``Figure`` out; nothing here computes attention).

``style`` (normal and projector sizes) and ``alt`` (text alternatives) come
first; ``common`` holds what every figure shares (``AttentionFigure``, the
labels). By kind, for the figures any lesson uses: ``heatmaps``, ``vectors``,
``charts`` and ``diagrams`` (box-and-arrow drawings). One lesson's own
figures, by what they draw: ``imageplots`` (lesson 08's picture world),
``senseplots`` (lesson 09's sense model), ``gptplots`` (lesson 11),
``scaleplots`` (lesson 12), ``inductionplots``
(lesson 13), ``fixedplots`` (lesson 14); a new lesson adds its module here.

``plots`` only gathers the figures of ``heatmaps``, ``vectors`` and
``charts`` under one name, the notebooks' address (``from helpers.figures
import plots``); a module of ``helpers`` imports the module that defines
what it uses, never ``plots``. Every figure carries a text alternative made
from its numbers (``common.AttentionFigure.alt``).

Imports the layers below (``world`` for lesson 08's picture constants); the
explorers in ``helpers.widgets`` import from here.
"""
