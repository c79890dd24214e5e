"""How close attn_core gets to the machine: ``make bench`` (benchmarks/bench_attention.py).

A benchmark harness, not maths: it lives outside attn_core and is not installed.
For each n (L = S = n, d = 64) and dtype it times, interleaved and repeated,
the medians of:

- ``floor``: the two matmuls alone, ``Q Kᵀ`` then ``scores @ V``, into
  buffers made beforehand: what any exact attention must at least compute;
- ``exp``: one pass of numpy's ``exp`` over the n × n scores, in place. numpy's
  ``exp`` runs on one core, so floor + exp is the limit numpy sets for an exact
  attention that exponentiates every score once;
- ``plain``: the formula as written: ``attention_weights(q, k) @ v``;
- ``blocked``: :func:`attn_core.blocked_attention` (query blocks), what
  :func:`attn_core.scaled_dot_product_attention` runs for large inputs;
- ``chunked``: :func:`attn_core.chunked_attention` (the online softmax);
- ``torch``: PyTorch's CPU ``scaled_dot_product_attention``, where installed,
  timed in a separate process (OpenBLAS's spinning threads slow torch's pool
  when both live in one), in turn with the others.

Each is printed as a ratio to the floor and to PyTorch (and ``blocked`` to
floor + exp), with its peak extra memory (tracemalloc, in a separate untimed
call) and the BLAS kernel it ran with (threadpoolctl, where installed) and
whether ``OPENBLAS_CORETYPE`` forced that kernel.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib
import json
import os
import statistics
import subprocess
import sys
import time
import tracemalloc
from functools import partial
from pathlib import Path

import numpy as np

from attn_core import (
    attention_cost,
    attention_weights,
    blocked_attention,
    chunked_attention,
    scaled_dot_product_attention,
)
from attn_core.validation import check_attention

SIZES = (256, 512, 1024, 2048, 4096, 8192)
METHODS = ("floor", "exp", "plain", "blocked", "chunked")
#: Idle time around a torch call, so that one process's spinning threads have stopped before the
#: other's call: OpenBLAS's idle threads busy-wait 2**28 clock ticks (0.10 s at this machine's
#: 2.6 GHz) before they sleep; with 0.1 s, torch at n = 2048 measured 10.7 ms instead of 6.3.
SETTLE_SECONDS = 0.25


def _optional(name):
    """Import a package the benchmark uses if present (torch, threadpoolctl): both optional."""
    return importlib.import_module(name)


def random_qkv(n, d, dtype, seed=0):
    """Standard normal query, key, value, each (n, d), the same in both processes."""
    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal((n, d)).astype(dtype) for _ in range(3))


def numpy_methods(q, k, v):
    """name -> zero-argument callable, for q, k, v (n, d)."""
    scores = np.empty((q.shape[0], k.shape[0]), dtype=q.dtype)  # the floor's buffers
    out = np.empty((q.shape[0], v.shape[1]), dtype=q.dtype)

    def floor():
        np.matmul(q, k.T, out=scores)  # [n, d] @ [d, n] -> [n, n]
        np.matmul(scores, v, out=out)  # [n, n] @ [n, d] -> [n, d]

    exp_input = np.full_like(scores, -1.0)  # exp(-1) everywhere: no overflow, no denormals

    def exp_pass():
        np.exp(exp_input, out=scores)  # one pass over the n × n scores, on one core

    return {
        "floor": floor,
        "exp": exp_pass,
        "plain": lambda: attention_weights(q, k) @ v,
        "blocked": lambda: blocked_attention(q, k, v),
        "chunked": lambda: chunked_attention(q, k, v),
    }


def seconds(function):
    """Wall-clock seconds of one call of ``function()``."""
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def median_seconds(function, repeats=5):
    """Median wall-clock seconds of ``repeats`` calls, after one untimed warm-up call.

    Examples
    --------
    >>> median_seconds(lambda: None, repeats=3) < 0.1
    True
    """
    function()  # warm-up: fresh memory can be slow to touch on this machine
    return statistics.median(seconds(function) for _ in range(repeats))


def peak_extra_bytes(function):
    """Peak memory allocated during one call, beyond what was held before it."""
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def decode_memory(d, cache_bytes=128 * 2**20, dtype="float32"):
    """Peak extra memory of one decode step (one query over a cache) and of its inputs' check."""
    S = cache_bytes // (2 * d * np.dtype(dtype).itemsize)  # keys and values, half each
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal(shape, dtype=dtype) for shape in ((d,), (S, d), (S, d)))
    step = partial(scaled_dot_product_attention, q, k, v)
    step()  # warm-up: numpy's first call allocates a few caches
    check, decode = peak_extra_bytes(partial(check_attention, q, k, v)), peak_extra_bytes(step)
    allowed = (d + S) * np.dtype(dtype).itemsize  # the output and one row of scores
    return (
        f"Memory (tracemalloc, peak extra), one query over a {cache_bytes / 2**20:.0f} MiB "
        f"{dtype} cache (S = {S}, d = {d}): decode step {decode / 2**20:.2f} MiB (output + "
        f"one row of scores: {allowed / 2**20:.2f} MiB); the inputs' check {check / 2**10:.1f} KiB"
    )


