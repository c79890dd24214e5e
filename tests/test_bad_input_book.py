"""The bad-input catalogue of the book's machinery: the exercise checkers and the figures.

Each row is what a careless or hostile reader might pass, with the exact outcome it must
get: for a checker, the feedback's status, diagnosis and words (a checker never raises and
never hangs); for a figure, the error type and the words naming the argument and the
shapes, or the state the figure must end up in. Expected values come from hand maths
(q = (2, 1) and k = (0, 3) give cos θ = 3 / (√5 · 3) = 1/√5; the worked example's weights
e^(1/√2) / (2 e^(1/√2) + 1) ≈ 0.401, …), never from the code under test.

:func:`judge` runs one row and says "as catalogued" or what happened instead; the tests
assert it, and a script can count the outcomes (``python tests/test_bad_input_book.py``).
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attn_book.exercises import all_exercises
from attn_book.exercises import ch01_dot_product as ch1
from attn_book.exercises import ch02_softmax as ch2
from attn_book.exercises import ch04_worked_example as ch4

pytest.importorskip("anywidget")

from attn_book.exercises.records import Feedback
from attn_book.tables import step_table
from attn_book.widgets import (
    AttentionHeatmap,
    MemoryCalculator,
    QueryPad,
    ScalingExplorer,
    SoftmaxBars,
    WindowSinks,
)

SHORT_LIMIT = 0.5  # seconds: the time limit the endless-loop rows run with


# --- Stand-ins for what readers pass ------------------------------------------------------


class GradTensor:
    """Behaves like a torch tensor with requires_grad=True: numpy conversion refuses."""

    requires_grad = True

    def __init__(self, values):
        self._values = values

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("Can't call numpy() on Tensor that requires grad.")


class BadStr:
    """An object whose str (and repr) raise."""

    def __str__(self):
        raise RuntimeError("no str for you")

    __repr__ = __str__


class BadStrError(Exception):
    """An exception whose message cannot be shown."""

    def __str__(self):
        raise RuntimeError("no str for you")


def loop_softmax(scores):
    """Softmax of each row with plain Python loops (max-subtracted), as a nested list."""
    scores = np.asarray(scores, dtype=float)
    out = np.empty_like(scores)
    for idx in np.ndindex(scores.shape[:-1]):
        row = [float(x) for x in scores[idx]]
        exps = [math.exp(x - max(row)) for x in row]
        out[idx] = [e / sum(exps) for e in exps]
    return out.tolist()


def forgot_return(scores):
    weights = loop_softmax(scores)  # noqa: F841 - the mistake: no return


def docstring_only(scores):
    """Write the softmax here."""


def pass_only(scores):
    pass


def spins(scores):
    while True:
        pass


def sleeps(scores):
    time.sleep(60)


def swallows_everything(scores):
    while True:
        try:
            pass
        except Exception:
            pass


def exits(scores):
    sys.exit(1)


def recurses(scores):
    return recurses(scores)


def in_place_softmax(scores):
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    return scores


def raises_bad_str(scores):
    raise BadStrError


def edit_then(edit, answer):
    """The reader first edits the exercise's inputs in place, then answers."""

    def build():
        edit()
        return answer

    return build


def _double_the_keys():
    _, keys = ch1.scores_by_hand.inputs
    keys *= 2


def _zero_the_values():
    ch4.output_by_hand.inputs[2][:] = 0.0


# --- The catalogue ------------------------------------------------------------------------

COS = 1 / math.sqrt(5)  # q = (2, 1), k = (0, 3): 3 / (√5 · 3)
SEED_WEIGHTS = [0.401, 0.198, 0.401]  # e^(1/√2) / (2 e^(1/√2) + 1), 1 / (…), …
ONE_ZERO_ONE = [0.422, 0.155, 0.422]  # softmax(1, 0, 1): e / (2e + 1), 1 / (2e + 1), …


@dataclass(frozen=True)
class Answer:
    """A checker row: ``exercise().check(answer())`` must give this feedback."""

    id: str
    exercise: Callable[[], Any]
    answer: Callable[[], Any]
    status: str
    diagnosis: str | None
    words: str = ""
    time_limit: float | None = None


