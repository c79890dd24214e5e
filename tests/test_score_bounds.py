"""QK-norm, its score bound and Gemma 2's soft cap, against loops, the bound's proof case
by hand, and PyTorch (RMSNorm and tanh; skipped without it)."""

import math

import numpy as np
import pytest

import attn_core as ac


def _rms_by_loop(x, g, eps=1e-6):
    out = np.empty_like(x)
    for index in np.ndindex(x.shape[:-1]):
        v = x[index]
        rms = math.sqrt(sum(float(a) ** 2 for a in v) / len(v) + eps)
        out[index] = [a / rms * gi for a, gi in zip(v, g, strict=True)]
    return out


def test_qk_norm_normalises_each_head_vector_with_its_own_gain():
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((2, 3, 4, 8)) * 7, rng.standard_normal((2, 3, 5, 8)) * 0.1
    g_q, g_k = rng.uniform(0.5, 2, 8), rng.uniform(0.5, 2, 8)
    q_hat, k_hat = ac.qk_norm(q, k, g_q, g_k)
    np.testing.assert_allclose(q_hat, _rms_by_loop(q, g_q), rtol=1e-13)
    np.testing.assert_allclose(k_hat, _rms_by_loop(k, g_k), rtol=1e-13)


def test_qk_norm_equals_pytorch_rms_norm():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    q, g = rng.standard_normal((3, 4, 16)), rng.standard_normal(16)
    want = torch.nn.functional.rms_norm(torch.from_numpy(q), (16,), torch.from_numpy(g), 1e-6)
    np.testing.assert_allclose(ac.qk_norm(q, q, g, g)[0], want.numpy(), rtol=1e-13)


@pytest.mark.parametrize("seed", range(4))
def test_no_score_passes_the_bound_even_after_rope(seed):
    rng = np.random.default_rng(seed)
    d = 8
    g_q, g_k = rng.uniform(-2, 2, d), rng.uniform(-2, 2, d)
    q, k = rng.standard_normal((64, d)) * 100, rng.standard_normal((64, d))
    q_hat, k_hat = ac.qk_norm(q, k, g_q, g_k)
    q_rot, k_rot = ac.rotary(q_hat, np.arange(64)), ac.rotary(k_hat, np.arange(64) * 7)
    bound = ac.qk_norm_max_score(g_q, g_k)
    assert bound == pytest.approx(math.sqrt(d) * np.abs(g_q).max() * np.abs(g_k).max())
    for query, key in ((q_hat, k_hat), (q_rot, k_rot)):
        scores = query @ key.T / math.sqrt(d)
        assert np.abs(scores).max() <= bound


def test_the_bound_is_reached_along_the_axis_of_the_largest_gains():
    d, g_q, g_k = 4, np.array([0.5, 3.0, 1.0, -1.0]), np.array([1.0, -2.0, 0.5, 0.5])
    e = np.eye(d)[1]  # all the length on axis 1, where |g_q| and |g_k| are largest
    q_hat, k_hat = ac.qk_norm(e * 5.0, e[None] * 0.2, g_q, g_k, eps=1e-12)
    score = float(q_hat @ k_hat[0]) / math.sqrt(d)  # (2 × 3) × (2 × -2) / 2 = -12
    assert score == pytest.approx(-12.0, rel=1e-9)
    assert ac.qk_norm_max_score(g_q, g_k) == pytest.approx(12.0)  # √4 × 3 × 2
    assert ac.qk_norm_max_score(g_q, g_k, scale=1.0) == pytest.approx(24.0)


def test_soft_cap_equals_a_loop_and_stays_within_the_cap():
    rng = np.random.default_rng(5)
    s, cap = rng.standard_normal((3, 4, 6)) * 80, 50.0
    want = np.vectorize(lambda x: cap * math.tanh(x / cap))(s)
    capped = ac.soft_cap(s, cap)
    np.testing.assert_allclose(capped, want, rtol=1e-14)
    assert (np.abs(ac.soft_cap([1e300, -1e300, 1e6], cap)) <= cap).all()
    small = np.array([0.1, -0.2])  # s - c tanh(s/c) ≈ s³ / (3c²)
    np.testing.assert_allclose(small - ac.soft_cap(small, cap), small**3 / (3 * cap**2), rtol=1e-3)


def test_soft_cap_keeps_a_masked_score_masked():
    capped = ac.soft_cap([[0.5, -np.inf, 200.0]], 30.0)
    assert capped[0, 1] == -np.inf
    weights = ac.softmax(capped)
    assert weights[0, 1] == 0.0


def test_soft_capped_weights_obey_the_largest_weight_bound():
    cap, S = 2.0, 5
    scores = np.array([1e4, -1e4, -1e4, -1e4, -1e4])  # one key as far ahead as can be
    top = float(ac.softmax(ac.soft_cap(scores, cap))[0])
    bound = math.exp(cap) / (math.exp(cap) + (S - 1) * math.exp(-cap))
    assert top == pytest.approx(bound, rel=1e-12)  # reached: the cap's limit
    assert top < 1.0


def test_soft_cap_equals_pytorch():
    torch = pytest.importorskip("torch")
    s = np.random.default_rng(6).standard_normal((2, 8, 8)) * 60
    want = 50.0 * torch.tanh(torch.from_numpy(s) / 50.0)  # Gemma 2's attn_logit_softcapping
    np.testing.assert_allclose(ac.soft_cap(s, 50.0), want.numpy(), rtol=1e-13)


def test_bad_input_names_itself():
    with pytest.raises(ValueError, match=r"q_weight must have one gain per feature, shape \(4,\)"):
        ac.qk_norm(np.ones((2, 4)), np.ones((3, 4)), np.ones(3))
    with pytest.raises(
        ValueError,
        match=r"one head's width d for both: query has shape \(2, 4\), key has shape \(3, 3\)",
    ):
        ac.qk_norm(np.ones((2, 4)), np.ones((3, 3)))
    with pytest.raises(ValueError, match=r"q_weight has shape \(3,\), k_weight has shape \(4,\)"):
        ac.qk_norm_max_score(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="cap must be a finite number > 0"):
        ac.soft_cap([1.0], 0.0)
    with pytest.raises(ValueError, match="scores must be finite"):
        ac.soft_cap([np.nan], 1.0)


def test_without_rope_the_tighter_bound_pairs_the_gains_axis_by_axis():
    rng = np.random.default_rng(9)
    d, g_q, g_k = 6, rng.uniform(-2, 2, 6), rng.uniform(-2, 2, 6)
    q_hat, k_hat = ac.qk_norm(
        rng.standard_normal((500, d)), rng.standard_normal((500, d)), g_q, g_k
    )
    tighter = math.sqrt(d) * np.abs(g_q * g_k).max()
    assert np.abs(q_hat @ k_hat.T / math.sqrt(d)).max() <= tighter <= ac.qk_norm_max_score(g_q, g_k)
