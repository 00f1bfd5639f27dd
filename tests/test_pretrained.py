"""helpers.models.pretrained: all-MiniLM-L6-v2 in numpy against the reference code.

The model comes from the offline copy that ``make test`` lays out with
tools/fetch_test_model.py (a huggingface_hub cache folder, used with
HF_HUB_OFFLINE=1). These tests never reach a model hub.
"""

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from helpers.analysis import probing
from helpers.models import pretrained
from helpers.attention import scaled_dot_product_attention

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "tests" / "data" / "pretrained_reference.npz"
REPO_FOLDER = "models--sentence-transformers--all-MiniLM-L6-v2"


def said(text: str) -> str:
    """A checker's printed message as one line per message (the checkers
    break their lines between words, ``helpers.checks._core.LINE_CHARS``)."""
    return " ".join(text.split()) + ("\n" if text.endswith("\n") else "")



def _test_cache() -> Path:
    """Where make test keeps the offline copy (the Makefile's TEST_MODEL_CACHE)."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "attention-notebooks" / "hub"


def _snapshot() -> Path | None:
    snapshots = _test_cache() / REPO_FOLDER / "snapshots"
    found = sorted(snapshots.glob("*/model.safetensors"))
    return found[0].parent if found else None


SNAPSHOT = _snapshot()
pytestmark = pytest.mark.skipif(
    SNAPSHOT is None,
    reason=f"no offline copy of all-MiniLM-L6-v2 in {_test_cache()}: `make test` "
    "makes it (python tools/fetch_test_model.py CACHE_DIR)",
)


@pytest.fixture(scope="module")
def model():
    return pretrained.load(SNAPSHOT)


@pytest.fixture(scope="module")
def reference():
    return np.load(REFERENCE)


# --- the same numbers as transformers' BertModel -----------------------------


@pytest.mark.parametrize("k", [0, 1, 2])
def test_matches_the_reference_implementation(model, reference, k):
    run = model.run(str(reference["sentences"][k]))
    np.testing.assert_array_equal(run.ids, reference[f"ids_{k}"])
    hidden = run.hidden[reference["hidden_layers"]]
    np.testing.assert_allclose(hidden, reference[f"hidden_{k}"], rtol=0, atol=1e-4)
    np.testing.assert_allclose(run.attention, reference[f"attention_{k}"],
                               rtol=0, atol=1e-5)


def test_shapes_dtypes_and_special_tokens(model):
    run = model.run("Attention is all you need.")
    n = len(run.tokens)
    assert run.tokens == [
        "[CLS]", "attention", "is", "all", "you", "need", ".", "[SEP]"]
    assert (model.n_layers, model.n_heads, model.d_model, model.d_k) == (6, 12, 384, 32)
    assert run.hidden.shape == (7, n, 384) and run.hidden.dtype == np.float32
    assert run.attention.shape == (6, 12, n, n) and run.attention.dtype == np.float32
    assert run.message == "" and run.n_cut == 0


def test_attention_rows_are_distributions(model):
    A = model.run("The boat drifted to the river bank.").attention
    assert (A >= 0).all()
    np.testing.assert_allclose(A.sum(axis=-1), 1.0, atol=1e-5)


def test_runs_are_deterministic_and_independent(model):
    """Nothing is kept between runs: another sentence in between changes nothing."""
    first = model.run("I sat by the bank.")
    model.run("A completely different sentence about money and interest rates.")
    again = model.run("I sat by the bank.")
    np.testing.assert_array_equal(first.hidden, again.hidden)
    np.testing.assert_array_equal(first.attention, again.attention)


def test_word_order_matters_through_positions_only(model):
    """Before layer 1 a word's vector depends on the word and its position only."""
    a = model.run("river bank money")
    b = model.run("money bank river")
    np.testing.assert_array_equal(a.hidden[0, 2], b.hidden[0, 2])  # "bank", position 2
    np.testing.assert_array_equal(a.hidden[0, 1], model.embed(a.ids)[1])
    assert not np.allclose(a.hidden[1, 2], b.hidden[1, 2], atol=1e-3)


# --- the exercise of lesson 10: one head from its slices of W_Q and W_K -------


