"""Interactive figures (anywidget) of *Attention by Hand*.

Imported explicitly (``from attn_book.widgets import QueryPad``); ``import attn_core``
does not load them. Each figure is an anywidget whose Python side owns the state as
traitlets and computes with :mod:`attn_core`; its JavaScript draws (SVG) and recomputes
the small maths with ``attn_math.js`` (tested equal to attn_core), so a figure still
responds to the mouse on the static site with no kernel. Show one by making it the last
expression of a cell: ``QueryPad()``. Setting an input trait from code recomputes the
outputs, e.g. ``pad.query = (0.3, 0.8)`` updates ``pad.weights``.

Figures
-------
QueryPad(query=(1, 0), key_vectors=seed keys, value_vectors=seed values, scaled=True,
         temperature=1.0, show=("weights", "scale", "temperature", "values"))
    A 2-D plane: drag the query q (a ring), the keys k (dots) and the values v (squares);
    arrow keys move the focused vector. ``show`` picks the parts beyond q·k and cos θ, so a
    chapter introduces them one by one (chapter 1: ``show=()``). Shows q·k (내적), cos θ,
    the scaled score, the weights as bars and the output o = Σ w v. Inputs: ``query`` (2,),
    ``key_vectors`` (S, 2), ``value_vectors`` (S, 2), ``scaled`` (bool: multiply by
    1/√d_k), ``temperature``.
    Outputs: ``dots``, ``cosines``, ``scores``, ``weights`` (S,), ``output`` (2,),
    ``entropy``. Starts at the Quanta write-up's example: weights 0.401/0.198/0.401,
    o = (1.203, 0.797).
SoftmaxBars(scores=(2, 1, 0.1), temperature=1.0, shift=0.0)
    Drag score bars up and down; the weights follow. ``shift`` adds a constant to every
    score (try 1000): the max-subtracted softmax is unchanged while the naive formula
    overflows. Outputs: ``weights`` (S,), ``naive_weights`` (S,; NaN where it overflows,
    sent as None), ``entropy``.
ScalingExplorer(d_k=64, seed=0, n_keys=16, n_samples=400)
    Random unit-variance q and k: the spread of q·k with and without 1/√d_k, and what
    softmax does with it (largest weight, entropy, gradient size), for d_k = 1 ... 1024
    (the slider's stops and the curves' points); each histogram's range covers every score.
    Everything random is drawn in Python (seeded); the JS only redraws. Outputs: ``table``
    (one dict per d_k in ``dims``), ``current`` (the row for ``d_k``).
AttentionHeatmap(query_tokens=SENTENCE_KO, key_tokens=None, d_model=8, n_heads=2, head=0,
                 scaled=True, temperature=1.0, causal=False, selected=0, seed=0)
    Tokens × tokens weights of (cross-)attention over toy embeddings
    (attn_book.data.toy_embeddings) and seeded random projections. Hover or click a token row
    to select it (its weights are listed); temperature, scale, causal mask and head
    controls. ``key_tokens=None`` means self-attention. Outputs: ``weights`` (L, S) of the
    current head, ``row`` (S,) for ``selected``; inputs for the JS: ``head_queries``
    (H, L, d_head), ``head_keys`` (H, S, d_head). ``query_vectors`` (L, E) with
    ``key_vectors`` (S, E), e.g. ``X @ W_Q`` and ``X @ W_K``, replace the random
    projections by one head of explicit queries and keys (chapter 5). ``stored_weights``
    (layers, heads, L, S) are drawn as given, with a layer slider (←/→ on the heatmap):
    ``AttentionHeatmap.from_model("induction")`` holds every layer and head of chapter 13's
    model on a prompt (attn_book.head_weights: computed, or stored where the model is absent).
MemoryCalculator(n=32768, heads=32, batch=1, dtype="float16", kv_cache=False, layers=32,
                 kv_heads=8, d_head=128)
    The bytes of one layer's attention weights, batch · heads · n² · bytes
    (attn_core.attention_cost's score_bytes), as a bar on a log axis against a laptop's and
    a GPU's memory, with where 32k and 128k tokens land. Sliders: n (by doublings, 128 to
    131072), heads, batch; a dtype menu. Output: ``weight_bytes``. With ``kv_cache=True``
    (chapter 10) a second bar shows a model's KV cache, 2 · batch · layers · kv_heads ·
    d_head · n · bytes (attn_core.kv_cache_bytes), with sliders for the layers and the KV
    heads, and the 32k/128k marks follow it. Output: ``kv_cache_bytes``. With ``kind``
    "window" (r local layers of ``window`` tokens to each global one, r = ``ratio``), "mla"
    (a latent of ``d_latent`` + ``d_rope`` numbers, against MHA, GQA and MQA) or "hybrid"
    (r linear-attention layers of ``state_heads`` d_state × d_state states to each full
    one), the bars compare that cache with the plain KV cache, with its totals at 32k, 128k
    and 1M tokens; ``preset`` starts from a published model (``PRESETS``), ``presets``
    offers a menu of them. Output: ``cache_bytes``.
WindowSinks(tokens=chapter 11's six words, query_vectors=…, key_vectors=…, value_vectors=…,
            step=n - 1, window=3, sink=False, sink_logit=1.0, gate=False, gate_logit=0.0)
    Chapter 11's sliding window (attn_core.sliding_window_mask) as one query's row: the
    weights of token ``step`` over the keys (those outside the window, or not yet written,
    greyed out), the sink's share as its own bar (gpt-oss's sink logit z joined to the
    softmax, ``attn_core.attention_weights(..., sinks=z)``) and the row's sum, the output
    with an optional sigmoid gate (attn_core.output_gate), and the ring buffer of W slots
    (attn_core.KVCache(window=W)): token t in slot t mod W, the slot just written marked,
    the key it overwrote shown leaving. Sliders for t, W and the two logits; a tap or drag
    across the words moves t. Outputs: ``weights`` (n,), ``sink_share``, ``row_sum``,
    ``output``, ``gated_output``, ``slots`` (the position in each slot), ``written``,
    ``evicted``.
StateFiller(n_pairs=3, d_k=4, d_v=4, rewrite=True, seed=0, method="delta", step=T, query=0,
            beta=1.0, softmax_scale=16)
    Chapter 12's memory filled token by token: N unit key–value pairs
    (attn_book.recall.recall_task, seeded), each key written twice with ``rewrite``
    (T = 2N tokens). A three-way switch chooses the memory: softmax attention's KV cache
    (drawn as it grows, a key and a value a token), linear attention's state
    S = Σ k vᵀ or the delta rule's (writing strength ``beta``), each a d_k × d_v heatmap
    (purple–orange, the delta rule's Sᵀ). Step with buttons, a slider, a tap or a drag
    along the tokens, or the arrow keys; choose the stored key to ask with. Shows the
    recalled value beside the newest one written under that key (bars, and the error
    ‖recalled − true‖) and the delta rule's correction v − S k of the last token.
    Outputs (attn_core, ``state_filler.fill``): ``state`` (d_k, d_v), ``weights``
    (softmax's, over the cache), ``recalled``, ``target``, ``written``, ``error``,
    ``correction``.

Colours are colour-blind safe (Okabe–Ito for vectors, viridis for heatmaps, purple–orange
for a signed state), dragging
never selects text, and figures on one page share no state and no element ids.
"""

from .attention_heatmap import AttentionHeatmap
from .memory_calculator import MemoryCalculator
from .query_pad import QueryPad
from .scaling_explorer import ScalingExplorer
from .softmax_bars import SoftmaxBars
from .state_filler import StateFiller
from .window_sinks import WindowSinks

__all__ = [
    "AttentionHeatmap",
    "MemoryCalculator",
    "QueryPad",
    "ScalingExplorer",
    "SoftmaxBars",
    "StateFiller",
    "WindowSinks",
]
