"""AttentionHeatmap's stored training states: the Python side, and the JavaScript run in node.

The JavaScript must draw the state the slider picks with no kernel (the static site), so
its choice of state, its loss curve and its readout are tested against attn_core and hand
values, as tests/test_widget_js.py tests the other figures' maths.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from figure_js import run_figure_js

import attn_core

pytest.importorskip("anywidget")
from attn_book.widgets import AttentionHeatmap
from attn_book.widgets.snapshot import snapshot_key

RUNNER = """
import { headsToDraw, lossCurve, stepText } from "./attention_heatmap.js";
import { attentionMatrix } from "./attn_math.js";
import { translator } from "./dom.js";
const t = translator({ get: () => ({}) });  // English: no words to look up
const { traits, steps } = JSON.parse(process.argv[2]);
const model = { get: (name) => traits[name] };
const weights = steps.map((s) => {
  traits.step = s;
  const [HQ, HK] = headsToDraw(model);
  return attentionMatrix(HQ[0], HK[0], { scale: null, temperature: 1 });
});
const curve = lossCurve([1, 0.1, 0.01], 200, 50);
const texts = [stepText([0, 5, 10], 1, [4, 3, 2, 1, 0.5, 0.25], t), stepText([0, 99], 1, [1], t)];
process.stdout.write(JSON.stringify({ weights, curve, texts }));
"""


def _states(rng, n=4, tokens=3, width=2):
    return rng.normal(size=(n, tokens, width)) * np.arange(n)[:, None, None], rng.normal(
        size=(n, tokens, width)
    )


def test_each_step_shows_the_weights_of_its_stored_state():
    q, k = _states(np.random.default_rng(0))
    hm = AttentionHeatmap(
        query_tokens=["a", "b", "c"], training_queries=q, training_keys=k,
        training_steps=[0, 10, 20, 30], training_losses=np.linspace(1, 0.1, 31), step=3,
    )  # fmt: skip
    for step in (3, 0, 2):
        hm.step = step
        np.testing.assert_allclose(hm.weights, attn_core.attention_weights(q[step], k[step]))
    with pytest.raises(ValueError, match="step"):
        hm.step = 4
    assert hm.step == 2  # the rejected value rolled back


def test_bad_training_states_are_named():
    q, k = _states(np.random.default_rng(1))
    with pytest.raises(ValueError, match="training_queries"):
        AttentionHeatmap(query_tokens=["a", "b", "c"], training_queries=q, training_keys=k[:2])
    with pytest.raises(ValueError, match="training_steps"):
        AttentionHeatmap(
            query_tokens=["a", "b", "c"], training_queries=q, training_keys=k, training_steps=[0]
        )


def test_each_training_step_is_a_picture_of_its_own():
    # the stored snapshot is named by the figure's state, so another step is another picture
    q, k = _states(np.random.default_rng(2))
    hm = AttentionHeatmap(
        query_tokens=["a", "b", "c"], training_queries=q, training_keys=k,
        training_steps=[0, 1, 2, 3], training_losses=[0.5, 0.25, 0.125, 0.0625], step=2,
    )  # fmt: skip
    at_two = snapshot_key(hm.get_state())
    hm.step = 3
    assert snapshot_key(hm.get_state()) != at_two
    hm.step = 2
    assert snapshot_key(hm.get_state()) == at_two


def test_the_javascript_draws_the_stored_state_the_slider_picks(tmp_path):
    q, k = _states(np.random.default_rng(3))
    traits = {
        "training_queries": q.tolist(), "training_keys": k.tolist(), "step": 0,
        "head_queries": [[[0.0, 0.0]] * 3], "head_keys": [[[0.0, 0.0]] * 3],  # stale: not used
    }  # fmt: skip
    helpers = ["headsToDraw", "lossCurve", "stepText"]
    args = [json.dumps({"traits": traits, "steps": [0, 2, 3, 9]})]
    out = run_figure_js(tmp_path, "attention_heatmap", helpers, RUNNER, args=args)
    for got, step in zip(out["weights"], [0, 2, 3, 3], strict=True):  # 9 is clamped to the last
        np.testing.assert_allclose(got, attn_core.attention_weights(q[step], k[step]), atol=1e-12)
    # log scale, by hand: log10 of 1, 0.1, 0.01 is 0, -1, -2, so y = 0, 25, 50
    assert out["curve"] == [[0, 0], [100, 25], [200, 50]]
    assert out["texts"][0] == "training step 5 of 10, loss 0.2500"
    assert out["texts"][1] == "training step 99 of 99"  # no loss stored for that step
    assert math.isfinite(out["weights"][0][0][0])
