"""How close attn_core gets to the machine: ``python -m attn_core.bench`` (or ``make bench``).

For each n (L = S = n, d = 64) and dtype it times, interleaved and repeated,
the medians of:

- ``floor``: the two matmuls alone, ``Q Kᵀ`` then ``scores @ V``, into
  buffers made beforehand: what any exact attention must at least compute;
- ``plain``: the readable path (the weights, then ``weights @ value``);
- ``fast``: :func:`attn_core.scaled_dot_product_attention`'s query blocks;
- ``chunked``: :func:`attn_core.chunked_attention` (the online softmax);
- ``torch``: PyTorch's CPU ``scaled_dot_product_attention``, where installed,
  timed in a separate process (OpenBLAS's spinning threads slow torch's pool
  when both live in one), in turn with the others.

Each is printed as a ratio to the floor and to PyTorch, with its peak extra
memory (tracemalloc, in a separate untimed call) and the BLAS it ran with
(threadpoolctl, where installed). Not imported by ``import attn_core``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import time
import tracemalloc
from functools import partial

import numpy as np

from . import attention
from .attention import scaled_dot_product_attention
from .chunked import chunked_attention
from .cost import attention_cost

SIZES = (256, 512, 1024, 2048, 4096, 8192)
METHODS = ("floor", "plain", "fast", "chunked")
#: Idle time around a torch call, so that one process's spinning threads have stopped before the
#: other's call: OpenBLAS's idle threads busy-wait 2**28 clock ticks (0.10 s at this machine's
#: 2.6 GHz) before they sleep; with 0.1 s, torch at n = 2048 measured 10.7 ms instead of 6.3.
SETTLE_SECONDS = 0.25
#: OpenBLAS kernels built for AVX2 only; on a CPU with AVX-512 they leave half of its width unused.
AVX2_KERNELS = ("haswell", "zen", "sandybridge")


def _optional(name):
    """Import a package the benchmark uses if present; attn_core itself depends on numpy only.

    By name, through importlib, so that these two stay out of the import graph
    that ``tests/test_import.py`` holds to numpy and the standard library.
    """
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

    return {
        "floor": floor,
        "plain": lambda: _sdpa_with_threshold(q, k, v, min_pairs=float("inf")),
        "fast": lambda: _sdpa_with_threshold(q, k, v, min_pairs=1),
        "chunked": lambda: chunked_attention(q, k, v),
    }


def _sdpa_with_threshold(q, k, v, min_pairs):
    """The public function with the fast path forced on (1) or off (inf)."""
    saved, attention.FAST_PATH_MIN_PAIRS = attention.FAST_PATH_MIN_PAIRS, min_pairs
    try:
        return scaled_dot_product_attention(q, k, v)
    finally:
        attention.FAST_PATH_MIN_PAIRS = saved


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


class TorchWorker:
    """PyTorch's SDPA in a child process: one timed call per request."""

    def __init__(self, threads=None):
        command = [sys.executable, "-m", "attn_core.bench", "--torch-worker"]
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
    peaks = {name: peak_extra_bytes(methods[name]) for name in METHODS[1:]}
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


def kernel_note(kernels=None, cpu_flags_file="/proc/cpuinfo"):
    """A hint when OpenBLAS runs an AVX2 kernel on a CPU that has AVX-512, else ''.

    OpenBLAS picks its kernel from the CPU's family; a CPU newer than the
    OpenBLAS that numpy ships with (AMD Zen 5 with OpenBLAS 0.3.31, say) gets
    the generic Haswell one. PyTorch uses AVX-512 on such a CPU, so it is
    compared with a BLAS running at half width; ``OPENBLAS_CORETYPE`` tells
    OpenBLAS which kernel to load (read once, when numpy is imported).
    ``kernels``: OpenBLAS's kernel names; None asks threadpoolctl, where installed.
    """
    kernels = openblas_kernels() if kernels is None else kernels
    try:
        with open(cpu_flags_file, encoding="utf-8") as cpuinfo:
            has_avx512 = " avx512f " in cpuinfo.read().replace("\n", " ")
    except OSError:
        return ""
    if not has_avx512 or not {k.lower() for k in kernels} & set(AVX2_KERNELS):
        return ""
    return (
        "Note: this CPU has AVX-512 but OpenBLAS runs an AVX2 kernel; to measure with its "
        "AVX-512 kernel: OPENBLAS_CORETYPE=SkylakeX make bench"
    )


def openblas_kernels():
    """The kernel names of the OpenBLAS libraries loaded (threadpoolctl), or () without it."""
    try:
        threadpoolctl = _optional("threadpoolctl")
    except ImportError:
        return ()
    pools = threadpoolctl.threadpool_info()
    return tuple(str(p.get("architecture", "")) for p in pools if p["internal_api"] == "openblas")


def machine_load():
    """The load average, since other processes on a shared machine skew every figure."""
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} CPUs"


def format_table(dtype, d, rows):
    """A markdown table: ms, ratio to the floor and to torch, peak extra MB."""
    has_torch = any("torch" in t for t, _ in rows.values())
    head = "| n | floor ms (GFLOP/s) | plain | fast | chunked |" + (" torch |" if has_torch else "")
    head += " peak MB plain / fast / chunked |"
    lines = [f"\n{dtype}, d = {d}: ms, ×floor" + (", ×torch" if has_torch else ""), head]
    lines.append("|" + "---|" * (head.count("|") - 1))
    for n, (times, peaks) in rows.items():
        floor, torch = times["floor"], times.get("torch")
        gflops = attention_cost(1, 1, n, n, d, dtype).matmul_flops / floor / 1e9
        cells = [f"{n}", f"{floor * 1e3:.2f} ({gflops:.0f})"]
        for name in ("plain", "fast", "chunked") + (("torch",) if has_torch else ()):
            cells.append(_cell(times[name], floor, torch))
        cells.append(" / ".join(f"{peaks[m] / 2**20:.1f}" for m in ("plain", "fast", "chunked")))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cell(took, floor, torch):
    text = f"{took * 1e3:.2f} ({took / floor:.2f}×"
    return text + (f", {took / torch:.2f}×t)" if torch else ")")


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m attn_core.bench", description=__doc__)
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
    if note := kernel_note():
        print(note)
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
