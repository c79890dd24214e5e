"""Positions (attn_core.positions) against independent derivations.

Sinusoidal encodings against the paper's formula written as a loop; RoPE against its
complex-number form and against Hugging Face's ``rotate_half`` formula; the relative-position
identity as a property; ALiBi's slopes against the paper's lists, written out.
"""

from __future__ import annotations

import cmath
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attn_core as ac


def _vaswani_loop(n, d, base=10_000):
    """PE(pos, 2i) = sin(pos / base^(2i/d)), PE(pos, 2i+1) = cos(pos / base^(2i/d))."""
    out = [[0.0] * d for _ in range(n)]
    for pos in range(n):
        for i in range((d + 1) // 2):
            angle = pos / base ** (2 * i / d)
            out[pos][2 * i] = math.sin(angle)
            if 2 * i + 1 < d:
                out[pos][2 * i + 1] = math.cos(angle)
    return np.array(out).reshape(n, d)


@pytest.mark.parametrize(("n", "d"), [(1, 1), (3, 4), (5, 6), (7, 5), (50, 16), (0, 4)])
def test_sinusoidal_matches_the_papers_formula_as_a_loop(n, d):
    np.testing.assert_allclose(ac.sinusoidal_positions(n, d), _vaswani_loop(n, d), atol=1e-12)


def test_sinusoidal_by_hand_values():
    pe = ac.sinusoidal_positions(3, 4)
    # position 1: sin 1 = 0.8415, cos 1 = 0.5403, sin 0.01 = 0.0100, cos 0.01 = 0.99995
    np.testing.assert_allclose(pe[1], [0.841471, 0.540302, 0.0099998, 0.99995], atol=1e-6)
    np.testing.assert_array_equal(pe[0], [0, 1, 0, 1])  # position 0: sin 0, cos 0


def test_sinusoidal_dot_product_depends_only_on_the_offset():
    # PE_p · PE_q = Σ_i cos((p − q) ω_i): a sum of cosines of the offset
    pe = ac.sinusoidal_positions(40, 8)
    for p, q in [(3, 1), (22, 20), (39, 37)]:
        omega = [10_000 ** (-2 * i / 8) for i in range(4)]
        assert pe[p] @ pe[q] == pytest.approx(sum(math.cos((p - q) * w) for w in omega))


def _shift_nullity(pe):
    """How many independent M make PE_p M PE_qᵀ a function of p − q alone on these rows.

    Each (p, q) asks PE_{p+1} M PE_{q+1}ᵀ − PE_p M PE_qᵀ = 0, linear in M's entries."""
    n, d = pe.shape
    rows = [
        (np.outer(pe[p + 1], pe[q + 1]) - np.outer(pe[p], pe[q])).ravel()
        for p in range(n - 1)
        for q in range(n - 1)
    ]
    s = np.linalg.svd(np.array(rows), compute_uv=False)
    return d * d - int((s > 1e-8 * s[0]).sum()), np.array(rows)


def _pe_from(omega, n):
    """Sin, cos interleaved per frequency, written out by hand."""
    p = np.arange(n)[:, None]
    return np.stack([np.sin(p * omega), np.cos(p * omega)], axis=-1).reshape(n, -1)


def test_only_block_scaled_rotations_keep_the_position_term_a_function_of_the_offset():
    # Chapter 6's aside: PE_p M PE_qᵀ depends on p − q alone exactly when M is block-diagonal
    # over the frequency pairs with 2 × 2 blocks [[a, −b], [b, a]]: 2 numbers per pair
    d, n = 4, 40
    pe = ac.sinusoidal_positions(n, d)
    np.testing.assert_allclose(pe, _pe_from(np.array([1.0, 0.01]), n), atol=1e-12)
    nullity, constraints = _shift_nullity(pe)
    assert nullity == d  # no other matrix does it
    rotation, turn, reflection = np.eye(2), np.array([[0, -1], [1, 0]]), np.diag([1, -1])
    for block in (rotation, turn):
        for pair in range(d // 2):
            m = np.zeros((d, d))
            m[2 * pair : 2 * pair + 2, 2 * pair : 2 * pair + 2] = block
            np.testing.assert_allclose(constraints @ m.ravel(), 0, atol=1e-12)
    m = np.zeros((d, d))
    m[:2, :2] = reflection  # cos((p + q) ω): depends on p + q
    assert np.abs(constraints @ m.ravel()).max() > 0.1
    # aliasing: 1 and 2π − 1 radian look alike on integer positions, and more matrices work
    aliased, _ = _shift_nullity(_pe_from(np.array([1.0, 2 * np.pi - 1]), n))
    assert aliased > d


def _rope_complex(x, positions, base=10_000):
    """(x_{2i} + i x_{2i+1}) · e^{i m θ_i}, θ_i = base^(−2i/d), with Python complex numbers."""
    x = np.asarray(x, dtype=float)
    out = np.empty_like(x)
    d = x.shape[-1]
    for row, m in enumerate(positions):
        for i in range(d // 2):
            z = complex(x[row, 2 * i], x[row, 2 * i + 1]) * cmath.exp(1j * m * base ** (-2 * i / d))
            out[row, 2 * i], out[row, 2 * i + 1] = z.real, z.imag
    return out


def _rope_rotate_half(x, positions, base=10_000):
    """Hugging Face Llama: x·cos + rotate_half(x)·sin, cos/sin of [θ, θ] (halves layout)."""
    x = np.asarray(x, dtype=float)
    d = x.shape[-1]
    theta = np.array([base ** (-2 * i / d) for i in range(d // 2)])
    angles = np.outer(positions, np.concatenate([theta, theta]))  # [n, d]
    rotated_half = np.concatenate([-x[..., d // 2 :], x[..., : d // 2]], axis=-1)
    return x * np.cos(angles) + rotated_half * np.sin(angles)


@pytest.mark.parametrize(("n", "d", "base"), [(1, 2, 10_000), (4, 4, 10_000), (6, 8, 500.0)])
def test_rotary_matches_the_complex_form(n, d, base):
    rng = np.random.default_rng(n * d)
    x = rng.normal(size=(n, d))
    positions = rng.integers(0, 50, size=n)
    np.testing.assert_allclose(
        ac.rotary(x, positions, base), _rope_complex(x, positions, base), atol=1e-12
    )


def test_rotary_halves_layout_matches_rotate_half():
    rng = np.random.default_rng(3)
    x, positions = rng.normal(size=(2, 5, 8)), [0, 1, 2, 7, 30]
    np.testing.assert_allclose(
        ac.rotary(x, positions, layout="halves"), _rope_rotate_half(x, positions), atol=1e-12
    )


def test_rotary_in_two_dimensions_is_the_rotation_by_m_radians():
    # d = 2: one pair, θ = base^0 = 1, whatever the base
    keys = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    got = ac.rotary(keys, [1, 2, 3], base=7.0)
    for row, (k, m) in enumerate(zip(keys, [1, 2, 3], strict=True)):
        c, s = math.cos(m), math.sin(m)
        assert got[row].tolist() == pytest.approx([c * k[0] - s * k[1], s * k[0] + c * k[1]])


def test_rotary_keeps_lengths_and_position_zero_is_identity():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(3, 6))
    np.testing.assert_array_equal(ac.rotary(x, [0, 0, 0]), x)
    np.testing.assert_allclose(
        np.linalg.norm(ac.rotary(x, [5, 9, 100]), axis=-1), np.linalg.norm(x, axis=-1)
    )


@settings(max_examples=60, deadline=None)
@given(
    half=st.integers(1, 4),
    m=st.integers(0, 200),
    n=st.integers(0, 200),
    shift=st.integers(0, 1000),
    seed=st.integers(0, 2**32 - 1),
    layout=st.sampled_from(["interleaved", "halves"]),
)
def test_rotated_dot_product_depends_only_on_m_minus_n(half, m, n, shift, seed, layout):
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=(2, 1, 2 * half))

    def score(a, b):
        return float(ac.rotary(q, [a], layout=layout)[0] @ ac.rotary(k, [b], layout=layout)[0])

    assert score(m + shift, n + shift) == pytest.approx(score(m, n), rel=1e-9, abs=1e-9)


def test_layout_conversions_round_trip_and_move_pairs():
    x = np.arange(8.0)  # interleaved pairs (0,1) (2,3) (4,5) (6,7)
    halves = ac.interleaved_to_halves(x)
    assert halves.tolist() == [0, 2, 4, 6, 1, 3, 5, 7]  # pair i at (i, i + 4)
    np.testing.assert_array_equal(ac.halves_to_interleaved(halves), x)
    rng = np.random.default_rng(5)
    y = rng.normal(size=(3, 2, 10))
    np.testing.assert_array_equal(ac.interleaved_to_halves(ac.halves_to_interleaved(y)), y)
    np.testing.assert_array_equal(ac.halves_to_interleaved(ac.interleaved_to_halves(y)), y)


def test_the_wrong_layout_gives_different_scores_and_converting_the_weights_fixes_it():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(5, 8))  # 5 tokens
    w_q, w_k = rng.normal(size=(2, 8, 8))  # "trained" with the halves layout
    positions = np.arange(5)

    def scores(wq, wk, layout):
        q = ac.rotary(x @ wq, positions, layout=layout)
        k = ac.rotary(x @ wk, positions, layout=layout)
        return q @ k.T

    trained = scores(w_q, w_k, "halves")
    wrong = scores(w_q, w_k, "interleaved")  # the ported-model bug
    assert np.abs(wrong - trained).max() > 0.5
    # Converting the weights' output columns to the interleaved layout fixes it.
    fixed = scores(ac.halves_to_interleaved(w_q), ac.halves_to_interleaved(w_k), "interleaved")
    np.testing.assert_allclose(fixed, trained, atol=1e-10)
    # At position 0 both layouts are the identity: the bug hides on a one-word test.
    np.testing.assert_allclose(ac.rotary(x[:1], [0]), ac.rotary(x[:1], [0], layout="halves"))


# ALiBi (Press et al. 2022): slopes 2^(−8/H), 2^(−16/H), ..., written out.
SLOPES_8 = [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]
SLOPES_16 = [
    0.7071067811865476, 0.5, 0.35355339059327373, 0.25,
    0.17677669529663687, 0.125, 0.08838834764831843, 0.0625,
    0.044194173824159216, 0.03125, 0.022097086912079608, 0.015625,
    0.011048543456039804, 0.0078125, 0.005524271728019902, 0.00390625,
]  # fmt: skip
# 12 heads, the paper's code: the 8-head slopes, then every other 16-head slope, four of them
SLOPES_12 = [*SLOPES_8, 0.7071067811865476, 0.35355339059327373, 0.17677669529663687,
             0.08838834764831843]  # fmt: skip


@pytest.mark.parametrize(
    ("h", "expected"),
    [(1, [1 / 256]), (2, [1 / 16, 1 / 256]), (8, SLOPES_8), (16, SLOPES_16), (12, SLOPES_12)],
)
def test_alibi_slopes_are_the_papers(h, expected):
    assert ac.alibi_slopes(h).tolist() == pytest.approx(expected, rel=1e-15)


def test_alibi_bias_is_minus_slope_times_distance():
    h, n = 8, 5
    bias = ac.alibi_bias(h, n, n)
    assert bias.shape == (h, n, n)
    for head in range(h):
        for i in range(n):
            for j in range(i + 1):  # the paper's keys j <= i
                assert bias[head, i, j] == -SLOPES_8[head] * (i - j)
            for j in range(i + 1, n):  # after the query: the same penalty on distance
                assert bias[head, i, j] == -SLOPES_8[head] * (j - i)


def test_alibi_queries_are_the_last_positions_when_l_is_smaller():
    bias = ac.alibi_bias(2, 1, 4)  # decoding: one new word after three cached ones
    assert bias[0, 0].tolist() == [-3 / 16, -2 / 16, -1 / 16, 0]
    bias = ac.alibi_bias(1, 2, 5)  # queries at positions 3 and 4
    assert bias[0].tolist() == [[-3 / 256, -2 / 256, -1 / 256, 0, -1 / 256],
                                [-4 / 256, -3 / 256, -2 / 256, -1 / 256, 0]]  # fmt: skip


def test_alibi_with_a_causal_mask_equals_the_papers_row_constant_form():
    # the paper's code adds m·j to every row; after the causal mask the softmax is the same
    rng = np.random.default_rng(7)
    q, k = rng.normal(size=(2, 4, 6, 8))  # 4 heads, 6 tokens
    causal = ac.causal_mask(6, 6)
    ours = ac.attention_weights(q, k, attn_mask=np.where(causal, ac.alibi_bias(4, 6, 6), -np.inf))
    theirs_bias = ac.alibi_slopes(4)[:, None, None] * np.arange(6.0)  # [4, 1, 6]
    theirs = ac.attention_weights(q, k, attn_mask=np.where(causal, theirs_bias, -np.inf))
    np.testing.assert_allclose(ours, theirs, atol=1e-12)


@pytest.mark.parametrize(
    ("call", "exc", "words"),
    [
        (lambda: ac.rotary(np.ones((2, 3)), [0, 1]), ValueError, ["x's last axis d", "even", "3"]),
        (lambda: ac.rotary(np.ones((2, 4)), [0, np.inf]), ValueError, ["positions[1] = inf"]),
        (lambda: ac.rotary(np.ones((2, 4)), [0, -np.inf]), ValueError, ["positions[1] = -inf"]),
        (lambda: ac.rotary(np.ones((2, 4)), [0, 1, 2]), ValueError, ["positions", "(2,)", "(3,)"]),
        (lambda: ac.rotary(np.ones((2, 4)), ["a", "b"]), TypeError, ["positions"]),
        (lambda: ac.rotary(np.ones((2, 4)), [True, False]), TypeError, ["positions"]),
        (lambda: ac.rotary(np.ones((2, 4)), [0, np.nan]), ValueError, ["positions[1] = nan"]),
        (lambda: ac.rotary(np.ones(4), [0]), ValueError, ["x must be (..., n, d)"]),
        (lambda: ac.rotary(np.ones((1, 4)), [0], layout="llama"), ValueError, ["layout"]),
        (lambda: ac.rotary(np.ones((1, 4)), [0], base=0), ValueError, ["base"]),
        (lambda: ac.interleaved_to_halves(np.ones(5)), ValueError, ["even", "5"]),
        (lambda: ac.halves_to_interleaved(3.0), ValueError, ["even"]),
        (lambda: ac.rotary_frequencies(7), ValueError, ["d", "even"]),
        (lambda: ac.alibi_bias(0, 3, 3), ValueError, ["n_heads", ">= 1"]),
        (lambda: ac.alibi_bias(-2, 3, 3), ValueError, ["n_heads"]),
        (lambda: ac.alibi_slopes(2.5), ValueError, ["n_heads"]),
        (lambda: ac.alibi_bias(2, 4, 3), ValueError, ["L must be <= S", "L = 4", "S = 3"]),
        (lambda: ac.alibi_bias(2, -1, 3), ValueError, ["L"]),
        (lambda: ac.sinusoidal_positions(-1, 4), ValueError, ["n"]),
        (lambda: ac.sinusoidal_positions(3, 0), ValueError, ["d", ">= 1"]),
        (lambda: ac.sinusoidal_positions(3.0, 4), ValueError, ["n"]),
    ],
)
def test_bad_input_names_the_argument(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    missing = [w for w in words if w not in str(info.value)]
    assert not missing, f"{info.value!s} lacks {missing}"


def test_rotary_keeps_batch_axes_and_float32():
    x = np.ones((2, 3, 4, 6), np.float32)
    out = ac.rotary(x, [0, 1, 2, 3])
    assert out.shape == x.shape and out.dtype == np.float32


def test_projection_example_is_chapter_5s_sentence():
    from attn_book.data import projection_example

    ex = projection_example()  # the matrices as book/05_projections.py writes them
    assert ex.tokens == ("나는", "사과를", "먹었다")
    assert ex.x.tolist() == [[1, 0, 1, 0], [1, 0, 0, 1], [0, 1, 0, 0]]
    assert ex.w_q.tolist() == [[0, 0, 0], [0, 0, 2], [2, 0, 0], [2, 2, 0]]
    assert ex.w_k.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
    assert ex.w_v.tolist() == [[0, 0, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]]


def test_rotary_takes_fractional_positions():
    """Position interpolation: position 1.5 turns by 1.5 θ, halfway between 1 and 2 in angle."""
    x = np.array([[1.0, 0.0]])  # d = 2: θ = 1 radian
    np.testing.assert_allclose(ac.rotary(x, [1.5]), [[np.cos(1.5), np.sin(1.5)]])
    q, k = np.random.default_rng(3).normal(size=(2, 1, 8))
    score = ac.rotary(q, [2.5])[0] @ ac.rotary(k, [1.0])[0]  # offset -1.5
    np.testing.assert_allclose(score, ac.rotary(q, [11.5])[0] @ ac.rotary(k, [10.0])[0])


def test_rotary_at_minus_p_is_the_inverse_rotation_by_hand():
    """cos(−pθ) = cos pθ and sin(−pθ) = −sin pθ: each pair turns back by pθ, Rᵀ = R⁻¹."""
    rng = np.random.default_rng(11)
    x = rng.normal(size=(3, 6))
    p = np.array([1.0, 4.0, 2.5])
    got = ac.rotary(x, -p)
    for row in range(3):
        for i in range(3):
            theta = 10_000 ** (-2 * i / 6)
            c, s = math.cos(p[row] * theta), math.sin(p[row] * theta)
            a, b = x[row, 2 * i], x[row, 2 * i + 1]
            assert got[row, 2 * i] == pytest.approx(c * a + s * b, abs=1e-12)
            assert got[row, 2 * i + 1] == pytest.approx(-s * a + c * b, abs=1e-12)
    np.testing.assert_allclose(ac.rotary(ac.rotary(x, p), -p), x, atol=1e-12)  # undone
    np.testing.assert_allclose(ac.rotary(x, -p), _rope_complex(x, -p), atol=1e-12)
    halves = ac.rotary(x, -p, layout="halves")
    np.testing.assert_allclose(halves, _rope_rotate_half(x, -p), atol=1e-12)


@pytest.mark.parametrize("layout", ["interleaved", "halves"])
def test_rotary_scores_depend_on_m_minus_n_alone_for_negative_positions_too(layout):
    q, k = np.random.default_rng(12).normal(size=(2, 1, 8))
    pairs = [(-7, -3), (-2, 2), (0, 4), (5, 9), (-100, -96)]  # n − m = 4 throughout

    def score(m, n):
        return float(ac.rotary(q, [m], layout=layout)[0] @ ac.rotary(k, [n], layout=layout)[0])

    want = score(*pairs[0])
    for m, n in pairs[1:]:
        assert score(m, n) == pytest.approx(want, abs=1e-12)
    assert score(-3, -7) == pytest.approx(score(4, 0), abs=1e-12)  # n − m = −4
    assert score(-3, -7) != pytest.approx(want, abs=1e-6)  # the sign of the offset matters
