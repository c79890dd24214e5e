"""Chapter 7's PyTorch claims, run against the installed PyTorch (skipped without it).

The chapter's table of what a fully masked row gives names, for each PyTorch call, what a
boolean True means and what the row gives. The table is read from ``book/07_heads_and_masks.py``
itself, so that a row edited there is checked as written: every PyTorch row must have a call
below, and each call's result, classified as "zeros" or "NaN", must be the first word of the
row's answer (the calls are tests/masked_row_calls.py's, shared with chapter 2's table). The
chapter's ``is_causal=True`` with fewer queries than keys is checked too.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from masked_row_calls import (
    classify,
    mha_attn_mask_need_weights,
    mha_eval_cross,
    mha_eval_seq_first,
    mha_fast_path,
    mha_layer,
    mha_need_weights,
    mha_no_weights,
    sdpa,
)

import attn_core as ac

CHAPTER = Path(__file__).resolve().parent.parent / "book" / "07_heads_and_masks.py"
ROW = re.compile(r"^# \| (?P<api>[^|]+?) \| (?P<true_means>[^|]+?) \| (?P<gives>[^|]+?) \|$")


def table_rows():
    """{API cell: (what True means, what the row gives)} of the chapter's PyTorch rows."""
    rows = {}
    for line in CHAPTER.read_text(encoding="utf-8").splitlines():
        found = ROW.match(line)
        if found and ("F." in found["api"] or "nn." in found["api"] or "same" in found["api"]):
            rows[found["api"]] = (found["true_means"].strip("* "), found["gives"])
    return rows


CALLS = {
    "`F.scaled_dot_product_attention`": sdpa,
    "`nn.MultiheadAttention`'s `key_padding_mask`, `need_weights=True` (the default)": (
        mha_need_weights
    ),
    "the same, `need_weights=False`, training or with autograd on": mha_no_weights,
    "`nn.MultiheadAttention`'s boolean `attn_mask`, `need_weights=True` (the default)": (
        mha_attn_mask_need_weights
    ),
    "the same with `batch_first=True`, self-attention (query is key is value),"
    " `need_weights=False`, `eval()` under `torch.no_grad()` (the inference fast path)": (
        mha_fast_path
    ),
    "the same in `eval()` under `torch.no_grad()`, but `batch_first=False` (the default)": (
        mha_eval_seq_first
    ),
    "the same in `eval()` under `torch.no_grad()`, but cross-attention (query not key)": (
        mha_eval_cross
    ),
}


def test_every_pytorch_row_of_the_table_has_a_call():
    assert sorted(table_rows()) == sorted(CALLS)


@pytest.mark.parametrize("api", list(CALLS))
def test_the_row_says_what_the_call_gives(api):
    torch = pytest.importorskip("torch")
    _, gives = table_rows()[api]
    assert classify(CALLS[api](torch)) == gives.split()[0].rstrip(":,"), api


def test_what_a_boolean_true_means_in_each_row():
    torch = pytest.importorskip("torch")
    rows = table_rows()
    q, k = torch.randn(1, 1, 1, 4), torch.randn(1, 1, 3, 4)
    only_first = torch.tensor([[True, False, False]])  # [L, S] = [1, 3]
    weights = torch.nn.functional.scaled_dot_product_attention(
        q, k, torch.eye(3)[None, None], attn_mask=only_first
    )  # one-hot values: the output is the weights
    sdpa_means = "may attend" if weights[0, 0, 0, 0] == 1 else "ignore"
    assert rows["`F.scaled_dot_product_attention`"][0] == sdpa_means
    mha, x, _ = mha_layer(torch)
    _, mha_weights = mha(x, x, x, key_padding_mask=only_first)  # [B, S]
    mha_means = "ignore" if (mha_weights[0, :, 0] == 0).all() else "may attend"
    # the boolean attn_mask [L, S] reads the same way: True above the diagonal is causal
    above_diagonal = torch.triu(torch.ones(3, 3, dtype=torch.bool), diagonal=1)
    _, causal_weights = mha(x, x, x, attn_mask=above_diagonal)
    assert (causal_weights[0][above_diagonal] == 0).all()
    assert (causal_weights[0][~above_diagonal] > 0).all()
    for api in CALLS:
        if api != "`F.scaled_dot_product_attention`":
            assert rows[api][0] == mha_means, api


def test_is_causal_with_one_query_and_five_keys_is_aligned_top_left():
    """The chapter's cached-decoding bug: one new query sees only key 0, in both libraries."""
    torch = pytest.importorskip("torch")
    q, k = (
        np.random.default_rng(0).normal(size=(1, 4)),
        np.random.default_rng(1).normal(size=(5, 4)),
    )
    v = torch.eye(5)[None, None]  # one-hot values: the output is the weights
    weights = torch.nn.functional.scaled_dot_product_attention(
        torch.from_numpy(q)[None, None].float(),
        torch.from_numpy(k)[None, None].float(),
        v,
        is_causal=True,
    )
    assert weights[0, 0, 0].tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
    np.testing.assert_array_equal(ac.attention_weights(q, k, is_causal=True), [[1, 0, 0, 0, 0]])


def test_the_bottom_right_triangle_is_pytorchs_causal_lower_right():
    torch = pytest.importorskip("torch")
    from torch.nn.attention.bias import causal_lower_right

    for L, S in [(1, 5), (2, 5), (3, 3)]:
        bottom_right = np.tril(np.ones((L, S), dtype=bool), k=S - L)  # as the chapter builds it
        q, k = torch.randn(1, 1, L, 4), torch.randn(1, 1, S, 4)
        v = torch.eye(S)[None, None]
        weights = torch.nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=causal_lower_right(L, S)
        )[0, 0]
        np.testing.assert_array_equal(weights.numpy() > 0, bottom_right)
    assert (np.tril(np.ones((3, 3), dtype=bool), k=0) == ac.causal_mask(3)).all()
