"""Chapter 6's positions exercises: each named diagnosis fires on its slip, the solutions pass.

Expected values are derived by hand in the comments (or with plain loops), not read from the
module: sin 3 = 0.14112, cos 3 = −0.98999, sin 0.03 = 0.029996, cos 0.03 = 0.99955.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from answer_inputs import Answers, Mistake, each_item, solution

import attn_core as ac
from attn_book.exercises import all_exercises
from attn_book.exercises import ch06_positions as ch6p


def test_the_exercises_are_found_in_the_book_list_with_unique_ids():
    ids = [ex.id for ex in all_exercises()]
    for ex in ch6p.EXERCISES:
        assert ids.count(ex.id) == 1 and ex.id.startswith("ch6-")
    assert len(ch6p.EXERCISES) >= 5


def test_sin_by_hand():
    # PE_3 = (sin 3, cos 3, sin 0.03, cos 0.03)
    answer = [0.141, -0.990, 0.030, 1.000]
    assert ch6p.sin_by_hand.check(answer).ok
    np.testing.assert_allclose(
        ch6p.sin_by_hand.expected(), [0.14112, -0.98999, 0.029996, 0.99955], atol=1e-5
    )


@pytest.mark.parametrize(
    ("answer", "diagnosis"),
    [
        ([-0.990, 0.141, 1.000, 0.030], "sin-cos-swapped"),
        # degrees: sin 3° = 0.05234, cos 3° = 0.99863; 0.03° -> 0.000524, 1.0
        ([0.052, 0.999, 0.001, 1.000], "degrees"),
        ([0.141, -0.990, 0.296, 0.955], "exponent-i-over-d"),  # ω₁ = 10000^(-1/4) = 0.1
        ([-0.757, -0.654, 0.040, 0.999], "counted-from-1"),  # sin 4, cos 4, sin 0.04, cos 0.04
    ],
)
def test_sin_by_hand_names_each_slip(answer, diagnosis):
    assert ch6p.sin_by_hand.check(answer).diagnosis == diagnosis


def test_rope_rotate():
    # R(3)(2, 1) = (2 cos 3 − sin 3, 2 sin 3 + cos 3) = (−2.12110, −0.70775)
    assert ch6p.rope_rotate.check([-2.121, -0.708]).ok


@pytest.mark.parametrize(
    ("answer", "diagnosis"),
    [
        ([-1.839, -1.272], "turned-backwards"),  # (2 cos 3 + sin 3, −2 sin 3 + cos 3)
        ([1.945, 1.103], "degrees"),  # 2·0.99863 − 0.05234, 2·0.05234 + 0.99863
        ([2, 1], "not-turned"),
        ([1.272, -1.839], "sin-cos-swapped"),  # (2 sin 3 − cos 3, 2 cos 3 + sin 3)
        ([-2.121], "wrong-count"),
    ],
)
def test_rope_rotate_names_each_slip(answer, diagnosis):
    assert ch6p.rope_rotate.check(answer).diagnosis == diagnosis


def _loop_rotated_score(q, k, m, n):
    """q_m · k_n by the rotation matrices, written out."""

    def turn(v, a):
        return [math.cos(a) * v[0] - math.sin(a) * v[1], math.sin(a) * v[0] + math.cos(a) * v[1]]

    qm, kn = turn(q, m), turn(k, n)
    return qm[0] * kn[0] + qm[1] * kn[1]


def test_rope_relative_reference_is_offset_only_and_the_solution_passes():
    for case in ch6p.rope_relative.cases():
        q, k, offset = case.args
        if case.batched:
            continue
        for m in (-40, -3, 0, 3, 40):  # negative positions too: n = m + offset < 0 at times
            assert ch6p.rope_relative.reference(q, k, offset) == pytest.approx(
                _loop_rotated_score(q, k, m, m + offset), abs=1e-12
            )

    def reader(q, k, offset):  # the derivation's last line, as a reader writes it
        c, s = math.cos(offset), math.sin(offset)
        return (q[..., 0] * k[..., 0] + q[..., 1] * k[..., 1]) * c + (
            q[..., 1] * k[..., 0] - q[..., 0] * k[..., 1]
        ) * s

    assert ch6p.rope_relative.check(reader).ok


def test_rope_relative_passes_a_solution_that_rotates_to_negative_positions():
    """m = 0, n = offset: the cases with n − m < 0 put the key at a negative position."""
    assert any(case.args[2] < 0 for case in ch6p.rope_relative.cases())

    def by_rotary(q, k, offset):  # the score itself, with the query at position 0
        q0 = ac.rotary(np.asarray(q, dtype=float)[..., None, :], [0])[..., 0, :]
        kn = ac.rotary(np.asarray(k, dtype=float)[..., None, :], [offset])[..., 0, :]
        return (q0 * kn).sum(axis=-1)

    assert ch6p.rope_relative.check(by_rotary).ok


@pytest.mark.parametrize(
    ("answer", "diagnosis"),
    [
        (
            lambda q, k, o: (
                (q * k).sum(-1) * math.cos(o)
                - (q[..., 1] * k[..., 0] - q[..., 0] * k[..., 1]) * math.sin(o)
            ),
            "offset-sign",
        ),
        (lambda q, k, o: (q * k).sum(-1), "plain-dot"),
        (lambda q, k, o: (q * k).sum(-1) * math.cos(o), "cosine-term-only"),
        (lambda q, k, o: 1 / 0, "raised"),
    ],
)
def test_rope_relative_names_each_slip(answer, diagnosis):
    assert ch6p.rope_relative.check(answer).diagnosis == diagnosis


def test_rope_before_after_is_different_by_hand():
    # q = (1, 0), k = (0, 1): offset +1 scores −sin 1, offset −1 scores +sin 1
    assert _loop_rotated_score([1, 0], [0, 1], 0, 1) == pytest.approx(-math.sin(1))
    assert _loop_rotated_score([1, 0], [0, 1], 1, 0) == pytest.approx(math.sin(1))
    assert ch6p.rope_before_after.check("different").ok
    assert ch6p.rope_before_after.check("same").diagnosis == "chose-same"


def _softmax(row):
    e = [math.exp(v) for v in row]
    return [v / sum(e) for v in e]


def test_alibi_weights():
    # slope of head 2 of 8: 2^(-16/8) = 1/4; distances 3, 2, 1, 0
    expected = _softmax([1 - 0.75, 0 - 0.5, 0 - 0.25, 1 - 0])
    np.testing.assert_allclose(ch6p.alibi_weights.expected(), expected, atol=1e-12)
    assert ch6p.alibi_weights.check([round(w, 3) for w in expected]).ok


@pytest.mark.parametrize(
    ("answer", "diagnosis"),
    [
        (_softmax([1 + 0.75, 0 + 0.5, 0 + 0.25, 1]), "bias-sign"),
        # distance counted from the first word: the same weights (a constant shift per row)
        (_softmax([1 - 0, 0 - 0.25, 0 - 0.5, 1 - 0.75]), "bias-sign"),
        (_softmax([1 - 1.5, 0 - 1.0, 0 - 0.5, 1]), "wrong-slope"),  # head 1's slope 1/2
        (_softmax([1, 0, 0, 1]), "no-bias"),
        ([0.25, -0.5, -0.25, 1.0], "scores-not-weights"),
    ],
)
def test_alibi_weights_names_each_slip(answer, diagnosis):
    assert ch6p.alibi_weights.check(answer).diagnosis == diagnosis


def _halves_loop(x, w, positions):
    """Hugging Face's rotate_half RoPE, written out: pair i is (i, i + d/2)."""
    v = x @ w
    d = v.shape[-1]
    out = v.copy()
    for row, p in enumerate(positions):
        for i in range(d // 2):
            a = p * 10_000 ** (-2 * i / d)
            x1, x2 = v[row, i], v[row, i + d // 2]
            out[row, i] = x1 * math.cos(a) - x2 * math.sin(a)
            out[row, i + d // 2] = x1 * math.sin(a) + x2 * math.cos(a)
    return out


def test_rope_layout_reference_is_the_halves_layout_and_the_bug_is_diagnosed_by_name():
    def loop_scores(x, w_q, w_k, positions):  # one sentence
        q, k = _halves_loop(x, w_q, positions), _halves_loop(x, w_k, positions)
        return q @ k.T / math.sqrt(q.shape[-1])

    for case in ch6p.rope_layout.cases():
        want = each_item(loop_scores, *case.args, core=(2, None, None, None))
        np.testing.assert_allclose(ch6p.rope_layout.reference(*case.args), want, atol=1e-10)
    feedback = ch6p.rope_layout.check(ch6p.ported_scores)
    assert feedback.diagnosis == "layout-mismatch" and "layout mismatch" in feedback.message


def test_rope_layout_converting_the_weights_is_also_a_fix():
    import attn_core as ac

    def convert_weights(x, w_q, w_k, positions):
        wq, wk = ac.halves_to_interleaved(w_q), ac.halves_to_interleaved(w_k)
        q, k = ac.rotary(x @ wq, positions), ac.rotary(x @ wk, positions)
        return q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])

    assert ch6p.rope_layout.check(convert_weights).ok


def test_the_concatenated_layout_and_a_frequency_without_d_are_named():
    # p = 3, d = 4: ω = (1, 1/100). All sines, then all cosines: sin 3, sin 0.03, cos 3, cos 0.03.
    concatenated = [math.sin(3), math.sin(0.03), math.cos(3), math.cos(0.03)]
    feedback = ch6p.sin_by_hand.check([round(x, 3) for x in concatenated])
    assert feedback.diagnosis == "concatenated-layout", feedback
    # ω₁ = 10000^(−1) = 10⁻⁴ instead of 10000^(−2/4): sin 3, cos 3, sin 0.0003, cos 0.0003.
    tiny = [math.sin(3), math.cos(3), math.sin(3e-4), math.cos(3e-4)]
    assert ch6p.sin_by_hand.check([round(x, 3) for x in tiny]).diagnosis == "omega-without-d"


def test_turning_by_theta_instead_of_n_theta_is_named():
    # k = (2, 1) turned by 1 radian instead of 3: (2 cos 1 − sin 1, 2 sin 1 + cos 1).
    c, s = math.cos(1), math.sin(1)
    feedback = ch6p.rope_rotate.check([round(2 * c - s, 3), round(2 * s + c, 3)])
    assert feedback.diagnosis == "turned-by-theta", feedback


def test_a_relative_score_divided_by_root_two_is_named():
    def scaled(q, k, offset):
        dot = q[..., 0] * k[..., 0] + q[..., 1] * k[..., 1]
        cross = q[..., 1] * k[..., 0] - q[..., 0] * k[..., 1]
        return (dot * np.cos(offset) + cross * np.sin(offset)) / math.sqrt(2)

    feedback = ch6p.rope_relative.check(scaled)
    assert feedback.diagnosis == "divided-by-root-d", feedback


def test_turning_only_the_queries_in_halves_is_named():
    def half_fix(x, w_q, w_k, positions):
        q = ac.rotary(x @ w_q, positions, layout="halves")
        k = ac.rotary(x @ w_k, positions)  # still interleaved
        return q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])

    feedback = ch6p.rope_layout.check(half_fix)
    assert feedback.diagnosis == "one-side-fixed", feedback
    assert "same layout" in feedback.message


