"""One step of the online softmax (온라인 소프트맥스): the update
:func:`attn_core.chunked_attention` repeats, for one query, to print after every block."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .validation import as_float_array


class OnlineSoftmax(NamedTuple):
    """What one query carries from block to block over the keys seen so far.

    Examples
    --------
    >>> OnlineSoftmax(0.0, 1.0, np.array([0.0, 2.0]), 0.0).output  # one key, score 0
    array([0., 2.])
    """

    running_max: float  # m, the largest score (-inf before any key)
    total: float  # ℓ = Σ e^(s_j − m)
    out: np.ndarray  # Σ e^(s_j − m) v_j, (Ev,), not yet divided by ℓ
    rescale: float  # e^(m_old − m), the last step's factor on ℓ and out

    @property
    def output(self):
        """``out / total``: the attention output over the keys seen so far, shape (Ev,)."""
        return self.out / self.total


def online_softmax_start(d_v):
    """The state before any key: m = −inf, ℓ = 0, out = zeros(d_v).

    Parameters
    ----------
    d_v : int

    Returns
    -------
    OnlineSoftmax

    Examples
    --------
    >>> online_softmax_start(2)
    OnlineSoftmax(running_max=-inf, total=0.0, out=array([0., 0.]), rescale=1.0)
    """
    return OnlineSoftmax(-np.inf, 0.0, np.zeros(int(d_v)), 1.0)


def online_softmax_step(state, scores, values):
    r"""Fold one block of keys into one query's running max m, sum ℓ and output o.

    With :math:`m' = \max(m, \max_j s_j)` and :math:`r = e^{m - m'}`:
    :math:`\ell' = r\ell + \sum_j e^{s_j - m'}`, :math:`o' = r o + \sum_j e^{s_j - m'} v_j`.

    Parameters
    ----------
    state : OnlineSoftmax
    scores, values : array_like, shapes (B,) and (B, Ev)
        The block's scaled scores :math:`s_j` and its values.

    Returns
    -------
    OnlineSoftmax

    Examples
    --------
    >>> s, V = np.array([0.7071, 0.0, 0.7071]), np.array([[2, 0], [0, 2], [1, 1]])  # chapter 4
    >>> state = online_softmax_step(online_softmax_start(2), s[:2], V[:2])
    >>> state = online_softmax_step(state, s[2:], V[2:])
    >>> round(state.total, 3), state.output.round(3)
    (2.493, array([1.203, 0.797]))
    """
    s = as_float_array(scores, "scores")  # [B]
    v = as_float_array(values, "values")  # [B, Ev]
    if s.ndim != 1 or s.size == 0 or v.shape != (s.shape[0], state.out.shape[0]):
        raise ValueError(
            f"scores must have shape (B,) with B >= 1 and values (B, {state.out.shape[0]}) "
            f"for an output of size {state.out.shape[0]}; got scores {s.shape}, values {v.shape}"
        )
    new_max = max(state.running_max, float(s.max()))
    rescale = float(np.exp(state.running_max - new_max))  # e^(m - m'), 0 before any key
    exps = np.exp(s - new_max)  # [B], each <= 1
    total = state.total * rescale + float(exps.sum())
    return OnlineSoftmax(new_max, total, state.out * rescale + exps @ v, rescale)
