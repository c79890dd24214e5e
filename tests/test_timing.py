"""attn_book.timing without timing anything: the statistics, the fit and the machine line."""

import numpy as np
import pytest

from attn_book import timing


def test_timed_estimates_by_the_fastest_repeat_after_one_untimed_call(monkeypatch):
    calls = []
    monkeypatch.setattr(timing.timeit, "repeat", lambda f, timer, number, repeat: [3.0, 1.0, 2.0])
    result = timing.timed(calls.append, "x", repeats=3)
    assert calls == ["x"]  # the warm-up call; timeit.repeat is replaced
    assert result == timing.Timing(best=1.0, median=2.0, worst=3.0)


def test_the_fastest_repeat_ignores_a_loaded_machine_where_the_median_does_not(monkeypatch):
    # 9 repeats of a 10 ms call; five were slowed by other programs to 30-70 ms
    times = [0.030, 0.010, 0.050, 0.010, 0.040, 0.010, 0.070, 0.010, 0.060]
    monkeypatch.setattr(timing.timeit, "repeat", lambda f, timer, number, repeat: times)
    result = timing.timed(lambda: None, repeats=9)
    assert result.best == 0.010
    assert result.median == 0.030  # sorted: 10 10 10 10 [30] 40 50 60 70
    assert result.worst == 0.070


def test_timed_counts_with_the_clock_it_is_given():
    ticks = iter([0.0, 5.0, 5.0, 7.0])  # a fake clock: calls of 5 and 2 "seconds"
    result = timing.timed(lambda: None, repeats=2, clock=lambda: next(ticks))
    assert result == timing.Timing(best=2.0, median=3.5, worst=5.0)


def test_timed_needs_a_repeat():
    with pytest.raises(ValueError, match="repeats"):
        timing.timed(lambda: None, repeats=0)


def test_loglog_fit_from_x_min_skips_the_small_sizes_a_fixed_cost_dominates():
    # t = 1 ms + 1 ns · n²: the fixed millisecond dominates small n, n² large n
    n = np.array([128, 256, 512, 1024, 2048, 4096, 8192, 16384])
    t = 1e-3 + 1e-9 * n.astype(float) ** 2
    everything = timing.loglog_fit(n, t)
    tail = timing.loglog_fit(n, t, x_min=4096)
    assert tail.x_min == 4096 and everything.x_min == 128
    assert len(tail.local) == 2
    # by hand: t(8192)/t(4096) = (1e-3 + 0.0671)/(1e-3 + 0.01678), log2 of it ≈ 1.94
    assert tail.local[0] == pytest.approx(np.log2((1e-3 + 2**26 * 1e-9) / (1e-3 + 2**24 * 1e-9)))
    assert 1.9 < tail.slope < 2.0
    assert everything.slope < 1.5  # the flat start drags the all-sizes slope down


def test_loglog_fit_says_which_argument_is_short():
    with pytest.raises(ValueError, match="x_min=8192"):
        timing.loglog_fit([1024, 2048, 4096], [1.0, 4.0, 16.0], x_min=8192)
    with pytest.raises(ValueError, match="shapes"):
        timing.loglog_fit([1, 2, 3], [1.0, 2.0])


def test_steepest_step_finds_a_cache_cliff_and_leaves_points_beyond_it():
    # 1 ms per 1024 positions while the cache fits, 4 ms per 1024 after n = 4096
    n = np.array([1024, 2048, 4096, 8192, 16384, 32768])
    ms = np.where(n <= 4096, n / 1024, 4 * n / 1024)
    i = timing.steepest_step(n, ms)
    assert (n[i], n[i + 1]) == (4096, 8192)  # local slope log2(32 / 4) = 3, the others 1
    assert timing.loglog_fit(n, ms, x_min=n[i + 1]).slope == pytest.approx(1.0)
    # a jump at the last step is not picked when two points must remain beyond it
    late = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 256.0])
    assert timing.steepest_step(n, late) < len(n) - 2


