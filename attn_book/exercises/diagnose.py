"""The diagnoses every chapter reuses, and the fixed set of generic rules.

Each function returns a :class:`~attn_book.exercises.Diagnosis`: a name (its message is the
catalog's text of that name, :mod:`.catalog`) and a test over the trials. Two families:

- *imitation* diagnoses (:func:`matches`, :func:`factor`) recompute the
  answer the way the slip would, with attn_core, and fire when the reader's answer equals it;
  the site's answer box gets the slip's values;
- *rules* look at the answer alone. For by-hand numbers they are a small fixed set, tried in
  this order after an exercise's own slips: :func:`wrong_count`, :func:`rounding`,
  :func:`wrong_order`, :func:`not_summing_to_one`, :func:`constant_factor`,
  :func:`off_entries`; an exercise may name a few more (:data:`NUMBER_RULES`:
  ``ranked-but-off``, ``entry-is``, ``length-is``, ``too-long``, ``smaller-divisor``).
  ``site/static/attn-answers.js`` holds the same set, by the same names, and
  ``tests/test_site_answers_js.py`` holds the two equal. None of them says the answer.

Examples
--------
>>> from attn_book.exercises.records import Case, Trial
>>> t = Trial(Case("two keys", ()), expected=np.array([0.5, 0.5]), got=np.array([1.0, 1.0]))
>>> rows_not_normalised().test([t])
True
>>> factor(2.0, "doubled").test([t])
True
"""

from __future__ import annotations

import math

import numpy as np

from .catalog import text
from .records import Diagnosis
from .running import AnswerProblem, safe_text, where

__all__ = [
    "NUMBER_RULES",
    "batch_only",
    "below",
    "factor",
    "forgot_scale",
    "generic_for_numbers",
    "heads_without_transpose",
    "hidden_key_weighted",
    "kT_on_batch",
    "kv_cache_slips",
    "large_inputs",
    "lost_axis",
    "masked_key_weighted",
    "masked_row_uniform",
    "masked_rows",
    "matches",
    "nan_for_large_scores",
    "not_a_divisor",
    "not_finite",
    "not_whole",
    "raised",
    "refuse_non_whole",
    "rows_not_normalised",
    "rule",
    "scaled_by_d_model",
    "shape_words",
    "tolerance_text",
    "wrong_on_batch",
    "wrong_shape",
    "wrong_values",
]


def below(share, decimals=3):
    """``share`` rounded *down* to ``decimals``: a share short of 0.5 never reads "0.50".

    >>> below(0.4998), below(0.25)
    ('0.499', '0.250')
    """
    return f"{math.floor(share * 10**decimals) / 10**decimals:.{decimals}f}"


def _failing(trials):
    """The trials whose answer did not match (in case order)."""
    return [t for t in trials if not t.ok]


def _same_shape(t):
    return t.got is not None and t.got.shape == t.expected.shape


# ---------------------------------------------------------------- slips, recomputed


def matches(name, alt, *more, equal_nan=False):
    """Fires when the answer *is* the slip: it equals ``alt(*case.args)`` on every case checked.

    ``more``: other ways to compute the same slip (with ``ac.softmax``, or by hand with NaN
    in a fully masked row); the answer must equal one of them on every case.

    A slip that coincides with the right answer on some case is still told apart by the
    others, and an answer that matches the slip on one case but not on another is some
    other mistake, so it is not named (the issue's rule: a diagnosis fires only when true).
    ``equal_nan``: NaN where the slip gives NaN counts as equal (a slip that overflows).
    """
    return Diagnosis(
        name,
        lambda trials: any(
            _is_every(trials, lambda t, f=f: f(*t.case.args), equal_nan) for f in (alt, *more)
        ),
        site=lambda t: {"values": [f(*t.case.args) for f in (alt, *more)]},
        slip=True,
    )


