"""Chapter 8's exercises: expected values by hand, every named mistake gets its diagnosis."""

from __future__ import annotations

import math

import numpy as np
import pytest
from answer_inputs import Answers, Mistake, solution

import attn_core as ac
from attn_book.exercises import ch08_learning as ch8

# the worked example's weights by hand: scores 1, 0, 1 scaled by 1/√2
_E = math.exp(1 / math.sqrt(2))
W = [_E / (2 * _E + 1), 1 / (2 * _E + 1), _E / (2 * _E + 1)]


def test_dv_by_hand_is_each_weight_times_dl_do():
    g = [0.0, 1.0]
    expected = [[w * g[0], w * g[1]] for w in W]
    np.testing.assert_allclose(ch8.dv_by_hand.expected(), expected, rtol=1e-12)
    assert ch8.dv_by_hand.check([[0, 0.401], [0, 0.198], [0, 0.401]]).ok


def test_ds_row_by_hand():
    a, d_a = [0.5, 0.3, 0.2], [1.0, -2.0, 3.0]
    mean = sum(x * y for x, y in zip(a, d_a, strict=True))  # 0.5 - 0.6 + 0.6 = 0.5
    expected = [x * (y - mean) for x, y in zip(a, d_a, strict=True)]  # 0.25, -0.75, 0.5
    np.testing.assert_allclose(ch8.ds_row_by_hand.expected(), expected, rtol=1e-12)
    assert sum(expected) == pytest.approx(0.0)
    assert ch8.ds_row_by_hand.check([0.25, -0.75, 0.5]).ok


def test_missing_entry_makes_the_row_sum_to_zero():
    assert ch8.missing_entry.check(-(0.318 - 0.214)).ok


@pytest.mark.parametrize(
    ("exercise", "answer", "diagnosis"),
    [
        (ch8.dv_by_hand, [[0.401, -0.401], [0.198, -0.198], [0.401, -0.401]], "text-gradient"),
        (ch8.dv_by_hand, [[0, 1], [0, 1], [0, 1]], "forgot-weights"),
        (ch8.ds_row_by_hand, [0.5, -0.6, 0.6], "dropped-rowsum"),
        (
            ch8.ds_row_by_hand,
            [0.5 * (1 - 2 / 3), 0.3 * (-2 - 2 / 3), 0.2 * (3 - 2 / 3)],
            "plain-mean",
        ),
        (ch8.ds_row_by_hand, [0.5, -2.5, 2.5], "outer-weight-missing"),
        (ch8.ds_row_by_hand, [-0.25, 0.75, -0.5], "sign"),  # a_j (a · dA − dA_j)
        (ch8.missing_entry, [0.104], "sign"),
        (ch8.missing_entry, [0.896], "sums-to-one"),
        (ch8.which_vanishes, "dV, at d_k = 256", None),
    ],
)
def test_hand_made_mistakes_get_their_diagnosis(exercise, answer, diagnosis):
    feedback = exercise.check(answer)
    assert not feedback.ok
    if diagnosis is not None:
        assert feedback.diagnosis == diagnosis, feedback


def test_the_buggy_listings_get_their_named_diagnoses():
    assert ch8.query_gradient.check(ch8.query_gradient.buggy).diagnosis == "dropped-rowsum"
    assert ch8.key_gradient.check(ch8.key_gradient.buggy).diagnosis == "ds-not-transposed"
    assert ch8.query_gradient.check(solution(ch8.query_gradient)).ok
    assert ch8.key_gradient.check(solution(ch8.key_gradient)).ok


def _no_scale_query(d_out, Q, K, V):
    A = ch8.ac.attention_weights(Q, K)
    dA = d_out @ np.swapaxes(V, -1, -2)
    dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True))
    return dS @ K  # the slip: no / sqrt(d_k)


def _no_scale_key(d_out, Q, K, V):
    A = ch8.ac.attention_weights(Q, K)
    dA = d_out @ np.swapaxes(V, -1, -2)
    dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True))
    return np.swapaxes(dS, -1, -2) @ Q  # the slip: no / sqrt(d_k)


def test_a_readers_fix_that_forgets_the_scale_is_named():
    assert ch8.query_gradient.check(_no_scale_query).diagnosis == "forgot-scale-in-dq"
    assert ch8.key_gradient.check(_no_scale_key).diagnosis == "forgot-scale-in-dk"


def test_the_key_bug_is_invisible_in_shape_for_self_attention_only():
    d_out, q, k, v = ch8.key_gradient.cases()[0].args
    assert q.shape[-2] == k.shape[-2]  # L = S: dS Q has dK's shape
    assert ch8.key_gradient.buggy(d_out, q, k, v).shape == k.shape


def test_which_vanishes():
    assert ch8.which_vanishes.check("dQ and dK, at d_k = 256").ok


def _plain_mean_query(d_out, Q, K, V):
    A = ch8.ac.attention_weights(Q, K)
    dA = d_out @ np.swapaxes(V, -1, -2)
    dS = A * (dA - dA.mean(axis=-1, keepdims=True))  # the slip: the plain mean
    return dS @ K / np.sqrt(Q.shape[-1])


