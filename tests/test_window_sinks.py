"""WindowSinks: query t's row under a sliding window, a sink and a gate, and the ring buffer.

Expected values come from loops over the keys and a list that plays the ring buffer, not from
the code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("anywidget")

from attn_book.widgets import WindowSinks
from attn_book.widgets.window_sinks import chapter_sequence


def loop_row(q, keys, t, W, sink=None):
    """Query t's weights by hand: keys t − W + 1 … t, scores q·k/√E, the sink's e^z in the sum."""
    seen = [j for j in range(len(keys)) if 0 <= t - j < W]
    e = {j: math.exp(sum(a * b for a, b in zip(q, keys[j], strict=True)) / math.sqrt(len(q)))
         for j in seen}  # fmt: skip
    total = sum(e.values()) + (0.0 if sink is None else math.exp(sink))
    return [e.get(j, 0.0) / total for j in range(len(keys))]


def ring_by_hand(t, W):
    """Write positions 0 … t into a list of W slots, p into slot p mod W; what was overwritten."""
    slots, evicted = [None] * W, None
    for p in range(t + 1):
        evicted, slots[p % W] = slots[p % W], p
    return [p for p in slots if p is not None], evicted


@pytest.mark.parametrize("W", [1, 2, 3, 6])
@pytest.mark.parametrize("t", [0, 2, 3, 5])
def test_every_step_and_window_against_loops(t, W):
    _, Q, K, V = chapter_sequence()
    fig = WindowSinks(step=t, window=W)
    want = loop_row(Q[t], K, t, W)
    assert fig.weights == pytest.approx(want, abs=1e-14)
    assert fig.row_sum == pytest.approx(1.0, abs=1e-14) and fig.sink_share == 0.0
    assert fig.output == pytest.approx((np.array(want) @ V).tolist(), abs=1e-14)
    slots, evicted = ring_by_hand(t, W)
    assert fig.slots == slots and fig.written == t % W and fig.evicted == evicted


def test_the_chapters_ring_at_its_last_word():
    """Chapter 11 prints it: at t = 5 (샀다), W = 3, the slots hold positions 3, 4, 5 and 샀다
    overwrote 먹었다 (position 2) in slot 2; 나는 … 먹었다 get no weight."""
    fig = WindowSinks()
    assert (fig.step, fig.window) == (5, 3)
    assert fig.slots == [3, 4, 5] and fig.written == 2 and fig.evicted == 2
    assert fig.weights[:3] == [0.0, 0.0, 0.0]
    assert repr(fig) == (
        "WindowSinks(step=5, window=3, sink=False, sink_logit=1, gate=False, gate_logit=0)"
    )


def test_the_sink_takes_its_share_and_the_gate_scales_the_output():
    _, Q, K, _ = chapter_sequence()
    fig = WindowSinks(step=4, window=3, sink=True, sink_logit=0.5)
    want = loop_row(Q[4], K, 4, 3, sink=0.5)
    assert fig.weights == pytest.approx(want, abs=1e-14)
    assert fig.sink_share == pytest.approx(1 - sum(want), abs=1e-14)
    assert fig.row_sum + fig.sink_share == pytest.approx(1.0, abs=1e-14)
    assert fig.gated_output == fig.output  # no gate
    fig.gate, fig.gate_logit = True, -1.0
    sigma = 1 / (1 + math.e)  # σ(−1)
    assert fig.gated_output == pytest.approx([sigma * o for o in fig.output], abs=1e-15)
    fig.sink_logit = 20.0  # a sink far above every score takes (almost) the whole row
    assert fig.sink_share > 0.999999 and max(fig.weights) < 1e-6


def test_full_window_is_causal_attention():
    _, Q, K, _ = chapter_sequence()
    fig = WindowSinks(step=5, window=6)
    assert fig.weights == pytest.approx(loop_row(Q[5], K, 5, 6), abs=1e-14)
    assert fig.slots == [0, 1, 2, 3, 4, 5] and fig.evicted is None


def test_own_tokens_and_vectors():
    q, k = [[1.0, 0.0]] * 3, [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]  # chapter 4's query, keys
    v = [[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]
    fig = WindowSinks(tokens=["a", "b", "c"], query_vectors=q, key_vectors=k, value_vectors=v,
                      window=3)  # fmt: skip
    assert [round(w, 3) for w in fig.weights] == [0.401, 0.198, 0.401]  # chapter 4's example
    assert [round(o, 3) for o in fig.output] == [1.203, 0.797]


def test_bad_input_names_the_argument():
    fig = WindowSinks()
    with pytest.raises(ValueError, match=r"window must be an integer in 1\.\.6, got 7"):
        fig.window = 7
    with pytest.raises(ValueError, match=r"step must be an integer in 0\.\.5, got 6"):
        fig.step = 6
    with pytest.raises(ValueError, match=r"sink_logit must lie within ±20"):
        fig.sink_logit = 1e9
    assert (fig.step, fig.window, fig.slots) == (5, 3, [3, 4, 5])  # unchanged
    with pytest.raises(ValueError, match="go together"):
        WindowSinks(tokens=["a", "b"])
    with pytest.raises(ValueError, match=r"n = 2; got shapes \(3, 2\)"):
        WindowSinks(tokens=["a", "b"], query_vectors=[[1.0, 0.0]] * 3,
                    key_vectors=[[1.0, 0.0]] * 3, value_vectors=[[1.0]] * 3)  # fmt: skip
    with pytest.raises(ValueError, match=r"window must be an integer in 1\.\.6, got 0"):
        WindowSinks(window=0)
    with pytest.raises(ValueError, match="tokens is set when the figure is made"):
        fig.tokens = ["a", "b"]
    with pytest.raises(ValueError, match="value_vectors is set when the figure is made"):
        fig.value_vectors = [[1.0]] * 6