def _is_every(trials, slip, equal_nan=False):
    """True when some answer is wrong and every answer equals ``slip(trial)``."""
    return any(not t.ok for t in trials) and all(
        t.matches(slip(t), equal_nan=equal_nan) for t in trials
    )


#: A KV cache's size asked in MiB or GiB: (bytes in the unit, in its decimal twin, its name).
_CACHE_UNITS = {"MiB": (2**20, 1e6, "megabytes"), "GiB": (2**30, 1e9, "gigabytes")}


def kv_cache_slips(unit):
    """The slips of a KV cache's size asked in ``unit`` ("MiB" or "GiB"), for an exercise whose
    data are (layers, query heads, key/value heads, d_head, tokens, bytes a number): the bytes
    left unconverted (``bytes-not-mib``), decimal units (``decimal-megabytes``), the keys
    alone, the query heads counted, one layer, float32's 4 bytes. Chapters 10 and 13 share
    them, each in its unit.
    """
    size, decimal, words = _CACHE_UNITS[unit]

    def cache(layers, h_kv, d, n, b):
        return 2 * layers * h_kv * d * n * b

    return [
        matches(
            f"bytes-not-{unit.lower()}",
            lambda layers, h, h_kv, d, n, b: cache(layers, h_kv, d, n, b),
        ),
        matches(
            f"decimal-{words}",
            lambda layers, h, h_kv, d, n, b: cache(layers, h_kv, d, n, b) / decimal,
        ),
        matches(
            "keys-only", lambda layers, h, h_kv, d, n, b: cache(layers, h_kv, d, n, b) / 2 / size
        ),
        matches(
            "query-heads-counted", lambda layers, h, h_kv, d, n, b: cache(layers, h, d, n, b) / size
        ),
        matches("one-layer", lambda layers, h, h_kv, d, n, b: cache(1, h_kv, d, n, b) / size),
        matches(
            "float32-bytes", lambda layers, h, h_kv, d, n, b: cache(layers, h_kv, d, n, 4) / size
        ),
    ]


def factor(f, name):
    """Fires when the answer is the right one multiplied by ``f``, on every case."""
    return Diagnosis(
        name,
        lambda trials: _is_every(trials, lambda t: t.expected * f),
        site=lambda t: {"values": [t.expected * f]},
        slip=True,
    )


def not_a_divisor(name, of, most):
    """Fires when the answer fits the budget but does not divide ``of(*inputs)``: any whole
    number up to ``most(*inputs)`` (the most that fit, divisor or not) that is not a divisor."""

    def values(args):
        n = of(*args)
        return [m for m in range(1, int(most(*args)) + 1) if n % m]

    return Diagnosis(
        name,
        lambda trials: any(trials[0].matches(v) for v in values(trials[0].case.args)),
        site=lambda t: {"values": values(t.case.args)},
        slip=True,
    )


def forgot_scale(d_k, alt=None):
    """ "forgot the scale": the answer times √d_k (or, with ``alt``, the unscaled weights)."""
    if alt is None:
        return factor(math.sqrt(d_k), "forgot-scale")
    return matches("forgot-scale", alt)


def scaled_by_d_model(alt):
    """ "you scaled by d_model, not d_head"; ``alt`` recomputes with 1/√d_model."""
    return matches("scaled-by-d-model", alt)


def heads_without_transpose(alt):
    """Heads made by a reshape alone; ``alt`` recomputes that way."""
    return matches("heads-no-transpose", alt)


# ---------------------------------------------------------------- rules for functions


def rows_not_normalised():
    """A failing answer whose rows do not sum as attn_core's do, on a case of small inputs
    (where no overflow can be the cause), by more than float16's digits."""

    def test(trials):
        for t in _failing(trials):
            if _same_shape(t) and np.isfinite(t.got).all() and not large_inputs(t):
                if not np.allclose(t.got.sum(axis=-1), t.expected.sum(axis=-1), atol=1e-3):
                    return True
        return False

    return Diagnosis("rows-not-normalised", test)


