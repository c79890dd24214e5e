"""The exercises of ch05_projections: solutions and the wrong answers each diagnosis names."""

from __future__ import annotations

import math

import numpy as np
import pytest
from answer_inputs import Answers, Mistake

import attn_core as ac
from attn_book.exercises import ch05_projections as ch5


def _loop_attention(x, w_q, w_k, w_v):
    """Self-attention with Python loops: project, score, softmax, mix, one token at a time."""
    x, w_q, w_k, w_v = (np.asarray(a, dtype=float).tolist() for a in (x, w_q, w_k, w_v))

    def project(row, w):
        return [sum(row[d] * w[d][c] for d in range(len(row))) for c in range(len(w[0]))]

    q = [project(r, w_q) for r in x]
    k = [project(r, w_k) for r in x]
    v = [project(r, w_v) for r in x]
    out = []
    for qi in q:
        scores = [sum(a * b for a, b in zip(qi, kj, strict=True)) / math.sqrt(len(qi)) for kj in k]
        exps = [math.exp(s - max(scores)) for s in scores]
        weights = [e / sum(exps) for e in exps]
        out.append(
            [sum(w * vj[c] for w, vj in zip(weights, v, strict=True)) for c in range(len(v[0]))]
        )
    return np.array(out)


def _verb_weights_by_hand(row):
    # The verb's features are (0, 1, 0, 0), so its query is the row itself; the keys of
    # 나는, 사과를, 먹었다 are (0,1,0), (0,0,1), (1,0,0): the scores are row[1], row[2], row[0].
    scores = [row[1] / math.sqrt(3), row[2] / math.sqrt(3), row[0] / math.sqrt(3)]
    exps = [math.exp(s) for s in scores]
    return [e / sum(exps) for e in exps]


def test_scores_by_hand():
    # Q = X W_Q: (1,2,0) -> (1, 2); (0,1,-1) -> (0,1) - (1,1) = (-1, 0)
    # K = X W_K: (1,2,0) -> (0,1) + 2(1,0) = (2, 1); (0,1,-1) -> (1,0) - (2,0) = (-1, 0)
    # QKᵀ = [[1·2 + 2·1, -1], [-2, 1]]
    assert ch5.scores_by_hand.check([[4, -1], [-2, 1]]).ok
    np.testing.assert_allclose(ch5.scores_by_hand.expected(), [[4, -1], [-2, 1]])


@pytest.mark.parametrize(
    ("answer", "diagnosis"),
    [
        ([[5, 2], [2, 2]], "not-projected"),  # X Xᵀ: 1+4, 2; 2, 1+1
        ([[5, -1], [-1, 1]], "query-matrix-twice"),  # Q Qᵀ with Q = (1,2), (-1,0)
        ([[5, -2], [-2, 1]], "key-matrix-twice"),  # K Kᵀ with K = (2,1), (-1,0)
        ([[4, -2], [-1, 1]], "transposed"),
        ([[4 / 2**0.5, -1 / 2**0.5], [-2 / 2**0.5, 1 / 2**0.5]], "scaled"),
    ],
)
def test_scores_by_hand_names_each_slip(answer, diagnosis):
    assert ch5.scores_by_hand.check(answer).diagnosis == diagnosis


def test_symmetric_scores_give_symmetric_weights_only_with_equal_row_sums():
    # One matrix: scores symmetric. Two words with x_1 W = (1, 0), x_2 W = (3, 0): scores
    # [[1, 3], [3, 9]]; w_12 = e^3/(e + e^3), w_21 = e^3/(e^3 + e^9): not equal.
    s = np.array([[1.0, 3.0], [3.0, 9.0]])
    w = np.exp(s) / np.exp(s).sum(axis=1, keepdims=True)
    assert not np.isclose(w[0, 1], w[1, 0])
    # One-hot projections (the chapter's K Kᵀ = I): every row sums to the same, weights symmetric
    w_eye = np.exp(np.eye(3)) / np.exp(np.eye(3)).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(w_eye, w_eye.T)
    assert ch5.symmetric_weights.check("sometimes").ok
    assert ch5.symmetric_weights.check("always").diagnosis == "chose-always"
    assert ch5.symmetric_weights.check("never").diagnosis == "chose-never"


