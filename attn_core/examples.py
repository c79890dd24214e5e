"""The data of the book's examples, defined once so that prose, figures and tests agree.

The worked example is the one of the Korean write-up of the Quanta Magazine
column "Is 'Attention' the Essence of Intelligence?": d_k = 2, one query, three
keys and values. Functions return fresh arrays, so a reader who edits one cannot change
another chapter's numbers.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .validation import check_positive_int, check_size

__all__ = [
    "SENTENCE_EN",
    "SENTENCE_KO",
    "ProjectionExample",
    "WorkedExample",
    "projection_example",
    "quanta_example",
    "seed_example",
    "toy_embeddings",
]

SENTENCE_KO = ("나는", "사과를", "먹었다")  # the example sentence, "I ate an apple"
SENTENCE_EN = ("the", "cat", "sat", "on", "the", "mat", "because", "it", "was", "warm")


class WorkedExample(NamedTuple):
    """query (E,), keys (S, E), values (S, Ev) of a hand-sized example."""

    query: np.ndarray
    keys: np.ndarray
    values: np.ndarray


def quanta_example():
    """The Quanta write-up's example: q = (1, 0); keys (1,0), (0,1), (1,1); values
    (2,0), (0,2), (1,1).

    Examples
    --------
    >>> ex = quanta_example()
    >>> ex.query.shape, ex.keys.shape, ex.values.shape
    ((2,), (3, 2), (3, 2))
    """
    return WorkedExample(
        query=np.array([1.0, 0.0]),
        keys=np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
        values=np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]),
    )


#: The former name of :func:`quanta_example`, kept while chapters still call it.
seed_example = quanta_example
class ProjectionExample(NamedTuple):
    """Chapter 5's sentence: tokens (n,), x (n, 4) of named features, w_q, w_k, w_v (4, 3)."""

    tokens: tuple
    x: np.ndarray
    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray


def projection_example():
    """Chapter 5's "나는 사과를 먹었다": features noun, verb, -는, -를 and its three matrices.

    The keys offer the roles action, actor, patient; the queries ask for them (twice as
    loud); the values hand over "who", "what", "did".

    Examples
    --------
    >>> ex = projection_example()
    >>> ex.tokens, (ex.x @ ex.w_q)[1].tolist()  # 사과를 asks for an action and an actor
    (('나는', '사과를', '먹었다'), [2.0, 2.0, 0.0])
    """
    w_k = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=float)
    return ProjectionExample(
        tokens=SENTENCE_KO,
        x=np.array([[1, 0, 1, 0], [1, 0, 0, 1], [0, 1, 0, 0]], dtype=float),
        w_q=2 * np.array([[0, 0, 0], [0, 0, 1], [1, 0, 0], [1, 1, 0]], dtype=float),
        w_k=w_k,
        w_v=np.array([[0, 0, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]], dtype=float),
    )


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
