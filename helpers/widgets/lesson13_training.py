"""Lesson 13: the induction head trained live, in the learner's own numpy.

:class:`TrainingMonitor` shows one figure, redrawn every time the training
loop measures its probes (every few hundred steps): the training loss and
the probes' first- and second-copy loss, and the two kinds of head score
(previous token for layer 0's heads, prefix matching for layer 1's), each
with its chance level. :func:`train_live` displays one and trains
:data:`helpers.models.gpt_training.RECIPE` with it::

    from helpers.widgets.lesson13_training import train_live
    params, log, monitor = train_live()

The monitor stars where a previous-token score and a prefix-matching score
first reach twice chance (:func:`rises`), and draws a dotted "phase change"
line where the probes' second copy first costs less than half the first (a
third measure: the copy working, not a head's score). :class:`TrainingPanel` is the
lesson's cell: Start and Stop buttons above a monitor, the run in a thread
of its own (so the kernel stays free for the other explorers), the steps
and the time left (:func:`time_left`).

Like lesson 09's monitor, its display carries a still PNG and a text form
next to the live widget, and the stored output is the finished figure. The
text form is the figure's text alternative, made from its numbers
(``monitor.alt``, also ``monitor.figure.alt``).
"""

from __future__ import annotations

import math
import threading

import ipywidgets as widgets
import numpy as np
from matplotlib.ticker import MaxNLocator

from helpers.analysis import induction
from helpers.figures.common import AttentionFigure
from helpers.figures.inductionplots import line_style
from helpers.models import gpt_training
from helpers.widgets.kit import mime_bundle
from helpers.widgets.access import live_monitor_parts

__all__ = ["TrainingMonitor", "TrainingPanel", "chance_levels", "describe",
           "first_rise", "rises", "time_left", "train_live"]

#: the lesson's one colour scheme (inductionplots.SCHEME): the layer-0 head
#: that scores highest on previous token is the previous-token head (blue,
#: circles), the layer-1 head that scores highest on prefix matching the
#: induction head (red, squares); the others are "other head" (purple,
#: dotted, hollow), each also named in the legend
_ROLE = {0: "previous-token head", 1: "induction head"}


def chance_levels(vocab_size: int = 128, seeds=gpt_training.PROBE_SEEDS) -> dict:
    """What a head that spreads each row evenly over the keys it may see
    scores on the probes (``"prev"``, ``"pm"``), and the loss of a uniform
    guess over the words (``"loss"``, nats)."""
    prev, pm = [], []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        L, prefix = int(rng.integers(8, 21)), int(rng.integers(0, 24))
        n = 1 + prefix + 2 * L
        prev.append(np.mean(1.0 / (np.arange(1, n) + 1)))
        pm.append(induction.chance_prefix_matching(1 + prefix, L))
    return {"prev": float(np.mean(prev)), "pm": float(np.mean(pm)),
            "loss": math.log(vocab_size - 1)}


def first_rise(steps, scores, level: float):
    """``(step, head)`` of the first log row where one head's score
    (``scores``: (rows, heads)) reaches ``level``, or None. The monitor and
    the lesson mark a score's rise at twice its chance level."""
    scores = np.asarray(scores, dtype=float)
    hit = np.argwhere(scores >= level)
    if not len(hit):
        return None
    row, head = hit[0]  # argwhere runs row by row: the earliest row first
    return int(np.asarray(steps)[row]), int(head)


def rises(rows, chance: dict) -> dict:
    """The two rises the monitor marks, from its log ``rows``: ``"prev"``, a
    layer-0 head's previous-token score, and ``"pm"``, a layer-1 head's
    prefix-matching score, each first at twice chance (``(step, head)`` or
    None)."""
    steps = [r["step"] for r in rows]
    return {kind: first_rise(steps, [r[kind][layer] for r in rows], 2 * chance[kind])
            if rows else None for kind, layer in (("prev", 0), ("pm", 1))}


