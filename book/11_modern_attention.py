# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Attention as 2026 models ship it (2026년 모델이 쓰는 어텐션)
#
# [Chapter 10](10_generation.ipynb) stopped at grouped-query attention, the attention of 2023.
# Open the configuration and the weights of a model you can download today and you find
# attention fields and parameters the book has not computed yet: a `sliding_window` and a list
# of `layer_types`, a `sinks` parameter in every layer, `q_norm` and `k_norm`, a `kv_lora_rank`. Each is a small change to the
# formula of [Chapter 4](04_worked_example.ipynb), and each answers a problem the earlier
# chapters met: the cache that grows with every token (Chapter 10), the softmax row that
# cannot look nowhere (Chapter 10), the scores that grow too large
# ([Chapter 3](03_scaling.ipynb)). This chapter computes each of them by hand on the book's own
# examples.
#
# After this chapter you will be able to:
#
# - draw the band mask of sliding-window attention (슬라이딩 윈도우 어텐션), say how far back
#   a stack of windowed layers sees, run the ring-buffer KV cache (링 버퍼) by hand, and
#   work out what a model that mixes local and global layers saves;
# - say why trained models park weight on their first tokens (attention sinks, 어텐션 싱크),
#   and compute, on the worked example, what a learned sink logit takes from a row;
# - apply an output gate (게이트) to a head, and bound a score under QK-norm (QK 정규화)
#   and under logit soft-capping (로짓 소프트 캡핑);
# - compute multi-head latent attention (멀티헤드 잠재 어텐션, MLA) both ways, naive and
#   absorbed, show they agree, and size its cache against MHA, GQA and MQA;
# - read the attention fields of a model's configuration.
#
# That last skill is the thread: each section below computes what one field of a model's
# `config.json`, or a few, does to the formula, and the closing table gathers them. All five
# objectives are the core; the sections marked *Going further* add none.
#
# **The core of this chapter** is reading a model's attention configuration and computing, on
# the book's own examples, what each of its 2026 mechanisms does: the window's
# [band mask](11_modern_attention.ipynb#sliding-window-attention-the-band-mask), its
# [reach](11_modern_attention.ipynb#how-far-a-stack-of-windows-sees) and
# [ring buffer](11_modern_attention.ipynb#the-ring-buffer-cache),
# [local and global layers](11_modern_attention.ipynb#local-and-global-layers-as-shipped),
# [sinks](11_modern_attention.ipynb#attention-sinks-where-a-row-puts-weight-it-does-not-need),
# [gates](11_modern_attention.ipynb#gated-attention-a-gate-on-each-head-s-output),
# [QK-norm and soft-capping](11_modern_attention.ipynb#how-large-can-a-score-grow-qk-norm-and-soft-capping-qk),
# [MLA](11_modern_attention.ipynb#multi-head-latent-attention-mla) and
# [its cache](11_modern_attention.ipynb#what-mla-saves-at-deepseek-v3-s-size), gathered in
# [the fields of a model's configuration](11_modern_attention.ipynb#reading-a-model-s-configuration).
# The sections marked *Going further* count which MLA path runs when, what MLA's shared latent
# costs in serving, and Llama 4's chunked attention, and read four models of 2026 from their
# library code; a first reading can skip them, and no core section needs them.
#
# The chapter ends with exercises, in the order of its sections, that check your answer on
# the spot: run the cell and read the one-line verdict.
# %%
import math
import time

import attn_core as ac
import numpy as np
from attn_book.data import (
    GENERATED_KO,
    SENTENCE_KO,
    feature_vectors,
    quanta_example,
    sentence_projections,
)
from attn_book.exercises import ch11_modern_attention as ch11
from attn_book.figures import Figures
from attn_book.plots import plot_token_heatmaps
from attn_book.prose import dec, grouped, plain, vector
from attn_book.tables import step_table
from attn_book.widgets import MemoryCalculator

figures = Figures(chapter=11)
chapter_start = time.perf_counter()
# %% [markdown]
# ## Sliding-window attention: the band mask (슬라이딩 윈도우 어텐션)
#
# The causal mask of [Chapter 7](07_heads_and_masks.ipynb) lets token $t$ see every token
# before it, so the cache of Chapter 10 grows with every token written. A sliding window
# (슬라이딩 윈도우) of $W$ keys lets each query see only itself and the $W - 1$ tokens before
# it: query $i$ sees key $j$ when $0 \le i - j < W$. The mask is a band along the diagonal.
# Take Chapter 10's six words and $W = 3$:
# %%
tokens = list(SENTENCE_KO) + list(GENERATED_KO)  # 나는 사과를 먹었다 그리고 배를 샀다
X = feature_vectors(tokens)  # [6, 4]: chapter 5's four features
W_Q, W_K, W_V = sentence_projections()  # [4, 3] each
Q, K, V = X @ W_Q, X @ W_K, X @ W_V  # [6, 3] each
n, W = len(tokens), 3
for t, word in enumerate(tokens):  # each word's query, key and value
    print(f"{word:>3}  q = {vector(Q[t])}  k = {vector(K[t])}  v = {vector(V[t])}")
band = ac.sliding_window_mask(n, n, W)  # [6, 6] bool: 0 <= i - j < W
print(band.astype(int))
# %% [markdown]
# Each row has at most {eval}`W` ones: 샀다, the last word, sees 그리고, 배를 and itself, and
# no longer sees the sentence's subject 나는. (그리고 has none of Chapter 5's four features, so
# its query, key and value are all zero: its own row of weights is uniform, and as a key it
# scores zero against every query.) The weights are Chapter 4's, with the band as the mask:
# %%
window_weights = ac.attention_weights(Q, K, band)  # [6, 6], zero outside the band
window_out = window_weights @ V  # [6, 6] @ [6, 3] -> [6, 3]
# %% tags=["hide-input"]
figures.show(
    plot_token_heatmaps(
        [
            {
                "matrix": window_weights,
                "hidden": ~band,
                "rows": tokens,
                "cols": tokens,
                "title": f"sliding window, W = {W}",
            }
        ],
        xlabel="key (the words seen)",
        ylabel="query",
    ),
    "fig-band",
    "Sliding-window weights over the six words with $W = 3$: each query sees "
    "itself and the two words before it (grey: masked).",
)
# %% [markdown]
# **The convention trap.** {eval}`figures.ref("fig-band")` follows Hugging Face's
# implementations, `q - k < W`: $W$ keys, the query's own included. The Mistral 7B paper
# words the window as the positions $i - W$ to $i$ ([Jiang et al., 2023](references.md)),
# which read literally are $W + 1$ keys. Count the keys of the last row both ways:
# %%
keys_hf = int(band[-1].sum())  # q − k < W: W keys
keys_read_literally = int(ac.sliding_window_mask(n, n, W + 1)[-1].sum())  # i−W … i
keys_hf, keys_read_literally
# %% [markdown]
# {eval}`keys_hf` against {eval}`keys_read_literally`. When you port a model or compare two
# implementations, check which one a `sliding_window` field means: an off-by-one here changes
# no shape and raises no error, only the numbers.
#
# ```{admonition} The off-by-one in shipped code
# :class: dropdown
#
# It has happened in shipped code, starting with the model's own: the reference implementation Mistral published with Mistral 7B
# ([`one_file_ref.py`](https://github.com/mistralai/mistral-src/blob/c18d5b9166ffa16ce58827346ed56a28d2876e7e/one_file_ref.py))
# bands its prefill mask with `torch.triu(mask, diagonal=-sliding_window)`, which keeps the
# keys $i - W$ to $i$, $W + 1$ of them, while its ring buffer holds $W$, so its prefill and
# its decoding steps saw windows of different sizes. A user of
# Hugging Face transformers found that the same Mistral model's sliding window differed between
# two of its attention backends
# ([huggingface/transformers#29623](https://github.com/huggingface/transformers/issues/29623)).
# FlashAttention's `window_size=(left, right)` counts inclusively, so `(W, 0)` lets a query see
# $W + 1$ keys, like Mistral's wording read literally. NVIDIA's Megatron-Bridge passed the
# `sliding_window` of Gemma 2, Gemma 3, Mistral and gpt-oss to it unchanged, one key too many,
# and fixed it by subtracting 1
# ([NVIDIA-NeMo/Megatron-Bridge#2656](https://github.com/NVIDIA-NeMo/Megatron-Bridge/pull/2656)).
# ```
# %% [markdown]
# ## How far a stack of windows sees (수용 영역)
#
# One windowed layer lets a token see $W$ tokens. But the keys of layer 2 are made from layer
# 1's outputs, and each of those already mixed $W$ tokens. Whether token $j$ can reach token
# $i$ through $k$ layers is a path question: the band's $k$-th matrix power is nonzero at
# $(i, j)$ exactly when there is a path of $k$ steps, each inside the window. That is how a
# matrix power works: entry $(i, j)$ of $A^k$ is the sum, over every choice of the positions
# $m_1, \dots, m_{k-1}$ in between, of $A_{i m_1} A_{m_1 m_2} \cdots A_{m_{k-1} j}$, a product
# that is 1 when each of its $k$ steps lies in the window and 0 otherwise, so the entry
# counts the paths. The idea is
# Longformer's, where stacked windows reach far ([Beltagy et al., 2020](references.md)).
# Take 16 positions and $W = 3$, and count what the last position reaches:
# %%
n_long, W_small = 16, 3
band_long = ac.sliding_window_mask(n_long, n_long, W_small).astype(int)  # [16, 16]
depths = [1, 2, 3, 4, 5]
reach = [
    int((np.linalg.matrix_power(band_long, k)[-1] > 0).sum()) for k in depths
]  # tokens the last position sees through k layers
growth = W_small - 1  # tokens added per layer
mistral_reach = 32 * (4096 - 1) + 1  # Mistral 7B: 32 layers, W = 4,096
reach
# %% [markdown]
# One layer reaches {eval}`reach[0]` tokens, and every layer adds $W - 1 =$
# {eval}`growth` more: $k$ layers reach $k(W - 1) + 1$ tokens, here
# {eval}`plain(reach)`. A window is not a hard limit on what the model can use, only on what one
# layer reads directly. For Mistral 7B's 32 layers and window of 4,096 the formula gives
# {eval}`grouped(mistral_reach)` tokens; its paper, counting $W$ a layer, says about 131K
# ([Jiang et al., 2023](references.md)): the off-by-one again, harmless here. What travels through the layers must be
# squeezed into the outputs in between, so in practice distant tokens still reach less well
# than near ones.
# %% [markdown]
# ## The ring-buffer cache (링 버퍼)
#
# A decoding step under a window needs only the last $W$ keys and values, so the cache can
# keep $W$ slots and write position $t$ into slot $t \bmod W$, over the oldest one: a ring
# buffer (Mistral's "rolling buffer cache"). `ac.KVCache(window=W)` is one. Feed the six words
# one at a time and print, after each, which position each slot holds:
# %%
ring = ac.KVCache(window=W)
ring_rows = []  # each step's output
for t in range(n):
    ring.append(K[t : t + 1], V[t : t + 1])  # position t goes to slot t mod W
    ring_rows.append(ring.attend(Q[t]))  # [3]: one query against at most W slots
    print(f"t = {t} ({tokens[t]}): slot {t % W},", end=" ")
    print(f"slots hold positions {ring.positions},", end=" ")
    print(f"output {vector(ring_rows[-1])}")
