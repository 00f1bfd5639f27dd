"""In-class words of a lesson: the prose a class reads in its 50 minutes.

Words are counted as the instructor guide's timing paragraph counts them
(``[A-Za-z][\\w'’-]*``: numbers and symbols are not words) in the markdown
cells of a notebook, leaving out the navigation cells (tagged) and every cell
under a heading ("## " or "### ") that contains "Optional", "Stretch" or
"Summary" (a "### " heading below such a "## " heading stays left out, up to
the next "## " heading). A heading inside a ``` fence is not a heading.

    python -m tools.wordcount notebooks/11_a_gpt_you_can_read.ipynb
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat

WORD = re.compile(r"[A-Za-z][\w'’-]*")
LEFT_OUT = re.compile(r"optional|stretch|summary", re.I)
LIMIT = 2200  # in-class words a lesson may have (issue 38)


def in_class_words(nb) -> int:
    """Words of ``nb``'s (a path or a notebook) in-class prose."""
    if not hasattr(nb, "cells"):
        nb = nbformat.read(str(nb), as_version=4)
    total, section_out, part_out = 0, False, False
    for cell in nb.cells:
        if cell.cell_type != "markdown" or cell.metadata.get("tags"):
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
                total += len(WORD.findall(line))
    return total


def main(argv=None) -> int:
    for path in argv if argv is not None else sys.argv[1:]:
        words = in_class_words(Path(path))
        print(f"{path}: {words:,} in-class words (limit {LIMIT:,})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
