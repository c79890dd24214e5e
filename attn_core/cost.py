"""What attention costs: the FLOPs of its two matmuls and the bytes of its score matrix."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .validation import check_bool, check_positive_int


class AttentionCost(NamedTuple):
    """FLOPs and bytes of one attention call, from :func:`attention_cost`.

    Examples
    --------
    >>> attention_cost(1, 1, 2, 3, 4).qk_flops  # 2 queries x 3 keys, a 4-term dot each
    48
    """

    qk_flops: int  # QKᵀ: 2·N·L·S·d, N = B·H (a multiply-add is 2 FLOPs)
    av_flops: int  # weights @ V: 2·N·L·S·d_v
    softmax_exps: int  # one exp per score: N·L·S
    score_bytes: int  # the (B, H, L, S) scores: N·L·S·b, b bytes a number
    input_bytes: int  # Q, K and V: N·(L·d + S·d + S·d_v)·b
    output_bytes: int  # the (B, H, L, d_v) output: N·L·d_v·b

    @property
    def matmul_flops(self):
        """FLOPs of both matmuls, the floor any implementation must compute."""
        return self.qk_flops + self.av_flops


def attention_cost(batch, heads, L, S, d, dtype=np.float32, d_v=None, *, causal=False):
    r"""FLOPs and bytes of scaled dot-product attention, from the shapes alone.

    Parameters
    ----------
    batch, heads, L, S, d : int
        B sequences of H heads, L queries, S keys, d numbers per query and key.
    dtype : numpy dtype, default float32, of b bytes a number
    d_v : int, optional
        Numbers per value; defaults to ``d``.
    causal : bool, default False
        Count only the pairs ``is_causal=True`` keeps (query i sees keys 0 to i, the
        top-left triangle): :math:`L(L+1)/2` of them for :math:`L \le S`, about half of
        :math:`L^2`, as a kernel that skips the masked tiles computes. ``score_bytes``
        stays the whole :math:`L \times S` table, masked scores included.

    Returns
    -------
    AttentionCost
        Its fields' formulas stand beside them, e.g. ``qk_flops`` :math:`= 2 B H L S d`.

    Examples
    --------
    >>> cost = attention_cost(1, 12, 1024, 1024, 64)  # GPT-2: 12 heads of 64, 1024 tokens
    >>> cost.matmul_flops / 1e9, cost.score_bytes / 2**20
    (3.221225472, 48.0)
    >>> attention_cost(1, 1, 4, 4, 1, causal=True).softmax_exps  # 1 + 2 + 3 + 4 pairs
    10
    """
    B, H = check_positive_int(batch, "batch"), check_positive_int(heads, "heads")
    L, S = check_positive_int(L, "L", minimum=0), check_positive_int(S, "S", minimum=0)
    d = check_positive_int(d, "d")
    d_v = d if d_v is None else check_positive_int(d_v, "d_v")
    m = min(L, S)  # rows 0 to m-1 see i + 1 keys; the rows after them see all S
    kept = m * (m + 1) // 2 + (L - m) * S if check_bool(causal, "causal") else L * S
    size, pairs = _itemsize(dtype), B * H * kept
    return AttentionCost(
        qk_flops=2 * pairs * d,
        av_flops=2 * pairs * d_v,
        softmax_exps=pairs,
        score_bytes=B * H * L * S * size,
        input_bytes=B * H * (L * d + S * d + S * d_v) * size,
        output_bytes=B * H * L * d_v * size,
    )


def _itemsize(dtype):
    """Bytes per number of ``dtype``, or a TypeError naming it."""
    try:
        return np.dtype(dtype).itemsize
    except TypeError:
        raise TypeError(f"dtype must be a numpy dtype such as np.float32, got {dtype!r}") from None


class SparseAttentionCost(NamedTuple):
    """Top-k sparse attention against dense attention, from :func:`sparse_attention_cost`.

    Examples
    --------
    >>> sparse_attention_cost(1, 1, 1, 8, 4, 2, index_heads=1, index_dim=4).index_flops
    64
    """

    sparse: AttentionCost  # attention over the k keys each query keeps
    dense: AttentionCost  # attention over all S keys
    index_flops: int  # the indexer rating every pair: 2·B·L·S·H_I·d_I

    @property
    def flops_ratio(self):
        """Dense matmul FLOPs over sparse ones, the indexer's included."""
        return self.dense.matmul_flops / (self.sparse.matmul_flops + self.index_flops)