def test_start_beyond_cache_skips_a_gradual_cliff_that_the_steepest_step_splits():
    # as chapter 10 measured it: two steep steps, 2048 -> 4096 -> 8192, then slope 1
    n = [1024, 2048, 4096, 8192, 16384, 32768, 65536]
    ms = [0.07, 0.13, 0.44, 1.50, 3.05, 6.14, 12.55]
    mib = [4 * k for k in (1, 2, 4, 8, 16, 32, 64)]
    # local slopes by hand: log2(0.44 / 0.13) = 1.76, log2(1.50 / 0.44) = 1.77, the steepest
    assert timing.start_beyond_cache(n, ms, mib, None) == (8192, None)  # the steepest step
    assert timing.start_beyond_cache(n, ms, mib, 32) == (16384, 0)  # first cache above 32 MiB
    assert timing.start_beyond_cache(n, ms, mib, 8) == (8192, 0)  # the step is later than that
    fit = timing.loglog_fit(n, ms, x_min=16384)
    assert fit.slope == pytest.approx(np.polyfit(np.log(n[4:]), np.log(ms[4:]), 1)[0])


def test_start_beyond_cache_says_when_it_fell_back_inside_the_cache():
    # as chapter 10's build machine reported it: an L3 of 480 MiB, larger than every cache
    # timed (4 to 256 MiB), so no point lies beyond it; the old start fell back to the last
    # two points and said nothing, and the chapter's prose said the fit lay beyond the cache
    n = [1024 * 2**i for i in range(7)]
    ms = [0.2, 0.4, 0.9, 1.9, 4.6, 9.5, 19.0]  # steepest step by hand: 8192 -> 16384 (1.28)
    mib = [4 * 2**i for i in range(7)]
    assert timing.start_beyond_cache(n, ms, mib, 480) == (32768, 2)  # both fitted inside
    assert timing.start_beyond_cache(n, ms, mib, 200) == (32768, 1)  # 128 MiB inside
    assert timing.start_beyond_cache(n, ms, mib, 100) == (32768, 0)  # 128, 256 beyond
    assert timing.start_beyond_cache(n, ms, mib, 50) == (16384, 0)  # the step comes first
    with pytest.raises(ValueError, match="one shape"):
        timing.start_beyond_cache(n, ms, mib[:-1], 100)


def test_last_level_cache_reads_linux_cache_folders(tmp_path):
    for index, (level, kind, size) in enumerate(
        [
            (1, "Data", "32K"),
            (1, "Instruction", "32K"),
            (2, "Unified", "1024K"),
            (3, "Unified", "32768K"),
        ]
    ):
        folder = tmp_path / f"index{index}"
        folder.mkdir()
        (folder / "level").write_text(f"{level}\n")
        (folder / "type").write_text(f"{kind}\n")
        (folder / "size").write_text(f"{size}\n")
    assert timing.last_level_cache(str(tmp_path)) == (3, 32 * 2**20)
    assert timing.last_level_cache(str(tmp_path / "none")) is None


def test_one_blas_thread_sets_one_thread_and_restores_the_count():
    before = timing.machine()
    with timing.one_blas_thread() as threads:
        inside = timing.machine()
    if threads is None:  # not numpy's bundled OpenBLAS: nothing changed
        assert inside.split("; load")[0] == before.split("; load")[0]
    else:
        assert threads == 1 and "1 thread;" in inside
    assert timing.machine().split("; load")[0] == before.split("; load")[0]


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


