"""Packed documents: the block-diagonal mask, against a loop and against attending to each
document on its own."""

import numpy as np
import pytest

import attn_core as ac


def mask_by_loop(lengths, causal):
    """Token i of the row may see token j iff they lie in one document (and j ≤ i)."""
    owner = [d for d, n in enumerate(lengths) for _ in range(n)]
    N = len(owner)
    return np.array(
        [[owner[i] == owner[j] and (j <= i or not causal) for j in range(N)] for i in range(N)]
    )


@pytest.mark.parametrize("lengths", [[1], [3], [2, 1], [1, 1, 1], [4, 2, 3]])
@pytest.mark.parametrize("causal", [True, False])
def test_document_mask_is_the_loop(lengths, causal):
    np.testing.assert_array_equal(
        ac.document_mask(lengths, causal=causal), mask_by_loop(lengths, causal)
    )


@pytest.mark.parametrize("causal", [True, False])
def test_packed_row_attends_as_each_document_alone(causal):
    rng = np.random.default_rng(7)
    lengths = [3, 1, 4]
    x = rng.normal(size=(sum(lengths), 6))
    packed = ac.scaled_dot_product_attention(
        x, x, x, attn_mask=ac.document_mask(lengths, causal=causal)
    )
    start = 0
    for n in lengths:
        doc = x[start : start + n]
        alone = ac.scaled_dot_product_attention(doc, doc, doc, is_causal=causal)
        np.testing.assert_allclose(packed[start : start + n], alone, rtol=1e-12, atol=1e-12)
        start += n


@pytest.mark.parametrize(
    "lengths, needle",
    [([2, 0], "positive integers"), ([2.5], "positive integers"), ([[1, 2]], r"shape \(1, 2\)")],
)
def test_document_mask_refuses_bad_lengths(lengths, needle):
    with pytest.raises(ValueError, match=needle):
        ac.document_mask(lengths)


def test_document_mask_refuses_a_string_flag():
    with pytest.raises((TypeError, ValueError), match="causal"):
        ac.document_mask([2], causal="False")
