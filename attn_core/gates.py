"""Gated attention (게이트 어텐션; Qiu et al., 2025; Qwen3-Next): a sigmoid gate on each head.

After the softmax-weighted average and before the output projection, each head's output is
multiplied, number by number, by :math:`\\sigma(x W_{g,h})`, a gate in (0, 1) computed from
the token's own input. Shape legend: output (..., H, L, Ev), heads before positions as
:func:`attn_core.split_heads` gives them; gate logits of the same shape (Qwen3-Next's
elementwise gate) or (..., H, L, 1) (one gate a head, the paper's headwise variant).
"""

from __future__ import annotations

import numpy as np

from .validation import as_float_array


def output_gate(output, gate_logits):
    r"""Each head's output times the sigmoid of its gate logits: :math:`o \odot \sigma(g)`.

    Parameters
    ----------
    output : array_like, shape (..., H, L, Ev)
        The attention output of each head, before the heads are merged and projected.
    gate_logits : array_like, broadcastable to output's shape
        :math:`x W_{g,h}`, the gate before its sigmoid: the same shape as ``output`` for
        Qwen3-Next's elementwise gate, (..., H, L, 1) for one gate per head and token. It may
        not add axes to ``output``.

    Returns
    -------
    ndarray, the shape of ``output``
        Each number shrunk by a factor in (0, 1): a gate near 0 lets a head add (almost)
        nothing for this token, which a softmax row alone cannot do (its weights sum to 1).

    Notes
    -----
    Qwen3-Next's ``q_proj`` gives each head a query and, beside it, its gate logits (twice
    the width); ``attn_output * sigmoid(gate)`` then precedes ``o_proj``. Qiu et al. report
    that the gate is sparse (most values near 0) and that it removes the attention sink: a
    head no longer parks its weight on the first token to add nothing.
    :math:`\sigma(g) = 1/(1 + e^{-g})`, computed through :math:`e^{-|g|}` so that no
    logit overflows and a gate near 0 keeps its relative precision.

    Examples
    --------
    >>> from attn_core import scaled_dot_product_attention
    >>> keys, values = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]
    >>> output = scaled_dot_product_attention([1.0, 0.0], keys, values)  # the worked example
    >>> output.round(3)
    array([1.203, 0.797])
    >>> output_gate(output, [0.0, -2.0]).round(3)  # σ(0) = 0.5, σ(-2) = 0.119
    array([0.602, 0.095])
    """
    o = as_float_array(output, "output")
    g = as_float_array(gate_logits, "gate_logits")
    try:  # like attn_mask, the gate may not add axes: that would silently grow the output
        fits = np.broadcast_shapes(g.shape, o.shape) == o.shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"gate_logits of shape {g.shape} do not broadcast to output's shape {o.shape} "
            f"(..., H, L, Ev); one gate per head and token is (..., H, L, 1)"
        )
    small = np.exp(-np.abs(g))  # e^-|g| in (0, 1]: never overflows
    gate = np.where(g >= 0, 1.0 / (1.0 + small), small / (1.0 + small))  # σ(g), either sign
    return o * gate  # [..., H, L, Ev] * [..., H, L, Ev or 1]
