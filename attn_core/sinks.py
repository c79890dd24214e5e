"""Attention sinks (어텐션 싱크), as gpt-oss learns them: one more logit in every row's softmax.

The sink is a column joined to each row of scores before the softmax and dropped after it,
so a row's weights sum to 1 minus the sink's share and a row may look (almost) nowhere.
Shape legend: scores (..., H, L, S), the rows (..., H, L). A sink is one logit per head (and
batch entry), never per query: a 1-D ``sinks`` of shape (H,), as gpt-oss stores it, is one
logit per head, read as (H, 1); with more axes, ``sinks`` broadcasts to the rows with its
last axis, the queries', of length 1, e.g. (H, 1) or (B, H, 1). Used through ``sinks=`` of
:func:`attn_core.attention_weights`, :func:`attn_core.scaled_dot_product_attention` and
:meth:`attn_core.KVCache.attend`.
"""

from __future__ import annotations

import numpy as np

from .softmax import _softmax
from .validation import as_float_array


def check_sinks(sinks, rows_shape):
    """``sinks`` as a float array that broadcasts *to* the rows (..., H, L), or an error.

    ``rows_shape`` is the scores' shape without its last axis as the function computes it
    (L = 1 for a caller's 1-D query). A 1-D ``sinks`` (H,) is one logit per head, (H, 1):
    read along the query axis instead, it would silently give each *query* its own sink
    whenever L happened to equal H. For the same reason a ``sinks`` of two or more axes
    must have a last axis of 1.

    Examples
    --------
    >>> check_sinks([0.5, -0.5], (2, 2)).shape  # H = L = 2: still one logit per head
    (2, 1)
    """
    if sinks is None:
        return None
    s = as_float_array(sinks, "sinks", allow_neg_inf=True)  # -inf: no sink
    given, rows = s.shape, tuple(rows_shape)
    if s.ndim == 1 and len(rows) >= 2:  # gpt-oss's (H,): one logit per head (axis -3)
        s = s[:, None]  # [H, 1]
    elif s.ndim == 1 and s.size != 1:
        raise ValueError(
            f"sinks of shape {given} is one logit per head, but the scores have no head "
            f"axis: their rows have shape {rows} (L,), so pass one number, the sink"
        )
    elif s.ndim >= 2 and s.shape[-1] != 1:
        raise ValueError(
            f"sinks of shape {given} would give each query its own sink along its last axis; "
            f"a sink is one logit per head, so that axis must be 1: pass shape (H,) or "
            f"(H, 1), e.g. sinks[..., None] of shape {(*given, 1)}"
        )
    try:  # like attn_mask, the sinks may not add axes: that would silently grow the output
        fits = np.broadcast_shapes(s.shape, rows) == rows
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"sinks of shape {given} do not broadcast to the scores' shape without its last "
            f"axis, {rows} (..., H, L): one logit per head has shape (H,) or (H, 1), with H "
            f"the scores' axis -3"
        )
    return s


def softmax_with_sinks(scores, sinks):
    """softmax of each row of ``scores`` (..., L, S) with its sink joined, the sink dropped."""
    sink = np.broadcast_to(sinks, scores.shape[:-1])[..., None]  # [..., L, 1]
    joined = np.concatenate([scores, sink.astype(scores.dtype)], axis=-1)  # [..., L, S + 1]
    return _softmax(joined, axis=-1)[..., :-1]  # the sink's column dropped: rows sum to < 1
