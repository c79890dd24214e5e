"""Tests of attn_book.experiments against loops, closed-form moments and hand formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_book.experiments import (
    head_scale_stats,
    random_dot_products,
    rope_offset_weights,
    saturation_stats,
    train_rope_offset_head,
)


def _loop_dot_products(d_k, n, seed):
    """The same draws as random_dot_products, multiplied out with plain loops."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n, 1, d_k))
    k = rng.standard_normal((n, 1, d_k))
    return [sum(q[i, 0, m] * k[i, 0, m] for m in range(d_k)) for i in range(n)]


def test_random_dot_products_match_a_loop():
    got = random_dot_products(5, 7, np.random.default_rng(3))
    np.testing.assert_allclose(got, _loop_dot_products(5, 7, 3), rtol=1e-12)


def test_scaled_is_unscaled_over_root_d():
    plain = random_dot_products(9, 50, np.random.default_rng(4))
    scaled = random_dot_products(9, 50, np.random.default_rng(4), scaled=True)
    np.testing.assert_allclose(scaled * 3.0, plain, rtol=1e-12)  # √9 = 3


@pytest.mark.parametrize("d_k", [1, 2, 8, 64, 512])
def test_variance_is_d_k_within_five_standard_errors(d_k):
    # S = q·k is a sum of d_k iid products X with E X = 0, E X² = 1, E X⁴ = 9, so
    # E S⁴ = 9 d + 3 d (d - 1) and Var(S²) = 2 d² + 6 d: the relative standard error
    # of the sample variance is sqrt((2 + 6/d) / n).
    n = 20_000
    var = random_dot_products(d_k, n, np.random.default_rng(d_k)).var(ddof=1)
    rel_se = math.sqrt((2 + 6 / d_k) / n)
    assert abs(var / d_k - 1) < 5 * rel_se


def test_scaled_variance_is_one_and_mean_is_zero():
    s = random_dot_products(256, 20_000, np.random.default_rng(5), scaled=True)
    assert abs(s.mean()) < 5 / math.sqrt(20_000)  # standard error of the mean is 1/√n
    assert abs(s.var() - 1) < 5 * math.sqrt((2 + 6 / 256) / 20_000)


def _hand_stats(w):
    """Max weight, entropy and ‖diag(w) − wwᵀ‖_F of one weight row, with loops."""
    s = len(w)
    ent = -sum(x * math.log(x) for x in w if x > 0)
    frob2 = sum((w[i] * ((i == j) - w[j])) ** 2 for i in range(s) for j in range(s))
    return max(w), ent, math.sqrt(frob2)


@pytest.mark.parametrize("scaled", [False, True])
def test_saturation_stats_match_hand_formulas(scaled):
    d_k, n_keys, n_trials = 6, 4, 3
    rng = np.random.default_rng(11)
    q = rng.standard_normal((n_trials, 1, d_k))
    k = rng.standard_normal((n_trials, n_keys, d_k))
    expected = []
    for t in range(n_trials):
        scores = [sum(q[t, 0, m] * k[t, j, m] for m in range(d_k)) for j in range(n_keys)]
        if scaled:
            scores = [x / math.sqrt(d_k) for x in scores]
        exps = [math.exp(x) for x in scores]
        expected.append(_hand_stats([e / sum(exps) for e in exps]))
    got = saturation_stats([d_k], n_keys, n_trials, np.random.default_rng(11), scaled=scaled)
    np.testing.assert_allclose(np.ravel(got), np.mean(expected, axis=0), rtol=1e-10)


def test_unscaled_scores_saturate_and_scaled_do_not():
    n_keys = 8
    plain = saturation_stats([4, 512], n_keys, 300, np.random.default_rng(6), scaled=False)
    fixed = saturation_stats([4, 512], n_keys, 300, np.random.default_rng(6), scaled=True)
    assert plain.max_weight[1] > 0.9 and plain.entropy[1] < 0.3 * math.log(n_keys)
    assert plain.jacobian_norm[1] < 0.5 * plain.jacobian_norm[0]
    assert abs(fixed.entropy[1] - fixed.entropy[0]) < 0.1 * math.log(n_keys)


def test_head_scale_stats_match_loops_with_both_scales():
    d_model, n_heads, n_keys, n_trials, std = 6, 3, 4, 2, 1.5
    d_head = d_model // n_heads  # 2
    rng = np.random.default_rng(12)
    q = std * rng.standard_normal((n_trials, 1, d_head))
    k = std * rng.standard_normal((n_trials, n_keys, d_head))
    expected = {}
    for name, divisor in (("right", d_head), ("bug", d_model)):
        rows = []
        for t in range(n_trials):
            s = [sum(q[t, 0, m] * k[t, j, m] for m in range(d_head)) for j in range(n_keys)]
            exps = [math.exp(x / math.sqrt(divisor)) for x in s]
            rows.append(_hand_stats([x / sum(exps) for x in exps]))
        expected[name] = np.mean(rows, axis=0)
    right, bug = head_scale_stats(
        d_model, n_heads, n_keys, n_trials, np.random.default_rng(12), std=std
    )
    np.testing.assert_allclose(np.ravel(right), expected["right"], rtol=1e-10)
    np.testing.assert_allclose(np.ravel(bug), expected["bug"], rtol=1e-10)