# %% [markdown]
# The first {eval}`W` words fill the slots in order. At $t =$ {eval}`W`, 그리고 goes to slot
# 0 and overwrites 나는, which the band of {eval}`figures.ref("fig-band")` no longer shows to
# it anyway; at $t = 4$ 배를 overwrites 사과를, at $t = 5$ 샀다 overwrites 먹었다. The slots are not in position order after the
# first wrap, and need not be: the softmax and the weighted sum do not care in what order the
# keys come, as long as each key stays beside its own value. (With RoPE, Chapter 6, each key
# was rotated by its own position when it was made, so it carries its position with it.)
#
# Redo the last step by hand. The slots hold, in slot order, the keys of positions
# {eval}`plain(ring.positions)`; 샀다's query against them, divided by $\sqrt 3$ as in Chapter 4:
# %%
q_last = Q[n - 1]  # [3]: 샀다's query
scores_last = ring.keys @ q_last / math.sqrt(q_last.size)  # [W, 3] @ [3] -> [W]
weights_last = ac.softmax(scores_last)  # [W]
output_last = weights_last @ ring.values  # [W] @ [W, 3] -> [3]
print("keys in the slots:", [vector(k) for k in ring.keys])
print("scaled scores", plain(scores_last), " weights", dec(weights_last))
print("output", vector(output_last))
# %% [markdown]
# The query {eval}`vector(q_last)` scores the three cached keys {eval}`plain(scores_last)`,
# the softmax gives {eval}`dec(weights_last)`, and the weighted values give
# {eval}`vector(output_last)`: the last row of the windowed pass, read from {eval}`W` slots.
# Every step's output equals the windowed full pass's row, and the cache never held more
# than $W$ keys:
# %%
ring_out = np.stack(ring_rows)  # [6, 3]
np.testing.assert_allclose(ring_out, window_out, rtol=1e-12)
len(ring), ring.keys.shape
# %% [markdown]
# ## Local and global layers, as shipped
#
# A model of only windowed layers reaches far back only through its stack, so most models that
# use windows interleave them with global layers (전역 층), which keep the whole causal mask
# and the whole cache; Mistral 7B v0.1, the first model below, did not:
#
# - **Mistral 7B** v0.1 ([Jiang et al., 2023](references.md)): every layer windowed,
#   $W = 4{,}096$, with the rolling buffer: 32 layers, 8 key-value heads of 128 (later versions
#   of the model dropped the window).
# - **Gemma 3** ([Gemma Team, 2025](references.md)): five local layers of 1,024 tokens to
#   every global one. The 27B model has 62 layers, 16 key-value heads of 128. The two kinds
#   also rotate differently (RoPE, [Chapter 6](06_positions.ipynb)): the local layers with
#   RoPE's base 10,000 (`rope_local_base_freq`), the global ones with 1,000,000 (`rope_theta`),
#   so that only the layers that read far need the slow angles. (Those are the checkpoint's
#   `config.json` fields; transformers 5 reads both into `rope_parameters`, one entry per
#   layer type, `"sliding_attention"` and `"full_attention"`.)
# - **gpt-oss** ([OpenAI, 2025](references.md)): dense layers and banded layers of 128 tokens
#   alternating. The 120b model has 36 layers, 8 key-value heads of 64.
#
# A windowed layer caches at most $W$ positions, a global layer all $n$. A configuration
# (`config.json`) writes the pattern as a list of `layer_types`; here it is built as Hugging
# Face's configurations build it, and each layer's cache computed with Chapter 10's
# `ac.kv_cache_bytes`:


# %%
def cache_bytes(layer_types, kv_heads, d_head, n, window, b=2):
    """All layers' KV cache; a "sliding" layer holds at most `window` positions."""
    held = [min(n, window) if kind == "sliding" else n for kind in layer_types]
    return sum(ac.kv_cache_bytes(1, kv_heads, d_head, m, b) for m in held)


GiB = 2**30
gemma3_types = ["full" if (i + 1) % 6 == 0 else "sliding" for i in range(62)]  # 5:1
gpt_oss_types = ["sliding" if i % 2 == 0 else "full" for i in range(36)]  # 1:1
mistral_types = ["sliding"] * 32  # every layer
n_context = 131072  # 128k tokens; Mistral 7B v0.1 was trained at 8k, see below
shipped = {  # name: (layer types, KV heads, d_head, window)
    "Gemma 3 27B": (gemma3_types, 16, 128, 1024),
    "gpt-oss-120b": (gpt_oss_types, 8, 64, 128),
    "Mistral 7B v0.1": (mistral_types, 8, 128, 4096),
}
windowed = {m: cache_bytes(*s[:3], n_context, s[3]) / GiB for m, s in shipped.items()}
all_global = {}  # the same models with every layer "full"
for m, (types, kv_heads, d_head, window) in shipped.items():
    full = ["full"] * len(types)
    all_global[m] = cache_bytes(full, kv_heads, d_head, n_context, window) / GiB
