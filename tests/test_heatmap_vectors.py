"""AttentionHeatmap with explicit queries and keys (chapter 5's X @ W_Q, X @ W_K)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_book.widgets import AttentionHeatmap


def test_explicit_vectors_give_the_softmax_of_their_scaled_dot_products_by_hand():
    # scores of row 0: (1, 0, 1) / sqrt(3); e^(1/sqrt 3) and 1 share the row
    e = math.exp(1 / math.sqrt(3))
    hm = AttentionHeatmap(
        query_tokens=["a", "b"],
        key_tokens=["x", "y", "z"],
        query_vectors=[[1, 1, 0], [0, 0, 0]],
        key_vectors=[[0, 1, 0], [0, 0, 1], [1, 0, 0]],
        selected=0,
    )
    np.testing.assert_allclose(hm.weights[0], [e / (2 * e + 1), 1 / (2 * e + 1), e / (2 * e + 1)])
    np.testing.assert_allclose(hm.weights[1], [1 / 3] * 3)  # a zero query: uniform
    assert hm.n_heads == 1 and np.shape(hm.head_queries) == (1, 2, 3)
    assert hm.row == hm.weights[0]


def test_explicit_vectors_follow_temperature_and_causal_like_the_random_heads():
    hm = AttentionHeatmap(
        query_tokens=["a", "b"], query_vectors=np.eye(2), key_vectors=np.eye(2), causal=True
    )
    assert hm.weights[0] == [1.0, 0.0]
    hm.causal, hm.scaled = False, False
    e = math.e
    np.testing.assert_allclose(hm.weights[1], [1 / (1 + e), e / (1 + e)])


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"query_vectors": np.eye(2)}, "go together"),
        ({"query_vectors": np.eye(2), "key_vectors": np.eye(2), "n_heads": 2}, "n_heads=2"),
        ({"query_vectors": np.eye(3), "key_vectors": np.eye(3)}, r"\(L=2, E\).*\(3, 3\)"),
        ({"query_vectors": np.eye(2), "key_vectors": np.ones((2, 3))}, r"\(2, 2\) and \(2, 3\)"),
    ],
)
def test_mismatched_vectors_are_refused_naming_the_shapes(kwargs, words):
    with pytest.raises(ValueError, match=words):
        AttentionHeatmap(query_tokens=["a", "b"], **kwargs)


def test_a_refused_change_rolls_back():
    hm = AttentionHeatmap(query_tokens=["a", "b"], query_vectors=np.eye(2), key_vectors=np.eye(2))
    before = hm.weights
    with pytest.raises(ValueError, match="query_vectors"):
        hm.query_vectors = np.ones((3, 2))
    assert hm.weights == before and np.shape(hm.query_vectors) == (2, 2)
