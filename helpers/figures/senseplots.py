"""Lesson 09's figure of where an ambiguous word looks: its row of the
learned pattern as bars, the topic words marked (green and hatched)."""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Patch

from helpers.figures import alt as alt_text
from helpers.figures.common import AttentionFigure

__all__ = ["ambiguous_rows"]

TOPIC_COLOUR, OTHER_COLOUR = "tab:green", "tab:blue"


def ambiguous_rows(panels, *, suptitle="Where the ambiguous word looks "
                   "(its row of the learned pattern)", label_from=0.1):
    """One bar panel per sentence: the ambiguous word's row of weights.

    ``panels`` is a list of dicts with ``tokens`` (n strings), ``row`` (n
    weights, the ambiguous word's row: query = that word, one bar per key),
    ``topic_positions`` (the keys that are topic words), ``target_index``
    (the ambiguous word) and ``title``. Weights of at least ``label_from``
    are written on their bars. The text alternative names, per panel, the
    topic words with their weights, the tallest bar (and whether it is a
    topic word) and the weight the ambiguous word gives itself.
    """
    fig = AttentionFigure(figsize=(10, 2 * len(panels)), layout="constrained")
    axes = np.atleast_1d(fig.subplots(len(panels), 1))
    said = [suptitle + ". One bar chart per sentence, one bar per key token; "
            "topic words are green and hatched, other words blue"]
    for ax, p in zip(axes, panels):
        row = np.asarray(p["row"], dtype=float)
        tokens, topic = list(p["tokens"]), set(p["topic_positions"])
        bars = ax.bar(range(len(row)), row, color=[
            TOPIC_COLOUR if k in topic else OTHER_COLOUR for k in range(len(row))])
        for k in topic:
            bars[k].set_hatch("//")
        for k, w in enumerate(row):
            if w >= label_from:
                ax.text(k, w + 0.03, f"{w:.2f}", ha="center", va="bottom", fontsize=8)
        ax.set_xticks(range(len(row)), tokens, rotation=35, ha="right")
        ax.set_ylim(0, 1)
        ax.set_ylabel("weight")
        ax.set_title(p["title"])
        top = int(np.argmax(row))
        ties = [k for k in range(len(row)) if abs(row[k] - row[top]) < 0.005]
        topic_text = ", ".join(f"'{tokens[k]}' {alt_text.number(row[k])}"
                               for k in sorted(topic)) or "none"
        if len(ties) > 1:
            tallest = "tallest bars tie: " + ", ".join(f"'{tokens[k]}'" for k in ties)
        else:
            kind = "a topic word" if top in topic else "not a topic word"
            tallest = (f"tallest bar '{tokens[top]}' {alt_text.number(row[top])} "
                       f"({kind})")
        target = p["target_index"]
        said.append(f"{p['title']}: topic words {topic_text}; {tallest}; "
                    f"'{tokens[target]}' itself {alt_text.number(row[target])}")
    axes[-1].set_xlabel("key token")
    fig.legend(handles=[Patch(facecolor=TOPIC_COLOUR, hatch="//", label="topic word"),
                        Patch(facecolor=OTHER_COLOUR, label="other word")],
               loc="outside lower center", ncols=2, frameon=False)
    fig.suptitle(suptitle)
    fig.alt = ". ".join(said) + "."
    return fig
