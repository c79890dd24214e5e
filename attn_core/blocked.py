"""Attention in blocks of queries (쿼리 블록): the same output, without the L×S weights.

Each query's softmax needs only its own row of scores, so a (..., block_size, S) block is
made, exponentiated and multiplied by the values in one reused buffer. Each row's sum of
exponentials comes out of the second matmul (a column of ones appended to the values), and
the shift that keeps ``exp`` from overflowing out of the first (:func:`_score_bound`), so
the only pass over the scores is ``exp`` itself.
"""

from __future__ import annotations

import math

import numpy as np

from .validation import check_attention, check_positive_int

#: Scores a block holds at most by default: 4 MB in float32 (128 queries × 8192 keys), with
#: 16 to 256 queries a block (best between 128 and 512 for n = 1024 ... 8192, ``make bench``).
BLOCK_SCORES = 128 * 8192


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
        Queries per block (any gives the same output); default: at most :data:`BLOCK_SCORES`.

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
    L, S, Ev = q.shape[-2], k.shape[-2], v.shape[-1]
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2])  # the scores' batch axes
    mask = None if mask is None else np.broadcast_to(mask, (*batch, L, S))
    rows = min(L, block_size or _block_rows(math.prod(batch), S))
    q = np.broadcast_to(q, (*batch, L, q.shape[-1]))
    bound = _score_bound(q, k, scale, mask)  # [..., L, 1], or None: subtract each row's max
    key_t = np.swapaxes(_with_ones(k) if bound is not None else k, -1, -2)  # [..., E(+1), S]
    v_and_ones = _with_ones(v)  # [..., S, Ev + 1]: the last column sums each row's exps
    out = np.empty((*np.broadcast_shapes(batch, v.shape[:-2]), L, Ev), dtype=v.dtype)
    buffer = np.empty(math.prod(batch) * rows * S, dtype=q.dtype)
    sums = np.empty(math.prod(out.shape[:-2]) * rows * (Ev + 1), dtype=v.dtype)
    for start in range(0, L, rows):
        stop = min(start + rows, L)
        seen = min(stop, S) if is_causal else S  # a causal block sees no key after its last query
        scores = buffer[: math.prod(batch) * (stop - start) * seen]
        scores = scores.reshape(*batch, stop - start, seen)  # [..., rows, seen]
        summed = sums[: math.prod(out.shape[:-2]) * (stop - start) * (Ev + 1)]
        summed = summed.reshape(*out.shape[:-2], stop - start, Ev + 1)  # [..., rows, Ev + 1]
        q_block = q[..., start:stop, :] * scale  # [..., rows, E]
        keys, values = key_t[..., :seen], v_and_ones[..., :seen, :]
        if bound is not None:  # q·k - bound <= 0, from one more column: exp cannot overflow
            shifted = np.concatenate([q_block, -bound[..., start:stop, :]], axis=-1)
            _block_sums(shifted, keys, values, mask, is_causal, start, scores, summed, False)
        if bound is None or (summed[..., -1] < _tiny_sum(scores.dtype)).any():
            # no bound, or it lay too far above a row's scores: subtract each row's true max
            exact_keys = keys if bound is None else keys[..., :-1, :]
            _block_sums(q_block, exact_keys, values, mask, is_causal, start, scores, summed, True)
        total = summed[..., -1:]  # [..., rows, 1]: each row's sum of exps, 0 if fully masked
        np.divide(summed[..., :-1], total, out=out[..., start:stop, :], where=total > 0)
        np.copyto(out[..., start:stop, :], 0, where=total <= 0)
    return out


def _with_ones(x):
    """``x`` (..., n, d) with a column of ones appended: (..., n, d + 1)."""
    return np.concatenate([x, np.ones((*x.shape[:-1], 1), dtype=x.dtype)], axis=-1)


def _block_rows(batch_size, S):
    """Queries per block: 256, or fewer (at least 16) to hold at most ``BLOCK_SCORES`` scores."""
    return min(256, max(16, BLOCK_SCORES // max(1, batch_size * S)))


def _tiny_sum(dtype):
    """A row whose sum of exp(score - bound) is below this (terms may underflow) is redone."""
    return np.sqrt(np.finfo(dtype).tiny)


def _score_bound(q, k, scale, mask):
    """Each row's bound |q_i · scale| max_j |k_j| (..., L, 1), or None (float mask, overflow)."""
    if mask is not None and mask.dtype != bool:
        return None
    with np.errstate(over="ignore", invalid="ignore"):  # inf or inf * 0: caught just below
        q_norms = np.sqrt(np.sum(q * q, axis=-1, keepdims=True)) * abs(scale)  # [..., L, 1]
        k_norm_max = np.sqrt(np.max(np.sum(k * k, axis=-1), axis=-1, initial=0.0))  # [...]
        bound = q_norms * k_norm_max[..., None, None]  # [..., L, 1]
    return bound.astype(q.dtype, copy=False) if np.isfinite(bound).all() else None


def _block_sums(q, key_t, v_and_ones, mask, is_causal, start, scores, out, exact):
    """For one block of queries, ``out = exp(scores - shift) @ [v, 1]``: (..., rows, Ev + 1)."""
    np.matmul(q, key_t, out=scores)  # [..., rows, E(+1)] @ [..., E(+1), seen]
    _mask_block(scores, mask, is_causal, start)
    if exact:
        _exp_shifted_in_place(scores)
    else:
        np.exp(scores, out=scores)  # already shifted by the bound, in the matmul
    np.matmul(scores, v_and_ones, out=out)  # [..., rows, seen] @ [..., seen, Ev + 1]


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
