"""Shared diagnoses of the common mistakes, for every chapter's exercises to reuse.

Each function returns a :class:`~attn_book.exercises.Diagnosis`: a name, a
one-line message (what is wrong, and where to look, never the solution) and a
test over the trials. Two families:

- *property* diagnoses look at the answer alone (rows that do not sum to 1,
  NaN where the reference is finite, a wrong shape);
- *imitation* diagnoses (:func:`matches`, :func:`factor`) recompute the answer
  the way the mistake would, with attn_core, and fire when the reader's answer
  equals it. That makes the diagnosis exact: "you scaled by d_model" fires only
  for an answer that really is the d_model-scaled one.

A wrong by-hand answer that no chapter diagnosis explains still gets a useful
line, from the generic ones tried in this order: :func:`wrong_count` (length or
shape), :func:`rounding` (close, but outside the tolerance: which entries),
:func:`wrong_order`, :func:`not_summing_to_one` (weights), :func:`constant_factor`
(2, ½, √2, 1/√2, −1 or any one factor) and :func:`off_entries` (which entries
are off, by position, too large or too small). None of them says the answer.

Examples
--------
>>> from attn_book.exercises.records import Case, Trial
>>> t = Trial(Case("two keys", ()), expected=np.array([0.5, 0.5]), got=np.array([1.0, 1.0]))
>>> rows_not_normalised().test([t])
True
>>> factor(2.0, "doubled", "twice too big.").test([t])
True
"""

from __future__ import annotations

import math

import numpy as np

from .records import Diagnosis
from .running import safe_text

__all__ = [
    "batch_only",
    "constant_factor",
    "factor",
    "forgot_scale",
    "heads_without_transpose",
    "kT_on_batch",
    "lost_axis",
    "masked_key_weighted",
    "masked_row_uniform",
    "matches",
    "matches_every",
    "nan_for_large_scores",
    "not_finite",
    "not_summing_to_one",
    "off_entries",
    "raised",
    "rounding",
    "rows_not_normalised",
    "scaled_by_d_model",
    "tolerance_text",
    "wrong_count",
    "wrong_order",
    "wrong_shape",
    "wrong_values",
]


def _rule(name, **params):
    """The ``site`` of a diagnosis ported to the site's JavaScript as the rule ``name``."""
    return lambda t: {"rule": name, **params}


def _failing(trials):
    """The trials whose answer did not match (in case order)."""
    return [t for t in trials if not t.ok]


def _same_shape(t):
    return t.got is not None and t.got.shape == t.expected.shape


def matches(name, message, alt, *, equal_nan=False):
    """Fires when a failing answer equals ``alt(*case.args)``: the mistake, recomputed.

    Parameters
    ----------
    name, message : str
    alt : callable
        Computes what the mistaken answer would be, from the case's inputs.
    equal_nan : bool
        NaN where the slip gives NaN counts as equal (a slip that overflows).
    """
    return Diagnosis(
        name,
        message,
        lambda trials: any(
            t.matches(alt(*t.case.args), equal_nan=equal_nan) for t in _failing(trials)
        ),
        site=lambda t: {"values": [alt(*t.case.args)]},
    )


def matches_every(name, message, alt, *, equal_nan=False):
    """Like :func:`matches`, but *every* failing answer must equal ``alt(*case.args)``.

    For a slip that coincides with another one on some case (the plain and the weighted
    mean of a row that averages to zero either way): it fires only when the whole answer
    is the slip, so it can be tried before the other one. No ``site``: use it in kernel
    exercises, whose answer box does not run diagnoses.
    """

    def test(trials):
        failing = _failing(trials)
        return bool(failing) and all(
            t.matches(alt(*t.case.args), equal_nan=equal_nan) for t in failing
        )

    return Diagnosis(name, message, test)


def factor(f, name, message):
    """Fires when a failing answer is the right one multiplied by ``f``."""
    return Diagnosis(
        name,
        message,
        lambda trials: any(t.matches(t.expected * f) for t in _failing(trials)),
        site=lambda t: {"values": [t.expected * f]},
    )


