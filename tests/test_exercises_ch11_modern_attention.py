"""Chapter 11's exercises against values derived by hand or with plain-Python loops."""

import math

import numpy as np
from answer_inputs import Answers, Mistake, each_item, solution

import attn_core as ac
from attn_book.exercises import ch11_modern_attention as ch11

KiB, GiB = 2**10, 2**30


def test_band_count_by_hand():
    # n = 12, W = 4: queries 0, 1, 2 see 1, 2, 3 keys; the other 9 see 4 each
    assert 1 + 2 + 3 + 9 * 4 == ch11.band_count.expected() == 42
    assert ch11.band_count.check(42).ok
    assert ch11.band_count.check(1 + 2 + 3 + 4 + 8 * 5).diagnosis == "window-plus-one"
    assert ch11.band_count.check(1 + 2 + 10 * 3).diagnosis == "window-minus-one"
    assert ch11.band_count.check(12 * 4).diagnosis == "first-rows-full"
    assert ch11.band_count.check(12 * 13 // 2).diagnosis == "causal-count"
    both = sum(1 for i in range(12) for j in range(12) if abs(i - j) < 4)
    assert ch11.band_count.check(both).diagnosis == "both-sides"


def test_mixed_reach_is_one_plus_the_steps_back():
    # each layer of window W lets a path step back by at most W − 1: 1 + 3·3 + 2·7
    assert ch11.mixed_reach.expected() == 1 + 3 * 3 + 2 * 7 == 24
    # a loop: the set of positions reached, widened layer by layer from the last one
    reached = {0}  # offsets back from the last position
    for w in (4, 4, 4, 8, 8):
        reached = {r + s for r in reached for s in range(w)}
    assert len(reached) == 24
    assert ch11.mixed_reach.check(24).ok
    assert ch11.mixed_reach.check(28).diagnosis == "windows-summed"
    assert ch11.mixed_reach.check(23).diagnosis == "no-plus-one"
    assert ch11.mixed_reach.check(5 * 7 + 1).diagnosis == "largest-window"
    assert ch11.mixed_reach.check(5 * 3 + 1).diagnosis == "smallest-window"


def test_ring_slots_by_hand():
    # W = 4, positions 0 … 10: slot s holds the last p <= 10 with p mod 4 = s
    want = [max(p for p in range(11) if p % 4 == s) for s in range(4)]
    assert want == [8, 9, 10, 7]
    np.testing.assert_array_equal(ch11.ring_slots.expected(), want)
    assert ch11.ring_slots.check([8, 9, 10, 7]).ok
    assert ch11.ring_slots.check([7, 8, 9, 10]).diagnosis == "position-order"
    assert ch11.ring_slots.check([8, 9, 6, 7]).diagnosis == "one-step-behind"
    assert ch11.ring_slots.check([0, 1, 2, 3]).diagnosis == "never-overwritten"
    assert ch11.ring_slots.check([8, 9, 10, 11]).diagnosis == "one-step-ahead"


def test_the_budget_design_by_hand():
    # one layer, one position: 2 · 8 heads · 128 · 2 bytes = 4 KiB; a global layer at 128k: ½ GiB
    per_position = 2 * 8 * 128 * 2
    assert per_position == 4 * KiB and per_position * 131072 == GiB // 2
    # 6 global layers: 3 GiB; 42 local layers of W = 4,096: 42 · 16 MiB = 0.65625 GiB
    assert (6 * 131072 + 42 * 4096) * per_position / GiB == 3.65625
    assert ch11.local_global_budget.check([4096, 6]).ok
    # the working the chapter's solution quotes: 6 global layers take 3 GiB, 42 local ones
    # share 1 GiB, so W <= 2^30 / (42 · 4 KiB) = 6,241.5
    assert ch11.BUDGET_WORKING == {
        "one_position_kib": 4.0,
        "global_layer_gib": 0.5,
        "globals_gib": 3.0,
        "local_layers": 42,
        "left_gib": 1.0,
        "largest_window": 6241,
    }
    assert ch11.local_global_budget.check([6241, 6]).ok
    assert ch11.local_global_budget.check([6242, 6]).diagnosis == "over-budget"
    assert ch11.local_global_budget.check([2048, 7]).ok  # 3.5 + 41 · 8 MiB
    assert ch11.local_global_budget.check([8192, 6]).diagnosis == "over-budget"  # 3 + 1.3125
    assert ch11.local_global_budget.check([1024, 8]).diagnosis == "over-budget"  # 4 + more
    assert ch11.local_global_budget.check([4096, 4]).diagnosis == "too-few-global"
    assert ch11.local_global_budget.check([512, 6]).diagnosis == "window-too-small"
    assert ch11.local_global_budget.check([4096.5, 6]).diagnosis == "not-whole"


def _sink_loop(scores, sink):
    """One row by the formula: e^(s_j − m) / (e^(z − m) + Σ e^(s_l − m)), m the max of all."""
    m = max([sink, *[s for s in scores if s != -math.inf]])
    exps = [0.0 if s == -math.inf else math.exp(s - m) for s in scores]
    total = math.exp(sink - m) + sum(exps)
    return [e / total for e in exps]


def test_the_sink_reference_is_the_formula_by_loops():
    for case in ch11.sink_weights.cases():
        scores, sink = case.args
        got = ch11.sink_weights.reference(scores, sink)
        sinks = np.broadcast_to(sink, scores.shape[:-1])  # one sink per row
        want = each_item(
            lambda row, z: _sink_loop(row.tolist(), float(z)), scores, sinks, core=(1, 0)
        )
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)


