"""Chapter 12's associative-recall experiment (연관 기억; Zoology's MQAR, Arora et al., 2024).

Write N key–value pairs into a memory, then query every stored key and ask whether the
memory gives back the right value. Three memories, all from :mod:`attn_core`:

- softmax attention, which keeps every pair (its cache grows with N);
- linear attention, whose state is the sum :math:`S = \\sum_j k_j v_j^\\top` (d_k × d_v
  numbers, whatever N is), read as :math:`k_i^\\top S = v_i + \\sum_{j \\ne i} (k_i \\cdot k_j)
  v_j`: the second term is the crosstalk that grows with N;
- the delta rule (unit keys, β = 1 unless asked otherwise), which writes each value by first
  removing what the state already returns for its key, so a rewritten key keeps only its
  newest value.

Keys are unit vectors in d_k dimensions, values random unit vectors in d_v dimensions; a
query counts as recalled when the recalled vector is strictly nearer (by cosine) the right
value than every other value written; a tie is a miss. Each sweep point draws from its own
seeded stream, so every number is the same on every run.
The formulas live in :mod:`attn_core`; this is data.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

import attn_core as ac
from attn_core import check_bool, check_positive_int, check_positive_real

__all__ = [
    "KEY_KINDS",
    "METHODS",
    "TIE_TOLERANCE",
    "RecallScore",
    "RecallSweep",
    "RecallTask",
    "recall_hits",
    "recall_score",
    "recall_sweep",
    "recall_task",
    "recalled",
]

METHODS = ("softmax", "linear", "linear_elu", "delta")
"""The memories: softmax attention; linear attention without a feature map or normaliser
(the plain sum, as RetNet and Gated DeltaNet read it); Katharopoulos et al.'s elu + 1 with
its normaliser, on keys and queries scaled as softmax's scores are; the delta rule with
β = 1."""

TIE_TOLERANCE = 1e-12
"""How much a query's cosine with its own answer must exceed every other value's cosine to
count as recalled (:func:`recall_score`): thousands of times float64 rounding (at most about
4e-16 on these unit vectors), and below the real gaps measured here (softmax, with every key
written twice, separates some new values from their stale ones by only about 1e-10)."""

KEY_KINDS = ("random", "orthonormal")
"""Random unit keys, or orthonormal ones (a random rotation of the axes) as long as N <= d_k
allows, random unit keys beyond that."""


class RecallTask(NamedTuple):
    """What is written and what is asked, for ``trials`` independent memories."""

    keys: np.ndarray  # (trials, T, d_k): written in order, T = N, or 2N with rewrites
    values: np.ndarray  # (trials, T, d_v)
    queries: np.ndarray  # (trials, N, d_k): each stored key once
    answers: np.ndarray  # (trials, N, d_v): the newest value written under each query
    decoys: np.ndarray  # (trials, M, d_v): the other values written (the stale ones)


class RecallScore(NamedTuple):
    """How well a memory recalled: both averaged over the queries of every trial."""

    accuracy: float  # the share of queries whose recalled vector is nearest the right value
    cosine: float  # the mean cosine of the recalled vector and the right value


class RecallSweep(NamedTuple):
    """:func:`recall_sweep`'s results: one number per method and per N."""

    n_pairs: np.ndarray  # (P,)
    accuracy: dict  # method -> (P,)
    cosine: dict  # method -> (P,)
    chance: np.ndarray  # (P,): 1 / (values each query chooses among), a guess's accuracy