def test_the_d_model_bug_flattens_a_peaked_head():
    # Scores √H = 2.83 times too small: the entropy rises towards log S.
    right, bug = head_scale_stats(512, 8, 16, 300, np.random.default_rng(7), std=2.0)
    assert bug.entropy[0] > right.entropy[0] + 0.5
    assert bug.max_weight[0] < right.max_weight[0] - 0.2
    assert bug.entropy[0] < math.log(16)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: random_dot_products(0, 5, np.random.default_rng()), ValueError, "d_k"),
        (lambda: random_dot_products(True, 5, np.random.default_rng()), ValueError, "d_k"),
        (lambda: random_dot_products(4, 0, np.random.default_rng()), ValueError, "n must"),
        (lambda: random_dot_products(4, 5, 42), TypeError, "rng must be"),
        (
            lambda: saturation_stats([4], 1, 5, np.random.default_rng(), scaled=True),
            ValueError,
            "n_keys",
        ),
        (
            lambda: saturation_stats([0], 3, 5, np.random.default_rng(), scaled=True),
            ValueError,
            "d_k",
        ),
        (lambda: saturation_stats([4], 3, 5, None, scaled=True), TypeError, "rng must be"),
        (lambda: head_scale_stats(10, 3, 4, 5, np.random.default_rng()), ValueError, "d_model"),
        (lambda: head_scale_stats(8, 0, 4, 5, np.random.default_rng()), ValueError, "n_heads"),
        (
            lambda: head_scale_stats(8, 2, 4, 5, np.random.default_rng(), std=0.0),
            ValueError,
            "std",
        ),
        (lambda: head_scale_stats(8, 2, 4, 5, None), TypeError, "rng must be"),
    ],
)
def test_bad_input_names_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_rope_offset_weights_match_a_hand_rotation():
    # d = 2: q = k = (1, 0) turned by m and n radians; the score of query m with key n is
    # cos(m - n) / sqrt(2), and the causal row m spans keys 0..m
    got = rope_offset_weights([1.0, 0.0], [1.0, 0.0], [0, 1, 2])
    for m in range(3):
        scores = [math.cos(m - n) / math.sqrt(2) for n in range(m + 1)]
        e = [math.exp(x) for x in scores]
        expected = [x / sum(e) for x in e] + [0.0] * (2 - m)
        np.testing.assert_allclose(got[m], expected, rtol=1e-12, atol=0)


def test_rope_offset_weights_depend_on_offsets_only():
    rng = np.random.default_rng(4)
    q, k = rng.standard_normal(6), rng.standard_normal(6)
    near = rope_offset_weights(q, k, np.arange(5))
    far = rope_offset_weights(q, k, np.arange(5) + 37.5)  # every position shifted
    np.testing.assert_allclose(near, far, rtol=1e-10, atol=1e-12)


def test_rope_offset_head_step_follows_the_finite_difference_gradient():
    rng = np.random.default_rng(2)
    q, k = rng.standard_normal(4), rng.standard_normal(4)
    positions, lr, eps = np.arange(6), 1e-3, 1e-6

    def loss(q_, k_):
        return train_rope_offset_head(4, positions, 0, lr, None, start=(q_, k_)).losses[0]

    numeric = []
    for vec, other, first in [(q, k, True), (k, q, False)]:
        for i in range(4):
            step = np.zeros(4)
            step[i] = eps
            plus = loss(vec + step, other) if first else loss(other, vec + step)
            minus = loss(vec - step, other) if first else loss(other, vec - step)
            numeric.append((plus - minus) / (2 * eps))
    head = train_rope_offset_head(4, positions, 1, lr, None, start=(q, k))
    analytic = np.concatenate([(q - head.query) / lr, (k - head.key) / lr])
    np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-8)


def test_rope_offset_head_learns_the_previous_token():
    head = train_rope_offset_head(8, np.arange(16), 500, 0.1, np.random.default_rng(0))
    weights = rope_offset_weights(head.query, head.key, np.arange(16))
    rows = np.arange(1, 16)
    assert head.losses[-1] < head.losses[0] / 10
    assert (weights[rows].argmax(axis=-1) == rows - 1).all()


def test_rope_offset_head_refuses_bad_input():
    with pytest.raises(ValueError, match="even"):
        train_rope_offset_head(3, np.arange(4), 1, 0.1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="longer than offset"):
        train_rope_offset_head(4, [0], 1, 0.1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="same even length"):
        rope_offset_weights([1.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0, 1])
