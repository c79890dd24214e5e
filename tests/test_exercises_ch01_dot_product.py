"""The exercises of ch01_dot_product: solutions and the wrong answers each diagnosis names."""

from __future__ import annotations

import math

import numpy as np
import pytest
from answer_inputs import Answers, Mistake

from attn_book.exercises import ch01_dot_product as ch1


def test_halving_a_query_raises_its_score_with_a_key_that_points_away():
    q, k = ch1.long_key_away.inputs
    dot = sum(a * b for a, b in zip(q, k, strict=True))  # (2)(−2) + (1)(1) = −3
    halved = sum(a / 2 * b for a, b in zip(q, k, strict=True))
    assert dot == -3.0 and halved == -1.5  # by hand: the key points away, cos θ = −3/5
    assert ch1.long_key_away.check("up").ok
    assert ch1.long_key_away.check(" Up ").ok  # case and spaces do not matter


def test_the_shorter_query_answers_down_and_same_are_told_why():
    down, same = ch1.long_key_away.check("down"), ch1.long_key_away.check("same")
    assert (down.ok, same.ok) == (False, False)
    assert "negative" in down.message and "halves" in same.message


def test_the_additive_score_by_hand_is_tanh_2_minus_tanh_4():
    q, k, w, u, v = ch1.additive_by_hand.inputs
    # by hand: W = U = I, so W q + U k = q + k = (2, 4); v = (1, −1)
    hidden = [math.tanh(q[0] + k[0]), math.tanh(q[1] + k[1])]
    assert [q[0] + k[0], q[1] + k[1]] == [2.0, 4.0]
    assert np.array_equal(w, np.eye(2)) and np.array_equal(u, np.eye(2)) and list(v) == [1, -1]
    by_hand = hidden[0] - hidden[1]
    assert math.isclose(by_hand, -0.0353, abs_tol=1e-4)
    assert ch1.additive_by_hand.check(round(by_hand, 3)).ok


@pytest.mark.parametrize(
    ("answer", "diagnosis"),
    [
        (2.0 - 4.0, "no-tanh"),  # v·(W q + U k), no squashing
        (math.tanh(2.0 - 4.0), "tanh-after-v"),  # tanh(v·(W q + U k))
        (2 * 0 + 1 * 3, "dot-not-additive"),  # q·k
        (0.035, "sign"),  # tanh 4 − tanh 2
    ],
)
def test_the_additive_score_names_each_mistake(answer, diagnosis):
    assert ch1.additive_by_hand.check(answer).diagnosis == diagnosis


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


def test_np_dot_on_a_batch_is_named_not_taken_for_k_T():
    def with_np_dot(q, k):
        return np.dot(q, np.swapaxes(k, -1, -2))  # (B, L, E)·(B, E, S) -> (B, L, B, S)

    q, k = np.ones((2, 3, 5)), np.ones((2, 4, 5))
    assert with_np_dot(q, k).shape == (2, 3, 2, 4)  # every batch against every batch
    feedback = ch1.my_scores.check(with_np_dot)
    assert feedback.diagnosis == "np-dot-on-batch"
    assert "np.matmul" in feedback.message and ".T" not in feedback.message


def _fixed(q, k):
    return q @ np.swapaxes(k, -1, -2)


def _skeleton(q, k):
    raise NotImplementedError


