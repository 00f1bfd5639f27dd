"""Exercise checkers: run a learner's function against the reference.

Each ``check_*`` function takes the learner's function, runs it on several
small cases (fixed numbers, seeded random numbers), compares the results with
:mod:`helpers.attention` and returns ``True`` or ``False``. It prints exactly
one line when everything is right, or a diagnosis naming the mistake and what
to do about it. It never raises: anything the learner's code raises is caught
and reported in plain words, so "Run All" carries on. A function that is still
the exercise stub (raises ``NotImplementedError`` or returns ``None`` or
``...``) gets a friendly "not done yet".

One module per lesson (``lesson01`` ... ``lesson12``) holds that lesson's
checkers; ``_core`` what they share. Usage in a notebook::

    from helpers import checks
    checks.check_softmax(my_softmax);
"""
from helpers.checks.lesson01 import check_cosine, check_length, check_nearest
from helpers.checks.lesson02 import check_context_vectors, check_mix, check_softmax
from helpers.checks.lesson03 import check_chemistry_head, check_one_score, check_scores
from helpers.checks.lesson04 import (
    check_attention,
    check_attention_dropout,
    check_softmax_temperature,
)
from helpers.checks.lesson05 import (
    check_chemistry_values,
    check_delta_row,
    check_update,
)
from helpers.checks.lesson06 import check_causal_mask, check_kv_step, check_masked_count
from helpers.checks.lesson07 import (
    check_attention_params,
    check_batched_attention,
    check_multi_head,
)
from helpers.checks.lesson08 import (
    check_cross_attention,
    check_cross_shape,
    check_padded_cross,
    check_word_heatmap,
)
from helpers.checks.lesson09 import check_softmax_backward
from helpers.checks.lesson10 import (
    check_causal_head_pattern,
    check_n_attention_weights,
    check_real_head,
)
from helpers.checks.lesson11 import (
    check_gpt_head_pattern,
    check_next_token_loss,
    check_top_k_sample,
)
from helpers.checks.lesson12 import (
    check_kv_bytes_per_token,
    check_online_softmax_step,
    check_rope_attention,
)

__all__ = [
    "check_attention",
    "check_attention_dropout",
    "check_attention_params",
    "check_batched_attention",
    "check_causal_head_pattern",
    "check_causal_mask",
    "check_chemistry_head",
    "check_chemistry_values",
    "check_context_vectors",
    "check_cosine",
    "check_cross_attention",
    "check_cross_shape",
    "check_delta_row",
    "check_gpt_head_pattern",
    "check_kv_bytes_per_token",
    "check_kv_step",
    "check_length",
    "check_masked_count",
    "check_mix",
    "check_multi_head",
    "check_n_attention_weights",
    "check_nearest",
    "check_next_token_loss",
    "check_one_score",
    "check_online_softmax_step",
    "check_padded_cross",
    "check_real_head",
    "check_rope_attention",
    "check_scores",
    "check_softmax",
    "check_softmax_backward",
    "check_softmax_temperature",
    "check_top_k_sample",
    "check_update",
    "check_word_heatmap",
]
