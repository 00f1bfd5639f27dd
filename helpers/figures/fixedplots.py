"""Figures of lesson 14: attention with a fixed-size memory.

Every function takes measured numbers and labels, returns a figure that
shows itself in Jupyter (``AttentionFigure``), computes no attention itself,
and sets ``fig.alt`` from the numbers it draws. One look per memory in every
figure of the lesson, told by colour **and** marker and line style (and the
legend): softmax attention blue circles, solid; linear attention orange
squares, dashed; linear attention with elu + 1 grey triangles, dotted; the
delta rule teal diamonds, dash-dot.
"""

from __future__ import annotations

import numpy as np

from helpers.figures import alt as alt_text
from helpers.figures.common import AttentionFigure

__all__ = ["LOOK", "cost_curves", "decode_steps", "two_patterns", "recall_curves",
           "recall_by_position", "gate_forgetting", "copy_curves", "below",
           "logit_growth"]

#: memory -> (colour, line format, legend label); the same in every figure
LOOK = {
    "softmax": ("#3b528b", "o-", "softmax attention (KV cache)"),
    "linear": ("#e8a317", "s--", "linear attention (S = sum of k^T v)"),
    "linear elu+1": ("#777777", "^:", "linear attention, elu + 1, normalised"),
    "delta": ("#21918c", "D-.", "delta rule"),
}


def _figure(figsize) -> AttentionFigure:
    return AttentionFigure(figsize=figsize, layout="constrained")


def _plot(ax, x, y, memory, label=None, **kw):
    colour, fmt, name = LOOK[memory]
    ax.plot(x, y, fmt, color=colour, label=label or name, **kw)


def below(x, y, level=0.9):
    """The first ``x`` at which ``y`` is below ``level`` (None if never)."""
    for xi, yi in zip(x, y):
        if yi < level:
            return xi
    return None


