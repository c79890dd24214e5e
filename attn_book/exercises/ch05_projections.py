"""Chapter 5's exercises: queries, keys and values from learned projections.

Scores from two projections by hand; whether W_Q = W_K makes the *weights* symmetric too;
the shapes of a cross-attention; undoing a shuffle of the tokens (the inverse
permutation behind permutation equivariance); a design of the verb's query so that it
finds its subject, judged by the weights it gives; the explainer's layer written in numpy;
and a find-the-bug where the keys are made with the query matrix.

Examples
--------
>>> scores_by_hand.check([[4, -1], [-2, 1]]).ok
True
>>> verb_finds_subject.check([0, 0, 2]).diagnosis
'finds-the-object'
>>> three_projections_bug.check(three_projections_bug.buggy).diagnosis
'keys-from-query-matrix'
"""

from __future__ import annotations

import math

import numpy as np

import attn_core as ac

from . import cases as _cases
from . import diagnose
from .kinds import BugExercise, ChoiceExercise, DesignExercise, FunctionExercise, NumberExercise
from .records import Case, Diagnosis

# Two tokens of width 3 and two projections to d_k = 2, small enough for pencil and paper.
_X = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, -1.0]])  # [n=2, D=3]
_W_Q = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # [D=3, d_k=2]
_W_K = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0]])  # [D=3, d_k=2]


def _sentence_case():
    """The chapter's sentence: features (noun, verb, -는, -를) and its three matrices."""
    x = np.array([[1, 0, 1, 0], [1, 0, 0, 1], [0, 1, 0, 0]], dtype=float)
    w_q = 2.0 * np.array([[0, 0, 0], [0, 0, 1], [1, 0, 0], [1, 1, 0]])
    w_k = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=float)
    w_v = np.array([[0, 0, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]], dtype=float)
    return x, w_q, w_k, w_v


def _scores(x, w_q, w_k):
    """(X W_Q)(X W_K)ᵀ, unscaled: [n, D] @ [D, d_k] -> [n, d_k], then [n, d_k] @ [d_k, n]."""
    return (x @ w_q) @ (x @ w_k).T


scores_by_hand = NumberExercise(
    "ch5-scores-by-hand",
    (_X, _W_Q, _W_K),
    _scores,
    diagnoses=[
        diagnose.matches("not-projected", lambda x, w_q, w_k: x @ x.T),
        diagnose.matches("query-matrix-twice", lambda x, w_q, w_k: (x @ w_q) @ (x @ w_q).T),
        diagnose.matches("key-matrix-twice", lambda x, w_q, w_k: (x @ w_k) @ (x @ w_k).T),
        diagnose.matches("transposed", lambda x, w_q, w_k: _scores(x, w_q, w_k).T),
        diagnose.matches("scaled", lambda x, w_q, w_k: _scores(x, w_q, w_k) / math.sqrt(2)),
    ],
)


symmetric_weights = ChoiceExercise(
    "ch5-symmetric-weights", options=["always", "never", "sometimes"], answer="sometimes"
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
    (5, 9, 16, 8, 12),  # L decoder tokens, S encoder tokens, d_model, d_k, d_v
    _shapes,
    integer=True,  # sizes: rows and columns
    diagnoses=[
        diagnose.matches("swapped-sides", lambda L, S, d, dk, dv: [S, L, S, dv]),
        diagnose.matches("weights-transposed", lambda L, S, d, dk, dv: [S, L, L, dv]),
        diagnose.matches("output-per-key", lambda L, S, d, dk, dv: [L, S, S, dv]),
        diagnose.matches("output-width-d-k", lambda L, S, d, dk, dv: [L, S, L, dk]),
        diagnose.matches("output-width-d-model", lambda L, S, d, dk, dv: [L, S, L, d]),
        diagnose.matches("square", lambda L, S, d, dk, dv: [L, L, L, dv]),
    ],
)


def _restore(Y, order):
    """The reference: row k of Y is token order[k]; put it back at place order[k]."""
    return Y[..., np.argsort(order), :]  # the inverse permutation, on the token axis


def _shuffled_output(x, order, w_q, w_k, w_v):
    """Self-attention of the tokens x (..., n, D) fed in the given order: Attention(PX)."""
    x_in = x[..., order, :]
    return ac.scaled_dot_product_attention(x_in @ w_q, x_in @ w_k, x_in @ w_v)


