"""WindowSinks: one query's row under a sliding window, a sink and a gate; the ring buffer."""

from __future__ import annotations

import numpy as np
import traitlets as t

import attn_core
from attn_book.data import GENERATED_KO, SENTENCE_KO, feature_vectors, sentence_projections

from ._base import Figure, bundle, css
from .inputs import Number, Tokens, Vectors, integer, recompute_or_roll_back

__all__ = ["MAX_WINDOW_TOKENS", "WindowSinks", "chapter_sequence"]

MAX_WINDOW_TOKENS = 12  # a column and a ring slot each, side by side on a 360 px phone
VECTORS = ("query_vectors", "key_vectors", "value_vectors")
LOGIT_LIMIT = 20.0  # sink and gate logits: beyond ±20 the share and σ are 0 or 1 to 9 digits


def chapter_sequence():
    """Chapter 11's six words and their queries, keys and values (chapter 5's projections).

    Returns ``(tokens, Q, K, V)``: six str and three arrays (6, 3).

    Examples
    --------
    >>> tokens, Q, K, V = chapter_sequence()
    >>> " ".join(tokens), Q.shape, K.shape, V.shape
    ('나는 사과를 먹었다 그리고 배를 샀다', (6, 3), (6, 3), (6, 3))
    """
    tokens = list(SENTENCE_KO) + list(GENERATED_KO)
    X = feature_vectors(tokens)  # [6, 4]
    W_Q, W_K, W_V = sentence_projections()  # [4, 3] each
    return tokens, X @ W_Q, X @ W_K, X @ W_V