def sparse_attention_cost(
    batch, heads, L, S, d, top_k, *, index_heads, index_dim, dtype=np.float32, d_v=None
):
    r"""What top-k selection saves: attention over k keys a query, plus the indexer, against S.

    Parameters
    ----------
    batch, heads, L, S, d, dtype, d_v
        As in :func:`attention_cost`.
    top_k : int
        k, keys kept per query (:func:`attn_core.top_k_mask`); more than S keeps all S.
    index_heads, index_dim : int
        The lightning indexer's H_I heads of width d_I (DeepSeek-V3.2: 64 and 128).

    Returns
    -------
    SparseAttentionCost
        ``sparse`` is :func:`attention_cost` with :math:`\min(k, S)` keys a query, its
        ``input_bytes`` counting the :math:`\min(S, L k)` key positions the selection can
        touch (k for one decode step); ``dense`` the same call over all S keys. The cache
        is not smaller: every key stays stored, since a later query may select it.

    Notes
    -----
    Both count every (query, key) pair, as :func:`attention_cost` does (no causal halving).
    The indexer still rates all L·S pairs: its cost grows like dense attention's, with a
    smaller constant (DeepSeek-V3.2 runs it in FP8).

    Examples
    --------
    >>> cost = sparse_attention_cost(1, 128, 1, 131072, 128, 2048, index_heads=64, index_dim=128)
    >>> cost.dense.matmul_flops // cost.sparse.matmul_flops  # a decode step at 128K: S / k
    64
    >>> round(cost.flops_ratio, 2)  # with the indexer rating all 131,072 keys
    3.76
    """
    dense = attention_cost(batch, heads, L, S, d, dtype, d_v)
    k = min(check_positive_int(top_k, "top_k"), S)
    H_I = check_positive_int(index_heads, "index_heads")
    d_I = check_positive_int(index_dim, "index_dim")
    sparse = attention_cost(batch, heads, L, k, d, dtype, d_v)
    d_v = d if d_v is None else d_v
    touched = min(S, L * k)  # key positions read: each query's own k, at most all S
    reads = batch * heads * (L * d + touched * (d + d_v)) * _itemsize(dtype)
    index_flops = 2 * batch * L * S * H_I * d_I
    return SparseAttentionCost(sparse._replace(input_bytes=reads), dense, index_flops)


def linear_attention_flops(batch, heads, T, d_k, d_v=None):
    r"""FLOPs of causal linear attention run as its recurrence: :math:`4 B H T d_k d_v`.

    Each token writes :math:`\phi(k_t) v_t^\top` into the :math:`d_k \times d_v` state
    (:math:`2 d_k d_v`, a multiply-add each) and reads :math:`\phi(q_t)^\top S_t` (as many),
    so the cost grows like T, against the :math:`2 T^2 (d + d_v)` of the scores and the
    weighted sum (:func:`attention_cost` with L = S = T): equal near :math:`T \approx d`.

    Parameters
    ----------
    batch, heads, T, d_k : int
        B sequences of H heads, T tokens, the state's key width.
    d_v : int, optional
        The state's value width; defaults to ``d_k``.

    Returns
    -------
    int
        Without the feature map and the normaliser (:math:`O(B H T d_k)`, smaller).

    Examples
    --------
    >>> linear_attention_flops(1, 1, 3, 2)  # the worked example's three tokens, d = 2
    48
    >>> dense = attention_cost(1, 12, 8192, 8192, 64).matmul_flops  # GPT-2's heads, 8K tokens
    >>> dense // linear_attention_flops(1, 12, 8192, 64)  # T / d = 128 times fewer
    128
    """
    B, H = check_positive_int(batch, "batch"), check_positive_int(heads, "heads")
    T, d_k = check_positive_int(T, "T", minimum=0), check_positive_int(d_k, "d_k")
    d_v = d_k if d_v is None else check_positive_int(d_v, "d_v")
    return 4 * B * H * T * d_k * d_v  # write φ(k) vᵀ and read φ(q)ᵀ S: 2 d_k d_v each
