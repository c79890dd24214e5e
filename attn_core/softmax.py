"""Softmax (소프트맥스) and its relatives, numerically stable.

Every function subtracts the maximum before exponentiating (logits of ±1e4 stay exact;
Blanchard, Higham and Higham, 2021) and sums the terms below it apart, with ``log1p``
(SciPy's gh-18295: ``logsumexp([0, -40])`` is 4.25e-18, not 0). float16 is computed in
float32 and returned as float16. A slice that is all ``-inf`` (every key masked) gets
weights 0 from :func:`softmax`, ``-inf`` from :func:`log_softmax` and :func:`logsumexp`.
"""

from __future__ import annotations

import numpy as np

from .validation import (
    as_float_array,
    check_axis,
    check_bool,
    check_positive_real,
    check_size,
    compute_dtype,
    first_true,
)


def _shifted(x, axis):
    """(x - max, max) in at least float32; a fully ``-inf`` slice is shifted by 0."""
    x = x.astype(compute_dtype(x.dtype), copy=False)
    peak = np.max(x, axis=axis, keepdims=True, initial=-np.inf)  # -inf for an empty axis
    peak = np.where(np.isfinite(peak), peak, 0).astype(x.dtype)  # -inf - (-inf) is NaN
    with np.errstate(over="ignore"):  # -max - max is -inf, whose exp is 0: right
        return x - peak, peak


def _log_total(z, axis):
    """``log(sum(exp(z)))`` (..., 1) of shifted z: log(m + r) = log m + log1p(r / m), m maxima."""
    at_peak = z == 0
    m = np.sum(at_peak, axis=axis, keepdims=True, dtype=z.dtype)  # 0 for a -inf slice
    terms = np.exp(z)
    np.putmask(terms, at_peak, 0)  # the maxima are counted in m
    rest = np.sum(terms, axis=axis, keepdims=True)
    ratio = np.divide(rest, m, out=np.zeros_like(rest), where=m > 0)
    with np.errstate(divide="ignore"):  # log(0) = -inf for a fully masked slice
        return np.log(m) + np.log1p(ratio)


def softmax(x, axis=-1, *, temperature=1.0):
    r"""Turn scores into weights that are positive and sum to 1 along ``axis``.

    .. math:: \mathrm{softmax}(x)_j = \frac{e^{x_j/T}}{\sum_l e^{x_l/T}}

    Parameters
    ----------
    x : array_like, shape (..., S)
    axis : int, default -1
    temperature : float > 0, default 1.0
        T: large flattens the weights towards uniform, small sharpens them.

    Returns
    -------
    ndarray, shape (..., S)
        The dtype of ``x``; zeros for a slice that is all ``-inf``.

    Examples
    --------
    >>> softmax([1.0, 0.0, 1.0]).round(3)
    array([0.422, 0.155, 0.422])
    """
    x = as_float_array(x, "x", allow_neg_inf=True)
    check_axis(axis, x.ndim)
    return _softmax(x, axis, check_positive_real(temperature, "temperature"))


def _softmax(x, axis=-1, temperature=1.0):
    """:func:`softmax` of a validated float array ``x``."""
    z, _ = _shifted(x, axis)  # shift first: x / T itself could overflow for a tiny T
    z = z.astype(_temperature_dtype(z.dtype, temperature), copy=False)
    with np.errstate(over="ignore"):  # z <= 0, so an overflow is -inf, whose exp is 0
        z = z if temperature == 1.0 else z / temperature
        e = np.exp(z, out=z if z is not x else None)  # in place when z is already a copy
    total = np.sum(e, axis=axis, keepdims=True)  # >= 1 (the maximum's term) unless all -inf
    if (total > 0).all():
        return np.divide(e, total, out=e).astype(x.dtype, copy=False)  # in place
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0).astype(x.dtype, copy=False)


def _temperature_dtype(dtype, temperature):
    """``dtype``, or float64 if ``temperature`` would round to 0 or inf in ``dtype``."""
    info = np.finfo(dtype)
    fits = float(info.tiny) <= temperature <= float(info.max)
    return dtype if fits else np.promote_types(dtype, np.float64)


