"""AttentionHeatmap: tokens × tokens attention weights for a sentence, one row per query token."""

from __future__ import annotations

import math

import numpy as np
import traitlets as t

import attn_core
from attn_book.data import SENTENCE_KO, toy_embeddings

from ._base import Figure, bundle, css
from .inputs import (
    MAX_D_MODEL,
    MAX_TOKENS,
    Integer,
    Temperature,
    Tokens,
    Vectors,
    integer,
    recompute_or_roll_back,
)

__all__ = ["AttentionHeatmap", "decode_head", "encode_head", "head_projections"]


def head_projections(query_tokens, key_tokens, d_model, n_heads, seed):
    """Per-head queries and keys of toy embeddings under seeded random projections.

    Parameters
    ----------
    query_tokens : sequence of str, length L
    key_tokens : sequence of str, length S
    d_model : int
        Embedding size D; ``n_heads`` must divide it.
    n_heads : int
    seed : int
        Seeds the embeddings (:func:`toy_embeddings`) and the projections.

    Returns
    -------
    q : ndarray, shape (H, L, D // H)
    k : ndarray, shape (H, S, D // H)

    Examples
    --------
    >>> q, k = head_projections(["a", "b"], ["c", "d", "e"], 8, 2, seed=0)
    >>> q.shape, k.shape
    ((2, 2, 4), (2, 3, 4))
    """
    rng = np.random.default_rng([seed, d_model])
    w_q, w_k = rng.standard_normal((2, d_model, d_model)) / math.sqrt(d_model)  # [D, D] each
    x_q = toy_embeddings(query_tokens, d_model, seed)  # [L, D]
    x_k = toy_embeddings(key_tokens, d_model, seed)  # [S, D]
    q = attn_core.split_heads(x_q @ w_q, n_heads)  # [L, D] -> [H, L, d_head]
    k = attn_core.split_heads(x_k @ w_k, n_heads)  # [S, D] -> [H, S, d_head]
    return q, k


def _stored_weights(kwargs):
    """Check stored weights (layers, heads, L, S) against the tokens and store them as the
    figure shows them, to 3 decimals: each head as one string (:func:`encode_head`)."""
    w = kwargs.get("stored_weights")
    if w is None or (isinstance(w, list) and not w):
        return kwargs
    w = np.asarray(w, dtype=float)
    queries = kwargs.get("query_tokens", SENTENCE_KO)
    keys = kwargs.get("key_tokens") or queries
    if w.ndim != 4 or w.shape[2:] != (len(queries), len(keys)) or not w.shape[0] * w.shape[1]:
        raise ValueError(
            f"stored_weights must have shape (layers, heads, L={len(queries)}, S={len(keys)}) "
            f"with at least one layer and one head; got shape {w.shape}"
        )
    if not np.isfinite(w).all() or w.min() < 0 or w.max() > 1:
        raise ValueError("stored_weights must be weights, finite numbers in 0..1")
    heads = [[encode_head(head) for head in layer] for layer in w]
    return kwargs | {"stored_weights": heads, "n_heads": w.shape[1]}


def encode_head(weights):
    """One head's weights (L, S) as text: thousandths, "," between keys, ";" between rows,
    each row without its trailing zeros (a causal model's masked keys). A notebook stores a
    figure's state as indented JSON, one line per number; 270 heads of 16 × 16 numbers as
    lists took 880 kB of the notebook, as text 130 kB.

    >>> encode_head([[1, 0, 0], [0.25, 0.75, 0], [0.1234, 0.0004, 0.8762]])
    '1000;250,750;123,0,876'
    >>> decode_head('1000;250,750;123,0,876', 3)[1]
    [0.25, 0.75, 0.0]
    """
    rows = []
    for row in np.rint(np.asarray(weights, dtype=float) * 1000).astype(int).tolist():
        while row and row[-1] == 0:
            row.pop()
        rows.append(",".join(map(str, row)))
    return ";".join(rows)


