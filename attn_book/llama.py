"""Chapter 13's model run by hand: SmolLM2-135M-Instruct (a Llama) from its GGUF file, every
step of attention through attn_core.

A layer is the book's functions in order: ``rms_norm`` (chapter 11), the projections
(chapter 5), ``split_heads`` (chapter 7), ``rotary`` with the halves layout (chapter 6),
grouped-query attention with a causal mask (``scaled_dot_product_attention(...,
enable_gqa=True)``, chapters 2, 7 and 10), ``merge_heads`` and W_O, then SwiGLU; both
halves add to the residual stream. The unembedding is the embedding itself (tied).

What is not maths lives elsewhere: the file in :mod:`attn_book.gguf`, the tokens in
:mod:`attn_book.tokenizer`, the file's place in :mod:`attn_book.model`.

llama.cpp's converter permutes the rows of W_Q and W_K (``permute`` in
``convert_hf_to_gguf.py``) so that RoPE rotates adjacent pairs (2i, 2i + 1); here each head's
rows go back to Hugging Face's order, where RoPE rotates (i, i + 64/2): attn_core's
``interleaved_to_halves``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

import attn_core as ac

from . import gguf, model
from .timing import one_blas_thread
from .tokenizer import Tokenizer

__all__ = [
    "Config",
    "KVCache",
    "Layer",
    "Model",
    "attention_block",
    "feed_forward_block",
    "forward",
    "generate",
    "load_model",
    "swiglu",
    "unpermute_rows",
]


class Config(NamedTuple):
    """The numbers of a Llama that the GGUF's metadata gives."""

    n_layers: int
    d_model: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    d_ff: int
    vocab: int
    context: int
    rope_base: float
    eps: float

    @classmethod
    def from_metadata(cls, meta):
        arch = meta["general.architecture"]
        if arch != "llama":
            raise gguf.GGUFError(f"the model is a {arch!r}, not a 'llama'")
        n_heads = int(meta["llama.attention.head_count"])
        d_model = int(meta["llama.embedding_length"])
        return cls(
            n_layers=int(meta["llama.block_count"]),
            d_model=d_model,
            n_heads=n_heads,
            n_kv_heads=int(meta.get("llama.attention.head_count_kv", n_heads)),
            head_dim=int(meta.get("llama.rope.dimension_count", d_model // n_heads)),
            d_ff=int(meta["llama.feed_forward_length"]),
            vocab=len(meta["tokenizer.ggml.tokens"]),
            context=int(meta["llama.context_length"]),
            rope_base=float(meta["llama.rope.freq_base"]),
            eps=float(meta["llama.attention.layer_norm_rms_epsilon"]),
        )


class Layer(NamedTuple):
    """One layer's weights, float32, each matrix (out, in) as ``x @ w.T`` uses it."""

    attn_norm: np.ndarray  # (d_model,)
    w_q: np.ndarray  # (n_heads * head_dim, d_model), rows in the halves layout
    w_k: np.ndarray  # (n_kv_heads * head_dim, d_model), rows in the halves layout
    w_v: np.ndarray  # (n_kv_heads * head_dim, d_model)
    w_o: np.ndarray  # (d_model, n_heads * head_dim)
    ffn_norm: np.ndarray  # (d_model,)
    w_gate: np.ndarray  # (d_ff, d_model)
    w_up: np.ndarray  # (d_ff, d_model)
    w_down: np.ndarray  # (d_model, d_ff)


class Model(NamedTuple):
    config: Config
    embedding: np.ndarray  # (vocab, d_model), also the unembedding
    layers: list
    final_norm: np.ndarray  # (d_model,)
    tokenizer: Tokenizer


def unpermute_rows(w, n_heads):
    """Undo llama.cpp's permutation of W_Q's or W_K's rows, head by head.

    The converter stores head h's row 2i as Hugging Face's row i and row 2i + 1 as row
    i + head_dim/2; taking the even rows, then the odd ones, restores the order.

    >>> unpermute_rows(np.arange(8.0)[:, None], 2)[:, 0]  # two heads of 4 rows
    array([0., 2., 1., 3., 4., 6., 5., 7.])
    """
    rows, d_in = w.shape
    per_head = w.reshape(n_heads, rows // n_heads, d_in)  # [H, head_dim, d_in]
    halves = ac.interleaved_to_halves(np.swapaxes(per_head, -1, -2))  # reorder head_dim
    return np.swapaxes(halves, -1, -2).reshape(rows, d_in)


def load_model(path=None, *, verify=True):
    """Read, dequantise to float32 and un-permute every tensor of the model (about 540 MB).

    ``path`` defaults to :func:`attn_book.model.require_model` (one clear error without the
    file); ``verify`` first checks its SHA-256 (a tampered file is refused).
    """
    path = model.require_model() if path is None else path
    if verify and model.sha256_of(path) != model.MODEL_SHA256:
        raise model.ModelTamperedError(
            f"{path}'s SHA-256 is not {model.MODEL_SHA256}: the file is not the one the chapter "
            "was written with. Delete it and run `make model` again."
        )
    f = gguf.read_gguf(path)
    cfg = Config.from_metadata(f.metadata)

    def t(name):
        return f.tensor(name)

    layers = []
    for i in range(cfg.n_layers):
        b = f"blk.{i}."
        layers.append(
            Layer(
                attn_norm=t(b + "attn_norm.weight"),
                w_q=unpermute_rows(t(b + "attn_q.weight"), cfg.n_heads),
                w_k=unpermute_rows(t(b + "attn_k.weight"), cfg.n_kv_heads),
                w_v=t(b + "attn_v.weight"),
                w_o=t(b + "attn_output.weight"),
                ffn_norm=t(b + "ffn_norm.weight"),
                w_gate=t(b + "ffn_gate.weight"),
                w_up=t(b + "ffn_up.weight"),
                w_down=t(b + "ffn_down.weight"),
            )
        )
    embedding = t("token_embd.weight")
    return Model(cfg, embedding, layers, t("output_norm.weight"), Tokenizer.from_gguf(f))


def swiglu(x, w_gate, w_up, w_down):
    r"""The feed-forward block of Llama (Shazeer, 2020): :math:`(\mathrm{SiLU}(x W_g^\top) \odot
    x W_u^\top) W_d^\top`, with :math:`\mathrm{SiLU}(z) = z \cdot \sigma(z)`.

    >>> swiglu(np.ones((1, 1)), np.ones((1, 1)), np.full((1, 1), 2.0), np.ones((1, 1))).round(4)
    array([[1.4621]])
    """
    gate = x @ w_gate.T  # [T, d_ff]
    return (gate / (1.0 + np.exp(-gate)) * (x @ w_up.T)) @ w_down.T  # [T, d_ff] @ [d_ff, d]


class KVCache:
    """Each layer's rotated keys and values so far, [n_kv_heads, S, head_dim] (chapter 10)."""

    def __init__(self, n_layers):
        self.keys = [None] * n_layers
        self.values = [None] * n_layers

    @property
    def length(self):
        return 0 if self.keys[0] is None else self.keys[0].shape[-2]

    def extend(self, layer, k, v):
        """Append this step's keys and values; return everything cached for the layer."""
        if self.keys[layer] is not None:
            k = np.concatenate([self.keys[layer], k], axis=-2)
            v = np.concatenate([self.values[layer], v], axis=-2)
        self.keys[layer], self.values[layer] = k, v
        return k, v

    def nbytes(self):
        return sum(a.nbytes for a in self.keys + self.values if a is not None)


def attention_block(
    x, layer, cfg, positions, cache=None, index=0, weights=None, layout="halves", zeroed=()
):
    """x + attention(RMSNorm(x)): x [T, d_model] at ``positions`` [T]; with a cache, the
    queries also attend to the cached keys (bottom-right causal mask). ``weights``, a list,
    receives the attention weights [n_heads, T, S]. ``layout`` is RoPE's pairing, "halves"
    for the un-permuted rows `load_model` gives, "interleaved" for the file's own rows.
    ``zeroed``: query heads whose output is set to 0 before W_O (an ablation), as if their
    columns of W_O were 0."""
    h = ac.rms_norm(x, layer.attn_norm, eps=cfg.eps)  # [T, d]
    q = ac.split_heads(h @ layer.w_q.T, cfg.n_heads)  # [Hq, T, 64]
    k = ac.split_heads(h @ layer.w_k.T, cfg.n_kv_heads)  # [Hkv, T, 64]
    v = ac.split_heads(h @ layer.w_v.T, cfg.n_kv_heads)  # [Hkv, T, 64]
    q = ac.rotary(q, positions, cfg.rope_base, layout=layout)
    k = ac.rotary(k, positions, cfg.rope_base, layout=layout)
    if cache is not None:
        k, v = cache.extend(index, k, v)  # [Hkv, S, 64]
    mask = ac.causal_mask_lower_right(q.shape[-2], k.shape[-2])  # [T, S]
    if weights is not None:
        weights.append(ac.attention_weights(q, k, mask, enable_gqa=True))  # [Hq, T, S]
    out = ac.scaled_dot_product_attention(q, k, v, mask, enable_gqa=True)  # [Hq, T, 64]
    if len(zeroed):
        out[list(zeroed)] = 0.0
    return x + ac.merge_heads(out) @ layer.w_o.T  # [T, Hq * 64] @ [Hq * 64, d]


def feed_forward_block(x, layer, cfg):
    """x + SwiGLU(RMSNorm(x))."""
    h = ac.rms_norm(x, layer.ffn_norm, eps=cfg.eps)
    return x + swiglu(h, layer.w_gate, layer.w_up, layer.w_down)


def forward(m, ids, cache=None, weights=None, layout="halves", ablate=()):
    """The logits [T, vocab] of token ids [T]; with a cache, the ids follow its contents.

    ``ablate``: (layer, head) pairs whose attention output is zeroed (zero-ablation), to see
    what the model loses without them; empty (the default), the model as it is.

    BLAS runs on one thread here (:func:`attn_book.timing.one_blas_thread`): the products have
    a few dozen rows at most, and a second thread mostly waits. Measured on the 2-core machine
    that built chapter 13, with other programs busy: a 5-token forward pass took 0.18 s of
    processor time on one thread and 1.5-1.7 s on two; idle, two threads gain little.
    """
    ids = np.asarray(ids)
    start = 0 if cache is None else cache.length
    if ids.ndim != 1 or ids.size == 0 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"ids must be a non-empty 1-D list of token ids, got {ids!r}")
    if ids.min() < 0 or ids.max() >= m.config.vocab:
        raise ValueError(
            f"token ids must be 0 to {m.config.vocab - 1}, got {ids.min()}-{ids.max()}"
        )
    if start + ids.size > m.config.context:
        raise ValueError(
            f"{start + ids.size} tokens do not fit in the model's context of {m.config.context}"
        )
    positions = np.arange(start, start + ids.size)
    ablate = [(int(i), int(h)) for i, h in ablate]
    if any(not (0 <= i < m.config.n_layers and 0 <= h < m.config.n_heads) for i, h in ablate):
        raise ValueError(
            f"ablate takes (layer, head) pairs with layer 0 to {m.config.n_layers - 1} and head"
            f" 0 to {m.config.n_heads - 1}, got {ablate}"
        )
    with one_blas_thread():
        x = m.embedding[ids]  # [T, d]
        for i, layer in enumerate(m.layers):
            zeroed = [h for j, h in ablate if j == i]
            x = attention_block(x, layer, m.config, positions, cache, i, weights, layout, zeroed)
            x = feed_forward_block(x, layer, m.config)
        x = ac.rms_norm(x, m.final_norm, eps=m.config.eps)
        return x @ m.embedding.T  # [T, d] @ [d, vocab]: the tied unembedding


def generate(m, ids, n_new, *, use_cache=True, stop=None):
    """Greedy decoding: ``n_new`` more ids after ``ids`` (fewer if ``stop`` comes)."""
    ids = list(ids)
    cache = KVCache(m.config.n_layers) if use_cache else None
    new = []
    logits = forward(m, ids, cache)
    for _ in range(n_new):
        nxt = int(np.argmax(logits[-1]))
        new.append(nxt)
        if nxt == stop:
            break
        if use_cache:
            logits = forward(m, [nxt], cache)
        else:
            logits = forward(m, ids + new)
    return new
