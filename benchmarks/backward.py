"""Time attention's backward pass against its forward: ``python benchmarks/backward.py``.

At n = 1024 queries and keys, d = 64 (float32 and float64), it prints the medians of
interleaved repeats of :func:`attn_core.scaled_dot_product_attention` (the forward, its
fast path at this size) and :func:`attn_core.attention_backward` (which recomputes the
weights, then four matmuls), and their ratio. The issue asks for backward <= 3x forward.
The BLAS kernel is named where threadpoolctl is installed (set OPENBLAS_CORETYPE, or unset
it, to compare kernels).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import attn_core as ac


def _seconds(fn, *args):
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def _blas():
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "unknown (threadpoolctl not installed)"
    found = [f"{i.get('internal_api')} {i.get('version')} {i.get('architecture')}"
             for i in threadpool_info() if i.get("user_api") == "blas"]  # fmt: skip
    return ", ".join(found) or "none found"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--d", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)
    print(f"n = {args.n}, d = {args.d}, medians of {args.repeats} interleaved runs")
    print(f"BLAS: {_blas()}")
    for dtype in (np.float32, np.float64):
        rng = np.random.default_rng(0)
        q, k, v, g = (rng.standard_normal((args.n, args.d)).astype(dtype) for _ in range(4))
        forward = (ac.scaled_dot_product_attention, q, k, v)
        backward = (ac.attention_backward, g, q, k, v)
        _seconds(*forward), _seconds(*backward)  # warm up: fresh memory is slow to touch
        fwd, bwd = [], []
        for _ in range(args.repeats):  # interleaved, so a busy moment hits both
            fwd.append(_seconds(*forward))
            bwd.append(_seconds(*backward))
        f, b = statistics.median(fwd), statistics.median(bwd)
        print(
            f"{np.dtype(dtype).name:8} forward {f * 1e3:7.2f} ms   "
            f"backward {b * 1e3:7.2f} ms   ratio {b / f:.2f}"
        )


if __name__ == "__main__":
    main()
