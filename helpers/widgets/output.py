"""Saving and display: what leaves an explorer (files, the notebook's output).

:class:`SaveAndDisplay` is a mixin of :class:`helpers.widgets.base.Explorer`:
``save(name)`` (a PNG and a CSV, layouts in :mod:`helpers.widgets.saving`),
``repr()``, and the display bundle a notebook stores (a still PNG with its
text alternative, plus the live widget view). An explorer gets all of it by
inheriting; it may override :meth:`~SaveAndDisplay._csv_table` (more numbers
than ``.weights``), :meth:`~SaveAndDisplay.query_index` and
:meth:`~SaveAndDisplay.key_tokens` (what labels the rows and columns of the
CSV) and :meth:`~SaveAndDisplay._summary` (the ``text/plain`` line).

Also here: :func:`mime_bundle` (shared with the training monitors),
:func:`load_or_explain` (how the real-model explorers load their model, or
say in one sentence why not) and :func:`in_app` (the playground's wording).
"""

from __future__ import annotations

import base64

from helpers.figures import alt as alt_text
from helpers.figures import numbers
from helpers.widgets import guess, saving


class SaveAndDisplay:
    """``save``, ``repr`` and the display bundle of an explorer. Needs
    ``.picture``, ``.message``, ``.tokens``, ``.weights``, ``.alt``,
    ``.kind``, ``_state`` and ``flush()`` from the explorer."""

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
            table = guess.with_table(self, self._csv_table())  # issue 51 hook
        return saving.write(where, self.picture.value, table)

    def query_index(self):
        """The index (into ``.tokens``) of the query whose row a (n,)
        ``.weights`` is, or None (the row is then called "weight"). A
        ``SentenceExplorer`` with a token picker gives the picked token."""
        return None

    def key_tokens(self):
        """The key tokens (the columns of the CSV's grid): ``.tokens``. An
        explorer whose keys are other tokens (lesson 08's cross attention:
        its ``.source_tokens``) overrides this."""
        return list(self.tokens)

    def _csv_table(self, beside=None):
        """The numbers of the picture as ``(header, rows)`` for :meth:`save`:
        ``.weights`` with ``.tokens`` as queries and :meth:`key_tokens` as
        keys (a (n,) vector is the row of :meth:`query_index`), and the table
        ``beside`` to its right. Explorers that show more override this."""
        table = saving.default_table(self.tokens, self.weights,
                                     keys=self.key_tokens(),
                                     query=self.query_index())
        return table if beside is None else saving.side_by_side(table, beside)

    # -- display -----------------------------------------------------------
    #: Why the explorer has no model ("" when it has one): an explorer that
    #: loads one sets it from :func:`load_or_explain`.
    unavailable = ""
    #: What ``repr`` calls the tokens ("word pieces" for lesson 10's model).
    token_noun = "tokens"

    def _summary(self):
        """The ``text/plain`` line: ``<kind: n tokens>``; an explorer whose
        model could not be loaded (``.unavailable``) says why instead."""
        if self.unavailable:
            return f"<{self.kind}: {self.unavailable}>"
        return f"<{self.kind}: {len(self.tokens)} {self.token_noun}>"

    def __repr__(self):
        return self._summary()

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        self.flush()
        return mime_bundle(self._summary(), self.picture.value, self, self.alt,
                           table=numbers.explorer_html(self))

    def _ipython_display_(self, **kwargs):
        from IPython.display import display

        display(self._repr_mimebundle_(), raw=True)
        handle = getattr(self, "_handle_displayed", None)
        if handle is not None:
            try:
                handle(**kwargs)
            except Exception:  # pragma: no cover - old/new API differences
                pass


#: An app without code (the playground) says so with ``in_app()``: what a
#: learner is told to do then speaks of the page, not of cells to run.
_IN_APP = []


def in_app(on: bool = True) -> None:
    """Word the explorers' advice for a page without code (the playground)."""
    _IN_APP[:] = [True] if on else []


def load_or_explain(load, what: str, packages: str):
    """``(load(), "")``, or ``(None, one sentence saying why not)``: the shared
    way the real-model explorers (10, 11, 13) load their model. ``what`` names
    it ("The real model"), ``packages`` are what pip should install. In an app
    (:func:`in_app`) the sentence speaks of the page, not of code. An
    explorer keeps the two as ``.model`` and ``.unavailable``
    (:attr:`SaveAndDisplay.unavailable`): its ``repr`` then says why there
    is no picture."""
    try:
        return load(), ""
    except ImportError as exc:
        if _IN_APP:
            return None, (f"{what} needs the package '{exc.name}', which is not "
                          f"installed here: install {packages} with pip, then "
                          f"reload this page.")
        return None, (f"{what} needs the package '{exc.name}': install it with pip "
                      f"install {packages}, then run this cell again.")
    except Exception as exc:  # ModelNotAvailable and anything unforeseen
        if _IN_APP:
            return None, (f"{what} is not on this computer yet. To see it here, "
                          f"open its lesson in JupyterLab once with an internet "
                          f"connection and run the cell that downloads it, then "
                          f"reload this page.")
        return None, str(exc) or type(exc).__name__


_WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def mime_bundle(text, png, widget, alt="", table=""):
    """What a displayed explorer (or training monitor) sends to the front end.

    ``text/plain`` and a still ``image/png`` (what a stored notebook shows on
    GitHub) plus the live widget view, built from the model id so that both
    ipywidgets 7.7 (Colab; widgets there have no ``_repr_mimebundle_``) and
    8 understand it. ``tools/execute.py`` drops the view when storing.
    The still picture also comes as ``text/html``, an ``<img>`` with the
    text alternative ``alt`` (``text`` when there is none), so that a stored
    notebook's picture has one too.
    """
    data = {"text/plain": text}
    if png:
        data["image/png"] = base64.b64encode(bytes(png)).decode("ascii")
        data["text/html"] = alt_text.img_html(data["image/png"], alt or text) + table
    model_id = getattr(widget, "model_id", None) or getattr(widget, "_model_id", None)
    if model_id and getattr(widget, "_view_name", None) is not None:
        data[_WIDGET_VIEW] = {"version_major": 2, "version_minor": 0,
                              "model_id": model_id}
    return data
