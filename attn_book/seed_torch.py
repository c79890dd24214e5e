"""The seed article's PyTorch ``SimpleSelfAttention``, for comparing with attn_core's numpy twin.

PyTorch is optional (not a dependency of the book): without it, importing this module
works but :data:`SimpleSelfAttention` is None and :func:`copy_weights` raises. The class
is the seed's listing, its comments translated.
"""

from __future__ import annotations

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:  # the book runs on numpy alone
    torch = None

__all__ = ["SimpleSelfAttention", "copy_weights"]

SimpleSelfAttention = None

if torch is not None:

    class SimpleSelfAttention(nn.Module):
        def __init__(self, embed_dim):
            super(SimpleSelfAttention, self).__init__()  # noqa: UP008 - as the seed writes it
            self.query = nn.Linear(embed_dim, embed_dim)
            self.key = nn.Linear(embed_dim, embed_dim)
            self.value = nn.Linear(embed_dim, embed_dim)
            self.scale = torch.sqrt(torch.FloatTensor([embed_dim]))

        def forward(self, x):
            # x: [batch_size, seq_len, embed_dim]
            batch_size, seq_len, embed_dim = x.shape  # noqa: RUF059 - as the seed writes it

            # queries, keys, values (쿼리, 키, 값)
            q = self.query(x)  # [batch_size, seq_len, embed_dim]
            k = self.key(x)  # [batch_size, seq_len, embed_dim]
            v = self.value(x)  # [batch_size, seq_len, embed_dim]

            # attention scores (어텐션 스코어)
            # q @ k.transpose(-2, -1) -> [batch_size, seq_len, seq_len]
            attention = torch.matmul(q, k.transpose(-2, -1)) / self.scale

            # softmax (소프트맥스)
            attention = F.softmax(attention, dim=-1)

            # weighted sum (가중치 적용)
            # attention @ v -> [batch_size, seq_len, embed_dim]
            output = torch.matmul(attention, v)

            return output, attention


def copy_weights(numpy_layer, torch_layer):
    """Give ``torch_layer`` the weights of ``numpy_layer`` (an attn_core.SimpleSelfAttention).

    ``nn.Linear`` computes ``x @ W.T + b`` with ``W`` of shape (out, in); the numpy twin
    computes ``x @ w + b`` with ``w`` of shape (in, out), so ``W = w.T``.

    Parameters
    ----------
    numpy_layer : attn_core.SimpleSelfAttention
    torch_layer : SimpleSelfAttention
        The PyTorch layer, of the same ``embed_dim``; changed in place.
    """
    if torch is None:
        raise ImportError("copy_weights needs PyTorch, which is not installed")
    with torch.no_grad():
        for name in ("query", "key", "value"):
            w, b = getattr(numpy_layer, name)  # [in, out], [out]
            linear = getattr(torch_layer, name)
            linear.weight.copy_(torch.from_numpy(w.T.copy()))  # [out, in]
            linear.bias.copy_(torch.from_numpy(b))
