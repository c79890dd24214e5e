"""The answers both the Python checker and the site's answer box get, for the site-answer tests.

An exercise's listed mistakes, its solution, 1.5 times the expected value, and malformed
answers (unanswered, text, unclosed, an expression, ragged, None / NaN / inf, a bare tuple,
an empty list), each as the Python value ``check`` gets and the text a reader would type.
"""

from __future__ import annotations

import math

import numpy as np


def as_text(value):
    """A Python value as a reader would type it in the box (a Python literal)."""
    if value is None:
        return "None"
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(as_text(v) for v in value) + "]"
    if isinstance(value, str):
        return value
    return repr(float(value))


MALFORMED = [
    (..., ""),
    ("abc", "abc"),
    ("[1, 2", "[1, 2"),
    ("2/3", "2/3"),
    ([1.0, [2.0, 3.0]], "[1, [2, 3]]"),
    ([1.0, None, 3.0], "[1, None, 3]"),
    (float("nan"), "nan"),
    ([math.inf, -math.inf], "[inf, -inf]"),
    ((0.5, 0.25), "0.5, 0.25"),
    ([], "[]"),
]


def inputs_for(ex):
    """(Python answer, typed text, label) for one exercise: mistakes, solution, malformed."""
    rows = [(m.answer, as_text(m.answer), m.name) for m in ex.mistakes]
    rows.append((ex.solution, as_text(ex.solution), "solution"))
    expected = ex.expected()
    rows.append((expected * 1.5, as_text(expected * 1.5), "1.5 times"))
    rows += [(value, text, f"malformed {text!r}") for value, text in MALFORMED]
    return rows


def verdict(feedback):
    return {"status": feedback.status, "message": feedback.message, "diagnosis": feedback.diagnosis}