@pytest.mark.parametrize(
    ("answer", "diagnosis"),
    [
        ([9, 5, 9, 12], "swapped-sides"),
        ([5, 9, 9, 12], "output-per-key"),
        ([5, 9, 5, 8], "output-width-d-k"),
        ([5, 9, 5, 16], "output-width-d-model"),
        ([5, 5, 5, 12], "square"),
    ],
)
def test_cross_shapes_names_each_slip(answer, diagnosis):
    assert ch5.cross_shapes.check(answer).diagnosis == diagnosis


def test_cross_shapes_by_hand():
    # L = 5 queries, S = 9 keys: weights (5, 9); output (5, 9) @ (9, d_v = 12) -> (5, 12)
    assert ch5.cross_shapes.inputs == (5, 9, 16, 8, 12)
    assert ch5.cross_shapes.check([5, 9, 5, 12]).ok


def test_restore_order_undoes_the_shuffle_with_plain_loops():
    # Y = Attention(X[order]); row k of Y belongs at place order[k] (a loop, no argsort)
    def restore(Y, order):
        out = np.empty_like(Y)
        for k, place in enumerate(order):
            out[..., place, :] = Y[..., k, :]
        return out

    assert ch5.restore_order.check(restore).ok
    for case in ch5.restore_order.cases():  # and it is the original sentence's output
        Y, order = case.args
        if not case.batched and len(order) == 3:
            x, w_q, w_k, w_v = ch5._sentence_case()
            np.testing.assert_allclose(restore(Y, order), _loop_attention(x, w_q, w_k, w_v))


def test_restore_order_names_the_forward_permutation_and_the_batch_axis():
    assert ch5.restore_order.check(lambda Y, order: Y[..., order, :]).diagnosis == (
        "order-applied-twice"
    )
    assert ch5.restore_order.check(lambda Y, order: Y[np.argsort(order)]).diagnosis == (
        "permuted-batch-axis"
    )


def test_the_verb_design_is_judged_by_the_weights_it_gives():
    # [0, 2, 0]: e^(2/√3) / (e^(2/√3) + 2) = 0.613 >= 0.5 on 나는
    assert _verb_weights_by_hand([0, 2, 0])[0] > 0.6
    assert ch5.verb_finds_subject.check([0, 2, 0]).ok
    assert ch5.verb_finds_subject.check([0, 5, 0]).ok  # many designs pass
    assert ch5.verb_finds_subject.check([-1, 3, 0.5]).ok
    # [0, 1, 0]: e^(1/√3) / (e^(1/√3) + 2) = 0.47 < 0.5: the right word, not loud enough
    assert _verb_weights_by_hand([0, 1, 0])[0] < 0.5
    assert ch5.verb_finds_subject.check([0, 1, 0]).diagnosis == "not-loud-enough"
    expected = {
        (0, 0, 0): "uniform",
        (0, -2, 0): "avoids-the-subject",
        (2, 0, 0): "finds-itself",
        (0, 0, 2): "finds-the-object",
        (0, 2, 2): "tied",
    }
    for row, diagnosis in expected.items():
        assert ch5.verb_finds_subject.check(list(row)).diagnosis == diagnosis, row
    assert ch5.verb_finds_subject.check([0, 2]).diagnosis == "wrong-count"
    assert ch5.verb_finds_subject.check(...).status == "unanswered"


def test_the_bug_fires_and_the_fix_passes_against_plain_loops():
    assert ch5.three_projections_bug.check(ch5.three_projections_bug.buggy).diagnosis == (
        "keys-from-query-matrix"
    )

    def fixed(X, W_Q, W_K, W_V):  # any number of leading axes, one at a time
        if X.ndim > 2:
            return np.array([fixed(x, W_Q, W_K, W_V) for x in X])
        return _loop_attention(X, W_Q, W_K, W_V)

    assert ch5.three_projections_bug.check(fixed).ok


def test_values_not_projected_is_named():
    def values_as_tokens(X, W_Q, W_K, W_V):
        return np.stack(
            [
                _loop_attention(x, W_Q, W_K, np.eye(X.shape[-1]))
                for x in X.reshape(-1, *X.shape[-2:])
            ]
        ).reshape(*X.shape[:-1], X.shape[-1])

    assert ch5.three_projections_bug.check(values_as_tokens).diagnosis == "values-not-projected"


