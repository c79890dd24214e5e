# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # The n² cost (n² 비용)
#
# The Korean write-up of a Quanta Magazine column that this book follows
# ([references](references.md)) ends its mathematics on attention's technical limit
# (기술적 한계): $QK^\top$ is an $n \times n$ matrix for $n$ words, so the computation
# (계산량) and the memory (메모리) grow with the square of the sequence length. This chapter
# counts that cost by hand, and then removes the memory half of it with the trick every fast
# attention kernel uses today: the online softmax.
#
# After the core of this chapter you will be able to:
#
# - count the FLOPs and the bytes of attention for given shapes;
# - run the online softmax (온라인 소프트맥스) by hand and merge two halves computed apart;
# - name what FlashAttention adds to it.
#
# The sections marked *Going further* add, one line each:
#
# - weigh attention's FLOPs against the rest of a layer's;
# - measure time and memory against $n$ on your machine and read a log-log slope;
# - say, by the roofline model, which steps are compute-bound and which memory-bound;
# - count FlashAttention's bytes through a GPU's memory and the FLOPs training adds;
# - run attention in query tiles, as `attn_core` does on long inputs;
# - name the main lines of work that avoid the quadratic cost.
#
# **The core of this chapter** is computing exact attention without ever holding its
# $n \times n$ scores: [count the score matrix](09_cost.ipynb#count-it-the-score-matrix-is) and
# [its memory at long contexts](09_cost.ipynb#how-much-memory-long-contexts), then run
# [the online softmax by hand](09_cost.ipynb#memory-efficient-attention-by-hand),
# [chunked on a long sequence](09_cost.ipynb#the-chunked-version-on-a-long-sequence), and see
# [what FlashAttention adds](09_cost.ipynb#what-flashattention-adds). The sections marked
# *Going further* weigh attention against the rest of the layer, measure the cost on your
# machine, find where the time goes, count FlashAttention's bytes, and show the query tiles
# `attn_core` runs and where the field went; a first reading can skip them, and no core
# section needs them.

# %%
import functools
import math
import os
import time

import attn_core as ac
import numpy as np
from attn_book.data import quanta_example, sentence_example
from attn_book.exercises import ch09_cost as ch9
from attn_book.figures import Figures
from attn_book.plots import plot_cost_scaling
from attn_book.progress import TextProgress, sweep_note
from attn_book.prose import dec, plain, vector
from attn_book.tables import step_table
from attn_book.timing import (
    loglog_fit,
    machine,
    one_blas_thread,
    peak_bytes,
    processor_clock,
    timed,
)
from attn_book.widgets import MemoryCalculator

figures = Figures(chapter=9)
chapter_start = time.perf_counter()
rng = np.random.default_rng(0)
# processor time where its steps are fine (Linux, macOS), else the wall clock (Windows)
cpu_time, cpu_tick, clock_name = processor_clock()
n_cores = os.cpu_count()


