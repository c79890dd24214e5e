"""Chapter 10's exercises against values derived by hand or with plain-Python loops."""

import math

import numpy as np
from answer_inputs import Answers, Mistake, each_item, solution

from attn_book.exercises import ch10_generation as ch10

GiB = 2**30


def _causal_loop(q, k, v):
    """The causal pass by loops: row t is softmax(q_t · k_j / √E) v_j over j <= t."""
    rows = []
    for t, qt in enumerate(q.tolist()):
        s = [
            sum(a * b for a, b in zip(qt, kj, strict=True)) / math.sqrt(len(qt))
            for kj in k[: t + 1].tolist()
        ]
        e = [math.exp(x - max(s)) for x in s]
        rows.append(
            [
                sum(w * vj[c] for w, vj in zip(e, v.tolist(), strict=False)) / sum(e)
                for c in range(v.shape[1])
            ]
        )
    return np.array(rows)


def test_kv_cache_size_by_hand():
    # 2 · 40 layers · 8 KV heads · 128 · 32,768 tokens · 2 bytes = 5 · 2^30 bytes
    assert 2 * 40 * 8 * 128 * 32768 * 2 == 5 * GiB
    assert ch10.kv_cache_size.expected() == 5.0
    assert ch10.kv_cache_size.check(5).ok
    assert ch10.kv_cache_size.check(5 * GiB).diagnosis == "bytes-not-gib"
    assert ch10.kv_cache_size.check(5 * GiB / 1e9).diagnosis == "decimal-gigabytes"
    assert ch10.kv_cache_size.check(2.5).diagnosis == "keys-only"
    assert ch10.kv_cache_size.check(5 * 40 / 8).diagnosis == "query-heads-counted"
    assert ch10.kv_cache_size.check(5 / 40).diagnosis == "one-layer"


def test_decode_step_by_hand():
    # q = (0, 1) against chapter 4's keys and the new key (0, 1): scores 0, 1, 1, 1 over √2
    e = [1.0] + [math.exp(1 / math.sqrt(2))] * 3
    w = [x / sum(e) for x in e]
    values = [(2, 0), (0, 2), (1, 1), (2, 2)]  # chapter 4's values, then the new one
    out = [sum(wj * vj[c] for wj, vj in zip(w, values, strict=True)) for c in range(2)]
    np.testing.assert_allclose(ch10.decode_step.expected(), out, rtol=1e-12)
    assert ch10.decode_step.check([round(x, 3) for x in out]).ok
    assert ch10.decode_step.check([2, 0]).diagnosis == "top-left-causal"
    # without its own key: chapter 4's keys alone, scores 0, 1, 1 (chapter 10's head 1)
    e3 = [1.0] + [math.exp(1 / math.sqrt(2))] * 2
    own_missing = [
        sum(x * v[c] for x, v in zip(e3, values[:3], strict=True)) / sum(e3) for c in range(2)
    ]
    assert ch10.decode_step.check(own_missing).diagnosis == "own-key-missing"
    eu = [1.0] + [math.e] * 3  # unscaled
    unscaled = [sum(x * v[c] for x, v in zip(eu, values, strict=True)) / sum(eu) for c in range(2)]
    assert ch10.decode_step.check(unscaled).diagnosis == "unscaled"


def test_the_bug_reference_is_the_causal_pass_by_loops():
    for case in ch10.is_causal_decode.cases():
        q, k, v, _ = case.args
        want = each_item(_causal_loop, q, k, v, core=(2, 2, 2))
        rtol = 1e-5 if q.dtype == np.float32 else 1e-10  # float32 keeps about 7 digits
        np.testing.assert_allclose(ch10.is_causal_decode.reference(*case.args), want, rtol=rtol)
        np.testing.assert_allclose(solution(ch10.is_causal_decode)(*case.args), want, rtol=rtol)


def test_the_bug_gives_each_new_token_the_first_value():
    case = ch10.is_causal_decode.cases()[0]
    q, k, v, n_prompt = case.args
    buggy = ch10.generate_outputs(q, k, v, n_prompt)
    np.testing.assert_allclose(buggy[n_prompt:], np.repeat(v[:1], len(q) - n_prompt, axis=0))
    np.testing.assert_allclose(buggy[:n_prompt], _causal_loop(q, k, v)[:n_prompt])  # prefill right


