"""Memory-efficient attention (메모리 효율 어텐션): the online softmax over blocks of keys.

The idea behind FlashAttention (Dao et al., 2022), written for reading: the
keys and values are visited one block at a time, and each query keeps a
running max, a running sum and a running output, so the L×S weights never
exist at once. The FLOPs stay L·S·(2E + 2Ev); the memory is L·block.
"""

from __future__ import annotations

import numpy as np

from .validation import (
    as_input_dtype,
    check_attention_inputs,
    check_mask,
    check_positive_int,
    check_scale,
)

__all__ = ["chunked_attention"]


def chunked_attention(
    query, key, value, attn_mask=None, is_causal=False, *, scale=None, block_size=256
):
    r"""Scaled dot-product attention, one block of keys at a time (the online softmax).

    Parameters
    ----------
    query : array_like, shape (..., L, E) or (E,)
    key : array_like, shape (..., S, E)
    value : array_like, shape (..., S, Ev)
    attn_mask, is_causal, scale
        As in :func:`attn_core.attention_weights`.
    block_size : int, default 256
        Keys per block. Any size gives the same output; it need not divide S.

    Returns
    -------
    ndarray, shape (..., L, Ev), or (..., Ev) for a 1-D query
        The output of :func:`attn_core.scaled_dot_product_attention`, to float
        tolerance (zeros for a fully masked row).

    Notes
    -----
    Softmax needs each row's max and sum over *all* S keys, yet a block shows
    only some. Each query row therefore carries three running quantities over
    the keys seen so far:

    - the running max :math:`m` of its scores,
    - the running sum :math:`\ell = \sum_j e^{s_j - m}`,
    - the running output :math:`o = \sum_j e^{s_j - m} v_j` (not yet divided).

    A new block of scores :math:`s_j` raises the max to
    :math:`m' = \max(m, \max_j s_j)`. What was summed under :math:`m` is
    rescaled by :math:`e^{m - m'} \le 1`, then the block's terms are added:

    .. math:: \ell' = \ell\, e^{m - m'} + \sum_j e^{s_j - m'}, \qquad
              o' = o\, e^{m - m'} + \sum_j e^{s_j - m'} v_j

    After the last block, :math:`o / \ell` is the attention output: the
    rescaling made every term :math:`e^{s_j - m_{\text{final}}}`, exactly the
    terms of the plain softmax. See Milakov and Gimelshein, "Online normalizer
    calculation for softmax" (2018), and Dao et al., "FlashAttention" (2022).

    Examples
    --------
    The seed's example, one key per block. With the identity as values, the
    output *is* the weights:

    >>> from attn_core import seed_example
    >>> ex = seed_example()
    >>> chunked_attention(ex.query, ex.keys, np.eye(3), block_size=1).round(3)
    array([0.401, 0.198, 0.401])
    >>> chunked_attention(ex.query, ex.keys, ex.values, block_size=1).round(3)
    array([1.203, 0.797])
    """
    q, k, v = check_attention_inputs(query, key, value, scale=scale, full_scores=False)
    block = check_positive_int(block_size, "block_size")
    q2 = np.atleast_2d(q) * check_scale(scale, q.shape[-1])  # [..., L, E], scaled once
    mask = _full_mask(attn_mask, is_causal, q2, k)
    running_max = np.full((*q2.shape[:-1], 1), -np.inf, dtype=q2.dtype)  # m: [..., L, 1]
    running_sum = np.zeros_like(running_max)  # l: sum of exp(s - m)
    running_out = np.zeros((*q2.shape[:-1], v.shape[-1]), dtype=q2.dtype)  # o: [..., L, Ev]
    for start in range(0, k.shape[-2], block):
        keys, values = k[..., start : start + block, :], v[..., start : start + block, :]
        scores = q2 @ np.swapaxes(keys, -1, -2)  # [..., L, E] @ [..., E, B] -> [..., L, B]
        scores = _hide(scores, mask, is_causal, start)
        new_max = np.maximum(running_max, scores.max(axis=-1, keepdims=True))
        shift = np.where(np.isneginf(new_max), 0, new_max)  # no key seen yet: shift by 0
        rescale = np.exp(running_max - shift)  # e^(m - m'): what was summed under m
        weights = np.exp(scores - shift)  # e^(s - m'), not yet divided: [..., L, B]
        running_sum = running_sum * rescale + weights.sum(axis=-1, keepdims=True)
        running_out = running_out * rescale + weights @ values  # [..., L, B] @ [..., B, Ev]
        running_max = new_max
    out = np.divide(running_out, running_sum, out=np.zeros_like(running_out), where=running_sum > 0)
    out = as_input_dtype(out, query, key, value)  # float16 in, float16 out
    return out[..., 0, :] if q.ndim == 1 else out


def _full_mask(attn_mask, is_causal, q, k):
    """The validated mask, broadcast (a view) to the scores' shape (..., L, S), or None."""
    shape = (*np.broadcast_shapes(q.shape[:-2], k.shape[:-2]), q.shape[-2], k.shape[-2])
    mask = check_mask(attn_mask, shape, is_causal, dtype=q.dtype)
    return None if mask is None else np.broadcast_to(mask, shape)


def _hide(scores, mask, is_causal, start):
    """Apply the mask to the scores (..., L, B) of keys ``start, start + 1, ...``."""
    L, B = scores.shape[-2:]
    if is_causal:  # key j is visible to query i when j <= i (top left)
        visible = np.arange(start, start + B) <= np.arange(L)[:, None]  # [L, B]
    elif mask is None:
        return scores
    else:
        visible = mask[..., start : start + B]
    if visible.dtype == bool:
        return np.where(visible, scores, -np.inf)
    return scores + visible.astype(scores.dtype)  # a float mask is added to the scores
