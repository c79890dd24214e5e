"""Attention in blocks of queries (쿼리 블록): the same output, without the L×S weights.

Each query's softmax needs only its own row of scores, so a (..., block_size, S) block is
made, exponentiated in place and multiplied by the values in one reused buffer (made as its
transpose, ``k qᵀ``, when there is no mask: OpenBLAS is faster that way round); the queries
are scaled (L × E) instead of the scores, and the output is divided by each row's sum
(L × Ev) instead of the weights. With more than one block the values get a column of ones,
so that one product gives each row's output and its sum (no pass of its own over the
scores); the key is never copied, nor the value of a decode step (one query, a long
cache), which holds one row of scores.

A softmax is unchanged by a shift, and ``exp`` of scores of a few tens needs none: each
block is first exponentiated unshifted, the fastest way, and redone with each row's maximum
subtracted (:func:`_exp_shifted_in_place`) if a row's sum over- or underflowed. From such a
block on the rest are computed shifted: passes over the scores are ``exp`` and one sum.
"""

from __future__ import annotations

import math

import numpy as np

from .validation import check_attention, check_positive_int

#: Bytes of scores a block holds at most by default: 8 MiB, 256 queries × 8192 keys in
#: float32, with 16 to 256 queries a block (256 beat 128 by ~9% at n = 8192, ``make bench``).
BLOCK_BYTES = 8 * 2**20


def blocked_attention(
    query, key, value, attn_mask=None, is_causal=False, *, scale=None, block_size=None
):
    r"""Scaled dot-product attention, ``block_size`` queries at a time.

    Parameters
    ----------
    query, key, value : array_like, shapes (..., L, E) or (E,), (..., S, E), (..., S, Ev)
    attn_mask, is_causal, scale
        As in :func:`attn_core.attention_weights`.
    block_size : int, optional
        Queries per block (any gives the same output); default: up to 256, fewer to keep one
        block's scores within :data:`BLOCK_BYTES`.

    Returns
    -------
    ndarray, shape (..., L, Ev), or (..., Ev) for a 1-D query
        :func:`attn_core.scaled_dot_product_attention`'s output, to float tolerance.

    Examples
    --------
    >>> keys, values = [[1, 0], [0, 1], [1, 1]], [[2, 0], [0, 2], [1, 1]]
    >>> blocked_attention(np.eye(2)[[0, 1, 0]], keys, values, block_size=2).round(3).tolist()
    [[1.203, 0.797], [0.797, 1.203], [1.203, 0.797]]
    """
    a = check_attention(query, key, value, attn_mask, is_causal, scale)
    rows = None if block_size is None else check_positive_int(block_size, "block_size")
    return a.result(blocked(a.query, a.key, a.value, a.mask, a.is_causal, a.scale, rows))


def blocked(q, k, v, mask, is_causal, scale, block_size=None):
    """:func:`blocked_attention` of validated q (..., L, E), k (..., S, E), v (..., S, Ev)."""
    L, S = q.shape[-2], k.shape[-2]
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2])  # the scores' batch axes
    mask = None if mask is None else np.broadcast_to(mask, (*batch, L, S))
    rows = min(L, block_size or _block_rows(math.prod(batch) * S * q.dtype.itemsize))
    out = np.empty((*np.broadcast_shapes(batch, v.shape[:-2]), L, v.shape[-1]), dtype=v.dtype)
    buffer = np.empty(math.prod(batch) * rows * S, dtype=q.dtype)  # one block's scores
    transposed, shifted = mask is None, False  # scores made as k qᵀ: see _attend
    if rows < L:  # [..., S, Ev + 1]: scores @ [v | 1] gives the output and each row's sum
        v = np.concatenate([v, np.ones((*v.shape[:-1], 1), dtype=v.dtype)], axis=-1)
    for start in range(0, L, rows):
        stop = min(start + rows, L)
        seen = min(stop, S) if is_causal else S  # a causal block sees no key after its last query
        shape = (seen, stop - start) if transposed else (stop - start, seen)
        memory = buffer[: math.prod(batch) * seen * (stop - start)].reshape(*batch, *shape)
        q_block = q[..., start:stop, :] * scale  # [..., rows, E]: scale the queries, not the scores
        block = (q_block, k[..., :seen, :], v[..., :seen, :], mask, is_causal, start)
        block += (memory, transposed, out[..., start:stop, :])  # written in place
        shifted = shifted or not _attend(*block, shift=False)
        if shifted:  # a row's sum over- or underflowed unshifted: subtract each row's max
            _attend(*block, shift=True)
    return out


