"""The two-head example: head 0 looks at the previous token, head 1 at the same word."""

import math

import numpy as np

import attn_core as ac
from attn_book.data import TWO_HEAD_SENTENCE, two_head_example


def test_head_0_scores_by_position_and_head_1_by_word():
    ex = two_head_example(strength=8.0)
    q, k = ex.x @ ex.w_q, ex.x @ ex.w_k
    T = len(TWO_HEAD_SENTENCE)
    for i in range(T):
        for j in range(T):
            by_position = 8.0 if j == max(i - 1, 0) else 0.0
            by_word = 8.0 if TWO_HEAD_SENTENCE[i] == TWO_HEAD_SENTENCE[j] else 0.0
            assert sum(q[i, m] * k[j, m] for m in range(5)) == by_position
            assert sum(q[i, m] * k[j, m] for m in range(5, 10)) == by_word


def test_the_weights_of_each_head_by_hand():
    ex = two_head_example()
    _, weights = ac.multi_head_attention(ex.x, ex.x, ex.w_q, ex.w_k, ex.w_v, ex.w_o, ex.n_heads)
    e = math.exp(8 / math.sqrt(5))  # a match, scaled by 1/√d_head with d_head = 5
    # head 0, "saw" (position 2): one match among five keys
    np.testing.assert_allclose(
        weights[0, 2], [1 / (e + 4), e / (e + 4), 1 / (e + 4), 1 / (e + 4), 1 / (e + 4)]
    )
    # head 1, "the": two matches (positions 0 and 3) among five keys
    both = e / (2 * e + 3)
    np.testing.assert_allclose(
        weights[1, 0], [both, 1 / (2 * e + 3), 1 / (2 * e + 3), both, 1 / (2 * e + 3)]
    )


def test_each_call_returns_fresh_arrays():
    a, b = two_head_example(), two_head_example()
    a.x[0, 0] = 99.0
    assert b.x[0, 0] == 1.0
