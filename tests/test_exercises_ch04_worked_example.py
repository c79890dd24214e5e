"""The exercises of ch04_worked_example: solutions and the wrong answers each diagnosis names."""

from __future__ import annotations

import math

import numpy as np

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
