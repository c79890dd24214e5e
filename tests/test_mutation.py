"""Mutation testing holds the function checkers: every mutant of a book solution is refused.

``tests/mutation.py`` mutates each write-the-function and find-the-bug solution of the book
one slip at a time; this module runs them all (a few seconds) and fails on a mutant that a
checker accepts and that is not listed, with its reason, in ``mutation.EQUIVALENT``. The
score per chapter is printed at the end of the run (``conftest.pytest_terminal_summary``).
"""

from __future__ import annotations

import ast
import textwrap
from functools import cache

import mutation
import pytest

from attn_book.exercises import all_exercises


@cache
def results():
    return {r.solution.exercise.id: r for r in mutation.run()}


FUNCTION_IDS = [e.id for e in all_exercises() if e.kind in mutation.FUNCTION_KINDS]


def test_every_function_exercise_has_a_book_solution_to_mutate():
    assert sorted(results()) == sorted(FUNCTION_IDS)


@pytest.mark.parametrize("exercise", FUNCTION_IDS)
def test_every_mutant_is_refused_or_listed_as_equivalent(exercise):
    result = results()[exercise]
    assert len(result.mutants) >= 2, f"{exercise}: only {len(result.mutants)} mutants"
    accepted = [m.description for m in result.unexplained]
    assert not accepted, (
        f"{exercise}: the checker accepts these mutants of its solution: {accepted}"
    )


def test_every_listed_equivalent_mutant_exists_and_survives():
    survivors = {(id, m.description) for id, r in results().items() for m, _ in r.survivors}
    stale = set(mutation.EQUIVALENT) - survivors
    assert not stale, f"listed as equivalent but no longer a surviving mutant: {stale}"


def test_the_mutator_makes_the_slips_the_issue_names():
    code = textwrap.dedent(
        """
        def f(s, mask, positions):
            s = np.where(mask, s, -np.inf)
            e = np.exp(s - s.max(axis=-1, keepdims=True)) * positions
            return e / e.sum(axis=-1, keepdims=True) @ np.swapaxes(s, -1, -2).T
        """
    )
    made = {m.description.split("  in  ")[0] for m in mutation.mutants(code, "f")}
    for slip in [
        "s.max(axis=-1, keepdims=True) → s.mean(axis=-1, keepdims=True)",  # mean for max
        "s.max(axis=-1, keepdims=True) → s.min(axis=-1, keepdims=True)",
        "s.max(axis=-1, keepdims=True) → s[..., :1]",  # the first score
        "s.max(axis=-1, keepdims=True) → 0.0",  # 0 as the maximum
        "s.max(axis=-1, keepdims=True) → s.max(axis=-1)",  # keepdims dropped
        "axis=-1 → axis=-2",  # another axis
        "s - s.max(axis=-1, keepdims=True) → s",  # the subtraction dropped
        "np.where(mask, s, -np.inf) → s",  # the mask removed
        "np.where(mask, s, -np.inf) → np.where(mask, -np.inf, s)",  # the mask inverted
        "np.swapaxes(s, -1, -2).T → np.swapaxes(s, -1, -2)",  # a transpose dropped
        "positions → np.arange(len(positions))",  # the positions ignored
        "np.inf → 0.0",
    ]:
        assert slip in made, slip
    squeezed = [m for m in mutation.mutants(code, "f") if "np.squeeze" in m.description]
    assert squeezed and all(ast.parse(m.code) for m in squeezed)


def test_a_mutant_the_checker_accepts_is_reported():
    from attn_book.exercises import ch02_softmax as ch2

    solution = next(s for s in mutation.solutions() if s.exercise is ch2.my_softmax)
    right = mutation.Mutant("unchanged", solution.code)
    assert not mutation.run_mutant(solution, right)  # the book's solution is accepted
    wrong = mutation.Mutant(
        "no shift", solution.code.replace("scores - scores.max(axis=-1, keepdims=True)", "scores")
    )
    assert mutation.run_mutant(solution, wrong)
