"""Self-checking exercises: a notebook cell passes the reader's answer, one line comes back.

The answer may be a number or an array (by-hand arithmetic), a function the reader wrote
(write-the-function, find-the-bug), an option (predict-then-run) or a design. ``check``
compares it with attn_core — functions on several inputs, the awkward ones its chapter
teaches included (a batch axis, large and spread-out scores, a fully masked row) — and
returns a :class:`Feedback` that shows as one line: correct, or *what* is wrong, with the
common slips diagnosed by name. It never prints the solution, never raises and never hangs
(the reader's code runs with a time limit, on copies of the inputs). An unanswered skeleton
(``...``, a body of ``...`` or ``raise NotImplementedError``) gets "not answered yet".

An exercise is defined once, in its chapter's module ``chNN_name.py`` (ending with
``EXERCISES = [...]``): the question's data, the expected answer computed by attn_core
(never typed), and its named slips — each an alternative computation
(:func:`.diagnose.matches`) or one of the fixed generic rules (:data:`.diagnose.NUMBER_RULES`).
Its words are in the catalog, ``messages/<lang>.json``, keyed by exercise id and diagnosis
id (:mod:`.catalog`); the site's answer box gets the same data (:mod:`.site`). The typed
solutions and wrong answers that prove each diagnosis live in the exercise's test module,
``tests/test_exercises_chNN_name.py`` (``ANSWERS``).

Layout: :mod:`.records` (``Case``, ``Trial``, ``Diagnosis``, ``Feedback``),
:mod:`.running` (time limit, copies, reading numbers), :mod:`.diagnose` (shared slips and the
generic rules), :mod:`.kinds` (``Exercise.check`` and the kinds: :class:`NumberExercise`,
:class:`FunctionExercise`, :class:`ChoiceExercise`, :class:`BugExercise` with ``show()``,
:class:`DesignExercise`), :mod:`.catalog`, :mod:`.site`; ``all_exercises()`` and ``get(id)``
discover every chapter module's ``EXERCISES`` in chapter order (an id used twice is refused).

Examples
--------
>>> from attn_book.exercises import ch02_softmax as ch2
>>> ch2.softmax_wrong_axis.check(...).status
'unanswered'
>>> ch2.softmax_wrong_axis.check(ch2.softmax_wrong_axis.buggy).ok
False
>>> def spins(scores):
...     while True:
...         pass
>>> ch2.my_softmax.time_limit = 0.2
>>> ch2.my_softmax.check(spins).diagnosis
'time-limit'
>>> del ch2.my_softmax.time_limit
"""

from .kinds import (
    BugExercise,
    ChoiceExercise,
    DesignExercise,
    Exercise,
    FunctionExercise,
    NumberExercise,
    all_exercises,
    chapter_modules,
    get,
)
from .records import Case, Diagnosis, Feedback, Trial

__all__ = [
    "BugExercise",
    "Case",
    "ChoiceExercise",
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