def cost_curves(sizes, soft_ms, lin_ms, soft_mib, lin_mib, *,
                title="Softmax against linear attention") -> AttentionFigure:
    """Two log-log panels against n: time (ms) and peak memory (MiB), with
    the first measured n at which linear attention is faster marked."""
    n = np.asarray(sizes, dtype=float)
    fig = _figure((10.0, 3.8))
    faster = [int(v) for v, s, lt in zip(n, soft_ms, lin_ms) if lt < s]
    cross = faster[0] if faster else None
    for ax, (label, s, lin) in zip(fig.subplots(1, 2),
                                   (("time (ms)", soft_ms, lin_ms),
                                    ("peak memory (MiB)", soft_mib, lin_mib))):
        _plot(ax, n, s, "softmax", label="softmax: the (n, n) pattern")
        _plot(ax, n, lin, "linear", label="linear: phi(Q) (phi(K)^T V)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(n, [f"{int(v):,}" for v in n])
        ax.minorticks_off()
        if cross is not None and label.startswith("time"):
            ax.axvline(cross, color="black", lw=0.8, ls=":")
            ax.annotate(f"faster from n = {cross:,}", (cross, ax.get_ylim()[1]),
                        ha="left", va="top", fontsize=9)
        ax.set(xlabel="context size n (tokens)", ylabel=label, title=label)
        ax.legend()
    fig.suptitle(title)
    fig.alt = (f"{title}. Time: " + alt_text.series("softmax (ms)", n, soft_ms) + "; "
               + alt_text.series("linear (ms)", n, lin_ms)
               + (f"; linear is faster from n = {cross:,}" if cross else
                  "; linear is never faster here")
               + ". Peak memory: " + alt_text.series("softmax (MiB)", n, soft_mib)
               + "; " + alt_text.series("linear (MiB)", n, lin_mib) + ".")
    return fig


def decode_steps(sizes, cached_ms, state_ms, cache_mib, state_mib, *,
                 title="One decode step, one layer") -> AttentionFigure:
    """Time of one generated token's attention step and the memory it
    reads, against the tokens so far: the KV cache against the fixed state."""
    n = np.asarray(sizes, dtype=float)
    fig = _figure((10.0, 3.8))
    for ax, (label, c, s) in zip(fig.subplots(1, 2),
                                 (("time per step (ms)", cached_ms, state_ms),
                                  ("memory read (MiB)", cache_mib, state_mib))):
        _plot(ax, n, c, "softmax", label="softmax with a KV cache")
        _plot(ax, n, s, "linear", label="recurrent linear attention: state S")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(n, [f"{int(v):,}" for v in n])
        ax.minorticks_off()
        ax.set(xlabel="tokens so far n", ylabel=label, title=label)
        ax.legend()
    fig.suptitle(title)
    fig.alt = (f"{title}. " + alt_text.series("KV cache step (ms)", n, cached_ms)
               + "; " + alt_text.series("state step (ms)", n, state_ms) + ". "
               + alt_text.series("KV cache (MiB)", n, cache_mib) + "; "
               + alt_text.series("state (MiB)", n, state_mib) + ".")
    return fig


def two_patterns(tokens, soft, lin, *, title="One sentence, two patterns"):
    """Softmax attention's pattern beside linear attention's (rows are
    queries, columns keys, rows summing to 1)."""
    tokens = [str(t) for t in tokens]
    fig = _figure((10.0, 4.4))
    axes = fig.subplots(1, 2)
    for ax, (name, A) in zip(axes, (("softmax: exp(q.k / sqrt(d))", soft),
                                    ("linear: phi(q).phi(k), phi = elu + 1", lin))):
        im = ax.imshow(A, cmap="viridis", vmin=0, vmax=1, interpolation="nearest")
        ax.set_xticks(range(len(tokens)), tokens, rotation=90)
        ax.set_yticks(range(len(tokens)), tokens)
        ax.set(xlabel="key (attended to)", ylabel="query (attending)", title=name)
    fig.colorbar(im, ax=axes, label="attention weight",
                 shrink=0.9)
    fig.suptitle(title)
    soft_top = np.asarray(soft).max(axis=1).mean()
    lin_top = np.asarray(lin).max(axis=1).mean()
    fig.alt = (f"{title}. Softmax: " + alt_text.grid(soft, tokens, tokens)
               + " Linear: " + alt_text.grid(lin, tokens, tokens)
               + f" Mean strongest weight per row: softmax {alt_text.number(soft_top)},"
               f" linear {alt_text.number(lin_top)}.")
    return fig


def recall_curves(Ns, accuracy: dict, d_k: int, *, ylabel="recall accuracy",
                  title="Associative recall against the number of facts N"):
    """One curve per memory (``accuracy[memory]`` against ``Ns``), with the
    90% line and ``N = d_k`` marked; the alt says where each drops below 90%."""
    fig = _figure((7.5, 4.2))
    ax = fig.add_subplot()
    for memory, acc in accuracy.items():
        _plot(ax, Ns, acc, memory)
    ax.axhline(0.9, color="black", lw=0.8, ls=":")
    ax.axvline(d_k, color="black", lw=0.8, ls="--")
    ax.annotate(f"N = d_k = {d_k}", (d_k, 0.02), ha="left", fontsize=9)
    ax.annotate("90%", (Ns[0], 0.91), fontsize=9)
    ax.set(xlabel="facts in the context N", ylabel=ylabel, ylim=(-0.02, 1.05),
           title=title)
    ax.legend(fontsize=8, loc="center right")
    def drop(a):
        N = below(Ns, a)
        if N is None:
            return "never below 90%"
        return f"below 90% from N = {N} ({alt_text.number(a[list(Ns).index(N)])})"

    drops = "; ".join(f"{LOOK[m][2]}: {drop(a)} (at N = {Ns[-1]}: "
                      f"{alt_text.number(a[-1])})" for m, a in accuracy.items())
    fig.alt = f"{title}, d_k = {d_k}. {drops}."
    return fig


def recall_by_position(positions, accuracy: dict, *, N: int,
                       title="Which facts are recalled, by position"):
    """Recall accuracy of each fact against where it was written (0 = first)."""
    fig = _figure((7.5, 4.0))
    ax = fig.add_subplot()
    for memory, acc in accuracy.items():
        _plot(ax, positions, acc, memory)
    ax.set(xlabel="position of the fact in the context (0 = written first)",
           ylabel="recall accuracy", ylim=(-0.02, 1.05), title=f"{title}, N = {N}")
    ax.legend(fontsize=8)
    fig.alt = (f"{title}, N = {N}. " + "; ".join(
        alt_text.series(LOOK[m][2], positions, a) for m, a in accuracy.items()) + ".")
    return fig


def gate_forgetting(positions, accuracy: dict, *, N: int,
                    title="What the gate alpha does to old facts"):
    """Delta-rule recall by position for several gates ``{alpha: acc}``:
    one line style per alpha, the value written at its end."""
    fig = _figure((7.5, 4.0))
    ax = fig.add_subplot()
    styles = ["D-.", "v-", "x--", "P:"]
    for (alpha, acc), fmt in zip(accuracy.items(), styles):
        ax.plot(positions, acc, fmt, color=LOOK["delta"][0] if alpha == 1 else
                "#440154" if fmt == "v-" else "#5ec962", label=f"alpha = {alpha:g}")
        ax.annotate(f"alpha {alpha:g}", (positions[0], acc[0]), fontsize=8,
                    xytext=(-4, 0), textcoords="offset points", ha="right")
    ax.set(xlabel="position of the fact (0 = oldest)", ylabel="recall accuracy",
           ylim=(-0.02, 1.05), title=f"{title} (delta rule, N = {N})")
    ax.set_xlim(positions[0] - 2.5, positions[-1] + 0.5)
    ax.legend(fontsize=8)
    fig.alt = (f"{title}, delta rule, N = {N}. " + "; ".join(
        alt_text.series(f"alpha = {a:g}", positions, acc)
        for a, acc in accuracy.items()) + ".")
    return fig


#: In the one-layer copy toy a hybrid copies with its full-attention layer:
#: the softmax curve is that layer's (its fixed-state layers add nothing).
HYBRID_LABEL = "softmax attention = a hybrid's full-attention layer"


def copy_curves(lengths, accuracy: dict, *, d: int,
                title="Copying a random text of length L"):
    """Share of letters copied right against the text's length, per memory;
    the softmax curve is labelled as a hybrid's full-attention layer."""
    fig = _figure((7.5, 4.0))
    ax = fig.add_subplot()
    for memory, acc in accuracy.items():
        _plot(ax, lengths, acc, memory,
              label=HYBRID_LABEL if memory == "softmax" else None)
    ax.set_xscale("log", base=2)
    ax.set_xticks(lengths, [str(v) for v in lengths])
    ax.minorticks_off()
    ax.axhline(0.9, color="black", lw=0.8, ls=":")
    ax.set(xlabel="length of the text L (letters)", ylabel="letters copied right",
           ylim=(-0.02, 1.05), title=f"{title} (state of {d} x {d} numbers)")
    ax.legend(fontsize=8)
    fig.alt = (f"{title}, state {d} x {d}. " + "; ".join(
        alt_text.series(HYBRID_LABEL if m == "softmax" else LOOK[m][2], lengths, a)
        for m, a in accuracy.items()) + ".")
    return fig


def logit_growth(runs: dict, *, title="Training one head at a high learning rate"):
    """Three panels against the training step: the largest |logit|, the mean
    attention entropy and the loss; ``runs`` maps a label ("lr 0.3, no
    QK-norm") to the dict of :func:`helpers.qknorm.train`. Runs with QK-norm
    are drawn as teal dash-dot lines, without as orange solid lines; a
    lighter line and another marker for each lower learning rate."""
    fig = _figure((11.0, 3.6))
    axes = fig.subplots(1, 3)
    styles = {True: ("#21918c", "-."), False: ("#e8a317", "-")}
    for k, (label, h) in enumerate(runs.items()):
        colour, ls = styles["QK-norm" in label and "no QK-norm" not in label]
        steps = np.arange(1, len(h["loss"]) + 1)
        marker = "os^v"[k % 4]
        for ax, key in zip(axes, ("max_logit", "entropy", "loss")):
            ax.plot(steps, h[key], ls, color=colour, marker=marker, markevery=50,
                    alpha=1.0 if "0.3" in label else 0.55, label=label)
    axes[0].set_yscale("log")
    for ax, name in zip(axes, ("largest |logit|", "attention entropy (nats)",
                               "loss (squared error)")):
        ax.set(xlabel="training step", ylabel=name, title=name)
    axes[0].legend(fontsize=8)
    fig.suptitle(title)
    def told(h):  # means of the last 50 steps, 3 significant digits
        end = {k: float(np.mean(v[-50:])) for k, v in h.items()}
        return (f"largest logit {alt_text.number(end['max_logit'])} on average over "
                f"the last 50 steps (at most {alt_text.number(np.max(h['max_logit']))}"
                f"), entropy {alt_text.number(end['entropy'])} nats, loss "
                f"{alt_text.number(end['loss'])}")

    fig.alt = (f"{title}. " + "; ".join(f"{label}: {told(h)}"
                                        for label, h in runs.items()) + ".")
    return fig
