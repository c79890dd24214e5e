"""A catalogue of hostile and careless input to attn_core (issue 16), one row per input.

Each row is an input and its exact outcome: the value (derived by hand or by a plain-Python
loop, never by attn_core) or the error type and the words its message must contain, which
always include the argument at fault. Rows are grouped by the issue's kinds of failure.
"""

import math
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import attn_core as ac
from attn_book import experiments as stats
from attn_book.data import toy_embeddings

F64_MAX = float(np.finfo(np.float64).max)
Q, K, V = np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2))
D4 = np.eye(4)


class Raises(NamedTuple):
    """The call raises ``exc`` with a message containing every fragment."""

    exc: type
    fragments: tuple

    def check(self, call):
        with pytest.raises(self.exc) as info:
            call()
        missing = [f for f in self.fragments if f not in str(info.value)]
        assert not missing, f"message {str(info.value)!r} lacks {missing}"


class Returns(NamedTuple):
    """The call returns ``expected`` (to ``rtol``/``atol``), of ``dtype`` when given."""

    expected: object
    dtype: object = None
    rtol: float = 1e-12
    atol: float = 0.0

    def check(self, call):
        got = np.asarray(call())
        if self.dtype is not None:
            assert got.dtype == self.dtype, f"dtype {got.dtype}, expected {self.dtype}"
        expected = np.asarray(self.expected, dtype=np.float64)
        assert got.shape == expected.shape, f"shape {got.shape}, expected {expected.shape}"
        np.testing.assert_allclose(got.astype(np.float64), expected, rtol=self.rtol, atol=self.atol)


def err(exc, *fragments):
    return Raises(exc, fragments)


def py_softmax(xs, temperature=1.0):
    """Softmax of a list by a plain-Python loop (math.exp on the shifted values)."""
    finite = [x for x in xs if x != -math.inf]
    peak = max(finite)
    exps = [0.0 if x == -math.inf else math.exp((x - peak) / temperature) for x in xs]
    return [e / sum(exps) for e in exps]


def masked(values, mask):
    return np.ma.array(values, mask=mask)


def ragged():
    return [[1.0, 2.0], [3.0]]


def f16(*values):
    return np.array(values, dtype=np.float16)


def f32(*values):
    return np.array(values, dtype=np.float32)


def mha(**changes):
    """multi_head_attention on 4 tokens of width 4 with identity projections, 2 heads."""
    args = dict(x_q=D4, x_kv=D4, w_q=D4, w_k=D4, w_v=D4, w_o=D4, n_heads=2)
    args.update(changes)
    return lambda: ac.multi_head_attention(**args)


def identity_mha_by_hand():
    """Output of :func:`mha` by hand: token i scores 1/sqrt(2) against itself in its own head.

    In the head that holds feature i, the weights are e^a / (e^a + 3) on key i and
    1 / (e^a + 3) on the other three keys (a = 1/sqrt(2)); in the other head every score
    is 0 and the weights are 1/4. With identity projections the output's feature f is
    the weight on key f in the head that holds f.
    """
    peak = math.exp(1 / math.sqrt(2))
    out = np.full((4, 4), 0.25)
    for i in range(4):
        for f in range(4):
            if f // 2 == i // 2:  # same head
                out[i, f] = (peak if f == i else 1.0) / (peak + 3)
    return out


