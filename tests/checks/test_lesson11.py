"""Lesson 11's checkers (helpers/checks/lesson11.py): the reference solutions
pass, the stubs are "not done yet", each named mistake gets its own diagnosis
and nothing raises (the solutions also run in test_solutions.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from helpers import checks
from helpers.models import gpt
from helpers.attention import scaled_dot_product_attention, softmax
from tools.solutions import lesson11

from .conftest import verdict as _verdict

needs_gpt = pytest.mark.skipif(not (gpt.FOLDER / "model.safetensors").is_file(),
                               reason="no trained small GPT in data/gpt/")
CHECKERS = [checks.check_next_token_loss, checks.check_decode_step,
            checks.check_top_k_sample]


def _diagnosis(checker, fn, capsys, words, **kw):
    result, out = _verdict(checker, fn, capsys, **kw)
    assert result is False and out.startswith("Not quite:"), out
    assert words in out, out
    return out


def _stub_raise(*a, **k):
    raise NotImplementedError("Your turn")


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("stub", [_stub_raise, lambda *a, **k: None,
                                  lambda *a, **k: ...])
def test_stub_is_not_done_yet(checker, stub, capsys):
    if checker is checks.check_decode_step and not (
            gpt.FOLDER / "model.safetensors").is_file():
        pytest.skip("no trained small GPT in data/gpt/")
    result, out = _verdict(checker, stub, capsys)
    assert result is False and out.startswith("Not done yet:"), out


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.__name__)
def test_exceptions_garbage_and_non_functions_are_reported(checker, capsys):
    if checker is checks.check_decode_step and not (
            gpt.FOLDER / "model.safetensors").is_file():
        pytest.skip("no trained small GPT in data/gpt/")

    def broken(*a, **k):
        raise KeyError("oops, a typo")

    assert "oops, a typo" in _diagnosis(checker, broken, capsys, "KeyError")
    _diagnosis(checker, lambda *a, **k: "hello", capsys, "")
    _diagnosis(checker, np.zeros(3), capsys, "pass your function itself")


# --- warm-up: the next-token loss ----------------------------------------------

def _logp(logits):
    z = logits - logits.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def _targets(logits, ids):
    return _logp(logits)[np.arange(len(ids) - 1), ids[1:]]


def _loss_loop(logits, ids):
    total = 0.0
    for t in range(len(ids) - 1):
        z = logits[t] - logits[t].max()
        total += np.log(np.exp(z).sum()) - z[ids[t + 1]]
    return total / (len(ids) - 1)


def _naive(logits, ids):
    p = np.exp(logits) / np.exp(logits).sum(axis=-1, keepdims=True)
    return -np.log(p[np.arange(len(ids) - 1), ids[1:]]).mean()


def _log_of_softmax(logits, ids):
    return -np.log(softmax(logits)[np.arange(len(ids) - 1), ids[1:]]).mean()


def _axis0(logits, ids):
    z = logits[:-1]
    logp = z - np.log(np.exp(z - z.max(0)).sum(axis=0, keepdims=True)) - z.max(0)
    return -logp[np.arange(len(ids) - 1), ids[1:]].mean()


def _in_place(logits, ids):
    logits -= logits.max(axis=-1, keepdims=True)
    return lesson11.next_token_loss(logits, ids)


def test_the_loss_solution_and_a_loop_pass(capsys):
    result, out = _verdict(checks.check_next_token_loss, lesson11.next_token_loss,
                           capsys)
    assert result is True and "1.733 by hand" in out
    assert _verdict(checks.check_next_token_loss, _loss_loop, capsys)[0] is True


def test_near_miss_losses_pass(capsys):
    """Right answers written another way: float32 throughout, scipy-free
    logsumexp by hand, a loop, a one-hot product averaged the right way."""
    def float32(z, i):
        return lesson11.next_token_loss(np.asarray(z, dtype=np.float32), i)

    def one_hot(z, i):
        return -(_logp(z)[:-1] * np.eye(z.shape[1])[i[1:]]).sum(axis=-1).mean()

    for fn in (float32, one_hot, _loss_loop):
        assert _verdict(checks.check_next_token_loss, fn, capsys)[0] is True


def test_the_hand_worked_case_is_what_it_says():
    from helpers.checks import lesson11 as module

    got = lesson11.next_token_loss(module.HAND_LOGITS, module.HAND_IDS)
    assert math.isclose(got, (math.log(4) + math.log(8)) / 2)
    assert "1.733" in module.HAND_TEXT and f"{got:.3f}" == "1.733"


@pytest.mark.parametrize("fn, words", [
    (lambda z, i: -_logp(z)[np.arange(len(i)), i].mean(), "no shift"),
    (lambda z, i: -_logp(z)[np.arange(len(i) - 1), i[:-1]].mean(), "no shift"),
    (lambda z, i: -_logp(z[1:])[np.arange(len(i) - 1), i[:-1]].mean(),
     "shifted the wrong way"),
    (lambda z, i: np.exp(_targets(z, i)).mean(), "averaged the probabilities"),
    (lambda z, i: _targets(z, i).mean(), "forgot the minus sign"),
    (lambda z, i: -_targets(z, i).sum(), "summed the losses"),
    (lambda z, i: -_logp(z)[np.arange(len(i)), i[1:]].mean(), "Off by one: 3 tokens"),
    (lambda z, i: -_logp(z)[np.arange(len(i)), np.roll(i, -1)].mean(),
     "included the last position"),
    (lambda z, i: -_targets(z, i).sum() / len(i), "divided by n"),
    (lambda z, i: -_targets(z, i)[1:].mean(), "only n - 2 predictions"),
    (lambda z, i: -_targets(z, i).mean() / np.log(2), "log base 2"),
    (_axis0, "wrong axis"),
    (_naive, "overflows"),
    (_log_of_softmax, "log-sum-exp"),
    (lambda z, i: -_targets(z, i), "one loss per prediction"),
    (lambda z, i: np.zeros((2, 2)), "return one number"),
    (lambda z, i: 1.0, "expected 1.733 nats"),
    (_in_place, "changed its input logits in place"),
    (lambda z, i: -(_logp(z)[:-1] * np.eye(z.shape[1])[i[1:]]).mean(),
     "averaged over the vocabulary too"),
    (lambda z, i: -(z[:-1] - np.log(np.exp(z[:-1] - z[:-1].max()).sum())
                    - z[:-1].max())[np.arange(len(i) - 1), i[1:]].mean(),
     "normalised over the whole array at once"),
    (lambda z, i: np.median(-_targets(z, i)), "the median"),
    (lambda z, i: -np.log(np.clip(softmax(z)[np.arange(len(i) - 1), i[1:]],
                                  1e-12, 1)).mean(), "clipped the probabilities"),
    (lambda z, i: -_targets(z / 0.8, i).mean(), "temperature (T = 0.8)"),
    (lambda z, i: -_targets(z / 2.0, i).mean(), "temperature (T = 2)"),
    (lambda z, i: -_logp(z[:-1])[:, i[1:]].mean(), "every row × every target"),
    (lambda z, i: -_logp(z)[:, i[1:]].mean(), "every row × every target"),
])
def test_the_loss_names_the_mistake(fn, words, capsys):
    out = _diagnosis(checks.check_next_token_loss, fn, capsys, words)
    if words not in ("overflows", "log-sum-exp", "Off by one: 3 tokens",
                     "changed its input logits in place", "the median",
                     "clipped the probabilities"):
        assert "ids = [2, 3, 2]" in out  # the hand-worked case, shown


# --- the core: one decoding step with the KV cache ------------------------------

def _step(keys="all", at=None, tok=True, where=True, mask=None, store="new",
          swap=False, squeeze=True):
    """A learner's decode_step with one chosen mistake."""
    def decode_step(model, token, pos, cache):
        h = np.zeros((1, model.d_model), dtype=np.float32)
        h = h + (model.wte[[token]] if tok else 0)
        h = h + (model.wpe[[at(pos, cache) if at else pos]] if where else 0)
        new = []
        for layer, (K, V) in enumerate(cache):
            q, k, v = model.qkv(layer, h)
            K2, V2 = np.concatenate([K, k], axis=1), np.concatenate([V, v], axis=1)
            kept = {"new": (K2, V2), "old": (K, V), "own": (k, v)}[store]
            new.append(kept[::-1] if swap else kept)
            pick = {"all": (K2, V2), "old": (K, V), "self": (k, v),
                    "first": (K2[:, :1], V2[:, :1])}[keys]
            m = None if mask is None else mask(K2.shape[1])
            out, _ = scaled_dot_product_attention(q, *pick, mask=m)
            h = model.finish(layer, h, out)
        logits = model.unembed(h)
        return (logits[0] if squeeze else logits), new
    return decode_step


