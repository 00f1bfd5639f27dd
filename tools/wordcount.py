"""In-class words of a lesson: the prose a class reads in its 50 minutes.

The bar (issues 38, 44-46) is "at most 2,200 words of in-class prose; sections
headed Optional, Stretch or Summary do not count". It does not say how a word
is counted, and counters differ by 5-10% on these notebooks: numbers ("0.88"),
symbols and `code` are words to one, not to another; "K-composition" is one
word or two. So this counts **the strictest way** of three: the largest of

- the whitespace-separated pieces that hold a letter or a digit,
- the runs of letters (``[A-Za-z]+``: "don't" and "K-composition" are two), and
- the runs of word characters (``\\w+``: "0.88" and "2,200" are two as well),

over every markdown cell, the navigation cells and the text in ``` fences
included, leaving out every cell under a heading ("## " or "### ") that
contains "Optional", "Stretch" or "Summary" (a "### " heading below such a
"## " heading stays left out, up to the next "## " heading). A heading inside
a ``` fence is not a heading.

    python -m tools.wordcount notebooks/11_a_gpt_you_can_read.ipynb
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat

PIECE = re.compile(r"\S*[A-Za-z0-9]\S*")
LETTERS = re.compile(r"[A-Za-z]+")
RUNS = re.compile(r"\w+")
LEFT_OUT = re.compile(r"optional|stretch|summary", re.I)
LIMIT = 2200  # in-class words a lesson may have (issues 38, 44-46)


def in_class_text(nb) -> str:
    """The in-class prose of ``nb`` (a path or a notebook), its lines joined."""
    if not hasattr(nb, "cells"):
        nb = nbformat.read(str(nb), as_version=4)
    kept, section_out, part_out = [], False, False
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        fenced = False
        for line in cell.source.splitlines():
            if line.lstrip().startswith("```"):
                fenced = not fenced
            head = None if fenced else re.match(r"(#{2,3}) (.+)", line)
            if head and head.group(1) == "##":
                section_out, part_out = bool(LEFT_OUT.search(head.group(2))), False
            elif head:
                part_out = bool(LEFT_OUT.search(head.group(2)))
            if not (section_out or part_out):
                kept.append(line)
    return "\n".join(kept)


def in_class_words(nb) -> int:
    """Words of ``nb``'s in-class prose, counted the strictest of three ways."""
    text = in_class_text(nb)
    return max(len(pattern.findall(text)) for pattern in (PIECE, LETTERS, RUNS))


def main(argv=None) -> int:
    for path in argv if argv is not None else sys.argv[1:]:
        words = in_class_words(Path(path))
        print(f"{path}: {words:,} in-class words (limit {LIMIT:,})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
