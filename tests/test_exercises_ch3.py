"""Chapter 3's checkers: the variance with σ², the spread read as a variance, factors as values.

Expected values come from hand arithmetic and from a plain simulation, not from the module.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_book.exercises import ch03_scaling as ch3


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
