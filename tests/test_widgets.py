"""Python side of the figures: traits, recomputation through attn_core, bad input, repr.

Expected values come from hand formulas and plain loops, not from the code under test.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attn_book.data import SENTENCE_EN, SENTENCE_KO, toy_embeddings

pytest.importorskip("anywidget")

from attn_book.widgets import (
    AttentionHeatmap,
    QueryPad,
    ScalingExplorer,
    SoftmaxBars,
    StateFiller,
    WindowSinks,
)
from attn_book.widgets.attention_heatmap import head_projections
from attn_book.widgets.scaling_explorer import DIMS, scaling_table

FIGURES = (QueryPad, SoftmaxBars, ScalingExplorer, AttentionHeatmap, WindowSinks, StateFiller)
WIDGET_DIR = Path(__file__).resolve().parent.parent / "attn_book" / "widgets" / "src"


def loop_softmax(scores, temperature=1.0):
    """Softmax by hand: exp of each score over the sum (no max-subtraction; small inputs only)."""
    e = [math.exp(s / temperature) for s in scores]
    return [v / sum(e) for v in e]


def loop_dot(a, b):
    return sum(x * y for x, y in zip(a, b, strict=True))


# --- QueryPad -------------------------------------------------------------------------------


def test_query_pad_starts_at_the_seed_example():
    pad = QueryPad()
    e = math.exp(1 / math.sqrt(2))
    assert pad.weights == pytest.approx([e / (2 * e + 1), 1 / (2 * e + 1), e / (2 * e + 1)])
    assert [round(w, 3) for w in pad.weights] == [0.401, 0.198, 0.401]
    assert [round(o, 3) for o in pad.output] == [1.203, 0.797]
    assert pad.dots == [1.0, 0.0, 1.0]
    assert pad.cosines == pytest.approx([1.0, 0.0, 1 / math.sqrt(2)])


def test_setting_the_query_from_code_recomputes_the_weights():
    pad = QueryPad()
    pad.query = (0.3, 0.8)
    keys, values = pad.key_vectors, pad.value_vectors
    want = loop_softmax([loop_dot((0.3, 0.8), k) / math.sqrt(2) for k in keys])
    assert pad.query == [0.3, 0.8]
    assert pad.weights == pytest.approx(want)
    mix = [sum(w * v[m] for w, v in zip(want, values, strict=True)) for m in range(2)]
    assert pad.output == pytest.approx(mix)
    assert pad.entropy == pytest.approx(-sum(w * math.log(w) for w in want))


def test_query_pad_scale_and_temperature():
    pad = QueryPad(scaled=False)
    e = math.e  # scores 1, 0, 1 unscaled
    assert pad.weights == pytest.approx([e / (2 * e + 1), 1 / (2 * e + 1), e / (2 * e + 1)])
    pad.temperature = 0.25
    assert pad.weights == pytest.approx(loop_softmax([1.0, 0.0, 1.0], 0.25))
    assert pad.scores == [1.0, 0.0, 1.0]  # the temperature divides inside the softmax only


def test_dragging_a_key_or_value_recomputes():
    pad = QueryPad()
    pad.key_vectors = [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.5]]
    assert pad.dots == [1.0, 0.0, -1.0]
    assert pad.weights == pytest.approx(loop_softmax([s / math.sqrt(2) for s in (1, 0, -1)]))
    pad.value_vectors = [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
    assert pad.output == [0.0, 0.0]


def test_query_pad_can_change_the_number_of_keys():
    pad = QueryPad()
    with pad.hold_trait_notifications():
        pad.key_vectors = [[1.0, 0.0], [0.0, 1.0]]
        pad.value_vectors = [[1.0, 0.0], [0.0, 1.0]]
    assert len(pad.weights) == 2 and sum(pad.weights) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("trait", "value", "error", "words"),
    [
        ("query", (1.0, 2.0, 3.0), ValueError, ["query", "(2,)", "(3,)"]),
        ("query", ("a", 1), TypeError, ["query"]),
        ("query", (math.nan, 0.0), ValueError, ["query", "finite"]),
        ("key_vectors", [[1.0, 0.0, 0.0]], ValueError, ["key_vectors", "(1, 3)"]),
        ("value_vectors", [1.0, 2.0], ValueError, ["value_vectors", "(2,)"]),
        ("temperature", 0.0, ValueError, ["temperature", "> 0"]),
    ],
)
def test_query_pad_rejects_bad_input(trait, value, error, words):
    pad = QueryPad()
    with pytest.raises(error) as info:
        setattr(pad, trait, value)
    assert all(w in str(info.value) for w in words), str(info.value)


def test_query_pad_rejects_unequal_keys_and_values():
    with pytest.raises(ValueError, match=r"key_vectors has shape \(2, 2\).*\(3, 2\)"):
        QueryPad(key_vectors=[[1.0, 0.0], [0.0, 1.0]])


# --- SoftmaxBars ----------------------------------------------------------------------------


def test_softmax_bars_weights_and_shift_invariance():
    bars = SoftmaxBars(scores=[2.0, 1.0, 0.1], temperature=0.5)
    want = loop_softmax([2.0, 1.0, 0.1], 0.5)
    assert bars.weights == pytest.approx(want)
    assert bars.naive_weights == pytest.approx(want)
    bars.shift = 1000.0
    assert bars.weights == pytest.approx(want)  # softmax(s + c) = softmax(s)
    assert bars.naive_weights == [None, None, None]  # e^(2000) overflows: inf/inf
    assert bars.entropy == pytest.approx(-sum(w * math.log(w) for w in want))


def test_softmax_bars_rejects_bad_input():
    with pytest.raises(
        ValueError, match=r"scores must have shape \(S,\) with 1 <= S <= 64, got shape \(0,\)"
    ):
        SoftmaxBars(scores=[])
    with pytest.raises(ValueError, match="shift must be finite"):
        SoftmaxBars(shift=math.inf)


# --- ScalingExplorer ------------------------------------------------------------------------


def test_scaling_explorer_shows_the_sqrt_dk_growth():
    ex = ScalingExplorer()
    for row in ex.table:
        d = row["d_k"]  # Var(q·k) = d for unit-variance entries, so std = sqrt(d)
        assert row["raw"]["std"] == pytest.approx(math.sqrt(d), rel=0.12)
        assert row["scaled"]["std"] == pytest.approx(1.0, rel=0.12)
        assert sum(row["raw"]["hist"]) == pytest.approx(1.0)
    big = ex.table[DIMS.index(512)]
    assert big["raw"]["max_weight"] > 0.9 and big["scaled"]["max_weight"] < 0.4
    assert big["raw"]["grad"] < big["scaled"]["grad"] / 3  # saturated softmax: small gradient
    assert big["raw"]["entropy"] < 0.2 < 2.0 < big["scaled"]["entropy"] < math.log(16)


def test_a_scaling_row_against_loops():
    d_k, n_keys, n = 3, 4, 5
    (row,) = scaling_table([d_k], 7, n_keys, n)
    rng = np.random.default_rng([7, d_k])  # the same draws, in the same order
    q, k = rng.standard_normal((n, 1, d_k)), rng.standard_normal((n, n_keys, d_k))
    maxes, grads = [], []
    for i in range(n):
        w = loop_softmax([loop_dot(q[i, 0], k[i, j]) / math.sqrt(d_k) for j in range(n_keys)])
        maxes.append(max(w))
        jac = [[w[a] * ((a == b) - w[b]) for b in range(n_keys)] for a in range(n_keys)]
        grads.append(math.sqrt(sum(x * x for r in jac for x in r)))
    assert row["scaled"]["max_weight"] == pytest.approx(sum(maxes) / n)
    assert row["scaled"]["grad"] == pytest.approx(sum(grads) / n)


def test_scaling_explorer_is_seeded_and_follows_d_k():
    a, b = ScalingExplorer(seed=3), ScalingExplorer(seed=3)
    assert a.table == b.table and a.table != ScalingExplorer(seed=4).table
    a.d_k = 8
    assert a.current == a.table[DIMS.index(8)] and a.current["d_k"] == 8
    with pytest.raises(ValueError, match=r"d_k must be one of \[1, 2, 4"):
        a.d_k = 10
    with pytest.raises(ValueError, match="n_keys must be an integer >= 1"):
        a.n_keys = 0


# --- AttentionHeatmap -----------------------------------------------------------------------


def test_heatmap_defaults_to_the_seed_sentence_and_rows_sum_to_one():
    hm = AttentionHeatmap()
    assert hm.query_tokens == list(SENTENCE_KO) and hm.key_tokens is None
    assert np.allclose([sum(r) for r in hm.weights], 1.0)
    assert hm.row == hm.weights[0]


def test_head_projections_take_each_heads_columns():
    q, k = head_projections(["a", "b"], ["c", "d", "e"], 8, 2, seed=0)
    rng = np.random.default_rng([0, 8])
    w_q, w_k = rng.standard_normal((2, 8, 8)) / math.sqrt(8)
    x_q, x_k = toy_embeddings(["a", "b"], 8, 0), toy_embeddings(["c", "d", "e"], 8, 0)
    for h in range(2):  # head h uses columns h*4 .. h*4+3 of the projection
        assert np.allclose(q[h], x_q @ w_q[:, 4 * h : 4 * h + 4])
        assert np.allclose(k[h], x_k @ w_k[:, 4 * h : 4 * h + 4])


def test_heatmap_weights_against_a_loop_for_every_option():
    hm = AttentionHeatmap(query_tokens=SENTENCE_EN, n_heads=4, d_model=8)
    for head, scaled, temperature, causal in [(0, True, 1.0, False), (3, False, 0.5, True)]:
        hm.head, hm.scaled, hm.temperature, hm.causal = head, scaled, temperature, causal
        q, k = hm.head_queries[head], hm.head_keys[head]
        scale = 1 / math.sqrt(2) if scaled else 1.0  # d_head = 8 / 4
        for i, row in enumerate(hm.weights):
            visible = [loop_dot(q[i], k[j]) * scale for j in range(len(k)) if not causal or j <= i]
            want = loop_softmax(visible, temperature) + [0.0] * (len(k) - len(visible))
            assert row == pytest.approx(want, abs=1e-12)


def test_heatmap_cross_attention_and_selection():
    hm = AttentionHeatmap(query_tokens=["I", "ate", "an", "apple"], key_tokens=SENTENCE_KO)
    assert np.shape(hm.weights) == (4, 3) and np.shape(hm.head_keys) == (2, 3, 4)
    hm.selected = 2
    assert hm.row == hm.weights[2]
    hm.query_tokens = ["one"]  # shrinking keeps the selection in range
    assert hm.selected == 0 and np.shape(hm.weights) == (1, 3)


def test_heatmap_handles_32_tokens():
    tokens = [f"t{i}" for i in range(32)]
    hm = AttentionHeatmap(query_tokens=tokens, causal=True)
    w = np.array(hm.weights)
    assert w.shape == (32, 32) and np.allclose(np.triu(w, 1), 0) and np.allclose(w.sum(1), 1)


def test_heatmap_padding_mask_hides_the_padding_and_renormalises():
    tokens = ["I", "ate", "apple", "<pad>", "<pad>"]
    hm = AttentionHeatmap(query_tokens=tokens, length=3)
    q, k = hm.head_queries[0], hm.head_keys[0]
    scale = 1 / math.sqrt(4)  # d_head = 8 / 2
    for causal in (False, True):
        hm.causal = causal
        for i, row in enumerate(hm.weights):
            seen = [loop_dot(q[i], k[j]) * scale for j in range(3) if not causal or j <= i]
            assert row == pytest.approx(loop_softmax(seen, 1.0) + [0.0] * (5 - len(seen)))
    hm.causal, hm.padded = False, False  # the padding attended: every key gets weight
    assert min(min(r) for r in hm.weights) > 0
    hm.padded, hm.length = True, 0  # no real key: every row fully masked gives zeros
    assert np.all(np.asarray(hm.weights) == 0)
    with pytest.raises(ValueError, match=r"length must be an integer in 0\.\.5, got 6"):
        hm.length = 6


def test_heatmap_rejects_bad_input():
    with pytest.raises(ValueError, match="n_heads=3 must divide d_model=8"):
        AttentionHeatmap(n_heads=3)
    with pytest.raises(TypeError, match="query_tokens must be a non-empty sequence of str"):
        AttentionHeatmap(query_tokens="나는 사과를")
    with pytest.raises(ValueError, match=r"head must be an integer in 0\.\.1, got 2"):
        AttentionHeatmap().head = 2
    with pytest.raises(ValueError, match=r"selected must be an integer in 0\.\.2, got 3"):
        AttentionHeatmap().selected = 3


# --- All figures ----------------------------------------------------------------------------


@pytest.mark.parametrize("cls", FIGURES, ids=lambda c: c.__name__)
def test_repr_is_deterministic(cls):
    text = repr(cls())
    assert text == repr(cls()) and text.startswith(cls.__name__ + "(")
    assert not re.search(r"0x[0-9a-f]+|[0-9a-f]{32}", text), text
    bundle = cls()._repr_mimebundle_()
    plain = bundle[0] if isinstance(bundle, tuple) else bundle
    assert plain["text/plain"] == text


def test_query_pad_repr_names_its_state():
    assert (
        repr(QueryPad(query=(0.5, -1.0))) == "QueryPad(query=(0.5, -1), scaled=True, temperature=1)"
    )


@pytest.mark.parametrize("cls", FIGURES, ids=lambda c: c.__name__)
def test_esm_bundles_the_shared_maths_once(cls):
    esm = cls._esm if isinstance(cls._esm, str) else str(cls._esm)
    assert esm.count("function fmt(") == 1  # esbuild bundles what a figure imports, once
    assert re.search(r"^export \{\s*\w+ as default\s*\};?$", esm, re.M), esm[-200:]
    assert "import " not in esm.replace("import(", "")  # self-contained: nothing to fetch
    assert "user-select: none" in str(cls._css)
    assert "keys" not in cls.class_trait_names(sync=True)  # clashes with Widget.keys


def test_figures_use_no_element_ids_or_globals():
    sources = sorted(WIDGET_DIR.glob("*.js"))
    assert len(sources) >= 5, WIDGET_DIR  # the maths, the DOM helpers, four figures
    for path in sources:
        text = path.read_text(encoding="utf-8")
        assert "getElementById" not in text and '"id"' not in text and "window." not in text, path


def test_import_attn_core_does_not_load_the_widgets():
    names = "'attn_book.widgets', 'anywidget'"
    code = f"import sys, attn_core; print(*(m in sys.modules for m in ({names})))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