def decode_head(text, n_keys):
    """:func:`encode_head`'s weights back, (L, ``n_keys``) floats, as the JavaScript reads them."""
    rows = [[int(v) / 1000 for v in row.split(",")] if row else [] for row in text.split(";")]
    return [row + [0.0] * (n_keys - len(row)) for row in rows]


def _training_states(kwargs):
    """Check the stored training states and start from the state ``step``."""
    q, k = kwargs.get("training_queries"), kwargs.get("training_keys")
    if q is None and k is None:
        return kwargs
    q, k = np.asarray(q, dtype=float), np.asarray(k, dtype=float)
    if q.ndim != 3 or k.ndim != 3 or len(q) != len(k) or q.shape[2] != k.shape[2] or not len(q):
        raise ValueError(
            "training_queries (N, L, E) and training_keys (N, S, E) must hold the same N >= 1 "
            f"states of one width E; got shapes {q.shape} and {k.shape}"
        )
    steps = list(kwargs.get("training_steps") or range(len(q)))
    if len(steps) != len(q):
        raise ValueError(f"training_steps must give one step per state ({len(q)}), got {steps}")
    step = integer(kwargs.get("step", 0), "step", maximum=len(q) - 1)
    losses = [float(x) for x in kwargs.get("training_losses", [])]
    return kwargs | {
        "training_queries": q.tolist(),
        "training_keys": k.tolist(),
        "training_steps": [int(n) for n in steps],
        "training_losses": losses,
        "step": step,
        "query_vectors": q[step],
        "key_vectors": k[step],
    }