def lost_axis():
    """A max or a sum along the keys without ``keepdims=True``, which then cannot broadcast."""
    return Diagnosis(
        "lost-axis",
        lambda trials: any(
            isinstance(t.error, ValueError) and "broadcast" in str(t.error) for t in trials
        ),
    )


def _non_finite(t):
    """True when the answer has NaN or inf where attn_core's numbers are finite."""
    return _same_shape(t) and not np.isfinite(t.got[np.isfinite(t.expected)]).all()


def large_inputs(t, at_least=100.0):
    """True when some numeric input of the case is at least ``at_least`` in size."""
    sizes = [np.abs(a).max() for a in t.case.args if isinstance(a, np.ndarray) and a.size]
    return any(s >= at_least for s in sizes if np.issubdtype(type(s), np.number))


def nan_for_large_scores():
    """NaN or inf where the reference is finite, only on cases with large inputs, and right on
    every other case (a sum over the wrong axis that also gives NaN is another slip)."""

    def test(trials):  # right everywhere else: the shift alone is wrong
        failing = _failing(trials)
        return bool(failing) and all(_non_finite(t) and large_inputs(t) for t in failing)

    return Diagnosis("nan-large-scores", test)


def batch_only(name):
    """Fires when every unbatched case is right and a batched case is wrong."""

    def test(trials):
        plain = [t for t in trials if not t.case.batched]
        return bool(plain) and all(t.ok for t in plain) and not all(t.ok for t in trials)

    return Diagnosis(name, test)


def _behaves_like(t, alt):
    """The answer does what ``alt`` does on the case: the same numbers, or the same error."""
    try:
        value = alt(*t.case.args)
    except Exception as err:
        return type(t.error) is type(err) and str(t.error) == str(err)
    return t.matches(value)


def wrong_on_batch(name, how, alt=None):
    """Right on every unbatched case, wrong on a batch, and every wrong batched trial ``t``
    passes ``how(t)`` (the slip's own numbers or its own error); with ``alt`` (the slip's
    computation), a batched case the answer gets right must be one the slip gets right too
    (code right on (B, S, E) and wrong with heads is another slip than `.T`)."""

    def slip_also_right(t):
        try:
            return t.matches(alt(*t.case.args))
        except Exception:
            return False

    def test(trials):
        plain = [t for t in trials if not t.case.batched]
        batched = [t for t in trials if t.case.batched and not t.ok]
        right = [t for t in trials if t.case.batched and t.ok]
        return (
            bool(plain)
            and all(t.ok for t in plain)
            and bool(batched)
            and all(how(t) for t in batched)
            and (alt is None or all(slip_also_right(t) for t in right))
        )

    return Diagnosis(name, test)


def kT_on_batch(alt):
    """`.T` on a batched array: right for one (S, E) matrix, and on a batch doing what ``alt``
    (the computation written with `.T`) does — the same numbers or the same error."""
    return wrong_on_batch("kT-on-batch", lambda t: _behaves_like(t, alt), alt)


def masked_rows(t):
    """The fully masked rows of a case whose args are (scores, mask)."""
    mask = np.asarray(t.case.args[1], dtype=bool)
    return ~np.broadcast_to(mask, t.expected.shape).any(axis=-1)


def masked_row_uniform():
    """A fully masked row gets 1/S each (the -1e9 trick) instead of zeros."""

    def test(trials):
        for t in _failing(trials):
            rows = masked_rows(t)
            if _same_shape(t) and rows.any():
                return bool(np.allclose(t.got[rows], 1.0 / t.expected.shape[-1], atol=1e-6))
        return False

    return Diagnosis("masked-row-uniform", test)


def _hidden_and_allowed(t):
    """(hidden, allowed) keys of a (scores, mask) case, in rows that have both."""
    mask = np.broadcast_to(np.asarray(t.case.args[1], dtype=bool), t.expected.shape)
    mixed = (mask.any(axis=-1) & (~mask).any(axis=-1))[..., None]
    return ~mask & mixed, mask & mixed


