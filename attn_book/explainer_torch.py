"""The explainer's PyTorch ``SimpleSelfAttention``, for comparing with attn_core's numpy twin.

The class is the listing of the Korean explainer of queries, keys and values (chapter 5),
its comments translated. :class:`BufferedSelfAttention` is the same layer with its one flaw
fixed: ``self.scale`` is a plain tensor attribute there, so ``.double()`` and
``.to(device)`` leave it behind and ``state_dict`` does not hold it; here it is a
registered buffer.

PyTorch is optional (not a dependency of the book): without it, importing this module
works but both classes are None and :func:`copy_weights` raises.
"""

from __future__ import annotations

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:  # the book runs on numpy alone
    torch = None

__all__ = ["BufferedSelfAttention", "SimpleSelfAttention", "copy_weights"]

SimpleSelfAttention = None
BufferedSelfAttention = None

if torch is not None:

    class SimpleSelfAttention(nn.Module):
        def __init__(self, embed_dim):
            super(SimpleSelfAttention, self).__init__()  # noqa: UP008 - as the explainer writes it
            self.query = nn.Linear(embed_dim, embed_dim)
            self.key = nn.Linear(embed_dim, embed_dim)
            self.value = nn.Linear(embed_dim, embed_dim)
            self.scale = torch.sqrt(torch.FloatTensor([embed_dim]))

        def forward(self, x):
            # x: [batch_size, seq_len, embed_dim]
            batch_size, seq_len, embed_dim = x.shape  # noqa: RUF059 - as the explainer writes it

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

    class BufferedSelfAttention(SimpleSelfAttention):
        """The explainer's layer with ``scale`` registered as a buffer: the one line changed."""

        def __init__(self, embed_dim):
            super().__init__(embed_dim)
            del self.scale  # the plain tensor attribute of the listing
            # a buffer: .to() and .double() convert it with the parameters; state_dict holds it
            self.register_buffer("scale", torch.sqrt(torch.tensor([float(embed_dim)])))


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
