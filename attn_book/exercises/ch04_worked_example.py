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

from . import diagnose
from .kinds import BugExercise, ChoiceExercise, FunctionExercise, NumberExercise
from .records import Case, Diagnosis, Mistake

__all__ = [
    "EXERCISES",
    "add_a_word",
    "gradient_by_hand",
    "my_attention",
    "output_by_hand",
    "sentence_softmax",
    "weights_by_hand",
]

_EXAMPLE = quanta_example()
_Q = np.array([1.0, -1.0])  # a new query: one score positive, one negative, one zero

# Hand derivation for q = (1, -1): scores 1, -1, 0; e^(±1/√2) and e^0 = 1.
_E = math.exp(1 / math.sqrt(2))
_TOTAL = _E + 1 / _E + 1
_HAND_WEIGHTS = [_E / _TOTAL, (1 / _E) / _TOTAL, 1 / _TOTAL]  # ≈ 0.576, 0.140, 0.284
_HAND_OUTPUT = [2 * _HAND_WEIGHTS[0] + _HAND_WEIGHTS[2], 2 * _HAND_WEIGHTS[1] + _HAND_WEIGHTS[2]]


def _seed_weights(q, k):
    """The slip of forgetting the new query: the worked example's own weights."""
    return ac.attention_weights(_EXAMPLE.query, k)


def _exp_zero_as_zero(q, k):
    """The slip of taking e⁰ as 0: the zero score's exponential dropped from the sum."""
    scaled = ac.dot_scores(q, k) / math.sqrt(2)
    exps = np.where(scaled == 0, 0.0, np.exp(scaled))
    return exps / exps.sum()


def _ranked_but_off():
    """Weights that sum to 1 and rank the words right, but are far off: an early slip."""

    def test(trials):
        t = trials[0]
        if t.got is None or t.got.shape != t.expected.shape:
            return False
        sums_to_one = abs(float(t.got.sum()) - 1.0) < 3e-3
        same_order = (np.argsort(t.got) == np.argsort(t.expected)).all()
        far = np.abs(t.got - t.expected).max() > 0.02
        return bool(sums_to_one and same_order and far)

    return Diagnosis(
        "ranked-but-off",
        "your weights add up to 1 and rank the words in the right order, so the "
        "last step is fine; the slip is earlier — recheck each score q·k_j, its "
        "division by √2, and each e^(s_j).",
        test,
        site=lambda t: {"rule": "ranked-but-off"},
    )


weights_by_hand = NumberExercise(
    "ch4-weights-by-hand",
    "the three weights for a new query, by hand",
    (_Q, _EXAMPLE.keys),
    ac.attention_weights,
    diagnoses=[
        diagnose.matches(
            "worked-example-query",
            "those are the weights of the text's query q = (1, 0); this "
            "exercise changes the query (printed above the answer), so step 1 gives "
            "new scores.",
            _seed_weights,
        ),
        diagnose.matches(
            "sign-flipped-scores",
            "those are the weights of the scores with their signs flipped (q·k₁ and q·k₂ "
            "swapped places): with q = (1, −1), recheck the sign of each product q₁k₁ + q₂k₂.",
            lambda q, k: ac.attention_weights(-q, k),
        ),
        diagnose.forgot_scale(2, lambda q, k: ac.attention_weights(q, k, scale=1.0)),
        diagnose.matches(
            "scores-not-weights",
            "those are the (scaled) scores; the weights are e^(s_j) divided by the sum of "
            "the three exponentials.",
            lambda q, k: ac.dot_scores(q, k) / math.sqrt(2),
        ),
        diagnose.matches(
            "exp-zero-is-zero",
            "e⁰ = 1, not 0: the word whose score is 0 still gets a weight, and its 1 belongs "
            "in the sum too.",
            _exp_zero_as_zero,
        ),
        diagnose.matches(
            "exps-not-normalised",
            "those are the exponentials e^(s_j); divide each by their sum so the weights add up "
            "to 1.",
            lambda q, k: np.exp(ac.dot_scores(q, k) / math.sqrt(2)),
        ),
        _ranked_but_off(),
    ],
    mistakes=[
        Mistake("unscaled", ac.attention_weights(_Q, _EXAMPLE.keys, scale=1.0), "forgot-scale"),
        Mistake("the scaled scores", [0.707, -0.707, 0.0], "scores-not-weights"),
        Mistake("the exponentials", [2.028, 0.493, 1.0], "exps-not-normalised"),
        Mistake("two weights", [0.576, 0.140], "wrong-count"),
        Mistake("rounded too early", [0.570, 0.140, 0.284], "rounding"),
        Mistake("the text's weights", [0.401, 0.198, 0.401], "worked-example-query"),
        Mistake("a sign error in q·k", [0.140, 0.576, 0.284], "sign-flipped-scores"),
        Mistake("a slip in an exponential", [0.585, 0.117, 0.298], "ranked-but-off"),
        Mistake("e⁰ taken as 0", _exp_zero_as_zero(_Q, _EXAMPLE.keys), "exp-zero-is-zero"),
    ],
    solution=[round(w, 3) for w in _HAND_WEIGHTS],
)