@dataclass(frozen=True)
class Refused:
    """A figure row: ``act()`` must raise ``error`` with all of ``words`` in its message."""

    id: str
    act: Callable[[], Any]
    error: type[Exception]
    words: tuple[str, ...]


@dataclass(frozen=True)
class Taken:
    """A figure row: ``act()`` must succeed and return ``expected``."""

    id: str
    act: Callable[[], Any]
    expected: Any


CHECKERS = [
    # tensors, objects that refuse str
    Answer("grad-tensor-by-hand", lambda: ch1.scores_by_hand, lambda: GradTensor([2, 3, -1]),
           "wrong", "tensor-requires-grad", "`.detach().numpy()`"),
    Answer("grad-tensor-returned", lambda: ch2.my_softmax, lambda: lambda s: GradTensor(s),
           "wrong", "tensor-requires-grad", "your result on the case"),
    Answer("str-raises-as-choice", lambda: ch1.which_key_wins, BadStr,
           "wrong", "not-an-option", "not a BadStr"),
    Answer("str-raises-by-hand", lambda: ch1.scores_by_hand, BadStr,
           "wrong", "not-numeric", "not a BadStr"),
    Answer("str-raises-returned", lambda: ch2.my_softmax, lambda: lambda s: BadStr(),
           "wrong", "not-numeric", "is a BadStr, not numbers"),
    Answer("exception-str-raises", lambda: ch2.my_softmax, lambda: raises_bad_str,
           "wrong", "raised", "your function raised BadStrError"),
    # skeletons and a forgotten return
    Answer("forgot-return", lambda: ch2.my_softmax, lambda: forgot_return,
           "wrong", "no-return", "did it forget to `return` it?"),
    Answer("docstring-only-skeleton", lambda: ch2.my_softmax, lambda: docstring_only,
           "unanswered", "unanswered", "write the body"),
    Answer("pass-only-skeleton", lambda: ch2.my_softmax, lambda: pass_only,
           "unanswered", "unanswered", "write the body"),
    Answer("ellipsis-returned", lambda: ch2.my_softmax, lambda: lambda s: ...,
           "unanswered", "unanswered", "write the body"),
    # complex numbers
    Answer("complex-right-real-part", lambda: ch2.my_softmax,
           lambda: lambda s: np.asarray(loop_softmax(s)) + 0.5j,
           "wrong", "complex", "has complex numbers"),
    Answer("complex-by-hand", lambda: ch1.scores_by_hand, lambda: [complex(2, 1), 3, -1],
           "wrong", "complex", "your answer has complex numbers"),
    # the right number, wrapped or typed another way
    Answer("number-in-a-list", lambda: ch1.cosine_by_hand, lambda: [COS], "correct", None),
    Answer("number-in-a-nested-list", lambda: ch1.cosine_by_hand, lambda: [[COS]],
           "correct", None),
    Answer("numpy-float32", lambda: ch1.cosine_by_hand, lambda: np.float32(0.4472),
           "correct", None),
    Answer("decimal", lambda: ch1.cosine_by_hand, lambda: Decimal("0.447"), "correct", None),
    Answer("numeric-string", lambda: ch1.cosine_by_hand, lambda: "0.447", "correct", None),
    Answer("tuple-by-hand", lambda: ch1.scores_by_hand, lambda: (2, 3, -1), "correct", None),
    # None, NaN, inf and overflowing entries
    Answer("none-entry", lambda: ch1.scores_by_hand, lambda: [2, None, -1],
           "wrong", "not-finite", "entry 2 is None"),
    Answer("nan-entry", lambda: ch1.scores_by_hand, lambda: [2, math.nan, -1],
           "wrong", "not-finite", "entry 2 is NaN"),
    Answer("inf-entry", lambda: ch1.scores_by_hand, lambda: [2, 3, math.inf],
           "wrong", "not-finite", "entry 3 is infinite"),
    Answer("all-nan", lambda: ch4.weights_by_hand, lambda: [math.nan] * 3,
           "wrong", "not-finite", "entry 1, entry 2 and entry 3 are NaN"),
    Answer("nan-number", lambda: ch1.cosine_by_hand, lambda: math.nan,
           "wrong", "not-finite", "your number is NaN"),
    Answer("none-and-inf", lambda: ch1.scores_by_hand, lambda: [None, 3, -math.inf],
           "wrong", "not-finite", "entry 1 is None and entry 3 is infinite"),
    Answer("huge-int", lambda: ch1.cosine_by_hand, lambda: 10**400,
           "wrong", "not-finite", "beyond ±1.8e308"),
    # not numbers at all
    Answer("ragged-list", lambda: ch1.scores_by_hand, lambda: [[2, 3], [-1]],
           "wrong", "not-numeric", "rows of different lengths"),
    Answer("dict", lambda: ch1.scores_by_hand, lambda: {"a": 2},
           "wrong", "not-numeric", "not a dict"),
    Answer("generator", lambda: ch1.scores_by_hand, lambda: (x for x in (2, 3, -1)),
           "wrong", "not-numeric", "not a generator"),
    Answer("function-by-hand", lambda: ch1.scores_by_hand, lambda: len,
           "wrong", "not-numeric", "not a builtin_function_or_method"),
    Answer("string-returned", lambda: ch2.my_softmax, lambda: lambda s: "weights",
           "wrong", "not-numeric", "is a str, not numbers"),
    Answer("ragged-returned", lambda: ch2.my_softmax, lambda: lambda s: [[1.0], [0.5, 0.5]],
           "wrong", "not-numeric", "has rows of different lengths"),
    Answer("number-for-a-function", lambda: ch2.my_softmax, lambda: 0.5,
           "wrong", "not-a-function", "not a float"),
    # functions that never return
    Answer("endless-loop", lambda: ch2.my_softmax, lambda: spins,
           "wrong", "time-limit", "did not finish within 0.5 seconds", SHORT_LIMIT),
    Answer("sleeps", lambda: ch2.my_softmax, lambda: sleeps,
           "wrong", "time-limit", "the check stopped it", SHORT_LIMIT),
    Answer("loop-swallowing-exceptions", lambda: ch2.my_softmax, lambda: swallows_everything,
           "wrong", "time-limit", "an endless loop?", SHORT_LIMIT),
    # functions that crash the hard way
    Answer("sys-exit", lambda: ch2.my_softmax, lambda: exits,
           "wrong", "raised", "raised SystemExit"),
    Answer("endless-recursion", lambda: ch2.my_softmax, lambda: recurses,
           "wrong", "raised", "raised RecursionError"),
    # NaN: an overflow only where the inputs are large
    Answer("nan-on-small-inputs", lambda: ch2.my_softmax,
           lambda: lambda s: np.full(np.shape(s), np.nan),
           "wrong", "not-finite", "on the case 'the worked example's scores 1, 0, 1'"),
    Answer("naive-exp-overflows", lambda: ch2.my_softmax,
           lambda: lambda s: np.exp(s) / np.exp(s).sum(-1, keepdims=True),
           "wrong", "nan-large-scores", "subtract each row's own maximum"),
    # editing inputs in place
    Answer("reader-edits-inputs", lambda: ch1.scores_by_hand,
           edit_then(_double_the_keys, [2, 3, -1]), "correct", None),
    Answer("reader-edits-values", lambda: ch4.output_by_hand,
           edit_then(_zero_the_values, [1.436, 0.564]), "correct", None),
    # right numbers, but the caller's array changed: refused, and named
    Answer("function-edits-its-argument", lambda: ch2.my_softmax, lambda: in_place_softmax,
           "wrong", "changed-input", "in place"),
    Answer("nested-list-returned", lambda: ch2.my_softmax, lambda: loop_softmax,
           "correct", None),
    # choices typed oddly
    Answer("choice-multiline", lambda: ch1.which_key_wins, lambda: "b is\nthe one" * 50,
           "wrong", "not-an-option", "answer with one of 'a', 'b', 'c'"),
    Answer("choice-int", lambda: ch1.which_key_wins, lambda: 2,
           "wrong", "not-an-option", "not '2'"),
    Answer("choice-list", lambda: ch1.which_key_wins, lambda: ["b"],
           "wrong", "not-an-option", "not \"['b']\""),
]  # fmt: skip


