"""Box-and-arrow diagrams: the attention pipeline with its shapes (lessons
03, 04, 05, 07) and one block of a real transformer (lesson 10).

Like :mod:`helpers.figures.plots`, every function returns a matplotlib ``Figure``
built without pyplot, with a title (its text form in a stored notebook).
"""

from __future__ import annotations

from matplotlib import colormaps
from matplotlib.patches import Rectangle

from helpers.figures.common import AttentionFigure, _new_figure

__all__ = ["block_diagram", "pipeline_diagram", "pipeline_shapes", "PIPELINE_STEPS"]


def block_diagram(title="One encoder block (all-MiniLM-L6-v2 has 6)",
                  figsize=(11.0, 3.6)) -> AttentionFigure:
    """A picture of one block of a BERT-style encoder: attention, residual
    additions, LayerNorm and the MLP, in the order the data flows."""
    fig = _new_figure(figsize)
    ax = fig.add_subplot()
    ax.set_xlim(0, 11)
    ax.set_ylim(0, 3.4)
    ax.axis("off")
    boxes = [
        (0.1, "x\n(n, 384)", "0.9"),
        (1.45, "attention\n12 heads\n(lessons 03–07)", colormaps["viridis"](0.75)),
        (3.25, "+", "white"),
        (4.2, "LayerNorm", "0.85"),
        (5.75, "MLP\n384 → 1536\nGELU → 384", colormaps["viridis"](0.45)),
        (7.55, "+", "white"),
        (8.5, "LayerNorm", "0.85"),
        (10.0, "x'\n(n, 384)", "0.9"),
    ]
    width = {"+": 0.5}
    for x, label, colour in boxes:
        w = width.get(label, 1.3 if "LayerNorm" not in label else 1.2)
        if label.startswith("x"):
            w = 0.9
        ax.add_patch(Rectangle((x, 1.2), w, 1.0, facecolor=colour,
                               edgecolor="0.2", lw=1.2))
        ax.text(x + w / 2, 1.7, label, ha="center", va="center", fontsize=9,
                color="white" if colour == colormaps["viridis"](0.45) else "black")
    arrow = dict(arrowstyle="->", color="0.2", lw=1.2)
    for x0, x1 in [(1.0, 1.45), (2.75, 3.25), (3.75, 4.2), (5.4, 5.75),
                   (7.05, 7.55), (8.05, 8.5), (9.7, 10.0)]:
        ax.annotate("", xy=(x1, 1.7), xytext=(x0, 1.7), arrowprops=arrow)
    # the residual stream: x skips past attention and past the MLP
    for x0, x1 in [(0.55, 3.5), (5.2, 7.8)]:
        ax.annotate("", xy=(x1, 2.2), xytext=(x0, 2.2),
                    arrowprops=dict(arrowstyle="->", color=colormaps["viridis"](0.1),
                                    lw=1.5, connectionstyle="bar,fraction=-0.35"))
    ax.text(2.0, 3.15, "residual: x + attention(x)", ha="center", fontsize=9)
    ax.text(6.5, 3.15, "residual: x + MLP(x)", ha="center", fontsize=9)
    ax.text(5.5, 0.55, "attention mixes information between tokens; the MLP works on "
            "each token on its own; LayerNorm rescales each token's vector",
            ha="center", fontsize=9, style="italic", color="0.25")
    ax.set_title(title)
    fig.alt = (f"{title}. A diagram of boxes joined by arrows, left to right: "
               + " → ".join(" ".join(label.split()) for _, label, _ in boxes)
               + ". Two residual arrows: x skips past attention to the first +, "
               "and past the MLP to the second +. Attention mixes information "
               "between tokens; the MLP works on each token on its own; LayerNorm "
               "rescales each token's vector.")
    return fig


# ---------------------------------------------------------- pipeline view ---

# (key, formula, symbolic shape, (x, y) centre) of every step of one head.
PIPELINE_STEPS = (
    ("E", "E  (embeddings)", ("n", "d_model"), (0.0, 0.0)),
    ("Q", "Q = E W_Q", ("n", "d_k"), (2.4, 1.15)),
    ("K", "K = E W_K", ("n", "d_k"), (2.4, 0.0)),
    ("V", "V = E W_V", ("n", "d_v"), (2.4, -1.15)),
    ("S", "S = Q Kᵀ / √d_k", ("n", "n"), (4.8, 0.575)),
    ("A", "A = softmax(S)", ("n", "n"), (7.2, 0.575)),
    ("AV", "A V", ("n", "d_v"), (9.6, -0.3)),
    ("dE", "dE = A V W_up", ("n", "d_model"), (12.0, -0.3)),
    ("E'", "E' = E + dE", ("n", "d_model"), (14.4, 0.0)),
)
_PIPELINE_ARROWS = (
    ("E", "Q"), ("E", "K"), ("E", "V"), ("Q", "S"), ("K", "S"),
    ("S", "A"), ("A", "AV"), ("V", "AV"), ("AV", "dE"), ("dE", "E'"),
)
_BOX_W, _BOX_H = 2.0, 0.85
_PLAIN_FACE, _PLAIN_EDGE = "#f2f2f2", "0.45"
_HIGHLIGHT_FACE = colormaps["viridis"](0.85)