def test_clock_tick_finds_a_coarse_clocks_step(monkeypatch):
    # a clock that advances in 15.625 ms steps every third reading, as Windows' processor time
    readings = iter(0.015625 * (k // 3) for k in range(1000))
    monkeypatch.setattr(timing, "_wall", iter(float(k) * 1e-6 for k in range(10**6)).__next__)
    assert timing.clock_tick(lambda: next(readings)) == pytest.approx(0.015625)


def test_clock_tick_gives_the_limit_for_a_clock_that_never_advances(monkeypatch):
    monkeypatch.setattr(timing, "_wall", iter(float(k) * 0.01 for k in range(10**4)).__next__)
    assert timing.clock_tick(lambda: 0.0, samples=2, limit=0.5) == 0.5


def test_timed_runs_enough_calls_to_span_a_coarse_clocks_steps(monkeypatch):
    # the untimed call takes 2 ms of wall time; the clock steps by 16 ms: 100 steps = 1.6 s,
    # so each timing runs 800 calls, and the totals are divided by 800
    wall = iter([0.0, 0.002])
    monkeypatch.setattr(timing, "_wall", lambda: next(wall))
    asked = {}

    def repeat(f, timer, number, repeat):
        asked["number"] = number
        return [1.6, 2.4, 2.0]

    monkeypatch.setattr(timing.timeit, "repeat", repeat)
    result = timing.timed(lambda: None, repeats=3, tick=0.016)
    assert asked["number"] == 800
    assert result == timing.Timing(best=0.002, median=0.0025, worst=0.003, number=800)


def test_timed_runs_one_call_a_timing_on_a_fine_clock(monkeypatch):
    wall = iter([0.0, 0.002])
    monkeypatch.setattr(timing, "_wall", lambda: next(wall))
    monkeypatch.setattr(timing.timeit, "repeat", lambda f, timer, number, repeat: [number * 0.002])
    assert timing.timed(lambda: None, repeats=1, tick=1e-6).number == 1  # 2 ms ≥ 100 µs


def test_loglog_fit_gives_no_standard_error_below_four_points():
    fit = timing.loglog_fit([1, 2, 4], [1.0, 2.0, 8.0])  # one degree of freedom
    assert np.isnan(fit.stderr)
    assert fit.slope == pytest.approx(1.5)  # by hand: slope of (0,0), (1,1), (2,3) in log2


def test_loglog_fit_refuses_a_time_of_zero_and_names_the_clock():
    with pytest.raises(ValueError, match="clock"):
        timing.loglog_fit([128, 256, 512], [0.0, 0.0, 0.015625])


def test_one_blas_thread_without_openblas_uses_threadpoolctl_when_it_sets_the_blas(monkeypatch):
    import contextlib
    import sys
    import types

    state = {"threads": 4}

    @contextlib.contextmanager
    def limits(limits, user_api):
        before, state["threads"] = state["threads"], limits
        yield
        state["threads"] = before

    fake = types.SimpleNamespace(
        threadpool_limits=limits,
        threadpool_info=lambda: [{"user_api": "blas", "num_threads": state["threads"]}],
    )
    monkeypatch.setitem(sys.modules, "threadpoolctl", fake)
    monkeypatch.setattr(timing, "_openblas_functions", lambda: (None, None, None))
    with timing.one_blas_thread() as threads:
        assert threads == 1 and state["threads"] == 1
    assert state["threads"] == 4
    monkeypatch.setitem(sys.modules, "threadpoolctl", None)  # not installed
    with timing.one_blas_thread() as threads:
        assert threads is None


def test_processor_clock_keeps_processor_time_where_it_is_fine():
    clock, step, name = timing.processor_clock(tick=3e-7)
    assert clock is timing.time.process_time and step == 3e-7 and "processor time" in name


def test_processor_clock_falls_back_to_the_wall_clock_where_processor_time_is_coarse():
    clock, step, name = timing.processor_clock(tick=0.015625)
    assert clock is timing.time.perf_counter
    assert step < 1e-3  # the wall clock's own step, measured
    assert "15.6 ms" in name


# --- the printed words in Korean (issue #45)


def test_the_korean_clock_and_machine_lines_have_no_english_word():
    """The clock's name and the machine's line, printed by chapters 9, 10 and 13's timing
    cells, are word() templates; in Korean no word a Korean reader would translate is left
    (names as CPU, OpenBLAS, AVX2 and time.process_time stay), and the copied English output
    of a Korean notebook gets the same line."""
    from test_figure_words import english_words

    from attn_book import i18n

    names = {"CPU", "OpenBLAS", "AVX2", "AVX", "SkylakeX", "Intel", "Xeon", "Processor", "BLAS"}
    blas = [
        {"internal_api": "openblas", "architecture": "SkylakeX", "num_threads": n} for n in (1, 2)
    ]
    args = ({"AVX2": True, "AVX": True}, blas, {}, "")
    english = timing.machine(*args, load=2.99)
    assert "2 threads; load average 2.99" in english
    with i18n.drawing("ko"):
        korean = timing.machine(*args, load=2.99)
        clocks = [timing.processor_clock(tick=t)[2] for t in (1e-7, 0.015625)]
        unknown = timing.machine({}, [], {}, "", load=None)
    assert "코어" in korean and "스레드 2개" in korean
    shown = [w for line in (korean, *clocks, unknown) for w in english_words(line)]
    left = [w for w in shown if w not in names and not w.startswith("time.")]
    assert not left, (korean, clocks, unknown, left)
    assert timing.translate_printed(english, "ko") == korean
    assert timing.translate_printed(english, "en") == english
    printed = f"clock: {timing.processor_clock(tick=1e-7)[2]}; {english}\n"
    assert timing.translate_printed(printed, "ko") == f"clock: {clocks[0]}; {korean}\n"
