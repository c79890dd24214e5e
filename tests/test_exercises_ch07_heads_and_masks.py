"""The exercises of ch07_heads_and_masks: solutions and the wrong answers each diagnosis names."""

import math

import numpy as np
import pytest
from answer_inputs import Answers, Mistake, each_item, solution

import attn_core as ac
from attn_book.exercises import ch07_heads_and_masks as ch7


def _softmax_loop(row):
    """A plain-Python softmax over the finite entries of ``row``; -inf entries get 0."""
    exps = [math.exp(s) if s != -math.inf else 0.0 for s in row]
    return [e / sum(exps) for e in exps]


def _two_back_weights_by_loops(c):
    """The design's weights by hand: the query of position i scores c against key i - 2."""
    rows = []
    for i in range(5):
        s = [c / math.sqrt(10) if j == i - 2 else 0.0 for j in range(5)]
        rows.append(_softmax_loop(s))
    return np.array(rows)


def test_padding_by_hand_is_a_softmax_over_the_two_real_keys():
    # q = (1, 0); real keys (1, 0) and (0, 1): scores 1 and 0, scaled by 1/√2; the third is padding
    e = math.exp(1 / math.sqrt(2))
    expected = [e / (e + 1), 1 / (e + 1), 0.0]
    np.testing.assert_allclose(ch7.padding_by_hand.expected(), expected)
    assert ch7.padding_by_hand.check([0.670, 0.330, 0.0]).ok


def test_key_padding_weights_by_loops():
    q, k, kpm = ch7.key_padding_weights.cases()[1].args  # the batch
    for b in range(2):
        for i in range(3):
            row = [
                -math.inf
                if kpm[b, j]
                else sum(q[b, i, m] * k[b, j, m] for m in range(4)) / math.sqrt(4)
                for j in range(4)
            ]
            np.testing.assert_allclose(
                ch7.key_padding_weights.reference(q, k, kpm)[b, i], _softmax_loop(row)
            )


def test_the_heads_split_by_hand():
    # 3 positions × 4 features, 2 heads: head 0 holds features 0 and 1 of every position
    x = np.arange(12.0).reshape(3, 4)
    fixed = solution(ch7.heads_reshape)(x, 2)
    assert fixed[0].tolist() == [[0, 1], [4, 5], [8, 9]]
    assert fixed[1].tolist() == [[2, 3], [6, 7], [10, 11]]
    assert ch7.heads_reshape.buggy(x, 2)[0].tolist() == [[0, 1], [2, 3], [4, 5]]  # positions 0, 1


def test_heads_cost_for_gpt2_small_by_hand():
    # d_model = 768 in 12 heads of 64, L = S = 1024: 12 · 1024² scores
    scores = 12 * 1024 * 1024
    expected = [scores * 2 * 64 / 1e9, scores / 1e6, scores * 4 / 1e6]
    assert ch7.heads_cost.check(expected).ok
    np.testing.assert_allclose(ch7.heads_cost.expected(), expected)
    one_head = 1024 * 1024
    wrong = {
        "counted-one-head": [expected[0], one_head / 1e6, one_head * 4 / 1e6],
        "multiply-adds-not-flops": [expected[0] / 2, expected[1], expected[2]],
        "d-model-per-head": [scores * 2 * 768 / 1e9, expected[1], expected[2]],
        "mib-not-mb": [expected[0], expected[1], scores * 4 / 2**20],
        "float16-bytes": [expected[0], expected[1], scores * 2 / 1e6],
        "counted-weights-v": [2 * expected[0], expected[1], expected[2]],  # + weights·V
        "one-head-counts": [one_head * 2 * 64 / 1e9, one_head / 1e6, one_head * 4 / 1e6],
    }
    for diagnosis, answer in wrong.items():
        assert ch7.heads_cost.check(answer).diagnosis == diagnosis


def test_padding_by_hand_without_the_scale_is_named():
    # scores 1 and 0 not divided by √2: e / (e + 1) and 1 / (e + 1)
    e = math.e
    feedback = ch7.padding_by_hand.check([e / (e + 1), 1 / (e + 1), 0.0])
    assert feedback.diagnosis == "forgot-scale" and "√2" in feedback.message


