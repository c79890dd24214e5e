"""Every row of chapter 2's fully-masked-row table, run against the installed PyTorch.

The table (attn_book.masked_row.FULLY_MASKED_ROW) says what each call gives a
query whose keys are all masked; each test below makes that call and classifies
what comes back as "NaN" or "zeros". Skipped without torch.
"""

import numpy as np
import pytest

import attn_core as ac
from attn_book.masked_row import FULLY_MASKED_ROW, MEASURED_WITH

ROWS = {row.id: row for row in FULLY_MASKED_ROW}


def classify(x):
    """'NaN' if every entry is NaN, 'zeros' if every entry is 0, else 'other'."""
    x = np.asarray(x, dtype=float)
    if np.isnan(x).all():
        return "NaN"
    if np.array_equal(x, np.zeros_like(x)):
        return "zeros"
    return "other"


def _mha(torch, *, bias):
    """A 2-head layer on E = 4; its output projection's bias is ``bias`` (0 at PyTorch's init)."""
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(4, 2, batch_first=True)
    with torch.no_grad():
        mha.out_proj.bias.fill_(bias)
    x = torch.randn(1, 3, 4)
    everything_hidden = torch.ones(1, 3, dtype=torch.bool)  # MHA: True = ignore this key
    return mha, x, everything_hidden


def torch_softmax(torch):
    return torch.softmax(torch.full((3,), float("-inf")), dim=-1).numpy()


def sdpa(torch):
    q, k, v = (torch.randn(1, 1, 3, 4) for _ in range(3))
    nothing = torch.zeros(1, 1, 3, 3, dtype=torch.bool)  # SDPA: True = may attend
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=nothing).numpy()


def mha_need_weights(torch):
    mha, x, pad = _mha(torch, bias=0.0)
    out, weights = mha(x, x, x, key_padding_mask=pad)  # need_weights=True is the default
    assert classify(weights.detach()) == classify(out.detach())  # both NaN
    return out.detach().numpy()


def mha_no_weights(torch):
    mha, x, pad = _mha(torch, bias=0.5)
    results = []
    for training in (True, False):  # autograd on in both; training also avoids the fast path
        mha.train(training)
        out, weights = mha(x, x, x, key_padding_mask=pad, need_weights=False)
        assert weights is None
        # zero attention output: the layer returns its output projection's bias, 0.5
        results.append(out.detach().numpy() - 0.5)
    return np.stack(results)


def mha_fast_path(torch):
    mha, x, pad = _mha(torch, bias=0.0)
    mha.eval()
    with torch.no_grad():
        out, _ = mha(x, x, x, key_padding_mask=pad, need_weights=False)
    return out.numpy()


def mha_eval_seq_first(torch):
    """batch_first=False, the default: eval() under no_grad() takes no fast path."""
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(4, 2).eval()  # batch_first=False: [L, B, E]
    x = torch.randn(3, 1, 4)
    everything_hidden = torch.ones(1, 3, dtype=torch.bool)  # [B, S], True = ignore
    with torch.no_grad():
        out, _ = mha(x, x, x, key_padding_mask=everything_hidden, need_weights=False)
    return out.numpy() - mha.out_proj.bias.detach().numpy()


def mha_eval_cross(torch):
    """Cross-attention (a query tensor other than the keys'): no fast path either."""
    mha, x, pad = _mha(torch, bias=0.0)
    mha.eval()
    query = torch.randn(1, 2, 4)
    with torch.no_grad():
        out, _ = mha(query, x, x, key_padding_mask=pad, need_weights=False)
    return out.numpy()


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
