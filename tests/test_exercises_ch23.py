"""Chapters 2 and 3's exercises: their expected answers, derived by hand."""

from __future__ import annotations

import math

import numpy as np

from attn_book.exercises import ch02_softmax as ch2
from attn_book.exercises import ch03_scaling as ch3


def test_shift_by_hand_is_softmax_of_1_0_0():
    # 101, 100, 100 minus the max 101 is 0, -1, -1: weights 1, 1/e, 1/e over 1 + 2/e.
    e = math.e
    np.testing.assert_allclose(
        ch2.shift_by_hand.expected(), [e / (e + 2), 1 / (e + 2), 1 / (e + 2)]
    )
    assert ch2.shift_by_hand.check([0.576, 0.212, 0.212]).ok  # three decimals, as by hand
    assert not ch2.shift_by_hand.check([0.576, 0.212, 0.250]).ok


def test_the_temperature_for_a_ratio_of_2_is_1_over_ln_2():
    (s, ratio) = ch2.temperature_for_ratio.inputs
    t = (s[0] - s[1]) / math.log(ratio)  # e^{(s1 - s2)/T} = ratio
    top, second = (math.exp(x / t) for x in s[:2])
    assert math.isclose(top / second, ratio)
    assert ch2.temperature_for_ratio.check(round(t, 3)).ok
    assert not ch2.temperature_for_ratio.check(round(t, 3) + 0.01).ok


def test_my_softmax_accepts_a_loop_softmax_on_every_case():
    def loop_softmax(s):
        s = np.asarray(s, dtype=float)
        out = np.empty_like(s)
        for idx in np.ndindex(s.shape[:-1]):
            m = max(s[idx])
            exps = [math.exp(x - m) for x in s[idx]]
            out[idx] = [x / sum(exps) for x in exps]
        return out

    assert ch2.my_softmax.check(loop_softmax).ok


def test_spread_by_hand_is_root_256_and_1():
    assert ch3.spread_by_hand.expected().tolist() == [16.0, 1.0]  # √256 = 16
    assert ch3.spread_by_hand.check([16, 1]).ok


def test_my_weights_accepts_loops_and_rejects_the_unscaled_example():
    def loop_weights(q, k):
        q, k = np.asarray(q), np.asarray(k)
        out = np.empty((*q.shape[:-1], k.shape[-2]))
        for idx in np.ndindex(q.shape[:-1]):
            keys = k[idx[:-1]] if k.ndim > 2 else k
            s = [sum(a * b for a, b in zip(q[idx], key, strict=True)) for key in keys]
            s = [x / math.sqrt(q.shape[-1]) for x in s]
            exps = [math.exp(x - max(s)) for x in s]
            out[idx] = [x / sum(exps) for x in exps]
        return out

    assert ch3.my_weights.check(loop_weights).ok
    # The worked example by hand: scores 1, 0, 1 over √2, so w1 = w3 = e^(1/√2) / (2 e^(1/√2) + 1).
    ex_q, ex_k = ch3.my_weights.cases()[0].args
    a = math.exp(1 / math.sqrt(2))
    np.testing.assert_allclose(loop_weights(ex_q, ex_k), [[a, 1, a]] / np.float64(2 * a + 1))


def test_shift_by_hand_diagnoses_e_to_the_plus_one():
    # Exponents 0, +1, +1 instead of 0, -1, -1: weights 1, e, e over 1 + 2e.
    e = math.e
    wrong = [1 / (1 + 2 * e), e / (1 + 2 * e), e / (1 + 2 * e)]
    feedback = ch2.shift_by_hand.check([round(x, 3) for x in wrong])
    assert feedback.diagnosis == "exp-wrong-sign"
    assert "0.576" not in feedback.message  # the answer stays hidden


def test_spread_by_hand_diagnoses_means_and_an_unscaled_spread_of_one():
    assert ch3.spread_by_hand.check([0, 0]).diagnosis == "means-not-std"
    assert ch3.spread_by_hand.check([1, 1]).diagnosis == "unscaled-stays-1"


def test_spread_by_hand_names_the_variances():
    assert ch3.spread_by_hand.check([256, 1]).diagnosis == "variance-not-std"
    assert ch3.spread_by_hand.check([16, 1]).ok  # √256 = 16, √1 = 1
