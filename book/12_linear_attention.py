# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Attention without the n × n table (n × n 표 없는 어텐션)
#
# This chapter folds the past into a state of fixed size and measures what that state keeps.
# [Chapter 9](09_cost.ipynb) found that attention's weights form an $n \times n$ table, and
# learned to compute it without ever holding it. [Chapter 10](10_generation.ipynb) found what a
# server holds instead: the keys and values of every past token, a cache that grows with $n$.
# [Chapter 11](11_modern_attention.ipynb) followed the ways today's models shrink that cache while keeping softmax attention.
# This chapter drops the softmax: it changes the score so that the past folds
# into a state of fixed size, as a recurrent network's does. That is linear attention, and
# models of 2025 use it: Qwen3-Next and Kimi Linear run three such layers for every layer
# of full (softmax) attention, MiniMax-01 and MiniMax-M1 seven. We derive it by hand from the softmax of
# [Chapter 4](04_worked_example.ipynb), measure what it forgets, give the state the delta
# rule's ability to overwrite a stored key–value pair (an ability, not room for more pairs),
# and measure again. Sparse attention, the other way out, keeps the softmax and every key but
# lets a query read only a few chosen ones; it closes the chapter as a section of its own.
#
# **The core of this chapter** is that state: built by hand, priced, and measured as a memory.
# It runs through [why softmax needs the
# table](12_linear_attention.ipynb#why-softmax-needs-the-table), [a score that splits](12_linear_attention.ipynb#a-score-that-splits), [the
# causal pass as a recurrence](12_linear_attention.ipynb#the-causal-pass-is-a-recurrence), [its
# cost](12_linear_attention.ipynb#what-it-costs-and-a-state-of-fixed-size), [what it forgets](12_linear_attention.ipynb#what-it-forgets), [the
# delta rule](12_linear_attention.ipynb#the-delta-rule-correct-before-writing) and [the recall experiment
# again](12_linear_attention.ipynb#the-recall-experiment-again), which ends on one verdict: the
# delta rule overwrites, but keeps about $d_k$ pairs. The sections marked *Going further* add
# how to read the recall numbers, where positive features lose recall, the recall test on
# keys that do not overlap and with a smaller writing strength, how the delta
# rule is trained chunk by chunk (with one chunk worked by hand), the models that ship it, and
# sparse attention; a first reading can skip them, and no core section needs them.
#
# After this chapter you will be able to (the first four are the core):
#
# - replace $e^{\mathbf q \cdot \mathbf k}$ with a feature map's $\phi(\mathbf q) \cdot
#   \phi(\mathbf k)$, regroup the sum, and run causal linear attention (선형 어텐션) as a
#   recurrence over a $d_v \times d_k$ state, by hand for three tokens, equal to the masked
#   parallel form to the last digit;
# - count its cost, $O(n\,d^2)$ against $O(n^2 d)$, and the bytes of its fixed state against
#   the KV cache of a real model;
# - say what the state forgets, and read it from an associative-recall experiment you run;
# - compute the delta rule's correction step by hand, show that it is a gradient step on
#   $\tfrac12\lVert S\mathbf k - \mathbf v\rVert^2$, and say from the measurement when it
#   recalls better than plain linear attention and when it does not;
# - *going further:* compute one chunk of the delta rule with a triangular solve; add Gated
#   DeltaNet's decay; work out the cache and state of a hybrid model with one full-attention
#   layer in four;
# - *going further:* select each query's keys with a small scorer, as DeepSeek Sparse Attention does, and say
#   what that saves and what it does not.

# %%
import time

import attn_core as ac
import numpy as np
from attn_book.data import quanta_example
from attn_book.exercises import ch12_linear_attention as ch12
from attn_book.figures import Figures
from attn_book.plots import plot_recall
from attn_book.prose import dec, grouped, percent, plain, sci, vector
from attn_book.recall import (
    TIE_TOLERANCE,
    recall_hits,
    recall_score,
    recall_sweep,
    recall_task,
    recalled,
)
from attn_book.tables import step_table
from attn_book.widgets import MemoryCalculator, StateFiller

figures = Figures(chapter=12)
chapter_start = time.perf_counter()

# %% [markdown]
# ## Why softmax needs the table
#
# The worked example once more: the query $\mathbf q = (1, 0)$, three keys and three values.

# %%
example = quanta_example()
q, K, V = example.query, example.keys, example.values  # [2], [3, 2], [3, 2]
softmax_weights = ac.attention_weights(q, K)  # Chapter 4's, scaled by 1/√2
softmax_out = softmax_weights @ V  # [3] @ [3, 2] -> [2]
softmax_weights, softmax_out

# %% [markdown]
# The keys are {eval}`vector(K[0])`, {eval}`vector(K[1])` and {eval}`vector(K[2])`, the values
# {eval}`vector(V[0])`, {eval}`vector(V[1])` and {eval}`vector(V[2])`. The weights
# {eval}`dec(softmax_weights)` and the output {eval}`vector(softmax_out)` are [Chapter 4](04_worked_example.ipynb)'s. Each weight is $e^{s_j} / \sum_i e^{s_i}$ with $s_j = \mathbf q \cdot
# \mathbf k_j / \sqrt{d_k}$: the query and the key meet inside the exponential, and no feature
# map of finite size takes them apart exactly. (One of infinite size does: $e^{\mathbf q \cdot
# \mathbf k} = \sum_m (\mathbf q \cdot \mathbf k)^m / m!$, and each power is a dot product of
# two vectors of products of components; Performer approximates the exponential with a finite
# number of positive random features ([Choromanski et al., 2021](references.md)).) So every
# query must meet every key, one score at a time: for $n$ queries and $n$ keys, the
# $n \times n$ table, and for a new token, every cached key.
#
# ## A score that splits: $\phi(\mathbf q) \cdot \phi(\mathbf k)$ (특징 사상)
#
# Katharopoulos et al. asked what happens if the similarity is a dot product of two
# transformed vectors, $\mathrm{sim}(\mathbf q, \mathbf k) = \phi(\mathbf q) \cdot
# \phi(\mathbf k)$, for a feature map (특징 사상) $\phi$ whose outputs are positive, so that the
# weights still are ([Katharopoulos et al., 2020](references.md)). Their choice is
# $\phi(x) = \mathrm{elu}(x) + 1$, applied to each component: $x + 1$ for $x > 0$, $e^x$
# otherwise. The output keeps the form of a weighted average:
#
# $$
# \mathbf o = \frac{\sum_j \big(\phi(\mathbf q) \cdot \phi(\mathbf k_j)\big)\, \mathbf v_j}
#                  {\sum_j \phi(\mathbf q) \cdot \phi(\mathbf k_j)} .
# $$ (eq-ch12-linear)
#
# Softmax divided each score by $\sqrt{d_k}$ ([Chapter 3](03_scaling.ipynb)); this has no such
# factor. A factor on the similarity would cancel, multiplying the numerator and the
# normaliser alike. Dividing $\mathbf q$ by $\sqrt{d_k}$ before $\phi$ would not, because
# $\phi$ is not linear ($\phi(2/2) = 2$, not $\phi(2)/2 = 1.5$), and it would change the
# weights; Katharopoulos et al. apply $\phi$ to the queries and keys as they are.

# %%
phi = ac.elu_plus_one
phi_q = phi(q)  # (1, 0) -> (2, 1)
phi_K = phi(K)  # [3, 2]: (2, 1), (1, 2), (2, 2)
sims = phi_K @ phi_q  # [3, 2] @ [2] -> [3]: φ(k_j)·φ(q)
sims_total = sims.sum()
linear_weights = sims / sims_total  # [3], sums to 1
linear_out = linear_weights @ V  # [3] @ [3, 2] -> [2]
sims, linear_weights, linear_out

# %% [markdown]
# By hand: $\phi(1, 0) = (2, 1)$, and the keys become {eval}`vector(phi_K[0])`,
# {eval}`vector(phi_K[1])` and {eval}`vector(phi_K[2])` ($e^0 = 1$ for each zero). The
# similarities are $2 \cdot 2 + 1 \cdot 1 =$ {eval}`plain(sims[0])`, then
# {eval}`plain(sims[1])` and {eval}`plain(sims[2])`, a sum of {eval}`plain(sims_total)`; the
# weights {eval}`dec(linear_weights)` and the output {eval}`vector(linear_out)`. The weights
# are flatter than softmax's {eval}`dec(softmax_weights)`: no exponential sharpens them. They
# also rank the keys differently: keys 1 and 3 have the same dot product with $\mathbf q$, so
# softmax weighs them alike, but $\phi(\mathbf q) \cdot \phi(\mathbf k)$ is not a function of
# $\mathbf q \cdot \mathbf k$, and key 3's larger second component lifts its similarity. That
# is the first price; the next sections find the second.
#
# What is gained: $\phi(\mathbf q)$ no longer sits inside a function of each score, so it comes
# out of the sums. The numerator of {eq}`eq-ch12-linear` is
# $\sum_j \mathbf v_j\, (\phi(\mathbf k_j)^\top \phi(\mathbf q)) = \big(\sum_j
# \mathbf v_j\, \phi(\mathbf k_j)^\top\big)\, \phi(\mathbf q)$:
#
# $$
# \begin{aligned}
# \mathbf o &= \frac{S\, \phi(\mathbf q)}{\mathbf z^\top \phi(\mathbf q)},
# \quad \text{with} \\
# S &= \sum_j \mathbf v_j\, \phi(\mathbf k_j)^\top \;(d_v \times d_k), \qquad
# \mathbf z = \sum_j \phi(\mathbf k_j) \;(d_k).
# \end{aligned}
# $$ (eq-ch12-regrouped)
#
# $S$ and $\mathbf z$ hold the keys and values summed once, whatever the query. A query reads
# them with two small products. $\mathbf z^\top \phi(\mathbf q)$ is the normaliser (정규화 항)
# that makes the weights sum to 1. No query meets a key one at a time. $S$ has a row for each
# value dimension and a column for each key dimension, as DeltaNet and Gated DeltaNet write it
# and `ac.delta_rule` stores it: writing is $\mathbf v\, \phi(\mathbf k)^\top$, reading is
# $S\, \phi(\mathbf q)$, in every section of this chapter.
#
# The delta-rule models of this chapter (Qwen3-Next, Kimi Linear) keep this regrouping but drop
# the positive feature map and the normaliser. They pass the queries and keys through a short
# convolution and a SiLU, which can be negative, and then L2-normalise them. MiniMax's
# lightning attention uses SiLU features with a fixed decay, the RetNet row of [the family
# table](12_linear_attention.ipynb#going-further-the-family-in-one-table-rnn). The elu + 1 form
# comes first because it is where linear attention began. The measurement in [what it
# forgets](12_linear_attention.ipynb#what-it-forgets) shows a cost of positive features that
# fits the models' choice.

# %%
S_all = V.T @ phi_K  # [2, 3] @ [3, 2] -> [2, 2]: Σ v_j φ(k_j)ᵀ, d_v × d_k
z_all = phi_K.sum(axis=0)  # [2]: Σ φ(k_j), the normaliser's sum
normaliser = z_all @ phi_q  # [2] @ [2] -> a number: zᵀ φ(q)
regrouped = (S_all @ phi_q) / normaliser  # [2, 2] @ [2] -> [2], divided
np.testing.assert_allclose(regrouped, linear_out)
np.testing.assert_allclose(ac.linear_attention(q, K, V, causal=False), linear_out)
S_all, z_all

# %% [markdown]
# $S$ has the columns {eval}`vector(S_all[:, 0])` and {eval}`vector(S_all[:, 1])`, and $\mathbf z =$
# {eval}`vector(z_all)`. The query reads $S\, \phi(\mathbf q) = 2 \cdot$
# {eval}`vector(S_all[:, 0])` $+ 1 \cdot$ {eval}`vector(S_all[:, 1])` and divides by
# $\mathbf z^\top \phi(\mathbf q) =$ {eval}`plain(normaliser)`: the same
# {eval}`vector(regrouped)`.
#
# ## The causal pass is a recurrence (상태와 순환)
#
# In a causal model, token $t$ may use the keys and values of tokens $1$ to $t$ only
# ([Chapter 7](07_heads_and_masks.ipynb)). In {eq}`eq-ch12-regrouped` that means the sums stop
# at $t$, and each token's sums are the previous token's plus one term:
#
# $$
# \begin{aligned}
# S_t &= S_{t-1} + \mathbf v_t\, \phi(\mathbf k_t)^\top, \qquad
# \mathbf z_t = \mathbf z_{t-1} + \phi(\mathbf k_t), \\
# \mathbf o_t &= \frac{S_t\, \phi(\mathbf q_t)}{\mathbf z_t^\top \phi(\mathbf q_t)} .
# \end{aligned}
# $$ (eq-ch12-recurrence)
#
# That is a recurrent network (순환 신경망) whose state (상태) is the pair $(S_t, \mathbf z_t)$ of
# $d_v \times d_k + d_k$ numbers, the same size after three tokens or a million; Katharopoulos
# et al. titled their paper "Transformers are RNNs". Let the example's three keys and values be
# three tokens, asking with the queries $(1, 1)$, $(0, 1)$ and the example's $(1, 0)$, and run
# {eq}`eq-ch12-recurrence` by hand:

# %%
Q = np.array([[1.0, 1.0], [0.0, 1.0], q])  # [3, 2]: one query a token, the last (1, 0)
S = np.zeros((2, 2))  # d_v × d_k, empty before the first token
z = np.zeros(2)  # d_k
steps = []
for t in range(3):
    S = S + np.outer(V[t], phi(K[t]))  # + v_t φ(k_t)ᵀ: [2] ⊗ [2] -> [2, 2]
    z = z + phi(K[t])  # + φ(k_t)
    out_t = (S @ phi(Q[t])) / (z @ phi(Q[t]))  # [2, 2] @ [2] / [2] @ [2]
    steps.append(dict(S=S, z=z, out=out_t))

# %% tags=["hide-input"]
step_table(
    {
        "φ(kₜ)": [vector(row) for row in phi_K],
        "vₜ": [vector(row) for row in V],
        "Sₜ, column 1": [vector(s["S"][:, 0]) for s in steps],
        "Sₜ, column 2": [vector(s["S"][:, 1]) for s in steps],
        "zₜ": [vector(s["z"]) for s in steps],
        "oₜ": [vector(s["out"]) for s in steps],
    },
    index=["t = 1", "t = 2", "t = 3"],
)

# %% [markdown]
# **Token 1.** $\mathbf v_1\,\phi(\mathbf k_1)^\top = (2, 0)\,(2, 1)^\top$ puts
# {eval}`vector(steps[0]["S"][:, 0])` in the first column of $S_1$ and {eval}`vector(steps[0]["S"][:, 1])`
# in the second; $\mathbf z_1 =$ {eval}`vector(steps[0]["z"])`. The query's features
# $\phi(1, 1) = (2, 2)$ read $2 \cdot (4, 0) + 2 \cdot (2, 0) = (12, 0)$ and divide by
# $2 \cdot 2 + 2 \cdot 1 = 6$: $\mathbf o_1 =$ {eval}`vector(steps[0]["out"])`, the only
# value it has seen.
#
# **Token 2.** $(0, 2)\,(1, 2)^\top$ adds $(0, 2)$ and $(0, 4)$: $S_2$ has the columns
# {eval}`vector(steps[1]["S"][:, 0])` and {eval}`vector(steps[1]["S"][:, 1])`, and
# $\mathbf z_2 =$ {eval}`vector(steps[1]["z"])`. With $\phi(0, 1) = (1, 2)$ the read is
# $(4, 2) + 2 \cdot (2, 4) = (8, 10)$ over $3 + 2 \cdot 3 = 9$: $\mathbf o_2 =$
# {eval}`vector(steps[1]["out"])`.
#
# **Token 3.** $(1, 1)\,(2, 2)^\top$ adds 2 to every entry: the columns
# {eval}`vector(steps[2]["S"][:, 0])` and {eval}`vector(steps[2]["S"][:, 1])`, $\mathbf z_3 =$
# {eval}`vector(steps[2]["z"])`, and $\phi(1, 0) = (2, 1)$ reads $(16, 14) / 15 =$
# {eval}`vector(steps[2]["out"])`, the output of {eq}`eq-ch12-linear` over all three keys.
#
# The same outputs come from the parallel form, which computes the $n \times n$ table
# $\phi(Q)\phi(K)^\top$, masks it causally and normalises each row, and from `attn_core`'s
# recurrence. The parallel form computes every token at once with matrix products, but the
# full table gives back the $n^2$ cost. Training usually runs a middle way, chunk by chunk (the
# exercise "a chunk at a time" at the end of this chapter):