class WindowSinks(Figure):
    """Query t's weights under a sliding window of W keys, with a sink and a gate, and the
    ring buffer of W slots that holds the keys.

    Parameters
    ----------
    tokens : sequence of str, optional
        n tokens, 2 to 12; default: chapter 11's six words (:func:`chapter_sequence`), with
        their queries, keys and values.
    query_vectors, key_vectors : array_like, shape (n, E), optional
        Given with ``value_vectors`` (n, Ev) and ``tokens``, or all four left out. The four
        are fixed once the figure is made (a new sequence is a new figure).
    step : int, default n − 1
        The current token t (0 … n − 1): its query attends, its key was just written to
        slot t mod W.
    window : int, default 3
        W, 1 … n; W = n is plain causal attention.
    sink : bool, default False
        Join gpt-oss's sink logit ``sink_logit`` (z) to the row's softmax, dropped after it.
    sink_logit : float, default 1.0
    gate : bool, default False
        Multiply the output by one sigmoid gate σ(``gate_logit``) (a headwise gate).
    gate_logit : float, default 0.0

    Notes
    -----
    Outputs, all through :mod:`attn_core`: ``weights`` (n,) from
    :func:`attn_core.attention_weights` with :func:`attn_core.sliding_window_mask`'s row t
    (0 outside the window and after t) and ``sinks=z``; ``sink_share`` = 1 − ``row_sum``
    with the sink, else 0; ``output`` (Ev,) from :func:`attn_core.scaled_dot_product_attention`
    (the sink's value is zero); ``gated_output`` from :func:`attn_core.output_gate` (the
    output itself with the gate off); ``slots``, the position in each slot of a
    :class:`attn_core.KVCache` with ``window=W`` after positions 0 … t (its ``positions``);
    ``written`` = t mod W; ``evicted``, the position t − W overwritten at this step, or None.
    The JavaScript recomputes all of them with ``attn_math.windowStep`` (tested equal in node),
    so the figure works on the static site.

    Examples
    --------
    >>> fig = WindowSinks()  # t = 5 (샀다), W = 3
    >>> fig.slots, fig.written, fig.evicted  # 샀다 overwrote 먹었다 in slot 2
    ([3, 4, 5], 2, 2)
    >>> [round(w, 3) for w in fig.weights[:3]], round(fig.row_sum, 3)
    ([0.0, 0.0, 0.0], 1.0)
    >>> fig.sink = True  # z = 1
    >>> round(fig.sink_share + fig.row_sum, 12)
    1.0
    """

    _esm = bundle("window_sinks.js")
    _css = css()
    _repr_traits = ("step", "window", "sink", "sink_logit", "gate", "gate_logit")

    tokens = Tokens(None, maxlen=MAX_WINDOW_TOKENS, allow_none=True).tag(sync=True)
    query_vectors = Vectors(None, maxlen=MAX_WINDOW_TOKENS, allow_none=True).tag(sync=True)
    key_vectors = Vectors(None, maxlen=MAX_WINDOW_TOKENS, allow_none=True).tag(sync=True)
    value_vectors = Vectors(None, maxlen=MAX_WINDOW_TOKENS, allow_none=True).tag(sync=True)
    step = t.Int(None, allow_none=True).tag(sync=True)  # checked against n below
    window = t.Int(3).tag(sync=True)  # checked against n below
    sink = t.Bool(False).tag(sync=True)
    sink_logit = Number(1.0, max_abs=LOGIT_LIMIT).tag(sync=True)
    gate = t.Bool(False).tag(sync=True)
    gate_logit = Number(0.0, max_abs=LOGIT_LIMIT).tag(sync=True)

    weights = t.List().tag(sync=True)
    sink_share = t.Float(0.0).tag(sync=True)
    row_sum = t.Float(0.0).tag(sync=True)
    output = t.List().tag(sync=True)
    gated_output = t.List().tag(sync=True)
    slots = t.List().tag(sync=True)
    written = t.Int(0).tag(sync=True)
    evicted = t.Int(None, allow_none=True).tag(sync=True)

    def __init__(self, **kwargs):
        given = [
            k for k in ("tokens", "query_vectors", "key_vectors", "value_vectors") if k in kwargs
        ]
        if given and len(given) < 4:
            raise ValueError(
                "tokens, query_vectors, key_vectors and value_vectors go together (or leave "
                f"all four out for chapter 11's six words); got only {', '.join(given)}"
            )
        if not given:
            tokens, Q, K, V = chapter_sequence()
            kwargs.update(tokens=tokens, query_vectors=Q, key_vectors=K, value_vectors=V)
        self._building = True
        super().__init__(**kwargs)
        self._building = False
        self._check_shapes()
        step = len(self.tokens) - 1 if self.step is None else self._step(self.step)
        window = self._window(self.window)  # both checked before either recomputes
        with self.hold_trait_notifications():
            self.step, self.window = step, window
        self._recompute()

    def _check_shapes(self):
        n = len(self.tokens)
        Q, K, V = (
            np.asarray(a) for a in (self.query_vectors, self.key_vectors, self.value_vectors)
        )
        if n < 2 or Q.shape[0] != n or K.shape != Q.shape or V.shape[0] != n:
            raise ValueError(
                f"tokens ({n}, at least 2) need query_vectors and key_vectors (n, E) and "
                f"value_vectors (n, Ev) with n = {n}; got shapes {Q.shape}, {K.shape} and {V.shape}"
            )

    def _vectors(self):
        """Q (n, E), K (n, E) and V (n, Ev) as arrays."""
        return (np.asarray(getattr(self, name)) for name in VECTORS)

    def _step(self, value):
        return integer(value, "step", maximum=len(self.tokens) - 1)

    def _window(self, value):
        return integer(value, "window", minimum=1, maximum=len(self.tokens))

    @t.validate("tokens", *VECTORS)
    def _fixed_sequence(self, proposal):
        if getattr(self, "_building", True):
            return proposal["value"]
        name = proposal["trait"].name
        raise ValueError(
            f"{name} is set when the figure is made (the drawing has a column and a slot per "
            f"token): make a new WindowSinks(tokens=..., query_vectors=..., key_vectors=..., "
            f"value_vectors=...)"
        )

    @t.validate("step")
    def _check_step(self, proposal):
        if getattr(self, "_building", True):
            return proposal["value"]
        return self._step(proposal["value"])

    @t.validate("window")
    def _check_window(self, proposal):
        if getattr(self, "_building", True):
            return proposal["value"]
        return self._window(proposal["value"])

    @t.observe("step", "window", "sink", "sink_logit", "gate", "gate_logit")
    def _on_input(self, change):
        if not getattr(self, "_building", True) and self.step is not None:
            recompute_or_roll_back(self, change, self._recompute)

    def _recompute(self):
        Q, K, V = (
            np.asarray(a) for a in (self.query_vectors, self.key_vectors, self.value_vectors)
        )
        n, step, W = len(self.tokens), self.step, self.window
        visible = attn_core.sliding_window_mask(n, n, W)[step]  # [n]: 0 <= t - j < W
        sinks = self.sink_logit if self.sink else None
        weights = attn_core.attention_weights(Q[step], K, visible, sinks=sinks)  # [n]
        output = attn_core.scaled_dot_product_attention(Q[step], K, V, visible, sinks=sinks)
        gated = attn_core.output_gate(output, [self.gate_logit]) if self.gate else output
        ring = attn_core.KVCache(window=W)
        ring.append(K[: step + 1], V[: step + 1])  # positions 0 … t, p into slot p mod W
        self.weights = weights.tolist()
        self.row_sum = float(weights.sum())
        self.sink_share = 1.0 - self.row_sum if self.sink else 0.0
        self.output, self.gated_output = output.tolist(), gated.tolist()
        self.slots = ring.positions.tolist()
        self.written = step % W
        self.evicted = step - W if step >= W else None
