"""The worked example by hand: attn_core's scores, weights and output against pencil and paper
(loops, math.exp and the Quanta write-up's printed numbers); the sentence data; the trace."""

import math
from typing import NamedTuple

import numpy as np
import pytest

import attn_core as ac
from attn_book.data import sentence_example
from attn_book.tables import step_table
from attn_core import trace_self_attention


class Steps(NamedTuple):
    scores: np.ndarray
    scale: float
    scaled: np.ndarray
    exps: np.ndarray
    total: np.ndarray
    weights: np.ndarray
    output: np.ndarray


def hand_steps(query, keys, values, scale=None):
    """What a pencil writes down: attn_core's scores, weights and output, exps as by hand."""
    factor = 1 / math.sqrt(np.shape(query)[-1]) if scale is None else scale
    scores = ac.dot_scores(query, keys)
    exps = np.exp(scores * factor)
    weights = ac.attention_weights(query, keys, scale=factor)
    output = ac.scaled_dot_product_attention(query, keys, values, scale=factor)
    return Steps(scores, factor, scores * factor, exps, exps.sum(axis=-1), weights, output)


Q = (1.0, 0.0)
KEYS = ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0))
VALUES = ((2.0, 0.0), (0.0, 2.0), (1.0, 1.0))


def loop_attention(query, keys, values, scale):
    """Attention for one query with Python loops and math.exp: the textbook definition."""
    scores = [sum(qm * km for qm, km in zip(query, k, strict=True)) * scale for k in keys]
    exps = [math.exp(s) for s in scores]
    weights = [e / sum(exps) for e in exps]
    out = [
        sum(w * v[m] for w, v in zip(weights, values, strict=True)) for m in range(len(values[0]))
    ]
    return scores, exps, weights, out


def test_quanta_example_matches_the_seed_articles_numbers():
    steps = hand_steps(Q, KEYS, VALUES)
    np.testing.assert_array_equal(steps.scores, [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(steps.scaled.round(3), [0.707, 0.0, 0.707])
    np.testing.assert_array_equal(steps.exps.round(3), [2.028, 1.0, 2.028])
    assert round(float(steps.total), 3) == 5.056
    np.testing.assert_array_equal(steps.weights.round(3), [0.401, 0.198, 0.401])
    np.testing.assert_array_equal(steps.output.round(3), [1.203, 0.797])


def test_quanta_example_matches_closed_forms():
    e = math.exp(1 / math.sqrt(2))  # q·k1 = q·k3 = 1, q·k2 = 0
    steps = hand_steps(Q, KEYS, VALUES)
    assert steps.scale == pytest.approx(1 / math.sqrt(2))
    assert float(steps.total) == pytest.approx(2 * e + 1)
    np.testing.assert_allclose(steps.weights, [e / (2 * e + 1), 1 / (2 * e + 1), e / (2 * e + 1)])
    # o = w1 (2,0) + w2 (0,2) + w3 (1,1) = (3 e, e + 2) / (2 e + 1)
    np.testing.assert_allclose(steps.output, [3 * e / (2 * e + 1), (e + 2) / (2 * e + 1)])


def test_unscaled_example_matches_the_write_up_and_a_loop():
    steps = hand_steps(Q, KEYS, VALUES, scale=1.0)
    np.testing.assert_array_equal(steps.weights.round(3), [0.422, 0.155, 0.422])
    scores, exps, weights, out = loop_attention(Q, KEYS, VALUES, 1.0)
    np.testing.assert_allclose(steps.scaled, scores)
    np.testing.assert_allclose(steps.exps, exps)
    np.testing.assert_allclose(steps.weights, weights)
    np.testing.assert_allclose(steps.output, out)


def test_exponentials_over_their_sum_are_the_weights():
    rng = np.random.default_rng(4)
    q, k, v = rng.normal(size=(2, 5, 3)), rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 4, 6))
    steps = hand_steps(q, k, v)
    assert steps.scores.shape == steps.exps.shape == steps.weights.shape == (2, 5, 4)
    assert steps.total.shape == (2, 5)
    assert steps.output.shape == (2, 5, 6)
    np.testing.assert_allclose(steps.exps / steps.total[..., None], steps.weights)
    for b in range(2):
        for i in range(5):
            *_, weights, out = loop_attention(q[b, i], k[b], v[b], 1 / math.sqrt(3))
            np.testing.assert_allclose(steps.weights[b, i], weights)
            np.testing.assert_allclose(steps.output[b, i], out)


def test_quanta_values_are_collinear_so_the_output_lies_on_their_segment():
    # (2,0), (0,2), (1,1) all have x + y = 2: the "triangle" is the segment v2-v1.
    steps = hand_steps(Q, KEYS, VALUES)
    assert float(steps.output.sum()) == pytest.approx(2.0)
    assert 0.0 < steps.output[0] < 2.0