# %%
table = np.tril(phi(Q) @ phi_K.T)  # [3, 3]: φ(q_t)·φ(k_s), 0 where s > t (the mask M)
by_hand = np.stack([s["out"] for s in steps])  # [3, 2]
parallel = ac.linear_attention(Q, K, V)  # causal: (φ(Q) φ(K)ᵀ ⊙ M) V, each row normalised
row_sums = table.sum(axis=1)  # [3]: φ(q_t) · z_t, each token's normaliser
np.testing.assert_allclose(parallel, (table @ V) / row_sums[:, None])
recurrent, (S_final, z_final) = ac.linear_attention_recurrent(Q, K, V)
S_final = S_final.T  # attn_core returns Sᵀ (d_k × d_v); the chapter's S is d_v × d_k
np.testing.assert_array_equal(S_final, steps[-1]["S"])
same_digits = bool(np.array_equal(by_hand, parallel) and np.array_equal(by_hand, recurrent))
table, parallel, same_digits

# %% [markdown]
# Row $t$ of the masked table holds token $t$'s similarities with keys 1 to $t$:
# {eval}`plain(table[0])`, {eval}`plain(table[1])` and {eval}`plain(table[2])`. Their sums,
# {eval}`plain(row_sums)`, are the normalisers $\phi(\mathbf q_t) \cdot
# \mathbf z_t$ of the recurrence, and row 2 times the values is its read $(8, 10)$. The
# outputs are equal to the last digit ({eval}`same_digits`). Here every number is a small
# integer or a ratio of two, so both orders of the sums round alike. (On random inputs they
# agree to about $10^{-15}$, which the tests of `attn_core` check.)
#
# ## What it costs: $O(n\,d^2)$ and a state of fixed size
#
# Linear attention needs fewer FLOPs than causal softmax attention from a length of about twice
# the head width on. Each token writes $\mathbf v_t\phi(\mathbf k_t)^\top$ into the state and
# reads $S_t\,\phi(\mathbf q_t)$: $2\,d_k d_v$ FLOPs each, $4\,n\,d_k d_v$ for $n$ tokens.
# [Chapter 9](09_cost.ipynb)'s count gives softmax attention $4\,n^2 d$, the scores and the
# weighted sum with every pair counted. A causal pass needs only the $n(n+1)/2$ pairs the mask
# keeps, about half: $2\,n(n+1)\,d$. (A kernel that skips the fully masked tiles computes
# little more than that.) With $d_k = d_v = d$, the two counts are equal where $n + 1 = 2d$.
# At long lengths linear attention needs about $n / 2d$ times fewer. (That is the recurrence's
# count. The chunkwise form that training uses adds a masked $C \times C$ table inside each
# chunk of $C$ tokens, of order $n\,C\,d$ FLOPs more.) For GPT-2's twelve heads of 64, both
# passes causal:

# %%
gpt2_heads, gpt2_d = 12, 64  # Chapter 9's GPT-2-small heads
lengths = [64, 128, 1024, 8192, 131072]
softmax_flops = [
    ac.attention_cost(1, gpt2_heads, n, n, gpt2_d, causal=True).matmul_flops for n in lengths
]  # the n(n+1)/2 pairs of the causal triangle
linear_flops = [ac.linear_attention_flops(1, gpt2_heads, n, gpt2_d) for n in lengths]
flops_ratios = [s / f for s, f in zip(softmax_flops, linear_flops, strict=True)]
linear_costlier_at_d = linear_flops[0] / softmax_flops[0]  # n = d = 64
crossover = next(  # the first length at which linear attention needs fewer FLOPs
    n
    for n in range(1, 4 * gpt2_d)
    if ac.linear_attention_flops(1, 1, n, gpt2_d)
    < ac.attention_cost(1, 1, n, n, gpt2_d, causal=True).matmul_flops
)
step_table(
    {
        "causal softmax FLOPs": [grouped(f) for f in softmax_flops],
        "linear FLOPs": [grouped(f) for f in linear_flops],
        "ratio": [dec(r, 2) for r in flops_ratios],
    },
    index=[f"n = {n:,}" for n in lengths],
)

# %% [markdown]
# At $n = d =$ {eval}`gpt2_d` linear attention still costs {eval}`dec(linear_costlier_at_d, 1)`
# times as much; it needs fewer FLOPs from $n =$ {eval}`crossover` on, $2d$, and at 128k tokens
# {eval}`grouped(flops_ratios[-1])` times fewer. The memory changes more.
# [Chapter 10](10_generation.ipynb)'s Llama-3-8B-like model (32 layers, 32 query heads and 8 key-value heads of 128, float16) holds
# a KV cache that grows by the same bytes with every token. Give each of its 32 heads in each
# layer its own keys and values and a $128 \times 128$ state instead (keys and values shared as
# its 8 key-value heads share them would need only 8 states, a quarter of the bytes), and the
# model holds the same bytes after any number of tokens:

# %%
GiB, MiB = 2**30, 2**20
layers, heads, kv_heads, d_head = 32, 32, 8, 128  # Chapter 10's Llama-3-8B-like shape
n_long = 131072  # 128k tokens
kv_per_token_kib = ac.kv_cache_bytes(layers, kv_heads, d_head, 1, 2) / 2**10
kv_long_gib = ac.kv_cache_bytes(layers, kv_heads, d_head, n_long, 2) / GiB
state_bytes = ac.linear_state_bytes(layers, heads, d_head, d_head, 2)  # no length
state_mib = state_bytes / MiB
break_even = state_bytes // ac.kv_cache_bytes(layers, kv_heads, d_head, 1, 2)  # tokens
kv_per_token_kib, kv_long_gib, state_mib, break_even

# %% [markdown]
# The cache adds {eval}`plain(kv_per_token_kib)` KiB a token and reaches
# {eval}`plain(kv_long_gib)` GiB at 128k tokens; the states take {eval}`plain(state_mib)` MiB,
# as much as the cache of {eval}`plain(break_even)` tokens, and no more at 128k, or at a
# million. That is priced in float16, as the cache is; the stacks that serve these models
# recommend float32 for states (SGLang's default, an option in vLLM), twice this
# ([hybrids](12_linear_attention.ipynb#going-further-hybrids-one-full-attention-layer-in-four)).
# A decode step reads that state and writes it back, $O(d_k d_v)$ per head: the state is
# rewritten at every token, where a cache only appends. Chapter 10's step read the whole
# cache, $O(n\,d)$. (The normalisers add $d_k$ numbers a head, not counted here.)
#
# ## What it forgets (망각)
#
# A state of $d_v \times d_k$ numbers cannot hold what a cache of $n$ keys and values holds.
# What is lost shows in the plainest linear attention, without a feature map or a normaliser
# (as the models of the next sections read their state): $S = \sum_j \mathbf v_j
# \mathbf k_j^\top$. Ask it for key $i$ and it returns
#
# $$
# S\, \mathbf k_i = \lVert \mathbf k_i \rVert^2\, \mathbf v_i
#   + \sum_{j \ne i} (\mathbf k_j \cdot \mathbf k_i)\, \mathbf v_j .
# $$ (eq-ch12-crosstalk)
#
# With unit keys the first term is the value stored; the second, the crosstalk (간섭), vanishes
# only if key $i$ is orthogonal to every other key. In $d_k$ dimensions at most $d_k$ keys are
# mutually orthogonal, so the state holds at most $d_k$ associations cleanly, with no
# crosstalk. Beyond that every read is blurred by the others. Blurred is not yet lost: the
# measurement below counts how many reads still point to their own value. The example shows it
# with $d_k = 2$ and three keys, made unit:

# %%
K_unit = K / np.linalg.norm(K, axis=1, keepdims=True)  # (1, 0), (0, 1), (0.707, 0.707)
S_plain = V.T @ K_unit  # Σ v_j k_jᵀ: [2, 3] @ [3, 2] -> [2, 2], d_v × d_k
read_plain = K_unit @ S_plain.T  # row i: S k_i, what the state returns for key i
read_plain

# %% [markdown]
# Asked for key 1, the state returns {eval}`vector(read_plain[0])`, not $(2, 0)$: the third
# key leans {eval}`dec(K_unit[2, 0])` towards the first and brings that much of
# $\mathbf v_3 = (1, 1)$. Asked for key 3, it returns {eval}`vector(read_plain[2])` for
# $(1, 1)$.
#
# How fast this grows is measured by an associative-recall task (연관 회상): write $N$
# key–value pairs into a memory, then ask for every key and count how often the memory gives
# back its own value. A memory that guesses is right for $1/N$ of the queries, the chance
# level (우연 수준). The keys are random unit vectors in $d_k = 16$ dimensions, the values
# random unit vectors in $d_v = 64$. Three memories are compared: softmax attention over all
# $N$ pairs, the plain sum of {eq}`eq-ch12-crosstalk`, and Katharopoulos et al.'s elu + 1 with
# its normaliser.
#
# Softmax's scores are multiplied by 16, as if its unit queries and keys were each
# multiplied by $\sqrt{16}$; elu + 1's queries and keys are each multiplied by 16 before
# $\phi$, and the elu + 1 result depends on that factor. Unit keys are short: at scale 1
# softmax's weights are nearly even, and elu + 1's similarities are mostly the constant its
# $+1$ adds. The factors stand in for the long queries and keys of a trained model, which the
# two memories do not get alike. Without its factor elu + 1 recalls
# about as often as a guess (the second dropdown below has the numbers). The plain sum needs
# no factor: a factor on its reads changes no cosine.
#
# ```{admonition} How the recall experiment is set up
# :class: dropdown
#
# The task is a training-free analogue of Zoology's multi-query associative recall, MQAR
# ([Arora et al., 2024](references.md)). MQAR trains a model on sequences of key–value tokens
# and asks it for the values; here nothing is trained, and the keys are random vectors, not
# learned ones. `attn_book.recall` draws random unit keys in $d_k = 16$ dimensions and random
# unit values in $d_v = 64$, eight memories for each $N$, seeded, and counts a recall as right
# only when the vector returned is nearer (by cosine) to the right value than to every other
# value written, by more than {eval}`sci(TIE_TOLERANCE)`: a read exactly between two values,
# equally near both, is a miss, not a hit. The three memories read, and are scaled, as follows:
#
# - Softmax attention weighs all values written ($N$, or $2N$ with the rewrites below) by the
#   softmax of its scores, multiplied by 16.
#   The factor makes it sharp, as a trained model's long queries and keys make it.
# - The plain sum reads $S\mathbf q$ and needs no scale: a factor on its reads changes
#   no cosine.
# - elu + 1 gets its queries and keys each multiplied by 16 before $\phi$, where softmax
#   gets only its scores multiplied by 16. On unit keys
#   $\phi(\mathbf k) \approx 1 + \mathbf k$, and every similarity would be mostly the
#   constant; the factor lets the key, not the constant, decide $\phi(\mathbf k)$.
# ```

# %%
d_k_recall = 16
pair_counts = (4, 8, 16, 32, 64, 128)
forgetting = recall_sweep(pair_counts, d_k_recall, methods=("softmax", "linear", "linear_elu"))
unscaled = recall_sweep(pair_counts, d_k_recall, methods=("softmax", "linear_elu"), scale=1.0)
chance = forgetting.chance  # 1/N
acc_f, cos_f = forgetting.accuracy, forgetting.cosine
print("softmax    recalls", acc_f["softmax"].round(2), "mean cosine", cos_f["softmax"].round(2))
print("plain sum  recalls", acc_f["linear"].round(2), "mean cosine", cos_f["linear"].round(2))
print(
    "elu + 1    recalls", acc_f["linear_elu"].round(2), "mean cosine", cos_f["linear_elu"].round(2)
)
print("softmax    at scale 1 recalls", unscaled.accuracy["softmax"].round(2))
print("elu + 1    at scale 1 recalls", unscaled.accuracy["linear_elu"].round(2))
print("chance (1/N)      ", chance.round(3))
crosstalk_cosine = 1 / np.sqrt(1 + (np.array(pair_counts) - 1) / d_k_recall)  # predicted
print("plain sum, predicted cosine   ", crosstalk_cosine.round(2))
plain_pairs = acc_f["linear"] * np.array(pair_counts)  # pairs recalled: share × N
print("plain sum, pairs recalled", plain_pairs.round(1))
small_queries = recall_task(pair_counts[0], d_k_recall).queries.shape[:2]  # (memories, N)
queries_at_4 = int(np.prod(small_queries))  # the queries behind each point at N = 4

# %% tags=["hide-input"]
figures.show(
    plot_recall({f"random keys, dₖ = {d_k_recall}": forgetting}, d_k=d_k_recall),
    "fig-recall",
    "Associative recall against the number of pairs stored: the share of queries whose "
    "recalled vector is nearest its own value (8 seeded memories for each $N$; $d_k = 16$, "
    "$d_v = 64$; log axis). Dashed grey: the chance level $1/N$ of a memory that guesses.",
)

