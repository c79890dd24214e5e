"""The exercises of ch04_worked_example: solutions and the wrong answers each diagnosis names."""

from __future__ import annotations

import math

import numpy as np
from answer_inputs import Answers, Mistake

import attn_core as ac
from attn_book.exercises import ch04_worked_example as ch4


def _jacobian_by_loops(q, keys, values):
    """∂o_a/∂q_b = (1/√d) Σ_j w_j (v_ja − o_a) k_jb, written with loops."""
    d = len(q)
    scores = [sum(q[m] * k[m] for m in range(d)) / math.sqrt(d) for k in keys]
    exps = [math.exp(s) for s in scores]
    w = [x / sum(exps) for x in exps]
    o = [sum(w[j] * values[j][a] for j in range(len(keys))) for a in range(len(values[0]))]
    return [
        [
            sum(w[j] * (values[j][a] - o[a]) * keys[j][b] for j in range(len(keys))) / math.sqrt(d)
            for b in range(d)
        ]
        for a in range(len(o))
    ]


def _rounded_too_early():
    """The weights of a pencil that rounded the scaled scores to one decimal before e^x."""
    q, keys = ch4.weights_by_hand.inputs
    exps = np.exp(np.round(keys @ q / math.sqrt(keys.shape[1]), 1)).round(3)
    return (exps / exps.sum()).round(3).tolist()


def test_a_sign_error_in_q_dot_k_gets_its_own_diagnosis():
    # q = (1, -1), keys (1, 0), (0, 1), (1, 1): scores 1, -1, 0. A sign error gives -1, 1, 0,
    # so with e = e^(1/√2) the weights are 1/e, e, 1 over e + 1/e + 1: 0.140, 0.576, 0.284.
    e = math.exp(1 / math.sqrt(2))
    total = e + 1 / e + 1
    flipped = [round(1 / e / total, 3), round(e / total, 3), round(1 / total, 3)]
    assert flipped == [0.140, 0.576, 0.284]
    feedback = ch4.weights_by_hand.check(flipped)
    assert feedback.diagnosis == "sign-flipped-scores", feedback
    assert "keep the order" not in feedback.message  # no longer the generic wrong-order line
    assert ch4.weights_by_hand.check([0.576, 0.140, 0.284]).ok


def test_the_gradient_by_hand_is_the_derived_formula():
    q, keys, values = ch4.gradient_by_hand.inputs
    want = _jacobian_by_loops(q.tolist(), keys.tolist(), values.tolist())
    np.testing.assert_allclose(ch4.gradient_by_hand.expected(), want, atol=1e-8)
    # By hand: w = (0.401, 0.198, 0.401), o = (1.203, 0.797); the sum is
    # [[0.238, -0.320], [-0.238, 0.320]], divided by √2: rows (0.168, -0.226), (-0.168, 0.226).
    assert ch4.gradient_by_hand.check([[0.168, -0.226], [-0.168, 0.226]]).ok


def test_each_slip_in_the_gradient_is_named():
    j = np.array([[0.168, -0.226], [-0.168, 0.226]])
    assert ch4.gradient_by_hand.check(j.T.tolist()).diagnosis == "transposed"
    assert ch4.gradient_by_hand.check((j * math.sqrt(2)).tolist()).diagnosis == ("chain-rule-scale")
    # Only the numerators differentiated: (1/√2) Σ_j w_j v_j k_jᵀ, by hand with the weights
    # a = 0.4011, b = 0.1978: [[2a + a, a], [a, 2b + a]] / √2.
    a, b = 0.4011, 0.1978
    uncentred = np.array([[3 * a, a], [a, 2 * b + a]]) / math.sqrt(2)
    assert ch4.gradient_by_hand.check(uncentred.round(3).tolist()).diagnosis == (
        "denominator-forgotten"
    )


def test_taking_e_to_the_zero_as_zero_is_named():
    # scores 1, -1, 0 scaled by 1/√2: e^(1/√2) ≈ 2.028 and e^(-1/√2) ≈ 0.493 share the sum
    # once e⁰ is dropped: 2.028 / 2.521 ≈ 0.804, 0.493 / 2.521 ≈ 0.196, and 0.
    e = math.exp(1 / math.sqrt(2))
    dropped = [round(e / (e + 1 / e), 3), round(1 / e / (e + 1 / e), 3), 0.0]
    assert dropped == [0.804, 0.196, 0.0]
    feedback = ch4.weights_by_hand.check(dropped)
    assert feedback.diagnosis == "exp-zero-is-zero", feedback
    assert "e⁰ = 1" in feedback.message


def test_the_gradient_with_o_minus_v_is_a_sign_slip_not_an_order_slip():
    negated = [[-0.168, 0.226], [0.168, -0.226]]  # the same numbers as the solution, negated
    feedback = ch4.gradient_by_hand.check(negated)
    assert feedback.diagnosis == "sign-flipped", feedback
    assert "v_j − o" in feedback.message


def test_a_global_max_is_told_to_subtract_each_rows_own_maximum():
    def global_max(q, keys, values):
        scores = q @ np.swapaxes(keys, -1, -2) / math.sqrt(q.shape[-1])
        e = np.exp(scores - scores.max())  # one max for the whole matrix
        return e / e.sum(axis=-1, keepdims=True) @ values

    feedback = ch4.my_attention.check(global_max)
    assert feedback.diagnosis == "nan-large-scores", feedback
    assert "each row's own maximum" in feedback.message


