"""Memory-efficient attention (메모리 효율 어텐션): the online softmax over blocks of keys.

FlashAttention's idea (Dao et al., 2022), for reading: the L×S weights never exist at once.
"""

from __future__ import annotations

import numpy as np

from .validation import check_attention, check_positive_int


def chunked_attention(
    query, key, value, attn_mask=None, is_causal=False, *, scale=None, block_size=256
):
    """Scaled dot-product attention, one block of keys at a time (the online softmax).

    Parameters
    ----------
    query, key, value : array_like, shapes (..., L, E) or (E,), (..., S, E), (..., S, Ev)
    attn_mask, is_causal, scale
        As in :func:`attn_core.attention_weights`.
    block_size : int, default 256
        Keys per block; any size gives the same output.

    Returns
    -------
    ndarray, shape (..., L, Ev), or (..., Ev) for a 1-D query
        :func:`attn_core.scaled_dot_product_attention`'s output, to float tolerance: each
        block is :func:`attn_core.online_softmax_step` for every query (Milakov and
        Gimelshein, 2018).

    Examples
    --------
    >>> q, keys, values = [1.0, 0.0], [[1, 0], [0, 1], [1, 1]], [[2, 0], [0, 2], [1, 1]]
    >>> chunked_attention(q, keys, values, block_size=1).round(3)
    array([1.203, 0.797])
    """
    a = check_attention(query, key, value, attn_mask, is_causal, scale)
    block = check_positive_int(block_size, "block_size")
    return a.result(chunked(a.query, a.key, a.value, a.mask, a.is_causal, a.scale, block))


def chunked(q, k, v, mask, is_causal, scale, block_size):
    """:func:`chunked_attention` of validated q (..., L, E), k (..., S, E), v (..., S, Ev)."""
    q = q * scale  # [..., L, E], scaled once
    if mask is not None:  # a mask of one column would slice to nothing past the first block
        mask = np.broadcast_to(mask, (*mask.shape[:-1], k.shape[-2]))
    running_max = np.full((*q.shape[:-1], 1), -np.inf, dtype=q.dtype)  # m: [..., L, 1]
    running_sum = np.zeros_like(running_max)  # l: sum of exp(s - m)
    running_out = np.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)  # o: [..., L, Ev]
    for start in range(0, k.shape[-2], block_size):
        keys = k[..., start : start + block_size, :]
        values = v[..., start : start + block_size, :]
        scores = q @ np.swapaxes(keys, -1, -2)  # [..., L, E] @ [..., E, B] -> [..., L, B]
        scores = _hide(scores, mask, is_causal, start)
        new_max = np.maximum(running_max, scores.max(axis=-1, keepdims=True))
        shift = np.where(np.isneginf(new_max), 0, new_max)  # no key seen yet: shift by 0
        rescale = np.exp(running_max - shift)  # e^(m - m'): what was summed under m
        weights = np.exp(scores - shift)  # e^(s - m'), not yet divided: [..., L, B]
        running_sum = running_sum * rescale + weights.sum(axis=-1, keepdims=True)
        running_out = running_out * rescale + weights @ values  # [..., L, B] @ [..., B, Ev]
        running_max = new_max
    zeros = np.zeros_like(running_out)  # the output of a fully masked row, whose l is 0
    return np.divide(running_out, running_sum, out=zeros, where=running_sum > 0)  # o / l


def _hide(scores, mask, is_causal, start):
    """The scores (..., L, B) of keys ``start, start + 1, ...``, masked."""
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