def _weights_hidden_keys(t):
    return _same_shape(t) and bool((np.abs(t.got[_hidden_and_allowed(t)[0]]) > 1e-9).any())


def masked_key_weighted():
    """The mask read the other way round: hidden keys get weight and allowed keys none."""

    def test(trials):
        failing = [t for t in _failing(trials) if _same_shape(t)]
        return any(_weights_hidden_keys(t) for t in failing) and all(
            np.allclose(t.got[_hidden_and_allowed(t)[1]], 0.0) for t in failing
        )

    return Diagnosis("masked-key-weighted", test)


def hidden_key_weighted():
    """A key the mask hides still gets weight (the convention read right)."""
    return Diagnosis(
        "hidden-key-weighted", lambda trials: any(_weights_hidden_keys(t) for t in _failing(trials))
    )


def not_finite():
    """NaN or inf where attn_core's numbers are finite, whatever the inputs."""
    return Diagnosis(
        "not-finite",
        lambda trials: any(_non_finite(t) for t in _failing(trials)),
        params=lambda trials: {
            "case": next(t for t in _failing(trials) if _non_finite(t)).case.label
        },
    )


def _raised_params(trials):
    t = next(t for t in trials if t.error is not None)
    said = safe_text(t.error, limit=120)
    said = "" if said == f"a {type(t.error).__name__}" else said
    return {"error": type(t.error).__name__, "case": t.case.label, "text": said}


def raised():
    """The reader's function raised on some case."""
    return Diagnosis("raised", lambda trials: any(t.error for t in trials), params=_raised_params)


def _wrong_shape_params(trials):
    t = next(t for t in _failing(trials) if t.got is not None and not _same_shape(t))
    return {"case": t.case.label, "got": t.got.shape, "expected": t.expected.shape}


def wrong_shape():
    """The answer has another shape than attn_core's."""
    return Diagnosis(
        "wrong-shape",
        lambda trials: any(t.got is not None and not _same_shape(t) for t in _failing(trials)),
        params=_wrong_shape_params,
    )


def _wrong_values_params(trials):
    t = _failing(trials)[0]
    return {"case": t.case.label, "err": f"{float(np.max(np.abs(t.got - t.expected))):.3g}"}


def wrong_values():
    """The catch-all: right shape, other numbers; says where and by how much."""
    return Diagnosis(
        "wrong-values", lambda trials: bool(_failing(trials)), params=_wrong_values_params
    )


# ---------------------------------------------------------------- rules for numbers by hand
# Each rule is (test(t, **params), message params(t, **params)) over the one trial t of a
# by-hand answer; attn-answers.js's RULES port them by the same names.


def listing(places, limit=4):
    """ "row 1; row 3", "row 1, column 2; row 2, column 1": at most ``limit`` places."""
    more = [text("more")] if len(places) > limit else []
    return text("place-separator").join(places[:limit] + more)


def _subject(indices, shape, limit=4, first=1):
    """ "entry 2 is", "entries 1 and 3 are": the places as the subject of a sentence, numbered
    from ``first`` (1, or 0 where the question numbers its slots from 0)."""
    if len(indices) > 1 and len(shape) != 2:
        nums = [", ".join(str(k + first) for k in i) for i in indices[:limit]]
        nums = nums if len(shape) == 1 else [f"({n})" for n in nums]
        nums += [text("more")] if len(indices) > limit else []
        places = text("entries", list=text("list-separator").join(nums[:-1]), last=nums[-1])
    else:
        places = listing([where(i, shape, first) for i in indices], limit)
    return text("is" if len(indices) == 1 else "are", places=places)


