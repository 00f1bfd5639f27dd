"""What a screen reader hears and what a stored notebook shows as numbers
(issue 51 parts 5 and 6), without a browser: the tables of numbers after
every grid (helpers.figures.numbers), the announcements of a change
(helpers.widgets.hearing), training progress, and every stored lesson's
grid pictures followed by a real table."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pytest

from helpers import widgets
from helpers.figures import plots
from helpers.figures import alt, numbers
from helpers.widgets import access, hearing

ROOT = Path(__file__).resolve().parent.parent
TOKENS = ["the", "cat", "<b>"]
A = np.array([[0.7, 0.2, 0.1], [0.125, 0.875, 0.0], [0.05, 0.15, 0.8]])


# ------------------------------------------------------ tables of numbers ---
def test_cell_text_is_the_figures_rounding_and_stable_across_cpus():
    # 1/8 computed on another CPU may be a last bit either side of 0.125
    assert {numbers.cell_text(x) for x in (0.125, 0.125 - 2e-17, 0.125 + 3e-17,
                                           np.nextafter(0.125, 1))} == {"0.12"}
    assert numbers.cell_text(-1e-17) == "0.00"
    assert numbers.cell_text(1234.5, big=True) == "1.23e+03"
    assert numbers.cell_text(np.nan) == "masked"
    assert numbers.cell_text(-np.inf) == "−∞"


def test_a_heatmap_is_followed_by_a_table_of_its_numbers():
    fig = plots.heatmap(A, TOKENS, TOKENS)
    page = fig._repr_mimebundle_()["text/html"]
    img, rest = page.split(">", 1)
    assert img.startswith("<img ")
    assert rest.startswith("<details><summary>")
    assert "<script" not in rest
    cells = re.findall(r"<t[hd][^>]*>([^<]*)</t[hd]>", rest)
    # a header row (corner, then the keys), then each query row: label, numbers
    assert cells[:4] == ["query \\ key", "the", "cat", "&lt;b&gt;"]
    assert cells[4:8] == ["the", "0.70", "0.20", "0.10"]
    assert cells[8:12] == ["cat", "0.12", "0.88", "0.00"]
    assert rest.count('<th scope="row">') == 3 and rest.count('<th scope="col">') == 4
    assert "<b>" not in rest  # the typed token is escaped


def test_a_big_grid_shows_some_rows_and_says_how_to_get_every_number(tmp_path):
    values = np.arange(30 * 50, dtype=float).reshape(30, 50) / 1500
    fig = plots.heatmap(values, [f"r{i}" for i in range(30)],
                        [f"c{j}" for j in range(50)])
    page = numbers.html(fig)
    assert page.count('<th scope="row">') == len(alt.rows_to_tell(30)) < 30
    assert "Shown: 12 of 30 rows and 20 of 50 columns" in page
    path = numbers.save_csv(fig, tmp_path / "grid.csv")
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 + 30 and lines[2].startswith("r0,0.0,")
    # the rows the lesson is about, when the figure says which
    fig.axes[0]._attn_table_rows = [3, 29]
    rows = re.findall(r'<th scope="row">([^<]*)<', numbers.html(fig))
    assert rows == ["r3", "r29"]


def test_a_masked_cell_and_repeated_labels_are_named():
    shown = np.where(np.tri(3, dtype=bool), A, np.nan)
    words = ["the", "cat", "the"]
    page = numbers.table(numbers.Grid(shown, words, words, "query", "key"))
    assert "<td>masked</td>" in page
    assert '<th scope="row">the (2nd)</th>' in page


def test_a_photo_and_a_curve_get_no_table():
    from helpers.figures.common import AttentionFigure

    fig = AttentionFigure()
    ax = fig.add_subplot()
    ax.imshow(np.zeros((4, 4, 3)))  # pixels, not numbers
    ax.plot([0, 1], [1, 2])
    assert numbers.html(fig) == ""


def test_an_explorer_is_followed_by_the_table_it_saves(tmp_path):
    from helpers.world import heads

    ex = widgets.weighted_sum_explorer(heads.CURRICULUM_SENTENCES["bank_river"],
                                       token="bank")
    page = ex._repr_mimebundle_()["text/html"].split(">", 1)[1]
    assert page.startswith("<details>") and '<th scope="row">bank</th>' in page
    # the numbers are the explorer's own, rounded like a figure's cells
    shown = re.findall(r"<td>([^<]*)</td>", page)
    assert shown == [numbers.cell_text(w) for w in np.ravel(ex.weights)]
    assert '<th scope="col">to (2nd)</th>' in page  # a repeated word's place
    ex.close()


# ------------------------------------------------------------ announcements ---
def test_a_change_is_announced_once_with_its_headline_number():
    from helpers.world import heads

    ex = widgets.weighted_sum_explorer(heads.CURRICULUM_SENTENCES["bank_river"],
                                       token="bank")
    assert ex.announcement == ""  # the first picture: nothing changed
    target = next(w for w in ex.children[0].children if hasattr(w, "options"))
    river = [v for label, v in target.options if label.endswith(": river")][0]
    target.value = river
    row = np.asarray(ex.weights, dtype=float)
    j = int(np.argmax(row))
    assert ex.announcement == (f"Target word: river. 'river' now looks most at "
                               f"'{ex.tokens[j]}', {alt.number(row[j])}.")
    if ex.access is not None:
        assert ex.access.announce == ex.announcement
        assert "Note:" not in ex.access.alt  # the message line is not repeated
    ex.close()


def test_a_flat_row_is_announced_as_spread_out():
    class State:
        empty = False
        tokens = ["a", "b", "c", "d"]
        weights = np.full(4, 0.25)

    class Ex:
        target = 2

    change = {"owner": None, "new": 0.30000000000000004}
    text = hearing.announcement(Ex(), State(), change)
    assert text == "now 0.3. 'c' now spreads its weight out, all near 0.25."


def test_a_training_panel_has_progress_and_announces_its_end():
    monitor = widgets.TrainingMonitor(steps=4)
    if monitor.access is None:
        pytest.skip("anywidget is not installed")
    assert monitor.access.progress == [0, 4]
    said = []
    monitor.access.observe(lambda c: said.append(c["new"]), names="announce")
    for step in (1, 2, 3, 4):
        monitor.update(step, 1.0 / step)
    assert monitor.access.progress == [4, 4]
    assert said[-1] == "Training finished: step 4 of 4, loss 0.250."
    assert len(said) == len(set(said)) == 4  # started, 50%, 75%, finished
    monitor.widget.close()


def test_the_front_end_code_has_its_hearing_part():
    esm = access._ESM
    body = esm[esm.index("function hearing"):esm.index("function attach")]
    for needed in ('"aria-valuetext"', 'role", "progressbar"', "attn-announce",
                   "aria-label='null'", ' value"'):
        assert needed in body, needed
    assert "hearing(model, root)" in esm[esm.index("function attach"):]
    assert "margin-left: 0 !important" in access.FOCUS_CSS  # no 4-px scrollbar


# --------------------------------------- every stored grid has its table ---
GRID_ALT = re.compile(r"rows? × \d+|\d+ rows\b|\bgrids?\b|heatmaps?|"
                      r"attention patterns?\b|\bpatterns? of\b", re.I)


def _stored_pictures():
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        for i, cell in enumerate(nb["cells"]):
            for out in cell.get("outputs", []):
                page = out.get("data", {}).get("text/html")
                if page:
                    page = "".join(page)
                    for m in re.finditer(r'<img [^>]*alt="([^"]*)"[^>]*>', page):
                        yield f"{path.name} cell {i}", html.unescape(m.group(1)), \
                            page[m.end():]


def test_every_stored_picture_whose_alt_describes_a_grid_has_a_table_after_it():
    missing = [where for where, text, after in _stored_pictures()
               if GRID_ALT.search(text)
               and not re.match(r"\s*<details>.*?<table>.*?<th ", after, re.S)]
    assert missing == []


def test_every_explorer_announces_a_change_with_a_number():
    import ipywidgets as W

    from helpers.widgets.base import _inputs

    quiet = []
    for row in widgets.EXPLORERS:
        try:
            ex = row.factory()
        except Exception:  # a real model that is not here: its own tests
            continue
        box = next((w for w in _inputs(getattr(ex, "_controls", ()))
                    if isinstance(w, (W.Text, W.Textarea))), None)
        if box is None:
            continue
        box.value = box.value + " again"
        ex.flush()
        if not re.search(r"changed\. .*\d", ex.announcement):
            quiet.append((row.lesson, row.title, ex.announcement))
        ex.close()
    assert quiet == []


def test_the_memory_explorer_describes_its_state_grid():
    from helpers.widgets import lesson14

    ex = lesson14.memory_explorer()
    S = np.asarray(ex.state)
    assert "The state grid S: 16 key dimension rows × 16 value dimension " \
           "columns" in ex.alt
    i, j = np.unravel_index(int(np.argmax(np.abs(S))), S.shape)
    assert f"'key {i}' → 'value {j}' {alt.number(S[i, j])}" in ex.alt
    ex.close()


def test_gpt_tokens_are_spoken_not_drawn():
    from helpers.widgets.gpt_text import spoken_piece, spoken_text

    assert spoken_piece("\n") == "line break" and spoken_piece(",") == "comma"
    assert spoken_piece(" the") == "space, the"
    assert spoken_piece("\ufffd\ufffdber") == "2 byte pieces, ber"
    assert spoken_text("ROMEO:\nBut soft") == "ROMEO: (line break) But soft"
