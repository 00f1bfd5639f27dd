"""Lesson 12: the checkers of the attention-at-scale exercises.

* warm-up: the KV cache of one token (:func:`check_kv_bytes_per_token`);
* optional: the latent cache of multi-head latent attention
  (:func:`check_mla_bytes_per_token`);
* core: one step of the online softmax (:func:`check_online_softmax_step`),
  checked block by block from the right state, then over a whole row of
  blocks against plain softmax attention;
* stretch: attention with RoPE on the queries and keys
  (:func:`check_rope_attention`).
"""

from __future__ import annotations

import math

import numpy as np

from helpers.attention import (
    causal_mask,
    kv_cache_bytes,
    rope,
    scaled_dot_product_attention,
    softmax,
)
from helpers.checks._core import (
    _SEED,
    _Fail,
    _as_array,
    _call,
    _checker,
    _close,
    _nonfinite,
    _require_shape,
)

#: The checkers of this lesson: ``helpers.checks`` re-exports these names.
__all__ = [
    "check_kv_bytes_per_token",
    "check_mla_bytes_per_token",
    "check_online_softmax_step",
    "check_rope_attention",
]

# ------------------------------------------- warm-up: KV cache per token ---

#: (n_layers, n_heads, n_kv_heads, d_head, bytes_per_value): real models and
#: small cases; the query heads differ from the key/value heads where it
#: matters, so that using the wrong ones shows. In the first case every named
#: mistake (``kv_mistakes``) gives its own number, the group size
#: n_heads // n_kv_heads = 4 included; its 3 bytes per value (odd, neither 1,
#: 2 nor 4) keep a hard-coded 2 apart from the keys alone and from the right
#: answer (tests/checks/test_lesson12.py).
KV_CASES = (
    (5, 12, 3, 16, 3),     # first: every named mistake gives a different number
    (32, 32, 8, 128, 2),   # Llama-3-8B, fp16: 128 KiB
    (96, 96, 96, 128, 2),  # GPT-3 175B, fp16: about 4.7 MB
    (4, 6, 6, 32, 4),      # lesson 11's small GPT, float32: 6 KiB
    (1, 4, 1, 8, 1),
)


def _same(got, number) -> bool:
    """``got`` is ``number`` up to rounding (1e-9 relative): 1.9999999999e3
    from a float formula counts as 2,000."""
    return math.isclose(got, number, rel_tol=1e-9, abs_tol=1e-9)