def test_the_two_back_design_is_judged_by_its_weights():
    x = ch7.two_back_head.inputs[0]
    np.testing.assert_allclose(
        ch7._position_head_weights(8 * np.eye(5, k=-2), x), _two_back_weights_by_loops(8)
    )
    assert _two_back_weights_by_loops(8)[4, 2] == pytest.approx(0.758, abs=1e-3)
    # the threshold: e^(c/√10) / (e^(c/√10) + 4) >= 0.6 from c = √10 ln 6 on
    c_min = math.sqrt(10) * math.log(6)
    assert ch7.two_back_head.check(1.01 * c_min * np.eye(5, k=-2)).ok
    assert ch7.two_back_head.check(0.99 * c_min * np.eye(5, k=-2)).diagnosis == "too-soft"
    # any block that does it passes, not one solution: extra entries in rows 0 and 1
    other = 9 * np.eye(5, k=-2)
    other[0, 4] = other[1, 0] = 3.0
    assert ch7.two_back_head.check(other).ok
    assert ch7.two_back_head.check(8 * np.eye(5, k=-1)).diagnosis == "previous-token"
    assert ch7.two_back_head.check(8 * np.eye(5, k=2)).diagnosis == "looks-ahead"


def test_float16_holds_minus_1e4_so_a_fully_masked_row_is_uniform():
    # -1e4 fits in float16 (largest 65504): every masked score is -1e4 and e^0 = 1 each
    scores = np.zeros(4, dtype=np.float16)
    mask = np.zeros(4, dtype=bool)  # every key masked
    filled = np.where(mask, scores, -1e4).astype(np.float16)
    exps = np.exp(filled - filled.max())
    row = exps / exps.sum()
    assert filled.dtype == np.float16 and np.isfinite(filled).all()
    np.testing.assert_array_equal(row, np.full(4, 0.25, dtype=np.float16))
    assert ch7.float16_fill.check("uniform").ok
    assert ch7.float16_fill.check("NaN").diagnosis == "chose-NaN"
    with np.errstate(over="ignore"):
        assert np.float16(-1e9) == -np.inf  # the chapter's -1e9, by contrast


def _head_weights_scaled_by(divisor):
    """A reader's head_weights dividing each head's scores by ``divisor(d_head, h)``."""

    def head_weights(q, k, n_heads):
        qh, kh = ch7.ac.split_heads(q, n_heads), ch7.ac.split_heads(k, n_heads)
        scores = qh @ np.swapaxes(kh, -1, -2) / divisor(qh.shape[-1], n_heads)
        return ch7.ac.softmax(scores, axis=-1)

    return head_weights


def test_scaling_each_head_by_the_wrong_divisor_is_named():
    check = ch7.scale_d_model.check
    assert check(_head_weights_scaled_by(lambda d_head, h: d_head)).diagnosis == (
        "divided-by-d-head"
    )
    assert check(_head_weights_scaled_by(lambda d_head, h: math.sqrt(h))).diagnosis == (
        "divided-by-sqrt-h"
    )
    assert check(_head_weights_scaled_by(lambda d_head, h: math.sqrt(d_head))).ok


def test_a_minus_1e9_fill_is_caught_on_a_fully_padded_sentence():
    def fill_1e9(q, k, key_padding_mask):
        scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
        scores = np.where(key_padding_mask[..., None, :], -1e9, scores)
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    feedback = ch7.key_padding_weights.check(fill_1e9)
    assert feedback.diagnosis == "filled-minus-1e9", feedback
    assert "-inf" in feedback.message


def test_two_back_names_the_tokens_astray_from_position_0():
    # the text numbers positions 0 to 4 (row i of the block is position i's query)
    three_back = ch7.two_back_head.check(8 * np.eye(5, k=-3))
    assert three_back.diagnosis == "tokens-astray"
    assert "2 → 0, 1, 2, 3 and 4; 3 → 0; 4 → 1 (" in three_back.message  # 2 has none 3 back
    ties = ch7.two_back_head.check(8 * np.eye(5, k=-2) + 8 * np.eye(5, k=-1))
    assert ties.diagnosis == "tokens-astray"  # a larger c cannot break a tie: not too-soft
    assert "2 → 0 and 1; 3 → 1 and 2; 4 → 2 and 3 (" in ties.message
    no_third = 8 * np.eye(5, k=-2)
    no_third[2] = 0  # "from the third on" read from 1: position 2's row left empty
    assert ch7.two_back_head.check(no_third).diagnosis == "tokens-astray"
    soft = 8 * np.eye(5, k=-2)
    soft[2, 0] = 2
    assert "(the token at position 2)" in ch7.two_back_head.check(soft).message


