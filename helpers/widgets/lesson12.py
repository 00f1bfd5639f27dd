"""Lesson 12: watch tiled attention sweep the score grid.

:func:`tiling_explorer` runs the online softmax of ``helpers.attention.
tiled_attention`` on a small causal example (seeded random queries, keys and
values) and stops after ``step`` blocks of keys. The grid (rows are queries,
columns keys) shows each score read as ``exp(score - m_i)``, relative to its
row's running max; masked cells grey; keys not read yet pale blue in a dashed
frame; the current block framed in orange. Beside it: each row's running max
``m`` and sum ``l`` (on axes fixed per setting), and the scores held at once
by plain attention (n x n), the tiled loop (n x block) and a window's band.
"""

from __future__ import annotations

import math

import ipywidgets as widgets
import numpy as np

from helpers.attention import causal_mask, sliding_window_mask, softmax
from helpers.figures import alt as alt_text
from helpers.widgets import saving
from helpers.widgets.kit import Explorer, State, clamp_int
from helpers.widgets.panels import Bars
from helpers.widgets.policy import BAR, BAR_AFTER
from helpers.widgets.tiling_parts import (  # noqa: F401 (NOT_READ, sweep_case: for tests)
    MAX_N,
    NOT_READ,
    RowBars,
    SweepHeatmap,
    key_range,
    plural,
    score_limit,
    state_after,
    sum_limit,
    sweep_case,
    thin_out,
)

