"""SciPy's own tests for softmax, log_softmax and logsumexp, ported to attn_core (issue 16).

The cases and their expected values come from ``scipy/special/tests/test_logsumexp.py``
(SciPy 1.17.1), each test naming the SciPy test it ports. SciPy is not a dependency: the
expected values are written out as SciPy's tests derive them (by hand, from numpy on a
simpler formula, or from mpmath at 200 digits). Two conventions differ and are ported,
not copied: SciPy's ``axis=None`` (the whole array) is ours ``axis=-1`` on the flattened
array, and a tuple of axes is ours on those axes merged by a reshape. Where SciPy returns
NaN or +inf for NaN or +inf input, attn_core raises instead (its documented contract).

Then: live comparisons with SciPy where it is installed (skipped otherwise), accuracy in
ulp against mpmath, and a property test that float16/32/64 agree with a float64
reference computed by a plain-Python loop.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_core import log_softmax, logsumexp, softmax


def assert_close(got, expected, rtol=1e-7):
    """SciPy's xp_assert_close: values to ``rtol`` (its default for float64 is 1e-7)."""
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=rtol)


# --- TestLogSumExp ----------------------------------------------------------------------


def test_logsumexp():  # TestLogSumExp.test_logsumexp
    assert logsumexp(np.asarray([])) == -np.inf  # zero-size array
    a = np.arange(200.0)
    assert_close(logsumexp(a), np.log(np.sum(np.exp(a))))  # large inputs
    assert_close(logsumexp(np.asarray([1000.0, 1000.0])), 1000.0 + math.log(2.0))
    n = 1000
    assert_close(logsumexp(np.full((n,), 10000)), 10000.0 + math.log(n))
    x = np.asarray([1e-40] * 1000000)
    X, logX = np.stack([x, x]), np.stack([np.log(x), np.log(x)])
    assert_close(np.exp(logsumexp(logX.ravel())), np.sum(X))  # SciPy's axis=None
    assert_close(np.exp(logsumexp(logX, axis=0)), np.sum(X, axis=0))
    assert_close(np.exp(logsumexp(logX, axis=1)), np.sum(X, axis=1))
    assert logsumexp(np.asarray([-np.inf])) == -np.inf
    assert logsumexp(np.asarray([-np.inf, -np.inf])) == -np.inf
    a = np.asarray([[1e10, 1e-10], [-1e10, -np.inf]])  # different magnitudes on the axes
    assert_close(logsumexp(a, axis=-1), [1e10, -1e10])
    assert_close(logsumexp(a, axis=-1, keepdims=True), [[1e10], [-1e10]])
    assert_close(logsumexp(a.ravel()), 1e10)  # SciPy's axis=(-1, -2)


@pytest.mark.parametrize("special", [np.inf, np.nan])
def test_logsumexp_special_values_raise(special):  # TestLogSumExp.test_logsumexp: inf, nan
    with pytest.raises(ValueError, match="x must be finite"):  # SciPy returns inf / nan
        logsumexp(np.asarray([special]))


def test_logsumexp_shape():  # TestLogSumExp.test_logsumexp_shape (without b)
    a = np.ones((1, 2, 3, 4))
    assert logsumexp(a, axis=2).shape == (1, 2, 4)
    merged = np.moveaxis(a, 2, 1).reshape(1, 3, 8)  # axes (1, 3) merged last
    assert logsumexp(merged, axis=-1).shape == (1, 3)


def test_array_like():  # TestLogSumExp.test_array_like
    assert_close(logsumexp([1000, 1000]), 1000.0 + math.log(2.0))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "int64"])
def test_dtypes_a(dtype):  # TestLogSumExp.test_dtypes_a (float16 added: ours computes in f32)
    got = logsumexp(np.asarray([1000.0, 1000.0], dtype=dtype))
    desired_dtype = np.dtype(np.float64 if "int" in dtype else dtype)
    assert got.dtype == desired_dtype
    rtol = {"float16": 1e-3, "float32": 1e-6}.get(dtype, 1e-7)
    assert_close(got, 1000.0 + math.log(2.0), rtol=rtol)


