"""Heatmaps: one attention pattern (``heatmap``), a grid of heads
(``head_grid``), one pattern drawn both ways (``both_conventions``, lesson 04),
a pattern with its mask (``mask_view``) and every head of a
real model in one image (``model_heads``, lesson 10). Rows are queries,
columns are keys."""

from __future__ import annotations


import numpy as np
from matplotlib.collections import PatchCollection
from matplotlib.colors import Normalize
from matplotlib.patches import Patch, Rectangle

from helpers.figures import alt as alt_text
from helpers.figures import numbers
from helpers.figures.common import (
    KEY_LABEL,
    MASKED_COLOUR,
    QUERY_LABEL,
    AttentionFigure,
    _annotate_cells,
    _as_matrix,
    _auto_size,
    _cmap,
    _empty_message,
    _grid_image,
    _labels,
    _new_figure,
    _scalar_mappable,
    short_label,
    _sums_to_one,
    _text_colour,
    _token_ticks,
)


def heatmap(
    A,
    row_labels=None,
    col_labels=None,
    *,
    title=None,
    convention="rows=queries",
    annotate=False,
    cmap="viridis",
    vmin=None,
    vmax=None,
    xlabel=None,
    ylabel=None,
    colorbar_label="attention weight",
    figsize=None,
) -> AttentionFigure:
    """A labelled heatmap of a grid, by default an attention pattern.

    ``A[i, j]`` is drawn in row ``i``, column ``j``; ``row_labels`` name the
    rows (the queries) and ``col_labels`` the columns (the keys).

    ``convention="video"`` draws the same numbers the way the video-style
    lesson does: keys as rows, queries as columns (the transpose), so each
    *column* of the picture sums to 1. If the drawn grid's rows (or, in the
    video convention, columns) sum to 1, a note under the picture says so.
    ``annotate=True`` writes each value in its cell (up to 20 x 20 cells).
    Any 2-D array works: pass ``xlabel``, ``ylabel`` and ``colorbar_label``
    for grids that are not attention patterns (for example embeddings).
    """
    A = _as_matrix(A)
    shape = A.shape[::-1] if convention == "video" else A.shape
    fig = _new_figure(figsize or _auto_size(*shape))
    ax = fig.add_subplot()
    mappable, note = _pattern_panel(
        ax, A, row_labels, col_labels, convention=convention, annotate=annotate,
        cmap=cmap, vmin=vmin, vmax=vmax, title=title, xlabel=xlabel, ylabel=ylabel,
    )  # fmt: skip
    fig.colorbar(mappable, ax=ax, label=colorbar_label, shrink=0.9)
    if note:
        fig.supxlabel(note, fontsize=9, style="italic", color="0.25")
    fig.alt = _heatmap_alt(ax, A, row_labels, col_labels, convention,
                           colorbar_label, note)
    return fig


def _heatmap_alt(ax, A, row_labels, col_labels, convention, what, note):
    """The text alternative of a heatmap: its title, then each row of the
    numbers (rows = queries; in the video convention the drawn columns)."""
    title = " ".join(ax.get_title().split())
    rows = _labels(row_labels, A.shape[0], "row labels", A.shape)
    cols = _labels(col_labels, A.shape[1], "column labels", A.shape)
    y, x = ax.get_ylabel(), ax.get_xlabel()
    if convention == "video":
        y, x = x, y
        if "video" not in title:
            title += " (drawn with the keys as rows: the transpose)"
    text = f"{title}. " + alt_text.grid(A, rows, cols, rows=y or "row",
                                       cols=x or "column", what=what or "value")
    return text + (f" Note: {note}." if note else "")


