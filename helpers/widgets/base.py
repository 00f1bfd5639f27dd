"""The explorer base: inputs -> state (synchronously) -> one picture.

:class:`Explorer` turns its input widgets into a state (``_compute``), then
draws it (``_paint``) with the engine; :class:`SentenceExplorer` adds a
sentence box and, optionally, a token picker. Each explorer declares the
state it exposes as annotated class attributes::

    class _QKExplorer(SentenceExplorer):
        scores: np.ndarray | None = None    # set by every update

Also here: reading what the learner typed (``_read``), with a short
message for every kind of bad input.
"""

from __future__ import annotations

import asyncio
import time
import warnings
import weakref
from collections import OrderedDict
from contextlib import contextmanager
from functools import lru_cache
from types import SimpleNamespace

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from helpers import heads, lexicon, style
from helpers.widgets import saving
from helpers.widgets.engine import (
    MAX_TOKENS,
    MAX_WAIT,
    SETTLE,
    FigureArtists,
    display_label,
    mime_bundle,
    render_png,
)


# --------------------------------------------------------------------------
# the toy world: example sentences, hand-built heads
# --------------------------------------------------------------------------
def _sentence(key: str) -> str:
    """An example sentence of the lessons (``heads.CURRICULUM_SENTENCES``)."""
    return str(heads.CURRICULUM_SENTENCES[key])


@lru_cache(maxsize=None)
def _head(name: str):
    return getattr(heads, name)()


def _project(head, E):
    """Q, K, V of ``head`` for embeddings ``E`` (row-vector convention)."""
    return E @ head.W_Q, E @ head.W_K, E @ head.W_V


def _value_up(head, values):
    """Values in embedding space: ``values @ W_up`` when the head has one."""
    W_up = getattr(head, "W_up", None)
    if W_up is None:
        return values
    return values @ np.asarray(W_up)


# --------------------------------------------------------------------------
# reading what the learner typed
# --------------------------------------------------------------------------

def _plain(text: str, limit: int = 24) -> str:
    """User text made safe and short for a one-line message."""
    text = "".join(" " if (c.isspace() or ord(c) < 32) else c for c in str(text))
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _list_words(words, most: int = 6, why=None) -> str:
    """``'a', 'b' and 3 more``; with ``why`` (word -> reason), ``'a' (reason)``."""
    why = why or {}
    shown = ", ".join(f"'{_plain(w)}'" + (f" ({why[w]})" if w in why else "")
                      for w in words[:most])
    if len(words) > most:
        shown += f" and {len(words) - most} more"
    return shown


def _read(text, *, cap: int = MAX_TOKENS, positions: bool = True, what="sentence"):
    """Tokenize, cap and embed a typed sentence.

    Returns a namespace with ``tokens`` (capped), ``labels`` (drawable),
    ``E`` (n, D_MODEL), ``unknown``, ``notes`` (list of messages) and
    ``empty`` (True when there is nothing to draw).
    """
    text = "" if text is None else str(text)
    notes = []
    tokens = lexicon.tokenize(text) if text.strip() else []
    if not text.strip():
        notes.append(f"Type a {what} in the box.")
    elif not tokens:
        notes.append(
            f"No words in that {what} (punctuation is not a word): type some words."
        )
    if len(tokens) > cap:
        notes.append(f"Showing the first {cap} of {len(tokens)} tokens.")
        tokens = tokens[:cap]
    emb = lexicon.embed(tokens, positions=positions)
    unknown = list(emb.unknown)
    why = {w: g["why"] for w in unknown if (g := lexicon.guess_word(w))}
    plain = [w for w in unknown if w not in why]
    if plain:
        notes.append(
            f"Not in the toy lexicon (given the 'unknown' vector): "
            f"{_list_words(plain)}."
        )
    if why:
        notes.append(
            "Not in the toy lexicon, guessed from the word's form "
            f"('unknown' still set): {_list_words(list(why), why=why)}."
        )
    labels, replaced = [], False
    for t in tokens:
        label, r = display_label(t)
        labels.append(label)
        replaced = replaced or r
    if replaced:
        notes.append("Characters this font cannot draw are shown as '?'.")
    return SimpleNamespace(
        tokens=list(tokens),
        labels=labels,
        E=np.asarray(emb.E, dtype=float),
        unknown=unknown,
        notes=notes,
        empty=not tokens,
    )