def forgot_scale(d_k, alt=None):
    """ "off by a factor √d_k — forgot the scale?", for scores (or, with ``alt``, weights)."""
    size = f"{d_k:g}" if isinstance(d_k, (int, float)) else d_k
    msg = f"off by a factor √{size} — forgot the scale 1/√{size}?"
    if alt is None:
        return factor(math.sqrt(d_k), "forgot-scale", msg)
    return matches("forgot-scale", f"these are the unscaled weights — {msg}", alt)


def scaled_by_d_model(alt):
    """ "you scaled by d_model, not d_head"; ``alt`` recomputes with 1/√d_model."""
    return matches(
        "scaled-by-d-model",
        "you scaled by √d_model, not √d_head — each head's scores use its own size "
        "d_head = d_model / n_heads.",
        alt,
    )


def heads_without_transpose(alt):
    """Heads made by a reshape alone; ``alt`` recomputes that way."""
    return matches(
        "heads-no-transpose",
        "your heads mix positions together: a reshape straight to (H, T, d_head) reads the "
        "numbers in the wrong order — reshape to (T, H, d_head) first, then swap two axes.",
        alt,
    )


def rows_not_normalised():
    """ "your rows do not sum to 1": a failing answer whose last axis does not sum to 1."""

    def test(trials):
        for t in _failing(trials):
            if _same_shape(t) and np.isfinite(t.got).all():
                expected_sums = t.expected.sum(axis=-1)
                if not np.allclose(t.got.sum(axis=-1), expected_sums, atol=1e-6):
                    return True
        return False

    return Diagnosis(
        "rows-not-normalised",
        "your rows do not sum to 1 — did you normalise along the right axis (the keys, axis=-1)?",
        test,
    )


def lost_axis():
    """A max or a sum along the keys without ``keepdims=True``, which then cannot broadcast."""

    def test(trials):
        return any(isinstance(t.error, ValueError) and "broadcast" in str(t.error) for t in trials)

    return Diagnosis(
        "lost-axis",
        "a max or a sum along axis=-1 drops that axis, so it no longer lines up with the "
        "scores (…, S) and the subtraction or division fails to broadcast — keep it with "
        "keepdims=True.",
        test,
    )


def _non_finite(t):
    """True when the answer has NaN or inf where attn_core's numbers are finite."""
    return _same_shape(t) and not np.isfinite(t.got[np.isfinite(t.expected)]).all()


def _large_inputs(t, at_least=100.0):
    """True when some numeric input of the case is at least ``at_least`` in size."""
    sizes = [np.abs(a).max() for a in t.case.args if isinstance(a, np.ndarray) and a.size]
    return any(s >= at_least for s in sizes if np.issubdtype(type(s), np.number))


def nan_for_large_scores():
    """NaN or inf where the reference is finite, and only on cases with large inputs.

    A naive ``exp`` overflows past 709; NaN on small inputs is another mistake
    (:func:`not_finite` reports it).
    """

    def test(trials):
        broken = [t for t in _failing(trials) if _non_finite(t)]
        return bool(broken) and all(_large_inputs(t) for t in broken)

    return Diagnosis(
        "nan-large-scores",
        "NaN (or inf) for large scores — e^1000 overflows, and a row far below one global "
        "maximum underflows to 0/0: subtract each row's own maximum (axis=-1, keepdims=True).",
        test,
    )


def batch_only(name, message):
    """Fires when every unbatched case is right and a batched case is wrong."""

    def test(trials):
        plain = [t for t in trials if not t.case.batched]
        return bool(plain) and all(t.ok for t in plain) and not all(t.ok for t in trials)

    return Diagnosis(name, message, test)


def kT_on_batch():
    """`k.T` on a batched array: right for one (S, E) matrix, wrong with a batch axis."""
    return batch_only(
        "kT-on-batch",
        "right for a single matrix but wrong for a batch (B, S, E): `.T` reverses *every* "
        "axis, batch included — transpose only the last two.",
    )


