"""The attention math, in plain numpy: no plotting, no widgets, nothing above
this layer (``helpers.runtime`` is the only one below it).

* ``core``: softmax and its backward pass, the causal mask, scaled dot-product
  attention, multi-head and cross attention, parameter counts (lessons 02-09);
* ``scale``: lesson 12's tricks (tiled attention, grouped-query attention,
  RoPE, the sliding window, the KV cache's size);
* ``fixed_state``: lesson 14's attention with a fixed-size memory (linear
  attention and the delta rule);
* ``inputs``: the input checks all three share.

Every public function is re-exported here, so a lesson writes
``from helpers.attention import softmax, delta_rule, kv_cache_bytes``.

Conventions used everywhere in this project (lessons 03 and 04 introduce them):
row vectors (``E`` is ``(n_tokens, d_model)``, ``Q = E @ W_Q``); **rows are
queries, columns are keys**; a boolean ``mask`` is ``True`` where a query
*may* attend to a key.
"""

from helpers.attention.core import (
    attention_parameters,
    causal_mask,
    cross_attention,
    multi_head_attention,
    scaled_dot_product_attention,
    softmax,
    softmax_backward,
)
from helpers.attention.fixed_state import (
    delta_rule,
    elu_plus_one,
    linear_attention,
    linear_attention_recurrent,
    state_bytes,
)
from helpers.attention.scale import (
    grouped_query_attention,
    kv_cache_bytes,
    local_attention,
    rope,
    sliding_window_mask,
    tiled_attention,
)

__all__ = [
    "attention_parameters",
    "causal_mask",
    "cross_attention",
    "delta_rule",
    "elu_plus_one",
    "grouped_query_attention",
    "kv_cache_bytes",
    "linear_attention",
    "linear_attention_recurrent",
    "local_attention",
    "multi_head_attention",
    "rope",
    "scaled_dot_product_attention",
    "sliding_window_mask",
    "softmax",
    "softmax_backward",
    "state_bytes",
    "tiled_attention",
]
