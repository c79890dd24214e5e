"""The PyTorch calls behind both fully-masked-row tables, shared by their tests.

Chapter 2's table (attn_book.masked_row, tests/test_masked_row_torch.py) and chapter 7's
(book/07_heads_and_masks.py, tests/test_masks_torch.py) say what the same PyTorch calls give
a query whose keys are all masked. Each call here makes one of them and returns what comes
back, for :func:`classify` to call "NaN" or "zeros".
"""

import numpy as np


def classify(x):
    """'NaN' if every entry is NaN, 'zeros' if every entry is 0, else 'other'."""
    x = np.asarray(x, dtype=float)
    if np.isnan(x).all():
        return "NaN"
    if np.array_equal(x, np.zeros_like(x)):
        return "zeros"
    return "other"


def mha_layer(torch, *, bias=0.0):
    """A 2-head layer on E = 4 (batch first), three tokens, and a key_padding_mask hiding all.

    The output projection's bias is ``bias`` (0 at PyTorch's initialisation).
    """
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(4, 2, batch_first=True)
    with torch.no_grad():
        mha.out_proj.bias.fill_(bias)
    x = torch.randn(1, 3, 4)
    return mha, x, torch.ones(1, 3, dtype=torch.bool)  # MHA: True = ignore this key


def sdpa(torch):
    """``F.scaled_dot_product_attention`` with a boolean attn_mask that lets nothing through."""
    q, k, v = (torch.randn(1, 1, 3, 4) for _ in range(3))
    nothing = torch.zeros(1, 1, 3, 3, dtype=torch.bool)  # SDPA: True = may attend; none may
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=nothing).numpy()


def mha_need_weights(torch):
    """``nn.MultiheadAttention`` with need_weights=True (the default): its output and weights."""
    mha, x, hide_all = mha_layer(torch)
    out, weights = mha(x, x, x, key_padding_mask=hide_all)
    return np.concatenate([out.detach().numpy().ravel(), weights.detach().numpy().ravel()])


def mha_no_weights(torch):
    """need_weights=False, training and eval() with autograd on: the attention part of the output.

    The output projection's bias is 0.5, so a zero attention output shows as the bias alone.
    """
    mha, x, hide_all = mha_layer(torch, bias=0.5)
    outs = []
    for training in (True, False):  # autograd on in both; training also avoids the fast path
        mha.train(training)
        out, weights = mha(x, x, x, key_padding_mask=hide_all, need_weights=False)
        assert weights is None
        outs.append(out.detach().numpy() - 0.5)  # minus the bias: the attention part
    return np.stack(outs)


def mha_fast_path(torch):
    """need_weights=False, eval() under torch.no_grad(): the inference fast path's output."""
    mha, x, hide_all = mha_layer(torch)
    mha.eval()
    with torch.no_grad():
        out, _ = mha(x, x, x, key_padding_mask=hide_all, need_weights=False)
    return out.numpy()


def mha_attn_mask_need_weights(torch):
    """A boolean ``attn_mask`` [L, S] that hides every key (MHA: True = not allowed)."""
    mha, x, _ = mha_layer(torch)
    hide_all = torch.ones(3, 3, dtype=torch.bool)
    out, weights = mha(x, x, x, attn_mask=hide_all)  # need_weights=True, the default
    return np.concatenate([out.detach().numpy().ravel(), weights.detach().numpy().ravel()])


def mha_eval_seq_first(torch):
    """batch_first=False, the default: eval() under no_grad() takes no fast path."""
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(4, 2).eval()  # batch_first=False: [L, B, E]
    x = torch.randn(3, 1, 4)
    hide_all = torch.ones(1, 3, dtype=torch.bool)  # [B, S], True = ignore
    with torch.no_grad():
        out, _ = mha(x, x, x, key_padding_mask=hide_all, need_weights=False)
    return out.numpy() - mha.out_proj.bias.detach().numpy()  # the attention part


def mha_eval_cross(torch):
    """Cross-attention (a query tensor other than the keys'): no fast path either."""
    mha, x, hide_all = mha_layer(torch)
    mha.eval()
    query = torch.randn(1, 2, 4)
    with torch.no_grad():
        out, _ = mha(query, x, x, key_padding_mask=hide_all, need_weights=False)
    return out.numpy() - mha.out_proj.bias.detach().numpy()