def both_conventions(A, tokens, *, annotate=True) -> AttentionFigure:
    """The same pattern drawn both ways, side by side, with one colour scale:
    left rows = queries (this series), right the video style (keys are rows,
    queries are columns, so each *column* sums to 1). The one picture of the
    series in the other convention, and it says so in its titles.

    A : (n_tokens, n_tokens) attention pattern, rows = queries;
    tokens : the n_tokens labels (queries and keys alike)."""
    A = _as_matrix(A)
    width, height = _auto_size(*A.shape)
    fig = _new_figure((2 * width - 1.0, height))
    axes = fig.subplots(1, 2)
    panels = [
        ("rows=queries", "Rows = queries (this series): softmax along each row"),
        ("video", "Video style: keys are rows, softmax down each column"),
    ]
    for ax, (convention, title) in zip(axes, panels):
        mappable, note = _pattern_panel(
            ax, A, tokens, tokens, convention=convention, annotate=annotate,
            cmap="viridis", vmin=0, vmax=1, title=title,
        )  # fmt: skip
        if note:
            ax.set_xlabel(f"{ax.get_xlabel()}\n{note}")
    fig.colorbar(mappable, ax=list(axes), label="attention weight", shrink=0.9)
    fig.suptitle("The same pattern, drawn both ways")
    fig.alt = ("The same pattern drawn twice with one colour scale: on the left "
               "rows are queries (each row sums to 1), on the right the video "
               "style, its transpose (each column is a query and sums to 1). "
               + alt_text.grid(A, tokens, tokens))
    return fig


def _pattern_panel(
    ax, A, row_labels, col_labels, *, convention, annotate, cmap, vmin, vmax,
    title=None, xlabel=None, ylabel=None,
):  # fmt: skip
    """Draw one pattern on ``ax`` in ``convention``; returns (the image, the
    note on what sums to 1 or None)."""
    if convention not in ("rows=queries", "video"):
        raise ValueError(
            f"convention must be 'rows=queries' or 'video', got {convention!r}"
        )
    A = _as_matrix(A)
    rows = _labels(row_labels, A.shape[0], "row labels", A.shape)
    cols = _labels(col_labels, A.shape[1], "column labels", A.shape)
    if convention == "video":
        data, y_labels, x_labels = A.T, cols, rows
        default_y, default_x = KEY_LABEL, QUERY_LABEL
        default_title = "Attention pattern (video style: keys are rows)"
    else:
        data, y_labels, x_labels = A, rows, cols
        default_y, default_x = QUERY_LABEL, KEY_LABEL
        default_title = "Attention pattern (rows = queries)"
    ax.set_title(default_title if title is None else title)
    ax.set_ylabel(default_y if ylabel is None else ylabel)
    ax.set_xlabel(default_x if xlabel is None else xlabel)
    norm = Normalize(vmin=vmin, vmax=vmax)
    if data.size == 0:
        _empty_message(ax)
        norm = Normalize(0 if vmin is None else vmin, 1 if vmax is None else vmax)
        mappable = _scalar_mappable(norm, cmap)
    else:
        shown = np.ma.masked_invalid(data)
        mappable = _grid_image(ax, shown, cmap, norm)
        mappable.set_gid("heatmap-image")
        _hatch_missing(ax, data)
        _token_ticks(ax, "x", x_labels)
        _token_ticks(ax, "y", y_labels)
        if annotate:
            _annotate_cells(ax, data, mappable)
    if convention == "video" and _sums_to_one(data, axis=0):
        return mappable, "each column sums to 1 (one column per query)"
    if convention == "rows=queries" and _sums_to_one(data, axis=1):
        return mappable, "each row sums to 1 (one row per query)"
    return mappable, None


def _hatch_missing(ax, data):
    """Hatch the cells that hold no number (masked, NaN, ±inf): grey and
    hatched, so that they differ from a weight of 0 by more than colour."""
    cells = [Rectangle((j - 0.5, i - 0.5), 1, 1)
             for i, j in zip(*np.nonzero(~np.isfinite(data)))]
    if cells:
        ax.add_collection(PatchCollection(cells, facecolor=MASKED_COLOUR,
                                          edgecolor="0.45", hatch="///",
                                          linewidth=0.0, gid="missing-cells"))


