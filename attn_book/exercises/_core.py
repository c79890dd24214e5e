"""The checking engine: feedback, trials, diagnoses, the three exercise kinds, the registry."""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
import unicodedata
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "Case",
    "ChoiceExercise",
    "Diagnosis",
    "Exercise",
    "Feedback",
    "FunctionExercise",
    "Mistake",
    "NumberExercise",
    "Trial",
    "all_exercises",
    "get",
]

_ICONS = {"correct": "✓ Correct", "wrong": "✗ Not yet", "unanswered": "… Not answered yet"}


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

    Examples
    --------
    >>> Feedback("wrong", "your rows do not sum to 1.", "rows-not-normalised")
    ✗ Not yet: your rows do not sum to 1.
    """

    status: str
    message: str
    diagnosis: str | None = None

    @property
    def ok(self):
        """True when the answer is correct."""
        return self.status == "correct"

    def __repr__(self):
        return f"{_ICONS[self.status]}: {self.message}"

    def _repr_markdown_(self):
        return f"**{_ICONS[self.status]}:** {self.message}"


@dataclass(frozen=True)
class Diagnosis:
    """A named common mistake: ``test(trials)`` is True when the answer shows it.

    ``message`` says *what* is wrong and hints at the fix, without the solution.
    """

    name: str
    message: str | Callable[[list[Trial]], str]
    test: Callable[[list[Trial]], bool]

    def describe(self, trials):
        """The message, filled in from the trials when ``message`` is a callable."""
        return self.message(trials) if callable(self.message) else self.message


@dataclass(frozen=True)
class Mistake:
    """A wrong answer an exercise claims to diagnose, as ``diagnosis`` (a Diagnosis name)."""

    name: str
    answer: Any
    diagnosis: str


@dataclass(frozen=True)
class Case:
    """One input of a write-the-function check: ``fn(*args)`` on a labelled case."""

    label: str
    args: tuple
    batched: bool = False


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

    def matches(self, value):
        """True if the answer ``got`` equals ``value`` (same shape, within tolerance)."""
        if self.got is None:
            return False
        value = np.asarray(value, dtype=float)
        if self.got.shape != value.shape:
            return False
        return bool(np.allclose(self.got, value, rtol=self.rtol, atol=self.atol))

    @property
    def ok(self):
        """True if the answer matched on this case."""
        return self.matches(self.expected)


class _Unanswered(Exception):
    """The reader has not answered yet (``...``, None, NotImplementedError)."""


_REGISTRY: dict[str, Exercise] = {}


class Exercise:
    """Base class: an ``id``, a ``title``, ``check(answer) -> Feedback``, ``mistakes``.

    Subclasses implement ``_trials(answer)``; the base class runs the
    diagnoses in order and turns the first that fires into the feedback.

    Parameters
    ----------
    id : str
        Unique across the book, e.g. ``"ch1-scores-by-hand"``.
    title : str
        Short; it appears in the "correct" line.
    diagnoses : list of Diagnosis
        Tried in order before the generic ones; the first that fires is reported.
    mistakes : list of Mistake
        Wrong answers with the diagnosis each must get; every diagnosis needs one.
    solution : object
        A correct answer (tests check that it passes); never printed by ``check``.
    inputs : tuple
        The data of the question, for the chapter to print or glue.
    register : bool, default True
        Add to the registry that ``all_exercises()`` returns.
    """

    kind = "exercise"

    def __init__(
        self, id, title, *, diagnoses=(), mistakes=(), solution=None, inputs=(), register=True
    ):
        self.id, self.title, self.inputs = id, title, tuple(inputs)
        self.diagnoses: list[Diagnosis] = list(diagnoses)
        self.mistakes: list[Mistake] = list(mistakes)
        self.solution = solution  # a correct answer, for the tests; never printed by check()
        self.module = _caller_module()
        if register:  # False for a throwaway exercise (doctests, experiments)
            _register(self)

    def check(self, answer):
        """Check ``answer`` and return a :class:`Feedback`; never raises for a bad answer."""
        try:
            trials = self._trials(answer)
        except _Unanswered as why:
            return Feedback("unanswered", str(why), "unanswered")
        except _Wrong as why:
            return Feedback("wrong", why.message, why.name)
        if all(t.ok for t in trials):
            return Feedback("correct", self._praise())
        for diag in self.diagnoses + self._generic():
            if _fires(diag, trials):
                return Feedback("wrong", diag.describe(trials), diag.name)
        return Feedback("wrong", "that is not it yet; compare with the text above.", "other")

    def _praise(self):
        return f"{self.title}."

    def _generic(self):
        return []

    def _trials(self, answer):  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self):
        return f"<{self.kind} {self.id!r}: {self.title}>"


def _fires(diag, trials):
    """Run one diagnosis; a diagnosis that itself fails simply does not fire."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return bool(diag.test(trials))
    except Exception:
        return False