def kv_mistakes(L, h, g, d, b):
    """The named mistakes of the KV-cache calculator: [(bytes, why)]."""
    return [
        (2 * L * g * d * 2, "bytes_per_value is ignored (a hard-coded 2): use the "
         "argument, which is 2 for fp16 but 4 for float32"),
        (2 * L * h * d * b, "you used the query heads: only the key/value heads "
         "are cached (n_kv_heads), which is all that grouped-query attention saves"),
        (2 * L * (h // g) * d * b, "you used the group size, n_heads // n_kv_heads "
         "(the query heads that share one key/value head): the cache holds one key "
         "and one value per key/value head, so use n_kv_heads itself"),
        (L * g * d * b, "that is the keys only: the cache holds a key AND a value "
         "per head, so multiply by 2"),
        (2 * g * d * b, "the layers are missing: every layer caches its own keys "
         "and values"),
        (2 * L * g * b, "d_head is missing: each cached key and value is a vector "
         "of d_head numbers"),
        (2 * L * g * d, "that counts numbers, not bytes: multiply by "
         "bytes_per_value (2 for fp16, 4 for float32)"),
        (16 * L * g * d * b, "that is bits: a byte is 8 bits, and bytes_per_value "
         "is already in bytes"),
        (4 * L * g * d * b, "you counted K and V twice: the factor is 2, one key "
         "and one value"),
    ]


@_checker("the KV cache of one token")
def check_kv_bytes_per_token(fn, name):
    """Check ``fn(n_layers, n_heads, n_kv_heads, d_head, bytes_per_value) ->
    2 * n_layers * n_kv_heads * d_head * bytes_per_value`` (bytes), up to
    rounding."""
    for L, h, g, d, b in KV_CASES:
        result, _ = _call(fn, name, ("n_layers", "n_heads", "n_kv_heads", "d_head",
                                     "bytes_per_value"), L, h, g, d, b)
        got = _as_array(result, f"What your {name} returns")
        if got.size != 1:
            raise _Fail(f"Your {name} returned an array of shape {got.shape}; "
                        "return one number, the bytes per token.")
        got = float(got.reshape(()))
        expected = kv_cache_bytes(L, g, d, b)
        if _same(got, expected):
            continue
        label = (f"For n_layers={L}, n_heads={h}, n_kv_heads={g}, d_head={d}, "
                 f"bytes_per_value={b} you gave {got:,.6g}")
        for wrong, why in kv_mistakes(L, h, g, d, b):
            if _same(got, wrong) and wrong != expected:
                raise _Fail(f"{label}: {why}. Expected {expected:,}.")
        raise _Fail(f"{label}; expected {expected:,} bytes: 2 (K and V) x "
                    "n_layers x n_kv_heads x d_head x bytes_per_value.")
    return (f"{name} gives 131,072 bytes (128 KiB) per token for Llama-3-8B and "
            "4,718,592 (about 4.7 MB) for GPT-3 175B.")


# ------------------------------- optional: the latent cache (MLA) per token ---

#: (n_layers, n_heads, d_latent, d_rope, bytes_per_value): DeepSeek-V3 and V2
#: (bf16) and small cases; the first gives every named mistake its own number.
MLA_CASES = (
    (3, 4, 10, 6, 4),
    (61, 128, 512, 64, 2),  # DeepSeek-V3: 70,272 bytes per token
    (60, 128, 512, 64, 2),  # DeepSeek-V2: 69,120
    (2, 8, 16, 4, 1),
)


def mla_mistakes(L, h, c, r, b):
    """The named mistakes of the latent-cache calculator: [(bytes, why)]."""
    return [
        (L * (c + r) * 2, "bytes_per_value is ignored (a hard-coded 2): use the "
         "argument, which is 2 for bf16 but 4 for float32"),
        (2 * L * (c + r) * b, "you cached a key AND a value: MLA caches one latent "
         "per token, from which both the keys and the values are made, so there is "
         "no factor 2"),
        (L * c * b, "the RoPE key is missing: beside the latent, each layer caches "
         "one small key that carries the position (d_rope numbers)"),
        (L * (c + h * r) * b, "you cached a RoPE key per head: there is one per "
         "token, shared by all the heads"),
        (L * h * (c + r) * b, "you cached a latent per head: there is one per token, "
         "shared by all the heads (that is the saving)"),
        ((c + r) * b, "the layers are missing: every layer caches its own latent"),
        (L * (c + r), "that counts numbers, not bytes: multiply by bytes_per_value"),
        (8 * L * (c + r) * b, "that is bits: a byte is 8 bits, and bytes_per_value "
         "is already in bytes"),
        (L * (c + 2 * r) * b, "you cached a RoPE value beside the RoPE key: RoPE "
         "turns only keys (and queries), so one key of d_rope numbers is cached, "
         "no value"),
    ]


def mla_rope_per_head(L, h, c, r, b):
    """What caching a RoPE key per head gives with one more slip:
    [(bytes, why)]. A RoPE key per head is n_heads * d_rope numbers where
    MLA caches d_rope."""
    per_head = ("you cached a RoPE key per head (n_heads x d_rope): there is "
                "one per token, shared by all the heads")
    return [  # (L * (c + h * r) * b, the mistake alone, is in mla_mistakes)
        (L * (c + 2 * h * r) * b, per_head + ", and it is a key only, not a key and "
         "a value"),
        (2 * L * (c + h * r) * b, per_head + ", and there is no factor 2: the keys "
         "and values are both made from the one latent"),
        (L * h * r * b, per_head + ", and the latent itself (d_latent numbers) is "
         "missing"),
        ((c + h * r) * b, per_head + ", and the layers are missing: every layer "
         "caches its own"),
        (L * (c + h * r), per_head + ", and that counts numbers, not bytes: multiply "
         "by bytes_per_value"),
        (L * h * (c + h * r) * b, per_head + ", and a latent per head as well"),
    ]


@_checker("the latent cache of one token")
def check_mla_bytes_per_token(fn, name):
    """Check ``fn(n_layers, n_heads, d_latent, d_rope, bytes_per_value) ->
    n_layers * (d_latent + d_rope) * bytes_per_value`` (bytes), up to
    rounding."""
    for L, h, c, r, b in MLA_CASES:
        result, _ = _call(fn, name, ("n_layers", "n_heads", "d_latent", "d_rope",
                                     "bytes_per_value"), L, h, c, r, b)
        got = _as_array(result, f"What your {name} returns")
        if got.size != 1:
            raise _Fail(f"Your {name} returned an array of shape {got.shape}; "
                        "return one number, the bytes per token.")
        got = float(got.reshape(()))
        expected = L * (c + r) * b
        if _same(got, expected):
            continue
        label = (f"For n_layers={L}, n_heads={h}, d_latent={c}, d_rope={r}, "
                 f"bytes_per_value={b} you gave {got:,.6g}")
        named = mla_mistakes(L, h, c, r, b) + mla_rope_per_head(L, h, c, r, b)
        for wrong, why in named:
            if _same(got, wrong) and wrong != expected:
                raise _Fail(f"{label}: {why}. Expected {expected:,}.")
        raise _Fail(f"{label}; expected {expected:,} bytes: n_layers x (d_latent + "
                    "d_rope) x bytes_per_value.")
    return (f"{name} gives 70,272 bytes per token for DeepSeek-V3, about half of "
            "Llama-3-8B's 131,072, for a model with 61 layers and 128 heads.")


# ------------------------------------------- core: the online-softmax step ---


def reference_step(m, total, acc, scores, V_block):
    """The correct update (the checker's own; see tools/solutions)."""
    m_new = np.maximum(m, scores.max(axis=-1))
    alpha = np.exp(m - m_new)
    P = np.exp(scores - m_new[:, None])
    return m_new, alpha * total + P.sum(axis=-1), alpha[:, None] * acc + P @ V_block


def _blocks(seed, n, n_keys, block, d_v):
    """Scores (n, n_keys) whose maximum rises from block to block for some
    rows and not for others, the values, and the block boundaries."""
    rng = np.random.default_rng(seed)
    S = rng.standard_normal((n, n_keys)) * 1.5
    S += np.linspace(0.0, 3.0, n_keys)[None, :] * np.linspace(1, -1, n)[:, None]
    V = rng.standard_normal((n_keys, d_v))
    return S, V, [(s, min(s + block, n_keys)) for s in range(0, n_keys, block)]


def _wrong_steps(m, total, acc, S, Vb):
    """What the named mistakes give for one step: {message: (m, total, acc)}."""
    m_new = np.maximum(m, S.max(axis=-1))
    alpha = np.exp(m - m_new)
    P = np.exp(S - m_new[:, None])
    m_blk = S.max(axis=-1)
    P_blk = np.exp(S - m_blk[:, None])
    with np.errstate(over="ignore", invalid="ignore"):
        inv = np.exp(m_new - m)
    inv = np.where(np.isfinite(inv), inv, 0.0)
    total_ok, acc_ok = alpha * total + P.sum(-1), alpha[:, None] * acc + P @ Vb
    with np.errstate(over="ignore"):
        E = np.exp(S)  # no maximum subtracted
    rescaled = {x: reference_step(m, total, acc, S / math.sqrt(x), Vb)
                for x in sorted({Vb.shape[-1], S.shape[-1]}) if x > 1}
    rescale = ("When a block raises the running max, what came before was "
               "measured against the OLD max: multiply the old ")
    return {
        rescale + "sum total AND the old output acc by alpha = exp(m - m_new) before "
        "adding this block (you added without rescaling).":
            (m_new, total + P.sum(-1), acc + P @ Vb),
        rescale + "output acc by alpha = exp(m - m_new) too (you rescaled only "
        "the sum total).": (m_new, total_ok, acc + P @ Vb),
        rescale + "sum total by alpha = exp(m - m_new) too (you rescaled only the "
        "output acc).": (m_new, total + P.sum(-1), acc_ok),
        "You rescaled by the wrong exponent: exp(m_new - m) grows the old terms; "
        "alpha = exp(m - m_new) (old max minus new max, at most 1) shrinks them.":
            (m_new, inv * total + P.sum(-1), inv[:, None] * acc + P @ Vb),
        "This block's weights use the wrong exponent: you subtracted the block's "
        "own max; subtract the NEW running max, exp(scores - m_new), so that old "
        "and new terms share one reference.":
            (m_new, alpha * total + P_blk.sum(-1), alpha[:, None] * acc + P_blk @ Vb),
        "You divided too early: acc must stay a plain (unnormalised) sum, "
        "alpha * acc + P @ V_block; the division by total comes once, after the last "
        "block.": (m_new, total_ok, acc_ok / total_ok[:, None]),
        "You divided too early: acc is a plain (unnormalised) sum, not an average "
        "to be re-weighted by total; acc_new = alpha * acc + P @ V_block, and the "
        "division by total comes once, after the last block.":
            (m_new, total_ok,
             ((alpha * total)[:, None] * acc + P @ Vb) / total_ok[:, None]),
        "The running max must be the larger of the old max and this block's max "
        "(np.maximum(m, scores.max(axis=-1))), not this block's max alone.":
            (m_blk, np.exp(m - m_blk) * total + P_blk.sum(-1),
             np.exp(m - m_blk)[:, None] * acc + P_blk @ Vb),
        "This block's weights are exp(scores) with nothing subtracted: use "
        "exp(scores - m_new[:, None]), measured against the new running max like "
        "the old terms (and safe from overflow).":
            (m_new, alpha * total + E.sum(-1), alpha[:, None] * acc + E @ Vb),
        "You returned the running max and the running sum in the wrong order: "
        "return (m_new, total_new, acc_new).": (total_ok, m_new, acc_ok),
        **{"The scores are already scaled (divided by sqrt(d_k) before the "
           f"call): you divided them again, by sqrt({x}). Use scores as they "
           "come.": wrong for x, wrong in rescaled.items()},
    }


def _unpack_state(result, name, n, d_v):
    if not isinstance(result, (tuple, list)) or len(result) != 3:
        raise _Fail(f"Your {name} should return three things: (m_new, total_new, "
                    "acc_new), the running max, the running sum and the running "
                    "output after this block.")
    m = _as_array(result[0], "m_new (the first thing returned)").astype(float)
    total = _as_array(result[1], "total_new (the second thing returned)").astype(float)
    acc = _as_array(result[2], "acc_new (the third thing returned)").astype(float)
    if d_v != 1 and (m.shape == (n, d_v) or acc.shape == (n,)):
        raise _Fail(f"Your {name} returns its three values in the wrong order (shapes "
                    f"{m.shape}, {total.shape}, {acc.shape}): return (m_new, "
                    "total_new, acc_new), the max and the sum of shape (n,), then the "
                    "output of shape (n, d_v).")
    for got, what in ((m, "m_new"), (total, "total_new")):
        if got.shape != (n,) and got.size == n:
            raise _Fail(f"{what} should have shape ({n},), one number per row, but "
                        f"yours has shape {got.shape}: use scores.max(axis=-1) and "
                        "sum(axis=-1) without keepdims=True (write m_new[:, None] "
                        "where a column is needed). The loop that calls your function "
                        "divides acc / total[:, None].")
    _require_shape(m, (n,), "m_new", "One running max per query row.")
    _require_shape(total, (n,), "total_new", "One running sum per query row.")
    _require_shape(acc, (n, d_v), "acc_new", "One running output row per query.")
    return m, total, acc


def _broadcast(text, n, b, d_v):
    """Name the two broadcasting slips of the update from numpy's message."""
    if "could not be broadcast" not in text:
        return
    shapes = text.replace(" ", "")
    if f"({n},)({n},{d_v})" in shapes or f"({n},{d_v})({n},)" in shapes:
        raise _Fail("alpha has one number per row, shape (n,), and acc is (n, d_v): "
                    "alpha * acc does not line them up. Write alpha[:, None] * acc, "
                    "one factor per row.")
    if f"({n},{b})({n},)" in shapes or f"({n},)({n},{b})" in shapes:
        raise _Fail("m_new has one number per row, shape (n,), and scores is (n, "
                    "b): scores - m_new does not line them up. Write "
                    "np.exp(scores - m_new[:, None]), one max per row.")


@_checker("one step of the online softmax")
def check_online_softmax_step(fn, name):
    """Check ``fn(m, total, acc, scores, V_block) -> (m_new, total_new, acc_new)``.

    ``m`` (n,) running max, ``total`` (n,) running sum of ``exp(score - m)``,
    ``acc`` (n, d_v) running unnormalised output, ``scores`` (n, b) this
    block's scaled scores, ``V_block`` (b, d_v). Every step starts from the
    right state (the first from ``m = -inf``, ``total = 0``, ``acc = 0``); then
    ``acc / total`` after the last block must be softmax attention.
    """
    for seed, n, n_keys, block, d_v in ((_SEED, 4, 10, 3, 2), (_SEED + 1, 3, 12, 4, 3)):
        S, V, edges = _blocks(seed, n, n_keys, block, d_v)
        m, total, acc = np.full(n, -np.inf), np.zeros(n), np.zeros((n, d_v))
        for k, (a, b) in enumerate(edges):
            Sb, Vb = S[:, a:b], V[a:b]
            try:
                result, _ = _call(fn, name, ("m", "total", "acc", "scores",
                                             "V_block"), m, total, acc, Sb, Vb)
            except _Fail as fail:
                _broadcast(str(fail), n, Sb.shape[1], d_v)
                raise
            got = _unpack_state(result, name, n, d_v)
            want = reference_step(m, total, acc, Sb, Vb)
            step = f"At block {k + 1} (keys {a} to {b - 1})"
            if all(_close(g, w) for g, w in zip(got, want)):
                m, total, acc = want
                continue
            if any(_nonfinite(g) for g in got):
                raise _Fail(f"{step} your state contains NaN or inf. At the start "
                            "m is -inf: exp(m - m_new) is then exp(-inf) = 0, but "
                            "m_new - m or -inf - (-inf) give inf or NaN.")
            for message, wrong in _wrong_steps(m, total, acc, Sb, Vb).items():
                if all(_close(g, w) for g, w in zip(got, wrong)):
                    raise _Fail(f"{step}: {message}")
            names = ("m_new (the running max)", "total_new (the running sum)",
                     "acc_new (the running output)")
            for g, w, what in zip(got, want, names):
                if not _close(g, w):
                    raise _Fail(f"{step} {what} is off by up to "
                                f"{np.abs(g - w).max():.3g}. m_new = max(m, block "
                                "max); alpha = exp(m - m_new); P = exp(scores - "
                                "m_new); total_new = alpha total + sum P; acc_new = "
                                "alpha "
                                "acc + P @ V_block.")
        if not _close(acc / total[:, None], softmax(S) @ V):  # pragma: no cover
            raise _Fail("After the last block acc / total is not softmax attention.")
    return (f"{name} keeps the running max, sum and output right block by block; "
            "acc / total after the last block equals softmax attention.")


# ------------------------------------------- stretch: RoPE on Q and K ---


def _rotate(X, theta, pairs="adjacent", sign=1.0, overwrite=False):
    """Rotate rows at positions 0..n-1 by ``position * theta`` per pair;
    ``overwrite``: the slip of computing the pair's second member from the
    first one's *new* value."""
    n, d = X.shape
    angle = sign * np.arange(n)[:, None] * theta[None, :]
    c, s = np.cos(angle), np.sin(angle)
    if pairs == "adjacent":
        i, j = np.arange(0, d, 2), np.arange(1, d, 2)
    else:  # "half": i with i + d/2
        i, j = np.arange(d // 2), np.arange(d // 2, d)
    out = np.array(X, dtype=float)
    out[:, i] = X[:, i] * c - X[:, j] * s
    out[:, j] = (out if overwrite else X)[:, i] * s + X[:, j] * c
    return out


def _rope_case(seed, n, d):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n, d)), rng.standard_normal((n, d)),
            rng.standard_normal((n, d)))