def head_grid(
    weights,
    tokens=None,
    *,
    titles=None,
    suptitle="Attention patterns, one per head (rows = queries)",
    cmap="viridis",
    vmin=0.0,
    vmax=None,
    colorbar_label="attention weight",
    figsize=None,
    cells=None,
) -> AttentionFigure:
    """A grid of attention patterns with one shared colour bar.

    ``weights`` has shape ``(h, n, n)`` (one row of panels) or
    ``(L, h, n, n)`` (one row of panels per layer). ``titles`` is a list of
    ``h`` names (or ``L * h`` for layers); by default "head 0", "head 1", ...
    Every panel uses the same colour scale (``vmin``..``vmax``, by default
    0..the largest weight), so the panels can be compared. ``cells`` lists
    ``(panel, row, column)`` triples (panels counted across the grid, from
    0) whose value is written in the cell, rounded to 2 decimals, with a
    frame around it: the numbers a text quotes can be checked in the picture.
    """
    W = np.asarray(weights, dtype=float)
    if W.ndim == 3:
        W = W[None]
        layered = False
    elif W.ndim == 4:
        layered = True
    else:
        raise ValueError(
            f"weights must have shape (h, n, n) or (L, h, n, n); got {W.shape}"
        )
    n_layers, n_heads, n_q, n_k = W.shape
    if n_heads == 0 or n_layers == 0:
        raise ValueError(f"weights of shape {W.shape} contain no head to draw")
    q_labels = _labels(tokens, n_q, "tokens", W.shape[-2:])
    k_labels = (
        _labels(tokens, n_k, "tokens", W.shape[-2:])
        if n_k == n_q
        else [str(i) for i in range(n_k)]
    )
    total = n_layers * n_heads
    if titles is None:
        titles = [
            (f"layer {layer}, head {head}" if layered else f"head {head}")
            for layer in range(n_layers)
            for head in range(n_heads)
        ]
    titles = [str(t) for t in titles]
    if len(titles) != total:
        raise ValueError(
            f"{len(titles)} titles for weights of shape {W.shape}: need {total}"
        )
    finite = W[np.isfinite(W)]
    top = vmax if vmax is not None else (float(finite.max()) if finite.size else 1.0)
    norm = Normalize(vmin=vmin, vmax=max(top, (vmin or 0.0) + 1e-12))
    panel = 0.42 * max(n_q, n_k, 3) + 1.2
    if figsize is None:
        figsize = (min(18.0, panel * n_heads + 1.5), min(14.0, panel * n_layers + 1.0))
    fig = _new_figure(figsize)
    axes = np.atleast_2d(fig.subplots(n_layers, n_heads, squeeze=False))
    image = None
    for layer in range(n_layers):
        for head in range(n_heads):
            ax = axes[layer, head]
            ax.set_title(titles[layer * n_heads + head], fontsize=10)
            if n_q == 0 or n_k == 0:
                _empty_message(ax)
                continue
            image = _grid_image(ax, np.ma.masked_invalid(W[layer, head]), cmap, norm)
            _token_ticks(ax, "x", k_labels, show=layer == n_layers - 1)
            _token_ticks(ax, "y", q_labels, show=head == 0)
            for p, i, j in cells or ():
                if p != layer * n_heads + head or not (0 <= i < n_q and 0 <= j < n_k):
                    continue
                value = float(W[layer, head, i, j])
                if not np.isfinite(value):
                    continue
                # a white frame inside a black one: >= 3:1 against any cell
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False,
                                       edgecolor="black", linewidth=2.6))
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False,
                                       edgecolor="white", linewidth=1.0))
                ax.text(j, i, f"{round(value, 2) + 0.0:.2f}", ha="center", va="center",
                        fontsize=7, color=_text_colour(image.cmap(image.norm(value))))
            if layer == n_layers - 1:
                ax.set_xlabel(KEY_LABEL)
            if head == 0:
                ax.set_ylabel(QUERY_LABEL)
    if image is None:
        image = _scalar_mappable(norm, cmap)
    fig.colorbar(image, ax=axes.ravel().tolist(), label=colorbar_label, shrink=0.85)
    fig.suptitle(suptitle)
    patterns = W.reshape(total, n_q, n_k)
    text = (f"{' '.join(str(suptitle).split())}. {total} panels, one colour scale "
            f"{alt_text.number(norm.vmin)} to {alt_text.number(norm.vmax)}. "
            + alt_text.heads(patterns, titles, q_labels, k_labels))
    quoted = [(p, i, j) for p, i, j in cells or () if 0 <= p < total
              and 0 <= i < n_q and 0 <= j < n_k and np.isfinite(patterns[p, i, j])]
    if quoted:
        text += " Framed cells: " + ", ".join(
            f"{titles[p]} '{q_labels[i]}' → '{k_labels[j]}' "
            f"{alt_text.number(round(float(patterns[p, i, j]), 2))}"
            for p, i, j in quoted) + "."
    fig.alt = text
    return fig


