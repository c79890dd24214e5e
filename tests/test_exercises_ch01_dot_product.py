"""The exercises of ch01_dot_product: solutions and the wrong answers each diagnosis names."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_book.exercises import ch01_dot_product as ch1


def test_doubling_a_key_that_points_away_lowers_its_score():
    q, k = ch1.long_key_away.inputs
    dot = sum(a * b for a, b in zip(q, k, strict=True))  # (2)(−2) + (1)(1) = −3
    doubled = sum(a * 2 * b for a, b in zip(q, k, strict=True))
    assert dot == -3.0 and doubled == -6.0  # by hand: the key points away, cos θ = −3/5
    assert ch1.long_key_away.check("down").ok
    assert ch1.long_key_away.check(" Down ").ok  # case and spaces do not matter


def test_the_long_key_answers_up_and_same_are_told_why():
    up, same = ch1.long_key_away.check("up"), ch1.long_key_away.check("same")
    assert (up.ok, same.ok) == (False, False)
    assert "negative" in up.message and "doubles" in same.message


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
