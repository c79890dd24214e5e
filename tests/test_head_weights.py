"""Chapter 13's figure that picks a layer and a head: the stored weights, the heatmap's stored
mode in Python, and its JavaScript run in node on the same state.

The stored file must be the model's weights rounded (checked against a forward pass when the
model is on the machine); the layer and head the figure opens on must show what the prompt says
(checked with plain loops over the stored weights); the JavaScript must draw, for every layer
and head, the weights Python holds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from figure_js import run_figure_js

from attn_book import head_weights

pytest.importorskip("anywidget")
from attn_book.widgets import AttentionHeatmap
from attn_book.widgets._base import figure_words


@pytest.fixture(scope="module")
def stored():
    return {name: head_weights.load(name) for name in head_weights.PROMPTS}


# --- the stored file -------------------------------------------------------------------------


def test_the_stored_file_is_small_and_holds_both_prompts(stored):
    assert head_weights.STORED.stat().st_size < 300_000
    for name, w in stored.items():
        T = len(w.ids)
        assert T <= 16 and len(w.tokens) == T, name
        assert w.weights.shape == (30, 9, T, T), name
        # weights: rows sum to 1 up to the rounding of T numbers, nothing after the query
        np.testing.assert_allclose(w.weights.sum(-1), 1, atol=T * 0.0005 + 1e-9)
        assert not np.triu(w.weights, k=1).any(), name
        assert np.array_equal(w.weights, np.round(w.weights, 3)), name


def test_the_stored_file_equals_the_model(stored, real_gguf):
    from attn_book import llama

    m = llama.load_model(real_gguf.path)
    for name, w in stored.items():
        assert m.tokenizer.encode(head_weights.PROMPTS[name].text) == w.ids, name
        assert [m.tokenizer.decode([i]) for i in w.ids] == w.tokens, name
        per_layer = []
        llama.forward(m, w.ids, weights=per_layer)
        raw = np.asarray(per_layer)
        # the model's numbers, rounded to 3 decimals (a half-way case may round either way)
        np.testing.assert_allclose(w.weights, raw, rtol=0, atol=0.0005 + 1e-6)
        # the file is what compute() writes; another numpy's float32 sums may land a number
        # within 10⁻⁶ of a half-way point on its other side (numpy 1.26: two of 69,120)
        computed = head_weights.compute(name, m).weights
        differ = computed != w.weights
        off_half = np.abs(raw * 1000 - np.floor(raw * 1000) - 0.5)
        assert np.all(off_half[differ] < 1e-3), name
        assert np.all(np.abs(computed - w.weights)[differ] < 0.001 + 1e-9), name
        assert differ.sum() <= 10, name


def test_the_opening_heads_are_the_best_of_their_kind(stored):
    # sentence: a previous-token head, the one whose rows 1..T-1 put the most on key i - 1
    w = stored["sentence"].weights
    T = w.shape[-1]
    previous = np.zeros(w.shape[:2])
    for layer in range(30):
        for head in range(9):
            previous[layer, head] = sum(w[layer, head, i, i - 1] for i in range(1, T)) / (T - 1)
    opening = head_weights.PROMPTS["sentence"]
    assert (opening.layer, opening.head) == np.unravel_index(previous.argmax(), previous.shape)
    assert previous.max() > 0.7
    # induction: eight words twice; from position i of the second copy, key i - 8 + 1
    w = stored["induction"].weights
    induction = np.zeros(w.shape[:2])
    for layer in range(30):
        for head in range(9):
            induction[layer, head] = np.mean([w[layer, head, i, i - 7] for i in range(8, 16)])
    opening = head_weights.PROMPTS["induction"]
    assert (opening.layer, opening.head) == np.unravel_index(induction.argmax(), induction.shape)
    assert induction.max() > 0.75
    tokens = stored["induction"].tokens
    assert tokens[:8] == tokens[8:] and len(set(tokens[:8])) == 8  # eight words, repeated
    row = w[opening.layer, opening.head, opening.selected]
    assert row.argmax() == opening.selected - 7  # the opening row looks where it should


def test_an_unknown_prompt_is_named():
    with pytest.raises(ValueError, match="'sentence'"):
        head_weights.load("poem")


# --- the heatmap's stored mode ----------------------------------------------------------------


def test_from_model_opens_on_the_prompts_head(stored):
    hm = AttentionHeatmap.from_model("induction")
    w, opening = stored["induction"], head_weights.PROMPTS["induction"]
    assert hm.query_tokens == [t.strip() for t in w.tokens]
    assert (hm.layer, hm.head, hm.selected, hm.causal) == (18, 6, 12, True)
    assert hm.weights == w.weights[opening.layer, opening.head].tolist()
    assert hm.row == w.weights[18, 6, 12].tolist()
    other = AttentionHeatmap.from_model("sentence", layer=0, head=2)
    assert (other.layer, other.head) == (0, 2)
    assert other.weights == stored["sentence"].weights[0, 2].tolist()


def test_every_layer_and_head_shows_its_stored_weights(stored):
    w = stored["sentence"].weights
    hm = AttentionHeatmap.from_model("sentence")
    for layer, head, row in [(0, 0, 0), (29, 8, 13), (5, 3, 7), (16, 0, 1)]:
        hm.layer, hm.head, hm.selected = layer, head, row
        assert hm.weights == w[layer, head].tolist()
        assert hm.row == w[layer, head, row].tolist()
    # the synced rows end at the diagonal or before (a causal model's later keys are zeros)
    lengths = [len(r.split(",")) if r else 0 for r in hm.stored_weights[3][4].split(";")]
    assert all(n <= i + 1 for i, n in enumerate(lengths)) and lengths[-1] == 14


def test_a_bad_layer_is_refused_and_rolled_back():
    hm = AttentionHeatmap.from_model("sentence", layer=3)
    with pytest.raises(ValueError, match=r"layer must be an integer in 0\.\.29"):
        hm.layer = 30
    assert hm.layer == 3
    with pytest.raises(ValueError, match="head"):
        hm.head = 9
    with pytest.raises(ValueError, match=r"stored_weights must have shape \(layers, heads, L=2"):
        AttentionHeatmap(query_tokens=["a", "b"], stored_weights=np.ones((2, 2, 3, 3)) / 3)
    with pytest.raises(TypeError, match="given to the constructor"):
        hm.stored_weights = np.ones((30, 9, 14, 14)).tolist()
    with pytest.raises(ValueError, match=r"0\.\.1"):
        AttentionHeatmap(query_tokens=["a"], stored_weights=[[[[1.5]]]])


def test_without_stored_weights_nothing_changes():
    hm = AttentionHeatmap(causal=True)  # chapter 7's figure: no layer, computed weights
    assert hm.stored_weights == [] and hm.layer == 0
    assert hm.weights[0] == [1.0, 0.0, 0.0]
    with pytest.raises(ValueError, match=r"layer must be an integer in 0\.\.0"):
        hm.layer = 1


# --- the JavaScript, in node ------------------------------------------------------------------

RUNNER = """
import { storedMatrix, storedNoteText } from "./attention_heatmap.js";
import { translator } from "./dom.js";
const input = await new Promise((ok) => {
  let s = ""; process.stdin.on("data", (d) => (s += d)); process.stdin.on("end", () => ok(s));
});
const { traits, picks } = JSON.parse(input);
const t = translator({ get: (name) => traits[name] });
const model = { get: (name) => traits[name] };
const S = traits.query_tokens.length;
const out = picks.map(([l, h, row]) => {
  const W = storedMatrix(model, l, h, S);
  return { W, note: storedNoteText(l, h, W[row], row + 1, t) };
});
process.stdout.write(JSON.stringify(out));
"""


def run_node(tmp_path, state, picks):
    helpers = ["storedMatrix", "storedNoteText"]
    stdin = {"traits": state, "picks": picks}
    return run_figure_js(tmp_path, "attention_heatmap", helpers, RUNNER, stdin=stdin)


def test_the_javascript_draws_what_python_holds_for_every_layer_and_head(tmp_path):
    hm = AttentionHeatmap.from_model("induction")
    picks = [[layer, head, 12] for layer in range(30) for head in range(9)]
    out = run_node(tmp_path, hm.get_state(), picks)
    for (layer, head, row), got in zip(picks, out, strict=True):
        hm.layer, hm.head, hm.selected = layer, head, row
        assert got["W"] == hm.weights, (layer, head)  # the same numbers, padded with zeros
    # the note of the opening head, by hand: layer 19, head 7 counted from 1; row 12 sees 13 keys
    hm.layer, hm.head, hm.selected = 18, 6, 12
    entropy = -sum(w * math.log(w) for w in hm.row if w > 0)
    note = out[18 * 9 + 6]["note"]
    assert note.startswith(f"layer 19, head 7: entropy of this row {entropy:.3f} nats")
    assert f"log 13 visible keys = {math.log(13):.3f} = uniform" in note


def test_the_korean_figure_speaks_korean(tmp_path):
    words = figure_words(AttentionHeatmap._esm, "ko")
    new = [
        "layer (층)",
        "layer {l} of {n}",
        "layer {l}, head {h}, query “{token}” attends to: {weights}.",
        "layer {l}, head {h}: entropy of this row {H} nats (spread of the weights: 0 = all on "
        "one key, log {keys} = {log} = uniform)",
        "layer {l}, head {h}: this row sees no key: every weight is 0",
        "Attention heatmap: hover or click a query row; up and down arrow keys change the row, "
        "left and right arrow keys the layer",
        "Rows: queries (쿼리); columns: keys (키); colour: weight from 0 (dark) to 1 (yellow), "
        "viridis; grey: masked. Hover or click a row; ↑/↓ keys move it. ←/→ keys (or the "
        "slider) change the layer.",
    ]
    for english in new:
        assert words.get(english), f"no Korean for {english!r} in figures.po"
        assert any("\uac00" <= c <= "\ud7a3" for c in words[english]), english
    state = AttentionHeatmap.from_model("induction").get_state() | {"words": words}
    out = run_node(tmp_path, state, [[18, 6, 12]])
    assert out[0]["note"].startswith("층 19, 헤드 7"), out[0]["note"]