def test_the_sentence_case_by_hand():
    # 사과를's query (2, 2, 0) against the keys (0,1,0), (0,0,1), (1,0,0): scores 2, 0, 2
    e = math.exp(2 / math.sqrt(3))
    x, w_q, w_k, w_v = ch5._sentence_case()
    weights_apple = [e / (2 * e + 1), 1 / (2 * e + 1), e / (2 * e + 1)]
    np.testing.assert_allclose(_loop_attention(x, w_q, w_k, w_v)[1], weights_apple)


def test_the_shown_bug_fixed_in_one_line_runs_with_the_chapters_imports_only():
    # The chapter imports numpy as np and attn_core as ac, not math: a reader who copies
    # the shown function and changes only the keys' line must get a working function.

    source = str(ch5.three_projections_bug.show())
    buggy_line = "K = X @ W_Q"
    assert source.count(buggy_line) == 1
    fixed = source.replace(buggy_line, "K = X @ W_K")
    assert all(len(line) <= 75 for line in source.splitlines())  # the book's code column
    namespace = {"np": np, "ac": ac}
    exec(fixed, namespace)
    assert ch5.three_projections_bug.check(namespace["self_attention"]).ok


def test_a_design_answer_of_the_wrong_form_gets_one_line_and_never_raises():
    ex = ch5.verb_finds_subject
    assert ex.check("text").diagnosis == "not-numeric"
    assert ex.check([0, None, 0]).diagnosis == "not-finite"
    assert ex.check([[0, 2, 0]]).diagnosis == "wrong-count"
    assert ex.check(np.array([0.0, 2.0, 0.0])).ok and ex.check((0, 2, 0)).ok
    assert ex.check([0, 1e6, 0]).ok  # a very loud question still does what was asked


def _typed(X, W_Q, W_K, W_V, slip=None):
    """Self-attention as a reader types it in plain numpy, right or with one ``slip``."""
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V  # [..., n, d_k], [..., n, d_k], [..., n, d_v]
    if slip == "swapped":
        Q, K = K, Q
    if slip == "V = X":
        V = X
    K_t = K.T if slip == "K.T" else np.swapaxes(K, -1, -2)
    width = {"no scale": 1, "√d_model": X.shape[-1]}.get(slip, Q.shape[-1])
    scores = Q @ K_t / np.sqrt(width)  # [..., n, n]
    axis = -2 if slip == "axis -2" else -1
    top = 0 if slip == "naive" else scores.max(axis=axis, keepdims=True)
    e = np.exp(scores - top)
    weights = e / e.sum(axis=axis, keepdims=True)
    return weights if slip == "no V" else weights @ V


def test_my_self_attention_agrees_with_plain_loops_on_every_case():
    for case in ch5.my_self_attention.cases():
        X, W_Q, W_K, W_V = case.args
        by_loops = np.stack(
            [_loop_attention(x, W_Q, W_K, W_V) for x in X.reshape(-1, *X.shape[-2:])]
        )
        np.testing.assert_allclose(_typed(*case.args).reshape(by_loops.shape), by_loops, atol=1e-9)
    assert ch5.my_self_attention.check(_typed).ok


def test_my_self_attention_cases_are_the_ones_the_chapter_teaches():
    cases = ch5.my_self_attention.cases()
    X, W_Q = cases[0].args[:2]
    assert np.array_equal(X, ch5._sentence_case()[0]) and X.shape[-1] != W_Q.shape[-1]
    assert any(c.args[2].shape[-1] != c.args[3].shape[-1] for c in cases)  # d_k ≠ d_v
    batches = [c for c in cases if c.batched]
    assert batches and all(c.args[0].ndim >= 3 for c in batches)
    assert {c.args[0].shape[:-2] for c in batches} >= {(1,), (2,), (2, 3)}  # any batch
    # a B = n = d_k batch, where K.T runs without an error
    assert any(c.args[0].shape[0] == c.args[0].shape[1] == c.args[1].shape[1] for c in batches)
    with np.errstate(over="ignore", invalid="ignore"):
        naive = [_typed(*c.args, slip="naive") for c in cases if not c.batched]
    assert sum(not np.isfinite(out).all() for out in naive) >= 2  # the two large cases


def _slip(name):
    return lambda X, W_Q, W_K, W_V: _typed(X, W_Q, W_K, W_V, slip=name)