def _caller_module():
    """The module that built the exercise: the first frame outside this file."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back
    return "__main__" if frame is None else frame.f_globals.get("__name__", "__main__")


def _register(ex):
    old = _REGISTRY.get(ex.id)
    if old is not None and old.module != ex.module:
        raise ValueError(f"exercise id {ex.id!r} is used twice: in {old.module} and in {ex.module}")
    _REGISTRY[ex.id] = ex


def get(id):
    """Return the registered exercise ``id`` (imports every exercise module first)."""
    exercises = {ex.id: ex for ex in all_exercises()}
    if id not in exercises:
        raise KeyError(f"no exercise {id!r}; known: {sorted(exercises)}")
    return exercises[id]


def all_exercises():
    """Every registered exercise, after importing each module of ``attn_book.exercises``."""
    package = importlib.import_module(__package__)
    for info in pkgutil.iter_modules(package.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__package__}.{info.name}")
    return sorted(_REGISTRY.values(), key=lambda ex: (ex.module, ex.id))


def _is_unanswered(answer):
    return answer is Ellipsis or answer is None


class _Wrong(Exception):
    """The answer has the wrong type: a named diagnosis with its message."""

    def __init__(self, name, message):
        super().__init__(message)
        self.name, self.message = name, message


def _as_numbers(answer):
    """``answer`` as a float array, or raise _Wrong with a friendly message."""
    try:
        return np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        kind = type(answer).__name__
        raise _Wrong(
            "not-numeric", f"your answer should be a number or a list of numbers, not a {kind}."
        ) from None


def _call(fn, args):
    """Call the reader's ``fn(*args)`` quietly: (float array or None, exception or None)."""
    args = tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(*args)
    except NotImplementedError:
        raise _Unanswered(_UNANSWERED_FN) from None
    except Exception as err:
        return None, err
    if out is None or out is Ellipsis:
        raise _Unanswered(_UNANSWERED_FN)
    try:
        return np.asarray(out, dtype=float), None
    except (TypeError, ValueError) as err:
        return None, err


_UNANSWERED_FN = (
    "write the body of your function (in place of the `...` or the `raise NotImplementedError`) "
    "and run the cell again."
)
_UNANSWERED_VALUE = "replace the `...` with your answer and run the cell again."


class NumberExercise(Exercise):
    """By-hand arithmetic: the answer is a number or an array, checked numerically.

    Parameters
    ----------
    id, title : str
    inputs : tuple
        The data the reader works from; ``reference(*inputs)`` gives the answer
        (computed by attn_core), and diagnoses see ``inputs`` as ``trial.case.args``.
    reference : callable
    atol, rtol : float
        Suited to 3-decimal hand work by default.
    diagnoses, mistakes, solution
        See :class:`Exercise`.

    Examples
    --------
    >>> import attn_core as ac
    >>> ex = NumberExercise("doc-seed-scores", "the seed's scores", ac.seed_example()[:2],
    ...                     ac.dot_scores, register=False)
    >>> ex.check([1, 0, 1])
    ✓ Correct: the seed's scores (checked to within 0.002).
    >>> ex.check([1, 0])
    ✗ Not yet: expected 3 numbers, got 2.
    """

    kind = "by hand"

    def __init__(self, id, title, inputs, reference, *, atol=2e-3, rtol=1e-3, **kw):
        self.reference, self.atol, self.rtol = reference, atol, rtol
        super().__init__(id, title, inputs=inputs, **kw)

    def expected(self):
        """The reference answer (for tests and the solution cell, never printed by check)."""
        return np.asarray(self.reference(*self.inputs), dtype=float)

    def _trials(self, answer):
        if _is_unanswered(answer):
            raise _Unanswered(_UNANSWERED_VALUE)
        got = _as_numbers(answer)
        case = Case("your answer", self.inputs)
        return [Trial(case, self.expected(), got, None, self.rtol, self.atol)]

    def _generic(self):
        from . import diagnose

        return [
            diagnose.wrong_count(),
            diagnose.rounding(),
            diagnose.wrong_order(),
            diagnose.not_summing_to_one(),
            diagnose.constant_factor(),
            diagnose.off_entries(),
        ]

    def _praise(self):
        return f"{self.title} (checked to within {self.atol:g})."


