"""Additive attention scores (덧셈 어텐션), Bahdanau, Cho and Bengio (2014), appendix A.1.1.

Shape legend: query (..., L, Eq) or (Eq,), key (..., S, Ek); W (A, Eq) and U (A, Ek) map
both into a hidden layer of A units, v (A,) reads one number out of it.
"""

from __future__ import annotations

import numpy as np

from .validation import as_float_array, check_batch, check_size


def additive_scores(query, key, W, U, v):
    r"""Additive scores :math:`\mathbf{v}^\top \tanh(W\mathbf{q}_i + U\mathbf{k}_j)` for every pair.

    Parameters
    ----------
    query : array_like, shape (..., L, Eq) or (Eq,)
    key : array_like, shape (..., S, Ek)
    W, U, v : array_like, shapes (A, Eq), (A, Ek) and (A,)

    Returns
    -------
    ndarray, shape (..., L, S), or (..., S) for a 1-D query

    Examples
    --------
    >>> I, keys = np.eye(2), [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    >>> additive_scores([1.0, 0.0], keys, I, I, [1.0, -1.0]).round(3)  # tanh 2 - tanh 0, ...
    array([0.964, 0.   , 0.202])
    """
    q, k, W, U, v = _check(query, key, W, U, v)
    if q.ndim == 1:  # one query (Eq,): its scores (..., S)
        return additive_scores(q[None], k, W, U, v)[..., 0, :]
    q_hidden = q @ np.swapaxes(W, -1, -2)  # [..., L, Eq] @ [Eq, A] -> [..., L, A]
    k_hidden = k @ np.swapaxes(U, -1, -2)  # [..., S, Ek] @ [Ek, A] -> [..., S, A]
    # every pair: [..., L, 1, A] + [..., 1, S, A] -> [..., L, S, A]
    hidden = np.tanh(q_hidden[..., :, None, :] + k_hidden[..., None, :, :])
    return hidden @ v  # [..., L, S, A] @ [A] -> [..., L, S]


def _check(query, key, W, U, v):
    """The five inputs as float arrays of one dtype, or an error naming the argument."""
    q = as_float_array(query, "query")
    k = as_float_array(key, "key")
    W, U, v = (as_float_array(x, n) for x, n in ((W, "W"), (U, "U"), (v, "v")))
    if q.ndim < 1 or k.ndim < 2:
        raise ValueError(
            f"query must be (..., L, Eq) or (Eq,) and key (..., S, Ek): got query shape "
            f"{q.shape}, key shape {k.shape}"
        )
    if W.ndim != 2 or U.ndim != 2 or v.ndim != 1:
        raise ValueError(
            f"W must be (A, Eq), U (A, Ek) and v (A,): got W {W.shape}, U {U.shape}, v {v.shape}"
        )
    A = v.shape[0]
    if W.shape != (A, q.shape[-1]) or U.shape != (A, k.shape[-1]):
        raise ValueError(
            f"with v of shape ({A},), W must be ({A}, {q.shape[-1]}) to take query "
            f"{q.shape} and U ({A}, {k.shape[-1]}) to take key {k.shape}; got W {W.shape}, "
            f"U {U.shape}"
        )
    L = q.shape[-2] if q.ndim > 1 else 1
    batch = check_batch([q, k])
    dtype = np.result_type(q, k, W, U, v, np.float32)
    because = f"query's L = {L}, key's S = {k.shape[-2]} and A = {A}"
    check_size((*batch, L, k.shape[-2], A), dtype, "the hidden layer (..., L, S, A)", because)
    return tuple(x.astype(dtype, copy=False) for x in (q, k, W, U, v))