def test_gh18295():  # TestLogSumExp.test_gh18295: the largest term separated, log1p
    a = np.asarray([0.0, -40.0])
    assert_close(logsumexp(a), np.logaddexp(a[0], a[1]))
    assert logsumexp(a) > 0  # 4.248e-18, not 0.0


def test_no_writeback():  # TestLogSumExp.test_no_writeback
    a = np.asarray([5.0, 4.0])
    logsumexp(a)
    log_softmax(a)
    softmax(a)
    np.testing.assert_array_equal(a, [5.0, 4.0])


# --- TestSoftmax --------------------------------------------------------------------------

# mpmath at 200 digits, converted to float (SciPy's test_softmax_fixtures)
SOFTMAX_ARANGE4 = [
    0.03205860328008499,
    0.08714431874203256,
    0.23688281808991013,
    0.6439142598879722,
]


def test_softmax_fixtures():  # TestSoftmax.test_softmax_fixtures
    assert_close(softmax(np.asarray([1000.0, 0.0, 0.0, 0.0])), [1.0, 0.0, 0.0, 0.0], 1e-13)
    assert_close(softmax(np.asarray([1.0, 1.0])), [0.5, 0.5], 1e-13)
    assert_close(softmax(np.asarray([0.0, 1.0])), np.asarray([1.0, np.e]) / (1 + np.e), 1e-13)
    x = np.arange(4, dtype=np.float64)
    assert_close(softmax(x), SOFTMAX_ARANGE4, 1e-13)
    assert_close(softmax(x + 100), SOFTMAX_ARANGE4, 1e-13)  # translation
    whole = softmax(x.reshape(2, 2).ravel()).reshape(2, 2)  # SciPy's axis=None
    assert_close(whole, np.reshape(SOFTMAX_ARANGE4, (2, 2)), 1e-13)


def test_softmax_multi_axes():  # TestSoftmax.test_softmax_multi_axes
    x2 = np.asarray([[1000.0, 0.0], [1000.0, 0.0]])
    assert_close(softmax(x2, axis=0), [[0.5, 0.5], [0.5, 0.5]], 1e-13)
    assert_close(softmax(x2, axis=1), [[1.0, 0.0], [1.0, 0.0]], 1e-13)
    x = np.asarray([[-25.0, 0.0, 25.0, 50.0], [1.0, 325.0, 749.0, 750.0]])
    expected = np.asarray(  # mpmath at 200 digits
        [
            [2.678636961770877e-33, 1.9287498479371314e-22, 1.3887943864771144e-11],
            [0.0, 1.9444526359919372e-185, 0.2689414213699951],
        ]
    )
    expected = np.column_stack([expected, [0.999999999986112, 0.7310585786300048]])
    assert_close(softmax(x, axis=1), expected, 1e-13)
    assert_close(softmax(x.T, axis=0), expected.T, 1e-13)
    x3d = x.reshape(2, 2, 2)  # SciPy's axis=(1, 2): the two last axes merged
    assert_close(softmax(x3d.reshape(2, 4), axis=-1).reshape(2, 2, 2), expected.reshape(2, 2, 2))


def test_softmax_int_array():  # TestSoftmax.test_softmax_int_array
    assert_close(softmax(np.asarray([1000, 0, 0, 0])), [1.0, 0.0, 0.0, 0.0], 1e-13)


def test_softmax_scalar_is_refused():  # TestSoftmax.test_softmax_scalar: SciPy gives 1.0
    with pytest.raises(ValueError, match="axis=-1 is out of range for x with 0 axes"):
        softmax(1000)


def test_softmax_array_like():  # TestSoftmax.test_softmax_array_like
    assert_close(softmax([1000, 0, 0, 0]), [1.0, 0.0, 0.0, 0.0], 1e-13)


