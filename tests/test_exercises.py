"""Every exercise says "correct" to its solution and diagnoses every mistake it claims to.

Each chapter module ends with its ``EXERCISES`` list, so a chapter author's new module in
attn_book/exercises/ is tested here without editing this file.
"""

import math
import re
from pathlib import Path

import numpy as np
import pytest
from answer_inputs import mistakes, solution

from attn_book import exercises
from attn_book.exercises import (
    Case,
    Diagnosis,
    Feedback,
    FunctionExercise,
    NumberExercise,
    Trial,
    all_exercises,
    ch01_dot_product,
    ch02_softmax,
    ch04_worked_example,
    ch07_heads_and_masks,
    chapter_modules,
    diagnose,
    get,
)

EXERCISES = all_exercises()
MISTAKES = [(ex, m) for ex in EXERCISES for m in mistakes(ex)]
FUNCTION_KINDS = [ex for ex in EXERCISES if isinstance(ex, FunctionExercise)]


def _one_line(feedback):
    text = repr(feedback)
    return "\n" not in text and not re.search(r"0x[0-9a-f]+", text)


CHAPTERS = chapter_modules()


def test_every_chapter_module_is_found_in_order():
    on_disk = sorted(p.stem for p in Path(exercises.__file__).parent.glob("ch[0-9][0-9]_*.py"))
    assert [m.__name__.rsplit(".", 1)[-1] for m in CHAPTERS] == on_disk
    assert len(on_disk) >= 10  # chapters add modules, none is lost


def test_all_exercises_are_the_chapters_lists_in_order():
    assert EXERCISES == [ex for module in CHAPTERS for ex in module.EXERCISES]
    ids = [ex.id for ex in EXERCISES]
    assert len(set(ids)) == len(ids) >= 20  # unique; chapters add exercises, none is lost


@pytest.mark.parametrize("module", CHAPTERS, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_each_chapter_lists_every_exercise_it_builds(module):
    from attn_book.exercises import Exercise

    built = [v for v in vars(module).values() if isinstance(v, Exercise)]
    assert sorted(ex.id for ex in built) == sorted(ex.id for ex in module.EXERCISES)


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda ex: ex.id)
def test_the_solution_is_correct(ex):
    feedback = ex.check(solution(ex))
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
    proven = {m.diagnosis for m in mistakes(ex)}
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
    assert ex.check(lambda *a: "text").diagnosis == "not-numeric"
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
    for answer in [*(m.answer for m in mistakes(ex)), 123.0]:
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
    np.testing.assert_allclose(ch01_dot_product.kT_batch.buggy(q, k), loops)
    with pytest.raises(ValueError):
        ch01_dot_product.kT_batch.buggy(r.normal(size=(2, 3, 4)), r.normal(size=(2, 5, 4)))


def test_the_mask_bug_gives_a_fully_masked_row_one_third_each():
    out = ch02_softmax.mask_fully_masked.buggy(np.array([[5.0, 1.0, 2.0]]), np.array([[False] * 3]))
    np.testing.assert_allclose(out, [[1 / 3, 1 / 3, 1 / 3]])


def test_the_buggy_source_is_shown_as_python():
    code = ch07_heads_and_masks.heads_reshape.show()
    assert code.startswith("def split(x, n_heads):") and "reshape" in code
    assert code._repr_markdown_().startswith("```python\n")


def test_a_choice_outside_the_options_is_named():
    feedback = ch01_dot_product.which_key_wins.check("d")
    assert feedback.diagnosis == "not-an-option" and "'a', 'b', 'c'" in feedback.message


def test_a_choice_praise_adds_its_follow_up_only_when_given():
    from attn_book.exercises.site import site_spec

    plain = ch04_worked_example.add_a_word  # no follow-up in the catalog
    run = ch07_heads_and_masks.float16_fill  # its catalog entry has a follow-up
    assert plain.check(plain.answer).message == f"{plain.title}."
    said = f"{run.title}: now run the next cell and see it happen."
    assert run.check(run.answer).message == said
    # the page shows the next cell's output already: the box points at it, never at a cell
    shown = f"{run.title}: the output just below shows it happen."
    assert site_spec(run)["verdicts"][run.answer]["message"] == shown
    assert site_spec(plain)["verdicts"][plain.answer]["message"] == f"{plain.title}."


