"""The benchmark's arithmetic and its run end to end (tiny sizes; no stopwatch is asserted)."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_attention.py"
_spec = importlib.util.spec_from_file_location("bench_attention", SCRIPT)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def test_table_ratios_are_time_over_floor_and_over_torch():
    times = {"floor": 0.010, "exp": 0.002, "plain": 0.035, "blocked": 0.012, "chunked": 0.020}
    times["torch"] = 0.015
    peaks = {"plain": 3 * 2**20, "blocked": 2**19, "chunked": 2**20}
    table = bench.format_table("float32", 64, {2048: (times, peaks)})
    row = table.splitlines()[-1]
    # 2 * 2048 * 2048 * 64 * 2 FLOPs in 10 ms = 107 GFLOP/s; 35/10 = 3.5x floor,
    # 35/15 = 2.33x torch; blocked: 12 / (10 + 2) = 1.00x the floor plus one exp pass
    assert row.startswith(
        "| 2048 | 10.00 (107) | 2.00 | 35.00 (3.50×, 2.33×t) | 12.00 (1.20×, 0.80×t) | 1.00× |"
    )
    assert row.endswith("| 3.0 / 0.5 / 1.0 |")


def test_table_without_torch_has_no_torch_column():
    times = {"floor": 0.002, "exp": 0.001, "plain": 0.004, "blocked": 0.003, "chunked": 0.005}
    peaks = {"plain": 0, "blocked": 0, "chunked": 0}
    table = bench.format_table("float64", 8, {16: (times, peaks)})
    assert "torch" not in table and "| 4.00 (2.00×) |" in table


def test_runs_end_to_end_without_torch():
    flags = ["--sizes", "16", "40", "--repeats", "1", "--dtypes", "float64", "--no-torch"]
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *flags],
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


@pytest.mark.parametrize(
    ("environ", "kernel", "says"),
    [
        ({"OPENBLAS_CORETYPE": "Haswell"}, "Haswell", "forced by OPENBLAS_CORETYPE=Haswell"),
        ({}, "SkylakeX", "chosen by OpenBLAS for this CPU"),
        ({"OPENBLAS_CORETYPE": "Haswell"}, None, ""),  # no OpenBLAS (MKL, say): nothing to say
    ],
)
def test_kernel_note_says_whether_the_environment_forced_the_kernel(environ, kernel, says):
    note = bench.kernel_note([kernel] if kernel else [], environ)
    assert (says in note) if says else note == ""
    if "forced" in note:
        assert "env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE make bench" in note


def test_vector_extensions_are_read_from_cpuinfo(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor : 0\nflags : fpu sse4_2 avx avx2 fma avx512f avx512cd\n")
    assert bench.vector_extensions(cpuinfo) == "avx avx2 avx512cd avx512f fma sse4_2"
    assert "unknown" in bench.vector_extensions(tmp_path / "missing")


def test_numpy_simd_names_what_the_environment_disabled():
    says = bench.numpy_simd({"NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"})
    assert says.startswith("numpy SIMD in use: ")
    assert says.endswith("(X86_V4 AVX512_ICL AVX512_SPR disabled)")


def test_decode_memory_is_the_output_and_one_row_of_scores():
    # A 4 MiB cache of float32, d = 8: S = 65536, one row of scores 0.25 MiB.
    line = bench.decode_memory(8, cache_bytes=4 * 2**20)
    assert "S = 65536, d = 8" in line and "one row of scores: 0.25 MiB" in line
    decode = float(line.split("decode step ")[1].split(" MiB")[0])
    assert decode <= 0.26  # no copy of the 2 MiB of keys or values
