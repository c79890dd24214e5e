"""Top-k sparse attention (DeepSeek Sparse Attention's indexer and selection), against loops:
the indexer's sum written term by term, the selection by sorting each row in Python, and
attention over the selected keys gathered by hand; the cost multiplied out by hand."""

import math

import numpy as np
import pytest

import attn_core as ac


def _index_by_loops(q, k, w):
    L, H, S = q.shape[0], q.shape[1], k.shape[0]
    out = np.zeros((L, S))
    for t in range(L):
        for s in range(S):
            out[t, s] = sum(w[t, j] * max(0.0, float(q[t, j] @ k[s])) for j in range(H))
    return out


def _top_k_by_sorting(scores, k, causal=True):
    L, S = scores.shape
    keep = np.zeros((L, S), bool)
    for i in range(L):
        seen = range(S - L + i + 1) if causal else range(S)
        best = sorted(seen, key=lambda j: (-scores[i, j], j))[:k]  # ties: the earlier key
        keep[i, best] = True
    return keep


@pytest.mark.parametrize("seed", range(3))
def test_index_scores_equal_the_sum_term_by_term(seed):
    rng = np.random.default_rng(seed)
    L, S, H, d = 4, 7, 3, 5
    q, k, w = rng.standard_normal((L, H, d)), rng.standard_normal((S, d)), rng.random((L, H))
    np.testing.assert_allclose(
        ac.lightning_index_scores(q, k, w), _index_by_loops(q, k, w), rtol=1e-13
    )


def test_index_scores_take_batch_axes():
    rng = np.random.default_rng(3)
    q, k, w = (
        rng.standard_normal((2, 4, 3, 5)),
        rng.standard_normal((2, 6, 5)),
        rng.random((2, 4, 3)),
    )
    got = ac.lightning_index_scores(q, k, w)
    for b in range(2):
        np.testing.assert_allclose(got[b], _index_by_loops(q[b], k[b], w[b]), rtol=1e-13)


@pytest.mark.parametrize(
    ("L", "S", "k", "causal"), [(6, 6, 3, True), (2, 9, 4, True), (5, 8, 2, False)]
)
def test_top_k_mask_equals_sorting_each_row(L, S, k, causal):
    rng = np.random.default_rng(L * S + k)
    scores = rng.integers(0, 4, (L, S)).astype(float)  # many ties
    np.testing.assert_array_equal(
        ac.top_k_mask(scores, k, causal=causal), _top_k_by_sorting(scores, k, causal)
    )


def test_each_row_keeps_k_keys_or_all_it_sees():
    mask = ac.top_k_mask(np.random.default_rng(4).standard_normal((3, 10, 10)), 4)
    np.testing.assert_array_equal(mask.sum(-1), np.minimum(np.arange(1, 11), 4) + np.zeros((3, 1)))
    assert not (mask & ~ac.causal_mask(10)).any()  # never a future key


def test_a_minus_inf_score_is_never_selected():
    mask = ac.top_k_mask([[0.0, -np.inf, 1.0]], 3, causal=False)
    np.testing.assert_array_equal(mask, [[True, False, True]])


@pytest.mark.parametrize("seed", range(3))
def test_sparse_attention_equals_attention_over_the_gathered_keys(seed):
    rng = np.random.default_rng(seed)
    T, d, H_I, d_I, k = 9, 4, 2, 3, 3
    q, key, v = (
        rng.standard_normal((T, d)),
        rng.standard_normal((T, d)),
        rng.standard_normal((T, 2)),
    )
    index = ac.lightning_index_scores(
        rng.standard_normal((T, H_I, d_I)), rng.standard_normal((T, d_I)), rng.random((T, H_I))
    )
    mask = ac.top_k_mask(index, k)
    out = ac.scaled_dot_product_attention(q, key, v, mask)
    for t in range(T):
        chosen = sorted(range(t + 1), key=lambda s: (-index[t, s], s))[:k]
        scores = [float(q[t] @ key[s]) / math.sqrt(d) for s in chosen]
        exps = [math.exp(x - max(scores)) for x in scores]
        want = sum(e * v[s] for e, s in zip(exps, chosen, strict=True)) / sum(exps)
        np.testing.assert_allclose(out[t], want, rtol=1e-12)


def test_top_k_at_least_s_is_causal_attention():
    rng = np.random.default_rng(5)
    q, key, v = (
        rng.standard_normal((3, 5, 4)),
        rng.standard_normal((3, 5, 4)),
        rng.standard_normal((3, 5, 2)),
    )
    mask = ac.top_k_mask(rng.standard_normal((3, 5, 5)), 5)
    np.testing.assert_allclose(
        ac.scaled_dot_product_attention(q, key, v, mask),
        ac.scaled_dot_product_attention(q, key, v, is_causal=True),
        rtol=1e-13,
    )


def test_sparse_cost_by_hand():
    B, H, L, S, d, k, H_I, d_I = 2, 3, 4, 100, 8, 10, 5, 6
    cost = ac.sparse_attention_cost(
        B, H, L, S, d, k, index_heads=H_I, index_dim=d_I, dtype=np.float16
    )
    assert cost.sparse.qk_flops == 2 * B * H * L * k * d
    assert cost.sparse.av_flops == 2 * B * H * L * k * d
    assert cost.dense.qk_flops == 2 * B * H * L * S * d
    assert cost.index_flops == 2 * B * L * S * H_I * d_I
    assert cost.sparse.input_bytes == B * H * (L * d + L * k * 2 * d) * 2  # 40 keys touched
    assert cost.dense.input_bytes == B * H * (L * d + S * 2 * d) * 2
    total = cost.sparse.matmul_flops + cost.index_flops
    assert cost.flops_ratio == pytest.approx(cost.dense.matmul_flops / total)
    whole = ac.sparse_attention_cost(1, 1, 50, 60, 4, 10, index_heads=1, index_dim=1)
    assert whole.sparse.input_bytes == (50 * 4 + 60 * 8) * 4  # at most all S keys touched
    assert ac.sparse_attention_cost(1, 1, 1, 5, 4, 99, index_heads=1, index_dim=1).sparse == (
        ac.attention_cost(1, 1, 1, 5, 4)
    )


def test_bad_input_names_itself():
    with pytest.raises(
        ValueError, match=r"got query \(4, 3\), key \(5, 3\), head_weights \(4, 2\)"
    ):
        ac.lightning_index_scores(np.ones((4, 3)), np.ones((5, 3)), np.ones((4, 2)))
    with pytest.raises(ValueError, match=r"with the same L, H_I and d_I: got query \(4, 2, 3\)"):
        ac.lightning_index_scores(np.ones((4, 2, 3)), np.ones((5, 3)), np.ones((4, 3)))
    with pytest.raises(ValueError, match="k must be an integer >= 1, got 0"):
        ac.top_k_mask(np.zeros((2, 2)), 0)
    with pytest.raises(ValueError, match=r"so L <= S: scores have shape \(3, 2\)"):
        ac.top_k_mask(np.zeros((3, 2)), 1)
    with pytest.raises(ValueError, match=r"scores must be \(..., L, S\)"):
        ac.top_k_mask(np.zeros(3), 1)
    with pytest.raises(ValueError, match="top_k must be an integer >= 1"):
        ac.sparse_attention_cost(1, 1, 1, 5, 4, 0, index_heads=1, index_dim=1)