def test_padding_by_hand_sign_slip_is_not_called_an_order():
    feedback = ch7.padding_by_hand.check([0.330, 0.670, 0.0])
    assert feedback.diagnosis == "score-sign-flipped" and "order" not in feedback.message


def _new_queries_by_loops(q, k, v, offset=None):
    """One item: query i scored against keys j <= i + S - L (or i + offset), softmax, values."""
    L, S = len(q), len(k)
    offset = S - L if offset is None else offset
    rows = []
    for i in range(L):
        seen = [j for j in range(S) if j <= i + offset]
        if not seen:
            rows.append([0.0] * v.shape[-1])
            continue
        s = [
            sum(a * b for a, b in zip(q[i], k[j], strict=True)) / math.sqrt(len(q[i])) for j in seen
        ]
        e = [math.exp(x - max(s)) for x in s]
        rows.append(
            [
                sum(w * v[j][c] for w, j in zip(e, seen, strict=True)) / sum(e)
                for c in range(v.shape[-1])
            ]
        )
    return np.array(rows)


def test_new_queries_see_keys_up_to_i_plus_s_minus_l():
    ex = ch7.new_queries_attention
    for case in ex.cases():
        q, k, v = (a.astype(float) for a in case.args)
        if np.abs(q).max() > 100:  # the spread cases: the loop's e^x is checked elsewhere
            continue
        want = each_item(_new_queries_by_loops, q, k, v, core=(2, 2, 2))
        np.testing.assert_allclose(ex.reference(q, k, v), want, rtol=1e-10, atol=1e-12)
    # 2 new queries of 5 positions: query 0 is position 3 and sees 4 keys, query 1 all 5
    q, k, v = np.zeros((2, 2)), np.zeros((5, 2)), np.eye(5)
    np.testing.assert_allclose(ex.reference(q, k, v), [[0.25] * 4 + [0.0], [0.2] * 5])


def test_new_queries_name_a_mask_only_when_every_case_has_it():
    ex = ch7.new_queries_attention

    def top_left_except_one_query(q, k, v):  # top-left, but no mask for a single query
        if q.shape[-2] == 1:
            return ac.scaled_dot_product_attention(q, k, v)
        return ac.scaled_dot_product_attention(q, k, v, is_causal=True)

    def one_key_too_many(q, k, v):
        return ch7._new_queries(q, k, v, shift=1)

    assert ex.check(top_left_except_one_query).diagnosis != "top-left-causal"
    assert ex.check(one_key_too_many).diagnosis not in {
        "top-left-causal",
        "no-mask",
        "own-key-hidden",
        "diagonal-moved-left",
    }


def _merge_by_loops(heads, w_o):
    """One item: token t's row is head 0's numbers, then head 1's, …; then times W_O."""
    h, L, d = heads.shape
    rows = [[heads[i, t, c] for i in range(h) for c in range(d)] for t in range(L)]
    return np.array(
        [[sum(r[f] * w_o[f, j] for f in range(h * d)) for j in range(w_o.shape[1])] for r in rows]
    )


def _merge_by_blocks(heads, w_o):
    """The same, as a sum over the heads of head i times W_O's row block i."""
    d = heads.shape[-1]
    return sum(heads[..., i, :, :] @ w_o[i * d : (i + 1) * d] for i in range(heads.shape[-3]))