def _pad_after(action):
    """A QueryPad after ``action(pad)`` was refused: its keys and its weights' sum."""
    pad = QueryPad()
    try:
        action(pad)
    except ValueError:
        pass
    return len(pad.key_vectors), round(sum(pad.weights), 9)


def _heatmap_after(name, value):
    hm = AttentionHeatmap()
    try:
        setattr(hm, name, value)
    except ValueError:
        pass
    return hm.n_heads, hm.head, len(hm.head_queries), [round(sum(r), 9) for r in hm.weights]


def _bars_after_shift(value):
    bars = SoftmaxBars(scores=(1.0, 0.0, 1.0))
    try:
        bars.shift = value
    except ValueError:
        pass
    return bars.shift, [round(w, 3) for w in bars.weights]


def _strict_json(widget):
    """The synced state as strict JSON (no NaN), as the front end must receive it."""
    state = {k: v for k, v in widget.get_state().items() if not isinstance(v, bytes | memoryview)}
    return json.loads(json.dumps(state, allow_nan=False)) is not None


TOKENS_10K = [f"t{i}" for i in range(10_000)]

FIGURES = [
    # NaN never reaches the JSON state
    Taken("query-at-origin", lambda: QueryPad(query=(0.0, 0.0)).cosines, [None, None, None]),
    Taken("key-at-origin", lambda: QueryPad(key_vectors=[[0, 0], [0, 1], [1, 1]]).cosines[0],
          None),
    Taken("origin-state-is-json", lambda: _strict_json(QueryPad(query=(0.0, 0.0))), True),
    Taken("overflowing-naive-is-json", lambda: _strict_json(SoftmaxBars(shift=1000.0)), True),
    # numpy arrays and scalars accepted wherever lists and ints are
    Taken("query-as-array", lambda: [round(w, 3) for w in QueryPad(query=np.array([1, 0])).weights],
          SEED_WEIGHTS),
    Taken("keys-as-array", lambda: QueryPad(key_vectors=np.eye(3, 2)).dots, [1.0, 0.0, 0.0]),
    Taken("scores-as-array",
          lambda: [round(w, 3) for w in SoftmaxBars(scores=np.array([1.0, 0.0, 1.0])).weights],
          ONE_ZERO_ONE),
    Taken("tokens-as-array",
          lambda: AttentionHeatmap(query_tokens=np.array(["a", "b"])).query_tokens, ["a", "b"]),
    Taken("head-as-numpy-int", lambda: type(AttentionHeatmap(head=np.int64(1)).head), int),
    Taken("d_k-as-numpy-int", lambda: ScalingExplorer(d_k=np.int64(8)).current["d_k"], 8),
    Taken("temperature-as-float32", lambda: QueryPad(temperature=np.float32(0.5)).temperature,
          0.5),
    # a refused value is rolled back: the figure never shows a state it rejected
    Refused("keys-and-values-disagree", lambda: setattr(QueryPad(), "key_vectors", np.eye(2)),
            ValueError, ("key_vectors", "(2, 2)", "value_vectors", "(3, 2)")),
    Taken("keys-and-values-rolled-back",
          lambda: _pad_after(lambda p: setattr(p, "key_vectors", np.eye(2))), (3, 1.0)),
    Refused("heads-do-not-divide", lambda: setattr(AttentionHeatmap(), "n_heads", 3),
            ValueError, ("n_heads=3", "d_model=8")),
    Taken("heads-rolled-back", lambda: _heatmap_after("n_heads", 3), (2, 0, 2, [1.0] * 3)),
    Refused("head-out-of-range", lambda: setattr(AttentionHeatmap(), "head", 2),
            ValueError, ("head", "0..1", "got 2")),
    Taken("head-rolled-back", lambda: _heatmap_after("head", 2), (2, 0, 2, [1.0] * 3)),
    Refused("shift-too-large-set", lambda: setattr(SoftmaxBars(), "shift", 1e17),
            ValueError, ("shift", "±1e+06", "got 1e+17")),
    Taken("shift-rolled-back", lambda: _bars_after_shift(1e17), (0.0, ONE_ZERO_ONE)),
    # out of range at construction: refused, as when set later (no silent clamp)
    Refused("head-out-of-range-at-construction", lambda: AttentionHeatmap(head=5),
            ValueError, ("head", "0..1", "got 5")),
    Refused("selected-out-of-range-at-construction", lambda: AttentionHeatmap(selected=7),
            ValueError, ("selected", "0..2", "got 7")),
    Refused("head-not-an-integer", lambda: AttentionHeatmap(head=1.5),
            TypeError, ("head", "integer", "float")),
    # the shift keeps the bars truthful
    Refused("shift-too-large", lambda: SoftmaxBars(shift=1e17), ValueError, ("shift", "1e+17")),
    Taken("shift-at-the-limit",
          lambda: [round(w, 3) for w in SoftmaxBars(scores=(1, 0, 1), shift=1e6).weights],
          ONE_ZERO_ONE),
    # sizes a figure cannot draw quickly
    Refused("ten-thousand-tokens", lambda: AttentionHeatmap(query_tokens=TOKENS_10K),
            ValueError, ("query_tokens", "at most 128", "got 10000")),
    Refused("ten-thousand-key-tokens", lambda: AttentionHeatmap(key_tokens=TOKENS_10K),
            ValueError, ("key_tokens", "at most 128", "got 10000")),
    Refused("huge-d-model", lambda: AttentionHeatmap(d_model=100_000, n_heads=1),
            ValueError, ("d_model", "1..512", "got 100000")),
    Refused("a-million-samples", lambda: ScalingExplorer(n_samples=10**6),
            ValueError, ("n_samples", "16384", "n_samples=1000000")),
    Refused("a-hundred-thousand-keys", lambda: ScalingExplorer(n_keys=10**5),
            ValueError, ("n_keys", "16384", "n_keys=100000")),
    Refused("ten-thousand-key-vectors",
            lambda: QueryPad(key_vectors=np.ones((10_000, 2))),
            ValueError, ("key_vectors", "S <= 64", "(10000, 2)")),
    Refused("a-hundred-thousand-scores", lambda: SoftmaxBars(scores=np.zeros(100_000)),
            ValueError, ("scores", "S <= 64", "(100000,)")),
    # plain wrong values, still named
    Refused("query-none", lambda: QueryPad(query=None), ValueError, ("query", "(2,)", "()")),
    Refused("query-huge", lambda: QueryPad(query=(1e200, 0.0)), ValueError, ("query", "±1e+06")),
    Refused("query-text", lambda: QueryPad(query=("a", 1)), TypeError, ("query", "numbers")),
    Refused("temperature-bool", lambda: SoftmaxBars(temperature=True),
            TypeError, ("temperature", "bool")),
    Refused("d_k-not-a-power-of-two", lambda: ScalingExplorer(d_k=10),
            ValueError, ("d_k", "one of", "got 10")),
    # the reader's own argument is named, not a value derived from it (1/sqrt(d) / T = inf)
    Refused("temperature-overflows-the-heatmap-scale",
            lambda: AttentionHeatmap(temperature=1e-320),
            ValueError, ("temperature must be at least 1e-06", "got 1e-320")),
    Refused("temperature-too-cold-for-the-pad", lambda: QueryPad(temperature=1e-9),
            ValueError, ("temperature must be at least 1e-06", "got 1e-09")),
    Taken("temperature-at-the-limit-is-one-hot",
          lambda: AttentionHeatmap(temperature=1e-6).weights[1], [0.0, 1.0, 0.0]),
    Refused("tokens-as-one-string", lambda: AttentionHeatmap(query_tokens="나는 사과를"),
            TypeError, ("query_tokens", "sequence of str")),
    Refused("dtype-unknown", lambda: MemoryCalculator(dtype="bfloat16"),
            ValueError, ("dtype", "one of", "'bfloat16'")),
    Refused("heads-as-float", lambda: MemoryCalculator(heads=2.0),
            TypeError, ("heads", "integer", "float")),
    Refused("preset-unknown", lambda: MemoryCalculator(preset="Gemma 3"),
            ValueError, ("preset", "one of", "'Gemma 3'")),
    Refused("cache-kind-unknown", lambda: MemoryCalculator(kind="sparse"),
            ValueError, ("kind", "one of", "'sparse'")),
    Refused("window-zero", lambda: MemoryCalculator(kind="window", window=0),
            ValueError, ("window", "integer", "got 0")),
    Refused("window-beyond-the-tokens", lambda: WindowSinks(window=7),
            ValueError, ("window", "1..6", "got 7")),
    Refused("sink-logit-as-text", lambda: WindowSinks(sink_logit="1"),
            TypeError, ("sink_logit", "number", "str")),
    Refused("window-vectors-without-tokens", lambda: WindowSinks(query_vectors=[[1.0]] * 3),
            ValueError, ("go together", "query_vectors")),
    Refused("explicit-keys-not-a-matrix",
            lambda: AttentionHeatmap(query_tokens=["a", "b", "c"], query_vectors=[[1, 2]] * 3,
                                     key_vectors=[1, 2]),
            ValueError, ("key_vectors", "(S, E)", "(2,)")),
    Refused("explicit-queries-ragged",
            lambda: AttentionHeatmap(query_vectors=[[1, 2], [3]], key_vectors=[[1, 2]]),
            TypeError, ("query_vectors", "array of numbers")),
]  # fmt: skip