def load_average():
    """The 1-minute load average (how many programs wanted a core); nan where unknown."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan


# %% [markdown]
# ## Count it: the score matrix is $L \times S$
#
# Take the sentence "나는 사과를 먹었다" of [Chapter 4](04_worked_example.ipynb), the example
# of the Korean explainer of queries, keys and values: $n = 3$ words, each with a query, a key
# and a value of $d_k = 2$ numbers. Self-attention compares every query with every key:

# %%
sentence = sentence_example()
Q, K, V = sentence.query, sentence.keys, sentence.values  # [3, 2] each
scores = Q @ K.T  # [L, d_k] @ [d_k, S] -> [L, S]
n_words, d_k = Q.shape
d_v = V.shape[1]
scores.shape

# %% [markdown]
# Count by hand what that cost, a multiply and an add for every term of every dot product,
# 2 floating-point operations (FLOPs, 부동소수점 연산), and 4 bytes for every float32 number:

# %%
n_scores = scores.size  # L × S dot products
qk_flops_by_hand = 2 * n_scores * d_k  # d_k multiply-adds each
score_bytes_by_hand = 4 * n_scores  # float32

# %% [markdown]
# Every one of the {eval}`n_scores` entries is a dot product of {eval}`d_k` terms, so
# $Q K^\top$ costs 2 × {eval}`n_scores` × {eval}`d_k` = {eval}`qk_flops_by_hand` FLOPs.
# Multiplying the weights by $V$ costs as much again, each weight scaling a value of
# {eval}`d_v` numbers; the softmax adds one exponential per entry. The score matrix takes
# {eval}`n_scores` × 4 = {eval}`score_bytes_by_hand` bytes. `attn_core`'s cost model counts the same things from the
# shapes alone (its argument `d` is the key width $d_k$):

# %%
# batch, heads, L, S, d_k
cost_sentence = ac.attention_cost(1, 1, n_words, n_words, d_k)
for field, value in cost_sentence._asdict().items():
    print(f"{field:>13} = {value}")

# %% [markdown]
# In general, for a batch of $B$ sequences with $h$ heads each, $L$ queries, $S$ keys,
# query and key size $d_k$, value size $d_v$ and $b$ bytes per number:
#
# $$
# \begin{aligned}
# \text{FLOPs} &= \underbrace{2BhLSd_k}_{QK^\top} + \underbrace{2BhLSd_v}_{\text{weights}\,V},\\
# \text{bytes of the weights} &= BhLS\,b .
# \end{aligned}
# $$ (eq-ch9-cost)
#
# In self-attention $L = S = n$, and both grow with $n^2$: doubling the sentence quadruples
# them, while the inputs and the output, $n \times d_k$ each, only double. One head of GPT-2's
# shape ($d_k = 64$, float32) as $n$ doubles:

# %%
lengths = [1024, 2048, 4096, 8192, 16384]
costs = [ac.attention_cost(1, 1, n, n, 64) for n in lengths]
step_table(
    {
        "n": [f"{n:,}" for n in lengths],
        "GFLOP (both matmuls)": [c.matmul_flops / 1e9 for c in costs],
        "weights (MiB)": [c.score_bytes / 2**20 for c in costs],
        "Q, K, V (MiB)": [c.input_bytes / 2**20 for c in costs],
    },
    digits=1,
)

# %% [markdown]
# ## How much memory: long contexts
#
# Context windows have grown from GPT-2's 1,024 tokens to 128k (131,072) and, in many 2026
# models, 256k to 1M tokens, read with many heads. Held at once, the weights of one layer are
# $B \cdot h \cdot n^2 \cdot b$ bytes. A naive forward pass can free them once the layer is
# done, but a naive training step keeps the weights of *every* layer until the backward pass,
# which needs them ([Chapter 8](08_learning.ipynb)). A model with 32 heads in float16
# (2 bytes), one sequence, at 32k (32,768) and 128k tokens:

# %%
GiB = 2**30
heads, dtype = 32, "float16"
weights_32k = ac.attention_cost(1, heads, 32768, 32768, 128, dtype).score_bytes / GiB
weights_128k = ac.attention_cost(1, heads, 131072, 131072, 128, dtype).score_bytes / GiB
laptop, gpu = 16, 80  # GiB: a laptop's memory, an H100-class data-centre GPU's
laptops_32k = weights_32k / laptop
gpus_128k = weights_128k / gpu
n_layers = 32  # layers whose weights a naive training step keeps for the backward pass
training_32k = n_layers * weights_32k
print(f"32k: {weights_32k:,.0f} GiB   128k: {weights_128k:,.0f} GiB")

# %% [markdown]
# The weights outgrow a laptop at 32k tokens and a data-centre GPU at 128k. At 32k tokens
# the weights of a single layer take {eval}`plain(weights_32k)` GiB, {eval}`plain(laptops_32k)` times a
# {eval}`laptop` GiB laptop's memory. At 128k they take {eval}`plain(weights_128k)` GiB,
# {eval}`dec(gpus_128k, 1)` times the memory of a data-centre GPU of the H100 class (about
# {eval}`gpu` GiB). A naive training step of {eval}`n_layers` such layers would keep
# {eval}`plain(training_32k)` GiB at 32k alone. Try other shapes in the calculator: slide $n$,
# the heads and the batch, or pick another dtype, and watch the bar cross the laptop's and the
# GPU's memory. It computes in your browser, even on the static site.

# %%
calculator = MemoryCalculator(n=32768, heads=heads, batch=1, dtype=dtype)
figures.show(
    calculator,
    "fig-memory",
    "The bytes of one layer's attention weights, batch × heads × n² × "
    "bytes per number, on a log axis. Dashed: a laptop's and a GPU's "
    "memory; ticks: the same heads, batch and dtype at 32k and 128k "
    "tokens.",
)

# %% [markdown]
# No one holds those matrices: the rest of this chapter is about computing attention without
# ever storing the $n \times n$ matrix.

# %% [markdown]
# ## Memory-efficient attention by hand
#
# The softmax of a row needs the row's maximum (for stability, [Chapter 2](02_softmax.ipynb)) and
# the sum of its exponentials, both over *all* the keys. That seems to force the whole row into
# memory. It does not: visit the keys one block at a time and keep, for each query, three running
# quantities over the keys seen so far,
#
# $$
# m = \max_j s_j, \qquad
# \ell = \sum_j e^{s_j - m}, \qquad
# \mathbf o = \sum_j e^{s_j - m}\,\mathbf v_j .
# $$ (eq-ch9-running)
#
# When a new block raises the max from $m$ to $m'$, every term summed so far was computed with
# the old max and is too large by $e^{m' - m}$; multiplying $\ell$ and $\mathbf o$ by the
# rescale factor (재조정 계수) $e^{m - m'} \le 1$ fixes them all at once. Then the block's own terms are added,
# shifted by $m'$. At the end, $\mathbf o / \ell$ is the attention output. Computing the
# normaliser $\ell$ this way, in one pass with a running max, is the online softmax of
# [Milakov & Gimelshein (2018)](references.md); carrying the output $\mathbf o$ along in the
# same pass, so that the weights are never stored, is what
# [Rabe & Staats (2021)](references.md) and FlashAttention
# ([Dao et al., 2022](references.md)) do. The worked example's query and keys, whose scaled
# scores we know from [Chapter 4](04_worked_example.ipynb):

# %%
example = quanta_example()  # the Quanta write-up's worked example
q, V_ex = example.query, example.values  # q: [2]; values: [3, 2]
s = example.keys @ q / math.sqrt(2)  # [3] scaled scores
s.round(3)

# %% [markdown]
# Split the keys into two blocks, $[\mathbf k_1, \mathbf k_2]$ and $[\mathbf k_3]$. The first
# block starts the running quantities:

# %%
m_1 = s[:2].max()  # running max after block 1
l_1 = np.exp(s[:2] - m_1).sum()  # running sum
term_2 = np.exp(s[1] - m_1)  # key 2's term
o_1 = np.exp(s[:2] - m_1) @ V_ex[:2]  # running output, not yet divided: [2]
print("m =", dec(m_1), " l =", dec(l_1), " o =", vector(o_1))

# %% [markdown]
# $m =$ {eval}`dec(m_1)`, $\ell = e^0 + e^{-0.707} \approx$ {eval}`dec(l_1)` and
# $\mathbf o = 1 \cdot$ {eval}`vector(V_ex[0])` + {eval}`dec(term_2)` ×
# {eval}`vector(V_ex[1])` = {eval}`vector(o_1)`. Now the second block arrives:

# %%
m_2 = max(m_1, s[2])  # the new max
rescale_2 = np.exp(m_1 - m_2)  # e^(m_old − m_new): 1 when the max did not move
l_2 = l_1 * rescale_2 + np.exp(s[2] - m_2)
o_2 = o_1 * rescale_2 + np.exp(s[2] - m_2) * V_ex[2]
output_2 = o_2 / l_2  # divided at the end
weights_online = np.exp(s - m_2) / l_2  # each term over the sum
print("rescale =", dec(rescale_2), " l =", dec(l_2))
print("o / l =", vector(output_2))

# %% [markdown]
# Key 3 scores as high as key 1, so the max stays and the rescale factor is
# {eval}`plain(rescale_2)`. The sum is now $\ell \approx$ {eval}`dec(l_2)`, which is
# [Chapter 4](04_worked_example.ipynb)'s sum 5.056 divided by $e^{0.707} \approx 2.028$: the
# same sum, measured in units of the max. Dividing gives the output
# {eval}`vector(output_2)`, and the weights are the terms over the sum,
# {eval}`dec(weights_online)`, the worked example's numbers. `attn_core`'s chunked version
# agrees, with values the identity matrix to read the weights off:

# %%
chunked = ac.chunked_attention(q, example.keys, V_ex, block_size=2)
np.testing.assert_allclose(chunked, output_2)
np.testing.assert_allclose(
    ac.chunked_attention(q, example.keys, np.eye(3), block_size=2),
    weights_online,
)

# %% [markdown]
# In the worked example's order the max arrives with the first key, so nothing ever needs rescaling. Send
# the keys one at a time in the order $\mathbf k_2, \mathbf k_1, \mathbf k_3$ (attention does not
# depend on the order of the keys) and watch the rescale factor work:

# %%
order = [1, 0, 2]  # k2, then k1, then k3
state = ac.online_softmax_start(2)
trace = []
for j in order:
    block_j = slice(j, j + 1)  # one key
    state = ac.online_softmax_step(state, s[block_j], V_ex[block_j])
    trace.append(state)
maxes = [t.running_max for t in trace]
rescales = [t.rescale for t in trace]
totals = [t.total for t in trace]
outs = [t.out for t in trace]  # not yet divided
outputs = [t.output for t in trace]  # out / total
step_table(
    {
        "sⱼ": s[order],
        "m": maxes,
        "rescale": rescales,
        "ℓ": totals,
        "o": [vector(o) for o in outs],
        "o / ℓ": [vector(o) for o in outputs],
    },
    index=["k2", "k1", "k3"],
)

# %% [markdown]
# After $\mathbf k_2$ alone, $\ell = 1$ and $\mathbf o =$ {eval}`vector(outs[0])`. Then
# $\mathbf k_1$ raises the max from 0 to {eval}`dec(maxes[1])`: the old sum and output are
# multiplied by $e^{0 - 0.707} \approx$ {eval}`dec(rescales[1])` before $\mathbf k_1$'s term
# $e^0 = 1$ is added, giving $\ell \approx$ {eval}`dec(totals[1])`. After $\mathbf k_3$ the
# output is {eval}`vector(outputs[-1])` again. (The first step's
# rescale is $e^{-\infty} = 0$: there was nothing to rescale.)

# %% [markdown]
# ## The chunked version on a long sequence
#
# The same loop over blocks of 256 keys, on $n = 4096$ random queries, keys and values with
# $d_k = 64$: `ac.chunked_attention` against the plain path, the same output to float32
# tolerance:

# %%
n_long, block = 4096, 256
q_l, k_l, v_l = rng.standard_normal((3, n_long, 64), dtype=np.float32)
long_scores = np.empty((n_long, n_long), dtype=np.float32)
long_out = np.empty((n_long, 64), dtype=np.float32)
methods = {
    "floor": lambda: (
        np.matmul(q_l, k_l.T, out=long_scores),
        np.matmul(long_scores, v_l, out=long_out),
    ),
    "plain": lambda: ac.attention_weights(q_l, k_l) @ v_l,
    "chunked": lambda: ac.chunked_attention(q_l, k_l, v_l, block_size=block),
}
np.testing.assert_allclose(methods["chunked"](), methods["plain"](), rtol=1e-4, atol=1e-6)
peak_plain = peak_bytes(methods["plain"])
peak_chunked = peak_bytes(methods["chunked"])
peak_plain_mib = round(peak_plain / 2**20)
peak_chunked_mib = round(peak_chunked / 2**20)
memory_saving = round(peak_plain / peak_chunked)
print(f"peak extra memory: plain {peak_plain_mib} MiB,")
print(f"                   chunked {peak_chunked_mib} MiB")

# %% [markdown]
# The plain path held {eval}`plain(peak_plain_mib)` MiB at its peak, the chunked one
# {eval}`plain(peak_chunked_mib)` MiB: {eval}`plain(memory_saving)` times less, because it
# holds a few $n \times \text{block}$ arrays at a time (a block's scores, their shifted copy,
# their exponentials), $O(n \cdot \text{block})$ instead of $O(n^2)$; a few slices, so the
# saving is less than the number of blocks. The FLOPs do not change: the blocks' products
# add up to exactly the full ones,

# %%
block_flops = sum(  # both products of a block: 2 · L · block · d_k each
    2 * 2 * n_long * min(block, n_long - start) * 64 for start in range(0, n_long, block)
)
full_flops = ac.attention_cost(1, 1, n_long, n_long, 64).matmul_flops
print(f"FLOPs of the products: block by block {block_flops:,}, all at once {full_flops:,}")

# %% [markdown]
# So the online softmax computes every score once, as the plain path does: the same
# matrix-product FLOPs, plus a small rescaling cost per block. What about the time? On the
# build machine, in milliseconds (measured: your run gives your machine's numbers):

# %% tags=["nbval-ignore-output"]
with one_blas_thread():  # the fastest of 3 calls each, the library on one thread
    long_ms = {
        name: timed(methods[name], repeats=3, clock=cpu_time, tick=cpu_tick).best * 1e3
        for name in ("floor", "plain", "chunked")
    }
chunked_vs_plain = long_ms["chunked"] / long_ms["plain"]
chunked_vs_floor = long_ms["chunked"] / long_ms["floor"]
block_mib = n_long * block * 4 / 2**20  # one block of float32 scores
n_blocks = n_long // block
load_long = load_average()  # other programs running at once slow a timing down
print(f"the two products alone: {long_ms['floor']:.1f} ms")
print(f"the plain path: {long_ms['plain']:.1f} ms")
print(f"the chunked path: {long_ms['chunked']:.1f} ms")

# %% [markdown]
# With numpy on a CPU the time can go either way; the memory saving is certain. Here, at a
# load average of {eval}`dec(load_long, 1)` on {eval}`n_cores` cores, the chunked path took
# {eval}`dec(chunked_vs_plain, 2)` times the plain path's time and
# {eval}`dec(chunked_vs_floor, 1)` times the two matrix products alone. Two effects pull in
# opposite directions. A block's three arrays (its scores, their shifted copy, their
# exponentials), $n \times$ {eval}`block` numbers and {eval}`plain(block_mib)` MiB each, can
# stay in a large last-level (L3) cache, though not in a core's own L2 of a few MiB; where
# they do, its elementwise passes need not wait for main memory. But it runs a Python loop
# over {eval}`n_blocks` blocks and rescales the running output at each one.

# %% [markdown]
# ## What FlashAttention adds
#
# FlashAttention ([Dao et al., 2022](references.md)) runs the same online softmax inside one
# GPU kernel: $QK^\top$, the softmax and the product with $V$ fused, each block of scores
# living in the chip's small on-chip memory (SRAM) and never reaching the large, slow main
# memory (HBM). On a GPU the naive version's time is mostly that traffic: each score is
# written out once and read back once per pass of the softmax, a few bytes moved for every few
# FLOPs. Removing it makes exact attention several times faster as well as $O(n)$ in
# memory beyond its inputs and output (one or two statistics per query in HBM: $m$ and $\ell$
# in the first version, their log-sum-exp alone in FlashAttention-2; plus one tile at a time
# in SRAM). Our loop over key blocks is its core; three more pieces make
# it a kernel:
#
# - **Query tiles.** The queries are cut into blocks too, so that one block of queries, one
#   block of keys and values, their block of scores and the running $m$, $\ell$ and
#   $\mathbf o$ fit in SRAM together. FlashAttention (the first version) loops over key and
#   value blocks outside and query blocks inside, one group of cores per head;
#   FlashAttention-2 swaps the loops, so that query blocks, which never wait for each other,
#   also run at once, one per group of cores ([Dao, 2023b](references.md)).
# - **The saved log-sum-exp.** When a query's row is done, the forward pass keeps, besides the
#   output, one number per query: the log-sum-exp of the row's scores,
#   $\Lambda = m + \log \ell$ (FlashAttention-2; the first paper's algorithm saved $m$
#   and $\ell$ apart). That is $n$ numbers instead of $n^2$ weights, and every weight can be rebuilt
#   from it and its score, $w_j = e^{s_j - \Lambda}$.
# - **Recomputation in the backward pass.** Training needs the weights again for the
#   gradients. Instead of reading $n^2$ stored weights back from HBM, the backward pass
#   recomputes each block of scores from $Q$ and $K$ and each block of weights from $\Lambda$. That
#   costs more FLOPs, another $QK^\top$, but far fewer bytes, and on a GPU the bytes were the
#   bottleneck.
#
# The log-sum-exp of the worked example's row, from the running max and sum above, gives back
# its weights:

# %%
lse = m_2 + math.log(l_2)  # Λ = m + log ℓ: one number per query
weights_from_lse = np.exp(s - lse)  # w_j = e^(s_j − Λ), no sum needed
np.testing.assert_allclose(weights_from_lse, weights_online)

# %% [markdown]
# $\Lambda =$ {eval}`dec(lse)` and $e^{s_j - \Lambda}$ gives {eval}`dec(weights_from_lse)`,
# the weights again: from $n$ saved numbers the backward pass can rebuild all $n^2$ weights.
# The $n^2$ in time remains, since every score is still computed; what FlashAttention removes
# is the $n \times n$ table in memory and the traffic to and from it.
# [Going further: FlashAttention counted](09_cost.ipynb#going-further-flashattention-counted)
# counts those bytes, and the FLOPs training adds.

# %% [markdown]
# ## Going further: against the rest of the layer
#
# Attention is not all of a layer's work. Every token also goes through the four projections
# $W_Q, W_K, W_V, W_O$ of [Chapter 7](07_heads_and_masks.ipynb), each $d_\text{model} \times
# d_\text{model}$, and through the layer's MLP, which widens to $4\,d_\text{model}$ and back.
# Per token, counting 2 FLOPs a multiply-add, the projections cost $8\,d_\text{model}^2$, the
# MLP $16\,d_\text{model}^2$, and attention $4\,n\,d_\text{model}$ ($QK^\top$ and the weights
# times $V$, over all heads, for each of the $n$ keys). Attention catches up with the rest at
# $4\,n\,d_\text{model} = 24\,d_\text{model}^2$, that is at $n = 6\,d_\text{model}$. For GPT-2
# small:

# %%
d_model, n_heads = 768, 12  # GPT-2 small; d_head = 64
projections = 2 * 4 * d_model * d_model  # per token: W_Q, W_K, W_V, W_O
mlp = 2 * 2 * d_model * (4 * d_model)  # per token: up to 4 d_model and back
per_key = ac.attention_cost(1, n_heads, 1, 1, d_model // n_heads).matmul_flops  # 4 d_model
crossover = (projections + mlp) / per_key  # the n at which n * per_key equals the rest
crossover_per_d = crossover / d_model
layer_n = [1024, int(crossover), 32768]
attention_share = [n * per_key / (n * per_key + projections + mlp) for n in layer_n]
step_table({"n": [f"{n:,}" for n in layer_n], "attention's share of the FLOPs": attention_share})

# %% [markdown]
# Attention does most of the layer's work only for long inputs: it passes the rest at
# $n =$ {eval}`plain(crossover)`, {eval}`plain(crossover_per_d)` times $d_\text{model}$, and
# the table shows its share below and above that point. A causal model halves attention's
# FLOPs: query $t$ sees $t + 1$ keys, $n(n + 1)/2$ pairs in all, so a kernel that skips the masked half (FlashAttention-2
# skips every tile above the diagonal) does about half the score work. `ac.attention_cost`
# counts only those pairs with `causal=True`:

# %%
causal_flops = ac.attention_cost(1, n_heads, 32768, 32768, 64, causal=True).matmul_flops
causal_fraction = causal_flops / ac.attention_cost(1, n_heads, 32768, 32768, 64).matmul_flops
crossover_causal = round(2 * crossover) - 1  # a query sees (n + 1) / 2 keys on average
at_crossover = ac.attention_cost(1, n_heads, crossover_causal, crossover_causal, 64, causal=True)
causal_per_token = at_crossover.matmul_flops / crossover_causal  # averaged over the queries
assert causal_per_token == projections + mlp  # the crossover, counted pair by pair
crossover_causal_per_d = crossover_causal / d_model
crossover_causal_times = round(crossover_causal_per_d)  # about 12
print(f"causal crossover: n = {crossover_causal:,}, n / d_model = {crossover_causal_per_d:.2f}")
print(f"at 32k tokens, causal FLOPs / full FLOPs: {causal_fraction:.4f}")

# %% [markdown]
# The crossover then moves to about {eval}`plain(crossover_causal_times)` times
# $d_\text{model}$, $n =$ {eval}`plain(crossover_causal)`; at 32k tokens the causal pass
# computes {eval}`dec(causal_fraction, 4)` of the full pass's products.
#
# GPT-2's layer is an old shape: four $d_\text{model} \times d_\text{model}$ projections and
# an MLP of two matrices. Llama 3's 8-billion model ([Grattafiori et al., 2024](references.md))
# has grouped-query attention, whose $W_K$ and $W_V$ make 8 key-value heads of 128 for the
# 32 query heads (Chapter 10), and a SwiGLU MLP of three $d_\text{model} \times 14336$
# matrices. Its attention FLOPs per key are the same $4\,d_\text{model}$: every query head
# still scores every key.

# %%
d_llama, heads_llama, kv_heads_llama, d_ff_llama = 4096, 32, 8, 14336  # Llama 3 8B
d_head_llama = d_llama // heads_llama  # 128
kv_width = kv_heads_llama * d_head_llama  # 1024: W_K and W_V are d_model × 1024
projections_llama = 2 * d_llama * (2 * d_llama + 2 * kv_width)  # W_Q, W_O, W_K, W_V
mlp_llama = 2 * 3 * d_llama * d_ff_llama  # SwiGLU: gate, up and down matrices
per_key_llama = ac.attention_cost(1, heads_llama, 1, 1, d_head_llama).matmul_flops
crossover_llama = (projections_llama + mlp_llama) / per_key_llama
crossover_llama_per_d = crossover_llama / d_llama
projections_llama_d2 = projections_llama / d_llama**2  # in units of d_model², per token
mlp_llama_d2 = mlp_llama / d_llama**2
rest_llama_d2 = projections_llama_d2 + mlp_llama_d2
crossover_llama_causal = round(2 * crossover_llama) - 1  # causal, as Llama 3 runs
at_crossover_llama = ac.attention_cost(
    1, heads_llama, crossover_llama_causal, crossover_llama_causal, d_head_llama, causal=True
)
assert at_crossover_llama.matmul_flops / crossover_llama_causal == projections_llama + mlp_llama
crossover_llama_causal_times = round(crossover_llama_causal / d_llama)  # about 13
print(f"crossover: n = {crossover_llama:,.0f}, n / d_model = {crossover_llama_per_d:.2f}")
print(f"causal crossover: n = {crossover_llama_causal:,}")

# %% [markdown]
# The conclusion holds for a 2024 model as for GPT-2. The smaller $W_K$ and $W_V$ and the
# wider MLP nearly cancel: per token the projections cost
# {eval}`plain(projections_llama_d2)`$\,d_\text{model}^2$ instead of 8 and the MLP
# {eval}`plain(mlp_llama_d2)`$\,d_\text{model}^2$ instead of 16,
# {eval}`plain(rest_llama_d2)`$\,d_\text{model}^2$ against 24. So the crossover is at
# {eval}`plain(crossover_llama_per_d)` times $d_\text{model}$, $n =$
# {eval}`plain(crossover_llama)`, counting every pair; Llama 3 is causal, and with a causal
# kernel it is about {eval}`plain(crossover_llama_causal_times)` times, $n =$
# {eval}`plain(crossover_llama_causal)`.

# %% [markdown]
# ## Going further: measure it on your machine
#
# Formulas count operations; a machine has caches, memory bandwidth and threads. The cell below
# times the plain path of `attn_core` (the weights, then `weights @ value`, as
# [Chapter 4](04_worked_example.ipynb) wrote it) for $n = 128, 256, \dots$ with $d_k = 64$ in
# float32, and beside it the two products alone, with the weights made beforehand; it records
# the peak extra memory too. One sweep over the sizes says little about how the next would
# come out, so it runs the whole sweep several times. It keeps to a time budget: during the
# first sweep, before each doubling, it predicts the next size's time (four times the last)
# and stops when all the sweeps would overrun, so it finishes in well under a minute wherever
# it runs. Its output is your machine's. Each time is the fastest of several calls in
# processor time, with the matrix library on one thread; the lines the cell prints say
# whether that pinning worked.
#
# ```{admonition} How the timing works
# :class: dropdown
#
# Helpers of
# the book's package do the measuring (`attn_book/timing.py`), made to keep the other
# programs that share the machine out of the times as far as a clock can. `one_blas_thread` runs the matrix library on one
# thread while the cells time it: a product split over two threads waits for the slower one,
# and on a machine whose other core is busy it then measures the other programs. It pins
# numpy's own OpenBLAS (the library of numpy's pip wheels on Linux and Windows, and on macOS
# before version 14), and any library `threadpoolctl` can set where that package is
# installed (a conda numpy's MKL); Apple's Accelerate, which numpy's wheels use from macOS 14
# on, it cannot, and
# the cell then prints "not pinned": the times are then of all the library's threads, added
# up by the processor-time clock, and the speeds below are not one core's. `timed` makes
# one untimed call (fresh memory is slow to touch the first time), then several timed ones,
# and keeps the fastest as the estimate, with the median and the slowest beside it: other
# programs can only slow a call down, so the fastest is the nearest to what the code itself
# costs. It counts with the clock it is given; here `time.process_time`, the processor time
# (프로세서 시간) this process used, which leaves out the time it waited while other programs held the
# processor (on a quiet machine, with one thread, the two clocks agree). It does not leave out
# the slowdown other programs cause while both run, by sharing the caches and the memory
# bandwidth: on a busy machine the speeds below, the copy's GB/s included, can be lower than
# the memory can do, and the load average the cells print says how busy it was. A clock reads
# time in steps: Linux counts processor time in steps far below a microsecond, Windows in
# steps of about 16 ms, longer than the smallest calls here, which would then time as 0. So
# `processor_clock` first measures the step of processor time and, where it is that coarse,
# times with the wall clock instead (`time.perf_counter`, fine everywhere); and where a call
# is shorter than a hundred steps of the clock, `timed` runs it enough times per timing to
# span them and divides. The printed lines name the clock, its step and the calls per
# timing.
# ```
#
# `peak_bytes` gives the peak memory a call allocates, which Python's `tracemalloc` sees for
# numpy's arrays too:


# %%
def plain_path(q, k, v):
    """Chapter 4's attention: the weights, then ``weights @ value``."""
    return ac.attention_weights(q, k) @ v