def mask_view(
    A,
    mask,
    tokens=None,
    *,
    title="Masked attention (hatched = masked)",
    cmap="viridis",
    colorbar_label="attention weight",
    figsize=None,
) -> AttentionFigure:
    """An attention pattern whose masked cells are hatched grey.

    ``mask`` is boolean, ``True`` where a query may attend (broadcastable to
    ``A``). Masked cells are drawn light grey with diagonal hatching and
    named in the legend, so they look different from an allowed cell whose
    weight happens to be 0 (the darkest colour of the map).
    """
    A = _as_matrix(A)
    mask = np.asarray(mask)
    if mask.dtype != bool:
        raise ValueError(f"mask must be boolean (True = may attend), got {mask.dtype}")
    try:
        mask = np.broadcast_to(mask, A.shape)
    except ValueError:
        raise ValueError(
            f"mask of shape {mask.shape} does not fit the weights of shape {A.shape}"
        ) from None
    q_labels = _labels(tokens, A.shape[0], "tokens", A.shape)
    k_labels = (
        q_labels
        if A.shape[1] == A.shape[0]
        else _labels(None, A.shape[1], "tokens", A.shape)
    )
    fig = _new_figure(figsize or _auto_size(*A.shape, extra_width=2.6))
    ax = fig.add_subplot()
    ax.set_title(title)
    ax.set_ylabel(QUERY_LABEL)
    ax.set_xlabel(KEY_LABEL)
    norm = Normalize(0.0, max(1e-12, float(np.nanmax(A[mask])) if mask.any() else 1.0))
    if A.size == 0:
        _empty_message(ax)
        mappable = _scalar_mappable(norm, cmap)
    else:
        shown = np.ma.array(A, mask=~mask | ~np.isfinite(A))
        mappable = _grid_image(ax, shown, cmap, norm)
        cells = [
            Rectangle((j - 0.5, i - 0.5), 1, 1) for i, j in zip(*np.nonzero(~mask))
        ]
        ax.add_collection(
            PatchCollection(
                cells,
                facecolor=MASKED_COLOUR,
                edgecolor="0.45",
                hatch="///",
                linewidth=0.0,
                gid="masked-cells",
            )
        )
        _token_ticks(ax, "x", k_labels)
        _token_ticks(ax, "y", q_labels)
    legend_patch = Patch(
        facecolor=MASKED_COLOUR,
        edgecolor="0.45",
        hatch="///",
        label="masked (score set to -∞, weight exactly 0)",
    )
    fig.legend(
        handles=[legend_patch], loc="outside lower center", fontsize=9, frameon=False
    )
    fig.colorbar(mappable, ax=ax, label=colorbar_label + " (allowed cells)")
    fig.alt = (f"{' '.join(str(title).split())}. Hatched grey cells are masked. "
               + alt_text.masked(A, mask, q_labels, k_labels))
    return fig


