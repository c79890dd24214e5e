"""A plain recurrent network (RNN), the sequential model attention is compared with."""

from __future__ import annotations

import numpy as np

from .validation import as_float_array


def simple_rnn(x, w_x, w_h):
    r"""Run an Elman RNN, :math:`h_t = \tanh(x_t W_x + h_{t-1} W_h)` with :math:`h_{-1} = 0`.

    Parameters
    ----------
    x, w_x, w_h : array_like, shapes (T, D), (D, H) and (H, H)

    Returns
    -------
    ndarray, shape (T, H), the states :math:`h_0, \dots, h_{T-1}`

    Examples
    --------
    >>> simple_rnn([[1.0], [0.0]], [[0.5]], [[1.0]]).round(3)  # tanh(0.5), tanh(tanh(0.5))
    array([[0.462],
           [0.432]])
    """
    x, w_x, w_h = (as_float_array(a, n) for a, n in ((x, "x"), (w_x, "w_x"), (w_h, "w_h")))
    if x.ndim != 2 or w_x.ndim != 2 or w_h.ndim != 2 or x.shape[1] != w_x.shape[0]:
        raise ValueError(
            f"x (T, D) and w_x (D, H) do not fit: x has shape {x.shape}, w_x has shape {w_x.shape}"
        )
    if w_h.shape != (w_x.shape[1], w_x.shape[1]):
        raise ValueError(f"w_h must be (H, H) = {(w_x.shape[1],) * 2}, got shape {w_h.shape}")
    states = np.zeros((x.shape[0], w_x.shape[1]))  # [T, H]
    h = np.zeros(w_x.shape[1])  # [H], the state before the first token
    for t in range(x.shape[0]):  # one step per token, in order
        h = np.tanh(x[t] @ w_x + h @ w_h)  # [D] @ [D, H] + [H] @ [H, H] -> [H]
        states[t] = h
    return states