def pipeline_shapes(n=None, d_model=None, d_k=None, d_v=None) -> dict[str, str]:
    """The shape text of every pipeline step, e.g. ``{"S": "n × n = 8 × 8"}``.

    Sizes left as ``None`` stay symbolic (``"n × d_k"``); given ones are
    written after the symbols.
    """
    sizes = {"n": n, "d_model": d_model, "d_k": d_k, "d_v": d_v}
    shapes = {}
    for key, _, (rows, cols), _ in PIPELINE_STEPS:
        text = f"{rows} × {cols}"
        if sizes[rows] is not None and sizes[cols] is not None:
            text += f" = {int(sizes[rows])} × {int(sizes[cols])}"
        shapes[key] = text
    return shapes


def pipeline_diagram(
    highlight=None,
    n=None,
    d_model=None,
    d_k=None,
    d_v=None,
    *,
    title="One attention head, step by step (shapes are rows × columns)",
    figsize=None,
) -> AttentionFigure:
    """The whole pipeline of one head as boxes and arrows, each box with its shape.

    E (n × d_model) → Q, K (n × d_k), V (n × d_v) → S = Q Kᵀ/√d_k (n × n)
    → A = softmax(S) (n × n) → A V (n × d_v) → dE = A V W_up (n × d_model)
    → E' = E + dE (n × d_model), plus the residual arrow from E to E'.
    ``highlight`` names the step(s) of the current lesson, from the keys of
    :data:`PIPELINE_STEPS` ("E", "Q", "K", "V", "S", "A", "AV", "dE", "E'"):
    those boxes are filled and outlined in bold. Sizes left as ``None`` are
    written as symbols only.
    """
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    keys = [key for key, *_ in PIPELINE_STEPS]
    if highlight is None:
        marked = set()
    elif isinstance(highlight, str):
        marked = {highlight}
    else:
        marked = {str(h) for h in highlight}
    unknown = sorted(marked - set(keys))
    if unknown:
        raise ValueError(
            f"unknown pipeline step(s) {unknown}; choose from {', '.join(keys)}"
        )
    shapes = pipeline_shapes(n, d_model, d_k, d_v)
    centres = {key: xy for key, _, _, xy in PIPELINE_STEPS}
    fig = _new_figure(figsize or (13.0, 3.9))
    ax = fig.add_subplot()
    ax.set_title(title)
    ax.set_xlim(-1.15, 15.55)
    ax.set_ylim(-1.75, 2.15)
    ax.set_aspect("equal")
    ax.axis("off")
    for key, formula, _, (x, y) in PIPELINE_STEPS:
        lit = key in marked
        ax.add_patch(
            FancyBboxPatch(
                (x - _BOX_W / 2, y - _BOX_H / 2),
                _BOX_W,
                _BOX_H,
                boxstyle="round,pad=0.02,rounding_size=0.08",
                facecolor=_HIGHLIGHT_FACE if lit else _PLAIN_FACE,
                edgecolor="black" if lit else _PLAIN_EDGE,
                linewidth=2.6 if lit else 1.0,
                gid=f"pipeline-{key}",
            )
        )
        ax.text(x, y + 0.14, formula, ha="center", va="center", fontsize=10,
                fontweight="bold" if lit else "normal")
        ax.text(x, y - 0.2, shapes[key], ha="center", va="center", fontsize=9,
                color="black")
    def arrow(start, end):
        ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=11,
                                     color="0.3", linewidth=1.2, shrinkA=0, shrinkB=0))

    for start, end in _PIPELINE_ARROWS:
        (x0, y0), (x1, y1) = centres[start], centres[end]
        arrow((x0 + _BOX_W / 2, y0), (x1 - _BOX_W / 2, y1))
    (x0, y0), (x1, y1) = centres["E"], centres["E'"]
    top = 1.85
    ax.plot([x0, x0, x1], [y0 + _BOX_H / 2, top, top], color="0.3", linewidth=1.2)
    arrow((x1, top), (x1, y1 + _BOX_H / 2))
    ax.text(centres["AV"][0], top - 0.08,
            "residual: E itself is carried to E' and added",
            ha="center", va="top", fontsize=9, color="0.25")
    steps = "; ".join(f"{formula.replace('  ', ' ')} ({shapes[key]})"
                      + (" [highlighted]" if key in marked else "")
                      for key, formula, _, _ in PIPELINE_STEPS)
    lit = [key for key in keys if key in marked]
    fig.alt = (f"{title}. Boxes and arrows: E feeds Q, K and V; Q and K give S; "
               f"softmax turns S into A; A and V give A V, then dE, then E'; a "
               f"residual arrow carries E to E'. The boxes with their shapes: "
               f"{steps}." + (f" Highlighted (filled, bold outline): "
                              f"{', '.join(lit)}." if lit else ""))
    return fig
