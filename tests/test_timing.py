"""attn_book.timing without timing anything: the statistics, the fit and the machine line."""

import numpy as np
import pytest

from attn_book import timing


def test_timed_takes_the_median_of_the_repeats_after_one_untimed_call(monkeypatch):
    calls = []
    monkeypatch.setattr(timing.timeit, "repeat", lambda f, number, repeat: [3.0, 1.0, 2.0])
    result = timing.timed(calls.append, "x", repeats=3)
    assert calls == ["x"]  # the warm-up call; timeit.repeat is replaced
    assert result == timing.Timing(median=2.0, low=1.0, high=3.0)


def test_loglog_fit_recovers_a_power_law_and_its_spread():
    n = np.array([1024, 2048, 4096, 8192])
    fit = timing.loglog_fit(n, 1e-9 * n**1.5)
    assert fit.slope == pytest.approx(1.5)
    assert fit.stderr == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(fit.local, [1.5, 1.5, 1.5])


def test_loglog_fit_reports_the_noise_it_was_given():
    fit = timing.loglog_fit([1, 2, 4, 8], [1.0, 2.0, 8.0, 16.0])  # local slopes 1, 2, 1
    np.testing.assert_allclose(fit.local, [1.0, 2.0, 1.0])
    assert 1.0 < fit.slope < 2.0
    assert fit.stderr > 0.1


def test_loglog_fit_needs_two_points():
    with pytest.raises(ValueError, match="two points"):
        timing.loglog_fit([1024], [0.1])


def test_machine_names_the_cpu_extensions_kernel_and_forced_coretype(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: Test CPU 9000\n")
    blas = [{"internal_api": "openblas", "architecture": "SkylakeX", "num_threads": 4}]
    line = timing.machine({"AVX512F": True, "AVX2": True}, blas, {}, str(cpuinfo))
    assert line.startswith("CPU: Test CPU 9000")
    assert "vector extensions: AVX512F, AVX2" in line
    assert "OpenBLAS kernel SkylakeX, 4 threads" in line
    assert "OPENBLAS_CORETYPE" not in line
    forced = timing.machine({}, blas, {"OPENBLAS_CORETYPE": "Haswell"}, str(cpuinfo), load=1.5)
    assert forced.endswith("OPENBLAS_CORETYPE=Haswell; load average 1.50")
    assert "vector extensions: none reported" in forced


def test_machine_without_a_known_blas_says_so():
    assert "BLAS kernel: unknown" in timing.machine({}, [], {}, "/nonexistent")


def test_machine_describes_this_process_without_failing():
    assert timing.machine().startswith("CPU: ")


def test_peak_bytes_sees_a_numpy_allocation_and_stops_tracing():
    assert timing.peak_bytes(np.zeros, (256, 1024)) >= 8 * 256 * 1024
    assert not timing.tracemalloc.is_tracing()
