"""Top-k sparse attention (희소 어텐션), as DeepSeek Sparse Attention selects its keys.

A small, cheap scorer, the lightning indexer (DeepSeek-V3.2, 2025), rates every earlier key
for each query; each query then keeps only its k best-rated keys, and ordinary attention
runs over them (pass :func:`top_k_mask` as ``attn_mask``). Shape legend: L queries, the
newest L of S positions; indexer heads H_I of width d_I; scores (..., L, S).
"""

from __future__ import annotations

import numpy as np

from .kv_cache import causal_mask_lower_right
from .validation import as_float_array, check_bool, check_positive_int, check_size


def lightning_index_scores(query, key, head_weights):
    r"""The lightning indexer's scores, :math:`I_{t,s} = \sum_j w_{t,j} \max(0, q_{t,j} \cdot k_s)`.

    Parameters
    ----------
    query : array_like, shape (..., L, H_I, d_I)
        The indexer's queries :math:`q_{t,j}`, H_I small heads per token.
    key : array_like, shape (..., S, d_I)
        The indexer's one key per token, :math:`k_s`, shared by its heads.
    head_weights : array_like, shape (..., L, H_I)
        :math:`w_{t,j}`, each head's weight, computed from the query's token.

    Returns
    -------
    ndarray, shape (..., L, S)
        Every (query, key) pair rated; no mask, no softmax: only the order matters, for
        :func:`top_k_mask`.

    Notes
    -----
    DeepSeek-V3.2 uses H_I = 64 heads of d_I = 128, in FP8, and folds the factors
    :math:`1/\sqrt{d_I}` and :math:`1/\sqrt{H_I}` into :math:`w`. Per pair it costs
    :math:`2 H_I d_I` FLOPs, as much as one attention head of width :math:`H_I d_I / 2`,
    but its numbers are small and it keeps no values.

    Examples
    --------
    >>> keys = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]  # the worked example's keys
    >>> q = [[[1.0, 0.0], [-1.0, 1.0]]]  # one query token, two indexer heads
    >>> lightning_index_scores(q, keys, [[1.0, 0.5]])  # 1·ReLU(1, 0, 1) + 0.5·ReLU(-1, 1, 0)
    array([[1. , 0.5, 1. ]])
    """
    q, k = as_float_array(query, "query"), as_float_array(key, "key")
    w = as_float_array(head_weights, "head_weights")
    if q.ndim < 3 or k.ndim < 2 or q.shape[-1] != k.shape[-1] or w.shape[-2:] != q.shape[-3:-1]:
        raise ValueError(
            f"expected query (..., L, H_I, d_I), key (..., S, d_I) and head_weights "
            f"(..., L, H_I) with the same L, H_I and d_I: got query {q.shape}, key {k.shape}, "
            f"head_weights {w.shape}"
        )
    batch = np.broadcast_shapes(q.shape[:-3], k.shape[:-2], w.shape[:-2])
    check_size(
        (*batch, *q.shape[-3:-1], k.shape[-2]),
        np.result_type(q, k),
        "the indexer's dots (..., L, H_I, S)",
        f"query {q.shape} and key {k.shape}",
    )
    dots = q @ np.swapaxes(k, -1, -2)[..., None, :, :]  # [..., L, H_I, d] @ [..., 1, d, S]
    rated = np.maximum(dots, 0.0)  # ReLU: [..., L, H_I, S]
    return (w[..., None, :] @ rated)[..., 0, :]  # [..., L, 1, H_I] @ [..., L, H_I, S] -> [.., L, S]


def top_k_mask(scores, k, *, causal=True):
    """Boolean mask keeping each query's k highest-scored keys: True = may attend.

    Parameters
    ----------
    scores : array_like, shape (..., L, S)
        Any rating of the keys, e.g. :func:`lightning_index_scores`; -inf never selected.
    k : int >= 1
        Keys kept per query (DeepSeek-V3.2: 2,048).
    causal : bool, default True
        Choose only among keys at or before the query: query i sits at position S − L + i
        (the newest L of S, as :func:`attn_core.causal_mask_lower_right`).

    Returns
    -------
    ndarray of bool, shape (..., L, S)
        At most k True per row; a query with k or fewer visible keys keeps all of them.
        Ties go to the earlier key. Use it as ``attn_mask`` of
        :func:`attn_core.scaled_dot_product_attention`.

    Examples
    --------
    >>> scores = [[1.0, 0.5, 1.0]]  # lightning_index_scores' example: one query, last of 3
    >>> top_k_mask(scores, 2).astype(int)  # the two best of 1, 0.5, 1: keys 0 and 2
    array([[1, 0, 1]])
    >>> top_k_mask(np.zeros((3, 3)), 2).astype(int)  # causal: query 0 sees key 0 alone
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 0]])
    """
    s = as_float_array(scores, "scores", allow_neg_inf=True)
    if s.ndim < 2:
        raise ValueError(f"scores must be (..., L, S), one row per query, got shape {s.shape}")
    k = check_positive_int(k, "k")
    L, S = s.shape[-2:]
    if check_bool(causal, "causal") and L > S:
        raise ValueError(
            f"a causal selection puts the L queries at the last L of the S key positions, "
            f"so L <= S: scores have shape {s.shape}"
        )
    visible = causal_mask_lower_right(L, S) if causal else np.ones((L, S), bool)  # [L, S]
    visible = visible & (s > -np.inf)  # [..., L, S]: a -inf score is never kept
    rated = np.where(visible, s, -np.inf)
    order = np.argsort(-rated, axis=-1, kind="stable")[..., :k]  # best first, ties: earlier
    keep = np.zeros(s.shape, bool)
    np.put_along_axis(keep, order, True, axis=-1)
    return keep & visible  # a row with fewer than k visible keys: only those