gemma_global, gemma_local = gemma3_types.count("full"), gemma3_types.count("sliding")
gemma_window, mistral_window = shipped["Gemma 3 27B"][3], shipped["Mistral 7B v0.1"][3]
step_table(
    {
        "global : local": [
            f"{t.count('full')} : {t.count('sliding')}" for t, *_ in shipped.values()
        ],
        "window": [f"{s[3]:,}" for s in shipped.values()],
        "cache, GiB (as shipped)": list(windowed.values()),
        "cache, GiB (all global)": list(all_global.values()),
    },
    index=list(shipped),
    digits=2,
)
# %% [markdown]
# At {eval}`grouped(n_context)` tokens in bfloat16 (2 bytes a number), Gemma 3 27B's cache is
# {eval}`dec(windowed["Gemma 3 27B"], 2)` GiB instead of {eval}`dec(all_global["Gemma 3 27B"], 2)`:
# its {eval}`gemma_global` global layers hold almost all of it, its
# {eval}`gemma_local` local layers {eval}`grouped(gemma_window)` positions each.
# gpt-oss-120b halves its cache, to {eval}`dec(windowed["gpt-oss-120b"], 2)` GiB, since half
# its layers are global. Mistral 7B's cache stops growing at {eval}`grouped(mistral_window)` positions:
# {eval}`dec(windowed["Mistral 7B v0.1"], 2)` GiB however long the text (Mistral 7B v0.1 was
# trained with a context of 8,192 tokens, so its figure at 128k tokens is only the arithmetic; its paper
# reports the 8× saving at 32k). The saving is real memory, and also a real loss: a token in a
# local layer reads nothing beyond its window, which is why Gemma 3 keeps one global layer in
# six.
# %% [markdown]
# ## Attention sinks: where a row puts weight it does not need (어텐션 싱크)
#
# Chapter 10's first decoding step gave a zero query a quarter of its weight on every word:
# a softmax row sums to 1, so attention cannot look nowhere. A head that has nothing to read
# at some position must still put its weight somewhere. Xiao et al. found that trained
# language models put it on the first tokens, whatever those tokens are, and called them
# attention sinks ([Xiao et al., 2024](references.md)): the first tokens are seen by every
# later query, so they are where training learns to park the weight. A sliding window that
# evicts them takes the parking place away, and they report that the model's perplexity then
# rises sharply as soon as the first tokens leave the cache. Their fix, StreamingLLM, keeps a
# few first tokens in the cache beside the window (four in their experiments). With 2 sink tokens and $W = 3$ over 8
# positions, the mask is the band plus the first two columns:
# %%
n_stream, n_sink = 8, 2
first = np.arange(n_stream) < n_sink  # [8]: the first tokens, always kept
stream_mask = ac.sliding_window_mask(n_stream, n_stream, W) | first  # [8, 8]
stream_mask &= ac.causal_mask(n_stream)  # still causal
stream_mask.astype(int)
# %% [markdown]
# StreamingLLM also changes the positions. A key in Mistral's ring buffer keeps the position
# it was rotated by when it was made; StreamingLLM caches its keys before RoPE and rotates
# them, at every step, by their places in the cache: the sink tokens 0 to 3, the window's
# tokens after them. A query then never sees a distance longer than the cache, and none the
# model did not meet in training, however long the stream has run.
#
# gpt-oss learns the way out instead ([OpenAI, 2025](references.md)), and in every layer,
# its banded layers of 128 tokens included: the
# [reference code](https://github.com/openai/gpt-oss/blob/main/gpt_oss/torch/model.py)
# OpenAI published with it gives each layer's attention a sink per head, and a window to
# every other layer. So its windowed layers keep no first tokens in their cache; the sink is
# where their spare weight goes. Each head has one
# learned number, its sink logit (싱크 로짓) $z$. It joins every row's scores before the
# softmax, as if there were one more key whose score is always $z$ and whose value is zero,
# and its weight is dropped after the softmax:
#
# $$
# \begin{aligned}
# w_j &= \frac{e^{s_j}}{e^{z} + \sum_l e^{s_l}}, \qquad
# \text{share} = \frac{e^{z}}{e^{z} + \sum_l e^{s_l}}, \\
# \sum_j w_j &= 1 - \text{share}.
# \end{aligned}
# $$ (eq-ch11-sink)
#
# Miller had proposed the same way out in a blog post, "Attention Is Off By One"
# ([Miller, 2023](references.md)): add 1 to the softmax's denominator, which is a sink
# whose logit is fixed at $z = 0$. gpt-oss learns $z$, one per head.
#
# By hand on the worked example of [Chapter 4](04_worked_example.ipynb), with a sink logit of
# 1 chosen for the example (gpt-oss learns one per head):
# %%
example = quanta_example()
q, K_ex, V_ex = example.query, example.keys, example.values  # (1, 0); [3, 2]; [3, 2]
scaled = K_ex @ q / math.sqrt(2)  # [3]: chapter 4's scaled scores
exps = np.exp(scaled)  # [3]
output = (exps / exps.sum()) @ V_ex  # [2]: chapter 4's output, no sink
sink = 1.0  # the head's sink logit z
sink_exp = np.exp(sink)  # e^z: the sink's "exponential"
share = sink_exp / (sink_exp + exps.sum())  # the sink's weight
weights_sink = exps / (sink_exp + exps.sum())  # [3], sum to 1 − share
output_sink = weights_sink @ V_ex  # [3] @ [3, 2] -> [2]
np.testing.assert_allclose(weights_sink, ac.attention_weights(q, K_ex, sinks=sink))
# the exponentials' sum, and the weights' sum: 1 without the sink, less with it
exps_total, row_total = exps.sum(), weights_sink.sum()
round(float(share), 4), round(float(row_total), 4)
# %% [markdown]
# With the keys {eval}`vector(K_ex[0])`, {eval}`vector(K_ex[1])`, {eval}`vector(K_ex[2])` and
# the values {eval}`vector(V_ex[0])`, {eval}`vector(V_ex[1])`, {eval}`vector(V_ex[2])`, the
# exponentials are {eval}`dec(exps)`, with a sum of {eval}`dec(exps_total)`, and the sink
# adds $e^1 =$ {eval}`dec(sink_exp)`. The sink takes {eval}`dec(share)` of the row; the three
# words get {eval}`dec(weights_sink)`, which sum to {eval}`dec(row_total)`, not 1.
# The ratios between the words do not change: every weight is Chapter 4's times
# $1 - \text{share}$, and so is the output, which was {eval}`vector(output)` and is now
# {eval}`vector(output_sink)`:
# %%
np.testing.assert_allclose(output_sink, (1 - share) * output)
bool(np.allclose(output_sink, (1 - share) * output))
# %% [markdown]
# A head can now say "nothing here" by scoring every key far below $z$: with $n$ keys each
# $\delta$ below it, the share is $1 / (1 + n e^{-\delta})$, which tends to 1 (and the output
# to zero) once $\delta$ is well past $\ln n$, without parking weight on a real token. `ac.scaled_dot_product_attention`
# takes the same `sinks=`, and so does a cache's `attend`; a per-head sink has the shape
# $(H,)$, as gpt-oss stores it, or $(H, 1)$: one logit per head, the same for all its rows.
# %% [markdown]
# ## Gated attention: a gate on each head's output (게이트 어텐션)
#
# Qiu et al. put a sigmoid gate (시그모이드 게이트) on each head's output, before the output
# projection: the gate is computed from the layer's input $\mathbf x$, one number per output
# dimension, and multiplies the head's output ([Qiu et al., 2025](references.md)):
#
# $$
# \mathbf o' = \sigma(\mathbf x W_g) \odot \mathbf o, \qquad \sigma(z) = \frac{1}{1 + e^{-z}} .
# $$ (eq-ch11-gate)
#
# For a model width $D$ and heads of $d_v$ numbers, each head's $W_g$ is a $D \times d_v$
# matrix (all heads together, one $D \times H d_v$ projection beside the query's). On the
# worked example's output, with gate logits $\mathbf x W_g$ chosen for the example:
# %%
gate_logits = np.array([2.0, -2.0])  # x @ W_g for this token: [2]
gate = 1 / (1 + np.exp(-gate_logits))  # sigmoid, each in (0, 1)
gated = gate * output  # [2] * [2]: elementwise
gate, gated
# %% [markdown]
# The gate {eval}`dec(gate)` keeps most of the first dimension of {eval}`vector(output)` and
# little of the second: the output is {eval}`vector(gated)`. Unlike the weights, the gate is
# not normalised over the keys: each of its numbers lies anywhere between 0 and 1 and can close
# almost to zero, so a head that has nothing to add can add nothing, with no sink needed. Qiu et al. report, on models they trained with and
# without it, that this gate (per head, elementwise, after attention) made training more
# stable and removed most of the weight that the first token otherwise attracts; Qwen3-Next,
# from the same team, ships it. The sink and the gate are two answers to one problem: a
# softmax row must sum to 1 even when no key matters. The sink takes that weight off the
# words before the values are read; the gate lets the weights be and scales the output
# after.
#
# **Try it.** {eval}`figures.ref("fig-window-ring")` puts the window, the ring buffer, the
# sink and the gate on the {eval}`n` words at once. Slide $t$ from 0 to walk the sentence: the
# first $W$ words fill the slots in order, then each new word goes to slot $t \bmod W$ and
# pushes out the word $W$ places back (dashed). Set $W = 1$ and a word sees only itself; at
# $W =$ {eval}`n` it is plain causal attention and nothing is evicted. Switch the sink on and
# raise $z$: its bar grows, the words' bars shrink in proportion and the row sums to
# $1 - \text{share}$. Switch the gate on and lower $g$: no weight moves, but the output shrinks.

# %% tags=["hide-input"]
from attn_book.widgets import WindowSinks

figures.show(
    WindowSinks(
        tokens=tokens,
        query_vectors=Q,
        key_vectors=K,
        value_vectors=V,
        window=W,
        sink_logit=sink,
    ),
    "fig-window-ring",
    "Query $t$'s weights over the words under a sliding window of $W$ keys (grey: "
    "not seen), the sink's share of the row (vermillion) and the ring buffer's $W$ "
    "slots (orange: the slot written at step $t$; dashed: the key it overwrote). "
    "Sliders move $t$, $W$ and the sink's and the gate's logits; a tap or a drag "
    "across the words moves $t$. The queries, keys and values are the six words' own, "
    "not the worked example's above, so the shares differ from the text's; and the "
    "gate is one logit $g$ for the whole output, where the text's has one per "
    "dimension.",
)