def test_three_decimals_accept_exactly_the_honest_roundings():
    ex = NumberExercise("t-tol", (0.40111,), lambda x: x)  # rounds to 0.401
    assert "checked to within 0.0005)" in ex.check(0.401).message
    assert all(ex.check(x).ok for x in (0.401, 0.4011, 0.40111, [0.401]))
    for off in (0.402, 0.399, 0.403):  # one or two units off
        assert ex.check(off).diagnosis == "rounding", off
    for short in (0.40, 0.4):  # the answer to two decimals, or one: told how many are asked
        assert ex.check(short).diagnosis == "fewer-decimals", short
        assert "asks for 3" in ex.check(short).message
    assert ex.check(0.405).diagnosis == "other"  # four units off: not a rounding slip
    halfway = NumberExercise("t-half", (0.4015,), lambda x: x)  # 0.401 and 0.402 are honest
    assert halfway.check(0.401).ok and halfway.check(0.402).ok
    assert not halfway.check(0.400).ok and not halfway.check(0.403).ok


def test_a_wider_band_is_declared_in_units_and_never_reaches_two():
    ex = NumberExercise("t-band", (0.40111,), lambda x: x, band=1.5)
    assert "checked to within 0.0015)" in ex.check(0.401).message
    assert ex.check(0.400).ok and ex.check(0.402).ok
    assert not ex.check(0.399).ok and not ex.check(0.403).ok  # about two units off
    with pytest.raises(ValueError, match="band"):
        NumberExercise("t-wide", (1.0,), lambda x: x, band=2.0)


def test_two_decimals_are_asked_as_two():
    ex = NumberExercise("t-two", (1.234,), lambda x: x, decimals=2)
    assert ex.check(1.23).ok and "within 0.005)" in ex.check(1.23).message
    assert ex.check(1.24).diagnosis == "rounding"


def test_a_count_is_a_whole_number():
    ex = NumberExercise("t-count", (42,), lambda n: float(n), integer=True)
    assert ex.check(42.0).ok and ex.check(42).ok and ex.check([42]).ok
    assert "checked exactly" in ex.check(42).message
    for typed in (42.04, 42.5, 41.999):
        feedback = ex.check(typed)
        assert (feedback.status, feedback.diagnosis) == ("wrong", "not-whole"), typed
        assert "whole number" in feedback.message and "recount" in feedback.message
        assert "keep" not in feedback.message and "three" not in feedback.message
    for near in (41.0, 43.0):  # a whole number one off is wrong, never a rounding slip
        assert ex.check(near).diagnosis == "other", near
    shapes = NumberExercise("t-shape", (), lambda: np.array([5.0, 9.0, 5.0, 12.0]), integer=True)
    feedback = shapes.check([5, 9, 5, 12.01])
    assert feedback.diagnosis == "not-whole" and "entry 4 is not" in feedback.message
    assert "entries 2 and 4 are not" in shapes.check([5, 9.5, 5, 12.01]).message
    assert not any("rounding" == d.name for d in shapes._generic())


def test_feedback_repr_and_markdown():
    fb = Feedback("wrong", "your rows do not sum to 1.", "rows-not-normalised")
    assert repr(fb) == "✗ Not yet: your rows do not sum to 1."
    assert fb._repr_markdown_() == "**✗ Not yet:** your rows do not sum to 1."
    assert repr(Feedback("correct", "well done.")) == "✓ Correct: well done."


def _trial(expected, got, *args, batched=False):
    case = Case("c", args, batched=batched)
    return Trial(case, np.asarray(expected, float), np.asarray(got, float))


def test_forgot_scale_fires_for_a_factor_root_two_only():
    expected = np.array([1.0, 0.0, 1.0]) / math.sqrt(2)  # the worked example's scaled scores
    assert diagnose.forgot_scale(2).test([_trial(expected, [1.0, 0.0, 1.0])])
    assert not diagnose.forgot_scale(2).test([_trial(expected, [2.0, 0.0, 2.0])])


def test_rows_not_normalised_looks_at_rows():
    expected = [[0.5, 0.5], [0.25, 0.75]]
    assert diagnose.rows_not_normalised().test([_trial(expected, [[0.5, 0.5], [0.5, 1.5]])])
    columns = [[2 / 3, 0.4], [1 / 3, 0.6]]  # columns sum to 1, rows do not
    assert diagnose.rows_not_normalised().test([_trial(expected, columns)])