def recall_task(n_pairs, d_k=16, *, d_v=64, trials=8, keys="random", rewrite=False, seed=0):
    """N key–value pairs to store and recall, drawn from the stream ``(seed, n_pairs)``.

    Parameters
    ----------
    n_pairs : int >= 1
        N, the pairs stored in each memory.
    d_k : int, default 16
        The keys' width: the linear memories hold a d_k × d_v state.
    d_v : int, default 64
        The values' width; wide, so that random values are nearly orthogonal and a miss is
        the memory's fault, not two values that look alike.
    trials : int, default 8
        Independent memories, computed together along the first axis.
    keys : {"random", "orthonormal"}
        :data:`KEY_KINDS`.
    rewrite : bool, default False
        Write every key twice: first with a stale value, then (after all N) with the value
        to recall; the stale values become decoys.
    seed : int, default 0

    Returns
    -------
    RecallTask

    Examples
    --------
    >>> task = recall_task(20, rewrite=True)
    >>> task.keys.shape, task.queries.shape, task.decoys.shape  # 2N written, N asked
    ((8, 40, 16), (8, 20, 16), (8, 20, 64))
    """
    N, d_k = check_positive_int(n_pairs, "n_pairs"), check_positive_int(d_k, "d_k")
    d_v, trials = check_positive_int(d_v, "d_v"), check_positive_int(trials, "trials")
    if keys not in KEY_KINDS:
        raise ValueError(f"keys must be one of {KEY_KINDS}, got {keys!r}")
    rewrite = check_bool(rewrite, "rewrite")
    rng = np.random.default_rng([check_positive_int(seed, "seed", minimum=0), N])
    stored = _unit(rng.standard_normal((trials, N, d_k)))  # [trials, N, d_k]
    if keys == "orthonormal":  # the first min(N, d_k) keys: rows of a random rotation
        rotation = np.linalg.qr(rng.standard_normal((trials, d_k, d_k)))[0]
        n = min(N, d_k)
        stored[:, :n] = np.swapaxes(rotation, -1, -2)[:, :n]
        order = rng.permuted(np.tile(np.arange(N), (trials, 1)), axis=1)  # [trials, N]
        stored = np.take_along_axis(stored, order[..., None], axis=1)  # random ones anywhere
    answers = _unit(rng.standard_normal((trials, N, d_v)))
    if not rewrite:
        return RecallTask(stored, answers, stored, answers, answers[:, :0])
    stale = _unit(rng.standard_normal((trials, N, d_v)))
    written = np.concatenate([stored, stored], axis=1)  # [trials, 2N, d_k]: twice each
    return RecallTask(written, np.concatenate([stale, answers], axis=1), stored, answers, stale)