def test_weights_are_the_barycentric_coordinates_of_the_output():
    values = ((2.0, 0.0), (0.0, 2.0), (2.0, 2.0))  # a true triangle
    steps = hand_steps(Q, KEYS, values)
    # Solve o = sum_j c_j v_j with sum_j c_j = 1 for c: three equations, three unknowns.
    system = np.vstack([np.array(values).T, np.ones(3)])  # (3, 3)
    coords = np.linalg.solve(system, np.append(steps.output, 1.0))
    np.testing.assert_allclose(coords, steps.weights)
    assert (coords > 0).all()  # strictly inside the triangle


def test_sentence_example_row_one_is_the_quanta_example():
    ex = sentence_example()
    assert ex.query.shape == ex.keys.shape == ex.values.shape == (3, 2)
    out = ac.scaled_dot_product_attention(ex.query, ex.keys, ex.values)
    *_, seed_out = loop_attention(Q, KEYS, VALUES, 1 / math.sqrt(2))
    np.testing.assert_allclose(out[1], seed_out)  # 사과를, the seed's case
    for i in range(3):
        *_, row = loop_attention(ex.query[i], ex.keys, ex.values, 1 / math.sqrt(2))
        np.testing.assert_allclose(out[i], row)


def test_sentence_example_returns_fresh_arrays():
    sentence_example().query[1, 0] = 99.0
    assert sentence_example().query[1, 0] == 1.0


def test_trace_matches_the_layer_and_the_definition():
    layer = ac.SimpleSelfAttention(4, np.random.default_rng(7))
    x = np.random.default_rng(8).normal(size=(2, 3, 4))
    trace = trace_self_attention(layer, x)
    output, attention = layer(x)
    np.testing.assert_array_equal(trace["output"], output)
    np.testing.assert_array_equal(trace["attention"], attention)
    assert trace["q"].shape == trace["k"].shape == trace["v"].shape == (2, 3, 4)
    w_q, b_q = layer.query
    for b in range(2):
        for t in range(3):
            q_bt = [sum(x[b, t, i] * w_q[i, j] for i in range(4)) + b_q[j] for j in range(4)]
            np.testing.assert_allclose(trace["q"][b, t], q_bt)
            scores = [float(np.dot(trace["q"][b, t], trace["k"][b, s])) for s in range(3)]
            np.testing.assert_allclose(trace["scores"][b, t], scores)
            *_, weights, out = loop_attention(trace["q"][b, t], trace["k"][b], trace["v"][b], 0.5)
            np.testing.assert_allclose(attention[b, t], weights)
            np.testing.assert_allclose(output[b, t], out)


def test_trace_rejects_the_wrong_embedding_size():
    layer = ac.SimpleSelfAttention(4, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"embed_dim=4.*\(1, 3, 5\)"):
        trace_self_attention(layer, np.ones((1, 3, 5)))


def test_step_table_rounds_labels_and_adds_a_footer():
    table = step_table(
        {"s": [0.70710678, 0.0], "note": ["same", "orthogonal"]},
        index=["k1", "k2"],
        footer=("sum", {"s": 0.70710678}),
    )
    assert repr(table).splitlines() == [
        "|  | s | note |",
        "|---|---:|---|",  # words left-aligned, numbers right
        "| k1 | 0.707 | same |",
        "| k2 | 0.000 | orthogonal |",
        "| sum | 0.707 |  |",
    ]
    assert step_table({"x": [2.0]}, digits=1).rows == (("2.0",),)


def test_step_table_html_has_every_cell_escaped():
    html = step_table({"a<b": [1.0]}, index=["x & y"])._repr_html_()
    assert html.count("<tr>") == 2  # header and one row
    assert ">a&lt;b</th>" in html and ">x &amp; y</td>" in html and ">1.000</td>" in html


def test_step_table_without_index_gets_a_label_column_for_its_footer():
    table = step_table({"w": [0.25, 0.75]}, footer=("sum", {"w": 1.0}))
    assert table.header == ("", "w")
    assert table.rows == (("", "0.250"), ("", "0.750"), ("sum", "1.000"))


def test_step_table_rejects_ragged_columns_and_unknown_footer_columns():
    with pytest.raises(ValueError, match=r"columns must all have 2 rows.*'b': 1"):
        step_table({"a": [1, 2], "b": [3]})
    with pytest.raises(ValueError, match=r"footer names unknown columns: \['z'\]"):
        step_table({"a": [1]}, footer=("sum", {"z": 1}))


def test_plot_convex_combination_draws_each_output_where_given():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from attn_book.plots import plot_convex_combination

    steps = hand_steps(Q, KEYS, VALUES)
    panels = [
        {"values": VALUES, "outputs": {"o": steps.output}},
        {"values": VALUES, "outputs": {"a": (0.5, 0.5), "b": (1.0, 2.0)}, "path": [[0, 0], [1, 1]]},
    ]
    fig = plot_convex_combination(panels)
    try:
        assert len(fig.axes) == 2
        for ax, panel in zip(fig.axes, panels, strict=True):
            points = [tuple(c.get_offsets()[0]) for c in ax.collections[1:]]  # after the values
            assert points == [tuple(map(float, p)) for p in panel["outputs"].values()]
            labels = ax.get_legend_handles_labels()[1]
            assert len(labels) == len(panel["outputs"]) + ("path" in panel)
    finally:
        plt.close(fig)