def test_attending_before_appending_is_named():
    def before_append(queries, keys, values, n_prompt):  # each step misses its own key
        rows = list(_causal_loop(queries, keys, values)[:n_prompt])
        for t in range(n_prompt, len(queries)):
            s = keys[:t] @ queries[t] / math.sqrt(queries.shape[1])  # keys before t only
            w = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
            rows.append(w @ values[:t])
        return np.array(rows)

    feedback = ch10.is_causal_decode.check(
        lambda q, k, v, n_prompt: each_item(before_append, q, k, v, n_prompt, core=(2, 2, 2, None))
    )
    assert feedback.diagnosis == "own-key-missing"
    assert ch10.is_causal_decode.check(solution(ch10.is_causal_decode)).ok


def test_a_power_can_be_typed_with_a_caret_or_stars():
    for typed in ("n³", "n3", "n^3", "n**3", "N ^ 3"):
        assert ch10.no_cache_growth.check(typed).ok, typed
    assert ch10.no_cache_growth.check("n^2").diagnosis == "chose-n²"


def test_no_cache_growth_is_a_sum_of_squares():
    # without a cache, step t runs a causal pass over t tokens: about t² pairs, Σ t² ~ n³ / 3
    pairs = [sum(t * (t + 1) // 2 for t in range(1, n + 1)) for n in (1000, 2000)]
    assert 7.9 < pairs[1] / pairs[0] < 8.1  # doubling n: 2³
    assert ch10.no_cache_growth.check("n³").ok
    assert ch10.no_cache_growth.check("n²").diagnosis == "chose-n²"


def test_choose_kv_heads_by_hand():
    # one KV head: 2 · 8 sequences · 32 layers · 128 · 32,768 · 2 bytes = 2^32 = 4 GiB
    per_head = 2 * 8 * 32 * 128 * 32768 * 2
    assert per_head == 4 * GiB
    fits = [h for h in (1, 2, 4, 8, 16, 32) if h * per_head <= 40 * GiB]
    assert max(fits) == ch10.choose_kv_heads.expected() == 8
    assert ch10.choose_kv_heads.check(8).ok
    assert ch10.choose_kv_heads.check(10).diagnosis == "not-a-divisor"
    assert ch10.choose_kv_heads.check(4).diagnosis == "fits-not-largest"
    assert ch10.choose_kv_heads.check(32).diagnosis == "batch-forgotten"
    assert ch10.choose_kv_heads.check(16).diagnosis == "factor-2-forgotten"


def _fixed_loop(queries, keys, values, n_prompt):
    return ch10._decode_loop(queries, keys, values, n_prompt)


# The typed answers the tests give each exercise: a correct one and one wrong answer per
# diagnosis (the buggy function of a find-the-bug and a choice's wrong options are added by
# answer_inputs.mistakes).
ANSWERS = {
    "ch10-kv-cache-size": Answers(
        solution=5.0,
        mistakes=[
            Mistake("bytes", 5 * ch10.GIB, "bytes-not-gib"),
            Mistake("decimal GB", 5.369, "decimal-gigabytes"),
            Mistake("no factor 2", 2.5, "keys-only"),
            Mistake("query heads", 25.0, "query-heads-counted"),
            Mistake("one layer", 0.125, "one-layer"),
            Mistake("float32", 10.0, "float32-bytes"),
        ],
    ),
    "ch10-decode-step": Answers(
        solution=[1.141, 1.431],
        mistakes=[
            Mistake("without the own key", [0.797, 1.203], "own-key-missing"),
            Mistake("is_causal=True", [2.0, 0.0], "top-left-causal"),
            Mistake("no scale", [1.109, 1.485], "unscaled"),
        ],
    ),
    "bug-is-causal-decode": Answers(
        solution=_fixed_loop,
        mistakes=[
            Mistake("no mask anywhere", ch10._prefill_not_causal, "prefill-not-causal"),
            Mistake("attends before appending", ch10._attend_before_append, "own-key-missing"),
        ],
    ),
    "ch10-choose-kv-heads": Answers(
        solution=8,
        mistakes=[
            Mistake("one sequence", 32, "batch-forgotten"),
            Mistake("keys only", 16, "factor-2-forgotten"),
            Mistake("not a divisor", 10, "not-a-divisor"),
            Mistake("fits, but 32 heads do not split into 9 groups", 9, "not-a-divisor"),
            Mistake("MQA", 1, "fits-not-largest"),
        ],
    ),
}
