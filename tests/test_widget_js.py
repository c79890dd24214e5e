"""The figures' JavaScript maths (attn_book/widgets/attn_math.js) equals attn_core, run in node.

All cases go to one node process (about 50 ms) as JSON; -inf travels as the string "-inf"
and NaN comes back as null.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from fonts import css_font, hangul_in

import attn_book
import attn_core
from attn_book.data import SENTENCE_EN, SENTENCE_KO

WIDGETS = Path(attn_book.__file__).parent / "widgets"
JS = WIDGETS / "src" / "attn_math.js"
NODE = shutil.which("node") or "/usr/bin/node"

RUNNER = """
import * as M from "./attn_math.mjs";
const revive = (v) => v === "-inf" ? -Infinity : Array.isArray(v) ? v.map(revive) : v;
const cases = JSON.parse(await new Promise((ok) => {
  let s = ""; process.stdin.on("data", (d) => (s += d)); process.stdin.on("end", () => ok(s));
}));
const out = cases.map(([fn, args]) => {
  try { return { value: M[fn](...revive(args)) }; } catch (e) { return { error: String(e) }; }
});
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def run_js(tmp_path_factory):
    if not Path(NODE).exists():
        pytest.skip(f"node not found ({NODE}); the JS maths tests need Node.js")
    folder = tmp_path_factory.mktemp("js")
    shutil.copy(JS, folder / "attn_math.mjs")  # .mjs: node reads it as an ES module
    (folder / "run.mjs").write_text(RUNNER, encoding="utf-8")

    def run(cases):
        proc = subprocess.run(
            [NODE, "run.mjs"], input=json.dumps(cases), capture_output=True, text=True,
            cwd=folder, timeout=60, check=True,
        )  # fmt: skip
        results = json.loads(proc.stdout)
        errors = [(c, r["error"]) for c, r in zip(cases, results, strict=True) if "error" in r]
        assert not errors, f"JS raised: {errors}"
        return [r["value"] for r in results]

    return run


def _enc(x):
    """JSON-safe nested lists with -inf as the string "-inf"."""
    if isinstance(x, np.ndarray):
        x = x.tolist()
    if isinstance(x, list):
        return [_enc(v) for v in x]
    return "-inf" if x == -math.inf else x


def test_seed_example_by_hand(run_js):
    (r,) = run_js([["attend", [[1, 0], [[1, 0], [0, 1], [1, 1]], [[2, 0], [0, 2], [1, 1]]]]])
    e = math.exp(1 / math.sqrt(2))  # scores 1/√2, 0, 1/√2
    w = [e / (2 * e + 1), 1 / (2 * e + 1), e / (2 * e + 1)]
    assert r["weights"] == pytest.approx(w, abs=1e-15)
    assert r["output"] == pytest.approx([2 * w[0] + w[2], 2 * w[1] + w[2]], abs=1e-15)
    assert [round(v, 3) for v in r["weights"]] == [0.401, 0.198, 0.401]
    assert [round(v, 3) for v in r["output"]] == [1.203, 0.797]
    assert r["dots"] == [1, 0, 1] and r["cosines"] == pytest.approx([1, 0, 1 / math.sqrt(2)])


def test_softmax_matches_attn_core_on_random_and_extreme_inputs(run_js):
    rng = np.random.default_rng(0)
    rows = [rng.normal(0, 3, size=n) for n in (1, 2, 5, 17, 64)]
    rows += [np.array([1e4, 0.0, -1e4]), np.array([-np.inf, 1.0, 2.0]), np.array([-np.inf] * 3)]
    temps = [1.0, 0.3, 2.5]
    cases = [["softmax", [_enc(x), t]] for x in rows for t in temps]
    got = run_js(cases)
    for (_, (x, t)), js in zip(cases, got, strict=True):
        x = np.array([-np.inf if v == "-inf" else v for v in x])
        assert js == pytest.approx(attn_core.softmax(x, temperature=t).tolist(), abs=1e-14)


def test_attend_matches_attn_core_on_random_inputs(run_js):
    rng = np.random.default_rng(1)
    cases, expected = [], []
    for d, s, ev in [(2, 3, 2), (4, 7, 3), (16, 5, 16), (64, 9, 8)]:
        q, k, v = rng.normal(size=d), rng.normal(size=(s, d)), rng.normal(size=(s, ev))
        for scale, t in [(None, 1.0), (1.0, 1.0), (None, 0.5), (0.2, 3.0)]:
            cases.append(
                ["attend", [q.tolist(), k.tolist(), v.tolist(), {"scale": scale, "temperature": t}]]
            )
            sc = (1 / math.sqrt(d) if scale is None else scale) / t
            expected.append((
                attn_core.dot_scores(q, k),
                attn_core.attention_weights(q, k, scale=sc),
                attn_core.scaled_dot_product_attention(q, k, v, scale=sc),
                attn_core.entropy(attn_core.attention_weights(q, k, scale=sc)),
            ))  # fmt: skip
    for js, (dots, w, out, h) in zip(run_js(cases), expected, strict=True):
        assert js["dots"] == pytest.approx(dots.tolist(), rel=1e-12, abs=1e-12)
        assert js["weights"] == pytest.approx(w.tolist(), abs=1e-14)
        assert js["output"] == pytest.approx(out.tolist(), abs=1e-13)
        assert js["entropy"] == pytest.approx(float(h), abs=1e-13)


