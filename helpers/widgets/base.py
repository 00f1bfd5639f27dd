"""The explorer base: inputs -> state (synchronously) -> one picture.

:class:`Explorer` turns its input widgets into a :class:`State`
(``_compute``), then draws it (``_paint``) with the engine;
:class:`SentenceExplorer` adds a sentence box and, optionally, a token picker.

An explorer declares each input and each value it shows once:

* inputs are the widgets in its controls that hold a ``value`` (text boxes,
  sliders, dropdowns, ...; not labels or buttons): every one is observed;
* ``shows`` maps each value it shows, beyond ``.tokens`` and ``.weights``,
  to its value before anything is shown::

      class _QKExplorer(SentenceExplorer):
          token_label = "Query token:"
          shows = {"query_vector": None, "key_vectors": None, "scores": None,
                   "target": None}

  ``_compute`` returns a ``State`` with exactly these fields (an empty one
  may leave them out: they go back to their ``shows`` value), plus
  ``tokens``, ``labels``, ``weights``, ``notes`` and fields starting with
  ``_`` that only the picture reads. After every update each shown field
  is an attribute of the explorer under the same name (``ex.scores`` is
  ``state.scores``), and ``_paint`` reads the same names. A state that lacks
  a declared name or sets an undeclared one is a programming error: the
  update stops with ``.last_error`` set and a message (tests fail on it; a
  widget callback never raises).

This module is the state and the drawing: ``refresh`` (inputs -> state),
the draw scheduling (one picture per burst of updates) and the picture's
text alternative. The explorer's other two jobs are mixins: its size on the
screen (:class:`helpers.widgets.screen.ScreenFit`) and saving and display
(:class:`helpers.widgets.output.SaveAndDisplay`). What an explorer module
imports is gathered, with public names, in :mod:`helpers.widgets.kit`.
"""

from __future__ import annotations

import asyncio
import time
import warnings
import weakref
from collections import OrderedDict
from contextlib import contextmanager
from types import SimpleNamespace

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from helpers.figures import style
from helpers.figures import alt as alt_text
from helpers.widgets import guess, hearing, pointer
from helpers.widgets.access import make_access
from helpers.widgets.controls import TokenPicker, sentence_box
from helpers.widgets.engine import FigureArtists, render_png
from helpers.widgets.output import (  # noqa: F401  (in_app: the playground's)
    SaveAndDisplay, in_app, load_or_explain, mime_bundle)
from helpers.widgets.policy import MAX_WAIT, SETTLE
from helpers.widgets.screen import ScreenFit
from helpers.widgets.sizing import (  # noqa: F401  (MESSAGE_STYLE: the tests')
    MESSAGE_STYLE, controls_height, picture_layout, png_size)

#: Every explorer alive, so that switching the sizes (projection mode)
#: redraws the ones already shown.
_LIVE = weakref.WeakSet()


def _sizes_changed():
    for ex in list(_LIVE):
        try:
            ex.redraw()
        except Exception:  # never let one explorer stop the switch
            pass


style.on_change(_sizes_changed)


class State(SimpleNamespace):
    """What one update computed: ``tokens`` (n), ``labels`` (their drawable
    text), ``weights`` (what the picture shows), ``notes`` (the message, a
    list of sentences), ``empty`` (nothing to draw: ``placeholder`` is shown
    instead), the explorer's ``shows`` values, and ``_``-fields for the
    picture only."""

    def __init__(self, *, tokens=(), weights=None, notes=(), empty=False,
                 placeholder="", labels=None, **fields):
        super().__init__(tokens=list(tokens),
                         labels=list(tokens) if labels is None else list(labels),
                         weights=np.zeros((0, 0)) if weights is None else weights,
                         notes=list(notes), empty=bool(empty),
                         placeholder=placeholder, **fields)


#: The fields every state has (not listed in ``shows``).
STATE_FIELDS = frozenset(vars(State()))