def _in_place(model, token, pos, cache):
    logits, new = lesson11.decode_step(model, token, pos, cache)
    cache[:] = new
    return logits, cache


def _one_d(model, token, pos, cache):
    h = model.wte[token] + model.wpe[pos]          # (192,): 1-D, not (1, 192)
    for layer, (K, V) in enumerate(cache):
        q, k, v = model.qkv(layer, h)
        K, V = np.concatenate([K, k], axis=1), np.concatenate([V, v], axis=1)
        h = model.finish(layer, h, scaled_dot_product_attention(q, K, V)[0])
    return model.unembed(h), cache


def _append_axis(axis):
    def decode_step(model, token, pos, cache):
        h = model.wte[[token]] + model.wpe[[pos]]
        new = []
        for layer, (K, V) in enumerate(cache):
            q, k, v = model.qkv(layer, h)
            K = np.concatenate([K, k], axis=axis)
            V = np.concatenate([V, v], axis=axis)
            new.append((K, V))
            h = model.finish(layer, h, scaled_dot_product_attention(q, K, V)[0])
        return model.unembed(h[0]), new
    return decode_step


def _scaled(scale):
    def decode_step(model, token, pos, cache):
        h = model.wte[[token]] + model.wpe[[pos]]
        new = []
        for layer, (K, V) in enumerate(cache):
            q, k, v = model.qkv(layer, h)
            K, V = np.concatenate([K, k], axis=1), np.concatenate([V, v], axis=1)
            new.append((K, V))
            w = softmax(q @ K.swapaxes(-1, -2) * scale(model))
            h = model.finish(layer, h, w @ V)
        return model.unembed(h[0]), new
    return decode_step


