"""Softmax (소프트맥스) and its relatives, numerically stable.

Every function subtracts the maximum before exponentiating, so logits of
±1e4 give exact, finite answers, and sums the other terms apart from the
maximum with ``log1p`` (SciPy's gh-18295), so that ``logsumexp([0, -40])`` is
4.25e-18, not 0. float16 is computed in float32 (as PyTorch accumulates it)
and returned as float16. A row that is entirely ``-inf`` (every key masked)
has no maximum to subtract; it gets weights of exactly zero from
:func:`softmax`, ``-inf`` from :func:`log_softmax` and :func:`logsumexp`.
"""

from __future__ import annotations

import numpy as np

from .validation import (
    as_float_array,
    check_axis,
    check_bool,
    check_size,
    check_temperature,
    compute_dtype,
    first_true,
)


def _shifted(x, axis):
    """Return (x - max, max), in at least float32; a fully ``-inf`` slice is shifted by 0."""
    x = x.astype(compute_dtype(x.dtype), copy=False)
    peak = np.max(x, axis=axis, keepdims=True, initial=-np.inf)  # -inf for an empty axis
    peak = np.where(np.isfinite(peak), peak, 0).astype(x.dtype)  # -inf - (-inf) is NaN
    with np.errstate(over="ignore"):  # -max - max is -inf, whose exp is 0: right
        return x - peak, peak


def _log_total(z, axis):
    r"""``log(sum(exp(z)))`` for shifted ``z`` (max 0), keeping the tiny terms.

    The m maxima contribute m exactly; the rest sum to r, and
    :math:`\log(m + r) = \log m + \mathrm{log1p}(r / m)` keeps r even when it is
    below the rounding of 1 (SciPy's gh-18295). Shape (..., 1) along ``axis``.
    """
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
    return _softmax(x, axis, check_temperature(temperature))


def _softmax(x, axis=-1, temperature=1.0):
    """:func:`softmax` of a validated float array ``x`` (-inf allowed, no NaN or +inf)."""
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
    because = f"weights' S = {w.shape[-1]} (the result is (..., S, S))"
    check_size((*w.shape, w.shape[-1]), w.dtype, "the Jacobian (..., S, S)", because)
    outer = w[..., :, None] * w[..., None, :]  # (..., S, 1) * (..., 1, S) -> (..., S, S)
    return w[..., :, None] * np.eye(w.shape[-1], dtype=w.dtype) - outer
