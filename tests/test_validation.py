"""Every bad input attn_core claims to catch raises, naming the argument and the shapes."""

from contextlib import contextmanager

import numpy as np
import pytest

import attn_core as ac
from attn_book.data import toy_embeddings

Q, K, V = np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2))


@contextmanager
def raises(exc, *fragments):
    """pytest.raises that also checks that every fragment appears in the message."""
    with pytest.raises(exc) as info:
        yield info
    missing = [f for f in fragments if f not in str(info.value)]
    assert not missing, f"message {str(info.value)!r} lacks {missing}"


def test_mismatched_embedding_size():
    with raises(ValueError, "query", "key", "(3, 4)", "(5, 3)"):
        ac.scaled_dot_product_attention(Q, np.ones((5, 3)), V)
    with raises(ValueError, "query", "key", "(4,)", "(5, 3)"):
        ac.dot_scores(np.ones(4), np.ones((5, 3)))


def test_key_and_value_disagree_on_positions():
    with raises(ValueError, "key", "value", "(5, 4)", "(6, 2)"):
        ac.scaled_dot_product_attention(Q, K, np.ones((6, 2)))


def test_batch_axes_that_do_not_broadcast():
    with raises(ValueError, "batch", "query (2, 3, 4)", "key (3, 5, 4)", "value (3, 5, 2)"):
        ac.scaled_dot_product_attention(np.ones((2, 3, 4)), np.ones((3, 5, 4)), np.ones((3, 5, 2)))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("which", ["query", "key", "value"])
def test_non_finite_inputs(which, bad):
    args = {"query": Q.copy(), "key": K.copy(), "value": V.copy()}
    args[which][1, 0] = bad
    with raises(ValueError, which, "finite", "[1, 0]", str(args[which].shape)):
        ac.scaled_dot_product_attention(**args)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_scores(bad):
    with raises(ValueError, "x", "finite", "(2,)"):
        ac.softmax([0.0, bad])
    with raises(ValueError, "x", "finite"):
        ac.logsumexp([0.0, bad])
    with raises(ValueError, "x", "finite"):
        ac.log_softmax([0.0, bad])


def test_integer_mask_is_a_type_error():
    with raises(TypeError, "attn_mask", "boolean", "int"):
        ac.attention_weights(Q, K, np.ones((3, 5), dtype=int))


@pytest.mark.parametrize("shape", [(3, 4), (2, 5), (4, 3, 5)])
def test_mask_that_does_not_broadcast(shape):
    with raises(ValueError, "attn_mask", str(shape), "(3, 5)"):
        ac.attention_weights(Q, K, np.ones(shape, dtype=bool))


def test_mask_may_not_add_axes_to_a_single_query():
    with raises(ValueError, "attn_mask", "(2, 5)", "(1, 5)"):
        ac.attention_weights(np.ones(4), K, np.ones((2, 5), dtype=bool))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_float_mask_rejects_nan_and_plus_inf(bad):
    mask = np.zeros((3, 5))
    mask[0, 1] = bad
    with raises(ValueError, "attn_mask", "finite", "(-inf is allowed)"):
        ac.attention_weights(Q, K, mask)


@pytest.mark.parametrize("t", [0, 0.0, -1.0, float("nan"), float("inf"), "1", None])
def test_bad_temperature(t):
    with raises(ValueError, "temperature", repr(t)):
        ac.softmax([1.0, 2.0], temperature=t)


@pytest.mark.parametrize("axis", [1, -2, 1.0, True, None, (0,)])
@pytest.mark.parametrize("f", [ac.softmax, ac.logsumexp, ac.log_softmax, ac.entropy])
def test_bad_axis(f, axis):
    with raises(ValueError, f"axis={axis!r}", "1 axes"):
        f([0.5, 0.5], axis=axis)


@pytest.mark.parametrize("scale", [float("nan"), float("inf"), "2", [1.0]])
def test_bad_scale(scale):
    with raises(ValueError, "scale", repr(scale)):
        ac.attention_weights(Q, K, scale=scale)


def test_zero_dimensional_query():
    with raises(ValueError, "query", "at least 1 axis", "()"):
        ac.attention_weights(1.0, K)


def test_one_dimensional_key_or_value():
    with raises(ValueError, "key", "at least 2 axes", "(4,)"):
        ac.attention_weights(Q, np.ones(4))
    with raises(ValueError, "value", "at least 2 axes", "(2,)"):
        ac.scaled_dot_product_attention(Q, K, np.ones(2))


@pytest.mark.parametrize(
    ("bad", "fragment"),
    [
        ([["a", "b"], ["c", "d"]], "real numbers"),
        (np.ones((2, 2), dtype=complex), "complex"),
        ([[1.0, 2.0], [3.0]], "array of numbers"),
        ([[1.0, None], [3.0, 4.0]], "object"),
    ],
)
@pytest.mark.parametrize("which", ["query", "key", "value"])
def test_strings_complex_ragged(which, bad, fragment):
    args = {"query": np.ones((2, 2)), "key": np.ones((2, 2)), "value": np.ones((2, 2))}
    args[which] = bad
    with raises(TypeError, which, fragment):
        ac.scaled_dot_product_attention(**args)


