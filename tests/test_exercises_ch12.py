"""Chapters 1 and 2's conceptual exercises: the long key pointing away, and the saturation myth.

Expected answers come from hand arithmetic and plain Python, not from attn_core.
"""

import math

from attn_book.exercises import ch01_dot_product as ch1
from attn_book.exercises import ch02_softmax as ch2


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


def test_weights_1_0_0_for_scores_101_100_100_are_diagnosed_as_saturation():
    feedback = ch2.shift_by_hand.check([1, 0, 0])
    assert not feedback.ok
    assert feedback.diagnosis == "saturated"
    assert "gap" in feedback.message


def test_the_saturation_diagnosis_does_not_fire_on_the_right_answer():
    top = 1 / (1 + 2 / math.e)  # e^0 / (e^0 + 2 e^-1), by hand
    feedback = ch2.shift_by_hand.check([top, (1 - top) / 2, (1 - top) / 2])
    assert feedback.ok and feedback.diagnosis != "saturated"
