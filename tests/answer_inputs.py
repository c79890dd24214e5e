"""The answers both the Python checker and the site's answer box get, for the site-answer tests.

An exercise's listed mistakes, its solution, 1.5 times the expected value, and malformed
answers (unanswered, text, unclosed, an expression, ragged, None / NaN / inf, a bare tuple,
an empty list), each as the Python value ``check`` gets and the text a reader would type.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from attn_book.exercises import BugExercise, ChoiceExercise


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
    rows = [(m.answer, as_text(m.answer), m.name) for m in mistakes(ex)]
    rows.append((solution(ex), as_text(solution(ex)), "solution"))
    expected = ex.expected()
    rows.append((expected * 1.5, as_text(expected * 1.5), "1.5 times"))
    rows += [(value, text, f"malformed {text!r}") for value, text in MALFORMED]
    return rows


def verdict(feedback):
    return {"status": feedback.status, "message": feedback.message, "diagnosis": feedback.diagnosis}


@dataclass(frozen=True)
class Mistake:
    """A typed wrong answer and the diagnosis (a Diagnosis name) it must get."""

    name: str
    answer: object
    diagnosis: str


@dataclass
class Answers:
    """An exercise's typed answers for the tests: a correct one and one mistake per diagnosis."""

    solution: object = None
    mistakes: list = field(default_factory=list)


@cache
def answers():
    """``{exercise id: Answers}`` from every ``tests/test_exercises_chNN_*.py``'s ``ANSWERS``."""
    found = {}
    for path in sorted(Path(__file__).parent.glob("test_exercises_ch[0-9][0-9]_*.py")):
        found.update(importlib.import_module(path.stem).ANSWERS)
    return found


def solution(ex):
    """A correct answer: the typed one, else the choice's answer or the expected numbers."""
    typed = answers().get(ex.id, Answers()).solution
    if typed is not None:
        return typed
    return ex.answer if isinstance(ex, ChoiceExercise) else ex.expected().tolist()


def mistakes(ex):
    """Every wrong answer the tests give ``ex``, each with the diagnosis it must get."""
    given = list(answers().get(ex.id, Answers()).mistakes)
    if isinstance(ex, BugExercise):
        given.insert(0, Mistake("the buggy code, unchanged", ex.buggy, ex.bug))
    if isinstance(ex, ChoiceExercise):
        given += [Mistake(f"answers {o}", o, f"chose-{o}") for o in ex.options if o != ex.answer]
    return given


def each_item(loop, *args, core):
    """``loop`` (written for one item) applied over every leading axis of ``args[0]``.

    ``core[i]`` is how many trailing axes argument ``i`` has for one item (``None`` for an
    argument every item shares: a weight matrix, a block size, the positions). A reader's
    plain loop handles one sentence; the checker's cases add a batch of 1, of 2, and batch ×
    heads, so the tests compare with the loop item by item.
    """
    first = np.asarray(args[0])
    lead = first.shape[: first.ndim - core[0]]
    rows = []
    for index in np.ndindex(lead):
        rows.append(
            loop(
                *(a if c is None else np.asarray(a)[index] for a, c in zip(args, core, strict=True))
            )
        )
    return np.array(rows).reshape(*lead, *np.shape(rows[0]))