def test_softmax_rejects_strings_and_complex():
    with raises(TypeError, "x", "real numbers"):
        ac.softmax(["1", "2"])
    with raises(TypeError, "x", "complex"):
        ac.softmax([1j, 2.0])


@pytest.mark.parametrize("lengths", [[-1, 2], [2, 4], [1.5, 2.0], [True, False], "ab"])
def test_padding_mask_lengths_out_of_range(lengths):
    with raises(ValueError, "lengths", "between 0 and S=3", "shape"):
        ac.padding_mask(lengths, 3)


@pytest.mark.parametrize("S", [-1, 2.5, None, True])
def test_bad_sizes(S):
    with raises(ValueError, "S", "integer"):
        ac.padding_mask([1], S)
    if S is not None:  # causal_mask(L, None) means S = L
        with raises(ValueError, "S", "integer"):
            ac.causal_mask(2, S)


def test_causal_mask_bad_L():
    with raises(ValueError, "L", "integer >= 0", "-2"):
        ac.causal_mask(-2)


@pytest.mark.parametrize("n_heads", [4, 5, 0, 2.0])
def test_n_heads_must_divide_d(n_heads):
    with raises(ValueError, "n_heads", repr(n_heads)):
        ac.split_heads(np.ones((3, 6)), n_heads)


def test_split_heads_shape_in_message():
    with raises(ValueError, "n_heads=4", "(3, 6)"):
        ac.split_heads(np.ones((3, 6)), 4)
    with raises(ValueError, "(6,)"):
        ac.split_heads(np.ones(6), 2)
    with raises(ValueError, "x", "(..., H, T, d_head)", "(3, 2)"):
        ac.merge_heads(np.ones((3, 2)))


def test_multi_head_n_heads_not_dividing_d():
    x, w = np.ones((3, 6)), np.eye(6)
    with raises(ValueError, "n_heads=4", "(3, 6)"):
        ac.multi_head_attention(x, x, w, w, w, w, n_heads=4)


@pytest.mark.parametrize(
    ("which", "shape", "fragments"),
    [
        ("w_q", (5, 6), ["x_q", "w_q", "(3, 6)", "(5, 6)"]),
        ("w_k", (6,), ["x_kv", "w_k", "(6,)"]),
        ("w_v", (4, 6), ["x_kv", "w_v", "(4, 6)"]),
        ("w_o", (4, 6), ["w_o", "(3, 6)", "(4, 6)"]),
    ],
)
def test_multi_head_projection_shapes(which, shape, fragments):
    ws = {"w_q": np.eye(6), "w_k": np.eye(6), "w_v": np.eye(6), "w_o": np.eye(6)}
    ws[which] = np.ones(shape)
    x = np.ones((3, 6))
    with raises(ValueError, *fragments):
        ac.multi_head_attention(x, x, **ws, n_heads=2)


def test_simple_self_attention_bad_input(rng):
    layer = ac.SimpleSelfAttention(4, rng)
    with raises(ValueError, "embed_dim=4", "(2, 3, 5)"):
        layer(np.ones((2, 3, 5)))
    with raises(ValueError, "embed_dim=4", "(4,)"):
        layer(np.ones(4))
    with raises(ValueError, "embed_dim", "0"):
        ac.SimpleSelfAttention(0, rng)
    with raises(TypeError, "rng", "Generator"):
        ac.SimpleSelfAttention(4, 0)


def test_entropy_rejects_negative_weights():
    with raises(ValueError, "weights", "non-negative", "(2,)"):
        ac.entropy([1.5, -0.5])


def test_softmax_jacobian_rejects_a_scalar():
    with raises(ValueError, "weights", "at least 1 axis", "()"):
        ac.softmax_jacobian(0.5)


def test_is_causal_with_mask_names_both():
    with raises(ValueError, "attn_mask", "is_causal"):
        ac.attention_weights(Q, K, np.ones((3, 5), dtype=bool), is_causal=True)


@pytest.mark.parametrize("rng_arg", [None, 0, np.random.RandomState(0)])
def test_dropout_rng_must_be_a_generator(rng_arg):
    with raises(ValueError, "dropout_p=0.1", "rng"):
        ac.scaled_dot_product_attention(Q, K, V, dropout_p=0.1, rng=rng_arg)


@pytest.mark.parametrize("p", [-0.5, 1.0, float("nan"), "0.1", None])
def test_dropout_p_out_of_range(p, rng):
    with raises(ValueError, "dropout_p", repr(p)):
        ac.scaled_dot_product_attention(Q, K, V, dropout_p=p, rng=rng)


@pytest.mark.parametrize("tokens", ["the cat", ["the", 3], [b"cat"]])
def test_toy_embeddings_needs_a_sequence_of_strings(tokens):
    with raises(TypeError, "tokens", "sequence of strings", repr(tokens)):
        toy_embeddings(tokens, 4)


def test_toy_embeddings_bad_dim():
    with raises(ValueError, "dim", "integer >= 0", "-1"):
        toy_embeddings(["the"], -1)
