r"""The backward pass of scaled dot-product attention (역전파), by the chain rule.

For :math:`O = A V` with :math:`A = \mathrm{softmax}(S)` row by row and
:math:`S = Q K^\top \cdot \mathrm{scale} + \mathrm{mask}`, given :math:`dO = \partial L/\partial O`:

.. math::

    dV = A^\top dO, \quad dA = dO\, V^\top, \quad
    dS = A \odot \big(dA - \mathrm{rowsum}(dA \odot A)\big), \quad
    dQ = dS\, K \cdot \mathrm{scale}, \quad dK = dS^\top Q \cdot \mathrm{scale}.

dS is the softmax Jacobian (:func:`attn_core.softmax_jacobian`) applied to each row
without building it. Shapes as in :mod:`attn_core.attention`; each gradient is summed back
to its input's own shape.
"""

from __future__ import annotations

import numpy as np

from .attention import _weights
from .validation import as_float_array, check_attention, check_scores_size, compute_dtype


def attention_backward(grad_output, query, key, value, attn_mask=None, is_causal=False, scale=None):
    r"""Gradients of the loss with respect to query, key and value, by the chain rule above.

    Parameters
    ----------
    grad_output : array_like, shape (..., L, Ev), or (..., Ev) for a 1-D query
        :math:`\partial L/\partial O`.
    query, key, value : array_like, shapes (..., L, E) or (E,), (..., S, E), (..., S, Ev)
    attn_mask, is_causal, scale
        As in :func:`attn_core.attention_weights`.

    Returns
    -------
    grad_query, grad_key, grad_value : ndarray
        Of the shapes of query, key and value; zero through a fully masked row.

    Examples
    --------
    The worked example (q = (1, 0), three keys and values) with dL/do = (1, 0):

    >>> keys, values = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]
    >>> attention_backward([1.0, 0.0], [1.0, 0.0], keys, values)[0].round(3)  # dq
    array([ 0.168, -0.226])
    """
    a = check_attention(query, key, value, attn_mask, is_causal, scale)  # once, at the door
    check_scores_size(a.query, a.key)  # the backward pass holds the weights (..., L, S)
    d_out = _check_grad_output(grad_output, a)  # [..., L, Ev]
    dtype = compute_dtype(np.result_type(a.query, d_out))
    q, k, v, d_out = (x.astype(dtype, copy=False) for x in (a.query, a.key, a.value, d_out))
    weights = _weights(q, k, a.mask, a.is_causal, a.scale)  # [..., L, S]
    d_q, d_k, d_v = _backward(d_out, q, k, v, weights, a.scale)
    d_q = _sum_to(d_q, q.shape)
    return (d_q[..., 0, :] if a.one_query else d_q), _sum_to(d_k, k.shape), _sum_to(d_v, v.shape)


def _backward(d_out, q, k, v, weights, scale):
    """The five lines of the chain rule, on validated arrays; batch axes still broadcast."""
    d_v = np.swapaxes(weights, -1, -2) @ d_out  # [..., S, L] @ [..., L, Ev] -> [..., S, Ev]
    d_a = d_out @ np.swapaxes(v, -1, -2)  # [..., L, Ev] @ [..., Ev, S] -> [..., L, S]
    if d_a.shape != weights.shape:  # v's batch axes were fewer: one array to work in place in
        d_a = np.broadcast_to(d_a, np.broadcast_shapes(d_a.shape, weights.shape)).copy()
    rowsum = np.einsum("...ij,...ij->...i", d_a, weights)[..., None]  # [..., L, 1]
    d_s = np.multiply(np.subtract(d_a, rowsum, out=d_a), weights, out=d_a)  # in place
    d_q = (d_s @ k) * scale  # [..., L, S] @ [..., S, E] -> [..., L, E]
    d_k = (np.swapaxes(d_s, -1, -2) @ q) * scale  # [..., S, L] @ [..., L, E] -> [..., S, E]
    return d_q, d_k, d_v


def _sum_to(grad, shape):
    """Sum ``grad`` over the axes that broadcasting added or stretched, back to ``shape``."""
    extra = grad.ndim - len(shape)
    grad = grad.sum(axis=tuple(range(extra))) if extra else grad
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=stretched, keepdims=True) if stretched else grad


def _check_grad_output(grad_output, a):
    """``grad_output`` as (..., L, Ev) for the call ``a``, or an error naming the shapes."""
    d_out = as_float_array(grad_output, "grad_output")
    q, k, v = a.query, a.key, a.value
    batch = np.broadcast_shapes(a.batch, v.shape[:-2])
    want = (*batch, v.shape[-1]) if a.one_query else (*batch, q.shape[-2], v.shape[-1])
    if d_out.shape != want:
        query_shape = q.shape[1:] if a.one_query else q.shape
        raise ValueError(
            f"grad_output must have the attention output's shape {want}, got shape "
            f"{d_out.shape} (query {query_shape}, key {k.shape}, value {v.shape})"
        )
    return d_out[..., None, :] if a.one_query else d_out
