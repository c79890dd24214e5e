"""What the chapters' timing cells share: the fastest of several repeats, a log-log fit with
its spread, the machine the figures came from, and a way to run BLAS on one thread.

A chapter's timing cell stays short and measures what it says; the prose reports the figure
and its spread and leaves the verdict to the reader. Nothing here decides *why* a time is
what it is. Tests of this module time nothing (``tests/test_timing.py``).
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
import math
import os
import platform
import re
import statistics
import time
import timeit
import tracemalloc
from typing import NamedTuple

import numpy as np

from attn_book import i18n
from attn_book.i18n import word

__all__ = [
    "Fit",
    "FitStart",
    "Timing",
    "clock_tick",
    "last_level_cache",
    "loglog_fit",
    "machine",
    "one_blas_thread",
    "peak_bytes",
    "processor_clock",
    "start_beyond_cache",
    "steepest_step",
    "timed",
    "translate_printed",
]

#: The vector extensions worth naming, as numpy reports them, widest first.
VECTOR_EXTENSIONS = ("AVX512F", "AVX2", "AVX", "SSE4_2", "ASIMD", "NEON", "SVE")


BLAS_NAMES = {"openblas": "OpenBLAS", "mkl": "MKL", "blis": "BLIS"}

#: A timing spans at least this many steps of its clock, so that a clock that advances in
#: coarse steps (Windows' processor time: about 16 ms) misreads it by 1 % at most.
MIN_TICKS = 100

_wall = time.perf_counter  # fine-grained everywhere; a test replaces it


class Timing(NamedTuple):
    """Seconds of one call: the fastest of the repeats (the estimate), the median, the slowest.

    Other programs on the machine only ever slow a call down, so the fastest repeat is the
    best estimate of how fast the call can run (the advice of Python's ``timeit``); the
    median and the slowest show how much the others got in the way.
    """

    best: float
    median: float
    worst: float
    number: int = 1  #: calls per timing, each time divided by it (more than 1: a coarse clock)


class Fit(NamedTuple):
    """A line ``log y = intercept + slope · log x`` fitted through the points it used.

    ``stderr`` is the slope's standard error from the residuals, NaN below four points (with
    two or three, the residuals have too few degrees of freedom to say anything);
    ``local`` the slopes between neighbouring points used, the spread a reader can judge;
    ``x_min`` the smallest x used.
    """

    slope: float
    stderr: float
    local: np.ndarray
    x_min: float


def clock_tick(clock=time.process_time, *, samples=5, limit=0.5):
    """The smallest step by which ``clock`` was seen to advance, in seconds, measured.

    Reads the clock until its value changes, ``samples`` times, and keeps the smallest step
    (processor time advances only while this process computes, which the reading loop does).
    On Linux processor time advances in steps far below a microsecond; on Windows it
    advances in steps of about 16 ms (PEP 418), longer than many calls one wants to time.
    A clock that does not advance within ``limit`` seconds of the wall clock gives ``limit``.
    """
    steps = []
    for _ in range(samples):
        start = now = clock()
        deadline = _wall() + limit
        while now == start and _wall() < deadline:
            now = clock()
        steps.append(now - start if now != start else limit)
    return min(steps)


def processor_clock(*, coarse=1e-5, tick=None):
    """The clock the chapters time with, its measured step and its name.

    ``time.process_time`` (this process's processor time, which leaves out the time spent
    waiting while other programs ran) where it advances in steps finer than ``coarse``
    seconds, as on Linux and macOS; otherwise, as on Windows (steps of about 16 ms),
    ``time.perf_counter``, the wall clock, fine-grained everywhere. ``tick`` replaces the
    measured step of processor time (a test passes its own).

    Examples
    --------
    >>> processor_clock(tick=0.015625)[2]  # Windows' processor time: too coarse
    'the wall clock (time.perf_counter; processor time steps by 15.6 ms here)'
    """
    step = clock_tick(time.process_time) if tick is None else tick
    if step < coarse:
        return time.process_time, step, word("this process's processor time (time.process_time)")
    wall_step = clock_tick(time.perf_counter)
    name = word("the wall clock (time.perf_counter; processor time steps by {ms} ms here)")
    return time.perf_counter, wall_step, name.format(ms=f"{step * 1e3:.3g}")


def timed(f, *args, repeats=7, clock=time.perf_counter, tick=None):
    """Time ``f(*args)``: one untimed call (first touches are slow), then ``repeats`` timings.

    ``clock`` is what counts: the wall clock by default; ``time.process_time`` counts only
    the processor time this process used, so the time it spent waiting while other programs
    held the processor is left out (with BLAS on one thread, the time one core spent on it).
    ``tick`` is the clock's step (``clock_tick(clock)``); where one call is shorter than
    ``MIN_TICKS`` of them, as the wall clock times the untimed call, each timing runs enough
    calls to span them (as ``timeit`` does) and is divided by their number.

    Returns
    -------
    Timing
        The fastest, the median and the slowest of the ``repeats`` timings, in seconds per
        call, and the calls per timing.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be 1 or more, got {repeats}")
    start = _wall()
    f(*args)
    once = _wall() - start
    number = 1
    if tick is not None and once < MIN_TICKS * tick:
        number = math.ceil(MIN_TICKS * tick / max(once, 1e-7))
    times = [
        t / number
        for t in timeit.repeat(lambda: f(*args), timer=clock, number=number, repeat=repeats)
    ]
    return Timing(min(times), statistics.median(times), max(times), number)