def test_attention_matrix_matches_attn_core_with_and_without_causal_mask(run_js):
    rng = np.random.default_rng(2)
    cases, expected = [], []
    for L, S, d in [(3, 3, 4), (5, 8, 2), (32, 32, 4), (6, 4, 3)]:
        q, k = rng.normal(size=(L, d)), rng.normal(size=(S, d))
        for causal in (False, True):
            opts = {"scale": None, "temperature": 0.7, "causal": causal}
            cases.append(["attentionMatrix", [q.tolist(), k.tolist(), opts]])
            sc = 1 / math.sqrt(d) / 0.7
            expected.append(attn_core.attention_weights(q, k, is_causal=causal, scale=sc))
    for js, w in zip(run_js(cases), expected, strict=True):
        assert np.allclose(js, w, atol=1e-14, rtol=0)


def test_attention_matrix_padding_matches_attn_core(run_js):
    rng = np.random.default_rng(6)
    q, k = rng.normal(size=(4, 3)), rng.normal(size=(5, 3))
    cases, expected = [], []
    for causal, length in [(False, 3), (True, 2), (True, 5), (False, 0)]:
        opts = {"scale": None, "temperature": 1, "causal": causal, "length": length}
        cases.append(["attentionMatrix", [q.tolist(), k.tolist(), opts]])
        mask = attn_core.padding_mask(length, 5)[0] & (attn_core.causal_mask(4, 5) | (not causal))
        expected.append(attn_core.attention_weights(q, k, mask))
    for js, w in zip(run_js(cases), expected, strict=True):
        assert np.allclose(js, w, atol=1e-14, rtol=0)
    assert np.all(np.asarray(expected[-1]) == 0)  # length 0: every row fully masked, zeros


def test_rotary_matches_attn_core(run_js):
    rng = np.random.default_rng(8)
    cases, expected = [], []
    for n, d, base in [(3, 2, 10_000), (4, 8, 10_000), (2, 6, 500.0)]:
        x, positions = rng.normal(size=(n, d)), rng.integers(-40, 40, size=n).tolist()  # < 0 too
        cases.append(["rotary", [x.tolist(), positions, base]])
        expected.append(attn_core.rotary(x, positions, base))
    cases.append(["rotaryFrequencies", [8]])
    expected.append(attn_core.rotary_frequencies(8))
    for js, want in zip(run_js(cases), expected, strict=True):
        assert np.allclose(js, want, atol=1e-13, rtol=0)


def test_rotary_in_the_plane_by_hand(run_js):
    # q = (1, 0) at m = 1 turns by one radian: (cos 1, sin 1); key (0, 1) at n = 1: (−sin 1, cos 1)
    (got,) = run_js([["rotary", [[[1, 0], [0, 1]], [1, 1]]]])
    c, s = math.cos(1), math.sin(1)
    assert np.allclose(got, [[c, s], [-s, c]], atol=1e-15, rtol=0)


def test_rotary_rejects_odd_widths_and_mismatched_positions(run_js):
    with pytest.raises(AssertionError, match="d must be even"):
        run_js([["rotary", [[[1, 0, 0]], [0]]]])
    with pytest.raises(AssertionError, match="2 rows but 1 positions"):
        run_js([["rotary", [[[1, 0], [0, 1]], [0]]]])


def test_small_helpers_against_hand_values(run_js):
    got = run_js([
        ["dot", [[1, 2, 3], [4, -5, 6]]],
        ["norm", [[3, 4]]],
        ["cosine", [[1, 0], [0, 0]]],
        ["scores", [[1, 2], [[1, 0], [0, 1]], 0.5]],
        ["entropy", [[0.25, 0.25, 0.25, 0.25]]],
        ["entropy", [[1, 0, 0]]],
        ["mix", [[0.5, 0.5], [[2, 0], [0, 2]]]],
        ["naiveSoftmax", [[1000, 0]]],
        ["fmt", [-0.0001, 3]],
        ["fmt", [-1.23456, 2]],
    ])  # fmt: skip
    assert got[:3] == [12, 5, None]  # 4 - 10 + 18; 3-4-5; an undefined angle is NaN
    assert got[3] == [0.5, 1.0]
    assert got[4] == pytest.approx(math.log(4)) and got[5] == 0
    assert got[6] == [1, 1]
    assert got[7] == [None, 0]  # e^1000 overflows: ∞/∞ is NaN, the reason to subtract the max
    assert got[8:] == ["0.000", "−1.23"]


def test_fmt_wide_keeps_three_decimals_at_any_size(run_js):
    # e^2 = 7.389056…; e^500 = 1.4035922…e217 (500 / ln 10 = 217.147…, 10^0.147… = 1.4036)
    got = run_js([
        ["fmtWide", [math.exp(2), 3]],
        ["fmtWide", [999999.4, 3]],
        ["fmtWide", [math.exp(500), 3]],
        ["fmtWide", [-2.5e-9, 3]],
        ["fmtWide", [-3.2e7, 3]],
    ])  # fmt: skip
    assert got == ["7.389", "999999.400", "1.404e217", "0.000", "−3.200e7"]


