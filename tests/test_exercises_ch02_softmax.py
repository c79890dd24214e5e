"""The exercises of ch02_softmax: solutions and the wrong answers each diagnosis names."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from answer_inputs import Answers, Mistake

import attn_core as ac
from attn_book.exercises import ch02_softmax as ch2


def test_weights_1_0_0_for_scores_101_100_100_are_diagnosed_as_saturation():
    feedback = ch2.shift_by_hand.check([1, 0, 0])
    assert not feedback.ok
    assert feedback.diagnosis == "saturated"
    assert "gap" in feedback.message


def test_the_saturation_diagnosis_does_not_fire_on_the_right_answer():
    top = 1 / (1 + 2 / math.e)  # e^0 / (e^0 + 2 e^-1), by hand
    feedback = ch2.shift_by_hand.check([top, (1 - top) / 2, (1 - top) / 2])
    assert feedback.ok and feedback.diagnosis != "saturated"


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


def test_shift_by_hand_diagnoses_e_to_the_plus_one():
    # Exponents 0, +1, +1 instead of 0, -1, -1: weights 1, e, e over 1 + 2e.
    e = math.e
    wrong = [1 / (1 + 2 * e), e / (1 + 2 * e), e / (1 + 2 * e)]
    feedback = ch2.shift_by_hand.check([round(x, 3) for x in wrong])
    assert feedback.diagnosis == "exp-wrong-sign"
    assert "0.576" not in feedback.message  # the answer stays hidden


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


def _by_hand_softmax(s):
    """A reader's stable softmax, over the last axis."""
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_a_softmax_borrowed_from_ac_softmax_is_sent_back_and_one_by_hand_passes():
    import attn_core as ac

    borrowed = ch2.my_softmax.check(lambda s: ac.softmax(s))
    assert (borrowed.ok, borrowed.diagnosis) == (False, "used-ac-softmax")
    assert "yourself" in borrowed.message
    assert ch2.my_softmax.check(_by_hand_softmax).ok
    assert ac.softmax is ch2._SOFTMAX  # nothing is replaced by the check
    assert sys.getprofile() is None  # and the watch is gone after it


def _borrowing_routes():
    """A reader's softmax that calls attn_core's, reached by every route a reader might take."""
    import importlib

    import attn_core as ac
    from attn_core import softmax as imported

    module = importlib.import_module("attn_core.softmax")
    fresh = {}  # a function defined in a fresh namespace, as a notebook cell would
    exec("from attn_core import softmax\ndef answer(s):\n    return softmax(s)\n", fresh)
    kept = ac.softmax

    def nested(s):
        def helper(x):
            return kept(x)

        return helper(s)

    return {
        "ac.softmax": lambda s: ac.softmax(s),
        "from attn_core import softmax": lambda s: imported(s),
        "the module attn_core.softmax": lambda s: module.softmax(s),
        "exec in a fresh namespace": fresh["answer"],
        "an alias in a helper": nested,
    }


@pytest.mark.parametrize("route", list(_borrowing_routes()))
def test_every_route_to_attn_cores_softmax_is_caught(route):
    fn = _borrowing_routes()[route]
    assert ch2.my_softmax.check(fn).diagnosis == "used-ac-softmax", route

    def masked(scores, mask):
        return fn(np.where(mask, scores, -np.inf))

    assert ch2.mask_fully_masked.check(masked).diagnosis in {
        "used-ac-softmax",
        "masked-row-uniform",
    }


def test_a_check_in_another_thread_catches_the_import_too():
    import threading

    from attn_core import softmax

    seen = []
    worker = threading.Thread(
        target=lambda: seen.append(ch2.my_softmax.check(lambda s: softmax(s)))
    )
    worker.start()
    worker.join()
    assert seen[0].diagnosis == "used-ac-softmax"
    assert ch2.my_softmax.check(softmax).diagnosis == "used-ac-softmax"  # the function itself


def test_a_softmax_through_another_attn_core_function_is_borrowing_too():
    """The statement asks for plain NumPy: ac.attention_weights (which calls the softmax
    inside) is as much attn_core's softmax as ac.softmax; its inner call is not counted, the
    reader's call is, and the message names the function the reader called."""
    import attn_core as ac

    def via_weights(s):  # a query per row whose scores against the scaled one-hot keys are s
        s = np.asarray(s, dtype=float)
        n = s.shape[-1]
        rows = s.reshape(-1, n)
        return ac.attention_weights(rows, np.eye(n) * np.sqrt(n)).reshape(s.shape)

    feedback = ch2.my_softmax.check(via_weights)
    assert (feedback.ok, feedback.diagnosis) == (False, "used-ac-softmax")
    assert "ac.attention_weights" in feedback.message and "ac.softmax" not in feedback.message


