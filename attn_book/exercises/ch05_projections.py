"""Chapter 5's exercises: queries, keys and values from learned projections.

Scores from two projections by hand; what W_Q = W_K does to them; the shapes of a
cross-attention; what shuffling the tokens does; and a find-the-bug where the keys
are made with the query matrix.

Examples
--------
>>> scores_by_hand.check([[4, -1], [-2, 1]]).ok
True
>>> keys_from_queries.check(keys_from_queries.buggy).diagnosis
'keys-from-query-matrix'
"""

from __future__ import annotations

import math

import numpy as np

import attn_core as ac

from . import diagnose
from ._core import BugExercise, ChoiceExercise, NumberExercise
from .records import Case, Mistake

__all__ = [
    "EXERCISES",
    "cross_shapes",
    "keys_from_queries",
    "same_matrix",
    "scores_by_hand",
    "shuffled_sentence",
]

# Two tokens of width 3 and two projections to d_k = 2, small enough for pencil and paper.
_X = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, -1.0]])  # [n=2, D=3]
_W_Q = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # [D=3, d_k=2]
_W_K = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0]])  # [D=3, d_k=2]


def _scores(x, w_q, w_k):
    """(X W_Q)(X W_K)ᵀ, unscaled: [n, D] @ [D, d_k] -> [n, d_k], then [n, d_k] @ [d_k, n]."""
    return (x @ w_q) @ (x @ w_k).T


scores_by_hand = NumberExercise(
    "ch5-scores-by-hand",
    "the score matrix QKᵀ of two projected tokens",
    (_X, _W_Q, _W_K),
    _scores,
    diagnoses=[
        diagnose.matches(
            "not-projected",
            "those are the dot products of the tokens themselves, XXᵀ; first project them: "
            "Q = X W_Q and K = X W_K.",
            lambda x, w_q, w_k: x @ x.T,
        ),
        diagnose.matches(
            "query-matrix-twice",
            "that is Q Qᵀ: the keys come from W_K, not from W_Q.",
            lambda x, w_q, w_k: (x @ w_q) @ (x @ w_q).T,
        ),
        diagnose.matches(
            "key-matrix-twice",
            "that is K Kᵀ: the queries come from W_Q, not from W_K.",
            lambda x, w_q, w_k: (x @ w_k) @ (x @ w_k).T,
        ),
        diagnose.matches(
            "transposed",
            "that is K Qᵀ, the transpose: row i must hold token i's query against every key.",
            lambda x, w_q, w_k: _scores(x, w_q, w_k).T,
        ),
        diagnose.matches(
            "scaled",
            "those are the scores divided by √d_k = √2; this exercise asks for QKᵀ before "
            "the scaling.",
            lambda x, w_q, w_k: _scores(x, w_q, w_k) / math.sqrt(2),
        ),
    ],
    mistakes=[
        Mistake("X Xᵀ", [[5, 2], [2, 2]], "not-projected"),
        Mistake("Q Qᵀ", [[5, -1], [-1, 1]], "query-matrix-twice"),
        Mistake("K Kᵀ", [[5, -2], [-2, 1]], "key-matrix-twice"),
        Mistake("K Qᵀ", [[4, -2], [-1, 1]], "transposed"),
        Mistake("scaled", [[2.828, -0.707], [-1.414, 0.707]], "scaled"),
        Mistake("one row", [4, -1], "wrong-count"),
    ],
    solution=[[4, -1], [-2, 1]],
)


same_matrix = ChoiceExercise(
    "ch5-same-matrix",
    "one matrix for queries and keys",
    options=["equal", "opposite", "unrelated"],
    answer="equal",
    why_not={
        "opposite": "a dot product does not change sign when its two vectors swap places: "
        "write both scores as x_i W and x_j W.",
        "unrelated": "with W_Q = W_K = W both scores are dot products of the same two "
        "vectors, x_i W and x_j W, in the two orders.",
    },
)


def _shapes(l_tokens, s_tokens, d_model, d_k, d_v):
    """Weights (L, S) and output (L, d_v), read off random arrays of those sizes."""
    r = np.random.default_rng(0)
    x_dec, x_enc = r.normal(size=(l_tokens, d_model)), r.normal(size=(s_tokens, d_model))
    w_q, w_k = r.normal(size=(d_model, d_k)), r.normal(size=(d_model, d_k))
    w_v = r.normal(size=(d_model, d_v))
    weights = ac.attention_weights(x_dec @ w_q, x_enc @ w_k)  # [L, S]
    output = weights @ (x_enc @ w_v)  # [L, S] @ [S, d_v] -> [L, d_v]
    return [*weights.shape, *output.shape]