def test_nan_for_large_scores():
    with np.errstate(all="ignore"):
        naive = np.exp([1000.0, 0.0]) / np.exp([1000.0, 0.0]).sum()  # inf / inf
    large = np.array([1000.0, 0.0])
    assert diagnose.nan_for_large_scores().test([_trial([1.0, 0.0], naive, large)])
    assert not diagnose.nan_for_large_scores().test([_trial([1.0, 0.0], [0.5, 0.5], large)])
    # NaN on small inputs is not an overflow: the generic not-finite diagnosis says so instead
    small = np.array([1.0, 0.0])
    assert not diagnose.nan_for_large_scores().test([_trial([0.73, 0.27], [np.nan, 0.27], small)])
    assert diagnose.not_finite().test([_trial([0.73, 0.27], [np.nan, 0.27], small)])


def test_kT_on_batch_needs_an_unbatched_success_and_the_slips_result():
    good, bad = _trial([1.0], [1.0]), _trial([1.0], [2.0], batched=True)
    assert diagnose.kT_on_batch(lambda: [2.0]).test([good, bad])
    assert not diagnose.kT_on_batch(lambda: [2.0]).test([_trial([1.0], [3.0]), bad])
    assert not diagnose.kT_on_batch(lambda: [5.0]).test([good, bad])  # another slip


def test_a_failing_diagnosis_does_not_break_check():
    broken = Diagnosis("broken", lambda trials: 1 / 0)
    ex = NumberExercise("test-broken", (), lambda: 1.0, diagnoses=[broken])
    assert ex.check(5.0).diagnosis == "other"
    assert "test-broken" not in {e.id for e in all_exercises()}  # only the EXERCISES lists count


def test_an_id_used_by_two_modules_is_refused(monkeypatch):
    clash = NumberExercise("bug-kT-batch", (), lambda: 1.0)
    monkeypatch.setattr(ch04_worked_example, "EXERCISES", [*ch04_worked_example.EXERCISES, clash])
    with pytest.raises(ValueError, match=r"'bug-kT-batch' is used twice: in .*ch01_dot_product"):
        all_exercises()
    monkeypatch.undo()
    assert get("bug-kT-batch") is ch01_dot_product.kT_batch


def test_get_names_the_known_ids():
    assert get("ch1-my-scores") is ch01_dot_product.my_scores
    with pytest.raises(KeyError, match="ch1-my-scores"):
        get("no-such-exercise")


# --- The generic feedback on a wrong by-hand answer: useful, and never the answer -------------

# Expected values written by hand (not computed by the code under test).
WEIGHTS = [0.5, 0.25, 0.25]  # softmax of (ln 2, 0, 0): 2/4, 1/4, 1/4
SCORES = [2.0, 3.0, -1.0]  # chapter 1's q·k_j, worked out in the comment above
MATRIX = [[0.5, 0.5], [0.25, 0.75]]  # two rows of weights


def _hand(expected):
    ref = np.asarray(expected, dtype=float)
    return NumberExercise("test-hand", (), lambda: ref)


def _shows(message, expected):
    """True if ``message`` contains one of the expected numbers as a reader would write it."""
    values = np.ravel(np.asarray(expected, dtype=float))
    forms = {f"{v:.3f}" for v in values} | {f"{v:.2f}" for v in values} | {f"{v:g}" for v in values}
    trivial = {"0", "1", "2", "3", "-1", "0.00", "0.000"}  # a weight of 0 gives nothing away
    return any(f in message for f in forms if f not in trivial)


