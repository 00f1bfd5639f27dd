"""``explorer.save(name)`` (helpers/widgets/output.py, saving.py): every explorer
of the one table writes its picture as a PNG (the very bytes it shows) and
its numbers as a CSV that reads back, with the csv module, to its
``.weights`` under the right labels (rows = queries, columns = keys)."""

from __future__ import annotations

import asyncio
import csv

import numpy as np
import pytest

from conftest import model_available
from helpers.world import lexicon
from helpers import widgets as W
from helpers.widgets import EXPLORERS, lesson09, lesson10, lesson11, saving

PNG = b"\x89PNG\r\n\x1a\n"


def _has_tiny_weights():
    try:
        lesson09._trained_model()
    except FileNotFoundError:
        return False
    return True


def _has_gpt():
    return lesson11._shared_model()[0] is not None


# What each lesson's explorer needs that a checkout may lack.
NEEDS = {9: (_has_tiny_weights, "data/tinymodel_weights.npz is missing"),
         10: (model_available, "no offline copy of all-MiniLM-L6-v2"),
         11: (_has_gpt, "data/gpt/model.safetensors is missing")}
_BUILT = {}


@pytest.fixture(scope="module", autouse=True)
def _close_explorers():
    yield
    for ex in _BUILT.values():
        ex.close()
    _BUILT.clear()


def _explorer(row):
    """The row's explorer with its defaults, built once for this module."""
    if row.lesson in NEEDS and not NEEDS[row.lesson][0]():
        pytest.skip(NEEDS[row.lesson][1])
    if row.name not in _BUILT:
        _BUILT[row.name] = row.factory()
    return _BUILT[row.name]


ROWS = [pytest.param(row, id=row.name) for row in EXPLORERS]


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def read_grid(table, weights):
    """(key labels, row labels, numbers) of the grid in a saved table:
    the keys start after the corner cell (``query \\ key``), the label
    columns before it (``head``, then the query); the grid has as many rows
    and key columns as ``weights`` ((m,), (n, m) or (h, n, m))."""
    header, body = table[0], table[1:]
    W2 = np.asarray(weights, dtype=float).reshape(-1, np.shape(weights)[-1])
    k0 = next(i for i, c in enumerate(header) if " \\ " in c) + 1
    n, m = W2.shape
    keys = header[k0:k0 + m]
    labels = [tuple(r[:k0]) for r in body[:n]]
    numbers = np.array([[float(x) for x in r[k0:k0 + m]] for r in body[:n]])
    return keys, labels, numbers.reshape(n, m)


def expected_labels(ex):
    """The keys and the row labels the CSV must carry for ``ex``."""
    W_ = np.asarray(ex.weights)
    tokens = list(ex.tokens)
    if ex.kind == "embedding_explorer":
        keys = list(lexicon.FEATURES)
    else:
        keys = ex.key_tokens()  # the tokens, or the cross explorer's source
    if len(keys) != W_.shape[-1]:
        keys = [str(i) for i in range(W_.shape[-1])]
    if W_.ndim == 1:
        return keys, [(tokens[ex.query_index()],)]
    if W_.ndim == 3:
        heads = ([h.name for h in ex._heads_list] if ex.kind == "multi_head_explorer"
                 else [str(h) for h in range(W_.shape[0])])
        return keys, [(h, t) for h in heads for t in tokens]
    return keys, [(t,) for t in tokens]


@pytest.mark.parametrize("row", ROWS)
def test_every_explorer_saves_its_picture_and_its_numbers(row, tmp_path):
    ex = _explorer(row)
    saved = ex.save(tmp_path / row.name)
    assert saved == (tmp_path / f"{row.name}.png", tmp_path / f"{row.name}.csv")
    assert saved.png.read_bytes() == bytes(ex.picture.value)
    assert saved.png.read_bytes().startswith(PNG)
    table = read_csv(saved.csv)
    assert table and all(len(r) == len(table[0]) for r in table)
    if ex.weights.size == 0:  # the parameter calculator: counts, not weights
        assert ex.kind == "parameter_calculator"
        return
    keys, labels, numbers = read_grid(table, ex.weights)
    assert (keys, labels) == expected_labels(ex)
    want = np.asarray(ex.weights, dtype=float).reshape(numbers.shape)
    assert np.allclose(numbers, want, rtol=0, atol=1e-6, equal_nan=True)
    assert np.array_equal(np.isnan(numbers), np.isnan(want))


