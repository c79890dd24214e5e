"""What a figure accepts: numbers, lists or numpy arrays, within limits it can draw; else one error.

The figures declare their inputs with the trait types below, traitlets' own types
(``Float``, ``Int``, ``List(Float())``, ``Enum``) that also take numpy arrays and scalars
and say what is wrong in the reader's words: ``Number(1.0, positive=True)``,
``Integer(8, min=1, max=512)``, ``Vector(dim=2)``, ``Vectors(dim=2)``, ``Tokens()``,
``Choice(("float64", "float32"))``. What depends on another input (a head below
``n_heads``) stays a ``@validate`` of the figure. Every check names the argument and the
shapes or sizes involved. The limits keep a
figure quick (a reader's 10,000 tokens or 10⁶ samples would freeze the kernel for
a minute before a memory error) and its pictures truthful (a shift of 10¹⁷ rounds
the scores' differences away, so the bars would turn uniform). A value that makes
the recomputation fail is rolled back (:func:`recompute_or_roll_back`), so the
figure never shows a state it rejected.

Examples
--------
>>> class Pad(t.HasTraits):
...     query = Vector([1.0, 0.0], dim=2)
...     head = Integer(0, min=0, max=1)
>>> Pad(query=np.array([0, 1])).query
[0.0, 1.0]
>>> Pad(head=np.int64(3))
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
    "MIN_TEMPERATURE",
    "Choice",
    "Integer",
    "Number",
    "Tokens",
    "Vector",
    "Vectors",
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
#: The coldest temperature a figure takes. Colder, the softmax is one-hot already, and a
#: temperature that divides a score scale (1/√d / T) could overflow it to infinity.
MIN_TEMPERATURE = 1e-6


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


def number(value, name, *, positive=False, minimum=None, max_abs=MAX_ABS, why=""):
    """``value`` (int, float or numpy scalar) as a float: finite, > 0 if ``positive``,
    at least ``minimum`` if given (``why`` says why, in the error)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got a {type(value).__name__}: {value!r:.60}")
    value = float(value)
    if positive and not value > 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be at least {minimum:g}{why}, got {value!r}")
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


# ---------------------------------------------------------------- trait types


class Number(t.Float):
    """A float trait: any real number (numpy scalars too, not a bool), finite, within
    ±``max_abs``, > 0 if ``positive``, at least ``min`` if given (``why`` explains it)."""

    def __init__(self, default_value=0.0, *, positive=False, max_abs=MAX_ABS, why="", **kwargs):
        self.positive, self.max_abs, self.why = positive, max_abs, why
        super().__init__(default_value, **kwargs)

    def validate(self, obj, value):
        least = None if self.min == -math.inf else self.min
        return number(value, self.name, positive=self.positive, minimum=least, why=self.why,
                      max_abs=self.max_abs)  # fmt: skip


class Temperature(Number):
    """The softmax temperature T of a figure: a :class:`Number` >= :data:`MIN_TEMPERATURE`."""

    def __init__(self, default_value=1.0, **kwargs):
        why = " (colder, the softmax is one-hot already)"
        super().__init__(default_value, positive=True, min=MIN_TEMPERATURE, why=why, **kwargs)


class Integer(t.Int):
    """An int trait: any integer (numpy integers too, not a bool or a float) in ``min..max``."""

    def __init__(self, default_value=0, **kwargs):
        kwargs.setdefault("min", 0)
        super().__init__(default_value, **kwargs)

    def validate(self, obj, value):
        return integer(value, self.name, minimum=self.min, maximum=self.max)


class _List(t.List):
    """traitlets' List, except that a str is refused rather than taken as a list of one."""

    def set(self, obj, value):
        t.TraitType.set(self, obj, value)


class Vector(_List):
    """A list of floats, shape ``(dim,)`` (any length up to ``maxlen`` if ``dim`` is None),
    from a list, tuple or numpy array: finite, within ±``max_abs``."""

    def __init__(self, default_value, *, dim=None, maxlen=MAX_VECTORS, max_abs=MAX_ABS, **kw):
        self.dim, self.max_abs = dim, max_abs
        super().__init__(t.Float(), default_value, minlen=1, maxlen=maxlen, **kw)

    def validate(self, obj, value):
        as_list = vector(value, self.name, dim=self.dim, max_len=self._maxlen, max_abs=self.max_abs)
        return super().validate(obj, as_list)


class Vectors(_List):
    """Rows of floats, shape ``(S, dim)`` with 1 <= S <= ``maxlen``; any width from 1 to
    ``max_dim`` if ``dim`` is None; finite, within ±``max_abs``."""

    def __init__(self, default_value, *, dim=None, maxlen=MAX_VECTORS, max_dim=MAX_D_MODEL, **kw):
        self.dim, self.max_dim = dim, max_dim
        super().__init__(t.List(t.Float()), default_value, minlen=1, maxlen=maxlen, **kw)

    def validate(self, obj, value):
        dim = self.dim
        if dim is None:  # the width the value has, if it is one a figure can take
            shape = np.shape(_array(value, self.name)) if value is not None else ()
            dim = shape[1] if len(shape) == 2 and 1 <= shape[1] <= self.max_dim else "E"
        return super().validate(obj, vectors(value, self.name, dim=dim, max_rows=self._maxlen))


class Tokens(_List):
    """A list of 1 to ``maxlen`` str, from a list, tuple or numpy array of str."""

    def __init__(self, default_value, *, maxlen=MAX_TOKENS, **kwargs):
        super().__init__(t.Unicode(), default_value, minlen=1, maxlen=maxlen, **kwargs)

    def validate(self, obj, value):
        return super().validate(obj, tokens(value, self.name, max_len=self._maxlen))


class Choice(t.Enum):
    """One of ``values``; anything else is refused with the list of choices."""

    def validate(self, obj, value):
        if value not in self.values:
            raise ValueError(f"{self.name} must be one of {tuple(self.values)}, got {value!r:.60}")
        return value


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