def describe(row: dict, steps: int, phase_change=None, marks=None) -> str:
    """The text alternative of the monitor's figure at one log ``row``."""
    if row is None:
        return f"Training of {steps:,} steps, not started."
    prev, pm = row["prev"], row["pm"]
    ratio = row["copy2_loss"] / row["copy1_loss"]
    loss = row["train_loss"]
    loss = "not yet measured" if not np.isfinite(loss) else f"{loss:.2f} nats"
    heads0 = ", ".join(f"layer 0 head {h} {x:.2f}" for h, x in enumerate(prev[0]))
    heads1 = ", ".join(f"layer 1 head {h} {x:.2f}" for h, x in enumerate(pm[1]))
    return (f"Step {row['step']:,} of {steps:,} ({row['seconds']:.0f} s): "
            f"training loss {loss}; on the probes the second copy costs "
            f"{row['copy2_loss']:.2f} nats against {row['copy1_loss']:.2f} for "
            f"the first (ratio {ratio:.2f}); previous-token score {heads0}; "
            f"prefix-matching score {heads1}."
            + "".join(f" A {what} score first reached twice chance at step "
                      f"{m[0]:,} (layer {layer} head {m[1]})."
                      for what, layer, m in (
                          ("previous-token", 0, (marks or {}).get("prev")),
                          ("prefix-matching", 1, (marks or {}).get("pm")))
                      if m is not None)
            + ("" if phase_change is None else
               f" The phase change (the second copy first costing less than "
               f"half the first) came at step {phase_change:,}."))


class TrainingMonitor:
    """The live figure of lesson 13's training run (ipywidgets).

    Display it, then pass ``monitor.update`` as the ``callback`` of
    :func:`helpers.models.gpt_training.train`: each call records the log
    row and redraws the figure. ``recipe_change``: the step where the
    recipe's second phase starts (plain repeats join the chains, the
    learning rate starts to fall); with an adaptive recipe it, the phase
    change and the last step come with the first row after the phase
    change. Both are marked on both panels. ``.rows`` holds the rows,
    ``.alt`` the latest text alternative, ``.figure`` the latest figure,
    ``.png`` its bytes and ``.draws`` how many times it was drawn.
    """

    def __init__(self, steps: int, vocab_size: int = 128, recipe_change=None):
        self._plan = int(steps), recipe_change
        self.n_steps = int(steps)
        self.chance = chance_levels(vocab_size)
        self.draws, self.figure, self.png = 0, None, b""
        live_monitor_parts(self)
        self.reset()

    def reset(self) -> None:
        """Forget the rows: the figure of a run not started (a new run)."""
        self.n_steps, self.recipe_change = self._plan
        self.phase_change, self.rows = None, []
        self.marks = {"prev": None, "pm": None}  # the rises, (step, head)
        self.bar.max, self.bar.value = max(self.n_steps, 1), 0
        self.alt = describe(None, self.n_steps)
        self._draw()

    def update(self, row: dict) -> None:
        """Record a log row of ``train`` and redraw (its ``callback``)."""
        self.rows.append(row)
        step = int(row["step"])
        if row.get("phase_change_step") is not None:  # the run's plan is known
            self.phase_change = int(row["phase_change_step"])
            self.recipe_change = int(row["phase2_from"])
            self.n_steps = int(row["steps"])
            self.bar.max = self.n_steps
        self.bar.value = min(step, self.n_steps)
        self.bar.description = f"step {step}"
        self.label.value = (f"second/first copy "
                            f"{row['copy2_loss'] / row['copy1_loss']:.2f}")
        self.marks = rises(self.rows, self.chance)
        self.alt = describe(row, self.n_steps, self.phase_change, self.marks)
        self._draw()
        if step >= self.n_steps:
            for handle in self._handles:  # the finished figure, for the record
                handle.update(self._repr_mimebundle_(), raw=True)

    def _draw(self):
        fig = AttentionFigure(figsize=(9.0, 3.4), layout="constrained")
        left, right = fig.subplots(1, 2)
        rows, ch = self.rows, self.chance
        step = [r["step"] for r in rows]
        left.plot(step[1:], [r["train_loss"] for r in rows[1:]], color="0.2",
                  linestyle="-", label="training loss")
        left.plot(step, [r["copy1_loss"] for r in rows], markersize=3,
                  label="probes: first copy", **line_style("first copy"))
        left.plot(step, [r["copy2_loss"] for r in rows], markersize=3,
                  label="probes: second copy", **line_style("second copy"))
        left.axhline(ch["loss"], color="0.5", linestyle=":", linewidth=1,
                     label=f"chance: uniform guess ({ch['loss']:.2f})")
        left.set(xlabel="training step", ylabel="loss (nats)", title="Losses",
                 ylim=(0, 6.0))
        left.legend(loc="lower left", fontsize=7)
        for layer, kind, name in ((0, "prev", "previous token"),
                                  (1, "pm", "prefix matching")):
            lead = int(np.argmax(rows[-1][kind][layer])) if rows else 0
            for h in range(rows[0][kind].shape[1] if rows else 2):
                role = _ROLE[layer] if h == lead else "other head"
                right.plot(step, [r[kind][layer, h] for r in rows], markersize=3,
                           fillstyle="full" if h == lead else "none",
                           label=f"{name}, layer {layer} head {h}", **line_style(role))
        right.axhline(ch["prev"], color="0.5", linestyle=":", linewidth=1,
                      label=f"chance: previous token ({ch['prev']:.2f})")
        right.axhline(ch["pm"], color="0.5", linestyle="-.", linewidth=1,
                      label=f"chance: prefix matching ({ch['pm']:.2f})")
        right.set(xlabel="training step", ylabel="score", ylim=(0, 1.05),
                  title="The heads' scores")
        for k, (kind, layer, what) in enumerate((("prev", 0, "previous token"),
                                                 ("pm", 1, "prefix matching"))):
            mark = self.marks.get(kind)
            if mark is None:
                continue
            at = next(r for r in rows if r["step"] == mark[0])[kind][layer, mark[1]]
            right.plot([mark[0]], [at], marker="*", markersize=12, color="black",
                       linestyle="none")
            right.annotate(f"{what}: twice chance\n"
                           f"(L{layer}H{mark[1]}, step {mark[0]:,})",
                           (mark[0], at), xytext=(-4, 14 + 22 * k),
                           textcoords="offset points", ha="right", fontsize=7,
                           arrowprops={"arrowstyle": "-", "color": "0.3"})
        right.legend(loc="upper left", fontsize=7)
        marks = ((self.phase_change, "phase change",  # labelled, defined
                  "phase change (second copy < half the first)"),
                 (self.recipe_change, "recipe change", "recipe changes"))
        for k, (at, role, what) in enumerate(marks):
            if at is None or not 0 < at < self.n_steps:
                continue
            for ax in (left, right):
                ax.axvline(at, linewidth=1, **line_style(role))
            left.text(at, 5.9 - 0.35 * k, f" {what}, step {at:,}", fontsize=7,
                      color="0.3", va="top")
        for ax in (left, right):
            ax.set_xlim(0, max(self.n_steps, 1))
            ax.xaxis.set_major_locator(MaxNLocator(4, integer=True))
        last = rows[-1]["step"] if rows else 0
        fig.suptitle(f"Training live: step {last:,} of {self.n_steps:,}")
        fig.alt = self.alt
        self.figure = fig
        self.png = fig._repr_png_()
        self.image.value = self.png
        if self.access is not None:
            self.access.alt = self.alt
        self.draws += 1

    def __repr__(self):
        return self.alt

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        return mime_bundle(self.alt, self.png, self.widget)

    def _ipython_display_(self, **kwargs):
        from IPython.display import display

        handle = display(self._repr_mimebundle_(), raw=True, display_id=True)
        if handle is not None:
            self._handles.append(handle)


