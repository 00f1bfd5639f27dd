"""Write small demo notebooks for trying the browser test without the lessons.

    .venv/bin/python tests/browser/make_demo_notebooks.py /tmp/attn-demo
    ATTN_BROWSER_NOTEBOOKS=/tmp/attn-demo .venv/bin/pytest tests/browser -q

Six notebooks, most with one explorer built from plain ipywidgets and the DOM
classes of the team contract (attn-explorer, attn-picture, attn-sentence,
attn-message):

- ``demo_ok.ipynb``: the picture follows the sentence; the test passes.
- ``demo_frozen.ipynb``: the sentence box is not observed, so the picture
  never changes; the test must fail ("picture did not change").
- ``demo_error.ipynb``: a cell raises; the test must fail ("error output").
- ``demo_callback_error.ipynb``: the explorer's callback raises on "bank"; the
  test must fail (no change, and the kernel's error is reported).
- ``demo_unescaped.ipynb``: the message shows typed text as HTML; the test
  must fail ("typed HTML was rendered as HTML").
- ``demo_no_explorer.ipynb``: no explorer; the test must fail.
- ``demo_not_done.ipynb``: as demo_ok, plus a checker's "Not done yet"
  message with a line that starts "NotImplementedError"; the test passes.
"""

import sys
from pathlib import Path

import nbformat

EXPLORER = """\
import html
import io

import ipywidgets as widgets
import matplotlib

matplotlib.use("Agg")
from matplotlib.figure import Figure


def draw(sentence):
    words = sentence.split() or ["(empty)"]
    fig = Figure(figsize=(4, 2), dpi=60)
    ax = fig.add_subplot()
    ax.bar(range(len(words)), [len(w) for w in words])
    ax.set_xticks(range(len(words)), words, rotation=45)
    ax.set_title("word lengths")
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


sentence = widgets.Text(value="a fluffy blue creature")
sentence.add_class("attn-sentence")
picture = widgets.Image(value=draw(sentence.value), format="png")
picture.add_class("attn-picture")
message = widgets.HTML("")
message.add_class("attn-message")


def update(change):
    if FAIL_ON and FAIL_ON in change["new"]:
        raise ValueError("demo: this explorer breaks on " + FAIL_ON)
    picture.value = draw(change["new"])
    message.value = (html.escape if ESCAPE else str)(change["new"][:120])


if REACT:
    sentence.observe(update, names="value")
box = widgets.VBox([sentence, picture, message])
box.add_class("attn-explorer")
box"""


NOT_DONE = (
    'print("Not done yet: scaled_scores is still the exercise stub (it raises"\n'
    '      "\\nNotImplementedError or returns nothing). Write it, run that cell,"\n'
    '      " then run this check again.")')


def write(folder, name, cells):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    nb.cells = [nbformat.v4.new_markdown_cell(f"# {name}")] + [
        nbformat.v4.new_code_cell(src) for src in cells
    ]
    nbformat.write(nb, str(folder / f"{name}.ipynb"))


def main(folder):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    ok = "REACT, ESCAPE, FAIL_ON = True, True, None"
    write(folder, "demo_ok", [ok, EXPLORER, "print(1 + 1)"])
    write(folder, "demo_frozen", [ok.replace("True", "False", 1), EXPLORER])
    write(folder, "demo_error", [ok, EXPLORER, "1 / 0", "print('after')"])
    write(folder, "demo_callback_error", [ok.replace("None", '"bank"'), EXPLORER])
    write(folder, "demo_unescaped", [ok.replace("True, None", "False, None"), EXPLORER])
    write(folder, "demo_no_explorer", ["print('no explorer here')"])
    # a checker's "Not done yet" message whose wrapped line starts with the
    # word NotImplementedError is not an error (issue 43): the test passes
    write(folder, "demo_not_done", [ok, EXPLORER, NOT_DONE])
    print(f"wrote 6 demo notebooks to {folder}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/attn-demo")
