"""The figures' JavaScript maths (attn_book/widgets/attn_math.js) equals attn_core, run in node.

All cases go to one node process (about 50 ms) as JSON; -inf travels as the string "-inf"
and NaN comes back as null.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import attn_book
import attn_core

JS = Path(attn_book.__file__).parent / "widgets" / "attn_math.js"
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
