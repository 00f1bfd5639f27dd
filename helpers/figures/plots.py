"""Pictures of attention: labelled heatmaps, head grids, vector views and charts.

This module only gathers the figures of ``helpers.figures`` under one name,
the notebooks' (``from helpers.figures import plots``): heatmaps in
``figures.heatmaps``, vectors as bars and strips in ``figures.vectors``, bars
and curves in ``figures.charts``, what they share in ``figures.common``. No
module of ``helpers`` imports it: each imports the module that defines what
it uses (``tests/test_structure.py`` checks).

Every function takes arrays and labels and returns a matplotlib ``Figure``;
none of them computes attention. Figures are built without pyplot, so calling
these functions opens no pyplot windows and leaves no figures behind
(``plt.get_fignums()`` is unchanged), and one call never affects the next.

Displaying a figure: make it the **last expression of a cell** (``fig``), or
call ``display(fig)``. Do not end the cell with ``;`` and do not only assign
it: a figure made here is not registered with pyplot, so nothing draws it
automatically at the end of the cell. Shown that way, the notebook stores
the PNG plus a short text line naming the figure (never ``<Figure size ...>``).
Save with ``fig.savefig("name.png")`` or ``fig.savefig("name.svg")``.

Conventions: rows are queries, columns are keys (``convention="video"`` in
:func:`heatmap` draws the transpose, as in the video-style lesson). Colour
maps: viridis for weights and other non-negative values (perceptually
uniform, readable in greyscale); a diverging map centred on 0 ("RdBu_r",
symmetric limits) for signed values.
"""

from __future__ import annotations

from helpers.figures.charts import bar_view, loglog_cost, sense_by_layer
from helpers.figures.common import (
    KEY_LABEL,
    MASKED_COLOUR,
    MAX_ANNOTATED_CELLS,
    MAX_LABEL_CHARS,
    MAX_TICK_LABELS,
    QUERY_LABEL,
    AttentionFigure,
    _figure_title,
    _new_figure,
    number_text,
    short_label,
)
from helpers.figures.heatmaps import (
    both_conventions,
    head_grid,
    heatmap,
    mask_view,
    model_heads,
)
from helpers.figures.vectors import vector_view

__all__ = [
    "AttentionFigure",
    "bar_view",
    "both_conventions",
    "head_grid",
    "number_text",
    "short_label",
    "heatmap",
    "loglog_cost",
    "mask_view",
    "sense_by_layer",
    "vector_view",
    "model_heads",
    # also used under this name (the tests)
    "KEY_LABEL",
    "MASKED_COLOUR",
    "MAX_ANNOTATED_CELLS",
    "MAX_LABEL_CHARS",
    "MAX_TICK_LABELS",
    "QUERY_LABEL",
    "_figure_title",
    "_new_figure",
]