# --- TestLogSoftmax -----------------------------------------------------------------------

LOG_SOFTMAX_ARANGE4 = [  # mpmath at 200 digits (SciPy's data_1d)
    -3.4401896985611953,
    -2.4401896985611953,
    -1.4401896985611953,
    -0.44018969856119533,
]


def test_log_softmax_basic():  # TestLogSoftmax.test_log_softmax_basic
    assert_close(log_softmax(np.asarray([1000.0, 1.0])), [0.0, -999.0], 1e-13)


def test_log_softmax_int_array():  # TestLogSoftmax.test_log_softmax_int_array
    assert_close(log_softmax(np.asarray([1000, 1])), [0.0, -999.0], 1e-13)


def test_log_softmax_array_like():  # TestLogSoftmax.test_log_softmax_array_like
    assert_close(log_softmax([1000, 1]), [0.0, -999.0], 1e-13)


@pytest.mark.parametrize("offset", [0, 100])
def test_log_softmax_translation(offset):  # TestLogSoftmax.test_log_softmax_translation
    x = np.arange(4, dtype=np.float64) + offset
    assert_close(log_softmax(x), LOG_SOFTMAX_ARANGE4, 1e-13)


def test_log_softmax_noneaxis():  # TestLogSoftmax.test_log_softmax_noneaxis
    x = np.arange(4, dtype=np.float64).reshape(2, 2)
    got = log_softmax(x.ravel()).reshape(2, 2)  # SciPy's axis=None
    assert_close(got, np.reshape(LOG_SOFTMAX_ARANGE4, (2, 2)), 1e-13)


@pytest.mark.parametrize(
    ("axis", "expected"), [(0, np.log(0.5) * np.ones((2, 2))), (1, [[0.0, -999.0], [0.0, -999.0]])]
)
def test_axes(axis, expected):  # TestLogSoftmax.test_axes
    x = np.asarray([[1000.0, 1.0], [1000.0, 1.0]])
    assert_close(log_softmax(x, axis=axis), expected, 1e-13)


def test_log_softmax_2d():  # TestLogSoftmax.test_log_softmax_2d_axis1, _2d_axis0 and _3d
    x, expected = np.arange(8, dtype=np.float64).reshape(2, 4), np.tile(LOG_SOFTMAX_ARANGE4, (2, 1))
    assert_close(log_softmax(x, axis=1), expected, 1e-13)
    assert_close(log_softmax(x.T, axis=0), expected.T, 1e-13)
    x3d = x.reshape(2, 2, 2)  # SciPy's axis=(1, 2): the two last axes merged
    assert_close(log_softmax(x3d.reshape(2, 4)).reshape(2, 2, 2), expected.reshape(2, 2, 2))


# --- accuracy in ulp against mpmath, and SciPy where installed ----------------------------


def mp_reference(row):
    """log_softmax, logsumexp and softmax of ``row`` in mpmath, as float64.

    40 digits beyond the largest |value|'s, so that x - logsumexp(x) keeps them.
    """
    mpmath = pytest.importorskip("mpmath")
    digits = 40 + int(math.log10(1 + max(abs(float(v)) for v in row)))
    with mpmath.workdps(digits):
        xs = [mpmath.mpf(float(v)) for v in row]
        lse = mpmath.log(mpmath.fsum(mpmath.exp(v) for v in xs))
        return (
            np.array([float(v - lse) for v in xs]),
            np.array(float(lse)),
            np.array([float(mpmath.exp(v - lse)) for v in xs]),
        )


