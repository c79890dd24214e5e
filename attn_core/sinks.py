"""Attention sinks (어텐션 싱크), as gpt-oss learns them: one more logit in every row's softmax.

The sink is a column joined to each row of scores before the softmax and dropped after it,
so a row's weights sum to 1 minus the sink's share and a row may look (almost) nowhere.
Shape legend: scores (..., L, S); sinks broadcast to (..., L), a per-head sink is (H, 1).
Used through ``sinks=`` of :func:`attn_core.attention_weights` and
:func:`attn_core.scaled_dot_product_attention`.
"""

from __future__ import annotations

import numpy as np

from .softmax import _softmax
from .validation import as_float_array


def check_sinks(sinks, rows_shape, one_query):
    """``sinks`` as a float array that broadcasts *to* the rows (..., L), or an error.

    ``rows_shape`` is the scores' shape without its last axis as the function computes it;
    a caller's 1-D query has no L axis, so its sinks get one (``one_query``).
    """
    if sinks is None:
        return None
    s = as_float_array(sinks, "sinks", allow_neg_inf=True)  # -inf: no sink
    shown = tuple(rows_shape[:-1]) if one_query else tuple(rows_shape)
    try:  # like attn_mask, the sinks may not add axes: that would silently grow the output
        fits = np.broadcast_shapes(s.shape, shown) == shown
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"sinks of shape {s.shape} do not broadcast to the scores' shape without its "
            f"last axis, {shown} (..., L); a per-head sink has shape (H, 1)"
        )
    return s[..., None] if one_query else s


def softmax_with_sinks(scores, sinks):
    """softmax of each row of ``scores`` (..., L, S) with its sink joined, the sink dropped."""
    sink = np.broadcast_to(sinks, scores.shape[:-1])[..., None]  # [..., L, 1]
    joined = np.concatenate([scores, sink.astype(scores.dtype)], axis=-1)  # [..., L, S + 1]
    return _softmax(joined, axis=-1)[..., :-1]  # the sink's column dropped: rows sum to < 1
