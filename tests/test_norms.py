"""RMSNorm against the formula multiplied out by hand and against PyTorch (skipped without it)."""

import math

import numpy as np
import pytest

import attn_core as ac


def test_the_formula_by_hand():
    x, g, eps = [1.0, -2.0, 2.0], [1.0, 0.5, 2.0], 1e-6
    rms = math.sqrt((1 + 4 + 4) / 3 + eps)  # √3
    want = [1 / rms * 1.0, -2 / rms * 0.5, 2 / rms * 2.0]
    np.testing.assert_allclose(ac.rms_norm(x, g, eps), want, rtol=1e-15)


def test_each_vector_has_root_mean_square_one_and_keeps_its_direction():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 8)) * 5
    y = ac.rms_norm(x, eps=1e-12)
    np.testing.assert_allclose(np.sqrt((y**2).mean(-1)), 1.0, rtol=1e-10)
    cosine = (x * y).sum(-1) / np.linalg.norm(x, axis=-1) / np.linalg.norm(y, axis=-1)
    np.testing.assert_allclose(cosine, 1.0, rtol=1e-12)
    assert (ac.rms_norm(np.zeros(4)) == 0).all()  # eps keeps 0 at 0


@pytest.mark.parametrize(("shape", "eps"), [((5,), 1e-6), ((2, 3, 16), 1e-5), ((4, 7), 0.5)])
def test_equals_pytorch(shape, eps):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(shape))
    x, g = rng.standard_normal(shape), rng.standard_normal(shape[-1:])
    want = torch.nn.functional.rms_norm(torch.from_numpy(x), shape[-1:], torch.from_numpy(g), eps)
    np.testing.assert_allclose(ac.rms_norm(x, g, eps), want.numpy(), rtol=1e-13)
    plain = torch.nn.functional.rms_norm(torch.from_numpy(x), shape[-1:], eps=eps)
    np.testing.assert_allclose(ac.rms_norm(x, eps=eps), plain.numpy(), rtol=1e-13)


def test_float16_stays_float16():
    assert ac.rms_norm(np.ones(4, np.float16)).dtype == np.float16


def test_bad_input_names_itself():
    with pytest.raises(ValueError, match=r"weight must have one gain per feature, shape \(3,\)"):
        ac.rms_norm(np.ones((2, 3)), np.ones(2))
    with pytest.raises(ValueError, match="eps must be a finite number > 0"):
        ac.rms_norm([1.0], eps=-1.0)
    with pytest.raises(ValueError, match="x must have at least 1 axis"):
        ac.rms_norm(1.0)


@pytest.mark.parametrize(("dtype", "huge"), [(np.float32, 1e19), (np.float64, 1e154)])
def test_huge_vectors_do_not_overflow(dtype, huge):
    # (3c, 4c) for any c > 0 has root mean square c·√((9 + 16) / 2) = c·√12.5, so RMSNorm gives
    # (3, 4) / √12.5 once ε is negligible beside 12.5c²; here (3c)² overflows the dtype
    with np.errstate(over="ignore"):
        assert np.isinf(dtype(3 * huge) * dtype(3 * huge))  # the old x * x
    want = np.array([3.0, 4.0]) / math.sqrt(12.5)
    with np.errstate(all="raise"):
        got = ac.rms_norm(np.array([3 * huge, 4 * huge], dtype))
    assert got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)
    rows = np.array([[3 * huge, -4 * huge], [0.0, 0.0], [1.0, -2.0]], dtype)
    with np.errstate(all="raise"):
        got = ac.rms_norm(rows, eps=1e-6)
    np.testing.assert_allclose(got[0], want * [1, -1], rtol=1e-6)
    assert (got[1] == 0).all()
    np.testing.assert_allclose(got[2], np.array([1, -2]) / math.sqrt(2.5 + 1e-6), rtol=1e-6)


def test_tiny_vectors_are_divided_by_the_root_of_eps():
    # mean of the squares 12.5e-400 is nothing beside ε = 1e-6: x / √ε = x · 1000
    got = ac.rms_norm([3e-200, 4e-200], eps=1e-6)
    np.testing.assert_allclose(got, [3e-197, 4e-197], rtol=1e-12)
