"""Every exercise says "correct" to its solution and diagnoses every mistake it claims to.

Exercises register themselves, so a chapter author's new module in
attn_core/exercises/ is tested here without editing this file.
"""

import math
import re

import numpy as np
import pytest

from attn_core.exercises import (
    Case,
    Diagnosis,
    Feedback,
    FunctionExercise,
    NumberExercise,
    Trial,
    all_exercises,
    bugs,
    ch01_dot_product,
    diagnose,
    get,
)
from attn_core.exercises._core import _REGISTRY

EXERCISES = all_exercises()
MISTAKES = [(ex, m) for ex in EXERCISES for m in ex.mistakes]
FUNCTION_KINDS = [ex for ex in EXERCISES if isinstance(ex, FunctionExercise)]


def _one_line(feedback):
    text = repr(feedback)
    return "\n" not in text and not re.search(r"0x[0-9a-f]+", text)


def test_the_registry_holds_the_exercises_of_chapter_1_and_the_bugs():
    ids = {ex.id for ex in EXERCISES}
    assert {"ch1-scores-by-hand", "ch1-my-scores", "bug-kT-batch", "bug-heads-reshape"} <= ids
    assert len(ids) == len(EXERCISES)


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda ex: ex.id)
def test_the_solution_is_correct(ex):
    feedback = ex.check(ex.solution)
    assert feedback.ok, feedback
    assert feedback.diagnosis is None and _one_line(feedback)


@pytest.mark.parametrize(
    ("ex", "mistake"), MISTAKES, ids=[f"{ex.id}:{m.name}" for ex, m in MISTAKES]
)
def test_each_mistake_gets_its_diagnosis(ex, mistake):
    feedback = ex.check(mistake.answer)
    assert not feedback.ok
    assert feedback.diagnosis == mistake.diagnosis, feedback
    assert _one_line(feedback) and feedback.message


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda ex: ex.id)
def test_every_diagnosis_is_proven_by_a_mistake(ex):
    claimed = {d.name for d in ex.diagnoses}
    proven = {m.diagnosis for m in ex.mistakes}
    assert claimed <= proven, f"{ex.id}: no wrong answer exercises {sorted(claimed - proven)}"


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda ex: ex.id)
def test_an_unanswered_skeleton_is_not_an_error(ex):
    for skeleton in (..., None):
        feedback = ex.check(skeleton)
        assert feedback.status == "unanswered" and not feedback.ok
        assert repr(feedback).startswith("… Not answered yet")


def _body_is_ellipsis(*args): ...


def _raises_not_implemented(*args):
    raise NotImplementedError


@pytest.mark.parametrize("ex", FUNCTION_KINDS, ids=lambda ex: ex.id)
def test_a_skeleton_function_is_unanswered(ex):
    for fn in (_body_is_ellipsis, _raises_not_implemented):
        assert ex.check(fn).status == "unanswered"


@pytest.mark.parametrize("ex", FUNCTION_KINDS, ids=lambda ex: ex.id)
def test_a_function_that_crashes_or_returns_nonsense_gets_feedback(ex):
    assert ex.check(lambda *a: 1 / 0).diagnosis == "raised"
    assert "ZeroDivisionError" in ex.check(lambda *a: 1 / 0).message
    assert ex.check(lambda *a: "text").diagnosis == "raised"
    assert ex.check(42).diagnosis == "not-a-function"


@pytest.mark.parametrize("ex", FUNCTION_KINDS, ids=lambda ex: ex.id)
def test_function_exercises_include_a_batch(ex):
    assert any(c.batched for c in ex.cases()) and any(not c.batched for c in ex.cases())


@pytest.mark.parametrize(
    "ex", [e for e in EXERCISES if isinstance(e, NumberExercise)], ids=lambda ex: ex.id
)
def test_by_hand_feedback_never_shows_the_answer(ex):
    shown = [f"{v:.3f}" for v in np.ravel(ex.expected())] + [
        f"{v:g}" for v in np.ravel(ex.expected())
    ]
    for answer in [*(m.answer for m in ex.mistakes), 123.0]:
        message = ex.check(answer).message
        assert not any(s in message for s in shown if s not in {"0", "1", "2", "3"}), message


def test_chapter_1_expected_values_by_hand():
    # q = (2, 1); keys (1, 0), (0, 3), (-1, 1): 2*1+1*0, 2*0+1*3, 2*(-1)+1*1
    ex = ch01_dot_product
    assert ex.scores_by_hand.expected().tolist() == [2.0, 3.0, -1.0]
    # cos θ = 3 / (√5 · 3) = 1/√5
    assert math.isclose(float(ex.cosine_by_hand.expected()), 1 / math.sqrt(5))
    assert ex.cosine_by_hand.check(0.447).ok and not ex.cosine_by_hand.check(0.452).ok
    # which key wins: q = (1, 0) so the score is the key's first component: 1, 2, 0
    q, keys = ex.which_key_wins.inputs
    firsts = {name: k[0] * q[0] for name, k in keys.items()}
    assert max(firsts, key=firsts.get) == ex.which_key_wins.check("b").ok * "b"


