"""Text alternatives: what a figure says, in words made from its numbers.

Every picture of the series carries one (DESIGN.md, "Every learner"): the
``alt`` text of its ``<img>``, which a screen reader reads where a sighted
learner looks. It says what a sighted reader takes from the picture: for a
grid, each row's strongest column and its value; for bars, the tallest; for a
curve, where it starts, ends and peaks. Numbers are rounded to 3 significant
digits, so the text (stored with the notebook and compared by nbval) does not
depend on a machine's last bits.

``describe(fig)`` reads any matplotlib figure (the artists it draws), so a
figure made with pyplot inside a lesson gets one too; a figure function that
knows better sets ``fig.alt`` itself, usually from :func:`grid` or
:func:`series`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

import numpy as np

MAX_CHARS = 1500  # a text alternative longer than this is cut (with "…")
MAX_ROWS = 12  # rows of a grid described one by one; more are sampled


def number(value) -> str:
    """``value`` with 3 significant digits ("0.62", "1.23e+06"), never "-0";
    a whole number below a million is written whole ("1024", not "1.02e+03")."""
    value = float(value)
    if not np.isfinite(value):
        return "−∞" if value < 0 else "∞" if value > 0 else "not a number"
    if abs(value) < 1e-12:  # a rounding error's leftover: say 0
        return "0"
    if value == round(value) and abs(value) < 1e6:
        return str(abs(int(value)) if value == 0 else int(value))
    text = f"{value:.3g}"
    return text[1:] if text.startswith("-") and set(text[1:]) <= set("0.") else text


def token_name(labels, i) -> str:
    """Label ``i`` as a listener should hear it (:func:`spoken`), quoted; a
    label that occurs more than once carries its place: "'shrew' (2nd)"."""
    if labels is not None and 0 <= i < len(labels) and str(labels[i]).strip():
        text = f"'{spoken(labels[i])}'"
        same = [k for k, other in enumerate(labels) if other == labels[i]]
        if len(same) > 1:
            text += f" ({ordinal(same.index(i) + 1)})"
        return text
    return str(i)


def ordinal(k: int) -> str:
    """1 -> "1st", 2 -> "2nd", 11 -> "11th", 23 -> "23rd"."""
    end = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(
        k % 10, "th")
    return f"{k}{end}"


#: how a drawn token label's marks are read aloud: lesson 11's GPT draws a
#: space as "·", a line break as "↵", a tab as "⇥", and a byte token holding
#: part of a character as "�"
_SPOKEN = {"\u00b7": ("space", "spaces"), "\u21b5": ("line break", "line breaks"),
           "\u21e5": ("tab", "tabs"), "\ufffd": ("byte piece", "byte pieces"),
           "\n": ("line break", "line breaks"), "\t": ("tab", "tabs")}


def spoken(label) -> str:
    """A token label in words a speech synthesiser reads well: "·the" ->
    "space the", "↵" -> "line break", "��ber" -> "2 byte pieces, ber",
    "··" -> "2 spaces"; other labels unchanged."""
    label = str(label)
    if not any(ch in _SPOKEN for ch in label):
        return label
    words, k = [], 0
    while k < len(label):
        ch = label[k]
        if ch in _SPOKEN:
            run = len(label) - k - len(label[k:].lstrip(ch))
            one, many = _SPOKEN[ch]
            words.append(one if run == 1 else f"{run} {many}")
            k += run
        else:
            end = k
            while end < len(label) and label[end] not in _SPOKEN:
                end += 1
            words.append(label[k:end])
            k = end
    return ", ".join(w for w in words if w.strip()) or "space"


def axis_noun(label: str) -> str:
    """An axis title as a short noun: "query (attending)" -> "query",
    "column of PE: fast hands on the left" -> "column of PE"."""
    text = re.sub(r"\s*\(.*?\)", "", plain(label)).split(":")[0]
    return " ".join(text.split()) or "row"


_TEX = {r"\cdot": "·", r"\sqrt": "√", r"\partial": "∂", r"\|": "‖",
        r"\times": "×", r"\infty": "∞", r"\top": "ᵀ", r"\,": " ", r"\lVert": "‖",
        r"\rVert": "‖", r"\to": "→", r"\approx": "≈", r"\leq": "≤", r"\geq": "≥"}


def plain(text) -> str:
    """A matplotlib label as a screen reader should hear it: mathtext
    ("$q\\cdot k/\\sqrt{d_k}$") as plain text ("q·k/√d_k"), on one line."""
    text = str(text)

    def math(m):
        inner = m.group(1)
        for tex, char in _TEX.items():
            inner = inner.replace(tex, char)
        inner = re.sub(r"\\[A-Za-z]+", "", inner)  # any other command
        inner = inner.replace("{", "").replace("}", "").replace(" ", "")
        return re.sub(r"([=<>≈≤≥])", r" \1 ", inner)  # as mathtext spaces them

    text = re.sub(r"\$(.+?)\$", math, text)
    return " ".join(text.split())


def rows_to_tell(n: int) -> list[int]:
    if n <= MAX_ROWS:
        return list(range(n))
    return sorted({int(round(x)) for x in np.linspace(0, n - 1, MAX_ROWS)})


def grid(values, row_labels: Sequence[str] | None = None,
         col_labels: Sequence[str] | None = None, *, rows="query",
         cols="key", what="weight") -> str:
    """A 2-D grid in words: its size and range, then each row's strongest
    column with its value ("query 'cat' → key 'sat' 0.62"). ``values`` is
    ``(n_rows, n_cols)``; masked, NaN and -inf cells count as empty. More than
    ``MAX_ROWS`` rows are sampled evenly (and the text says so)."""
    rows, cols = axis_noun(rows), axis_noun(cols)
    data = np.ma.masked_invalid(np.ma.asarray(values, dtype=float))
    if data.ndim != 2 or data.size == 0 or data.count() == 0:
        return f"An empty grid ({rows} rows, {cols} columns): nothing to show."
    n_rows, n_cols = data.shape
    parts = [f"{n_rows} {rows} rows × {n_cols} {cols} columns, {what} from "
             f"{number(data.min())} to {number(data.max())}."]
    told = rows_to_tell(n_rows)
    if len(told) < n_rows:
        parts.append(f"Strongest {cols} of {len(told)} {rows} rows, evenly "
                     f"spread:")
    else:
        parts.append(f"Strongest {cols} of each {rows}:")
    bits = []
    weights = _is_weights(data)
    for i in told:
        row = data[i]
        if row.count() == 0:
            bits.append(f"{token_name(row_labels, i)}: none")
            continue
        bits.append(f"{token_name(row_labels, i)} → "
                    + strongest(row, col_labels, weights=weights,
                                spread=_spread(data)))
    parts.append("; ".join(bits) + ".")
    return " ".join(parts)


# -- never over-claim: flat rows and ties -------------------------------------
FLAT_MARGIN = 0.05  # a weight row whose largest weight is within
#                     min(FLAT_MARGIN, 0.25 / m) of uniform 1/m is "spread out"
FLAT_SHARE = 0.05  # any other row is flat when its spread is at most this
#                    share of the whole grid's range


def _is_weights(data) -> bool:
    """Rows of attention weights: no negative cell, each row summing to 1
    over its cells (masked, NaN and -inf cells left out)."""
    finite = np.ma.masked_invalid(data)
    if finite.count() == 0 or finite.min() < -1e-9:
        return False
    sums = finite.sum(axis=-1).compressed() if finite.ndim > 1 else \
        np.atleast_1d(finite.sum())
    return bool(np.allclose(sums, 1.0, atol=1e-3))


def _spread(data) -> float:
    finite = np.ma.masked_invalid(data)
    return float(finite.max() - finite.min()) if finite.count() else 0.0


def is_flat(row, *, weights: bool | None = None, spread: float | None = None
            ) -> bool:
    """Whether ``row`` (a 1-D array; masked, NaN, -inf cells left out) has no
    strongest column worth naming. A row of weights is flat when its largest
    weight is within ``min(FLAT_MARGIN, 0.25 / m)`` of uniform ``1 / m``
    (``m`` keys with a weight above 0, at least 2): 0.09 on each of 11 keys
    is spread out, not "looks at the first". Any other row is flat when its
    largest and smallest differ by at most ``FLAT_SHARE`` of ``spread`` (the
    whole grid's range; the row's own when not given)."""
    row = np.ma.masked_invalid(np.ma.asarray(row, dtype=float)).compressed()
    if row.size < 2:
        return False
    if weights is None:
        weights = _is_weights(row)
    if weights:
        m = int((row > 0).sum())
        return m >= 2 and row.max() <= 1.0 / m + min(FLAT_MARGIN, 0.25 / m)
    whole = float(np.ptp(row)) if spread is None else spread
    return bool(np.ptp(row) <= FLAT_SHARE * whole) if whole > 0 else True


def strongest(row, labels=None, *, weights: bool | None = None,
              spread: float | None = None) -> str:
    """A row's strongest column in words, never over-claiming: "'sat' 0.62";
    a tie (equal to the rounding shown) as "'cat' and 'sat' tie at 0.4"; a
    flat row (:func:`is_flat`) as "spread out, all near 0.09"."""
    row = np.ma.masked_invalid(np.ma.asarray(row, dtype=float))
    if row.count() == 0:
        return "none"
    if is_flat(row, weights=weights, spread=spread):
        values = row.compressed()
        if weights is None or weights:
            values = values[values > 0] if (values > 0).sum() >= 2 else values
        return (f"spread out, all near {number(values.mean())} (none stands "
                f"out)")
    filled = row.filled(-np.inf)
    order = np.argsort(-filled, kind="stable")
    top = number(filled[order[0]])
    tied = [int(j) for j in order if np.isfinite(filled[j])
            and number(filled[j]) == top]
    if len(tied) == 1:
        return f"{token_name(labels, tied[0])} {top}"
    names = [token_name(labels, j) for j in tied[:3]]
    more = f" and {len(tied) - 3} more" if len(tied) > 3 else ""
    if len(names) == 2 and not more:
        return f"{names[0]} and {names[1]} tie at {top}"
    return f"{', '.join(names)}{more} tie at {top}"


def series(name: str, x, y) -> str:
    """One curve in words: where it starts and ends, and its extreme."""
    x, y = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if y.size == 0:
        return f"{name}: no points"
    if y.size == 1:
        return f"{name}: {number(y[0])} at {number(x[0])}"
    hi, lo = int(np.argmax(y)), int(np.argmin(y))
    text = (f"{name}: {number(y[0])} at {number(x[0])} to {number(y[-1])} at "
            f"{number(x[-1])}")
    if 0 < hi < y.size - 1:
        text += f", highest {number(y[hi])} at {number(x[hi])}"
    if 0 < lo < y.size - 1:
        text += f", lowest {number(y[lo])} at {number(x[lo])}"
    return text


def bars(name: str, labels: Sequence[str], heights) -> str:
    """Bars in words: how many, the tallest two and the smallest."""
    h = np.asarray(heights, dtype=float).ravel()
    if h.size == 0:
        return f"{name}: no bars"
    order = np.argsort(-h, kind="stable")
    tall = ", ".join(f"{token_name(labels, int(i))} {number(h[i])}" for i in order[:2])
    text = f"{name}: {h.size} bars, tallest {tall}"
    if h.size > 2:
        i = int(order[-1])
        text += f", smallest {token_name(labels, i)} {number(h[i])}"
    return text


def clip(text: str, limit: int = MAX_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- any matplotlib figure ---------------------------------------------------
def _tick_labels(ax, axis: str, n: int):
    """The full labels of a grid's axis: those ``_token_ticks`` stored (every
    token, also where only every k-th is written), else the written ticks at
    whole positions."""
    stored = getattr(ax, f"_attn_{axis}_labels", None)
    if stored is not None and len(stored) == n:
        return list(stored)
    getter = ax.get_xticklabels if axis == "x" else ax.get_yticklabels
    locs = ax.get_xticks() if axis == "x" else ax.get_yticks()
    labels = [""] * n
    for loc, text in zip(locs, getter()):
        i = int(round(loc))
        if abs(loc - i) < 1e-6 and 0 <= i < n:
            labels[i] = plain(text.get_text())
    if all(_is_number(t) for t in labels if t):
        return None  # numbers on the axis: the positions say the same
    return labels


def _is_rule(line) -> bool:
    """An ``axhline``/``axvline`` (a guide across the panel, not data)."""
    x, y = (np.asarray(v, dtype=float).ravel() for v in line.get_data())
    return x.size == 2 and ((x.tolist() == [0.0, 1.0] and y[0] == y[1])
                            or (y.tolist() == [0.0, 1.0] and x[0] == x[1]))


def _is_number(text: str) -> bool:
    try:
        float(text.replace("−", "-"))
    except ValueError:
        return False
    return True


def _legend_name(artist, fallback: str) -> str:
    label = artist.get_label()
    return plain(label) if label and not label.startswith("_") else fallback


def _points_text(ax) -> str:
    """Scatter points in words: how many, and each labelled point's place
    (an annotation pointing at it)."""
    offsets = [c.get_offsets() for c in ax.collections
               if hasattr(c, "get_offsets") and len(c.get_offsets())
               and type(c).__name__ == "PathCollection"]
    if not offsets:
        return ""
    n = sum(len(o) for o in offsets)
    notes = [t for t in ax.texts if hasattr(t, "xy") and t.get_text().strip()]
    text = f"{n} points"
    if notes:
        shown = notes[:24]
        text += ": " + "; ".join(
            f"'{plain(t.get_text())}' at ({number(round(float(t.xy[0]), 2))}, "
            f"{number(round(float(t.xy[1]), 2))})" for t in shown)
        if len(notes) > len(shown):
            text += f"; and {len(notes) - len(shown)} more labelled points"
    return text


def _axes_text(ax, head: str = "") -> str:
    title = plain(ax.get_title() or ax.get_ylabel() or "a panel")
    title = "" if title == plain(head) else title
    parts = []
    xlabel, ylabel = plain(ax.get_xlabel()), plain(ax.get_ylabel())
    if ax.get_xscale() == "log" and xlabel:
        xlabel += " (log scale)"
    if ax.get_yscale() == "log" and ylabel:
        ylabel += " (log scale)"
    for image in ax.get_images():
        array = image.get_array()
        if array is None:
            continue
        if array.ndim == 3:
            parts.append(f"a picture of {array.shape[0]} × {array.shape[1]} pixels")
            continue
        rows = _tick_labels(ax, "y", array.shape[0])
        cols = _tick_labels(ax, "x", array.shape[1])
        parts.append(grid(array, rows, cols, rows=ylabel or "row",
                          cols=xlabel or "column", what="values"))
        break
    for k, container in enumerate(ax.containers):
        patches = [p for p in container if hasattr(p, "get_height")]
        if not patches:
            continue
        centres = [p.get_x() + p.get_width() / 2 for p in patches]
        heights = [p.get_height() for p in patches]
        names = _tick_labels(ax, "x", int(max(centres) + 1.5)) if centres else None
        labels = [names[int(round(c))] if names and 0 <= round(c) < len(names)
                  and abs(c - round(c)) < 0.45 else number(c) for c in centres]
        single = len(ax.containers) == 1
        parts.append(bars(_legend_name(container, (ylabel or "bars") if single
                                       else f"series {k + 1}"), labels, heights))
    lines = [ln for ln in ax.get_lines() if len(np.atleast_1d(ln.get_xdata())) > 1
             and not _is_rule(ln)]
    named = [ln for ln in lines if not ln.get_label().startswith("_")]
    for k, line in enumerate(named or lines[:4]):
        parts.append(series(_legend_name(line, f"line {k + 1}"),
                            line.get_xdata(), line.get_ydata()))
    points = _points_text(ax)
    if points:
        parts.append(points)
    if not parts:
        texts = [plain(t.get_text()) for t in ax.texts if t.get_text().strip()]
        if texts:
            parts.append("labels " + ", ".join(f"'{t}'" for t in texts[:12]))
    axes = f" ({ylabel} against {xlabel})" if xlabel and ylabel and not \
        ax.get_images() else ""
    if not parts:
        return ""
    lead = f"{title}{axes}: " if title or axes else ""
    return lead + "; ".join(parts)


def describe(fig) -> str:
    """A text alternative for any matplotlib figure, read from what it draws:
    its title, then each panel (colour bars and empty panels left out)."""
    suptitle = getattr(fig, "_suptitle", None)
    head = plain(suptitle.get_text()) if suptitle is not None else ""
    if not head:
        head = next((plain(ax.get_title()) for ax in fig.axes if ax.get_title()),
                    "")
    panels = [_axes_text(ax, head) for ax in fig.axes
              if ax.get_visible() and ax.get_label() != "<colorbar>"]
    panels = [p for p in panels if p]
    text = "Figure" + (f": {head}." if head else ".")
    if panels:
        text += (" " if len(panels) == 1 else f" {len(panels)} panels. ") + \
            " | ".join(panels)
    return clip(text)


def text_of(fig) -> str:
    """The figure's own ``alt`` when it has one, with every panel it leaves
    out (:func:`missing_panels`); else :func:`describe`."""
    own = getattr(fig, "alt", None)
    if not own:
        return describe(fig)
    more = missing_panels(fig, own)
    return clip(own + (" Also: " + " | ".join(more) + "." if more else ""))


def panel(ax, text: str) -> None:
    """Say what one panel of a figure shows (used by :func:`missing_panels`
    when the figure's own ``alt`` does not say it)."""
    ax._attn_alt = text


def missing_panels(fig, own: str) -> list[str]:
    """The :func:`panel` texts of a figure's visible panels that its own
    ``alt`` does not hold already: how a figure function, or a lesson, makes
    sure that every panel the lesson refers to is described (a figure
    without its own ``alt`` is described panel by panel by
    :func:`describe`). A figure that says all of them in its own words sets
    ``fig.alt_covers_panels = True``."""
    if getattr(fig, "alt_covers_panels", False):
        return []
    said = plain(own).lower()
    return [text for ax in fig.axes if ax.get_visible()
            for text in [getattr(ax, "_attn_alt", None)]
            if text and plain(text).lower() not in said]


def img_html(png_base64: str, alt: str) -> str:
    """An ``<img>`` of a PNG (base64) with its text alternative, escaped."""
    return (f'<img src="data:image/png;base64,{png_base64}" '
            f'alt="{html.escape(clip(alt), quote=True)}">')


# -- what the figure functions say (they know what their numbers mean) -----
def top_cells(values, row_labels=None, col_labels=None, k=3, *,
              by_size=False) -> str:
    """The ``k`` largest cells of a grid: "'cat' → 'sat' 0.62, ..."
    (``by_size``: the largest in absolute value, signed values)."""
    data = np.ma.masked_invalid(np.ma.asarray(values, dtype=float))
    if data.ndim != 2 or data.count() == 0:
        return "no cells"
    flat = data.filled(-np.inf).ravel()
    size = np.abs(data.filled(0.0)).ravel() if by_size else flat
    order = np.argsort(-size, kind="stable")[:k]
    m = data.shape[1]
    return ", ".join(f"{token_name(row_labels, int(i) // m)} → "
                     f"{token_name(col_labels, int(i) % m)} {number(flat[i])}"
                     for i in order if np.isfinite(flat[i]))


def habit(values, labels=None):
    """A square attention pattern's habit, in words, from each query's
    strongest key: ``(kind, phrase)``, ``kind`` one of "previous", "self",
    "next", "first", "last", "key" (a key most queries look at), "spread"
    (most rows flat, :func:`is_flat`) or "mixed". Flat rows and ties cast
    no vote: a row of 0.09 on each of 11 keys does not "look at" its first."""
    data = np.nan_to_num(np.asarray(values, dtype=float), nan=-np.inf)
    n, m = data.shape if data.ndim == 2 else (0, 0)
    if n == 0 or m == 0:
        return "empty", "no tokens"
    best = np.argmax(data, axis=1)
    rows = np.arange(n)
    shown = np.ma.masked_invalid(np.asarray(values, dtype=float))
    weights, spread = _is_weights(shown), _spread(shown)
    flat = np.array([is_flat(shown[i], weights=weights, spread=spread)
                     for i in range(n)])
    # a row is a clear vote when it has one strongest key: not flat, no tie
    top = np.sort(data, axis=1)[:, -2:] if m >= 2 else np.zeros((n, 2))
    tie = np.array([m >= 2 and number(top[i, 0]) == number(top[i, 1])
                    for i in range(n)])
    clear = ~flat & ~tie
    n_flat = int(flat.sum())
    votes = {"previous": (rows >= 1, clear & (best == rows - 1)),
             "self": (rows < m, clear & (best == rows)),
             "next": (rows < m - 1, clear & (best == rows + 1))}
    for kind, (can, hit) in votes.items():
        if can.sum() >= 2 and hit[can].mean() >= 0.6:
            phrase = {"previous": "looks back one token",
                      "self": "looks at itself",
                      "next": "looks one token ahead"}[kind]
            return kind, (f"{phrase} (in {int(hit[can].sum())} of "
                          f"{int(can.sum())} rows)")
    counts = np.bincount(best[clear], minlength=m)
    j = int(np.argmax(counts))
    if n >= 2 and counts[j] >= 0.6 * n:
        kind = "first" if j == 0 else "last" if j == m - 1 else "key"
        return kind, (f"most queries look at {token_name(labels, j)} "
                      f"({int(counts[j])} of {n})")
    if n_flat >= 0.6 * n:
        return "spread", (f"spread out: {n_flat} of {n} queries weigh their "
                          f"keys about evenly")
    return "mixed", "no single habit: each query picks its own key"


def heads(patterns, titles, row_labels=None, col_labels=None, k=3) -> str:
    """Several heads in words: for each, its habit and its strongest cells."""
    parts = []
    for W, title in zip(patterns, titles):
        W = np.asarray(W, dtype=float)
        if W.size == 0:
            parts.append(f"{title}: empty")
            continue
        text = f"{title}: "
        if W.shape[0] == W.shape[1]:
            kind, phrase = habit(W, col_labels)
            if kind == "spread":  # no cell stands out: naming one over-claims
                parts.append(text + phrase + ", largest weight "
                             + number(np.nanmax(W)))
                continue
            text += phrase + "; "
        parts.append(text + "strongest " + top_cells(W, row_labels, col_labels, k))
    return ". ".join(parts) + "."


def masked(values, allowed, row_labels=None, col_labels=None) -> str:
    """A masked grid: how many cells are masked, which, and what remains."""
    allowed = np.asarray(allowed, dtype=bool)
    n_cells, n_masked = allowed.size, int((~allowed).sum())
    if n_masked == 0:
        where = "no cell is masked"
    else:
        n = allowed.shape[0]
        causal = allowed.shape[0] == allowed.shape[1] and np.array_equal(
            allowed, np.tri(n, dtype=bool))
        where = (f"{n_masked} of {n_cells} cells masked"
                 + (" (every key after its query: the triangle above the diagonal)"
                    if causal else ""))
    shown = np.where(allowed, np.asarray(values, dtype=float), np.nan)
    return f"{where}. What remains: " + grid(shown, row_labels, col_labels)


def features(values, row_labels, col_labels, k=3) -> str:
    """Vectors over named features: each row's largest entries (by size)."""
    data = np.asarray(values, dtype=float)
    if data.ndim == 1:
        data = data[None]
    bits = []
    for i in rows_to_tell(data.shape[0]):
        row = np.nan_to_num(data[i])
        order = [j for j in np.argsort(-np.abs(row), kind="stable")[:k]
                 if abs(row[j]) > 1e-9]
        top = ", ".join(f"{token_name(col_labels, int(j))} {number(row[j])}"
                        for j in order) or "all zero"
        bits.append(f"{token_name(row_labels, i)}: {top}")
    return "; ".join(bits) + "."


def slope(x, y) -> float | None:
    """The slope of log y against log x (a straight line on log-log axes)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    ok = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 2:
        return None
    return float(np.polyfit(np.log(x[ok]), np.log(y[ok]), 1)[0])