TABLES_AND_RECORDS = [
    # the table helper names the cell or argument the reader passed, never a format() traceback
    Refused("table-digits-negative", lambda: step_table({"w": [1.0]}, digits=-1),
            ValueError, ("digits", "-1")),
    Refused("table-digits-float", lambda: step_table({"w": [1.0]}, digits=2.5),
            ValueError, ("digits", "2.5")),
    Refused("table-cell-none", lambda: step_table({"w": [1.0, None]}),
            TypeError, ("cell w[1]", "None")),
    Refused("table-footer-not-a-pair", lambda: step_table({"w": [1.0]}, footer=("sum", 1.0)),
            TypeError, ("footer", "(label, {column: value})")),
    Refused("table-columns-list", lambda: step_table([1.0, 2.0]), TypeError, ("columns", "dict")),
    Taken("table-bar-in-a-label-is-escaped",
          lambda: repr(step_table({"w": [1.0]}, index=["a|b"])).splitlines()[-1],
          "| a\\|b | 1.000 |"),
    Refused("feedback-unknown-status", lambda: Feedback("ok", "fine"),
            ValueError, ("status", "'ok'", "correct")),
]  # fmt: skip

CATALOGUE = CHECKERS + FIGURES + TABLES_AND_RECORDS


def judge(row):
    """Run one row: "as catalogued", or what happened instead."""
    if isinstance(row, Answer):
        return _judge_answer(row)
    try:
        got = row.act()
    except Exception as err:
        if isinstance(row, Refused) and isinstance(err, row.error):
            missing = [w for w in row.words if w not in str(err)]
            return "as catalogued" if not missing else f"message lacks {missing}: {err}"
        return f"raised {type(err).__name__}: {err}"
    if isinstance(row, Refused):
        return f"accepted, returned {got!r:.80}"
    return "as catalogued" if got == row.expected else f"got {got!r:.120}"


