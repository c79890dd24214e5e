"""Scaled dot-product attention (스케일 내적 어텐션), following PyTorch's semantics.

Shape legend, PyTorch's: queries (쿼리) (..., L, E) or (E,), keys (키) (..., S, E), values
(밸류) (..., S, Ev); ``attn_mask`` broadcasts to (..., L, S), bool True = *may attend*, float
*added* to the scores. Leading ``...`` axes broadcast through ``@`` and ``swapaxes``.
"""

from __future__ import annotations

import numbers

import numpy as np

from .blocked import blocked
from .shared_heads import repeat_kv_heads
from .sinks import check_sinks, softmax_with_sinks
from .softmax import _softmax
from .validation import (
    as_array,
    check_attention,
    check_attention_inputs,
    check_bool,
    check_positive_int,
    check_scores_size,
    check_size,
)

#: From this many query-key pairs (batch × L × S) on, :func:`scaled_dot_product_attention`
#: computes in query blocks: at n = 256 already faster (0.36 ms against 0.44, ``make bench``).
BLOCKED_FROM_PAIRS = 256 * 256


def dot_scores(query, key):
    r"""All pairwise dot products (내적) :math:`q_i \cdot k_j`, i.e. :math:`QK^\top`.

    Parameters
    ----------
    query, key : array_like, shapes (..., L, E) or (E,), and (..., S, E)

    Returns
    -------
    ndarray, shape (..., L, S), or (..., S) for a 1-D query

    Examples
    --------
    >>> dot_scores([1.0, 0.0], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    array([1., 0., 1.])
    """
    q, k = check_attention_inputs(query, key)
    check_scores_size(q, k)
    return q @ np.swapaxes(k, -1, -2)  # [..., L, E] @ [..., E, S] -> [..., L, S]


def causal_mask(L, S=None):
    """Boolean mask where query ``i`` may attend to keys ``0..i`` (top-left aligned).

    Parameters
    ----------
    L, S : int
        Queries and keys; S defaults to L.

    Returns
    -------
    ndarray of bool, shape (L, S), PyTorch's ``is_causal=True``

    Examples
    --------
    >>> causal_mask(2, 3).astype(int).tolist()
    [[1, 0, 0], [1, 1, 0]]
    """
    L = check_positive_int(L, "L", minimum=0)
    S = L if S is None else check_positive_int(S, "S", minimum=0)
    check_size((L, S), bool, "the causal mask (L, S)", f"L = {L} and S = {S}")
    return np.tril(np.ones((L, S), dtype=bool))


