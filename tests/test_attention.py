"""Scaled dot-product attention: the worked example by hand, loops, and PyTorch's semantics."""

import math
import warnings

import numpy as np
import pytest
import reference as ref

from attn_book.data import quanta_example
from attn_core import (
    attention_weights,
    causal_mask,
    dot_scores,
    padding_mask,
    scaled_dot_product_attention,
)

# The worked example, typed here from the Quanta write-up rather than read from attn_core.
Q = [1.0, 0.0]
KEYS = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
VALUES = [[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]


def seed_weights_by_hand(scale):
    """Scores are 1, 0, 1; with s = scale the weights are e^s/(2e^s+1), 1/(2e^s+1), e^s/(2e^s+1)."""
    denom = 2 * math.exp(scale) + 1
    return [math.exp(scale) / denom, 1 / denom, math.exp(scale) / denom]


def test_seed_example_data_is_the_articles():
    ex = quanta_example()
    assert ex.query.tolist() == Q and ex.keys.tolist() == KEYS and ex.values.tolist() == VALUES


def test_seed_scores_by_hand():
    assert dot_scores(Q, KEYS).tolist() == [1.0, 0.0, 1.0]


def test_seed_weights_scaled_by_hand():
    w = seed_weights_by_hand(1 / math.sqrt(2))
    np.testing.assert_allclose(attention_weights(Q, KEYS), w, rtol=1e-14)
    np.testing.assert_allclose(w, [0.401, 0.198, 0.401], atol=5e-4)  # the write-up's rounding


def test_seed_weights_unscaled_by_hand():
    w = seed_weights_by_hand(1.0)
    np.testing.assert_allclose(attention_weights(Q, KEYS, scale=1.0), w, rtol=1e-14)
    np.testing.assert_allclose(w, [0.422, 0.155, 0.422], atol=5e-4)


def test_seed_output_by_hand():
    a, b, _ = seed_weights_by_hand(1 / math.sqrt(2))
    expected = [2 * a + 0 * b + 1 * a, 0 * a + 2 * b + 1 * a]  # sum_j w_j v_j
    out = scaled_dot_product_attention(Q, KEYS, VALUES)
    np.testing.assert_allclose(out, expected, rtol=1e-14)
    np.testing.assert_allclose(expected, [1.203, 0.797], atol=5e-4)
    assert sum(expected) == pytest.approx(2.0)  # every value's coordinates sum to 2


def test_one_query_equals_a_one_row_query():
    one = scaled_dot_product_attention(Q, KEYS, VALUES)
    row = scaled_dot_product_attention([Q], KEYS, VALUES)
    assert one.shape == (2,) and row.shape == (1, 2)
    np.testing.assert_array_equal(one, row[0])


def random_qkv(rng, batch, L, S, E, Ev, dtype=np.float64):
    q = rng.normal(size=(*batch, L, E)).astype(dtype)
    k = rng.normal(size=(*batch, S, E)).astype(dtype)
    v = rng.normal(size=(*batch, S, Ev)).astype(dtype)
    return q, k, v


SHAPES = [
    ((), 1, 1, 1, 1),
    ((), 3, 4, 2, 5),
    ((2,), 4, 4, 3, 3),
    ((2, 3), 2, 5, 4, 1),  # (batch, heads, L, S, E)
    ((1, 2, 2), 3, 2, 6, 2),
]


@pytest.mark.parametrize(("batch", "L", "S", "E", "Ev"), SHAPES)
def test_matches_loop_on_random_shapes(rng, batch, L, S, E, Ev):
    q, k, v = random_qkv(rng, batch, L, S, E, Ev)
    weights, out = attention_weights(q, k), scaled_dot_product_attention(q, k, v)
    assert weights.shape == (*batch, L, S) and out.shape == (*batch, L, Ev)
    for idx in np.ndindex(batch):
        w_ref, o_ref = ref.attention(q[idx].tolist(), k[idx].tolist(), v[idx].tolist())
        np.testing.assert_allclose(weights[idx], w_ref, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(out[idx], o_ref, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(dot_scores(q, k)[idx], ref.scores(q[idx], k[idx]), rtol=1e-12)


@pytest.mark.parametrize(("batch", "L", "S", "E", "Ev"), SHAPES)
def test_causal_matches_loop(rng, batch, L, S, E, Ev):
    q, k, v = random_qkv(rng, batch, L, S, E, Ev)
    out = scaled_dot_product_attention(q, k, v, is_causal=True)
    for idx in np.ndindex(batch):
        _, o_ref = ref.attention(q[idx].tolist(), k[idx].tolist(), v[idx].tolist(), causal=True)
        np.testing.assert_allclose(out[idx], o_ref, rtol=1e-12, atol=1e-14)


def test_broadcast_batch_axes_match_loop(rng):
    q = rng.normal(size=(2, 1, 3, 4))  # (batch, 1, L, E) broadcasts over 3 heads
    k = rng.normal(size=(1, 3, 5, 4))
    v = rng.normal(size=(2, 3, 5, 2))
    out = scaled_dot_product_attention(q, k, v)
    assert out.shape == (2, 3, 3, 2)
    for b in range(2):
        for h in range(3):
            _, o_ref = ref.attention(q[b, 0].tolist(), k[0, h].tolist(), v[b, h].tolist())
            np.testing.assert_allclose(out[b, h], o_ref, rtol=1e-12)


def test_bool_mask_true_means_may_attend(rng):
    q, k, v = random_qkv(rng, (), 3, 4, 2, 2)
    mask = rng.random((3, 4)) < 0.6
    mask[:, 0] = True
    w_ref, o_ref = ref.attention(q.tolist(), k.tolist(), v.tolist(), mask=mask.tolist())
    np.testing.assert_allclose(attention_weights(q, k, mask), w_ref, rtol=1e-12)
    np.testing.assert_allclose(scaled_dot_product_attention(q, k, v, mask), o_ref, rtol=1e-12)
    assert (attention_weights(q, k, mask)[~mask] == 0.0).all()


def test_float_mask_is_added(rng):
    q, k, v = random_qkv(rng, (), 3, 4, 2, 2)
    bias = rng.normal(size=(3, 4))
    w_ref, _ = ref.attention(q.tolist(), k.tolist(), v.tolist(), mask=bias.tolist())
    np.testing.assert_allclose(attention_weights(q, k, bias), w_ref, rtol=1e-12)


def test_float_zero_minus_inf_mask_equals_bool_mask(rng):
    q, k, v = random_qkv(rng, (2,), 3, 4, 2, 2)
    mask = rng.random((2, 3, 4)) < 0.5
    additive = np.where(mask, 0.0, -np.inf)
    np.testing.assert_array_equal(
        scaled_dot_product_attention(q, k, v, additive), scaled_dot_product_attention(q, k, v, mask)
    )


def test_fully_masked_row_gives_zero_output_without_warnings(rng):
    q, k, v = random_qkv(rng, (), 2, 3, 2, 2)
    mask = np.array([[False, False, False], [True, False, True]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w = attention_weights(q, k, mask)
        out = scaled_dot_product_attention(q, k, v, mask)
        out_float = scaled_dot_product_attention(q, k, v, np.where(mask, 0.0, -np.inf))
    assert w[0].tolist() == [0.0, 0.0, 0.0] and out[0].tolist() == [0.0, 0.0]
    assert out_float[0].tolist() == [0.0, 0.0]
    assert w[1].sum() == pytest.approx(1.0) and w[1, 1] == 0.0


def test_causal_mask_by_hand():
    T, F = True, False
    assert causal_mask(3).tolist() == [[T, F, F], [T, T, F], [T, T, T]]
    assert causal_mask(2, 4).tolist() == [[True, False, False, False], [True, True, False, False]]
    assert causal_mask(3, 2).tolist() == [[True, False], [True, True], [True, True]]
    assert causal_mask(0).shape == (0, 0)
    for L, S in [(1, 1), (4, 4), (2, 5), (5, 2)]:
        assert causal_mask(L, S).tolist() == ref.causal_mask(L, S)


@pytest.mark.parametrize(("L", "S"), [(4, 4), (2, 5), (5, 2)])
def test_is_causal_equals_causal_mask_top_left(rng, L, S):
    q, k, v = random_qkv(rng, (2,), L, S, 3, 2)
    np.testing.assert_array_equal(
        scaled_dot_product_attention(q, k, v, is_causal=True),
        scaled_dot_product_attention(q, k, v, causal_mask(L, S)),
    )
    w = attention_weights(q, k, is_causal=True)
    assert (w[..., 0, 1:] == 0).all()  # top-left: the first query sees only the first key


def test_is_causal_with_a_mask_raises(rng):
    q, k, v = random_qkv(rng, (), 2, 2, 2, 2)
    with pytest.raises(ValueError, match="either attn_mask or is_causal"):
        scaled_dot_product_attention(q, k, v, causal_mask(2), is_causal=True)


def test_scale_default_is_one_over_sqrt_of_query_last_axis(rng):
    q, k, v = random_qkv(rng, (), 3, 4, 5, 7)  # E = 5 while Ev = 7: the default uses E
    expected, _ = ref.attention(q.tolist(), k.tolist(), v.tolist(), scale=1 / math.sqrt(5))
    np.testing.assert_allclose(attention_weights(q, k), expected, rtol=1e-12)
    unscaled, _ = ref.attention(q.tolist(), k.tolist(), v.tolist(), scale=1.0)
    np.testing.assert_allclose(attention_weights(q, k, scale=1.0), unscaled, rtol=1e-12)
    half, _ = ref.attention(q.tolist(), k.tolist(), v.tolist(), scale=0.5)
    np.testing.assert_allclose(attention_weights(q, k, scale=0.5), half, rtol=1e-12)


def test_padding_mask_by_hand():
    mask = padding_mask([2, 3, 0], 3)
    assert mask.shape == (3, 1, 3) and mask.dtype == bool
    assert mask[:, 0].tolist() == ref.padding_mask([2, 3, 0], 3)
    assert padding_mask(2, 4).tolist() == [[True, True, False, False]]
    assert padding_mask([[1], [2]], 2).shape == (2, 1, 1, 2)
    assert padding_mask([], 3).shape == (0, 1, 3)


def test_padding_mask_hides_the_padding_in_attention(rng):
    q, k, v = random_qkv(rng, (2,), 3, 4, 2, 2)
    out = scaled_dot_product_attention(q, k, v, padding_mask([2, 4], 4))
    _, first = ref.attention(q[0].tolist(), k[0, :2].tolist(), v[0, :2].tolist())
    _, second = ref.attention(q[1].tolist(), k[1].tolist(), v[1].tolist())
    np.testing.assert_allclose(out[0], first, rtol=1e-12)  # padding dropped = never there
    np.testing.assert_allclose(out[1], second, rtol=1e-12)


def test_dropout_zero_is_identity(rng):
    q, k, v = random_qkv(rng, (), 3, 4, 2, 2)
    plain = scaled_dot_product_attention(q, k, v)
    np.testing.assert_array_equal(scaled_dot_product_attention(q, k, v, dropout_p=0.0), plain)
    np.testing.assert_array_equal(
        scaled_dot_product_attention(q, k, v, dropout_p=0.0, rng=np.random.default_rng(1)), plain
    )


def test_dropout_needs_an_rng_and_repeats_with_a_seed(rng):
    q, k, v = random_qkv(rng, (), 3, 4, 2, 2)
    with pytest.raises(ValueError, match="rng"):
        scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    one = scaled_dot_product_attention(q, k, v, dropout_p=0.5, rng=np.random.default_rng(7))
    two = scaled_dot_product_attention(q, k, v, dropout_p=0.5, rng=np.random.default_rng(7))
    np.testing.assert_array_equal(one, two)
    assert not np.allclose(one, scaled_dot_product_attention(q, k, v))


def test_dropout_zeroes_weights_and_rescales_survivors(rng):
    q, k = rng.normal(size=(4, 3)), rng.normal(size=(6, 3))
    eye = np.eye(6)  # value = identity, so the output *is* the dropped-out weights
    w = attention_weights(q, k)
    dropped = scaled_dot_product_attention(q, k, eye, dropout_p=0.25, rng=rng)
    kept = dropped != 0
    np.testing.assert_allclose(dropped[kept], w[kept] / 0.75, rtol=1e-14)
    assert 0 < kept.sum() < kept.size


def test_dropout_preserves_the_expected_value(rng):
    q, k, v = random_qkv(rng, (), 2, 5, 3, 2)
    p, n = 0.3, 4000
    w, plain = attention_weights(q, k), scaled_dot_product_attention(q, k, v)
    draws = np.stack(
        [scaled_dot_product_attention(q, k, v, dropout_p=p, rng=rng) for _ in range(n)]
    )
    # out[i, c] = sum_j w_ij v_jc keep_ij / (1 - p) with keep ~ Bernoulli(1 - p), so its
    # variance is sum_j (w_ij v_jc)^2 p / (1 - p); the mean of n draws is within 4 sigma.
    sigma = np.sqrt((w**2 @ v**2) * p / (1 - p) / n)
    assert (np.abs(draws.mean(axis=0) - plain) < 4 * sigma).all()
    np.testing.assert_allclose(draws.std(axis=0), sigma * math.sqrt(n), rtol=0.1)


@pytest.mark.parametrize("p", [-0.1, 1.0, 1.5, float("nan")])
def test_dropout_rejects_p_outside_zero_one(rng, p):
    q, k, v = random_qkv(rng, (), 2, 2, 2, 2)
    with pytest.raises(ValueError, match=r"dropout_p must be in \[0, 1\)"):
        scaled_dot_product_attention(q, k, v, dropout_p=p, rng=rng)


def test_float32_in_float32_out(rng):
    q, k, v = random_qkv(rng, (2,), 3, 4, 8, 2, dtype=np.float32)
    mask = causal_mask(3, 4)
    assert attention_weights(q, k).dtype == np.float32
    assert scaled_dot_product_attention(q, k, v, mask).dtype == np.float32
    assert scaled_dot_product_attention(q, k, v, np.where(mask, 0.0, -np.inf)).dtype == np.float32
    out = scaled_dot_product_attention(q, k, v, dropout_p=0.1, rng=rng)
    assert out.dtype == np.float32
    assert dot_scores(q, k).dtype == np.float32


def test_mixed_dtypes_promote_to_float64(rng):
    q, k, v = random_qkv(rng, (), 2, 3, 2, 2)
    out = scaled_dot_product_attention(q.astype(np.float32), k, v)
    assert out.dtype == np.float64


def test_inputs_are_not_modified(rng):
    q, k, v = random_qkv(rng, (), 2, 3, 2, 2)
    copies = [a.copy() for a in (q, k, v)]
    scaled_dot_product_attention(q, k, v, is_causal=True)
    for a, b in zip((q, k, v), copies, strict=True):
        np.testing.assert_array_equal(a, b)