def tolerance_text(atol, rtol):
    """The tolerance a by-hand answer is checked to: ``|got - expected| <= atol + rtol·|expected|``.

    Examples
    --------
    >>> tolerance_text(2e-3, 1e-3), tolerance_text(0.5, 0.0)
    ('0.002 plus 0.1% of the value', '0.5')
    """
    if rtol == 0:
        return text("tolerance-absolute", atol=f"{atol:.3g}")
    return text("tolerance", atol=f"{atol:g}", percent=f"{rtol * 100:g}")


def _close(t, within=None):
    """Entry by entry: within the tolerance of the expected value, or within ``within``."""
    if within is None:
        within = t.atol + t.rtol * np.abs(t.expected)
    return np.abs(t.got - t.expected) <= within


def not_whole(got):
    """The flat indices of the entries of ``got`` that are not whole numbers."""
    return np.flatnonzero(got != np.round(got))


def refuse_non_whole(got):
    """Raise :class:`AnswerProblem` ``not-whole`` when an entry of a count is not whole.

    Examples
    --------
    >>> refuse_non_whole(np.array([8.0, 9.0]))
    >>> try:
    ...     refuse_non_whole(np.array([8.0, 9.5, 10.01]))
    ... except AnswerProblem as why:
    ...     print(why.message)  # doctest: +NORMALIZE_WHITESPACE
    a count or a size is a whole number, but entries 2 and 3 are not: recount rather than round, a
    fraction means a step went wrong.
    """
    off = not_whole(got)
    if off.size == 0:
        return
    if got.size == 1:
        raise AnswerProblem("not-whole", text("not-whole-1"))
    places = [tuple(int(k) for k in np.unravel_index(i, got.shape)) for i in off]
    raise AnswerProblem("not-whole", text("not-whole", subject=_subject(places, got.shape)))


def _wrong_count(t):
    return t.got.shape != t.expected.shape


def _wrong_count_params(t):
    got, want = t.got, t.expected
    if got.ndim <= 1 and want.ndim <= 1:
        return {
            "key": "wrong-count-1" if want.size == 1 else "wrong-count",
            "n": want.size,
            "got": got.size,
        }
    return {
        "key": "wrong-count-shape",
        "expected": shape_words(want.shape),
        "got": shape_words(got.shape),
    }


def shape_words(shape):
    """A shape as a reader writes it: ``3`` numbers, ``2 × 2``.

    >>> shape_words((3,)), shape_words((2, 2)), shape_words(())
    ('3', '2 × 2', '1')
    """
    return " × ".join(str(n) for n in shape) or "1"


def _fewer_decimals(t, decimals):
    """The answer is the right one rounded to fewer decimals than the question asks."""
    return _fewer_decimals_used(t, decimals) is not None


def _fewer_decimals_used(t, decimals):
    if not _same_shape(t):
        return None
    for k in range(decimals):
        if np.allclose(t.got, np.round(t.expected, k), rtol=0, atol=1e-9):
            return k
    return None


def _fewer_decimals_params(t, decimals):
    k = _fewer_decimals_used(t, decimals)
    key = {0: "fewer-decimals-0", 1: "fewer-decimals-1"}.get(k, "fewer-decimals")
    return {"key": key, "k": k, "asked": decimals}


def _rounding(t, within):
    """Every entry within ``within`` (a few units of the last asked decimal) of the answer."""
    return _same_shape(t) and bool(_close(t, within).all())


def _rounding_params(t, within):
    tolerance = tolerance_text(t.atol, t.rtol)
    if t.expected.size == 1:
        return {"key": "rounding-1", "tolerance": tolerance}
    off = [tuple(i) for i in np.argwhere(~_close(t))]
    return {"subject": _subject(off, t.expected.shape), "tolerance": tolerance}


def _wrong_order(t):
    if not _same_shape(t) or t.expected.size < 2:
        return False
    return bool(np.allclose(np.sort(t.got, axis=None), np.sort(t.expected, axis=None), atol=t.atol))