# %% [markdown]
# In {eval}`figures.ref("fig-recall")` the plain sum degrades gradually, as
# {eq}`eq-ch12-crosstalk` predicts, and elu + 1 does worse still, for a reason
# [a later section finds](12_linear_attention.ipynb#going-further-where-positive-features-lose-recall).
# Softmax recalls every pair at every $N$, up to {eval}`pair_counts[-1]`, and its cache grows
# with $N$.
#
# The plain sum recalls {eval}`percent(forgetting.accuracy["linear"][2], 0)` of 16 pairs, as
# many as $d_k$, then {eval}`percent(forgetting.accuracy["linear"][4], 0)` of 64 and
# {eval}`percent(forgetting.accuracy["linear"][5], 0)` of 128. The crosstalk buries the value.
# Two random unit keys in $d_k$ dimensions have a dot product of mean 0 and variance $1/d_k$.
# The values, random in 64 dimensions, are nearly orthogonal, so the squared lengths of the
# $N - 1$ crosstalk terms add up to about $(N - 1)/d_k$, against the stored value's 1. The
# read's cosine with its own value should then be about $1 / \sqrt{1 + (N - 1)/d_k}$, and it
# is: {eval}`dec(crosstalk_cosine[1], 2)` predicted against
# {eval}`dec(forgetting.cosine["linear"][1], 2)` measured at 8 pairs,
# {eval}`dec(crosstalk_cosine[5], 2)` against {eval}`dec(forgetting.cosine["linear"][5], 2)`
# at 128.
#
# A blurred read still counts as recalled while it is nearer its own value than any of the
# other $N - 1$. Counted in pairs, the plain sum picks out {eval}`dec(plain_pairs[4], 0)` of
# 64 and {eval}`dec(plain_pairs[5], 0)` of 128. That count is not a property of the state
# alone: it grows with the value width $d_v$, as [Going further: reading the recall
# numbers](12_linear_attention.ipynb#going-further-reading-the-recall-numbers) measures. What $d_k$ bounds is
# the number of associations held without crosstalk.
#
# The elu + 1 memory does worse than the plain sum, though better than chance: it recalls
# {eval}`percent(forgetting.accuracy["linear_elu"][2], 0)` of 16 pairs and
# {eval}`percent(forgetting.accuracy["linear_elu"][4], 0)` of 64, against chance's
# {eval}`percent(chance[2], 1)` and {eval}`percent(chance[4], 1)`. [Going further: where
# positive features lose
# recall](12_linear_attention.ipynb#going-further-where-positive-features-lose-recall) asks why.
# The models of the next sections use neither a positive feature map nor the normaliser
# $\mathbf z^\top \phi(\mathbf q)$: they read $S$ as the plain sum does.
#
# ```{admonition} Without the factor 16, and at 4 pairs
# :class: dropdown
#
# At scale 1 the scores of unit keys lie between −1 and 1, softmax's weights are nearly even,
# and every read is pulled towards the average of all the values: softmax then recalls
# {eval}`percent(unscaled.accuracy["softmax"][2], 0)` of 16 pairs,
# {eval}`percent(unscaled.accuracy["softmax"][4], 0)` of 64 and
# {eval}`percent(unscaled.accuracy["softmax"][5], 0)` of 128, fewer than the plain sum. elu + 1
# on the unit keys themselves recalls {eval}`percent(unscaled.accuracy["linear_elu"][0], 0)`,
# {eval}`percent(unscaled.accuracy["linear_elu"][2], 0)` and
# {eval}`percent(unscaled.accuracy["linear_elu"][4], 0)` of 4, 16 and 64 pairs, about chance.
#
# With the factor, elu + 1 recalls {eval}`percent(forgetting.accuracy["linear_elu"][0], 0)`
# of 4 pairs against the plain sum's {eval}`percent(forgetting.accuracy["linear"][0], 0)`.
# Each point at 4 pairs rests on {eval}`queries_at_4` queries ({eval}`small_queries[0]`
# memories of {eval}`small_queries[1]` pairs), and another seed may close that gap; from 8
# pairs on the gap is larger.
# ```
#
# ## The delta rule: correct before writing (델타 규칙)
#
# Linear attention only ever adds to its state. If the state already returns something for
# key $\mathbf k_t$, the new value is piled on top of it. The delta rule (델타 규칙) first looks:
# it reads what the state returns for $\mathbf k_t$, and writes only the difference
# ([Schlag et al., 2021](references.md)):
#
# $$
# S_t = S_{t-1} + \beta_t \big(\mathbf v_t - S_{t-1} \mathbf k_t\big)\, \mathbf k_t^\top,
# \qquad \mathbf o_t = S_t \mathbf q_t ,
# $$ (eq-ch12-delta)
#
# with $S$ of $d_v \times d_k$ as before, unit keys, and a writing strength (쓰기 강도)
# $\beta_t$ that the model computes from each token.
#
# Real models L2-normalise every key, $\lVert \mathbf k_t \rVert = 1$, and
# take $\beta_t$ from a sigmoid of the token's vector $\mathbf x_t$ as it enters the layer,
# $\beta_t = \sigma(\mathbf x_t \mathbf w_\beta)$, with a learned column $\mathbf w_\beta$
# for each head (Gated DeltaNet's reference code adds a learned bias), so that
# $0 < \beta_t < 1$, well inside
# $\beta_t \lVert \mathbf k_t \rVert^2 \le 2$, the condition under which no write amplifies
# the state ($\lVert I - \beta_t \mathbf k_t \mathbf k_t^\top \rVert \le 1$; `ac.delta_rule`
# warns past it).
# With $\beta_t = 1$ and a unit key, $S_t \mathbf k_t = S_{t-1}\mathbf k_t +
# \mathbf v_t - S_{t-1} \mathbf k_t = \mathbf v_t$: after the write the state returns exactly
# the new value for its key. By hand on the three unit keys, $\beta = 1$:

# %%
beta = 1.0
S_delta = np.zeros((2, 2))  # d_v × d_k
delta_steps = []
for t in range(3):
    k_t, v_t = K_unit[t], V[t]
    already = S_delta @ k_t  # what the state returns for k_t before the write
    correction = v_t - already  # the delta: v_t − S k_t
    S_delta = S_delta + beta * np.outer(correction, k_t)  # + β (v − S k) kᵀ
    delta_steps.append(dict(already=already, correction=correction, S=S_delta))
outputs_delta, S_delta_lib = ac.delta_rule(Q, K_unit, V, beta=np.full(3, beta))
np.testing.assert_allclose(S_delta_lib, S_delta)
S_delta

# %% [markdown]
# **Tokens 1 and 2.** The state is empty, so it returns $(0, 0)$ for $\mathbf k_1 = (1, 0)$
# and the whole of $\mathbf v_1$ is written: $(2, 0)\,(1, 0)^\top$ fills the first column. For
# $\mathbf k_2 = (0, 1)$, orthogonal to $\mathbf k_1$, the state returns
# {eval}`vector(delta_steps[1]["already"])` again, and $\mathbf v_2$ fills the second column:
# $S_2$ has rows {eval}`vector(delta_steps[1]["S"][0])` and
# {eval}`vector(delta_steps[1]["S"][1])`. So far this is the plain sum.
#
# **Token 3.** $\mathbf k_3 = (1, 1)/\sqrt 2$, and $S_2$ already returns
# $S_2 \mathbf k_3 =$ {eval}`vector(delta_steps[2]["already"])` for it (the crosstalk of
# {eq}`eq-ch12-crosstalk`). The delta is $(1, 1) -$ {eval}`vector(delta_steps[2]["already"])`
# $=$ {eval}`vector(delta_steps[2]["correction"])`, and
# $\beta\,\boldsymbol\delta\,\mathbf k_3^\top$ adds
# {eval}`dec(delta_steps[2]["correction"][0])` $/ \sqrt 2$ to every entry: $S_3$ has rows
# {eval}`vector(S_delta[0])` and {eval}`vector(S_delta[1])`. It returns for $\mathbf k_3$

# %%
read_k3_delta = S_delta @ K_unit[2]  # the delta rule's state, asked for key 3
read_k1_delta = S_delta @ K_unit[0]  # and for key 1
read_k3_delta, read_k1_delta

# %% [markdown]
# exactly {eval}`vector(read_k3_delta)`, $\mathbf v_3$, where the plain sum returned
# {eval}`vector(read_plain[2])`. Key 1, which overlaps key 3, now returns
# {eval}`vector(read_k1_delta)` for $(2, 0)$: $S_2$ returned it exactly, and token 3's write
# wore it down along $\mathbf k_3$. Is that worse than the plain sum? Each key's error
# $\lVert \text{read} - \mathbf v \rVert$ in both memories, after these three tokens and
# after a fourth pair, $\mathbf k_4 = (1, -1)/\sqrt 2$ (orthogonal to $\mathbf k_3$) with
# $\mathbf v_4 = (-1, 1)$:

# %%
k4, v4 = np.array([1.0, -1.0]) / np.sqrt(2), np.array([-1.0, 1.0])
S_delta4 = S_delta + beta * np.outer(v4 - S_delta @ k4, k4)  # token 4's delta-rule write
S_plain4 = S_plain + np.outer(v4, k4)  # and the plain sum's, + v kᵀ
K4, V4 = np.vstack([K_unit, k4]), np.vstack([V, v4])  # [4, 2] each
err_plain3 = np.linalg.norm(S_plain @ K_unit.T - V.T, axis=0)  # ‖S k_i − v_i‖, keys 1-3
err_delta3 = np.linalg.norm(S_delta @ K_unit.T - V.T, axis=0)  # column i: ‖S k_i − v_i‖
err_plain4 = np.linalg.norm(S_plain4 @ K4.T - V4.T, axis=0)  # keys 1-4, after token 4
err_delta4 = np.linalg.norm(S_delta4 @ K4.T - V4.T, axis=0)
[e.round(3) for e in (err_plain3, err_delta3, err_plain4, err_delta4)]

# %% tags=["hide-input"]
step_table(
    {
        "plain sum, 3 tokens": [*err_plain3, "–"],
        "delta rule, 3 tokens": [*err_delta3, "–"],
        "plain sum, 4 tokens": err_plain4,
        "delta rule, 4 tokens": err_delta4,
    },
    index=["key 1", "key 2", "key 3", "key 4"],
)

# %% [markdown]
# After three tokens the delta rule is nearer on every key: keys 1 and 2 miss by
# {eval}`dec(err_delta3[0])` against the plain sum's {eval}`plain(err_plain3[0])`, key 3 by
# {eval}`plain(err_delta3[2])` against {eval}`plain(err_plain3[2])`. Three keys in two
# dimensions bury every read of the plain sum in crosstalk, and the correction removes some
# of it. The fourth pair shows the other side. The delta rule now returns $\mathbf v_3$ and
# $\mathbf v_4$ exactly, and keys 1 and 2, neither of them orthogonal to $\mathbf k_3$ or
# $\mathbf k_4$, miss by {eval}`dec(err_delta4[0])`, where the plain sum misses them by
# {eval}`dec(err_plain4[0])`: with $d_k = 2$ the delta rule holds the two newest pairs and
# the older ones pay for them, while the plain sum blurs all four
# ({eval}`dec(err_plain4[0])` on keys 1 and 2, {eval}`plain(err_plain4[2])` on keys 3 and 4)
# and returns none exactly. Which of the two recalls more pairs when there
# are many keys is for the recall experiment below to say.
#
# **A gradient step.** The correction is one step of online gradient descent (온라인 경사
# 하강법) on a least-squares loss: the Widrow–Hoff, or LMS, rule, which gave the delta rule
# its name.
# Take the loss $\ell(S) = \tfrac12 \lVert S \mathbf k_t - \mathbf v_t \rVert^2$, how badly the
# state answers the new pair. Its gradient is $\nabla_S \ell = (S \mathbf k_t - \mathbf v_t)\,
# \mathbf k_t^\top$, and one step of gradient descent with learning rate $\beta_t$ from
# $S_{t-1}$ is $S_{t-1} - \beta_t (S_{t-1}\mathbf k_t - \mathbf v_t)\,\mathbf k_t^\top$:
# {eq}`eq-ch12-delta`. Linear attention's write is the same step with the loss
# $-\mathbf v_t^\top S \mathbf k_t$, whose gradient ignores what $S$ already holds
# ([Yang et al., 2024b](references.md)).

# %%
S_before, k3, v3 = delta_steps[1]["S"], K_unit[2], V[2]
gradient = np.outer(S_before @ k3 - v3, k3)  # ∇ of ½‖S k − v‖² at S_before: [2, 2]
np.testing.assert_allclose(S_before - beta * gradient, S_delta)  # the step is the rule
loss_before = 0.5 * np.sum((S_before @ k3 - v3) ** 2)
loss_after = 0.5 * np.sum((S_delta @ k3 - v3) ** 2)
round(float(loss_before), 4), round(float(loss_after), 4)

# %% [markdown]
# The loss falls from {eval}`dec(loss_before)` to {eval}`plain(loss_after)`: with a
# unit key and $\beta = 1$ the step lands on the minimum along $\mathbf k_t$. Yang et al.
# showed how to train this recurrence in parallel over the sequence, chunk by chunk, which
# made the delta rule (DeltaNet) practical at the scale of language models; [Going further:
# the delta rule chunk by chunk](12_linear_attention.ipynb#going-further-the-delta-rule-chunk-by-chunk), after the
# recall experiment, does it and works one chunk by hand.

# %% tags=["hide-input"]
state_filler = StateFiller()  # three keys, each written twice; the delta rule with β = 1
figures.show(
    state_filler,
    "fig-state-filler",
    "Three memories filled token by token with the same keys and values. Left: the state "
    "$S_t$ ($d_v \\times d_k$) of linear attention or of the delta rule (purple below 0, "
    "orange above), or softmax attention's cache, which grows by a key and a value a token. "
    "Right: what the memory returns for the key asked, beside the value written last under "
    "that key, and the delta rule's correction $\\mathbf v_t - S_{t-1} \\mathbf k_t$.",
)

# %% [markdown]
# In {eval}`figures.ref("fig-state-filler")` the same tokens fill each memory. Its rows are
# value dimensions and its columns key dimensions, for both states. The tokens are {eval}`state_filler.n_pairs` random unit keys in $d_k =$ {eval}`state_filler.d_k` dimensions, each
# written twice, the second time with the value to recall. Try this: with the delta rule, ask with
# $\mathbf k_1$ and step back to the token
# that writes $\mathbf k_1$ again. There the error is 0, as {eq}`eq-ch12-delta` promises; the tokens
# after it, whose keys overlap $\mathbf k_1$, wear it down again. Switch to linear attention and the
# new value lands on top of the stale one; switch to softmax and the cache grows a row a token while
# its weights split between the two writes of $\mathbf k_1$. Lower $\beta$, and each correction is
# written only in part.
#
# ## The recall experiment again
#
# Does correcting help recall? The same experiment, with the delta rule ($\beta = 1$) beside
# softmax and the plain sum, on two tasks: the random keys of {eval}`figures.ref("fig-recall")`,
# and a task with rewrites, where every key is written twice, first with a stale value and,
# after all $N$ pairs, with the value to recall (the stale values count as wrong answers).

# %%
three = ("softmax", "linear", "delta")
random_keys = recall_sweep(pair_counts, d_k_recall, methods=three)
rewrites = recall_sweep(pair_counts, d_k_recall, methods=three, rewrite=True)
acc_r, cos_r = random_keys.accuracy, random_keys.cosine
acc_w, cos_w = rewrites.accuracy, rewrites.cosine
print("random keys:")
print("  softmax    recalls", acc_r["softmax"].round(2), "mean cosine", cos_r["softmax"].round(2))
print("  plain sum  recalls", acc_r["linear"].round(2), "mean cosine", cos_r["linear"].round(2))
print("  delta rule recalls", acc_r["delta"].round(2), "mean cosine", cos_r["delta"].round(2))
print("every key written twice:")
print("  softmax    recalls", acc_w["softmax"].round(2), "mean cosine", cos_w["softmax"].round(2))
print("  plain sum  recalls", acc_w["linear"].round(2), "mean cosine", cos_w["linear"].round(2))
print("  delta rule recalls", acc_w["delta"].round(2), "mean cosine", cos_w["delta"].round(2))
delta_pairs = acc_r["delta"] * np.array(pair_counts)  # pairs recalled: share × N
stale_cost = np.abs(acc_w["delta"] - acc_r["delta"]).max()  # at any N
print("delta rule, random keys, pairs recalled", delta_pairs.round(1))

# %% tags=["hide-input"]
figures.show(
    plot_recall({"random keys": random_keys, "every key written twice": rewrites}, d_k=d_k_recall),
    "fig-recall-delta",
    "The delta rule ($\\beta = 1$) against softmax attention and the plain sum. Left: "
    "$N$ random keys, each written once. Right: each key written twice, the second value "
    "the one to recall ($d_k = 16$, $d_v = 64$, 8 seeded memories for each $N$). Dashed "
    "grey: chance, $1/N$ left and $1/2N$ right, where the stale values are candidates too.",
)

