"""The data of the book's examples, defined once so that prose, figures and tests agree.

Data, not formulas: the maths these numbers go through is :mod:`attn_core`.

The worked example is the one of the Korean write-up of the Quanta Magazine
column "Is 'Attention' the Essence of Intelligence?": d_k = 2, one query, three
keys and values. Functions return fresh arrays, so a reader who edits one cannot change
another chapter's numbers.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from attn_core import check_positive_int, check_size

__all__ = [
    "FEATURES",
    "GENERATED_KO",
    "NOUNS",
    "ROLE_FEATURES",
    "SENTENCE_EN",
    "SENTENCE_KO",
    "TWO_HEAD_SENTENCE",
    "VERBS",
    "ProjectionExample",
    "Projections",
    "TwoHeadExample",
    "WhoDidWhat",
    "WorkedExample",
    "designed_projections",
    "feature_vectors",
    "projection_example",
    "quanta_example",
    "sentence_example",
    "sentence_projections",
    "toy_embeddings",
    "two_head_example",
    "who_did_what",
]

SENTENCE_KO = ("나는", "사과를", "먹었다")  # the example sentence, "I ate an apple"
GENERATED_KO = ("그리고", "배를", "샀다")  # chapter 10 writes them after it: "and bought a pear"
FEATURES = ("noun", "verb", "-는 (topic: subject)", "-를 (object)")  # chapter 5's word features
_FEATURES_OF = {  # each token's four features, 0 or 1, in the order of FEATURES
    "나는": (1, 0, 1, 0),  # a noun with the topic marker -는, here marking the subject
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
    return ProjectionExample(
        tokens=SENTENCE_KO,
        x=feature_vectors(SENTENCE_KO),
        # rows: noun, verb, -는, -를; columns: the roles action, actor, patient
        w_q=2 * np.array([[0, 0, 0], [0, 0, 1], [1, 0, 0], [1, 1, 0]], dtype=float),
        w_k=np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=float),
        w_v=np.array([[0, 0, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]], dtype=float),
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
    ex = projection_example()
    return Projections(W_Q=ex.w_q, W_K=ex.w_k, W_V=ex.w_v)


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


#: Chapter 5's four named features, the first columns of :func:`who_did_what`'s vectors.
ROLE_FEATURES = FEATURES
NOUNS = ("나", "고양이", "친구", "사과")  # I, cat, friend, apple
VERBS = ("먹었다", "봤다", "불렀다")  # ate, saw, called


class WhoDidWhat(NamedTuple):
    """Sentences of :func:`who_did_what`: B sentences of 3 tokens.

    tokens : list of B tuples of 3 str
    x : (B, 3, D), D = 4 role features + one word identity a word (one-hot)
    target : (B, 3, W), the identities (one-hot over ``words``) each token should collect
    pattern : (B, 3, 3), the weights that produce ``target``: a row per query
    words : tuple of W str, the nouns then the verbs
    """

    tokens: list
    x: np.ndarray
    target: np.ndarray
    pattern: np.ndarray
    words: tuple


def who_did_what(nouns=NOUNS, verbs=VERBS, exclude=()):
    """Chapter 5's task as data: every sentence "A는 B를 V" or "B를 A는 V" of the words given.

    Each token's vector is chapter 5's four features (noun, verb, -는, -를) followed by a
    one-hot of its word. The pattern is chapter 5's: the subject looks at the verb (what
    did I do?), the object at the subject and the verb, half each (who did what to me?),
    the verb at the object (what was it done to?). The target is the pattern applied to
    the words' one-hots: what each token should collect. Word order does not change it.

    Parameters
    ----------
    nouns, verbs : sequence of str
    exclude : collection of tuple of str
        Sentences (as token tuples) to leave out, e.g. to test on them.

    Examples
    --------
    >>> data = who_did_what()
    >>> data.x.shape, data.target.shape, data.tokens[0]
    ((72, 3, 11), (72, 3, 7), ('나는', '고양이를', '먹었다'))
    >>> data.pattern[0].tolist()
    [[0.0, 0.0, 1.0], [0.5, 0.0, 0.5], [0.0, 1.0, 0.0]]
    """
    words = (*nouns, *verbs)
    n_feat = len(ROLE_FEATURES)
    eye = np.eye(len(words))
    tokens, xs, patterns, idents = [], [], [], []
    for a in nouns:
        for b in (n for n in nouns if n != a):
            for verb in verbs:
                # role of each token: 0 subject, 1 object, 2 verb; with its word and features
                subj = (f"{a}는", [1, 0, 1, 0], a)
                obj = (f"{b}를", [1, 0, 0, 1], b)
                act = (verb, [0, 1, 0, 0], verb)
                for order in ((subj, obj, act), (obj, subj, act)):
                    sentence = tuple(t[0] for t in order)
                    if sentence in exclude:
                        continue
                    tokens.append(sentence)
                    ident = np.array([eye[words.index(t[2])] for t in order])  # [3, W]
                    xs.append(np.hstack([np.array([t[1] for t in order]), ident]))
                    idents.append(ident)
                    patterns.append(_role_pattern([t[0] for t in order], subj, obj, act))
    pattern, ident = np.array(patterns, dtype=float), np.array(idents)
    x = np.array(xs, dtype=float).reshape(len(xs), 3, n_feat + len(words))
    return WhoDidWhat(tokens, x, pattern @ ident, pattern, words)


def _role_pattern(order, subj, obj, act):
    """Chapter 5's pattern (3, 3) for the tokens ``order`` (their texts)."""
    at = {t[0]: order.index(t[0]) for t in (subj, obj, act)}
    p = np.zeros((3, 3))
    p[at[subj[0]], at[act[0]]] = 1.0  # the subject asks what it did
    p[at[obj[0]], [at[subj[0]], at[act[0]]]] = 0.5  # the object: who, and what happened
    p[at[act[0]], at[obj[0]]] = 1.0  # the verb asks what was acted on
    return p


