"""softmax, log_softmax, logsumexp, entropy and softmax_jacobian against hand maths and loops."""

import math
import warnings

import numpy as np
import pytest
import reference as ref

from attn_core import entropy, log_softmax, logsumexp, softmax, softmax_jacobian


def test_seed_scores_unscaled_by_hand():
    # scores 1, 0, 1 with no scaling: e / (2e + 1) and 1 / (2e + 1)
    big, small = math.e / (2 * math.e + 1), 1 / (2 * math.e + 1)
    np.testing.assert_allclose(softmax([1.0, 0.0, 1.0]), [big, small, big], rtol=1e-15)
    np.testing.assert_allclose([big, small], [0.422, 0.155], atol=5e-4)  # the write-up's rounding


def test_uniform_and_two_point_by_hand():
    np.testing.assert_allclose(softmax([3.0, 3.0, 3.0, 3.0]), [0.25] * 4, rtol=1e-15)
    # softmax([a, 0]) = sigmoid(a) = 1 / (1 + e^-a)
    np.testing.assert_allclose(softmax([2.0, 0.0])[0], 1 / (1 + math.exp(-2.0)), rtol=1e-15)


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 6), (2, 1, 3, 1)])
def test_softmax_matches_loop_on_every_row(rng, shape):
    x = rng.normal(scale=3.0, size=shape)
    got = softmax(x)
    for idx in np.ndindex(shape[:-1]):
        np.testing.assert_allclose(got[idx], ref.softmax(x[idx].tolist()), rtol=1e-12)


def test_softmax_along_another_axis(rng):
    x = rng.normal(size=(4, 3))
    got = softmax(x, axis=0)
    for j in range(3):
        np.testing.assert_allclose(got[:, j], ref.softmax(x[:, j].tolist()), rtol=1e-12)


def test_temperature_matches_loop(rng):
    x = rng.normal(size=6).tolist()
    for t in (0.1, 0.5, 2.0, 50.0):
        np.testing.assert_allclose(softmax(x, temperature=t), ref.softmax(x, t), rtol=1e-12)


def test_huge_logits_give_exact_finite_answers():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert softmax([1e4, 0.0]).tolist() == [1.0, 0.0]
        assert softmax([-1e4, 1e4, -1e4]).tolist() == [0.0, 1.0, 0.0]
        assert log_softmax([1e4, 0.0]).tolist() == [0.0, -1e4]
        assert np.isfinite(log_softmax([1e4, -1e4, 3.0])).all()
        assert logsumexp([1e4, 1e4]) == pytest.approx(1e4 + math.log(2), rel=1e-15)
        assert logsumexp([-1e4, -1e4]) == pytest.approx(-1e4 + math.log(2), rel=1e-15)


def test_tiny_temperature_does_not_overflow():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x32 = np.array([1.0, 2.0, -3.0], dtype=np.float32)
        assert softmax(x32, temperature=1e-40).tolist() == [0.0, 1.0, 0.0]
        assert softmax([1e4, 0.0, -1e4], temperature=1e-300).tolist() == [1.0, 0.0, 0.0]


def test_fully_masked_row_gives_zeros_and_minus_inf():
    x = np.array([[-np.inf, -np.inf, -np.inf], [0.0, -np.inf, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning from -inf - -inf or log(0)
        w, lse, ls = softmax(x), logsumexp(x), log_softmax(x)
    assert w.tolist() == [[0.0, 0.0, 0.0], [0.5, 0.0, 0.5]]
    assert lse[0] == -np.inf and lse[1] == pytest.approx(math.log(2))
    assert np.isneginf(ls[0]).all()
    assert ls[1].tolist() == [-math.log(2), -np.inf, -math.log(2)]


def test_empty_axis_behaves_like_a_fully_masked_row():
    assert softmax(np.zeros((2, 0))).shape == (2, 0)
    assert logsumexp(np.zeros((2, 0))).tolist() == [-np.inf, -np.inf]


def test_logsumexp_matches_math_on_moderate_values(rng):
    x = rng.uniform(-20, 20, size=(4, 7))
    got = logsumexp(x)
    for i in range(4):
        assert got[i] == pytest.approx(math.log(sum(math.exp(v) for v in x[i])), rel=1e-13)
        assert got[i] == pytest.approx(ref.logsumexp(x[i].tolist()), rel=1e-13)
    assert logsumexp(x, axis=0, keepdims=True).shape == (1, 7)


def test_log_softmax_is_log_of_softmax_where_finite(rng):
    x = rng.normal(scale=5, size=(3, 5))
    x[0, 2] = -np.inf
    ls, w = log_softmax(x), softmax(x)
    finite = w > 0
    np.testing.assert_allclose(ls[finite], np.log(w[finite]), rtol=1e-10, atol=1e-15)
    assert np.isneginf(ls[~finite]).all()


def test_entropy_by_hand():
    assert entropy([1.0, 0.0, 0.0]) == 0.0
    assert entropy([0.0, 0.0]) == 0.0  # a fully masked row
    assert entropy([0.5, 0.5]) == pytest.approx(math.log(2), rel=1e-15)
    p = [0.7, 0.2, 0.1]
    assert entropy(p) == pytest.approx(-sum(v * math.log(v) for v in p), rel=1e-14)
    np.testing.assert_allclose(entropy(np.full((2, 5), 0.2)), [math.log(5)] * 2, rtol=1e-14)


def test_softmax_jacobian_by_hand():
    w = [0.2, 0.3, 0.5]
    expected = [[w[i] * ((i == j) - w[j]) for j in range(3)] for i in range(3)]
    np.testing.assert_allclose(softmax_jacobian(w), expected, rtol=1e-15)


def test_softmax_jacobian_matches_finite_differences(rng):
    x, h = rng.normal(size=(2, 4)), 1e-6
    jac = softmax_jacobian(softmax(x))  # (2, 4, 4), [b, i, j] = d w_i / d x_j
    for b in range(2):
        for j in range(4):
            step = np.zeros(4)
            step[j] = h
            column = (softmax(x[b] + step) - softmax(x[b] - step)) / (2 * h)
            np.testing.assert_allclose(jac[b, :, j], column, atol=1e-9)


def test_float32_stays_float32():
    x = np.array([[1.0, 2.0, 3.0]], dtype=np.float32)
    for f in (softmax, log_softmax, logsumexp, softmax_jacobian, entropy):
        arg = softmax(x) if f is entropy else x  # entropy needs a distribution
        assert f(arg).dtype == np.float32, f.__name__


def test_integers_are_promoted_to_float64():
    assert softmax([1, 0, 1]).dtype == np.float64
    np.testing.assert_allclose(softmax([1, 0, 1]), softmax([1.0, 0.0, 1.0]), rtol=0)


def test_input_is_not_modified(rng):
    x = rng.normal(size=(3, 4))
    before = x.copy()
    softmax(x, temperature=0.5)
    log_softmax(x)
    logsumexp(x)
    np.testing.assert_array_equal(x, before)
