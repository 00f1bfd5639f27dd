"""Lesson 09: the trained tiny model's sense explorer, and the live training
monitor of its training run (the still loss curve is
``helpers.figures.charts.loss_figure``, also ``widgets.loss_figure``)."""

from __future__ import annotations

import io
from functools import lru_cache
from types import SimpleNamespace

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from helpers.world import lexicon
from helpers.models import tiny as tinymodel
from helpers.figures import style
from helpers.figures import alt as alt_text
from helpers.widgets.kit import (SentenceExplorer, State, display_label, empty_state,
                                 list_words, mime_bundle, toy_sentence)
from helpers.widgets.access import live_monitor_parts
from helpers.widgets.policy import MAX_TOY_TOKENS, WEIGHT_SCALE
from helpers.widgets.panels import LABEL_HIGHLIGHT, MARK, Bars, Heatmap


@lru_cache(maxsize=1)
def _trained_model():
    """The shipped weights of the lesson-09 model (read once)."""
    return tinymodel.load_trained()


class _SenseExplorer(SentenceExplorer):
    kind = "sense_explorer"
    figsize = (8.6, 5.6)

    #: prediction: the model's SensePrediction; sense: the predicted sense
    #: (None without "bank"/"mole"); probs: the probability of each sense
    shows = {"prediction": None, "sense": None, "probs": None}

    def __init__(self, sentence, head):
        n_heads = 1
        try:
            n_heads = int(_trained_model()["meta"]["n_heads"])
        except Exception:
            pass
        self.head = widgets.Dropdown(options=[(f"head {i}", i) for i in range(n_heads)],
                                     value=min(max(int(head), 0), n_heads - 1),
                                     description="Learned head:",
                                     style={"description_width": "initial"})
        super().__init__(sentence, below=[self.head] if n_heads > 1 else [])

    def _build(self, art):
        art.heat = Heatmap(art, [0.17, 0.25, 0.48, 0.63],
                           cbar_rect=[0.665, 0.25, 0.015, 0.63])
        art.probs = Bars(art, [0.82, 0.5, 0.15, 0.3], rows=3,
                         xlabel="probability")

    def _compute(self):
        text = "" if self.sentence.value is None else str(self.sentence.value)
        notes = []
        tokens = lexicon.tokenize(text) if text.strip() else []
        if not text.strip():
            notes.append("Type a sentence with 'bank' or 'mole' in the box.")
        elif not tokens:
            notes.append("No words in that sentence: type some words.")
        if len(tokens) > MAX_TOY_TOKENS:
            notes.append(f"Showing the first {MAX_TOY_TOKENS} of {len(tokens)} tokens.")
            tokens = tokens[:MAX_TOY_TOKENS]
        empty = SimpleNamespace(tokens=tokens, notes=notes)
        if not tokens:
            return empty_state(empty)
        try:
            params = _trained_model()
        except FileNotFoundError:
            notes.append("The trained weights are missing: run "
                         "'python -m tools.make_tinymodel' to make them.")
            return empty_state(empty, placeholder="No trained weights")
        pred = tinymodel.predict_sense(params, " ".join(tokens))
        if pred.unknown:
            notes.append("Words the model has not seen (read as <unk>): "
                         f"{list_words(list(pred.unknown))}.")
        labels, replaced = zip(*[display_label(t) for t in pred.tokens])
        if any(replaced):
            notes.append("Characters this font cannot draw are shown as '?'.")
        h = int(self.head.value or 0)
        W = np.asarray(pred.weights)
        h = min(h, W.shape[0] - 1)
        sense = None
        if pred.target_index is None:
            notes.append("No 'bank' or 'mole' here: nothing to decide, but the "
                         "learned pattern is still shown.")
        else:
            sense = pred.sense_labels[int(np.argmax(pred.probs))]
        return State(tokens=pred.tokens, labels=labels, weights=W[h], notes=notes,
                     prediction=pred, sense=sense, probs=np.asarray(pred.probs),
                     _head=h)

    def _paint(self, art, s):
        pred, t = s.prediction, s.prediction.target_index
        colours = [LABEL_HIGHLIGHT if i == t else "black" for i in range(len(s.labels))]
        rows = [MARK + lab if i == t else lab for i, lab in enumerate(s.labels)]
        k1 = art.heat.update(s.weights, rows, s.labels, xlabel="key",
                             ylabel="query", row_colours=colours,
                             title=f"Learned attention (head {s._head})"
                                   + ("" if t is None else
                                      f"; \u25b6 orange: '{s.labels[t]}'"),
                             **WEIGHT_SCALE)
        if t is None:
            art.probs.set_visible(False)
            return k1 + ("no target",)
        p = float(np.max(s.probs))
        k2 = art.probs.update(s.probs, list(pred.sense_labels), xlim=(0.0, 1.0),
                              title=f"'{pred.target_word}': {s.sense} ({p:.0%})")
        return k1 + k2

    def _picture_name(self):
        return "The trained model's attention and its sense"

    def _describe(self, s):
        if s.empty:
            return super()._describe(s)
        pred, t = s.prediction, s.prediction.target_index
        grid = alt_text.grid(s.weights, s.tokens, s.tokens)
        if t is None:
            return (f"{self._picture_name()}: no 'bank' or 'mole' in the sentence, "
                    f"so no sense is chosen. Learned head {s._head}: {grid}")
        row = np.asarray(s.weights[t], dtype=float)
        probs = ", ".join(f"{name} {alt_text.number(round(float(p), 3))}"
                          for name, p in zip(pred.sense_labels, s.probs))
        return (f"{self._picture_name()}: '{pred.target_word}' is read as "
                f"{s.sense} (probabilities {probs}). Its row of learned head "
                f"{s._head} (marked ▶): "
                + alt_text.bars("weights", s.tokens, row) + f". Whole pattern: {grid}")

    def _csv_table(self):
        """For ``save``: the learned pattern and, when the sentence has
        "bank" or "mole", the probability of each sense beside it."""
        pred = self.prediction
        if pred is None or pred.target_index is None:
            return super()._csv_table()
        return super()._csv_table(beside=(
            [f"sense of '{pred.target_word}'", "probability"],
            list(zip(pred.sense_labels, self.probs))))