@pytest.mark.parametrize("layer, head", [(0, 0), (2, 7), (5, 11)])
def test_head_weights_reproduce_a_head(model, layer, head):
    run = model.run("The quick brown fox jumps over the lazy dog.")
    W_Q, b_Q, W_K, b_K = model.head_weights(layer, head)
    assert W_Q.shape == W_K.shape == (384, 32) and b_Q.shape == b_K.shape == (32,)
    x = run.hidden[layer]
    Q, K = x @ W_Q + b_Q, x @ W_K + b_K
    _, weights = scaled_dot_product_attention(Q, K, K)
    np.testing.assert_allclose(weights, run.attention[layer, head], atol=1e-6)


def test_head_weights_refuse_a_missing_head(model):
    with pytest.raises(IndexError, match="layer must be in 0..5"):
        model.head_weights(6, 0)


# --- any input ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["", "   ", "😀🙃", "日本語のテキスト", "Ünïcödé café!"])
def test_any_text_runs(model, text):
    run = model.run(text)
    assert run.tokens[0] == "[CLS]" and run.tokens[-1] == "[SEP]"
    assert np.isfinite(run.hidden).all()
    np.testing.assert_allclose(run.attention.sum(axis=-1), 1.0, atol=1e-5)


def test_long_text_is_capped_with_a_message(model):
    text = "word " * 1000
    run = model.run(text)
    assert len(run.tokens) == pretrained.MAX_TOKENS and run.tokens[-1] == "[SEP]"
    assert run.n_cut == 1002 - 512
    assert "1002 word pieces" in run.message
    short = model.run(text, max_tokens=16)
    assert len(short.tokens) == 16 and short.tokens[-1] == "[SEP]"


def test_text_must_be_a_string(model):
    with pytest.raises(TypeError, match="text must be a string"):
        model.run(None)


# --- context separates the senses of "bank" and "mole" --------------------------

RIVER = [
    "We had a picnic on the grassy bank of the river.",
    "The canoe drifted towards the steep bank of the stream.",
    "Fishermen lined the bank, waiting for trout to bite.",
    "Floodwater burst over the bank and into the fields.",
]
MONEY = [
    "I need to withdraw cash from the bank before it closes.",
    "The bank approved her mortgage application yesterday.",
    "He opened a savings account at the local bank.",
    "The bank raised its interest rates again.",
]
RIVER_HELD_OUT = [
    "Ducks waddled up the muddy bank from the water.",
    "The children skipped stones from the bank of the lake.",
    "Reeds grew thick along the bank where the otters swam.",
]
MONEY_HELD_OUT = [
    "The robbers fled the bank with bags of stolen money.",
    "My bank charges a fee for every transfer abroad.",
    "She works as a teller at the bank downtown.",
]
CHEMISTRY = [
    "One mole of carbon atoms weighs twelve grams.",
    "Avogadro's number is the count of particles in a mole.",
    "Calculate the mass of a mole of sodium chloride.",
]
ANIMAL = [
    "The mole dug tunnels under our lawn all night.",
    "A mole has tiny eyes and large digging claws.",
    "The gardener set a trap for the mole in the flower bed.",
]
CHEMISTRY_HELD_OUT = [
    "The solution contains half a mole of sugar per litre.",
    "How many molecules are in one mole of oxygen gas?",
]
ANIMAL_HELD_OUT = [
    "The mole burrowed beneath the vegetable garden.",
    "Our dog chased a mole across the field.",
]


def _classify(model, word, sense_a, sense_b, held_a, held_b):
    last = model.n_layers
    centroids = np.stack([
        pretrained.word_vectors(model, sense, word)[:, last].mean(axis=0)
        for sense in (sense_a, sense_b)])
    vectors = pretrained.word_vectors(model, held_a + held_b, word)[:, last]
    _, nearest = pretrained.nearest_centroid(vectors, centroids)
    return nearest, [0] * len(held_a) + [1] * len(held_b)


def test_last_layer_bank_vectors_separate_river_from_money(model):
    nearest, expected = _classify(model, "bank", RIVER, MONEY,
                                  RIVER_HELD_OUT, MONEY_HELD_OUT)
    assert nearest.tolist() == expected


