"""The records every part of the exercises shares: Case, Trial, Diagnosis, Feedback.

The checker (:mod:`.kinds`), the shared diagnoses (:mod:`.diagnose`) and the
chapters' modules all import from here, and this module imports nothing of
theirs, so there is no import cycle.

Examples
--------
>>> Case("two keys", (np.zeros(2),), batched=True).batched
True
>>> Feedback("wrong", "your rows do not sum to 1.", "rows-not-normalised")
✗ Not yet: your rows do not sum to 1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .catalog import text

__all__ = ["Case", "Diagnosis", "Feedback", "Trial"]

_STATUSES = ("correct", "wrong", "unanswered")


@dataclass(frozen=True)
class Feedback:
    """The one-line verdict of a check.

    Attributes
    ----------
    status : {"correct", "wrong", "unanswered"}
    message : str
        One friendly sentence; never contains the solution.
    diagnosis : str or None
        The name of the :class:`Diagnosis` that fired (``None`` when correct).
    """

    status: str
    message: str
    diagnosis: str | None = None

    def __post_init__(self):
        if self.status not in _STATUSES:
            raise ValueError(
                f"status must be one of {sorted(_STATUSES)}, got {self.status!r} "
                f"(message {self.message!r})"
            )

    @property
    def ok(self):
        """True when the answer is correct."""
        return self.status == "correct"

    def __repr__(self):
        return f"{text('icon-' + self.status)}: {self.message}"

    def _repr_markdown_(self):
        return f"**{text('icon-' + self.status)}:** {self.message}"


@dataclass(frozen=True)
class Case:
    """One input of a write-the-function check: ``fn(*args)`` on a labelled case.

    Parameters
    ----------
    label : str
        Named in the feedback ("on the case '…'").
    args : tuple
        The arguments; the reader's function gets copies.
    batched : bool, keyword-only, default False
        The case has a leading batch axis (the ``k.T`` diagnosis compares the two kinds).
    translated : bool, keyword-only, default False
        The label is already in the reader's language (a generated case's, from the
        catalog's ``engine/case-*``); else it is English, the key ``<exercise id>/case: <label>``
        of ``messages.pot``, and the checker shows its translation.
    """

    label: str
    args: tuple
    batched: bool = field(default=False, kw_only=True)
    translated: bool = field(default=False, kw_only=True)


@dataclass
class Trial:
    """The reader's answer on one case, beside the expected value.

    ``got`` is a float array (None if the answer raised or was not numeric),
    ``error`` the exception raised, if any.
    """

    case: Case
    expected: np.ndarray
    got: np.ndarray | None = None
    error: BaseException | None = None
    rtol: float = 1e-5
    atol: float = 1e-7

    def matches(self, value, equal_nan=False):
        """True if the answer ``got`` equals ``value`` (same shape, within tolerance)."""
        if self.got is None:
            return False
        value = np.asarray(value, dtype=float)
        if self.got.shape != value.shape:
            return False
        return bool(
            np.allclose(self.got, value, rtol=self.rtol, atol=self.atol, equal_nan=equal_nan)
        )

    @property
    def ok(self):
        """True if the answer matched on this case."""
        return self.matches(self.expected)


@dataclass(frozen=True)
class Diagnosis:
    """A named common mistake: ``test(trials)`` is True when the answer shows it.

    Its message is the catalog's text ``name`` for the exercise (:mod:`.catalog`): *what* is
    wrong and a hint at the fix, never the solution. ``params(trials)`` (keyword-only,
    optional) fills the text's template; a ``"key"`` among them picks another text (a
    variant, such as the singular).

    ``site`` (keyword-only, optional) lets the static site's answer box run the same
    diagnosis without a kernel: given the exercise's one trial, it returns a JSON-able
    dict, either ``{"values": [v, ...]}`` (fires when the answer equals one of them,
    recomputed here from the inputs) or ``{"rule": name, ...params}`` naming one of the
    generic rules of ``site/static/attn-answers.js``. See :mod:`attn_book.exercises.site`.

    ``slip`` (keyword-only) marks a diagnosis that recomputes the slip (:func:`.diagnose.matches`,
    :func:`.diagnose.factor`): the tests give each a typed near miss that must not fire it.
    """

    name: str
    test: Callable[[list[Trial]], bool]
    params: Callable[[list[Trial]], dict] | None = field(default=None, kw_only=True, compare=False)
    site: Callable[[Trial], dict] | None = field(default=None, kw_only=True, compare=False)
    slip: bool = field(default=False, kw_only=True, compare=False)

    def describe(self, trials, exercise=None):
        """The message for ``exercise``, filled in from the trials."""
        params = dict(self.params(trials)) if self.params else {}
        return text(params.pop("key", self.name), exercise, **params)
