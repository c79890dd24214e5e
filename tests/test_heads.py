"""The head split, multi-head attention, SimpleSelfAttention and the toy embeddings."""

import math

import numpy as np
import pytest
import reference as ref

from attn_book.data import SENTENCE_EN, SENTENCE_KO, toy_embeddings
from attn_core import (
    SimpleSelfAttention,
    attention_weights,
    causal_mask,
    merge_heads,
    multi_head_attention,
    split_heads,
)


def test_split_heads_takes_column_blocks_by_hand():
    x = np.arange(12.0).reshape(2, 6)  # T = 2 positions, D = 6 features, 3 heads of 2
    heads = split_heads(x, 3)
    assert heads.shape == (3, 2, 2)
    for h in range(3):
        assert heads[h].tolist() == ref.columns(x.tolist(), 2 * h, 2 * h + 2)
    assert heads[1].tolist() == [[2.0, 3.0], [8.0, 9.0]]


def test_split_heads_is_not_a_plain_reshape():
    x = np.arange(12.0).reshape(2, 6)
    wrong = x.reshape(3, 2, 2)  # the classic bug: a view without the transpose
    assert not np.array_equal(split_heads(x, 3), wrong)
    assert wrong[0].tolist() == [[0.0, 1.0], [2.0, 3.0]]  # it mixes position 0's heads