def test_softmax_rejects_a_bad_temperature(run_js):
    with pytest.raises(AssertionError, match="temperature must be a finite number > 0"):
        run_js([["softmax", [[1, 2], 0]]])


def test_viridis_stops_match_matplotlib(run_js):
    mpl = pytest.importorskip("matplotlib")
    ts = [i / 8 for i in range(9)] + [0.5 / 8]
    got = run_js([["viridis", [t]] for t in ts])
    for t, css in zip(ts, got, strict=True):
        rgb = [int(c) for c in css[4:-1].split(",")]
        want = [round(255 * c) for c in mpl.colormaps["viridis"](t)[:3]]
        assert max(abs(a - b) for a, b in zip(rgb, want, strict=True)) <= 3, (t, rgb, want)


def test_the_figures_palette_is_the_books():
    from attn_book.style import OKABE_ITO

    text = JS.read_text(encoding="utf-8")
    block = text[text.index("export const OKABE_ITO") :].split("];")[0]
    assert tuple(re.findall(r'"(#[0-9A-Fa-f]{6})"', block)) == OKABE_ITO


# --- the build: bundles, formatting, the Hangul font ------------------------------------------

ROOT = WIDGETS.parent.parent
ESBUILD = ROOT / "node_modules" / "esbuild"


def test_committed_bundles_are_fresh():
    """Rebuilding every figure from src/ with esbuild gives the committed bytes."""
    if not (Path(NODE).exists() and ESBUILD.is_dir()):
        pytest.skip("node or node_modules/esbuild missing (`npm ci`); cannot rebuild the bundles")
    proc = subprocess.run(
        [NODE, str(WIDGETS / "build.mjs"), "--check"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr


def test_every_bundle_is_self_contained():
    for name in (
        "query_pad",
        "softmax_bars",
        "scaling_explorer",
        "attention_heatmap",
        "window_sinks",
        "state_filler",
    ):
        text = (WIDGETS / f"{name}.js").read_text(encoding="utf-8")
        assert not [line for line in text.splitlines() if line.startswith("import ")], name
        assert "src/dom.js" in text and "src/attn_math.js" in text, name


def embedded_font():
    return css_font(WIDGETS / "hangul_font.css")


def test_the_widget_font_draws_every_hangul_character_the_figures_show():
    family, font = embedded_font()
    cmap = font.getBestCmap()
    sources = [p.read_text(encoding="utf-8") for p in (WIDGETS / "src").glob("*.js")]
    shown = hangul_in("".join(sources) + "".join(SENTENCE_KO + SENTENCE_EN))
    assert {"내", "적", "가", "중", "치", "먹", "었", "다"} <= shown  # the labels and tokens
    missing = sorted(c for c in shown if ord(c) not in cmap)
    assert not missing, f"no glyph in {family} for {missing}: run tools/build_font.py"
    glyphs = [font.getGlyphSet()[cmap[ord(c)]] for c in sorted(shown)]
    assert all(g.width > 0 for g in glyphs)  # real glyphs, not empty placeholders
    css = (WIDGETS / "widgets.css").read_text(encoding="utf-8")
    first = re.search(r"\.abh-fig \{[^}]*font-family: ([^;,]+)", css).group(1)
    assert first == f'"{family}"', "the figures' text must ask for the shipped font first"


def test_the_widget_font_is_small_and_licensed():
    _, font = embedded_font()
    size = len((WIDGETS / "hangul_font.css").read_bytes())
    # Every Hangul syllable a figure draws in either edition: the Korean sentences' tokens and,
    # since the figures speak Korean (figures.po), their words too (339 syllables: 40 kB).
    assert size < 45_000, f"{size} B of CSS travels with every figure"
    names = " ".join(r.toUnicode() for r in font["name"].names)
    assert "Open Font License" in names or "OFL" in names, names[:300]


# --- layouts, run in node -------------------------------------------------------------------

LAYOUT_RUNNER = """
import { BARS, FONT, barGeometry, scoreLabelY, weightBar } from "./softmax_bars_layout.mjs";
const g = barGeometry(3), out = { titles: g.titles, font: FONT, scores: [], weights: [] };
for (let s = BARS.lo - 1; s <= BARS.hi + 1; s += 0.25) out.scores.push(scoreLabelY(g, s));
for (let w = 0; w <= 1; w += 0.01) out.weights.push(weightBar(g, w).labelY);
out.weights.push(weightBar(g, 1).labelY);
process.stdout.write(JSON.stringify(out));
"""


def test_no_bar_label_reaches_a_title(tmp_path):
    """Any score in view, any weight (T = 0.1 puts one at 1): labels clear both titles.

    A text's box is taken as [baseline - 1.1 size, baseline + 0.35 size], wider than the
    ascent and descent of DejaVu Sans or Noto Sans KR.
    """
    if not Path(NODE).exists():
        pytest.skip("node not found")
    shutil.copy(WIDGETS / "src" / "softmax_bars_layout.js", tmp_path / "softmax_bars_layout.mjs")
    (tmp_path / "run.mjs").write_text(LAYOUT_RUNNER, encoding="utf-8")
    proc = subprocess.run(
        [NODE, "run.mjs"], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    got = json.loads(proc.stdout)
    box = lambda y, size: (y - 1.1 * size, y + 0.35 * size)  # noqa: E731
    apart = lambda a, b: a[1] <= b[0] or b[1] <= a[0]  # noqa: E731
    titles = [box(y, got["font"]["title"]) for y in got["titles"].values()]
    for y in got["scores"] + got["weights"]:
        label = box(y, got["font"]["label"])
        assert all(apart(label, t) for t in titles), (y, got["titles"])


def test_weight_bytes_equal_the_cost_model(run_js):
    shapes = [
        (1, 1, 3, 3, "float32"),
        (1, 32, 32768, 32768, "float16"),
        (8, 12, 1024, 512, "float64"),
    ]
    got = run_js([["weightBytes", list(s)] for s in shapes])
    for (b, h, L, S, dtype), value in zip(shapes, got, strict=True):
        assert value == attn_core.attention_cost(b, h, L, S, 1, dtype).score_bytes
    assert got[0] == 3 * 3 * 4 and got[1] == 64 * 2**30  # by hand: 9 float32s; 2^5·2^30·2 bytes


def test_kv_cache_bytes_equal_attn_core(run_js):
    rng = np.random.default_rng(10)
    shapes = [(1, 32, 8, 128, 131072, "float16"), (1, 1, 1, 3, 6, "float64")]
    shapes += [
        (*(int(x) for x in rng.integers(1, 129, size=4)), int(2 ** rng.integers(7, 18)), dtype)
        for dtype in ("float64", "float32", "float16")
    ]
    got = run_js([["kvCacheBytes", list(s)] for s in shapes])
    for (b, layers, kv_heads, d_head, n, dtype), value in zip(shapes, got, strict=True):
        assert value == attn_core.kv_cache_bytes(layers, kv_heads, d_head, n, dtype, batch=b)
    # by hand: 2 · 32 layers · 8 KV heads · 128 · 2^17 tokens · 2 bytes = 2^34 = 16 GiB
    assert got[0] == 16 * 2**30 and got[1] == 2 * 3 * 6 * 8


def test_windowed_mla_and_linear_bytes_equal_attn_core(run_js):
    rng = np.random.default_rng(11)
    draws = [tuple(int(x) for x in rng.integers(1, 129, size=4)) for _ in range(4)]
    n = [int(2 ** rng.integers(7, 21)) for _ in draws]
    cases = [
        ["kvCacheBytes", [b, L, h, d, m, "float16", w]]
        for (b, L, h, d), m, w in zip(draws, n, (1, 128, 4096, 2**20), strict=True)
    ]
    cases += [
        ["mlaCacheBytes", [b, L, c, r, m, "float32"]]
        for (b, L, c, r), m in zip(draws, n, strict=True)
    ]
    cases += [["linearStateBytes", [b, L, h, d, 2 * d, "float64"]] for b, L, h, d in draws]
    cases += [["kvCacheBytes", [1, 52, 16, 128, 131072, "float16", 1024]],  # Gemma 3's local
              ["mlaCacheBytes", [1, 61, 512, 64, 1, "float16"]]]  # fmt: skip
    got = run_js(cases)
    for (fn, (b, L, x, y, z, dtype, *window)), value in zip(cases, got, strict=True):
        if fn == "kvCacheBytes":
            want = attn_core.kv_cache_bytes(L, x, y, z, dtype, batch=b, window=window[0])
        elif fn == "mlaCacheBytes":
            want = attn_core.mla_cache_bytes(L, x, y, z, dtype, batch=b)
        else:
            want = attn_core.linear_state_bytes(L, x, y, z, dtype, batch=b)
        assert value == want, (fn, b, L, x, y, z, dtype)
    assert got[-2:] == [2 * 52 * 16 * 128 * 1024 * 2, (512 + 64) * 61 * 2]  # by hand


def test_the_calculators_bars_equal_pythons(run_js):
    from attn_book.widgets.memory_calculator import PRESETS, MemoryCalculator, layer_split

    calcs = [MemoryCalculator(preset=name) for name in PRESETS]
    calcs += [MemoryCalculator(kv_cache=True), MemoryCalculator(kind="window", ratio=0)]
    calcs += [MemoryCalculator(kind="hybrid", layers=3, ratio=3, dtype="float32", batch=3)]
    calcs += [MemoryCalculator(kind="mla", d_rope=0, heads=12, kv_heads=4, dtype="float64")]
    names = ("kind", "batch", "layers", "heads", "kv_heads", "d_head", "dtype", "window")
    names += ("ratio", "d_latent", "d_rope", "state_heads", "d_state")
    runs = [(c, n) for c in calcs for n in (128, 1000, 131072, 2**20)]
    got = run_js([["cacheBars", [{k: getattr(c, k) for k in names}, n]] for c, n in runs])
    for (calc, n), value in zip(runs, got, strict=True):
        assert value == [[name, list(parts)] for name, parts in calc.cache_bars(n)], (calc, n)
    splits = [(L, r) for L in (1, 6, 7, 48, 62) for r in range(6)]
    got = run_js([["layerSplit", [L, r]] for L, r in splits])
    assert got == [list(layer_split(L, r)) for L, r in splits]


def test_kv_heads_fit_the_query_heads_as_in_python(run_js):
    from attn_book.widgets.memory_calculator import fit_kv_heads

    cases = [
        (h, kv, up) for h in (1, 7, 12, 32, 128) for kv in (1, 3, 7, 8, 9, 100) for up in (0, 1)
    ]
    got = run_js([["fitKvHeads", [h, kv, bool(up)]] for h, kv, up in cases])
    for (h, kv, up), value in zip(cases, got, strict=True):
        assert value == fit_kv_heads(h, kv, up=bool(up)), (h, kv, up)
        assert h % value == 0 and 1 <= value <= h
    # by hand: 32 query heads, a slider moved to 7 (down from 8) or 9 (up from 8)
    assert run_js([["fitKvHeads", [32, 7, False]], ["fitKvHeads", [32, 9, True]]]) == [4, 16]


def test_device_ratios_never_use_an_exponent(run_js):
    got = run_js([["fmtRatio", [r]] for r in (0.5, 4.0, 256.0, 1024.4)])
    assert got == ["0.50×", "4.0×", "256×", "1,024×"]


def test_bytes_read_in_binary_units(run_js):
    got = run_js([["fmtBytes", [b]] for b in (36, 4 * 2**20, 64 * 2**30, 1536)])
    assert got == ["36 B", "4.00 MiB", "64.0 GiB", "1.50 KiB"]


NOTE_RUNNER = """
import { noteText } from "./attention_heatmap.js";
import { translator } from "./dom.js";
const [cases, words] = JSON.parse(process.argv[2]);
const t = translator({ get: (name) => (name === "words" ? words : undefined) });
process.stdout.write(JSON.stringify(cases.map((args) => noteText(...args, t))));
"""
#: Rows of five keys seeing 1, 4, 5 and 0 of them: (cross, head, head width, row, visible).
NOTE_CASES = [
    [False, 0, 5, [1, 0, 0, 0, 0], 1],
    [False, 0, 5, [0.25, 0.25, 0.25, 0.25, 0], 4],
    [False, 0, 5, [0.2] * 5, 5],
    [False, 0, 5, [0, 0, 0, 0, 0], 0],
]


def note_texts(tmp_path, words):
    """The heatmap's note under each row of :data:`NOTE_CASES`, drawn with ``words``."""
    if not Path(NODE).exists():
        pytest.skip(f"node not found ({NODE}); the JS tests need Node.js")
    for src in (WIDGETS / "src").glob("*.js"):
        shutil.copy(src, tmp_path / src.name)
    figure = tmp_path / "attention_heatmap.js"  # the figure exports only render: add noteText
    figure.write_text(figure.read_text(encoding="utf-8") + "\nexport { noteText };\n")
    (tmp_path / "package.json").write_text('{"type": "module"}', encoding="utf-8")
    (tmp_path / "run.mjs").write_text(NOTE_RUNNER, encoding="utf-8")
    proc = subprocess.run(
        [NODE, "run.mjs", json.dumps([NOTE_CASES, words])], capture_output=True, text=True,
        cwd=tmp_path, timeout=60, check=True,
    )  # fmt: skip
    return json.loads(proc.stdout)


def test_a_masked_rows_uniform_entropy_counts_only_the_keys_it_sees(tmp_path):
    # Under the causal mask, row 0 of five tokens sees one key: uniform over one key has
    # entropy log 1 = 0, not log 5. Row 3 sees four keys: log 4 = 1.386 (by hand).
    one, four, five, none = note_texts(tmp_path, {})
    assert "entropy of this row 0.000 nats" in one
    assert "log 1 visible key = 0.000 = uniform" in one
    assert "log 5" not in one
    assert f"entropy of this row {math.log(4):.3f} nats" in four
    assert f"log 4 visible keys = {math.log(4):.3f} = uniform" in four
    assert f"log 5 = {math.log(5):.3f} = uniform" in five  # no mask: all five keys
    assert "sees no key" in none


def test_the_korean_entropy_note_reads_for_any_count_of_visible_keys(tmp_path):
    """The Korean note read "log 보이는 키 1개 = 0.000" (a noun phrase after log): it names the
    count, then takes its log, for one key, four, and all five (no mask)."""
    from attn_book.widgets import AttentionHeatmap
    from attn_book.widgets._base import figure_words

    words = figure_words(AttentionHeatmap._esm, "ko")
    one, four, five, _ = note_texts(tmp_path, words)
    assert "이 행의 엔트로피 0.000 nat(" in one
    assert "log (보이는 키 수) = log 1 = 0.000 = 균등" in one
    assert f"log (보이는 키 수) = log 4 = {math.log(4):.3f} = 균등" in four
    assert f"log 5 = {math.log(5):.3f} = 균등" in five and "보이는" not in five
    legend = words[
        "Rows: queries (쿼리); columns: keys (키); colour: weight from 0 (dark) to 1 "
        "(yellow), viridis; grey: masked. Hover or click a row; ↑/↓ keys move it."
    ]
    assert legend.startswith(
        "행: 쿼리; 열: 키; 색: 가중치, 0(어두움)부터 1(노랑)까지; 회색: 가려짐."
    )


# --- WindowSinks: the sliding window, the sink, the gate and the ring buffer ------------------


def test_sliding_window_mask_equals_attn_core(run_js):
    shapes = [(4, 4, 2), (1, 5, 3), (6, 6, 6), (3, 7, 1), (5, 5, 9)]
    got = run_js([["slidingWindowMask", list(s)] for s in shapes])
    for (L, S, W), mask in zip(shapes, got, strict=True):
        assert mask == attn_core.sliding_window_mask(L, S, W).tolist(), (L, S, W)
    assert got[1] == [[False, False, True, True, True]]  # by hand: the 3 newest of 5 keys


def test_ring_positions_equal_the_kv_cache(run_js):
    cases = [(seen, W) for W in (1, 2, 3, 5) for seen in range(1, 12)]
    got = run_js([["ringPositions", [seen, W]] for seen, W in cases])
    for (seen, W), positions in zip(cases, got, strict=True):
        ring = attn_core.KVCache(window=W)
        ring.append(np.zeros((seen, 1)), np.zeros((seen, 1)))
        assert positions == ring.positions.tolist(), (seen, W)
    assert got[cases.index((6, 3))] == [3, 4, 5] and got[cases.index((5, 3))] == [3, 4, 2]


def test_sink_softmax_and_sigmoid_by_hand(run_js):
    r = 1 / math.sqrt(2)  # chapter 11: the worked example's scaled scores, a sink logit of 1
    sink, plain = run_js([["sinkSoftmax", [[r, 0.0, r], 1.0]], ["sinkSoftmax", [[r, 0.0, r]]]])
    e, total = math.exp(r), 2 * math.exp(r) + 1 + math.e  # e^z joins the sum
    assert sink["share"] == pytest.approx(math.e / total, abs=1e-15)
    assert sink["weights"] == pytest.approx([e / total, 1 / total, e / total], abs=1e-15)
    assert plain["share"] == 0 and sum(plain["weights"]) == pytest.approx(1.0, abs=1e-15)
    got = run_js([["sigmoid", [g]] for g in (0.0, -2.0, 40.0, -700.0)])
    assert got[0] == 0.5 and got[1] == pytest.approx(1 / (1 + math.exp(2)), rel=1e-15)
    assert got[2] == 1.0 and 0 < got[3] < 1e-300  # no overflow at either end


def test_window_step_equals_attn_core(run_js):
    rng = np.random.default_rng(11)
    n, E, Ev = 7, 3, 2
    Q, K, V = rng.normal(size=(n, E)), rng.normal(size=(n, E)), rng.normal(size=(n, Ev))
    cases, expected = [], []
    for t in range(n):
        for W in (1, 3, n):
            for sink, gate in ((None, None), (1.5, None), (-2.0, 0.7), (-800.0, -3.0)):
                opts = {"sink": sink, "gate": gate}
                cases.append(["windowStep", [Q.tolist(), K.tolist(), V.tolist(), t, W, opts]])
                visible = attn_core.sliding_window_mask(n, n, W)[t]
                w = attn_core.attention_weights(Q[t], K, visible, sinks=sink)
                o = attn_core.scaled_dot_product_attention(Q[t], K, V, visible, sinks=sink)
                g = o if gate is None else attn_core.output_gate(o, [gate])
                ring = attn_core.KVCache(window=W)
                ring.append(K[: t + 1], V[: t + 1])
                expected.append((visible, w, o, g, ring.positions.tolist()))
    for js, (visible, w, o, g, slots) in zip(run_js(cases), expected, strict=True):
        assert js["visible"] == visible.tolist()
        assert js["weights"] == pytest.approx(w.tolist(), abs=1e-14)
        assert js["sum"] + js["share"] == pytest.approx(1.0, abs=1e-14)
        assert js["share"] == pytest.approx(1 - w.sum(), abs=1e-14)
        assert js["output"] == pytest.approx(o.tolist(), abs=1e-14)
        assert js["gated"] == pytest.approx(g.tolist(), abs=1e-14)
        assert js["slots"] == slots
    first = run_js([cases[0]])[0]  # t = 0, W = 1: one key, itself, in slot 0
    assert first["weights"][0] == 1.0 and first["written"] == 0 and first["evicted"] is None
    last = run_js([["windowStep", [Q.tolist(), K.tolist(), V.tolist(), 6, 3, {}]]])[0]
    assert last["written"] == 0 and last["evicted"] == 3  # position 6 overwrites 3 in slot 0


# --- chapter 12: linear attention, the delta rule and the state filler ----------------------


def test_linear_attention_recurrent_matches_attn_core(run_js):
    rng = np.random.default_rng(12)
    cases, expected = [], []
    for T, e, ev in [(3, 2, 2), (6, 4, 4), (9, 3, 5)]:
        q, k, v = rng.normal(size=(T, e)), rng.normal(size=(T, e)), rng.normal(size=(T, ev))
        for feature_map, normalize in [("elu", True), ("elu", False), ("identity", False)]:
            opts = {"featureMap": feature_map, "normalize": normalize}
            cases.append(["linearAttentionRecurrent", [q.tolist(), k.tolist(), v.tolist(), opts]])
            phi = attn_core.elu_plus_one if feature_map == "elu" else (lambda x: x)
            expected.append(
                attn_core.linear_attention_recurrent(q, k, v, feature_map=phi, normalize=normalize)
            )
    for js, (out, (S, z)) in zip(run_js(cases), expected, strict=True):
        assert np.allclose(js["outputs"], out, atol=1e-13, rtol=0)
        assert np.allclose(js["S"], S, atol=1e-13, rtol=0)
        assert np.allclose(js["z"], z, atol=1e-13, rtol=0)


def test_linear_attention_recurrent_by_hand(run_js):
    # Chapter 12's three tokens: φ(k) = (2, 1), (1, 2), (2, 2), v = (2, 0), (0, 2), (1, 1),
    # the query (1, 0) each time: o = (10, 0)/5, (10, 8)/9, (16, 14)/15; z = (5, 5)
    keys, values = [[1, 0], [0, 1], [1, 1]], [[2, 0], [0, 2], [1, 1]]
    (got,) = run_js([["linearAttentionRecurrent", [[[1, 0]] * 3, keys, values]]])
    want = [[2, 0], [10 / 9, 8 / 9], [16 / 15, 14 / 15]]
    assert np.allclose(got["outputs"], want, atol=1e-15, rtol=0)
    assert got["z"] == [5, 5] and got["S"] == [[6, 4], [4, 6]]


def test_delta_rule_matches_attn_core(run_js):
    rng = np.random.default_rng(13)
    cases, expected = [], []
    for T, e, ev in [(3, 2, 2), (7, 4, 4), (5, 3, 6)]:
        q, v = rng.normal(size=(T, e)), rng.normal(size=(T, ev))
        k = rng.normal(size=(T, e))
        k /= np.linalg.norm(k, axis=-1, keepdims=True)  # unit keys, as the models use
        beta, decay = rng.uniform(0, 1, size=T), rng.uniform(0.5, 1, size=T)
        for d in (None, decay):
            opts = {"decay": None if d is None else d.tolist()}
            cases.append(["deltaRule", [q.tolist(), k.tolist(), v.tolist(), beta.tolist(), opts]])
            expected.append(attn_core.delta_rule(q, k, v, beta, decay=d))
    for js, (out, S) in zip(run_js(cases), expected, strict=True):
        assert np.allclose(js["outputs"], out, atol=1e-13, rtol=0)
        assert np.allclose(js["S"], S, atol=1e-13, rtol=0)


def test_delta_rule_overwrites_a_key_by_hand(run_js):
    # attn_core's doctest: keys e1, e2, e1 with values 1, 2, 5 and β = 1: S = [[5, 2]]
    keys = [[1, 0], [0, 1], [1, 0]]
    (got,) = run_js([["deltaRule", [keys, keys, [[1], [2], [5]], [1, 1, 1]]]])
    assert got["S"] == [[5, 2]] and got["outputs"] == [[1], [2], [5]]


def test_fill_state_matches_the_python_figure(run_js):
    from attn_book.widgets.state_filler import MEMORIES, fill, pairs

    cases, expected = [], []
    for n, rewrite, beta in [(3, True, 1.0), (6, False, 0.35), (2, True, 0.0)]:
        keys, values, pair_of = pairs(n, 4, 4, rewrite=rewrite)
        for step in range(len(pair_of) + 1):
            for method in MEMORIES:
                query = step % n
                opts = {"beta": beta, "softmaxScale": 16}
                args = [keys.tolist(), values.tolist(), pair_of, step, method, query, opts]
                cases.append(["fillState", args])
                expected.append(fill(keys, values, pair_of, step, method, query, beta=beta))
    for js, want in zip(run_js(cases), expected, strict=True):
        assert js["written"] == want["written"]
        for name in ("state", "weights", "recalled", "target", "correction"):
            assert np.shape(js[name]) == np.shape(want[name]), name
            assert np.allclose(js[name], want[name], atol=1e-13, rtol=0), name
        assert js["error"] == pytest.approx(want["error"], abs=1e-13)


def test_purple_orange_stops_match_matplotlib(run_js):
    mpl = pytest.importorskip("matplotlib")
    ts = [i / 8 for i in range(9)] + [0.3]
    got = run_js([["purpleOrange", [t]] for t in ts])
    for t, css in zip(ts, got, strict=True):
        rgb = [int(c) for c in css[4:-1].split(",")]
        want = [round(255 * c) for c in mpl.colormaps["PuOr_r"](t)[:3]]
        assert max(abs(a - b) for a, b in zip(rgb, want, strict=True)) <= 3, (t, rgb, want)


# --- the figures' words: translator(model) in dom.js ----------------------------------------

TRANSLATOR_RUNNER = """
import { translator } from "./dom.js";
const model = (words) => ({ get: (name) => (name === "words" ? words : undefined) });
const en = translator(model({}));
const none = translator(model(undefined));
const ko = translator(model({ "weights of query t = {t}": "쿼리 t = {t}의 가중치", empty: "" }));
process.stdout.write(JSON.stringify([
  en("weights of query t = {t}", { t: 3 }),
  none("sink"),
  ko("weights of query t = {t}", { t: 3 }),
  ko("slot {j}", { j: 0 }),
  ko("empty"),
  en("{a} and {b}", { a: 1 }),
  en("toString"),
]));
"""


def test_the_translator_uses_the_words_falls_back_to_the_english_and_fills_fields(tmp_path):
    if not Path(NODE).exists():
        pytest.skip(f"node not found ({NODE}); the JS tests need Node.js")
    for src in ("dom.js", "attn_math.js"):
        shutil.copy(WIDGETS / "src" / src, tmp_path / src)
    (tmp_path / "package.json").write_text('{"type": "module"}', encoding="utf-8")
    (tmp_path / "run.mjs").write_text(TRANSLATOR_RUNNER, encoding="utf-8")
    proc = subprocess.run(
        [NODE, "run.mjs"], capture_output=True, text=True, cwd=tmp_path, timeout=60, check=True
    )
    assert json.loads(proc.stdout) == [
        "weights of query t = 3",  # English: the msgid itself, its fields filled
        "sink",  # no words trait at all (an old stored state)
        "쿼리 t = 3의 가중치",  # the translation, its fields filled
        "slot 0",  # no translation: the English
        "empty",  # an empty translation: the English
        "1 and {b}",  # a field with no value stays as it is
        "toString",  # not an Object's own property
    ]


def test_every_word_a_figure_draws_goes_through_the_translator():
    """A figure's words are found by tools/i18n.py only as ``t("literal", ...)``."""
    sys_path = str(Path(attn_book.__file__).parents[1] / "tools")
    import sys

    sys.path.insert(0, sys_path)
    try:
        import i18n as tool
    finally:
        sys.path.remove(sys_path)
    found = {text for _, text, where in tool.figure_units() if "widgets/src/" in where}
    assert {"movable point", "window W", "row sum {sum} (no sink)", "empty"} <= found
    assert not [text for text in found if "${" in text], "a template literal in t(...)"


SET_TITLE_RUNNER = """
import { setTitle } from "./dom.js";
const node = { textContent: "", style: { fontWeight: "" } };
const out = [];
for (const title of ["ring buffer, W = 3", "링 버퍼, W = 3", "scores s (점수) — drag a bar",
                     "asked k₁: recalled (blue), true (orange)", "ㄱ", ""]) {
  setTitle(node, title);
  out.push([node.textContent, node.style.fontWeight]);
}
process.stdout.write(JSON.stringify(out));
"""


def test_a_title_with_hangul_is_set_regular(tmp_path):
    """The figures' Hangul font has one weight: setTitle draws a title with any Hangul at 400
    (all of it), one without at .abh-title's bold (no inline weight), and undoes a 400."""
    if not Path(NODE).exists():
        pytest.skip(f"node not found ({NODE}); the JS tests need Node.js")
    for src in ("dom.js", "attn_math.js"):
        shutil.copy(WIDGETS / "src" / src, tmp_path / src)
    (tmp_path / "package.json").write_text('{"type": "module"}', encoding="utf-8")
    (tmp_path / "run.mjs").write_text(SET_TITLE_RUNNER, encoding="utf-8")
    proc = subprocess.run(
        [NODE, "run.mjs"], capture_output=True, text=True, cwd=tmp_path, timeout=60, check=True
    )
    assert json.loads(proc.stdout) == [
        ["ring buffer, W = 3", ""],
        ["링 버퍼, W = 3", "400"],
        ["scores s (점수) — drag a bar", "400"],
        ["asked k₁: recalled (blue), true (orange)", ""],
        ["ㄱ", "400"],
        ["", ""],
    ]


def test_every_figure_title_is_set_through_set_title():
    """A `.abh-title` given its text any other way would be bold with Hangul in it."""
    sources = {p.name: p.read_text(encoding="utf-8") for p in (WIDGETS / "src").glob("*.js")}
    titled = sorted(n for n, s in sources.items() if '"abh-title"' in s and n != "dom.js")
    assert titled == [
        "scaling_explorer.js", "softmax_bars.js", "state_filler.js", "window_sinks.js",
    ]  # fmt: skip
    for name in titled:
        source = sources[name]
        assert "setTitle(" in source, name
        assert not re.search(r'class: "abh-title" \}, svg\)\.textContent', source), name
        titles = re.findall(r"const (\w+) = [^;]*abh-title", source)
        for title in titles:  # a title node kept for later is never given text by setText
            assert not re.search(rf"setText\(\s*[\w.\[\]]*\b{title},", source), (name, title)