def test_a_fully_masked_row_gives_the_sink_everything():
    row = ch11.sink_weights.reference(np.full(3, -math.inf), 0.0)
    assert np.array_equal(row, np.zeros(3))
    # chapter 4's row with sink 1: three weights summing to 1 − e / (e + Σ e^s)
    scores, sink = ch11.sink_weights.cases()[0].args
    share = math.e / (math.e + np.exp(scores).sum())
    assert math.isclose(ch11.sink_weights.reference(scores, sink).sum(), 1 - share)


def test_the_sink_function_and_its_slips():
    assert ch11.sink_weights.check(_fixed_sink_weights).ok

    def one_row_at_a_time(scores, sink):  # a plain loop is right too
        scores = np.asarray(scores, dtype=float)
        sinks = np.broadcast_to(sink, scores.shape[:-1])
        out = [
            _sink_loop(r.tolist(), float(z))
            for r, z in zip(scores.reshape(-1, scores.shape[-1]), sinks.reshape(-1), strict=True)
        ]
        return np.array(out).reshape(scores.shape)

    assert ch11.sink_weights.check(one_row_at_a_time).ok
    for mistake in ANSWERS["ch11-sink-weights"].mistakes:
        assert ch11.sink_weights.check(mistake.answer).diagnosis == mistake.diagnosis, mistake.name


def _fixed_sink_weights(scores, sink):
    sink = np.broadcast_to(sink, scores.shape[:-1])[..., None]  # [..., 1]
    joined = np.concatenate([scores, sink], axis=-1)  # [..., S + 1]
    e = np.exp(joined - joined.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True))[..., :-1]