def _block_rows(row_bytes):
    """Queries per block: 256, or fewer (at least 16) to hold at most ``BLOCK_BYTES``."""
    return min(256, max(16, BLOCK_BYTES // max(1, row_bytes)))


def _attend(q, k, values, mask, is_causal, start, memory, transposed, out, shift):
    """``out = softmax(q kᵀ + mask) @ values`` for one block of queries; False if unsound.

    ``memory`` holds the block's scores: (..., rows, seen), or (..., seen, rows) if
    ``transposed``: made as ``k qᵀ`` and read through a view, which OpenBLAS computes faster
    (benchmarks/README.md); used without a mask only, since a mask added across the transposed
    rows is 1.6 times slower.
    ``values`` is (..., seen, Ev), or (..., seen, Ev + 1) with a last column of ones.
    """
    if transposed:  # memory is (..., seen, rows)
        np.matmul(k, np.swapaxes(q, -1, -2), out=memory)  # [..., seen, E] @ [..., E, rows]
        scores = np.swapaxes(memory, -1, -2)  # [..., rows, seen]: a view
    else:
        scores = np.matmul(q, np.swapaxes(k, -1, -2), out=memory)  # [..., rows, seen]
    _mask_block(scores, mask, is_causal, start)
    with np.errstate(over="ignore", invalid="ignore"):  # unshifted: checked just below
        _exp_shifted_in_place(scores) if shift else np.exp(memory, out=memory)
        if values.shape[-1] > out.shape[-1]:  # the ones' column: each row's sum, by BLAS
            both = np.matmul(scores, values)  # [..., rows, seen] @ [..., seen, Ev + 1]
            out_unnormalised, total = both[..., :-1], both[..., -1:]  # total: 0 if fully masked
        else:  # one block (a decode step): the values as they are, the sum on its own
            out_unnormalised = np.matmul(scores, values, out=out)  # [..., rows, Ev]
            total = scores.sum(axis=-1, keepdims=True)  # [..., rows, 1], 0 if fully masked
        low, high = total.min(initial=np.inf), total.max(initial=0)
        sound = low >= _tiny_sum(scores.dtype) and high < np.inf  # full precision, no overflow
        if sound:  # every row's sum: the output (n × Ev) is divided, never the weights
            np.divide(out_unnormalised, total, out=out)
        else:  # some row's sum is 0 (fully masked), too small or infinite
            np.divide(out_unnormalised, total, out=out, where=total > 0)
            np.copyto(out, 0, where=total <= 0)  # a fully masked row attends to nothing
    return shift or bool(sound and np.isfinite(out).all())


def _tiny_sum(dtype):
    """A row whose sum of exponentials is below this (its terms may underflow) is redone."""
    return np.sqrt(np.finfo(dtype).tiny)


def _mask_block(scores, mask, is_causal, start):
    """Hide, in place, what queries ``start, start + 1, ...`` may not see: scores (..., rows, S)."""
    rows, seen = scores.shape[-2:]
    if is_causal and start < seen:  # only keys start.. can lie after a query of this block
        hidden = np.arange(start, seen) > np.arange(start, start + rows)[:, None]
        np.copyto(scores[..., start:], -np.inf, where=hidden)  # key j > query i
    elif mask is not None and mask.dtype == bool:
        np.copyto(scores, -np.inf, where=~mask[..., start : start + rows, :])
    elif mask is not None:
        scores += mask[..., start : start + rows, :]  # a float mask is added, as on the plain path


def _exp_shifted_in_place(scores):
    """``exp(scores - row max)`` in place; a fully masked row (all ``-inf``) becomes zeros."""
    peak = scores.max(axis=-1, keepdims=True)  # [..., rows, 1]
    np.copyto(peak, 0, where=np.isneginf(peak))  # shift such a row by 0: -inf - -inf is NaN
    scores -= peak
    np.exp(scores, out=scores)
