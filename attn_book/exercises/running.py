"""Running and reading a reader's answer safely: a time limit, copies, numbers or one clear line.

Everything here turns a problem with the *form* of an answer into
:class:`AnswerProblem` (a diagnosis name and one friendly line), which the
checker reports as its feedback: an endless loop, a function that forgets
``return``, complex numbers, a tensor that still requires grad, None / NaN / inf
entries, an object whose ``str`` raises.

Examples
--------
>>> read_numbers([1, 2.5]).tolist()
[1.0, 2.5]
>>> read_numbers([1 + 2j]).tolist()
Traceback (most recent call last):
...
attn_book.exercises.running.AnswerProblem: complex: your answer has complex numbers; ...
>>> run_with_time_limit(lambda: 2 + 2, seconds=1.0)
4
"""

from __future__ import annotations

import copy
import dis
import signal
import sys
import threading
import time
import warnings

import numpy as np

from .catalog import text

__all__ = [
    "AnswerProblem",
    "TimeLimitExceeded",
    "does_nothing",
    "frozen_copy",
    "non_finite_entries",
    "read_numbers",
    "reader_copy",
    "run_with_time_limit",
    "safe_text",
    "where",
]


class AnswerProblem(Exception):
    """The answer's form is wrong: ``name`` (a diagnosis name) and ``message`` (one line)."""

    def __init__(self, name, message):
        super().__init__(f"{name}: {message}")
        self.name, self.message = name, message


class TimeLimitExceeded(BaseException):
    """The reader's code ran too long (a BaseException, so ``except Exception`` lets it pass)."""


def safe_text(obj, limit=80):
    """``str(obj)``'s first line, at most ``limit`` characters; the type's name if ``str`` fails.

    Examples
    --------
    >>> safe_text("two\\nlines")
    'two'
    """
    try:
        text = str(obj)
    except Exception:
        return f"a {type(obj).__name__}"
    lines = text.strip().splitlines()
    first = lines[0] if lines else ""
    return first if len(first) <= limit else first[: limit - 1] + "…"


def reader_copy(value):
    """A writable deep copy of ``value`` (arrays, lists, dicts) for the reader to keep or edit."""
    return copy.deepcopy(value)


def frozen_copy(value):
    """A deep copy of ``value`` whose arrays are read-only: the exercise's own inputs."""
    value = copy.deepcopy(value)
    for array in _arrays_in(value):
        array.setflags(write=False)
    return value


def _arrays_in(value):
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list | tuple):
        return [a for item in value for a in _arrays_in(item)]
    return []


_NOTHING_OPS = {"RESUME", "NOP", "LOAD_CONST", "RETURN_VALUE", "RETURN_CONST", "POP_TOP"}


def does_nothing(fn):
    """True for a skeleton: a function whose body is only ``...``, ``pass`` or a docstring.

    Examples
    --------
    >>> def skeleton(x): ...
    >>> def forgot_return(x):
    ...     y = x * 2
    >>> does_nothing(skeleton), does_nothing(forgot_return)
    (True, False)
    """
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    for op in dis.get_instructions(code):
        if op.opname not in _NOTHING_OPS:
            return False
        if op.opname in {"LOAD_CONST", "RETURN_CONST"} and op.argval not in (None, Ellipsis):
            return False
    return True


def run_with_time_limit(fn, seconds):
    """``fn()``, or raise :class:`TimeLimitExceeded` after ``seconds``.

    On the main thread (a notebook cell) a SIGALRM timer interrupts the reader's
    Python code; elsewhere, or when another timer is running, ``fn`` runs in a
    daemon thread whose trace function stops it at its next line after the
    deadline. A long single numpy call (or ``time.sleep`` in that thread) is only
    interrupted when it returns. Python 3.10 does not run a signal handler inside
    a tight ``while True: try: ... except Exception: pass`` loop, so there the
    main thread's reader code is traced as well, line by line, against the same
    deadline.
    """
    if _can_use_alarm():
        return _run_with_alarm(fn, seconds)
    return _run_in_thread(fn, seconds)


def _can_use_alarm():
    return (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getitimer(signal.ITIMER_REAL)[0] == 0
    )


def _run_with_alarm(fn, seconds):
    def stop(signum, frame):
        raise TimeLimitExceeded(seconds)

    previous = signal.signal(signal.SIGALRM, stop)
    previous_trace = sys.gettrace()
    if sys.version_info < (3, 11):  # 3.10 may never run ``stop`` in a tight loop
        sys.settrace(_deadline_tracer(time.monotonic() + seconds, seconds))
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        sys.settrace(previous_trace)