output_by_hand = NumberExercise(
    "ch4-output-by-hand",
    "the output for a new query, by hand",
    (_Q, _EXAMPLE.keys, _EXAMPLE.values),
    ac.scaled_dot_product_attention,
    diagnoses=[
        diagnose.matches(
            "weights-not-output",
            "those are the three weights; the output is the weighted sum w₁v₁ + w₂v₂ + w₃v₃, "
            "a vector of two numbers.",
            lambda q, k, v: ac.attention_weights(q, k),
        ),
        diagnose.matches(
            "forgot-scale",
            "this is the output without the scale — divide the scores by √2 before the "
            "exponentials.",
            lambda q, k, v: ac.scaled_dot_product_attention(q, k, v, scale=1.0),
        ),
        diagnose.matches(
            "worked-example-output",
            "that is the output from the text, for q = (1, 0); use the weights "
            "of the new query, from the previous exercise.",
            lambda q, k, v: ac.scaled_dot_product_attention(_EXAMPLE.query, k, v),
        ),
        diagnose.matches(
            "plain-average",
            "that is the plain average of the values (each weighted 1/3); use the softmax weights.",
            lambda q, k, v: v.mean(axis=0),
        ),
    ],
    mistakes=[
        Mistake("the weights", [0.576, 0.140, 0.284], "weights-not-output"),
        Mistake(
            "unscaled",
            ac.scaled_dot_product_attention(_Q, _EXAMPLE.keys, _EXAMPLE.values, scale=1.0),
            "forgot-scale",
        ),
        Mistake("average of the values", [1.0, 1.0], "plain-average"),
        Mistake("the text's output", [1.203, 0.797], "worked-example-output"),
        Mistake("one coordinate", [1.436], "wrong-count"),
        Mistake("a slip in the third decimal", [1.441, 0.564], "rounding"),
    ],
    solution=[round(o, 3) for o in _HAND_OUTPUT],
)


