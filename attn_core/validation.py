"""Input checks shared by every public function: the one place that raises.

Each helper names the argument and the shapes involved, so that a reader who
passes the wrong thing learns *which* thing and *why* instead of meeting a
numpy traceback from deep inside a matrix product.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = [
    "as_float_array",
    "check_attention_inputs",
    "check_axis",
    "check_mask",
    "check_positive_int",
    "check_scale",
    "check_temperature",
]


def as_float_array(x, name, *, allow_neg_inf=False):
    """Return ``x`` as a floating array, or raise naming ``name``.

    Integers and booleans become float64; float16/32/64 keep their dtype.
    NaN and +inf are rejected; -inf is rejected unless ``allow_neg_inf``.
    """
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as err:  # ragged lists and the like
        raise TypeError(f"{name} must be an array of numbers: {err}") from None
    if arr.dtype == bool or np.issubdtype(arr.dtype, np.integer):
        arr = arr.astype(np.float64)
    elif not np.issubdtype(arr.dtype, np.floating):
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    bad = np.isnan(arr) | (arr == np.inf)
    if not allow_neg_inf:
        bad |= arr == -np.inf
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        allowed = " (-inf is allowed)" if allow_neg_inf else ""
        raise ValueError(
            f"{name} must be finite{allowed}, but {name}{list(where)} = {arr[where]} "
            f"({name} has shape {arr.shape})"
        )
    return arr


def check_axis(axis, ndim, name="x"):
    """Raise if ``axis`` is not a valid axis for an array with ``ndim`` axes."""
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral) or not -ndim <= axis < ndim:
        raise ValueError(f"axis={axis!r} is out of range for {name} with {ndim} axes")


def check_temperature(temperature):
    """Return ``temperature`` as a float, or raise unless it is finite and > 0."""
    if not isinstance(temperature, numbers.Real) or not (
        math.isfinite(temperature) and temperature > 0
    ):
        raise ValueError(f"temperature must be a finite number > 0, got {temperature!r}")
    return float(temperature)


def check_scale(scale, embed_dim):
    """Return the score scale: ``1/sqrt(embed_dim)`` when ``scale`` is None."""
    if scale is None:
        return 1.0 / math.sqrt(embed_dim)  # a Python float keeps float32 float32
    if not isinstance(scale, numbers.Real) or not math.isfinite(scale):
        raise ValueError(f"scale must be a finite number or None, got {scale!r}")
    return float(scale)


def check_positive_int(n, name, *, minimum=1):
    """Return ``n`` as an int, or raise unless it is an integer >= ``minimum``."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {n!r}")
    return int(n)


def check_attention_inputs(query, key, value=None):
    """Validate query (..., L, E), key (..., S, E) and value (..., S, Ev).

    A 1-D query (E,) is accepted as a single query. Returns float arrays with a
    common dtype (float32 stays float32 when all three are float32).
    """
    q = as_float_array(query, "query")
    k = as_float_array(key, "key")
    arrays = [q, k] if value is None else [q, k, as_float_array(value, "value")]
    if q.ndim < 1:
        raise ValueError(f"query must have at least 1 axis (E,), got shape {q.shape}")
    for name, arr in zip(("key", "value")[: len(arrays) - 1], arrays[1:], strict=True):
        if arr.ndim < 2:
            raise ValueError(f"{name} must have at least 2 axes (S, E), got shape {arr.shape}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"query's last axis ({q.shape[-1]}) does not match key's last axis "
            f"({k.shape[-1]}): query has shape {q.shape}, key has shape {k.shape}"
        )
    if value is not None and arrays[2].shape[-2] != k.shape[-2]:
        raise ValueError(
            f"key and value must have the same number of positions S (axis -2): "
            f"key has shape {k.shape}, value has shape {arrays[2].shape}"
        )
    _check_batch_broadcast(arrays)
    dtype = np.result_type(*arrays)
    return tuple(arr.astype(dtype, copy=False) for arr in arrays)


def _check_batch_broadcast(arrays):
    names = ("query", "key", "value")[: len(arrays)]
    batch = [arr.shape[:-2] for arr in arrays]
    try:
        np.broadcast_shapes(*batch)
    except ValueError:
        shapes = ", ".join(f"{n} {a.shape}" for n, a in zip(names, arrays, strict=True))
        raise ValueError(
            f"the batch axes (all but the last two) do not broadcast: {shapes}"
        ) from None


def check_mask(attn_mask, scores_shape, is_causal):
    """Validate ``attn_mask`` against scores of shape (..., L, S).

    The mask must broadcast *to* that shape, as PyTorch's does: one that would
    add or lengthen axes (and so silently grow the output) is an error.

    Returns the mask as a bool array (True = may attend) or a float array (added
    to the scores), or None.
    """
    if attn_mask is None:
        return None
    if is_causal:
        raise ValueError("pass either attn_mask or is_causal=True, not both")
    mask = np.asarray(attn_mask)
    if mask.dtype != bool:
        if not np.issubdtype(mask.dtype, np.floating):
            raise TypeError(
                f"attn_mask must be boolean (True = may attend) or floating (added to "
                f"the scores), got dtype {mask.dtype}"
            )
        mask = as_float_array(mask, "attn_mask", allow_neg_inf=True)
    try:  # the mask may not add axes to the scores: that would silently grow the output
        fits = np.broadcast_shapes(mask.shape, scores_shape) == tuple(scores_shape)
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"attn_mask of shape {mask.shape} does not broadcast to the scores' "
            f"shape {scores_shape} (..., L, S)"
        )
    return mask