def logsumexp(x, axis=-1, keepdims=False):
    r"""Compute :math:`\log \sum_j e^{x_j}` along ``axis`` without overflow.

    Parameters
    ----------
    x : array_like, shape (..., S)
    axis : int, default -1
    keepdims : bool, default False

    Returns
    -------
    ndarray, shape (...) or (..., 1)

    Examples
    --------
    >>> bool(np.isclose(logsumexp([1000.0, 1000.0]), 1000.0 + np.log(2.0)))
    True
    """
    x = as_float_array(x, "x", allow_neg_inf=True)
    check_axis(axis, x.ndim)
    keepdims = check_bool(keepdims, "keepdims")
    z, peak = _shifted(x, axis)
    with np.errstate(over="ignore"):  # beyond the dtype's range: inf is the rounded value
        out = (_log_total(z, axis) + peak).astype(x.dtype, copy=False)
    return out if keepdims else np.squeeze(out, axis=axis)


def log_softmax(x, axis=-1):
    r"""Compute :math:`\log \mathrm{softmax}(x)` stably: ``x - logsumexp(x)``.

    Parameters
    ----------
    x : array_like, shape (..., S)
    axis : int, default -1

    Returns
    -------
    ndarray, shape (..., S)

    Examples
    --------
    >>> log_softmax([10_000.0, 0.0])
    array([     0., -10000.])
    """
    x = as_float_array(x, "x", allow_neg_inf=True)
    check_axis(axis, x.ndim)
    z, _ = _shifted(x, axis)  # z - log_total: no rounding at the size of max(x)
    log_total = _log_total(z, axis)
    with np.errstate(invalid="ignore"):  # -inf - -inf in a fully masked slice
        out = np.where(np.isneginf(log_total), -np.inf, z - log_total)
    with np.errstate(over="ignore"):  # float16 [6e4, -6e4]: -1.2e5 rounds to -inf
        return out.astype(x.dtype, copy=False)


def entropy(weights, axis=-1):
    r"""Shannon entropy :math:`-\sum_j w_j \log w_j` (in nats) along ``axis``.

    Parameters
    ----------
    weights : array_like, shape (..., S)
        Non-negative, summing to 1 (or 0: a fully masked row).
    axis : int, default -1

    Returns
    -------
    ndarray, shape (...)
        From 0 (one-hot) to ``log S`` (uniform); 0 for a row of zeros.

    Examples
    --------
    >>> bool(np.isclose(entropy([0.25, 0.25, 0.25, 0.25]), np.log(4)))
    True
    """
    w = as_float_array(weights, "weights")
    check_axis(axis, w.ndim, "weights")
    _check_distribution(w, axis)
    w_dtype, w = w.dtype, w.astype(compute_dtype(w.dtype), copy=False)
    logs = np.log(w, out=np.zeros_like(w), where=w > 0)
    return (-np.sum(w * logs, axis=axis)).astype(w_dtype, copy=False)


def _check_distribution(w, axis):
    """Raise unless ``w`` is non-negative and each slice sums to 1 (or 0: fully masked)."""
    if (w < 0).any():
        where = first_true(w < 0)
        raise ValueError(
            f"weights must be non-negative, but weights{list(where)} = {w[where]} "
            f"(weights has shape {w.shape})"
        )
    totals = np.sum(w, axis=axis, dtype=compute_dtype(w.dtype))
    tolerance = max(1e-6, float(np.sqrt(np.finfo(w.dtype).eps)))
    off = (np.abs(totals - 1) > tolerance) & (totals != 0)
    if off.any():
        where = first_true(off)
        raise ValueError(
            f"weights must sum to 1 along axis {axis} (a distribution), but slice "
            f"{list(where)} sums to {float(totals[where]):.6g} (weights has shape {w.shape}); "
            f"normalise with w / w.sum(axis={axis}, keepdims=True)"
        )


def softmax_jacobian(weights):
    r"""Softmax's Jacobian at its output w, :math:`J = \mathrm{diag}(w) - w w^\top`.

    Parameters
    ----------
    weights : array_like, shape (..., S)
        :func:`softmax` along the last axis.

    Returns
    -------
    ndarray, shape (..., S, S)
        Symmetric, rows summing to 0; it vanishes as one weight nears 1.

    Examples
    --------
    >>> softmax_jacobian([0.5, 0.5])
    array([[ 0.25, -0.25],
           [-0.25,  0.25]])
    """
    w = as_float_array(weights, "weights")
    if w.ndim < 1:
        raise ValueError(f"weights must have at least 1 axis (S,), got shape {w.shape}")
    because = f"weights' S = {w.shape[-1]} (the result is (..., S, S))"
    check_size((*w.shape, w.shape[-1]), w.dtype, "the Jacobian (..., S, S)", because)
    outer = w[..., :, None] * w[..., None, :]  # (..., S, 1) * (..., 1, S) -> (..., S, S)
    return w[..., :, None] * np.eye(w.shape[-1], dtype=w.dtype) - outer
