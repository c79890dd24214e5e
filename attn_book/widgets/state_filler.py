"""StateFiller: a memory filled token by token, read with one of its keys (chapter 12)."""

from __future__ import annotations

import numpy as np
import traitlets as t

import attn_core
from attn_book.recall import recall_task

from ._base import Figure, bundle, css
from .inputs import Choice, Integer, Number, integer, recompute_or_roll_back

__all__ = ["MEMORIES", "StateFiller", "fill", "pairs"]

MEMORIES = ("softmax", "linear", "delta")  # the JS offers the same three (state_filler.js)
MAX_PAIRS = 6  # 12 tokens with rewrites: the token strip still fits a 360 px phone
MAX_DIM = 6  # d_k and d_v: a 6 × 6 heatmap keeps three decimals in each cell


def pairs(n_pairs=3, d_k=4, d_v=4, *, rewrite=True, seed=0):
    """The tokens a :class:`StateFiller` writes: the first memory of ``recall_task``.

    Returns
    -------
    keys : ndarray, shape (T, d_k)
        Unit keys in the order written; T = N, or 2N with ``rewrite`` (every key twice).
    values : ndarray, shape (T, d_v)
        Unit values; with ``rewrite`` the first N are the stale ones.
    pair_of : list of int, length T
        Which of the N keys each token writes.

    Examples
    --------
    >>> keys, values, pair_of = pairs(3)
    >>> keys.shape, values.shape, pair_of
    ((6, 4), (6, 4), [0, 1, 2, 0, 1, 2])
    """
    task = recall_task(n_pairs, d_k, d_v=d_v, trials=1, rewrite=rewrite, seed=seed)
    n = task.queries.shape[1]
    return task.keys[0], task.values[0], list(range(n)) * (2 if rewrite else 1)


def fill(keys, values, pair_of, step, method, query, *, beta=1.0, softmax_scale=16.0):
    """The memory after ``step`` tokens and what it returns for key ``query``, by attn_core.

    Parameters
    ----------
    keys, values : array_like, shapes (T, d_k) and (T, d_v)
    pair_of : sequence of int, length T
        The key each token writes (:func:`pairs`).
    step : int in 0..T
        Tokens written so far.
    method : {"softmax", "linear", "delta"}
        Softmax attention over the cache of ``step`` keys and values (scores times
        ``softmax_scale``); linear attention's plain sum :math:`S = \\sum k v^\\top`
        (no feature map, no normaliser); the delta rule with writing strength ``beta``.
    query : int
        The stored key asked for, 0..N-1.

    Returns
    -------
    dict
        ``state`` (d_v, d_k), the state as values × keys, the chapter's :math:`S` (empty for
        softmax, which keeps a cache instead); ``weights`` (step,), softmax's
        weights on the cache (empty otherwise); ``recalled`` (d_v,); ``target`` (d_v,), the
        newest value written under the key (zeros before it is written: the right answer of
        an empty memory); ``written`` (bool); ``error`` = ‖recalled − target‖;
        ``correction`` (d_v,), the delta rule's :math:`v_t - S_{t-1} k_t` of the last token
        (empty for the others, or before the first token).

    Examples
    --------
    >>> keys, values = np.eye(2), np.array([[2.0, 0.0], [0.0, 2.0]])  # orthogonal keys
    >>> got = fill(keys, values, [0, 1], 2, "linear", 0)
    >>> got["state"], got["recalled"], got["error"]
    ([[2.0, 0.0], [0.0, 2.0]], [2.0, 0.0], 0.0)
    >>> fill(keys, values, [0, 1], 1, "delta", 1)["recalled"]  # key 2 not written yet
    [0.0, 0.0]
    """
    K, V = np.asarray(keys, dtype=float)[:step], np.asarray(values, dtype=float)[:step]
    d_k, d_v = np.shape(keys)[-1], np.shape(values)[-1]
    queried = np.asarray(keys, dtype=float)[list(pair_of).index(query)]  # [d_k]
    written = [j for j in range(step) if pair_of[j] == query]
    target = V[written[-1]] if written else np.zeros(d_v)
    state, weights, correction = np.zeros((d_v, d_k)), np.zeros(0), np.zeros(0)
    if method == "softmax" and step:
        weights = attn_core.attention_weights(queried, K, scale=softmax_scale)  # [step]
        recalled = weights @ V  # [step] @ [step, d_v] -> [d_v]
    elif method == "linear" and step:
        _, (state, _) = attn_core.linear_attention_recurrent(
            K, K, V, feature_map=lambda x: x, normalize=False
        )  # attn_core's Sᵀ = Σ k vᵀ: [d_k, d_v]
        state = state.T  # S = Σ v kᵀ: [d_v, d_k], as the chapter writes it
        recalled = state @ queried  # S k: [d_v, d_k] @ [d_k]
    elif method == "delta" and step:
        betas = np.full(step, beta)
        _, before = attn_core.delta_rule(K[:-1], K[:-1], V[:-1], betas[:-1])  # [d_v, d_k]
        _, after = attn_core.delta_rule(K, K, V, betas)
        correction = V[-1] - before @ K[-1]  # v_t − S_{t−1} k_t
        state, recalled = after, after @ queried  # [d_v, d_k]; S k
    else:  # nothing written yet: every memory returns 0
        recalled = np.zeros(d_v)
    return {
        "state": [] if method == "softmax" else np.asarray(state).tolist(),
        "weights": weights.tolist(),
        "recalled": np.asarray(recalled, dtype=float).tolist(),
        "target": target.tolist(),
        "written": bool(written),
        "error": float(np.linalg.norm(recalled - target)),
        "correction": correction.tolist(),
    }