LOG_HALF = math.log(0.5)
CASES = [
    # --- low precision: accumulate in float32, return the input's dtype ------------------
    (
        "f16 softmax",
        lambda: ac.softmax(f16(1, 2, 3)),
        Returns(py_softmax([1, 2, 3]), np.float16, 1e-3),
    ),
    (
        "f16 S=70000 sum",
        lambda: ac.softmax(np.zeros(70_000, np.float16)),
        Returns(np.full(70_000, 1 / 70_000), np.float16, 0, 2.0**-25),
    ),
    (
        "f16 logsumexp S=70000",
        lambda: ac.logsumexp(np.zeros(70_000, np.float16)),
        Returns(math.log(70_000), np.float16, 1e-3),
    ),
    ("f16 -inf", lambda: ac.softmax(f16(-np.inf, 0)), Returns([0, 1], np.float16)),
    ("f16 65504", lambda: ac.softmax(f16(65504, -65504)), Returns([1, 0], np.float16)),
    (
        "f16 log_softmax",
        lambda: ac.log_softmax(f16(60000, 60000)),
        Returns([LOG_HALF] * 2, np.float16, 1e-3),
    ),
    ("f16 logsumexp", lambda: ac.logsumexp(f16(0, 0)), Returns(math.log(2), np.float16, 1e-3)),
    (
        "f16 entropy",
        lambda: ac.entropy(np.full(4, 0.25, np.float16)),
        Returns(math.log(4), np.float16, 1e-3),
    ),
    (
        "f16 jacobian",
        lambda: ac.softmax_jacobian(f16(0.5, 0.5)),
        Returns([[0.25, -0.25], [-0.25, 0.25]], np.float16),
    ),
    (
        "f16 scores above 65504",
        lambda: ac.attention_weights(f16(300), f16([300], [299]), scale=1.0),
        Returns([1, 0], atol=1e-30),
    ),
    (
        "f16 q·k 3.6e9",
        lambda: ac.attention_weights(f16(60000), f16([60000], [0]), scale=1.0),
        Returns([1, 0]),
    ),
    (
        "f32 T rounds to 0",
        lambda: ac.softmax(f32(1, 2), temperature=1e-50),
        Returns([0, 1], np.float32),
    ),
    (
        "f32 T rounds to 0, -inf",
        lambda: ac.softmax(f32(-np.inf, 1, 2), temperature=1e-50),
        Returns([0, 0, 1], np.float32),
    ),
    (
        "f32 T rounds to inf",
        lambda: ac.softmax(f32(1, 2), temperature=1e300),
        Returns([0.5, 0.5], np.float32),
    ),
    (
        "f32 T rounds to inf, -inf",
        lambda: ac.softmax(f32(-np.inf, 1), temperature=1e300),
        Returns([0, 1], np.float32),
    ),
    ("f64 subnormal T", lambda: ac.softmax([1.0, 2.0], temperature=1e-320), Returns([0, 1])),
    (
        "f32 T = 1e-30",
        lambda: ac.softmax(f32(0, 1e-30), temperature=1e-30),
        Returns(py_softmax([0, 1]), np.float32, 1e-6),
    ),
    # --- accuracy against SciPy (few ulp); values by hand --------------------------------
    (
        "f32 log_softmax 1e4",
        lambda: ac.log_softmax(f32(1e4, 1e4)),
        Returns([LOG_HALF] * 2, np.float32, 1e-7),
    ),
    ("f64 log_softmax +max", lambda: ac.log_softmax([F64_MAX, F64_MAX]), Returns([LOG_HALF] * 2)),
    ("f64 log_softmax -max", lambda: ac.log_softmax([-F64_MAX, -F64_MAX]), Returns([LOG_HALF] * 2)),
    ("f64 log_softmax ±max", lambda: ac.log_softmax([F64_MAX, -F64_MAX]), Returns([0, -np.inf])),
    ("f64 softmax ±max", lambda: ac.softmax([F64_MAX, -F64_MAX]), Returns([1, 0])),
    (
        "logsumexp gh-18295",
        lambda: ac.logsumexp([0.0, -40.0]),
        Returns(math.log1p(math.exp(-40)), rtol=1e-15),
    ),
    (
        "logsumexp 3 maxima",
        lambda: ac.logsumexp([5.0, 5.0, 5.0, -40.0]),
        Returns(5 + math.log(3) + math.log1p(math.exp(-45) / 3), rtol=1e-15),
    ),
    (
        "logsumexp 1000",
        lambda: ac.logsumexp([1000.0, 1000.0]),
        Returns(1000 + math.log(2), rtol=1e-15),
    ),
    (
        "logsumexp +max",
        lambda: ac.logsumexp([F64_MAX, F64_MAX]),
        Returns(F64_MAX),
    ),  # + log 2 < ulp/2
    ("logsumexp -inf row", lambda: ac.logsumexp([-np.inf, -np.inf]), Returns(-np.inf)),
    ("logsumexp empty", lambda: ac.logsumexp(np.zeros(0)), Returns(-np.inf)),
    ("softmax empty", lambda: ac.softmax(np.zeros((2, 0))), Returns(np.zeros((2, 0)))),
    (
        "log_softmax -inf row",
        lambda: ac.log_softmax([[-np.inf, -np.inf]]),
        Returns([[-np.inf, -np.inf]]),
    ),
    (
        "softmax -inf row",
        lambda: ac.softmax([[-np.inf, -np.inf], [0.0, 0.0]]),
        Returns([[0, 0], [0.5, 0.5]]),
    ),
    (
        "log_softmax tiny gap",
        lambda: ac.log_softmax([0.0, -40.0]),
        Returns([-math.log1p(math.exp(-40)), -40 - math.log1p(math.exp(-40))], rtol=1e-15),
    ),
    (
        "log_softmax 1e10 f64",
        lambda: ac.log_softmax([1e10, 1e10 - 1]),
        Returns([-math.log1p(math.exp(-1)), -1 - math.log1p(math.exp(-1))], rtol=1e-15),
    ),
    # --- errors that name what overflowed, not x -------------------------------------------
    (
        "q·k overflows",
        lambda: ac.attention_weights([1e200, 1.0], [[1e200, 1.0]]),
        err(ValueError, "query·key", "overflows"),
    ),
    (
        "q·k overflows sdpa",
        lambda: ac.scaled_dot_product_attention([1e200, 1.0], [[1e200, 1.0]], [[1.0]]),
        err(ValueError, "query·key", "overflows"),
    ),
    (
        "scale overflows",
        lambda: ac.attention_weights([1e150, 1.0], [[1e150, 1.0]], scale=1e10),
        err(ValueError, "scale", "overflows"),
    ),
    (
        "f32 q·k overflows",
        lambda: ac.attention_weights(f32(1e30), f32([1e30]), scale=1.0),
        err(ValueError, "query·key", "float32"),
    ),
    (
        "dot_scores overflow",
        lambda: ac.dot_scores([1e200], [[1e200]]),
        err(ValueError, "query·key"),
    ),
    (
        "mask 1e308",
        lambda: ac.attention_weights(Q, K, np.full((3, 5), 1e308)),
        err(ValueError, "attn_mask", "overflow"),
    ),
    (
        "f32 mask 1e300",
        lambda: ac.attention_weights(
            Q.astype(np.float32), K.astype(np.float32), np.full((3, 5), 1e300)
        ),
        err(ValueError, "attn_mask", "float32"),
    ),
    (
        "E=0 default scale",
        lambda: ac.attention_weights(np.ones((2, 0)), np.ones((3, 0))),
        err(ValueError, "E = 0", "scale"),
    ),
    (
        "E=0 sdpa",
        lambda: ac.scaled_dot_product_attention(np.ones((2, 0)), np.ones((3, 0)), np.ones((3, 1))),
        err(ValueError, "E = 0", "scale"),
    ),
    (
        "E=0 explicit scale",
        lambda: ac.attention_weights(np.ones((2, 0)), np.ones((3, 0)), scale=1.0),
        Returns(np.full((2, 3), 1 / 3)),
    ),
    ("x NaN", lambda: ac.softmax([0.0, np.nan]), err(ValueError, "x", "finite", "x[1]")),
    (
        "query NaN",
        lambda: ac.attention_weights([np.nan, 0.0], K[:, :2]),
        err(ValueError, "query", "finite"),
    ),
    (
        "key inf",
        lambda: ac.attention_weights(Q, np.full((5, 4), np.inf)),
        err(ValueError, "key", "finite"),
    ),
    (
        "value NaN",
        lambda: ac.scaled_dot_product_attention(Q, K, np.full((5, 2), np.nan)),
        err(ValueError, "value", "finite"),
    ),
    (
        "mask NaN",
        lambda: ac.attention_weights(Q, K, np.full((3, 5), np.nan)),
        err(ValueError, "attn_mask", "finite"),
    ),
    (
        "mask +inf",
        lambda: ac.attention_weights(Q, K, np.full((3, 5), np.inf)),
        err(ValueError, "attn_mask", "finite"),
    ),
    (
        "mask -inf is allowed",
        lambda: ac.attention_weights([1.0], [[1.0], [2.0]], [-np.inf, 0.0], scale=1.0),
        Returns([0, 1]),
    ),
    # --- values taken for something else ---------------------------------------------------
    (
        "is_causal 'False'",
        lambda: ac.attention_weights(Q, K, is_causal="False"),
        err(TypeError, "is_causal", "'False'"),
    ),
    (
        "is_causal 'True'",
        lambda: ac.attention_weights(Q, K, is_causal="True"),
        err(TypeError, "is_causal"),
    ),
    ("is_causal 1", lambda: ac.attention_weights(Q, K, is_causal=1), err(TypeError, "is_causal")),
    (
        "is_causal None",
        lambda: ac.attention_weights(Q, K, is_causal=None),
        err(TypeError, "is_causal"),
    ),
    (
        "is_causal sdpa",
        lambda: ac.scaled_dot_product_attention(Q, K, V, is_causal="no"),
        err(TypeError, "is_causal"),
    ),
    ("is_causal mha", mha(is_causal="False"), err(TypeError, "is_causal")),
    (
        "is_causal np.bool_",
        lambda: ac.attention_weights(np.ones((2, 1)), np.ones((2, 1)), is_causal=np.True_),
        Returns([[1, 0], [0.5, 0.5]]),
    ),
    (
        "scale True",
        lambda: ac.attention_weights(Q, K, scale=True),
        err(ValueError, "scale", "True"),
    ),
    ("scale False", lambda: ac.attention_weights(Q, K, scale=False), err(ValueError, "scale")),
    ("scale '1'", lambda: ac.attention_weights(Q, K, scale="1"), err(ValueError, "scale")),
    ("scale list", lambda: ac.attention_weights(Q, K, scale=[1.0]), err(ValueError, "scale")),
    ("scale complex", lambda: ac.attention_weights(Q, K, scale=1j), err(ValueError, "scale")),
    ("scale NaN", lambda: ac.attention_weights(Q, K, scale=np.nan), err(ValueError, "scale")),
    ("scale inf", lambda: ac.attention_weights(Q, K, scale=np.inf), err(ValueError, "scale")),
    (
        "scale np.float32",
        lambda: ac.attention_weights([1.0, 0.0], [[1.0, 0.0], [0.0, 1.0]], scale=np.float32(2.0)),
        Returns(py_softmax([2, 0])),
    ),
    (
        "entropy sums to 1.4",
        lambda: ac.entropy([0.5, 0.9]),
        err(ValueError, "weights", "sum to 1", "1.4"),
    ),
    (
        "entropy sums to 0.5",
        lambda: ac.entropy([[0.25, 0.25], [0.5, 0.5]]),
        err(ValueError, "weights", "[0]", "0.5"),
    ),
    (
        "entropy raw scores",
        lambda: ac.entropy([1.0, 2.0, 3.0]),
        err(ValueError, "weights", "sum to 1"),
    ),
    (
        "entropy negative",
        lambda: ac.entropy([-0.5, 1.5]),
        err(ValueError, "weights", "non-negative", "weights[0]"),
    ),
    (
        "entropy axis 0",
        lambda: ac.entropy([[0.5, 1.0], [0.5, 0.0]], axis=0),
        Returns([math.log(2), 0]),
    ),
    ("entropy masked row", lambda: ac.entropy([[0.0, 0.0], [0.5, 0.5]]), Returns([0, math.log(2)])),
    ("masked x", lambda: ac.softmax(masked([1.0, 2.0], [0, 1])), err(TypeError, "x", "masked")),
    (
        "masked query",
        lambda: ac.attention_weights(masked(Q, False), K),
        err(TypeError, "query", "masked"),
    ),
    (
        "masked key",
        lambda: ac.attention_weights(Q, masked(K, False)),
        err(TypeError, "key", "masked"),
    ),
    (
        "masked value",
        lambda: ac.scaled_dot_product_attention(Q, K, masked(V, False)),
        err(TypeError, "value", "masked"),
    ),
    (
        "masked attn_mask",
        lambda: ac.attention_weights(Q, K, masked(np.ones((3, 5), bool), False)),
        err(TypeError, "attn_mask", "masked"),
    ),
    (
        "masked weights",
        lambda: ac.entropy(masked([0.5, 0.5], [0, 1])),
        err(TypeError, "weights", "masked"),
    ),
    (
        "timedelta x",
        lambda: ac.softmax(np.array([1, 2], dtype="m8[s]")),
        err(TypeError, "x", "timedelta64"),
    ),
    (
        "datetime x",
        lambda: ac.logsumexp(np.array(["2026-01-01"], dtype="M8[D]")),
        err(TypeError, "x", "datetime64"),
    ),
    (
        "timedelta query",
        lambda: ac.attention_weights(np.ones((3, 4), "m8[s]"), K),
        err(TypeError, "query", "timedelta64"),
    ),
    (
        "timedelta mask",
        lambda: ac.attention_weights(Q, K, np.ones((3, 5), "m8[s]")),
        err(TypeError, "attn_mask", "timedelta64"),
    ),
    ("complex x", lambda: ac.softmax([1j, 0.0]), err(TypeError, "x", "complex128")),
    ("complex key", lambda: ac.dot_scores(Q, K * 1j), err(TypeError, "key", "complex")),
    ("string x", lambda: ac.softmax("abc"), err(TypeError, "x", "<U3")),
    ("None entry", lambda: ac.softmax([1.0, None]), err(TypeError, "x", "NoneType")),
    ("dict x", lambda: ac.softmax({"a": 1.0}), err(TypeError, "x", "dict")),
    ("generator x", lambda: ac.softmax(v for v in [1.0, 2.0]), err(TypeError, "x", "generator")),
    (
        "int mask",
        lambda: ac.attention_weights(Q, K, np.ones((3, 5), int)),
        err(TypeError, "attn_mask", "int"),
    ),
    (
        "string mask",
        lambda: ac.attention_weights(Q, K, [["yes"] * 5] * 3),
        err(TypeError, "attn_mask", "<U3"),
    ),
    (
        "mask + is_causal",
        lambda: ac.attention_weights(Q, Q, np.ones((3, 3), bool), is_causal=True),
        err(ValueError, "attn_mask", "is_causal"),
    ),
    (
        "dropout_p True",
        lambda: ac.scaled_dot_product_attention(Q, K, V, dropout_p=True),
        err(ValueError, "dropout_p"),
    ),
    (
        "dropout_p '0.1'",
        lambda: ac.scaled_dot_product_attention(Q, K, V, dropout_p="0.1"),
        err(ValueError, "dropout_p"),
    ),
    (
        "dropout_p no rng",
        lambda: ac.scaled_dot_product_attention(Q, K, V, dropout_p=0.5),
        err(ValueError, "rng"),
    ),
    ("keepdims 'yes'", lambda: ac.logsumexp([1.0], keepdims="yes"), err(TypeError, "keepdims")),
    ("axis 1.0", lambda: ac.softmax([[1.0]], axis=1.0), err(ValueError, "axis=1.0")),
    ("axis True", lambda: ac.softmax([[1.0]], axis=True), err(ValueError, "axis=True")),
    ("axis 5", lambda: ac.log_softmax([[1.0]], axis=5), err(ValueError, "axis=5", "2 axes")),
    (
        "entropy axis 3",
        lambda: ac.entropy([0.5, 0.5], axis=3),
        err(ValueError, "axis=3", "weights"),
    ),
    ("temperature 0", lambda: ac.softmax([1.0], temperature=0), err(ValueError, "temperature")),
    ("temperature -1", lambda: ac.softmax([1.0], temperature=-1), err(ValueError, "temperature")),
    (
        "temperature NaN",
        lambda: ac.softmax([1.0], temperature=np.nan),
        err(ValueError, "temperature"),
    ),
    (
        "temperature '2'",
        lambda: ac.softmax([1.0], temperature="2"),
        err(ValueError, "temperature", "'2'"),
    ),
    (
        "temperature True",
        lambda: ac.softmax([1.0], temperature=True),
        err(ValueError, "temperature"),
    ),
    (
        "temperature None",
        lambda: ac.softmax([1.0], temperature=None),
        err(ValueError, "temperature"),
    ),
    # --- raw numpy or Python errors: ragged lists, projections, options --------------------
    ("ragged x", lambda: ac.softmax(ragged()), err(TypeError, "x", "ragged")),
    ("ragged query", lambda: ac.attention_weights(ragged(), K), err(TypeError, "query", "ragged")),
    ("ragged key", lambda: ac.dot_scores(Q, ragged()), err(TypeError, "key", "ragged")),
    (
        "ragged value",
        lambda: ac.scaled_dot_product_attention(Q, K, ragged()),
        err(TypeError, "value", "ragged"),
    ),
    (
        "ragged mask",
        lambda: ac.attention_weights(Q, K, [[True, False], [True]]),
        err(TypeError, "attn_mask", "ragged"),
    ),
    ("ragged weights", lambda: ac.entropy(ragged()), err(TypeError, "weights", "ragged")),
    ("ragged jacobian", lambda: ac.softmax_jacobian(ragged()), err(TypeError, "weights", "ragged")),
    (
        "ragged lengths",
        lambda: ac.padding_mask([[1, 2], [3]], 4),
        err(TypeError, "lengths", "ragged"),
    ),
    ("ragged split_heads", lambda: ac.split_heads(ragged(), 1), err(TypeError, "x", "ragged")),
    ("ragged w_q", mha(w_q=[[1.0, 2.0], [3.0]]), err(TypeError, "w_q", "ragged")),
    ("ragged x_kv", mha(x_kv=ragged()), err(TypeError, "x_kv", "ragged")),
    ("w_q 1-D", mha(w_q=np.ones(4)), err(ValueError, "w_q", "(4,)")),
    ("w_q wrong rows", mha(w_q=np.ones((3, 4))), err(ValueError, "x_q", "w_q", "(3, 4)")),
    ("w_q odd columns", mha(w_q=np.ones((4, 3))), err(ValueError, "x_q @ w_q", "n_heads=2")),
    ("w_k differs from w_q", mha(w_k=np.ones((4, 6))), err(ValueError, "w_q", "w_k", "6")),
    ("w_v odd columns", mha(w_v=np.ones((4, 5))), err(ValueError, "x_kv @ w_v", "n_heads=2")),
    ("w_o wrong rows", mha(w_o=np.ones((3, 4))), err(ValueError, "w_o", "(3, 4)")),
    ("w_o NaN", mha(w_o=np.full((4, 4), np.nan)), err(ValueError, "w_o", "finite")),
    ("n_heads '2'", mha(n_heads="2"), err(ValueError, "n_heads", "'2'")),
    ("n_heads 0", mha(n_heads=0), err(ValueError, "n_heads")),
    ("n_heads 3", mha(n_heads=3), err(ValueError, "n_heads=3")),
    ("identity mha", lambda: mha()()[0], Returns(identity_mha_by_hand(), rtol=1e-12)),
    (
        "std '2'",
        lambda: stats.head_scale_stats(8, 2, 4, 3, np.random.default_rng(0), std="2"),
        err(ValueError, "std", "'2'"),
    ),
    (
        "std -1",
        lambda: stats.head_scale_stats(8, 2, 4, 3, np.random.default_rng(0), std=-1.0),
        err(ValueError, "std"),
    ),
    (
        "std NaN",
        lambda: stats.head_scale_stats(8, 2, 4, 3, np.random.default_rng(0), std=np.nan),
        err(ValueError, "std"),
    ),
    (
        "std True",
        lambda: stats.head_scale_stats(8, 2, 4, 3, np.random.default_rng(0), std=True),
        err(ValueError, "std"),
    ),
    (
        "d_ks empty",
        lambda: stats.saturation_stats([], 4, 3, np.random.default_rng(0), scaled=True),
        err(ValueError, "d_ks", "non-empty", "[]"),
    ),
    (
        "d_ks int",
        lambda: stats.saturation_stats(4, 4, 3, np.random.default_rng(0), scaled=True),
        err(ValueError, "d_ks"),
    ),
    (
        "d_ks nested",
        lambda: stats.saturation_stats([[4]], 4, 3, np.random.default_rng(0), scaled=True),
        err(ValueError, "d_ks"),
    ),
    (
        "d_ks '4'",
        lambda: stats.saturation_stats(["4"], 4, 3, np.random.default_rng(0), scaled=True),
        err(ValueError, "d_k", "'4'"),
    ),
    (
        "d_ks ragged",
        lambda: stats.saturation_stats([[4], [4, 8]], 4, 3, np.random.default_rng(0), scaled=True),
        err(TypeError, "d_ks", "ragged"),
    ),
    (
        "scaled 'yes'",
        lambda: stats.saturation_stats([4], 4, 3, np.random.default_rng(0), scaled="yes"),
        err(TypeError, "scaled"),
    ),
    (
        "scaled 'no' rdp",
        lambda: stats.random_dot_products(4, 3, np.random.default_rng(0), scaled="no"),
        err(TypeError, "scaled"),
    ),
    (
        "n '10'",
        lambda: stats.random_dot_products(4, "10", np.random.default_rng(0)),
        err(ValueError, "n", "'10'"),
    ),
    ("rng None", lambda: stats.random_dot_products(4, 3, None), err(TypeError, "rng")),
    ("rng int", lambda: stats.saturation_stats([4], 4, 3, 0, scaled=True), err(TypeError, "rng")),
    ("seed -1", lambda: toy_embeddings(["a"], 2, seed=-1), err(ValueError, "seed")),
    ("seed 'a'", lambda: toy_embeddings(["a"], 2, seed="a"), err(ValueError, "seed")),
    ("tokens str", lambda: toy_embeddings("the cat", 2), err(TypeError, "tokens")),
    ("tokens ints", lambda: toy_embeddings([1, 2], 2), err(TypeError, "tokens")),
    ("dim -1", lambda: toy_embeddings(["a"], -1), err(ValueError, "dim")),
    ("dim '4'", lambda: toy_embeddings(["a"], "4"), err(ValueError, "dim")),
    ("causal L -1", lambda: ac.causal_mask(-1), err(ValueError, "L")),
    ("causal L 2.5", lambda: ac.causal_mask(2.5), err(ValueError, "L", "2.5")),
    ("causal S '3'", lambda: ac.causal_mask(2, "3"), err(ValueError, "S")),
    ("lengths > S", lambda: ac.padding_mask([4], 3), err(ValueError, "lengths", "S=3")),
    ("lengths 1.5", lambda: ac.padding_mask([1.5], 3), err(ValueError, "lengths")),
    ("lengths None", lambda: ac.padding_mask([None], 3), err(ValueError, "lengths")),
    (
        "embed_dim '4'",
        lambda: ac.SimpleSelfAttention("4", np.random.default_rng(0)),
        err(ValueError, "embed_dim"),
    ),
    (
        "embed_dim 0",
        lambda: ac.SimpleSelfAttention(0, np.random.default_rng(0)),
        err(ValueError, "embed_dim"),
    ),
    ("layer rng None", lambda: ac.SimpleSelfAttention(4, None), err(TypeError, "rng")),
    (
        "layer x width",
        lambda: ac.SimpleSelfAttention(4, np.random.default_rng(0))(np.ones((2, 3))),
        err(ValueError, "embed_dim=4", "(2, 3)"),
    ),
    (
        "trace layer None",
        lambda: ac.trace_self_attention(None, np.ones((1, 2, 4))),
        err(TypeError, "layer", "NoneType"),
    ),
    ("jacobian scalar", lambda: ac.softmax_jacobian(0.5), err(ValueError, "weights", "()")),
    ("split_heads 1-D", lambda: ac.split_heads(np.ones(4), 2), err(ValueError, "x", "(4,)")),
    ("merge_heads 2-D", lambda: ac.merge_heads(np.ones((2, 2))), err(ValueError, "x", "(2, 2)")),
    ("query 0-D", lambda: ac.dot_scores(1.0, K), err(ValueError, "query", "()")),
    ("key 1-D", lambda: ac.dot_scores(Q, np.ones(4)), err(ValueError, "key", "(4,)")),
    (
        "mask grows output",
        lambda: ac.attention_weights(Q, K, np.ones((2, 3, 5), bool)),
        err(ValueError, "attn_mask", "(2, 3, 5)", "(3, 5)"),
    ),
    # --- size guards: say which argument makes the array too large, before allocating ------
    (
        "scores 298 GiB",
        lambda: ac.attention_weights(np.ones((200_000, 1)), np.ones((200_000, 1))),
        err(ValueError, "query's L = 200000", "key's S = 200000", "298 GiB"),
    ),
    (
        # with dropout the plain path holds every weight; the fast path (no dropout) never
        # holds the scores, so only the output's size bounds it (tests/test_fast_paths.py)
        "sdpa scores (dropout)",
        lambda: ac.scaled_dot_product_attention(
            np.ones((100_000, 1)),
            np.ones((100_000, 1)),
            np.ones((100_000, 1)),
            dropout_p=0.5,
            rng=np.random.default_rng(0),
        ),
        err(ValueError, "scores", "L = 100000"),
    ),
    (
        "output Ev",
        lambda: ac.scaled_dot_product_attention(
            np.ones((100_000, 1)), np.ones((1, 1)), np.ones((1, 100_000))
        ),
        err(ValueError, "output", "value's Ev = 100000"),
    ),
    (
        "batch axes",
        lambda: ac.attention_weights(np.ones((1000, 1000, 1)), np.ones((1, 1000, 1))),
        err(ValueError, "batch axes (1000,)", "7.45 GiB"),
    ),
    (
        "f16 counts as f32",
        lambda: ac.dot_scores(np.ones((30_000, 1), np.float16), np.ones((30_000, 1), np.float16)),
        err(ValueError, "3.35 GiB", "float32"),
    ),
    (
        "dot_scores",
        lambda: ac.dot_scores(np.ones((100_000, 1)), np.ones((100_000, 1))),
        err(ValueError, "key's S = 100000"),
    ),
    ("causal_mask", lambda: ac.causal_mask(10**6), err(ValueError, "L = 1000000", "931 GiB")),
    (
        "padding_mask",
        lambda: ac.padding_mask(np.zeros(100_000, int), 100_000),
        err(ValueError, "lengths (100000,)", "S = 100000"),
    ),
    (
        "jacobian",
        lambda: ac.softmax_jacobian(np.full(20_000, 1 / 20_000)),
        err(ValueError, "S = 20000", "Jacobian"),
    ),
    (
        "random_dot_products",
        lambda: stats.random_dot_products(10**6, 10**4, np.random.default_rng(0)),
        err(ValueError, "n = 10000", "d_k = 1000000"),
    ),
    (
        "saturation n_keys",
        lambda: stats.saturation_stats([4], 10**5, 10**3, np.random.default_rng(0), scaled=True),
        err(ValueError, "n_keys = 100000"),
    ),
    (
        "head_scale n_keys",
        lambda: stats.head_scale_stats(8, 2, 10**5, 10**3, np.random.default_rng(0)),
        err(ValueError, "n_keys = 100000"),
    ),
    (
        "toy dim",
        lambda: toy_embeddings(["a", "b"], 10**10),
        err(ValueError, "dim = 10000000000"),
    ),
    (
        "layer embed_dim",
        lambda: ac.SimpleSelfAttention(10**5, np.random.default_rng(0)),
        err(ValueError, "embed_dim = 100000"),
    ),
    (
        "projection",
        mha(x_q=np.ones((100_000, 1)), w_q=np.ones((1, 100_000))),
        err(ValueError, "x_q @ w_q", "(1, 100000)"),
    ),
    # --- hard cases that are defined keep their values (as PyTorch) --------------------------
    (
        "fully masked row",
        lambda: ac.attention_weights(
            np.ones((2, 1)), np.ones((2, 1)), [[False, False], [True, True]]
        ),
        Returns([[0, 0], [0.5, 0.5]]),
    ),
    (
        "no queries",
        lambda: ac.attention_weights(np.ones((0, 2)), np.ones((3, 2))),
        Returns(np.zeros((0, 3))),
    ),
    (
        "no keys",
        lambda: ac.scaled_dot_product_attention(np.ones((2, 2)), np.ones((0, 2)), np.ones((0, 3))),
        Returns(np.zeros((2, 3))),
    ),
    (
        "tokens generator",
        lambda: toy_embeddings((t for t in ["a", "b"]), 3),
        Returns(toy_embeddings(["a", "b"], 3), rtol=0),
    ),
    ("integers promoted", lambda: ac.softmax([0, 1]), Returns(py_softmax([0, 1]), np.float64)),
]