def test_the_kT_bug_is_invisible_without_a_batch():
    r = np.random.default_rng(0)
    q, k = r.normal(size=(3, 4)), r.normal(size=(5, 4))
    loops = [[sum(q[i, m] * k[j, m] for m in range(4)) for j in range(5)] for i in range(3)]
    np.testing.assert_allclose(bugs.kT_batch.buggy(q, k), loops)
    with pytest.raises(ValueError):
        bugs.kT_batch.buggy(r.normal(size=(2, 3, 4)), r.normal(size=(2, 5, 4)))


def test_the_mask_bug_gives_a_fully_masked_row_one_third_each():
    out = bugs.mask_fully_masked.buggy(np.array([[5.0, 1.0, 2.0]]), np.array([[False] * 3]))
    np.testing.assert_allclose(out, [[1 / 3, 1 / 3, 1 / 3]])


def test_the_buggy_source_is_shown_as_python():
    code = bugs.heads_reshape.show()
    assert code.startswith("def split(x, n_heads):") and "reshape" in code
    assert code._repr_markdown_().startswith("```python\n")


def test_a_choice_outside_the_options_is_named():
    feedback = ch01_dot_product.which_key_wins.check("d")
    assert feedback.diagnosis == "not-an-option" and "'a', 'b', 'c'" in feedback.message


def test_feedback_repr_and_markdown():
    fb = Feedback("wrong", "your rows do not sum to 1.", "rows-not-normalised")
    assert repr(fb) == "✗ Not yet: your rows do not sum to 1."
    assert fb._repr_markdown_() == "**✗ Not yet:** your rows do not sum to 1."
    assert repr(Feedback("correct", "well done.")) == "✓ Correct: well done."


def _trial(expected, got, *args, batched=False):
    case = Case("c", args, batched)
    return Trial(case, np.asarray(expected, float), np.asarray(got, float))


def test_forgot_scale_fires_for_a_factor_root_two_only():
    expected = np.array([1.0, 0.0, 1.0]) / math.sqrt(2)  # the seed's scaled scores
    assert diagnose.forgot_scale(2).test([_trial(expected, [1.0, 0.0, 1.0])])
    assert not diagnose.forgot_scale(2).test([_trial(expected, [2.0, 0.0, 2.0])])
    assert "√2" in diagnose.forgot_scale(2).message


def test_rows_not_normalised_looks_at_rows():
    expected = [[0.5, 0.5], [0.25, 0.75]]
    assert diagnose.rows_not_normalised().test([_trial(expected, [[0.5, 0.5], [0.5, 1.5]])])
    columns = [[2 / 3, 0.4], [1 / 3, 0.6]]  # columns sum to 1, rows do not
    assert diagnose.rows_not_normalised().test([_trial(expected, columns)])


def test_nan_for_large_scores():
    with np.errstate(all="ignore"):
        naive = np.exp([1000.0, 0.0]) / np.exp([1000.0, 0.0]).sum()  # inf / inf
    assert diagnose.nan_for_large_scores().test([_trial([1.0, 0.0], naive)])
    assert not diagnose.nan_for_large_scores().test([_trial([1.0, 0.0], [0.5, 0.5])])


def test_batch_only_needs_an_unbatched_success():
    good, bad = _trial([1.0], [1.0]), _trial([1.0], [2.0], batched=True)
    assert diagnose.kT_on_batch().test([good, bad])
    assert not diagnose.kT_on_batch().test([_trial([1.0], [3.0]), bad])


def test_a_failing_diagnosis_does_not_break_check():
    broken = Diagnosis("broken", "never", lambda trials: 1 / 0)
    ex = NumberExercise("test-broken", "b", (), lambda: 1.0, diagnoses=[broken], register=False)
    assert ex.check(5.0).diagnosis == "other"
    assert "test-broken" not in _REGISTRY


def test_an_id_used_by_two_modules_is_refused():
    with pytest.raises(ValueError, match=r"used twice: in attn_core\.exercises\.bugs and in"):
        NumberExercise("bug-kT-batch", "clash", (), lambda: 1.0)
    assert get("bug-kT-batch") is bugs.kT_batch


def test_get_names_the_known_ids():
    assert get("ch1-my-scores") is ch01_dot_product.my_scores
    with pytest.raises(KeyError, match="ch1-my-scores"):
        get("no-such-exercise")
