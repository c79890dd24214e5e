"""The checker: one entry point, ``Exercise.check``, and the four kinds of exercise.

``check`` never raises and never hangs: the reader's function runs with a time
limit (:data:`TIME_LIMIT` seconds per check) on copies of the inputs, and any
problem, ours included, comes back as one line of :class:`Feedback`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import inspect
import math
import os
import pkgutil
import re
import sys
import textwrap
import threading
import time
import unicodedata
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import attn_core as ac

from . import diagnose
from .catalog import catalog, text
from .records import Case, Diagnosis, Feedback, Trial
from .running import (
    AnswerProblem,
    TimeLimitExceeded,
    does_nothing,
    frozen_copy,
    non_finite_entries,
    read_numbers,
    reader_copy,
    run_with_time_limit,
    safe_text,
)

__all__ = [
    "TIME_LIMIT",
    "BugExercise",
    "Case",
    "ChoiceExercise",
    "Code",
    "DesignExercise",
    "Diagnosis",
    "Exercise",
    "Feedback",
    "FunctionExercise",
    "NumberExercise",
    "Trial",
    "all_exercises",
    "chapter_modules",
    "get",
]

TIME_LIMIT = 5.0  # seconds for all the calls of one check
#: A float32 result is judged to 1 %: float32 keeps about 7 significant digits, and on the
#: large-score cases (scores up to 2·10⁴) a correct float32 implementation is off by up to
#: 7·10⁻³; every slip the book names is further off than that (the near-miss tests).
FLOAT32_TOLERANCE = 1e-2


class _Unanswered(Exception):
    """The reader has not answered yet (``...``, None, a skeleton function)."""


class Exercise:
    """Base class: an ``id``, ``check(answer) -> Feedback``; its text is the catalog's.

    Subclasses implement ``_trials(answer)``; the base class runs the diagnoses in order
    and turns the first that fires into the feedback, in the words of :mod:`.catalog`.

    Parameters
    ----------
    id : str
        Unique across the book, e.g. ``"ch1-scores-by-hand"``; the catalog's key for the
        exercise's title and the messages of its diagnoses.
    diagnoses : list of Diagnosis
        Its own slips, tried in order before the generic rules; the first that fires is
        reported. Every one is proven by a typed mistake in the exercise's test module.
    inputs : tuple
        The data of the question. The exercise keeps a read-only copy; the ``inputs``
        property hands the reader a fresh writable copy each time.

    Attributes
    ----------
    time_limit : float
        Seconds the reader's code may run in one check (default :data:`TIME_LIMIT`).
    """

    kind = "exercise"
    time_limit = TIME_LIMIT

    def __init__(self, id, *, diagnoses=(), inputs=()):
        self.id, self._inputs = id, frozen_copy(tuple(inputs))
        self.diagnoses: list[Diagnosis] = list(diagnoses)

    @property
    def title(self):
        """The exercise's title, from the catalog (else its id); it appears in the praise."""
        try:
            return text("title", self.id)
        except KeyError:
            return self.id

    @property
    def inputs(self):
        """A fresh, writable copy of the question's data."""
        return reader_copy(self._inputs)

    def check(self, answer):
        """Check ``answer`` and return a :class:`Feedback`; never raises, never hangs."""
        try:
            return _one_line(self._verdict(answer))
        except KeyboardInterrupt:
            raise
        except BaseException as err:  # the promise: one line, whatever happened
            said = text("not-checkable", error=type(err).__name__, text=safe_text(err))
            return Feedback("wrong", said, "not-checkable")

    def _verdict(self, answer):
        try:
            trials = self._trials(answer)
        except _Unanswered as why:
            return Feedback("unanswered", text(str(why)), "unanswered")
        except AnswerProblem as why:
            return Feedback("wrong", why.message, why.name)
        if all(t.ok for t in trials):
            return Feedback("correct", self._praise())
        for diag in self.diagnoses + self._generic():
            if _fires(diag, trials):
                return Feedback("wrong", _describe(diag, trials, self.id), diag.name)
        return Feedback("wrong", text("fallback"), "other")

    def _praise(self):
        return text("praise", title=self.title)

    def _generic(self):
        return []

    def _trials(self, answer):  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self):
        return f"<{self.kind} {self.id!r}: {self.title}>"