class TorchWorker:
    """PyTorch's SDPA in a child process: one timed call per request."""

    def __init__(self, threads=None):
        command = [sys.executable, __file__, "--torch-worker"]
        command += ["--threads", str(threads)] if threads else []
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.info = json.loads(self.process.stdout.readline())  # version, threads or error

    def time_one(self, n, d, dtype):
        time.sleep(SETTLE_SECONDS)
        self.process.stdin.write(json.dumps({"n": n, "d": d, "dtype": dtype}) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        time.sleep(SETTLE_SECONDS)
        return answer["seconds"]

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)


def start_torch_worker(wanted, threads):
    """A TorchWorker, or None with the reason printed (not wanted, or not installed)."""
    if not wanted:
        print("PyTorch: skipped (--no-torch)")
        return None
    worker = TorchWorker(threads)
    if "error" in worker.info:
        print(f"PyTorch: {worker.info['error']}")
        worker.close()
        return None
    print(f"PyTorch: {worker.info['version']}, {worker.info['threads']} threads (own process)")
    return worker


def torch_worker_main(threads):
    """The child: read {n, d, dtype} lines, answer {seconds} for one SDPA call."""
    try:
        torch = _optional("torch")
    except ImportError:
        print(json.dumps({"error": "not installed"}), flush=True)
        return
    if threads:
        torch.set_num_threads(threads)
    F = torch.nn.functional
    print(json.dumps({"version": torch.__version__, "threads": torch.get_num_threads()}))
    sys.stdout.flush()
    inputs, key = None, None
    for line in sys.stdin:
        request = json.loads(line)
        if (request["n"], request["d"], request["dtype"]) != key:
            key = (request["n"], request["d"], request["dtype"])
            arrays = random_qkv(request["n"], request["d"], request["dtype"])
            inputs = [torch.from_numpy(a)[None, None] for a in arrays]  # (1, 1, n, d)
            with torch.inference_mode():
                F.scaled_dot_product_attention(*inputs)  # warm-up
        with torch.inference_mode():
            took = seconds(partial(F.scaled_dot_product_attention, *inputs))
        print(json.dumps({"seconds": took}), flush=True)


def measure_size(n, d, dtype, repeats, worker, progress):
    """Median seconds and peak bytes of every method at one n and dtype."""
    methods = numpy_methods(*random_qkv(n, d, dtype))
    for function in methods.values():
        function()  # warm-up: fresh memory can be slow to touch on this machine
    names = list(methods) + (["torch"] if worker else [])
    times = {name: [] for name in names}
    for repeat in range(repeats):
        order = names[repeat % len(names) :] + names[: repeat % len(names)]  # rotate the order
        for name in order:
            progress(f"{dtype} n={n} repeat {repeat + 1}/{repeats} {name}")
            run = methods.get(name) or (lambda: None)
            took = worker.time_one(n, d, dtype) if name == "torch" else seconds(run)
            times[name].append(took)
    peaks = {name: peak_extra_bytes(methods[name]) for name in ("plain", "blocked", "chunked")}
    return {name: statistics.median(t) for name, t in times.items()}, peaks


