# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # A real model, opened by hand (진짜 모델을 손으로 열기)
#
# <!-- DRAFT (issue 44): the skeleton of chapter 13. Not in _toc.yml, no Korean catalog, no
# exercises module yet; it lives in book/drafts/ so that the chapter tests (pairing, catalogs,
# nbval) do not collect it before it is finished. Move it to book/13_real_model.py then. -->
#
# Every number so far came from a toy: three keys, six words, a layer trained in numpy for a
# minute. This chapter opens a model that was trained on trillions of tokens,
# HuggingFaceTB's SmolLM2-135M-Instruct ([Allal et al., 2025](references.md)), and runs it
# with nothing but the functions of the earlier chapters: the file read byte by byte, the
# text cut into tokens, thirty layers of attention computed with `attn_core`, down to the
# probabilities of the next word. Then we look inside: what its 270 trained heads attend to.
#
# After this chapter you will be able to:
#
# - read a GGUF file's header and tensor table, and dequantise a 4-bit block by hand;
# - cut a sentence into byte-level BPE tokens, merge by merge;
# - run one layer of a real model with `rms_norm`, the projections, RoPE, grouped-query
#   attention, the causal mask and SwiGLU, and check it against a plain loop;
# - generate text greedily with a KV cache, and say what the cache costs for this model;
# - find the attention sink, previous-token heads and induction heads in trained weights.

# %%
import time

import attn_core as ac
import numpy as np
from attn_book import gguf, llama, model
from attn_book.prose import dec, grouped, percent, plain
from attn_book.timing import one_blas_thread
from attn_book.tokenizer import chat_prompt

chapter_start = time.perf_counter()

# %% [markdown]
# ## The file
#
# The model is one file of 98 MB, fetched once by `make model` (which `make lab` runs) and
# checked against its SHA-256. Without it, the next cell says which command fetches it.

# %%
path = model.require_model()
gguf_file = gguf.read_gguf(path)
head = bytes(gguf_file.buffer[:24])
head[:4], int.from_bytes(head[4:8], "little"), len(gguf_file.tensors)

# %% [markdown]
# A GGUF file (llama.cpp's format) starts with four letters, `GGUF`, then its version
# ({eval}`gguf_file.version`), the number of tensors ({eval}`len(gguf_file.tensors)`) and the
# number of metadata entries ({eval}`len(gguf_file.metadata)`). The metadata say what the model
# is; the tensor table says where each matrix is and in which format.

# %%
meta = gguf_file.metadata
{k: meta[k] for k in meta if k.startswith("llama.")}

# %%
{name: (t.shape, t.type) for name, t in gguf_file.tensors.items() if name.startswith("blk.0.")}

# %% [markdown]
# TODO(prose): read the table: 30 layers of 576 features; W_Q 576 × 576 but W_K and W_V
# 192 × 576, three key/value heads of 64 for nine query heads (chapter 10's GQA); no
# `output.weight`: the unembedding is the embedding (tied).
#
# ## One 4-bit block by hand (양자화 블록)
#
# Most matrices are stored in Q4_1: blocks of 32 numbers, each block 20 bytes, a float16 scale
# $d$, a float16 minimum $m$, and 32 codes of four bits, two to a byte. A weight is
#
# $$
# w = d \cdot q + m, \qquad q \in \{0, 1, \dots, 15\}.
# $$ (eq-ch13-q4-1)

# %%
block = gguf_file.raw("blk.0.attn_q.weight")[:20]  # the first 20 bytes: one block
d = np.frombuffer(block[0:2].tobytes(), "<f2")[0]
m_min = np.frombuffer(block[2:4].tobytes(), "<f2")[0]
codes = np.concatenate([block[4:] & 0x0F, block[4:] >> 4])  # low nibbles: 0-15, high: 16-31
by_hand = d.astype(np.float32) * codes + m_min.astype(np.float32)
stored_row = gguf_file.tensor("blk.0.attn_q.weight")[0, :32]
d, m_min, codes[:4], by_hand[:4], np.array_equal(by_hand, stored_row)

# %% [markdown]
# The block's scale is {eval}`plain(d)` and its minimum {eval}`plain(m_min)`; its first code
# {eval}`int(codes[0])` gives {eval}`plain(d)` × {eval}`int(codes[0])` + ({eval}`plain(m_min)`)
# = {eval}`plain(by_hand[0])`. 20 bytes for 32 numbers is 5 bits a number, against 32 for
# float32. TODO(prose): what the rounding loses (16 levels per block), why a minimum and not
# only a scale.
#
# ## Tokens (토큰)

# %%
m = llama.load_model(path)  # every tensor dequantised to float32 (about 540 MB)
tok = m.tokenizer
steps = []
tok.bpe("attention", steps)
[(" + ".join(pair), rank) for pair, rank, _ in steps]

# %% [markdown]
# TODO(prose): the merges in the order of the list; "attention" is one token
# ({eval}`tok.encode("attention")`), " attention" another.

# %%
english = "Attention is all you need."
korean = "어텐션만 있으면 된다."
len(tok.encode(english)), len(tok.encode(korean))

# %% [markdown]
# TODO(prose): the English sentence costs {eval}`len(tok.encode(english))` tokens, its Korean
# twin {eval}`len(tok.encode(korean))`: this vocabulary was learnt on English text, and Korean
# falls back to bytes (a Hangul syllable is three bytes in UTF-8).
#
# ## One layer with the book's functions