def _one_line(feedback):
    """The feedback with its message on one line."""
    message = " ".join(str(feedback.message).split())
    return Feedback(feedback.status, message, feedback.diagnosis)


def _describe(diag, trials, exercise):
    """The diagnosis's text; the fallback line if the catalog has none (a test forbids that)."""
    try:
        return diag.describe(trials, exercise)
    except KeyError:
        return text("fallback")


def _fires(diag, trials):
    """Run one diagnosis; a diagnosis that itself fails simply does not fire."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return bool(diag.test(trials))
    except Exception:
        return False


_CHAPTER_MODULE = re.compile(r"ch\d\d_\w+")


def all_exercises():
    """Every chapter's exercises: the ``EXERCISES`` list each ``chNN_*`` module ends with.

    Raises
    ------
    ValueError
        If two exercises share an id.
    """
    found, owner = [], {}
    for module in chapter_modules():
        for ex in module.EXERCISES:
            if ex.id in owner:
                raise ValueError(
                    f"exercise id {ex.id!r} is used twice: in {owner[ex.id]} and in "
                    f"{module.__name__}"
                )
            owner[ex.id] = module.__name__
            found.append(ex)
    return found


def chapter_modules():
    """Every ``chNN_*`` module of this package, in chapter order (discovered, never listed)."""
    package = importlib.import_module(__package__)
    names = sorted(m.name for m in pkgutil.iter_modules(package.__path__))
    return [
        importlib.import_module(f"{__package__}.{name}")
        for name in names
        if _CHAPTER_MODULE.fullmatch(name)
    ]


def get(id):
    """Return the exercise ``id`` from :func:`all_exercises`."""
    exercises = {ex.id: ex for ex in all_exercises()}
    if id not in exercises:
        raise KeyError(f"no exercise {id!r}; known: {sorted(exercises)}")
    return exercises[id]


def _labelled(case, exercise):
    """``case`` with its English label translated (the catalog's ``<exercise>/case: <label>``)."""
    try:
        label = text(f"case: {case.label}", exercise)
    except KeyError:
        return case
    return dataclasses.replace(case, label=label, translated=True)


def _is_unanswered(answer):
    return answer is Ellipsis or answer is None


@dataclass
class _Clock:
    """The time left for the reader's code in one check."""

    seconds: float
    start: float = field(default_factory=time.monotonic)

    def left(self):
        return max(self.seconds - (time.monotonic() - self.start), 0.01)


def _call(fn, case, clock):
    """Run the reader's ``fn`` on copies of ``case.args``: (float array or None, exception or
    None, whether the result was float32).

    Raises _Unanswered for a skeleton and AnswerProblem for an answer of the wrong
    form (an endless loop, no ``return``, not numbers, complex numbers, its arguments changed).
    """
    args = reader_copy(case.args)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = run_with_time_limit(lambda: fn(*args), clock.left())
    except NotImplementedError:
        raise _Unanswered(_UNANSWERED_FN) from None
    except TimeLimitExceeded:
        raise AnswerProblem("time-limit", _too_slow(case, clock)) from None
    except (Exception, SystemExit) as err:
        return None, err, False
    _refuse_changed_inputs(fn, args, case)
    return _read_result(fn, out, case), None, _float32(out)


_CORE = tuple(
    dict.fromkeys(
        str(p) + os.sep for p in (Path(ac.__file__).parent, Path(ac.__file__).parent.resolve())
    )
)
_OURS = tuple(
    dict.fromkeys(
        str(folder) + os.sep
        for path in (Path(ac.__file__).parent, Path(__file__).parents[1])
        for folder in (path, path.resolve())
    )
)


@contextlib.contextmanager
def _watching_attn_core(answer):
    """Yield the names of the attn_core functions the reader's code calls meanwhile.

    A profile hook (it blocks nothing, so a wrong answer still gets its own diagnosis) sees
    every call into attn_core's files whose caller is outside attn_core and attn_book: the
    reader's ``ac.softmax``, ``from attn_core import softmax``, an alias in a closure, a
    function made by ``exec``; not attn_core's own inner calls, not the checker's references.
    """
    used = []
    code = getattr(answer, "__code__", None)
    if code is not None and code.co_filename.startswith(_CORE):
        used.append(code.co_name)  # the answer *is* attn_core's function

    def watch(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(_CORE):
            caller = frame.f_back
            if caller is not None and not caller.f_code.co_filename.startswith(_OURS):
                used.append(frame.f_code.co_name)

    previous = sys.getprofile(), threading.getprofile()
    sys.setprofile(watch)
    threading.setprofile(watch)  # a check may run the answer in a thread (running.py)
    try:
        yield used
    finally:
        sys.setprofile(previous[0])
        threading.setprofile(previous[1])


def _refuse_changed_inputs(fn, args, case):
    """An answer that wrote into its arguments (``s -= m``) changes its caller's arrays."""
    for i, (mine, given) in enumerate(zip(case.args, args, strict=True)):
        if isinstance(mine, np.ndarray) and isinstance(given, np.ndarray):
            same = given.shape == mine.shape and np.array_equal(given, mine, equal_nan=True)
            if not same:
                name = _parameter_name(fn, i)
                said = text("changed-input", name=name, case=case.label)
                raise AnswerProblem("changed-input", said)


def _parameter_name(fn, i):
    try:
        return list(inspect.signature(fn).parameters)[i]
    except (TypeError, ValueError, IndexError):
        return str(i + 1)


def _float32(out):
    """True when the reader's result is float32 (or a list of them): judged to float32's digits."""
    return getattr(out, "dtype", None) == np.float32 or (
        isinstance(out, list | tuple) and out and getattr(out[0], "dtype", None) == np.float32
    )


def _read_result(fn, out, case):
    if out is Ellipsis or (out is None and does_nothing(fn)):
        raise _Unanswered(_UNANSWERED_FN)
    if out is None:
        raise AnswerProblem("no-return", text("no-return", case=case.label))
    return read_numbers(out, text("subject-result", case=case.label))


def _too_slow(case, clock):
    key = "time-limit-1" if math.isclose(clock.seconds, 1.0) else "time-limit"
    return text(key, seconds=f"{clock.seconds:g}", case=case.label)


_UNANSWERED_FN = "unanswered-function"  # catalog keys
_UNANSWERED_VALUE = "unanswered-value"


def _read_finite(answer, seconds):
    """The answer as floats, run with the time limit; None / NaN / inf entries refused."""
    got = run_with_time_limit(lambda: read_numbers(answer), seconds)
    missing = non_finite_entries(answer, got)
    if missing:
        raise AnswerProblem("not-finite", text("not-finite-entries", missing=missing))
    return got


class NumberExercise(Exercise):
    """By-hand arithmetic: the answer is a number or an array, judged as the question asks.

    A question asks either for whole numbers (a count, a shape, a number of heads, layers
    or bytes: ``integer=True``), checked exactly, a non-integer refused with its own line;
    or for real numbers to ``decimals`` places, which accepts exactly the honest roundings:
    ``|got - expected| <= band`` units of the last asked place (one unit is
    ``10**-decimals``). The default band, half a unit, is rounding the exact answer once; an
    exercise whose own printed roundings (an ``e^-1`` given to three decimals, say) can
    honestly move the last place declares a wider band with a comment that derives it, never
    as wide as two units.

    Parameters
    ----------
    id : str
    inputs : tuple
        The data the reader works from; ``reference(*inputs)`` gives the answer
        (computed by attn_core, never typed), and diagnoses see ``inputs`` as
        ``trial.case.args``.
    reference : callable
    integer : bool
        The answer is whole numbers (default False).
    decimals : int
        The decimal places the question asks for (default 3); not for ``integer``.
    band : float
        How far from the exact answer, in units of the last place, an answer may be
        (default 0.5: the answer rounded once); below 2.
    diagnoses
        See :class:`Exercise`; then the generic rules (:func:`.diagnose.generic_for_numbers`).

    Attributes
    ----------
    atol : float
        The accepted distance, ``band * 10**-decimals`` (and a hair for the binary floats),
        or a hair for whole numbers; ``rtol`` is 0.

    Examples
    --------
    >>> from attn_book.exercises import ch01_dot_product as ch1
    >>> ch1.cosine_by_hand.check(0.447)
    ✓ Correct: the cosine of the angle, by hand (checked to within 0.0005).
    >>> ch1.cosine_by_hand.check(0.449).diagnosis  # two units off in the third decimal
    'rounding'
    >>> ch1.cosine_by_hand.check(0.45).diagnosis  # two decimals where three are asked
    'fewer-decimals'
    >>> ch1.scores_by_hand.check([2, 3])
    ✗ Not yet: expected 3 numbers, got 2.
    >>> ch1.scores_by_hand.check([2, None, -1])
    ✗ Not yet: entry 2 is None — every entry needs a finite number.
    >>> from attn_book.exercises import ch11_modern_attention as ch11
    >>> ch11.band_count.check(42.0).ok, ch11.band_count.check(42.04).diagnosis
    (True, 'not-whole')
    """

    kind = "by hand"

    def __init__(
        self, id, inputs, reference, *, integer=False, decimals=3, band=0.5, **kw
    ):  # fmt: skip
        if not 0 < band < 2:
            raise ValueError(f"band must be above 0 and below 2 units, got {band}")
        self.reference, self.integer = reference, bool(integer)
        self.decimals, self.band = (0, 0.0) if integer else (int(decimals), float(band))
        self.unit = 10.0**-self.decimals
        self.atol, self.rtol = self.band * self.unit + _HAIR, 0.0
        super().__init__(id, inputs=inputs, **kw)

    def expected(self):
        """The reference answer (for tests and the prose, never printed by check)."""
        return np.asarray(self.reference(*self._inputs), dtype=float)

    @property
    def solution(self):
        """The answer, as the prose quotes it: :meth:`expected`, a float for one number."""
        expected = self.expected()
        return float(expected) if expected.ndim == 0 else expected

    def _trials(self, answer):
        if _is_unanswered(answer):
            raise _Unanswered(_UNANSWERED_VALUE)
        got, expected = _read_finite(answer, self.time_limit), self.expected()
        if got.size == expected.size == 1:  # 0.447 and [0.447] are the same answer
            got = got.reshape(expected.shape)
        if self.integer:
            diagnose.refuse_non_whole(got)
        case = Case("your answer", self._inputs)
        return [Trial(case, expected, got, None, self.rtol, self.atol)]

    def _generic(self):
        if self.integer:
            return diagnose.generic_for_numbers()
        return diagnose.generic_for_numbers(3 * self.unit + _HAIR, self.decimals)

    def _praise(self):
        if self.integer:
            return text("praise-whole", title=self.title)
        tolerance = diagnose.tolerance_text(self.band * self.unit, 0.0)
        return text("praise-number", title=self.title, tolerance=tolerance)


_HAIR = 1e-9  # 0.4005 - 0.401 is not exactly -0.0005 in binary floats


class FunctionExercise(Exercise):
    """Write-the-function (and find-the-bug): the answer is a function, run on many cases.

    Parameters
    ----------
    id : str
    reference : callable
        The attn_core computation the reader's function must match.
    cases : callable returning a list of Case
        Inputs, including the awkward ones its chapter teaches (a batch axis, large and
        spread-out scores, a fully masked row).
    diagnoses
        See :class:`Exercise`.
    float32_tolerance : float, optional
        How a float32 result is judged (relative and absolute), in place of
        :data:`FLOAT32_TOLERANCE`: for a function whose answer *is* float32 (Q4_1's
        dequantiser), so that the 1 % meant for float32 softmax scores does not let a float16
        computation, or rounded weights, through.

    Examples
    --------
    >>> from attn_book.exercises import ch02_softmax as ch2
    >>> ch2.my_softmax.check(lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True)).diagnosis
    'nan-large-scores'
    >>> def forgot_return(x):
    ...     y = x * 2
    >>> ch2.my_softmax.check(forgot_return).diagnosis
    'no-return'
    """

    kind = "write the function"

    def __init__(
        self, id, reference, cases, *, rtol=1e-5, atol=1e-7, own=None, float32_tolerance=None, **kw
    ):
        self.reference, self._cases = reference, cases
        self.rtol, self.atol, self.own = rtol, atol, own
        self.float32_tolerance = (
            FLOAT32_TOLERANCE if float32_tolerance is None else float32_tolerance
        )
        super().__init__(id, **kw)

    def check(self, answer):
        """As :meth:`Exercise.check`; with ``own`` (the statement says "plain NumPy, no
        attn_core"), a right answer that got its numbers from attn_core is sent back, with
        the diagnosis named ``own``."""
        if not self.own:
            return super().check(answer)
        with _watching_attn_core(answer) as used:
            feedback = super().check(answer)
        if feedback.ok and used:
            said = text(self.own, self.id, name=f"ac.{used[0]}")
            return Feedback("wrong", said, self.own)
        return feedback

    def cases(self):
        """The list of :class:`Case` the answer is run on, labelled in the reader's language."""
        return [c if c.translated else _labelled(c, self.id) for c in self._cases()]

    def _trials(self, answer):
        if _is_unanswered(answer):
            raise _Unanswered(_UNANSWERED_FN)
        if not callable(answer):
            said = text("not-a-function", kind=type(answer).__name__)
            raise AnswerProblem("not-a-function", said)
        trials, clock = [], _Clock(self.time_limit)
        for case in self.cases():
            expected = np.asarray(self.reference(*case.args), dtype=float)
            got, err, float32 = _call(answer, case, clock)
            rtol, atol = self.rtol, self.atol
            if float32:  # float32 keeps ~7 digits: on scores of 10⁴, about 3
                tol = self.float32_tolerance
                rtol, atol = max(rtol, tol), max(atol, tol)
            trials.append(Trial(case, expected, got, err, rtol, atol))
        return trials

    def _generic(self):
        return [
            diagnose.raised(),
            diagnose.wrong_shape(),
            diagnose.nan_for_large_scores(),
            diagnose.not_finite(),
            diagnose.wrong_values(),
        ]

    def _praise(self):
        return text("praise-function", self.id, title=self.title, n=len(self.cases()))


class ChoiceExercise(Exercise):
    """Predict-then-run: the answer is one of ``options``.

    Each wrong option ``opt`` gets the catalog's ``chose-<opt>`` for the exercise (why it
    loses, not which wins); a ``follow-up`` there is added to the praise (what the reader
    does once right, e.g. "now run the next cell and see it happen"). An option that is words,
    not a code value, may have them in the catalog as ``option-<opt>``: a translated page's
    reader may then answer in its language (:meth:`option_words`), and the English still counts.

    Parameters
    ----------
    id : str
    options : sequence of str
    answer : str
        The right option.

    Examples
    --------
    >>> from attn_book.exercises import ch04_worked_example as ch4
    >>> ch4.add_a_word.check("DOWN")
    ✓ Correct: a fourth word joins.
    >>> ch4.add_a_word.check("same").diagnosis
    'chose-same'
    """

    kind = "predict then run"

    def __init__(self, id, options: Sequence[str], answer, **kw):
        self.options, self.answer = [str(o) for o in options], str(answer)
        self._by_key = {_choice_key(o): o for o in self.options}
        if len(self._by_key) != len(self.options):
            raise ValueError(f"options {self.options} must differ after normalising case and ×")
        diagnoses = [
            Diagnosis(f"chose-{opt}", lambda trials, opt=opt: trials[0].got == opt)
            for opt in self.options
            if opt != self.answer
        ]
        super().__init__(id, diagnoses=diagnoses, **kw)

    def option_words(self, language=None):
        """``{option: its words in language}`` (default the book's): the catalog's
        ``option-<option>``, else the option itself.

        >>> from attn_book.exercises import ch08_learning as ch8
        >>> ch8.which_vanishes.option_words("ko")["dV, at d_k = 256"]
        'd_k = 256에서 dV'
        >>> ch8.which_vanishes.option_words("en")["dV, at d_k = 256"]
        'dV, at d_k = 256'
        """
        own = catalog(language)["exercises"].get(self.id, {})
        return {opt: own.get(f"option-{opt}", opt) for opt in self.options}

    def print_options(self):
        """Print the options in the book's language, one a line, as a reader types them.

        >>> from attn_book.exercises import ch08_learning as ch8
        >>> ch8.which_vanishes.print_options()
          'dQ and dK, at d_k = 256'
          'dV, at d_k = 256'
          'dQ and dK, at d_k = 4'
          'all three, at d_k = 256'
        """
        for words in self.option_words().values():
            print(_OPTION_LINE.format(words))

    def _trials(self, answer):
        if _is_unanswered(answer):
            raise _Unanswered(_UNANSWERED_VALUE)
        typed = run_with_time_limit(lambda: _typed(answer), self.time_limit)
        key = None if typed is None else _choice_key(typed)
        pick = None if key is None else self._by_key.get(key, self._by_key.get(_exponent(key)))
        words = self.option_words()
        if pick is None and key is not None:  # the option in the page's language
            pick = {_choice_key(w): opt for opt, w in words.items()}.get(key)
        if pick is None:
            choices = ", ".join(repr(words[opt]) for opt in self.options)
            kind = text("a-kind", kind=type(answer).__name__)
            what = kind if typed is None else repr(typed)
            raise AnswerProblem("not-an-option", text("not-an-option", choices=choices, what=what))
        return [_ChoiceTrial(pick == self.answer, pick)]

    def _praise(self):
        try:
            return text("praise-follow-up", title=self.title, follow_up=text("follow-up", self.id))
        except KeyError:
            return text("praise", title=self.title)


#: A line :meth:`ChoiceExercise.print_options` prints: one option, quoted as Python quotes it.
_OPTION_LINE = "  {!r}"


def translate_printed_options(text, language):
    r"""``text`` (a copied output) with each line :meth:`ChoiceExercise.print_options` printed
    in English (an option that has words in ``language``'s catalog) in ``language``, as a
    kernel in that language prints it.

    >>> english = "  'dV, at d_k = 256'\n  'dQ and dK, at d_k = 4'\n"
    >>> print(translate_printed_options(english, "ko"), end="")
      'd_k = 256에서 dV'
      'd_k = 4에서 dQ와 dK'
    >>> translate_printed_options(english, "en") == english
    True
    """
    if language == "en":
        return text
    lines = {
        _OPTION_LINE.format(key.removeprefix("option-")): _OPTION_LINE.format(words)
        for own in catalog(language)["exercises"].values()
        for key, words in own.items()
        if key.startswith("option-")
    }
    return "\n".join(lines.get(line, line) for line in text.split("\n"))


_TIMES = re.compile(r"(?<![a-z])[x*·](?=\s*[\d√.(]|\s*sqrt)")
_SQRT = re.compile(r"sqrt\s*\(?\s*([\d.]+)\s*\)?")
_POWER = re.compile(r"(?:\^|\*\*)\s*(?=\d)")  # n^3, n**3: NFKC makes n³ n3 too


def _typed(answer):
    """The typed option as text (at most 40 characters), or None if ``str`` of it fails."""
    if not isinstance(answer, str | int | float):
        try:
            answer = str(answer)
        except Exception:
            return None
    text = str(answer).strip().strip("\"'")
    return text if len(text) <= 40 else text[:39] + "…"


def _choice_key(text):
    """A typed option, normalised: case, spaces, quotes, commas, "x" "*" "·" for "×", "sqrt2"
    for "√2", a power written ``n^3``, ``n**3`` or ``n³`` as ``n3``, a big O around it
    (``O(n³)``), a whole number with zero decimals (``3.0``) as the whole number, and two
    things joined by "and" in either order.

    Examples
    --------
    >>> [_choice_key(t) for t in ("×√2", " X√2 ", "x sqrt(2)", "*√2", "Down", "'up'")]
    ['×√2', '×√2', '×√2', '×√2', 'down', 'up']
    >>> [_choice_key(t) for t in ("n³", "n^3", "N ** 3", "n3", "2*3", "O(n³)", "o(n^3)")]
    ['n3', 'n3', 'n3', 'n3', '2×3', 'n3', 'n3']
    >>> [_choice_key(t) for t in ("3.0", "3.00", "3", "0.05", "1.50")]
    ['3', '3', '3', '0.05', '1.50']
    >>> keys = {_choice_key(t) for t in ("dQ and dK, at d_k = 256", "dQ and dK at d_k = 256",
    ...                                  "dK and dQ, at d_k = 256", "dk and dq at d_k=256")}
    >>> sorted(keys)
    ['dkanddqatd_k=256']
    """
    text = unicodedata.normalize("NFKC", str(text)).strip().strip("\"'`").strip().lower()
    text = _SQRT.sub(r"√\1", _TIMES.sub("×", _POWER.sub("", text)))
    text = re.sub(r"^o\s*\((.*)\)$", r"\1", text.replace(",", " ").strip())
    text = re.sub(r"(?<![\d.])(\d+)\.0+(?![\d.])", r"\1", text)
    text = _AND.sub(lambda m: " and ".join(sorted(m.group(1, 2))), text)
    return re.sub(r"\s+", "", text).rstrip(".")


_AND = re.compile(r"(?<!\S)(\S+)\s+and\s+(\S+)(?!\S)")


def _exponent(key):
    """ "n3" (typed n^3, n**3 or n³) as "3", for options that are the exponent alone."""
    return re.sub(r"^n(?=\d+$)", "", key)


@dataclass
class _ChoiceTrial:
    ok: bool
    got: str
    case: Case = field(default_factory=lambda: Case("your choice", ()))


class Code(str):
    """Source text that displays as a highlighted Python block in a notebook."""

    def _repr_markdown_(self):
        return f"```python\n{self}```"

    def __repr__(self):
        return str(self)


class BugExercise(FunctionExercise):
    """Find the bug: a :class:`FunctionExercise` that starts from ``buggy``, whose bug is ``bug``.

    ``show()`` gives the buggy source for the chapter to print; the reader copies
    it, fixes the one mistake and passes the fixed function to ``check``. The
    buggy function itself must get the diagnosis named ``bug`` (the tests hold it).
    """

    kind = "find the bug"

    def __init__(self, id, buggy, reference, cases, *, bug, **kw):
        self.buggy, self.bug = buggy, bug
        super().__init__(id, reference, cases, **kw)

    def show(self):
        """The buggy source, to print in the chapter: its comments and docstring in the
        kernel's language (its chapter's comments catalog), its code as it is."""
        from attn_book.code_words import translate_shown

        source = textwrap.dedent(inspect.getsource(self.buggy))
        return Code(translate_shown(source, self.buggy.__module__))

    def _praise(self):
        return text("praise-bug", title=self.title, n=len(self.cases()))


@dataclass
class _DesignTrial:
    """A design's one trial: the answer (``got``), what it produces, and whether that does it."""

    case: Case
    got: np.ndarray
    produced: np.ndarray
    ok: bool


class DesignExercise(Exercise):
    """Design: the answer is numbers (a matrix, a row) judged by what they produce.

    A design has many right answers: ``produce(answer, *inputs)`` computes what the design
    does (the weights a matrix gives, say) with attn_core, and ``meets(produced)`` says
    whether that is what was asked. Diagnoses see one trial whose ``got`` is the answer
    and ``produced`` what it gives, so each names what the design *does* wrong.

    Parameters
    ----------
    id : str
    inputs : tuple
        The fixed data the design works with.
    produce, meets : callable
    shape : tuple of int
        The shape of an answer.
    diagnoses
        See :class:`Exercise`.

    Examples
    --------
    >>> from attn_book.exercises import ch01_dot_product as ch1
    >>> ch1.best_key.check([2.0]).diagnosis
    'wrong-count'
    """

    kind = "design"

    def __init__(self, id, inputs, produce, meets, *, shape, **kw):
        self.produce, self.meets, self.shape = produce, meets, tuple(shape)
        super().__init__(id, inputs=inputs, **kw)

    def _trials(self, answer):
        if _is_unanswered(answer):
            raise _Unanswered(_UNANSWERED_VALUE)
        got = _read_finite(answer, self.time_limit)
        if got.shape != self.shape:
            n = int(np.prod(self.shape))
            said = text("wrong-count-design", n=n, shape=self.shape, got=got.shape)
            raise AnswerProblem("wrong-count", said)
        produced = np.asarray(self.produce(got, *self._inputs), dtype=float)
        case = Case("your design", self._inputs)
        return [_DesignTrial(case, got, produced, bool(self.meets(produced)))]

    def _praise(self):
        return text("praise-design", title=self.title)