def products_only(q, k, w, v):
    """Its floor: the two products alone, ``q @ k.T`` and ``w @ v``, the weights ``w`` given."""
    return q @ k.T, w @ v


# %% tags=["nbval-ignore-output"]
budget_seconds = 30.0  # for all the sweeps together
n_sweeps = 3  # the whole sweep, run again: how much a slope moves from run to run
scaling_repeats = 5  # timings of each size in each sweep
sizes = [128 * 2**i for i in range(6)]  # 128 ... 4096: four sizes from 512 to fit
progress = TextProgress(n_sweeps * len(sizes))
measured_n, measured_peak = [], []
sweep_seconds, sweep_floor = [], []  # per sweep: the fastest time of each n, whole and products
measured_spread = []  # (median, slowest) beside each fastest, per sweep and n
calls_per_timing = 1  # more than 1 where the clock's step is long beside a call
started = last_size = time.perf_counter()
with one_blas_thread() as blas_threads:  # None: the library's threads were left as they were
    for sweep in range(n_sweeps):
        whole, floor = [], []
        for i, n in enumerate(sizes if sweep == 0 else measured_n):
            if sweep == 0:  # the first sweep sets the sizes, the others repeat them
                now = time.perf_counter()
                next_size = 4 * (now - last_size)  # doubling n ~quadruples it
                if measured_n and n_sweeps * (now - started + next_size) > budget_seconds:
                    break
                last_size = now
                measured_n.append(n)
            progress.show(sweep * len(sizes) + i, sweep_note(sweep + 1, n))
            q, k, v = rng.standard_normal((3, n, 64), dtype=np.float32)  # [n, d_k] each
            run = functools.partial(plain_path, q, k, v)
            t = timed(run, repeats=scaling_repeats, clock=cpu_time, tick=cpu_tick)
            w = ac.attention_weights(q, k)  # [n, n]: the products' second operand
            floor_run = functools.partial(products_only, q, k, w, v)
            products = timed(floor_run, repeats=scaling_repeats, clock=cpu_time, tick=cpu_tick)
            whole.append(t.best)
            floor.append(products.best)
            measured_spread.append((t.best, t.median, t.worst))
            calls_per_timing = max(calls_per_timing, t.number, products.number)
            if sweep == 0:
                measured_peak.append(peak_bytes(run))
        sweep_seconds.append(whole)
        sweep_floor.append(floor)
    progress.show(n_sweeps * len(sizes))
    print(f"all the sweeps took {time.perf_counter() - started:.1f} seconds")
    print("BLAS threads:", "pinned to 1" if blas_threads else "not pinned: all the library's")
    print(f"clock: {clock_name}, step {cpu_tick * 1e6:.3g} µs")
    print(f"calls per timing: {calls_per_timing}")
    print(machine())