def _default_index(tokens) -> int:
    """The token an explorer picks when the learner has not chosen one: the
    first ambiguous word (bank, mole), else the first noun, else the last."""
    ambiguous = lexicon.ambiguous_words()
    for i, t in enumerate(tokens):
        if t in ambiguous:
            return i
    try:
        table = lexicon.load_lexicon()
        for i, t in enumerate(tokens):
            if t in table and table.info(t).get("pos") == "noun":
                return i
    except Exception:
        pass
    return max(len(tokens) - 1, 0)


# --------------------------------------------------------------------------
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


#: A Label cuts a long line with an ellipsis ("... the last picture i…"); this
#: stylesheet (fixed text, no user input in it) lets the message line wrap.
#: Each explorer carries its own copy, so it wraps wherever it is shown.
MESSAGE_STYLE = ("<style>.widget-label.attn-message { white-space: normal !important;"
                 " overflow: visible !important; text-overflow: clip !important;"
                 " height: auto !important; line-height: 1.4 !important; }</style>")


class Explorer(widgets.VBox):
    """Common machinery: inputs -> state (synchronously) -> one picture."""

    kind = "explorer"
    figsize = (7.0, 5.0)

    def __init__(self, controls, inputs):
        super().__init__()
        self.tokens = []
        self.weights = np.zeros((0, 0))
        self.message = ""
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
                                     layout=widgets.Layout(max_width="100%"))
        self.picture.add_class("attn-picture")
        self.message_label = widgets.Label(value="")
        self.message_label.add_class("attn-message")
        self.children = tuple(controls) + (self.picture, self.message_label,
                                           widgets.HTML(value=MESSAGE_STYLE))
        self.add_class("attn-explorer")
        names = {id(v): k for k, v in vars(self).items()
                 if isinstance(v, widgets.Widget)}
        for w in inputs:
            w.add_class("attn-input")
            if id(w) in names:  # e.g. attn-temperature, attn-token, attn-head
                w.add_class("attn-" + names[id(w)].replace("_", "-"))
            w.observe(self._on_change, names="value")
        _LIVE.add(self)
        self.refresh()

    # -- to be provided by each explorer ----------------------------------
    def _build(self, art):  # pragma: no cover - abstract
        raise NotImplementedError

    def _compute(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _paint(self, art, state):  # pragma: no cover - abstract
        raise NotImplementedError

    # -- machinery -------------------------------------------------------
    def _new_figure(self):
        """Build the figure at the resolution of the current sizes
        (``helpers.style``): ``.figure``, its canvas and ``.artists``."""
        self.figure = Figure(figsize=self.figsize, dpi=style.current().explorer_dpi)
        self._canvas = FigureCanvasAgg(self.figure)
        self._bg_cache.clear()
        self.artists = self._new_artists(self.figure)

    def redraw(self):
        """Draw the current state again, rebuilding the figure first when the
        sizes (``helpers.style.projector``) changed since it was built."""
        if self.figure.dpi != style.current().explorer_dpi:
            self._new_figure()
        if self._state is not None:
            self._draw_now()

    def _new_artists(self, fig):
        art = FigureArtists(fig)
        self._build(art)
        art.placeholder = art.text(0.5, 0.5, "", ha="center", va="center",
                                       fontsize=14, color="#555555")
        return art

    @classmethod
    def _declared_state(cls) -> set:
        """The names an update may set: the class attributes annotated in the
        explorer classes (``scores: np.ndarray | None = None``)."""
        names = set()
        for klass in cls.__mro__:
            if klass is Explorer:
                break
            names.update(vars(klass).get("__annotations__", {}))
        return names

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
            self.refresh()

    def refresh(self):
        """Recompute from the inputs and schedule a picture."""
        self.update_count += 1
        try:
            state = self._compute()
            extra = getattr(state, "extra", {})
            undeclared = set(extra) - self._declared_state()
            if undeclared:  # a programming error, caught in tests
                raise AttributeError(f"state not declared on {type(self).__name__}:"
                                     f" {sorted(undeclared)}")
        except Exception as exc:  # never escape a widget callback
            self.last_error = exc
            self._set_message(
                f"Could not update ({type(exc).__name__}); the last picture is kept."
            )
            return
        self._state = state
        self.tokens = list(state.tokens)
        self.weights = state.weights
        for name, value in extra.items():
            setattr(self, name, value)
        self._set_message(" ".join(state.notes))
        self._schedule_draw()

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
        if self.figure.dpi != style.current().explorer_dpi:
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

    # -- saving ------------------------------------------------------------
    def save(self, name):
        """Save what the explorer shows: ``<name>.png``, the current picture
        (the very bytes of ``.picture``, a pending picture drawn first), and
        ``<name>.csv``, the numbers it shows, labelled. ``name`` may hold a
        folder (it is made) and may end in .png or .csv. Returns the two
        paths, ``(png, csv)``. A bad name (empty, a folder) is a ValueError.

        The CSV (layouts in ``helpers/widgets/saving.py``): a query x key
        grid has the key tokens as its header and each row starts with its
        query token; several heads add a first column ``head``; what the
        picture shows beside the grid comes as more columns. Numbers are the
        shortest text that reads back as the same number. A placeholder
        picture (empty input) gives a CSV of one ``note`` saying why.
        """
        where = saving.paths(name)
        self.flush()
        if not self.picture.value:
            raise RuntimeError(f"Nothing to save: no picture was drawn "
                               f"({self.message or 'see .last_error'}).")
        state = self._state
        if state is None or state.empty:
            why = self.message or getattr(state, "placeholder", "") or "no input"
            table = saving.note(f"No numbers to save (the picture is a "
                                f"placeholder): {why}")
        else:
            table = self._csv_table()
        return saving.write(where, self.picture.value, table)

    def _csv_table(self, beside=None):
        """The numbers of the picture as ``(header, rows)`` for :meth:`save`:
        ``.weights`` with ``.tokens`` as queries and keys (``.source_tokens``
        as keys when the explorer has them; a (n,) vector is the row of
        ``.target``), and the table ``beside`` to its right. Explorers that
        show more override this."""
        table = saving.default_table(self.tokens, self.weights,
                                     keys=getattr(self, "source_tokens", None),
                                     query=getattr(self, "target", None))
        return table if beside is None else saving.side_by_side(table, beside)

    # -- display -----------------------------------------------------------
    def _summary(self):
        return f"<{self.kind}: {len(self.tokens)} tokens>"

    def __repr__(self):
        return self._summary()

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        self.flush()
        return mime_bundle(self._summary(), self.picture.value, self)

    def _ipython_display_(self, **kwargs):
        from IPython.display import display

        display(self._repr_mimebundle_(), raw=True)
        handle = getattr(self, "_handle_displayed", None)
        if handle is not None:
            try:
                handle(**kwargs)
            except Exception:  # pragma: no cover - old/new API differences
                pass


def sense_verdict(sims, tol=1e-9):
    """'river (0.87)'; 'tie (0.79 each)' or 'tie: a = b (0.6)' when the best tie.

    Like lesson 05's ``verdict``: equally close senses are reported as a tie,
    never as a winner picked by dictionary order.
    """
    top = max(sims.values())
    best = [name for name, c in sims.items() if top - c < tol]
    if len(best) == 1:
        return f"{best[0]} ({top:.2f})"
    if len(best) == len(sims):
        return f"tie ({top:.2f} each)"
    return f"tie: {' = '.join(best)} ({top:.2f})"


def sense_name(sims, tol=1e-9):
    """The nearest sense, or "tie" when several are equally near."""
    top = max(sims.values())
    best = [name for name, c in sims.items() if top - c < tol]
    return best[0] if len(best) == 1 else "tie"


def load_or_explain(load, what: str, packages: str):
    """``(load(), "")``, or ``(None, one sentence saying why not)``: the shared
    way the real-model explorers (10, 11) load their model. ``what`` names it
    ("The real model"), ``packages`` are what pip should install."""
    try:
        return load(), ""
    except ImportError as exc:
        return None, (f"{what} needs the package '{exc.name}': install it with pip "
                      f"install {packages}, then run this cell again.")
    except Exception as exc:  # ModelNotAvailable and anything unforeseen
        return None, str(exc) or type(exc).__name__


def text_width(n_chars: int, pad: float = 3.0) -> str:
    """A CSS width for a control showing ``n_chars`` characters: about 0.62 em
    a character, plus ``pad`` em for padding (and a dropdown's arrow)."""
    return f"{0.62 * n_chars + pad:.1f}em"


def fit_dropdown(options, description="", **kwargs):
    """A ``Dropdown`` wide enough for its description and its longest option
    (no "laye" for "layer 0"): the description takes its own width, the box
    about 0.62 em per character of the longest option plus 3 em for the
    arrow and padding. ``options`` as for ``widgets.Dropdown``."""
    texts = [o[0] if isinstance(o, tuple) else o for o in options]
    longest = max((len(str(t)) for t in texts), default=0)
    return widgets.Dropdown(options=options, description=description,
                            layout=widgets.Layout(width=text_width(
                                len(description) + longest, pad=4.0)),
                            style={"description_width": "initial"}, **kwargs)


def _text_box(value, description="Sentence:", width="34em"):
    box = widgets.Text(value=value, description=description,
                       layout=widgets.Layout(width=width),
                       style={"description_width": "initial"})
    return box


def _sentence_box(value, description="Sentence:"):
    box = _text_box(value, description)
    box.add_class("attn-sentence")
    return box


class TokenPicker:
    """Keeps a ``Dropdown`` of token positions in step with the sentence."""

    def __init__(self, description="Token:"):
        self.widget = widgets.Dropdown(options=[], description=description,
                                       layout=widgets.Layout(width="16em"),
                                       style={"description_width": "initial"})
        self._tokens = []

    def sync(self, explorer, tokens):
        """Offer the tokens; keep the chosen word if it is still there.
        Returns the chosen index (None when there are no tokens)."""
        dd = self.widget
        old_tokens, old = self._tokens, dd.value
        if not tokens:
            choice = None
        elif old is not None and old < len(tokens) and (
            not old_tokens or (old < len(old_tokens) and old_tokens[old] == tokens[old])
            or old_tokens == tokens
        ):
            choice = old
        elif old is not None and old < len(old_tokens) and old_tokens[old] in tokens:
            choice = tokens.index(old_tokens[old])
        else:
            choice = _default_index(tokens)
        options = [(f"{i}: {display_label(t)[0]}", i) for i, t in enumerate(tokens)]
        with explorer.quietly():
            if list(dd.options) != options:
                dd.options = options
            if dd.value != choice:
                dd.value = choice
        self._tokens = list(tokens)
        return choice


def _choose(explorer, token):
    """Select a token given as an index or as a word (first occurrence)."""
    if token is None or not explorer.tokens:
        return
    if isinstance(token, str):
        word = token.lower()
        index = explorer.tokens.index(word) if word in explorer.tokens else None
    else:
        index = min(max(int(token), 0), len(explorer.tokens) - 1)
    if index is not None:
        explorer.token.value = index


def _empty_state(read, placeholder="Type a sentence above", weights_shape=(0, 0)):
    return SimpleNamespace(empty=True, placeholder=placeholder, tokens=read.tokens,
                           weights=np.zeros(weights_shape), notes=read.notes,
                           extra={})


class SentenceExplorer(Explorer):
    """An explorer driven by one sentence box.

    With ``token_label`` set, a token picker (``.token``) sits beside it.
    """

    token_label = None

    def __init__(self, sentence):
        self.sentence = _sentence_box(sentence)
        if self.token_label is None:
            super().__init__([self.sentence], [self.sentence])
            return
        self._picker = TokenPicker(self.token_label)
        self.token = self._picker.widget
        super().__init__([widgets.HBox([self.sentence, self.token])],
                         [self.sentence, self.token])