def test_the_masked_row_fix_must_not_borrow_ac_softmax_either():
    import attn_core as ac

    def borrowed(scores, mask):
        return ac.softmax(np.where(mask, scores, -np.inf))

    def by_hand(scores, mask):
        s = np.where(mask, scores, -np.inf)
        top = s.max(axis=-1, keepdims=True)
        e = np.exp(s - np.where(np.isfinite(top), top, 0.0))
        total = e.sum(axis=-1, keepdims=True)
        return e / np.where(total > 0, total, 1.0)

    assert ch2.mask_fully_masked.check(borrowed).diagnosis == "used-ac-softmax"
    assert ch2.mask_fully_masked.check(by_hand).ok
    # the buggy code calls ac.softmax too, but is wrong: it keeps its own diagnosis
    assert ch2.mask_fully_masked.check(ch2.masked_weights).diagnosis == "masked-row-uniform"


def test_a_max_without_keepdims_is_named_not_echoed():
    def no_keepdims(s):
        e = np.exp(s - s.max(axis=-1))  # (3, 5) - (3,): fails to broadcast
        return e / e.sum(axis=-1, keepdims=True)

    for ex in (ch2.my_softmax, ch2.softmax_wrong_axis):
        feedback = ex.check(no_keepdims)
        assert feedback.diagnosis == "lost-axis", feedback
        assert "keepdims=True" in feedback.message


def test_the_max_left_on_axis_0_is_told_apart_from_no_max_at_all():
    def max_over_columns(s):
        e = np.exp(s - s.max(axis=0, keepdims=True))  # the bug half fixed
        return e / e.sum(axis=-1, keepdims=True)

    feedback = ch2.softmax_wrong_axis.check(max_over_columns)
    assert feedback.diagnosis == "max-wrong-axis", feedback
    assert "axis=-1, keepdims=True" in feedback.message
    assert ch2.softmax_wrong_axis.check(_by_hand_softmax).ok