load_sweep = load_average()  # as in the printed line: how busy the machine was

# %% [markdown]
# On log-log axes a power law $t = c\,n^p$ is a straight line of slope $p$:
# $\log t = \log c + p \log n$. Fit it from $n = 8 d_k = 512$ up: there the $n \times n$
# scores hold at least twice the numbers of the inputs and the output together ($n^2$ against
# $4 n d_k$), and the share of the $n^2$ work only grows with $n$; below it the model's terms
# linear in $n$ are not yet small beside them. Fit each sweep on its own, and the fastest
# time of each size over all the sweeps; fit the products alone and the rest of the call (the
# whole time less the products') too:

# %%
fit_from = 8 * 64  # 8 d_k
measured_seconds = np.min(sweep_seconds, axis=0)  # each size's fastest over the sweeps
fit = loglog_fit(measured_n, measured_seconds, x_min=fit_from)  # slope, local slopes
slope = fit.slope
sweep_slopes = np.array([loglog_fit(measured_n, t, x_min=fit_from).slope for t in sweep_seconds])
slope_range = sweep_slopes.max() - sweep_slopes.min()  # how far one run lies from the next
floor_slopes = np.array([loglog_fit(measured_n, t, x_min=fit_from).slope for t in sweep_floor])
# the rest: the softmax's passes and fresh memory; kept above 0 where noise ate it
rest_seconds = np.maximum(np.subtract(sweep_seconds, sweep_floor), 1e-9)
rest_slopes = np.array([loglog_fit(measured_n, t, x_min=fit_from).slope for t in rest_seconds])
floor_share = np.min(sweep_floor, axis=0)[-1] / measured_seconds[-1]  # at the largest n
n_fitted = sum(n >= fit_from for n in measured_n)
slowest_over_fastest = max(worst / best for best, _, worst in measured_spread)
memory_fit = loglog_fit(measured_n, measured_peak)
one_matrix = [ac.attention_cost(1, 1, n, n, 64).score_bytes for n in measured_n]
largest_n = measured_n[-1]
peak_in_matrices = measured_peak[-1] / one_matrix[-1]  # at the largest n

# %%
figures.show(
    plot_cost_scaling(
        measured_n,
        measured_seconds,
        measured_peak,
        slope=slope,
        model_bytes=one_matrix,
        fit_from=fit_from,
        predicted=2,
    ),
    "fig-scaling",
    "Time (left, the fastest of {calls} calls in processor time, {repeats} in each of "
    "{sweeps} sweeps) and peak extra memory (right) "
    "of plain attention against the sequence length, on log-log axes, measured when the "
    "notebook last ran. Left: the dashed line has the slope fitted from n = {fit_from} up, "
    "the dotted grey line the slope 2 the cost model predicts. "
    "Right: the line is the cost model's bytes of one n×n float32 matrix.",
    calls=scaling_repeats * n_sweeps,
    repeats=scaling_repeats,
    sweeps=n_sweeps,
    fit_from=fit_from,
)

# %% [markdown]
# A measured slope comes with a repeatability, the spread from one sweep to the next, and
# with parts that can each stray from 2. These timings are measured, not generated from a
# seeded random draw: only running the cells reproduces them, and your numbers will differ; the lines the cell printed say whether the
# matrix library was held to one thread and name the processor, its vector extensions, the
# library's kernel and its threads, and the load average (how many programs wanted the
# processor at the time; above the number of cores, programs took turns). The machine that
# built this page was busy: a load average of {eval}`dec(load_sweep, 1)` on
# {eval}`n_cores` cores, and processor time leaves out the waiting, not the caches and the
# memory bandwidth other programs shared. There, fitted through the {eval}`n_fitted` sizes
# from n = {eval}`fit_from` to {eval}`largest_n`, the time's slope in each of the {eval}`n_sweeps` sweeps was
# {eval}`dec(sweep_slopes, 2)`, against the 2 of {eq}`eq-ch9-cost`: the sweeps' slopes lay
# within {eval}`dec(slope_range, 2)` of one another. That spread, not a standard error
# computed from one sweep's few points, measures the slope's repeatability, because the points
# of one sweep share whatever else the machine was doing while it ran. It is not the slope's
# whole uncertainty: what every sweep shares, such as the caches, does not show in it. Through each size's fastest time
# over the sweeps the slope is {eval}`dec(slope, 2)`, and between neighbouring sizes it was
# {eval}`dec(fit.local, 2)`; a slope between two neighbouring sizes rests on two timings
# only.
#
# The whole call's slope straying from 2 need not mean that attention grows otherwise than $n^2$:
# the time is the sum of two parts, and their sum follows $n^2$ only once each part does. In
# each sweep the two products alone, the floor, had the slope {eval}`dec(floor_slopes, 2)`,
# and the rest of the call (the softmax's passes over the scores, and the fresh memory the
# scores and their copies are written into) {eval}`dec(rest_slopes, 2)`; at
# $n =$ {eval}`largest_n` the products took {eval}`dec(floor_share, 2)` of the time. The part
# whose slope strays from 2, or moves most from sweep to sweep, is the one that bends the
# whole.
#
# The slowest call of a size took up to
# {eval}`dec(slowest_over_fastest, 1)` times its fastest, a measure of how much the calls
# differed; run the cells again and compare. The memory's slope, fitted over all the sizes
# from n = {eval}`measured_n[0]` (not from {eval}`fit_from`), is
# {eval}`dec(memory_fit.slope, 2)`, a little below 2 because fixed overheads lift the
# smallest sizes: at the largest size the plain path held
# {eval}`dec(peak_in_matrices, 1)` times the bytes of one $n \times n$ matrix, because the
# scores and their max-shifted copy are alive at once; the scaling, the exponential and the
# division work in place.

