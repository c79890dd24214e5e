"""The online softmax step against hand arithmetic and a plain-Python softmax."""

import math

import numpy as np
import pytest

from attn_core import online_softmax_start, online_softmax_step


def _python_attention(scores, values):
    """softmax(scores) @ values with plain floats."""
    exps = [math.exp(s) for s in scores]
    return [
        sum(e * v[c] for e, v in zip(exps, values, strict=True)) / sum(exps)
        for c in range(len(values[0]))
    ]


def test_the_max_moves_by_hand():
    # key 2 first (score 0, value (0, 2)), then key 1 (score 1/√2, value (2, 0))
    state = online_softmax_step(online_softmax_start(2), [0.0], [[0, 2]])
    assert (state.running_max, state.total, state.out.tolist()) == (0.0, 1.0, [0.0, 2.0])
    s1 = 1 / math.sqrt(2)
    state = online_softmax_step(state, [s1], [[2, 0]])
    r = math.exp(-s1)  # e^(m_old - m_new) = e^(0 - 0.707) ≈ 0.493
    assert state.rescale == pytest.approx(r)
    assert state.total == pytest.approx(r * 1 + 1)  # the old term shrinks, the new is e^0
    np.testing.assert_allclose(state.out, [2, 2 * r])


@pytest.mark.parametrize("block", [1, 2, 3, 5])
def test_any_blocks_give_the_softmax(block):
    rng = np.random.default_rng(3)
    scores, values = 4 * rng.normal(size=7), rng.normal(size=(7, 3))
    state = online_softmax_start(3)
    for start in range(0, 7, block):
        state = online_softmax_step(
            state, scores[start : start + block], values[start : start + block]
        )
    expected = _python_attention(scores.tolist(), values.tolist())
    np.testing.assert_allclose(state.output, expected, rtol=1e-12)
    assert state.running_max == max(scores)


def test_first_step_rescales_nothing_seen():
    state = online_softmax_step(online_softmax_start(1), [2.0, 1.0], [[1.0], [3.0]])
    assert state.rescale == 0.0  # e^(-inf): there was nothing to rescale
    assert state.total == pytest.approx(1 + math.exp(-1))


def test_bad_shapes_name_the_arguments():
    with pytest.raises(ValueError, match=r"values \(B, 2\).*scores \(3,\), values \(3, 3\)"):
        online_softmax_step(online_softmax_start(2), [0, 1, 2], np.ones((3, 3)))
    with pytest.raises(ValueError, match="scores must be finite"):
        online_softmax_step(online_softmax_start(1), [np.nan], [[1.0]])
