"""Lesson 11: the small GPT on any prompt the learner types.

:func:`gpt_explorer` runs :mod:`helpers.gpt` on the text in the box and shows
the attention of one head (or all 6 heads of a layer; rows are queries,
columns are keys, the masked future grey) beside the most likely next tokens
at the chosen temperature and top-p; a button continues the prompt (the box
grows to show what was added, and the message line repeats it). Labels show the
tokens' spaces: ``" the"`` as ``·the``, a line break as ``↵``, the start
token as ``⟨bos⟩``. The model is loaded once per session; runs are kept for
the last few texts, so that changing the layer, head or temperature only
redraws. Without the model files the explorer says why in one sentence.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import ipywidgets as widgets
import numpy as np

from helpers.widgets.base import Explorer, State, load_or_explain
from helpers.widgets.controls import fit_dropdown, text_width
from helpers.widgets.engine import display_label, label_size
from helpers.widgets.policy import WEIGHT_SCALE
from helpers.widgets.panels import Bars, FastHeatmap

#: The heatmap draws at most the last MAX_SHOWN tokens (the model reads up
#: to its whole context; the message says when the picture is trimmed).
MAX_SHOWN = 32
TOP_K_SHOWN = 8  # next tokens in the bar panel
GENERATE_TOKENS, GENERATE_TOP_K = 20, 40
MAX_ROWS, CHARS_PER_ROW = 14, 80  # the prompt box grows up to MAX_ROWS lines
ALL_HEADS = "all 6 heads"
BOS_LABEL = "\u27e8bos\u27e9"  # ⟨bos⟩
_DEFAULT_PROMPT = ("ROMEO:\nBut soft, what light through yonder window breaks?\n"
                   "It is the east, and Juliet is the")
_RUNS_KEPT = 16  # runs remembered (text -> Run)
_GRID = (2, 3)  # rows x columns of the all-heads grid

_model = None  # the shared model, loaded on first use


def _shared_model():
    """``helpers.gpt.load()``, once per session: ``(model, "")``, or ``(None,
    one sentence saying why not)``. A failure is not remembered."""
    global _model
    if _model is not None:
        return _model, ""

    def load():
        from helpers.models import gpt

        return gpt.load()

    _model, why = load_or_explain(load, "The small GPT", "safetensors tokenizers")
    return _model, why


def token_label(piece: str) -> str:
    """A drawable label of one token's text: spaces as ``·``, a line break as
    ``↵``, a tab as ``⇥``, other control characters as ``\\x00``, the start
    token as ``⟨bos⟩``; characters the font lacks as ``?``."""
    if piece == "<|endoftext|>":
        return BOS_LABEL
    out = []
    for ch in str(piece):
        if ch == " ":
            out.append("\u00b7")
        elif ch in "\n\r":
            out.append("\u21b5")
        elif ch == "\t":
            out.append("\u21e5")
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return display_label("".join(out))[0] or "?"


def _grid_rects():
    """Figure rectangles of the 6 small panels (2 rows x 3 columns)."""
    rows, cols = _GRID
    left, width, gap, bottom, height, vgap = 0.105, 0.148, 0.02, 0.16, 0.31, 0.075
    return [[left + c * (width + gap), bottom + (rows - 1 - r) * (height + vgap),
             width, height] for r in range(rows) for c in range(cols)]


def _label_step(pitch_px, size_pt, dpi):
    """Label every k-th token so that labels ``pitch_px`` apart do not overlap."""
    return max(1, math.ceil(size_pt * dpi / 72.0 / max(pitch_px, 1e-9) - 0.05))


def _thin(labels, pitch_px, size_pt, dpi):
    """Every k-th label (and the last) so that labels ``pitch_px`` apart do
    not overlap; the others become empty."""
    step = _label_step(pitch_px, size_pt, dpi)
    last = len(labels) - 1
    return [lab if (last - i) % step == 0 else "" for i, lab in enumerate(labels)]


def _rows_for(text):
    """Lines the prompt box needs to show ``text`` whole (3 to MAX_ROWS)."""
    lines = str(text).split("\n")
    need = sum(max(1, math.ceil(len(line) / CHARS_PER_ROW)) for line in lines)
    return min(max(3, need), MAX_ROWS)


def _masked(weights):
    """A copy of ``(..., n, n)`` weights with the future (above the diagonal)
    set to NaN, drawn in the grey of masked cells."""
    data = np.array(weights, dtype=float)
    data[..., np.triu(np.ones(data.shape[-2:], dtype=bool), k=1)] = np.nan
    return data


class _GPTExplorer(Explorer):
    kind = "gpt_explorer"
    figsize = (12.0, 6.6)

    #: probs: the next-token distribution at T, (vocab,); top: the [(token
    #: text, probability), ...] shown as bars; run: the model's Run of the
    #: whole (context-capped) text; n_cut: tokens beyond the model's context
    shows = {"probs": None, "top": (), "run": None, "n_cut": 0}

    def __init__(self, prompt, layer, head, temperature, top_p=1.0):
        self.model, self.unavailable = _shared_model()
        n_layers = self.model.n_layers if self.model is not None else 4
        self._n_heads = self.model.n_heads if self.model is not None else 6
        self._runs = OrderedDict()
        self._clicks = 0  # the seed of the next generation
        self.prompt = widgets.Textarea(value=str(prompt), description="Prompt:",
                                       rows=_rows_for(prompt),
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
        self.temperature = widgets.FloatSlider(
            value=min(max(float(temperature), 0.1), 2.0), min=0.1, max=2.0, step=0.05,
            description="Temperature:", readout_format=".2f",
            style={"description_width": "initial"})
        self.top_p = widgets.FloatSlider(
            value=self._clamp_p(top_p), min=0.05, max=1.0, step=0.05,
            description="Top-p:", readout_format=".2f",
            style={"description_width": "initial"})
        self.top_p.add_class("attn-top-p")
        label = f"Generate {GENERATE_TOKENS} tokens"
        self.generate = widgets.Button(description=label,
                                       layout=widgets.Layout(width=text_width(len(label))))
        self.generate.add_class("attn-generate")
        self.generate.on_click(self._on_generate)
        super().__init__([self.prompt, widgets.HBox([self.layer, self.head,
                                                     self.temperature, self.top_p]),
                          self.generate])

    # -- drawing ------------------------------------------------------------
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

    def _run(self, text):
        """The model's run of ``text``, remembered for the last few texts."""
        if text not in self._runs:
            self._runs[text] = self.model.run(text)
            while len(self._runs) > _RUNS_KEPT:
                self._runs.popitem(last=False)
        self._runs.move_to_end(text)
        return self._runs[text]

    def _temperature(self):
        t = float(self.temperature.value)
        return min(max(t, 0.1), 2.0) if math.isfinite(t) else 1.0

    @staticmethod
    def _clamp_p(p):
        try:
            p = float(p)
        except (TypeError, ValueError):
            return 1.0
        return min(max(p, 0.05), 1.0) if math.isfinite(p) else 1.0

    def _compute(self):
        from helpers.models import gpt

        choice = self.head.value
        text = "" if self.prompt.value is None else str(self.prompt.value)
        if self.model is None:
            return State(
                empty=True, placeholder="The small GPT is not available",
                weights=np.zeros((self._n_heads, 0, 0) if choice == ALL_HEADS
                                 else (0, 0)), notes=[self.unavailable],
                probs=np.zeros(0), top=[])
        run = self._run(text)
        T, layer = self._temperature(), int(self.layer.value)
        top_p = self._clamp_p(self.top_p.value)
        probs = gpt.top_k_probabilities(run.logits[-1], None, T,
                                        top_p if top_p < 1 else None)
        order = np.argsort(-probs, kind="stable")[:TOP_K_SHOWN]
        top = [(self.model.piece(i), float(probs[i])) for i in order]
        n = len(run.ids)
        shown = min(n, MAX_SHOWN)
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
        notes, n = [], len(run.ids)
        if not text:
            notes.append(f"Type a prompt: with an empty box the model sees only "
                         f"{BOS_LABEL}, the start of a text, and predicts a first "
                         "token.")
        elif not text.strip():
            notes.append("Only spaces or line breaks: they are tokens too, and the "
                         "model predicts what follows them.")
        if run.n_cut:
            notes.append(f"The model reads at most {self.model.context} tokens "
                         f"({BOS_LABEL} included): the first {run.n_cut} tokens of "
                         "the prompt were cut.")
        if shown < n:
            notes.append(f"The picture shows the last {shown} of the {n} tokens; "
                         "weight on earlier tokens is not drawn.")
        pieces = run.tokens[n - shown:]
        if any("\ufffd" in t for t in pieces):
            notes.append("Some characters (emoji, many symbols) take several byte "
                         "tokens: a token holding part of one is shown as \ufffd.")
        if any(ord(c) < 32 and c not in "\n\r\t" or ord(c) == 127 for c in text):
            notes.append("Control characters (e.g. NUL) are tokens too, shown as "
                         "\\x00 and the like.")
        if any("?" in token_label(t) and "?" not in t for t in pieces):
            notes.append("Characters this font cannot draw are shown as '?'.")
        return notes

    def _paint(self, art, s):
        single = s._choice != ALL_HEADS
        art.single.set_visible(single)
        for g in art.grid:
            g.set_visible(not single)
        key = ("single",) if single else ("grid",)
        if single:
            art.single.update(_masked(s.weights), s.labels, s.labels, xlabel="key",
                              ylabel="query", title=f"layer {s._layer}, head "
                              f"{s._choice} (rows = queries, columns = keys)",
                              **WEIGHT_SCALE)
        else:
            n, dpi = len(s.labels), art.fig.dpi
            pitch = _grid_rects()[0][3] * art.fig.bbox.height / max(n, 1)
            shown = _thin(s.labels, pitch, label_size(n), dpi)
            step = _label_step(pitch, label_size(n), dpi)
            every = {1: "", 2: "; labels: every 2nd token"}.get(
                step, f"; labels: every {step}rd token" if step == 3
                else f"; labels: every {step}th token")
            art.suptitle.set_text(f"layer {s._layer}: all {self._n_heads} heads "
                                  f"(rows = queries, columns = keys{every})")
            data = _masked(s._all)
            for k, g in enumerate(art.grid):
                first_col, last_row = k % _GRID[1] == 0, k >= _GRID[1]
                g.update(data[k], shown if first_col else [],
                         shown if last_row else [], title=f"head {k}",
                         xlabel="key" if last_row else "",
                         ylabel="query" if first_col else "", **WEIGHT_SCALE)
        best = max([p for _, p in s.top] or [0.0])
        cut = f", top-p {s._p:.2f}" if s._p < 1 else ""
        art.bars.update([p for _, p in s.top], [token_label(t) for t, _ in s.top],
                        title=f"next token after '{s.labels[-1]}' (T = {s._T:.2f}"
                        f"{cut})", xlim=(0.0, min(1.0, max(0.05, 1.25 * best))),
                        fmt="{:.3f}")
        return key

    def _paint_all(self, art, state):
        art.suptitle.set_visible(not state.empty and state._choice == ALL_HEADS)
        return super()._paint_all(art, state)

    def _csv_table(self):  # for save: the bars (next tokens) beside the grid
        return super()._csv_table(beside=(
            ["next token", f"probability (T = {self._state._T:.2f})"], list(self.top)))

    # -- generation -----------------------------------------------------------
    def _on_generate(self, button=None):
        """Continue the prompt by GENERATE_TOKENS tokens (top-k sampling at
        the sliders' temperature and top-p; the seed counts the clicks). The
        box grows to show the text, and the message line shows what was added."""
        if self.model is None:
            self._set_message(self.unavailable)
            return
        try:
            text = "" if self.prompt.value is None else str(self.prompt.value)
            top_p = self._clamp_p(self.top_p.value)
            g = self.model.generate(text, GENERATE_TOKENS, top_k=GENERATE_TOP_K,
                                    temperature=self._temperature(), seed=self._clicks,
                                    top_p=top_p if top_p < 1 else None)
            self._clicks += 1
            self.prompt.rows = _rows_for(text + g.new_text)
            self.prompt.value = text + g.new_text
            added = " ".join(g.new_text.split())
            self._set_message(f"{self.message} Added: \u201c{added}\u201d".strip())
        except Exception as exc:  # never escape a widget callback
            self.last_error = exc
            self._set_message(f"Could not generate ({type(exc).__name__}).")

    def _summary(self):
        return (f"<{self.kind}: {self.unavailable}>" if self.model is None
                else super()._summary())


def gpt_explorer(prompt=None, layer=0, head=ALL_HEADS, temperature=1.0, top_p=1.0):
    """Lesson 11: the small GPT's attention and next-token prediction.

    Type a prompt (``.prompt``, also ``.sentence``); ``.layer`` (0-3) and
    ``.head`` (0-5, or ``"all 6 heads"``) pick the attention shown,
    ``.temperature`` reshapes the next-token probabilities, ``.top_p`` keeps
    only the nucleus (1.0: every token) and ``.generate`` appends 20 sampled
    tokens (top-k 40 at that temperature and top-p). ``.tokens`` are the
    shown tokens (the last ``MAX_SHOWN``), ``.weights`` their pattern, (n, n)
    or (6, n, n); ``.probs`` is ``softmax(logits / T)`` after the whole text,
    cut to the top-p nucleus and renormalised when top-p < 1, (vocab,), and
    ``.top`` the shown (token, probability) pairs; ``.run`` the model's run.
    """
    return _GPTExplorer(_DEFAULT_PROMPT if prompt is None else prompt, layer, head,
                        temperature, top_p)