def _judge_answer(row):
    exercise = row.exercise()
    if row.time_limit is not None:
        exercise.time_limit = row.time_limit
    try:
        feedback = exercise.check(row.answer())
    except BaseException as err:
        return f"raised {type(err).__name__}: {err}"
    finally:
        vars(exercise).pop("time_limit", None)
    said = (feedback.status, feedback.diagnosis)
    if said != (row.status, row.diagnosis) or row.words not in feedback.message:
        return f"got {said} {feedback.message!r}"
    return "as catalogued" if "\n" not in repr(feedback) else "feedback spans several lines"


def test_a_temperature_error_never_blames_the_scale():
    for make in (AttentionHeatmap, QueryPad, SoftmaxBars):
        with pytest.raises(ValueError) as info:
            make(temperature=5e-324)
        assert "temperature" in str(info.value) and "scale" not in str(info.value)


def test_the_catalogue_is_large_and_unique():
    assert len(CATALOGUE) >= 50 and len(CHECKERS) >= 25 and len(FIGURES) >= 25
    assert len({row.id for row in CATALOGUE}) == len(CATALOGUE)


@pytest.mark.parametrize("row", CATALOGUE, ids=lambda row: row.id)
def test_each_bad_input_gets_its_catalogued_outcome(row):
    assert judge(row) == "as catalogued"


