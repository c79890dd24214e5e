"""The data of the book's examples, defined once so that prose, figures and tests agree.

The worked example is the seed article's: d_k = 2, one query, three keys and
values. Functions return fresh arrays, so a reader who edits one cannot change
another chapter's numbers.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .validation import check_positive_int, check_size

__all__ = [
    "FEATURES",
    "GENERATED_KO",
    "SENTENCE_EN",
    "SENTENCE_KO",
    "Projections",
    "WorkedExample",
    "feature_vectors",
    "seed_example",
    "sentence_projections",
    "toy_embeddings",
]

SENTENCE_KO = ("나는", "사과를", "먹었다")  # the seed's example sentence, "I ate an apple"
GENERATED_KO = ("그리고", "배를", "샀다")  # chapter 10 writes them after it: "and bought a pear"
FEATURES = ("noun", "verb", "-는 (subject)", "-를 (object)")  # chapter 5's word features
_FEATURES_OF = {  # each token's four features, 0 or 1, in the order of FEATURES
    "나는": (1, 0, 1, 0),  # a noun with the subject marker
    "사과를": (1, 0, 0, 1),  # a noun with the object marker
    "먹었다": (0, 1, 0, 0),  # a verb
    "그리고": (0, 0, 0, 0),  # "and": none of the four
    "배를": (1, 0, 0, 1),  # a noun with the object marker
    "샀다": (0, 1, 0, 0),  # a verb
}
SENTENCE_EN = ("the", "cat", "sat", "on", "the", "mat", "because", "it", "was", "warm")


class WorkedExample(NamedTuple):
    """query (E,), keys (S, E), values (S, Ev) of a hand-sized example."""

    query: np.ndarray
    keys: np.ndarray
    values: np.ndarray


def seed_example():
    """The seed's example: q = (1, 0); keys (1,0), (0,1), (1,1); values (2,0), (0,2), (1,1).

    Examples
    --------
    >>> ex = seed_example()
    >>> ex.query.shape, ex.keys.shape, ex.values.shape
    ((2,), (3, 2), (3, 2))
    """
    return WorkedExample(
        query=np.array([1.0, 0.0]),
        keys=np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
        values=np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]),
    )


class Projections(NamedTuple):
    """W_Q, W_K (d_model, d_k) and W_V (d_model, d_v) of a hand-made attention head."""

    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray


def feature_vectors(tokens):
    """The rows X (T, 4) of chapter 5's word features for ``tokens``, as floats.

    Parameters
    ----------
    tokens : sequence of str
        Words of :data:`SENTENCE_KO` and :data:`GENERATED_KO`.

    Examples
    --------
    >>> feature_vectors(["사과를", "먹었다"])  # noun + object marker; verb
    array([[1., 0., 0., 1.],
           [0., 1., 0., 0.]])
    """
    unknown = [t for t in tokens if t not in _FEATURES_OF] if not isinstance(tokens, str) else None
    if unknown is None or unknown:
        raise ValueError(
            f"tokens must be a sequence of the words {list(_FEATURES_OF)}, got {tokens!r}"
        )
    return np.array([_FEATURES_OF[t] for t in tokens], dtype=float).reshape(len(tokens), 4)


def sentence_projections():
    """Chapter 5's W_Q, W_K and W_V (4, 3): each row gives a feature its role.

    The key space's three columns are roles a word can offer: *action*, *actor*
    and *patient*. W_K offers the action for a verb, the actor for -는, the patient
    for -를; W_Q (doubled, so that the questions are loud) asks for the patient
    from a verb, the action from -는, the action and the actor from -를; W_V hands
    over "did", "who" and "what".

    Examples
    --------
    >>> W_Q, W_K, W_V = sentence_projections()
    >>> feature_vectors(["사과를"]) @ W_Q  # -를 asks for the action and the actor
    array([[2., 2., 0.]])
    """
    W_K = np.array(
        [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=float
    )  # noun, verb, -는, -를
    W_Q = 2 * np.array([[0, 0, 0], [0, 0, 1], [1, 0, 0], [1, 1, 0]], dtype=float)
    W_V = np.array([[0, 0, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]], dtype=float)
    return Projections(W_Q=W_Q, W_K=W_K, W_V=W_V)


def toy_embeddings(tokens, dim, seed=0):
    """Deterministic random vectors (T, dim) for ``tokens``; equal tokens get equal vectors.

    Parameters
    ----------
    tokens : sequence of str, length T
    dim : int
    seed : int
        Combined with each token's text, so a token's vector does not depend on
        its neighbours.

    Examples
    --------
    >>> x = toy_embeddings(["the", "cat", "the"], 4)
    >>> x.shape, bool((x[0] == x[2]).all())
    ((3, 4), True)
    """
    given, tokens = tokens, [] if isinstance(tokens, str) else list(tokens)
    if isinstance(given, str) or not all(isinstance(t, str) for t in tokens):  # not its letters
        raise TypeError(f"tokens must be a sequence of strings like ['the', 'cat'], got {given!r}")
    dim = check_positive_int(dim, "dim", minimum=0)
    seed = check_positive_int(seed, "seed", minimum=0)
    because = f"{len(tokens)} tokens and dim = {dim}"
    check_size((len(tokens), dim), np.float64, "the embeddings (T, dim)", because)
    rows = []
    for token in tokens:
        entropy = [seed, *token.encode("utf-8")]
        rows.append(np.random.default_rng(entropy).standard_normal(dim))
    return np.array(rows).reshape(len(tokens), dim)