@pytest.mark.parametrize(
    ("call", "outcome"), [pytest.param(call, outcome, id=name) for name, call, outcome in CASES]
)
def test_bad_input(call, outcome):
    outcome.check(call)


def test_catalogue_is_large_and_named_uniquely():
    names = [name for name, _, _ in CASES]
    assert len(names) == len(set(names))
    assert len(names) >= 100


def test_the_size_limit_is_one_setting(monkeypatch):
    """Lowering MAX_ARRAY_BYTES turns a 3 x 5 float64 score matrix (120 bytes) away."""
    monkeypatch.setattr(ac.validation, "MAX_ARRAY_BYTES", 100)
    err(ValueError, "query's L = 3", "key's S = 5", "1.2 times").check(
        lambda: ac.attention_weights(Q, K)
    )
    monkeypatch.setattr(ac.validation, "MAX_ARRAY_BYTES", 120)
    assert ac.attention_weights(Q, K).shape == (3, 5)


# --- properties --------------------------------------------------------------------------

ANY_DTYPE = st.sampled_from(["f2", "f4", "f8", "i4", "u1", "?", "c8", "m8[s]", "M8[D]", "U3", "O"])


@settings(max_examples=300, deadline=None)
@given(data=st.data(), dtype=ANY_DTYPE)
def test_softmax_is_right_or_says_why(data, dtype):
    """Any array hypothesis builds: weights that sum to 1 (or 0), or an error naming x."""
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5))
    x = data.draw(hnp.arrays(np.dtype(dtype), shape))
    try:
        weights = ac.softmax(x)
    except (TypeError, ValueError) as error:
        assert str(error).startswith("x "), str(error)
        return
    sums = weights.astype(np.float64).sum(axis=-1)
    assert np.isfinite(weights).all()
    tolerance = 4 * np.finfo(weights.dtype).eps * shape[-1]
    assert (np.isclose(sums, 1, rtol=0, atol=tolerance) | (sums == 0)).all()