# %% [markdown]
# {eval}`figures.ref("fig-recall-delta")` does not show the delta rule simply winning: it can
# overwrite a pair, but it keeps only about $d_k$ of them.
#
# **Random keys, each written once (left).** Here the delta rule recalls *fewer* pairs than the
# plain sum: {eval}`percent(random_keys.accuracy["delta"][2], 0)` against
# {eval}`percent(random_keys.accuracy["linear"][2], 0)` of 16 pairs, and
# {eval}`percent(random_keys.accuracy["delta"][4], 0)` against
# {eval}`percent(random_keys.accuracy["linear"][4], 0)` of 64. Each write with $\beta = 1$
# makes the state exact for the newest key. It does so by removing, along that key, what older
# pairs had stored there, as keys 1 and 2 lost to keys 3 and 4 above. Random keys always
# overlap, so every pair is worn down by the writes after it, and only the newest stay clear
# ([counted by write position](12_linear_attention.ipynb#going-further-reading-the-recall-numbers)).
# Much of the plain sum's lead comes from the wide values, $d_v = 64$: with values as wide as
# the keys it is smaller, [narrows as $N$ grows and is gone at 128
# pairs](12_linear_attention.ipynb#going-further-reading-the-recall-numbers).
#
# **Every key written twice (right).** Now the memory must replace, not just store, and only
# the delta rule does. Without positions, as here, softmax attention sees both writes of the
# key with equal scores and returns the average of the stale and the new value (a trained
# transformer could tell them apart by position, and take the newer one). Whether that average
# lands nearer the new value or the stale one is a coin flip, decided by the small weights on
# the other keys: softmax recalls {eval}`percent(rewrites.accuracy["softmax"][2], 0)` of 16
# pairs, about half, and its mean cosine with the new value is
# {eval}`dec(rewrites.cosine["softmax"][2], 2)`, near $1/\sqrt 2$. The plain sum does the same,
# blurred: {eval}`percent(rewrites.accuracy["linear"][2], 0)`. The delta rule removes the stale
# value when it writes the new one and recalls
# {eval}`percent(rewrites.accuracy["delta"][0], 0)` of 4 pairs and
# {eval}`percent(rewrites.accuracy["delta"][2], 0)` of 16, about what it recalled with no
# rewrites. It still picks out about $d_k$ pairs, the newest: on random keys
# {eval}`dec(delta_pairs[3], 0)` of 32, {eval}`dec(delta_pairs[4], 0)` of 64 and
# {eval}`dec(delta_pairs[5], 0)` of 128. So with rewrites beyond 32 pairs it falls below
# softmax's coin flip ({eval}`percent(rewrites.accuracy["delta"][4], 0)` against
# {eval}`percent(rewrites.accuracy["softmax"][4], 0)` of 64). What it adds is the ability to
# overwrite, not room.
#
# All of this is a verdict on random keys and a fixed β, not on trained models. Trained on
# MQAR, DeltaNet recalls more than the other linear-time models it is compared with, gated
# ones among them ([Yang et al., 2024b](references.md)). A trained model's keys are not random,
# and it chooses $\beta_t$ token by token. [Going further: keys that do not overlap, and a
# weaker
# write](12_linear_attention.ipynb#going-further-keys-that-do-not-overlap-and-a-weaker-write)
# measures both.
#
# ## Going further: reading the recall numbers
#
# Three questions about the numbers of {eval}`figures.ref("fig-recall-delta")`: which pairs
# the delta rule keeps, how much the value width decides, and how firm the shares are.
#
# **By write position.** The delta rule keeps the newest pairs and loses the oldest, where
# the plain sum blurs all pairs alike. Counted by when each pair was written, at 64 pairs:

# %%
task_64 = recall_task(pair_counts[4], d_k_recall)  # the sweep's memories at N = 64
by_position = {}  # recall at N = 64 by when each pair was written, oldest quarter first
for method in ("linear", "delta"):
    hits = recall_hits(task_64, recalled(task_64, method))  # [memories, N]: query i = write i
    by_position[method] = hits.reshape(len(hits), 4, -1).mean(axis=(0, 2))  # 4 quarters
    assert np.isclose(by_position[method].mean(), acc_r[method][4])
print("plain sum  by quarter, oldest first:", by_position["linear"].round(2))
print("delta rule by quarter, oldest first:", by_position["delta"].round(2))

# %% [markdown]
# The delta rule recalls {eval}`percent(by_position["delta"][0], 0)`,
# {eval}`percent(by_position["delta"][1], 0)`, {eval}`percent(by_position["delta"][2], 0)` and
# {eval}`percent(by_position["delta"][3], 0)` of the four quarters, oldest to newest: a ramp.
# The plain sum's quarters are flat, {eval}`percent(by_position["linear"][0], 0)`,
# {eval}`percent(by_position["linear"][1], 0)`, {eval}`percent(by_position["linear"][2], 0)`
# and {eval}`percent(by_position["linear"][3], 0)`: it blurs all pairs alike, and a blurred
# value is still the nearest.
#
# **How wide the values are decides much of the plain sum's lead.** The runs above store values
# four times as wide as the keys, and a wider value space leaves a blurred read more room to
# stay nearest its own value. The same random keys with three value widths:

# %%
value_widths = (16, 64, 256)  # d_v; 64 is the width of every run above
width_pairs = (pair_counts[2], pair_counts[4], pair_counts[5])  # N = 16, 64, 128
by_width = {
    d_v: recall_sweep(width_pairs, d_k_recall, methods=("linear", "delta"), d_v=d_v)
    for d_v in value_widths
}
for method in ("linear", "delta"):  # d_v = 64 repeats the runs above
    np.testing.assert_array_equal(by_width[64].accuracy[method], acc_r[method][[2, 4, 5]])
width_plain_pairs = [by_width[d_v].accuracy["linear"][-1] * width_pairs[-1] for d_v in value_widths]
width_delta_pairs = [by_width[d_v].accuracy["delta"][-1] * width_pairs[-1] for d_v in value_widths]
width_move = {  # the largest rise of the share from d_v = 16 to d_v = 256, over the three N
    method: (by_width[256].accuracy[method] - by_width[16].accuracy[method]).max()
    for method in ("linear", "delta")
}
step_table(
    {
        f"N = {n}": [
            percent(by_width[d_v].accuracy[method][i], 0)
            for method in ("linear", "delta")
            for d_v in value_widths
        ]
        for i, n in enumerate(width_pairs)
    },
    index=[f"{name}, dᵥ = {d_v}" for name in ("plain sum", "delta rule") for d_v in value_widths],
)

# %% [markdown]
# The plain sum's share grows with $d_v$ far more than the delta rule's. From $d_v = 16$ to
# 256 the plain sum's rises by up to {eval}`percent(width_move["linear"], 0)` of the queries,
# the delta rule's by up to {eval}`percent(width_move["delta"], 0)`. With values as
# wide as the keys, $d_v = d_k =$ {eval}`value_widths[0]`, the plain sum recalls
# {eval}`percent(by_width[16].accuracy["linear"][1], 0)` of 64 pairs against the delta rule's
# {eval}`percent(by_width[16].accuracy["delta"][1], 0)`, and at 128 pairs the two are level
# ({eval}`percent(by_width[16].accuracy["linear"][2], 0)` and
# {eval}`percent(by_width[16].accuracy["delta"][2], 0)`). With $d_v =$ {eval}`value_widths[2]`
# the plain sum recalls {eval}`percent(by_width[256].accuracy["linear"][2], 0)` of 128. The
# delta rule picks out {eval}`dec(width_delta_pairs[0], 0)`,
# {eval}`dec(width_delta_pairs[1], 0)` and {eval}`dec(width_delta_pairs[2], 0)` of 128 pairs
# at the three widths: of the order of $d_k$, fewer at the narrowest. So the plain sum's count of pairs is not its state's
# capacity: it depends on $d_v$ and on a reader that only has to pick the nearest of the $N$
# values.

# %%
stale_cost = np.abs(acc_w["delta"] - acc_r["delta"]).max()  # at any N
p_soft = acc_w["softmax"][0]  # softmax with rewrites at N = 4
se_soft = np.sqrt(p_soft * (1 - p_soft) / queries_at_4)  # binomial, queries independent
coin_gap = (p_soft - 0.5) / se_soft  # its distance from a coin flip, in standard errors
task_4w = recall_task(pair_counts[0], d_k_recall, rewrite=True)  # the sweep's, N = 4
per_memory = recall_hits(task_4w, recalled(task_4w, "softmax")).mean(axis=1)  # [memories]
assert np.isclose(per_memory.mean(), p_soft)
se_memories = per_memory.std(ddof=1) / np.sqrt(len(per_memory))  # across the memories
queries_ratio = pair_counts[-1] // pair_counts[0]  # queries at N = 128 over those at N = 4
margins = []  # softmax with rewrites: own cosine minus the nearest other value's, N = 4 and 16
for n_m in (pair_counts[0], pair_counts[2]):
    task_m = recall_task(n_m, d_k_recall, rewrite=True)
    reads_m = recalled(task_m, "softmax")
    reads_m = reads_m / np.linalg.norm(reads_m, axis=-1, keepdims=True)
    values_m = np.concatenate([task_m.answers, task_m.decoys], axis=1)  # unit values
    cos_m = reads_m @ np.swapaxes(values_m, -1, -2)  # [memories, N, N + stale]
    own_m = cos_m[:, np.arange(n_m), np.arange(n_m)].copy()
    cos_m[:, np.arange(n_m), np.arange(n_m)] = -np.inf  # leave out its own value
    margins.append(np.abs(own_m - cos_m.max(axis=-1)).ravel())
margin_lo, margin_hi = min(m.min() for m in margins), max(m.max() for m in margins)
round(float(se_soft), 3), round(float(se_memories), 3)

# %% [markdown]
# ```{admonition} How firm these shares are
# :class: dropdown
#
# The runs with and without rewrites use the same keys and values; the rewrites only add the
# stale writes in front. The stale writes move the delta rule's recall by at most
# {eval}`percent(stale_cost, 0)` of the queries at any $N$.
#
# Softmax's accuracy with rewrites is not a capacity but a share of coin flips, and at small
# $N$ it rests on few of them: {eval}`small_queries[0]` memories of
# {eval}`small_queries[1]` pairs ask {eval}`queries_at_4` queries. Treating those queries as
# independent, which the queries of one memory are not quite, its
# {eval}`percent(p_soft, 1)` at 4 pairs has a binomial standard error of about
# {eval}`percent(se_soft, 1)` and lies {eval}`dec(coin_gap, 1)` standard errors from a half.
# Computed across the {eval}`small_queries[0]` memories instead, the standard error is
# {eval}`percent(se_memories, 1)`. Its line in {eval}`figures.ref("fig-recall-delta")` is
# jagged there. At
# {eval}`pair_counts[-1]` pairs each point rests on {eval}`queries_ratio` times as many.
# The coin flips are also narrow: at {eval}`pair_counts[0]` and {eval}`pair_counts[2]` pairs
# softmax's read is nearer one value than the next by between {eval}`sci(margin_lo)` and
# {eval}`sci(margin_hi)` in cosine, so the share measures a coin flip, not a capacity, and a
# coarser tie rule than {eval}`sci(TIE_TOLERANCE)` would turn many of these reads into
# misses.
# ```
#
# ## Going further: where positive features lose recall
#
# In [what it forgets](12_linear_attention.ipynb#what-it-forgets) the elu + 1 memory recalled
# fewer pairs than the plain sum at every $N$. This section asks where that cost comes from.
#
# **Why positive features hurt.** The features of elu + 1 are all positive, so
# $\phi(\mathbf k_i) \cdot \phi(\mathbf k_j) > 0$ for every pair: the weights on the other
# values are all positive, and the crosstalk keeps a component along the sum of all the values,
# which signed weights would partly cancel. The normaliser is not the
# cause: it divides the read by the positive number $\mathbf z^\top \phi(\mathbf q)$, which
# leaves its cosine with every value, and so this measurement, unchanged. Is the cost
# positivity itself, or the large part that every feature vector shares, the $+1$ and the mean
# of $\phi(\mathbf k)$ over the keys? Subtract that part, the same vector $\mathbf c$ from the
# features of the keys and of the queries, and read again, without the normaliser:


# %%
def feature_read(task, shift):
    """S (φ(q) − c), S = Σ v (φ(k) − c)ᵀ, with φ = elu + 1 on keys scaled by 16, no normaliser."""
    phi_k, phi_q = ac.elu_plus_one(16 * task.keys), ac.elu_plus_one(16 * task.queries)
    c = (
        phi_k.mean(axis=1, keepdims=True) if shift == "mean" else shift
    )  # [trials, 1, F] or a number
    state = np.swapaxes(task.values, -1, -2) @ (phi_k - c)  # [trials, d_v, T] @ [trials, T, F]
    return (phi_q - c) @ np.swapaxes(state, -1, -2)  # row i: S (φ(q_i) − c), [trials, N, d_v]


shifts = {"elu + 1": 0.0, "elu (no +1)": 1.0, "elu + 1 − mean": "mean"}
shifted = {name: [] for name in shifts}
for n in pair_counts:
    task_n = recall_task(n, d_k_recall)  # the sweep's memories for this N
    for name, shift in shifts.items():
        shifted[name].append(recall_score(task_n, feature_read(task_n, shift)).accuracy)
shifted = {name: np.array(acc) for name, acc in shifted.items()}
np.testing.assert_allclose(shifted["elu + 1"], forgetting.accuracy["linear_elu"])  # as above
print("elu + 1         recalls", shifted["elu + 1"].round(2))
print("elu (no +1)     recalls", shifted["elu (no +1)"].round(2))
print("elu + 1 − mean  recalls", shifted["elu + 1 − mean"].round(2))
elu_64 = ac.elu_plus_one(16 * recall_task(pair_counts[4], d_k_recall).keys) - 1  # elu(16 k)
elu_negative_mean = elu_64[elu_64 < 0].mean()  # its negative features, N = 64
print("elu(16 k), mean of its negative features:", round(float(elu_negative_mean), 2))

# %% [markdown]
# Dropping the $+1$ recovers part of the recall, and subtracting the mean feature nearly all
# of it. (Subtracting the mean is a diagnostic, not a causal feature map: it uses the mean of
# keys not yet written.) At 64 pairs
# elu + 1 recalls {eval}`percent(shifted["elu + 1"][4], 0)`; dropping the $+1$ (features
# $\mathrm{elu}(x)$, whose negative entries average {eval}`dec(elu_negative_mean, 2)`, near
# elu's floor of −1) lifts that to {eval}`percent(shifted["elu (no +1)"][4], 0)`, and subtracting
# the mean feature to {eval}`percent(shifted["elu + 1 − mean"][4], 0)`, against the plain sum's
# {eval}`percent(forgetting.accuracy["linear"][4], 0)`. A positive feature map shares a large
# common component; every similarity carries it, and it pulls every read towards the sum of all
# the values. Subtracting the mean removes that component and dropping the $+1$ only shrinks
# it, which fits the partial recovery; both changes also make the features signed, so
# this experiment does not separate the two explanations, positivity itself or the shared
# component (a map with no negative outputs has a positive mean, so it always brings one).
# Positive features keep the weights positive, as {eq}`eq-ch12-linear` needs; the recall they
# cost here goes with that shared component.
#
# ## Going further: keys that do not overlap, and a weaker write
#
# Two questions the core left open: does the delta rule's cost on random keys come from their
# overlap, and what does a writing strength below 1 change?
#
# **Keys that do not overlap.** With $N \le d_k$, `recall_task` can draw orthonormal keys,
# rows of a random rotation, and then {eq}`eq-ch12-crosstalk` has no crosstalk at all:

# %%
few_pairs = pair_counts[:3]  # N <= d_k, where orthonormal keys exist
ortho = recall_sweep(few_pairs, d_k_recall, methods=("linear", "delta"), keys="orthonormal")
ortho_rw = recall_sweep(
    few_pairs, d_k_recall, methods=("linear", "delta"), keys="orthonormal", rewrite=True
)
print("written once, plain sum recalls ", ortho.accuracy["linear"].round(2))
print("written once, delta rule recalls", ortho.accuracy["delta"].round(2))
print("written twice, plain sum recalls ", ortho_rw.accuracy["linear"].round(2))
print("written twice, delta rule recalls", ortho_rw.accuracy["delta"].round(2))
assert (ortho_rw.accuracy["linear"] == 0).all()  # v_stale + v_new: a tie, so a miss, every time

