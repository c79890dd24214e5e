"""Shared diagnoses of the common mistakes, for every chapter's exercises to reuse.

Each function returns a :class:`~attn_core.exercises.Diagnosis`: a name, a
one-line message (what is wrong, and where to look, never the solution) and a
test over the trials. Two families:

- *property* diagnoses look at the answer alone (rows that do not sum to 1,
  NaN where the reference is finite, a wrong shape);
- *imitation* diagnoses (:func:`matches`, :func:`factor`) recompute the answer
  the way the mistake would, with attn_core, and fire when the reader's answer
  equals it. That makes the diagnosis exact: "you scaled by d_model" fires only
  for an answer that really is the d_model-scaled one.

Examples
--------
>>> from attn_core.exercises import Case, Trial
>>> t = Trial(Case("two keys", ()), expected=np.array([0.5, 0.5]), got=np.array([1.0, 1.0]))
>>> rows_not_normalised().test([t])
True
>>> factor(2.0, "doubled", "twice too big.").test([t])
True
"""

from __future__ import annotations

import math

import numpy as np

from ._core import Diagnosis

__all__ = [
    "batch_only",
    "factor",
    "forgot_scale",
    "heads_without_transpose",
    "kT_on_batch",
    "masked_key_weighted",
    "masked_row_uniform",
    "matches",
    "nan_for_large_scores",
    "raised",
    "rounding",
    "rows_not_normalised",
    "scaled_by_d_model",
    "wrong_count",
    "wrong_shape",
    "wrong_values",
]


def _failing(trials):
    """The trials whose answer did not match (in case order)."""
    return [t for t in trials if not t.ok]


def _same_shape(t):
    return t.got is not None and t.got.shape == t.expected.shape


def matches(name, message, alt):
    """Fires when a failing answer equals ``alt(*case.args)``: the mistake, recomputed.

    Parameters
    ----------
    name, message : str
    alt : callable
        Computes what the mistaken answer would be, from the case's inputs.
    """
    return Diagnosis(
        name, message, lambda trials: any(t.matches(alt(*t.case.args)) for t in _failing(trials))
    )


def factor(f, name, message):
    """Fires when a failing answer is the right one multiplied by ``f``."""
    return Diagnosis(
        name, message, lambda trials: any(t.matches(t.expected * f) for t in _failing(trials))
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


def nan_for_large_scores():
    """NaN or inf where the reference is finite (the naive exp overflowed)."""

    def test(trials):
        return any(
            _same_shape(t) and not np.isfinite(t.got[np.isfinite(t.expected)]).all()
            for t in _failing(trials)
        )

    return Diagnosis(
        "nan-large-scores",
        "NaN (or inf) for large scores — e^1000 overflows: subtract the max first.",
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


def raised():
    """The reader's function raised on some case."""

    def message(trials):
        t = next(t for t in trials if t.error is not None)
        text = str(t.error).splitlines()[0][:120] if str(t.error) else ""
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


def wrong_count():
    """By hand: a list of the wrong length (or a number where a list is due)."""

    def message(trials):
        n_got, n_want = trials[0].got.size, trials[0].expected.size
        return f"expected {n_want} number{'s' * (n_want != 1)}, got {n_got}."

    return Diagnosis(
        "wrong-count", message, lambda trials: trials[0].got.shape != trials[0].expected.shape
    )


def rounding(within=10.0):
    """By hand: close to the answer (within ``within`` × the tolerance) but not close enough."""

    def test(trials):
        t = trials[0]
        return bool(np.allclose(t.got, t.expected, atol=within * t.atol, rtol=within * t.rtol))

    return Diagnosis(
        "rounding",
        "close, but not within the tolerance — keep three decimals at every step and "
        "round only at the end.",
        test,
    )