def _jittered(model, token, pos, cache):
    """Right, but the cached rows come back 1e-12 off (float64 round trips)."""
    logits, new = lesson11.decode_step(model, token, pos, cache)
    return logits, [(K.astype(np.float64) + 1e-12, V.astype(np.float64) - 1e-12)
                    for K, V in new]


def _axis0(model, token, pos, cache):
    logits, new = lesson11.decode_step(model, token, pos, cache)
    return logits, [(np.concatenate([K[:, :-1], K[:1, :-1]], axis=0),
                     np.concatenate([V[:, :-1], V[:1, :-1]], axis=0))
                    for K, V in new]


def _as_list(model, token, pos, cache):
    return list(lesson11.decode_step(model, token, pos, cache))


def _no_final_norm(model, token, pos, cache):
    h = model.wte[[token]] + model.wpe[[pos]]
    new = []
    for layer, (K, V) in enumerate(cache):
        q, k, v = model.qkv(layer, h)
        K, V = np.concatenate([K, k], axis=1), np.concatenate([V, v], axis=1)
        new.append((K, V))
        h = model.finish(layer, h, scaled_dot_product_attention(q, K, V)[0])
    return h[0] @ model.wte.T, new


def _residual(model, token, pos, cache):
    return np.zeros(model.d_model), lesson11.decode_step(model, token, pos, cache)[1]


@needs_gpt
def test_the_step_solution_passes_also_with_an_explicit_model(capsys):
    result, out = _verdict(checks.check_decode_step, lesson11.decode_step, capsys)
    assert result is True and "model.generate writes" in out
    assert _verdict(checks.check_decode_step, lesson11.decode_step, capsys,
                    model=gpt.load())[0] is True
    assert _verdict(checks.check_decode_step, _step(), capsys)[0] is True
    for fn in (_jittered, _scaled(lambda m: 1 / np.sqrt(m.d_head)), _as_list):
        assert _verdict(checks.check_decode_step, fn, capsys)[0] is True