@pytest.mark.parametrize(("shape", "n_heads"), [((4, 6), 1), ((4, 6), 6), ((2, 3, 8), 4)])
def test_split_then_merge_round_trips(rng, shape, n_heads):
    x = rng.normal(size=shape)
    heads = split_heads(x, n_heads)
    assert heads.shape == (*shape[:-2], n_heads, shape[-2], shape[-1] // n_heads)
    np.testing.assert_array_equal(merge_heads(heads), x)
    np.testing.assert_array_equal(split_heads(merge_heads(heads), n_heads), heads)


def test_batched_split_heads_matches_column_slices(rng):
    x = rng.normal(size=(2, 5, 6))
    heads = split_heads(x, 2)
    for b in range(2):
        for h in range(2):
            np.testing.assert_array_equal(heads[b, h], x[b, :, 3 * h : 3 * h + 3])


def projections(rng, D, Dv=None):
    Dv = D if Dv is None else Dv
    return [rng.normal(size=s) for s in [(D, D), (D, D), (D, Dv), (Dv, D)]]


@pytest.mark.parametrize(("L", "S", "D", "H"), [(3, 3, 4, 2), (2, 5, 6, 3), (4, 4, 8, 1)])
def test_multi_head_matches_loop_over_heads(rng, L, S, D, H):
    x_q, x_kv = rng.normal(size=(L, D)), rng.normal(size=(S, D))
    ws = projections(rng, D)
    out, weights = multi_head_attention(x_q, x_kv, *ws, n_heads=H)
    out_ref, w_ref = ref.multi_head(x_q.tolist(), x_kv.tolist(), *(w.tolist() for w in ws), H)
    assert out.shape == (L, D) and weights.shape == (H, L, S)
    np.testing.assert_allclose(weights, w_ref, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out, out_ref, rtol=1e-11, atol=1e-13)


def test_multi_head_scales_by_d_head_not_d_model(rng):
    D, H = 8, 4
    x = rng.normal(size=(3, D))
    ws = projections(rng, D)
    _, weights = multi_head_attention(x, x, *ws, n_heads=H)
    q, k = split_heads(x @ ws[0], H), split_heads(x @ ws[1], H)
    by_d_head = attention_weights(q, k, scale=1 / math.sqrt(D // H))
    by_d_model = attention_weights(q, k, scale=1 / math.sqrt(D))
    np.testing.assert_allclose(weights, by_d_head, rtol=1e-14)
    assert not np.allclose(weights, by_d_model)


def test_multi_head_causal_and_batch_match_loop(rng):
    B, T, D, H = 2, 4, 6, 3
    x = rng.normal(size=(B, T, D))
    ws = projections(rng, D)
    out, weights = multi_head_attention(x, x, *ws, n_heads=H, is_causal=True)
    masked, _ = multi_head_attention(x, x, *ws, n_heads=H, attn_mask=causal_mask(T))
    np.testing.assert_array_equal(out, masked)
    for b in range(B):
        lists = [w.tolist() for w in ws]
        out_ref, w_ref = ref.multi_head(x[b].tolist(), x[b].tolist(), *lists, H, causal=True)
        np.testing.assert_allclose(out[b], out_ref, rtol=1e-11, atol=1e-13)
        np.testing.assert_allclose(weights[b], w_ref, rtol=1e-12, atol=1e-15)


def test_multi_head_with_value_width_different_from_d_model(rng):
    L, D, Dv, H = 3, 4, 6, 2
    x = rng.normal(size=(L, D))
    ws = projections(rng, D, Dv)
    out, _ = multi_head_attention(x, x, *ws, n_heads=H)
    out_ref, _ = ref.multi_head(x.tolist(), x.tolist(), *(w.tolist() for w in ws), H)
    np.testing.assert_allclose(out, out_ref, rtol=1e-11, atol=1e-13)


def simple_self_attention_by_loop(layer, x):
    """The explainer's forward pass, one example at a time: x W + b, scores / sqrt(D), softmax."""
    D = layer.embed_dim
    outs, attns = [], []
    for example in x.tolist():
        q, k, v = (ref.add_bias(ref.matmul(example, w.tolist()), b.tolist()) for w, b in
                   (layer.query, layer.key, layer.value))  # fmt: skip
        weights, out = ref.attention(q, k, v, scale=1 / math.sqrt(D))
        outs.append(out)
        attns.append(weights)
    return outs, attns


def test_simple_self_attention_matches_loop(rng):
    layer = SimpleSelfAttention(4, rng)
    x = rng.normal(size=(2, 3, 4))
    out, attn = layer(x)
    out_ref, attn_ref = simple_self_attention_by_loop(layer, x)
    assert out.shape == (2, 3, 4) and attn.shape == (2, 3, 3)
    np.testing.assert_allclose(out, out_ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(attn, attn_ref, rtol=1e-12, atol=1e-15)


def test_simple_self_attention_initialises_like_nn_linear():
    D = 16
    layer = SimpleSelfAttention(D, np.random.default_rng(3))
    again = SimpleSelfAttention(D, np.random.default_rng(3))
    for (w, b), (w2, b2) in zip(
        (layer.query, layer.key, layer.value), (again.query, again.key, again.value), strict=True
    ):
        assert w.shape == (D, D) and b.shape == (D,)
        assert np.abs(w).max() <= 1 / math.sqrt(D) and np.abs(b).max() <= 1 / math.sqrt(D)
        np.testing.assert_array_equal(w, w2)  # the same seed gives the same layer
        np.testing.assert_array_equal(b, b2)
    assert not np.array_equal(layer.query[0], layer.key[0])


def test_simple_self_attention_unbatched(rng):
    layer = SimpleSelfAttention(3, rng)
    x = rng.normal(size=(4, 3))
    out, attn = layer(x)
    batched_out, batched_attn = layer(x[None])
    np.testing.assert_allclose(out, batched_out[0], rtol=1e-15)
    np.testing.assert_allclose(attn, batched_attn[0], rtol=1e-15)


def test_toy_embeddings_are_per_token_and_deterministic():
    x = toy_embeddings(SENTENCE_EN, 5)
    assert x.shape == (len(SENTENCE_EN), 5)
    assert np.array_equal(x[0], x[4])  # "the" twice: the same vector
    assert not np.array_equal(x[0], x[1])
    np.testing.assert_array_equal(toy_embeddings(["cat"], 5)[0], x[1])  # neighbours do not matter
    np.testing.assert_array_equal(toy_embeddings(iter(SENTENCE_EN), 5), x)
    assert not np.array_equal(toy_embeddings(["cat"], 5, seed=1), toy_embeddings(["cat"], 5))
    assert toy_embeddings([], 3).shape == (0, 3)
    assert toy_embeddings(SENTENCE_KO, 2).shape == (3, 2)


def test_equal_tokens_attend_equally():
    x = toy_embeddings(SENTENCE_EN, 4)
    w = attention_weights(x, x)
    np.testing.assert_allclose(w[0], w[4], rtol=1e-14)  # the two "the" ask the same question
    np.testing.assert_allclose(w[:, 0], w[:, 4], rtol=1e-14)  # ... and give the same answer