# %% [markdown]
# ## How large can a score grow? QK-norm and soft-capping (QK 정규화, 소프트 캡핑)
#
# [Chapter 3](03_scaling.ipynb) divided the scores by $\sqrt{d_k}$ because they grow with the
# vectors: $\mathbf q \cdot \mathbf k$ can be as large as $\lVert\mathbf q\rVert
# \lVert\mathbf k\rVert$, and nothing bounds the lengths. A large score saturates the softmax,
# one weight 1 and the rest 0, and its gradient vanishes; in large models such scores make
# training diverge. Two fixes ship.
#
# **QK-norm.** Normalise the query and the key themselves, just before the dot product. The
# idea is Henry et al.'s, who divide each vector by its length
# ([Henry et al., 2020](references.md)), and ViT-22B's, with a LayerNorm
# ([Dehghani et al., 2023](references.md)). Qwen3 and Gemma 3 apply an RMSNorm (RMS 정규화:
# divide by the root mean square, then multiply by a learned gain $\mathbf g$) to each head's
# query and key ([Qwen Team, 2025a](references.md); [Gemma Team, 2025](references.md)); OLMo 2
# one over the whole projection ([Team OLMo, 2024](references.md)). Most still scale the
# scores, and not always by $1/\sqrt{d_k}$; Gemma 4 does not:
#
# | model | what normalises $\mathbf{q}$ and $\mathbf{k}$ | the divisor |
# |---|---|---|
# | [Henry et al., 2020](references.md) | each vector divided by its length | none: a learned scale $g$ multiplies the scores in place of $1/\sqrt{d_k}$ |
# | ViT-22B ([Dehghani et al., 2023](references.md)) | a LayerNorm | $\sqrt{d_k}$ |
# | OLMo 2 ([Team OLMo, 2024](references.md)) | an RMSNorm over the whole projection | $\sqrt{d_k}$ |
# | Qwen3 ([Qwen Team, 2025a](references.md)) | an RMSNorm over each head's $d_k$ components | $\sqrt{d_k}$ |
# | Gemma 3 ([Gemma Team, 2025](references.md)) | an RMSNorm over each head's $d_k$ components | the square root of `query_pre_attn_scalar`: $d_k$ in the smaller models, $d_\text{model}/h = 168$ in the 27B model, whose heads have $d_k = 128$ |
# | Gemma 4 ([Hugging Face transformers, 2026](references.md)) | an RMSNorm over each head's $d_k$ components (and one with no gain on each head's $\mathbf{v}$) | none: `scaling = 1.0` |
#
# For a per-head norm (Qwen3, Gemma 3) and the divisor $\sqrt d$, as here: after
# RMSNorm a vector of $d$ numbers has length $\sqrt d$ (before the gain), so by
# Cauchy–Schwarz the scaled score is bounded:
#
# $$
# \begin{aligned}
# \frac{\hat{\mathbf q} \cdot \hat{\mathbf k}}{\sqrt d}
#   &\le \frac{\max_i |g_{q,i}| \cdot \max_i |g_{k,i}| \cdot \sqrt d \cdot \sqrt d}{\sqrt d} \\
#   &= \sqrt d \, \max_i |g_{q,i}| \, \max_i |g_{k,i}| .
# \end{aligned}
# $$ (eq-ch11-qk-bound)
#
# With $d = 4$ and gains chosen for the example:
# %%
d = 4
g_q = np.array([1.5, 0.5, 1.0, 0.8])  # learned gains of q_norm: [d]
g_k = np.array([2.0, 1.0, 0.5, 1.0])  # learned gains of k_norm: [d]
bound = math.sqrt(d) * np.abs(g_q).max() * np.abs(g_k).max()
rng = np.random.default_rng(0)
q_big, k_big = 1000 * rng.standard_normal((2, d))  # long vectors: [d] each
raw = q_big @ k_big / math.sqrt(d)  # unnormalised: grows with the lengths
normed = ac.rms_norm(q_big, g_q) @ ac.rms_norm(k_big, g_k) / math.sqrt(d)
print(f"bound {bound}, raw score {raw:.1f}, after QK-norm {normed:.4f}")
# %% [markdown]
# The bound is {eval}`plain(bound)`. Vectors a thousand times too long give a raw scaled score
# of {eval}`grouped(raw)`, but after QK-norm only {eval}`dec(normed)`. The bound is reached
# when both vectors point along a dimension where both gains are largest, which needs the two
# largest gains on the same dimension, as here on the first. (Qwen3 and Gemma 3 rotate $q$ and
# $k$ by RoPE after the norm; a rotation keeps lengths, so the bound holds there too. Without
# a rotation between the norm and the product, the score even stays at or below
# $\sqrt d \max_i |g_{q,i}\, g_{k,i}|$.) OLMo 2's norm runs over the whole projection, the
# $H d$ numbers of all $H$ heads, which RMSNorm gives the length $\sqrt{H d}$; one head's
# slice may carry all of it, so that head's bound is $H$ times as large,
# $H \sqrt d \max_i |g_{q,i}| \max_i |g_{k,i}|$. (With fewer key heads than query heads,
# $H_{kv}$, the key norm runs over $H_{kv} d$ numbers and the factor is $\sqrt{H H_{kv}}$.) Gemma 4 drops the divisor and lets the norm
# alone set the scale: the same argument without the $\sqrt d$ below bounds its score by
# $d \max_i |g_{q,i}| \max_i |g_{k,i}|$.
# %%
e_0 = np.array([3.0, 0.0, 0.0, 0.0])  # any length: RMSNorm removes it
at_bound = ac.rms_norm(e_0, g_q) @ ac.rms_norm(e_0, g_k) / math.sqrt(d)
round(float(at_bound), 6)
# %% [markdown]
# {eval}`dec(at_bound, 6)`, the bound {eval}`plain(bound)` up to RMSNorm's $\epsilon$. The
# gains are learned, so the bound can move during training, but only when the gains move.
# Without the norm a score grows whenever the query and key projections grow longer, and
# nothing in training holds their lengths back.
#
# **Soft-capping.** Gemma 2 passes each scaled score through $c \tanh(s / c)$ with $c = 50$
# ([Gemma Team, 2024](references.md)): near zero that is $s$ itself, and no score can pass
# $c$. Gemma 3 replaced it with QK-norm ([Gemma Team, 2025](references.md)).
# %%
cap = 50.0  # Gemma 2's attn_logit_softcapping
scores_try = np.array([1.0, 10.0, 50.0, 100.0, raw])
capped = cap * np.tanh(scores_try / cap)
step_table({"score s": scores_try, "c·tanh(s/c)": capped}, digits=2)
# %% [markdown]
# A score of 1 stays {eval}`dec(capped[0], 2)` and 10 becomes {eval}`dec(capped[1], 2)`; 100
# becomes {eval}`dec(capped[3], 2)`, and the raw {eval}`grouped(raw)` of the QK-norm example
# becomes {eval}`dec(capped[4], 2)`, the cap itself to two decimals. So: without either, a score grows with the vectors' lengths;
# under QK-norm it stays below $\sqrt d$ times the gains; under soft-capping below $c$,
# whatever the gains, but a capped score near $c$ has a gradient near zero, the saturation
# Chapter 3 feared, moved from the softmax into the $\tanh$.
# %% [markdown]
# ## Multi-head latent attention (멀티헤드 잠재 어텐션, MLA)
#
# GQA and MQA shrink the cache by sharing keys and values between heads. DeepSeek-V2's
# multi-head latent attention shrinks it differently ([DeepSeek-AI, 2024a](references.md)):
# every token's keys and values, for all heads, are made from one small latent vector
# (잠재 벡터), and only that latent is cached. Token $t$'s latent $\mathbf c_t$ has $d_c$
# numbers (`kv_lora_rank`; "lora" for low-rank, as in LoRA: a down-projection to $d_c$
# numbers followed by an up-projection makes a matrix of rank at most $d_c$):
#
# $$
# \begin{aligned}
# \mathbf c_t &= \mathrm{RMSNorm}(\mathbf x_t W^{DKV}), \\
# \mathbf k_{t,h} &= \mathbf c_t\, W^{UK}_h, \qquad
# \mathbf v_{t,h} = \mathbf c_t\, W^{UV}_h .
# \end{aligned}
# $$ (eq-ch11-mla)
#
# $W^{DKV}$, of shape $D \times d_c$ for a model width $D$, compresses keys and values jointly
# (the down-projection); the per-head up-projections decompress them: $W^{UK}_h$, of shape
# $d_c \times d_h$, gives head $h$ a key part of $d_h$ numbers (`qk_nope_head_dim`), and
# $W^{UV}_h$, of shape $d_c \times d_v$, a value of $d_v$ numbers (`v_head_dim`). The RMSNorm,
# with a learned gain (`kv_a_layernorm` in transformers' DeepSeek-V3 code), acts on the
# latent before it is cached; everything below starts from the cached latent, so it holds
# with the norm or without it, and the small model below leaves it out. One more
# piece makes it work with RoPE ([Chapter 6](06_positions.ipynb)): the decoupled RoPE key
# below, of $d_h^R$ numbers (`qk_rope_head_dim`). DeepSeek-V2 and V3 compress the query too,
# through a latent of 1,536 numbers (`q_lora_rank`); that saves weights and activation memory
# in training, not cache, and this chapter leaves the query uncompressed. At small sizes, with
# random weights: $D = 8$, 2 heads, $d_c = 4$, $d_h = 3$, $d_h^R = 2$, $d_v = 3$, and 5
# positions:
# %%
mla_w = ac.MLAWeights.random(
    np.random.default_rng(0),
    8,
    n_heads=2,
    kv_lora_rank=4,
    qk_nope_head_dim=3,
    qk_rope_head_dim=2,
    v_head_dim=3,
)
x = np.random.default_rng(1).standard_normal((5, 8))  # [S, D]: 5 positions
latent, rope_key = ac.mla_latent(x, mla_w, range(5))  # [5, 4], [5, 2]: what is cached
k_nope = latent @ mla_w.w_uk  # [5, 4] @ [2, 4, 3] -> [2, 5, 3]: each head's keys
values = latent @ mla_w.w_uv  # [5, 4] @ [2, 4, 3] -> [2, 5, 3]: each head's values
latent.shape, rope_key.shape, k_nope.shape, values.shape
# %% [markdown]
# **The absorbed score, by hand.** A decoding step need not decompress the keys. For head $h$,
# the score of a query $\mathbf q_h$ (its part without position, $d_h$ numbers) against the
# key of token $j$ is
#
# $$
# \mathbf q_h \cdot (\mathbf c_j W^{UK}_h) = (\mathbf q_h\, {W^{UK}_h}^{\top}) \cdot \mathbf c_j ,
# $$ (eq-ch11-absorb)
#
# so $W^{UK}_h$ can be folded into the query once, and the query then meets the cached latents
# themselves, $d_c$ numbers each. First with numbers small enough to do by hand: one head,
# $d_c = d_h = 2$, integer weights:
# %%
W_UK_small = np.array([[1, 2], [0, 1]])  # [d_c, d_h] = [2, 2]: one head's up-projection
c_small = np.array([3, 1])  # [d_c]: the cached latent c_j of one token
q_small = np.array([2, 1])  # [d_h]: the query's part without position
k_small = c_small @ W_UK_small  # [2] @ [2, 2] -> [2]: naive, the key decompressed
naive_small = int(q_small @ k_small)  # q · k
q_folded = W_UK_small @ q_small  # [2, 2] @ [2] -> [2]: absorbed, q W_UKᵀ
absorbed_small = int(q_folded @ c_small)  # (q W_UKᵀ) · c_j
k_small, naive_small, q_folded, absorbed_small
# %% [markdown]
# Naive: decompress the key, $\mathbf k_j = \mathbf c_j W^{UK}$: the two numbers of the latent
# {eval}`vector(c_small)` weight the two rows of $W^{UK}$, {eval}`vector(W_UK_small[0])` and
# {eval}`vector(W_UK_small[1])`, and their sum is the key {eval}`vector(k_small)`; the query
# {eval}`vector(q_small)` scores it {eval}`naive_small`. Absorbed: fold $W^{UK}$ into the
# query, $\mathbf q\,{W^{UK}}^\top$, the dot product of the query with each row of $W^{UK}$:
# {eval}`vector(q_folded)`, $d_c$ numbers like the latent, and its dot product with the latent
# as cached is {eval}`absorbed_small` too. They are one sum grouped two ways: the key is
# $c_1$ times row 1 of $W^{UK}$ plus $c_2$ times row 2, so the query's dot product with it is
# $c_1 (\mathbf q \cdot \text{row 1}) + c_2 (\mathbf q \cdot \text{row 2})$: the latent's numbers
# {eval}`vector(c_small)` against the folded query's {eval}`vector(q_folded)`. The same at the small model's random sizes, head 0,
# the query of position 4 and the key of position 2:
# %%
q_nope = x[4] @ mla_w.w_q_nope[0]  # [8] @ [8, 3] -> [3]: head 0's query
naive_score = q_nope @ (latent[2] @ mla_w.w_uk[0])  # q · (c W_UK): decompress the key
q_absorbed = mla_w.w_uk[0] @ q_nope  # [4, 3] @ [3] -> [4]: q W_UKᵀ, the latent's width
absorbed_score = q_absorbed @ latent[2]  # (q W_UKᵀ) · c: against the cache as it is
round(float(naive_score), 6), round(float(absorbed_score), 6)
# %% [markdown]
# Both are {eval}`dec(naive_score, 6)`: matrix products associate. The same holds on the value
# side: the weights average the latents, and $W^{UV}_h$ is applied once to that average, after
# the softmax, where it can be folded into the output projection (the exercise below proves
# it). So an absorbed decoding step attends over the cache as it is, one key of width
# $d_c + d_h^R$ shared by all heads, like MQA. What it saves: the naive step decompresses
# every cached latent into $H$ keys and values at every step, $n \times H$ of each; the
# absorbed step folds one matrix into each head's query instead, and pays with a wider dot
# product, $d_c$ numbers against $d_h$.
#
# **The decoupled RoPE key.** RoPE rotates a key by its position. A rotation between
# $W^{UK}_h$ and $\mathbf q_h$ depends on the key's position, so it cannot be folded into a
# query once for all keys: with $R_j$ the rotation of position $j$, the key is
# $\mathbf c_j W^{UK}_h R_j$ and
# $\mathbf q_h \cdot (\mathbf c_j W^{UK}_h R_j) = (\mathbf q_h R_j^\top {W^{UK}_h}^\top) \cdot \mathbf c_j$,
# a folded query that changes with $j$, one for every key. MLA therefore leaves $\mathbf c_t$ unrotated and adds a small
# separate key $\mathbf k^R_t = \mathrm{RoPE}(\mathbf x_t W^{KR})$ of width $d_h^R$, shared by
# all heads and cached beside the latent (here `rope_key`); each head's query gets a matching
# rotated part, and the score is the sum of the two dot products, scaled by
# $1/\sqrt{d_h + d_h^R}$ (DeepSeek-V3's long-context YaRN scaling multiplies this by a
# constant).
#
# **Naive and absorbed agree.** `ac.mla_attention` runs the whole layer either way, and with an
# `ac.MLACache` as a decoding step: prefill four positions, then decode the fifth, absorbed:
# %%
naive_out = ac.mla_attention(x, mla_w)  # [5, 8]: decompress, then attend
absorbed_out = ac.mla_attention(x, mla_w, absorb=True)  # [5, 8]: against the latents
mla_cache = ac.MLACache()
ac.mla_attention(x[:4], mla_w, cache=mla_cache)  # prefill: 4 positions cached
decoded = ac.mla_attention(x[4:], mla_w, cache=mla_cache, absorb=True)  # [1, 8]
np.testing.assert_allclose(absorbed_out, naive_out, atol=1e-12)
np.testing.assert_allclose(decoded, naive_out[4:], atol=1e-12)
mla_gap = np.abs(absorbed_out - naive_out).max()  # rounding only
mla_cache.latents.shape, mla_cache.rope_keys.shape, bool(mla_gap < 1e-12)
# %% [markdown]
# The two paths differ by less than $10^{-12}$, rounding; the cache holds
# {eval}`mla_cache.latents.shape[-1]` + {eval}`mla_cache.rope_keys.shape[-1]` numbers per
# position and no head's keys or values.
# %% [markdown]
# ## What MLA saves at DeepSeek-V3's size
#
# DeepSeek-V3 ([DeepSeek-AI, 2024b](references.md)) has 61 layers and 128 heads, a latent of
# $d_c = 512$ and a RoPE key of $d_h^R = 64$. Its cache per token, in bfloat16, against the
# same model with multi-head, grouped-query (8 groups) and multi-query attention of heads of
# $d_h = 128$ (DeepSeek-V2's paper compares with the same $d_h$):
# %%
KiB = 2**10
layers_v3, heads_v3, d_h = 61, 128, 128
per_token_kib = {
    "MLA": ac.mla_cache_bytes(layers_v3, 512, 64, 1, 2) / KiB,  # (512 + 64) × 61 × 2
    "MHA": ac.kv_cache_bytes(layers_v3, heads_v3, d_h, 1, 2) / KiB,  # 128 KV heads
    "GQA, 8 groups": ac.kv_cache_bytes(layers_v3, 8, d_h, 1, 2) / KiB,
    "MQA": ac.kv_cache_bytes(layers_v3, 1, d_h, 1, 2) / KiB,
}
at_128k_gib = {m: kib * n_context / 2**20 for m, kib in per_token_kib.items()}
step_table(
    {
        "KiB per token": list(per_token_kib.values()),
        "GiB at 128k tokens": list(at_128k_gib.values()),
    },
    index=list(per_token_kib),
    digits=2,
)
# %% [markdown]
# MLA holds {eval}`dec(per_token_kib["MLA"], 2)` KiB per token, $(512 + 64) \times 61 \times 2$
# bytes, where multi-head attention would hold {eval}`grouped(per_token_kib["MHA"])` KiB, and
# 128k tokens take {eval}`dec(at_128k_gib["MLA"], 2)` GiB instead of
# {eval}`grouped(at_128k_gib["MHA"])`. That is less than GQA with 8 groups
# ({eval}`dec(per_token_kib["GQA, 8 groups"], 2)` KiB) and a little more than twice MQA
# ({eval}`dec(per_token_kib["MQA"], 2)` KiB), while every head still has keys and values of
# its own; DeepSeek-V2's paper reports that MLA matched or beat multi-head attention in its
# experiments, where GQA and MQA lost quality.
#
# The calculator of [Chapter 10](10_generation.ipynb) holds these models too. Its menu sets
# DeepSeek-V3 (its latent against MHA, GQA and MQA of the same model), Gemma 3 27B and
# gpt-oss-120b (their global layers, which hold all $n$ tokens, and their local ones, which
# hold $\min(n, W)$), each against the plain KV cache of every layer; the totals at 32k, 128k
# and 1M tokens are printed under the bars. Slide $n$, the window, the pattern or the latent.
# (Its menu names the 2-byte format float16; bfloat16, this chapter's, has the same 2 bytes a
# number, so the sizes are the same.)