@needs_gpt
@pytest.mark.parametrize("fn, words", [
    (_step(store="old"), "The cache did not grow"),
    (_step(store="own"), "you replaced the cache by its k and v"),
    (_step(swap=True), "keys and values swapped"),
    (_step(keys="old"), "did not attend to itself"),
    (_step(keys="self"), "attended only to its own key"),
    (_step(keys="first"), "your mask hides the cached tokens"),
    (_step(mask=lambda n: np.tril(np.ones((n, n), dtype=bool))),
     "A causal mask of shape (n, n) would make n query rows"),
    (_step(at=lambda pos, cache: len(cache)), "len(cache) = 4 is the number of layers"),
    (_step(at=lambda pos, cache: pos + 1), "wrong position embedding (pos + 1)"),
    (_step(at=lambda pos, cache: 0), "position 0"),
    (_step(where=False), "no position embedding"),
    (_step(tok=False), "no token embedding"),
    (_step(squeeze=False), "return shape (2048,)"),
    (_residual, "not logits"),
    (_no_final_norm, "you skipped the final LayerNorm (h[0] @ model.wte.T): use "
     "model.unembed"),
    (_in_place, "changed the cache it was given"),
    (_axis0, "along axis 0, the heads"),
    (_one_d, "Your h is 1-D, shape (192,)"),
    (_append_axis(0), "appended along the wrong axis"),
    (_append_axis(2), "appended along the wrong axis"),
    (_scaled(lambda m: 1.0), "not divided by sqrt(d_k)"),
    (_scaled(lambda m: 1.0 / m.d_head), "divided by d_k, not by sqrt(d_k)"),
    (lambda model, token, pos, cache: lesson11.decode_step(model, token, pos,
                                                           cache)[0],
     "should return two things"),
])
def test_the_step_names_the_mistake(fn, words, capsys):
    _diagnosis(checks.check_decode_step, fn, capsys, words)


@needs_gpt
def test_the_step_checker_says_where(capsys):
    out = _diagnosis(checks.check_decode_step, _step(at=lambda pos, cache: pos + 1),
                     capsys, "at pos = 5, after 5 cached tokens:")
    assert "a cache of 5 tokens holds positions 0 to 4" in out
    out = _diagnosis(checks.check_decode_step,
                     _step(at=lambda pos, cache: pos + 1 if pos == 1 else pos),
                     capsys, "at pos = 1, after 1 cached token:")
    assert "the one cached token is position 0" in out


def test_without_a_model_the_checker_says_why(monkeypatch, capsys):
    def unavailable(path=None):
        raise gpt.ModelNotAvailable("The small GPT is not in data/gpt/.")

    monkeypatch.setattr(gpt, "load", unavailable)
    result, out = _verdict(checks.check_decode_step, lesson11.decode_step,
                           capsys)
    assert result is False
    assert out == "Not quite: The small GPT is not in data/gpt/.\n"


# --- stretch: top-k sampling ------------------------------------------------------

def _sampler(probs):
    """A sampler drawing rng.choice(len(p), p=p) from probs(logits, k, T)."""
    def sample(logits, k, T, rng):
        p = probs(np.asarray(logits, dtype=float), k, T)
        return int(rng.choice(len(p), p=p))
    return sample


def _keep(z, keep):
    return softmax(np.where(keep, z, -np.inf))


def _top(z, k):
    return z >= np.sort(z)[-k]


def _t_after(logits, k, T):
    p = softmax(logits) / T                   # not renormalised: rng.choice refuses
    return np.where(_top(logits, k), p, 0.0)


def _t_after_renormalised(logits, k, T):
    p = np.where(_top(logits, k), softmax(logits) / T, 0.0)
    return p / p.sum()


def _not_renormalised(logits, k, T):
    return np.where(_top(logits, k), softmax(logits / T), 0.0)


def _argpartition(logits, k, temperature, rng):
    z = logits / temperature
    keep = np.zeros(len(z), dtype=bool)
    keep[np.argpartition(z, -k)[-k:]] = True
    p = softmax(np.where(keep, z, -np.inf))
    return rng.choice(len(p), p=p)           # an np.int64 is fine


