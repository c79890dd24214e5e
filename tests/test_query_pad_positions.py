"""QueryPad with positions (RoPE in the plane, Chapter 6): the weights follow the turn.

Expected values by hand: with θ = 1 radian, q = (1, 0) at m = 1 and the keys (1, 0), (0, 1),
(1, 1) at n = 0, 1, 2 score q·R((n − m)θ)k = cos 1, 0, cos 1 − sin 1.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_book.widgets import QueryPad, snapshot
from attn_book.widgets.query_pad import MAX_POSITION


def _softmax(scores):
    e = [math.exp(s / math.sqrt(2)) for s in scores]
    return [v / sum(e) for v in e]


def test_positions_turn_the_query_and_keys_before_the_scores():
    pad = QueryPad(query_position=1, key_positions=[0, 1, 2])
    c, s = math.cos(1), math.sin(1)
    assert pad.dots == pytest.approx([c, 0, c - s], abs=1e-12)
    assert pad.weights == pytest.approx(_softmax([c, 0, c - s]), abs=1e-12)
    assert pad.turned_query == pytest.approx([c, s])
    c2, s2 = math.cos(2), math.sin(2)  # k3 at n = 2 turns by two radians
    np.testing.assert_allclose(pad.turned_keys, [[1, 0], [-s, c], [c2 - s2, s2 + c2]], atol=1e-12)
    assert pad.query == [1.0, 0.0]  # the vector itself is unchanged


def test_moving_every_position_by_the_same_amount_keeps_the_weights():
    pad = QueryPad(query_position=2, key_positions=[0, 3, 5])
    before = pad.weights
    for shift in (1, 4, MAX_POSITION - 5):
        with pad.hold_trait_notifications():
            pad.query_position, pad.key_positions = 2 + shift, [shift, 3 + shift, 5 + shift]
        assert pad.weights == pytest.approx(before, abs=1e-12)
    pad.query_position = 0  # a real change of m - n changes the weights
    assert pad.weights != pytest.approx(before, abs=1e-3)


def test_no_positions_is_the_plain_pad():
    plain, zero = QueryPad(), QueryPad(key_positions=[0, 0, 0])
    assert plain.turned_query == plain.query and plain.turned_keys == plain.key_vectors
    assert zero.weights == pytest.approx(plain.weights, abs=1e-15)
    assert [round(w, 3) for w in plain.weights] == [0.401, 0.198, 0.401]


@pytest.mark.parametrize(
    ("kwargs", "exc", "words"),
    [
        ({"key_positions": [0, 1]}, ValueError, ["key_positions", "3 keys", "2 positions"]),
        ({"key_positions": [0, -1, 2]}, ValueError, ["key_positions[1]", "0..12"]),
        ({"key_positions": [0, 1, 13]}, ValueError, ["key_positions[2]"]),
        ({"key_positions": [0, 1.5, 2]}, TypeError, ["key_positions[1]", "integer"]),
        ({"key_positions": "012"}, TypeError, ["key_positions"]),
        ({"key_positions": [0, 1, 2], "query_position": -1}, ValueError, ["query_position"]),
        ({"query_position": True}, TypeError, ["query_position"]),
    ],
)
def test_bad_positions_are_refused_naming_the_trait(kwargs, exc, words):
    with pytest.raises(exc) as info:
        QueryPad(**kwargs)
    assert all(w in str(info.value) for w in words), str(info.value)


def test_a_refused_position_rolls_back():
    pad = QueryPad(key_positions=[0, 1, 2])
    with pytest.raises(ValueError, match="one position per key"):
        pad.key_positions = [0, 1]
    assert pad.key_positions == [0, 1, 2] and len(pad.weights) == 3


def test_turned_vectors_are_a_picture_of_their_own():
    # the snapshot is named by the figure's state: positions that turn the vectors are a new one
    turned = snapshot.snapshot_key(QueryPad(query_position=1, key_positions=[0, 1, 2]).get_state())
    assert turned != snapshot.snapshot_key(QueryPad().get_state())