def test_last_layer_mole_vectors_separate_chemistry_from_animal(model):
    nearest, expected = _classify(model, "mole", CHEMISTRY, ANIMAL,
                                  CHEMISTRY_HELD_OUT, ANIMAL_HELD_OUT)
    assert nearest.tolist() == expected


def test_bank_differs_only_by_position_before_layer_1(model):
    """Same word piece at the same position: identical embedding-layer vectors."""
    vecs = pretrained.word_vectors(
        model, ["A bank by the river.", "A bank for the money."], "bank")
    np.testing.assert_array_equal(vecs[0, 0], vecs[1, 0])
    assert not np.allclose(vecs[0, 1], vecs[1, 1], atol=1e-3)


def test_word_vectors_name_a_missing_word(model):
    with pytest.raises(ValueError, match="'bank' is not one word piece"):
        pretrained.word_vectors(model, ["No such word here."], "bank")


# --- GELU and its erf -------------------------------------------------------------


def test_erf_is_within_1_5e_7_of_math_erf():
    x = np.linspace(-6, 6, 24001)
    exact = np.array([math.erf(v) for v in x])
    assert np.abs(pretrained.erf(x) - exact).max() < 1.5e-7
    assert pretrained.erf(np.float32(0.5)).dtype == np.float32


def test_gelu_is_the_exact_erf_form():
    x = np.linspace(-12, 12, 24001)
    exact = np.array([v * (1 + math.erf(v / math.sqrt(2))) / 2 for v in x])
    assert np.abs(pretrained.gelu(x) - exact).max() < 1e-6
    x32 = x.astype(np.float32)
    out = pretrained.gelu(x32)
    assert out.dtype == np.float32
    assert (np.abs(out - exact) <= 1e-6 * np.maximum(1, np.abs(x))).all()
    assert pretrained.gelu(np.array([0.0]))[0] == 0.0


# --- where the files come from ------------------------------------------------------


def _python(code: str, **env) -> subprocess.CompletedProcess:
    full = {**os.environ, **env, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code], env=full, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_load_finds_the_offline_copy_through_huggingface_hub():
    cache = SNAPSHOT.parent.parent.parent
    result = _python("from helpers.models import pretrained; m = pretrained.load(); "
                     "print(m.run('hello').tokens)",
                     HF_HUB_OFFLINE="1", HF_HUB_CACHE=str(cache))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['[CLS]', 'hello', '[SEP]']"