def _sink_kept(scores, sink):
    sink = np.broadcast_to(sink, scores.shape[:-1])[..., None]
    joined = np.concatenate([scores, sink], axis=-1)
    e = np.exp(joined - joined.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _no_sink(scores, sink):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _shift_by_scores_max(scores, sink):
    m = scores.max(axis=-1, keepdims=True)
    e = np.exp(scores - m)
    return e / (e.sum(axis=-1, keepdims=True) + np.exp(np.asarray(sink)[..., None] - m))


def test_sink_logit_by_hand():
    # chapter 4: q = (1, 0), scaled scores 1/√2, 0, 1/√2; the sink's share 1/4 needs
    # e^z = (1/4) / (3/4) · Σ e^s = (2 e^(1/√2) + 1) / 3
    total = 2 * math.exp(1 / math.sqrt(2)) + 1
    z = math.log(total / 3)
    assert math.isclose(ch11.sink_logit.expected(), z)
    q, keys, p = ch11.sink_logit.inputs
    weights = ac.attention_weights(q, keys, sinks=z)  # the share it leaves: 1 − Σ w
    assert math.isclose(1 - weights.sum(), p)
    assert ch11.sink_logit.check(round(z, 3)).ok
    assert ch11.sink_logit.check(math.log((2 * math.e + 1) / 3)).diagnosis == "unscaled"
    assert ch11.sink_logit.check(math.log(total / 4)).diagnosis == "odds-forgotten"
    assert ch11.sink_logit.check(math.log(3 * total)).diagnosis == "share-swapped"
    assert ch11.sink_logit.check(total / 3).diagnosis == "exp-not-log"


def test_qk_norm_bound_by_hand():
    # d = 8; the largest |g_q| is |−2.5|, the largest |g_k| 1.2, both on dimension 1
    bound = math.sqrt(8) * 2.5 * 1.2
    assert math.isclose(ch11.qk_norm_bound.expected(), bound)
    assert ch11.qk_norm_bound.check(8.485).ok
    # reached: q and k both along dimension 1 (q pointing the negative way)
    g_q, g_k = ch11.qk_norm_bound.inputs
    q, k = -np.eye(8)[1], np.eye(8)[1]
    rms = lambda v: v / np.sqrt(np.mean(v**2))  # noqa: E731
    assert math.isclose((rms(q) * g_q) @ (rms(k) * g_k) / math.sqrt(8), bound)
    assert ch11.qk_norm_bound.check(8 * 2.5 * 1.2).diagnosis == "unscaled"
    assert ch11.qk_norm_bound.check(2.5 * 1.2).diagnosis == "divided-by-d"
    assert ch11.qk_norm_bound.check(math.sqrt(8) * 1.1 * 1.2).diagnosis == "signed-max"
    assert ch11.qk_norm_bound.check(2.5 * 1.2 / math.sqrt(8)).diagnosis == "unit-length"


def test_mla_cache_by_hand():
    # (512 + 64) numbers · 60 layers · 2 bytes = 69,120 bytes = 67.5 KiB per token
    assert (512 + 64) * 60 * 2 == 69120 == 67.5 * KiB
    assert ch11.mla_cache.expected() == 67.5
    assert ch11.mla_cache.check(67.5).ok
    assert ch11.mla_cache.check(135).diagnosis == "k-and-v-twice"
    assert ch11.mla_cache.check(1.125).diagnosis == "one-layer"
    assert ch11.mla_cache.check(69120).diagnosis == "bytes-not-kib"
    assert ch11.mla_cache.check(60).diagnosis == "rope-key-forgotten"
    assert ch11.mla_cache.check((512 + 128 * 64) * 60 * 2 / KiB).diagnosis == "rope-key-per-head"
    assert ch11.mla_cache.check(128 * 67.5).diagnosis == "times-heads"  # 8,640
    assert ch11.mla_cache.check((512 + 64) * 60 / KiB).diagnosis == "numbers-not-bytes"  # 33.75


def test_folding_w_uv_gives_the_naive_head_output():
    # the claim itself: for any weights w and latents C, (w C)(W_UV W_O) = (w (C W_UV)) W_O
    r = np.random.default_rng(0)
    for case in ch11.mla_fold_values.cases():
        w_uv, w_o = case.args
        folded = ch11.mla_fold_values.reference(w_uv, w_o)
        latents = r.normal(size=(*w_uv.shape[:-2], 5, w_uv.shape[-2]))  # 5 positions
        w = _softmax(r.normal(size=(*w_uv.shape[:-2], 5)))
        naive = np.einsum("...j,...jv->...v", w, latents @ w_uv)[..., None, :] @ w_o
        absorbed = np.einsum("...j,...jc->...c", w, latents)[..., None, :] @ folded
        np.testing.assert_allclose(absorbed, naive, rtol=1e-10, atol=1e-12)
    # the integer case by hand: W_UV W_O = [[1, 0, 2], [2, 1, 3]]
    w_uv, w_o = ch11.mla_fold_values.cases()[0].args
    np.testing.assert_array_equal(ch11.mla_fold_values.reference(w_uv, w_o), [[1, 0, 2], [2, 1, 3]])
    assert ch11.mla_fold_values.check(lambda w_uv, w_o: w_uv @ w_o).ok


def _softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _heads_summed(w_uv, w_o):
    folded = w_uv @ w_o
    return folded.sum(axis=0) if folded.ndim == 3 else folded


ANSWERS = {
    "ch11-band-count": Answers(
        solution=42,
        mistakes=[
            Mistake("i − W … i", 50, "window-plus-one"),
            Mistake("W − 1 keys", 33, "window-minus-one"),
            Mistake("every row full", 48, "first-rows-full"),
            Mistake("the causal triangle", 78, "causal-count"),
            Mistake("|i − j| < W", 72, "both-sides"),
        ],
    ),
    "ch11-mixed-reach": Answers(
        solution=24,
        mistakes=[
            Mistake("Σ W", 28, "windows-summed"),
            Mistake("Σ (W − 1)", 23, "no-plus-one"),
            Mistake("all windows 8", 36, "largest-window"),
            Mistake("all windows 4", 16, "smallest-window"),
        ],
    ),
    "ch11-ring-slots": Answers(
        solution=[8, 9, 10, 7],
        mistakes=[
            Mistake("oldest first", [7, 8, 9, 10], "position-order"),
            Mistake("after step t − 1", [8, 9, 6, 7], "one-step-behind"),
            Mistake("the first W", [0, 1, 2, 3], "never-overwritten"),
            Mistake("after step t + 1", [8, 9, 10, 11], "one-step-ahead"),
        ],
    ),
    "ch11-local-global-budget": Answers(
        solution=[4096, 6],
        mistakes=[
            Mistake("half a window", [4096.5, 6], "not-whole"),
            Mistake("more global layers than layers", [1024, 50], "too-many-global"),
            Mistake("the two numbers swapped", [6, 4096], "order-swapped"),
            Mistake("4 global layers", [4096, 4], "too-few-global"),
            Mistake("a window of 512", [512, 6], "window-too-small"),
            Mistake("W = 8,192", [8192, 6], "over-budget"),
            Mistake("three numbers", [4096, 6, 42], "wrong-count"),
        ],
    ),
    "ch11-sink-weights": Answers(
        solution=_fixed_sink_weights,
        mistakes=[
            Mistake("the sink's column kept", _sink_kept, "sink-left-in-row"),
            Mistake("no sink", _no_sink, "sink-forgotten"),
            Mistake("shifted by the scores' max", _shift_by_scores_max, "masked-row-nan"),
        ],
    ),
    "ch11-sink-logit": Answers(
        solution=0.522,
        mistakes=[
            Mistake("scores not scaled", 0.763, "unscaled"),
            Mistake("ln p, not ln p/(1 − p)", 0.234, "odds-forgotten"),
            Mistake("the words take p", 2.719, "share-swapped"),
            Mistake("e^z", 1.685, "exp-not-log"),
        ],
    ),
    "ch11-qk-norm-bound": Answers(
        solution=8.485,
        mistakes=[
            Mistake("no 1/√d", 24.0, "unscaled"),
            Mistake("divided by d", 3.0, "divided-by-d"),
            Mistake("max, not max |·|", 3.734, "signed-max"),
            Mistake("unit vectors", 1.061, "unit-length"),
        ],
    ),
    "ch11-mla-cache": Answers(
        solution=67.5,
        mistakes=[
            Mistake("K and V", 135.0, "k-and-v-twice"),
            Mistake("one layer", 1.125, "one-layer"),
            Mistake("bytes", 69120.0, "bytes-not-kib"),
            Mistake("no RoPE key", 60.0, "rope-key-forgotten"),
            Mistake("a RoPE key per head", 1020.0, "rope-key-per-head"),
            Mistake("times the 128 heads", 8640.0, "times-heads"),
            Mistake("numbers, not bytes", 33.75, "numbers-not-bytes"),
            Mistake("the latent for K and for V", 127.5, "latent-for-k-and-v"),
            Mistake("kB", 69.12, "decimal-kilobytes"),
        ],
    ),
    "ch11-mla-fold-values": Answers(
        solution=lambda w_uv, w_o: w_uv @ w_o,
        mistakes=[
            Mistake("all heads in one", _heads_summed, "heads-summed"),
            Mistake("np.dot on stacks", np.dot, "dot-on-stack"),
        ],
    ),
}


def test_the_typed_solutions_are_right():
    for ex in ch11.EXERCISES:
        assert ex.check(solution(ex)).ok, ex.id