def padding_mask(lengths, S):
    """Boolean mask that hides the padding at the end of each sequence.

    Parameters
    ----------
    lengths : array_like of int, shape (...)
        Each sequence's true length, 0 … S.
    S : int
        The padded length.

    Returns
    -------
    ndarray of bool, shape (..., 1, S)
        True = may attend (PyTorch's ``key_padding_mask`` has True = ignore).

    Examples
    --------
    >>> padding_mask([2, 3], 3).astype(int).tolist()  # [B, 1, S]
    [[[1, 1, 0]], [[1, 1, 1]]]
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
    because = f"lengths {n.shape} and S = {S}"
    check_size((*n.shape, S), bool, "the padding mask (..., 1, S)", because)
    return (np.arange(S) < n[..., None])[..., None, :]  # (..., 1, S)


def document_mask(lengths, *, causal=True):
    """Boolean mask of packed documents: a token sees only its own document's tokens.

    Training packs several documents into one row, back to back, instead of padding each;
    the mask is block-diagonal, one block per document (causal within it by default), so
    no token attends across a document's boundary.

    Parameters
    ----------
    lengths : array_like of int, shape (D,)
        Each document's length, at least 1; the row holds N = sum(lengths) tokens.
    causal : bool
        Within a document, key j ≤ query i only (the causal mask of each block).

    Returns
    -------
    ndarray of bool, shape (N, N)
        True = may attend.

    Examples
    --------
    >>> document_mask([2, 1]).astype(int).tolist()
    [[1, 0, 0], [1, 1, 0], [0, 0, 1]]
    >>> document_mask([2, 1], causal=False).astype(int).tolist()
    [[1, 1, 0], [1, 1, 0], [0, 0, 1]]
    """
    n = as_array(lengths, "lengths")
    if n.ndim != 1 or not np.issubdtype(n.dtype, np.integer) or (n < 1).any():
        raise ValueError(
            f"lengths must be a 1-D list of positive integers, got {n.tolist()} "
            f"(lengths has shape {n.shape})"
        )
    N = int(n.sum())
    check_size((N, N), bool, "the document mask (N, N)", f"lengths summing to N = {N}")
    document = np.repeat(np.arange(n.size), n)  # [N]: each token's document
    same = document[:, None] == document[None, :]  # [N, N]
    return same & np.tri(N, dtype=bool) if check_bool(causal, "causal") else same


def attention_weights(
    query, key, attn_mask=None, is_causal=False, *, scale=None, enable_gqa=False, sinks=None
):
    r"""Attention weights :math:`\mathrm{softmax}(QK^\top \cdot \mathrm{scale} + \mathrm{mask})`.

    Parameters
    ----------
    query, key : array_like, shapes (..., L, E) or (E,), and (..., S, E)
    attn_mask : array_like of bool or float, broadcastable to (..., L, S), optional
        Bool: True = may attend. Float: added to the scores (``-inf`` hides).
    is_causal : bool, default False
        Apply :func:`causal_mask`; not with ``attn_mask``.
    scale : float, optional
        Multiplies the scores; default :math:`1/\sqrt{E}`, 1.0 for none.
    enable_gqa : bool, default False
        Key may have fewer heads (axis -3) than query: :func:`attn_core.repeat_kv_heads`.
    sinks : array_like of float, optional
        gpt-oss's sink logits, not scaled: a column joined to each row's softmax and dropped
        after it (:mod:`attn_core.sinks`). One number, or one per head: shape (H,) as gpt-oss
        stores it, or (H, 1), H the scores' axis -3; with more axes, broadcastable to the
        rows (..., H, L) with a last axis of 1. Never one per query.

    Returns
    -------
    ndarray, shape (..., L, S), or (..., S) for a 1-D query
        Rows sum to 1 (with sinks, 1 minus the sink's share); a fully masked row is zeros.

    Examples
    --------
    >>> attention_weights([1.0, 0.0], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]).round(3)
    array([0.401, 0.198, 0.401])
    >>> attention_weights([1.0, 0.0], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], sinks=0.0).round(3)
    array([0.335, 0.165, 0.335])
    """
    if check_bool(enable_gqa, "enable_gqa"):  # fewer KV heads: each serves a group of queries
        key, _ = repeat_kv_heads(query, key)  # [..., Hkv, S, E] -> [..., Hq, S, E]
    a = check_attention(query, key, None, attn_mask, is_causal, scale)
    sinks = check_sinks(sinks, (*a.batch, a.query.shape[-2]))
    instead = "attn_core.scaled_dot_product_attention computes the output without them"
    check_scores_size(a.query, a.key, instead=instead)
    return a.result(_weights(a.query, a.key, a.mask, a.is_causal, a.scale, sinks))


def _weights(q, k, mask, is_causal, scale, sinks=None):
    """softmax(q kᵀ · scale + mask) (..., L, S) of validated inputs, with sinks if given."""
    scores = q @ np.swapaxes(k, -1, -2)  # [..., L, E] @ [..., E, S] -> [..., L, S]
    scores *= scale  # in place: the product is a fresh array, one pass fewer
    if is_causal:
        mask = np.tril(np.ones(scores.shape[-2:], dtype=bool))  # key j <= query i (top left)
    if mask is not None and mask.dtype == bool:
        scores = np.where(mask, scores, -np.inf)  # True = may attend
    elif mask is not None:
        scores = scores + mask.astype(scores.dtype)  # a float mask is added
    if sinks is not None:  # gpt-oss: a sink column joins each row's softmax, dropped after it
        return softmax_with_sinks(scores, sinks)
    return _softmax(scores, axis=-1)


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
    sinks=None,
):
    r"""Scaled dot-product attention: :math:`\mathrm{softmax}(QK^\top/\sqrt{E})\,V`.

    Parameters
    ----------
    query, key, value : array_like, shapes (..., L, E) or (E,), (..., S, E), (..., S, Ev)
    attn_mask, is_causal, scale, enable_gqa, sinks
        As in :func:`attention_weights`.
    dropout_p : float, default 0.0
        Probability of zeroing each weight (survivors divided by ``1 - dropout_p``).
    rng : numpy.random.Generator, optional
        Required when ``dropout_p > 0``.

    Returns
    -------
    ndarray, shape (..., L, Ev), or (..., Ev) for a 1-D query
        ``attention_weights(...) @ value``. From :data:`BLOCKED_FROM_PAIRS` query-key pairs
        on, without dropout or sinks, :func:`attn_core.blocked_attention`'s, in a few MB.

    Examples
    --------
    >>> q, keys, values = [1.0, 0.0], [[1, 0], [0, 1], [1, 1]], [[2, 0], [0, 2], [1, 1]]
    >>> scaled_dot_product_attention(q, keys, values).round(3)
    array([1.203, 0.797])
    """
    if check_bool(enable_gqa, "enable_gqa"):  # fewer KV heads: each serves a group of queries
        key, value = repeat_kv_heads(query, key, value)  # [..., Hkv, S, ·] -> [..., Hq, S, ·]
    a = check_attention(query, key, value, attn_mask, is_causal, scale)
    sinks = check_sinks(sinks, (*a.batch, a.query.shape[-2]))
    keep = _check_dropout(dropout_p, rng)
    if keep == 1.0 and a.pairs >= BLOCKED_FROM_PAIRS and sinks is None:  # large: in blocks
        return a.result(blocked(a.query, a.key, a.value, a.mask, a.is_causal, a.scale))
    instead = "without dropout, attn_core.blocked_attention computes it in query blocks"
    check_scores_size(a.query, a.key, instead=instead)
    weights = _weights(a.query, a.key, a.mask, a.is_causal, a.scale, sinks)  # [..., L, S]
    if keep < 1.0:  # dropout: zero each weight with probability dropout_p, rescale the rest
        weights = np.where(rng.random(weights.shape) >= dropout_p, weights / keep, 0.0)
    return a.result(weights @ a.value)  # [..., L, S] @ [..., S, Ev], one dtype (checked)


def _check_dropout(dropout_p, rng):
    """The probability of keeping a weight, ``1 - dropout_p``, or an error."""
    if not isinstance(dropout_p, numbers.Real) or not 0.0 <= dropout_p < 1.0:
        raise ValueError(f"dropout_p must be in [0, 1), got {dropout_p!r}")
    if dropout_p > 0.0 and not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"dropout_p={dropout_p} needs an explicit rng=np.random.default_rng(seed), "
            f"got rng={rng!r}"
        )
    return 1.0 - float(dropout_p)