def test_a_softmax_that_subtracts_the_row_minimum_is_named():
    def minus_min(s):  # [0, 800] -> [0, 800]: e^800 overflows, inf / inf = nan
        e = np.exp(s - s.min(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    feedback = ch2.my_softmax.check(minus_min)
    assert feedback.diagnosis == "subtracted-row-min", feedback
    assert "[0, 800]" in feedback.message


def test_a_softmax_that_subtracts_one_global_maximum_is_named():
    def global_max(s):  # [[0, 1], [-800, -801]]: the second row underflows to 0 / 0
        e = np.exp(s - s.max())
        return e / e.sum(axis=-1, keepdims=True)

    feedback = ch2.my_softmax.check(global_max)
    assert feedback.diagnosis == "global-max", feedback
    assert "each row's own maximum" in feedback.message


def test_the_textbook_softmax_is_still_told_about_large_scores():
    def naive(s):
        return np.exp(s) / np.exp(s).sum(axis=-1, keepdims=True)

    assert ch2.my_softmax.check(naive).diagnosis == "nan-large-scores"


def _skeleton(scores):
    raise NotImplementedError


def _stable_softmax(scores):
    """The answer a reader writes: subtract each row's max, exponentiate, divide by the sum."""
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # every exponent <= 0
    return e / e.sum(axis=-1, keepdims=True)


def _filled_with_zero(scores, mask):
    s = np.where(mask, scores, 0.0)  # 0 is a score like any other: e^0 = 1
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _naive_masked(scores, mask):
    s = np.where(mask, scores, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))  # -inf - (-inf) = NaN in a masked row
    return e / e.sum(axis=-1, keepdims=True)


# The typed answers the tests give each exercise: a correct one and one wrong answer per
# diagnosis (the buggy function of a find-the-bug and a choice's wrong options are added by
# answer_inputs.mistakes).
ANSWERS = {
    "ch2-shift-by-hand": Answers(
        solution=[1 / (1 + 2 / np.e), (1 / np.e) / (1 + 2 / np.e), (1 / np.e) / (1 + 2 / np.e)],
        mistakes=[
            Mistake("scores over their sum", ch2._SHIFTED / ch2._SHIFTED.sum(), "near-uniform"),
            Mistake("one third each", [1 / 3, 1 / 3, 1 / 3], "near-uniform"),
            Mistake("e^+1 instead of e^-1", [0.155, 0.422, 0.422], "exp-wrong-sign"),
            Mistake(
                "e^0 and e^-1, not divided", [1.0, np.exp(-1), np.exp(-1)], "exp-not-normalised"
            ),
            Mistake("all the weight on the top score", [1.0, 0.0, 0.0], "saturated"),
            Mistake("the top weight alone", 0.576, "wrong-count"),
            Mistake("a slip in the third decimal", [0.578, 0.212, 0.212], "rounding"),
        ],
    ),
    "ch2-my-softmax": Answers(
        solution=_stable_softmax,
        mistakes=[
            Mistake(
                "the textbook formula",
                lambda s: np.exp(s) / np.exp(s).sum(axis=-1, keepdims=True),
                "nan-large-scores",
            ),
            Mistake("the row minimum subtracted", ch2._minus_row_min, "subtracted-row-min"),
            Mistake("one global maximum", ch2._minus_global_max, "global-max"),
            Mistake("no exponential", lambda s: s / s.sum(axis=-1, keepdims=True), "no-exp"),
            Mistake(
                "max and sum over the whole array",
                lambda s: (e := np.exp(s - s.max())) / e.sum(),
                "rows-not-normalised",
            ),
            Mistake(
                "max without keepdims",
                lambda s: (e := np.exp(s - s.max(axis=-1))) / e.sum(axis=-1, keepdims=True),
                "lost-axis",
            ),
            Mistake("ac.softmax itself", lambda s: ac.softmax(s), "used-ac-softmax"),
            Mistake("skeleton raising NotImplementedError", _skeleton, "unanswered"),
        ],
    ),
    "ch2-temperature-for-ratio": Answers(
        solution=1 / math.log(2),
        mistakes=[
            Mistake("ln 2, upside down", math.log(2), "temperature-inverted"),
            Mistake("the first and third scores", 1.5 / math.log(2), "wrong-pair"),
            Mistake("log base 10", 1 / math.log10(2), "log-base-10"),
            Mistake("T = 2, the ratio", 2.0, "ratio-is-not-temperature"),
            Mistake("a negative temperature", -1.443, "negative-temperature"),
        ],
    ),
    "ch2-cross-entropy-gradient": Answers(
        solution=[0.5, -0.75, 0.25],
        mistakes=[
            Mistake("y − w", [-0.5, 0.75, -0.25], "target-minus-weights"),
            Mistake("the weights", [0.5, 0.25, 0.25], "weights-only"),
            Mistake("∂w_c/∂s", [-0.125, 0.1875, -0.0625], "gradient-of-the-weight"),
            Mistake("target = the largest score", [-0.5, 0.25, 0.25], "largest-as-target"),
            Mistake("target on the third key", [0.5, 0.25, -0.75], "target-on-another-key"),
        ],
    ),
    "bug-mask-fully-masked": Answers(
        solution=ch2._masked_reference,
        mistakes=[
            Mistake("-inf with a hand-made softmax", _naive_masked, "nan-masked-row"),
            Mistake(
                "weights zeroed after the softmax, not renormalised",
                lambda s, m: np.where(m, ac.softmax(s, axis=-1), 0.0),
                "zeroed-not-renormalised",
            ),
            Mistake(
                "hidden keys filled with 0, not -inf",
                _filled_with_zero,
                "hidden-key-weighted",
            ),
            Mistake(
                "True taken as 'ignore'",
                lambda s, m: ac.softmax(np.where(m, -np.inf, s)),
                "masked-key-weighted",
            ),
            Mistake(
                "-inf and ac.softmax",
                lambda s, m: ac.softmax(np.where(m, s, -np.inf)),
                "used-ac-softmax",
            ),
        ],
    ),
    "bug-softmax-wrong-axis": Answers(
        solution=_stable_softmax,
        mistakes=[
            Mistake(
                "the right axis, the max-subtraction dropped",
                lambda s: np.exp(s) / np.exp(s).sum(axis=-1, keepdims=True),
                "nan-large-scores",
            ),
            Mistake(  # NaN too, but wrong on small scores as well: not "only the shift"
                "normalised over the whole array",
                lambda s: np.exp(s) / np.exp(s).sum(),
                "rows-not-normalised",
            ),
            Mistake("max over axis 0, sum over the keys", ch2._max_over_columns, "max-wrong-axis"),
            Mistake(
                "max over the keys without keepdims",
                lambda s: (e := np.exp(s - s.max(axis=-1))) / e.sum(axis=-1, keepdims=True),
                "lost-axis",
            ),
            Mistake(
                "max over the keys, sum over the whole array",
                lambda s: (e := np.exp(s - s.max(-1, keepdims=True))) / e.sum(),
                "rows-not-normalised",
            ),
        ],
    ),
}


def test_a_negative_temperature_is_named_not_called_too_small():
    t = ch2.temperature_for_ratio.expected().item()
    feedback = ch2.temperature_for_ratio.check(-round(t, 3))
    assert feedback.diagnosis == "negative-temperature", feedback
    assert "too small" not in feedback.message


def test_a_target_counted_from_1_is_told_it_counts_from_0():
    feedback = ch2.cross_entropy_gradient.check([-0.5, 0.25, 0.25])  # y on key 1, not key 2
    assert feedback.diagnosis == "largest-as-target", feedback
    assert "counted from 0" in feedback.message