def loglog_fit(x, y, *, x_min=None):
    """Least-squares slope of ``log y`` against ``log x``, with its spread.

    Only the points with ``x >= x_min`` are used (all of them by default): a model's leading
    term dominates only beyond some size, and the fit belongs there.

    Examples
    --------
    >>> fit = loglog_fit([1, 2, 4, 8], [3, 12, 48, 192])
    >>> round(fit.slope, 6), round(fit.stderr, 6), fit.local.round(6).tolist()
    (2.0, 0.0, [2.0, 2.0, 2.0])
    >>> round(loglog_fit([1, 2, 4, 8], [5, 5, 10, 20], x_min=2).slope, 6)
    1.0
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"x and y must be 1-D of one length, got shapes {x.shape} and {y.shape}")
    if np.any(y <= 0):
        raise ValueError(
            f"y must be positive, got {y.tolist()}: a time of 0 means the clock advances in "
            "steps longer than the call (time it with timed(..., tick=clock_tick(clock)))"
        )
    keep = x >= (x.min() if x_min is None or x.size == 0 else x_min)
    log_x, log_y = np.log(x[keep]), np.log(y[keep])
    if log_x.size < 2:
        raise ValueError(
            f"a slope needs two points or more, got {log_x.size} (x_min={x_min}, x={x.tolist()})"
        )
    slope, intercept = np.polyfit(log_x, log_y, 1)
    residuals = log_y - (intercept + slope * log_x)
    spread = np.sum((log_x - log_x.mean()) ** 2)
    dof = log_x.size - 2
    stderr = float(np.sqrt(residuals @ residuals / dof / spread)) if dof >= 2 else math.nan
    return Fit(float(slope), stderr, np.diff(log_y) / np.diff(log_x), float(x[keep].min()))


def steepest_step(x, y, *, keep=2):
    """Index ``i`` of the steepest log-log step, from ``x[i]`` to ``x[i + 1]``.

    Only steps that leave at least ``keep`` points from ``x[i + 1]`` on are considered, so a
    fit beyond the step has points to fit.

    Examples
    --------
    >>> steepest_step([1, 2, 4, 8, 16], [1, 2, 16, 32, 64])  # 2 -> 4 jumps eightfold
    1
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.shape != y.shape or x.size < keep + 1:
        raise ValueError(
            f"need {keep + 1} points or more of one shape, got shapes {x.shape} and {y.shape}"
        )
    local = np.diff(np.log(y)) / np.diff(np.log(x))
    return int(np.argmax(local[: x.size - keep]))


class FitStart(NamedTuple):
    """Where a log-log fit starts (:func:`start_beyond_cache`) and what that start achieved.

    ``x`` is the smallest x fitted. ``in_cache`` counts the fitted points whose bytes still
    fit in the cache: 0 when the fit lies wholly beyond it, more when too few points outgrow
    it and the start fell back to the last ``keep``; None when the cache's size is unknown.
    """

    x: float
    in_cache: int | None