def designed_projections():
    """Chapter 5's hand-made W_Q and W_K (4 features × d_k = 3), for comparison with training.

    Rows are the features noun, verb, -는, -를; the key space's columns are the roles
    action, actor, patient. The same numbers as chapter 5's cells.

    Examples
    --------
    >>> w_q, w_k = designed_projections()
    >>> (w_q @ w_k.T)[3].tolist()  # -를 asks for the action (verb) and the actor (-는)
    [0.0, 2.0, 2.0, 0.0]
    """
    ex = projection_example()
    return ex.w_q, ex.w_k


def sentence_example():
    """The explainer's sentence "나는 사과를 먹었다" as Q, K, V (3, 2); row 1 is the worked example.

    Token ``i`` of :data:`SENTENCE_KO` has query ``Q[i]``, key ``K[i]``
    and value ``V[i]``. K and V are the Quanta write-up's keys and values, and ``Q[1]``,
    the query of "사과를" (the apple), is its q = (1, 0): as in the
    explainer, "사과" looks at "나는" (I) and "먹었다" (ate), so row 1 of
    the attention output is the hand computation. "나는" asks in the
    direction of "먹었다"'s key (the subject looks for its verb), and
    "먹었다" in the direction of "사과를"'s key (the verb looks for its
    object).

    Returns
    -------
    WorkedExample
        ``query`` (3, 2), ``keys`` (3, 2), ``values`` (3, 2).

    Examples
    --------
    >>> ex = sentence_example()
    >>> ex.query
    array([[1., 1.],
           [1., 0.],
           [0., 1.]])
    >>> bool((ex.query[1] == quanta_example().query).all())
    True
    """
    example = quanta_example()
    queries = np.array([[1.0, 1.0], example.query, [0.0, 1.0]])  # 나는, 사과를, 먹었다
    return WorkedExample(query=queries, keys=example.keys, values=example.values)


# ---------------------------------------------------------------- chapter 7's two heads
# A hand-built two-head example: one head attends by position, the other by content.
#
# Chapter 7's sentence "the cat saw the dog" gets one-hot embeddings: features
# 0-4 say *where* a token is (its position), features 5-9 *what* it is (its word;
# feature 9 is a spare, always 0). The projections are chosen so that the
# difference between the two heads is a fact, not a fitted pattern:
#
# - head 1 (index 0) reads only the position features, and its query of
#   position i is ``strength`` (8) times the key of position i - 1: it looks at
#   the previous token (the first token, with none before it, looks at itself);
# - head 2 (index 1) reads only the word features, and its query is
#   ``strength`` times its own key: it looks at the tokens with the same word,
#   wherever they are.
#
# With the default strength a matching pair scores 8, scaled by 1/sqrt(5) to
# 3.58; e^3.58 = 35.8 against e^0 = 1 for the four other keys gives the match
# 35.8 / (35.8 + 4) = 0.899.
#
# Shape legend: T = 5 positions, D = 10 features, H = 2 heads of d_head = 5.
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