def _masked_rows(t):
    """The fully masked rows of a case whose args are (scores, mask)."""
    mask = np.asarray(t.case.args[1], dtype=bool)
    return ~np.broadcast_to(mask, t.expected.shape).any(axis=-1)


def masked_row_uniform():
    """A fully masked row gets 1/S each (the -1e9 trick) instead of zeros."""

    def test(trials):
        for t in _failing(trials):
            rows = _masked_rows(t)
            if _same_shape(t) and rows.any():
                s = t.expected.shape[-1]
                return bool(np.allclose(t.got[rows], 1.0 / s, atol=1e-6))
        return False

    return Diagnosis(
        "masked-row-uniform",
        "a row whose keys are all masked gets equal weights 1/S: it attends to padding. A "
        "large finite number like -1e9 is not -inf; such a row should get no weight at all.",
        test,
    )


def masked_key_weighted():
    """A key the mask forbids got weight, in a row that may attend somewhere."""

    def test(trials):
        for t in _failing(trials):
            mask = np.broadcast_to(np.asarray(t.case.args[1], dtype=bool), t.expected.shape)
            hidden = ~mask & ~_masked_rows(t)[..., None]  # fully masked rows are another story
            if _same_shape(t) and (np.abs(t.got[hidden]) > 1e-9).any():
                return True
        return False

    return Diagnosis(
        "masked-key-weighted",
        "a masked key still gets weight — here True means *may attend* (PyTorch's "
        "key_padding_mask uses the opposite convention).",
        test,
    )


def not_finite():
    """NaN or inf where attn_core's numbers are finite, whatever the inputs."""

    def message(trials):
        t = next(t for t in _failing(trials) if _non_finite(t))
        return (
            f"on the case '{t.case.label}' your result has NaN or inf where attn_core's "
            "numbers are all finite."
        )

    return Diagnosis(
        "not-finite", message, lambda trials: any(_non_finite(t) for t in _failing(trials))
    )


def raised():
    """The reader's function raised on some case."""

    def message(trials):
        t = next(t for t in trials if t.error is not None)
        text = safe_text(t.error, limit=120)
        text = "" if text == f"a {type(t.error).__name__}" else text
        return f"your function raised {type(t.error).__name__} on the case '{t.case.label}': {text}"

    return Diagnosis("raised", message, lambda trials: any(t.error for t in trials))


def wrong_shape():
    """The answer has another shape than attn_core's."""

    def message(trials):
        t = next(t for t in _failing(trials) if t.got is not None and not _same_shape(t))
        return (
            f"on the case '{t.case.label}' your result has shape {t.got.shape}, "
            f"but it should have shape {t.expected.shape}."
        )

    return Diagnosis(
        "wrong-shape",
        message,
        lambda trials: any(t.got is not None and not _same_shape(t) for t in _failing(trials)),
    )


def wrong_values():
    """The catch-all: right shape, other numbers; says where and by how much."""

    def message(trials):
        t = _failing(trials)[0]
        err = float(np.max(np.abs(t.got - t.expected)))
        return (
            f"on the case '{t.case.label}' your numbers differ from attn_core's by up to {err:.3g}."
        )

    return Diagnosis("wrong-values", message, lambda trials: bool(_failing(trials)))


def _where(index, shape):
    """A 1-based position a reader can find: "entry 2", or "row 1, column 3"."""
    if len(shape) <= 1:
        return f"entry {index[0] + 1}" if index else "your number"
    if len(shape) == 2:
        return f"row {index[0] + 1}, column {index[1] + 1}"
    return "entry (" + ", ".join(str(i + 1) for i in index) + ")"


