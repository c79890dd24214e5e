"""The seed's PyTorch SimpleSelfAttention and attn_core's numpy twin agree given the same weights.

PyTorch is not a dependency: the test is skipped where it is not installed. The PyTorch
class is the seed article's listing (attn_book.seed_torch), as chapter 5 shows it.
"""

from __future__ import annotations

import numpy as np
import pytest

import attn_core as ac

torch = pytest.importorskip("torch")
from attn_book.seed_torch import SimpleSelfAttention, copy_weights  # noqa: E402


@pytest.mark.parametrize(("batch", "seq_len", "embed_dim"), [(1, 3, 4), (2, 5, 8)])
def test_the_numpy_twin_equals_the_seed_pytorch_layer(batch, seq_len, embed_dim):
    layer = ac.SimpleSelfAttention(embed_dim, np.random.default_rng(0))
    reference = SimpleSelfAttention(embed_dim).double()
    copy_weights(layer, reference)
    x = np.random.default_rng(1).normal(size=(batch, seq_len, embed_dim))
    output, attention = layer(x)
    want_output, want_attention = reference(torch.from_numpy(x))
    # the seed's scale is a float32 tensor: sqrt(8) rounded to float32 costs about 1e-8
    np.testing.assert_allclose(attention, want_attention.detach().numpy(), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(output, want_output.detach().numpy(), rtol=1e-6, atol=1e-9)


def test_different_weights_disagree_so_the_comparison_can_fail():
    layer = ac.SimpleSelfAttention(4, np.random.default_rng(0))
    reference = SimpleSelfAttention(4).double()
    copy_weights(ac.SimpleSelfAttention(4, np.random.default_rng(99)), reference)
    x = np.random.default_rng(1).normal(size=(1, 3, 4))
    assert not np.allclose(layer(x)[0], reference(torch.from_numpy(x))[0].detach().numpy())
