"""Chapter 4's exercises: the worked example, by hand and as code.

The worked example's keys and values with a new query q = (1, -1); a fourth word
joining; a proof: the derivative of the output with respect to the query, evaluated by
hand; the whole computation as a function; and a find-the-bug on the matrix form,
where the hand computation's "divide by the sum" was carried over to a whole matrix.

Examples
--------
>>> output_by_hand.check([1.436, 0.564]).ok
True
>>> sentence_softmax.check(sentence_softmax.buggy).diagnosis
'normalised-over-matrix'
"""

from __future__ import annotations

import math

import numpy as np

import attn_core as ac
from attn_book.data import quanta_example, sentence_example

from . import cases, diagnose
from .kinds import BugExercise, ChoiceExercise, FunctionExercise, NumberExercise
from .records import Case

_EXAMPLE = quanta_example()
_Q = np.array([1.0, -1.0])  # a new query: one score positive, one negative, one zero


def _seed_weights(q, k):
    """The slip of forgetting the new query: the worked example's own weights."""
    return ac.attention_weights(_EXAMPLE.query, k)


def _exp_zero_as_zero(q, k):
    """The slip of taking e⁰ as 0: the zero score's exponential dropped from the sum."""
    scaled = ac.dot_scores(q, k) / math.sqrt(2)
    exps = np.where(scaled == 0, 0.0, np.exp(scaled))
    return exps / exps.sum()


weights_by_hand = NumberExercise(
    "ch4-weights-by-hand",
    (_Q, _EXAMPLE.keys),
    ac.attention_weights,
    diagnoses=[
        diagnose.matches("worked-example-query", _seed_weights),
        diagnose.matches("sign-flipped-scores", lambda q, k: ac.attention_weights(-q, k)),
        diagnose.forgot_scale(2, lambda q, k: ac.attention_weights(q, k, scale=1.0)),
        diagnose.matches("scores-not-weights", lambda q, k: ac.dot_scores(q, k) / math.sqrt(2)),
        diagnose.matches("exp-zero-is-zero", _exp_zero_as_zero),
        diagnose.matches(
            "exps-not-normalised", lambda q, k: np.exp(ac.dot_scores(q, k) / math.sqrt(2))
        ),
        diagnose.rule("ranked-but-off"),
    ],
)


output_by_hand = NumberExercise(
    "ch4-output-by-hand",
    (_Q, _EXAMPLE.keys, _EXAMPLE.values),
    ac.scaled_dot_product_attention,
    diagnoses=[
        diagnose.matches("weights-not-output", lambda q, k, v: ac.attention_weights(q, k)),
        diagnose.matches(
            "forgot-scale", lambda q, k, v: ac.scaled_dot_product_attention(q, k, v, scale=1.0)
        ),
        diagnose.matches(
            "worked-example-output",
            lambda q, k, v: ac.scaled_dot_product_attention(_EXAMPLE.query, k, v),
        ),
        diagnose.matches("plain-average", lambda q, k, v: v.mean(axis=0)),
    ],
)


add_a_word = ChoiceExercise(
    "ch4-add-a-word",
    options=["up", "down", "same"],
    answer="down",
    inputs=(
        _EXAMPLE.query,
        np.vstack([_EXAMPLE.keys, [1.0, 0.0]]),  # k₄ = k₁
        np.vstack([_EXAMPLE.values, [0.0, 0.0]]),  # v₄ = (0, 0)
    ),
)


def _numerical_jacobian(q, keys, values, h=1e-6):
    """∂o/∂q by central differences of attn_core's attention: [d_v, d_k], column b = ∂o/∂q_b."""
    columns = []
    for b in range(q.shape[-1]):
        step = np.zeros_like(q)
        step[b] = h
        up = ac.scaled_dot_product_attention(q + step, keys, values)
        down = ac.scaled_dot_product_attention(q - step, keys, values)
        columns.append((up - down) / (2 * h))
    return np.stack(columns, axis=-1)


def _uncentred(q, keys, values):
    """The slip: differentiate only the numerators, (1/√d_k) Σ_j w_j v_j k_jᵀ."""
    w = ac.attention_weights(q, keys)  # [S]
    return np.einsum("j,ja,jb->ab", w, values, keys) / math.sqrt(q.shape[-1])


gradient_by_hand = NumberExercise(
    "ch4-gradient-by-hand",
    (_EXAMPLE.query, _EXAMPLE.keys, _EXAMPLE.values),
    _numerical_jacobian,
    diagnoses=[
        diagnose.matches("transposed", lambda q, k, v: _numerical_jacobian(q, k, v).T),
        diagnose.factor(math.sqrt(2), "chain-rule-scale"),
        diagnose.factor(-1.0, "sign-flipped"),
        diagnose.matches("denominator-forgotten", _uncentred),
    ],
)


def _attention_cases():
    r = np.random.default_rng(44)
    sentence = sentence_example()
    return [
        Case(
            "the worked example: 1 query (L=1), 3 keys",
            (_EXAMPLE.query[None], _EXAMPLE.keys, _EXAMPLE.values),
        ),
        Case("the sentence: Q, K, V of shape (3, 2)", tuple(sentence)),
        Case(
            "5 queries, 4 keys, E=8, Ev=3",
            (r.normal(size=(5, 8)), r.normal(size=(4, 8)), r.normal(size=(4, 3))),
        ),
        Case(
            "batch of 2, 3 queries, 4 keys, E=4",
            (r.normal(size=(2, 3, 4)), r.normal(size=(2, 4, 4)), r.normal(size=(2, 4, 2))),
            batched=True,
        ),
        Case(
            "large scores (q·k up to 20000)",
            (1000 * sentence.query, 10 * sentence.keys, sentence.values),
        ),
        *cases.qkv_cases(r),
        *cases.spread_qkv_cases(r),
    ]


