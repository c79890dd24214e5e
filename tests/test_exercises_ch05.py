"""Chapter 5's checkers: every diagnosis fires on its wrong answer, the solutions pass.

Expected values are derived by hand (in the comments) or with plain-Python loops, not
taken from the module.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

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


def test_same_matrix_is_equal_because_the_scores_are_symmetric():
    w = np.random.default_rng(3).normal(size=(4, 3))
    x = np.random.default_rng(4).normal(size=(5, 4))
    scores = (x @ w) @ (x @ w).T
    np.testing.assert_allclose(scores, scores.T)  # the fact the answer rests on
    assert ch5.same_matrix.check("equal").ok
    assert ch5.same_matrix.check("opposite").diagnosis == "chose-opposite"
    assert ch5.same_matrix.check("unrelated").diagnosis == "chose-unrelated"


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


def test_shuffled_sentence_is_same():
    assert ch5.shuffled_sentence.check("same").ok
    assert ch5.shuffled_sentence.check("different").diagnosis == "chose-different"


def test_the_bug_fires_and_the_fix_passes_against_plain_loops():
    assert ch5.keys_from_queries.check(ch5.keys_from_queries.buggy).diagnosis == (
        "keys-from-query-matrix"
    )

    def fixed(X, W_Q, W_K, W_V):
        return (
            np.array([_loop_attention(x, W_Q, W_K, W_V) for x in X])
            if X.ndim == 3
            else (_loop_attention(X, W_Q, W_K, W_V))
        )

    assert ch5.keys_from_queries.check(fixed).ok


def test_values_not_projected_is_named():
    def values_as_tokens(X, W_Q, W_K, W_V):
        return np.stack(
            [
                _loop_attention(x, W_Q, W_K, np.eye(X.shape[-1]))
                for x in X.reshape(-1, *X.shape[-2:])
            ]
        ).reshape(*X.shape[:-1], X.shape[-1])

    assert ch5.keys_from_queries.check(values_as_tokens).diagnosis == "values-not-projected"


def test_the_sentence_case_by_hand():
    # 사과를's query (2, 2, 0) against the keys (0,1,0), (0,0,1), (1,0,0): scores 2, 0, 2
    e = math.exp(2 / math.sqrt(3))
    x, w_q, w_k, w_v = ch5._sentence_case()
    weights_apple = [e / (2 * e + 1), 1 / (2 * e + 1), e / (2 * e + 1)]
    np.testing.assert_allclose(_loop_attention(x, w_q, w_k, w_v)[1], weights_apple)


def test_the_shown_bug_fixed_in_one_line_runs_with_the_chapters_imports_only():
    # The chapter imports numpy as np and attn_core as ac, not math: a reader who copies
    # the shown function and changes only the keys' line must get a working function.
    import attn_core as ac

    source = str(ch5.keys_from_queries.show())
    buggy_line = "K = X @ W_Q"
    assert source.count(buggy_line) == 1
    fixed = source.replace(buggy_line, "K = X @ W_K")
    assert all(len(line) <= 75 for line in source.splitlines())  # the book's code column
    namespace = {"np": np, "ac": ac}
    exec(fixed, namespace)
    assert ch5.keys_from_queries.check(namespace["self_attention"]).ok