def _restore_cases():
    r = np.random.default_rng(52)
    x, w_q, w_k, w_v = _sentence_case()
    x5, w5 = r.normal(size=(5, 6)), r.normal(size=(3, 6, 4))
    xb = r.normal(size=(2, 3, 4))
    cases = [
        ("the sentence as 사과를 먹었다 나는: order [1, 2, 0]", x, [1, 2, 0], (w_q, w_k, w_v)),
        ("the sentence as 사과를 나는 먹었다: order [1, 0, 2]", x, [1, 0, 2], (w_q, w_k, w_v)),
        ("5 tokens in the order [3, 0, 4, 1, 2]", x5, [3, 0, 4, 1, 2], tuple(w5)),
        ("a batch of 2 sentences, order [2, 0, 1]", xb, [2, 0, 1], (w_q, w_k, w_v)),
    ]
    found = [
        Case(label, (_shuffled_output(x_, np.array(o), *w), np.array(o)), batched=x_.ndim == 3)
        for label, x_, o, w in cases
    ]
    for lead, _ in _cases.leads()[:3]:  # the statement promises one batch axis, (B, n, d)
        n, dv, _, _ = _cases.sizes(lead)
        order = r.permutation(n)
        y = r.normal(size=(*lead, n, dv))
        found.append(_cases.case("order", [y, order], lead=lead, n=n, order=order.tolist()))
    return found


restore_order = FunctionExercise(
    "ch5-restore-order",
    _restore,
    _restore_cases,
    diagnoses=[
        diagnose.matches("order-applied-twice", lambda Y, order: Y[..., order, :]),
        diagnose.batch_only("permuted-batch-axis"),
    ],
)


# The chapter's sentence: the verb's query is row 2 of W_Q (its only feature is "verb").
_VERB_ROW, _SUBJECT, _OBJECT, _VERB = 1, 0, 1, 2
SUBJECT_SHARE = 0.5  # the subject's share of the verb's attention that the design must reach


def _verb_weights(row, x, w_q, w_k):
    """The verb's weights over 나는, 사과를, 먹었다 with row 2 of W_Q replaced by ``row``."""
    w = w_q.copy()
    w[_VERB_ROW] = row
    return ac.attention_weights(x @ w, x @ w_k)[_VERB]  # [3]


def _tops(p):
    """The words with the largest weight (a set: a tie has several)."""
    return set(np.flatnonzero(np.isclose(p, p.max(), atol=1e-9)).tolist())


def _design(name, test):
    return Diagnosis(name, lambda trials: bool(test(trials[0].produced)))


verb_finds_subject = DesignExercise(
    "ch5-design-verb-subject",
    tuple(_sentence_case()[:3]),
    _verb_weights,
    lambda p: _tops(p) == {_SUBJECT} and p[_SUBJECT] >= SUBJECT_SHARE,
    shape=(3,),
    diagnoses=[
        _design("uniform", lambda p: _tops(p) == {0, 1, 2}),
        _design("avoids-the-subject", lambda p: p[_SUBJECT] < min(p[_OBJECT], p[_VERB]) - 1e-9),
        _design("finds-itself", lambda p: _tops(p) == {_VERB}),
        _design("finds-the-object", lambda p: _tops(p) == {_OBJECT}),
        _design("tied", lambda p: _SUBJECT in _tops(p) and len(_tops(p)) > 1),
        Diagnosis(
            "not-loud-enough",
            lambda trials: trials[0].produced[_SUBJECT] < SUBJECT_SHARE,
            params=lambda trials: {
                "share": diagnose.below(trials[0].produced[_SUBJECT]),
                "asked": SUBJECT_SHARE,
            },
        ),
    ],
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
        *_cases.self_attention_cases(r),
    ]


