"""Interactive explorers: change a sentence or a setting, watch the picture follow.

Every explorer is a function that returns **one** object. That object is an
ipywidgets ``VBox`` (so it shows as a live widget in JupyterLab and Colab and
can be put into other boxes) and it also carries a static PNG of its current
picture plus a short ``text/plain`` line, so that a reader of the stored
notebook on GitHub still sees the picture.

Its inputs are plain ipywidgets attributes, and it exposes what it last drew::

    ex = pattern_explorer()
    ex.sentence.value = "the cat sat on the mat"   # updates synchronously
    ex.tokens      # ['the', 'cat', ...]   (at most MAX_TOKENS of them)
    ex.weights     # numpy array: what the picture shows (see each explorer)
    ex.message     # "" or a short note ("Showing the first 24 of 300 tokens.")
    ex.figure      # the matplotlib Figure that is reused for every picture
    ex.artists     # its panels (ex.artists.heat, ...), see panels.py
    ex.draw_count  # how many pictures have been drawn

Bad input never raises out of a callback: an empty sentence, a word the
lexicon does not know, 300 words, emoji or text that looks like HTML each give
a short message and a sensible picture. User text is never put into HTML
unescaped (messages are shown in a plain-text ``Label``).

Speed (``engine.py``): the figure is built once; an update changes the data
of the existing artists, restores a cached background and draws only what
changed. When several updates arrive at once (a dragged slider, fast typing)
the state is computed for each, synchronously, but the drawing is scheduled
on the running asyncio event loop and waits until the inputs have been quiet
for ``SETTLE`` seconds: a burst gives exactly one picture, showing the last
input. (A plain ``loop.call_soon`` is not enough: the kernel lets the loop
run between two widget messages.) Without a running event loop (plain
Python, tests) every update draws at once.

For a browser test the widgets carry DOM classes: ``attn-explorer`` (the
box), ``attn-picture`` (the Image), ``attn-sentence`` (the main text box),
``attn-message`` (the Label), and ``attn-input`` plus ``attn-<name>`` on
every input (``attn-temperature``, ``attn-token``, ``attn-target``,
``attn-layer``, ...).

Modules: ``engine`` (drawing), ``panels`` (heatmap, bars), ``base`` (the
explorer base, reading sentences), then one module per lesson group:
``words`` (00-02), ``patterns`` (03-04), ``updates`` (05-06), ``multihead``
(07), ``cross`` (08), ``trained`` (09, with the training monitor),
``realmodel`` (10, a real pretrained model), ``lesson11`` (11, the small
GPT: attention and next-token prediction, ``gpt_explorer``), ``lesson12``
(12, tiled attention sweeping the score grid, ``tiling_explorer``).
"""

from helpers.attention import attention_parameters
from helpers.widgets.cross import cross_explorer
from helpers.widgets.engine import MAX_TOKENS, WEIGHT_RANGE, mime_bundle
from helpers.widgets.lesson11 import gpt_explorer
from helpers.widgets.lesson12 import tiling_explorer
from helpers.widgets.multihead import multi_head_explorer, parameter_calculator
from helpers.widgets.patterns import pattern_explorer, qk_explorer
from helpers.widgets.realmodel import real_attention_explorer
from helpers.widgets.trained import TrainingMonitor, loss_figure, sense_explorer
from helpers.widgets.updates import mask_explorer, update_explorer
from helpers.widgets.words import embedding_explorer, first_taste, weighted_sum_explorer

__all__ = [
    "MAX_TOKENS",
    "WEIGHT_RANGE",
    "TrainingMonitor",
    "attention_parameters",
    "cross_explorer",
    "embedding_explorer",
    "first_taste",
    "gpt_explorer",
    "loss_figure",
    "mask_explorer",
    "mime_bundle",
    "multi_head_explorer",
    "parameter_calculator",
    "pattern_explorer",
    "qk_explorer",
    "real_attention_explorer",
    "sense_explorer",
    "tiling_explorer",
    "update_explorer",
    "weighted_sum_explorer",
]