def limit_blas_threads(threads):
    """Limit numpy's BLAS to ``threads`` through threadpoolctl; None leaves it alone."""
    if not threads:
        return None
    try:
        return _optional("threadpoolctl").threadpool_limits(threads)
    except ImportError:
        sys.exit("--threads needs threadpoolctl; or set OPENBLAS_NUM_THREADS and OMP_NUM_THREADS")


def blas_description():
    """The BLAS library, kernel and thread count numpy runs with (threadpoolctl)."""
    try:
        threadpoolctl = _optional("threadpoolctl")
    except ImportError:
        return "BLAS: unknown (threadpoolctl not installed)"
    pools = [p for p in threadpoolctl.threadpool_info() if p.get("user_api") == "blas"]
    return "; ".join(
        f"BLAS: {p['internal_api']} {p['version']}, kernel {p.get('architecture', '?')}, "
        f"{p['num_threads']} threads ({p.get('threading_layer', '?')})"
        for p in pools
    )


def kernel_note(kernels=None, environ=None):
    """Which OpenBLAS kernel runs, and whether ``OPENBLAS_CORETYPE`` forced it ('' without one).

    OpenBLAS picks its kernel from the CPU when numpy is imported, unless the
    environment names one in ``OPENBLAS_CORETYPE`` (some machines set it, with
    ``OPENBLAS_L2_SIZE``, for old OpenBLAS builds; this one sets ``Haswell``,
    the AVX2 kernel, on a CPU where OpenBLAS itself would choose its AVX-512
    ``SkylakeX``). A reader's machine lets OpenBLAS choose, so the figures to
    quote are those measured with both variables unset, for the bench only.
    ``kernels``: OpenBLAS's kernel names; None asks threadpoolctl, where installed.
    """
    kernels = openblas_kernels() if kernels is None else kernels
    environ = os.environ if environ is None else environ
    if not kernels:
        return ""
    names = ", ".join(kernels)
    forced = environ.get("OPENBLAS_CORETYPE")
    if not forced:
        return f"OpenBLAS kernel: {names}, chosen by OpenBLAS for this CPU (as a reader's is)"
    return (
        f"OpenBLAS kernel: {names}, forced by OPENBLAS_CORETYPE={forced} in this environment; "
        "to measure the kernel OpenBLAS itself chooses, as on a reader's machine: "
        "env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE make bench"
    )


def openblas_kernels():
    """The kernel names of the OpenBLAS libraries loaded: threadpoolctl's, else numpy's own."""
    try:
        threadpoolctl = _optional("threadpoolctl")
    except ImportError:
        return numpy_openblas_kernel()
    pools = threadpoolctl.threadpool_info()
    return tuple(str(p.get("architecture", "")) for p in pools if p["internal_api"] == "openblas")


def numpy_openblas_kernel():
    """OpenBLAS's kernel, asked of the library numpy's wheel bundles (ctypes), or ()."""
    libs = Path(np.__file__).parent.parent / "numpy.libs"
    for path in sorted(libs.glob("libscipy_openblas*.so*")):
        lib = ctypes.CDLL(str(path))
        for name in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename"):
            if hasattr(lib, name):
                getattr(lib, name).restype = ctypes.c_char_p
                return (getattr(lib, name)().decode(),)
    return ()


def vector_extensions(cpuinfo="/proc/cpuinfo"):
    """The CPU's vector extensions (sse4_2, avx2, avx512f, ...) as /proc/cpuinfo lists them."""
    try:
        lines = Path(cpuinfo).read_text().splitlines()
    except OSError:
        return "unknown (no /proc/cpuinfo)"
    flags = next((line.split(":", 1)[1].split() for line in lines if line.startswith("flags")), [])
    return " ".join(sorted(f for f in set(flags) if f.startswith(("sse4", "avx", "fma", "amx"))))