def test_the_exercise_inputs_survive_the_reader():
    _double_the_keys()
    _zero_the_values()
    q, keys = ch1.scores_by_hand.inputs
    assert keys.tolist() == [[1.0, 0.0], [0.0, 3.0], [-1.0, 1.0]] and q.tolist() == [2.0, 1.0]
    assert ch4.output_by_hand.inputs[2].tolist() == [[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]


def test_an_endless_loop_off_the_main_thread_is_stopped_too():
    import threading

    box = {}
    ch2.my_softmax.time_limit = SHORT_LIMIT
    try:
        worker = threading.Thread(target=lambda: box.update(fb=ch2.my_softmax.check(spins)))
        worker.start()
        worker.join(10)
    finally:
        del ch2.my_softmax.time_limit
    assert box["fb"].diagnosis == "time-limit"
    time.sleep(0.2)  # the reader's loop is stopped at its next line, not left spinning
    assert not [t for t in threading.enumerate() if t.name == "exercise-answer"]


# --- The property: whatever a reader passes, a checker answers with one line ---------------

_numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.complex_numbers(),
    st.none(),
)
_leaves = st.one_of(_numbers, st.text(max_size=8), st.booleans(), st.just(...))
_answers = st.one_of(
    st.recursive(_leaves, lambda inner: st.lists(inner, max_size=4), max_leaves=12),
    hnp.arrays(
        dtype=st.sampled_from([np.float64, np.float32, np.int64, np.complex128, np.bool_]),
        shape=hnp.array_shapes(max_dims=3, max_side=4),
    ),
    st.dictionaries(st.text(max_size=3), _numbers, max_size=3),
    st.functions(like=lambda *args: None, returns=_leaves, pure=False),
    st.builds(GradTensor, st.lists(st.floats(), max_size=3)),
    st.builds(BadStr),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answer=_answers, index=st.integers(min_value=0))
