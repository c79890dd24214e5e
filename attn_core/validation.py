"""Input checks for the public functions: each error names the argument and the shapes."""

from __future__ import annotations

import math
import numbers
from typing import NamedTuple

import numpy as np

MAX_ARRAY_BYTES = 2 * 1024**3
"""Largest array (in bytes) a function may create; raise it here if you have the memory."""


def as_float_array(x, name, *, allow_neg_inf=False):
    """``x`` as a float array (ints and bools as float64), finite but for -inf if allowed."""
    arr = as_array(x, name)
    if arr.dtype.kind in "biu":  # bool, int, uint (not timedelta, whose kind is "m")
        arr = arr.astype(np.float64)
    elif arr.dtype.kind != "f":
        raise TypeError(f"{name} must hold real numbers, got {_describe(x, arr)}")
    if arr.size and np.isfinite(arr.min()) and np.isfinite(arr.max()):  # two quick passes
        return arr
    bad = np.isnan(arr) | (arr == np.inf)
    if not allow_neg_inf:
        bad |= arr == -np.inf
    if bad.any():
        where = first_true(bad)
        allowed = " (-inf is allowed)" if allow_neg_inf else ""
        raise ValueError(
            f"{name} must be finite{allowed}, but {name}{list(where)} = {arr[where]} "
            f"({name} has shape {arr.shape})"
        )
    return arr


def as_array(x, name):
    """``np.asarray(x)``, refusing masked arrays and ragged nested lists, naming ``name``.

    Examples
    --------
    >>> as_array([4, 16, 64], "d_ks")
    array([ 4, 16, 64])
    """
    if isinstance(x, np.ma.MaskedArray):
        raise TypeError(
            f"{name} is a masked array, whose mask attn_core would ignore: pass "
            f"np.ma.filled({name}, -np.inf) for scores, or a boolean attn_mask"
        )
    try:
        return np.asarray(x)
    except (ValueError, TypeError):  # numpy 2: ragged nested lists
        raise TypeError(
            f"{name} must be a rectangular array of numbers, but its nested lists have "
            f"different lengths (a ragged list): {_short(x)}"
        ) from None


def _describe(x, arr):
    """What ``x`` is, when it is not an array of real numbers."""
    if arr.dtype == object and arr.ndim == 0:
        return f"a {type(x).__name__} ({_short(x)}); pass a list or an array"
    if arr.dtype == object:
        kinds = sorted({type(v).__name__ for v in arr.ravel().tolist()})
        return f"dtype object holding {', '.join(kinds)}"
    return f"dtype {arr.dtype}"


def _short(x, limit=60):
    """``repr(x)``, cut to ``limit`` characters."""
    text = repr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def first_true(flags):
    """The index (a tuple of ints) of the first True in ``flags``, to quote in a message."""
    return tuple(int(i) for i in np.argwhere(flags)[0])


def compute_dtype(dtype):
    """The dtype to compute in: at least float32, as PyTorch accumulates float16."""
    return np.promote_types(dtype, np.float32)


def check_size(shape, dtype, what, because, instead=None):
    """Raise if ``what`` of ``shape`` would pass :data:`MAX_ARRAY_BYTES`; ``because`` says why.

    Examples
    --------
    >>> check_size((10**6, 10**6), "float64", "the scores (L, S)", "L = S = 10**6")
    Traceback (most recent call last):
    ...
    ValueError: the scores (L, S) would have shape (1000000, 1000000) and need 7.45e+03 GiB ...
    """
    n_bytes = math.prod(int(n) for n in shape) * np.dtype(dtype).itemsize
    if n_bytes > MAX_ARRAY_BYTES:
        raise ValueError(
            f"{what} would have shape {tuple(int(n) for n in shape)} and need "
            f"{_gib(n_bytes)} as {np.dtype(dtype)}, {n_bytes / MAX_ARRAY_BYTES:.3g} times "
            f"the {_gib(MAX_ARRAY_BYTES)} limit; {because} make it this large "
            f"(attn_core.validation.MAX_ARRAY_BYTES sets the limit)"
            + (f"; {instead}" if instead else "")
        )


def _gib(n_bytes):
    """``n_bytes`` in GiB, for a message."""
    return f"{n_bytes / 1024**3:.3g} GiB"


def check_axis(axis, ndim, name="x"):
    """Raise unless ``axis`` is an axis of an array with ``ndim`` axes."""
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral) or not -ndim <= axis < ndim:
        raise ValueError(f"axis={axis!r} is out of range for {name} with {ndim} axes")