# %% [markdown]
# ## Going further: where the time goes
#
# The two matrix products are the floor: any exact attention must compute them. Everything else
# is the softmax, a handful of passes over the $n \times n$ matrix. First count, for one size,
# what each step of the plain path computes and what it moves (an exponential counted as one
# FLOP; each elementwise step reads and writes the matrix once, 4 bytes a number, plus one more
# pass for the row max and for the row sum):

# %%
n_steps, d_steps = 4096, 64
nn, nd = n_steps**2, n_steps * d_steps  # entries of the n×n matrix, of Q
step_flops = np.array([2 * nn * d_steps, nn, 2 * nn, nn, 2 * nn, 2 * nn * d_steps])
step_bytes = 4 * np.array(
    [2 * nd + nn, 2 * nn, 3 * nn, 2 * nn, 3 * nn, nn + 2 * nd]
)  # read + written, float32
steps = ["Q Kᵀ", "÷ √dₖ", "− row max", "exp", "÷ row sum", "weights V"]
intensity = step_flops / step_bytes  # FLOPs per byte moved
matrix_mib = nn * 4 / 2**20  # one n×n float32 matrix
step_table(
    {
        "MFLOP": step_flops / 1e6,
        "MiB moved": step_bytes / 2**20,
        "FLOPs per byte": intensity,
    },
    index=steps,
    digits=2,
)

# %% [markdown]
# The products do about {eval}`dec(intensity[0], 0)` FLOPs for each byte they move, the
# softmax's passes a fraction of one. Now time each step of the plain path on its own at this
# size, each writing into one $n \times n$ buffer made beforehand (`out=`), so that a step's
# time is its reading, computing and writing, not fresh memory being handed out. Beside them,
# a plain copy of the $n \times n$ matrix into that buffer: it reads and writes the matrix
# once and computes nothing, the speed at which this machine moves it. Each time is the
# fastest of 9 runs in processor time, on one thread of the matrix library:

# %% tags=["nbval-ignore-output"]
q_s, k_s, v_s = rng.standard_normal((3, n_steps, d_steps), dtype=np.float32)
s_raw = q_s @ k_s.T  # [n, d_k] @ [d_k, n] -> [n, n]
s_scaled = s_raw / math.sqrt(d_steps)  # math.sqrt keeps float32
s_shifted = s_scaled - s_scaled.max(axis=-1, keepdims=True)
s_exp = np.exp(s_shifted)
s_weights = s_exp / s_exp.sum(axis=-1, keepdims=True)  # rows sum to 1
# every step with an n × n result writes here
buffer = np.empty((n_steps, n_steps), dtype=np.float32)
out_buffer = np.empty((n_steps, d_steps), dtype=np.float32)
step_functions = [
    lambda: np.matmul(q_s, k_s.T, out=buffer),
    lambda: np.divide(s_raw, math.sqrt(d_steps), out=buffer),
    lambda: np.subtract(s_scaled, s_scaled.max(axis=-1, keepdims=True), out=buffer),
    lambda: np.exp(s_shifted, out=buffer),
    lambda: np.divide(s_exp, s_exp.sum(axis=-1, keepdims=True), out=buffer),
    lambda: np.matmul(s_weights, v_s, out=out_buffer),
]
with one_blas_thread():
    step_ms = 1e3 * np.array(
        [timed(f, repeats=9, clock=cpu_time, tick=cpu_tick).best for f in step_functions]
    )
    copy_ms = (
        1e3 * timed(np.copyto, buffer, s_raw, repeats=9, clock=cpu_time, tick=cpu_tick).best
    )  # read n², write n²
copy_gb_per_s = 2 * nn * 4 / copy_ms / 1e6
load_steps = load_average()
step_table(
    {
        "ms": step_ms,
        "share of time": step_ms / step_ms.sum(),
        "GFLOP/s": step_flops / step_ms / 1e6,
        "GB/s moved": step_bytes / step_ms / 1e6,
    },
    index=steps,
    footer=("copy", {"ms": copy_ms, "GB/s moved": copy_gb_per_s}),
    digits=2,
)

# %% [markdown]
# Read the table as a few numbers: the steps against the floor (the two products, steps 1
# and 6, which any exact attention computes), the softmax's passes (steps 2 to 5) against
# them, each pass's FLOPs against one product's and its bytes per second against the copy's:

# %% tags=["nbval-ignore-output"]
passes = slice(1, 5)  # the softmax's four passes
products = [0, 5]  # Q Kᵀ and weights V
floor_ms = step_ms[products].sum()
steps_over_floor = step_ms.sum() / floor_ms
passes_share = step_ms[passes].sum() / step_ms.sum()
passes_gflops = step_flops[passes].sum() / step_ms[passes].sum() / 1e6
products_gflops = step_flops[products].sum() / floor_ms / 1e6
# each pass against one product
fewer_flops = step_flops[0] / step_flops[passes]
passes_vs_copy = step_bytes[passes] / step_ms[passes] / 1e6 / copy_gb_per_s  # 1: the copy's
step_table(
    {
        "times fewer FLOPs than Q Kᵀ": [plain(x) for x in fewer_flops],
        "GB/s ÷ the copy's": passes_vs_copy,
    },
    index=steps[passes],
    digits=2,
)

# %% [markdown]
# The softmax's passes do next to no arithmetic, yet they take much of the time. On the
# build machine (measured at a load average of {eval}`dec(load_steps, 1)` on
# {eval}`n_cores` cores: only running the cells reproduces these numbers) the six steps took
# {eval}`dec(steps_over_floor, 1)` times the floor. The four passes, each with many times
# fewer FLOPs than one product ($n^2$ for ÷ $\sqrt{d_k}$ and exp, $2n^2$ for the row max and
# the row sum), took {eval}`dec(passes_share, 2)` of the time. They ran at
# {eval}`dec(passes_gflops, 1)` GFLOP/s, the products at {eval}`dec(products_gflops, 1)`.
# One of the passes need not exist: `chunked_attention` and `blocked_attention` scale $Q$
# instead of the scores, $n \cdot d_k$ numbers, one $n \times n$ pass fewer; fused kernels
# avoid that pass too, folding the scale into the exponent (a base-2 exponential of the
# score times $\log_2 e / \sqrt{d_k}$, less the running max times the same factor). The FLOPs per byte, the arithmetic intensity
# (산술 강도, also called operational intensity), say why. The product $QK^\top$ does
# {eval}`dec(intensity[0], 1)` FLOPs for every byte it moves: each score costs
# $2 \cdot 64$ FLOPs and 4 bytes written, about 32 FLOPs per byte, and $Q$ and $K$, each
# number reused $n$ times from the fast caches, add almost nothing. An elementwise pass does
# a fraction of a FLOP per byte. At $n =$ {eval}`n_steps` the matrix takes
# {eval}`plain(matrix_mib)` MiB, far more than a core's L2 cache (a few MiB) and more than
# most processors' shared L3, so there every pass streams it from main memory and back. A
# server's L3 can be larger, but it is shared with whatever else runs; the copy, timed
# beside the passes, moves the same matrix, so comparing the passes with it holds either
# way.
#
# Whether a step waits for arithmetic or for memory depends on the machine as well as on
# the step. The roofline model (루프라인 모델, [Williams et al., 2009](references.md)) compares a step's
# arithmetic intensity with the machine's ridge point (리지 포인트): its arithmetic speed divided by
# its memory bandwidth, the FLOPs a step must do per byte to keep the arithmetic busy. Above
# the ridge a step is compute-bound (연산 바운드), below it memory-bound (메모리 바운드). This
# machine's ridge, from the timings above (the products' speed, and the copy's bytes per
# second as the memory's speed), and an H100 GPU's, from NVIDIA's datasheet ([NVIDIA, 2024](references.md)):

# %% tags=["nbval-ignore-output"]
bandwidth_here = copy_gb_per_s  # GB/s: the copy's, read and written
ridge_here = products_gflops / bandwidth_here  # FLOPs per byte
exp_gb_per_s = step_bytes[3] / step_ms[3] / 1e6  # the exp pass's bytes per second
h100_tflops, h100_tb_per_s = 989, 3.35  # H100 SXM: dense bf16 on tensor cores; HBM3
h200_tb_per_s = 4.8  # the same chip with HBM3e
ridge_h100 = h100_tflops / h100_tb_per_s  # TFLOP/s ÷ TB/s = FLOPs per byte
ridge_h200 = h100_tflops / h200_tb_per_s
# Q Kᵀ in bf16 (2 bytes), d_head = 64: read Q and K, write the n × n scores
qk_gpu_flops = 2 * n_steps**2 * 64
qk_gpu_bytes = 2 * (2 * n_steps * 64 + n_steps**2)
qk_gpu_intensity = qk_gpu_flops / qk_gpu_bytes  # about d_head
print(f"ridge here {ridge_here:.1f}, H100 {ridge_h100:.0f}")

