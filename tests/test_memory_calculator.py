"""MemoryCalculator: the weights' bytes by hand and named errors."""

import numpy as np
import pytest

pytest.importorskip("anywidget")

from attn_book.widgets import MemoryCalculator


def test_bytes_by_hand():
    calc = MemoryCalculator(n=1024, heads=12, batch=2, dtype="float32")
    assert calc.weight_bytes == 2 * 12 * 1024 * 1024 * 4  # 96 MiB
    calc.dtype = "float16"
    assert calc.weight_bytes == 48 * 2**20


def test_bad_input_names_the_argument():
    calc = MemoryCalculator()
    with pytest.raises(ValueError, match="dtype must be one of"):
        calc.dtype = "bfloat16"
    with pytest.raises(ValueError, match=r"n must be an integer in 1\.\.1048576, got 0"):
        calc.n = 0
    with pytest.raises(TypeError, match="heads must be an integer"):
        calc.heads = 2.5
    assert calc.weight_bytes == 64 * 2**30  # unchanged: 32 heads, 32k tokens, float16


def test_kv_cache_bytes_by_hand():
    calc = MemoryCalculator(n=131072, kv_cache=True)  # 32 layers, 8 KV heads of 128, float16
    assert calc.kv_cache_bytes == 2 * 32 * 8 * 128 * 131072 * 2 == 16 * 2**30
    calc.kv_heads, calc.batch = 32, 2  # every query head its own keys and values, two sequences
    assert calc.kv_cache_bytes == 2 * 2 * 32 * 32 * 128 * 131072 * 2  # 128 GiB
    calc.dtype, calc.n = "float32", 1024
    assert calc.kv_cache_bytes == 2 * 2 * 32 * 32 * 128 * 1024 * 4  # 2 GiB
    assert calc.weight_bytes == 2 * 32 * 1024 * 1024 * 4  # the weights are unchanged by it
    with pytest.raises(ValueError, match=r"kv_heads must be an integer in 1\.\.1024, got 0"):
        calc.kv_heads = 0
    with pytest.raises(TypeError, match="layers must be an integer"):
        calc.layers = "32"


def test_kv_heads_always_divide_the_query_heads():
    calc = MemoryCalculator(kv_cache=True, heads=32, kv_heads=7)  # 7 does not divide 32
    assert calc.kv_heads == 4 and calc.heads % calc.kv_heads == 0
    calc.heads = 12  # 4 divides 12: kept
    assert calc.kv_heads == 4
    calc.heads = 9  # 4 does not divide 9: the largest divisor below, 3
    assert calc.kv_heads == 3
    assert calc.kv_cache_bytes == 2 * 32 * 3 * 128 * 32768 * 2
    calc.kv_heads = 100  # more KV heads than query heads: one per query head
    assert calc.kv_heads == 9


def test_layer_split_counts_the_layer_types_as_hugging_face_lists_them():
    from attn_book.widgets.memory_calculator import layer_split

    for layers, ratio in [(62, 5), (36, 1), (48, 3), (32, 3), (7, 0), (1, 5), (13, 4)]:
        types = ["full" if (i + 1) % (ratio + 1) == 0 else "other" for i in range(layers)]
        assert layer_split(layers, ratio) == (types.count("full"), types.count("other"))


def test_window_bars_by_hand_gemma_3_27b_and_gpt_oss():
    # Gemma 3 27B at 128k: 10 global layers hold 131,072 positions, 52 local ones 1,024
    calc = MemoryCalculator(preset="Gemma 3 27B", n=131072)
    per_position_and_layer = 2 * 16 * 128 * 2  # K and V, 16 KV heads of 128, 2 bytes
    assert calc.cache_bars() == [
        ("kv", (62 * per_position_and_layer * 131072,)),
        ("window", (10 * per_position_and_layer * 131072, 52 * per_position_and_layer * 1024)),
    ]
    assert calc.cache_bytes == (10 * 131072 + 52 * 1024) * per_position_and_layer
    calc.n = 512  # shorter than the window: every layer holds all n, as the plain cache
    assert sum(calc.cache_bars()[1][1]) == calc.cache_bars()[0][1][0] == calc.kv_cache_bytes
    gpt = MemoryCalculator(preset="gpt-oss-120b", n=131072)  # 18 dense, 18 banded of 128
    assert gpt.cache_bytes == 2 * 8 * 64 * 2 * (18 * 131072 + 18 * 128)


def test_mla_bars_by_hand_deepseek_v3():
    calc = MemoryCalculator(preset="DeepSeek-V3", n=1)  # one token: KiB a token, as chapter 11
    bars = dict(calc.cache_bars())
    assert bars["mla"] == ((512 + 64) * 61 * 2,)  # ≈ 69 KiB, no factor 2: one latent
    assert bars["mha"] == (2 * 61 * 128 * 128 * 2,)  # 128 KV heads of 128
    assert bars["kv"] == (2 * 61 * 8 * 128 * 2,)  # GQA, 8 groups
    assert bars["mqa"] == (2 * 61 * 1 * 128 * 2,)
    assert calc.cache_bytes == 68.625 * 2**10
    assert dict(calc.cache_bars(n=131072))["mla"] == ((512 + 64) * 61 * 2 * 131072,)


