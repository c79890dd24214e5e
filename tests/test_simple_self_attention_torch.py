"""The explainer's PyTorch SimpleSelfAttention and attn_core's numpy twin agree, same weights.

PyTorch is not a dependency: the test is skipped where it is not installed. The PyTorch
class is the listing of the Korean explainer of queries, keys and values
(attn_book.explainer_torch), as chapter 5 shows it; the appendix book/98_pytorch_buffers says
why its ``self.scale`` belongs in a registered buffer, which the last tests check.
"""

from __future__ import annotations

import numpy as np
import pytest

import attn_core as ac

torch = pytest.importorskip("torch")
from attn_book.explainer_torch import (  # noqa: E402
    BufferedSelfAttention,
    SimpleSelfAttention,
    copy_weights,
)


@pytest.mark.parametrize(("batch", "seq_len", "embed_dim"), [(1, 3, 4), (2, 5, 8)])
def test_the_numpy_twin_equals_the_explainers_pytorch_layer(batch, seq_len, embed_dim):
    layer = ac.SimpleSelfAttention(embed_dim, np.random.default_rng(0))
    reference = SimpleSelfAttention(embed_dim).double()
    copy_weights(layer, reference)
    x = np.random.default_rng(1).normal(size=(batch, seq_len, embed_dim))
    output, attention = layer(x)
    want_output, want_attention = reference(torch.from_numpy(x))
    # the listing's scale stays a float32 tensor: sqrt(8) rounded to float32 costs about 1e-8
    np.testing.assert_allclose(attention, want_attention.detach().numpy(), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(output, want_output.detach().numpy(), rtol=1e-6, atol=1e-9)


def test_different_weights_disagree_so_the_comparison_can_fail():
    layer = ac.SimpleSelfAttention(4, np.random.default_rng(0))
    reference = SimpleSelfAttention(4).double()
    copy_weights(ac.SimpleSelfAttention(4, np.random.default_rng(99)), reference)
    x = np.random.default_rng(1).normal(size=(1, 3, 4))
    assert not np.allclose(layer(x)[0], reference(torch.from_numpy(x))[0].detach().numpy())


def test_a_plain_tensor_attribute_is_left_behind_and_not_saved():
    layer = SimpleSelfAttention(8).double()
    assert layer.query.weight.dtype == torch.float64  # the parameters follow .double()
    assert layer.scale.dtype == torch.float32  # the plain attribute does not
    assert "scale" not in layer.state_dict()
    moved = SimpleSelfAttention(8).to("meta")  # a device without data, standing in for a GPU
    assert moved.query.weight.device.type == "meta" and moved.scale.device.type == "cpu"
    with pytest.raises(RuntimeError, match="device"):
        moved(torch.zeros(1, 3, 8, device="meta"))


def test_a_registered_buffer_follows_double_and_to_and_is_saved():
    layer = BufferedSelfAttention(8).double()
    assert layer.scale.dtype == torch.float64
    assert "scale" in layer.state_dict()
    # built in float32, so the value keeps float32's rounding of √8: .double() cannot restore it
    assert float(layer.state_dict()["scale"]) == float(np.float32(8**0.5))
    moved = BufferedSelfAttention(8).to("meta")
    assert moved.scale.device.type == "meta"
    assert moved(torch.zeros(1, 3, 8, device="meta"))[0].shape == (1, 3, 8)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_in_half_precision_only_the_buffer_version_runs(dtype):
    dtype = getattr(torch, dtype)
    x = torch.randn(1, 3, 8, generator=torch.Generator().manual_seed(0)).to(dtype)
    with pytest.raises(RuntimeError, match="expected scalar type Float"):
        SimpleSelfAttention(8).to(dtype)(x)  # float32 scale promotes the scores to float32
    output, attention = BufferedSelfAttention(8).to(dtype)(x)
    assert output.dtype == attention.dtype == dtype