def test_a_checker_never_raises_for_anything_hypothesis_builds(answer, index):
    exercises = all_exercises()
    feedback = exercises[index % len(exercises)].check(answer)
    assert feedback.status in {"correct", "wrong", "unanswered"}
    assert feedback.message and "\n" not in repr(feedback)


if __name__ == "__main__":  # count the outcomes: python tests/test_bad_input_book.py
    import signal

    class Hung(BaseException):
        """Raised after 5 s: the row hung (a BaseException, so no checker swallows it)."""

    def _stop(signum, frame):
        raise Hung

    signal.signal(signal.SIGALRM, _stop)
    outcomes = Counter()
    for row in CATALOGUE:
        signal.alarm(5)
        try:
            verdict = judge(row)
        except Hung:
            verdict = "hung"
        finally:
            signal.alarm(0)
        kind = "checker" if isinstance(row, Answer) else "figure"
        verdict = "hung" if verdict.startswith("raised Hung") else verdict
        bucket = verdict if verdict in {"as catalogued", "hung"} else verdict.split(" ")[0]
        outcomes[kind, bucket] += 1
        if verdict != "as catalogued":
            print(f"{row.id}: {verdict[:150]}")
    for (kind, bucket), n in sorted(outcomes.items()):
        print(f"{kind:8} {bucket:16} {n}")
