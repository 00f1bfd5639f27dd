"""tools/wordcount.py: the in-class words of a lesson (its markdown prose,
navigation and fences included, without what sits under an "Optional",
"Stretch" or "Summary" heading) are counted as documented, the strictest of
three ways, and lessons 08 and 10-14 stay within the limit of 2,200
words."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools import wordcount  # noqa: E402  (tools/ is not an installed package)

LIMITED = ["08", "10", "11", "12", "13", "14"]


def test_the_count_on_a_hand_made_notebook():
    nb = new_notebook(cells=[
        new_markdown_cell("[Contents](00.ipynb) nav words",
                          metadata={"tags": ["nav-top"]}),
        new_markdown_cell("# 07 · Title\n\n## What you will learn\n- alpha beta 3.5"),
        new_code_cell("x = 1  # code words are not prose"),
        new_markdown_cell("## 1. First part\none two\n```python\n## fenced\n```"),
        new_markdown_cell("### Optional: an aside\nthree four"),   # left out
        new_markdown_cell("five six"),                             # still the aside
        new_markdown_cell("### Back in class\nseven"),
        new_markdown_cell("## 2. Stretch: more\n### A part\neight nine"),  # all out
        new_markdown_cell("## 3. Last\nten"),
        new_markdown_cell("## Summary\neleven twelve"),
    ])
    text = wordcount.in_class_text(nb)
    assert "three" not in text and "eight" not in text and "eleven" not in text
    # Runs of word characters, the largest count here: Contents 00 ipynb nav
    # words | 07 Title What you will learn alpha beta 3 5 | 1 First part one two
    # python fenced | Back in class seven | 3 Last ten
    assert wordcount.in_class_words(nb) == 5 + 10 + 7 + 4 + 3
    # Whitespace pieces: "[Contents](00.ipynb)" is one, "3.5" is one, "·" none.
    assert len(wordcount.PIECE.findall(text)) == 3 + 8 + 7 + 4 + 4


@pytest.mark.parametrize("lesson", LIMITED)
def test_in_class_prose_fits_the_limit(lesson):
    found = sorted((ROOT / "notebooks").glob(f"{lesson}_*.ipynb"))
    if not found:
        pytest.skip(f"no lesson {lesson} yet")
    words = wordcount.in_class_words(found[0])
    assert words <= wordcount.LIMIT, (
        f"{found[0].name}: {words:,} in-class words, more than {wordcount.LIMIT:,}: "
        "move some to an Optional section, the instructor guide or data/README.md")