def _deadline_tracer(deadline, seconds):
    """A trace function raising :class:`TimeLimitExceeded` at its first event past ``deadline``."""

    def stop_after_deadline(frame, event, arg):
        if time.monotonic() > deadline:
            raise TimeLimitExceeded(seconds)
        return stop_after_deadline

    return stop_after_deadline


def _run_in_thread(fn, seconds):
    box = {}
    stop_after_deadline = _deadline_tracer(time.monotonic() + seconds, seconds)

    def target():
        sys.settrace(stop_after_deadline)  # this thread only: no spinning thread left behind
        try:
            box["value"] = fn()
        except BaseException as err:  # handed back to the caller's thread
            box["error"] = err
        finally:
            sys.settrace(None)

    worker = threading.Thread(target=target, daemon=True, name="exercise-answer")
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise TimeLimitExceeded(seconds)
    if "error" in box:
        raise box["error"]
    return box["value"]


def read_numbers(value, subject=None):
    """``value`` as a float array, or raise :class:`AnswerProblem` with one line.

    None entries come back as NaN (:func:`non_finite_entries` names them).
    ``subject`` starts the message ("your answer", "your result on the case 'x'").
    """
    subject = subject or text("subject-answer")
    if isinstance(value, str):  # "−0.035" typed with the book's own minus sign
        value = value.replace("\u2212", "-")
    raw = _as_array(value, subject)
    if raw.dtype.kind == "c" or (raw.dtype == object and _has_complex(raw)):
        raise AnswerProblem("complex", text("complex", subject=subject))
    if raw.dtype == object:
        raw = np.where(_none_mask(raw), np.nan, raw)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(raw, dtype=float)
    except OverflowError:
        raise AnswerProblem("not-finite", text("beyond-float", subject=subject)) from None
    except (TypeError, ValueError):
        raise AnswerProblem("not-numeric", _not_numeric(value, subject)) from None


def _as_array(value, subject):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            raw = np.asarray(value)
    except Exception as err:
        if getattr(value, "requires_grad", False) is True:
            raise AnswerProblem(
                "tensor-requires-grad", text("tensor-requires-grad", subject=subject)
            ) from None
        if isinstance(err, ValueError) and isinstance(value, list | tuple):
            raise AnswerProblem("not-numeric", text("ragged", subject=subject)) from None
        raise AnswerProblem("not-numeric", _not_numeric(value, subject)) from None
    return raw


def _has_complex(raw):
    return any(isinstance(x, complex | np.complexfloating) for x in raw.ravel())


def _none_mask(raw):
    return np.asarray(np.frompyfunc(lambda x: x is None, 1, 1)(raw), dtype=bool)


def _not_numeric(value, subject):
    kind = type(value).__name__
    if subject == text("subject-answer"):
        return text("not-numeric-answer", kind=kind)
    return text("not-numeric-result", subject=subject, kind=kind)


def non_finite_entries(value, numbers):
    """Describe the None / NaN / inf entries of ``numbers`` (read from ``value``), or None.

    Examples
    --------
    >>> non_finite_entries([2.0, None, np.inf], read_numbers([2.0, None, np.inf]))
    'entry 2 is None and entry 3 is infinite'
    """
    if np.isfinite(numbers).all():
        return None
    nones = _nones_of(value, numbers.shape)
    parts = []
    for label, mask in (
        ("None", nones),
        ("NaN", np.isnan(numbers) & ~nones),
        ("infinite", np.isinf(numbers)),
    ):
        places = [where(tuple(i), numbers.shape) for i in np.argwhere(mask)]
        if places:
            said = text("is" if len(places) == 1 else "are", places=_join(places))
            parts.append(f"{said} {text('label-' + label)}")
    return text("and").join(parts)


def _nones_of(value, shape):
    try:
        nones = _none_mask(np.asarray(value, dtype=object))
    except Exception:
        nones = None
    return nones if nones is not None and nones.shape == shape else np.zeros(shape, bool)


def where(index, shape, first=1):
    """A 1-based position a reader can find: "entry 2", or "row 1, column 3" (``first=0``: as
    a question that numbers its slots from 0 does)."""
    if len(shape) == 0:
        return text("place-number")
    if len(shape) == 1:
        return text("place-entry", i=index[0] + first)
    if len(shape) == 2:
        return text("place-cell", r=index[0] + first, c=index[1] + first)
    return text("place-index", i=", ".join(str(i + first) for i in index))


def _join(places, limit=4):
    shown = places[:limit] + ([text("more")] if len(places) > limit else [])
    if len(shown) == 1:
        return shown[0]
    return text("list-separator").join(shown[:-1]) + text("and") + shown[-1]
