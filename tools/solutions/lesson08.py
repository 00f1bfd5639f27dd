"""Lesson 08: the reference solution of each exercise (see tools/README.md)."""

import numpy as np

CHECKERS = {
    "cross_shape": "check_cross_shape",
    "my_cross_attention": "check_cross_attention",
    "word_heatmap": "check_word_heatmap",
    "my_padded_cross_attention": "check_padded_cross",
}


def cross_shape(n_query, n_source):
    return (n_query, n_source)


def my_cross_attention(X_query, X_source, W_Q, W_K, W_V):
    Q, K, V = X_query @ W_Q, X_source @ W_K, X_source @ W_V
    S = Q @ K.T / np.sqrt(K.shape[-1])           # (n_q, n_s)
    S = S - S.max(axis=-1, keepdims=True)
    weights = np.exp(S) / np.exp(S).sum(axis=-1, keepdims=True)
    return weights @ V, weights


def word_heatmap(A, i, n_rows, n_cols):
    return A[i].reshape(n_rows, n_cols)          # patches numbered row by row


def my_padded_cross_attention(X_query, X_source, W_Q, W_K, W_V, source_is_real):
    Q, K, V = X_query @ W_Q, X_source @ W_K, X_source @ W_V
    S = Q @ K.T / np.sqrt(K.shape[-1])           # (n_q, n_s)
    S = np.where(source_is_real[None, :], S, -np.inf)   # padding COLUMNS (keys)
    S = S - S.max(axis=-1, keepdims=True)
    weights = np.exp(S) / np.exp(S).sum(axis=-1, keepdims=True)
    return weights @ V, weights
