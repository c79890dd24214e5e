"""Self-checking exercises: a notebook cell passes the reader's answer, one line comes back.

The answer may be a number or an array (by-hand arithmetic), a function the
reader wrote (write-the-function, find-the-bug) or an option (predict-then-run).
``check`` compares it with attn_core — functions on several inputs, awkward ones
included (a batch axis, huge logits, a masked key) — and returns a
:class:`Feedback` that shows as one line: correct, or *what* is wrong, with the
common mistakes diagnosed by name. It never prints the solution, never raises
and never hangs: the reader's function runs with a time limit on copies of the
inputs, and whatever goes wrong (an endless loop, a forgotten ``return``,
complex numbers, a tensor that requires grad, None / NaN / inf entries) comes
back as one line. An unanswered skeleton (``...``, a function whose body is
``...`` or raises ``NotImplementedError``) gets "not answered yet".

Layout
------
:mod:`.records`
    The shared records: ``Case``, ``Trial``, ``Diagnosis``, ``Mistake``, ``Feedback``.
:mod:`.running`
    Running and reading an answer: the time limit, copies, numbers or one line.
:mod:`.diagnose`
    The shared diagnoses (imports :mod:`.records` only).
:mod:`.kinds`
    The checker: ``Exercise.check`` and the kinds of exercise.
``chNN_name``
    One module per chapter with all its exercises, find-the-bug included, ending
    with ``EXERCISES = [...]``.

API
---
``Exercise``
    ``id``, ``title``, ``inputs`` (the data of the question), ``check(answer)``
    -> ``Feedback``, ``diagnoses`` (named mistakes it recognises), ``mistakes``
    (example wrong answers with the diagnosis each must get), ``solution`` (a
    correct answer, for the tests). Kinds: :class:`NumberExercise` (by hand,
    tolerance for 3-decimal work), :class:`FunctionExercise` (run on
    :class:`Case` inputs), :class:`ChoiceExercise` (predict then run),
    :class:`BugExercise` (find the bug, with ``show()`` for the buggy source) and
    :class:`DesignExercise` (numbers judged by what they produce, not by one solution).
    ``inputs`` is a fresh copy each time: editing it cannot change the answer.
``Feedback``
    ``ok``, ``status`` ("correct", "wrong", "unanswered"), ``message``,
    ``diagnosis`` (the name of the diagnosis that fired).
``all_exercises()``, ``get(id)``
    Every chapter module's ``EXERCISES``, in chapter order (an id used twice is
    refused), so ``tests/test_exercises.py`` checks each one against its solution
    and against every mistake it claims to diagnose.
:mod:`~attn_book.exercises.diagnose`
    The shared diagnoses: ``rows_not_normalised``, ``nan_for_large_scores``,
    ``forgot_scale``, ``scaled_by_d_model``, ``kT_on_batch``,
    ``heads_without_transpose``, ``masked_row_uniform``,
    ``masked_key_weighted``, and the builders ``matches`` (the answer equals the
    mistake, recomputed with attn_core) and ``factor``. A by-hand answer no
    chapter diagnosis explains gets a generic one: wrong length, rounding (which
    entries), wrong order, weights not summing to 1, a constant factor (2, √2,
    …), or which entries are off by position — never the answer itself. A
    choice ignores case, spaces and quotes, and reads "x", "X", "*" as "×".

Adding a chapter's exercises: a module ``chNN_name.py`` here that builds them at
module level and lists them in ``EXERCISES``; every diagnosis it lists needs a
``Mistake`` that triggers it.

The cell pattern in a chapter (``book/NN_name.py``, py:percent)
--------------------------------------------------------------
A statement with a folded hint, the skeleton with its check (output stored), then
a folded ``{solution}`` whose Python listing is Markdown, so Run All never runs it
and never reveals an answer (``tests/test_solutions.py`` runs every listing and
requires "✓ Correct"). Numbers in the statement come from ``{eval}`` of names::

    # %% [markdown]
    # ```{exercise} Three dot products by hand
    # :label: ex-ch1-scores-by-hand
    #
    # Work out q·k for the query and the three keys printed below.
    # ```
    #
    # ```{admonition} Hint
    # :class: dropdown
    # Multiply matching components, then add them up.
    # ```

    # %%
    answer = ...  # your three scores, e.g. [0.0, 0.0, 0.0]
    ch1.scores_by_hand.check(answer)

    # %% [markdown]
    # ````{solution} ex-ch1-scores-by-hand
    # :class: dropdown
    #
    # One sentence of explanation.
    #
    # ```python
    # answer = [2 * 1 + 1 * 0, 2 * 0 + 1 * 3, 2 * -1 + 1 * 1]
    # ch1.scores_by_hand.check(answer)
    # ```
    # ````

The skeleton cell shows ``… Not answered yet: ...`` until the reader answers.
For a function, the skeleton is ``def name(...): ...`` (or ``raise
NotImplementedError``) followed by ``ex.check(name)``; for a bug, print
``ch1.kT_batch.show()`` above it, and the reader copies and fixes it.

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
from .records import Case, Diagnosis, Feedback, Mistake, Trial

__all__ = [
    "BugExercise",
    "Case",
    "ChoiceExercise",
    "DesignExercise",
    "Diagnosis",
    "Exercise",
    "Feedback",
    "FunctionExercise",
    "Mistake",
    "NumberExercise",
    "Trial",
    "all_exercises",
    "chapter_modules",
    "get",
]