GENERIC = [
    # (expected, wrong answer, diagnosis, words the message must contain)
    (WEIGHTS, [0.5, 0.25], "wrong-count", "expected 3 numbers, got 2"),
    (MATRIX, [0.5, 0.5], "wrong-count", "expected 2 × 2 numbers, got 2."),
    (WEIGHTS, [0.5, 0.25, 0.252], "rounding", "entry 3 is not within the tolerance (0.0005)"),
    ([0.1234, 0.3766, 0.5], [0.12, 0.38, 0.5], "fewer-decimals", "rounded to 2 decimal places"),
    (SCORES, [2.0, 3.002, -1.003], "rounding", "entries 2 and 3 are not within"),
    (SCORES, [3.0, 2.0, -1.0], "wrong-order", "the right numbers, in the wrong order"),
    (SCORES, [4.0, 6.0, -2.0], "constant-factor", "2 times too large"),
    (SCORES, [1.0, 1.5, -0.5], "constant-factor", "half the right size"),
    (SCORES, [2.828, 4.243, -1.414], "constant-factor", "√2 times too large"),  # 2√2, 3√2, −√2
    (SCORES, [1.414, 2.121, -0.707], "constant-factor", "√2 times too small"),  # 2/√2, …
    (SCORES, [-2.0, -3.0, 1.0], "constant-factor", "the wrong sign"),
    (SCORES, [6.0, 9.0, -3.0], "constant-factor", "off by the same factor"),  # ×3: not named
    (SCORES, [2.02, 3.03, -1.01], "other", "too large"),  # 1 % off everywhere: not a scale slip
    (WEIGHTS, [0.6, 0.3, 0.3], "not-summing-to-1", "your weights sum to 1.200, not 1"),
    (MATRIX, [[0.5, 0.5], [0.25, 0.5]], "not-summing-to-1", "row 2 do not sum to 1"),
    (SCORES, [2.0, 3.5, -1.0], "other", "entry 2 is too large; the others are right"),
    (SCORES, [4.0, 9.0, -3.0], "other", "entries 1 and 2 are too large; entry 3 is too small"),
    # entry 2 far off: entry 3, 3 units off, is no rounding slip either
    (SCORES, [2.0, 3.5, -1.003], "other", "entry 2 is too large; entry 3 is too small"),
    (SCORES, [2.0, 3.5, -1.004], "other", "entry 3 is too small"),  # 4 units: not a rounding
    (WEIGHTS, [0.6, 0.15, 0.25], "other", "entry 1 is too large; entry 2 is too small"),
    (
        MATRIX,
        [[0.5, 0.5], [0.85, 0.15]],
        "other",
        "row 2, column 1 is too large; row 2, column 2 is too small",
    ),
    ([0.447], [0.9], "other", "your number is too large"),
    (0.447, 0.2, "other", "your number is too small"),
    (0.447, 0.894, "other", "your number is too large"),  # twice: no factor named for one number
]


@pytest.mark.parametrize(
    ("expected", "answer", "diagnosis", "words"),
    GENERIC,
    ids=[f"{d}-{i}" for i, (_, _, d, _) in enumerate(GENERIC)],
)
def test_each_generic_by_hand_message_fires_and_hides_the_answer(
    expected, answer, diagnosis, words
):
    feedback = _hand(expected).check(answer)
    assert feedback.status == "wrong" and feedback.diagnosis == diagnosis, feedback
    assert words in feedback.message, feedback
    assert "compare with the text above" not in feedback.message
    assert not _shows(feedback.message, expected), feedback
    assert _one_line(feedback)


def test_the_generic_messages_are_all_exercised():
    generic = {d.name for d in NumberExercise("g", (), lambda: 1.0)._generic()}
    assert generic == {d for _, _, d, _ in GENERIC}


@pytest.mark.parametrize(
    "ex", [e for e in EXERCISES if isinstance(e, NumberExercise)], ids=lambda ex: ex.id
)
def test_no_by_hand_slip_gets_the_old_catch_all(ex):
    right = ex.expected()
    slips = [right * 2, right + 0.5, right - 0.004 - 0.01 * np.abs(right), np.flip(right) + 1]
    for answer in slips:
        feedback = ex.check(answer.tolist())
        assert feedback.status == "wrong", (answer, feedback)
        assert "compare with the text above" not in feedback.message
        assert not _shows(feedback.message, right), feedback


@pytest.mark.parametrize("typed", ["×√2", "x√2", "X√2", " * √2 ", "×SQRT(2)", "x sqrt2", "'x√2'"])
def test_a_choice_accepts_x_star_and_sqrt_for_times_root(typed):
    from attn_book.exercises import ChoiceExercise

    ex = ChoiceExercise("t", ["×1", "×√2", "×2"], "×√2")
    assert ex.check(typed).ok, typed
    assert ex.check("x2").diagnosis == "chose-×2"  # a wrong pick still gets its hint
    assert ex.check("X 2").diagnosis == "chose-×2"


def test_a_choice_ignores_case_and_spaces():
    from attn_book.exercises import ChoiceExercise

    ex = ChoiceExercise("t", ["up", "down", "same"], "up")
    assert ex.check(" UP ").ok and ex.check("Up.").ok
    assert ex.check("Down").diagnosis == "chose-down" and ex.check("SAME").diagnosis == "chose-same"
    assert ex.check("sideways").diagnosis == "not-an-option"
    assert "'sideways'" in ex.check("sideways").message