def numpy_simd(environ=None):
    """numpy's SIMD levels in use, and those ``NPY_DISABLE_CPU_FEATURES`` switched off."""
    environ = os.environ if environ is None else environ
    try:  # numpy 2; numpy 1 keeps them in numpy.core
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:
        from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    used = " ".join(name for name in __cpu_dispatch__ if __cpu_features__.get(name))
    off = environ.get("NPY_DISABLE_CPU_FEATURES")
    return f"numpy SIMD in use: {used or 'baseline only'}" + (f" ({off} disabled)" if off else "")


def machine_load():
    """The load average, since other processes on a shared machine skew every figure."""
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} CPUs"


def format_table(dtype, d, rows):
    """A markdown table: ms, ×floor (blocked: also ×(floor + exp)) and ×torch, peak MB."""
    has_torch = any("torch" in t for t, _ in rows.values())
    head = "| n | floor ms (GFLOP/s) | exp ms | plain | blocked | ×(floor + exp) | chunked |"
    head += (" torch |" if has_torch else "") + " peak MB plain / blocked / chunked |"
    lines = [f"\n{dtype}, d = {d}: ms, ×floor" + (", ×torch" if has_torch else ""), head]
    lines.append("|" + "---|" * (head.count("|") - 1))
    for n, (times, peaks) in rows.items():
        floor, torch = times["floor"], times.get("torch")
        gflops = attention_cost(1, 1, n, n, d, dtype).matmul_flops / floor / 1e9
        cells = [f"{n}", f"{floor * 1e3:.2f} ({gflops:.0f})", f"{times['exp'] * 1e3:.2f}"]
        cells += [_cell(times["plain"], floor, torch), _cell(times["blocked"], floor, torch)]
        cells.append(f"{times['blocked'] / (floor + times['exp']):.2f}×")
        for name in ("chunked",) + (("torch",) if has_torch else ()):
            cells.append(_cell(times[name], floor, torch))
        cells.append(" / ".join(f"{peaks[m] / 2**20:.1f}" for m in ("plain", "blocked", "chunked")))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cell(took, floor, torch):
    text = f"{took * 1e3:.2f} ({took / floor:.2f}×"
    return text + (f", {took / torch:.2f}×t)" if torch else ")")


def parse_args(argv):
    prog = "python benchmarks/bench_attention.py"
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=SIZES, help="values of n")
    parser.add_argument("--dtypes", nargs="+", default=["float32", "float64"])
    parser.add_argument("--d", type=int, default=64, help="query/key/value size")
    parser.add_argument("--repeats", type=int, default=7, help="interleaved repeats per n")
    parser.add_argument("--no-torch", action="store_true", help="skip PyTorch")
    parser.add_argument(
        "--threads", type=int, help="BLAS and torch threads (steadier on a busy machine: 1)"
    )
    parser.add_argument("--torch-worker", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if args.torch_worker:
        return torch_worker_main(args.threads)
    limit_blas_threads(args.threads)  # for the rest of this process
    print(f"numpy {np.__version__}; {blas_description()}; {machine_load()}")
    print(f"CPU vector extensions: {vector_extensions()}; {numpy_simd()}")
    if note := kernel_note():
        print(note)
    print(decode_memory(args.d))
    worker = start_torch_worker(not args.no_torch, args.threads)
    total, done = len(args.sizes) * len(args.dtypes), [0]

    def progress(text):
        print(f"\r[{done[0] + 1}/{total}] {text:<50}", end="", file=sys.stderr, flush=True)

    try:
        for dtype in args.dtypes:
            rows = {}
            for n in args.sizes:
                rows[n] = measure_size(n, args.d, dtype, args.repeats, worker, progress)
                done[0] += 1
            print("\r" + " " * 60 + "\r", end="", file=sys.stderr)
            print(format_table(dtype, args.d, rows), flush=True)
        print(f"\n{machine_load()} at the end")
    finally:
        if worker:
            worker.close()


if __name__ == "__main__":
    main()
