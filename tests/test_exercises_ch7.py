"""Chapter 7's exercises against values derived by hand or with plain-Python loops."""

import math

import numpy as np

from attn_book.exercises import ch07_heads_and_masks as ch7


def _softmax_loop(row):
    """A plain-Python softmax over the finite entries of ``row``; -inf entries get 0."""
    exps = [math.exp(s) if s != -math.inf else 0.0 for s in row]
    return [e / sum(exps) for e in exps]


def test_padding_by_hand_is_a_softmax_over_the_two_real_keys():
    # q = (1, 0); real keys (1, 0) and (0, 1): scores 1 and 0, scaled by 1/√2; the third is padding
    e = math.exp(1 / math.sqrt(2))
    expected = [e / (e + 1), 1 / (e + 1), 0.0]
    np.testing.assert_allclose(ch7.padding_by_hand.expected(), expected)
    assert ch7.padding_by_hand.check([0.670, 0.330, 0.0]).ok


def test_key_padding_weights_by_loops():
    q, k, kpm = ch7.key_padding_weights.cases()[1].args  # the batch
    for b in range(2):
        for i in range(3):
            row = [
                -math.inf
                if kpm[b, j]
                else sum(q[b, i, m] * k[b, j, m] for m in range(4)) / math.sqrt(4)
                for j in range(4)
            ]
            np.testing.assert_allclose(
                ch7.key_padding_weights.reference(q, k, kpm)[b, i], _softmax_loop(row)
            )


def test_the_heads_split_by_hand():
    # 3 positions × 4 features, 2 heads: head 0 holds features 0 and 1 of every position
    x = np.arange(12.0).reshape(3, 4)
    fixed = ch7.heads_reshape.solution(x, 2)
    assert fixed[0].tolist() == [[0, 1], [4, 5], [8, 9]]
    assert fixed[1].tolist() == [[2, 3], [6, 7], [10, 11]]
    assert ch7.heads_reshape.buggy(x, 2)[0].tolist() == [[0, 1], [2, 3], [4, 5]]  # positions 0, 1


def test_heads_cost_counts_multiply_adds():
    d_model, n_heads, L = 512, 8, 10
    one_wide = L * L * d_model
    many = n_heads * L * L * (d_model // n_heads)
    assert one_wide == many and ch7.heads_cost.check("×1").ok


def test_float16_cannot_hold_minus_1e9():
    with np.errstate(over="ignore"):
        assert np.float16(-1e9) == -np.inf
    assert ch7.float16_fill.check("nan").ok


def test_float16_fill_statement_gives_nan_in_any_numpy():
    # The chapter's statement casts explicitly, so the answer does not depend on NEP 50:
    # -1e9 overflows float16 to -inf, and a plain softmax of an all -inf row is NaN.
    scores = np.zeros(4, dtype=np.float16)
    mask = np.zeros(4, dtype=bool)  # every key masked
    with np.errstate(over="ignore", invalid="ignore"):
        filled = np.where(mask, scores, -1e9).astype(np.float16)
        exps = np.exp(filled - filled.max())
        row = exps / exps.sum()
    assert filled.dtype == np.float16 and np.isneginf(filled).all()
    assert np.isnan(row).all()
    assert ch7.float16_fill.check("NaN").ok