def test_load_finds_the_projects_own_copy(tmp_path):
    # the playground and a lesson find the copy `make test-model` made in the
    # project's cache, though huggingface_hub's own cache has none
    (tmp_path / "attention-notebooks").mkdir()
    (tmp_path / "attention-notebooks" / "hub").symlink_to(
        SNAPSHOT.parent.parent.parent, target_is_directory=True)
    (tmp_path / "empty").mkdir()
    result = _python("from helpers.models import pretrained; m = pretrained.load(); "
                     "print(m.run('hello').tokens)",
                     HF_HUB_OFFLINE="1", HF_HUB_CACHE=str(tmp_path / "empty"),
                     XDG_CACHE_HOME=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['[CLS]', 'hello', '[SEP]']"


def test_no_copy_offline_gives_one_clear_sentence(tmp_path):
    result = _python("from helpers.models import pretrained; pretrained.load()",
                     HF_HUB_OFFLINE="1", HF_HUB_CACHE=str(tmp_path),
                     XDG_CACHE_HOME=str(tmp_path))
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(
        "helpers.models.pretrained.ModelNotAvailable: The pretrained model")
    assert "HF_HUB_OFFLINE is set" in last and "internet connection" in last
    assert "During handling" not in result.stderr  # no chained library traceback
    assert "huggingface_hub" not in result.stderr


def test_load_refuses_wrong_or_missing_files(tmp_path):
    with pytest.raises(pretrained.ModelNotAvailable, match="must hold model.safet"):
        pretrained.load(tmp_path)
    (tmp_path / "model.safetensors").write_bytes(b"not the weights")
    (tmp_path / "tokenizer.json").write_text("{}")
    with pytest.raises(pretrained.ModelNotAvailable, match="sha256"):
        pretrained.load(tmp_path)


# --- the exercise of lesson 10 through its checker ------------------------------

def _no_bias(x, W_Q, b_Q, W_K, b_K):
    return scaled_dot_product_attention(x @ W_Q, x @ W_K, x @ W_K)[1]


def _transposed(x, W_Q, b_Q, W_K, b_K):
    return scaled_dot_product_attention(x @ W_K + b_K, x @ W_Q + b_Q, x)[1]


def _unscaled(x, W_Q, b_Q, W_K, b_K):
    Q, K = x @ W_Q + b_Q, x @ W_K + b_K
    return scaled_dot_product_attention(Q, K, K, scale=1.0)[1]


def _stub(x, W_Q, b_Q, W_K, b_K):
    raise NotImplementedError


@pytest.mark.parametrize("fn, words", [
    (_no_bias, "b_Q is missing"),
    (_transposed, "transposed: rows must be queries"),
    (_unscaled, "not divided by sqrt(d_k)"),
    (_stub, "Not done yet"),
])
def test_the_checker_names_the_mistake(model, capsys, fn, words):
    from helpers import checks
    assert checks.check_real_head(fn, model) is False
    assert words in said(capsys.readouterr().out)


# --- lesson 10's facts and fair measurements ------------------------------------


def test_parameter_counts_add_up_to_the_published_model(model):
    counts = model.parameter_counts()
    total = sum(counts.values())
    assert total == 22_713_216                      # "22.7 M", pooler included
    assert counts["word-piece embeddings"] == 30_522 * 384
    mlp_per_block = 384 * 1536 + 1536 + 1536 * 384 + 384
    assert counts["MLP"] == 6 * mlp_per_block
    assert 0.30 < counts["MLP"] / total < 0.32      # the six MLPs: 31 %
    block = counts["attention"] + counts["MLP"] + counts["LayerNorm in the blocks"]
    assert 0.66 < counts["MLP"] / block < 0.67      # two thirds of one block


def test_a_causal_run_never_lets_a_position_see_later_tokens(model):
    """At every depth, the vector at i depends only on tokens 0..i."""
    a = model.run("The bank of the river was muddy.", causal=True)
    b = model.run("The bank raised its interest rates.", causal=True)
    i = a.tokens.index("bank")
    np.testing.assert_allclose(a.hidden[:, : i + 1], b.hidden[:, : i + 1], atol=1e-5)
    assert np.allclose(np.triu(a.attention, k=1), 0)
    free = [model.run(t) for t in ("The bank of the river was muddy.",
                                   "The bank raised its interest rates.")]
    assert np.abs(free[0].hidden[1:, i] - free[1].hidden[1:, i]).max() > 0.1


def test_reference_differences_are_tiny_and_notice_a_change(model, reference, tmp_path):
    diff = probing.reference_differences(model, REFERENCE)
    assert diff["sentences"] == 3
    assert diff["hidden"] < 1e-4 and diff["attention"] < 1e-5
    assert probing.reference_differences(model) == diff   # the default is that file
    broken = dict(reference)
    broken["attention_1"] = reference["attention_1"] + 0.01
    np.savez(tmp_path / "broken.npz", **broken)
    changed = probing.reference_differences(model, tmp_path / "broken.npz")
    assert changed["attention"] > 0.009
    with pytest.raises(FileNotFoundError, match="missing"):
        probing.reference_differences(model, tmp_path / "none.npz")


def test_sense_gap_leave_one_out_does_not_judge_a_vector_by_itself():
    # two senses along x; the last sense-0 vector is an outlier on the other side
    V = np.array([[[1.0, 0.1]], [[1.0, -0.1]], [[-0.2, 1.0]],
                  [[-1.0, 0.1]], [[-1.0, -0.1]]])
    senses = np.array([0, 0, 0, 1, 1])
    with_self = probing.sense_gap(V, senses, leave_one_out=False)
    fair = probing.sense_gap(V, senses, leave_one_out=True)
    assert with_self.shape == fair.shape == (5, 1)
    # judged against averages without it, the outlier is nearer sense 1
    assert fair[2, 0] < 0 < with_self[2, 0]
    assert (fair[:2, 0] > 0).all() and (fair[3:, 0] < 0).all()
    same = np.ones((4, 2, 3))                       # identical vectors: all ties
    np.testing.assert_allclose(probing.sense_gap(same, np.array([0, 0, 1, 1])), 0,
                               atol=1e-12)
    with pytest.raises(ValueError, match="at least 2 of each sense"):
        probing.sense_gap(V[:4], np.array([0, 0, 0, 1]))


def test_position_controlled_senses_tie_at_the_embeddings_and_separate_after(model):
    """Lesson 10's controlled sentences: every "bank" at position 2."""
    river = ["The bank of the river was steep and muddy.",
             "The bank beside the stream was covered in reeds.",
             "The bank flooded when the river burst after the storm.",
             "The bank where the otters swim is thick with willows.",
             "The bank of the canal was lined with fishermen.",
             "The bank sloped gently down to the water's edge."]
    money = ["The bank approved her mortgage application yesterday.",
             "The bank raised its interest rates again.",
             "The bank charges a fee for every transfer abroad.",
             "The bank lent the company a million pounds.",
             "The bank closed my savings account without warning.",
             "The bank was robbed and the cash was stolen."]
    V = pretrained.word_vectors(model, river + money, "bank")
    gap = probing.sense_gap(V, np.repeat([0, 1], 6))
    np.testing.assert_allclose(gap[:, 0], 0, atol=1e-6)   # same word, same position
    assert (gap[:6, 1:] > 0).all() and (gap[6:, 1:] < 0).all()   # after every layer


def test_same_offset_score_is_what_a_position_head_would_get(model):
    pairs = [("She ate the red apple.", "ate", "apple"),
             ("They bought the car last week.", "bought", "car")]
    base = probing.same_offset_score(model, pairs)
    rel = pretrained.relation_score(model, pairs)
    assert base.shape == rel.shape == (6, 12)
    # the previous-token head of layer 0 gives ~0 to pieces 2-3 ahead either way
    assert base[0, 2] < 0.05 and rel[0, 2] < 0.05
    # a head's baseline is its mean weight at that offset from the other pieces
    run = model.run(pairs[1][0])
    i, j = run.tokens.index("bought"), run.tokens.index("car")
    others = [a for a in range(1, len(run.tokens) - 1)
              if 0 < a + j - i < len(run.tokens) - 1 and a != i]
    one = probing.same_offset_score(model, pairs[1:])
    expected = run.attention[:, :, others, [a + j - i for a in others]].mean(-1)
    np.testing.assert_allclose(one, expected, atol=1e-6)


def test_parked_weight_by_hand():
    """Two askers ('a', 'b'); the comma neither asks nor is counted as a full stop."""
    from types import SimpleNamespace

    A = np.array([[0.25, 0.25, 0.25, 0.25, 0.0, 0.0],    # [CLS] does not ask
                  [0.5, 0.1, 0.1, 0.0, 0.2, 0.1],        # a
                  [0.1, 0.1, 0.1, 0.0, 0.4, 0.3],        # b
                  [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],        # , (punctuation: no)
                  [0.0, 0.0, 0.0, 0.0, 1.0, 0.0],        # .
                  [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]])       # [SEP]
    run = SimpleNamespace(tokens=["[CLS]", "a", "b", ",", ".", "[SEP]"],
                          attention=A[None, None])
    parked = probing.parked_weight([run, run])
    np.testing.assert_allclose(parked["[CLS]"], 0.3)      # (0.5 + 0.1) / 2
    np.testing.assert_allclose(parked["."], 0.3)          # (0.2 + 0.4) / 2
    np.testing.assert_allclose(parked["[SEP]"], 0.2)      # (0.1 + 0.3) / 2
    assert parked["[CLS]"].shape == (2, 1, 1)
    no_stop = SimpleNamespace(tokens=["[CLS]", "a", "[SEP]"],
                              attention=np.full((1, 1, 3, 3), 1 / 3))
    assert np.isnan(probing.parked_weight([no_stop])["."]).all()