def start_beyond_cache(x, y, nbytes, cache_bytes, *, keep=2):
    """Where to fit: the smallest ``x`` beyond both the steepest step of ``y`` and the last
    ``x`` whose ``nbytes`` still fit in ``cache_bytes`` (None: unknown, the steepest step
    alone), moved back if need be so that ``keep`` points remain from it on. Moving back puts
    points whose bytes fit in the cache into the fit; ``FitStart.in_cache`` says how many, so
    that a chapter never says its fit lies beyond the cache when it does not.

    Examples
    --------
    >>> x = [1024, 2048, 4096, 8192, 16384, 32768]
    >>> ms = [0.1, 0.2, 0.8, 2.4, 4.8, 9.6]  # steepest from 2048 to 4096
    >>> mib = [4, 8, 16, 32, 64, 128]
    >>> start_beyond_cache(x, ms, mib, 32), start_beyond_cache(x, ms, mib, None)
    (FitStart(x=16384, in_cache=0), FitStart(x=4096, in_cache=None))
    >>> start_beyond_cache(x, ms, mib, 256)  # nothing outgrows it: the last two, both inside
    FitStart(x=16384, in_cache=2)
    """
    x, nbytes = np.asarray(x), np.asarray(nbytes)
    if nbytes.shape != x.shape:
        raise ValueError(f"x and nbytes must have one shape, got {x.shape} and {nbytes.shape}")
    start = steepest_step(x, y, keep=keep) + 1
    if cache_bytes is None:
        return FitStart(x[start].item(), None)
    outgrown = np.flatnonzero(nbytes > cache_bytes)
    start = min(max(start, outgrown[0] if outgrown.size else x.size), x.size - keep)
    return FitStart(x[start].item(), int(np.sum(nbytes[start:] <= cache_bytes)))


def last_level_cache(root="/sys/devices/system/cpu/cpu0/cache"):
    """The largest-level data cache of CPU 0 as ``(level, bytes)``, from Linux's ``root``;
    None where it cannot be read (another system, a container hiding it).
    """
    found = []
    for folder in glob.glob(os.path.join(root, "index*")):
        try:
            with open(os.path.join(folder, "type"), encoding="utf-8") as f:
                kind = f.read().strip()
            with open(os.path.join(folder, "level"), encoding="utf-8") as f:
                level = int(f.read())
            with open(os.path.join(folder, "size"), encoding="utf-8") as f:
                size = f.read().strip()
        except (OSError, ValueError):
            continue
        units = {"K": 2**10, "M": 2**20, "G": 2**30}
        if kind == "Instruction" or not size:
            continue
        number, unit = (size[:-1], units[size[-1]]) if size[-1] in units else (size, 1)
        found.append((level, int(number) * unit))
    return max(found) if found else None


@contextlib.contextmanager
def one_blas_thread():
    """Run the block with numpy's bundled OpenBLAS on one thread, then restore its count.

    On a machine whose other cores are busy, a multi-threaded product waits for its slowest
    thread, and a timing measures the other programs. Yields the number of threads now set
    (1). Where numpy's BLAS is another (a conda numpy's MKL, a system OpenBLAS), threadpoolctl
    sets it if it is installed and knows it; otherwise nothing is changed and it yields None
    (Apple's Accelerate, which numpy's wheels use from macOS 14 on, has no such switch).
    """
    lib, getter, setter = _openblas_functions()
    if lib is None:
        with _threadpoolctl_limit() as threads:
            yield threads
        return
    before = getter()
    setter(1)
    try:
        yield getter()
    finally:
        setter(before)


@contextlib.contextmanager
def _threadpoolctl_limit():
    """BLAS on one thread through threadpoolctl, yielding 1; None without it or a BLAS it sets."""
    try:
        import threadpoolctl
    except ImportError:
        yield None
        return
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        info = [p for p in threadpoolctl.threadpool_info() if p.get("user_api") == "blas"]
        yield 1 if info and all(p.get("num_threads") == 1 for p in info) else None


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
        word("CPU: {name}, {cores} cores").format(name=_cpu_name(cpuinfo), cores=os.cpu_count()),
        word("vector extensions: {names}").format(names=", ".join(found) or word("none reported")),
    ]
    parts += [
        (
            word("{blas} kernel {architecture}, 1 thread")
            if p.get("num_threads") == 1
            else word("{blas} kernel {architecture}, {threads} threads")
        ).format(
            blas=BLAS_NAMES[p["internal_api"]],
            architecture=p.get("architecture", "?"),
            threads=p.get("num_threads"),
        )
        for p in pools
        if p.get("internal_api") in BLAS_NAMES
    ] or [word("BLAS kernel: unknown")]
    if environ.get("OPENBLAS_CORETYPE"):
        parts.append(f"OPENBLAS_CORETYPE={environ['OPENBLAS_CORETYPE']}")
    if load is None and hasattr(os, "getloadavg"):
        load = os.getloadavg()[0]
    if load is not None:
        parts.append(word("load average {load}").format(load=f"{load:.2f}"))
    return "; ".join(parts)