def model_heads(
    attention,
    tokens,
    *,
    suptitle="Every head of every layer (rows = queries, columns = keys)",
    cmap="viridis",
    figsize=(20.0, 11.0),
) -> AttentionFigure:
    """All heads of a real model at once (lesson 10): one small pattern per
    head, a row of patterns per layer, one shared 0..1 colour scale.

    ``attention`` has shape ``(L, h, n, n)`` (``run.attention``). The
    patterns are tiles of one image, one blank row and column apart (72
    separate axes take seconds to build and draw); token labels run down the
    left of every layer and along the bottom of every head (every k-th one
    when there are more than 16). ``fig.mosaic`` is that image: the pattern
    of layer ``l``, head ``k`` starts at row ``l (n + 1)``, column
    ``k (n + 1)``.
    """
    W = np.asarray(attention, dtype=float)
    if W.ndim != 4 or W.shape[-1] != W.shape[-2] or 0 in W.shape:
        raise ValueError(f"attention must have shape (L, h, n, n) with n > 0; "
                         f"got {W.shape}")
    n_layers, n_heads, n, _ = W.shape
    labels = [short_label(t) for t in _labels(tokens, n, "tokens", W.shape[-2:])]
    size = n + 1  # a tile and its blank separator
    mosaic = np.full((n_layers * size - 1, n_heads * size - 1), np.nan)
    for layer in range(n_layers):
        for head in range(n_heads):
            mosaic[layer * size:layer * size + n,
                   head * size:head * size + n] = W[layer, head]
    step = max(1, int(np.ceil(n / 16)))
    ticks = list(range(0, n, step))
    fig = AttentionFigure(figsize=figsize)
    ax = fig.add_axes([0.085, 0.11, 0.835, 0.8])
    colours = _cmap(cmap).with_extremes(bad="white")
    image = ax.imshow(np.ma.masked_invalid(mosaic), cmap=colours, vmin=0.0, vmax=1.0,
                      aspect="auto", interpolation="nearest")
    ax.set_yticks([layer * size + i for layer in range(n_layers) for i in ticks],
                  [labels[i] for _ in range(n_layers) for i in ticks], fontsize=7)
    ax.set_xticks([head * size + i for head in range(n_heads) for i in ticks],
                  [labels[i] for _ in range(n_heads) for i in ticks], fontsize=6,
                  rotation=90)
    ax.tick_params(length=1.5, pad=1)
    for side in ax.spines.values():
        side.set_visible(False)
    for head in range(n_heads):
        ax.text(head * size + (n - 1) / 2, -1.0, f"head {head}", ha="center",
                va="bottom", fontsize=10)
    for layer in range(n_layers):
        ax.annotate(f"layer {layer}", xy=(0, layer * size + (n - 1) / 2),
                    xycoords=("axes fraction", "data"), xytext=(-62, 0),
                    textcoords="offset points", rotation=90, ha="center",
                    va="center", fontsize=10)
    cax = fig.add_axes([0.93, 0.11, 0.008, 0.8])
    fig.colorbar(image, cax=cax, label="attention weight")
    fig.suptitle(suptitle, y=0.965)
    fig.mosaic = mosaic
    fig.alt = _model_heads_alt(W, labels, suptitle)
    # its table: 72 grids of n x n are too many to read; each head's mean
    # weight on the first token (where many heads park) is one number each
    ax._attn_table = numbers.Grid(
        np.nanmean(W[..., 0], axis=-1), [f"layer {i}" for i in range(n_layers)],
        [f"head {k}" for k in range(n_heads)], "layer", "head",
        f"Mean weight each head's queries give the first token '{labels[0]}'")
    return fig


def _model_heads_alt(W, labels, suptitle):
    """Each layer's heads grouped by their habit (which key most queries
    look at), and the strongest cell of the whole picture."""
    n_layers, n_heads, n, _ = W.shape
    flat = int(np.nanargmax(np.where(np.isfinite(W), W, -np.inf)))
    top = np.unravel_index(flat, W.shape)
    parts = [f"{' '.join(str(suptitle).split())}. {n_layers} layers × {n_heads} "
             f"heads, {n} tokens each, weights 0 to 1. Strongest: layer {top[0]}, "
             f"head {top[1]}, '{labels[top[2]]}' → '{labels[top[3]]}' "
             f"{alt_text.number(W[top])}. What each head's queries mostly look at:"]
    for layer in range(n_layers):
        groups = {}
        for head in range(n_heads):
            kind, phrase = alt_text.habit(W[layer, head], labels)
            name = {"previous": "look back one token", "self": "look at itself",
                    "next": "look one token ahead", "mixed": "have no single habit",
                    "spread": "spread their weight about evenly"}.get(
                        kind, phrase.split(" (")[0].replace("most queries ", ""))
            groups.setdefault(name, []).append(str(head))
        parts.append(f"Layer {layer}: " + "; ".join(
            _heads_phrase(hs, name, n_heads) for name, hs in groups.items()) + ".")
    return " ".join(parts)


def _heads_phrase(hs, name, n_heads):
    """"heads 0, 2 look at '[CLS]'", "all 12 heads ...", "all heads but 4 ..."."""
    if len(hs) == 1:
        return f"head {hs[0]} " + name.replace("look ", "looks ").replace(
            "have ", "has ")
    if len(hs) == n_heads:
        return f"all {n_heads} heads {name}"
    if len(hs) > n_heads / 2:
        others = [str(h) for h in range(n_heads) if str(h) not in hs]
        return f"all heads but {', '.join(others)} {name}"
    return f"heads {', '.join(hs)} {name}"