cross_shapes = NumberExercise(
    "ch5-cross-shapes",
    "the shapes of a cross-attention",
    (5, 9, 16, 8, 12),  # L decoder tokens, S encoder tokens, d_model, d_k, d_v
    _shapes,
    diagnoses=[
        diagnose.matches(
            "swapped-sides",
            "the weights have one row per query (the decoder's L tokens) and one column per "
            "key (the encoder's S tokens); yours are the other way round.",
            lambda L, S, d, dk, dv: [S, L, S, dv],
        ),
        diagnose.matches(
            "output-per-key",
            "the weights are right; the output has one row per query, not per key.",
            lambda L, S, d, dk, dv: [L, S, S, dv],
        ),
        diagnose.matches(
            "output-width-d-k",
            "the weights are right; the output mixes the values, so its width is d_v, not d_k.",
            lambda L, S, d, dk, dv: [L, S, L, dk],
        ),
        diagnose.matches(
            "output-width-d-model",
            "the weights are right; the output mixes the values X_enc W_V, whose width is d_v "
            "(the columns of W_V), not d_model.",
            lambda L, S, d, dk, dv: [L, S, L, d],
        ),
        diagnose.matches(
            "square",
            "a self-attention's weights are square; here the queries and the keys come from "
            "two sequences of different lengths.",
            lambda L, S, d, dk, dv: [L, L, L, dv],
        ),
    ],
    mistakes=[
        Mistake("S × L", [9, 5, 9, 12], "swapped-sides"),
        Mistake("output (S, d_v)", [5, 9, 9, 12], "output-per-key"),
        Mistake("output (L, d_k)", [5, 9, 5, 8], "output-width-d-k"),
        Mistake("output (L, d_model)", [5, 9, 5, 16], "output-width-d-model"),
        Mistake("L × L", [5, 5, 5, 12], "square"),
    ],
    solution=[5, 9, 5, 12],
)


shuffled_sentence = ChoiceExercise(
    "ch5-shuffled-sentence",
    "the same words in another order",
    options=["same", "different"],
    answer="same",
    why_not={
        "different": "look at what the output of 사과를 is made of: its query, every key and "
        "every value. Which of them does the order of the words change?",
    },
)


def self_attention(X, W_Q, W_K, W_V):
    """Self-attention of a sentence X (..., n, D) of n tokens.

    W_Q and W_K are (D, d_k), W_V is (D, d_v); returns (..., n, d_v).
    """
    Q = X @ W_Q  # [..., n, D] @ [D, d_k] -> [..., n, d_k]
    K = X @ W_Q  # [..., n, D] @ [D, d_k] -> [..., n, d_k]
    V = X @ W_V  # [..., n, D] @ [D, d_v] -> [..., n, d_v]
    K_t = np.swapaxes(K, -1, -2)  # [..., d_k, n]
    scores = Q @ K_t / np.sqrt(Q.shape[-1])  # [..., n, n]
    return ac.softmax(scores, axis=-1) @ V  # [..., n, d_v]


def _projected(X, W_Q, W_K, W_V):
    """The reference: attn_core's attention of the three projections."""
    return ac.scaled_dot_product_attention(X @ W_Q, X @ W_K, X @ W_V)


def _self_attention_cases():
    r = np.random.default_rng(51)
    return [
        Case("the sentence's X (3, 4) and three (4, 3) matrices", _sentence_case()),
        Case(
            "5 tokens, D=6, d_k=4, d_v=2",
            (r.normal(size=(5, 6)), *r.normal(size=(2, 6, 4)), r.normal(size=(6, 2))),
        ),
        Case(
            "a batch of 2 sentences, 3 tokens, D=4",
            (r.normal(size=(2, 3, 4)), *r.normal(size=(3, 4, 4))),
            batched=True,
        ),
    ]


def _sentence_case():
    """The chapter's sentence: features (noun, verb, -는, -를) and its three matrices."""
    x = np.array([[1, 0, 1, 0], [1, 0, 0, 1], [0, 1, 0, 0]], dtype=float)
    w_q = 2.0 * np.array([[0, 0, 0], [0, 0, 1], [1, 0, 0], [1, 1, 0]])
    w_k = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=float)
    w_v = np.array([[0, 0, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]], dtype=float)
    return x, w_q, w_k, w_v


keys_from_queries = BugExercise(
    "ch5-bug-keys-from-queries",
    "self-attention from three projections",
    self_attention,
    _projected,
    _self_attention_cases,
    bug="keys-from-query-matrix",
    diagnoses=[
        diagnose.matches(
            "keys-from-query-matrix",
            "every score matrix this function makes is symmetric: its queries and keys come "
            "from the same matrix, so token i scores j as j scores i.",
            lambda X, W_Q, W_K, W_V: _projected(X, W_Q, W_Q, W_V),
        ),
        diagnose.matches(
            "queries-from-key-matrix",
            "now the queries are made with W_K: each of Q, K, V needs its own matrix.",
            lambda X, W_Q, W_K, W_V: _projected(X, W_K, W_K, W_V),
        ),
        diagnose.matches(
            "values-not-projected",
            "the values are the tokens themselves; they are projected too, with W_V.",
            lambda X, W_Q, W_K, W_V: ac.scaled_dot_product_attention(X @ W_Q, X @ W_K, X),
        ),
    ],
    mistakes=[
        Mistake(
            "Q from W_K",
            lambda X, W_Q, W_K, W_V: _projected(X, W_K, W_K, W_V),
            "queries-from-key-matrix",
        ),
        Mistake(
            "V = X",
            lambda X, W_Q, W_K, W_V: ac.scaled_dot_product_attention(X @ W_Q, X @ W_K, X),
            "values-not-projected",
        ),
    ],
    solution=lambda X, W_Q, W_K, W_V: _projected(X, W_Q, W_K, W_V),
)


EXERCISES = [
    scores_by_hand,
    same_matrix,
    cross_shapes,
    shuffled_sentence,
    keys_from_queries,
]