def _weights_over_queries(q, keys, values):
    """The mistake: softmax down the columns (over the queries) instead of along the rows."""
    return ac.softmax(ac.dot_scores(q, keys) / math.sqrt(q.shape[-1]), axis=-2) @ values


my_attention = FunctionExercise(
    "ch4-my-attention",
    ac.scaled_dot_product_attention,
    _attention_cases,
    own="used-attn-core",  # the statement: plain NumPy, no attn_core
    diagnoses=[
        diagnose.matches("returned-weights", lambda q, k, v: ac.attention_weights(q, k)),
        diagnose.matches(
            "forgot-scale", lambda q, k, v: ac.scaled_dot_product_attention(q, k, v, scale=1.0)
        ),
        diagnose.matches("softmax-over-queries", _weights_over_queries),
        diagnose.kT_on_batch(lambda q, k, v: ac.softmax(q @ k.T / math.sqrt(q.shape[-1])) @ v),
    ],
)


def sentence_attention(Q, K, V):
    """softmax(QKᵀ/√d_k) V for all queries.

    Q (..., L, d_k), K (..., S, d_k), V (..., S, d_v) -> (..., L, d_v).
    """
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_k)  # [..., L, S]
    e = np.exp(scores - scores.max())  # subtract the max, as in Chapter 2
    weights = e / e.sum()  # divide by the sum, as in the hand computation
    return weights @ V  # [..., L, S] @ [..., S, d_v] -> [..., L, d_v]


def _over_matrix(Q, K, V):
    """The bug, recomputed with attn_core: one softmax over all the scores together."""
    scores = ac.dot_scores(Q, K) / math.sqrt(Q.shape[-1])  # [L, S]
    return ac.softmax(scores.reshape(-1)).reshape(scores.shape) @ V


def _row_max_global_sum(Q, K, V):
    """The other half fix: each row's own maximum, but still one sum for the whole matrix."""
    scores = ac.dot_scores(Q, K) / math.sqrt(Q.shape[-1])  # [..., L, S]
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum() @ V


def _sentence_cases():
    r = np.random.default_rng(45)
    sentence = sentence_example()
    return [
        Case(
            "the worked example: 1 query, 3 keys",
            (_EXAMPLE.query[None], _EXAMPLE.keys, _EXAMPLE.values),
        ),
        Case("the sentence: 3 queries", tuple(sentence)),
        Case(
            "5 queries, 4 keys, E=8",
            (r.normal(size=(5, 8)), r.normal(size=(4, 8)), r.normal(size=(4, 3))),
        ),
        Case(
            "batch of 2 sentences, 3 queries, E=4",
            (r.normal(size=(2, 3, 4)), r.normal(size=(2, 3, 4)), r.normal(size=(2, 3, 2))),
            batched=True,
        ),
        *cases.qkv_cases(r),
        _close_tops(r),  # a fix that drops the max-subtraction is not a fix
        _tops_apart(r),
        _close_tops(r, top=-5.0),
    ]  # no rows far apart: the chapter's fix keeps the global max, which cancels row by row


def _tops_apart(r):
    """Row tops 280 and 1000: the global maximum still works (e^-720 is tiny, not 0), but a
    shift by one row's own top, the lower one, overflows the other row."""
    scores = np.array([[280.0, -500.0, 0.0, 270.0, -3.0], [-2.0, 1000.0, 990.0, 0.0, -700.0]])
    q, k = cases.qk_for_scores(scores, d=7, rng=r)
    return cases.case("tops-apart", [q, k, r.normal(size=(5, 3))])


def _close_tops(r, top=1000.0):
    """Large scores, every row's highest near ``top`` (1000, or -5 below zero) and the rest
    near -1000 (-1000 - 995): e^x overflows unless shifted by a maximum, and the global one is
    as good as each row's own."""
    low = -1000.0 if top > 0 else top - 1995.0
    scores = np.full((4, 5), low) + r.normal(size=(4, 5))
    scores[np.arange(4), [2, 0, 4, 1]] = top + r.normal(size=4)
    q, k = cases.qk_for_scores(scores, d=7, rng=r)
    key = "close-tops" if top > 0 else "close-tops-negative"
    return cases.case(key, [q, k, r.normal(size=(5, 3))])


sentence_softmax = BugExercise(
    "ch4-bug-sentence-softmax",
    sentence_attention,
    ac.scaled_dot_product_attention,
    _sentence_cases,
    bug="normalised-over-matrix",
    diagnoses=[
        diagnose.matches("normalised-over-matrix", _over_matrix),
        diagnose.matches("normalised-over-queries", _weights_over_queries),
        diagnose.lost_axis(),
        diagnose.matches("rows-not-normalised", _row_max_global_sum),  # outputs: no row sums
    ],
)


EXERCISES = [
    weights_by_hand,
    output_by_hand,
    add_a_word,
    gradient_by_hand,
    my_attention,
    sentence_softmax,
]