_FACTORS = (
    (2.0, "factor-2"),
    (0.5, "factor-0.5"),
    (math.sqrt(2), "factor-sqrt2"),
    (1 / math.sqrt(2), "factor-1/sqrt2"),
    (-1.0, "factor--1"),
)


def _named_factor(t):
    """The catalog key of a common factor ``got / expected`` (2, ½, √2, 1/√2, −1), or None."""
    if not np.any(np.abs(t.expected) > t.atol):
        return None
    for f, key in _FACTORS:
        if np.allclose(t.got, f * t.expected, atol=t.atol, rtol=max(t.rtol, 2e-3)):
            return key
    return None


#: A common factor within 5 % of 1 is imprecision (an answer 1 % off everywhere), not a scale slip.
MIN_FACTOR_GAP = 0.05


def _any_factor(t):
    """True when every entry is the expected one times the same factor (not 1)."""
    big = np.abs(t.expected) > 10 * t.atol
    if big.sum() < 2 or not np.allclose(t.got[~big], 0.0, atol=10 * t.atol):
        return False
    ratio = t.got[big] / t.expected[big]
    return bool(np.allclose(ratio, ratio[0], rtol=5e-3) and abs(ratio[0] - 1.0) >= MIN_FACTOR_GAP)


def _constant_factor(t):
    """Every entry off by one factor; not for a single number (that would give the answer)."""
    if not _same_shape(t) or t.expected.size < 2:
        return False
    return _named_factor(t) is not None or _any_factor(t)


def _constant_factor_params(t):
    key = _named_factor(t)
    if key == "factor--1":
        return {"key": "constant-factor-sign"}
    return {} if key is None else {"key": "constant-factor-named", "words": text(key)}


def _weights_like(expected):
    """True when ``expected`` is a row (or rows) of weights: ≥ 0 and summing to 1."""
    if expected.ndim == 0 or expected.shape[-1] < 2 or (expected < 0).any():
        return False
    return bool(np.allclose(expected.sum(axis=-1), 1.0, atol=1e-9))


def _off_rows(t):
    tol = 2 * t.atol * t.expected.shape[-1]  # rounding each entry to three decimals
    return np.abs(t.got.sum(axis=-1) - 1.0) > tol


def _not_summing(t):
    return _same_shape(t) and _weights_like(t.expected) and bool(_off_rows(t).any())


def _not_summing_params(t):
    sums = t.got.sum(axis=-1)
    if sums.ndim == 0:
        return {"key": "not-summing-to-1-1", "total": f"{float(sums):.3f}"}
    rows = [text("place-row", r=r + 1) for r in np.flatnonzero(_off_rows(t))]
    return {"rows": listing(rows)}


def _other(t, near=0.0, whole=False, first=1):
    return _same_shape(t)


def _other_params(t, near=0.0, whole=False, first=1):
    """Which entries are off (by position), too large or too small; never the numbers.

    An entry wrong by at most ``near`` (a few units of the last asked decimal; 0 for whole
    numbers) is "only just off" when every wrong entry is (a rounding slip, then, is likely);
    else each is too large or too small. A ``whole`` number is never off "by more than
    rounding". Places are numbered from ``first``."""
    if t.expected.size == 1:
        large = float(t.got.ravel()[0]) > float(t.expected.ravel()[0])
        key = "other-1-too-large" if large else "other-1-too-small"
        return {"key": key + ("-whole" if whole else "")}
    shape, close, wrong = t.expected.shape, _close(t, near), ~_close(t)
    if (wrong & ~close).any():  # one entry far off: the near ones are no rounding slip either
        close = np.zeros_like(close)
    far = [tuple(i) for i in np.argwhere(wrong & ~close)]
    near = [tuple(i) for i in np.argwhere(wrong & close)]
    parts = []
    for word, larger in (("other-too-large", True), ("other-too-small", False)):
        picked = [i for i in far if (t.got[i] > t.expected[i]) == larger]
        if picked:
            parts.append(text(word, subject=_subject(picked, shape, first=first)))
    if near:
        parts.append(text("other-near", subject=_subject(near, shape, first=first)))
    right = t.expected.size - len(far) - len(near)
    tail = "" if right == 0 else text("other-right-1" if right == 1 else "other-right-n")
    return {"parts": text("clause-separator").join(parts), "tail": tail}


