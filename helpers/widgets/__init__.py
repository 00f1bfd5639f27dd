"""Interactive explorers: change a sentence or a setting, watch the picture follow.

Every explorer is a function that returns **one** object. That object is an
ipywidgets ``VBox`` (so it shows as a live widget in JupyterLab and Colab and
can be put into other boxes) and it also carries a static PNG of its current
picture plus a short ``text/plain`` line, so that a reader of the stored
notebook on GitHub still sees the picture.

Its inputs are plain ipywidgets attributes, and it exposes what it last drew::

    ex = pattern_explorer()
    ex.sentence.value = "the cat sat on the mat"   # updates synchronously
    ex.tokens      # ['the', 'cat', ...]   (at most MAX_TOY_TOKENS of them)
    ex.weights     # numpy array: what the picture shows (see each explorer)
    ex.scores      # ... and every other value it shows, under one name
    ex.message     # "" or a short note ("Showing the first 24 of 300 tokens.")
    ex.figure      # the matplotlib Figure that is reused for every picture
    ex.artists     # its panels (ex.artists.heat, ...), see panels.py
    ex.draw_count  # how many pictures have been drawn
    ex.save("figures/pattern")  # figures/pattern.png and figures/pattern.csv

``.weights`` is the attention pattern for most explorers; for lesson 01's
``embedding_explorer`` it is the embedding matrix E (its own name:
``.embedding``), for ``parameter_calculator`` an empty array (``.counts``).
Each explorer class declares once what it shows beyond ``.tokens`` and
``.weights`` (``shows`` in ``base.py``); its inputs are the widgets of its
controls that hold a value.

``save(name)`` (every explorer has it, ``base.Explorer.save``) writes the
current picture as a PNG (the very bytes shown) and the numbers it shows as a
CSV: the key tokens as the header, each row starting with its query token
(several heads stacked under a ``head`` column); layouts in ``saving.py``.

Bad input never raises out of a callback: an empty sentence, a word the
lexicon does not know, 300 words, emoji or text that looks like HTML each give
a short message and a sensible picture. User text is never put into HTML
unescaped (messages are shown in a plain-text ``Label``).

Speed (``engine.py``; the limits in ``policy.py``): the figure is built
once; an update changes the data of the existing artists, restores a cached
background and draws only what changed. When several updates arrive at once
(a dragged slider, fast typing) the state is computed for each,
synchronously, but the drawing is scheduled on the running asyncio event
loop and waits until the inputs have been quiet for ``SETTLE`` seconds: a
burst gives exactly one picture, showing the last input. (A plain
``loop.call_soon`` is not enough: the kernel lets the loop run between two
widget messages.) Without a running event loop (plain Python, tests) every
update draws at once.

For a browser test the widgets carry DOM classes: ``attn-explorer`` (the
box), ``attn-picture`` (the Image), ``attn-sentence`` (the main text box),
``attn-message`` (the Label), and ``attn-input`` plus ``attn-<name>`` on
every input (``attn-temperature``, ``attn-token``, ``attn-target``,
``attn-layer``, ...); ``attn-projector`` on an explorer in projection mode.

Point at any number (issue 51; ``pointer.py``, ``pointer.js``, ``guess.py``,
``lines.py``): every picture's numbers travel with it (``ex.panels``: each
grid's and chart's box in the PNG, labels and values), so that in the
browser the pointer shows a ``role="tooltip"`` read-out, each panel is one
Tab stop read cell by cell with the arrow keys (``role="grid"``), and a
click on a row's label (or Enter) picks that query (``ex.picked``; the
message line names its three largest keys). Lessons 04, 07, 11 and 13 have
"Guess first" and "Reveal" (``attn-guess``), lessons 04 and 11 "Lines",
the head view (``attn-lines``).

Sizes (issue 39; ``screen.ScreenFit``, numbers in ``helpers.figures.style``):
a picture is shown at its own pixels, never stretched to the cell's width,
and every explorer of the table fits a laptop's notebook area whole (1366 x
768 in JupyterLab: controls, picture and message). The rule is in the base
class, so a new explorer gets it: where the explorer would be taller than the
window's notebook area, its picture is scaled down to fit. In projection mode
the controls grow with the pictures.

Modules: ``kit`` (start here: everything an explorer module imports, by its
public name, and the rules an explorer follows), ``base`` (the explorer:
``Explorer``, ``SentenceExplorer``, ``State``; inputs -> state -> picture),
``screen`` (its size on the screen), ``output`` (``save``, ``repr``, the
display bundle), ``policy`` (the token cap, the debounce, the shared
colours), ``engine`` (drawing), ``panels`` (heatmap, bars, the pixel
heatmap, the feature-column heatmap), ``saving`` (the PNG and CSV layouts of
``save``), ``reading`` (reading typed sentences), ``controls`` (text boxes,
dropdowns, the token picker), ``toy`` (the lessons' sentences and hand-built
heads), ``sizing`` and ``access`` (the stylesheet, the keyboard and the text
alternative in the browser), then ``lessonNN`` for every lesson with an
explorer (``lesson00`` ... ``lesson14``, the numbers of
``checks/lessonNN.py``), with ``*_parts`` modules that belong to one lesson;
no lesson module imports another. :data:`EXPLORERS` below is the one table of
explorers (lesson, title, factory, one-line instruction, and what the tests
need: ``lexicon``, ``examples``, ``needs``): the playground's pages
(:class:`PageMenu`), the widget tests, the browser test, the widget
benchmark and ``tools/measure_memory.py`` read it. Adding an explorer is one
function in ``lessonNN.py`` plus one import and one row here
(CONTRIBUTING.md, "Add an explorer").
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Callable, Mapping, NamedTuple

import ipywidgets

from helpers.figures.charts import loss_figure  # a still figure; lesson 09's address
from helpers.widgets.base import mime_bundle
from helpers.widgets.lesson00 import first_taste
from helpers.widgets.lesson01 import embedding_explorer
from helpers.widgets.lesson02 import weighted_sum_explorer
from helpers.widgets.lesson03 import qk_explorer
from helpers.widgets.lesson04 import VIDEO, pattern_explorer
from helpers.widgets.lesson05 import update_explorer
from helpers.widgets.lesson06 import mask_explorer
from helpers.widgets.lesson07 import multi_head_explorer, parameter_calculator
from helpers.widgets.lesson08 import cross_explorer, image_explorer
from helpers.widgets.lesson09 import TrainingMonitor, sense_explorer
from helpers.widgets.lesson10 import real_attention_explorer
from helpers.widgets.lesson11 import gpt_explorer
from helpers.widgets.lesson12 import tiling_explorer
from helpers.widgets.lesson13 import induction_explorer
from helpers.widgets.lesson14 import memory_explorer
from helpers.widgets.policy import MAX_TOY_TOKENS, WEIGHT_RANGE


#: A French sentence of 24 words: the second text of the cross explorer's
#: examples (the tests cut it to the first sentence's length).
_FRENCH = ("le chat noir mange le poisson dans la maison de la grande m\u00e8re avec "
           "le petit chien noir qui dort sur le tapis rouge")


class ExplorerRow(NamedTuple):
    """One explorer: its lesson, its title in the playground's menu (after
    the lesson number), the factory and a one-line instruction for its page;
    then what the tests need to know (every test that needs explorers reads
    this table, there is no other list):

    * ``lexicon``: it reads typed words with the toy lexicon (lessons
      00-09): the bad-input test types odd text into each of its text boxes.
      An explorer that reads anything else (word pieces, numbers) has its
      own test file for odd input.
    * ``examples``: the settings the label tests draw it with, on sentences
      of 12, 16 and 24 words of the toy lexicon: variant name -> keyword
      arguments of ``factory(sentence, **kwargs)``; a text of several words
      among them (a second sentence) is cut to the same number of words.
      Empty: no token labels to check (the pictures have none, or they are
      not the typed words).
    * ``needs``: a data file (from the repository's root) without which it
      cannot run; its tests are skipped when the file is missing.
    """

    lesson: int
    title: str
    factory: Callable
    instruction: str
    lexicon: bool = False
    examples: Mapping[str, Mapping] = MappingProxyType({})
    needs: str = ""

    @property
    def name(self) -> str:
        """The factory's public name, e.g. ``"pattern_explorer"``."""
        return self.factory.__name__

    @property
    def tab(self) -> str:
        """The explorer's title in the playground's menu, e.g. ``"04 Pattern"``."""
        return f"{self.lesson:02d} {self.title}"


#: The one table of explorers, in teaching order.
EXPLORERS = (
    ExplorerRow(0, "First look", first_taste,
                "Type any sentence: each row shows where that word looks.",
                lexicon=True, examples={"": {}}),
    ExplorerRow(1, "Embeddings", embedding_explorer,
                "Type a sentence: one row of features per word; a red '?' marks an "
                "unknown word.",
                lexicon=True, examples={"": {}}),
    ExplorerRow(2, "Weighted sum", weighted_sum_explorer,
                "Pick a target word: its new vector is the weighted sum of the whole "
                "sentence.",
                lexicon=True, examples={"": {"token": "bank"}}),
    ExplorerRow(3, "Query, key", qk_explorer,
                "Pick a query token and compare what it looks for with what every key "
                "offers.",
                lexicon=True, examples={"": {"token": "creature"}}),
    ExplorerRow(4, "Pattern", pattern_explorer,
                "Drag the temperature: low sharpens each row, high flattens it.",
                lexicon=True, examples={"": {}, "video": {"convention": VIDEO}}),
    ExplorerRow(5, "Update", update_explorer,
                "Pick 'bank' or 'mole' and change the clue words: watch the sense "
                "move.",
                lexicon=True, examples={
                    "": {"token": "bank"},
                    "adjective": {"token": "creature", "head": "adjective"}}),
    ExplorerRow(6, "Masking", mask_explorer,
                "Step through scores, mask, softmax and output; switch the mask off "
                "and on.",
                lexicon=True, examples={"": {}, "output": {"step": 4}}),
    ExplorerRow(7, "Heads", multi_head_explorer,
                "Pick one head, or all of them, on the same sentence.",
                lexicon=True, examples={"one": {"head": "sense"}, "all": {}}),
    ExplorerRow(7, "Parameters", parameter_calculator,
                "Change d_model, d_k, heads and layers: count the parameters of "
                "attention.",
                lexicon=True),
    ExplorerRow(8, "Cross", cross_explorer,
                "Edit the English or the French sentence: rows are French queries.",
                lexicon=True, examples={"": {"target": _FRENCH}}),
    ExplorerRow(8, "Picture", image_explorer,
                "Type a caption: each word lights the patches of the picture it looks "
                "at.",
                lexicon=True),
    ExplorerRow(9, "Trained model", sense_explorer,
                "Type a sentence with 'bank' or 'mole': the trained model picks a "
                "sense.",
                lexicon=True, examples={"": {}},
                needs="data/tinymodel_weights.npz"),
    ExplorerRow(10, "Real model", real_attention_explorer,
                "Type any sentence: a real model's 12 heads of one layer, or pick one "
                "head."),
    ExplorerRow(11, "GPT", gpt_explorer,
                "Type a prompt: a small GPT's attention and next tokens; Generate adds "
                "20."),
    ExplorerRow(12, "At scale", tiling_explorer,
                "Step through the key blocks: running max and sum per row; change "
                "block and window."),
    ExplorerRow(13, "Induction", induction_explorer,
                "New random repeat: framed cells mark where an induction head "
                "would look."),
    ExplorerRow(14, "Fixed memory", memory_explorer,
                "Type facts like Ada=3, pick a memory, move N: which names come "
                "back (\u2717 = failed)?"),
)


class PageMenu(ipywidgets.VBox):
    """Pages shown one at a time, chosen in one compact row: a dropdown of
    their titles (``.menu``, DOM class ``attn-menu``) and previous / next
    buttons. What the playground uses instead of a tab bar: 15 tab titles
    do not fit one row of a laptop's or a projector's screen, and a second
    row of tabs takes room from the pictures. ``.pages`` are the pages,
    ``.index`` the one shown. A page may be given as a function without
    arguments that makes it: it is made when first shown (``.page_at(i)``),
    so that the first page is ready at once and a page nobody opens costs
    nothing (the playground makes one explorer, not 17, before it shows).
    In projection mode (``helpers.figures.style``) the
    menu carries the DOM class ``attn-projector`` and grows with the
    explorers' controls."""

    def __init__(self, titles, pages, description="Explorer:"):
        from helpers.figures import style
        from helpers.widgets.controls import fit_dropdown

        self.pages = list(pages)
        self.titles = [str(t) for t in titles]
        self.menu = fit_dropdown([(t, i) for i, t in enumerate(self.titles)],
                                 description, value=0)
        self.menu.add_class("attn-menu")
        self.previous = ipywidgets.Button(description="\u25c0 previous",
                                          layout=ipywidgets.Layout(width="auto"))
        self.next = ipywidgets.Button(description="next \u25b6",
                                      layout=ipywidgets.Layout(width="auto"))
        self.page = ipywidgets.Box([self.page_at(0)] if self.pages else [])
        self.menu.observe(self._show, names="value")
        self.previous.on_click(lambda _: self._step(-1))
        self.next.on_click(lambda _: self._step(1))
        super().__init__([ipywidgets.HBox([self.menu, self.previous, self.next]),
                          self.page])
        if style.current() is style.PROJECTOR:
            self.add_class("attn-projector")

    @property
    def index(self) -> int:
        return int(self.menu.value)

    def _step(self, by):
        if self.pages:
            self.menu.value = (self.index + by) % len(self.pages)

    def page_at(self, i):
        """Page ``i``, made now if it was given as a function."""
        page = self.pages[i]
        if not isinstance(page, ipywidgets.Widget) and callable(page):
            page = self.pages[i] = page()
        return page

    def _show(self, change=None):
        self.page.children = [self.page_at(self.index)]


__all__ = [
    "EXPLORERS",
    "MAX_TOY_TOKENS",
    "WEIGHT_RANGE",
    "ExplorerRow",
    "TrainingMonitor",
    "loss_figure",
    "mime_bundle",
    "PageMenu",
] + [row.name for row in EXPLORERS]