# %%
calculator = MemoryCalculator(
    preset="DeepSeek-V3",
    presets=["DeepSeek-V3", "Gemma 3 27B", "gpt-oss-120b"],
    n=n_context,
)
figures.show(
    calculator,
    "fig-cache-as-shipped",
    "The cache of a model as shipped against the plain KV cache, "
    "2 × layers × KV heads × $d_h$ × n × bytes: MLA's "
    "layers × ($d_c + d_h^R$) × n × bytes, or global layers holding n "
    "tokens and local layers holding min(n, W). Log axis; dashed: a "
    "laptop's and a GPU's memory.",
)

# %% [markdown]
# ## Reading a model's configuration
#
# The fields a configuration (`config.json`) or a checkpoint's weight names use for what this
# chapter computed:
# %%
step_table(
    {
        "what it is": [
            "W, the keys a windowed layer sees (check: q − k < W?)",
            "which layers are windowed and which global",
            "Gemma 2's cap c on the scaled scores",
            "a learned sink logit per head (a weight, in gpt-oss)",
            "RMSNorm on q and k (weights): per head, or over the whole projection; read the weight's shape",
            "Gemma 3: RoPE's base on the local layers (10,000); transformers 5 reads it "
            "into its RoPE parameters, one entry per layer type",
            "Llama 4: the chunk a local layer attends within (8,192)",
            "Llama 4: which layers rotate (0: NoPE, the global ones)",
            "MLA: the latent's width d<sub>c</sub>",
            "MLA: the query's latent width (1,536 in DeepSeek-V3)",
            "MLA: the RoPE part d<sub>h</sub><sup>R</sup> of q and the shared key",
            "MLA: the per-head key part without position, d<sub>h</sub>",
            "MLA: the per-head value width d<sub>v</sub>",
        ],
        "this chapter": [
            "the band mask",
            "local and global layers",
            "soft-capping",
            "attention sinks",
            "QK-norm",
            "local and global layers; Chapter 6",
            "Going further: chunked local attention",
            "Going further: chunked local attention; Chapter 6's NoPE",
            "MLA",
            "MLA (not cached)",
            "the decoupled RoPE key",
            "MLA",
            "MLA",
        ],
    },
    index=[
        "sliding_window",
        "layer_types",
        "attn_logit_softcapping",
        "sinks",
        "q_norm, k_norm",
        "rope_local_base_freq",
        "attention_chunk_size",
        "no_rope_layers",
        "kv_lora_rank",
        "q_lora_rank",
        "qk_rope_head_dim",
        "qk_nope_head_dim",
        "v_head_dim",
    ],
    index_label="field",
)
# %% [markdown]
# The section [Going further: the models of 2026](11_modern_attention.ipynb#going-further-the-models-of-2026-from-their-code)
# reads four models of 2026 with these fields, from their library code.
#
# Beyond this chapter: sparse attention, where each query reads a chosen subset of the keys,
# is the next chapter's. Kimi K2 adopts DeepSeek-V3's MLA with fewer heads
# ([Kimi Team, 2025a](references.md)). Read a configuration's fields against the formulas above, and
# against the convention each library uses: the off-by-one of the window is not the only one.
# %% [markdown]
# ## Going further: which MLA path runs when
#
# The two MLA paths give the same numbers, but the absorbed one is not always the cheaper.
# Count the FLOPs of one head for one (query, key) pair at V3's sizes ($d_h = d_v = 128$):
# naive, a score over $d_h + d_h^R$ numbers and a weighted sum of $d_v$; absorbed, a score over
# $d_c + d_h^R$ and a weighted sum of latents of $d_c$. And what the naive path pays first: decompressing one
# cached latent into the keys and values of all 128 heads, $2 H d_c (d_h + d_v)$:
# %%
d_c_v3, d_rope_v3, d_v_v3 = 512, 64, 128  # kv_lora_rank, qk_rope_head_dim, v_head_dim
pair_naive = 2 * (d_h + d_rope_v3) + 2 * d_v_v3  # one head, one (query, key) pair
pair_absorbed = 2 * (d_c_v3 + d_rope_v3) + 2 * d_c_v3  # the same pair, absorbed
decompress = 2 * heads_v3 * d_c_v3 * (d_h + d_v_v3)  # 1 latent -> 128 keys, values
absorbed_token = heads_v3 * pair_absorbed  # 1 query, all heads, 1 cached token
pair_ratio, decompress_ratio = pair_absorbed / pair_naive, decompress / absorbed_token
print("FLOPs per head and pair: naive", pair_naive, "absorbed", pair_absorbed)
print("per cached token at a decoding step:", end=" ")
print("decompress", decompress, "absorbed", absorbed_token)
# %% [markdown]
# A pair costs {eval}`pair_naive` FLOPs naive and {eval}`pair_absorbed` absorbed,
# {eval}`dec(pair_ratio, 1)` times as many. In dense MLA, as in DeepSeek-V2 and V3, prefill
# and training meet every key with every query, $n^2$ pairs, and decompress each latent only
# once, so they run the naive path. A decoding step has one query: decompressing each cached
# latent costs {eval}`grouped(decompress)` FLOPs, {eval}`dec(decompress_ratio, 0)` times
# the {eval}`grouped(absorbed_token)` of attending to it absorbed, so decoding runs the
# absorbed path, over a cache it reads as it is. Serving code does the same; vLLM's MLA
# kernels, for one, run prefill naive and decode absorbed. That rule is dense MLA's.
# DeepSeek-V3.2's sparse attention ([Chapter 12](12_linear_attention.ipynb)) is built on the
# absorbed path, MLA's "MQA mode", so that each selected latent serves every head at once, and
# it was trained that way ([DeepSeek-AI, 2025](references.md)); serving code may still run a
# short prompt, one no longer than the 2,048 keys each query selects, naive, as SGLang does.
# %% [markdown]
# ## Going further: what a latent with no head axis costs
#
# Absorbed, MLA is multi-query attention: one latent and one RoPE key per token, shared by
# every head. Tensor parallelism, which splits a layer's heads across GPUs, therefore cannot
# split this cache: every GPU holds the whole
# latent cache of every sequence it serves. Serving code runs the attention of DeepSeek's
# models data-parallel instead, each GPU holding the cache of its own requests only
# ([SGLang's documentation](https://docs.sglang.io/docs/advanced_features/dp_dpa_smg_guide)).
# Nor can MLA normalise each head's keys, as Qwen3's QK-norm does: that norm is not linear,
# so it cannot be folded into the query, and the absorbed path never forms those keys. A norm
# on the shared latent can, since the cache holds the latent already normalised; DeepSeek
# normalises the latent, as in {eq}`eq-ch11-mla`. Kimi K2, built on MLA, bounds its scores in
# the weights instead: its optimiser, MuonClip, rescales a head's query and key projection weights after
# an update whenever that head's largest score has passed a threshold
# ([Kimi Team, 2025a](references.md)).
# %% [markdown]
# ## Going further: Llama 4's chunked local attention (청크 로컬 어텐션)
#
# Llama 4 ([Meta AI, 2025](references.md)) has a local attention of its own, chunked local
# attention (청크 로컬 어텐션): its local layers cut the text into chunks of
# `attention_chunk_size` tokens, and a query sees the earlier keys of its own chunk only. It is
# a band whose start jumps forward at each chunk boundary instead of sliding with the query:
# the first query of a chunk sees itself alone, the last one the whole chunk. Chunks of 3
# over 6 positions, beside the band of $W = 3$:
# %%
chunk = 3
pos = np.arange(6)
same_chunk = pos[:, None] // chunk == pos[None, :] // chunk  # [6, 6]
chunk_mask = same_chunk & ac.causal_mask(6)  # [6, 6]
print(chunk_mask.astype(int))
print(ac.sliding_window_mask(6, 6, 3).astype(int))
# %% [markdown]
# Query 3 starts the second chunk and sees only itself, where the band lets it see keys 1 to
# 3. Llama 4's global layers use no position encoding at all; the configuration's
# `no_rope_layers` lists a 1 for each layer that rotates and a 0 for each one that does not.
# %% [markdown]
# ## Going further: the models of 2026, from their code
#
# The models of 2026 are built from the same pieces. Hugging Face transformers reads four of
# them with classes of its own, and their code and defaults say what each layer has
# ([Hugging Face transformers, 2026](references.md)). The defaults are the library's, not
# those of any released checkpoint, whose `config.json` sets its own sizes, window and layer
# pattern. Gemma 4's defaults in transformers 5.25.0, for one, and the layer pattern its code
# builds from them:
# %%
gemma4_layers, gemma4_width, gemma4_window = 30, 2304, 512  # Gemma4TextConfig defaults
gemma4_types = [  # sliding_window_pattern = 6, and the last layer is always full
    "sliding" if (i + 1) % 6 and i < gemma4_layers - 1 else "full" for i in range(gemma4_layers)
]
gemma4_global, gemma4_local = gemma4_types.count("full"), gemma4_types.count("sliding")
print(gemma4_types[:6], "...")
print(gemma4_local, ":", gemma4_global)  # windowed : global
# %%
step_table(
    {
        "window": [
            "128, every layer",
            "512; 5 windowed : 1 global",
            "none",
            "none",
        ],
        "sink": ["a logit per head", "no", "no", "no"],
        "gate": ["no", "no", "sigmoid, per head and dimension", "no"],
        "QK-norm": [
            "q per head (no gain), and the one K = V vector",
            "per head",
            "per head",
            "over the whole projection",
        ],
        "keys, values": [
            "1 vector of 512: key and value",
            "GQA; global heads of 512 (a switch, off by default, takes the global layers' "
            "values from the key projection)",
            "GQA",
            "GQA, 8 heads of 128",
        ],
        "and also": [
            "compressed caches in every layer; RoPE on 64 of the 512",
            "no divisor (scaling 1.0); RMSNorm, no gain, on v; global layers rotate ¼ of each head",
            "Gated DeltaNet layers, 3 : 1; RoPE on ¼ of each head",
            "RoPE on all of each head by default (a checkpoint may set a partial one)",
        ],
    },
    index=["DeepSeek-V4", "Gemma 4", "Qwen3.5", "MiniMax-M2"],
    index_label="model (library defaults)",
)
# %% [markdown]
# DeepSeek-V4 goes past MLA: one vector of 512 numbers per token is both the key and the
# value of all its heads, and every layer has gpt-oss's sink and a window of 128. Every layer
# of the library's defaults also reads a cache compressed along the sequence (a checkpoint's
# configuration may keep a few layers window-only): either one entry for every 4 tokens, of
# which an indexer picks 512 for each query (the next chapter's sparse attention), or one
# entry for every 128 tokens. Its QK-norm divides each head's query by its root mean square
# with no gain, and normalises the one key with a gain; since the key is also the value, that
# norm acts on the values too. RoPE rotates only 64 of the 512 numbers of the one key all heads
# share, as MLA rotates its one shared key; unlike MLA's, those rotated numbers are also part
# of the value, so the output's 64 are rotated back by the query's position. It divides the
# scores by $\sqrt{512}$, where MLA divided by $\sqrt{d_h + d_h^R}$.
#
# In the library's defaults Gemma 4 keeps Gemma 3's pattern: of its {eval}`gemma4_layers`
# layers, of width {eval}`grouped(gemma4_width)`, {eval}`gemma4_local` are windowed, with a
# window of {eval}`gemma4_window`, and {eval}`gemma4_global` global, the last among them; a
# checkpoint sets its own pattern and window. It divides by nothing: its `scaling` is 1.0, and
# QK-norm alone sets the scale, as in the table of
# [the QK-norm section](11_modern_attention.ipynb#how-large-can-a-score-grow-qk-norm-and-soft-capping-qk).
# It also normalises the values, with an RMSNorm that has no gain, and its global layers
# rotate only a quarter of each head's numbers, with RoPE's base 1,000,000 (the local layers
# use 10,000 and rotate all of them). A switch, `attention_k_eq_v`, off in the defaults, gives
# the global layers no value projection: their values are the key projection's output, before
# the key's norm and rotation, the K = V idea of DeepSeek-V4 on the global layers only.
#
# Qwen3.5 keeps Qwen3-Next's gate and its three linear-attention layers to one attention layer
# ([Chapter 12](12_linear_attention.ipynb)); its default `partial_rotary_factor`, 0.25, rotates
# a quarter of each head. MiniMax-M2 has global attention in every layer, with a QK-norm over
# the whole projection, as OLMo 2's, over the query and the key projection separately. Its
# defaults rotate all of each head; its configuration class also reads a checkpoint's
# `rotary_dim`, the number of rotated numbers, into a partial rotation. So three of the four
# rotate only part of each head in the library's defaults (Gemma 4 only in its global
# layers), the partial RoPE of
# [Chapter 6](06_positions.ipynb): the rest of the head carries no position.
# %% [markdown]
# ## Summary
#
# - A sliding window of $W$ keys is a band mask, $0 \le i - j < W$ (Hugging Face's
#   convention; Mistral's paper words it with one key more). $k$ windowed layers reach
#   $k(W - 1) + 1$ tokens. A ring buffer of $W$ slots, position $t$ in slot $t \bmod W$, gives
#   exactly the windowed pass's rows.
# - Shipped models interleave local and global layers (Gemma 3 5:1 with 1,024 tokens, gpt-oss
#   1:1 with 128); the global layers hold most of the cache.
# - A softmax row must put its weight somewhere; trained models put it on the first tokens
#   (attention sinks), so StreamingLLM keeps them, and gpt-oss learns a sink logit per head:
#   here it took {eval}`dec(share)` of the row and shrank the output by $1 - \text{share}$.
# - A sigmoid gate on each head's output lets a head add nothing; QK-norm bounds a scaled score
#   by $\sqrt d$ times the gains ({eval}`plain(bound)` here), soft-capping by $c$.
# - MLA caches one latent $\mathbf c_t$ of $d_c$ numbers and one RoPE key of $d_h^R$ per
#   token; the absorbed path attends to them directly and equals the naive one, since
#   $\mathbf q \cdot (\mathbf c_j W^{UK}) = (\mathbf q\, {W^{UK}}^\top) \cdot \mathbf c_j$
#   ({eval}`naive_small` both ways by hand). DeepSeek-V3 caches {eval}`dec(per_token_kib["MLA"], 2)`
#   KiB per token instead of {eval}`grouped(per_token_kib["MHA"])`.
# - A configuration names each of these in a field (`sliding_window`, `layer_types`, `sinks`,
#   `q_norm`, `kv_lora_rank`, …).
# - *Going further:* a pair costs {eval}`dec(pair_ratio, 1)` times as many FLOPs absorbed, but
#   a decoding step that decompresses pays {eval}`dec(decompress_ratio, 0)` times more per
#   cached token, so dense MLA prefills naive and decodes absorbed; a latent with no head axis
#   cannot be split across GPUs by heads; Llama 4's chunked attention is a band whose start
#   jumps at each chunk boundary.
# - *Going further:* in their library defaults, 2026's models combine these pieces: DeepSeek-V4
#   one K = V vector of 512 per token with a sink, a window and compressed caches; Gemma 4
#   windows {eval}`gemma4_local` layers of {eval}`gemma4_layers` and uses QK-norm with no
#   divisor at all; Qwen3.5 a gate; MiniMax-M2 a QK-norm over the whole projection; three of
#   them rotate only part of each head (Gemma 4 only in its global layers).
# %% [markdown]
# ## Exercises
#
# Each exercise checks your answer on the spot: run the cell and read the one-line verdict.
# The hints and solutions are folded away until you ask for them.
#
# ```{exercise} Count the band
# :label: ex-ch11-band-count
#
# A sliding window of $W$ keys over $n$ positions (both printed below), with the convention
# of {eval}`figures.ref("fig-band")`, $0 \le i - j < W$: how many (query, key) pairs may
# attend, that is, how many ones has the whole band mask? Count by hand, without building it.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Go row by row: a query sees itself and the $W - 1$ keys before it, when there are that many.
# ```
# %%
n_band, W_band = ch11.band_count.inputs
print(f"n = {n_band}, W = {W_band}")
answer = ...  # the number of ones in the band mask
ch11.band_count.check(answer)
# %% [markdown]
# ````{solution} ex-ch11-band-count
# :class: dropdown
#
# Query $i$ sees $\min(i + 1, W)$ keys: the first $W - 1$ queries have fewer than $W$ keys
# before them, every later one exactly $W$. Summed over the {eval}`n_band` queries, with
# $W =$ {eval}`W_band`, that is {eval}`plain(ch11.band_count.solution)`:
#
# ```python
# answer = sum(min(i + 1, W_band) for i in range(n_band))  # 1 + 2 + 3 + 4 + 4 + …
# ch11.band_count.check(answer)
# ```
# ````
# %% [markdown]
# ```{exercise} Windows of two sizes
# :label: ex-ch11-mixed-reach
#
# A stack of windowed layers need not use one window: the stack printed below mixes two
# window sizes, its first layer first. How many tokens does the last position reach through
# all of its layers (itself included), on a text long enough?
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Follow a path back from the last position: how far back can each layer take it, at most?
# ```
# %%
windows_stack = ch11.mixed_reach.inputs
print("the window of each layer, first layer first:", windows_stack)
answer = ...  # tokens reached through the whole stack
ch11.mixed_reach.check(answer)
# %% [markdown]
# ````{solution} ex-ch11-mixed-reach
# :class: dropdown
#
# A layer of window $W$ lets a path step back at most $W - 1$ positions, whatever the other
# layers do, so the steps add: $1 + \sum_\ell (W_\ell - 1)$, here
# {eval}`plain(ch11.mixed_reach.solution)` tokens. With one window for all $k$ layers this is
# $k(W - 1) + 1$ again, and the order of the layers does not matter:
#
# ```python
# answer = 1 + sum(w - 1 for w in windows_stack)
# ch11.mixed_reach.check(answer)
# ```
# ````
# %% [markdown]
# ```{exercise} What the ring holds
# :label: ex-ch11-ring-slots
#
# A ring buffer of $W$ slots (printed below) has received positions $0, 1, \dots, t$, one at a
# time. Which position does each slot hold now? Answer with $W$ numbers, slot 0 first.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Position $p$ was written into slot $p \bmod W$, over whatever was there. Which is the last
# position that went into each slot?
# ```
# %%
W_ring, t_ring = ch11.ring_slots.inputs
print(f"W = {W_ring} slots; positions 0 … {t_ring} appended, one at a time")
answer = ...  # [the position in slot 0, in slot 1, …]
ch11.ring_slots.check(answer)
# %% [markdown]
# ````{solution} ex-ch11-ring-slots
# :class: dropdown
#
# Slot $s$ holds the last position $p \le t$ with $p \bmod W = s$: the $W$ newest positions,
# {eval}`plain(ch11.ring_slots.solution)`, not in position order, since the newest, $t$, sits in
# slot $t \bmod W$ and the oldest just after it:
#
# ```python
# answer = [max(p for p in range(t_ring + 1) if p % W_ring == s) for s in range(W_ring)]
# ch11.ring_slots.check(answer)
# ```
# ````
# %% [markdown]
# ```{exercise} Design: a window and global layers for a memory budget
# :label: ex-ch11-local-global-budget
#
# You design a model of the shape printed below, and its KV cache for one sequence of $n$
# tokens in bfloat16 must fit the printed budget. Choose the window $W$ of its local layers
# and how many of its layers are global. So that the model still reads a paragraph in every
# layer and the whole text often enough, $W$ must be at least the printed minimum and at least
# one layer in eight must be global. Answer `[W, global layers]`.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Work out what one layer holds for one position, then what a global layer holds at $n$
# tokens: how many global layers does the budget allow, and what is left for the others?
# ```
# %%
layers_b, kv_heads_b, d_head_b, n_b, b_b, budget_b, min_global_b, min_window_b = (
    ch11.local_global_budget.inputs
)
print(f"layers = {layers_b}, KV heads = {kv_heads_b}, d_head = {d_head_b},", end=" ")
print(f"n = {n_b:,}, budget = {budget_b} GiB;", end=" ")
print(f"W >= {min_window_b:,}, global layers >= {min_global_b}")
answer = ...  # [W, global layers]
ch11.local_global_budget.check(answer)