def attention_by_loop(query, keys, scale):
    """Weights of one query against keys, by a plain-Python loop in float64."""
    scores = [scale * math.fsum(q * k for q, k in zip(query, key, strict=True)) for key in keys]
    return py_softmax(scores)


@settings(max_examples=200, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from([np.float16, np.float32, np.float64]),
    size=st.tuples(st.integers(1, 6), st.integers(1, 8)),
)
def test_attention_in_every_dtype_agrees_with_float64(data, dtype, size):
    """float16 (computed in float32, returned in float16) and float32 agree with a float64
    loop to their tolerance: the computation's error, plus float16's rounding of weights
    in [0, 1] (half its eps) for float16."""
    n_keys, width = size
    element = st.floats(-300, 300, width=16)
    query = np.array(data.draw(st.lists(element, min_size=width, max_size=width)), dtype)
    keys = np.array(data.draw(st.lists(st.lists(element, min_size=width, max_size=width),
                                       min_size=n_keys, max_size=n_keys)), dtype)  # fmt: skip
    expected = attention_by_loop(query.tolist(), keys.tolist(), 1 / math.sqrt(width))
    got = ac.attention_weights(query, keys).astype(np.float64)
    tolerance = np.finfo(np.promote_types(dtype, np.float32)).eps
    peak = float(np.abs(query).max()) * float(np.abs(keys).max())  # Python floats: no overflow
    scores_size = max(1.0, peak * math.sqrt(width))
    rounding = np.finfo(np.float16).eps / 2 if dtype == np.float16 else 0.0
    np.testing.assert_allclose(got, expected, rtol=0, atol=8 * tolerance * scores_size + rounding)
