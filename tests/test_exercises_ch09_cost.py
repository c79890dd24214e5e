"""The exercises of ch09_cost: solutions and the wrong answers each diagnosis names."""

import math

import numpy as np

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
    # 32768 = 2^15 tokens: 2^30 weights of 2 bytes each = 2 GiB
    assert ch9.weights_memory.expected() == 2.0
    assert ch9.weights_memory.check(2).ok
    assert ch9.weights_memory.check(4).diagnosis == "float32-bytes"
    assert ch9.weights_memory.check(2**31 / 1e9).diagnosis == "decimal-gigabytes"
    assert ch9.weights_memory.check(2**31).diagnosis == "bytes-not-gib"  # 2^30 · 2 bytes
    assert ch9.weights_memory.check(32 * 2).diagnosis == "counted-32-heads"  # the text's model


def test_online_step_by_hand():
    # state after key 2: m = 0, l = 1, o = (0, 2); key 1 arrives with s = 1/√2, v = (2, 0)
    r = math.exp(-1 / math.sqrt(2))  # e^(0 - 0.707): the old terms shrink
    expected = [1 * r + 1, 0 * r + 2, 2 * r + 0]  # the new term is e^(s - s) = 1
    np.testing.assert_allclose(ch9.online_step.expected(), expected)
    assert ch9.online_step.check([1.493, 2.0, 0.986]).ok
    assert ch9.online_step.check([2.0, 2.0, 2.0]).diagnosis == "no-rescale"
    assert ch9.online_step.check([1 / r + 1, 2.0, 2 / r]).diagnosis == "rescale-inverted"
    l_new, o_new = expected[0], expected[1:]
    divided = [l_new, o_new[0] / l_new, o_new[1] / l_new]  # o / ℓ where o was asked
    assert ch9.online_step.check(divided).diagnosis == "divided-already"


def test_merge_halves_by_hand():
    # half A: key 2 (score 0, value (0, 2));
    # half B: keys 1 and 3 (scores 1/√2, values (2, 0) and (1, 1))
    s = 1 / math.sqrt(2)
    m_a, l_a, o_a = 0.0, 1.0, np.array([0.0, 2.0])
    m_b, l_b, o_b = s, 2.0, np.array([3.0, 1.0])  # e^(s - s) = 1 for both keys
    m = max(m_a, m_b)
    r_a, r_b = math.exp(m_a - m), math.exp(m_b - m)
    expected = [r_a * l_a + r_b * l_b, *(r_a * o_a + r_b * o_b)]
    np.testing.assert_allclose(ch9.merge_halves.expected(), expected)
    # the merged state, divided, is the worked example's output (1.203, 0.797)
    np.testing.assert_allclose(np.array(expected[1:]) / expected[0], [1.2030, 0.7970], atol=5e-4)
    assert ch9.merge_halves.check(expected).ok
    assert ch9.merge_halves.check([l_a + l_b, *(o_a + o_b)]).diagnosis == "merged-without-rescale"
    r = math.exp(m_b - m_a)  # measured from the smaller max: B's terms grow by e^0.707
    smaller = [l_a + r * l_b, *(o_a + r * o_b)]
    assert ch9.merge_halves.check(smaller).diagnosis == "merged-under-smaller-max"
    divided = [expected[0], *(np.array(expected[1:]) / expected[0])]
    assert ch9.merge_halves.check(divided).diagnosis == "divided-already"


def test_the_bug_reference_is_attention_by_loops():
    for case in ch9.online_sum.cases():
        q, k, v, block = case.args
        expected = np.array(
            [_attention_loop(*xs) for xs in zip(q, k, v, strict=True)]
            if case.batched
            else _attention_loop(q, k, v)
        )
        np.testing.assert_allclose(ch9.online_sum.reference(q, k, v, block), expected)
        np.testing.assert_allclose(ch9.online_sum.solution(q, k, v, block), expected)


def test_the_bug_shows_only_when_the_max_moves():
    q, k, v = np.array([[1.0, 0.0]]), np.outer([3.0, 2.0, 1.0], [1.0, 0.0]), np.eye(3)
    # scores fall along the keys: the first block holds the max, the rescale is always 1
    np.testing.assert_allclose(ch9.blockwise_attention(q, k, v, 1), _attention_loop(q, k, v))
    rising = k[::-1]  # now the max moves with every key and the running sum is too large
    buggy = ch9.blockwise_attention(q, rising, v, 1)
    assert buggy.sum() < 1 - 0.1  # the weights of one-hot values no longer add up to 1
    assert ch9.online_sum.check(ch9.blockwise_attention).diagnosis == "sum-not-rescaled"


def test_time_slope_with_d_k_growing_like_n_tends_to_3():
    # FLOPs of both products with d_k = d_v = n / 16: 4 n² (n / 16) = n³ / 4
    first, last, ratio = ch9.time_slope.inputs
    flops = {n: 4 * n * n * (n // ratio) for n in (first, 2 * first, last)}
    assert math.log2(flops[2 * first] / flops[first]) == 3
    assert ch9.time_slope.check("3").ok and ch9.time_slope.check("2").diagnosis == "chose-2"