def sense_explorer(sentence=None, head=0):
    """Lesson 09: what the trained tiny model says about "bank" or "mole".

    Type a sentence; the model from ``helpers.models.tiny`` (shipped weights)
    predicts the sense of the first "bank"/"mole" (``.sense``, ``.probs``;
    the whole ``SensePrediction`` is ``.prediction``)
    and the right panel shows the probabilities; the heatmap is the learned
    attention pattern of head ``.head`` (the ambiguous word's row in
    orange). ``.weights`` is that (n, n) pattern.
    """
    return _SenseExplorer(toy_sentence("bank_river") if sentence is None else sentence,
                          head)


class TrainingMonitor:
    """A progress bar and a live loss curve for a notebook (ipywidgets).

    Display it in one cell, then pass ``monitor.update`` as the ``callback``
    of ``tinymodel.train`` in the next: the bar and the curve move while
    the model trains. Cheap on purpose: the curve is a small PNG redrawn only when
    ``update`` is called (every ``every`` steps).

    Like the explorers, its display carries, next
    to the live widget, a short text form (``<TrainingMonitor: 300 steps>``)
    and a static PNG of the curve, so a stored notebook read without a
    kernel (on GitHub, say) shows a picture instead of a widget repr. When
    the last step arrives, the displayed output is updated in place, so the
    stored picture is the finished curve.

    ``redraw_every``: every call of ``update`` records a point, but the
    picture is redrawn only every ``redraw_every`` steps (and at the last
    step). Call ``train`` with ``every=1`` and a ``redraw_every`` of 10 to 50:
    the curve then holds every step, the early drop included, for the cost of
    a few redraws. ``ylabel`` names what the loss is.
    """

    def __init__(self, steps: int, title: str = "Training loss (live)",
                 ylabel: str = "training loss", redraw_every: int = 1):
        self.title = title
        self.ylabel = ylabel
        self.redraw_every = max(1, int(redraw_every))
        self.n_steps = int(steps)
        self.steps, self.losses = [], []
        live_monitor_parts(self)
        self._draw()

    def update(self, step, loss, params=None):
        """Record ``loss`` at ``step`` and redraw (a ``train`` callback)."""
        self.steps.append(int(step))
        self.losses.append(float(loss))
        self.bar.value = int(step)
        self.bar.description = f"step {int(step)}"
        self.label.value = f"loss {float(loss):.3f}"
        if int(step) % self.redraw_every == 0 or int(step) >= self.n_steps:
            self._draw()
        if int(step) >= self.n_steps:
            for handle in self._handles:   # the finished curve, for the record
                handle.update(self._repr_mimebundle_(), raw=True)

    def _draw(self):
        fig = Figure(figsize=(5.0, 2.4), dpi=style.current().explorer_dpi,
                     layout="constrained")
        ax = fig.subplots()
        ax.plot(self.steps, self.losses, color="#1f77b4",
                marker="." if len(self.steps) <= 60 else None)
        ax.set_xlim(0, max(self.bar.max, 1))
        ax.set_ylim(bottom=0)
        ax.set_title(self.title)
        ax.set_xlabel("training step")
        ax.set_ylabel(self.ylabel)
        buf = io.BytesIO()
        # no "Software" entry: the same curve always gives the same bytes
        FigureCanvasAgg(fig).print_png(buf, metadata={"Software": None})
        self.image.value = buf.getvalue()
        if self.access is not None:
            self.access.alt = self.alt

    def _summary(self):
        return f"<TrainingMonitor: {self.n_steps} steps>"

    def __repr__(self):
        return self._summary()

    @property
    def alt(self):
        """The curve's text alternative: where the loss starts and ends."""
        if not self.losses:
            return f"{self.title}: not started ({self.n_steps} steps to go)."
        curve = alt_text.series(" ".join(self.ylabel.split()), self.steps,
                                self.losses)
        return (f"{self.title}: step {self.steps[-1]} of {self.n_steps}. "
                f"{curve}.")

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        return mime_bundle(self._summary(), self.image.value, self.widget,
                           self.alt)

    def _ipython_display_(self, **kwargs):
        from IPython.display import display

        handle = display(self._repr_mimebundle_(), raw=True, display_id=True)
        if handle is not None:
            self._handles.append(handle)