def max_ulp(functions, rows, dtype):
    """Largest error in units of ``dtype``'s last place of each function over ``rows``."""
    worst = np.zeros(3)
    for row in rows:
        for i, (f, ref) in enumerate(zip(functions, mp_reference(row), strict=True)):
            ulp = np.spacing(np.abs(ref).astype(dtype)).astype(np.float64)
            worst[i] = max(worst[i], np.max(np.abs(np.asarray(f(row), np.float64) - ref) / ulp))
    return worst


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_accuracy_in_ulp(dtype):
    """Ordinary logits: log_softmax within 4 ulp, logsumexp 2, softmax 12 (its tiny weights)."""
    rows = (np.random.default_rng(0).standard_normal((100, 8)) * 3).astype(dtype)
    ours = max_ulp((log_softmax, logsumexp, softmax), rows, dtype)
    assert (ours <= [4, 2, 12]).all(), ours


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_accuracy_at_least_scipys(dtype):
    special = pytest.importorskip("scipy.special")
    rows = (np.random.default_rng(1).standard_normal((100, 8)) * 3).astype(dtype)
    ours = max_ulp((log_softmax, logsumexp, softmax), rows, dtype)
    theirs = max_ulp((special.log_softmax, special.logsumexp, special.softmax), rows, dtype)
    print(
        f"{np.dtype(dtype)} max ulp (log_softmax, logsumexp, softmax): ours {ours}, SciPy {theirs}"
    )
    assert (ours <= np.maximum(theirs, 1) + 1).all(), (ours, theirs)


EXTREME_ROWS = [
    [1e4, 1e4],
    [0.0, -40.0],
    [60000.0, 60000.0, -60000.0],
    [1e30, -1e30, 1e30],
    [3.0e38, 3.0e38],
    [-3.0e38, -3.0e38],
    [1.0, 1.0 + 2**-20, 1.0 - 2**-20],
]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("row", EXTREME_ROWS, ids=str)
def test_extreme_inputs_within_2_ulp(row, dtype):
    """float16/32/64 against mpmath on the same numbers, rounded to the dtype."""
    with np.errstate(over="ignore"):
        x = np.asarray(row, dtype=dtype)  # 3e38 is inf in float16: skip those
    if not np.isfinite(x).all():
        pytest.skip(f"{row} does not fit in {np.dtype(dtype)}")
    for got, ref in zip((log_softmax(x), logsumexp(x), softmax(x)), mp_reference(x), strict=True):
        assert got.dtype == dtype
        with np.errstate(over="ignore"):  # float16: -1.2e5 rounds to -inf, as it should
            ref = ref.astype(dtype).astype(np.float64)
        got = got.astype(np.float64)
        finite = np.isfinite(ref)
        np.testing.assert_array_equal(got[~finite], ref[~finite])
        tol = 2 * np.spacing(np.abs(ref[finite]).astype(dtype)).astype(np.float64)
        assert (np.abs(got[finite] - ref[finite]) <= tol).all(), (got, ref)


# --- property: float16/32/64 agree with a float64 reference to dtype tolerance ------------


def plain_reference(values):
    """softmax, log_softmax and logsumexp of a list by a plain-Python loop with math.fsum."""
    peak = max(values)
    exps = [math.exp(v - peak) for v in values]
    total = math.fsum(exps)
    log_total = math.log(total)
    return [e / total for e in exps], [v - peak - log_total for v in values], peak + log_total


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(st.floats(-1e4, 1e4, width=16), min_size=1, max_size=40),
    dtype=st.sampled_from([np.float16, np.float32, np.float64]),
)
def test_every_dtype_agrees_with_float64(values, dtype):
    x = np.asarray(values, dtype=dtype)  # width=16: exactly representable in every dtype
    weights, logs, lse = plain_reference([float(v) for v in x])
    eps = float(np.finfo(dtype).eps)
    np.testing.assert_allclose(softmax(x).astype(np.float64), weights, rtol=4 * eps, atol=eps)
    scale = 1 + np.abs(logs)
    assert (np.abs(log_softmax(x).astype(np.float64) - logs) <= 4 * eps * scale).all()
    assert abs(float(logsumexp(x)) - lse) <= 4 * eps * (1 + abs(lse))
    assert softmax(x).dtype == log_softmax(x).dtype == logsumexp(x).dtype == dtype
