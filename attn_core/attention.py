"""Scaled dot-product attention (스케일 내적 어텐션), following PyTorch's semantics.

Shape legend, as in ``torch.nn.functional.scaled_dot_product_attention``:

- ``query``: (..., L, E) — L queries (쿼리) of size E; a single query may be (E,)
- ``key``:   (..., S, E) — S keys (키) of size E
- ``value``: (..., S, Ev) — S values (밸류) of size Ev
- ``attn_mask``: broadcastable to (..., L, S); bool True = *may attend*,
  float = *added* to the scores
- result: weights (..., L, S), output (..., L, Ev)

Leading ``...`` axes (batch, heads) broadcast, through ``@`` and ``swapaxes``
(never ``.T``, which would reverse the batch axes too).

Two paths give the same output. Small inputs take the plain path, the
formula as written: the (..., L, S) weights, then ``weights @ value``. From
``FAST_PATH_MIN_PAIRS`` query-key pairs on, :func:`scaled_dot_product_attention`
works on one block of queries at a time, in place, and never holds the L×S
matrix (see ``python -m attn_core.bench`` for the measured difference).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .shared_heads import repeat_kv_heads
from .softmax import softmax
from .validation import (
    as_array,
    as_input_dtype,
    check_attention_inputs,
    check_bool,
    check_mask,
    check_positive_int,
    check_scale,
    check_scores_size,
    check_size,
)

__all__ = [
    "attention_weights",
    "causal_mask",
    "dot_scores",
    "padding_mask",
    "scaled_dot_product_attention",
]

#: From this many query-key pairs (L·S) on, the output is computed in query blocks (at n = 256
#: already about twice as fast as the plain path, measured with python -m attn_core.bench).
FAST_PATH_MIN_PAIRS = 256 * 256
#: Queries per block of the fast path: measured best between 128 and 512 for n = 1024...8192.
BLOCK_ROWS = 256
#: Scores the fast path holds at once, at most: 4 MB in float32 (128 queries × 8192 keys).
BLOCK_SCORES = 128 * 8192
#: The fewest queries in a block, however many batch axes share it.
MIN_BLOCK_ROWS = 16


def dot_scores(query, key):
    r"""All pairwise dot products (내적) :math:`q_i \cdot k_j`, i.e. :math:`QK^\top`.

    Parameters
    ----------
    query : array_like, shape (..., L, E) or (E,)
    key : array_like, shape (..., S, E)

    Returns
    -------
    ndarray, shape (..., L, S), or (..., S) for a 1-D query
        Entry ``[..., i, j]`` is :math:`\sum_m q_{im} k_{jm}`.

    Examples
    --------
    >>> dot_scores([1.0, 0.0], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    array([1., 0., 1.])
    """
    return _dot(*check_attention_inputs(query, key))


def _dot(q, k):
    return q @ np.swapaxes(k, -1, -2)  # [..., L, E] @ [..., E, S] -> [..., L, S]


def causal_mask(L, S=None):
    """Boolean mask where query ``i`` may attend to keys ``0..i`` (top-left aligned).

    Parameters
    ----------
    L : int
        Number of queries.
    S : int, optional
        Number of keys; defaults to ``L``.

    Returns
    -------
    ndarray of bool, shape (L, S)
        True = may attend, the lower triangle including the diagonal; the same
        as PyTorch's ``is_causal=True``.

    Examples
    --------
    >>> causal_mask(3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 1]])
    """
    L = check_positive_int(L, "L", minimum=0)
    S = L if S is None else check_positive_int(S, "S", minimum=0)
    check_size((L, S), bool, "the causal mask (L, S)", f"L = {L} and S = {S}")
    return np.tril(np.ones((L, S), dtype=bool))


def padding_mask(lengths, S):
    """Boolean mask that hides the padding at the end of each sequence.

    Parameters
    ----------
    lengths : array_like of int, shape (B,) or any (...)
        The true length of each sequence, ``0 <= length <= S``.
    S : int
        The padded length (number of keys).

    Returns
    -------
    ndarray of bool, shape (..., 1, S)
        True = may attend (position < length). The length-1 axis broadcasts over
        the L queries; add another axis for heads: ``mask[:, None]``.
        (PyTorch's ``key_padding_mask`` uses the opposite convention.)

    Examples
    --------
    >>> padding_mask([2, 3], 3).astype(int)
    array([[[1, 1, 0]],
    <BLANKLINE>
           [[1, 1, 1]]])
    """
    S = check_positive_int(S, "S", minimum=0)
    n = as_array(lengths, "lengths")
    if n.size == 0:
        n = n.astype(int)  # [] is float64 to numpy; an empty batch is fine
    if not np.issubdtype(n.dtype, np.integer) or ((n < 0) | (n > S)).any():
        raise ValueError(
            f"lengths must be integers between 0 and S={S}, got {n.tolist()} "
            f"(lengths has shape {n.shape})"
        )
    check_size(
        (*n.shape, S), bool, "the padding mask (..., 1, S)", f"lengths {n.shape} and S = {S}"
    )
    return (np.arange(S) < n[..., None])[..., None, :]  # (..., 1, S)


def attention_weights(query, key, attn_mask=None, is_causal=False, *, scale=None, enable_gqa=False):
    r"""Attention weights :math:`\mathrm{softmax}(QK^\top \cdot \mathrm{scale} + \mathrm{mask})`.

    Parameters
    ----------
    query : array_like, shape (..., L, E) or (E,)
    key : array_like, shape (..., S, E)
    attn_mask : array_like of bool or float, broadcastable to (..., L, S), optional
        Bool: True = may attend. Float: added to the scores (use ``-inf`` to hide).
    is_causal : bool, default False
        Apply :func:`causal_mask`; cannot be combined with ``attn_mask``.
    scale : float, optional
        Multiplies the scores; defaults to :math:`1/\sqrt{E}`. Use 1.0 for none.
    enable_gqa : bool, default False
        Let key have fewer heads (axis -3) than query, Hq a multiple of Hkv: each
        key head serves Hq / Hkv query heads (:func:`attn_core.repeat_kv_heads`).

    Returns
    -------
    ndarray, shape (..., L, S), or (..., S) for a 1-D query
        Each row sums to 1 over the keys it may attend to; a row with no such
        key (fully masked) is all zeros.

    Examples
    --------
    >>> keys = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    >>> attention_weights([1.0, 0.0], keys).round(3)
    array([0.401, 0.198, 0.401])
    >>> attention_weights([1.0, 0.0], keys, scale=1.0).round(3)
    array([0.422, 0.155, 0.422])
    """
    if check_bool(enable_gqa, "enable_gqa"):
        key, _ = repeat_kv_heads(query, key)  # [..., Hkv, S, E] -> [..., Hq, S, E]
    q, k = check_attention_inputs(query, key, scale=scale)
    weights = _weights(np.atleast_2d(q), k, attn_mask, is_causal, scale)  # [..., L, S]
    weights = as_input_dtype(weights, query, key)
    return weights[..., 0, :] if q.ndim == 1 else weights


def _weights(q, k, attn_mask, is_causal, scale):
    """Weights for validated q (..., L, E) and k (..., S, E) -> (..., L, S)."""
    scores = _dot(q, k) * check_scale(scale, q.shape[-1])  # [..., L, S]
    mask = check_mask(attn_mask, scores.shape, is_causal, dtype=scores.dtype)
    if is_causal:
        mask = causal_mask(*scores.shape[-2:])
    if mask is not None and mask.dtype == bool:
        scores = np.where(mask, scores, -np.inf)
    elif mask is not None:
        scores = scores + mask.astype(scores.dtype)
    return softmax(scores, axis=-1)


def scaled_dot_product_attention(
    query,
    key,
    value,
    attn_mask=None,
    dropout_p=0.0,
    is_causal=False,
    *,
    scale=None,
    enable_gqa=False,
    rng=None,
):
    r"""Scaled dot-product attention: :math:`\mathrm{softmax}(QK^\top/\sqrt{E})\,V`.

    Parameters
    ----------
    query : array_like, shape (..., L, E) or (E,)
    key : array_like, shape (..., S, E)
    value : array_like, shape (..., S, Ev)
    attn_mask, is_causal, scale, enable_gqa
        As in :func:`attention_weights`; with ``enable_gqa`` value has key's heads.
    dropout_p : float, default 0.0
        Probability of zeroing each weight (survivors are divided by
        ``1 - dropout_p``); needs an explicit ``rng`` so that runs repeat.
    rng : numpy.random.Generator, optional
        Required when ``dropout_p > 0``.

    Returns
    -------
    ndarray, shape (..., L, Ev), or (..., Ev) for a 1-D query
        ``attention_weights(...) @ value``: each output is a weighted average of
        the values (zeros for a fully masked row).

    Notes
    -----
    From ``FAST_PATH_MIN_PAIRS`` (256²) query-key pairs on, without dropout,
    the output is computed in blocks of queries, in place, and never holds the
    (..., L, S) weights: the same result to float tolerance, in a few MB. Use
    :func:`attention_weights` for the weights themselves, and
    :func:`attn_core.chunked_attention` for the online softmax over key blocks.

    Examples
    --------
    >>> q, keys, values = [1.0, 0.0], [[1, 0], [0, 1], [1, 1]], [[2, 0], [0, 2], [1, 1]]
    >>> scaled_dot_product_attention(q, keys, values).round(3)
    array([1.203, 0.797])
    """
    if check_bool(enable_gqa, "enable_gqa"):
        key, value = repeat_kv_heads(query, key, value)  # [..., Hkv, S, ·] -> [..., Hq, S, ·]
    # the fast path never holds the (..., L, S) scores: only the plain one is size-checked
    q, k, v = check_attention_inputs(query, key, value, scale=scale, full_scores=False)
    q2 = np.atleast_2d(q)  # [..., L, E]
    if _takes_fast_path(q2, k, dropout_p):
        out = _attention_in_query_blocks(q2, k, v, attn_mask, is_causal, scale)
    else:
        check_scores_size(q2, k)
        weights = _weights(q2, k, attn_mask, is_causal, scale)  # [..., L, S]
        out = _dropout(weights, dropout_p, rng) @ v  # [..., L, S] @ [..., S, Ev] -> [..., L, Ev]
    out = as_input_dtype(out, query, key, value)
    return out[..., 0, :] if q.ndim == 1 else out


def _takes_fast_path(q, k, dropout_p):
    """True for many query-key pairs and no dropout (dropout needs the whole weights)."""
    no_dropout = isinstance(dropout_p, numbers.Real) and dropout_p == 0.0
    pairs = q.shape[-2] * k.shape[-2]
    return no_dropout and pairs > 0 and pairs >= FAST_PATH_MIN_PAIRS


def _attention_in_query_blocks(q, k, v, attn_mask, is_causal, scale, block_rows=None):
    """The fast path: validated q (..., L, E), k (..., S, E), v (..., S, Ev) -> (..., L, Ev).

    Equal to ``_weights(...) @ v`` to float tolerance, ``block_rows`` queries at
    a time (chosen from ``BLOCK_SCORES`` when None), in one reused scores buffer
    (..., block_rows, S). Each row's sum of exps comes out of the second matmul
    (a column of ones appended to the values), so the small (..., L, Ev) output
    is divided instead of the (..., L, S) weights. Unless the mask is a float
    one, the shift that keeps exp from overflowing is folded into the first
    matmul (:func:`_shift_by_bound`), so the only pass over the scores is exp.
    """
    L, S, Ev = q.shape[-2], k.shape[-2], v.shape[-1]
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2])  # the scores' batch axes
    mask = check_mask(attn_mask, (*batch, L, S), is_causal, dtype=q.dtype)
    mask = None if mask is None else np.broadcast_to(mask, (*batch, L, S))
    rows = block_rows or _block_rows(math.prod(batch), L, S)
    q, k, exact = _shift_by_bound(q * check_scale(scale, q.shape[-1]), k, mask)
    key_t = np.swapaxes(k, -1, -2)  # [..., E + 1, S]
    v_and_ones = np.concatenate([v, np.ones((*v.shape[:-1], 1), dtype=v.dtype)], axis=-1)
    summed = np.empty((*np.broadcast_shapes(batch, v.shape[:-2]), L, Ev + 1), dtype=v.dtype)
    buffer = np.empty(math.prod(batch) * rows * S, dtype=q.dtype)
    for start in range(0, L, rows):
        stop = min(start + rows, L)
        seen = min(stop, S) if is_causal else S  # a causal block sees no key after its last query
        scores = buffer[: math.prod(batch) * (stop - start) * seen]
        scores = scores.reshape(*batch, stop - start, seen)  # [..., rows, seen]
        block = (q[..., start:stop, :], key_t[..., :seen], v_and_ones[..., :seen, :])
        out = summed[..., start:stop, :]  # [..., rows, Ev + 1]
        _block_sums(*block, mask, is_causal, start, scores, out, exact)
        if not exact and (out[..., -1] < _tiny_sum(scores.dtype)).any():  # the bound was too far:
            unshifted = (block[0][..., :-1], block[1][..., :-1, :], block[2])  # drop the column
            _block_sums(*unshifted, mask, is_causal, start, scores, out, exact=True)
    total = summed[..., -1:]  # [..., L, 1]: each row's sum of exps, 0 for a fully masked row
    return np.divide(summed[..., :-1], total, out=np.zeros_like(summed[..., :-1]), where=total > 0)


def _tiny_sum(dtype):
    """A row whose sum of exp(score - bound) falls below this is redone with its true max.

    The bound then lay more than about 44 (float32) or 354 (float64) above the
    row's largest score, and its smaller terms may have underflowed to 0.
    """
    return np.sqrt(np.finfo(dtype).tiny)


def _shift_by_bound(q, k, mask):
    """Append a column to q (..., L, E) and k (..., S, E) so that q'·k' = q·k - bound <= 0.

    By Cauchy–Schwarz every score of row i is at most ``|q_i| max_j |k_j|``, the
    bound, so ``exp(q'·k')`` cannot overflow. Returns (q', k', exact): exact is
    True, with q and k unchanged, where the bound does not hold (a float mask
    adds to the scores) or overflows; the caller then subtracts each row's max.
    """
    with np.errstate(over="ignore", invalid="ignore"):  # inf or inf * 0: caught just below
        q_norms = np.sqrt(np.sum(q * q, axis=-1, keepdims=True))  # [..., L, 1]
        k_norm_max = np.sqrt(np.max(np.sum(k * k, axis=-1), axis=-1, initial=0.0))  # [...]
        bound = q_norms * k_norm_max[..., None, None]  # [..., L, 1]
    if (mask is not None and mask.dtype != bool) or not np.isfinite(bound).all():
        return q, k, True
    q_shifted = np.concatenate([np.broadcast_to(q, (*bound.shape[:-1], q.shape[-1])), -bound], -1)
    return q_shifted, np.concatenate([k, np.ones((*k.shape[:-1], 1), dtype=k.dtype)], -1), False


def _block_sums(q, key_t, v_and_ones, mask, is_causal, start, scores, out, exact):
    """For one block of queries, ``out = exp(scores - shift) @ [v, 1]``: (..., rows, Ev + 1)."""
    np.matmul(q, key_t, out=scores)  # [..., rows, E(+1)] @ [..., E(+1), seen]
    _mask_block(scores, mask, is_causal, start)
    if exact:
        _exp_shifted_in_place(scores)
    else:
        np.exp(scores, out=scores)  # already shifted by the bound, in the matmul
    np.matmul(scores, v_and_ones, out=out)  # [..., rows, seen] @ [..., seen, Ev + 1]


def _block_rows(batch_size, L, S):
    """Queries per block: ``BLOCK_ROWS``, fewer if that holds over ``BLOCK_SCORES`` scores."""
    most = max(MIN_BLOCK_ROWS, BLOCK_SCORES // max(1, batch_size * S))
    return min(L, BLOCK_ROWS, most)


def _mask_block(scores, mask, is_causal, start):
    """Hide, in place, what queries ``start, start + 1, ...`` may not see; scores (..., rows, S)."""
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


def _dropout(weights, dropout_p, rng):
    if not isinstance(dropout_p, numbers.Real) or not 0.0 <= dropout_p < 1.0:
        raise ValueError(f"dropout_p must be in [0, 1), got {dropout_p!r}")
    if dropout_p == 0.0:
        return weights
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"dropout_p={dropout_p} needs an explicit rng=np.random.default_rng(seed), "
            f"got rng={rng!r}"
        )
    keep = rng.random(weights.shape) >= dropout_p
    return np.where(keep, weights / (1.0 - dropout_p), 0.0).astype(weights.dtype)