def test_choices_that_clash_after_normalising_are_refused():
    from attn_book.exercises import ChoiceExercise

    with pytest.raises(ValueError, match="must differ"):
        ChoiceExercise("t", ["x2", "×2"], "×2")


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda ex: ex.id)
def test_the_catalog_has_every_text_of_every_exercise(ex):
    from attn_book.exercises.catalog import catalog, text

    assert text("title", ex.id)
    for diag in ex.diagnoses:
        assert diag.params or text(diag.name, ex.id), diag.name
    cases = {f"case: {c.label}" for c in getattr(ex, "_cases", list)() if not c.translated}
    # An exercise may also reword the engine's texts it is judged by (its own reference, not
    # attn_core): the default diagnoses and the praise, which are looked up with its id.
    own_words = {d.name for d in ex.diagnoses} | {d.name for d in getattr(ex, "_generic", list)()}
    engine = {"praise-function"} if hasattr(ex, "reference") else set()
    options = {f"option-{o}" for o in getattr(ex, "options", ())}  # a choice's words, translated
    allowed = {"title", "follow-up"} | cases | own_words | engine | options
    assert set(catalog()["exercises"][ex.id]) <= allowed


def _away(x):
    """Every entry moved away from 0 by 3 % of (1 + its size): never within a tolerance."""
    x = np.asarray(x, dtype=float)
    return x + 0.03 * (1 + np.abs(x)) * np.where(x < 0, -1, 1)


def _near(answer):
    """A near miss of a typed mistake: the mistake's numbers, each a little further out."""
    if callable(answer):
        return lambda *args: _away(answer(*args))
    return _away(answer).tolist()


def _slip(ex, name):
    return next((d for d in ex.diagnoses if d.name == name and d.slip), None)


NEAR_MISSES = [
    (ex, m) for ex, m in MISTAKES if not isinstance(m.answer, str) and _slip(ex, m.diagnosis)
]


@pytest.mark.parametrize(
    ("ex", "mistake"), NEAR_MISSES, ids=[f"{ex.id}:{m.name}" for ex, m in NEAR_MISSES]
)
def test_a_near_miss_of_each_slip_is_not_named_as_that_slip(ex, mistake):
    """Every slip the book names fires on its typed mistake (above) and not on an answer
    close to it: a diagnosis fires only when the answer *is* the slip."""
    feedback = ex.check(_near(mistake.answer))
    assert not feedback.ok
    assert feedback.diagnosis != mistake.diagnosis, feedback


def test_near_misses_cover_most_slips():
    assert len(NEAR_MISSES) >= 100


# --- The band of each by-hand exercise, derived from the pencil the question leads to ----------


def _r3(x):
    return np.round(np.asarray(x, dtype=float), 3)


def _pencil_additive(q, k, W, U, va):  # the tanh values as the cell prints them
    return va @ _r3(np.tanh(W @ q + U @ k))


def _pencil_softmax(s):  # e^-1 as printed, 0.368
    exps = _r3(np.exp(s - s.max()))
    return exps / exps.sum()


def _pencil_weights(q, keys):  # e^x and e^-x as printed
    exps = _r3(np.exp(_r3(keys @ q / math.sqrt(keys.shape[1]))))
    return exps / exps.sum()


def _pencil_output(q, keys, values):  # the previous exercise's three-decimal weights
    return _r3(_pencil_weights(q, keys)) @ values


def _pencil_gradient(q, keys, values):  # the printed weights and output
    w = _r3(_pencil_weights(q, keys))
    o = _r3(w @ values)
    return sum(w[j] * np.outer(values[j] - o, keys[j]) for j in range(3)) / math.sqrt(2)


def _pencil_padding(q, keys, n):
    exps = _r3(np.exp(_r3(keys[:n] @ q / math.sqrt(keys.shape[1]))))
    return [*(exps / exps.sum()), *([0.0] * (len(keys) - n))]


def _pencil_decode(keys, values, q, k, v):
    keys, values = np.vstack([keys, k]), np.vstack([values, v])
    exps = _r3(np.exp(_r3(keys @ q / math.sqrt(keys.shape[1]))))
    return _r3(exps / exps.sum()) @ values  # the weights written to three decimals


def _pencil_alibi(scores, heads, head):
    slope = 2.0 ** (-8 * head / heads)
    exps = _r3(np.exp(_r3(scores - slope * np.arange(len(scores))[::-1])))
    return exps / exps.sum()


def _pencil_online(m, total, out, score, value):  # e^-1 written 0.368
    shrink = _r3(math.exp(m - score))
    return [shrink * total + 1.0, *(shrink * np.asarray(out) + value)]


