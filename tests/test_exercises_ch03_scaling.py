"""The exercises of ch03_scaling: solutions and the wrong answers each diagnosis names."""

from __future__ import annotations

import math

import numpy as np
import pytest
from answer_inputs import Answers, Mistake

import attn_core as ac
from attn_book.exercises import ch03_scaling as ch3


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


def test_spread_by_hand_diagnoses_means_and_an_unscaled_spread_of_one():
    assert ch3.spread_by_hand.check([0, 0]).diagnosis == "means-not-std"
    assert ch3.spread_by_hand.check([1, 1]).diagnosis == "unscaled-stays-1"


def test_spread_by_hand_names_the_variances():
    assert ch3.spread_by_hand.check([256, 1]).diagnosis == "variance-not-std"
    assert ch3.spread_by_hand.check([16, 1]).ok  # √256 = 16, √1 = 1


def test_the_gap_of_two_keys_needs_d_k_128_by_hand_and_by_simulation():
    (gap,) = ch3.gap_of_two_keys.inputs
    d_k = int(gap**2 / 2)  # Var[q·k1 − q·k2] = 2 d_k
    assert d_k == 128 and ch3.gap_of_two_keys.check(d_k).ok
    r = np.random.default_rng(0)
    q, k1, k2 = (r.standard_normal((20_000, d_k)) for _ in range(3))
    gaps = (q * k1).sum(-1) - (q * k2).sum(-1)
    assert abs(gaps.std() - gap) < 0.3  # 16 ± sampling noise (about 0.08)
    scores = np.stack([(q * k1).sum(-1), (q * k2).sum(-1)])
    assert abs(np.corrcoef(scores)[0, 1]) < 0.03  # uncorrelated, though they share q


@pytest.mark.parametrize(
    ("answer", "diagnosis"),
    [
        (256, "one-score-not-the-gap"),
        (64, "spreads-added"),
        (8, "forgot-to-square"),
        (0, "variances-subtracted"),
    ],
)
def test_the_gap_of_two_keys_names_each_slip(answer, diagnosis):
    assert ch3.gap_of_two_keys.check(answer).diagnosis == diagnosis


def test_variance_with_sigma_is_d_k_times_sigma_to_the_fourth_by_hand():
    d_k, sigma_sq = ch3.variance_with_sigma.inputs
    assert (d_k, sigma_sq) == (64, 4.0)
    assert ch3.variance_with_sigma.expected() == 64 * 4.0 * 4.0  # d_k σ² σ² = 1024
    assert ch3.variance_with_sigma.check(1024).ok
    assert ch3.variance_with_sigma.check("1024").ok


def test_variance_with_sigma_agrees_with_a_simulation():
    d_k, sigma_sq = ch3.variance_with_sigma.inputs
    rng = np.random.default_rng(0)
    q = rng.normal(scale=math.sqrt(sigma_sq), size=(100_000, d_k))
    k = rng.normal(scale=math.sqrt(sigma_sq), size=(100_000, d_k))
    simulated = np.einsum("nd,nd->n", q, k).var()
    # the sample variance of 1e5 draws is within about 1 % here; 3 % leaves room
    assert simulated == pytest.approx(ch3.variance_with_sigma.expected(), rel=0.03)


@pytest.mark.parametrize(
    ("answer", "diagnosis"),
    [
        (64 * 4, "sigma-squared-once"),  # d_k σ²: one σ² per product instead of two
        (16, "one-product"),  # σ⁴: one product, not the sum of 64
        (32, "std-not-variance"),  # √(64) · 4: the spread
        (64, "unit-variance"),  # the variance-1 answer
    ],
)
def test_variance_with_sigma_names_each_slip(answer, diagnosis):
    assert ch3.variance_with_sigma.check(answer).diagnosis == diagnosis


@pytest.mark.parametrize("answer", [256, [256], [256, 16], [256.0, 1 / 16]])
def test_a_spread_of_256_at_d_k_256_is_called_the_variance(answer):
    feedback = ch3.spread_by_hand.check(answer)
    assert feedback.diagnosis == "spread-is-variance"
    assert "variance" in feedback.message and "16" not in feedback.message  # no answer given


def test_both_variances_keep_their_own_diagnosis():
    assert ch3.spread_by_hand.check([256, 1]).diagnosis == "variance-not-std"
    assert ch3.spread_by_hand.check([16, 1]).ok  # √256 = 16, √1 = 1


def _softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_the_scale_after_the_softmax_and_a_multiplied_scale_are_named():
    def after(q, k):
        return _softmax(q @ np.swapaxes(k, -1, -2)) / math.sqrt(q.shape[-1])

    def multiplied(q, k):
        return _softmax(q @ np.swapaxes(k, -1, -2) * math.sqrt(q.shape[-1]))

    def right(q, k):
        return _softmax(q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1]))

    feedback = ch3.my_weights.check(after)
    assert feedback.diagnosis == "scaled-after-softmax", feedback
    assert "inside the softmax" in feedback.message
    assert ch3.my_weights.check(multiplied).diagnosis == "multiplied-by-root-d-k"
    assert ch3.my_weights.check(right).ok