# By hand for q = (1, -1): scores 1, -1, 0; e^(±1/√2) and e^0 = 1.
_E = math.exp(1 / math.sqrt(2))
_TOTAL = _E + 1 / _E + 1
_HAND_WEIGHTS = [_E / _TOTAL, (1 / _E) / _TOTAL, 1 / _TOTAL]  # ≈ 0.576, 0.140, 0.284
_HAND_OUTPUT = [2 * _HAND_WEIGHTS[0] + _HAND_WEIGHTS[2], 2 * _HAND_WEIGHTS[1] + _HAND_WEIGHTS[2]]


def _attention(q, keys, values):
    """A correct answer: the scaled scores, a stable softmax over the keys, then @ V."""
    scores = q @ np.swapaxes(keys, -1, -2) / math.sqrt(q.shape[-1])  # [..., L, S]
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ values  # [..., L, S] @ [..., S, Ev]


def _skeleton(q, keys, values):
    raise NotImplementedError


def _global_max_attention(q, keys, values):
    """The slip: one max over every score; rows far below it underflow to 0/0."""
    scores = q @ np.swapaxes(keys, -1, -2) / math.sqrt(q.shape[-1])  # [..., L, S]
    e = np.exp(scores - scores.max())
    return e / e.sum(axis=-1, keepdims=True) @ values


def _naive_softmax(scores):
    e = np.exp(scores)  # overflows to inf for scores above ~709
    return e / e.sum(axis=-1, keepdims=True)


def _sentence_fixed(Q, K, V):
    """The bug fixed: one softmax per query (per row), as attn_core computes it."""
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])  # [..., L, S]
    return ac.softmax(scores, axis=-1) @ V  # [..., L, S] @ [..., S, Ev]


# The typed answers the tests give each exercise: a correct one and one wrong answer per
# diagnosis (the buggy function of a find-the-bug and a choice's wrong options are added by
# answer_inputs.mistakes).
ANSWERS = {
    "ch4-weights-by-hand": Answers(
        solution=[round(w, 3) for w in _HAND_WEIGHTS],
        mistakes=[
            Mistake(
                "unscaled",
                ac.attention_weights(ch4._Q, ch4._EXAMPLE.keys, scale=1.0),
                "forgot-scale",
            ),
            Mistake("the scaled scores", [0.707, -0.707, 0.0], "scores-not-weights"),
            Mistake("the exponentials", [2.028, 0.493, 1.0], "exps-not-normalised"),
            Mistake("two weights", [0.576, 0.140], "wrong-count"),
            Mistake("rounded too early", _rounded_too_early(), "rounding"),
            Mistake("the text's weights", [0.401, 0.198, 0.401], "worked-example-query"),
            Mistake("a sign error in q·k", [0.140, 0.576, 0.284], "sign-flipped-scores"),
            Mistake("a slip in an exponential", [0.585, 0.117, 0.298], "ranked-but-off"),
            Mistake(
                "e⁰ taken as 0",
                ch4._exp_zero_as_zero(ch4._Q, ch4._EXAMPLE.keys),
                "exp-zero-is-zero",
            ),
        ],
    ),
    "ch4-output-by-hand": Answers(
        solution=[round(o, 3) for o in _HAND_OUTPUT],
        mistakes=[
            Mistake("the weights", [0.576, 0.140, 0.284], "weights-not-output"),
            Mistake(
                "unscaled",
                ac.scaled_dot_product_attention(
                    ch4._Q, ch4._EXAMPLE.keys, ch4._EXAMPLE.values, scale=1.0
                ),
                "forgot-scale",
            ),
            Mistake("average of the values", [1.0, 1.0], "plain-average"),
            Mistake("the text's output", [1.203, 0.797], "worked-example-output"),
            Mistake("one coordinate", [1.436], "wrong-count"),
            Mistake("a slip in the third decimal", [1.438, 0.564], "rounding"),
        ],
    ),
    "ch4-gradient-by-hand": Answers(
        solution=[[0.168, -0.226], [-0.168, 0.226]],
        mistakes=[
            Mistake("transposed", [[0.168, -0.168], [-0.226, 0.226]], "transposed"),
            Mistake("no 1/√d_k", [[0.238, -0.320], [-0.238, 0.320]], "chain-rule-scale"),
            Mistake("no −o", [[0.851, 0.284], [0.284, 0.563]], "denominator-forgotten"),
            Mistake("o − v_j", [[-0.168, 0.226], [0.168, -0.226]], "sign-flipped"),
            Mistake("one row", [0.168, -0.226], "wrong-count"),
        ],
    ),
    "ch4-my-attention": Answers(
        solution=_attention,
        mistakes=[
            Mistake("the weights", lambda q, k, v: ac.attention_weights(q, k), "returned-weights"),
            Mistake(
                "no scale",
                lambda q, k, v: ac.scaled_dot_product_attention(q, k, v, scale=1.0),
                "forgot-scale",
            ),
            Mistake("softmax over axis -2", ch4._weights_over_queries, "softmax-over-queries"),
            Mistake(
                "k.T",
                lambda q, k, v: ac.softmax(q @ k.T / math.sqrt(q.shape[-1])) @ v,
                "kT-on-batch",
            ),
            Mistake(
                "naive exp",
                lambda q, k, v: (
                    _naive_softmax(q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])) @ v
                ),
                "nan-large-scores",
            ),
            Mistake("global max", _global_max_attention, "nan-large-scores"),
            Mistake("skeleton raising NotImplementedError", _skeleton, "unanswered"),
        ],
    ),
    "ch4-bug-sentence-softmax": Answers(
        solution=_sentence_fixed,
        mistakes=[
            Mistake("sum over axis 0", ch4._weights_over_queries, "normalised-over-queries"),
            Mistake("row max, one global sum", ch4._row_max_global_sum, "rows-not-normalised"),
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
    ),
}
