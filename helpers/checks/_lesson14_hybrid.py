"""Lesson 14's warm-up checker, its reference and its named mistakes: the
memory of a hybrid model (KV cache of the full-attention layers plus the
fixed state of the others), and the byte counts that the classic wrong
answers give on a case, so that
:func:`helpers.checks.lesson14.check_hybrid_bytes` can name the one made."""

from __future__ import annotations



def reference_hybrid_bytes(n_tokens, n_layers, interval, n_kv_heads, d_head,
                           n_state_heads, d_k, d_v, bytes_per_value=2):
    """KV cache of the full-attention layers (one in ``interval``) plus the
    fixed state of the others, in bytes, for one sequence."""
    full = n_layers // interval
    cache = 2 * full * n_kv_heads * d_head * bytes_per_value * n_tokens
    state = (n_layers - full) * n_state_heads * d_k * d_v * bytes_per_value
    return cache + state


def hybrid_mistakes(n, L, i, g, dh, hs, dk, dv, b):
    """The named mistakes of the hybrid calculator: [(bytes, why)]."""
    full, lin = L // i, L - L // i
    cache = 2 * full * g * dh * b * n
    state = lin * hs * dk * dv * b

    def total(f, s, dk_dv=dk * dv):
        return 2 * f * g * dh * b * n + s * hs * dk_dv * b

    return [
        (total(L / i, L - L / i), "n_layers / interval is not a whole number of "
         "layers: use n_layers // interval (a layer is either full attention or "
         "not)"),
        (cache + L * hs * dk * dv * b, "you counted the state on all n_layers layers: "
         "only the layers that are not full attention keep a state"),
        (total(lin, full), "the full and linear layer counts are swapped: "
         "n_layers // interval layers are full attention (with a KV cache), the "
         "other n_layers - n_layers // interval keep a state"),
        (total(full + 1, lin - 1), "off by one: n_layers // interval layers are "
         "full attention, not one more"),
        (total(full - 1, lin + 1), "off by one: n_layers // interval layers are "
         "full attention, not one fewer"),
        (total(full, lin - 1), "off by one: n_layers - n_layers // interval layers "
         "keep a state"),
        (total(full, lin + 1), "off by one: n_layers - n_layers // interval layers "
         "keep a state, not one more"),
        (cache + state // b, "you multiplied only the cache by bytes_per_value: the "
         "state is stored in the same format and needs it too"),
        (total(full, lin, dk * dk), "the state is d_k x d_v numbers per head, not "
         "d_k x d_k"),
        ((cache + state) / 2**30, "that is GiB: return bytes (the lesson divides by "
         "2**30 only to print)"),
        (cache + state * n, "you multiplied the state by the number of tokens: the "
         "state has a fixed size, the same at every length; only the KV cache grows "
         "with the tokens"),
        (2 * L * g * dh * b * n + L * hs * dk * dv * b, "you counted every layer "
         "twice, once with a KV cache and once with a state: a layer is either full "
         "attention (n_layers // interval of them) or a fixed-state layer (the rest)"),
        (2 * L * g * dh * b * n + state, "every layer got a KV cache: only one layer "
         "in `interval` is full attention"),
        (cache // 2 + state, "the KV cache holds a key AND a value per head and "
         "token: multiply by 2"),
        (cache + 2 * state, "the state has no factor 2: it is one d_k x d_v matrix "
         "per head, not a key and a value"),
        (cache, "the fixed state is missing: the other layers each keep "
         "n_state_heads matrices of d_k x d_v numbers"),
        (state, "the KV cache of the full-attention layers is missing"),
        ((cache + state) // b, "that counts numbers, not bytes: multiply by "
         "bytes_per_value"),
        (2 * full * hs * dh * b * n + state, "the KV cache has n_kv_heads heads "
         "(the softmax layers' key-value heads), not n_state_heads"),
        (cache + lin * g * dk * dv * b, "the state has n_state_heads heads per "
         "layer, not n_kv_heads (that is the softmax layers' count)"),
        (cache // full + state if full else None, "that is the KV cache of one "
         "full-attention layer: there are n_layers // interval of them"),
        (cache + state // lin if lin else None, "that is the state of one layer: "
         "n_layers - n_layers // interval layers keep one"),
        (2 * full * g * dk * b * n + state, "each cached key and value has d_head "
         "numbers, not d_k (d_k is the state's key size)"),
        (cache // b + state, "you multiplied only the state by bytes_per_value: the "
         "KV cache is stored in the same format and needs it too"),
        (2 * (cache + state), "you doubled the whole result: only the KV cache "
         "has the factor 2 (a key and a value per head and token); the state is "
         "one d_k x d_v matrix per head"),
        (reference_hybrid_bytes(n, L, i, g, dh, hs, dk, dv, 2) if b != 2 else None,
         "bytes_per_value was ignored: you used 2 bytes per number whatever "
         "bytes_per_value is; multiply by the argument"),
        (total(full, L - i), "n_layers - interval is not the number of state "
         "layers: n_layers // interval layers are full attention, the other "
         "n_layers - n_layers // interval keep a state"),
        (total(i, L - i), "interval is the spacing of the full-attention layers "
         "(every interval-th layer), not their number: there are "
         "n_layers // interval of them"),
    ]