# The typed answers the tests give each exercise: a correct one and one wrong answer per
# diagnosis (the buggy function of a find-the-bug and a choice's wrong options are added by
# answer_inputs.mistakes).
ANSWERS = {
    "ch1-scores-by-hand": Answers(
        solution=[2 * 1 + 1 * 0, 2 * 0 + 1 * 3, 2 * -1 + 1 * 1],
        mistakes=[
            Mistake("products listed", ch1._Q * ch1._KEYS, "products-not-summed"),
            Mistake("first components", ch1._Q[0] * ch1._KEYS[:, 0], "first-component-only"),
            Mistake("signs flipped", -(ch1._KEYS @ ch1._Q), "sign"),
            Mistake("two scores", (ch1._KEYS @ ch1._Q)[:2], "wrong-count"),
            Mistake("a slip in the third decimal", ch1._KEYS @ ch1._Q + 0.002, "rounding"),
            Mistake("a word", "two", "not-numeric"),
        ],
    ),
    "ch1-cosine-by-hand": Answers(
        solution=3 / (math.sqrt(5) * 3),
        mistakes=[
            Mistake("the dot product", 3.0, "dot-not-cosine"),
            Mistake("θ in degrees", 63.435, "angle-not-cosine"),
            Mistake("θ in radians", 1.107, "angle-not-cosine"),
            Mistake("divided by ‖q‖ only", 3 / math.sqrt(5), "one-length-only"),
        ],
    ),
    "ch1-additive-by-hand": Answers(
        solution=math.tanh(2.0) - math.tanh(4.0),
        mistakes=[
            Mistake("no tanh", -2.0, "no-tanh"),
            Mistake("tanh after v", math.tanh(-2.0), "tanh-after-v"),
            Mistake("the dot product", 3.0, "dot-not-additive"),
            Mistake("the sign flipped", 0.035, "sign"),
            Mistake(
                "tanh(3) for tanh(4)", round(math.tanh(2.0) - math.tanh(3.0), 3), "hidden-unit-slip"
            ),
        ],
    ),
    "ch1-my-scores": Answers(
        solution=lambda q, k: np.einsum("...ld,...sd->...ls", q, k),
        mistakes=[
            Mistake(
                "einsum without '...'",
                lambda q, k: np.einsum("ld,sd->ls", q, k),
                "einsum-no-ellipsis",
            ),
            Mistake(
                "einsum keeping d",
                lambda q, k: np.einsum("...ld,...sd->...lsd", q, k),
                "products-not-summed",
            ),
            Mistake(
                "einsum with l and s swapped in the output",
                lambda q, k: np.einsum("...ld,...sd->...sl", q, k),
                "scores-transposed",
            ),
            Mistake("k.T", lambda q, k: q @ k.T, "kT-on-batch"),
            Mistake(
                "np.dot on a batch",
                lambda q, k: np.dot(q, np.swapaxes(k, -1, -2)),
                "np-dot-on-batch",
            ),
            Mistake("key @ query", lambda q, k: k @ np.swapaxes(q, -1, -2), "scores-transposed"),
            Mistake("elementwise product", lambda q, k: q * k, "raised"),
            Mistake("skeleton raising NotImplementedError", _skeleton, "unanswered"),
        ],
    ),
    "bug-kT-batch": Answers(
        solution=_fixed,
        mistakes=[
            Mistake("np.transpose(k) is k.T", lambda q, k: q @ np.transpose(k), "kT-on-batch")
        ],
    ),
    "ch1-best-key": Answers(
        solution=[1.2, 1.6],
        mistakes=[
            Mistake("q's direction, length 1", ch1._Q_DESIGN / 5.0, "unit-direction"),
            Mistake("the query itself", ch1._Q_DESIGN, "too-long"),
            Mistake("length 2 along the second axis", [0.0, 2.0], "wrong-direction"),
            Mistake("length 2 at 45°", [math.sqrt(2), math.sqrt(2)], "wrong-direction"),
        ],
    ),
}


def test_tanh_of_3_for_tanh_of_4_is_a_slip_not_rounding():
    feedback = ch1.additive_by_hand.check(-0.031)  # tanh(2) − tanh(3), W q + U k misread
    assert feedback.diagnosis == "hidden-unit-slip", feedback
    assert "rounding" not in feedback.message.replace("not a rounding one", "")


def test_an_einsum_right_in_2d_but_not_on_a_batch_is_told_about_the_ellipsis_not_dot_t():
    def einsum_2d(q, k):  # "ij,kj->ik" has no batch axis: it raises on (B, L, E)
        return np.einsum("ij,kj->ik", q, k)

    feedback = ch1.my_scores.check(einsum_2d)
    assert feedback.diagnosis == "einsum-no-ellipsis", feedback
    assert "'...'" in feedback.message and ".T" not in feedback.message


def test_the_einsum_solution_is_every_dot_product_by_a_loop():
    r = np.random.default_rng(0)
    q, k = r.normal(size=(2, 3, 4, 5)), r.normal(size=(2, 3, 6, 5))
    loop = np.zeros((2, 3, 4, 6))
    for b, h, i, j in np.ndindex(loop.shape):
        loop[b, h, i, j] = sum(q[b, h, i, d] * k[b, h, j, d] for d in range(5))
    assert np.allclose(np.einsum("...ld,...sd->...ls", q, k), loop)
    assert ch1.my_scores.check(lambda q, k: np.einsum("...ld,...sd->...ls", q, k)).ok
