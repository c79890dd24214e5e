"""attn_core.additive_scores against Bahdanau's formula written as loops, and hand maths."""

import math

import numpy as np
import pytest

import attn_core as ac
from attn_book.data import quanta_example


def loop_scores(queries, keys, W, U, v):
    """v·tanh(W q + U k) for every pair, with Python loops and math.tanh."""
    out = []
    for q in queries:
        row = []
        for k in keys:
            hidden = [
                math.tanh(
                    sum(W[a][m] * q[m] for m in range(len(q)))
                    + sum(U[a][m] * k[m] for m in range(len(k)))
                )
                for a in range(len(v))
            ]
            row.append(sum(va * ha for va, ha in zip(v, hidden, strict=True)))
        out.append(row)
    return out


def test_the_worked_example_by_hand():
    ex = quanta_example()
    eye = np.eye(2)
    got = ac.additive_scores(ex.query, ex.keys, eye, eye, [1.0, -1.0])
    # tanh(1 + 1) - tanh(0 + 0), tanh(1 + 0) - tanh(0 + 1), tanh(1 + 1) - tanh(0 + 1)
    by_hand = [math.tanh(2), 0.0, math.tanh(2) - math.tanh(1)]
    np.testing.assert_allclose(got, by_hand, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("e_q, e_k, hidden", [(2, 2, 2), (3, 5, 4), (1, 2, 6)])
def test_matches_the_loops_for_sizes_that_differ(e_q, e_k, hidden):
    r = np.random.default_rng(e_q * 100 + e_k * 10 + hidden)
    Q, K = r.normal(size=(4, e_q)), r.normal(size=(3, e_k))
    W, U, v = r.normal(size=(hidden, e_q)), r.normal(size=(hidden, e_k)), r.normal(size=hidden)
    got = ac.additive_scores(Q, K, W, U, v)
    assert got.shape == (4, 3)
    np.testing.assert_allclose(got, loop_scores(Q, K, W, U, v), rtol=1e-12, atol=1e-12)


def test_batch_axes_broadcast_and_a_single_query_drops_its_axis():
    r = np.random.default_rng(7)
    Q, K = r.normal(size=(2, 3, 4, 2)), r.normal(size=(2, 3, 5, 2))
    W, U, v = r.normal(size=(3, 2)), r.normal(size=(3, 2)), r.normal(size=3)
    got = ac.additive_scores(Q, K, W, U, v)
    assert got.shape == (2, 3, 4, 5)
    np.testing.assert_allclose(got[1, 2], loop_scores(Q[1, 2], K[1, 2], W, U, v), atol=1e-12)
    one = ac.additive_scores(Q[0, 0, 0], K[0, 0], W, U, v)
    assert one.shape == (5,)
    np.testing.assert_allclose(one, got[0, 0, 0], atol=1e-15)


def test_with_v_zero_every_score_is_zero_and_tanh_bounds_them():
    r = np.random.default_rng(3)
    Q, K = 100 * r.normal(size=(3, 2)), 100 * r.normal(size=(4, 2))
    W, U = r.normal(size=(2, 2)), r.normal(size=(2, 2))
    np.testing.assert_array_equal(ac.additive_scores(Q, K, W, U, [0.0, 0.0]), 0.0)
    v = np.array([2.0, -3.0])
    assert np.all(np.abs(ac.additive_scores(Q, K, W, U, v)) <= np.abs(v).sum())


@pytest.mark.parametrize(
    "W, U, v, named",
    [
        (np.eye(3), np.eye(2), [1.0, 1.0], "W must be"),
        (np.eye(2), np.eye(2), [1.0, 1.0, 1.0], "with v of shape (3,)"),
        (np.eye(2), np.eye(2)[0], [1.0, 1.0], "U (A, Ek)"),
    ],
)
def test_shapes_that_do_not_fit_name_the_argument(W, U, v, named):
    ex = quanta_example()
    with pytest.raises(ValueError, match=named.replace("(", r"\(").replace(")", r"\)")):
        ac.additive_scores(ex.query, ex.keys, W, U, v)


def test_nan_in_a_matrix_is_refused_by_name():
    ex = quanta_example()
    with pytest.raises(ValueError, match="U must be finite"):
        ac.additive_scores(ex.query, ex.keys, np.eye(2), [[np.nan, 0.0], [0.0, 1.0]], [1.0, 1.0])
