"""What each library gives a fully masked row: a table, checked by a test.

A query whose keys are *all* masked has nothing to attend to: every score is
−∞ and softmax reads 0/0. The libraries differ, and PyTorch differs from itself
depending on the call. :data:`FULLY_MASKED_ROW` is that table (no chapter prints it:
chapter 7 gives the comparison as a Markdown table in its prose);
``tests/test_masked_row_torch.py`` runs every row's call against the installed
PyTorch (and attn_core) and fails if a row no longer says what it gives.

Examples
--------
>>> [row.result for row in FULLY_MASKED_ROW][:2]
['NaN', 'zeros']
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["FULLY_MASKED_ROW", "MaskedRowCall"]


class MaskedRowCall(NamedTuple):
    """One row of the table: an id for the test, the call in words, and what it returns."""

    id: str
    call: str
    result: str  # "NaN" or "zeros"
    note: str


FULLY_MASKED_ROW = (
    MaskedRowCall(
        "torch-softmax",
        "torch.softmax of a row of −∞",
        "NaN",
        "0/0, as the textbook formula",
    ),
    MaskedRowCall(
        "sdpa",
        "F.scaled_dot_product_attention, boolean attn_mask all False",
        "zeros",
        "zero weights, so a zero output (CPU kernels; a GPU kernel may differ)",
    ),
    MaskedRowCall(
        "mha-need-weights",
        "nn.MultiheadAttention, key_padding_mask all True, need_weights=True (the default)",
        "NaN",
        "NaN weights and NaN output",
    ),
    MaskedRowCall(
        "mha-no-weights",
        "nn.MultiheadAttention, need_weights=False, training or with autograd on",
        "zeros",
        "it calls SDPA: zero weights; the layer returns its output projection's bias",
    ),
    MaskedRowCall(
        "mha-fast-path",
        "nn.MultiheadAttention(batch_first=True), self-attention (query is key is value),"
        " need_weights=False, eval() under torch.no_grad()",
        "NaN",
        "the inference fast path: NaN output",
    ),
    MaskedRowCall(
        "mha-eval-seq-first",
        "the same in eval() under torch.no_grad(), but batch_first=False (the default)",
        "zeros",
        "no fast path: it calls SDPA, as in training",
    ),
    MaskedRowCall(
        "mha-eval-cross",
        "the same in eval() under torch.no_grad(), batch_first=True, but cross-attention"
        " (query not key)",
        "zeros",
        "no fast path: it calls SDPA, as in training",
    ),
    MaskedRowCall(
        "attn-core",
        "ac.softmax and ac.attention_weights (this book)",
        "zeros",
        "zero weights, so a zero output",
    ),
)