def _other_draw(logits, k, T, rng):
    ids = np.argsort(logits)[-k:]
    return int(rng.choice(ids, p=softmax(logits[ids] / T)))


def _subset_p(logits, k, T, rng):
    keep = logits >= np.sort(logits)[-k]
    return int(rng.choice(len(logits), p=softmax(logits[keep] / T)))


def _global_random(logits, k, T, rng):
    p = gpt.top_k_probabilities(logits, k, T)
    return int(np.random.choice(len(p), p=p))


def _fresh_rng(logits, k, T, rng):
    p = gpt.top_k_probabilities(logits, k, T)
    return int(np.random.default_rng().choice(len(p), p=p))


def _fixed_rng(logits, k, T, rng):
    p = gpt.top_k_probabilities(logits, k, T)
    return int(np.random.default_rng(0).choice(len(p), p=p))


def test_the_sampler_solution_and_variants_pass(capsys):
    result, out = _verdict(checks.check_top_k_sample, lesson11.top_k_sample, capsys)
    assert result is True and "seed for seed" in out
    for fn in (_argpartition, _sampler(gpt.top_k_probabilities),
               _sampler(lambda z, k, T: _keep(z / T, _top(z, k)))):
        assert _verdict(checks.check_top_k_sample, fn, capsys)[0] is True


def _among_k_descending(logits, k, T, rng):
    ids = np.argsort(logits)[::-1][:k]
    return int(ids[rng.choice(k, p=softmax(logits[ids] / T))])


def _by_hand_cdf(logits, k, T, rng):
    p = gpt.top_k_probabilities(logits, k, T)
    return int(min(np.searchsorted(np.cumsum(p), rng.random(), side="right"),
                   len(p) - 1))


def test_samplers_drawing_another_way_pass(capsys):
    """Right samplers whose draws differ from rng.choice(len(p), p=p)'s: they
    are judged by their frequencies, and said to be right."""
    for fn in (_other_draw, _among_k_descending, _by_hand_cdf):
        result, out = _verdict(checks.check_top_k_sample, fn, capsys)
        assert result is True, out
        if fn is not _by_hand_cdf:  # that one is rng.choice's own draw
            assert "judged by the frequencies" in out, out
            assert "drawn another way" in out and "orders them" not in out, out


@pytest.mark.parametrize("fn, words", [
    (_sampler(_t_after), "temperature came after the softmax"),
    (_sampler(_t_after_renormalised), "do not depend on T"),
    (_sampler(lambda z, k, T: _keep(z * T, _top(z, k))), "multiplied the logits by T"),
    (_sampler(lambda z, k, T: _keep(z / T, z <= np.sort(z)[k - 1])), "k SMALLEST"),
    (_sampler(lambda z, k, T: softmax(z / T)), "k is ignored"),
    (_sampler(_not_renormalised), "did not renormalise"),
    (lambda z, k, T, rng: int(np.argmax(z)), "greedy (argmax)"),
    (_global_random, "not reproducible"),
    (_fresh_rng, "not reproducible"),
    (_fixed_rng, "ignore the rng"),
    (_sampler(lambda z, k, T: _keep(z / T, z >= np.sort(z)[-min(k + 1, len(z))])),
     "k off by one: you kept 5 tokens, not k = 4"),
    (_sampler(lambda z, k, T: _keep(z / T, z > np.sort(z)[-k])),
     "k off by one: you kept 9 tokens, not k = 10"),
    (lambda z, k, T, rng: gpt.top_k_probabilities(z, k, T), "the probabilities?"),
    (lambda z, k, T, rng: 0.5, "not a token id"),
    (lambda z, k, T, rng: len(z), "only 10 tokens"),
    (_subset_p, "a different number of probabilities"),
    (lambda z, k, T, rng: int(rng.choice(k, p=softmax(np.sort(z)[-k:] / T))),
     "a position in your list of the k largest"),
    (lambda z, k, T, rng: int(rng.choice(k, p=softmax(np.sort(z)[::-1][:k] / T))),
     "a position in your list of the k largest"),
])
def test_the_sampler_names_the_mistake(fn, words, capsys):
    _diagnosis(checks.check_top_k_sample, fn, capsys, words)
