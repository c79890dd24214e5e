"""A hand-built two-head example: one head attends by position, the other by content.

Chapter 7's sentence "the cat saw the dog" gets one-hot embeddings: features
0-4 say *where* a token is (its position), features 5-9 *what* it is (its word;
feature 9 is a spare, always 0). The projections are chosen so that the
difference between the two heads is a fact, not a fitted pattern:

- head 1 (index 0) reads only the position features, and its query of
  position i is ``strength`` (8) times the key of position i - 1: it looks at
  the previous token (the first token, with none before it, looks at itself);
- head 2 (index 1) reads only the word features, and its query is
  ``strength`` times its own key: it looks at the tokens with the same word,
  wherever they are.

With the default strength a matching pair scores 8, scaled by 1/sqrt(5) to
3.58; e^3.58 = 35.8 against e^0 = 1 for the four other keys gives the match
35.8 / (35.8 + 4) = 0.899.

Shape legend: T = 5 positions, D = 10 features, H = 2 heads of d_head = 5.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["TWO_HEAD_SENTENCE", "TwoHeadExample", "two_head_example"]

TWO_HEAD_SENTENCE = ("the", "cat", "saw", "the", "dog")


class TwoHeadExample(NamedTuple):
    """Tokens (T,), embeddings x (T, D), projections w_q, w_k, w_v, w_o (D, D), n_heads."""

    tokens: tuple
    x: np.ndarray
    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    w_o: np.ndarray
    n_heads: int


def two_head_example(strength=8.0):
    """The two-head example: x one-hot (position | word), heads by position, by word.

    Parameters
    ----------
    strength : float, default 8.0
        A matching query-key pair scores ``strength`` (before the 1/sqrt(d_head)
        scale); every other pair scores 0.

    Returns
    -------
    TwoHeadExample
        ``x`` (5, 10); ``w_q`` maps position i to the slot of position i - 1 (head
        1, index 0, columns 0-4) and word w to the slot of w (head 2, index 1,
        columns 5-9), times ``strength``; ``w_k``, ``w_v`` and ``w_o`` are the
        identity.

    Examples
    --------
    >>> ex = two_head_example()
    >>> q, k = ex.x @ ex.w_q, ex.x @ ex.w_k  # [T, D] @ [D, D] -> [T, D]
    >>> (q[:, :5] @ k[:, :5].T / 8).astype(int)[2]  # head 1: "saw" matches position 1
    array([0, 1, 0, 0, 0])
    >>> (q[:, 5:] @ k[:, 5:].T / 8).astype(int)[0]  # head 2: "the" matches both "the"
    array([1, 0, 0, 1, 0])
    """
    T = len(TWO_HEAD_SENTENCE)
    vocabulary = sorted(set(TWO_HEAD_SENTENCE), key=TWO_HEAD_SENTENCE.index)  # the, cat, saw, dog
    words = [vocabulary.index(t) for t in TWO_HEAD_SENTENCE]
    x = np.zeros((T, 2 * T))  # [T, D]: position one-hot | word one-hot (+ a spare)
    x[np.arange(T), np.arange(T)] = 1.0
    x[np.arange(T), T + np.array(words)] = 1.0
    previous = np.eye(T)[np.maximum(np.arange(T) - 1, 0)]  # row i: one-hot of position i - 1
    w_q = strength * np.block([[previous, np.zeros((T, T))], [np.zeros((T, T)), np.eye(T)]])
    eye = np.eye(2 * T)
    return TwoHeadExample(TWO_HEAD_SENTENCE, x, w_q, eye, eye.copy(), eye.copy(), 2)