# %% [markdown]
# Written once, both memories recall every pair ({eval}`percent(ortho.accuracy["linear"][-1], 0)`
# and {eval}`percent(ortho.accuracy["delta"][-1], 0)` of 16): without overlap, the delta rule's
# writes cost the other pairs nothing. With rewrites the delta rule still recalls
# {eval}`percent(ortho_rw.accuracy["delta"][-1], 0)` of 16. The plain sum piles the new value on
# the stale one and returns $\mathbf v_{\text{stale}} + \mathbf v_{\text{new}}$ exactly, equally
# near both: a dead heat on every query, which counts as a miss, so it recalls
# {eval}`percent(ortho_rw.accuracy["linear"][-1], 0)` at every $N$ (its mean cosine with the new
# value is {eval}`dec(ortho_rw.cosine["linear"][-1], 2)`, near $1/\sqrt 2$).
#
# **A smaller β.** The models compute $\beta_t$ from each token, through a sigmoid, and it is
# rarely 1. The same two tasks, with the delta rule's β the same for every write:

# %%
betas = (1.0, 0.5, 0.25, 0.1)  # β = 1 is the run above
smaller = betas[1:]
beta_random = [random_keys] + [
    recall_sweep(pair_counts, d_k_recall, methods=("delta",), beta=b) for b in smaller
]
beta_rewrites = [rewrites] + [
    recall_sweep(pair_counts, d_k_recall, methods=("delta",), beta=b, rewrite=True) for b in smaller
]
step_table(
    {
        f"N = {n}": [s.accuracy["delta"][i] for s in beta_random + beta_rewrites]
        for i, n in enumerate(pair_counts)
    },
    index=[f"β = {b}, {task}" for task in ("random keys", "rewrites") for b in betas],
    digits=2,
)

# %%
beta_n_dk = betas[-1] * pair_counts[4] / d_k_recall  # β N / d_k at N = 64, β = 0.1
hits_small_beta = recall_hits(task_64, recalled(task_64, "delta", beta=betas[-1]))
by_position_small_beta = hits_small_beta.reshape(len(hits_small_beta), 4, -1).mean(axis=(0, 2))
assert np.isclose(by_position_small_beta.mean(), beta_random[3].accuracy["delta"][4])
print("delta rule, β = 0.1, N = 64, by quarter, oldest first:", by_position_small_beta.round(2))
# the mean cosine with the new value at 4 rewritten pairs, for each β
{b: round(float(s.cosine["delta"][0]), 2) for b, s in zip(betas, beta_rewrites, strict=True)}

# %% [markdown]
# On random keys written once, a smaller β recalls more: at 64 pairs
# {eval}`percent(beta_random[0].accuracy["delta"][4], 0)` with $\beta = 1$,
# {eval}`percent(beta_random[1].accuracy["delta"][4], 0)` with 0.5 and
# {eval}`percent(beta_random[3].accuracy["delta"][4], 0)` with 0.1, against the plain sum's
# {eval}`percent(random_keys.accuracy["linear"][4], 0)`. Each write now removes only a share β of
# what the state returned for its key, so the older pairs are worn down less. As $\beta \to 0$
# the state itself is built from writes of size β, so $S$ is of order $\beta$ and the
# correction $\beta\, S \mathbf k$ of order $\beta^2$ against the write's $\beta$. But the
# corrections also act on each stored pair along its own key. Each later write wears pair $i$
# down by a share of about $\beta (\mathbf k_t \cdot \mathbf k_i)^2 \approx \beta / d_k$,
# so after $N$ writes the oldest pairs keep about $e^{-\beta N / d_k}$ of their signal. The
# rule becomes the plain sum, scaled by β, only when $\beta N / d_k \ll 1$. At 64 pairs and
# $\beta =$ {eval}`betas[-1]`, $\beta N / d_k =$ {eval}`dec(beta_n_dk, 1)`, and the ramp is
# still there: the delta rule recalls {eval}`percent(by_position_small_beta[0], 0)` of the
# oldest quarter and {eval}`percent(by_position_small_beta[-1], 0)` of the newest, where the
# plain sum is flat. With rewrites, β = 0.5 and 0.25 also recall more of
# 32 pairs ({eval}`percent(beta_rewrites[1].accuracy["delta"][3], 0)` and
# {eval}`percent(beta_rewrites[2].accuracy["delta"][3], 0)` against
# {eval}`percent(beta_rewrites[0].accuracy["delta"][3], 0)`), but a smaller β replaces less:
# each rewrite removes only a share β of the stale value. At
# 4 rewritten pairs the recalled vector's mean cosine with the new value falls from
# {eval}`dec(beta_rewrites[0].cosine["delta"][0], 2)` with $\beta = 1$ to
# {eval}`dec(beta_rewrites[3].cosine["delta"][0], 2)` with $\beta = 0.1$, near the
# {eval}`dec(rewrites.cosine["softmax"][0], 2)` of softmax attention, which averages old and
# new. β is the trade between keeping the old pairs and replacing them, and a model that
# computes it from each token can choose per write: near 1 when a key must be overwritten,
# small when a pair is only added.
#
# ## Going further: the delta rule chunk by chunk (청크 단위 델타 규칙)
#
# The recurrence makes $n$ updates one after another, each from the state the one before it
# left. The exercise "a chunk at a time" at the end of this chapter cuts linear attention into
# chunks instead: a state carried in from the tokens before a chunk, and the masked parallel
# form inside it. The delta
# rule cannot be cut so simply, because inside a chunk each token's write corrects what the
# state returns for its key, and that depends on the writes of the chunk's earlier tokens.
# [Yang et al. (2024b)](references.md) showed that the corrections of a chunk solve one
# triangular system. The equations come first, for any chunk; [the worked
# example](12_linear_attention.ipynb#the-worked-example-a-chunk-of-two-tokens-by-hand) after them runs them by hand on a
# chunk of two tokens and lands on the state the token-by-token steps reached. Take a chunk of $C$ tokens, the state $S$ ($d_v \times d_k$) that the
# earlier chunks left, the chunk's queries, keys and values as the rows of $Q$, $K$
# ($C \times d_k$) and $V$ ($C \times d_v$), and $B = \operatorname{diag}(\beta)$. Token $t$
# of the chunk writes $\boldsymbol\delta_t \mathbf k_t^\top$ with
# $\boldsymbol\delta_t = \beta_t(\mathbf v_t - S_{t-1}\mathbf k_t)$, and
# $S_{t-1} = S + \sum_{i<t} \boldsymbol\delta_i \mathbf k_i^\top$, so
#
# $$
# \boldsymbol\delta_t = \beta_t\big(\mathbf v_t - S\mathbf k_t\big)
#   - \beta_t \sum_{i<t} (\mathbf k_t \cdot \mathbf k_i)\, \boldsymbol\delta_i .
# $$
#
# With the corrections as the rows of $\Delta$ ($C \times d_v$), that is
# $\big(I + \operatorname{tril}(B K K^\top, -1)\big)\,\Delta = B\,(V - K S^\top)$, where
# $\operatorname{tril}(\cdot, -1)$ keeps the entries below the diagonal. The matrix on the
# left is lower triangular with ones on its diagonal, so forward substitution solves it row by
# row, with no inverse:
#
# $$
# \begin{aligned}
# T &= \big(I + \operatorname{tril}(B K K^\top, -1)\big)^{-1} B, \qquad W = T K, \qquad U = T V, \\
# \Delta &= U - W S^\top .
# \end{aligned}
# $$ (eq-ch12-wy)
#
# $T$, $W$ and $U$ come from the chunk's own tokens, not from $S$: every chunk computes its
# own at once. Only then do the chunks go in order, each reading and updating the state:
#
# $$
# \begin{aligned}
# O &= Q S^\top + \operatorname{tril}(Q K^\top)\, \Delta, \\
# S_{\text{next}} &= S + \Delta^\top K = S\,(I - W^\top K) + U^\top K .
# \end{aligned}
# $$ (eq-ch12-chunk-delta)
#
# The outputs are what the state carried in returns for the chunk's queries, plus the chunk's
# own corrections through the causal mask ($i \le t$). The last form shows the name: the
# product of the chunk's $C$ factors $I - \beta_t \mathbf k_t \mathbf k_t^\top$ is
# $I - W^\top K$, the WY representation of a product of Householder-like matrices on which
# Yang et al. build.
#
# ### The worked example: a chunk of two tokens by hand
#
# Tokens 2 and 3 of the delta rule's three tokens (its section above, $\beta = 1$) make a
# chunk of $C = 2$, and the state $S_1$ that token 1 left is carried in:

# %%
K_c, V_c = K_unit[1:3], V[1:3]  # the chunk's rows: k₂, k₃ and v₂, v₃
B_c = np.eye(2)  # diag(β), β = 1
S_in = delta_steps[0]["S"]  # S₁, what token 1 left
KK_c = K_c[1] @ K_c[0]  # k₃ · k₂, the one entry of tril(B K Kᵀ, -1)
T_c = np.linalg.solve(np.eye(2) + np.tril(B_c @ K_c @ K_c.T, -1), B_c)  # triangular
W_c, U_c = T_c @ K_c, T_c @ V_c
Delta_c = U_c - W_c @ S_in.T  # the chunk's corrections, one row a token
S_next = S_in + Delta_c.T @ K_c
np.testing.assert_allclose(Delta_c, [delta_steps[1]["correction"], delta_steps[2]["correction"]])
np.testing.assert_allclose(S_next, delta_steps[2]["S"])  # S₃, token by token above
T_c.round(3), Delta_c.round(3), S_next.round(3)

# %% [markdown]
# $S_1$ has rows {eval}`vector(S_in[0])` and {eval}`vector(S_in[1])`. Below the diagonal,
# $B K K^\top$ holds $\mathbf k_3 \cdot \mathbf k_2 =$
# {eval}`dec(KK_c)`, so $T$ has rows {eval}`vector(T_c[0])` and {eval}`vector(T_c[1])`:
# token 3's correction takes off that share of token 2's. $W = TK$ has rows
# {eval}`vector(W_c[0])` and {eval}`vector(W_c[1])`, $U = TV$ rows {eval}`vector(U_c[0])` and
# {eval}`vector(U_c[1])`, and $\Delta = U - W S_1^\top$ rows {eval}`vector(Delta_c[0])` and
# {eval}`vector(Delta_c[1])`: the two corrections that tokens 2 and 3 wrote one after the
# other above, here from one triangular solve. $S_1 + \Delta^\top K$ has rows
# {eval}`vector(S_next[0])` and {eval}`vector(S_next[1])`, the $S_3$ of the token-by-token
# steps.
#
# ### Every chunk size, on random tokens
#
# `ac.delta_rule_chunkwise` is {eq}`eq-ch12-wy` and {eq}`eq-ch12-chunk-delta`. On random
# tokens with unit keys, from chunks of one token (the recurrence again) to a single chunk of
# all of them, against `ac.delta_rule`'s token-by-token recurrence:

# %%
rng_wy = np.random.default_rng(12)
n_wy, d_wy = 64, 16
Q_wy, V_wy = rng_wy.standard_normal((n_wy, d_wy)), rng_wy.standard_normal((n_wy, d_wy))
K_wy = rng_wy.standard_normal((n_wy, d_wy))
K_wy /= np.linalg.norm(K_wy, axis=1, keepdims=True)  # unit keys
beta_wy = rng_wy.uniform(0, 1, n_wy)  # β in (0, 1), as a sigmoid gives
out_rec, S_rec = ac.delta_rule(Q_wy, K_wy, V_wy, beta_wy)  # n rank-1 updates in order
chunk_sizes = [1, 5, 16, 64]  # 5 does not divide 64; 64 is one chunk
wy_gap = 0.0
for C in chunk_sizes:
    out_wy, S_wy = ac.delta_rule_chunkwise(Q_wy, K_wy, V_wy, beta_wy, chunk_size=C)
    wy_gap = max(wy_gap, np.abs(out_wy - out_rec).max(), np.abs(S_wy - S_rec).max())