def _pencil_merge(*halves):  # the question's own 1.368 and 0.368, and e^-1 = 0.368
    e = 0.368
    return [e * 1.368 + 1.0, e * 1.0 + 1.0, e * 0.368 + 1.0]


def _pencil_rope(k, n):
    c, s = _r3(math.cos(n)), _r3(math.sin(n))
    return [k[0] * c - k[1] * s, k[0] * s + k[1] * c]


def _pencil_sink(q, keys, p):
    exps = _r3(np.exp(_r3(keys @ q / math.sqrt(q.shape[0]))))
    return _r3(math.log(p / (1 - p))) + _r3(math.log(exps.sum()))


PENCILS = {
    "ch1-additive-by-hand": _pencil_additive,
    "ch2-shift-by-hand": _pencil_softmax,
    "ch4-weights-by-hand": _pencil_weights,
    "ch4-output-by-hand": _pencil_output,
    "ch4-gradient-by-hand": _pencil_gradient,
    "ch6-alibi-weights": _pencil_alibi,
    "ch6-rope-rotate": _pencil_rope,
    "ch7-padding-by-hand": _pencil_padding,
    "ch9-online-step": _pencil_online,
    "ch9-merge-halves": _pencil_merge,
    "ch10-decode-step": _pencil_decode,
    "ch11-sink-logit": _pencil_sink,
}


@pytest.mark.parametrize("exercise", list(PENCILS))
def test_the_band_takes_the_pencil_the_question_leads_to(exercise):
    """Each step written to three decimals, as the question prints its numbers: the pencil's
    answer, rounded, passes, and an exercise's band is wider than a rounding only when that
    pencil needs it."""
    ex = get(exercise)
    pencil = _r3(PENCILS[exercise](*ex.inputs))
    assert ex.check(pencil.tolist()).ok, (pencil, ex.expected())
    units = float(np.max(np.abs(pencil - ex.expected()))) / ex.unit
    assert units <= ex.band < 2
    assert ex.band == 0.5 or (units > 0.5 and ex.band - units < 0.1), (units, ex.band)


@pytest.mark.parametrize(
    "ex", [e for e in EXERCISES if isinstance(e, NumberExercise)], ids=lambda ex: ex.id
)
def test_every_by_hand_exercise_refuses_two_units_off_and_non_integers(ex):
    right = ex.expected()
    if ex.integer:
        assert ex.check(right.tolist()).ok
        nudged = np.array(right, ndmin=1)
        nudged.flat[-1] += 0.04
        assert ex.check(nudged.tolist()).diagnosis == "not-whole"
        assert ex.check((right + 0.5).tolist()).diagnosis == "not-whole"
        return
    assert ex.check(np.round(right, ex.decimals).tolist()).ok  # the honest rounding
    for sign in (1, -1):
        off = np.array(np.round(right, ex.decimals), ndmin=1)
        off.flat[0] += sign * 2 * ex.unit
        feedback = ex.check(off.tolist())
        assert feedback.status == "wrong", (off, feedback)


def test_every_hand_picked_case_label_is_in_the_catalog():
    """A case a chapter author writes by hand is labelled in English in the code; its words
    are the catalog's ``<exercise id>/case: <label>`` (translated like any message). A
    generated case's label is the catalog's already (``engine/case-*``)."""
    from attn_book.i18n import keyed

    template = keyed("en")
    missing = [
        f"{ex.id}/case: {c.label}"
        for ex in FUNCTION_KINDS
        for c in ex._cases()
        if not c.translated and f"{ex.id}/case: {c.label}" not in template
    ]
    assert not missing, f"add these to attn_book/locale/messages.pot: {missing}"


def test_a_case_label_reaches_the_message_in_the_readers_language(monkeypatch):
    from attn_book.exercises import kinds

    monkeypatch.setattr(kinds, "text", lambda key, ex=None, **kw: f"[ko] {key}")
    case = kinds._labelled(Case("the worked example: 1 query, 3 keys", ()), "ch1-my-scores")
    assert case.label == "[ko] case: the worked example: 1 query, 3 keys" and case.translated


def test_an_answer_rounded_to_one_decimal_is_told_so_in_the_singular():
    ex = NumberExercise("t-one", (0.1234,), lambda x: x)
    feedback = ex.check(0.1)
    assert feedback.diagnosis == "fewer-decimals"
    assert "1 decimal place," in feedback.message and "places" not in feedback.message