class _TilingExplorer(Explorer):
    kind = "tiling_explorer"
    figsize = (12.0, 5.4)
    #: its message narrates the block being read, so it is never empty
    narrates = True

    #: running_max, running_sum: (n,) m and l after `step` blocks; output, exact:
    #: (n, D_V) acc / l so far and plain attention; memory: scores held at once
    #: (plain, tiled, band); rescaled: rows whose finite max rose in the current
    #: block; first_read: rows that read their first allowed key in it (m was -inf)
    shows = {"running_max": None, "running_sum": None, "output": None,
             "exact": None, "memory": None, "rescaled": 0, "first_read": 0}

    def __init__(self, n, block, window, step):
        style = {"description_width": "initial"}
        self.n = widgets.IntSlider(value=clamp_int(n, 1, MAX_N, 24), min=1, max=MAX_N,
                                   description="n tokens:", style=style)
        self.block = widgets.IntSlider(value=clamp_int(block, 1, MAX_N, 6), min=1,
                                       max=MAX_N, description="block:", style=style)
        self.window = widgets.IntSlider(value=clamp_int(window, 0, MAX_N, 0), min=0,
                                        max=MAX_N, description="window (0 = none):",
                                        style=style)
        self.step = widgets.IntSlider(value=clamp_int(step, 0, MAX_N, 1), min=0,
                                      max=MAX_N, description="blocks read:",
                                      style=style)
        super().__init__([widgets.HBox([self.n, self.block]),
                          widgets.HBox([self.window, self.step])])

    def _build(self, art):
        art.grid = SweepHeatmap(art, [0.06, 0.13, 0.36, 0.75],
                                 cbar_rect=[0.43, 0.13, 0.01, 0.75],
                                 clabel="exp(score - running max)", rows=MAX_N,
                                 cols=MAX_N)
        art.max = RowBars(art, [0.52, 0.13, 0.12, 0.75], xlabel="m", colour=BAR)
        art.sum = RowBars(art, [0.67, 0.13, 0.12, 0.75], xlabel="l",
                           colour=BAR_AFTER)
        art.mem = Bars(art, [0.87, 0.13, 0.1, 0.3], rows=3,
                       xlabel="scores held at once", room=0.06)

    def _compute(self):
        notes = []
        n = clamp_int(self.n.value, 1, MAX_N, 24)
        b = clamp_int(self.block.value, 1, MAX_N, 6)
        w = clamp_int(self.window.value, 0, MAX_N, 0)
        if b > n:
            every = "the one key" if n == 1 else f"all {n} keys"
            notes.append(f"The block ({b}) is longer than the text: one block holds "
                         f"{every}, as in plain attention.")
            b = n
        if w >= n:
            every = "the one token" if n == 1 else f"all {n} tokens"
            notes.append(f"A window of {w} covers {every}: the same as the "
                         "causal mask.")
        n_blocks = math.ceil(n / b)
        if self.step.max != n_blocks:
            with self.quietly():
                self.step.max = n_blocks  # ipywidgets clamps the value
        k = clamp_int(self.step.value, 0, n_blocks, n_blocks)
        S, _, _, V = sweep_case(n)
        allowed = causal_mask(n) if w == 0 or w >= n else sliding_window_mask(n, w)
        cols = np.arange(n)[None, :]
        seen = np.broadcast_to(cols < k * b, (n, n))
        m, total, out, P = state_after(S, allowed, seen, V)
        m_before = state_after(S, allowed, cols < (k - 1) * b, V)[0] if k else m
        # a row whose max was -inf read its first allowed key (nothing to
        # rescale); only a row with a finite old max was rescaled
        rose = int(np.sum(np.isfinite(m_before) & (m > m_before))) if k > 1 else 0
        first = int(np.sum(~np.isfinite(m_before) & np.isfinite(m))) if k > 1 else 0
        grid = np.where(allowed, np.where(seen, P, -np.inf), np.nan)
        exact = softmax(np.where(allowed, S, -np.inf)) @ V  # plain attention
        band = n * min(w, n) if w else None  # no window, no band
        keys = key_range((k - 1) * b, min(k * b, n) - 1)
        if k == 0:
            notes.append("No key read yet: every running max is -inf, every sum 0.")
        elif k == 1 and n_blocks > 1:
            notes.append(f"Block 1 of {n_blocks} ({keys}): each row's first max, "
                         "sum and output; nothing to rescale yet.")
        else:
            risen = ("the max rose in no row, so nothing was rescaled." if not rose
                     else f"the max rose in {plural(rose, 'row')}, whose old "
                     + ("sum and output were" if rose == 1 else "sums and outputs were")
                     + " rescaled by exp(m_old - m_new).")
            if first:
                risen = (f"first allowed key read in {plural(first, 'row')} "
                         f"({'its' if first == 1 else 'their'} max was -inf: "
                         "nothing to rescale); " + risen)
            if k < n_blocks:
                notes.append(f"Block {k} of {n_blocks} ({keys}): {risen}")
            elif n_blocks == 1:
                notes.append("The one block read: acc / l equals plain attention "
                             f"(largest difference {np.abs(out - exact).max():.0e}).")
            else:
                notes.append(f"Block {k} of {n_blocks} ({keys}), the last: {risen} "
                             f"All {n_blocks} blocks read: acc / l equals plain "
                             f"attention (largest difference "
                             f"{np.abs(out - exact).max():.0e}).")
        return State(
            tokens=[str(i) for i in range(n)], weights=grid, notes=notes,
            running_max=m, running_sum=total, output=out, exact=exact, rescaled=rose,
            first_read=first,
            memory={"plain": n * n, "tiled": n * b, "band": band},
            _n=n, _b=b, _k=k, _n_blocks=n_blocks, _w=w)

    def _paint(self, art, s):
        labels = thin_out(s.tokens)
        read = ("no block read yet" if s._k == 0 else
                f"after {s._k} of {plural(s._n_blocks, 'block')}")
        title = (f"{read}, {plural(s._b, 'key')} per block"
                 + (f", window {s._w}" if s._w else ", causal"))
        key = art.grid.update(s.weights, labels, labels, xlabel="key", ylabel="query",
                              title=title, vmin=0.0, vmax=1.0)
        a, z = (s._k - 1) * s._b, min(s._k * s._b, s._n)
        art.grid.frame.set_visible(s._k > 0)
        art.grid.frame.set_bounds(a - 0.5, -0.5, max(z - a, 0), s._n)
        art.grid.unread.set_visible(z < s._n)
        art.grid.unread.set_bounds(z - 0.5, -0.5, s._n - z, s._n)
        # fixed axis limits (the cached backgrounds are reused): m's for every
        # setting, l's for every step of one setting (the bars never rescale)
        lim, top = score_limit(), sum_limit(s._n, s._b, s._w if s._w < s._n else 0)
        k1 = art.max.update(s.running_max, title="running max m", xlim=(-lim, lim))
        k2 = art.sum.update(s.running_sum, title="running sum l", xlim=(0.0, top))
        # the x range runs past 1 to leave room for the "100%" labels; no
        # window, no band bar (w is in the grid's title)
        shown = [(k, v) for k, v in s.memory.items() if v is not None]
        values = [v / float(s._n * s._n) for _, v in shown]
        labels = [{"plain": "plain n\u00b2", "tiled": "tiled n\u00b7b",
                   "band": "band n\u00b7w"}[k] for k, _ in shown]
        k3 = art.mem.update(values, labels, title="memory (share of n\u00b2)",
                            xlim=(0.0, 1.3), fmt="{:.0%}")
        return key + k1 + k2 + k3

    def _csv_table(self):
        """For ``save``: the grid as drawn (``nan`` masked, ``-inf`` not read
        yet), each row's m and l beside it, and the memory bars."""
        mem = self.memory
        return super()._csv_table(beside=saving.side_by_side(
            (["running max m", "running sum l"],
             list(zip(self.running_max, self.running_sum))),
            (["memory", "scores held at once"],
             [["plain (n x n)", mem["plain"]], ["tiled (n x block)", mem["tiled"]],
              ["band (n x window)", "no window" if mem["band"] is None
               else mem["band"]]])))

    def _picture_name(self):
        return "Tiled attention sweeping the score grid"

    def _describe(self, state):
        """The block read, the window, and each row's running max m and sum l
        (sampled evenly past 12 rows), from the numbers drawn."""
        s = state
        n, b, k, nb, w = s._n, s._b, s._k, s._n_blocks, s._w
        mask = f"a window of {w}" if w and w < n else "the causal mask"
        if k == 0:
            read = "no block read yet: every running max is −∞, every sum 0"
        else:
            a, z = (k - 1) * b, min(k * b, n) - 1
            read = (f"block {k} of {nb} read ({key_range(a, z)}, framed); "
                    + ("the keys after it are not read yet (pale blue)" if z < n - 1
                       else "every key read"))
        rows = alt_text.rows_to_tell(n)
        sampled = "" if len(rows) == n else f", {len(rows)} of {n} rows evenly spread"
        per_row = "; ".join(
            f"query {i}: m {alt_text.number(s.running_max[i])}, l "
            f"{alt_text.number(s.running_sum[i])}" for i in rows)
        return (f"{self._picture_name()}: {n} query rows × {n} key columns, "
                f"{plural(b, 'key')} per block, {mask}; {read}. Cells read show "
                f"exp(score − running max), 1 at each row's max. Running max and "
                f"sum per row{sampled}: {per_row}. Scores held at once: plain "
                f"{s.memory['plain']:,}, tiled {s.memory['tiled']:,}"
                + (f", band {s.memory['band']:,}" if s.memory["band"] else "") + ".")

    def _summary(self):
        s = self._state
        return ("<tiling_explorer>" if s is None else
                f"<tiling_explorer: n={s._n}, block={s._b}, {s._k} of {s._n_blocks} "
                "blocks read>")


def tiling_explorer(n=24, block=6, window=0, step=1):
    """Lesson 12: the key blocks of tiled attention sweeping the score grid.

    ``.n`` (1-48 tokens), ``.block`` (keys per block), ``.window`` (sliding
    window width, 0 = plain causal) and ``.step`` (blocks read so far) are
    sliders. ``.weights`` is the drawn grid, (n, n): ``exp(score - m_i)`` for
    the keys read, ``-inf`` for keys not read yet, NaN for masked cells;
    ``.running_max`` and ``.running_sum`` (n,), ``.output`` (acc / l so far),
    ``.exact`` (plain attention, same mask) and ``.memory`` (scores held at
    once: plain n * n, tiled n * block, band n * w or None with no window).
    """
    return _TilingExplorer(n, block, window, step)
