"""The exercises added for the third edition of chapters 1-3, against hand derivations.

Each wrong answer below is worked out by hand (or in plain Python) from the question, and must
get its named diagnosis; the right answer, derived the same way, must pass.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_book.exercises import ch01_dot_product as ch1
from attn_book.exercises import ch02_softmax as ch2
from attn_book.exercises import ch03_scaling as ch3

# ------------------------------------------------------------------ chapter 1: the best key


def test_the_best_key_of_length_2_for_q_3_4_is_1_2_1_6():
    q, r = ch1.best_key.inputs
    assert list(q) == [3.0, 4.0] and r == 2.0  # ‖q‖ = 5
    best = [r * 3 / 5, r * 4 / 5]  # r q / ‖q‖
    assert ch1.best_key.check(best).ok
    # no key of length 2 does better: try every direction in steps of 1°
    scores = [r * (3 * math.cos(t) + 4 * math.sin(t)) for t in np.radians(np.arange(360))]
    assert max(scores) <= 3 * best[0] + 4 * best[1] + 1e-12 == r * 5 + 1e-12


@pytest.mark.parametrize(
    ("answer", "diagnosis"),
    [
        ([0.6, 0.8], "unit-direction"),  # q / ‖q‖: right direction, length 1
        ([3.0, 4.0], "too-long"),  # q itself, length 5
        ([2.0, 0.0], "wrong-direction"),  # length 2, 53° off
        ([-1.2, -1.6], "wrong-direction"),  # length 2, pointing away
    ],
)
def test_the_best_key_names_each_wrong_design(answer, diagnosis):
    feedback = ch1.best_key.check(answer)
    assert feedback.diagnosis == diagnosis, feedback
    assert "1.2" not in feedback.message and "1.6" not in feedback.message


def test_the_batch_transpose_exercises_know_k_T():
    def with_k_T(q, k):
        return q @ k.T

    def fixed(q, k):
        return q @ np.swapaxes(k, -1, -2)

    assert ch1.kT_batch.check(with_k_T).diagnosis == "kT-on-batch"
    assert ch1.my_scores.check(with_k_T).diagnosis == "kT-on-batch"
    assert ch1.kT_batch.check(fixed).ok and ch1.my_scores.check(fixed).ok


# ------------------------------------------------------------------ chapter 2


def test_the_cross_entropy_gradient_is_w_minus_y_by_hand():
    s, c = ch2.cross_entropy_gradient.inputs
    e = [math.exp(x) for x in s]  # 2, 1, 1
    w = [x / sum(e) for x in e]  # 1/2, 1/4, 1/4
    grad = [w[j] - (1.0 if j == c else 0.0) for j in range(3)]
    np.testing.assert_allclose(grad, [0.5, -0.75, 0.25])
    # and by finite differences of -log w_c, in plain Python
    h = 1e-6

    def loss(scores):
        return -(scores[c] - math.log(sum(math.exp(x) for x in scores)))

    fd = [
        (
            loss([x + h * (i == j) for i, x in enumerate(s)])
            - loss([x - h * (i == j) for i, x in enumerate(s)])
        )
        / (2 * h)
        for j in range(3)
    ]
    np.testing.assert_allclose(fd, grad, atol=1e-8)
    assert ch2.cross_entropy_gradient.check(grad).ok


@pytest.mark.parametrize(
    ("answer", "diagnosis"),
    [
        ([-0.5, 0.75, -0.25], "target-minus-weights"),  # y − w
        ([0.5, 0.25, 0.25], "weights-only"),  # w
        # ∂w_c/∂s_j = w_c (δ_cj − w_j) with w_c = 1/4: (−1/8, 3/16, −1/16)
        ([-0.125, 0.1875, -0.0625], "gradient-of-the-weight"),
        ([-0.5, 0.25, 0.25], "largest-as-target"),  # w − one-hot at the first key
    ],
)
def test_the_cross_entropy_gradient_names_each_slip(answer, diagnosis):
    assert ch2.cross_entropy_gradient.check(answer).diagnosis == diagnosis


@pytest.mark.parametrize(
    ("answer", "diagnosis"),
    [
        (math.log(2), "temperature-inverted"),  # 1/T
        (1.5 / math.log(2), "wrong-pair"),  # s1 − s3 = 1.5
        (1 / math.log10(2), "log-base-10"),
        (2.0, "ratio-is-not-temperature"),
    ],
)
def test_the_temperature_names_each_slip(answer, diagnosis):
    assert ch2.temperature_for_ratio.check(round(answer, 3)).diagnosis == diagnosis


def test_zeroing_the_weights_after_the_softmax_is_named():
    def zeroed(scores, mask):
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        w = e / e.sum(axis=-1, keepdims=True)  # softmax of every key
        return np.where(mask, w, 0.0)  # then the hidden keys' weights set to 0

    feedback = ch2.mask_fully_masked.check(zeroed)
    assert feedback.diagnosis == "zeroed-not-renormalised", feedback
    assert "sum to 1" in feedback.message


# ------------------------------------------------------------------ chapter 3


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