#: What :func:`processor_clock` and :func:`machine` print, as ``word`` templates: a chapter's
#: timing cell prints them, and a translated notebook, whose outputs are the English one's,
#: gets them in its language from :func:`translate_printed`.
PRINTED = (
    "this process's processor time (time.process_time)",
    "the wall clock (time.perf_counter; processor time steps by {ms} ms here)",
    "CPU: {name}, {cores} cores",
    "vector extensions: {names}",
    "{blas} kernel {architecture}, 1 thread",
    "{blas} kernel {architecture}, {threads} threads",
    "BLAS kernel: unknown",
    "load average {load}",
)
#: Words that fill a template's field (:func:`_cpu_name`'s and :func:`machine`'s fallbacks).
FILLED = ("unknown", "none reported")


#: The fields of :data:`PRINTED` that hold a number (or None), one token.
COUNTS = ("ms", "cores", "threads", "load")
NUMBER, TEXT = r"[^;\s]+", r"[^;\n]*?"


def _printed_pattern(template):
    """``template`` as a pattern: its text escaped, each ``{field}`` a named group that stays
    within one part of the line (no ``;``, no line break), a count one token."""
    parts = re.split(r"\{(\w+)\}", template)
    return re.compile(
        "".join(
            re.escape(part) if n % 2 == 0 else rf"(?P<{part}>{NUMBER if part in COUNTS else TEXT})"
            for n, part in enumerate(parts)
        )
        + (r"(?=;|$)" if template.endswith("}") else ""),
        re.M,
    )


def translate_printed(text, language):
    """``text`` (what a timing cell printed in English) with the words of :data:`PRINTED`
    in ``language``, its values (the CPU's name, counts, times) as they were.

    Examples
    --------
    >>> line = machine({"AVX2": True}, [{"internal_api": "openblas", "num_threads": 1}], {}, "")
    >>> translate_printed(line, "en") == line
    True
    """
    if language == "en":
        return text
    for template in PRINTED:
        other = i18n.gettext(template, i18n.FIGURES, language)
        if other == template:
            continue

        def filled(match, other=other):
            values = {
                k: i18n.gettext(v, i18n.FIGURES, language) if v in FILLED else v
                for k, v in match.groupdict().items()
            }
            return other.format(**values)

        text = _printed_pattern(template).sub(filled, text)
    return text


def _cpu_name(cpuinfo):
    """The CPU's model name from ``cpuinfo`` (Linux), else what ``platform`` says."""
    try:
        with open(cpuinfo, encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or word("unknown")


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


def _openblas_functions():
    """The OpenBLAS bundled in numpy's wheel (``numpy.libs``) and its functions that get and
    set the thread count, as threadpoolctl finds them; ``(None, None, None)`` if there is none
    (a conda or system numpy)."""
    package = os.path.dirname(np.__file__)
    # Linux and Windows wheels keep it in numpy.libs beside the package, macOS ones in .dylibs
    paths = glob.glob(os.path.join(os.path.dirname(package), "numpy.libs", "*openblas*"))
    paths += glob.glob(os.path.join(package, ".dylibs", "*openblas*"))
    for path in paths:
        lib = ctypes.CDLL(path)  # already loaded by numpy: the same library
        for prefix in ("scipy_openblas", "openblas"):
            for suffix in ("64_", ""):
                getter = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                setter = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
                if getter is not None and setter is not None:
                    return lib, getter, setter
    return None, None, None


def _bundled_openblas():
    """The kernel and thread count of numpy's bundled OpenBLAS, asked as threadpoolctl asks
    them; [] if there is none."""
    lib, threads, _ = _openblas_functions()
    if lib is None:
        return []
    for prefix in ("scipy_openblas", "openblas"):
        for suffix in ("64_", ""):
            corename = getattr(lib, f"{prefix}_get_corename{suffix}", None)
            if corename is not None:
                corename.restype = ctypes.c_char_p
                kernel = corename().decode()
                return [
                    {"internal_api": "openblas", "architecture": kernel, "num_threads": threads()}
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