three_projections_bug = BugExercise(
    "ch5-bug-three-projections",
    self_attention,
    _projected,
    _self_attention_cases,
    bug="keys-from-query-matrix",
    diagnoses=[
        diagnose.matches(
            "keys-from-query-matrix", lambda X, W_Q, W_K, W_V: _projected(X, W_Q, W_Q, W_V)
        ),
        diagnose.matches(
            "queries-from-key-matrix", lambda X, W_Q, W_K, W_V: _projected(X, W_K, W_K, W_V)
        ),
        diagnose.matches(
            "scaled-by-d-model",
            lambda X, W_Q, W_K, W_V: ac.scaled_dot_product_attention(
                X @ W_Q, X @ W_K, X @ W_V, scale=1 / math.sqrt(X.shape[-1])
            ),
        ),
        diagnose.matches(
            "values-not-projected",
            lambda X, W_Q, W_K, W_V: ac.scaled_dot_product_attention(X @ W_Q, X @ W_K, X),
        ),
        diagnose.matches(
            "queries-and-keys-swapped", lambda X, W_Q, W_K, W_V: _projected(X, W_K, W_Q, W_V)
        ),
    ],
)


# ------------------------------------------- write the explainer's layer in numpy (chapter 5)


def _my_self_attention_cases():
    r = np.random.default_rng(53)
    x, w_q, w_k, w_v = _sentence_case()
    return [
        *_self_attention_cases()[:2],  # the sentence (d_model 4, d_k 3), and d_k 4 ≠ d_v 2
        Case(
            "a batch of 2 sentences, 3 tokens, d_model=5, d_k=4, d_v=2",
            (r.normal(size=(2, 3, 5)), *r.normal(size=(2, 5, 4)), r.normal(size=(5, 2))),
            batched=True,
        ),
        Case(  # B = n = d_k: here K.T runs, and pairs the wrong numbers
            "a batch of 3 sentences, 3 tokens, d_model=5, d_k=3, d_v=2",
            (r.normal(size=(3, 3, 5)), *r.normal(size=(2, 5, 3)), r.normal(size=(5, 2))),
            batched=True,
        ),
        Case(  # e^score overflows a naive softmax
            "the sentence's X times 100: scores about 10⁴",
            (100 * x, w_q, w_k, w_v),
        ),
        Case(
            "4 tokens of size about 100, d_model=6, d_k=3, d_v=2: rows far apart",  # one max: 0/0
            (100 * r.normal(size=(4, 6)), *r.normal(size=(2, 6, 3)), r.normal(size=(6, 2))),
        ),
        *_cases.self_attention_cases(r),
    ]


def _softmax_over_queries(X, W_Q, W_K, W_V):
    """The slip: softmax down each column (over the queries) instead of along the rows."""
    scores = ac.dot_scores(X @ W_Q, X @ W_K) / math.sqrt(W_Q.shape[-1])  # [..., n, n]
    return ac.softmax(scores, axis=-2) @ (X @ W_V)


my_self_attention = FunctionExercise(
    "ch5-my-self-attention",
    _projected,
    _my_self_attention_cases,
    own="used-attn-core",  # the statement: plain NumPy, no attn_core
    diagnoses=[
        diagnose.matches(  # K Qᵀ: token i's row holds how every query scores key i
            "queries-and-keys-swapped", lambda X, W_Q, W_K, W_V: _projected(X, W_K, W_Q, W_V)
        ),
        diagnose.forgot_scale(
            None,
            lambda X, W_Q, W_K, W_V: ac.scaled_dot_product_attention(
                X @ W_Q, X @ W_K, X @ W_V, scale=1.0
            ),
        ),
        diagnose.scaled_by_d_model(
            lambda X, W_Q, W_K, W_V: ac.scaled_dot_product_attention(
                X @ W_Q, X @ W_K, X @ W_V, scale=1 / math.sqrt(X.shape[-1])
            )
        ),
        diagnose.matches("softmax-over-queries", _softmax_over_queries),
        diagnose.kT_on_batch(
            lambda X, W_Q, W_K, W_V: (
                ac.softmax((X @ W_Q) @ (X @ W_K).T / math.sqrt(W_Q.shape[-1]), axis=-1) @ (X @ W_V)
            )
        ),
        diagnose.matches(  # the weights, never multiplied by V
            "returned-weights",
            lambda X, W_Q, W_K, W_V: ac.attention_weights(X @ W_Q, X @ W_K),
        ),
        diagnose.matches(
            "values-not-projected",
            lambda X, W_Q, W_K, W_V: ac.scaled_dot_product_attention(X @ W_Q, X @ W_K, X),
        ),
    ],
)


EXERCISES = [
    scores_by_hand,
    symmetric_weights,
    cross_shapes,
    restore_order,
    verb_finds_subject,
    my_self_attention,
    three_projections_bug,
]
