"""Gated attention's output gate, against a loop with math.exp and against PyTorch's sigmoid."""

import math

import numpy as np
import pytest

import attn_core as ac


def _gate_by_loop(o, g):
    out = np.empty_like(o)
    for index in np.ndindex(o.shape):
        out[index] = o[index] / (1.0 + math.exp(-g[index]))  # σ(g) = 1 / (1 + e^-g)
    return out


@pytest.mark.parametrize("seed", range(3))
def test_elementwise_gate_equals_a_loop(seed):
    rng = np.random.default_rng(seed)
    o, g = rng.standard_normal((2, 3, 4, 5)), rng.standard_normal((2, 3, 4, 5)) * 3
    np.testing.assert_allclose(ac.output_gate(o, g), _gate_by_loop(o, g), rtol=1e-14)


def test_headwise_gate_scales_each_head_and_token_by_one_number():
    rng = np.random.default_rng(3)
    o, g = rng.standard_normal((3, 4, 5)), rng.standard_normal((3, 4, 1))
    want = _gate_by_loop(o, np.broadcast_to(g, o.shape).copy())
    np.testing.assert_allclose(ac.output_gate(o, g), want, rtol=1e-14)


def test_the_worked_example_by_hand():
    out = ac.scaled_dot_product_attention(
        [1.0, 0.0], [[1, 0], [0, 1], [1, 1]], [[2, 0], [0, 2], [1, 1]]
    )
    gated = ac.output_gate(out, [0.0, math.log(3.0)])  # σ(0) = 1/2, σ(ln 3) = 3/4
    np.testing.assert_allclose(gated, [out[0] / 2, out[1] * 3 / 4], rtol=1e-15)


def test_extreme_logits_close_or_open_the_gate_without_overflow():
    o = np.array([1.5, -2.0, 3.0])
    np.testing.assert_array_equal(ac.output_gate(o, [-1e4, 1e4, 0.0]), [0.0, -2.0, 1.5])


def test_equals_pytorch_sigmoid():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    o, g = rng.standard_normal((2, 4, 3, 8)), rng.standard_normal((2, 4, 3, 8)) * 4
    want = torch.from_numpy(o) * torch.sigmoid(torch.from_numpy(g))  # Qwen3-Next's line
    np.testing.assert_allclose(ac.output_gate(o, g), want.numpy(), rtol=1e-13)


def test_bad_input_names_itself():
    with pytest.raises(
        ValueError,
        match=r"gate_logits of shape \(2, 3, 4\) do not broadcast to output's shape \(3, 4\)",
    ):
        ac.output_gate(np.ones((3, 4)), np.ones((2, 3, 4)))  # would add an axis
    with pytest.raises(ValueError, match="gate_logits must be finite"):
        ac.output_gate([1.0], [np.nan])
    with pytest.raises(TypeError, match="output must hold real numbers"):
        ac.output_gate(["a"], [1.0])