class AttentionHeatmap(Figure):
    """Attention weights of one head as a heatmap; hover or click a row to follow one query.

    Parameters
    ----------
    query_tokens : sequence of str, default SENTENCE_KO ("나는 사과를 먹었다")
    key_tokens : sequence of str or None, default None
        None means self-attention (the keys are the query tokens); give another
        sentence for cross-attention (크로스 어텐션).
    d_model : int, default 8
    n_heads : int, default 2
        Must divide ``d_model``; each head has d_head = d_model // n_heads.
    head : int, default 0
    scaled : bool, default True
        Multiply the scores by 1/sqrt(d_head) (False: by 1).
    temperature : float >= 1e-6, default 1.0
    causal : bool, default False
        Hide the keys after each query (top-left lower triangle, as attn_core).
    length : int or None, default None
        The number of real key tokens; keys ``length..S-1`` are padding. None: no padding.
    padded : bool, default True
        Hide the padding keys (``attn_core.padding_mask(length, S)``); False shows what
        attending to the padding gives. Combined with ``causal`` by logical and.
    selected : int, default 0
        The query row listed beside the heatmap.
    seed : int, default 0
    query_vectors : array_like of shape (L, E), or None (default)
        Explicit queries (e.g. ``X @ W_Q``) instead of the toy embeddings' random
        projections; give ``key_vectors`` (S, E) with them. They make one head
        (``n_heads`` defaults to 1 and must be 1) and ``d_model``, ``seed`` are unused.
    key_vectors : array_like of shape (S, E), or None (default)
    training_queries : array_like of shape (N, L, E), or None (default)
        Stored states of a training run: the queries at N recorded steps. With
        ``training_keys`` (N, S, E) they replace ``query_vectors``/``key_vectors``
        (the state ``step`` is shown) and add a step slider and a loss curve, which
        work on the static page too: the JavaScript reads the stored states.
    training_keys : array_like of shape (N, S, E), or None (default)
    training_steps : sequence of N int
        The training step of each stored state (default 0, 1, ..., N - 1).
    training_losses : sequence of float
        The loss at every step 0, 1, ..., drawn as the curve; empty: no curve.
    step : int, default 0
        The stored state shown, 0 .. N - 1.
    stored_weights : array_like of shape (layers, heads, L, S), or None (default)
        Weights computed elsewhere, e.g. by a trained model (:meth:`from_model`): the figure
        shows ``stored_weights[layer, head]`` and adds a layer slider; ←/→ keys change the
        layer. Nothing is recomputed, so the temperature, scale and mask controls are hidden
        (``causal`` still greys the keys after each query). ``n_heads`` is the array's; the
        synced trait holds each head as a string of thousandths (:func:`encode_head`).
    layer : int, default 0
        The layer of ``stored_weights`` shown, 0 .. layers - 1.

    Notes
    -----
    Computed with attn_core: ``head_queries`` (H, L, d_head) and ``head_keys``
    (H, S, d_head), which the JavaScript uses to recompute on the static page;
    ``weights`` (L, S) of ``head``; ``row`` (S,) = ``weights[selected]``.

    Examples
    --------
    >>> hm = AttentionHeatmap()
    >>> len(hm.weights), [round(sum(r), 6) for r in hm.weights]
    (3, [1.0, 1.0, 1.0])
    >>> hm.causal = True
    >>> hm.weights[0]
    [1.0, 0.0, 0.0]
    >>> AttentionHeatmap(query_tokens=["a", "b"], query_vectors=[[1, 0], [0, 1]],
    ...                  key_vectors=[[1, 0], [1, 0]]).weights[1]
    [0.5, 0.5]
    >>> states = AttentionHeatmap(query_tokens=["a", "b"], training_queries=[[[0, 0], [0, 0]],
    ...     [[9, 0], [0, 9]]], training_keys=[[[1, 0], [0, 1]]] * 2, training_steps=[0, 10])
    >>> states.weights[0], states.step
    ([0.5, 0.5], 0)
    >>> states.step = 1
    >>> [round(w, 3) for w in states.weights[0]]
    [0.998, 0.002]
    >>> stored = AttentionHeatmap(query_tokens=["a", "b"], causal=True,
    ...     stored_weights=[[[[1, 0], [0.3, 0.7]]], [[[1, 0], [0.9, 0.1]]]], selected=1)
    >>> stored.row, stored.n_heads
    ([0.3, 0.7], 1)
    >>> stored.layer = 1
    >>> stored.row
    [0.9, 0.1]
    """

    _esm = bundle("attention_heatmap.js")
    _css = css()
    _repr_traits = ("query_tokens", "key_tokens", "head", "causal")

    query_tokens = Tokens(list(SENTENCE_KO)).tag(sync=True)  # list, tuple or array
    key_tokens = Tokens(None, allow_none=True).tag(sync=True)
    d_model = Integer(8, min=1, max=MAX_D_MODEL).tag(sync=True)  # ints or numpy integers
    n_heads = Integer(2, min=1, max=MAX_D_MODEL).tag(sync=True)
    head = Integer(0).tag(sync=True)  # below n_heads (checked below)
    scaled = t.Bool(True).tag(sync=True)
    temperature = Temperature(1.0).tag(sync=True)
    causal = t.Bool(False).tag(sync=True)
    length = Integer(None, allow_none=True).tag(sync=True)  # at most the keys (below)
    padded = t.Bool(True).tag(sync=True)
    selected = Integer(0).tag(sync=True)  # a query row (below)
    seed = Integer(0).tag(sync=True)
    query_vectors = Vectors(None, maxlen=MAX_TOKENS, allow_none=True)  # (L, E): head_queries
    key_vectors = Vectors(None, maxlen=MAX_TOKENS, allow_none=True)  # (S, E): head_keys
    training_queries = t.List().tag(sync=True)  # (N, L, E): stored states, or []
    training_keys = t.List().tag(sync=True)  # (N, S, E)
    training_steps = t.List().tag(sync=True)  # N ints
    training_losses = t.List().tag(sync=True)  # the loss at every step, for the curve
    step = Integer(0).tag(sync=True)  # index of the stored state shown (checked below)
    stored_weights = t.List().tag(sync=True)  # (layers, H) strings: encode_head
    layer = Integer(0).tag(sync=True)  # index of the stored layer shown (checked below)

    head_queries = t.List().tag(sync=True)
    head_keys = t.List().tag(sync=True)
    weights = t.List().tag(sync=True)
    row = t.List().tag(sync=True)

    _clamping = True  # until the constructor has set every trait

    def __init__(self, **kwargs):
        kwargs = _stored_weights(_training_states(kwargs))
        if kwargs.get("query_vectors") is not None:
            kwargs.setdefault("n_heads", 1)  # explicit vectors are one head
        self._building = True  # the traits are checked together once all are set
        super().__init__(**kwargs)
        self._building = False
        self._project()

    @t.validate("head")
    def _check_head(self, proposal):  # checked here, not clamped, at construction too
        return integer(proposal["value"], "head", maximum=self.n_heads - 1)

    @t.validate("selected")
    def _check_selected(self, proposal):
        return integer(proposal["value"], "selected", maximum=len(self.query_tokens) - 1)

    @t.validate("step")
    def _check_step(self, proposal):
        return integer(proposal["value"], "step", maximum=max(0, len(self.training_queries) - 1))

    @t.validate("stored_weights")
    def _check_stored(self, proposal):  # the constructor encodes arrays (_stored_weights)
        value = proposal["value"]
        if not all(isinstance(head, str) for layer in value for head in layer):
            raise TypeError(
                "stored_weights are given to the constructor, AttentionHeatmap(stored_weights="
                "array of shape (layers, heads, L, S)); the trait holds encode_head strings"
            )
        return value

    @t.validate("layer")
    def _check_layer(self, proposal):
        top = max(0, len(self.stored_weights) - 1)
        return integer(proposal["value"], "layer", maximum=top)

    @classmethod
    def from_model(cls, prompt="induction", model=None, **kwargs):
        """Chapter 13's model's weights on a prompt, every layer and head, to pick from.

        ``prompt`` is a name of :data:`attn_book.head_weights.PROMPTS` ("sentence",
        "induction"); the weights come from ``model`` (a loaded :func:`attn_book.llama.
        load_model`) if given, else from the model file if present, else from the stored
        file (:func:`attn_book.head_weights.weights`), rounded to 3 decimals either way. The
        figure opens on the prompt's layer, head and query row unless ``kwargs`` say others.

        >>> hm = AttentionHeatmap.from_model("induction")
        >>> len(hm.stored_weights), hm.n_heads, hm.layer, hm.head
        (30, 9, 18, 6)
        """
        from attn_book import head_weights

        found = head_weights.weights(prompt, model)
        opening = head_weights.PROMPTS[prompt]
        view = {"layer": opening.layer, "head": opening.head, "selected": opening.selected}
        return cls(
            query_tokens=found.labels,
            stored_weights=found.weights,
            causal=True,
            **view | kwargs,
        )

    @t.observe("step")
    def _on_step(self, change):
        if getattr(self, "_building", False) or not self.training_queries:
            return
        with self.hold_trait_notifications():
            self.query_vectors = self.training_queries[self.step]
            self.key_vectors = self.training_keys[self.step]

    @t.validate("length")
    def _check_length(self, proposal):
        keys = self.query_tokens if self.key_tokens is None else self.key_tokens
        return integer(proposal["value"], "length", maximum=len(keys))

    @t.observe(
        "query_tokens", "key_tokens", "d_model", "n_heads", "seed", "query_vectors", "key_vectors"
    )
    def _on_tokens(self, change):
        if getattr(self, "_building", False):
            return
        recompute_or_roll_back(self, change, self._project)

    @t.observe("head", "scaled", "temperature", "causal", "selected", "length", "padded", "layer")
    def _on_view(self, change):
        stored = self.stored_weights and not self._clamping
        if self.head_queries or stored:  # empty while the constructor sets the traits
            recompute_or_roll_back(self, change, self._recompute)

    def _project(self):
        if self.stored_weights:
            self._clamp_view()
            self._recompute()
            return
        if self.d_model % self.n_heads:
            raise ValueError(
                f"n_heads={self.n_heads} must divide d_model={self.d_model} "
                f"(heads of d_head = d_model // n_heads)"
            )
        keys = self.query_tokens if self.key_tokens is None else self.key_tokens
        if self.query_vectors is None and self.key_vectors is None:
            q, k = head_projections(self.query_tokens, keys, self.d_model, self.n_heads, self.seed)
        else:
            q, k = self._explicit_head(keys)
        self._clamp_view()
        self.head_keys = k.tolist()
        self.head_queries = q.tolist()
        self._recompute()

    def _clamp_view(self):
        self.head_queries, self._clamping = [], True  # silence _on_view while clamping
        self.head = min(self.head, self.n_heads - 1)  # stay in range when the shapes shrink
        self.selected = min(self.selected, len(self.query_tokens) - 1)
        self.layer = min(self.layer, max(0, len(self.stored_weights) - 1))
        self._clamping = False

    def _explicit_head(self, keys):
        """``query_vectors`` (L, E) and ``key_vectors`` (S, E) as one head (1, L, E), (1, S, E)."""
        q, k = (
            None if a is None else np.asarray(a) for a in (self.query_vectors, self.key_vectors)
        )
        if q is None or k is None or self.n_heads != 1:
            raise ValueError(
                "query_vectors and key_vectors go together and make one head (n_heads=1); got "
                f"query_vectors {None if q is None else q.shape}, key_vectors "
                f"{None if k is None else k.shape}, n_heads={self.n_heads}"
            )
        want = (len(self.query_tokens), len(keys))
        if (q.shape[0], k.shape[0]) != want or q.shape[1] != k.shape[1]:
            raise ValueError(
                f"query_vectors must be (L={want[0]}, E) and key_vectors (S={want[1]}, E) for "
                f"the tokens given; got shapes {q.shape} and {k.shape}"
            )
        return q[None], k[None]

    def visible(self):
        """The keys each query may attend to: bool (L, S), causal and padding masks combined."""
        keys = self.query_tokens if self.key_tokens is None else self.key_tokens
        L, S = len(self.query_tokens), len(keys)
        mask = np.ones((L, S), dtype=bool)
        if self.causal:
            mask &= attn_core.causal_mask(L, S)
        if self.length is not None and self.padded:
            mask &= attn_core.padding_mask(min(self.length, S), S)[0]  # (1, S): every row
        return mask

    def _recompute(self):
        if self.stored_weights:
            self._show_stored()
            return
        n_heads, n_rows = len(self.head_queries), len(self.query_tokens)
        if not 0 <= self.head < n_heads:
            raise ValueError(f"head must be in 0..{n_heads - 1}, got {self.head}")
        if not 0 <= self.selected < n_rows:
            raise ValueError(f"selected must be a row in 0..{n_rows - 1}, got {self.selected}")
        q, k = np.asarray(self.head_queries[self.head]), np.asarray(self.head_keys[self.head])
        base = 1 / math.sqrt(q.shape[-1]) if self.scaled else 1.0  # SDPA's default
        scale = base / self.temperature
        weights = attn_core.attention_weights(q, k, self.visible(), scale=scale)  # [L, S]
        self.weights = weights.tolist()
        self.row = self.weights[self.selected]

    def _show_stored(self):
        """``weights`` = ``stored_weights[layer][head]``, decoded."""
        keys = self.query_tokens if self.key_tokens is None else self.key_tokens
        self.weights = decode_head(self.stored_weights[self.layer][self.head], len(keys))
        self.row = self.weights[self.selected]