def test_merge_heads_output_is_the_heads_in_order_times_w_o():
    ex = ch7.merge_heads_output
    for case in ex.cases():
        heads, w_o = (a.astype(float) for a in case.args)
        want = each_item(_merge_by_loops, heads, w_o, core=(3, None))
        np.testing.assert_allclose(ex.reference(heads, w_o), want, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(_merge_by_blocks(heads, w_o), want, rtol=1e-10, atol=1e-12)
    assert ex.check(_merge_by_blocks).ok
    # two heads of two, one token: features (a0, a1, b0, b1)
    heads = np.array([[[1.0, 2.0]], [[3.0, 4.0]]])
    assert ch7._merged_output(heads, np.eye(4)).tolist() == [[1, 2, 3, 4]]
    assert ch7._interleaved(heads, np.eye(4)).tolist() == [[1, 3, 2, 4]]
    assert ch7._reversed_heads(heads, np.eye(4)).tolist() == [[3, 4, 1, 2]]


def test_w_o_transposed_is_named_only_when_it_is_the_transpose():
    ex = ch7.merge_heads_output

    def transposed(heads, w_o):
        return _merge_by_blocks(heads, np.eye(len(w_o))) @ w_o.T

    assert ex.check(transposed).diagnosis == "w-o-transposed"

    def transposed_where_square(heads, w_o):  # W_O.T where square, the right answer elsewhere
        w = w_o.T if w_o.shape[0] == w_o.shape[1] else w_o
        return _merge_by_blocks(heads, np.eye(len(w))) @ w

    def raises_everywhere(heads, w_o):  # an error where W_O is square too
        return np.ones((2, 3)) @ np.ones((4, 5))

    for answer in (transposed_where_square, raises_everywhere):
        assert ex.check(answer).diagnosis != "w-o-transposed"


def _fixed_head_weights(q, k, n_heads):
    d_head = q.shape[-1] // n_heads
    qh, kh = ac.split_heads(q, n_heads), ac.split_heads(k, n_heads)
    return ac.softmax(qh @ np.swapaxes(kh, -1, -2) / math.sqrt(d_head), axis=-1)


def _fixed_split(x, n_heads):
    *batch, n, D = x.shape
    return np.swapaxes(x.reshape(*batch, n, n_heads, D // n_heads), -2, -3)


# The typed answers the tests give each exercise: a correct one and one wrong answer per
# diagnosis (the buggy function of a find-the-bug and a choice's wrong options are added by
# answer_inputs.mistakes).
ANSWERS = {
    "bug-scale-d-model": Answers(
        solution=_fixed_head_weights,
        mistakes=[
            Mistake(
                "no scale at all", lambda q, k, h: ch7._head_weights(q, k, h, 1.0), "forgot-scale"
            ),
            Mistake(
                "divided by d_head",
                lambda q, k, h: ch7._head_weights(q, k, h, h / q.shape[-1]),
                "divided-by-d-head",
            ),
            Mistake(
                "divided by √h",
                lambda q, k, h: ch7._head_weights(q, k, h, 1 / math.sqrt(h)),
                "divided-by-sqrt-h",
            ),
            Mistake(
                "softmax over the queries",
                lambda q, k, h: np.swapaxes(ch7._head_weights(q, k, h), -1, -2),
                "rows-not-normalised",
            ),
        ],
    ),
    "bug-heads-reshape": Answers(
        solution=_fixed_split,
        mistakes=[
            Mistake(
                "reshape to (n, h, d_head), no swap",
                lambda x, h: x.reshape(*x.shape[:-1], h, x.shape[-1] // h),
                "heads-not-swapped",
            )
        ],
    ),
    "ch7-padding-by-hand": Answers(
        solution=[0.670, 0.330, 0.0],
        mistakes=[
            Mistake(
                "the worked example's weights, padding included",
                [0.401, 0.198, 0.401],
                "padding-attended",
            ),
            Mistake("first key hidden", [0.0, 0.330, 0.670], "wrong-end-masked"),
            Mistake(
                "zeroed, not renormalised", [0.401, 0.198, 0.0], "padding-zeroed-not-renormalised"
            ),
            Mistake(
                "masked, but the scores not divided by √2", [0.731, 0.269, 0.0], "forgot-scale"
            ),
            Mistake("e^(−0.707)", [0.330, 0.670, 0.0], "score-sign-flipped"),
        ],
    ),
    "ch7-key-padding-weights": Answers(
        solution=ch7._weights_from_key_padding_mask,
        mistakes=[
            Mistake("the mask passed as it is", ch7._not_flipped, "convention-not-flipped"),
            Mistake("a -1e9 fill", ch7._filled_minus_1e9, "filled-minus-1e9"),
            Mistake("no mask", lambda q, k, m: ac.attention_weights(q, k), "mask-not-applied"),
            Mistake("-1e9 added", ch7._filled_minus_1e9_added, "filled-minus-1e9"),
            Mistake("~mask added as 1/0", ch7._mask_added(1, True), "mask-added-as-numbers"),
            Mistake("max over padding", ch7._max_over_padding, "max-over-padding"),
            Mistake(
                "padding filled with 0",
                lambda q, k, m: ac.softmax(
                    np.where(np.asarray(m)[..., None, :], 0.0, ac.dot_scores(q, k) / 2.0)
                ),
                "hidden-key-weighted",
            ),
            Mistake(
                "softmax over the queries",
                lambda q, k, m: ac.softmax(
                    np.where(~np.asarray(m)[..., None, :], ac.dot_scores(q, k) / 2.0, -np.inf), -2
                ),
                "rows-not-normalised",
            ),
        ],
    ),
    "ch7-new-queries-attention": Answers(
        solution=ch7._new_queries,
        mistakes=[
            Mistake(
                "is_causal=True",
                lambda q, k, v: ac.scaled_dot_product_attention(q, k, v, is_causal=True),
                "top-left-causal",
            ),
            Mistake(
                "the top-left mask by hand",
                lambda q, k, v: ac.scaled_dot_product_attention(
                    q, k, v, attn_mask=np.tril(np.ones((q.shape[-2], k.shape[-2]), dtype=bool))
                ),
                "top-left-causal",
            ),
            Mistake("no mask", lambda q, k, v: ac.scaled_dot_product_attention(q, k, v), "no-mask"),
            Mistake(
                "j < i + S - L",
                lambda q, k, v: ch7._new_queries(q, k, v, shift=-1),
                "own-key-hidden",
            ),
            Mistake(
                "k = L - S",
                lambda q, k, v: ac.scaled_dot_product_attention(
                    q,
                    k,
                    v,
                    attn_mask=np.tril(
                        np.ones((q.shape[-2], k.shape[-2]), dtype=bool), k=q.shape[-2] - k.shape[-2]
                    ),
                ),
                "diagonal-moved-left",
            ),
        ],
    ),
    "ch7-merge-heads-output": Answers(
        solution=_merge_by_blocks,
        mistakes=[
            Mistake("a reshape with no swap", ch7._not_swapped, "heads-not-swapped"),
            Mistake("the heads last first", ch7._reversed_heads, "heads-reversed"),
            Mistake("the heads axis moved last", ch7._interleaved, "features-interleaved"),
            Mistake(
                "W_O transposed",
                lambda heads, w_o: ac.merge_heads(heads) @ np.asarray(w_o).T,
                "w-o-transposed",
            ),
        ],
    ),
    "ch7-heads-cost": Answers(
        solution=[1.611, 12.583, 50.332],
        mistakes=[
            Mistake(
                "exponentials and scores of one head", [1.611, 1.049, 4.194], "counted-one-head"
            ),
            Mistake("multiply-adds", [0.805, 12.583, 50.332], "multiply-adds-not-flops"),
            Mistake("d_model per head", [19.327, 12.583, 50.332], "d-model-per-head"),
            Mistake("MiB", [1.611, 12.583, 48.0], "mib-not-mb"),
            Mistake("float16 scores", [1.611, 12.583, 25.166], "float16-bytes"),
            Mistake("QKᵀ and weights·V", [3.221, 12.583, 50.332], "counted-weights-v"),
            Mistake("one head of 64", [0.134, 1.049, 4.194], "one-head-counts"),
        ],
    ),
    "ch7-design-two-back": Answers(
        solution=8 * np.eye(5, k=-2),
        mistakes=[
            Mistake("a zero block", np.zeros((5, 5)), "uniform"),
            Mistake("the chapter's shift", 8 * np.eye(5, k=-1), "previous-token"),
            Mistake("the identity", 8 * np.eye(5), "itself"),
            Mistake("the shift the other way", 8 * np.eye(5, k=2), "looks-ahead"),
            Mistake("the right shift, softly", np.eye(5, k=-2), "too-soft"),
            Mistake("every earlier token", np.tril(8 * np.ones((5, 5)), k=-2), "tokens-astray"),
            Mistake("four by four", np.eye(4), "wrong-count"),
        ],
    ),
}