class StateFiller(Figure):
    """A memory of a few key–value pairs, filled one token at a time and read with a key.

    Three memories hold the same tokens: softmax attention's KV cache (it grows by a key and
    a value a token), linear attention's state :math:`S = \\sum_t v_t k_t^\\top` and the
    delta rule's corrected state (both d_v × d_k, whatever the number of tokens).

    Parameters
    ----------
    n_pairs : int, default 3
        N keys, each with a unit value (:func:`pairs`), 1 to 6.
    d_k, d_v : int, default 4
        The keys' and values' widths, 1 to 6.
    rewrite : bool, default True
        Write every key twice, the second time with the value to recall (T = 2N tokens);
        False: each key once (T = N).
    seed : int, default 0
        The random state of :func:`attn_book.recall.recall_task`.
    method : {"softmax", "linear", "delta"}, default "delta"
    step : int in 0..T, default T
        Tokens written so far.
    query : int in 0..N-1, default 0
        The stored key asked for.
    beta : float in [0, 1], default 1.0
        The delta rule's writing strength, the same for every token.
    softmax_scale : float > 0, default 16
        The factor on softmax's scores (as :func:`attn_book.recall.recalled`'s: a sharp
        softmax, as a trained model's long queries and keys make it).

    Notes
    -----
    Computed with attn_core (:func:`fill`): ``state``, ``weights``, ``recalled``,
    ``target``, ``written``, ``error``, ``correction``. The JavaScript recomputes them from
    ``key_vectors``, ``value_vectors`` and ``pair_of`` with ``attn_math.fillState`` (tested
    equal), so the figure steps on the static site with no kernel.

    Examples
    --------
    >>> fig = StateFiller()
    >>> fig.step, round(fig.error, 3)  # after all six tokens the delta rule recalls key 1
    (6, 0.501)
    >>> fig.method = "linear"
    >>> round(fig.error, 3)
    1.152
    >>> fig.step = 0
    >>> fig.state == [[0.0] * 4] * 4, fig.recalled
    (True, [0.0, 0.0, 0.0, 0.0])
    """

    _esm = bundle("state_filler.js")
    _css = css()
    _repr_traits = ("n_pairs", "rewrite", "method", "step", "query", "beta")

    n_pairs = Integer(3, min=1, max=MAX_PAIRS).tag(sync=True)
    d_k = Integer(4, min=1, max=MAX_DIM).tag(sync=True)
    d_v = Integer(4, min=1, max=MAX_DIM).tag(sync=True)
    rewrite = t.Bool(True).tag(sync=True)
    seed = Integer(0).tag(sync=True)
    method = Choice(MEMORIES, "delta").tag(sync=True)
    step = Integer(None, allow_none=True).tag(sync=True)  # None: every token (checked below)
    query = Integer(0).tag(sync=True)
    beta = Number(1.0).tag(sync=True)  # in [0, 1] (checked below)
    softmax_scale = Number(16.0, positive=True, max_abs=1e3).tag(sync=True)

    key_vectors = t.List().tag(sync=True)  # (T, d_k), in the order written
    value_vectors = t.List().tag(sync=True)  # (T, d_v)
    pair_of = t.List().tag(sync=True)  # (T,): the key each token writes

    state = t.List().tag(sync=True)
    weights = t.List().tag(sync=True)
    recalled = t.List().tag(sync=True)
    target = t.List().tag(sync=True)
    written = t.Bool(False).tag(sync=True)
    error = t.Float(0.0).tag(sync=True)
    correction = t.List().tag(sync=True)

    _drawn = False

    def __init__(self, **kwargs):
        self._building = True  # step and query are checked once n_pairs and rewrite are set
        super().__init__(**kwargs)
        self._building = False
        self._draw_pairs()

    def _tokens(self):
        return self.n_pairs * (2 if self.rewrite else 1)

    @t.validate("step")
    def _check_step(self, proposal):
        value = proposal["value"]
        if value is None or getattr(self, "_building", False):
            return value
        return integer(value, "step", maximum=self._tokens())

    @t.validate("query")
    def _check_query(self, proposal):
        if getattr(self, "_building", False):
            return proposal["value"]
        return integer(proposal["value"], "query", maximum=self.n_pairs - 1)

    @t.validate("beta")
    def _check_beta(self, proposal):
        beta = proposal["value"]
        if not 0 <= beta <= 1:
            raise ValueError(
                f"beta must be in [0, 1] (the delta rule's writing strength), got {beta}"
            )
        return beta

    @t.observe("n_pairs", "d_k", "d_v", "rewrite", "seed")
    def _on_pairs(self, change):
        if self.key_vectors:  # empty while the constructor sets the traits
            recompute_or_roll_back(self, change, self._draw_pairs)

    @t.observe("method", "step", "query", "beta", "softmax_scale")
    def _on_view(self, change):
        if self.key_vectors:
            recompute_or_roll_back(self, change, self._recompute)

    def _draw_pairs(self):
        keys, values, pair_of = pairs(
            self.n_pairs, self.d_k, self.d_v, rewrite=self.rewrite, seed=self.seed
        )
        step = len(pair_of) if self.step is None else self.step
        if self._drawn:  # a reader's change of n_pairs or rewrite: stay in range
            step, query = min(step, len(pair_of)), min(self.query, self.n_pairs - 1)
        else:  # the constructor's arguments: checked, not clamped
            step = integer(step, "step", maximum=len(pair_of))
            query = integer(self.query, "query", maximum=self.n_pairs - 1)
        self._drawn = True
        self.key_vectors = []  # silences _on_view while step and query move
        self.step, self.query = step, query
        self.value_vectors, self.pair_of = values.tolist(), pair_of
        self.key_vectors = keys.tolist()
        self._recompute()

    def _recompute(self):
        got = fill(
            self.key_vectors, self.value_vectors, self.pair_of, self.step, self.method,
            self.query, beta=self.beta, softmax_scale=self.softmax_scale,
        )  # fmt: skip
        with self.hold_trait_notifications():
            for name, value in got.items():
                setattr(self, name, value)
