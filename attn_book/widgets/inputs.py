"""What a figure accepts: numbers, lists or numpy arrays, within limits it can draw; else one error.

Every check names the argument and the shapes or sizes involved. The limits keep a
figure quick (a reader's 10,000 tokens or 10⁶ samples would freeze the kernel for
a minute before a memory error) and its pictures truthful (a shift of 10¹⁷ rounds
the scores' differences away, so the bars would turn uniform). A value that makes
the recomputation fail is rolled back (:func:`recompute_or_roll_back`), so the
figure never shows a state it rejected.

Examples
--------
>>> vector(np.array([1.0, 0.0]), "query", dim=2)
[1.0, 0.0]
>>> integer(np.int64(3), "head", maximum=1)
Traceback (most recent call last):
...
ValueError: head must be an integer in 0..1, got 3
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import traitlets as t

__all__ = [
    "MAX_ABS",
    "MAX_D_MODEL",
    "MAX_SAMPLE_NUMBERS",
    "MAX_TOKENS",
    "MAX_VECTORS",
    "finite_or_none",
    "integer",
    "number",
    "recompute_or_roll_back",
    "tokens",
    "vector",
    "vectors",
]

MAX_VECTORS = 64  # keys / values of the query pad, score bars
MAX_TOKENS = 128  # tokens of the heatmap's sentences (128 × 128 cells)
MAX_D_MODEL = 512  # the heatmap's embedding size (two d_model × d_model projections)
MAX_SAMPLE_NUMBERS = 16_384  # n_samples × n_keys of the scaling explorer (× 1024 at d_k = 1024)
MAX_ABS = 1e6  # coordinates, scores and shifts: beyond, float64 rounds their differences away


def _array(value, name):
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        got = f"a {type(value).__name__}: {value!r:.60}"
        raise TypeError(f"{name} must be an array of numbers, got {got}") from None


def _within(arr, name, max_abs):
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite, got {arr.tolist()}")
    if max_abs is not None and arr.size and np.abs(arr).max() > max_abs:
        got = f"{arr.ravel()[0]:g}" if arr.size == 1 else f"an entry of size {np.abs(arr).max():g}"
        raise ValueError(
            f"{name} must lie within ±{max_abs:g} (beyond, the differences between "
            f"numbers round away), got {got}"
        )


def vector(value, name, *, dim=None, max_len=MAX_VECTORS, max_abs=MAX_ABS):
    """``value`` (list, tuple or array) as a list of finite floats, shape ``(dim,)``.

    Raises
    ------
    TypeError
        Not numbers.
    ValueError
        Another shape, no entries, more than ``max_len``, not finite or beyond ``max_abs``.
    """
    arr = _array(value, name)
    want = f"({dim},)" if dim is not None else f"(S,) with 1 <= S <= {max_len}"
    if arr.ndim != 1 or (dim is not None and arr.shape[0] != dim) or not 1 <= arr.size <= max_len:
        raise ValueError(f"{name} must have shape {want}, got shape {arr.shape}")
    _within(arr, name, max_abs)
    return arr.tolist()


def vectors(value, name, *, dim, max_rows=MAX_VECTORS, max_abs=MAX_ABS):
    """``value`` as a list of rows ``(S, dim)`` of finite floats, 1 <= S <= ``max_rows``."""
    arr = _array(value, name)
    if arr.ndim != 2 or arr.shape[1] != dim or not 1 <= arr.shape[0] <= max_rows:
        raise ValueError(
            f"{name} must have shape (S, {dim}) with 1 <= S <= {max_rows}, got shape {arr.shape}"
        )
    _within(arr, name, max_abs)
    return arr.tolist()


def number(value, name, *, positive=False, max_abs=MAX_ABS):
    """``value`` (int, float or numpy scalar) as a float: finite, > 0 if ``positive``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got a {type(value).__name__}: {value!r:.60}")
    value = float(value)
    if positive and not value > 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    _within(np.array([value]), name, max_abs)
    return value


def integer(value, name, *, minimum=0, maximum=None):
    """``value`` (int or numpy integer) as an int in ``minimum..maximum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got a {type(value).__name__}: {value!r:.60}")
    value = int(value)
    if value < minimum or (maximum is not None and value > maximum):
        bounds = f"in {minimum}..{maximum}" if maximum is not None else f">= {minimum}"
        raise ValueError(f"{name} must be an integer {bounds}, got {value}")
    return value


def tokens(value, name, *, max_len=MAX_TOKENS):
    """``value`` (a sequence or array of str) as a list of 1 to ``max_len`` str."""
    is_sequence = isinstance(value, list | tuple | np.ndarray) and not isinstance(value, str)
    if not is_sequence or not len(value) or not all(isinstance(s, str) for s in value):
        raise TypeError(f"{name} must be a non-empty sequence of str, got {value!r:.60}")
    if len(value) > max_len:
        raise ValueError(
            f"{name} must hold at most {max_len} tokens (one heatmap row each), got {len(value)}"
        )
    return [str(s) for s in value]


def finite_or_none(values):
    """A list of floats with None where a value is NaN or infinite (JSON has no NaN)."""
    return [float(v) if math.isfinite(v) else None for v in np.ravel(values)]


def recompute_or_roll_back(widget, change, recompute):
    """Run ``recompute()``; if it raises, put the changed trait back to its old value and re-raise.

    The old value's observers recompute the figure, so it never shows a state it rejected.
    """
    try:
        recompute()
    except Exception:
        name, old = change.get("name"), change.get("old", t.Undefined)
        if change.get("type") == "change" and _valid(widget, name, old):
            widget.set_trait(name, old)
        raise


def _valid(widget, name, value):
    """True if ``value`` passes the trait's checks (an old value from construction may not)."""
    trait = widget.traits()[name]
    if value is t.Undefined or (value is None and trait.default_value is not None):
        return False  # t.Any lets None through; during construction ``old`` is None
    try:
        trait._validate(widget, value)
    except Exception:
        return False
    return True