def _listing(places, limit=4):
    """ "entry 1", "entries 1 and 3", "row 1, column 2; row 2, column 1", at most ``limit``."""
    if len(places) > 1 and all(p.startswith("entry ") for p in places):
        nums = [p.removeprefix("entry ") for p in places]
        shown = nums[:limit] + (["…"] if len(nums) > limit else [])
        return "entries " + (", ".join(shown[:-1]) + " and " + shown[-1])
    shown = places[:limit] + (["…"] if len(places) > limit else [])
    return "; ".join(shown)


def _subject(indices, shape):
    """ "entry 2 is", "entries 1 and 3 are": the places as the subject of a sentence."""
    verb = "is" if len(indices) == 1 else "are"
    return f"{_listing([_where(i, shape) for i in indices])} {verb}"


def _by_hand(trials):
    """The one trial of a by-hand answer when it is numeric and has the right shape."""
    t = trials[0]
    return t if _same_shape(t) else None


def wrong_count():
    """By hand: a list of the wrong length (or a number where a list is due)."""

    def message(trials):
        got, want = trials[0].got, trials[0].expected
        if got.ndim <= 1 and want.ndim <= 1:
            n_got, n_want = got.size, want.size
            return f"expected {n_want} number{'s' * (n_want != 1)}, got {n_got}."
        return f"expected an array of shape {want.shape}, got shape {got.shape}."

    return Diagnosis(
        "wrong-count",
        message,
        lambda trials: trials[0].got.shape != trials[0].expected.shape,
        site=_rule("wrong-count"),
    )


def tolerance_text(atol, rtol):
    """The tolerance a by-hand answer is checked to, as the check applies it.

    An entry passes when ``|got - expected| <= atol + rtol * |expected|`` (numpy's
    ``isclose``), so the text names both parts.

    Examples
    --------
    >>> tolerance_text(2e-3, 1e-3), tolerance_text(0.5, 0.0)
    ('0.002 plus 0.1% of the value', '0.5')
    """
    if rtol == 0:
        return f"{atol:g}"
    return f"{atol:g} plus {rtol * 100:g}% of the value"


def _close(t, within):
    """Entry by entry: within ``within`` × the tolerance of the expected value."""
    tol = within * (t.atol + t.rtol * np.abs(t.expected))
    return np.abs(t.got - t.expected) <= tol


def rounding(within=10.0):
    """By hand: close to the answer (within ``within`` × the tolerance) but not close enough."""

    def message(trials):
        t = trials[0]
        off = [tuple(i) for i in np.argwhere(~_close(t, 1.0))]
        lead = (
            "close, but not"
            if t.expected.size == 1
            else f"close, but {_subject(off, t.expected.shape)} not"
        )
        tolerance = tolerance_text(t.atol, t.rtol)
        return (
            f"{lead} within the tolerance ({tolerance}) — keep three decimals at every step "
            "and round only at the end."
        )

    def test(trials):
        t = _by_hand(trials)
        return t is not None and bool(_close(t, within).all())

    return Diagnosis("rounding", message, test, site=_rule("rounding", within=within))


def wrong_order():
    """By hand: the right numbers, in another order."""

    def test(trials):
        t = _by_hand(trials)
        if t is None or t.expected.size < 2:
            return False
        same = np.allclose(np.sort(t.got, axis=None), np.sort(t.expected, axis=None), atol=t.atol)
        return bool(same)

    return Diagnosis(
        "wrong-order",
        "the right numbers, in the wrong order — keep the order of the keys (or rows) as given.",
        test,
        site=_rule("wrong-order"),
    )


_FACTORS = (
    (2.0, "2 times too large"),
    (0.5, "half the right size"),
    (math.sqrt(2), "√2 times too large"),
    (1 / math.sqrt(2), "√2 times too small"),
    (-1.0, "the right size with the sign flipped"),
)


def _named_factor(t):
    """The description of a common factor ``got / expected`` (2, ½, √2, 1/√2, −1), or None."""
    if not np.any(np.abs(t.expected) > t.atol):
        return None
    for f, words in _FACTORS:
        if np.allclose(t.got, f * t.expected, atol=t.atol, rtol=max(t.rtol, 2e-3)):
            return words
    return None


