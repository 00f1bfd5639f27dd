"""Lesson 11: the small GPT on any prompt the learner types.

:func:`gpt_explorer` shows one head's attention (or a layer's 6; rows are
queries, the masked future grey) beside the likeliest next tokens at the
chosen temperature, top-k 40 (what Generate draws from) and top-p, only the
tokens that can be drawn (p > 0); Generate continues the prompt (the box
keeps its height and scrolls; the message repeats what was added). Labels
show ``" the"`` as ``·the``, a line break as ``↵``, the start token as
``⟨bos⟩``; in the bars punctuation is named (``", comma"``). The model loads
once per session and recent runs are kept, so other settings only redraw;
without the model files the explorer says why in one sentence.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import ipywidgets as widgets
import numpy as np

from helpers.widgets.engine import label_size
from helpers.widgets.gpt_text import (  # noqa: F401  (bar_label, prob_text: the API)
    ALL_HEADS,
    BOS_LABEL,
    PICTURE,
    ProbFormat,
    split_note,
    headline as gpt_headline,
    bar_label,
    describe,
    prob_text,
    thin_labels,
    token_label,
)
from helpers.widgets.kit import (Explorer, State, clamp_float, fit_dropdown,
                                 load_or_explain, paint_head_grid, text_width)
from helpers.widgets.policy import WEIGHT_SCALE
from helpers.widgets.panels import Bars, FastHeatmap

MAX_SHOWN = 32  # tokens drawn, the last ones (the message says when trimmed)
ALL_HEADS_SHOWN = 12  # in the all-heads grid: few enough to label every one
TOP_K_SHOWN = 8  # next tokens in the bar panel
GENERATE_TOKENS, GENERATE_TOP_K = 20, 40  # the bars use the same top-k
PROMPT_ROWS = 4  # the prompt box's fixed height, in lines (it scrolls)
_DEFAULT_PROMPT = "It is the east, and Juliet is the"  # 12 tokens: all drawn
_RUNS_KEPT = 16  # runs remembered (text -> Run)
_GRID = (2, 3)  # rows x columns of the all-heads grid

_model = None  # the shared model, loaded on first use


def _shared_model():
    """``gpt.load()`` once per session: ``(model, "")``, or ``(None, one
    sentence saying why not)``. A failure is not remembered."""
    global _model
    if _model is not None:
        return _model, ""
    from helpers.models import gpt

    _model, why = load_or_explain(lambda: gpt.load(), "The small GPT",
                                  "safetensors tokenizers")
    return _model, why


def _grid_rects():
    """Figure rectangles of the 6 small panels (2 rows x 3 columns)."""
    rows, cols = _GRID
    left, width, gap, bottom, height, vgap = 0.105, 0.148, 0.02, 0.16, 0.31, 0.075
    return [[left + c * (width + gap), bottom + (rows - 1 - r) * (height + vgap),
             width, height] for r in range(rows) for c in range(cols)]


def _masked(weights):
    """``(..., n, n)`` weights with the future set to NaN (drawn grey)."""
    data = np.array(weights, dtype=float)
    data[..., np.triu(np.ones(data.shape[-2:], dtype=bool), k=1)] = np.nan
    return data


class _GPTExplorer(Explorer):
    kind = "gpt_explorer"
    guess_first = head_view = True  # Guess first (guess.py), Lines (lines.py)
    figsize = (12.0, 5.2)

    #: probs (vocab,) at T and top-p; top: the bars; run; n_cut: tokens cut
    shows = {"probs": None, "top": (), "run": None, "n_cut": 0}

    def __init__(self, prompt, layer, head, temperature, top_p=1.0):
        self.model, self.unavailable = _shared_model()
        n_layers = self.model.n_layers if self.model is not None else 4
        self._n_heads = self.model.n_heads if self.model is not None else 6
        self._runs = OrderedDict()
        self._clicks = 0  # the seed of the next generation
        self.prompt = widgets.Textarea(value=str(prompt), description="Prompt:",
                                       rows=PROMPT_ROWS,
                                       layout=widgets.Layout(width="46em"),
                                       style={"description_width": "initial"})
        self.prompt.add_class("attn-sentence")
        self.sentence = self.prompt  # the name of the widget contract
        self.layer = fit_dropdown(
            [(f"layer {i}", i) for i in range(n_layers)], "Layer:",
            value=min(max(int(layer), 0), n_layers - 1))
        if head != ALL_HEADS:
            head = min(max(int(head), 0), self._n_heads - 1)
        self.head = fit_dropdown(
            [(ALL_HEADS, ALL_HEADS)] + [(f"head {i}", i) for i in range(self._n_heads)],
            "Head:", value=head)
        self.temperature, self.top_p = (widgets.FloatSlider(
            value=clamp_float(v, lo, hi), min=lo, max=hi, step=0.05, description=name,
            readout_format=".2f", style={"description_width": "initial"})
            for v, lo, hi, name in ((temperature, 0.1, 2.0, "Temperature:"),
                                    (top_p, 0.05, 1.0, "Top-p:")))
        self.top_p.add_class("attn-top-p")
        label = f"Generate {GENERATE_TOKENS} tokens"
        self.generate = widgets.Button(description=label,
                                       layout=widgets.Layout(width=text_width(len(label))))
        self.generate.add_class("attn-generate")
        self.generate.on_click(self._on_generate)
        super().__init__([self.prompt, widgets.HBox([self.layer, self.head,
                                                     self.temperature, self.top_p]),
                          self.generate])

    def _build(self, art):
        art.single = FastHeatmap(art, [0.13, 0.16, 0.42, 0.7],
                             cbar_rect=[0.565, 0.16, 0.012, 0.7],
                             rows=MAX_SHOWN, cols=MAX_SHOWN)
        art.grid = []
        for k, rect in enumerate(_grid_rects()):
            first_col, last_row = k % _GRID[1] == 0, k >= _GRID[1]
            art.grid.append(FastHeatmap(
                art, rect, cbar_rect=[0.61, 0.16, 0.01, 0.695] if k == 2 else None,
                rows=MAX_SHOWN if first_col else 0, cols=MAX_SHOWN if last_row else 0,
                title_size=10, small=True, room=rect[0] if first_col else 0.02))
        art.bars = Bars(art, [0.74, 0.16, 0.23, 0.7], rows=TOP_K_SHOWN,
                        xlabel="probability", room=0.09)
        art.suptitle = art.text(0.34, 0.955, "", ha="center", va="center", fontsize=12)

    def _run(self, text):  # remembered for the last few texts
        if text not in self._runs:
            self._runs[text] = self.model.run(text)
            while len(self._runs) > _RUNS_KEPT:
                self._runs.popitem(last=False)
        self._runs.move_to_end(text)
        return self._runs[text]

    def _temperature(self):
        return clamp_float(self.temperature.value, 0.1, 2.0)

    def _top_p(self):  # None at 1: every token
        p = clamp_float(self.top_p.value, 0.05, 1.0)
        return None if p >= 1 else p

    def _compute(self):
        from helpers.models import gpt

        choice = self.head.value
        text = "" if self.prompt.value is None else str(self.prompt.value)
        if self.model is None:
            shape = (self._n_heads, 0, 0) if choice == ALL_HEADS else (0, 0)
            return State(empty=True, placeholder="The small GPT is not available",
                         weights=np.zeros(shape), notes=[self.unavailable],
                         probs=np.zeros(0), top=[])
        run = self._run(text)
        T, layer, top_p = self._temperature(), int(self.layer.value), self._top_p()
        probs = gpt.top_k_probabilities(run.logits[-1], GENERATE_TOP_K, T, top_p)
        order = np.argsort(-probs, kind="stable")[:TOP_K_SHOWN]
        top = [(self.model.piece(i), float(probs[i])) for i in order if probs[i] > 0]
        n = len(run.ids)
        shown = min(n, ALL_HEADS_SHOWN if choice == ALL_HEADS else MAX_SHOWN)
        A = run.attention[layer][:, n - shown:, n - shown:]
        notes = self._notes(text, run, shown)
        tokens = list(run.tokens[n - shown:])
        return State(
            tokens=tokens, labels=[token_label(t) for t in tokens], notes=notes,
            weights=A if choice == ALL_HEADS else A[int(choice)], probs=probs,
            top=top, run=run, n_cut=int(run.n_cut), _all=A, _layer=layer,
            _choice=choice, _T=T, _p=top_p)

    def _notes(self, text, run, shown):
        """The message: empty, cut, trimmed or odd text (a list of sentences)."""
        n = len(run.ids)
        pieces = run.tokens[n - shown:]
        return [note for wanted, note in [
            (not text, f"Type a prompt: with an empty box the model sees only "
             f"{BOS_LABEL}, the start of a text, and predicts a first token."),
            (text and not text.strip(), "Only spaces or line breaks: they are "
             "tokens too, and the model predicts what follows them."),
            (run.n_cut, f"The model reads at most {self.model.context} tokens "
             f"({BOS_LABEL} included): the first {run.n_cut} tokens of the prompt "
             "were cut."),
            (shown < n, f"The picture shows the last {shown} of the {n} tokens"
             + (f" (one head at a time shows {MAX_SHOWN})" if shown < MAX_SHOWN
                else "") + "; weight on earlier tokens is not drawn."),
            (any("\ufffd" in t for t in pieces), split_note(text, pieces)),
            (any(ord(c) < 32 and c not in "\n\r\t" or ord(c) == 127 for c in text),
             "Control characters (e.g. NUL) are tokens too, shown as \\x00 and "
             "the like."),
            (any("?" in token_label(t) and "?" not in t for t in pieces),
             "Characters this font cannot draw are shown as '?'."),
        ] if wanted]

    def _headline(self, s):
        return gpt_headline(s)

    def _paint(self, art, s):
        single = s._choice != ALL_HEADS
        art.single.set_visible(single)
        for g in art.grid:
            g.set_visible(not single)
        if single:
            art.single.update(_masked(s.weights), s.labels, s.labels, xlabel="key",
                              ylabel="query", title=f"layer {s._layer}, head "
                              f"{s._choice} (rows = queries, columns = keys)",
                              **WEIGHT_SCALE)
        else:
            n = len(s.labels)
            pitch = _grid_rects()[0][3] * art.fig.bbox.height / max(n, 1)
            step, shown = thin_labels(s.labels, pitch, label_size(n), art.fig.dpi)
            every = "" if step == 1 else "; labels: every " + (
                {2: "2nd", 3: "3rd"}.get(step) or f"{step}th") + " token"
            art.suptitle.set_text(f"layer {s._layer}: all {self._n_heads} heads "
                                  f"(rows = queries, columns = keys{every})")
            paint_head_grid(art.grid, _masked(s._all), shown, _GRID, **WEIGHT_SCALE)
        best = max([p for _, p in s.top] or [0.0])
        cut = f", top-p {s._p:.2f}" if s._p else ""
        # the axis moves in steps of 0.05 and is part of the key: never stale
        right = min(1.0, max(0.05, math.ceil(25 * best - 1e-9) / 20))
        key = art.bars.update(
            [p for _, p in s.top], [bar_label(t) for t, _ in s.top],
            title=f"next token after '{s.labels[-1]}'\n(T = {s._T:.2f}, top-k "
            f"{GENERATE_TOP_K}{cut}, as Generate)", xlim=(0.0, right), fmt=ProbFormat)
        return (("single",) if single else ("grid",)) + tuple(key)

    def _picture_name(self):
        return PICTURE

    def _describe(self, s):
        return describe(s, GENERATE_TOP_K)

    def _paint_all(self, art, state):
        art.suptitle.set_visible(not state.empty and state._choice == ALL_HEADS)
        return super()._paint_all(art, state)

    def _csv_table(self):  # for save: the bars (next tokens) beside the grid
        return super()._csv_table(beside=(
            ["next token", f"probability (T = {self._state._T:.2f})"], list(self.top)))

    def _on_generate(self, button=None):
        """Continue the prompt by GENERATE_TOKENS tokens (top-k 40 at the
        sliders' T and top-p, as the bars; the seed counts the clicks)."""
        if self.model is None:
            self._set_message(self.unavailable)
            return
        try:
            text = "" if self.prompt.value is None else str(self.prompt.value)
            g = self.model.generate(text, GENERATE_TOKENS, top_k=GENERATE_TOP_K,
                                    temperature=self._temperature(), seed=self._clicks,
                                    top_p=self._top_p())
            self._clicks += 1
            self.prompt.value = text + g.new_text  # the box keeps its height
            self._set_message(f"{self.message} Added: \u201c"
                              f"{' '.join(g.new_text.split())}\u201d".strip())
        except Exception as exc:  # never escape a widget callback
            self.last_error = exc
            self._set_message(f"Could not generate ({type(exc).__name__}).")


def gpt_explorer(prompt=None, layer=0, head=ALL_HEADS, temperature=1.0, top_p=1.0):
    """Lesson 11: the small GPT's attention and next-token prediction.

    ``.prompt`` (``.sentence``), ``.layer``, ``.head`` (or "all 6 heads"),
    ``.temperature``, ``.top_p`` (1.0: every token), ``.generate`` (20 tokens,
    top-k 40). ``.tokens``: the last ``MAX_SHOWN``; ``.weights`` (n, n) or
    (6, n, n); ``.probs``: softmax(logits / T) over the top 40 (as Generate),
    cut to the nucleus, (vocab,); ``.top``: the bars, only tokens with p > 0.
    """
    return _GPTExplorer(_DEFAULT_PROMPT if prompt is None else prompt, layer, head,
                        temperature, top_p)

