"""The exercises of ch09_cost: solutions and the wrong answers each diagnosis names."""

import math

import numpy as np
import pytest
from answer_inputs import Answers, Mistake, each_item, solution

from attn_book.exercises import ch09_cost as ch9


def _attention_loop(q, k, v):
    """softmax(q kᵀ / √E) v for one batch element, with plain floats."""
    rows = []
    for qi in q.tolist():
        s = [
            sum(a * b for a, b in zip(qi, kj, strict=True)) / math.sqrt(len(qi))
            for kj in k.tolist()
        ]
        e = [math.exp(x - max(s)) for x in s]
        rows.append(
            [
                sum(w * vj[c] for w, vj in zip(e, v.tolist(), strict=True)) / sum(e)
                for c in range(v.shape[1])
            ]
        )
    return np.array(rows)


def test_weights_memory_by_hand():
    # 65536 = 2^16 tokens: 2^32 weights of 4 bytes each = 2^34 bytes = 16 GiB
    assert ch9.weights_memory.expected() == 16.0
    assert ch9.weights_memory.check(16).ok
    assert ch9.weights_memory.check(8).diagnosis == "float16-bytes"
    assert ch9.weights_memory.check(2**34 / 1e9).diagnosis == "decimal-gigabytes"
    assert ch9.weights_memory.check(2**34).diagnosis == "bytes-not-gib"  # 2^32 · 4 bytes
    assert ch9.weights_memory.check(32 * 16).diagnosis == "counted-32-heads"  # the text's model
    assert ch9.weights_memory.check(2**16 * 4 / 2**30).diagnosis == "not-squared"


def test_online_step_by_hand():
    # state m = 0, l = 1, o = (0, 2); a key arrives with s = 1, v = (1, 3)
    r = math.exp(-1.0)  # e^(0 - 1): the old terms shrink
    expected = [1 * r + 1, 0 * r + 1, 2 * r + 3]  # the new term is e^(s - s) = 1
    np.testing.assert_allclose(ch9.online_step.expected(), expected)
    assert ch9.online_step.check([1.368, 1.0, 3.736]).ok
    assert ch9.online_step.check([2.0, 1.0, 5.0]).diagnosis == "no-rescale"
    assert ch9.online_step.check([1 / r + 1, 1.0, 2 / r + 3]).diagnosis == "rescale-inverted"
    e = math.e  # the new term left as e^s = e^1
    assert ch9.online_step.check([r + e, e, 2 * r + 3 * e]).diagnosis == "new-term-not-shifted"
    l_new, o_new = expected[0], expected[1:]
    divided = [l_new, o_new[0] / l_new, o_new[1] / l_new]  # o / ℓ where o was asked
    assert ch9.online_step.check(divided).diagnosis == "divided-already"


def test_merge_halves_by_hand():
    # half A: scores 1 and 0, values (1, 0) and (0, 1); half B: score 2, value (1, 1)
    m_a, l_a, o_a = 1.0, 1 + math.exp(-1), np.array([1.0, math.exp(-1)])
    m_b, l_b, o_b = 2.0, 1.0, np.array([1.0, 1.0])
    m = max(m_a, m_b)
    r_a, r_b = math.exp(m_a - m), math.exp(m_b - m)
    expected = [r_a * l_a + r_b * l_b, *(r_a * o_a + r_b * o_b)]
    np.testing.assert_allclose(ch9.merge_halves.expected(), expected)
    # the merged state, divided, is softmax([1, 0, 2]) @ values, by loops
    w = np.exp([1.0, 0.0, 2.0]) / np.exp([1.0, 0.0, 2.0]).sum()
    values = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    np.testing.assert_allclose(np.array(expected[1:]) / expected[0], w @ values)
    assert ch9.merge_halves.check(expected).ok
    assert ch9.merge_halves.check([l_a + l_b, *(o_a + o_b)]).diagnosis == "merged-without-rescale"
    r = math.exp(m_b - m_a)  # measured from the smaller max: B's terms grow by e^1
    smaller = [l_a + r * l_b, *(o_a + r * o_b)]
    assert ch9.merge_halves.check(smaller).diagnosis == "merged-under-smaller-max"
    divided = [expected[0], *(np.array(expected[1:]) / expected[0])]
    assert ch9.merge_halves.check(divided).diagnosis == "divided-already"


def test_the_stated_tolerance_holds_for_the_merge():
    # three decimals: the honest roundings of 1.50321 (1.503) pass, one unit off does not
    ex = ch9.merge_halves
    assert "checked to within 0.0005" in ex.check(solution(ex)).message
    assert ex.check([1.504, 1.368, 1.135]).diagnosis == "rounding"
    assert ex.check([1.503 + 0.006, 1.368, 1.135]).status == "wrong"


def test_the_bug_reference_is_attention_by_loops():
    for case in ch9.online_sum.cases():
        q, k, v, block = case.args
        expected = each_item(_attention_loop, q, k, v, core=(2, 2, 2))
        # float32 keeps about 7 digits; scores near -2e9 hold theirs to ~4e-7 in float64
        rtol = 1e-5 if q.dtype == np.float32 or "10⁹" in case.label else 1e-7
        np.testing.assert_allclose(ch9.online_sum.reference(q, k, v, block), expected, rtol=rtol)
        np.testing.assert_allclose(solution(ch9.online_sum)(q, k, v, block), expected, rtol=rtol)


