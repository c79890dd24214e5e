"""Softmax (소프트맥스) and its relatives, numerically stable.

Every function subtracts the maximum before exponentiating, so logits of
±1e4 give exact, finite answers. A row that is entirely ``-inf`` (every key
masked) has no maximum to subtract; it gets weights of exactly zero from
:func:`softmax`, ``-inf`` from :func:`log_softmax` and :func:`logsumexp`.
"""

from __future__ import annotations

import numpy as np

from .validation import as_float_array, check_axis, check_temperature

__all__ = ["entropy", "log_softmax", "logsumexp", "softmax", "softmax_jacobian"]


def _shifted(x, axis):
    """Return (x - max, max) with a fully ``-inf`` slice shifted by 0, not by -inf."""
    peak = np.max(x, axis=axis, keepdims=True, initial=-np.inf)  # -inf for an empty axis
    peak = np.where(np.isfinite(peak), peak, 0).astype(x.dtype)  # -inf - (-inf) is NaN
    return x - peak, peak


def softmax(x, axis=-1, *, temperature=1.0):
    r"""Turn scores into weights that are positive and sum to 1 along ``axis``.

    .. math:: \mathrm{softmax}(x)_j = \frac{e^{x_j/T}}{\sum_l e^{x_l/T}}

    Parameters
    ----------
    x : array_like, shape (..., S)
        Scores (logits). ``-inf`` marks a position that gets zero weight;
        NaN and ``+inf`` are errors. Integers are promoted to float64.
    axis : int, default -1
        The axis to normalise along (the keys' axis for attention).
    temperature : float, default 1.0
        ``T > 0``. Large ``T`` flattens the weights towards uniform, small
        ``T`` sharpens them towards the arg-max.

    Returns
    -------
    ndarray, shape (..., S)
        Same dtype as ``x`` (float32 stays float32). A slice that is entirely
        ``-inf`` gives all zeros, as PyTorch's attention does.

    Notes
    -----
    Subtracting the maximum changes nothing mathematically (softmax is
    shift-invariant) but keeps every exponent at or below 0, so nothing
    overflows; see Blanchard, Higham and Higham, "Accurately computing the
    log-sum-exp and softmax functions", IMA J. Numer. Anal. 41 (2021).

    Examples
    --------
    >>> softmax([1.0, 0.0, 1.0]).round(3)
    array([0.422, 0.155, 0.422])
    >>> softmax([10_000.0, 0.0])
    array([1., 0.])
    >>> softmax([-np.inf, -np.inf])
    array([0., 0.])
    """
    x = as_float_array(x, "x", allow_neg_inf=True)
    check_axis(axis, x.ndim)
    z, _ = _shifted(x, axis)  # shift first: x / T itself could overflow for a tiny T
    with np.errstate(over="ignore"):  # z <= 0, so an overflow is -inf, whose exp is 0
        e = np.exp(z / check_temperature(temperature))
    total = np.sum(e, axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def logsumexp(x, axis=-1, keepdims=False):
    r"""Compute :math:`\log \sum_j e^{x_j}` along ``axis`` without overflow.

    Parameters
    ----------
    x : array_like, shape (..., S)
        Scores; ``-inf`` allowed, NaN and ``+inf`` are errors.
    axis : int, default -1
        The axis to reduce.
    keepdims : bool, default False
        Keep the reduced axis with length 1.

    Returns
    -------
    ndarray, shape (...) or (..., 1)
        ``-inf`` for a slice that is entirely ``-inf``.

    Examples
    --------
    >>> bool(np.isclose(logsumexp([1000.0, 1000.0]), 1000.0 + np.log(2.0)))
    True
    """
    x = as_float_array(x, "x", allow_neg_inf=True)
    check_axis(axis, x.ndim)
    z, peak = _shifted(x, axis)
    with np.errstate(divide="ignore"):  # log(0) = -inf for a fully masked slice
        out = np.log(np.sum(np.exp(z), axis=axis, keepdims=True)) + peak
    return out if keepdims else np.squeeze(out, axis=axis)


def log_softmax(x, axis=-1):
    r"""Compute :math:`\log \mathrm{softmax}(x)` stably: ``x - logsumexp(x)``.

    Parameters
    ----------
    x : array_like, shape (..., S)
        Scores; ``-inf`` allowed, NaN and ``+inf`` are errors.
    axis : int, default -1
        The axis to normalise along.

    Returns
    -------
    ndarray, shape (..., S)
        Finite wherever ``x`` is finite, even for logits of ±1e4; ``-inf``
        where the weight is exactly zero.

    Examples
    --------
    >>> log_softmax([10_000.0, 0.0])
    array([     0., -10000.])
    """
    x = as_float_array(x, "x", allow_neg_inf=True)
    lse = logsumexp(x, axis=axis, keepdims=True)
    with np.errstate(invalid="ignore"):
        out = x - lse
    return np.where(np.isneginf(lse), -np.inf, out).astype(x.dtype)  # -inf - -inf


def entropy(weights, axis=-1):
    r"""Shannon entropy :math:`-\sum_j w_j \log w_j` (in nats) along ``axis``.

    Parameters
    ----------
    weights : array_like, shape (..., S)
        Non-negative weights that sum to 1 (or to 0 for a fully masked row).
    axis : int, default -1
        The axis of the distribution.

    Returns
    -------
    ndarray, shape (...)
        From 0 (all weight on one key) to ``log S`` (uniform); 0 for a row of
        zeros. Terms with ``w_j = 0`` count as 0.

    Examples
    --------
    >>> bool(np.isclose(entropy([0.25, 0.25, 0.25, 0.25]), np.log(4)))
    True
    """
    w = as_float_array(weights, "weights")
    if (w < 0).any():
        raise ValueError(f"weights must be non-negative (weights has shape {w.shape})")
    check_axis(axis, w.ndim, "weights")
    logs = np.log(w, out=np.zeros_like(w), where=w > 0)
    return -np.sum(w * logs, axis=axis)


def softmax_jacobian(weights):
    r"""Jacobian of softmax at the point where it returns ``weights``.

    .. math:: \frac{\partial w_i}{\partial x_j} = w_i(\delta_{ij} - w_j),
              \quad J = \mathrm{diag}(w) - w w^{\top}

    Parameters
    ----------
    weights : array_like, shape (..., S)
        The output of :func:`softmax` along its last axis.

    Returns
    -------
    ndarray, shape (..., S, S)
        Symmetric; every row sums to 0. It vanishes as one weight nears 1,
        which is why saturated attention stops learning.

    Examples
    --------
    >>> softmax_jacobian([0.5, 0.5])
    array([[ 0.25, -0.25],
           [-0.25,  0.25]])
    """
    w = as_float_array(weights, "weights")
    if w.ndim < 1:
        raise ValueError(f"weights must have at least 1 axis (S,), got shape {w.shape}")
    outer = w[..., :, None] * w[..., None, :]  # (..., S, 1) * (..., 1, S) -> (..., S, S)
    return w[..., :, None] * np.eye(w.shape[-1], dtype=w.dtype) - outer