@_checker("attention with rotary position embeddings")
def check_rope_attention(fn, name):
    """Check ``fn(Q, K, V) -> (output, weights)`` equals
    ``scaled_dot_product_attention(rope(Q), rope(K), V)`` (positions
    ``0 .. n-1``, base 10000), then ``fn(Q, K, V, base=100.0)`` with that
    base."""
    for seed, n, d, base in ((_SEED, 6, 8, None), (_SEED + 1, 5, 4, None),
                             (_SEED + 2, 6, 8, 100.0)):
        Q, K, V = _rope_case(seed, n, d)
        given = {} if base is None else {"base": base}
        base = 10000.0 if base is None else base
        want_out, want_w = scaled_dot_product_attention(rope(Q, base=base),
                                                        rope(K, base=base), V)
        try:
            result, _ = _call(fn, name, ("Q", "K", "V"), Q, K, V, **given)
        except _Fail as fail:
            if "keyword argument 'base'" in str(fail):
                raise _Fail(f"Your {name} takes no base: keep the exercise's first "
                            "line, def rope_attention(Q, K, V, base=10000.0), and "
                            "use base in the angles.") from None
            raise
        if isinstance(result, np.ndarray) or not isinstance(result, (tuple, list)) \
                or len(result) != 2:
            raise _Fail(f"Your {name} should return two things, (output, weights), "
                        "as attention does.")
        out = _as_array(result[0], "The output (first thing returned)")
        w = _as_array(result[1], "The weights (second thing returned)")
        if _close(out, want_w) and _close(w, want_out):
            raise _Fail(f"Your {name} returns (weights, output), in the swapped order: "
                        "return (output, weights), as scaled_dot_product_attention "
                        "does.")
        if base != 10000.0:
            fixed = scaled_dot_product_attention(rope(Q), rope(K), V)
            if _close(w, fixed[1]):
                raise _Fail(f"With base={base:g} your weights are those of base "
                            "10,000: use the base argument in the angles, theta = "
                            "base ** (-np.arange(0, d, 2) / d), not a fixed 10000.")
        _require_shape(w, (n, n), "The weights",
                       "One row per query, one column per key.")
        _require_shape(out, (n, d), "The output", "One row per query, d_v columns.")
        if _close(w, want_w) and _close(out, want_out):
            continue
        theta = base ** (-np.arange(0, d, 2) / d)
        if _close(w, want_w) and _close(out, want_w @ rope(V, base=base)):
            raise _Fail("You rotated V too. RoPE turns only the queries and keys, "
                        "so that their dot product (the score) depends on the "
                        "offset; the values carry content and stay as they are.")

        def att(Qr, Kr, mask=None, scale=None):
            return scaled_dot_product_attention(Qr, Kr, V, mask=mask, scale=scale)[1]

        Qr, Kr, causal = rope(Q, base=base), rope(K, base=base), causal_mask(n)
        tries = (
            (att(Qr, Kr, mask=causal), "you added a causal mask: this exercise's "
             "attention sees every key, as scaled_dot_product_attention(Q, K, V) "
             "does without a mask; RoPE itself masks nothing"),
            (att(Qr, Kr, scale=1.0), "the scores are not divided by sqrt(d): "
             "scaled_dot_product_attention does that for you, or multiply Q K^T by "
             "1 / sqrt(d) before the softmax"),
            (att(Qr, Kr, mask=causal, scale=1.0), "you added a causal mask (this "
             "exercise's attention sees every key) and left out the 1 / sqrt(d) "
             "scale"),
            (att(Qr, Kr, scale=1.0 / d), "the scores are divided by d; divide by "
             "sqrt(d)"),
            (att(Q, K), "nothing is rotated: these are plain attention weights. "
             "Rotate Q and K with rope before the scores"),
            (att(Qr, K), "only Q is rotated: rotate K the same way, or the "
             "score depends on the query's position alone"),
            (att(Q, Kr), "only K is rotated: rotate Q the same way"),
            (att(_rotate(Q, theta, "half"), _rotate(K, theta, "half")),
             "you paired the wrong dimensions: feature i with feature i + d/2. In "
             "this series the pairs are neighbours, (0, 1), (2, 3), ...: "
             "X[:, 0::2] with X[:, 1::2]"),
            (att(_rotate(Q, np.ones_like(theta)), _rotate(K, np.ones_like(theta))),
             "every pair turns by the same angle. Pair i has its own speed, "
             "theta_i = base**(-2i/d): pair 0 one radian per position, the last "
             "pairs very slowly"),
            (att(_rotate(Q, base ** (-np.arange(d // 2) / d)),
                 _rotate(K, base ** (-np.arange(d // 2) / d))),
             "the speeds are off: theta_i = base**(-2i/d) with i = 0, 1, ..., "
             "d/2 - 1 (np.arange(0, d, 2) / d), not base**(-i/d)"),
            (att(_rotate(Q, theta, sign=-1), _rotate(K, theta, sign=-1)),
             "you rotated the wrong way: the first of a pair becomes x cos - y "
             "sin, the second x sin + y cos"),
            (att(_rotate(Q, theta, overwrite=True), _rotate(K, theta, overwrite=True)),
             "the second member of each pair was computed from the first one's "
             "new value: you overwrote x before computing y. Compute both from "
             "the old pair, x_new = x cos - y sin and y_new = x sin + y cos "
             "(keep copies, or write into a new array)"),
            (want_w.T, "your weights are transposed: rows are queries"),
            (att(Q, K, mask=causal), "nothing is rotated, and you added a causal "
             "mask: rotate Q and K with rope before the scores, and attend to every "
             "key"),
            (att(Q, K, scale=1.0), "nothing is rotated, and the 1 / sqrt(d) scale "
             "is missing"),
        )
        for wrong, why in tries:
            if _close(w, wrong):
                raise _Fail(f"For n = {n}, d = {d}: {why}.")
        if _close(w, want_w):
            raise _Fail("The weights are right but the output is not: return "
                        "weights @ V with V unchanged.")
        raise _Fail(f"For n = {n}, d = {d} your weights differ from attention with "
                    f"RoPE by up to {np.abs(w - want_w).max():.3g}. Rotate each "
                    "pair (X[:, 0::2], X[:, 1::2]) of row p by the angle p * "
                    "base**(-2i/d), then attend.")
    return (f"{name} rotates the queries and keys pair by pair and leaves V "
            "alone: its scores depend only on the offset between two tokens.")
