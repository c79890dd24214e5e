"""The seed's PyTorch SimpleSelfAttention and attn_core's numpy twin agree given the same weights.

PyTorch is not a dependency: the test is skipped where it is not installed. The PyTorch
class is the seed article's listing, as chapter 5 shows it.
"""

from __future__ import annotations

import numpy as np
import pytest

import attn_core as ac

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional


class SimpleSelfAttention(nn.Module):  # the seed's listing, verbatim but for the comments
    def __init__(self, embed_dim):
        super(SimpleSelfAttention, self).__init__()  # noqa: UP008 - as the seed writes it
        self.query = nn.Linear(embed_dim, embed_dim)
        self.key = nn.Linear(embed_dim, embed_dim)
        self.value = nn.Linear(embed_dim, embed_dim)
        self.scale = torch.sqrt(torch.FloatTensor([embed_dim]))

    def forward(self, x):
        batch_size, seq_len, embed_dim = x.shape  # noqa: RUF059 - as the seed writes it
        q = self.query(x)
        k = self.key(x)
        v = self.value(x)
        attention = torch.matmul(q, k.transpose(-2, -1)) / self.scale
        attention = F.softmax(attention, dim=-1)
        output = torch.matmul(attention, v)
        return output, attention


def _copy_weights(numpy_layer, torch_layer):
    """nn.Linear computes x @ W.T + b with W (out, in); the numpy twin x @ w + b, w (in, out)."""
    with torch.no_grad():
        for name in ("query", "key", "value"):
            w, b = getattr(numpy_layer, name)
            linear = getattr(torch_layer, name)
            linear.weight.copy_(torch.from_numpy(w.T.copy()))
            linear.bias.copy_(torch.from_numpy(b))


@pytest.mark.parametrize(("batch", "seq_len", "embed_dim"), [(1, 3, 4), (2, 5, 8)])
def test_the_numpy_twin_equals_the_seed_pytorch_layer(batch, seq_len, embed_dim):
    layer = ac.SimpleSelfAttention(embed_dim, np.random.default_rng(0))
    reference = SimpleSelfAttention(embed_dim).double()
    _copy_weights(layer, reference)
    x = np.random.default_rng(1).normal(size=(batch, seq_len, embed_dim))
    output, attention = layer(x)
    want_output, want_attention = reference(torch.from_numpy(x))
    # the seed's scale is a float32 tensor: sqrt(8) rounded to float32 costs about 1e-8
    np.testing.assert_allclose(attention, want_attention.detach().numpy(), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(output, want_output.detach().numpy(), rtol=1e-6, atol=1e-9)


def test_different_weights_disagree_so_the_comparison_can_fail():
    layer = ac.SimpleSelfAttention(4, np.random.default_rng(0))
    reference = SimpleSelfAttention(4).double()
    _copy_weights(ac.SimpleSelfAttention(4, np.random.default_rng(99)), reference)
    x = np.random.default_rng(1).normal(size=(1, 3, 4))
    assert not np.allclose(layer(x)[0], reference(torch.from_numpy(x))[0].detach().numpy())