add_a_word = ChoiceExercise(
    "ch4-add-a-word",
    "a fourth word joins",
    options=["up", "down", "same"],
    answer="down",
    why_not={
        "up": "the new key matches q as well as k₁ does, but that does not help word 1: its "
        "e^(s₄) joins the sum that every exponential is divided by.",
        "same": "w₁'s numerator e^(s₁) is indeed unchanged — look at the denominator, the sum "
        "over all the keys.",
    },
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
    "the derivative of the output with respect to the query",
    (_EXAMPLE.query, _EXAMPLE.keys, _EXAMPLE.values),
    _numerical_jacobian,
    diagnoses=[
        diagnose.matches(
            "transposed",
            "that is the transpose: row a must hold the derivatives of the output's component "
            "o_a, column b those with respect to q_b.",
            lambda q, k, v: _numerical_jacobian(q, k, v).T,
        ),
        diagnose.factor(
            math.sqrt(2),
            "chain-rule-scale",
            "√2 times too large: the scores are q·k_j/√d_k, so the chain rule brings a factor "
            "1/√d_k into every derivative.",
        ),
        diagnose.factor(
            -1.0,
            "sign-flipped",
            "the right size with the sign flipped: the derivative carries v_j − o, not "
            "o − v_j (the −o comes from the softmax's −w_l term).",
        ),
        diagnose.matches(
            "denominator-forgotten",
            "that differentiates the numerators e^(s_j) only: the sum they are divided by "
            "depends on q too, which is where the −o (or the −k̄) comes from.",
            _uncentred,
        ),
    ],
    mistakes=[
        Mistake("transposed", [[0.168, -0.168], [-0.226, 0.226]], "transposed"),
        Mistake("no 1/√d_k", [[0.238, -0.320], [-0.238, 0.320]], "chain-rule-scale"),
        Mistake("no −o", [[0.851, 0.284], [0.284, 0.563]], "denominator-forgotten"),
        Mistake("o − v_j", [[-0.168, 0.226], [0.168, -0.226]], "sign-flipped"),
        Mistake("one row", [0.168, -0.226], "wrong-count"),
    ],
    solution=[[0.168, -0.226], [-0.168, 0.226]],
)


def _attention(q, keys, values):
    """A correct answer: the scaled scores, attn_core's softmax over the keys, then @ V."""
    scores = q @ np.swapaxes(keys, -1, -2) / math.sqrt(q.shape[-1])  # [..., L, S]
    return ac.softmax(scores, axis=-1) @ values  # [..., L, S] @ [..., S, Ev]


def _skeleton(q, keys, values):
    raise NotImplementedError


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
    ]


def _global_max_attention(q, keys, values):
    """The slip: one max over every score; rows far below it underflow to 0/0."""
    scores = q @ np.swapaxes(keys, -1, -2) / math.sqrt(q.shape[-1])  # [..., L, S]
    e = np.exp(scores - scores.max())
    return e / e.sum(axis=-1, keepdims=True) @ values


def _weights_over_queries(q, keys, values):
    """The mistake: softmax down the columns (over the queries) instead of along the rows."""
    return ac.softmax(ac.dot_scores(q, keys) / math.sqrt(q.shape[-1]), axis=-2) @ values


my_attention = FunctionExercise(
    "ch4-my-attention",
    "the whole computation as one function",
    ac.scaled_dot_product_attention,
    _attention_cases,
    diagnoses=[
        diagnose.matches(
            "returned-weights",
            "these are the weights softmax(QKᵀ/√d_k); the output multiplies them by V.",
            lambda q, k, v: ac.attention_weights(q, k),
        ),
        diagnose.matches(
            "forgot-scale",
            "this is the output without the scale — forgot to divide the scores by √d_k?",
            lambda q, k, v: ac.scaled_dot_product_attention(q, k, v, scale=1.0),
        ),
        diagnose.matches(
            "softmax-over-queries",
            "your weights are normalised down each column, over the queries; each query's "
            "weights (a row) must sum to 1 over the keys.",
            _weights_over_queries,
        ),
        diagnose.kT_on_batch(),
    ],
    mistakes=[
        Mistake("the weights", lambda q, k, v: ac.attention_weights(q, k), "returned-weights"),
        Mistake(
            "no scale",
            lambda q, k, v: ac.scaled_dot_product_attention(q, k, v, scale=1.0),
            "forgot-scale",
        ),
        Mistake("softmax over axis -2", _weights_over_queries, "softmax-over-queries"),
        Mistake(
            "k.T",
            lambda q, k, v: ac.softmax(q @ k.T / math.sqrt(q.shape[-1])) @ v,
            "kT-on-batch",
        ),
        Mistake(
            "naive exp",
            lambda q, k, v: _naive_softmax(q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])) @ v,
            "nan-large-scores",
        ),
        Mistake("global max", _global_max_attention, "nan-large-scores"),
        Mistake("skeleton raising NotImplementedError", _skeleton, "unanswered"),
    ],
    solution=_attention,
)


