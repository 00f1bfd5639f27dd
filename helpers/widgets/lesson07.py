"""Lesson 07: several heads on one sentence, and the parameter calculator."""

from __future__ import annotations

import html
import math

import ipywidgets as widgets
import numpy as np

from helpers.world import heads
from helpers.attention import attention_parameters, multi_head_attention
from helpers.figures import alt as alt_text
from helpers.widgets.kit import (Explorer, SentenceExplorer, State, empty_state,
                                 read_sentence, toy_sentence)
from helpers.widgets import saving
from helpers.widgets.engine import label_width, set_text
from helpers.widgets.policy import MAX_TOY_TOKENS, WEIGHT_SCALE
from helpers.widgets.panels import Bars, Heatmap

_ALL = "all heads"
#: The parameter calculator's bars: (label, key of attention_parameters).
_BARS = (("W_Q", "query"), ("W_K", "key"), ("value-down", "value_down"),
         ("value-up", "value_up"), ("square value map", "square_value"),
         ("per head", "per_head"), ("per block", "per_block"),
         ("all layers", "total"))


class _MultiHeadExplorer(SentenceExplorer):
    kind = "multi_head_explorer"
    guess_first = True  # "Guess first", then Reveal (guess.py)
    figsize = (12.0, 5.6)  # room for 24 readable labels in each grid panel

    #: all_weights: every head's pattern, (h, n, n); dE: the multi-head
    #: update, (n, D_MODEL)
    shows = {"all_weights": None, "dE": None}

    def __init__(self, sentence, head):
        self._heads_list = heads.all_heads()
        names = [h.name for h in self._heads_list]
        self.head = widgets.Dropdown(options=[_ALL] + names,
                                     value=head if head in names else _ALL,
                                     description="Head:")
        super().__init__(sentence, beside=[self.head])

    def _build(self, art):
        h = len(self._heads_list)
        art.single = Heatmap(art, [0.16, 0.27, 0.5, 0.6],
                             cbar_rect=[0.68, 0.27, 0.015, 0.6])
        width, gap, left = 0.26, 0.025, 0.09
        art.grid = []
        for k in range(h):
            x0 = left + k * (width + gap)
            art.grid.append(Heatmap(
                art, [x0, 0.27, width, 0.6],
                cbar_rect=[x0 + width + 0.008, 0.27, 0.008, 0.6] if k == h - 1
                else None,
                rows=MAX_TOY_TOKENS if k == 0 else 0, title_size=10, small=True,
                room=x0 if k == 0 else gap))

    def _compute(self):
        r = read_sentence(self.sentence.value)
        names = [h.name for h in self._heads_list]
        choice = self.head.value
        if r.empty:
            shape = (len(names), 0, 0) if choice == _ALL else (0, 0)
            return empty_state(r, weights_shape=shape)
        W_Q, W_K, W_V, W_O = heads.stack_heads(self._heads_list)

        dE, A = multi_head_attention(r.E, W_Q, W_K, W_V, W_O)
        if choice == _ALL:
            weights = A
        else:
            weights = A[names.index(choice)]
        return State(tokens=r.tokens, labels=r.labels, weights=weights,
                     notes=r.notes, all_weights=A, dE=dE, _names=names,
                     _choice=choice)

    def _paint(self, art, s):
        single = s._choice != _ALL
        art.single.set_visible(single)
        for g in art.grid:
            g.set_visible(not single)
        if single:
            k = s._names.index(s._choice)
            desc = self._heads_list[k].description
            return ("single",) + art.single.update(
                s.weights, s.labels, s.labels, xlabel="key", ylabel="query",
                title=f"Head '{s._choice}': {desc}", **WEIGHT_SCALE)
        for k, g in enumerate(art.grid):
            g.update(s.all_weights[k], s.labels if k == 0 else [], s.labels,
                     title=f"{s._names[k]}", xlabel="key",
                     ylabel="query" if k == 0 else "", **WEIGHT_SCALE)
        return ("grid",)

    def _picture_name(self):
        return "Several heads on one sentence"

    def _describe(self, s):
        if s.empty:
            return super()._describe(s)
        t = s.tokens
        if s._choice != _ALL:
            k = s._names.index(s._choice)
            return (f"{self._picture_name()}: head '{s._choice}' alone "
                    f"({self._heads_list[k].description}); "
                    + alt_text.habit(s.weights, t)[1] + ". "
                    + alt_text.grid(s.weights, t, t))
        return (f"{self._picture_name()}: all {len(s._names)} heads side by side, "
                "one colour scale 0 to 1. "
                + alt_text.heads(s.all_weights, [f"head '{n}'" for n in s._names],
                                 t, t))

    def _csv_table(self):
        """For ``save``: all heads stacked under a ``head`` column of their
        names, or the one head's grid."""
        if np.ndim(self.weights) != 3:
            return super()._csv_table()
        return saving.grid(self.weights, self.tokens, self.tokens,
                           heads=[h.name for h in self._heads_list])