def _ds_dot_t_key(d_out, Q, K, V):
    A = ch8.ac.attention_weights(Q, K)
    dA = d_out @ np.swapaxes(V, -1, -2)
    dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True))
    return dS.T @ Q / np.sqrt(Q.shape[-1])  # the slip: .T reverses the batch axis too


def test_the_plain_mean_and_a_batch_transposed_by_dot_t_are_named():
    assert ch8.query_gradient.check(_plain_mean_query).diagnosis == "plain-mean"
    feedback = ch8.key_gradient.check(_ds_dot_t_key)
    assert feedback.diagnosis == "kT-on-batch" and ".T" in feedback.message


def _query_gradient_fixed(d_out, Q, K, V):
    d_k = Q.shape[-1]
    A = ac.attention_weights(Q, K)  # [..., L, S]
    dA = d_out @ np.swapaxes(V, -1, -2)  # [..., L, S]
    dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True))  # the softmax step, whole
    return dS @ K / math.sqrt(d_k)


def _key_gradient_fixed(d_out, Q, K, V):
    d_k = Q.shape[-1]
    A = ac.attention_weights(Q, K)
    dA = d_out @ np.swapaxes(V, -1, -2)
    dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True))
    return np.swapaxes(dS, -1, -2) @ Q / math.sqrt(d_k)  # [..., S, L] @ [..., L, d_k]


# The typed answers the tests give each exercise: a correct one and one wrong answer per
# diagnosis (the buggy function of a find-the-bug and a choice's wrong options are added by
# answer_inputs.mistakes).
ANSWERS = {
    "ch8-dv-by-hand": Answers(
        solution=np.outer(ch8._weights(ch8._EX.query, ch8._EX.keys), ch8._G).round(3).tolist(),
        mistakes=[
            Mistake(
                "the text's dL/do", ac.attention_backward(ch8._TEXT_G, *ch8._EX)[2], "text-gradient"
            ),
            Mistake("dL/do in every row", [[0, 1], [0, 1], [0, 1]], "forgot-weights"),
            Mistake(
                "w_j v_j",
                ch8._weights(ch8._EX.query, ch8._EX.keys)[:, None] * ch8._EX.values,
                "weighted-values",
            ),
            Mistake(
                "unscaled weights",
                np.outer(ac.attention_weights(ch8._EX.query, ch8._EX.keys, scale=1.0), ch8._G),
                "unscaled-weights",
            ),
            Mistake("g's entries swapped", [[0.401, 0], [0.198, 0], [0.401, 0]], "columns-swapped"),
        ],
    ),
    "ch8-ds-row": Answers(
        solution=(ch8._A_ROW * (ch8._DA_ROW - ch8._A_ROW @ ch8._DA_ROW)).round(3).tolist(),
        mistakes=[
            Mistake("a ⊙ dA", ch8._A_ROW * ch8._DA_ROW, "dropped-rowsum"),
            Mistake(
                "the plain mean", ch8._A_ROW * (ch8._DA_ROW - ch8._DA_ROW.mean()), "plain-mean"
            ),
            Mistake(
                "no outer weight", ch8._DA_ROW - ch8._A_ROW @ ch8._DA_ROW, "outer-weight-missing"
            ),
            Mistake("sign flipped", ch8._A_ROW * (ch8._A_ROW @ ch8._DA_ROW - ch8._DA_ROW), "sign"),
        ],
    ),
    "ch8-bug-query-gradient": Answers(
        solution=_query_gradient_fixed,
        mistakes=[
            Mistake(
                "no 1/√d_k",
                lambda g, q, k, v: _query_gradient_fixed(g, q, k, v) * math.sqrt(q.shape[-1]),
                "forgot-scale-in-dq",
            ),
            Mistake(
                "the plain mean",
                lambda g, q, k, v: ch8._ds(g, q, k, v, plain_mean=True) @ k * ch8._scale(q),
                "plain-mean",
            ),
        ],
    ),
    "ch8-bug-key-gradient": Answers(
        solution=_key_gradient_fixed,
        mistakes=[
            Mistake(
                "no 1/√d_k",
                lambda g, q, k, v: _key_gradient_fixed(g, q, k, v) * math.sqrt(q.shape[-1]),
                "forgot-scale-in-dk",
            ),
            Mistake(
                "dropped term",
                lambda g, q, k, v: (
                    np.swapaxes(ch8._ds(g, q, k, v, rowsum=False), -1, -2) @ q * ch8._scale(q)
                ),
                "dropped-rowsum",
            ),
            Mistake(
                "dS.T, which also reverses the batch axis",
                lambda g, q, k, v: ch8._ds(g, q, k, v).T @ q * ch8._scale(q),
                "kT-on-batch",
            ),
        ],
    ),
    "ch8-missing-entry": Answers(
        solution=[-0.104],
        mistakes=[
            Mistake("the wrong sign", [0.104], "sign"),
            Mistake("a row summing to one", [0.896], "sums-to-one"),
        ],
    ),
}