# %% [markdown]
# ````{solution} ex-ch11-local-global-budget
# :class: dropdown
#
# One layer holds $2 \cdot$ {eval}`kv_heads_b` $\cdot$ {eval}`d_head_b` $\cdot$ {eval}`b_b`
# bytes, {eval}`plain(ch11.BUDGET_WORKING["one_position_kib"])` KiB, for each position, so a
# global layer at {eval}`grouped(n_b)` tokens holds
# {eval}`plain(ch11.BUDGET_WORKING["global_layer_gib"])` GiB. The fewest global layers allowed,
# {eval}`min_global_b`, take {eval}`plain(ch11.BUDGET_WORKING["globals_gib"])` GiB; the other
# {eval}`ch11.BUDGET_WORKING["local_layers"]` share the
# {eval}`plain(ch11.BUDGET_WORKING["left_gib"])` GiB left, which allows a window of up to
# {eval}`grouped(ch11.BUDGET_WORKING["largest_window"])` positions. Any $W$ from the minimum to
# that, with {eval}`min_global_b` global layers, fits; more global layers leave less for the
# windows. A power of two is the usual choice:
#
# ```python
# one_position = ac.kv_cache_bytes(1, kv_heads_b, d_head_b, 1, b_b)  # bytes: one layer
# global_layers, window = min_global_b, 4096
# held = global_layers * n_b + (layers_b - global_layers) * window  # positions, all layers
# print(held * one_position / GiB, "GiB")  # within the budget
# answer = [window, global_layers]
# ch11.local_global_budget.check(answer)
# ```
# ````
# %% [markdown]
# ```{exercise} Write the softmax with a sink
# :label: ex-ch11-sink-weights
#
# Write `sink_weights(scores, sink)`: the weights {eq}`eq-ch11-sink` of each row of `scores`
# (shape `(..., S)`, masked keys as `-np.inf`), with the sink logit `sink` joined to every
# row and dropped after the softmax. `sink` is a number or an array that broadcasts to the
# rows, `scores.shape[:-1]` (a per-head sink of shape `(H, 1)`). The check runs it on
# Chapter 4's row, on large and spread-out scores, on scores far below the sink, on a batch
# of heads, and on a row whose every key is masked: that row gives all its weight to the
# sink, so its keys get zeros, not NaN.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Join the sink as one more column (`np.broadcast_to`, then `np.concatenate`), take
# [Chapter 2](02_softmax.ipynb)'s stable softmax of each row, and drop the last column. Which
# maximum keeps every exponent at most 0, even in the fully masked row?
# ```
# %%
def sink_weights(scores, sink):
    raise NotImplementedError  # scores [..., S], sink broadcasting to [...] -> [..., S]


