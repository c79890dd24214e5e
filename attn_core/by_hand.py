"""The worked example (손 계산) step by step: every intermediate number a reader writes down.

:func:`hand_steps` returns what a pencil computation produces — scores, scaled
scores, exponentials, their sum, weights, output — for one query or a stack of
queries. The weights and the output come from :func:`attn_core.attention_weights`
and :func:`attn_core.scaled_dot_product_attention`; the exponentials and their sum
are the hand-visible middle of the softmax, shown *without* the max-subtraction
trick because that is how the seed article writes them.

Shape legend as in :mod:`attn_core.attention`: query (..., L, E) or (E,),
key (..., S, E), value (..., S, Ev).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._validate import as_float_array, check_attention_inputs, check_scale
from .attention import attention_weights, dot_scores, scaled_dot_product_attention
from .examples import WorkedExample, seed_example

__all__ = [
    "HandSteps",
    "StepTable",
    "hand_steps",
    "sentence_example",
    "step_table",
    "trace_self_attention",
]


_EXP_LIMIT = 700.0  # e^709.8 is the largest float64; stay clear of it


class HandSteps(NamedTuple):
    """The intermediate results of one attention computation, in the order they are written.

    Shapes for L queries and S keys (drop the L axis for a single query (E,)).
    """

    scores: np.ndarray  # (..., L, S)  q·k_j
    scale: float  #                    the factor the scores are multiplied by
    scaled: np.ndarray  # (..., L, S)  scores * scale
    exps: np.ndarray  # (..., L, S)    e^(scaled)
    total: np.ndarray  # (..., L)      sum over the keys of exps
    weights: np.ndarray  # (..., L, S) exps / total = softmax(scaled)
    output: np.ndarray  # (..., L, Ev) weights @ value


def hand_steps(query, key, value, *, scale=None):
    r"""Every step of :math:`\mathrm{softmax}(qK^\top \cdot \mathrm{scale})\,V`, as done by hand.

    Parameters
    ----------
    query : array_like, shape (..., L, E) or (E,)
    key : array_like, shape (..., S, E)
    value : array_like, shape (..., S, Ev)
    scale : float, optional
        Multiplies the scores; defaults to :math:`1/\sqrt{E}`. Use 1.0 for no scaling.

    Returns
    -------
    HandSteps
        ``exps`` are :math:`e^{s_j}` without subtracting the maximum, as in a hand
        computation; ``weights`` and ``output`` are computed by the stable library
        functions.

    Raises
    ------
    ValueError
        If the shapes do not fit (see :func:`attn_core.scaled_dot_product_attention`),
        or if a scaled score exceeds 700 in size, where :math:`e^{s}` would overflow
        or underflow to 0.

    Examples
    --------
    >>> ex = seed_example()
    >>> steps = hand_steps(ex.query, ex.keys, ex.values)
    >>> steps.scaled.round(3), steps.exps.round(3), round(float(steps.total), 3)
    (array([0.707, 0.   , 0.707]), array([2.028, 1.   , 2.028]), 5.056)
    >>> steps.weights.round(3), steps.output.round(3)
    (array([0.401, 0.198, 0.401]), array([1.203, 0.797]))
    """
    q, k, v = check_attention_inputs(query, key, value)
    factor = check_scale(scale, q.shape[-1])
    scores = dot_scores(q, k)  # [..., L, S]
    scaled = scores * factor
    if scaled.size and np.abs(scaled).max() > _EXP_LIMIT:
        raise ValueError(
            f"scaled scores reach {np.abs(scaled).max():.4g}; e^s overflows beyond "
            f"±{_EXP_LIMIT} in a hand computation (scores have shape {scaled.shape}); "
            "use attn_core.softmax, which subtracts the maximum first"
        )
    exps = np.exp(scaled)  # the numerators of the softmax, as written by hand
    return HandSteps(
        scores=scores,
        scale=factor,
        scaled=scaled,
        exps=exps,
        total=exps.sum(axis=-1),  # [..., L]
        weights=attention_weights(q, k, scale=factor),
        output=scaled_dot_product_attention(q, k, v, scale=factor),
    )


def sentence_example():
    """The seed's sentence "나는 사과를 먹었다" as Q, K, V (3, 2); row 1 is the seed's example.

    Token ``i`` of :data:`attn_core.SENTENCE_KO` has query ``Q[i]``, key ``K[i]``
    and value ``V[i]``. K and V are the seed's keys and values, and ``Q[1]``,
    the query of "사과를" (the apple), is the seed's q = (1, 0): as in the
    seed article, "사과" looks at "나는" (I) and "먹었다" (ate), so row 1 of
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
    >>> bool((ex.query[1] == seed_example().query).all())
    True
    """
    seed = seed_example()
    queries = np.array([[1.0, 1.0], seed.query, [0.0, 1.0]])  # 나는, 사과를, 먹었다
    return WorkedExample(query=queries, keys=seed.keys, values=seed.values)


def trace_self_attention(layer, x):
    """Run a :class:`attn_core.SimpleSelfAttention` and keep every intermediate array.

    Parameters
    ----------
    layer : SimpleSelfAttention
    x : array_like, shape (B, T, D)
        ``D`` must be ``layer.embed_dim``.

    Returns
    -------
    dict of str to ndarray
        ``x`` (B, T, D); ``q``, ``k``, ``v`` (B, T, D); ``scores`` (B, T, T) before
        scaling; ``attention`` (B, T, T); ``output`` (B, T, D) — the last two equal
        to what ``layer(x)`` returns.

    Examples
    --------
    >>> from attn_core import SimpleSelfAttention
    >>> trace = trace_self_attention(SimpleSelfAttention(4, np.random.default_rng(0)),
    ...                              np.ones((2, 3, 4)))
    >>> {name: arr.shape for name, arr in trace.items()}["scores"]
    (2, 3, 3)
    """
    x = as_float_array(x, "x")
    output, attention = layer(x)  # validates x against layer.embed_dim
    q, k, v = layer.project(x)  # [B, T, D] each
    scores = dot_scores(q, k)  # [B, T, D] @ [B, D, T] -> [B, T, T]
    names = ("x", "q", "k", "v", "scores", "attention", "output")
    return dict(zip(names, (x, q, k, v, scores, attention, output), strict=True))


class StepTable(NamedTuple):
    """A small table of strings that displays as Markdown, HTML or plain text.

    Jupyter picks the HTML; a static site whose Markdown renderer has no tables
    (CommonMark) still gets a real table; ``repr`` (and so nbval) sees the Markdown.
    """

    header: tuple
    rows: tuple

    def _repr_markdown_(self):
        rule = "|---|" + "---:|" * (len(self.header) - 1)  # labels left, numbers right
        lines = [_md_row(self.header), rule, *(_md_row(row) for row in self.rows)]
        return "\n".join(lines)

    def _repr_html_(self):
        head = "".join(_html_cell("th", h, "center") for h in self.header)
        body = "".join(
            "<tr>"
            + "".join(_html_cell("td", c, "right" if j else "left") for j, c in enumerate(row))
            + "</tr>"
            for row in self.rows
        )
        return (
            f'<table class="step-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
        )

    def __repr__(self):
        return self._repr_markdown_()


def step_table(columns, *, index=None, footer=None, digits=3):
    """A table of numbers rounded to ``digits`` decimals, one column per entry of ``columns``.

    Parameters
    ----------
    columns : dict of str to array_like
        Column header -> values (1-D, all of length N). Strings pass unchanged.
    index : sequence of str, optional
        Row labels, shown in a first, unnamed column.
    footer : tuple of (str, dict of str to number), optional
        A last row: its label and the cells it fills (e.g. ``("sum", {"e^s": 5.056})``);
        the other columns stay empty.
    digits : int, default 3
        Decimals shown for numbers.

    Returns
    -------
    StepTable

    Examples
    --------
    >>> step_table({"score": [1, 0]}, index=["k1", "k2"], footer=("sum", {"score": 1}))
    |  | score |
    |---|---:|
    | k1 | 1.000 |
    | k2 | 0.000 |
    | sum | 1.000 |
    """
    cols = {name: list(np.ravel(np.asarray(v, dtype=object))) for name, v in columns.items()}
    n = len(index) if index is not None else len(next(iter(cols.values()), []))
    if any(len(vals) != n for vals in cols.values()):
        lengths = {name: len(vals) for name, vals in cols.items()}
        raise ValueError(f"columns must all have {n} rows, got lengths {lengths}")
    labelled = index is not None or footer is not None
    labels = [str(label) for label in index] if index is not None else [""] * n
    rows = [[labels[i]] * labelled + [_cell(cols[c][i], digits) for c in cols] for i in range(n)]
    if footer is not None:
        label, cells = footer
        if set(cells) - set(cols):
            raise ValueError(f"footer names unknown columns: {sorted(set(cells) - set(cols))}")
        rows.append([label] + [_cell(cells[c], digits) if c in cells else "" for c in cols])
    header = [""] * labelled + list(cols)
    return StepTable(tuple(header), tuple(tuple(row) for row in rows))


def _cell(value, digits):
    return value if isinstance(value, str) else f"{float(value):.{digits}f}"


def _md_row(cells):
    return "| " + " | ".join(cells) + " |"


def _html_cell(tag, text, align):
    escaped = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f'<{tag} style="padding:0.15em 0.9em;text-align:{align}">{escaped}</{tag}>'