class FunctionExercise(Exercise):
    """Write-the-function (and find-the-bug): the answer is a function, run on many cases.

    Parameters
    ----------
    id, title : str
    reference : callable
        The attn_core computation the reader's function must match.
    cases : callable returning a list of Case
        Inputs, including awkward ones (a batch axis, huge logits, a masked key).
    diagnoses, mistakes, solution
        See :class:`Exercise`.

    Examples
    --------
    >>> import attn_core as ac
    >>> cases = lambda: [Case("two rows", (np.array([[0.0, 1000.0], [1.0, 1.0]]),))]
    >>> ex = FunctionExercise("doc-softmax", "softmax", ac.softmax, cases, register=False)
    >>> ex.check(lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True)).diagnosis
    'nan-large-scores'
    """

    kind = "write the function"

    def __init__(self, id, title, reference, cases, *, rtol=1e-5, atol=1e-7, **kw):
        self.reference, self._cases = reference, cases
        self.rtol, self.atol = rtol, atol
        super().__init__(id, title, **kw)

    def cases(self):
        """The list of :class:`Case` the answer is run on."""
        return list(self._cases())

    def _trials(self, answer):
        if _is_unanswered(answer):
            raise _Unanswered(_UNANSWERED_FN)
        if not callable(answer):
            kind = type(answer).__name__
            raise _Wrong(
                "not-a-function", f"pass your function itself (no brackets), not a {kind}."
            )
        trials = []
        for case in self.cases():
            expected = np.asarray(self.reference(*case.args), dtype=float)
            got, err = _call(answer, case.args)
            trials.append(Trial(case, expected, got, err, self.rtol, self.atol))
        return trials

    def _generic(self):
        from . import diagnose

        return [
            diagnose.raised(),
            diagnose.wrong_shape(),
            diagnose.nan_for_large_scores(),
            diagnose.wrong_values(),
        ]

    def _praise(self):
        return f"{self.title}: matches attn_core on all {len(self.cases())} cases."


class ChoiceExercise(Exercise):
    """Predict-then-run: the answer is one of ``options``.

    Parameters
    ----------
    id, title : str
    options : sequence of str
    answer : str
        The right option (hidden).
    why_not : dict
        For each wrong option, a hint that says why it loses, not which wins.
    """

    kind = "predict then run"

    def __init__(self, id, title, options: Sequence[str], answer, why_not, **kw):
        self.options, self._answer = [str(o) for o in options], str(answer)
        self._by_key = {_choice_key(o): o for o in self.options}
        if len(self._by_key) != len(self.options):
            raise ValueError(f"options {self.options} must differ after normalising case and ×")
        diagnoses = [
            Diagnosis(f"chose-{opt}", msg, lambda trials, opt=opt: trials[0].got == opt)
            for opt, msg in why_not.items()
        ]
        mistakes = [Mistake(f"answers {opt}", opt, f"chose-{opt}") for opt in why_not]
        super().__init__(id, title, diagnoses=diagnoses, mistakes=mistakes, solution=answer, **kw)

    def _trials(self, answer):
        if _is_unanswered(answer):
            raise _Unanswered(_UNANSWERED_VALUE)
        typed = str(answer).strip().strip("\"'")
        pick = self._by_key.get(_choice_key(typed))
        if pick is None:
            choices = ", ".join(map(repr, self.options))
            raise _Wrong("not-an-option", f"answer with one of {choices}, not {typed!r}.")
        return [_ChoiceTrial(pick == self._answer, pick)]

    def _praise(self):
        return f"{self.title}: now run the next cell and see it happen."


_TIMES = re.compile(r"(?<![a-z])[x*·](?=\s*[\d√.(]|\s*sqrt)")
_SQRT = re.compile(r"sqrt\s*\(?\s*([\d.]+)\s*\)?")


def _choice_key(text):
    """A typed option, normalised: case, spaces, quotes and "x" "*" "·" for "×", "sqrt2" for "√2".

    Examples
    --------
    >>> [_choice_key(t) for t in ("×√2", " X√2 ", "x sqrt(2)", "*√2", "Down", "'up'")]
    ['×√2', '×√2', '×√2', '×√2', 'down', 'up']
    """
    text = unicodedata.normalize("NFKC", str(text)).strip().strip("\"'`").strip().lower()
    text = _SQRT.sub(r"√\1", _TIMES.sub("×", text))
    return re.sub(r"\s+", "", text).rstrip(".")


@dataclass
class _ChoiceTrial:
    ok: bool
    got: str
    case: Case = field(default_factory=lambda: Case("your choice", ()))
