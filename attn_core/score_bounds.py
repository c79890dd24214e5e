"""How large a score may grow: QK-norm and logit soft-capping.

Chapter 3 scaled the scores by :math:`1/\\sqrt{d}` so that their spread stays near 1 *at
initialisation*; training can still grow queries and keys until the softmax saturates.
QK-norm (Henry et al., 2020; Dehghani et al., 2023; Qwen3, Gemma 3, OLMo 2) RMS-normalises
each head's query and key, with learned gains, before RoPE; Gemma 2 caps the scores
smoothly, :math:`c \\tanh(s / c)`. Both bound every score. Shape legend: queries
(..., L, d), keys (..., S, d), d a head's width; scores (..., L, S).
"""

from __future__ import annotations

import math

import numpy as np

from .norms import rms_norm
from .validation import as_float_array, check_positive_real


def qk_norm(query, key, q_weight=None, k_weight=None, eps=1e-6):
    r"""Per-head QK-norm: :func:`attn_core.rms_norm` of every query and key, each with its gain.

    Parameters
    ----------
    query, key : array_like, shapes (..., L, d) and (..., S, d)
        Each head's queries and keys (after :func:`attn_core.split_heads`), before RoPE.
    q_weight, k_weight : array_like, shape (d,), optional
        The learned gains :math:`g_q`, :math:`g_k`, one per feature and shared by the heads
        (Qwen3's ``q_norm``, ``k_norm``); None: ones.
    eps : float > 0, default 1e-6

    Returns
    -------
    query, key : ndarray, shapes (..., L, d) and (..., S, d)
        Each vector of root mean square 1 (so of length :math:`\sqrt d`), times its gain;
        then RoPE, then attention as usual. :func:`qk_norm_max_score` bounds the scores.

    Notes
    -----
    OLMo 2 normalises the query (and the key) of all heads together, over H·d numbers
    before the heads are split; Qwen3 and Gemma 3 normalise each head's d numbers, as here.
    Gemma 3 and Qwen3-Next store the gain as an offset from 1 (a weight w means g = 1 + w).

    Examples
    --------
    >>> q, k = qk_norm([1.0, 0.0], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # the worked example
    >>> q.round(3), k.round(3)  # each vector of length √2 now: (1, 1) is no longer longer
    (array([1.414, 0.   ]), array([[1.414, 0.   ],
           [0.   , 1.414],
           [1.   , 1.   ]]))
    """
    q, k = as_float_array(query, "query"), as_float_array(key, "key")
    if q.ndim < 1 or k.ndim < 2 or q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"query must be (..., L, d) or (d,) and key (..., S, d), one head's width d for "
            f"both: query has shape {q.shape}, key has shape {k.shape}"
        )
    return _norm(q, q_weight, eps, "q_weight"), _norm(k, k_weight, eps, "k_weight")


def _norm(x, weight, eps, name):
    """rms_norm(x, weight, eps), its error naming ``name`` instead of rms_norm's "weight"."""
    if weight is not None and np.shape(weight) != x.shape[-1:]:
        raise ValueError(
            f"{name} must have one gain per feature, shape {x.shape[-1:]}, got shape "
            f"{np.shape(weight)}"
        )
    return rms_norm(x, weight, eps)


def qk_norm_max_score(q_weight, k_weight, *, scale=None):
    r"""The largest |score| QK-norm lets a head reach: :math:`\sqrt d \max|g_q| \max|g_k|`.

    After QK-norm a query is :math:`\hat q \odot g_q` with :math:`\|\hat q\| = \sqrt d`
    (root mean square 1), so :math:`\|\hat q \odot g_q\| \le \sqrt d \max_i |g_{q,i}|`, and
    likewise for the key. By Cauchy–Schwarz, and because RoPE's rotations keep lengths,

    .. math::
        |\text{scale} \cdot (R_m \hat q \odot g_q) \cdot (R_n \hat k \odot g_k)|
        \le \text{scale} \cdot d \max_i |g_{q,i}| \max_i |g_{k,i}|,

    which is :math:`\sqrt d \max|g_q| \max|g_k|` for the usual scale :math:`1/\sqrt d`.

    Parameters
    ----------
    q_weight, k_weight : array_like, shape (d,)
        The gains :math:`g_q`, :math:`g_k` (ones for a norm without gain).
    scale : float, optional
        The scores' factor; None: :math:`1/\sqrt d`.

    Returns
    -------
    float
        No score of this head exceeds it in absolute value, whatever the inputs (eps only
        makes the lengths smaller). It is reached when the largest |g_q| and |g_k| sit on
        one axis and query and key both point along it, unrotated; without RoPE the
        tighter bound is :math:`\text{scale} \cdot d \max_i |g_{q,i}\, g_{k,i}|`.

    Examples
    --------
    >>> round(qk_norm_max_score([1.0, 1.0], [1.0, 1.0]), 3)  # the worked example: d = 2, √2
    1.414
    >>> round(qk_norm_max_score(np.ones(128), np.full(128, 2.0)), 3)  # d = 128: √128 × 1 × 2
    22.627
    """
    g_q, g_k = as_float_array(q_weight, "q_weight"), as_float_array(k_weight, "k_weight")
    if g_q.ndim != 1 or g_q.shape != g_k.shape or g_q.size == 0:
        raise ValueError(
            f"q_weight and k_weight must be gains of one head's width, both of shape (d,): "
            f"q_weight has shape {g_q.shape}, k_weight has shape {g_k.shape}"
        )
    d = g_q.size
    scale = 1.0 / math.sqrt(d) if scale is None else abs(check_positive_real(scale, "scale"))
    return scale * d * float(np.abs(g_q).max()) * float(np.abs(g_k).max())


def soft_cap(scores, cap):
    r"""Gemma 2's logit soft-capping: :math:`c \tanh(s / c)`, every score strictly within ±c.

    Parameters
    ----------
    scores : array_like, shape (..., L, S)
        Scaled scores, before the mask (as Gemma 2 applies it); -inf (a masked score)
        stays -inf.
    cap : float > 0
        c: Gemma 2 uses 50 on attention scores and 30 on the final logits.

    Returns
    -------
    ndarray, the shape of ``scores``
        :math:`|c \tanh(s/c)| < c`; for :math:`|s| \ll c` almost s itself (the slope at 0
        is 1, and :math:`s - c\tanh(s/c) \approx s^3 / (3c^2)`), so small scores pass
        unchanged and only large ones are squashed.

    Notes
    -----
    A softmax row over capped scores has no weight above
    :math:`e^{c} / (e^{c} + (S - 1) e^{-c})`: no key takes all of it however large q · k
    grows. Gemma 3 dropped the cap for QK-norm (:func:`qk_norm`).

    Examples
    --------
    >>> soft_cap([0.707, 0.0, 0.707, 100.0], 50.0).round(3)  # the worked example's, and 100
    array([ 0.707,  0.   ,  0.707, 48.201])
    """
    s = as_float_array(scores, "scores", allow_neg_inf=True)
    cap = check_positive_real(cap, "cap")
    capped = cap * np.tanh(s / cap)  # [..., L, S], within (-cap, cap)
    return np.where(s == -np.inf, -np.inf, capped)  # -inf would become -cap: a key unmasked