def multi_head_explorer(sentence=None, head=_ALL):
    """Lesson 07: several heads on one sentence.

    ``.head`` picks one of the hand-built heads (adjective, sense, previous
    token) or "all heads" for a grid. ``.weights`` is (n, n) for one head
    and (h, n, n) for all of them; ``.all_weights`` always (h, n, n);
    ``.dE`` the multi-head update, (n, D_MODEL).
    """
    return _MultiHeadExplorer(toy_sentence("creature") if sentence is None
                              else sentence, head)


def _about(n: int) -> str:
    """``57982058496`` -> ``"about 58 billion"``; ``6291456`` -> ``"about 6.3
    million"``."""
    for size, word in ((10**12, "trillion"), (10**9, "billion"), (10**6, "million"),
                       (10**3, "thousand")):
        if n >= size:
            x = n / size
            return f"about {x:.1f} {word}" if x < 10 else f"about {x:.0f} {word}"
    return ""


def _count(n: int) -> str:
    """``6291456`` -> ``"6,291,456 (about 6.3 million)"``; ``4`` -> ``"4"``
    (a count below a thousand needs no "about")."""
    about = _about(n)
    return f"{n:,} ({about})" if about else f"{n:,}"


def _fit_value_labels(bars, values, hi):
    """Keep every count inside the plot frame: a count whose text would run
    past the right edge of the log axis (1 .. ``hi``) is written inside its
    bar, right-aligned (white on a dark bar); the others stay after their bar."""
    ax = bars.ax
    fig = ax.figure
    axes_px = ax.get_position().width * fig.get_figwidth() * fig.dpi
    for t, v, bar in zip(bars.value_text[0], values, bars.bars[0]):
        if not t.get_visible():
            continue
        px = max(int(round(t.get_fontsize() * fig.dpi / 72.0)), 1)
        end = (math.log10(max(v, 1.0)) / math.log10(hi)
               + (label_width(t.get_text(), px) + 4.0) / axes_px)
        inside = end > 1.0
        if t.get_horizontalalignment() != ("right" if inside else "left"):
            t.set_horizontalalignment("right" if inside else "left")
        r, g, b = bar.get_facecolor()[:3]
        dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
        set_text(t, colour="white" if inside and dark else "black")