ch11.sink_weights.check(sink_weights)
# %% [markdown]
# ````{solution} ex-ch11-sink-weights
# :class: dropdown
#
# With the sink as the last column, the row's maximum includes it. That keeps every exponent
# at most 0 however large or small the scores are, and in the fully masked row, whose scores
# are all $-\infty$, the maximum is the sink's, finite: its keys get $e^{-\infty} = 0$ and the
# sink all the weight:
#
# ```python
# def sink_weights(scores, sink):
#     sink = np.broadcast_to(sink, scores.shape[:-1])[..., None]  # [..., 1]
#     joined = np.concatenate([scores, sink], axis=-1)  # [..., S + 1]
#     e = np.exp(joined - joined.max(axis=-1, keepdims=True))  # the max includes the sink
#     return (e / e.sum(axis=-1, keepdims=True))[..., :-1]  # the sink's column dropped
#
#
# ch11.sink_weights.check(sink_weights)
# ```
# ````
# %% [markdown]
# ```{exercise} A sink logit for a given share
# :label: ex-ch11-sink-logit
#
# Back to Chapter 4's query and three keys (printed below). Which sink logit $z$ makes the
# sink take the share $p$ printed below, so that the three words' weights sum to $1 - p$?
# Three decimals.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Write the share of {eq}`eq-ch11-sink` as an equation in $e^z$ and solve it; the sum
# $\sum_l e^{s_l}$ of the scaled scores is the one computed above.
# ```
# %%
q_sl, keys_sl, p_sl = ch11.sink_logit.inputs
print(f"q = {tuple(q_sl.tolist())}, keys = {keys_sl.tolist()}, p = {p_sl}")
answer = ...  # the sink logit z
ch11.sink_logit.check(answer)
# %% [markdown]
# ````{solution} ex-ch11-sink-logit
# :class: dropdown
#
# From $e^z / (e^z + \sum_l e^{s_l}) = p$: $e^z (1 - p) = p \sum_l e^{s_l}$, so
# $z = \ln\frac{p}{1 - p} + \ln \sum_l e^{s_l}$. The sum of the scaled exponentials was
# {eval}`dec(exps_total)`, so $z =$ {eval}`dec(ch11.sink_logit.solution)`. The sink logit
# that takes half the row is the log-sum-exp of the scores itself:
#
# ```python
# scaled_sl = keys_sl @ q_sl / math.sqrt(len(q_sl))
# answer = math.log(p_sl / (1 - p_sl)) + math.log(np.exp(scaled_sl).sum())
# ch11.sink_logit.check(answer)
# ```
# ````
# %% [markdown]
# ```{exercise} The largest score under QK-norm
# :label: ex-ch11-qk-norm-bound
#
# A head of $d = 8$ has the QK-norm gains printed below. What is the bound
# {eq}`eq-ch11-qk-bound` on its scaled scores, with the divisor $\sqrt d$? Three decimals.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# After RMSNorm, what is the length of a vector of $d$ numbers, before the gains? And can a
# negative gain make a score large?
# ```
# %%
g_q_ex, g_k_ex = ch11.qk_norm_bound.inputs
print("g_q =", g_q_ex.tolist())
print("g_k =", g_k_ex.tolist())
answer = ...  # the bound on the scaled score
ch11.qk_norm_bound.check(answer)