def _skeleton(q, k, offset):
    raise NotImplementedError


def _layout_fixed(x, w_q, w_k, positions):
    """The fix: rotate in the layout the weights were trained with."""
    q = ac.rotary(x @ w_q, positions, layout="halves")  # [..., n, d]
    k = ac.rotary(x @ w_k, positions, layout="halves")
    return q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])  # [..., n, n]


def _interpolated_by_loops(x, positions, factor):
    """One item: row r, pair i turned by (positions[r] / factor) · 10000^(−2i/d), by loops."""
    x = np.asarray(x, dtype=float)
    out = x.copy()
    d = x.shape[-1]
    for r, m in enumerate(np.asarray(positions, dtype=float)):
        for i in range(d // 2):
            a = m / factor * 10000.0 ** (-2 * i / d)
            c, s = math.cos(a), math.sin(a)
            out[r, 2 * i] = c * x[r, 2 * i] - s * x[r, 2 * i + 1]
            out[r, 2 * i + 1] = s * x[r, 2 * i] + c * x[r, 2 * i + 1]
    return out


def test_position_interpolation_divides_the_positions_by_the_factor():
    ex = ch6p.rope_interpolation
    for case in ex.cases():
        x, positions, factor = case.args
        want = each_item(_interpolated_by_loops, x, positions, factor, core=(2, None, None))
        rtol = 1e-5 if x.dtype == np.float32 else 1e-10
        np.testing.assert_allclose(ex.reference(*case.args), want, rtol=rtol, atol=1e-6)
    # d = 2 (θ = 1 radian): position 2 with factor 4 is turned by half a radian
    turned = ex.reference(np.array([[1.0, 0.0]]), [2], 4.0)
    np.testing.assert_allclose(turned, [[math.cos(0.5), math.sin(0.5)]])


def test_position_interpolation_names_a_rule_only_when_every_case_has_it():
    ex = ch6p.rope_interpolation

    def multiplied_but_not_fractions(x, positions, factor):  # times the factor, save one case
        p = np.asarray(positions, dtype=float)
        return ac.rotary(x, p / factor if (p % 1).any() else p * factor)

    def divided_by_twice_the_factor(x, positions, factor):
        return ac.rotary(x, np.asarray(positions) / (2 * factor))

    for answer in (multiplied_but_not_fractions, divided_by_twice_the_factor):
        assert ex.check(answer).diagnosis not in {
            "not-scaled",
            "positions-multiplied",
            "base-multiplied",
            "ntk-base",
        }
    assert ex.check(solution(ex)).ok


# The typed answers the tests give each exercise: a correct one and one wrong answer per
# diagnosis (the buggy function of a find-the-bug and a choice's wrong options are added by
# answer_inputs.mistakes).
ANSWERS = {
    "ch6-rope-interpolation": Answers(
        solution=ch6p._interpolated,
        mistakes=[
            Mistake("the positions as they are", lambda x, p, s: ac.rotary(x, p), "not-scaled"),
            Mistake(
                "times the factor",
                lambda x, p, s: ac.rotary(x, np.asarray(p) * s),
                "positions-multiplied",
            ),
            Mistake(
                "the base times the factor",
                lambda x, p, s: ac.rotary(x, p, base=10_000 * s),
                "base-multiplied",
            ),
            Mistake(
                "the NTK-aware base",
                lambda x, p, s: ac.rotary(
                    x, p, base=10_000 * s ** (x.shape[-1] / (x.shape[-1] - 2))
                ),
                "ntk-base",
            ),
        ],
    ),
    "ch6-sin-by-hand": Answers(
        solution=[0.141, -0.990, 0.030, 1.000],
        mistakes=[
            Mistake(
                "sine and cosine swapped",
                ch6p._pairs(ch6p._P, ch6p._D, ch6p._OMEGA, (np.cos, np.sin)),
                "sin-cos-swapped",
            ),
            Mistake(
                "in degrees", ch6p._pairs(ch6p._P, ch6p._D, np.radians(ch6p._OMEGA)), "degrees"
            ),
            Mistake("ω without the 2", [0.141, -0.990, 0.296, 0.955], "exponent-i-over-d"),
            Mistake("position 4", [-0.757, -0.654, 0.040, 0.999], "counted-from-1"),
            Mistake(
                "sines, then cosines", ch6p._concatenated(ch6p._P, ch6p._D), "concatenated-layout"
            ),
            Mistake("ω₁ = 10⁻⁴", ch6p._pairs(ch6p._P, ch6p._D, [1.0, 1e-4]), "omega-without-d"),
            Mistake("three numbers", [0.141, -0.990, 0.030], "wrong-count"),
        ],
    ),
    "ch6-rope-rotate": Answers(
        solution=[-2.121, -0.708],
        mistakes=[
            Mistake("turned by −3", ch6p._turn(ch6p._K, -3), "turned-backwards"),
            Mistake("3 degrees", ch6p._turn(ch6p._K, math.radians(3)), "degrees"),
            Mistake("the key itself", [2, 1], "not-turned"),
            Mistake("turned by θ", ch6p._turn(ch6p._K, 1.0), "turned-by-theta"),
            Mistake("swapped", [1.272, -1.839], "sin-cos-swapped"),
        ],
    ),
    "ch6-rope-relative": Answers(
        solution=ch6p._relative_score,
        mistakes=[
            Mistake(
                "m − n", lambda q, k, offset: ch6p._relative_score(q, k, -offset), "offset-sign"
            ),
            Mistake("q·k", lambda q, k, offset: ch6p._dot(q, k), "plain-dot"),
            Mistake(
                "cos only",
                lambda q, k, offset: ch6p._dot(q, k) * math.cos(offset),
                "cosine-term-only",
            ),
            Mistake(
                "divided by √2",
                lambda q, k, offset: ch6p._relative_score(q, k, offset) / math.sqrt(2),
                "divided-by-root-d",
            ),
            Mistake("skeleton", _skeleton, "unanswered"),
        ],
    ),
    "ch6-alibi-weights": Answers(
        solution=[0.238, 0.113, 0.145, 0.505],
        mistakes=[
            Mistake("head 3's slope 1/8", [0.299, 0.125, 0.141, 0.435], "wrong-slope"),
            Mistake(
                "bias added",
                ch6p._alibi_with(ch6p._ALIBI_SCORES, 8, 2, lambda m, d: m * d),
                "bias-sign",
            ),
            Mistake(
                "from the first word",  # the same weights: a constant shift of the row
                ch6p._alibi_with(ch6p._ALIBI_SCORES, 8, 2, lambda m, d: -m * d[::-1]),
                "bias-sign",
            ),
            Mistake(
                "head 1's slope",
                ch6p._alibi_with(ch6p._ALIBI_SCORES, 8, 2, lambda m, d: -0.5 * d),
                "wrong-slope",
            ),
            Mistake("no bias", ac.softmax(ch6p._ALIBI_SCORES), "no-bias"),
            Mistake("the biased scores", [0.25, -0.5, -0.25, 1.0], "scores-not-weights"),
        ],
    ),
    "ch6-rope-bug-layout": Answers(
        solution=_layout_fixed,
        mistakes=[
            Mistake("converted backwards", ch6p._backwards_conversion, "conversion-backwards"),
            Mistake("rotation removed", ch6p._unrotated_scores, "no-rotation"),
            Mistake("only the queries in halves", ch6p._half_fixed, "one-side-fixed"),
            Mistake("only the keys in halves", ch6p._half_fixed_keys, "one-side-fixed"),
        ],
    ),
}


def test_head_3s_slope_is_named_not_called_rounding():
    feedback = ch6p.alibi_weights.check([0.299, 0.125, 0.141, 0.435])  # slope 1/8, head 3
    assert feedback.diagnosis == "wrong-slope", feedback
    assert "rounding" not in feedback.message