#: what the button announces. Measured with one BLAS thread on the project's
#: 2-core machine: the whole run (10,750 steps, probes included) took 148 s of
#: CPU, about 14 ms a step, so about 2½ minutes with a core to itself; with the
#: other core busy, one thread's pace stayed within 1.5x of the quiet one
#: (tests/benchmarks/bench_threads.py). On a busier machine it takes longer,
#: and the panel shows the time left at the pace it measures.
ANNOUNCED = "about 3 minutes"


def _minutes(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    return f"{seconds // 60} min {seconds % 60:02d} s"


def time_left(rows, steps: int, known: bool = True) -> str:
    """Steps left and the time they take at the pace of the last few log
    ``rows`` (their ``step`` and ``seconds``): what the panel says while it
    trains. ``known=False``: the run's end is not fixed yet (an adaptive
    recipe before its phase change), so both are upper bounds."""
    if not rows:
        return "not started"
    last, first = rows[-1], rows[max(0, len(rows) - 5)]
    left = max(0, int(steps) - int(last["step"]))
    if left == 0:
        return f"done: {int(last['step']):,} steps in {_minutes(last['seconds'])}"
    done = int(last["step"]) - int(first["step"])
    at_most = "" if known else "at most "
    text = f"{at_most}{left:,} steps left"
    if done <= 0:
        return text
    pace = (last["seconds"] - first["seconds"]) / done  # seconds a step, lately
    return f"{text}, {at_most}{_minutes(left * pace)} at this pace"


class TrainingPanel:
    """A "Start training" button and a "Stop" button above a
    :class:`TrainingMonitor`: the lesson's live cell. Nothing trains until
    the learner presses Start (so Run All stays quick). The run goes on in a
    thread of its own, with one BLAS thread (``gpt_training.train``), so the
    kernel stays free: every other explorer of the lesson keeps answering
    while it trains. The label shows the steps left and the time they take
    at the pace measured so far. The run fills ``.params``, ``.log`` and
    ``.model`` (a ``helpers.models.gpt`` model of the new weights: ``.model.run``,
    ``ablate=``); Stop keeps the model trained so far. After a run, Start
    (now "Train again") begins a new run from scratch; ``.model`` keeps the
    last run's model until the new run ends. ``.start()`` and ``.stop()`` do
    what the buttons do; ``.wait()`` waits for the end."""

    def __init__(self, every: int = 250, **changes):
        self.every, self.changes = int(every), changes
        recipe = dict(gpt_training.RECIPE, **changes)
        self.adaptive = recipe["phase2_from"] is None
        self.monitor = TrainingMonitor(recipe["steps"],
                                       recipe_change=recipe["phase2_from"])
        self.params = self.log = self.model = self.thread = None
        self._stop = threading.Event()
        self.button = widgets.Button(
            description=f"Start training ({ANNOUNCED} on a free core)",
            tooltip="Train lesson 13's model from scratch, in numpy, on one "
                    "core; the rest of the lesson keeps working meanwhile",
            layout=widgets.Layout(width="auto"))
        self.stop_button = widgets.Button(
            description="Stop", disabled=True,
            tooltip="Stop training; panel.model keeps the model so far",
            layout=widgets.Layout(width="auto"))
        self.status = widgets.Label("one BLAS thread; not started")
        self.button.on_click(lambda _: self.start())
        self.stop_button.on_click(lambda _: self.stop())
        self.monitor.widget.children = (
            widgets.HBox([self.button, self.stop_button, self.status]),
        ) + tuple(self.monitor.widget.children)

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def start(self, wait: bool = False):
        """Start training in a thread (a press while it runs does nothing;
        after a run, a new run from scratch); ``wait=True`` returns only when
        it has ended."""
        if self.running:
            return
        if self.thread is not None:  # a run has ended: train anew
            self._stop.clear()
            self.monitor.reset()
            self.status.value = "one BLAS thread; not started"
        self.button.disabled, self.stop_button.disabled = True, False
        self.button.description = "Training…"
        self.thread = threading.Thread(target=self._run, daemon=True,
                                       name="lesson13-training")
        self.thread.start()
        if wait:
            self.wait()

    def stop(self):
        """Stop after the step in progress (the model so far is kept)."""
        if self.running:
            self._stop.set()
            self.stop_button.disabled = True
            self.status.value = "stopping after this step…"

    def wait(self, timeout=None):
        if self.thread is not None:
            self.thread.join(timeout)

    def _update(self, row):
        self.monitor.update(row)
        known = not self.adaptive or row.get("phase_change_step") is not None
        left = time_left(self.monitor.rows, self.monitor.n_steps, known)
        self.status.value = f"one BLAS thread; {left}"

    def _run(self):
        try:
            recipe = dict(gpt_training.RECIPE, **self.changes)
            params, log, _ = gpt_training.train(
                recipe, callback=self._update, every=self.every,
                stop=self._stop.is_set)
            self.params, self.log = params, log
            self.model = gpt_training.as_model(params)
            step, seconds = log[-1]["step"], _minutes(log[-1]["seconds"])
            stopped = self._stop.is_set()
            self.button.description = (f"Stopped at step {step:,}: see panel.model. "
                                       "Train again?" if stopped else
                                       "Trained: see panel.model. Train again?")
            self.status.value = (f"one BLAS thread; stopped at step {step:,} after "
                                 f"{seconds}" if stopped else self.status.value)
        except Exception as exc:  # never a traceback from a button
            self.monitor.label.value = f"Training stopped: {type(exc).__name__}"
            self.button.description = "Training stopped. Train again?"
        finally:
            self.stop_button.disabled = True
            self.button.disabled = False  # a new run, from scratch

    @property
    def alt(self):
        status = self.status.value
        return f"{self.monitor.alt} {status[0].upper()}{status[1:]}."

    def __repr__(self):
        return self.alt

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        return self.monitor._repr_mimebundle_()

    def _ipython_display_(self, **kwargs):
        self.monitor._ipython_display_(**kwargs)


def train_live(every: int = 250, show: bool = True, **changes):
    """Display a :class:`TrainingMonitor` and train the live recipe
    (:data:`helpers.models.gpt_training.RECIPE`, with ``changes`` on top, e.g.
    ``steps=200``), measuring the probes every ``every`` steps. Returns
    ``(params, log, monitor)``."""
    recipe = dict(gpt_training.RECIPE, **changes)
    monitor = TrainingMonitor(recipe["steps"], recipe_change=recipe["phase2_from"])
    # with phase2_from None the plan (and the last step) is known at the phase change
    if show:
        from IPython.display import display

        display(monitor)
    params, log, _ = gpt_training.train(recipe, callback=monitor.update, every=every)
    return params, log, monitor