wy_bound = 1e-12
print(f"chunk sizes {chunk_sizes}: largest difference below {wy_bound:.0e}:", wy_gap < wy_bound)
C_mid = chunk_sizes[2]  # chunks of 16
mid_state_steps = -(-n_wy // C_mid)  # the chunks' state steps, in order
print("state steps in order:", mid_state_steps, "| rows of forward substitution:", C_mid)

# %% [markdown]
# On these {eval}`n_wy` tokens in $d_k = d_v =$ {eval}`d_wy` dimensions, outputs and final
# states agree to within {eval}`sci(wy_bound)` for every chunk size: the
# same arithmetic, regrouped, rounded differently. What the regrouping buys is the order of
# the work. The recurrence makes {eval}`n_wy` updates, each a rank-1 change of the whole
# state that must wait for the one before. With chunks of {eval}`C_mid`, the
# sequential part is {eval}`mid_state_steps` state steps, each a few matrix products
# of {eval}`C_mid` rows, plus the {eval}`C_mid` rows of forward substitution,
# which every chunk does at once. The critical path is then {eval}`mid_state_steps` chunk
# steps and one substitution of {eval}`C_mid` rows, against {eval}`n_wy` rank-1 updates
# (steps of different sizes, so their counts are not to be summed as if alike). (Real kernels turn the substitution itself into a few small matrix products,
# inverting the triangular matrix in blocks, so that in practice the steps in order are
# closer to the number of chunks.) Chunks of one token give back the recurrence, and one chunk of all
# {eval}`n_wy` a triangular solve of {eval}`n_wy` rows. In between, most of the work is
# matrix products. Yang et al. write that the algorithms for training DeltaNet before theirs
# did not parallelize over the sequence length and so were slow on modern hardware; this form
# let them train a DeltaNet of 1.3 billion parameters on 100 billion tokens. With a decay, Gated DeltaNet's chunks carry the products of the
# $\alpha_t$ as well ([Yang, Kautz and Hatamizadeh, 2025](references.md));
# `ac.delta_rule_chunkwise` does not take one.
#
# ## Going further: Gated DeltaNet, a decay that forgets (게이트 델타넷)
#
# The delta rule replaces what a key points to, but never clears the rest of the state. Gated
# DeltaNet (게이트 델타넷) adds a decay (감쇠) $0 < \alpha_t < 1$, computed from each token like
# $\beta_t$, that shrinks the whole state before the write
# ([Yang, Kautz and Hatamizadeh, 2025](references.md)):
#
# $$
# S_t = \alpha_t\, S_{t-1}\big(I - \beta_t \mathbf k_t \mathbf k_t^\top\big)
#   + \beta_t\, \mathbf v_t \mathbf k_t^\top .
# $$ (eq-ch12-gated)
#
# With $\alpha_t = 1$ this is {eq}`eq-ch12-delta` rearranged. Near 1 the state keeps its
# associations for long; near 0 it starts afresh, as at the start of a new document. The
# decay comes from the token as Mamba-2's does ([Dao & Gu, 2024](references.md)):
#
# $$
# \begin{aligned}
# \alpha_t &= \exp\!\big(-e^{A_{\log}}\, \operatorname{softplus}(\mathbf x_t \mathbf w_\alpha + b_{dt})\big),
# \\ \operatorname{softplus}(z) &= \log(1 + e^{z}) > 0 ,
# \end{aligned}
# $$
#
# with a learned column $\mathbf w_\alpha$ and two learned numbers $A_{\log}$ and $b_{dt}$ for
# each head, `A_log` and `dt_bias` in Gated DeltaNet's reference code and in Qwen3-Next's
# (Mamba-2's decay rate is $A = -e^{A_{\log}}$, so the code stores its logarithm). The exponent is negative, so
# $0 < \alpha_t < 1$: a token with a very negative $\mathbf x_t \mathbf w_\alpha$ leaves the
# state almost whole, and one with a large positive one all but clears it. As it
# ships (Qwen3-Next, Hugging Face's and the `fla` library's kernels), Gated DeltaNet
# L2-normalises every query and key before the rule, which makes the keys unit as
# {eq}`eq-ch12-delta` assumes, and scales the query by $1/\sqrt{d_k}$: it outputs
# $\mathbf o_t = S_t \mathbf q_t / \sqrt{d_k}$. This chapter's $\mathbf o_t = S_t \mathbf q_t$
# leaves out that factor; a port of a checkpoint must not. One step
# by hand, token 3 again from $S_2$, with $\alpha = 0.9$:

# %%
alpha = 0.9
gated = alpha * S_before @ (np.eye(2) - beta * np.outer(k3, k3)) + beta * np.outer(v3, k3)
_, gated_lib = ac.delta_rule(Q[2:], K_unit[2:], V[2:], beta=[beta], decay=[alpha], state=S_before)
np.testing.assert_allclose(gated_lib, gated)
k_across = np.array([1.0, -1.0]) / np.sqrt(2)  # orthogonal to k3
gated_k3 = gated @ k3  # along k3
before_across, gated_across = S_before @ k_across, gated @ k_across  # across it
print("S_3 =", gated.round(3).tolist())
gated_k3, before_across, gated_across

# %% [markdown]
# $S_3$ has rows {eval}`vector(gated[0])` and {eval}`vector(gated[1])`. Along $\mathbf k_3$
# the factor $I - \mathbf k_3 \mathbf k_3^\top$ removes the old answer entirely, so the decay
# changes nothing there: the state returns {eval}`vector(gated_k3)`, $\mathbf v_3$. Across
# it, along $(1, -1)/\sqrt 2$, the old state returned {eval}`vector(before_across)` and
# the new one {eval}`vector(gated_across)`, $\alpha$ times as much: what no new key
# touches fades as $\alpha^t$. Qwen3-Next's linear layers are Gated DeltaNet.
#
# **A writing strength up to 2.** The shipped models of this chapter keep $0 < \beta_t < 1$,
# from a sigmoid. Grazzi et al. let $\beta_t$ reach 2, as $\beta_t = 2\sigma(\cdot)$: for
# $1 < \beta_t < 2$ the factor $I - \beta_t \mathbf k_t \mathbf k_t^\top$ that a write
# applies to the state in {eq}`eq-ch12-gated` has the eigenvalue $1 - \beta_t < 0$ along
# $\mathbf k_t$, a flip, and with such flips a single layer can track the parity of a bit
# string, which eigenvalues in $[0, 1]$ cannot ([Grazzi et al., 2025](references.md)).
#
# ## Going further: hybrids, one full-attention layer in four (하이브리드 모델)
#
# A state of fixed size has a fixed capacity, so at some $N$ every such memory fails. Neither
# fixed state tested in {eval}`figures.ref("fig-recall-delta")` recalled every pair: past $d_k$
# pairs the plain sum blurs every read (it recalled
# {eval}`percent(random_keys.accuracy["linear"][4], 0)` of 64 pairs with $d_v = 64$, a share
# that grows with $d_v$), and the delta rule with $\beta = 1$ keeps about the $d_k$ newest
# ({eval}`dec(delta_pairs[4], 0)` of 64). Softmax attention recalls every pair but pays with a
# cache. The models of 2025 take
# both: most layers linear, a few full-attention layers that keep the cache and can look up
# any token exactly. Qwen3-Next interleaves three Gated DeltaNet layers with one
# full-attention layer ([Qwen Team, 2025b](references.md)); Kimi Linear interleaves three
# layers of its Kimi Delta Attention, a gated delta rule with a decay per channel, with one
# layer of multi-head latent attention ([Kimi Team, 2025b](references.md)). Both are 3 : 1.
#
# For [Chapter 10](10_generation.ipynb)'s Llama-3-8B-like model, a 3 : 1 hybrid keeps 8 of its 32 layers as they
# are and gives the other 24 a state:

# %%
attention_layers = layers // 4  # one layer in four keeps its KV cache
linear_layers = layers - attention_layers
hybrid_kv_per_token_kib = ac.kv_cache_bytes(attention_layers, kv_heads, d_head, 1, 2) / 2**10
hybrid_state_bytes = ac.linear_state_bytes(linear_layers, heads, d_head, d_head, 2)
hybrid_state_mib = hybrid_state_bytes / MiB
hybrid_long_bytes = ac.kv_cache_bytes(attention_layers, kv_heads, d_head, n_long, 2)
hybrid_long_gib = (hybrid_long_bytes + hybrid_state_bytes) / GiB
hybrid_kv_per_token_kib, hybrid_state_mib, hybrid_long_gib

# %% [markdown]
# Per token it adds {eval}`plain(hybrid_kv_per_token_kib)` KiB against
# {eval}`plain(kv_per_token_kib)`, a quarter; its states take a fixed
# {eval}`plain(hybrid_state_mib)` MiB; at 128k tokens it holds
# {eval}`dec(hybrid_long_gib, 2)` GiB against the all-attention model's
# {eval}`plain(kv_long_gib)`. The cache still grows with $n$, four times slower. Qwen3-Next-80B's
# published configuration goes further: of its 48 layers, the 12 full-attention ones have 2
# key-value heads of 256, and the 36 Gated DeltaNet layers 32 value heads, each with a
# $128 \times 128$ state:

# %%
qwen_kv_per_token_kib = ac.kv_cache_bytes(12, 2, 256, 1, 2) / 2**10  # 12 attention layers
qwen_state_mib = ac.linear_state_bytes(36, 32, 128, 128, 2) / MiB  # 36 Gated DeltaNet layers
qwen_long_gib = ac.kv_cache_bytes(12, 2, 256, n_long, 2) / GiB + qwen_state_mib / 2**10
qwen_state_fp32_mib = ac.linear_state_bytes(36, 32, 128, 128, 4) / MiB  # in float32
qwen_long_fp32_gib = qwen_long_gib + (qwen_state_fp32_mib - qwen_state_mib) / 2**10
qwen_state_fp32_share = qwen_state_fp32_mib / 2**10 / qwen_long_fp32_gib  # of cache + states
qwen_kv_per_token_kib, qwen_state_mib, qwen_long_gib

# %% [markdown]
# {eval}`plain(qwen_kv_per_token_kib)` KiB a token, {eval}`plain(qwen_state_mib)` MiB of
# state in 16 bits, and {eval}`dec(qwen_long_gib, 2)` GiB at 128k tokens, for a model with ten times the
# Llama-3-8B-like one's parameters: 80 billion, of which 3 billion are used for each token (a
# mixture of experts). The states are priced here, and in the figure below, in the cache's 16
# bits; the stacks that serve these models recommend float32 for them. Since its pull request
# #34489 (early 2026; the default has changed between versions), vLLM keeps Qwen3-Next's
# states in the model's dtype unless it is served with `--mamba-ssm-cache-dtype float32`, the
# setting vLLM recommends; SGLang's `--mamba-ssm-dtype` is float32 by default, and Qwen3.5's published
# configuration sets `mamba_ssm_dtype` to float32. A state
# adds every token's write to the same numbers, so a rounding error stays in it and the next
# ones pile on, where a cache stores each token's key once. In float32 Qwen3-Next's states
# take {eval}`plain(qwen_state_fp32_mib)` MiB, only about
# {eval}`percent(qwen_state_fp32_share, 0)` of its cache and states at 128k
# tokens. (The Gated DeltaNet layers also keep the last few tokens of their
# query, key and value channels for a short convolution: a fixed cache of tens of KiB a layer,
# not counted here.)
#
# The calculator of [Chapter 10](10_generation.ipynb), with a hybrid's layers: the full
# layers' KV cache (blue) and the linear layers' states (orange) against the same model with
# every layer full attention (green), for Qwen3-Next-80B or Chapter 10's Llama-3-8B-like model
# made 3 : 1. Slide $n$ and watch the states stay put while the caches grow; the totals at
# 32k, 128k and 1M tokens are printed under the bars.

# %%
hybrid_calculator = MemoryCalculator(
    preset="Qwen3-Next-80B", presets=["Qwen3-Next-80B", "Llama-3-8B-like, 3:1 hybrid"], n=n_long
)
figures.show(
    hybrid_calculator,
    "fig-hybrid-memory",
    "A 3 : 1 hybrid's memory against the all-attention model's KV cache: its "
    "full-attention layers' KV cache grows with n, its linear layers' "
    "states (layers × state heads × $d_k$ × $d_v$ × bytes) do not. Log axis; "
    "dashed: a laptop's and a GPU's memory.",
)

# %% [markdown]
# **Mamba-2, the same family.** State-space models (상태 공간 모델) reached the same place from
# the other side. Mamba-2's layer keeps a state $H_t = a_t H_{t-1} + \mathbf x_t
# \mathbf b_t^\top$ and outputs $H_t \mathbf c_t$, with a scalar decay $a_t$ per head and step
# computed from the token ($\mathbf b_t$ here includes the step size $\Delta_t$ that Mamba-2
# multiplies its input by, $\bar B_t = \Delta_t B_t$); Dao and Gu showed that this is linear attention with $\mathbf c$ as
# the query, $\mathbf b$ as the key, $\mathbf x$ as the value, no normaliser and a scalar
# decay, and that the same outputs come from a masked, attention-like $n \times n$ form, whose
# mask holds the products of the decays. They called it state-space duality (상태 공간 쌍대성)
# ([Dao & Gu, 2024](references.md)). In the terms of this chapter: {eq}`eq-ch12-gated` without
# the correction, $S_t = \alpha_t S_{t-1} + \mathbf v_t \mathbf k_t^\top$. We do not build it.
#
# ## Going further: the family in one table (선형 RNN 계열)
#
# Linear attention, the delta rule, Gated DeltaNet, Mamba-2 and Kimi Linear's KDA are members
# of one family of linear recurrent networks (선형 RNN), with others beside them. Each keeps a
# $d_v \times d_k$ state, as throughout this chapter ($S_t$ values by keys, read as
# $\mathbf o_t = S_t \mathbf q_t$), and the members differ in two choices: how the old state
# fades (no decay, a fixed one, a scalar computed from the token, or one per key channel), and
# whether a write corrects what the state returns for its key or only adds. The table leaves
# out what each model does around the recurrence: its feature map or normalisation of queries
# and keys, the query's scale, a normaliser, an output gate, and RetNet's rotation of queries
# and keys by position.
#
# | model | state update $S_t =$ | decay | correction |
# |---|---|---|---|
# | linear attention ([Katharopoulos et al., 2020](references.md)) | $S_{t-1} + \mathbf v_t \phi(\mathbf k_t)^\top$ | none | none |
# | RetNet ([Sun et al., 2023](references.md)) | $\gamma\, S_{t-1} + \mathbf v_t \mathbf k_t^\top$ | a scalar $\gamma$, fixed for each head | none |
# | Mamba-2 ([Dao & Gu, 2024](references.md)) | $\alpha_t S_{t-1} + \mathbf v_t \mathbf k_t^\top$ | a scalar $\alpha_t$ per head, from the token | none |
# | GLA ([Yang et al., 2024a](references.md)) | $S_{t-1} \operatorname{Diag}(\boldsymbol\alpha_t) + \mathbf v_t \mathbf k_t^\top$ | one per key channel, $\boldsymbol\alpha_t \in (0, 1)^{d_k}$, from the token | none |
# | DeltaNet ([Schlag et al., 2021](references.md); [Yang et al., 2024b](references.md)) | $S_{t-1}(I - \beta_t \mathbf k_t \mathbf k_t^\top) + \beta_t \mathbf v_t \mathbf k_t^\top$ | none | a scalar $\beta_t$ |
# | Gated DeltaNet ([Yang, Kautz and Hatamizadeh, 2025](references.md)) | $\alpha_t S_{t-1}(I - \beta_t \mathbf k_t \mathbf k_t^\top) + \beta_t \mathbf v_t \mathbf k_t^\top$ | a scalar $\alpha_t$ per head, from the token | a scalar $\beta_t$ |
# | KDA, Kimi Linear ([Kimi Team, 2025b](references.md)) | $S_{t-1} \operatorname{Diag}(\boldsymbol\alpha_t)(I - \beta_t \mathbf k_t \mathbf k_t^\top) + \beta_t \mathbf v_t \mathbf k_t^\top$ | one per key channel, $\boldsymbol\alpha_t$, from the token | a scalar $\beta_t$ |
# | RWKV-7 ([Peng et al., 2025](references.md)) | $S_{t-1}\big(\operatorname{Diag}(\mathbf w_t) - \hat{\boldsymbol\kappa}_t (\mathbf a_t \odot \hat{\boldsymbol\kappa}_t)^\top\big) + \mathbf v_t \tilde{\mathbf k}_t^\top$ | one per key channel, $\mathbf w_t$, from the token | a rate per key channel, $\mathbf a_t$, along a unit removal key $\hat{\boldsymbol\kappa}_t$; the key written, $\tilde{\mathbf k}_t$, is another |
#
# The upper rows only add, each with a finer decay than the row above; the lower rows correct,
# and are the delta rule with the same decays added. Gated DeltaNet is Mamba-2's decay on
# DeltaNet's write, as the title of its paper says, and KDA is GLA's decay on it. RWKV-7
# generalises the correction furthest: the rate is a vector, and the key it erases along is
# not the key it writes. Of these rows, `ac.delta_rule` computes DeltaNet's and, with
# `decay`, Gated DeltaNet's.
#
# ## Going further: sparse attention, read only the keys that matter (희소 어텐션)
#
# This section leaves linear attention: the scores are still softmax's, over fewer keys, and
# nothing in the sections above is needed for it. The other way out keeps softmax attention
# and every key in the cache, but lets each query read only $k$ of them ($k$ here a count, the
# top-$k$ kept, not a key: keys are bold, $\mathbf k_s$). DeepSeek Sparse Attention, in DeepSeek-V3.2, chooses them with a small
# scorer, the lightning indexer (라이트닝 인덱서), which rates every earlier key $s$ for query
# $t$ with many heads $j$ that share one small key a token ([DeepSeek-AI, 2025](references.md)):
#
# $$
# I_{t,s} = \sum_j w_{t,j}\, \mathrm{ReLU}\big(\mathbf q_{t,j} \cdot \mathbf k_s\big),
# $$ (eq-ch12-indexer)
#
# then keeps each query's top $k$ (상위 k 선택; 2,048 in DeepSeek-V3.2), and runs attention over those
# alone. By hand on six tokens, an indexer of two heads of width 2, and $k = 3$. Here tokens
# and keys are numbered from 0, as the code indexes them (the recurrence above counted its
# tokens from 1, as its equations do):

# %%
index_keys = np.array(
    [[1.0, 0.0], [-1.0, 0.0], [1.0, 1.0], [0.0, -1.0], [0.0, 1.0], [0.5, -1.0]]
)  # [6, 2]: one indexer key a token
index_queries = np.tile([[1.0, 0.0], [0.0, 1.0]], (6, 1, 1))  # [6, 2 heads, 2]
head_weights = np.tile([1.0, 0.6], (6, 1))  # [6, 2]: w_{t,j}
index_scores = ac.lightning_index_scores(index_queries, index_keys, head_weights)  # [6, 6]
keep = ac.top_k_mask(index_scores, 3)  # causal: each query's 3 best of the keys it may see
index_scores[-1], keep.astype(int)

# %% [markdown]
# The last token's first head scores $\mathrm{ReLU}(\mathbf k_s \cdot (1, 0))$, the first
# component of each key clipped at 0, and its second head, weighted 0.6, the second component:
# $I_{5,s} =$ {eval}`plain(index_scores[-1])`. Its three best are keys 2, 0 and 4
# ({eval}`plain(index_scores[-1][2])`, {eval}`plain(index_scores[-1][0])`,
# {eval}`plain(index_scores[-1][4])`), and the mask's last row keeps them. The first three
# tokens see three keys or fewer and keep them all. Token 3 sees keys 0 to 3, scored
# {eval}`plain(index_scores[3][:4])`: keys 1 and 3 tie for its third place, and `top_k_mask`
# gives a tie to the earlier key, key 1 (a stable sort). Attention then runs with this mask;
# with the identity as values, its output is the weights themselves:

# %%
attn_queries = index_keys  # in this toy each token's attention query is its own key
sparse_weights = ac.scaled_dot_product_attention(
    attn_queries, index_keys, np.eye(6), attn_mask=keep
)  # [6, 6]: values the identity, so the output rows are the weights
sparse_weights[-1].round(3)

# %% [markdown]
# The last token's weights, {eval}`dec(sparse_weights[-1])`, fall on keys 0, 2 and 4 only.
# Are those the keys that matter? Dense attention, the same queries over every key the causal
# mask allows:

# %%
dense_weights = ac.scaled_dot_product_attention(
    attn_queries, index_keys, np.eye(6), is_causal=True
)  # [6, 6]: every earlier key, no selection
kept_share = dense_weights[-1][keep[-1]].sum()  # the dense weight on the keys kept
dense_weights[-1].round(3), round(float(kept_share), 3)

# %% [markdown]
# Reading all six keys, the last token would put {eval}`dec(dense_weights[-1][5])` on key 5,
# its own, {eval}`dec(dense_weights[-1][3])` on key 3 and {eval}`dec(dense_weights[-1][0])` on
# key 0. The indexer kept keys 0, 2 and 4, which hold only {eval}`dec(kept_share)` of that
# weight: it left out the two keys attention wants most. Nothing here ties the indexer to the
# attention it serves: its two heads, chosen by hand, rate every token's keys alike. An
# indexer that is not trained for it need not agree with attention. DeepSeek-V3.2 trains its
# indexer to agree: first with dense attention and the rest of the model frozen, it fits the
# softmax of each query's scores $I_{t,:}$ to the attention weights summed over the heads and
# normalised, by a Kullback–Leibler (KL) divergence loss, $\sum_s p_s \log(p_s / q_s)$ for
# the attention's distribution $p$ and the indexer's $q$, which is 0 only when the two agree;
# then, with the selection switched on, to those weights on the selected keys alone
# ([DeepSeek-AI, 2025](references.md), the report on V3.2-Exp, whose attention V3.2 kept).
#
# What does it save? A decode step at 128k tokens of DeepSeek-V3.2 itself, from its published
# configuration: 128 heads whose attention is [Chapter 11](11_modern_attention.ipynb)'s
# multi-head latent attention, and an indexer of $H_I = 64$ heads of width $d_I = 128$. A
# decoding step runs MLA absorbed, so every head scores the same cached key, the latent and
# the RoPE key, $d_c + d_h^R = 512 + 64$ numbers a token, and sums the same latents, $d_c$
# numbers, as values. V3.2's sparse decoding keeps that cache in FP8 (an 8-bit float, 1 byte),
# as DeepSeek's FlashMLA kernels store it ([Li, 2025](references.md)): the 512 latent numbers
# in FP8 with one float32 scale for each 128 of them, and the 64 RoPE numbers in bfloat16:

# %%
v32_heads, d_latent, d_rope = 128, 512, 64  # DeepSeek-V3.2: kv_lora_rank, qk_rope_head_dim
v32_top_k, index_heads, index_dim = 2048, 64, 128  # index_topk, index_n_heads, index_head_dim
sparse = ac.sparse_attention_cost(
    1,
    v32_heads,
    1,
    n_long,
    d_latent + d_rope,
    v32_top_k,
    index_heads=index_heads,
    index_dim=index_dim,
    d_v=d_latent,
)  # absorbed MLA: scores over d_c + d_h^R, values of d_c, for each of the 128 heads
attention_saving = sparse.dense.matmul_flops / sparse.sparse.matmul_flops
entry_width = d_latent + d_rope  # numbers cached a token: the latent and the RoPE key
entry_bytes = d_latent * 1 + (d_latent // 128) * 4 + d_rope * 2  # one token, FlashMLA's FP8 layout
dense_read_mib = n_long * entry_bytes / MiB  # dense attention reads every token's entry
sparse_read_mib = v32_top_k * entry_bytes / MiB  # sparse attention, the 2,048 selected
index_entry_bytes = index_dim * 1 + 4  # the indexer's key: 128 FP8 numbers, one float32 scale
index_mib = n_long * index_entry_bytes / MiB  # the indexer reads every token's key
step_read_saving = dense_read_mib / (sparse_read_mib + index_mib)
index_read_share = index_mib / (sparse_read_mib + index_mib)
index_over_attention = sparse.index_flops / sparse.sparse.matmul_flops
index_gflops, sparse_gflops, dense_gflops = (
    f / 1e9 for f in (sparse.index_flops, sparse.sparse.matmul_flops, sparse.dense.matmul_flops)
)
(
    round(attention_saving, 1),
    round(float(sparse.flops_ratio), 2),
    round(step_read_saving, 2),
    round(index_read_share, 3),
)

# %% [markdown]
# Attention itself needs {eval}`plain(attention_saving)` times fewer FLOPs, $n / k$, and reads
# as many times fewer bytes, {eval}`dec(sparse_read_mib, 2)` MiB of the cache against
# {eval}`plain(dense_read_mib)`. The indexer is what that costs. It rates all
# {eval}`grouped(n_long)` keys with its $H_I$ heads of width $d_I$, $2\,n\,H_I d_I$ FLOPs:
# {eval}`dec(index_gflops, 2)` GFLOPs a step, {eval}`dec(index_over_attention, 2)` times the
# {eval}`dec(sparse_gflops, 2)` of the sparse attention it feeds, so the step needs
# {eval}`dec(sparse.flops_ratio, 1)` times fewer FLOPs than dense attention's
# {eval}`dec(dense_gflops, 1)`, not {eval}`plain(attention_saving)`. And it reads its own key of
# every token, 128 numbers in FP8 with one float32 scale,
# {eval}`dec(index_mib, 1)` MiB at 128k tokens, beside the {eval}`dec(sparse_read_mib, 2)` MiB
# of the 2,048 entries attention reads: a step reads {eval}`dec(step_read_saving, 1)` times
# fewer bytes in all, not {eval}`plain(attention_saving)`, and
# {eval}`percent(index_read_share, 0)` of them are the indexer's. MLA has already made the key of
# a token narrow, {eval}`plain(entry_width)` numbers shared by every head, so the
# indexer's {eval}`index_entry_bytes` bytes a token are no longer small beside MLA's
# {eval}`grouped(entry_bytes)`. The indexer's share grows like $n$ per token, as dense
# attention does; it stays affordable because its key is one vector a token,
# shared by all its heads, and runs in FP8. And the cache is not smaller (it even gains the
# indexer's keys): a key that no query picks today may be picked by the next, so every key
# stays stored. Native Sparse Attention
# ([Yuan et al., 2025](references.md)) selects blocks of keys rather than single keys: each
# query reads compressed summaries of all blocks, the blocks those summaries rate highest, and a
# sliding window, mixed by learned gates, trained sparse from the start.
#
# ## From the table to the state
#
# The book began with one query and three keys, and a table of scores. [Chapter 9](09_cost.ipynb)
# found that the table is $n \times n$ and learned to compute it tile by tile without ever
# holding it; the FLOPs stayed $O(n^2 d)$. [Chapter 10](10_generation.ipynb) found that
# generation holds something else, the keys and values of every past token, which grows with
# $n$ and is read whole at every step. This chapter changed the score itself: with
# $\phi(\mathbf q)\cdot\phi(\mathbf k)$ in place of $e^{\mathbf q \cdot \mathbf k}$, the past
# folds into a state of $d_v \times d_k$ numbers, and a token costs the same at position 10 or
# at position a million. The algebra said what that costs: the state holds at most $d_k$
# associations without crosstalk. The measurement showed how the reads blur past that. How
# many pairs a blurred state still picks out depends on the test: the plain sum's count grew
# with the value width ({eval}`dec(width_plain_pairs[0], 0)`,
# {eval}`dec(width_plain_pairs[1], 0)` and
# {eval}`dec(width_plain_pairs[2], 0)` of 128 pairs at
# $d_v =$ {eval}`value_widths[0]`, {eval}`value_widths[1]` and {eval}`value_widths[2]`), while
# the delta rule with $\beta = 1$ kept about $d_k$, the newest, at every width. A state of
# fixed size has a fixed capacity, so at some length every such memory fails. The delta rule
# lets the state overwrite a pair, and the models that ship it keep a quarter of their layers as full
# attention to look up exactly what the state cannot hold. Sparse attention
# takes the opposite trade, all keys kept and a few read.
#
# ## Summary
#
# - With $\mathrm{sim}(\mathbf q, \mathbf k) = \phi(\mathbf q) \cdot \phi(\mathbf k)$
#   ($\phi = \mathrm{elu} + 1$), the output regroups as $S\,\phi(\mathbf q) /
#   \mathbf z^\top \phi(\mathbf q)$, with a $d_v \times d_k$ state $S$
#   ({eq}`eq-ch12-regrouped`); for the worked example the
#   weights are {eval}`dec(linear_weights)` and the output {eval}`vector(linear_out)`.
# - The causal pass is a recurrence ({eq}`eq-ch12-recurrence`): $S_t = S_{t-1} +
#   \mathbf v_t\phi(\mathbf k_t)^\top$, $\mathbf z_t = \mathbf z_{t-1} + \phi(\mathbf k_t)$; by
#   hand its three outputs are those of the masked parallel form.
# - Its cost is $4\,n\,d_k d_v$ FLOPs against a causal softmax pass's $2\,n(n+1)\,d$ (fewer
#   from $n = 2d$ on), and its state is fixed:
#   {eval}`plain(state_mib)` MiB for the Llama-3-8B-like shape (float16) against a KV cache of
#   {eval}`plain(kv_long_gib)` GiB at 128k tokens.
# - The state holds at most $d_k$ associations without crosstalk ({eq}`eq-ch12-crosstalk`),
#   and a state of fixed size fails at some $N$. With $d_k = 16$, $d_v = 64$ and the factor 16
#   of the recall set-up, the plain sum degraded gradually, recalling
#   {eval}`percent(forgetting.accuracy["linear"][2], 0)` of 16 pairs and
#   {eval}`percent(forgetting.accuracy["linear"][5], 0)` of 128; elu + 1 recalled fewer;
#   softmax attention kept all.
# - The delta rule ({eq}`eq-ch12-delta`) is a gradient step on $\tfrac12\lVert S\mathbf k -
#   \mathbf v\rVert^2$: it overwrites, but keeps about $d_k$ pairs. In this training-free
#   test, with $\beta = 1$ and random keys written once, it recalled fewer pairs than the plain
#   sum (trained on MQAR, DeltaNet recalls more than the other linear-time models it is
#   compared with). With every key rewritten it replaced the stale values and recalled about as
#   many pairs as without rewrites ({eval}`percent(rewrites.accuracy["delta"][0], 0)` of 4,
#   {eval}`percent(rewrites.accuracy["delta"][2], 0)` of 16), where softmax and the plain sum
#   averaged old and new; past 32 pairs, keeping only about $d_k$ of them put it below
#   softmax's coin flip ({eval}`percent(rewrites.accuracy["delta"][4], 0)` against
#   {eval}`percent(rewrites.accuracy["softmax"][4], 0)` at 64).
# - *Going further.* By write position the delta rule keeps the newest pairs and loses the
#   oldest, where the plain sum blurs all alike. The plain sum's count of pairs grows with
#   $d_v$ ({eval}`percent(by_width[16].accuracy["linear"][2], 0)` of 128 at $d_v = d_k$,
#   {eval}`percent(by_width[256].accuracy["linear"][2], 0)` at $d_v =$
#   {eval}`value_widths[2]`); with $d_v = d_k$ its lead over the delta rule narrows as $N$
#   grows and is gone at 128 pairs, and the delta rule keeps of the order of $d_k$ at every $d_v$ tried.
# - *Going further.* Dropping elu + 1's $+1$ recovers part of the plain sum's recall, and
#   subtracting the mean feature nearly all of it; both also make the features signed, so the test does not separate
#   positivity from the shared component.
# - *Going further.* On orthonormal keys the delta rule recalls every pair, rewritten or not; a
#   smaller β moves it towards the plain sum, more pairs kept and fewer replaced, but it becomes
#   the plain sum only when $\beta N / d_k \ll 1$.
# - *Going further.* The delta rule trains chunk by chunk: one triangular solve gives a
#   chunk's corrections ({eq}`eq-ch12-wy`), and the chunk of tokens 2 and 3, by hand, ends on
#   the token-by-token $S_3$. Gated DeltaNet ({eq}`eq-ch12-gated`) adds a decay $\alpha_t$
#   that forgets.
# - *Going further.* Hybrids keep one full-attention layer in four (Qwen3-Next, Kimi Linear): a quarter of the
#   cache per token, plus a fixed state. Mamba-2 is a linear attention with a scalar decay.
# - *Going further.* Sparse attention keeps every key but reads $k$ of them, chosen by a cheap indexer
#   ({eq}`eq-ch12-indexer`): attention's FLOPs and reads shrink by $n / k$, the cache does
#   not, and the indexer still rates all $n$ keys. For DeepSeek-V3.2 at 128k tokens a decode
#   step needs {eval}`dec(sparse.flops_ratio, 1)` times fewer FLOPs and reads
#   {eval}`dec(step_read_saving, 1)` times fewer bytes, most of them the indexer's.
#
# ## Exercises
#
# Each exercise checks your answer on the spot: run the cell and read the one-line verdict.
# The hints and solutions are folded away until you ask for them. The last three go with the
# *Going further* sections: Gated DeltaNet, hybrids and sparse attention.
#
# ```{exercise} The feature map by hand
# :label: ex-ch12-phi
#
# Compute $\phi(\mathbf x) = \mathrm{elu}(\mathbf x) + 1$ of the vector printed below,
# component by component, to three decimals.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# $\mathrm{elu}(x) = x$ for $x > 0$ and $e^x - 1$ otherwise. $e^{-1} \approx 0.368$.
# ```

# %%
(x_phi,) = ch12.phi_by_hand.inputs
print("x =", x_phi)
answer = ...  # four numbers
ch12.phi_by_hand.check(answer)

# %% [markdown]
# ````{solution} ex-ch12-phi
# :class: dropdown
#
# The positive entries become $x + 1$; the others $e^x$, small but positive, so that no
# similarity $\phi(\mathbf q) \cdot \phi(\mathbf k)$ can be negative or cancel another. At 0
# both branches give 1 with slope 1, so the map has no kink there; $\mathrm{ReLU}(x) + 1$,
# also positive, would have a kink at 0 and no gradient for a negative $x$.
#
# ```python
# answer = [0.5 + 1, np.exp(-1.0), np.exp(0.0), 2 + 1]
# ch12.phi_by_hand.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} The state after two tokens
# :label: ex-ch12-state
#
# Two tokens have the keys and values printed below. Starting from $S_0 = 0$, run
# {eq}`eq-ch12-recurrence` by hand and give $S_2$ as a list of its two rows.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# $S$ is $d_v \times d_k$: $\mathbf v_t$ runs down the rows, $\phi(\mathbf k_t)$ along the
# columns. Column $j$ of $\mathbf v_t\,\phi(\mathbf k_t)^\top$ is $\phi(\mathbf k_t)_j\,
# \mathbf v_t$.
# ```

# %%
keys_two, values_two = ch12.state_two_tokens.inputs
print("keys:", keys_two.tolist(), "  values:", values_two.tolist())
answer = ...  # [[S11, S12], [S21, S22]]
ch12.state_two_tokens.check(answer)

# %% [markdown]
# ````{solution} ex-ch12-state
# :class: dropdown
#
# $\phi(1, 0) = (2, 1)$ and $\phi(0, 2) = (1, 3)$. The first token adds
# $(1, 2)\,(2, 1)^\top$, rows $(2, 1)$ and $(4, 2)$; the second $(3, 0)\,(1, 3)^\top$, rows
# $(3, 9)$ and $(0, 0)$. Their sum is $S_2$. Written the other way round,
# $\phi(\mathbf k_t)\,\mathbf v_t^\top$, it would be $S_2^\top$: a query could no longer read
# it as $S\,\phi(\mathbf q)$.
#
# ```python
# phi_k1, phi_k2 = np.array([2.0, 1.0]), np.array([1.0, 3.0])  # elu + 1 of each key
# answer = np.outer(values_two[0], phi_k1) + np.outer(values_two[1], phi_k2)
# ch12.state_two_tokens.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} A query reads the state
# :label: ex-ch12-read
#
# A query $\mathbf q = (0, 1)$ reads the state $S_2$ and $\mathbf z_2$ of the two tokens of
# the previous exercise. Give its output $\mathbf o$ of {eq}`eq-ch12-regrouped`, two numbers
# to three decimals.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Two products and a division: $S_2\,\phi(\mathbf q)$, then
# $\mathbf z_2 \cdot \phi(\mathbf q)$ with $\mathbf z_2 = \phi(\mathbf k_1) + \phi(\mathbf k_2)$.
# ```

# %%
q_read = ch12.read_the_state.inputs[0]
print("q =", q_read)
answer = ...  # two numbers
ch12.read_the_state.check(answer)

# %% [markdown]
# ````{solution} ex-ch12-read
# :class: dropdown
#
# $\phi(0, 1) = (1, 2)$, so $S_2\,\phi(\mathbf q) = 1 \cdot (5, 4) + 2 \cdot (10, 2) =
# (25, 8)$, from the columns of $S_2$. The normaliser: $\mathbf z_2 = (2, 1) + (1, 3) = (3, 4)$ and
# $\phi(\mathbf q) \cdot \mathbf z_2 = 3 + 8 = 11$. So $\mathbf o = (25, 8) / 11$: the
# weights $(1 \cdot 2 + 2 \cdot 1) / 11$ and $(1 \cdot 1 + 2 \cdot 3) / 11$ on the values
# $(1, 2)$ and $(3, 0)$, summing to 1.
#
# ```python
# phi_q_read = np.array([1.0, 2.0])
# S_two = np.array([[5.0, 10.0], [4.0, 2.0]])  # d_v × d_k
# z_two = np.array([3.0, 4.0])
# answer = (S_two @ phi_q_read) / (z_two @ phi_q_read)
# ch12.read_the_state.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Prove, then compute: a chunk at a time
# :label: ex-ch12-chunk
#
# Linear attention is usually trained neither token by token nor with the whole $n \times n$
# table, but in its chunkwise form (청크 단위 형식): the state carried from the tokens before a chunk,
# and the masked parallel form inside it. Prove that for a token $t$ of a chunk that starts at token $c$,
#
# $$
# \mathbf o_t = \frac{S_{c-1}\, \phi(\mathbf q_t)
#   + \sum_{s=c}^{t} \big(\phi(\mathbf k_s) \cdot \phi(\mathbf q_t)\big)\, \mathbf v_s}
#   {\mathbf z_{c-1}^\top \phi(\mathbf q_t)
#   + \sum_{s=c}^{t} \phi(\mathbf k_s) \cdot \phi(\mathbf q_t)}
# $$
#
# is the output of the recurrence {eq}`eq-ch12-recurrence`, whatever the chunk's length
# (chunks of one token are the recurrence, a single chunk the masked parallel form). Then
# compute it: the three tokens of the chapter's recurrence are done, and the chunk of the
# next two tokens, printed below, follows. Give both outputs, $[\mathbf o_4, \mathbf o_5]$,
# to three decimals.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Unroll {eq}`eq-ch12-recurrence` from $S_{c-1}$ to $S_t$. The chapter's table gives $S_3$
# and $\mathbf z_3$; $\phi(0, 0) = (1, 1)$.
# ```

# %%
Q_chunk, K_chunk, V_chunk = ch12.chunk_outputs.inputs  # five tokens; the chunk is the last two
print("queries:", Q_chunk[3:].tolist(), " keys:", K_chunk[3:].tolist())
print("values:", V_chunk[3:].tolist())
answer = ...  # [[o_4], [o_5]], two rows of two numbers
ch12.chunk_outputs.check(answer)

# %% [markdown]
# ````{solution} ex-ch12-chunk
# :class: dropdown
#
# **Proof.** Applied $t - c + 1$ times, {eq}`eq-ch12-recurrence` gives
# $S_t = S_{c-1} + \sum_{s=c}^{t} \mathbf v_s\,\phi(\mathbf k_s)^\top$ and
# $\mathbf z_t = \mathbf z_{c-1} + \sum_{s=c}^{t} \phi(\mathbf k_s)$ (by induction on $t$:
# each step adds the next term). Put them in $\mathbf o_t = S_t\,\phi(\mathbf q_t) /
# \mathbf z_t^\top \phi(\mathbf q_t)$ and multiply out: $\mathbf v_s\,\phi(\mathbf k_s)^\top
# \phi(\mathbf q_t) = (\phi(\mathbf k_s) \cdot \phi(\mathbf q_t))\, \mathbf v_s$, term by
# term. The sums over $s = c, \dots, t$ are row $t$ of the chunk's
# table $\phi(Q)\phi(K)^\top$ with its causal mask; nothing depended on where the chunk
# starts or how long it is. A chunk of $C$ tokens costs a $C \times C$ table and two products
# with the $d_v \times d_k$ state: matrix products a GPU runs well, and $n / C$ steps in
# sequence instead of $n$.
#
# **Numbers.** $S_3$ has the columns {eval}`vector(S_final[:, 0])` and {eval}`vector(S_final[:, 1])`,
# $\mathbf z_3 =$ {eval}`vector(z_final)`. Token 4: $\phi(\mathbf q_4) = (2, 1)$ reads
# $(16, 14)$ over $15$ from the state and, from its own key $\phi(0, 0) = (1, 1)$, a weight
# 3 on $(3, 0)$: $(25, 14) / 18 = (1.389, 0.778)$. Token 5: $\phi(\mathbf q_5) = (1, 2)$ reads
# $(14, 16)$ over 15 from the state, weight 3 on $(3, 0)$ and 6 on $(0, 3)$ from the chunk:
# $(23, 34) / 24 = (0.958, 1.417)$.
#
# ```python
# fq, fk = phi(Q_chunk[3:]), phi(K_chunk[3:])  # [2, 2] each
# table = np.tril(fq @ fk.T)  # the chunk's masked table φ(q_t)·φ(k_s), s <= t
# numerator = fq @ S_final.T + table @ V_chunk[3:]  # rows S φ(q_t): the state + the chunk
# denominator = fq @ z_final + table.sum(axis=1)  # [2]
# answer = numerator / denominator[:, None]
# ch12.chunk_outputs.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} One delta-rule step by hand
# :label: ex-ch12-delta-step
#
# A state $S$ ($d_v \times d_k$), a unit key, a value and a writing strength β are printed
# below. Give $S$ after one step of {eq}`eq-ch12-delta`, as a list of its two rows, to three
# decimals.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# First what the state returns for the key, $S\mathbf k$; then the delta
# $\mathbf v - S\mathbf k$; then $\beta\,\boldsymbol\delta\,\mathbf k^\top$, a
# $d_v \times d_k$ matrix like $S$.
# ```

# %%
S_step, k_step, v_step, beta_step = ch12.delta_step.inputs
print("S =", S_step.tolist(), " k =", k_step, " v =", v_step, " β =", beta_step)
answer = ...  # [[row 1], [row 2]]
ch12.delta_step.check(answer)

# %% [markdown]
# ````{solution} ex-ch12-delta-step
# :class: dropdown
#
# $S\mathbf k = (1 \cdot 0.6 + 0 \cdot 0.8,\; 2 \cdot 0.6 + 1 \cdot 0.8) = (0.6, 2)$, so the
# delta is $(1, 1) - (0.6, 2) = (0.4, -1)$, and $\beta\,\boldsymbol\delta\,\mathbf k^\top$
# has rows $0.5 \cdot 0.4 \cdot (0.6, 0.8) = (0.12, 0.16)$ and
# $0.5 \cdot (-1) \cdot (0.6, 0.8) = (-0.3, -0.4)$. After the step the state returns
# $S\mathbf k + \beta\boldsymbol\delta = (0.8, 1.5)$ for the key: with a unit key, β = 0.5
# closes half the gap to $\mathbf v$.
#
# ```python
# delta_ex = v_step - S_step @ k_step  # v − S k
# answer = S_step + beta_step * np.outer(delta_ex, k_step)  # + β δ kᵀ
# ch12.delta_step.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Write the gated delta rule
# :label: ex-ch12-gated-delta
#
# Write `gated_delta(q, k, v, beta, decay)` with plain NumPy (not `ac.delta_rule`): the
# outputs $\mathbf o_t = S_t \mathbf q_t$ of {eq}`eq-ch12-gated` from $S_0 = 0$, for queries,
# unit keys and values of shapes $(\dots, T, d_k)$, $(\dots, T, d_k)$ and $(\dots, T, d_v)$
# and a β and an α per token, of shape $(\dots, T)$; it returns $(\dots, T, d_v)$. The check runs
# it on the chapter's three keys, on random keys with β and α per token, on keys written
# twice, with β = 0, and on two heads at once.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Keep $S$ of shape $(\dots, d_v, d_k)$. Per token: decay first, $S \leftarrow \alpha_t S$;
# then read $S\mathbf k_t$ as `(S @ k_t[..., None])[..., 0]`, and write the outer product as
# `d[..., :, None] * k_t[..., None, :]`; `beta[..., t, None, None]` broadcasts over $S$.
# ```


# %%
def gated_delta(q, k, v, beta, decay): ...  # your code here


ch12.gated_delta.check(gated_delta)

# %% [markdown]
# ````{solution} ex-ch12-gated-delta
# :class: dropdown
#
# The equation's $\alpha_t S_{t-1}(I - \beta_t \mathbf k_t \mathbf k_t^\top)$ is the decayed
# state minus β times what it returns for the key, so the loop decays first and corrects the
# decayed state, then writes, then reads. The chapter's one-step cell used `np.outer`, which
# flattens a batch of heads; the broadcasting products keep them apart.
#
# ```python
# def gated_delta(q, k, v, beta, decay):
#     S = np.zeros((*q.shape[:-2], v.shape[-1], k.shape[-1]))  # [..., d_v, d_k]
#     out = np.zeros((*q.shape[:-1], v.shape[-1]))  # [..., T, d_v]
#     for t in range(q.shape[-2]):
#         k_t, v_t, q_t = k[..., t, :], v[..., t, :], q[..., t, :]
#         S = decay[..., t, None, None] * S  # α S
#         d = v_t - (S @ k_t[..., None])[..., 0]  # v − (α S) k
#         S = S + beta[..., t, None, None] * d[..., :, None] * k_t[..., None, :]  # + β δ kᵀ
#         out[..., t, :] = (S @ q_t[..., None])[..., 0]  # o_t = S_t q_t
#     return out
#
#
# ch12.gated_delta.check(gated_delta)
# ```
# ````

# %% [markdown]
# ```{exercise} Design: full-attention layers for a memory budget
# :label: ex-ch12-hybrid
#
# A model of 48 layers is made hybrid: some layers keep full attention, each caching 8
# key-value heads of 128; the others are Gated DeltaNet layers, each holding 32 states of
# $128 \times 128$. It serves a batch of 8 sequences of 131,072 tokens in float16, and its
# caches and states together must fit in 48 GiB. The full-attention layers are spread
# evenly, with as many linear layers between any two consecutive full-attention layers, so
# their number divides 48. How many
# full-attention layers can it keep at most? Is that Qwen3-Next's 3 : 1?
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Price one layer of each kind with `ac.kv_cache_bytes` and `ac.linear_state_bytes`, for the
# whole batch; then try the divisors of 48 from the largest down.
# ```

# %%
shape_hybrid = ch12.hybrid_layers.inputs
print("layers, KV heads, state heads, d_head, n, bytes, batch, GiB =", shape_hybrid)
answer = ...  # a number of full-attention layers
ch12.hybrid_layers.check(answer)

# %% [markdown]
# ````{solution} ex-ch12-hybrid
# :class: dropdown
#
# One full-attention layer caches $2 \cdot 8 \cdot 128 \cdot 131072 \cdot 2 \cdot 8$ bytes,
# 4 GiB for the batch; one linear layer's states take $32 \cdot 128 \cdot 128 \cdot 2 \cdot
# 8$ bytes, 8 MiB. The 3 : 1 of Qwen3-Next would be 12 full-attention layers: 48 GiB of
# cache, and with the 36 linear layers' 288 MiB of states it no longer fits. The next divisor
# of 48 is 8: 32 GiB and 320 MiB, one full-attention layer in six, 5 : 1. The states are
# small, but on a budget cut this fine they decide.
#
# ```python
# layers_h, kv_heads_h, heads_h, d_h, n_h, b_h, batch_h, budget_h = shape_hybrid
# per_attention = ac.kv_cache_bytes(1, kv_heads_h, d_h, n_h, b_h, batch_h)  # 4 GiB
# per_linear = ac.linear_state_bytes(1, heads_h, d_h, d_h, b_h, batch_h)  # 8 MiB
# fits = [
#     a
#     for a in range(1, layers_h)
#     if layers_h % a == 0 and a * per_attention + (layers_h - a) * per_linear <= budget_h * GiB
# ]
# answer = max(fits)
# ch12.hybrid_layers.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} The lightning indexer's scores by hand
# :label: ex-ch12-indexer
#
# One query token has two indexer heads, $\mathbf q_{t,1}$ and $\mathbf q_{t,2}$, with the
# weights $w_{t,1}$ and $w_{t,2}$ printed below, and five earlier tokens have the indexer keys
# printed below. Give its five scores $I_{t,s}$ of {eq}`eq-ch12-indexer`. Which two keys
# would top-2 selection keep?
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# One dot product per head and key, each clipped at zero before it is weighted and summed.
# ```

# %%
q_index, keys_index, w_index = ch12.indexer_scores.inputs
print("heads:", q_index[0].tolist(), " weights:", w_index[0].tolist())
print("keys:", keys_index.tolist())
answer = ...  # five scores
ch12.indexer_scores.check(answer)

# %% [markdown]
# ````{solution} ex-ch12-indexer
# :class: dropdown
#
# The first head, $(1, -1)$, gives the dot products $1, -1, 1, -2.5, -1$ with the five keys,
# clipped to $1, 0, 1, 0, 0$; the second, $(0, 1)$, reads each key's second component,
# $0, 1, 1, 0.5, 2$, none negative, weighted by 1.5. The scores are their weighted sum, and
# top-2 keeps the fifth key and the third. The first head dislikes the fourth key, but the
# ReLU keeps that from cancelling the second head's small vote: without it, the fourth key
# would score below zero.
#
# ```python
# dots_index = q_index[0] @ keys_index.T  # [2 heads, 5 keys]
# answer = w_index[0] @ np.maximum(dots_index, 0)  # Σ_j w_j ReLU(q_j · k_s)
# ch12.indexer_scores.check(answer)
# ```
# ````
#
# ## How long this chapter took

# %% tags=["nbval-ignore-output"]
chapter_seconds = time.perf_counter() - chapter_start
round(chapter_seconds, 1)

# %% [markdown]
# This chapter ran top to bottom in {eval}`dec(chapter_seconds, 1)` seconds on the machine
# that built this page, the recall experiments included.
