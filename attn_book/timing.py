"""What the chapters' timing cells share: medians of repeats, a log-log fit with its spread,
and the machine the figures came from.

A chapter's timing cell stays short and measures what it says; the prose reports the figure
and its spread and leaves the verdict to the reader. Nothing here decides *why* a time is
what it is. Tests of this module time nothing (``tests/test_timing.py``).
"""

from __future__ import annotations

import ctypes
import glob
import os
import platform
import statistics
import timeit
import tracemalloc
from typing import NamedTuple

import numpy as np

__all__ = ["Fit", "Timing", "loglog_fit", "machine", "peak_bytes", "timed"]

#: The vector extensions worth naming, as numpy reports them, widest first.
VECTOR_EXTENSIONS = ("AVX512F", "AVX2", "AVX", "SSE4_2", "ASIMD", "NEON", "SVE")


BLAS_NAMES = {"openblas": "OpenBLAS", "mkl": "MKL", "blis": "BLIS"}


class Timing(NamedTuple):
    """Seconds of one call: the median of the repeats, and the fastest and slowest."""

    median: float
    low: float
    high: float


class Fit(NamedTuple):
    """A line ``log y = intercept + slope · log x`` fitted through every point.

    ``stderr`` is the slope's standard error from the residuals (0 with two points);
    ``local`` the slopes between neighbouring points, the spread a reader can judge.
    """

    slope: float
    stderr: float
    local: np.ndarray


def timed(f, *args, repeats=7):
    """Time ``f(*args)``: one untimed call (first touches are slow), then ``repeats`` calls.

    Returns
    -------
    Timing
        The median, the fastest and the slowest of the ``repeats`` calls, in seconds.
    """
    f(*args)
    times = timeit.repeat(lambda: f(*args), number=1, repeat=repeats)
    return Timing(statistics.median(times), min(times), max(times))


def loglog_fit(x, y):
    """Least-squares slope of ``log y`` against ``log x`` over all points, with its spread.

    Examples
    --------
    >>> fit = loglog_fit([1, 2, 4, 8], [3, 12, 48, 192])
    >>> round(fit.slope, 6), round(fit.stderr, 6), fit.local.round(6).tolist()
    (2.0, 0.0, [2.0, 2.0, 2.0])
    """
    log_x, log_y = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    if log_x.size < 2:
        raise ValueError(f"a slope needs two points or more, got {log_x.size}")
    slope, intercept = np.polyfit(log_x, log_y, 1)
    residuals = log_y - (intercept + slope * log_x)
    spread = np.sum((log_x - log_x.mean()) ** 2)
    dof = log_x.size - 2
    stderr = float(np.sqrt(residuals @ residuals / dof / spread)) if dof > 0 else 0.0
    return Fit(float(slope), stderr, np.diff(log_y) / np.diff(log_x))


def machine(cpu_features=None, blas=None, environ=None, cpuinfo="/proc/cpuinfo", load=None):
    r"""One line naming what a timing ran on: the CPU, its vector extensions, the BLAS kernel.

    ``cpu_features`` (numpy's ``__cpu_features__``), ``blas`` (threadpoolctl's pools),
    ``environ`` and ``load`` (the 1-minute load average: other programs running at once slow
    a timing down) default to this process's; a test passes its own.

    Examples
    --------
    >>> blas = [{"internal_api": "openblas", "architecture": "Haswell", "num_threads": 2}]
    >>> env = {"OPENBLAS_CORETYPE": "Haswell"}
    >>> line = machine({"AVX2": True, "AVX512F": False}, blas, env, "", load=0.5)
    >>> print(line.replace("; ", "\n"))  # doctest: +ELLIPSIS
    CPU: unknown, ... cores
    vector extensions: AVX2
    OpenBLAS kernel Haswell, 2 threads
    OPENBLAS_CORETYPE=Haswell
    load average 0.50
    """
    features = _cpu_features() if cpu_features is None else cpu_features
    environ = os.environ if environ is None else environ
    pools = _blas_pools() if blas is None else blas
    found = [name for name in VECTOR_EXTENSIONS if features.get(name)]
    parts = [
        f"CPU: {_cpu_name(cpuinfo)}, {os.cpu_count()} cores",
        "vector extensions: " + (", ".join(found) or "none reported"),
    ]
    parts += [
        f"{BLAS_NAMES[p['internal_api']]} kernel {p.get('architecture', '?')}, "
        f"{p.get('num_threads')} threads"
        for p in pools
        if p.get("internal_api") in BLAS_NAMES
    ] or ["BLAS kernel: unknown"]
    if environ.get("OPENBLAS_CORETYPE"):
        parts.append(f"OPENBLAS_CORETYPE={environ['OPENBLAS_CORETYPE']}")
    if load is None and hasattr(os, "getloadavg"):
        load = os.getloadavg()[0]
    if load is not None:
        parts.append(f"load average {load:.2f}")
    return "; ".join(parts)


def _cpu_name(cpuinfo):
    """The CPU's model name from ``cpuinfo`` (Linux), else what ``platform`` says."""
    try:
        with open(cpuinfo, encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _cpu_features():
    """numpy's table of the CPU's SIMD extensions (numpy 2 and 1.26 keep it in two places)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # numpy 1.26
        from numpy.core._multiarray_umath import __cpu_features__
    return __cpu_features__


def _blas_pools():
    """threadpoolctl's description of the BLAS numpy runs with; without it, numpy's OpenBLAS."""
    try:
        import threadpoolctl
    except ImportError:
        return _bundled_openblas()
    return [p for p in threadpoolctl.threadpool_info() if p.get("user_api") == "blas"]


def _bundled_openblas():
    """The kernel of the OpenBLAS bundled in numpy's wheel (``numpy.libs``), asked as
    threadpoolctl asks it; [] if there is none (a conda or system numpy)."""
    folder = os.path.dirname(os.path.dirname(np.__file__))
    for path in glob.glob(os.path.join(folder, "numpy.libs", "*openblas*")):
        lib = ctypes.CDLL(path)  # already loaded by numpy: the same library
        for prefix in ("scipy_openblas", "openblas"):
            for suffix in ("64_", ""):
                corename = getattr(lib, f"{prefix}_get_corename{suffix}", None)
                threads = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                if corename is not None and threads is not None:
                    corename.restype = ctypes.c_char_p
                    kernel = corename().decode()
                    return [
                        {
                            "internal_api": "openblas",
                            "architecture": kernel,
                            "num_threads": threads(),
                        }
                    ]
    return []


def peak_bytes(f, *args):
    """The most memory ``f(*args)`` holds at once beyond what existed before, in bytes.

    Python's ``tracemalloc`` sees numpy's arrays too (numpy reports its allocations to it).

    Examples
    --------
    >>> peak_bytes(np.ones, 2**20) >= 8 * 2**20  # a float64 array of 2**20 numbers
    True
    """
    tracemalloc.start()
    try:
        f(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