def _naive_softmax(scores):
    e = np.exp(scores)  # overflows to inf for scores above ~709
    return e / e.sum(axis=-1, keepdims=True)


def sentence_attention(Q, K, V):
    """softmax(QKᵀ/√d_k) V for all queries.

    Q (..., L, d_k), K (..., S, d_k), V (..., S, d_v) -> (..., L, d_v).
    """
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_k)  # [..., L, S]
    e = np.exp(scores - scores.max())  # subtract the max, as in Chapter 2
    weights = e / e.sum()  # divide by the sum, as in the hand computation
    return weights @ V  # [..., L, S] @ [..., S, d_v] -> [..., L, d_v]


def _sentence_fixed(Q, K, V):
    """The bug fixed: one softmax per query (per row), as attn_core computes it."""
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])  # [..., L, S]
    return ac.softmax(scores, axis=-1) @ V  # [..., L, S] @ [..., S, Ev]


def _over_matrix(Q, K, V):
    """The bug, recomputed with attn_core: one softmax over all the scores together."""
    scores = ac.dot_scores(Q, K) / math.sqrt(Q.shape[-1])  # [L, S]
    return ac.softmax(scores.reshape(-1)).reshape(scores.shape) @ V


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
        Case(
            "two queries far apart: q = ±500·(1, 1)",
            (np.array([[500.0, 500.0], [-500.0, -500.0]]), _EXAMPLE.keys, _EXAMPLE.values),
        ),
    ]


def _row_sum_global_max(Q, K, V):
    """The half fix: each row's own sum, but still one maximum for the whole matrix."""
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])  # [..., L, S]
    e = np.exp(scores - scores.max())
    return e / e.sum(axis=-1, keepdims=True) @ V


def _row_max_global_sum(Q, K, V):
    """The other half fix: each row's own maximum, but still one sum for the whole matrix."""
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])  # [..., L, S]
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum() @ V


sentence_softmax = BugExercise(
    "ch4-bug-sentence-softmax",
    "the sentence's attention, one softmax per query",
    sentence_attention,
    ac.scaled_dot_product_attention,
    _sentence_cases,
    bug="normalised-over-matrix",
    diagnoses=[
        diagnose.matches(
            "normalised-over-matrix",
            "right for one query, wrong for several: the weights are divided by one sum over "
            "the whole matrix, so no row sums to 1 — each query needs its own sum.",
            _over_matrix,
        ),
        diagnose.matches(
            "normalised-over-queries",
            "each column of weights now sums to 1; it is each row (one query, all keys) that must.",
            _weights_over_queries,
        ),
        diagnose.lost_axis(),
        diagnose.matches_every(
            "kept-global-max",
            "each row has its own sum now, but the maximum is still one for the whole matrix: a "
            "query whose scores all lie far below it gets e^(−1000) = 0 everywhere, then 0/0 — "
            "subtract each row's own maximum (axis=-1, keepdims=True), as in Chapter 2.",
            _row_sum_global_max,
            equal_nan=True,
        ),
        diagnose.rows_not_normalised(),
    ],
    mistakes=[
        Mistake("sum over axis 0", _weights_over_queries, "normalised-over-queries"),
        Mistake("row sums, one global max", _row_sum_global_max, "kept-global-max"),
        Mistake("row max, one global sum", _row_max_global_sum, "rows-not-normalised"),
        Mistake(
            "row sums without keepdims",
            lambda Q, K, V: (
                (
                    (e := np.exp((s := ac.dot_scores(Q, K) / math.sqrt(Q.shape[-1])) - s.max()))
                    / e.sum(axis=-1)
                )
                @ V
            ),
            "lost-axis",
        ),
    ],
    solution=_sentence_fixed,
)


EXERCISES = [
    weights_by_hand,
    output_by_hand,
    add_a_word,
    gradient_by_hand,
    my_attention,
    sentence_softmax,
]