def check_bool(flag, name):
    """``flag`` if it is a bool; a string such as ``"False"`` is an error, not True.

    Examples
    --------
    >>> check_bool("False", "is_causal")
    Traceback (most recent call last):
    ...
    TypeError: is_causal must be True or False, got 'False' (str)
    """
    if not isinstance(flag, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {flag!r} ({type(flag).__name__})")
    return bool(flag)


def check_positive_real(value, name):
    """``value`` as a float, or raise unless it is a finite real number > 0.

    Examples
    --------
    >>> check_positive_real(2, "std")
    2.0
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number > 0, got {value!r} ({type(value).__name__})")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def check_scale(scale, embed_dim):
    """The scores' scale as a float: ``1/sqrt(embed_dim)`` when ``scale`` is None."""
    if scale is None:
        if embed_dim == 0:
            raise ValueError(
                "query and key have E = 0 features (last axis), so the default scale "
                "1/sqrt(E) is undefined: pass scale explicitly (every score is 0)"
            )
        return 1.0 / math.sqrt(embed_dim)  # a Python float keeps float32 float32
    if isinstance(scale, (bool, np.bool_)) or not isinstance(scale, numbers.Real):
        raise ValueError(f"scale must be a number or None, got {scale!r} ({type(scale).__name__})")
    if not math.isfinite(scale):
        raise ValueError(f"scale must be a finite number or None, got {scale!r}")
    return float(scale)


def check_positive_int(n, name, *, minimum=1):
    """``n`` as an int, or raise unless it is an integer >= ``minimum``.

    Examples
    --------
    >>> check_positive_int(0, "n_heads")
    Traceback (most recent call last):
    ...
    ValueError: n_heads must be an integer >= 1, got 0
    """
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {n!r} ({type(n).__name__})")
    if n < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {n!r}")
    return int(n)


def check_attention_inputs(query, key, value=None, *, scale=1.0):
    """query (..., L, E) or (E,), key (..., S, E), value (..., S, Ev) in one dtype (>= float32).

    Raises if the output would pass :data:`MAX_ARRAY_BYTES` or a score overflow; whether
    the scores fit is the caller's question (:func:`check_scores_size`).
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
    dtype = compute_dtype(np.result_type(*arrays))
    _check_result_sizes(arrays, dtype)
    arrays = [arr.astype(dtype, copy=False) for arr in arrays]
    _check_scores_fit(arrays[0], arrays[1], check_scale(scale, q.shape[-1]))
    return tuple(arrays)


class AttentionCall(NamedTuple):
    """One attention call's inputs, validated once, where they enter (:func:`check_attention`)."""

    query: np.ndarray  # (..., L, E); a 1-D query (E,) comes as (1, E)
    key: np.ndarray  # (..., S, E)
    value: np.ndarray | None  # (..., S, Ev)
    mask: np.ndarray | None  # bool (True = may attend) or float (added), broadcasts to (..., L, S)
    is_causal: bool
    scale: float  # the factor the scores are multiplied by
    one_query: bool  # the caller passed a 1-D query: drop the L axis of the result
    half: bool  # every input was float16: hand the result back as float16

    @property
    def batch(self):
        """The scores' batch axes: query's and key's broadcast together."""
        return np.broadcast_shapes(self.query.shape[:-2], self.key.shape[:-2])

    @property
    def pairs(self):
        """Query-key pairs in the whole call: batch × L × S, the scores' size."""
        return math.prod(self.batch) * self.query.shape[-2] * self.key.shape[-2]

    def result(self, out):
        """``out`` (..., L, X) as the caller asked: float16 back, a 1-D query's L axis dropped."""
        out = out.astype(np.float16) if self.half else out
        return out[..., 0, :] if self.one_query else out


def check_attention(query, key, value=None, attn_mask=None, is_causal=False, scale=None):
    """Every argument of an attention call, validated once, as an :class:`AttentionCall`."""
    q, k, *v = check_attention_inputs(query, key, value, scale=scale)
    q2 = np.atleast_2d(q)
    batch = np.broadcast_shapes(q2.shape[:-2], k.shape[:-2])
    mask = check_mask(attn_mask, (*batch, q2.shape[-2], k.shape[-2]), is_causal, dtype=q.dtype)
    inputs = [a for a in (query, key, value) if a is not None]
    half = all(getattr(a, "dtype", None) == np.float16 for a in inputs)
    value, scale = v[0] if v else None, check_scale(scale, q.shape[-1])
    return AttentionCall(q2, k, value, mask, bool(is_causal), scale, q.ndim == 1, half)


def _check_result_sizes(arrays, dtype):
    """Raise if the output (..., L, Ev) would be too large."""
    batch = check_batch(arrays)
    if len(arrays) == 3:
        Ev = arrays[2].shape[-1]
        _check_rows(arrays[0], batch, Ev, f"value's Ev = {Ev}", dtype, "the output (..., L, Ev)")


def check_scores_size(query, key, dtype=None, *, instead=None):
    """Raise if the scores (..., L, S) would be too large; ``instead`` names what can do without."""
    batch, S = np.broadcast_shapes(query.shape[:-2], key.shape[:-2]), key.shape[-2]
    dtype = query.dtype if dtype is None else dtype
    _check_rows(query, batch, S, f"key's S = {S}", dtype, "the scores (..., L, S)", instead)


def _check_rows(query, batch, n, because, dtype, what, instead=None):
    """Raise if ``what`` (*batch, L, n), one row of n per query, would be too large."""
    L = query.shape[-2] if query.ndim > 1 else 1
    because = f"query's L = {L} and {because}" + (f", batch axes {batch}" if batch else "")
    check_size((*batch, L, n), dtype, what, because, instead)


def check_batch(arrays):
    """The batch axes of query, key (and value) broadcast together, or an error naming them."""
    names = ("query", "key", "value")[: len(arrays)]
    batch = [arr.shape[:-2] for arr in arrays]
    try:
        return np.broadcast_shapes(*batch)
    except ValueError:
        shapes = ", ".join(f"{n} {a.shape}" for n, a in zip(names, arrays, strict=True))
        raise ValueError(
            f"the batch axes (all but the last two) do not broadcast: {shapes}"
        ) from None


def _check_scores_fit(q, k, scale):
    """Raise if some |q·k × scale| exceeds half the dtype's range (room left for a mask)."""
    limit = float(np.finfo(q.dtype).max) / 2
    q_max, k_max = _abs_max(q), _abs_max(k)
    if q_max * k_max * q.shape[-1] * abs(scale) <= limit:  # |q·k| <= E max|q| max|k|
        return
    unit_dots = (q / q_max) @ np.swapaxes(k / k_max, -1, -2)  # entries <= E: cannot overflow
    unit_peak = float(np.abs(unit_dots).max(initial=0))
    if unit_peak == 0 or scale == 0:
        return
    log_dot = math.log10(unit_peak) + math.log10(q_max) + math.log10(k_max)  # no overflow
    log_score = log_dot + math.log10(abs(scale))
    if log_score > math.log10(limit):
        culprit = "query·key" if log_dot > math.log10(limit) else f"query·key × scale ({scale:g})"
        raise ValueError(
            f"{culprit} overflows {q.dtype}: the largest |score| is about 10^{log_score:.1f}, "
            f"beyond {limit:.3g} (half the largest {q.dtype}, leaving room for attn_mask); "
            f"query has shape {q.shape}, key has shape {k.shape}"
        )


def _abs_max(x):
    """max |x| from two reductions: ``np.abs(x)`` would allocate a copy of ``x``."""
    return max(float(x.max(initial=0)), -float(x.min(initial=0)))


def check_mask(attn_mask, scores_shape, is_causal, *, dtype=np.float64):
    """``attn_mask`` as bool (True = may attend) or float (added) that broadcasts *to* the scores.

    A mask that would add or lengthen axes (silently growing the output, unlike PyTorch) is
    an error, and so is a finite float value beyond half of ``dtype``'s range.
    """
    if check_bool(is_causal, "is_causal") and attn_mask is not None:
        raise ValueError("pass either attn_mask or is_causal=True, not both")
    if attn_mask is None:
        return None
    mask = as_array(attn_mask, "attn_mask")
    if mask.dtype != bool:
        if mask.dtype.kind != "f":
            raise TypeError(
                f"attn_mask must be boolean (True = may attend) or floating (added to "
                f"the scores), got {_describe(attn_mask, mask)}"
            )
        mask = _check_mask_values(as_float_array(mask, "attn_mask", allow_neg_inf=True), dtype)
    try:  # the mask may not add axes to the scores: that would silently grow the output
        fits = np.broadcast_shapes(mask.shape, scores_shape) == tuple(scores_shape)
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"attn_mask of shape {mask.shape} does not broadcast to the scores' "
            f"shape {tuple(scores_shape)} (..., L, S)"
        )
    return mask


def _check_mask_values(mask, dtype):
    """Raise if a finite float mask value could overflow when added to ``dtype`` scores."""
    limit = float(np.finfo(compute_dtype(dtype)).max) / 2
    big = np.isfinite(mask) & (np.abs(mask) > limit)
    if big.any():
        where = first_true(big)
        raise ValueError(
            f"attn_mask{list(where)} = {mask[where]:.3g} would overflow when added to "
            f"{np.dtype(dtype)} scores (limit ±{limit:.3g}); use -inf to hide a key"
        )
    return mask