def test_scaled_weights_without_the_max_subtracted_overflow_on_large_scores():
    def naive(q, k):  # right on small scores; e^1414 overflows on the large case
        s = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
        return np.exp(s) / np.exp(s).sum(axis=-1, keepdims=True)

    feedback = ch3.my_weights.check(naive)
    assert feedback.diagnosis == "nan-large-scores", feedback
    assert any("large scores" in c.label for c in ch3.my_weights.cases())


def _skeleton(q, k):
    raise NotImplementedError


def _fixed(q, k):
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])  # [..., L, S]
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # plain NumPy, as asked
    return e / e.sum(axis=-1, keepdims=True)


def test_weights_from_attn_core_are_sent_back():
    feedback = ch3.my_weights.check(lambda q, k: ac.attention_weights(q, k))
    assert (feedback.ok, feedback.diagnosis) == (False, "used-attn-core")
    assert "ac.attention_weights" in feedback.message


# The typed answers the tests give each exercise: a correct one and one wrong answer per
# diagnosis (the buggy function of a find-the-bug and a choice's wrong options are added by
# answer_inputs.mistakes).
ANSWERS = {
    "ch3-spread-by-hand": Answers(
        solution=[16.0, 1.0],
        mistakes=[
            Mistake("the variances", [ch3._D_K, 1.0], "variance-not-std"),
            Mistake("the scaled spread shrinks too", [16.0, 1 / 16], "scaled-by-d"),
            Mistake("one number", 16.0, "wrong-count"),
            Mistake("the variance alone, for the spread", ch3._D_K, "spread-is-variance"),
            Mistake(
                "the variance as the spread, beside 16", [ch3._D_K, 16.0], "spread-is-variance"
            ),
            Mistake("the means", [0, 0], "means-not-std"),
            Mistake("both spreads 1", [1, 1], "unscaled-stays-1"),
        ],
    ),
    "ch3-my-weights": Answers(
        solution=_fixed,
        mistakes=[
            Mistake("no scale", lambda q, k: ac.attention_weights(q, k, scale=1.0), "forgot-scale"),
            Mistake(
                "scaled by √L",
                lambda q, k: ac.softmax(ac.dot_scores(q, k) / math.sqrt(q.shape[-2])),
                "scaled-by-wrong-dimension",
            ),
            Mistake(
                "divided by d_k",
                lambda q, k: ac.attention_weights(q, k, scale=1 / q.shape[-1]),
                "divided-by-d-k",
            ),
            Mistake(
                "multiplied by √d_k",
                lambda q, k: ac.softmax(ac.dot_scores(q, k) * math.sqrt(q.shape[-1])),
                "multiplied-by-root-d-k",
            ),
            Mistake(
                "scaled after the softmax",
                lambda q, k: ac.softmax(ac.dot_scores(q, k)) / math.sqrt(q.shape[-1]),
                "scaled-after-softmax",
            ),
            Mistake(
                "k.T",
                lambda q, k: ac.softmax(q @ k.T / math.sqrt(q.shape[-1])),
                "kT-on-batch",
            ),
            Mistake(
                "softmax over the queries",
                lambda q, k: ac.softmax(ac.dot_scores(q, k) / math.sqrt(q.shape[-1]), axis=-2),
                "rows-not-normalised",
            ),
            Mistake(
                "np.exp(s) / sum, no max subtracted",
                lambda q, k: (
                    (e := np.exp(ac.dot_scores(q, k) / math.sqrt(q.shape[-1])))
                    / e.sum(axis=-1, keepdims=True)
                ),
                "nan-large-scores",
            ),
            Mistake("skeleton raising NotImplementedError", _skeleton, "unanswered"),
        ],
    ),
    "ch3-gap-of-two-keys": Answers(
        solution=128.0,
        mistakes=[
            Mistake("one score's spread 16", 256, "one-score-not-the-gap"),
            Mistake("spreads added, 2√d_k = 16", 64, "spreads-added"),
            Mistake("2 d_k = 16", 8, "forgot-to-square"),
            Mistake("Var[s₁] − Var[s₂] = 0", 0, "variances-subtracted"),
        ],
    ),
    "ch3-variance-with-sigma": Answers(
        solution=1024.0,
        mistakes=[
            Mistake("d_k σ²", 64 * ch3._SIGMA_SQ, "sigma-squared-once"),
            Mistake("σ⁴, one product", ch3._SIGMA_SQ**2, "one-product"),
            Mistake("√d_k σ², the spread", 8 * ch3._SIGMA_SQ, "std-not-variance"),
            Mistake("d_k, as for variance 1", 64, "unit-variance"),
        ],
    ),
}


def test_scaling_by_the_number_of_queries_or_keys_is_named():
    def by_queries(q, k):
        s = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-2])  # √L, not √d_k
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    def by_keys(q, k):
        s = q @ np.swapaxes(k, -1, -2) / math.sqrt(k.shape[-2])  # √S, not √d_k
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    for answer in (by_queries, by_keys):
        feedback = ch3.my_weights.check(answer)
        assert feedback.diagnosis == "scaled-by-wrong-dimension", feedback
        assert "forgot" not in feedback.message