def _ranked_but_off(t):
    """Weights that sum to 1 and rank the entries right, but are far off: an early slip."""
    if not _same_shape(t):
        return False
    sums_to_one = abs(float(t.got.sum()) - 1.0) < 3e-3
    same_order = (np.argsort(t.got) == np.argsort(t.expected)).all()
    return bool(sums_to_one and same_order and np.abs(t.got - t.expected).max() > 0.02)


def _entry_is(t, value):
    """The first entry equals ``value`` (relative tolerance ``t.rtol``)."""
    return t.got.size > 0 and math.isclose(float(t.got.ravel()[0]), value, rel_tol=t.rtol)


def _length_is(t, length, rel_tol):
    """A 2-vector whose length is ``length``."""
    return t.got.shape == (2,) and math.isclose(
        float(np.linalg.norm(t.got)), length, rel_tol=rel_tol
    )


def _too_long(t, length):
    return t.got.shape == (2,) and float(np.linalg.norm(t.got)) > length * (1 + 1e-3)


def _too_long_params(t, length):
    # four digits: a length of 2.004 must not read as the 2 allowed
    return {"norm": f"{float(np.linalg.norm(t.got)):.4g}", "length": f"{length:g}"}


def _smaller_divisor(t, of):
    """A whole number from 1 up to the answer that divides ``of``."""
    g, e = float(t.got.ravel()[0]), float(t.expected.ravel()[0])
    return t.got.size == 1 and g.is_integer() and 1 <= g < e and of % int(g) == 0


#: The rules a by-hand exercise may name: ``name -> (test, params or None)``.
NUMBER_RULES = {
    "wrong-count": (_wrong_count, _wrong_count_params),
    "fewer-decimals": (_fewer_decimals, _fewer_decimals_params),
    "rounding": (_rounding, _rounding_params),
    "wrong-order": (_wrong_order, None),
    "not-summing-to-1": (_not_summing, _not_summing_params),
    "constant-factor": (_constant_factor, _constant_factor_params),
    "other": (_other, _other_params),
    "ranked-but-off": (_ranked_but_off, None),
    "entry-is": (_entry_is, None),
    "length-is": (_length_is, None),
    "too-long": (_too_long, _too_long_params),
    "smaller-divisor": (_smaller_divisor, None),
}


def rule(name, diagnosis=None, **args):
    """The by-hand rule ``name`` (of :data:`NUMBER_RULES`) with its ``args``, as a Diagnosis.

    ``diagnosis`` names the diagnosis (and its text) when it differs from the rule's name.
    """
    test, params = NUMBER_RULES[name]
    return Diagnosis(
        diagnosis or name,
        lambda trials: test(trials[0], **args),
        params=None if params is None else (lambda trials: params(trials[0], **args)),
        site=lambda t: {"rule": name, **args},
    )


def generic_for_numbers(near=None, decimals=None):
    """The rules every by-hand answer gets, after its exercise's own, in this order.

    ``near``: how far an answer of real numbers may be and still be called a rounding slip
    (three units of the last asked decimal, say); None for whole numbers, which are never
    rounded. ``decimals``: how many the question asks (an answer rounded to fewer is told so).
    """
    return [
        rule("wrong-count"),
        *([] if not decimals else [rule("fewer-decimals", decimals=decimals)]),
        *([] if near is None else [rule("rounding", within=near)]),
        rule("wrong-order"),
        rule("not-summing-to-1"),
        rule("constant-factor"),
        rule("other", near=0.0, whole=True) if near is None else rule("other", near=near),
    ]
