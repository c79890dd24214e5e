"""Every row of chapter 2's fully-masked-row table, run against the installed PyTorch.

The table (attn_book.masked_row.FULLY_MASKED_ROW) says what each call gives a
query whose keys are all masked; each test below makes that call (the PyTorch ones are
tests/masked_row_calls.py's, shared with chapter 7's table) and classifies what comes back
as "NaN" or "zeros". Skipped without torch.
"""

import numpy as np
import pytest
from masked_row_calls import (
    classify,
    mha_eval_cross,
    mha_eval_seq_first,
    mha_fast_path,
    mha_need_weights,
    mha_no_weights,
    sdpa,
)

import attn_core as ac
from attn_book.masked_row import FULLY_MASKED_ROW

ROWS = {row.id: row for row in FULLY_MASKED_ROW}
MEASURED_WITH = "2.13"  # the PyTorch release the table was measured with


def torch_softmax(torch):
    return torch.softmax(torch.full((3,), float("-inf")), dim=-1).numpy()


def attn_core_row(torch):
    scores = np.full((2, 3), -np.inf)
    weights = ac.softmax(scores)
    q, k = np.ones((2, 4)), np.ones((3, 4))
    masked = ac.attention_weights(q, k, attn_mask=np.zeros((2, 3), dtype=bool))
    return np.stack([weights, masked])


CALLS = {
    "torch-softmax": torch_softmax,
    "sdpa": sdpa,
    "mha-need-weights": mha_need_weights,
    "mha-no-weights": mha_no_weights,
    "mha-fast-path": mha_fast_path,
    "mha-eval-seq-first": mha_eval_seq_first,
    "mha-eval-cross": mha_eval_cross,
    "attn-core": attn_core_row,
}


def test_every_row_of_the_table_has_a_call():
    assert sorted(CALLS) == sorted(ROWS)
    assert all(row.result in ("NaN", "zeros") for row in FULLY_MASKED_ROW)


@pytest.mark.parametrize("row_id", list(ROWS))
def test_the_row_says_what_the_call_gives(row_id):
    torch = pytest.importorskip("torch")
    assert classify(CALLS[row_id](torch)) == ROWS[row_id].result, ROWS[row_id].call


def test_the_table_was_measured_with_this_release_or_says_which():
    torch = pytest.importorskip("torch")
    installed = ".".join(torch.__version__.split("+")[0].split(".")[:2])
    if installed != MEASURED_WITH:
        pytest.skip(f"table measured with torch {MEASURED_WITH}, installed {installed}")
    assert installed == MEASURED_WITH


def test_float16_masked_fill_with_minus_1e9_raises_where_numpy_rounds_to_minus_inf():
    torch = pytest.importorskip("torch")
    scores = torch.zeros(3, dtype=torch.float16)
    with pytest.raises(RuntimeError, match="c10::Half without overflow"):
        scores.masked_fill(torch.tensor([True, False, True]), -1e9)
    with pytest.warns(RuntimeWarning, match="overflow"):
        rounded = np.where([True, False, True], np.zeros(3, np.float16), -1e9)
    assert rounded.dtype == np.float16 and rounded[1] == -np.inf