def recalled(task, method, *, scale=16.0, beta=1.0):
    """What a memory returns for each query of ``task``, shape (trials, N, d_v).

    Parameters
    ----------
    task : RecallTask
    method : {"softmax", "linear", "linear_elu", "delta"}
        :data:`METHODS`.
    scale : float > 0, default 16
        The factor on softmax's scores, and on the keys and queries of ``"linear_elu"``
        before its feature map, so that both see the same long vectors. Unit keys give a
        score of 1 to the right key; the usual :math:`1/\\sqrt{d_k}` would leave every row
        nearly uniform, so this stands for the long queries and keys a trained model learns
        (a sharp softmax). On unit keys elu + 1 is nearly :math:`1 + x`, and every
        similarity is dominated by the constant. The two linear memories without a feature
        map ignore it: a factor on their reads does not change a cosine.
    beta : float in (0, 1], default 1
        The delta rule's writing strength, the same for every token (``"delta"`` only).

    Returns
    -------
    ndarray, shape (trials, N, d_v)

    Examples
    --------
    >>> task = recall_task(4, keys="orthonormal")
    >>> bool(np.allclose(recalled(task, "delta"), task.answers))  # 4 <= d_k: exact
    True
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    scale = check_positive_real(scale, "scale")
    beta = check_positive_real(beta, "beta")
    if beta > 1:
        raise ValueError(f"beta must be in (0, 1], got {beta!r}")
    k, v, q = task.keys, task.values, task.queries
    if method == "softmax":  # every pair kept: attend over all T written
        return ac.scaled_dot_product_attention(q, k, v, scale=scale)
    if method == "delta":
        _, state = ac.delta_rule(k, k, v, beta=np.full(k.shape[:-1], beta))  # [trials, d_v, d_k]
        return q @ np.swapaxes(state, -1, -2)  # S q for each query: [trials, N, d_v]
    if method == "linear":
        _, (state, _) = ac.linear_attention_recurrent(
            k, k, v, feature_map=_identity, normalize=False
        )
        return q @ state  # qᵀ S: [trials, N, d_k] @ [trials, d_k, d_v]
    _, (state, z) = ac.linear_attention_recurrent(scale * k, scale * k, v)  # elu + 1, normalised
    fq = ac.elu_plus_one(scale * q)  # [trials, N, F]
    return (fq @ state) / (fq @ z[..., None])  # φ(q)ᵀS / φ(q)ᵀz


def recall_score(task, recalled_values):
    """Accuracy and mean cosine of recalled values against ``task.answers``.

    Parameters
    ----------
    task : RecallTask
    recalled_values : array_like, shape (trials, N, d_v)
        From :func:`recalled`.

    Returns
    -------
    RecallScore
        A query is right only when its recalled vector is strictly nearer (by cosine) its
        own answer than every other value written (the other answers and the decoys): its
        own cosine must exceed every other by more than :data:`TIE_TOLERANCE` (1e-12). A tie,
        exact or at the level of rounding, is a miss, not a hit: a memory that returns
        :math:`\\mathbf v_{stale} + \\mathbf v_{new}` is equally near both and has not
        recalled the new value (ties are not broken by the candidates' order).

    Examples
    --------
    >>> task = recall_task(8)
    >>> recall_score(task, task.answers)  # a perfect memory
    RecallScore(accuracy=1.0, cosine=1.0)
    """
    right, own = _hits_and_cosines(task, recalled_values)
    return RecallScore(round(float(right.mean()), 12), round(float(own.mean()), 12))


def recall_hits(task, recalled_values):
    """Which queries were recalled, by :func:`recall_score`'s strict rule: (trials, N) bools.

    Query ``i`` asks for the ``i``-th key stored, so with ``rewrite=False`` the second axis is
    the order of writing, oldest first.

    Examples
    --------
    >>> task = recall_task(4, trials=1)
    >>> recall_hits(task, task.answers).tolist()
    [[True, True, True, True]]
    """
    return _hits_and_cosines(task, recalled_values)[0]


def _hits_and_cosines(task, recalled_values):
    """The strict hits and each query's cosine with its own answer, both (trials, N)."""
    r = np.asarray(recalled_values, dtype=float)
    if r.shape != task.answers.shape:
        raise ValueError(
            f"recalled_values must have the answers' shape {task.answers.shape} "
            f"(trials, N, d_v), got {r.shape}"
        )
    n = r.shape[1]
    candidates = np.concatenate([task.answers, task.decoys], axis=1)  # [trials, N + M, d_v]
    cosines = _unit(r) @ np.swapaxes(candidates, -1, -2)  # unit values: [trials, N, N + M]
    own = np.diagonal(cosines[..., :n], axis1=-2, axis2=-1)  # [trials, N]
    others = np.where(np.eye(n + task.decoys.shape[1], dtype=bool)[:n], -np.inf, cosines)
    right = own > others.max(axis=-1) + TIE_TOLERANCE  # strictly nearer: a tie is a miss
    return right, own


def recall_sweep(
    n_pairs=(4, 8, 12, 16, 24, 32, 48, 64),
    d_k=16,
    *,
    methods=METHODS,
    beta=1.0,
    scale=16.0,
    **task,
):
    """Recall of each memory against the number of pairs N: chapter 12's figure.

    Parameters
    ----------
    n_pairs : sequence of int
        The N to try.
    d_k : int, default 16
    methods : sequence of str, default :data:`METHODS`
    beta : float in (0, 1], default 1
        The delta rule's writing strength (:func:`recalled`).
    scale : float > 0, default 16
        The factor on softmax's scores and on elu + 1's keys and queries (:func:`recalled`).
    **task
        ``d_v``, ``trials``, ``keys``, ``rewrite``, ``seed`` of :func:`recall_task`.

    Returns
    -------
    RecallSweep
        ``accuracy[method]`` and ``cosine[method]``, one number per N, and ``chance``, the
        accuracy of a memory that guesses: 1/N, or 1/2N when every key is written twice
        (the stale values are candidates too).

    Examples
    --------
    >>> sweep = recall_sweep((8, 64), methods=("softmax", "linear", "delta"))
    >>> {m: a.round(2).tolist() for m, a in sweep.accuracy.items()}
    {'softmax': [1.0, 1.0], 'linear': [1.0, 0.75], 'delta': [0.92, 0.23]}
    """
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ValueError(f"methods must be among {METHODS}, got {unknown}")
    ns = np.array([check_positive_int(n, "n_pairs") for n in n_pairs])
    accuracy, cosine = ({m: np.empty(len(ns)) for m in methods} for _ in range(2))
    chance = np.empty(len(ns))
    for i, n in enumerate(ns):
        drawn = recall_task(int(n), d_k, **task)
        chance[i] = 1 / (drawn.answers.shape[1] + drawn.decoys.shape[1])  # 1/N, 1/2N rewritten
        for m in methods:
            accuracy[m][i], cosine[m][i] = recall_score(
                drawn, recalled(drawn, m, scale=scale, beta=beta)
            )
    return RecallSweep(ns, accuracy, cosine, chance)


def _identity(x):
    """No feature map: linear attention's plain sum of k vᵀ."""
    return x


def _unit(x):
    """Each vector (last axis) divided by its length."""
    return x / np.linalg.norm(x, axis=-1, keepdims=True)