# %% [markdown]
# ````{solution} ex-ch11-qk-norm-bound
# :class: dropdown
#
# The bound is $\sqrt d \max_i |g_{q,i}| \max_i |g_{k,i}|$: the largest gain of $g_q$ in
# absolute value is the negative one, since a query pointing the other way along that
# dimension turns the sign back. Both largest gains sit on the same dimension here, so the
# bound, {eval}`dec(ch11.qk_norm_bound.solution)`, is also reached:
#
# ```python
# answer = math.sqrt(len(g_q_ex)) * np.abs(g_q_ex).max() * np.abs(g_k_ex).max()
# ch11.qk_norm_bound.check(answer)
# ```
# ````
# %% [markdown]
# ```{exercise} Prove it: $W^{UV}$ folds into the output projection
# :label: ex-ch11-mla-fold-values
#
# Head $h$'s output is $\mathbf o_h = \sum_j w_j \mathbf v_{j,h} = \sum_j w_j\,
# \mathbf c_j W^{UV}_h$, and the layer multiplies it by head $h$'s slice of the output
# projection, $W^O_h$ ($d_v \times D$). Write `fold_values(w_uv, w_o)`: the one matrix $M_h$,
# of shape $d_c \times D$, such that $\mathbf o_h W^O_h = \bigl(\sum_j w_j \mathbf c_j\bigr)
# M_h$ for every row of weights and every set of latents, so that an absorbed step never
# decompresses a value. `w_uv` has shape `(..., d_c, d_v)` and `w_o` `(..., d_v, D)`, one
# pair or a stack of heads. The check compares your matrix with the naive path run on each
# latent $\mathbf e_i$ of the identity: if no such matrix existed, none could pass.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# The weights $w_j$ are numbers: move them out of the products. Which matrix product
# associates?
# ```
# %%
def fold_values(w_uv, w_o):
    # w_uv [..., d_c, d_v], w_o [..., d_v, D] -> [..., d_c, D]
    raise NotImplementedError


ch11.mla_fold_values.check(fold_values)
# %% [markdown]
# ````{solution} ex-ch11-mla-fold-values
# :class: dropdown
#
# $\mathbf o_h W^O_h = \bigl(\sum_j w_j\, \mathbf c_j W^{UV}_h\bigr) W^O_h =
# \bigl(\sum_j w_j \mathbf c_j\bigr) \bigl(W^{UV}_h W^O_h\bigr)$: the weights are numbers
# and matrix products associate, so $M_h = W^{UV}_h W^O_h$, computed once for the model, not
# per token. A decoding step averages the cached latents with the weights, $d_c$ numbers,
# and multiplies by $M_h$. Each head keeps its own $M_h$, and `@` pairs the heads of a stack
# where `np.dot` would multiply every head by every other:
#
# ```python
# def fold_values(w_uv, w_o):
#     return w_uv @ w_o  # [..., d_c, d_v] @ [..., d_v, D] -> [..., d_c, D]
#
#
# ch11.mla_fold_values.check(fold_values)
# ```
# ````
# %% [markdown]
# ```{exercise} The MLA cache of DeepSeek-V2
# :label: ex-ch11-mla-cache
#
# DeepSeek-V2 ([DeepSeek-AI, 2024a](references.md)) has the layers, heads and MLA sizes
# printed below. How many KiB ($2^{10}$ bytes) does its cache hold per token, in bfloat16
# (2 bytes a number)?
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# What does one layer cache for one token, and which of those numbers does every head share?
# ```
# %%
layers_v2, heads_v2, d_c_v2, d_rope_v2, b_v2 = ch11.mla_cache.inputs
print(f"layers = {layers_v2}, heads = {heads_v2}, d_c = {d_c_v2}, d_h^R = {d_rope_v2}")
answer = ...  # KiB per token
ch11.mla_cache.check(answer)
# %% [markdown]
# ````{solution} ex-ch11-mla-cache
# :class: dropdown
#
# Each layer caches, for each token, one latent of $d_c =$ {eval}`d_c_v2` numbers and one
# RoPE key of $d_h^R =$ {eval}`d_rope_v2`, shared by all {eval}`heads_v2` heads; the keys and
# values are both decompressed from the same latent, so nothing is counted twice. Times
# {eval}`layers_v2` layers and {eval}`b_v2` bytes: {eval}`dec(ch11.mla_cache.solution, 1)` KiB:
#
# ```python
# answer = (d_c_v2 + d_rope_v2) * layers_v2 * b_v2 / KiB
# ch11.mla_cache.check(answer)
# ```
# ````
# %% [markdown]
# ## How long this chapter took
# %% tags=["nbval-ignore-output"]
chapter_seconds = time.perf_counter() - chapter_start
round(chapter_seconds, 1)
# %% [markdown]
# This chapter ran top to bottom in {eval}`dec(chapter_seconds, 1)` seconds on the machine
# that built this page.