def _any_factor(t):
    """True when every entry is the expected one times the same factor (not 1)."""
    big = np.abs(t.expected) > 10 * t.atol
    if big.sum() < 2 or not np.allclose(t.got[~big], 0.0, atol=10 * t.atol):
        return False
    ratio = t.got[big] / t.expected[big]
    return bool(np.allclose(ratio, ratio[0], rtol=5e-3) and not np.isclose(ratio[0], 1.0))


def constant_factor():
    """By hand: every entry off by one factor: 2, ½, √2, 1/√2, −1 named, any other unnamed.

    Not for a single number, where naming the factor would give the answer away.
    """

    def message(trials):
        t = trials[0]
        words = _named_factor(t)
        if words is not None:
            return (
                f"every number is {words} — look for a step that multiplies or divides "
                "once too often."
            )
        return (
            "every number is off by the same factor — the steps are right, but a scale "
            "(a multiplication or a division) is wrong or missing."
        )

    def test(trials):
        t = _by_hand(trials)
        if t is None or t.expected.size < 2:  # one number: the factor would be the answer
            return False
        return _named_factor(t) is not None or _any_factor(t)

    return Diagnosis("constant-factor", message, test, site=_rule("constant-factor"))


def _weights_like(expected):
    """True when ``expected`` is a row (or rows) of weights: ≥ 0 and summing to 1."""
    if expected.ndim == 0 or expected.shape[-1] < 2 or (expected < 0).any():
        return False
    return bool(np.allclose(expected.sum(axis=-1), 1.0, atol=1e-9))


def not_summing_to_one():
    """By hand: weights (the expected ones sum to 1) that do not sum to 1."""

    def message(trials):
        t = trials[0]
        sums = t.got.sum(axis=-1)
        if sums.ndim == 0:
            said = f"your weights sum to {float(sums):.3f}, not 1"
        else:
            rows = np.flatnonzero(np.abs(sums - 1.0) > 2 * t.atol * t.expected.shape[-1])
            said = "the weights of " + _listing([f"row {r + 1}" for r in rows]) + " do not sum to 1"
        return f"{said} — each weight is its exponential divided by the total of them all."

    def test(trials):
        t = _by_hand(trials)
        if t is None or not _weights_like(t.expected):
            return False
        tol = 2 * t.atol * t.expected.shape[-1]  # rounding each entry to three decimals
        return bool((np.abs(t.got.sum(axis=-1) - 1.0) > tol).any())

    return Diagnosis("not-summing-to-1", message, test, site=_rule("not-summing-to-1"))


def off_entries():
    """By hand, the last word: which entries are off (by position), too large or too small.

    Named ``"other"``: it fires for any wrong answer of the right shape and
    never says what the right numbers are.
    """

    def message(trials):
        t = trials[0]
        shape, close = t.expected.shape, _close(t, 10.0)
        wrong = ~_close(t, 1.0)
        far = [tuple(i) for i in np.argwhere(wrong & ~close)]
        near = [tuple(i) for i in np.argwhere(wrong & close)]
        if t.expected.size == 1:
            side = (
                "too large"
                if float(t.got.ravel()[0]) > float(t.expected.ravel()[0])
                else "too small"
            )
            return f"your number is {side}, by more than rounding — redo the steps one by one."
        parts = []
        for group, word in ((far, "too large"), (far, "too small")):
            picked = [i for i in group if (t.got[i] > t.expected[i]) == (word == "too large")]
            if picked:
                parts.append(f"{_subject(picked, shape)} {word}")
        if near:
            parts.append(f"{_subject(near, shape)} only just off (a rounding slip?)")
        right = t.expected.size - len(far) - len(near)
        tail = {0: "", 1: "; the other one is right"}.get(right, "; the others are right")
        return "; ".join(parts) + tail + "."

    def test(trials):
        return _by_hand(trials) is not None and not trials[0].ok

    return Diagnosis("other", message, test, site=_rule("other"))