def test_the_bug_shows_only_when_the_max_moves():
    q, k, v = np.array([[1.0, 0.0]]), np.outer([3.0, 2.0, 1.0], [1.0, 0.0]), np.eye(3)
    # scores fall along the keys: the first block holds the max, the rescale is always 1
    np.testing.assert_allclose(ch9.blockwise_attention(q, k, v, 1), _attention_loop(q, k, v))
    rising = k[::-1]  # now the max moves with every key and the running sum is too large
    buggy = ch9.blockwise_attention(q, rising, v, 1)
    assert buggy.sum() < 1 - 0.1  # the weights of one-hot values no longer add up to 1
    assert ch9.online_sum.check(ch9.blockwise_attention).diagnosis == "sum-not-rescaled"


def test_an_upside_down_rescale_is_named():
    def inverted(q, k, v, block):  # e^(m_new - m_old): inf on the first block, then NaN
        scale = 1 / math.sqrt(q.shape[-1])
        m, total = np.full((*q.shape[:-1], 1), -np.inf), np.zeros((*q.shape[:-1], 1))
        out = np.zeros((*q.shape[:-1], v.shape[-1]))
        for start in range(0, k.shape[-2], block):
            s = q @ np.swapaxes(k[..., start : start + block, :], -1, -2) * scale
            new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
            rescale, e = np.exp(new_m - m), np.exp(s - new_m)
            total = total * rescale + e.sum(axis=-1, keepdims=True)
            out = out * rescale + e @ v[..., start : start + block, :]
            m = new_m
        return out / total

    with np.errstate(invalid="ignore", over="ignore"):
        assert np.isnan(inverted(np.ones((1, 2)), np.ones((3, 2)), np.ones((3, 2)), 2)).all()
    assert ch9.online_sum.check(inverted).diagnosis == "rescale-inverted"
    assert ch9.online_sum.check(solution(ch9.online_sum)).ok


def test_time_slope_with_d_k_growing_like_n_tends_to_3():
    # FLOPs of both products with d_k = d_v = n / 16: 4 n² (n / 16) = n³ / 4
    first, last, ratio = ch9.time_slope.inputs
    flops = {n: 4 * n * n * (n // ratio) for n in (first, 2 * first, last)}
    assert math.log2(flops[2 * first] / flops[first]) == 3
    assert ch9.time_slope.check("3").ok and ch9.time_slope.check("2").diagnosis == "chose-2"


def _fixed_blockwise(q, k, v, block):
    return ch9._blockwise(q, k, v, block)


def _rescale_inverted(q, k, v, block):
    """The slip e^(m_new − m_old) for the rescale: inf on the first block, so NaN."""
    return ch9._blockwise(q, k, v, block, inverted=True)


def _no_running_max(q, k, v, block):
    """The slip: blocks summed with plain exponentials, no running maximum; e^4000 overflows."""
    total, out = 0.0, 0.0
    for start in range(0, k.shape[-2], block):
        s = q @ np.swapaxes(k[..., start : start + block, :], -1, -2) / math.sqrt(q.shape[-1])
        total = total + np.exp(s).sum(axis=-1, keepdims=True)
        out = out + np.exp(s) @ v[..., start : start + block, :]
    return out / total


# The typed answers the tests give each exercise: a correct one and one wrong answer per
# diagnosis (the buggy function of a find-the-bug and a choice's wrong options are added by
# answer_inputs.mistakes).
ANSWERS = {
    "ch9-weights-memory": Answers(
        solution=16.0,
        mistakes=[
            Mistake("float16's 2 bytes", 8.0, "float16-bytes"),
            Mistake("float64's 8 bytes", 32.0, "float64-bytes"),
            Mistake("32 bits as 32 bytes", 128.0, "bits-not-bytes"),
            Mistake("decimal GB", 17.18, "decimal-gigabytes"),
            Mistake("n, not n²", 65536 * 4 / ch9.GIB, "not-squared"),
            Mistake("bytes", 2**34, "bytes-not-gib"),
            Mistake("the text's 32 heads", 512.0, "counted-32-heads"),
        ],
    ),
    "ch9-online-step": Answers(
        solution=[1.368, 1.0, 3.736],
        mistakes=[
            Mistake("no rescale", [2.0, 1.0, 5.0], "no-rescale"),
            Mistake("rescale upside down", [3.718, 1.0, 8.437], "rescale-inverted"),
            Mistake("new term unshifted", [3.086, 2.718, 8.891], "new-term-not-shifted"),
            Mistake("o divided by ℓ", [1.368, 0.731, 2.731], "divided-already"),
        ],
    ),
    "ch9-merge-halves": Answers(
        solution=[1.503, 1.368, 1.135],
        mistakes=[
            Mistake("no rescale", [2.368, 2.0, 1.368], "merged-without-rescale"),
            Mistake("under the smaller max", [4.086, 3.718, 3.086], "merged-under-smaller-max"),
            Mistake("the output, divided", [1.503, 0.910, 0.755], "divided-already"),
        ],
    ),
    "bug-online-sum": Answers(
        solution=_fixed_blockwise,
        mistakes=[
            Mistake("no running max", _no_running_max, "nan-large-scores"),
            Mistake(
                "the output no longer rescaled", ch9._output_not_rescaled, "output-not-rescaled"
            ),
            Mistake("the rescale upside down", _rescale_inverted, "rescale-inverted"),
        ],
    ),
}


@pytest.mark.parametrize("typed", ["n^2", "n**2", "n²", "N ^ 2"])
def test_the_slope_reads_n_to_a_power_as_chapter_10_does(typed):
    assert ch9.time_slope.check(typed).diagnosis == ch9.time_slope.check("2").diagnosis
    assert ch9.time_slope.check(typed).diagnosis != "not-an-option"


def test_an_online_softmax_without_its_running_max_overflows_on_large_scores():
    feedback = ch9.online_sum.check(_no_running_max)
    assert feedback.diagnosis == "nan-large-scores", feedback