# The typed answers the tests give each exercise: a correct one and one wrong answer per
# diagnosis (the buggy function of a find-the-bug and a choice's wrong options are added by
# answer_inputs.mistakes).
ANSWERS = {
    "ch5-scores-by-hand": Answers(
        solution=[[4, -1], [-2, 1]],
        mistakes=[
            Mistake("X Xᵀ", [[5, 2], [2, 2]], "not-projected"),
            Mistake("Q Qᵀ", [[5, -1], [-1, 1]], "query-matrix-twice"),
            Mistake("K Kᵀ", [[5, -2], [-2, 1]], "key-matrix-twice"),
            Mistake("K Qᵀ", [[4, -2], [-1, 1]], "transposed"),
            Mistake("scaled", [[2.828, -0.707], [-1.414, 0.707]], "scaled"),
            Mistake("one row", [4, -1], "wrong-count"),
        ],
    ),
    "ch5-cross-shapes": Answers(
        solution=[5, 9, 5, 12],
        mistakes=[
            Mistake("S × L", [9, 5, 9, 12], "swapped-sides"),
            Mistake("weights S × L, output right", [9, 5, 5, 12], "weights-transposed"),
            Mistake("output (S, d_v)", [5, 9, 9, 12], "output-per-key"),
            Mistake("output (L, d_k)", [5, 9, 5, 8], "output-width-d-k"),
            Mistake("output (L, d_model)", [5, 9, 5, 16], "output-width-d-model"),
            Mistake("L × L", [5, 5, 5, 12], "square"),
        ],
    ),
    "ch5-restore-order": Answers(
        solution=ch5._restore,
        mistakes=[
            Mistake("Y[order]", lambda Y, order: Y[..., order, :], "order-applied-twice"),
            Mistake(
                "Y[np.argsort(order)]",
                lambda Y, order: Y[np.argsort(order)],
                "permuted-batch-axis",
            ),
        ],
    ),
    "ch5-design-verb-subject": Answers(
        solution=[0, 2, 0],
        mistakes=[
            Mistake("a zero row", [0, 0, 0], "uniform"),
            Mistake("asks away from the actor", [0, -2, 0], "avoids-the-subject"),
            Mistake("asks for the action", [2, 0, 0], "finds-itself"),
            Mistake("the chapter's row", [0, 0, 2], "finds-the-object"),
            Mistake("asks for actor and patient", [0, 2, 2], "tied"),
            Mistake("the right direction, softly", [0, 1, 0], "not-loud-enough"),
            Mistake("two numbers", [0, 2], "wrong-count"),
        ],
    ),
    "ch5-my-self-attention": Answers(
        solution=_typed,
        mistakes=[
            Mistake("K Qᵀ", _slip("swapped"), "queries-and-keys-swapped"),
            Mistake("no 1/√d_k", _slip("no scale"), "forgot-scale"),
            Mistake("1/√d_model", _slip("√d_model"), "scaled-by-d-model"),
            Mistake("softmax over axis -2", _slip("axis -2"), "softmax-over-queries"),
            Mistake("K.T on a batch", _slip("K.T"), "kT-on-batch"),
            Mistake("the weights returned", _slip("no V"), "returned-weights"),
            Mistake("V = X", _slip("V = X"), "values-not-projected"),
            Mistake("np.exp(scores) / sum", _slip("naive"), "nan-large-scores"),
        ],
    ),
    "ch5-bug-three-projections": Answers(
        solution=lambda X, W_Q, W_K, W_V: ch5._projected(X, W_Q, W_K, W_V),
        mistakes=[
            Mistake(
                "Q and K swapped",
                lambda X, W_Q, W_K, W_V: ac.scaled_dot_product_attention(X @ W_K, X @ W_Q, X @ W_V),
                "queries-and-keys-swapped",
            ),
            Mistake(
                "Q from W_K",
                lambda X, W_Q, W_K, W_V: ch5._projected(X, W_K, W_K, W_V),
                "queries-from-key-matrix",
            ),
            Mistake(
                "V = X",
                lambda X, W_Q, W_K, W_V: ac.scaled_dot_product_attention(X @ W_Q, X @ W_K, X),
                "values-not-projected",
            ),
            Mistake(
                "√d_model",
                lambda X, W_Q, W_K, W_V: ac.scaled_dot_product_attention(
                    X @ W_Q, X @ W_K, X @ W_V, scale=1 / math.sqrt(X.shape[-1])
                ),
                "scaled-by-d-model",
            ),
        ],
    ),
}