# %% [markdown]
# Here the products reached {eval}`dec(products_gflops, 1)` GFLOP/s and the copy moved
# {eval}`dec(bandwidth_here, 1)` GB/s, a ridge of about {eval}`dec(ridge_here, 1)` FLOPs per
# byte; the products do {eval}`dec(intensity[0], 1)`. Compare each pass's GB/s in the table
# with the copy's: a pass that moves its bytes about as fast as the copy is held by the
# memory, not by its arithmetic. The last column of the passes' table gives each pass's
# speed against the copy's. (Neither table counts one more read: a store to a line not in
# the cache first reads that line, for the copy and the passes alike; the ratios stand, but
# the GB/s understate the traffic.) A pass well below 1 is held by something besides moving its bytes, which the table does not name; a
# pass above 1 shows that the copy is a yardstick, not a ceiling, and the ridge built on it a
# rough one. The note "The exponential's pass" below looks at that pass.
#
# A GPU is another machine, with a far higher ridge: an
# H100's is about {eval}`dec(ridge_h100, 0)` FLOPs per byte, and there even $QK^\top$,
# writing its scores out, is memory-bound (the note "A GPU's ridge" below has the numbers).
# On a GPU every
# step of the naive attention waits for memory, the products included, which is part of why
# FlashAttention fuses $QK^\top$, the softmax and the product with $V$ into one kernel that
# never writes the scores out ([above](09_cost.ipynb#what-flashattention-adds)). A naive implementation spends much of its time
# moving the $n \times n$ matrix rather than computing it; the cure is never to write it out
# at all.
#
# ```{admonition} The exponential's pass
# :class: dropdown
#
# The exponential's pass moved {eval}`dec(exp_gb_per_s, 1)`
# GB/s against the copy's {eval}`dec(bandwidth_here, 1)`. An exponential is not the one FLOP
# the table counts: numpy computes it by a range reduction and a short polynomial, several
# operations per value even when vector instructions do 8 or 16 values at once (a scalar
# library `exp`, one value at a time, costs more per value still). Whether that is what holds
# the exponential's pass, the timings cannot say: hold the passes with next to no arithmetic,
# the row max's and the row sum's, to the same yardstick before blaming it. (On GPUs too the
# exponential's throughput is far below the matrix products', a bottleneck FlashAttention-3
# works around, [Shah et al., 2024](references.md).)
# ```
#
# ```{admonition} A GPU's ridge, by the datasheet
# :class: dropdown
#
# An H100 SXM does {eval}`h100_tflops` TFLOP/s of dense bf16 on its tensor cores against
# {eval}`h100_tb_per_s` TB/s of memory bandwidth, a ridge of about
# {eval}`dec(ridge_h100, 0)` FLOPs per byte ({eval}`dec(ridge_h200, 0)` on the H200, whose
# memory moves {eval}`h200_tb_per_s` TB/s). There $QK^\top$ in bf16 with
# $d_\text{head} = 64$, writing its $n \times n$ scores to memory, does only
# {eval}`dec(qk_gpu_intensity, 0)` FLOPs per byte (each score costs $2 \cdot 64$ FLOPs and
# 2 bytes written): memory-bound too.
# ```

# %% [markdown]
# ## Going further: FlashAttention counted
#
# [What FlashAttention adds](09_cost.ipynb#what-flashattention-adds) said that it saves bytes
# through the GPU's main memory and spends FLOPs on recomputation. Count both. First the
# bytes, for one head's forward pass at $n = 4096$, $d_\text{head} = 64$, in bf16.
# The naive path reads $Q$, $K$, $V$ and writes the output, and in between writes the
# scores, reads them back for the softmax, writes the weights and reads them again for the
# product with $V$: $4n^2$ numbers through main memory beside $4nd$. FlashAttention-2 reads
# each block of queries once and writes its output and log-sum-exp once, but reads all of
# $K$ and $V$ once for each block of queries; its kernel for $d_\text{head} = 64$ takes
# blocks of 128 queries:

# %%
n_io, d_io, bf16 = 4096, 64, 2  # one head; bytes a number
query_block = 128  # FlashAttention-2's block of queries for d_head = 64
naive_numbers = 4 * n_io * d_io + 4 * n_io**2  # Q, K, V, O; scores and weights twice each
flash_numbers = 2 * n_io * d_io + 2 * n_io * d_io * (n_io // query_block)  # K, V per block
naive_hbm_mib = bf16 * naive_numbers / 2**20
flash_hbm_mib = (bf16 * flash_numbers + 4 * n_io) / 2**20  # + one float32 Λ per query
hbm_ratio = naive_hbm_mib / flash_hbm_mib
limit_ratio = 2 * query_block / d_io  # 4 n² ÷ (2 n d · n / block) for large n
kv_mib = bf16 * 2 * n_io * d_io / 2**20  # one head's K and V
least_hbm_mib = (bf16 * 4 * n_io * d_io + 4 * n_io) / 2**20  # Q, K, V, O and Λ once each
least_ratio = naive_hbm_mib / least_hbm_mib
print(f"naive {naive_hbm_mib:.1f} MiB, FlashAttention-2 {flash_hbm_mib:.1f} MiB")

# %% [markdown]
# The naive path moves {eval}`dec(naive_hbm_mib, 1)` MiB, FlashAttention-2 at most
# {eval}`dec(flash_hbm_mib, 1)` MiB, {eval}`dec(hbm_ratio, 1)` times fewer: at most,
# because blocks of queries that run at the same time read the same blocks of $K$ and $V$,
# which the GPU's L2 cache can then serve. Both counts grow with $n^2$, and their ratio
# tends to $2 \cdot 128 / d_\text{head} =$ {eval}`plain(limit_ratio)` for long sequences; the
# larger the block of queries the chip's on-chip memory holds, the fewer times $K$ and $V$
# are read (FlashAttention's analysis: $\Theta(n^2 d^2 / M)$ accesses to the GPU's main memory
# (HBM), each of one number, for an on-chip memory of $M$ numbers, against the naive path's
# $\Theta(n d + n^2)$, [Dao et al., 2022](references.md)).
#
# That {eval}`plain(limit_ratio)` is the bound without any cache. One head's $K$ and $V$ take
# {eval}`plain(kv_mib)` MiB here, and an H100's L2 cache holds 50 MB (NVIDIA's Hopper
# architecture whitepaper). With the L2 serving the re-reads, the traffic approaches reading
# $Q$, $K$, $V$ and writing the output and $\Lambda$ once, {eval}`dec(least_hbm_mib, 1)` MiB
# here: about {eval}`dec(least_ratio, 0)` times less than the naive path. Now the FLOPs.
#
# Training pays for a backward pass too, and it costs about twice the forward: each product
# $C = AB$ of the forward pass needs two in the backward, $\partial A = \partial C\,B^\top$
# and $\partial B = A^\top \partial C$, of the same size. That is why a model of $N$
# parameters is counted at about $6N$ FLOPs a training token against $2N$ for the forward
# pass ([Kaplan et al., 2020](references.md)). Attention's two products become four in the
# backward pass, and FlashAttention's recomputation of $QK^\top$ adds a fifth:

# %%
forward_products = 2  # Q Kᵀ and weights V, of equal FLOPs when d_v = d_k
backward_products = 2 * forward_products  # dQ and dK from dS, d(weights) and dV from dO
backward_flash = backward_products + 1  # FlashAttention recomputes Q Kᵀ
backward_ratio = backward_products / forward_products  # 2
flash_ratio = backward_flash / forward_products  # 2.5
# one causal layer of 32 heads of 128 at 8k tokens: forward + backward, recomputation included
train_cost = ac.attention_cost(1, 32, 8192, 8192, 128, causal=True)
train_tflop = train_cost.matmul_flops * (1 + flash_ratio) / 1e12
print(f"backward FLOPs / forward FLOPs: {backward_ratio:.1f}")
print(f"with the recomputation: {flash_ratio:.1f}")
print(f"one causal layer, forward and backward, at 8k tokens: {train_tflop:.2f} TFLOP")

# %% [markdown]
# The backward pass does {eval}`plain(backward_ratio)` times the forward's matrix-product
# FLOPs, {eval}`plain(flash_ratio)` times with the recomputation: more FLOPs, to move fewer
# bytes. One causal layer of 32 heads of 128 then costs {eval}`dec(train_tflop, 2)` TFLOP
# of attention products for each sequence of 8k tokens in a training step. Either way the
# $n^2$ in time remains.

# %% [markdown]
# ## Going further: query tiles, what `attn_core` runs on long inputs
#
# The chunked path cut the *keys* into blocks, and so needed the running max and sum. Cutting
# the *queries* instead needs no new mathematics at all: each query's softmax runs over its own
# row of scores only, so a tile of a few queries is the plain formula on fewer rows, and its
# rows are exactly the rows the whole matrix would have had. One tile's scores are
# tile $\times\, n$ numbers; the $n \times n$ scores are never held at once. By hand, in
# tiles of 512 queries, on the same $n =$ {eval}`n_long` inputs:

# %%
tile = 512  # queries per tile
tile_outputs = []
for start in range(0, n_long, tile):
    q_tile = q_l[start : start + tile]  # [tile, d_k]: a few rows of queries
    w_tile = ac.attention_weights(q_tile, k_l)  # [tile, n]: the plain formula, fewer rows
    tile_outputs.append(w_tile @ v_l)  # [tile, n] @ [n, d_v] -> [tile, d_v]
tiled = np.concatenate(tile_outputs)  # [n, d_v]: the rows, in order
np.testing.assert_allclose(tiled, methods["plain"](), rtol=1e-4, atol=1e-6)
tile_mib = tile * n_long * 4 / 2**20  # one tile's float32 scores
print(f"one tile's scores: {tile_mib:.1f} MiB")

# %% [markdown]
# The same output, holding one tile's {eval}`plain(tile_mib)` MiB of scores at a time instead
# of {eval}`plain(matrix_mib)` MiB. This is `ac.blocked_attention`, with the tile size as
# `block_size` (by default as many queries as keep one tile's scores within a fixed budget
# of memory), and it is what `ac.scaled_dot_product_attention` runs: one line of it sends
# any call with at least `ac.BLOCKED_FROM_PAIRS` query-key pairs ({eval}`ac.BLOCKED_FROM_PAIRS`,
# $256 \times 256$), no dropout and no sinks ([Chapter 11](11_modern_attention.ipynb)) to
# `blocked_attention`, and the rest to the plain formula
# of [Chapter 4](04_worked_example.ipynb). Both give the rows above:

# %%
np.testing.assert_allclose(
    ac.blocked_attention(q_l, k_l, v_l, block_size=tile), tiled, rtol=1e-4, atol=1e-6
)
np.testing.assert_allclose(
    ac.scaled_dot_product_attention(q_l, k_l, v_l), tiled, rtol=1e-4, atol=1e-6
)
peak_blocked_mib = round(peak_bytes(ac.scaled_dot_product_attention, q_l, k_l, v_l) / 2**20)
print(f"peak extra memory: scaled_dot_product_attention {peak_blocked_mib} MiB")

# %% [markdown]
# Its peak extra memory was {eval}`plain(peak_blocked_mib)` MiB here, against the plain
# path's {eval}`plain(peak_plain_mib)` MiB. Its output equals a tile of the plain formula,
# but it gets there by a faster route than the loop above, which is worth knowing before you
# open `attn_core/blocked.py`:
#
# - It reuses one buffer for every tile's scores, and handles masks, batches and heads.
# - It scales the queries, $n \cdot d_k$ numbers, instead of the scores.
# - It exponentiates the scores *without* subtracting each row's maximum, which
#   [Chapter 2](02_softmax.ipynb) always did: scores of a few tens cannot overflow, and a
#   softmax is unchanged by a shift. It then checks every row's sum, and if one overflowed
#   or underflowed it redoes the tile with the max subtracted.
# - It appends a column of ones to $V$, so that the one product of the exponentials with
#   $[V \mid \mathbf 1]$ gives each row's output and, in the last column, its sum.
# - It divides the $n \times d_v$ output by those sums, never the $n \times n$ weights.
#
# The output is the same because each step only rearranges the plain formula: the shift
# cancels between numerator and denominator, and dividing each row's weighted sum by the
# row's total is dividing each weight first. Fused GPU kernels avoid the separate passes too
# (the scale folded into the exponent, the output divided once at the end), but they always
# subtract the running max.
# Query tiles and key blocks combine: FlashAttention
# ([above](09_cost.ipynb#what-flashattention-adds)) cuts both.

# %% [markdown]
# ## Going further: where the field went
#
# To go below $n^2$ in time one must compute less than all $n^2$ scores. Sparse attention
# (희소 어텐션) lets each query see a fixed pattern of keys, such as strided blocks
# ([Child et al., 2019](references.md)). Sliding-window attention (슬라이딩 윈도우
# 어텐션) lets each query see only the $w$ keys before it, $O(n w)$, as Mistral 7B does
# ([Jiang et al., 2023](references.md)); Longformer adds to such a window a few global tokens,
# which see every position and are seen by every position
# ([Beltagy et al., 2020](references.md)).
# Linear attention (선형 어텐션) replaces $e^{\mathbf q \cdot \mathbf k}$ by a product of feature maps
# $\phi(\mathbf q)\cdot\phi(\mathbf k)$, so that $\phi(Q)\,(\phi(K)^\top V)$ can be computed right
# to left in $O(n d^2)$, with the normaliser $\phi(\mathbf q)^\top \sum_j \phi(\mathbf k_j)$
# likewise ([Katharopoulos et al., 2020](references.md)). State-space models (상태
# 공간 모델) such as Mamba drop attention for a recurrence (순환) with a state of fixed size whose parameters depend
# on the input, linear in $n$ ([Gu & Dao, 2023](references.md)). Each trades away some of what
# full attention gives, every word able to look at every other. Exact attention, computed by
# fused kernels like FlashAttention, has stayed at the core of large models: in 2026 they mix it
# with the cheaper kinds more often than they replace it. [Chapter 11](11_modern_attention.ipynb)
# takes the story on to attention as 2026 models ship it (sliding windows, attention sinks,
# gates, latent caches), and [Chapter 12](12_linear_attention.ipynb) to attention without the
# $n \times n$ table (linear attention, the delta rule, hybrids, sparse attention).
#
# ```{admonition} An aside: less data, less energy
# :class: note
#
# The Quanta write-up closes its list of limits with a remark it attributes to the column
# ([Wolchover, n.d.](references.md)): the human brain learns language from far less data and
# energy (에너지) than these models. That, the write-up adds, is a question for cognitive science
# (인지과학), not for mathematics, and no rearrangement of $QK^\top$ answers it. The column
# also reported the view that attention alone is unlikely to be enough for learning language
# efficiently.
# ```

# %% [markdown]
# ## Summary
#
# - Attention computes $L \times S$ scores: $2BhLS(d_k + d_v)$ FLOPs and $BhLS\,b$ bytes of
#   weights ({eq}`eq-ch9-cost`); with $L = S = n$ both grow with $n^2$. At 32k tokens and 32
#   heads in float16 the weights of one layer would take {eval}`plain(weights_32k)` GiB, and a
#   naive training step keeps them for every layer.
# - The online softmax keeps a running max $m$, sum $\ell$ and output $\mathbf o$, rescaled by
#   $e^{m_\text{old} - m_\text{new}}$ when the max moves; it gives the same output with
#   $O(n \cdot \text{block})$ memory and the same matrix-product FLOPs (plus a small rescaling
#   cost per block).
# - FlashAttention adds query tiles, a saved log-sum-exp per query and recomputation of the
#   weights in the backward pass: more FLOPs in the backward pass (a fifth product), fewer
#   bytes. The $n^2$ in time remains.
# - *Going further.* Per token, attention's $4\,n\,d_\text{model}$ FLOPs pass the
#   projections' and the MLP's $24\,d_\text{model}^2$ only beyond $n = 6\,d_\text{model}$
#   counting every pair ({eval}`plain(crossover_llama_per_d)`$\,d_\text{model}$ for Llama 3
#   8B's GQA and SwiGLU layer), and beyond about
#   {eval}`plain(crossover_causal_times)`$\,d_\text{model}$ for a causal kernel that skips the
#   masked half ({eval}`plain(crossover_llama_causal_times)`$\,d_\text{model}$ for Llama 3 8B).
# - *Going further.* Measured from n = {eval}`fit_from` up, the fastest of several calls in
#   processor time on one thread, the time's slope on log-log axes was
#   {eval}`dec(sweep_slopes, 2)` in {eval}`n_sweeps` sweeps on the build machine (at a load
#   average of {eval}`dec(load_sweep, 1)` on {eval}`n_cores` cores), against the 2 of
#   {eq}`eq-ch9-cost`, and the products' alone {eval}`dec(floor_slopes, 2)`; the memory's,
#   fitted from n = {eval}`measured_n[0]`, {eval}`dec(memory_fit.slope, 2)`. The spread
#   between sweeps is the slope's repeatability, not its whole uncertainty.
# - *Going further.* The roofline model compares a step's FLOPs per byte with the machine's
#   ridge point: the matrix products do tens of FLOPs per byte, the softmax's passes over the
#   $n \times n$ matrix a fraction of one; a pass's bytes per second, set beside a plain
#   copy's as a yardstick, show how far each pass is from moving its bytes at memory's pace on
#   your machine. On an H100, whose ridge point is about {eval}`dec(ridge_h100, 0)` FLOPs per
#   byte, $QK^\top$ writing its scores is memory-bound too.
# - *Going further.* For the one head counted, FlashAttention-2 moves at most
#   {eval}`dec(flash_hbm_mib, 1)` MiB through HBM without any cache, the naive path
#   {eval}`dec(naive_hbm_mib, 1)` MiB; with the L2 serving the re-reads, it approaches
#   {eval}`dec(least_hbm_mib, 1)` MiB. The backward pass costs {eval}`plain(flash_ratio)`
#   times the forward's products instead of {eval}`plain(backward_ratio)`.
# - *Going further.* Cutting the queries into tiles needs no running max: each tile is the
#   plain formula on fewer rows. `ac.scaled_dot_product_attention` runs such tiles on long
#   inputs, by a faster route to the same output: unshifted exponentials (redone shifted on
#   overflow), row sums from a column of ones appended to $V$, and the output divided instead
#   of the weights.
#
# ## Exercises
#
# Each exercise checks your answer on the spot; hints and solutions are folded.
#
# ```{exercise} One head's weights at 64k tokens in float32
# :label: ex-ch9-weights-memory
#
# One sequence of 65,536 tokens, one head, float32. How many GiB ($2^{30}$ bytes) do the
# attention weights of that head take, held at once? Work it out by hand.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# $65536 = 2^{16}$. How many weights are there, and how many bytes is one float32 number?
# ```

# %%
answer = ...  # GiB, a number
ch9.weights_memory.check(answer)

# %% [markdown]
# ````{solution} ex-ch9-weights-memory
# :class: dropdown
#
# $n^2 = 2^{32}$ weights of 4 bytes each: $4 \cdot 2^{32} = 2^{34}$ bytes, that is
# $2^{34} / 2^{30} = 16$ GiB. The cost model agrees:
#
# ```python
# cost = ac.attention_cost(1, 1, 65536, 65536, 64, "float32")
# answer = cost.score_bytes / 2**30
# ch9.weights_memory.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Predict the slope when the heads widen too
# :label: ex-ch9-slope
#
# This time the head width grows with the sequence: $d_k = d_v = n/16$. You time plain
# attention for $n$ = 1024, 2048, 4096 and 8192 ($d_k$ = 64 to 512) on a machine with no
# other load and plot the time against $n$ on log-log axes. Towards which slope does the line
# tend at large $n$: `"1"`, `"2"` or `"3"`?
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Write the FLOPs of {eq}`eq-ch9-cost` with $L = S = n$ and $d_k = d_v = n/16$, and see what
# doubling $n$ does to them. Which part of the work grows fastest?
# ```

# %%
answer = ...  # "1", "2" or "3"
ch9.time_slope.check(answer)

# %% [markdown]
# ````{solution} ex-ch9-slope
# :class: dropdown
#
# The two products cost $2n^2d_k + 2n^2d_v = 4n^2 \cdot n/16 = n^3/4$ FLOPs: doubling $n$
# multiplies them by $2^3 = 8$. The softmax still touches $n^2$ entries, only 4 times more,
# so at large $n$ the products dominate and the slope tends to 3 (measured on a finite range
# it comes out between 2 and 3). With $d_k$ fixed, as in this chapter's measurement, the
# products are $n^2$ too and the slope is 2.
#
# ```python
# ch9.time_slope.check("3")
# ```
# ````

# %% [markdown]
# ```{exercise} One step of the online softmax
# :label: ex-ch9-online-step
#
# A query has seen one key, with scaled score 0 and value (0, 2): $m = 0$, $\ell = 1$,
# $\mathbf o = (0, 2)$. The next key has scaled score 1 and value (1, 3). Give the new $\ell$ and the two entries of the new $\mathbf o$ (not yet divided), to
# three decimals, as `[ℓ, o₁, o₂]`.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# First the new max $m'$; then multiply the old $\ell$ and $\mathbf o$ by $e^{m - m'}$; then add
# the new key's term $e^{s - m'}$ and $e^{s - m'}\,\mathbf v$. $e^{-1} \approx 0.368$.
# ```

# %%
answer = ...  # [ℓ, o₁, o₂]
ch9.online_step.check(answer)

# %% [markdown]
# ````{solution} ex-ch9-online-step
# :class: dropdown
#
# The max moves from 0 to 1, so the old terms shrink by $e^{-1} \approx 0.368$ and the
# new term is $e^{0} = 1$: $\ell = 0.368 + 1 = 1.368$ and
# $\mathbf o = 0.368\,(0, 2) + (1, 3) = (1, 3.736)$.
#
# ```python
# r = math.exp(0 - 1)  # e^(m_old − m_new)
# answer = [1 * r + 1, 0 * r + 1, 2 * r + 3]
# ch9.online_step.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Prove, then compute: two halves merged
# :label: ex-ch9-merge
#
# A long row of keys can be split between two processors, each running the online softmax
# over its half: half $A$ ends with $(m_A, \ell_A, \mathbf o_A)$, half $B$ with
# $(m_B, \ell_B, \mathbf o_B)$. Prove that with $m = \max(m_A, m_B)$,
#
# $$
# \ell = e^{m_A - m}\,\ell_A + e^{m_B - m}\,\ell_B, \qquad
# \mathbf o = e^{m_A - m}\,\mathbf o_A + e^{m_B - m}\,\mathbf o_B
# $$
#
# are the running sum and output over *all* the keys, whatever the split. Then compute it for
# a row of three keys: half $A$ holds two (scores 1 and 0, values (1, 0) and (0, 1)) and
# half $B$ one (score 2, value (1, 1)), so that
# $(m_A, \ell_A, \mathbf o_A) = (1, 1.368, (1, 0.368))$ and
# $(m_B, \ell_B, \mathbf o_B) = (2, 1, (1, 1))$. Give the merged $[\ell, o_1, o_2]$, not yet
# divided, to three decimals.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Write $\ell_A$ as the sum it stands for, $\sum_{j \in A} e^{s_j - m_A}$, and multiply it by
# $e^{m_A - m}$. $e^{-1} \approx 0.368$.
# ```

# %%
answer = ...  # [ℓ, o₁, o₂]
ch9.merge_halves.check(answer)

# %% [markdown]
# ````{solution} ex-ch9-merge
# :class: dropdown
#
# By definition $\ell_A = \sum_{j \in A} e^{s_j - m_A}$, so
# $e^{m_A - m}\,\ell_A = \sum_{j \in A} e^{s_j - m}$: the same terms, measured from $m$.
# Likewise for $B$, and adding the two gives $\sum_j e^{s_j - m}$ over all the keys, the
# running sum of {eq}`eq-ch9-running` with the overall max. The same steps with
# $e^{s_j - m}\,\mathbf v_j$ give $\mathbf o$. Nothing depended on which keys went where, so
# any split merges the same way, and so do more than two parts, one after another. That is
# how the keys of one long row can be shared among a GPU's cores when there are too few
# queries to keep them busy, as when generating one token at a time: split-KV decoding, which
# its authors named Flash-Decoding and the flash-attn library runs since its version 2.2
# ([Dao, 2023a](references.md)). Ring Attention does the same across devices
# ([Liu et al., 2023](references.md)): each device holds a block of queries, the blocks of
# keys and values pass from device to device round a ring, and each block that arrives is
# merged into the running $m$, $\ell$ and $\mathbf o$, so that a sequence too long for one
# device is spread over many (context parallelism). Choosing
# $m = \max(m_A, m_B)$ keeps every factor at most 1. Here $m = 2$:
# $\ell = 0.368 \cdot 1.368 + 1 \cdot 1 = 1.503$ and
# $\mathbf o = 0.368\,(1, 0.368) + (1, 1) = (1.368, 1.135)$; divided, $(0.910, 0.755)$, the
# output of attention over the three keys.
#
# ```python
# r_a = math.exp(1 - 2)  # e^(m_A − m); for B it is e^0 = 1
# l_a, o_a = 1 + math.exp(-1), [1, math.exp(-1)]
# answer = [r_a * l_a + 1, r_a * o_a[0] + 1, r_a * o_a[1] + 1]
# ch9.merge_halves.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Find the bug: the running sum
# :label: ex-ch9-bug-online-sum
#
# This chunked attention gives the right output when the first block holds each row's largest
# score, and the wrong one otherwise. Copy it as `fixed_blockwise`, change the one line that is
# wrong, and run the check.
# ```

# %%
ch9.online_sum.show()

# %% [markdown]
# ```{admonition} Hint
# :class: dropdown
#
# Which running quantities are multiplied by `rescale` in {eq}`eq-ch9-running`'s update?
# ```


# %%
def fixed_blockwise(q, k, v, block):
    raise NotImplementedError  # copy the function above here and fix it


ch9.online_sum.check(fixed_blockwise)

# %% [markdown]
# ````{solution} ex-ch9-bug-online-sum
# :class: dropdown
#
# `total` is a sum of terms $e^{s_j - m}$ under the old max, exactly like `out`; when the max
# moves both must be rescaled. Without it, the sum keeps its old, too-large terms, and every
# output is shrunk toward zero by the same factor per row.
#
# ```python
# def fixed_blockwise(q, k, v, block):
#     scale = 1 / math.sqrt(q.shape[-1])
#     m = np.full((*q.shape[:-1], 1), -np.inf)  # running max: [..., L, 1]
#     total = np.zeros((*q.shape[:-1], 1))  # running sum: [..., L, 1]
#     # running output: [..., L, Ev]
#     out = np.zeros((*q.shape[:-1], v.shape[-1]))
#     for start in range(0, k.shape[-2], block):
#         stop = start + block
#         keys, values = k[..., start:stop, :], v[..., start:stop, :]
#         s = q @ np.swapaxes(keys, -1, -2) * scale  # [..., L, block]
#         new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
#         rescale = np.exp(m - new_m)  # e^(m_old - m_new) <= 1
#         e = np.exp(s - new_m)  # [..., L, block]
#         # the fix: rescale the sum too
#         total = total * rescale + e.sum(axis=-1, keepdims=True)
#         out = out * rescale + e @ values  # [..., L, Ev]
#         m = new_m
#     return out / total
#
#
# ch9.online_sum.check(fixed_blockwise)
# ```
# ````
#
# ## How long this chapter took

# %% tags=["nbval-ignore-output"]
chapter_seconds = round(time.perf_counter() - chapter_start)
chapter_seconds

# %% [markdown]
# This chapter ran top to bottom in {eval}`plain(chapter_seconds)` seconds on the
# machine that built this page, its time's slopes in the {eval}`n_sweeps` sweeps were
# {eval}`dec(sweep_slopes, 2)`, and the chunked
# version held {eval}`plain(memory_saving)` times less memory than the plain
# path at $n =$ {eval}`n_long`.
