"""The benchmark's arithmetic and its run end to end (tiny sizes; no stopwatch is asserted)."""

import subprocess
import sys

import pytest

from attn_core import bench


def test_table_ratios_are_time_over_floor_and_over_torch():
    times = {"floor": 0.010, "plain": 0.035, "fast": 0.012, "chunked": 0.020, "torch": 0.015}
    peaks = {"plain": 3 * 2**20, "fast": 2**19, "chunked": 2**20}
    table = bench.format_table("float32", 64, {2048: (times, peaks)})
    row = table.splitlines()[-1]
    # 2 * 2048 * 2048 * 64 * 2 FLOPs in 10 ms = 107 GFLOP/s; 35/10 = 3.5x floor, 35/15 = 2.33x torch
    assert row.startswith("| 2048 | 10.00 (107) | 35.00 (3.50×, 2.33×t) | 12.00 (1.20×, 0.80×t)")
    assert row.endswith("| 3.0 / 0.5 / 1.0 |")


def test_table_without_torch_has_no_torch_column():
    times = {"floor": 0.002, "plain": 0.004, "fast": 0.003, "chunked": 0.005}
    peaks = {"plain": 0, "fast": 0, "chunked": 0}
    table = bench.format_table("float64", 8, {16: (times, peaks)})
    assert "torch" not in table and "| 4.00 (2.00×) |" in table


def test_runs_end_to_end_without_torch():
    flags = ["--sizes", "16", "40", "--repeats", "1", "--dtypes", "float64", "--no-torch"]
    done = subprocess.run(
        [sys.executable, "-m", "attn_core.bench", *flags],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = [line for line in done.stdout.splitlines() if line.startswith(("| 16 ", "| 40 "))]
    assert len(rows) == 2, done.stdout
    assert "PyTorch: skipped" in done.stdout and "BLAS" in done.stdout


def test_median_seconds_warms_up_then_takes_the_median(monkeypatch):
    calls, took = [], iter([0.5, 0.1, 0.3])
    monkeypatch.setattr(bench, "seconds", lambda function: next(took))
    assert bench.median_seconds(lambda: calls.append(1), repeats=3) == 0.3
    assert calls == [1]  # the warm-up ran the function once, untimed


def _cpuinfo(tmp_path, flags):
    """A /proc/cpuinfo whose flags line holds ``flags``."""
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nflags\t\t: fpu sse2 {flags}\n", encoding="utf-8")
    return cpuinfo


@pytest.mark.parametrize(
    ("flags", "kernel", "noted"),
    [
        ("avx2 avx512f avx512bw", "Haswell", True),  # Zen 5 with OpenBLAS 0.3.31, as measured here
        ("avx2 avx512f avx512bw", "SkylakeX", False),  # already the AVX-512 kernel
        ("avx2 fma", "Haswell", False),  # no AVX-512 to use
        ("avx2 avx512f", "Zen", True),
        ("avx2 avx512f", None, False),  # no OpenBLAS (MKL, say): nothing to say
    ],
)
def test_kernel_note_only_where_avx512_sits_unused(tmp_path, flags, kernel, noted):
    kernels = [kernel] if kernel else []
    note = bench.kernel_note(kernels, _cpuinfo(tmp_path, flags))
    assert bool(note) is noted
    assert not note or "OPENBLAS_CORETYPE=SkylakeX" in note


def test_kernel_note_is_silent_without_a_cpuinfo(tmp_path):
    assert bench.kernel_note(["Haswell"], tmp_path / "absent") == ""
