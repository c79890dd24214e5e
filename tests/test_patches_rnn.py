"""attn_core.image_patches and attn_core.simple_rnn against hand-written values and plain loops."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import attn_core as ac


def test_patches_of_a_4x4_image_by_hand():
    image = np.arange(16).reshape(4, 4)  # rows 0-3, 4-7, 8-11, 12-15
    expected = [[0, 1, 4, 5], [2, 3, 6, 7], [8, 9, 12, 13], [10, 11, 14, 15]]
    np.testing.assert_array_equal(ac.image_patches(image, 2), expected)


def test_patches_match_a_plain_loop_over_the_grid():
    image = np.random.default_rng(0).normal(size=(6, 9))
    expected = [
        [image[r * 3 + i, c * 3 + j] for i in range(3) for j in range(3)]
        for r in range(2)
        for c in range(3)
    ]
    np.testing.assert_array_equal(ac.image_patches(image, 3), expected)


def test_a_patch_of_the_whole_image_is_one_token():
    image = np.ones((2, 2))
    assert ac.image_patches(image, 2).shape == (1, 4)


@pytest.mark.parametrize(("shape", "size"), [((5, 4), 2), ((4,), 2), ((2, 3, 4), 2)])
def test_patches_refuse_a_shape_that_does_not_cut_evenly(shape, size):
    with pytest.raises(ValueError, match=r"patch_size = 2.*" + re.escape(str(shape))):
        ac.image_patches(np.zeros(shape), size)


def test_patches_refuse_a_size_of_zero():
    with pytest.raises(ValueError, match="patch_size"):
        ac.image_patches(np.zeros((4, 4)), 0)


def test_rnn_two_steps_by_hand():
    # h0 = tanh(1 * 0.5) ; h1 = tanh(2 * 0.5 + h0 * (-1))
    h0 = math.tanh(0.5)
    h1 = math.tanh(1.0 - h0)
    states = ac.simple_rnn([[1.0], [2.0]], [[0.5]], [[-1.0]])
    np.testing.assert_allclose(states[:, 0], [h0, h1])


def test_rnn_state_depends_only_on_the_past():
    r = np.random.default_rng(1)
    x, w_x, w_h = r.normal(size=(6, 3)), r.normal(size=(3, 4)), r.normal(size=(4, 4)) / 2
    changed = x.copy()
    changed[4:] += 1.0  # the future changes
    np.testing.assert_array_equal(
        ac.simple_rnn(x, w_x, w_h)[:4], ac.simple_rnn(changed, w_x, w_h)[:4]
    )


def test_rnn_refuses_mismatched_shapes_naming_them():
    with pytest.raises(ValueError, match=r"x has shape \(3, 2\), w_x has shape \(3, 4\)"):
        ac.simple_rnn(np.zeros((3, 2)), np.zeros((3, 4)), np.zeros((4, 4)))
    with pytest.raises(ValueError, match=r"w_h must be \(H, H\) = \(4, 4\), got shape \(3, 3\)"):
        ac.simple_rnn(np.zeros((3, 2)), np.zeros((2, 4)), np.zeros((3, 3)))


def test_attention_reaches_far_words_where_an_untrained_rnn_fades():
    """Chapter 5's aside: nudge one of 50 words; the last output's change per unit of nudge."""
    rng = np.random.default_rng(0)
    n, d = 50, 8
    x = rng.normal(size=(n, d))
    layer = ac.SimpleSelfAttention(d, rng)
    w_x, w_h = rng.normal(size=(2, d, d)) / np.sqrt(d)
    eps = 1e-4

    def moved(distance):
        nudged = x.copy()
        nudged[n - 1 - distance] += eps
        attention = np.abs(layer(nudged[None])[0][0, -1] - layer(x[None])[0][0, -1]).max()
        rnn = np.abs(ac.simple_rnn(nudged, w_x, w_h)[-1] - ac.simple_rnn(x, w_x, w_h)[-1]).max()
        return attention / eps, rnn / eps

    (attention_near, rnn_near), (attention_far, rnn_far) = moved(1), moved(30)
    assert 0.5 < attention_far / attention_near < 2  # flat with the distance
    assert rnn_far / rnn_near < 1e-3  # orders of magnitude smaller
