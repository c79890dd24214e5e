"""Properties that must hold for every input (hypothesis), each an identity, not a stored value."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from attn_core import (
    attention_weights,
    entropy,
    log_softmax,
    logsumexp,
    scaled_dot_product_attention,
    softmax,
    softmax_jacobian,
)

# Modest and repeatable: the whole file runs in a few seconds, the same examples every time.
PROPERTY = settings(max_examples=40, deadline=None, derandomize=True)

moderate = st.floats(-30, 30, allow_nan=False, width=64)
scores_arrays = arrays(
    np.float64, array_shapes(min_dims=1, max_dims=3, max_side=6), elements=moderate
)


@st.composite
def qkv(draw, batch=(), E=None, Ev=None):
    """query (*batch, L, E), key (*batch, S, E), value (*batch, S, Ev) with moderate entries."""
    L, S = draw(st.integers(1, 5)), draw(st.integers(1, 6))
    E = E or draw(st.integers(1, 4))
    Ev = Ev or draw(st.integers(1, 3))
    elements = st.floats(-3, 3, allow_nan=False, width=64)
    q = draw(arrays(np.float64, (*batch, L, E), elements=elements))
    k = draw(arrays(np.float64, (*batch, S, E), elements=elements))
    v = draw(arrays(np.float64, (*batch, S, Ev), elements=elements))
    return q, k, v


@PROPERTY
@given(scores_arrays)
def test_rows_sum_to_one(x):
    w = softmax(x)
    assert (w >= 0).all()
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)


@PROPERTY
@given(scores_arrays, st.floats(-1e3, 1e3))
def test_shift_invariance(x, c):
    np.testing.assert_allclose(softmax(x + c), softmax(x), atol=1e-12)


@PROPERTY
@given(qkv(), st.randoms(use_true_random=False))
def test_self_attention_is_permutation_equivariant(data, random):
    x, _, _ = data
    perm = list(range(x.shape[0]))
    random.shuffle(perm)
    out = scaled_dot_product_attention(x, x, x)
    np.testing.assert_allclose(scaled_dot_product_attention(x[perm], x[perm], x[perm]), out[perm])


@PROPERTY
@given(qkv(Ev=1))
def test_one_dimensional_output_lies_between_min_and_max_value(data):
    q, k, v = data
    out = scaled_dot_product_attention(q, k, v)[:, 0]
    assert (out >= v.min() - 1e-12).all() and (out <= v.max() + 1e-12).all()


@PROPERTY
@given(qkv(Ev=2))
def test_output_is_a_convex_combination_of_the_values(data):
    q, k, v = data
    w, out = attention_weights(q, k), scaled_dot_product_attention(q, k, v)
    assert (w >= 0).all()
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)
    for i in range(q.shape[0]):  # out_i = sum_j w_ij v_j, summed by hand
        by_hand = sum(w[i, j] * v[j] for j in range(k.shape[0]))
        np.testing.assert_allclose(out[i], by_hand, atol=1e-12)
    lo, hi = v.min(axis=0), v.max(axis=0)  # and so inside the bounding box
    assert ((out >= lo - 1e-12) & (out <= hi + 1e-12)).all()


@PROPERTY
@given(qkv(), st.data())
def test_masked_keys_get_exactly_zero_weight(data, draw):
    q, k, _ = data
    mask = draw.draw(arrays(bool, (q.shape[0], k.shape[0])))
    w = attention_weights(q, k, mask)
    assert (w[~mask] == 0.0).all()
    sums = w.sum(axis=-1)
    np.testing.assert_allclose(sums[mask.any(axis=-1)], 1.0, rtol=1e-12)
    assert (sums[~mask.any(axis=-1)] == 0.0).all()
    additive = np.where(mask, 0.0, -np.inf)
    np.testing.assert_array_equal(attention_weights(q, k, additive), w)


@PROPERTY
@given(qkv(batch=(2, 3)), st.booleans())
def test_batch_axes_equal_a_loop(data, causal):
    q, k, v = data
    out = scaled_dot_product_attention(q, k, v, is_causal=causal)
    for idx in np.ndindex(2, 3):
        one = scaled_dot_product_attention(q[idx], k[idx], v[idx], is_causal=causal)
        np.testing.assert_allclose(out[idx], one, rtol=1e-13, atol=1e-15)


@PROPERTY
@given(qkv(batch=(2,)))
def test_float32_agrees_with_float64_and_stays_float32(data):
    q, k, v = data
    out64 = scaled_dot_product_attention(q, k, v)
    out32 = scaled_dot_product_attention(*(a.astype(np.float32) for a in (q, k, v)))
    assert out32.dtype == np.float32
    np.testing.assert_allclose(out32, out64, rtol=1e-5, atol=1e-5)
    w32 = attention_weights(q.astype(np.float32), k.astype(np.float32))
    assert w32.dtype == np.float32
    np.testing.assert_allclose(w32, attention_weights(q, k), rtol=1e-5, atol=1e-6)


distinct_rows = arrays(np.float64, st.integers(2, 8), elements=moderate, unique=True)


@PROPERTY
@given(distinct_rows)
def test_large_temperature_tends_to_uniform(x):
    w = softmax(x, temperature=1e9)  # |x_i / T| < 3e-8, so each weight is 1/S within 1e-7
    np.testing.assert_allclose(w, 1 / x.size, rtol=1e-6)


@PROPERTY
@given(distinct_rows)
def test_small_temperature_tends_to_one_hot_at_argmax(x):
    top = sorted(x)[-2:]
    assume(top[1] - top[0] > 1e-3)  # a clear winner; a gap of 1e-3 at T = 1e-6 is e^-1000
    one_hot = [1.0 if i == int(np.argmax(x)) else 0.0 for i in range(x.size)]
    assert softmax(x, temperature=1e-6).tolist() == one_hot


@PROPERTY
@given(scores_arrays)
def test_log_softmax_is_log_of_softmax(x):
    np.testing.assert_allclose(np.exp(log_softmax(x)), softmax(x), rtol=1e-12, atol=1e-300)
    w = softmax(x)
    finite = w > 1e-300
    np.testing.assert_allclose(log_softmax(x)[finite], np.log(w[finite]), rtol=1e-9, atol=1e-12)


@PROPERTY
@given(arrays(np.float64, st.integers(1, 10), elements=st.floats(-50, 50)))
def test_logsumexp_matches_math(x):
    expected = math.log(math.fsum(math.exp(v) for v in x))
    assert logsumexp(x) == pytest.approx(expected, rel=1e-12, abs=1e-12)


@PROPERTY
@given(arrays(np.float64, st.integers(1, 6), elements=st.floats(-5, 5)), st.integers(0, 5))
def test_softmax_jacobian_matches_finite_differences(x, j):
    assume(j < x.size)
    h = 1e-6
    step = np.zeros(x.size)
    step[j] = h
    column = (softmax(x + step) - softmax(x - step)) / (2 * h)
    np.testing.assert_allclose(softmax_jacobian(softmax(x))[:, j], column, atol=1e-8)


@PROPERTY
@given(scores_arrays)
def test_entropy_between_zero_and_log_s(x):
    h = entropy(softmax(x))
    assert (h >= -1e-12).all() and (h <= math.log(x.shape[-1]) + 1e-12).all()


@PROPERTY
@given(arrays(np.float64, st.integers(1, 6), elements=st.sampled_from([-1e4, 1e4, 0.0, -np.inf])))
def test_extreme_logits_stay_finite_and_silent(x):
    assume(np.isfinite(x).any())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w, ls = softmax(x), log_softmax(x)
    assert np.isfinite(w).all() and w.sum() == pytest.approx(1.0)
    assert np.isfinite(ls[np.isfinite(x)]).all()
    np.testing.assert_array_equal(np.isneginf(ls), np.isneginf(x))