@pytest.mark.parametrize("row", ROWS)
def test_a_name_with_a_folder_or_a_suffix(row, tmp_path):
    ex = _explorer(row)
    saved = ex.save(str(tmp_path / "figures" / "week 3" / "lesson.png"))
    assert saved.png == tmp_path / "figures" / "week 3" / "lesson.png"
    assert saved.csv == tmp_path / "figures" / "week 3" / "lesson.csv"
    assert saved.png.read_bytes() == bytes(ex.picture.value)
    again = ex.save(tmp_path / "figures" / "other.CSV")
    assert again.png.name == "other.png" and again.csv.is_file()
    assert sorted(p.name for p in tmp_path.rglob("*.*")) == [
        "lesson.csv", "lesson.png", "other.csv", "other.png"]


@pytest.mark.parametrize("name", ["", "   ", None, 3, b"x", ".png", "sub/.csv",
                                  "a_folder/", "a_folder"])
def test_a_bad_name_is_a_clear_value_error_and_writes_nothing(name, tmp_path,
                                                              monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a_folder").mkdir()
    ex = W.first_taste("the cat")
    with pytest.raises(ValueError, match="name|folder"):
        ex.save(name)
    assert [p.name for p in tmp_path.rglob("*")] == ["a_folder"]
    ex.close()


def test_a_file_in_the_way_of_the_folder_is_a_value_error(tmp_path):
    (tmp_path / "notes").write_text("a file, not a folder")
    ex = W.first_taste("the cat")
    with pytest.raises(ValueError, match="is in the way"):
        ex.save(tmp_path / "notes" / "cat")
    ex.close()


def test_tokens_with_commas_quotes_and_html_survive(tmp_path):
    header = [saving.CORNER, 'say "hi"', "a,b", "<b>x</b>", "line\nbreak", " the"]
    rows = [["don't", 0.1, np.float32(0.25), np.float64(1 / 3), -np.inf, np.nan]]
    where = saving.paths(tmp_path / "odd")
    saving.write(where, PNG, (header, rows))
    back = read_csv(where.csv)
    assert back[0] == header
    assert back[1][0] == "don't"
    assert [float(x) for x in back[1][1:4]] == [0.1, 0.25, 1 / 3]
    assert np.isneginf(float(back[1][4])) and np.isnan(float(back[1][5]))


def test_a_typed_token_that_looks_like_html_keeps_its_text(tmp_path):
    ex = W.pattern_explorer("the <b>cat</b> don't sleep")
    keys, labels, numbers = read_grid(read_csv(ex.save(tmp_path / "p").csv),
                                      ex.weights)
    assert "<" in keys and "don't" in keys and keys == ex.tokens
    assert np.allclose(numbers, ex.weights, atol=1e-12)
    ex.close()


@pytest.mark.skipif(not model_available(), reason="no offline copy of the model")
def test_word_pieces_with_commas_and_quotes_survive(tmp_path):
    ex = W.real_attention_explorer('He said, "no, <b>never</b>".', head=2)
    keys, labels, numbers = read_grid(read_csv(ex.save(tmp_path / "r").csv),
                                      ex.weights)
    assert "," in keys and '"' in keys and keys == ex.tokens
    assert [q for (q,) in labels] == ex.tokens
    assert np.allclose(numbers, ex.weights, rtol=0, atol=1e-6)
    ex.close()


@pytest.mark.skipif(not _has_gpt(), reason="data/gpt/model.safetensors is missing")
def test_the_gpt_csv_has_the_next_tokens_beside_the_attention(tmp_path):
    ex = W.gpt_explorer('He said, "no"\n', head=1, temperature=0.7)
    table = read_csv(ex.save(tmp_path / "g").csv)
    keys, labels, numbers = read_grid(table, ex.weights)
    assert keys == ex.tokens and "," in keys and "\n" in keys  # raw token text
    assert np.allclose(numbers, ex.weights, rtol=0, atol=1e-6)
    header = table[0]
    i = header.index("next token")
    assert header[i + 1] == "probability (T = 0.70)"
    top = [(r[i], float(r[i + 1])) for r in table[1:] if r[i]]
    assert [t for t, _ in top] == [t for t, _ in ex.top]
    assert np.allclose([p for _, p in top], [p for _, p in ex.top], atol=1e-9)
    ex.close()


def test_the_heads_are_stacked_under_their_names(tmp_path):
    ex = W.multi_head_explorer("the fluffy cat sat")
    table = read_csv(ex.save(tmp_path / "h").csv)
    assert table[0][:2] == ["head", saving.CORNER]
    names = [h.name for h in ex._heads_list]
    assert [r[0] for r in table[1:]] == [h for h in names for _ in ex.tokens]
    ex.head.value = names[1]
    table = read_csv(ex.save(tmp_path / "one").csv)
    assert table[0] == [saving.CORNER] + ex.tokens  # one head: the plain grid
    assert np.allclose([[float(x) for x in r[1:]] for r in table[1:]],
                       ex.all_weights[1])
    ex.close()


def test_the_tiling_csv_has_the_running_max_and_sum(tmp_path):
    ex = W.tiling_explorer(n=10, block=4, step=2)
    table = read_csv(ex.save(tmp_path / "t").csv)
    header, body = table[0], table[1:]
    i = header.index("running max m")
    assert header[i + 1] == "running sum l" and i == 11
    assert np.array_equal([float(r[i]) for r in body], ex.running_max)
    assert np.array_equal([float(r[i + 1]) for r in body], ex.running_sum)
    j = header.index("memory")
    memory = {r[j]: r[j + 1] for r in body if r[j]}
    assert memory == {"plain (n x n)": "100", "tiled (n x block)": "40",
                      "band (n x window)": "no window"}
    ex.close()


def test_the_parameter_calculator_saves_its_counts(tmp_path):
    ex = W.parameter_calculator()
    table = read_csv(ex.save(tmp_path / "c").csv)
    assert table[0] == ["count", "parameters", "setting", "value"]
    counts = {r[0]: int(r[1]) for r in table[1:]}
    assert counts["W_Q"] == ex.counts["query"] == 1_572_864
    assert counts["all layers"] == ex.counts["total"] == 57_982_058_496
    assert len(counts) == 8
    settings = {r[2]: int(r[3]) for r in table[1:] if r[2]}
    assert settings == {"d_model": 12288, "d_k": 128, "n_heads": 96, "n_layers": 96}
    ex.close()


def test_cross_attention_keys_are_the_source_tokens(tmp_path):
    ex = W.cross_explorer("the black cat", "le chat noir dort")
    table = read_csv(ex.save(tmp_path / "x").csv)
    assert table[0] == [saving.CORNER, "the", "black", "cat"]
    assert [r[0] for r in table[1:]] == ["le", "chat", "noir", "dort"]
    ex.close()


@pytest.mark.skipif(not _has_tiny_weights(), reason="no trained weights")
def test_the_sense_probabilities_are_beside_the_pattern(tmp_path):
    ex = W.sense_explorer("we sat on the bank of the river")
    table = read_csv(ex.save(tmp_path / "s").csv)
    i = table[0].index("sense of 'bank'")
    probs = [float(r[i + 1]) for r in table[1:] if r[i]]
    assert np.allclose(probs, ex.probs)
    ex.close()


def test_a_placeholder_gives_its_picture_and_a_note(tmp_path, monkeypatch):
    ex = W.first_taste("   ")
    saved = ex.save(tmp_path / "empty")
    assert saved.png.read_bytes() == bytes(ex.picture.value)
    assert read_csv(saved.csv) == [["note"], [
        "No numbers to save (the picture is a placeholder): Type a sentence in "
        "the box."]]
    ex.close()
    monkeypatch.setattr(lesson10, "_shared_model", lambda: (None, "No copy here."))
    ex = W.real_attention_explorer()
    table = read_csv(ex.save(tmp_path / "nomodel").csv)
    assert table[0] == ["note"] and table[1][0].endswith("No copy here.")
    ex.close()


def test_a_pending_picture_is_drawn_before_it_is_saved(tmp_path):
    ex = W.pattern_explorer("the cat")

    async def type_then_save():
        ex.sentence.value = "a fluffy blue creature"  # drawing is scheduled
        drawn = ex.draw_count
        saved = ex.save(tmp_path / "now")
        return drawn, saved

    drawn, saved = asyncio.run(type_then_save())
    assert ex.draw_count == drawn + 1
    fresh = W.pattern_explorer("a fluffy blue creature")
    assert saved.png.read_bytes() == bytes(fresh.picture.value)
    assert read_csv(saved.csv)[0][1:] == ["a", "fluffy", "blue", "creature"]
    fresh.close()
    ex.close()


def test_numbers_read_back_exactly():
    for x in (0.1, 1 / 3, 1e-20, 123456789.125, -0.0):
        assert float(saving.cell(x)) == x
        assert float(saving.cell(np.float64(x))) == x
        assert np.float32(saving.cell(np.float32(x))) == np.float32(x)
    assert saving.cell(np.int64(57982058496)) == "57982058496"
    assert saving.cell(np.float32(0.1)) == "0.1"