def test_hybrid_bars_by_hand_qwen3_next_and_the_all_attention_model():
    calc = MemoryCalculator(preset="Qwen3-Next-80B", n=131072)
    kv, states = 2 * 12 * 2 * 256 * 131072 * 2, 36 * 32 * 128 * 128 * 2  # 12 full, 36 linear
    assert calc.cache_bars() == [("kv", (2 * 48 * 2 * 256 * 131072 * 2,)), ("hybrid", (kv, states))]
    calc.n = 2**20  # the states do not grow with n; the full layers' cache does, 8 times
    assert calc.cache_bars()[1][1] == (8 * kv, states)
    llama = MemoryCalculator(preset="Llama-3-8B-like, 3:1 hybrid", n=131072)  # chapter 12's
    assert llama.cache_bars()[1][1] == (16 * 2**30 // 4, 24 * 32 * 128 * 128 * 2)
    llama.ratio = 0  # no linear layer: the plain KV cache, and no state
    assert llama.cache_bars()[1][1] == (16 * 2**30, 0)


def test_presets_and_kinds_are_checked_and_the_kwargs_win():
    with pytest.raises(ValueError, match=r"preset must be one of \[.*\], got 'Gemma'"):
        MemoryCalculator(preset="Gemma")
    with pytest.raises(ValueError, match="preset must be one of"):
        MemoryCalculator(presets=["DeepSeek-V3", "Llama 3"])
    with pytest.raises(ValueError, match="kind must be one of"):
        MemoryCalculator(kind="sparse")
    calc = MemoryCalculator(preset="Gemma 3 27B", layers=6)  # the preset, then the arguments
    assert (calc.layers, calc.window, calc.kind) == (6, 1024, "window")
    calc.preset = "DeepSeek-V3"  # as the menu does: every value of the preset
    assert (calc.layers, calc.heads, calc.kind, calc.d_latent) == (61, 128, "mla", 512)
    assert "kind='mla', d_latent=512, d_rope=64)" in repr(calc)
    assert "kind" not in repr(MemoryCalculator(kv_cache=True))  # chapters 9 and 10: as before


def test_the_model_view_in_chromium_prints_pythons_totals_and_its_menu_sets_a_preset():
    """The bundle drawn with no kernel (as on the static site): the readout's totals at 32k,
    128k and 1M are cache_bars' at those lengths, and choosing a preset in the menu sets every
    trait of it, as MemoryCalculator.preset does in Python."""
    from attn_book.widgets import snapshot

    if (reason := snapshot.can_capture()) is not None:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    from attn_book.widgets.memory_calculator import TOTALS_AT

    calc = MemoryCalculator(preset="DeepSeek-V3", presets=["DeepSeek-V3", "Gemma 3 27B"])
    gemma = MemoryCalculator(preset="Gemma 3 27B")

    def totals(c):  # each bar's bytes at 32k, 128k and 1M tokens
        bars = [c.cache_bars(n) for n in TOTALS_AT]
        return [[sum(at[i][1]) for at in bars] for i in range(len(bars[0]))]

    def shown(line):  # "MLA: … — 32k: 2.14 GiB, 128k: 8.58 GiB, 1M: 68.6 GiB"
        return [_bytes(part.split(": ")[1]) for part in line.split(" — ")[1].split(", ")]

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=snapshot.CHROMIUM, args=snapshot.CHROMIUM_ARGS, headless=True
        )
        try:
            page = browser.new_page()
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.set_content(snapshot._page(calc.get_state(), snapshot.WIDTH))
            page.evaluate(snapshot._RENDER, [calc._esm, calc._css, calc.get_state()])
            lines = page.locator(".abh-readout div").all_inner_texts()
            page.select_option("select >> nth=0", "Gemma 3 27B")
            after = page.locator(".abh-readout div").all_inner_texts()
            layers = page.locator("label.abh-control", has_text="layers (층)").inner_text()
        finally:
            browser.close()
    assert not errors
    for got, want in [(lines, totals(calc)), (after, totals(gemma))]:
        assert len(got) == len(want)
        assert np.allclose([shown(line) for line in got], want, rtol=5e-3)  # 3 digits
    assert lines[3].startswith("MLA: 512 + 64 numbers a token and layer — 32k: 2.14 GiB")
    assert layers.endswith("62")  # Gemma 3 27B's layers, set by the menu


def _bytes(text):
    """A size as the figure shows it ("30.5 GiB", 3 significant digits) in bytes."""
    value, unit = text.split()
    return float(value) * 1024 ** ["B", "KiB", "MiB", "GiB", "TiB", "PiB"].index(unit)