class _ParameterCalculator(Explorer):
    kind = "parameter_calculator"
    figsize = (8.4, 3.8)

    #: counts: attention_parameters(...) of the four settings; lines: the
    #: printed table, one line per count
    shows = {"counts": None, "lines": ()}

    def __init__(self, d_model, d_k, n_heads, n_layers):
        def box(value, name):
            return widgets.BoundedIntText(value=value, min=1, max=10**6,
                                          description=name,
                                          layout=widgets.Layout(width="13em"),
                                          style={"description_width": "initial"})

        self.d_model = box(d_model, "d_model")
        self.d_k = box(d_k, "d_k")
        self.n_heads = box(n_heads, "heads")
        self.n_layers = box(n_layers, "layers")
        self.table = widgets.HTML(value="")
        super().__init__([widgets.HBox([self.d_model, self.d_k, self.n_heads,
                                        self.n_layers]), self.table])

    def _build(self, art):
        art.bars = Bars(art, [0.3, 0.17, 0.55, 0.7], rows=8,
                        xlabel="parameters (log scale)")
        art.bars.ax.set_xlim(1.0, 10.0)
        art.bars.ax.set_xscale("log")

    @staticmethod
    def _lines(c, d, k, h, L):
        """The printed table of the counts ``c`` for d_model ``d``, d_k ``k``,
        ``h`` heads and ``L`` layers."""
        ratio = c["square_value"] / c["value_down"]
        return [
            f"W_Q (d_model x d_k = {d:,} x {k:,}): {c['query']:,}",
            f"W_K: {c['key']:,}",
            f"value-down (d_model x d_k): {c['value_down']:,}",
            f"value-up (d_k x d_model): {c['value_up']:,}",
            f"a square value map (d_model x d_model) would be {c['square_value']:,}"
            f" ({ratio:.3g} times one d_model x d_k matrix)",
            f"per head (4 matrices): {_count(c['per_head'])}",
            f"per block ({h:,} {'head' if h == 1 else 'heads'}): "
            f"{_count(c['per_block'])}",
            f"all {L:,} {'layer' if L == 1 else 'layers'}: {_count(c['total'])}",
        ]

    def _compute(self):
        notes = []
        vals = {}
        for name in ("d_model", "d_k", "n_heads", "n_layers"):
            v = getattr(self, name).value
            try:
                v = int(v)
            except (TypeError, ValueError):
                v = 1
            if v < 1:
                notes.append(f"{name} must be at least 1: using 1.")
                v = 1
            vals[name] = v
        if vals["d_k"] > vals["d_model"]:
            notes.append("d_k is larger than d_model: the low-rank value map is "
                         "then no smaller than a square one.")
        counts = attention_parameters(**vals)
        lines = self._lines(counts, vals["d_model"], vals["d_k"],
                            vals["n_heads"], vals["n_layers"])
        self.table.value = ("<pre style='line-height:1.35'>"
                            + html.escape("\n".join(lines)) + "</pre>")
        return State(notes=notes, counts=counts, lines=lines)

    def _paint(self, art, s):
        c = s.counts
        labels = [label for label, _ in _BARS]
        values = np.array([c[k] for _, k in _BARS], dtype=float)
        hi = 10.0 ** math.ceil(math.log10(max(values.max(), 10.0)) + 0.6)
        key = art.bars.update(values, labels, xlim=(1.0, hi), fmt="{:,.0f}",
                              title="Attention parameters (\u25b6 orange: the "
                                    "total of all layers)", highlight=7)
        art.bars.ax.set_xlim(1.0, hi)
        for r in art.bars.bars[0]:
            r.set_x(1.0)
            r.set_width(max(r.get_width() - 1.0, 0.0))
        _fit_value_labels(art.bars, values, hi)
        return key

    def _picture_name(self):
        return "Attention parameters (log scale)"

    def _describe(self, s):
        c = s.counts
        settings = ", ".join(f"{name} {int(getattr(self, name).value or 1):,}"
                             for name in ("d_model", "d_k", "n_heads", "n_layers"))
        bars = "; ".join(f"{label} {c[key]:,}" for label, key in _BARS)
        return (f"{self._picture_name()} for {settings}: one bar per count, the "
                f"last (all layers) highlighted: {bars}.")

    def _csv_table(self):
        """For ``save``: every count of the bars, and the four settings."""
        counts = (["count", "parameters"],
                  [[label, int(self.counts[k])] for label, k in _BARS])
        settings = (["setting", "value"],
                    [[n, int(getattr(self, n).value)]
                     for n in ("d_model", "d_k", "n_heads", "n_layers")])
        return saving.side_by_side(counts, settings)

    def _summary(self):
        return "<parameter_calculator>\n" + "\n".join(self.lines)


def parameter_calculator(d_model=12288, d_k=128, n_heads=96, n_layers=96):
    """Lesson 07: count the parameters of attention.

    Inputs ``.d_model``, ``.d_k``, ``.n_heads``, ``.n_layers``; the counts
    are in ``.counts`` (per query/key/value-down/value-up matrix, the square
    value map, per head, per block, total) and printed in ``.lines``. The
    defaults are GPT-3's: 1,572,864 per matrix, 150,994,944 for a square
    value map, about 6.3 million per head, 604 million per block, 58 billion
    in all 96 layers.
    """
    return _ParameterCalculator(d_model, d_k, n_heads, n_layers)