# %%
cfg = m.config
prompt_ids = tok.encode("The capital of France is")
x = m.embedding[prompt_ids]  # [T, 576]: each token's row of the embedding
layer = m.layers[0]
positions = np.arange(len(prompt_ids))
h = ac.rms_norm(x, layer.attn_norm, eps=cfg.eps)  # chapter 11
q = ac.split_heads(h @ layer.w_q.T, cfg.n_heads)  # chapter 5's projection, chapter 7's heads
k = ac.split_heads(h @ layer.w_k.T, cfg.n_kv_heads)  # [3, T, 64]: three key heads
v = ac.split_heads(h @ layer.w_v.T, cfg.n_kv_heads)
q = ac.rotary(q, positions, cfg.rope_base, layout="halves")  # chapter 6
k = ac.rotary(k, positions, cfg.rope_base, layout="halves")
attended = ac.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
after_attention = x + ac.merge_heads(attended) @ layer.w_o.T  # the residual stream
np.abs(after_attention - llama.attention_block(x, layer, cfg, positions)).max()

# %% [markdown]
# TODO(prose): each step named with its chapter; query head $h$ reads key/value head
# $\lfloor h / 3 \rfloor$ ({eval}`[h // (cfg.n_heads // cfg.n_kv_heads) for h in range(cfg.n_heads)]`);
# the un-permutation of W_Q and W_K (llama.cpp stores the rows for adjacent-pair RoPE);
# SwiGLU; the check against a plain loop (tests/test_llama.py).
#
# ## Thirty layers and the next word

# %%
logits = llama.forward(m, prompt_ids)  # [T, 49152]
probs = ac.softmax(logits[-1])  # chapter 2
top = np.argsort(probs)[::-1][:5]
[(tok.decode([i]), round(float(probs[i]), 3)) for i in top]

# %% [markdown]
# TODO(prose): the top five next tokens and their probabilities.
#
# ## Generating with the KV cache

# %%
question = "What is the capital of France?"
chat_ids = tok.encode(chat_prompt(question))
with one_blas_thread():
    t0 = time.perf_counter()
    answer_ids = llama.generate(m, chat_ids, 20, stop=2)
    seconds_cached = time.perf_counter() - t0
    t0 = time.perf_counter()
    answer_recomputed = llama.generate(m, chat_ids, 20, stop=2, use_cache=False)
    seconds_recomputed = time.perf_counter() - t0
answer = tok.decode(answer_ids)
answer, answer_ids == answer_recomputed

# %% [markdown]
# TODO(prose): the chat template; the answer "{eval}`answer`"; with the cache in
# {eval}`dec(seconds_cached, 2)` s, recomputing everything at each step in
# {eval}`dec(seconds_recomputed, 2)` s (this machine; tag the timing cell nbval-ignore-output).

# %%
n_cache = len(chat_ids) + len(answer_ids)
gqa_bytes = ac.kv_cache_bytes(cfg.n_layers, cfg.n_kv_heads, cfg.head_dim, cfg.context, 2)
mha_bytes = ac.kv_cache_bytes(cfg.n_layers, cfg.n_heads, cfg.head_dim, cfg.context, 2)
gqa_bytes / 2**20, mha_bytes / 2**20

# %% [markdown]
# At the full context of {eval}`grouped(cfg.context)` tokens in float16 the cache holds
# {eval}`dec(gqa_bytes / 2**20, 0)` MiB; nine key/value heads would hold three times that,
# {eval}`dec(mha_bytes / 2**20, 0)` MiB.
#
# ## What trained heads do
#
# ### The attention sink (어텐션 싱크)

# %%
sink_text = (
    "The quick brown fox jumps over the lazy dog because it wanted to see what was on "
    "the other side of the big old fence"
)
sink_ids = tok.encode(sink_text)
weights = []  # one [9, T, T] per layer
llama.forward(m, sink_ids, weights=weights)
on_first = np.array([w[:, 1:, 0].mean(-1) for w in weights])  # [30, 9]: mean weight on token 0
sink_share = (on_first[5:] > 0.5).mean()
(on_first > 0.5).sum(axis=1)

# %% [markdown]
# From layer 5 on, {eval}`percent(sink_share)` of the heads put more than half their weight on
# the first token, whatever it is (chapter 11's sink). TODO: a figure, layer by layer.
#
# ### Previous-token and induction heads (유도 헤드)

# %%
rng = np.random.default_rng(13)
half = rng.integers(1000, 20000, size=24)  # random tokens, then the same again
repeated = np.concatenate([half, half])
weights_rep = []
llama.forward(m, repeated, weights=weights_rep)
R = len(half)
rows = np.arange(R, 2 * R)  # the second copy's positions
induction = np.array([w[:, rows, rows - R + 1].mean(-1) for w in weights_rep])  # [30, 9]
previous = np.array([w[:, rows, rows - 1].mean(-1) for w in weights_rep])  # [30, 9]
best_induction = np.unravel_index(induction.argmax(), induction.shape)
best_previous = np.unravel_index(previous.argmax(), previous.shape)
best_induction, induction.max(), best_previous, previous.max()

# %% [markdown]
# TODO(prose): an induction head (Olsson et al., 2022) at a token of the second copy looks at
# the token after its earlier occurrence; layer {eval}`int(best_induction[0])` head
# {eval}`int(best_induction[1])` puts {eval}`dec(induction.max())` of its weight there.
# TODO: the figure that lets the reader pick a layer and a head (stored weights on the site).
#
# ## Exercises
#
# TODO (attn_book/exercises/ch13_real_model.py, both languages): dequantise a block by hand;
# the tokens of a word from its merges; one head's weight for one token from its real q and
# k; which key/value head a query head reads; the cache bytes; find the induction head.
#
# ## Summary
#
# TODO.
#
# ## How long this chapter took

# %% tags=["nbval-ignore-output"]
chapter_seconds = time.perf_counter() - chapter_start
round(chapter_seconds, 1)