def empty_state(read, placeholder="Type a sentence above", weights_shape=(0, 0),
                **fields):
    """The state of an input with nothing to draw (``read``: what ``_read``
    returned, or anything with ``tokens`` and ``notes``)."""
    return State(empty=True, placeholder=placeholder, tokens=read.tokens,
                 weights=np.zeros(weights_shape), notes=read.notes, **fields)


def _inputs(controls):
    """The widgets in ``controls`` (and their boxes) that hold a value a
    learner sets: not labels, HTML, pictures or buttons."""
    shown_only = (widgets.Label, widgets.HTML, widgets.HTMLMath, widgets.Image)
    found = []
    for w in controls:
        if isinstance(w, widgets.Box):
            found += _inputs(w.children)
        elif w.has_trait("value") and not isinstance(w, shown_only):
            found.append(w)
    return found


class Explorer(ScreenFit, SaveAndDisplay, widgets.VBox):
    """Common machinery: inputs -> state (synchronously) -> one picture.

    A subclass gives ``kind``, ``figsize``, ``shows`` (see the module
    docstring) and three methods: ``_build(art)`` makes the panels once,
    ``_compute()`` reads the inputs into a :class:`State`, ``_paint(art,
    state)`` updates the panels and returns a key naming the static content
    (axes, limits) whose background the engine caches. Everything else
    comes from here and the two mixins (:mod:`helpers.widgets.kit` lists it).
    """

    kind = "explorer"
    figsize = (7.0, 5.0)
    #: value shown -> its value before anything is shown (the module docstring)
    shows: dict = {}
    #: ``.weights`` is an attention pattern: every row sums to 1 (the tests
    #: check it). False for an explorer whose ``.weights`` are other numbers
    #: (lesson 01's embeddings, scores before the softmax).
    weights_are_pattern = True

    def __init__(self, controls):
        super().__init__()
        self._init_screen(controls)  # ScreenFit's state (screen.py)
        clash = [n for n in self.shows if isinstance(getattr(self, n, None),
                                                     widgets.Widget)]
        if clash:
            raise TypeError(f"{type(self).__name__} shows values named like its "
                            f"widgets: {clash}")
        self.tokens = []
        self.weights = np.zeros((0, 0))
        for name, value in self.shows.items():
            setattr(self, name, value)
        self.message = ""
        self.alt = ""  # the picture's text alternative (``_describe``)
        self.draw_count = 0
        self.update_count = 0
        self.last_error = None
        self._state = None
        self._pending = False
        self._pending_loop = None
        self._pending_since = self._last_request = 0.0
        self._quiet = False
        self._bg_cache = OrderedDict()
        self._new_figure()
        self.picture = widgets.Image(format="png", value=b"",
                                     layout=picture_layout())
        self.picture.add_class("attn-picture")
        self.message_label = widgets.Label(value="")
        self.message_label.add_class("attn-message")
        self.access = make_access()  # keys kept, alt text, live message
        pointer.attach(self)  # issue 51 hook: read-outs, keys, picking
        extra = tuple(w for w in (self.access, self.pointer) if w is not None)
        if self.access is not None:
            self.access.layout.display = "none"
        shown = guess.with_row(tuple(controls), guess.row(self))  # issue 51 hook
        self.children = shown + (self.picture, self.message_label,
                                 widgets.HTML(value=MESSAGE_STYLE)) + extra
        self.add_class("attn-explorer")
        self._init_screen(shown)  # the Guess row counts in the controls' height
        self._fit_screen()
        names = {id(v): k for k, v in vars(self).items()
                 if isinstance(v, widgets.Widget)}
        for w in _inputs(controls):
            w.add_class("attn-input")
            if id(w) in names:  # e.g. attn-temperature, attn-token, attn-head
                w.add_class("attn-" + names[id(w)].replace("_", "-"))
            w.observe(self._on_change, names="value")
        _LIVE.add(self)
        self.refresh()

    # -- machinery -------------------------------------------------------
    def _new_figure(self):
        """Build the figure at the resolution of the current sizes
        (``helpers.figures.style``): ``.figure``, its canvas and ``.artists``."""
        self.figure = Figure(figsize=self.figsize, dpi=self._dpi())
        self._canvas = FigureCanvasAgg(self.figure)
        self._bg_cache.clear()
        self.artists = self._new_artists(self.figure)

    def redraw(self):
        """Draw the current state again, rebuilding the figure first when the
        sizes (``helpers.figures.style.projector``) changed since it was built."""
        self._fit_screen()
        if self.figure.dpi != self._dpi():
            self._new_figure()
        if self._state is not None:
            self._draw_now()

    def _new_artists(self, fig):
        art = FigureArtists(fig)
        self._build(art)
        art.placeholder = art.text(0.5, 0.5, "", ha="center", va="center",
                                   fontsize=14, color="#555555")
        return art

    def _check(self, state):
        """Raise when ``state`` lacks a name of ``shows`` or sets one that is
        not there (a programming error, caught in tests)."""
        public = {k for k in vars(state) if not k.startswith("_")} - STATE_FIELDS
        undeclared = sorted(public - set(self.shows))
        missing = [] if state.empty else sorted(set(self.shows) - public)
        if undeclared or missing:
            raise AttributeError(
                f"{type(self).__name__}: state sets {undeclared} not in shows, "
                f"lacks {missing} of shows")

    @contextmanager
    def quietly(self):
        """Change inputs without triggering an update (e.g. a token picker
        that follows the sentence)."""
        self._quiet = True
        try:
            yield
        finally:
            self._quiet = False

    def _on_change(self, change=None):
        if not self._quiet:
            self._last_change = change  # announced with the next picture
            self.refresh()

    def refresh(self):
        """Recompute from the inputs and schedule a picture."""
        self.update_count += 1
        try:
            state = self._compute()
            self._check(state)
        except Exception as exc:  # never escape a widget callback
            self.last_error = exc
            self._set_message(
                f"Could not update ({type(exc).__name__}); the last picture is kept."
            )
            return
        self._state = state
        self._after_compute(state)
        self.tokens = list(state.tokens)
        self.weights = state.weights
        for name, value in self.shows.items():
            setattr(self, name, getattr(state, name, value))
        self._set_message(" ".join(state.notes))
        self._fit_screen()
        self._schedule_draw()

    def _after_compute(self, state):
        """Bring inputs that follow the state in step (a token picker)."""

    def _set_message(self, text):
        self.message = text
        self.message_label.value = text

    def _schedule_draw(self):
        """Draw now without an event loop; with one, draw once the inputs have
        been quiet for ``SETTLE`` seconds (at the latest after ``MAX_WAIT``),
        so that a burst of updates gives exactly one picture."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None:
            self._draw_now()
            return
        now = time.perf_counter()
        self._last_request = now
        if self._pending and self._pending_loop is loop and not loop.is_closed():
            return  # a draw is already on its way and will show this state
        self._pending = True
        self._pending_loop = loop
        self._pending_since = now
        loop.call_later(SETTLE, self._scheduled_draw)

    def _scheduled_draw(self):
        if not self._pending:
            return
        loop, now = self._pending_loop, time.perf_counter()
        quiet = now - self._last_request
        if (quiet < SETTLE and now - self._pending_since < MAX_WAIT
                and loop is not None and not loop.is_closed()):
            loop.call_later(SETTLE - quiet, self._scheduled_draw)
            return
        self._draw_now()

    def flush(self):
        """Draw now if a picture is still pending."""
        if self._pending or self.draw_count == 0:
            self._draw_now()

    def _draw_now(self):
        self._pending = False
        self._pending_loop = None
        if self._state is None:
            return
        if self.figure.dpi != self._dpi():
            self._new_figure()  # the sizes were switched meanwhile
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                png = self._draw_png(self.artists, self._state, self._bg_cache,
                                     self._canvas)
        except Exception as exc:  # keep the last picture
            self.last_error = exc
            note = f"(Could not draw: {type(exc).__name__}.)"
            self._set_message(f"{self.message} {note}".strip())
            return
        self.picture.value = png
        self.draw_count += 1
        self._set_alt(self._state)
        if self._room_waiting:  # a room told before this picture (screen.py)
            self._room_changed()
        pointer.after_draw(self)  # issue 51 hook: the numbers travel along

    def _set_alt(self, state):
        try:
            text = self._describe(state)
        except Exception as exc:  # the picture stays; its words say less
            self.last_error = exc
            text = ""
        if not text:
            text = f"{self._picture_name()}: {self._summary()}"
        described = alt_text.clip(text)
        if self.message:
            text = f"{text} Note: {self.message}"
        self.alt = alt_text.clip(text)
        hearing.heard(self, state, described)  # the page's alt, one announcement

    def _picture_name(self) -> str:
        """How the text alternative names the picture ("Attention pattern")."""
        return "Picture of the " + self.kind

    def _describe(self, state) -> str:
        """The picture in words, from the numbers it draws: what a sighted
        learner takes from it. This default reads ``.weights``: a grid gives
        each query's strongest key and its weight, a vector its tallest
        entries. Explorers that draw more override it."""
        name = self._picture_name()
        if state.empty:
            return f"{name}: empty. {state.placeholder}."
        weights = np.asarray(state.weights, dtype=float)
        tokens = list(state.tokens)
        keys = getattr(state, "source_tokens", None) or tokens
        if weights.ndim == 3:  # several heads: the first, and how many
            return (f"{name}, {weights.shape[0]} heads; head 0: "
                    + alt_text.grid(weights[0], tokens, keys))
        if weights.ndim == 2 and weights.size:
            return f"{name}: " + alt_text.grid(weights, tokens, keys)
        if weights.ndim == 1 and weights.size:
            return alt_text.bars(name, keys, weights)
        return ""

    def _draw_png(self, art, state, cache, canvas):
        key = self._paint_all(art, state)
        # the placeholder keeps the whole picture (no jump when text comes)
        return render_png(art, key, cache, canvas, trim=key != ("placeholder",))

    def _paint_all(self, art, state):
        if state.empty:
            for ax in art.fig.axes:
                ax.set_visible(False)
            art.placeholder.set_visible(True)
            art.placeholder.set_text(state.placeholder)
            return ("placeholder",)
        for ax in art.fig.axes:
            ax.set_visible(True)
        art.placeholder.set_visible(False)
        return ("main",) + tuple(self._paint(art, state))

    def close(self):
        """Close the explorer and every widget inside it."""
        _LIVE.discard(self)
        def walk(w):
            for child in getattr(w, "children", ()):
                yield from walk(child)
            yield w

        for w in list(walk(self)):
            if w is not self:
                w.close()
        super().close()


class SentenceExplorer(Explorer):
    """An explorer driven by one sentence box (``.sentence``).

    With ``token_label`` set, a token picker (``.token``) sits beside it.
    ``beside``: more input widgets in the sentence's row; ``below``: more
    rows of controls. A subclass makes its own inputs as attributes, then
    calls ``super().__init__(sentence, beside=[...], below=[...])``: every
    widget there with a value is an input (nothing to list twice).
    """

    token_label = None
    sentence_label = "Sentence:"

    def __init__(self, sentence, beside=(), below=()):
        self.sentence = sentence_box(sentence, self.sentence_label)
        row = [self.sentence]
        self._picker = None
        if self.token_label is not None:
            self._picker = TokenPicker(self.token_label)
            self.token = self._picker.widget
            row.append(self.token)
        row += list(beside)
        super().__init__([row[0] if len(row) == 1 else widgets.HBox(row), *below])

    def pick(self, tokens):
        """The token picker's choice (an index into ``tokens``, None when
        there are none), its options set to ``tokens`` first; the chosen word
        is kept when it is still there. Call it in ``_compute`` with the
        tokens read; an empty state clears the picker by itself."""
        return self._picker.sync(self, tokens)

    def query_index(self):
        """The picked token (the query whose row ``save`` writes)."""
        return None if self._picker is None else self._picker.widget.value

    def _after_compute(self, state):
        if self._picker is not None and state.empty:
            self._picker.sync(self, state.tokens)  # no words: no options
