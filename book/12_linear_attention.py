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
# [Chapter 9](09_cost.ipynb) found that attention's weights form an $n \times n$ table, and
# learnt to compute it without ever holding it. [Chapter 10](10_generation.ipynb) found what a
# server holds instead: the keys and values of every past token, a cache that grows with $n$.
# Chapter 11 followed the ways today's models shrink that cache while keeping softmax attention.
# This chapter, the book's last, drops the softmax: it changes the score so that the past folds
# into a state of fixed size, as a recurrent network's does. That is linear attention, and the
# models of 2025 that use it, Qwen3-Next and Kimi Linear, run three such layers for every layer
# of ordinary attention. We derive it by hand from the softmax of
# [Chapter 4](04_worked_example.ipynb), measure what it forgets, repair part of that with the
# delta rule, and end with the other way out, attention that reads only a few chosen keys.
#
# After this chapter you will be able to:
#
# - replace $e^{\mathbf q \cdot \mathbf k}$ with a feature map's $\phi(\mathbf q) \cdot
#   \phi(\mathbf k)$, regroup the sum, and run causal linear attention (선형 어텐션) as a
#   recurrence over a $d_k \times d_v$ state, by hand for three tokens, equal to the masked
#   parallel form to the last digit;
# - count its cost, $O(n\,d^2)$ against $O(n^2 d)$, and the bytes of its fixed state against
#   the KV cache of a real model;
# - say what the state forgets, and read it from an associative-recall experiment you run;
# - compute the delta rule's correction step by hand, show that it is a gradient step on
#   $\tfrac12\lVert S\mathbf k - \mathbf v\rVert^2$, and say from the measurement when it
#   recalls better than plain linear attention and when it does not; add Gated DeltaNet's
#   decay;
# - work out the cache and state of a hybrid model with one full-attention layer in four;
# - select each query's keys with a small scorer, as DeepSeek Sparse Attention does, and say
#   what that saves and what it does not.

# %%
import time

import attn_core as ac
import numpy as np
from attn_book.data import quanta_example
from attn_book.figures import Figures
from attn_book.plots import plot_recall
from attn_book.prose import dec, grouped, plain, vector
from attn_book.recall import recall_sweep
from attn_book.tables import step_table

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
# {eval}`dec(softmax_weights)` and the output {eval}`vector(softmax_out)` are Chapter 4's. Each weight is $e^{s_j} / \sum_i e^{s_i}$ with $s_j = \mathbf q \cdot
# \mathbf k_j / \sqrt{d_k}$: the query and the key meet inside the exponential, and no algebra
# takes them apart. So every query must meet every key, one score at a time: for $n$ queries
# and $n$ keys, the $n \times n$ table, and for a new token, every cached key.
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
# $\sum_j (\phi(\mathbf q)^\top \phi(\mathbf k_j))\, \mathbf v_j^\top = \phi(\mathbf q)^\top
# \sum_j \phi(\mathbf k_j)\, \mathbf v_j^\top$:
#
# $$
# \mathbf o^\top = \frac{\phi(\mathbf q)^\top S}{\phi(\mathbf q)^\top \mathbf z}, \qquad
# S = \sum_j \phi(\mathbf k_j)\, \mathbf v_j^\top \;(d_k \times d_v), \qquad
# \mathbf z = \sum_j \phi(\mathbf k_j) \;(d_k).
# $$ (eq-ch12-regrouped)
#
# $S$ and $\mathbf z$ hold the keys and values summed once, whatever the query; a query reads
# them with two small products; $\phi(\mathbf q)^\top \mathbf z$ is the normaliser (정규화 항)
# that makes the weights sum to 1. No query meets a key one at a time.

# %%
S_all = phi_K.T @ V  # [2, 3] @ [3, 2] -> [2, 2]: Σ φ(k_j) v_jᵀ
z_all = phi_K.sum(axis=0)  # [2]: Σ φ(k_j), the normaliser's sum
normaliser = phi_q @ z_all  # [2] @ [2] -> a number: φ(q) · z
regrouped = (phi_q @ S_all) / normaliser  # [2] @ [2, 2] -> [2], divided
np.testing.assert_allclose(regrouped, linear_out)
np.testing.assert_allclose(ac.linear_attention(q, K, V, causal=False), linear_out)
S_all, z_all

# %% [markdown]
# $S$ is {eval}`vector(S_all[0])` over {eval}`vector(S_all[1])` and $\mathbf z =$
# {eval}`vector(z_all)`; the query reads $\phi(\mathbf q)^\top S = 2 \cdot$
# {eval}`vector(S_all[0])` $+ 1 \cdot$ {eval}`vector(S_all[1])` and divides by
# $\phi(\mathbf q) \cdot \mathbf z =$ {eval}`plain(normaliser)`: the same
# {eval}`vector(regrouped)`.
#
# ## The causal pass is a recurrence (상태와 순환)
#
# In a causal model, token $t$ may use the keys and values of tokens $0$ to $t$ only
# ([Chapter 7](07_heads_and_masks.ipynb)). In {eq}`eq-ch12-regrouped` that means the sums stop
# at $t$, and each token's sums are the previous token's plus one term:
#
# $$
# S_t = S_{t-1} + \phi(\mathbf k_t)\, \mathbf v_t^\top, \qquad
# \mathbf z_t = \mathbf z_{t-1} + \phi(\mathbf k_t), \qquad
# \mathbf o_t^\top = \frac{\phi(\mathbf q_t)^\top S_t}{\phi(\mathbf q_t)^\top \mathbf z_t} .
# $$ (eq-ch12-recurrence)
#
# That is a recurrent network (순환 신경망) whose state (상태) is the pair $(S_t, \mathbf z_t)$ of
# $d_k \times d_v + d_k$ numbers, the same size after three tokens or a million; Katharopoulos
# et al. titled their paper "Transformers are RNNs". Let the example's three keys and values be
# three tokens, each asking with the query $(1, 0)$, and run {eq}`eq-ch12-recurrence` by hand:

# %%
Q = np.tile(q, (3, 1))  # [3, 2]: the query (1, 0) at each of the three tokens
S = np.zeros((2, 2))  # d_k × d_v, empty before the first token
z = np.zeros(2)  # d_k
steps = []
for t in range(3):
    S = S + np.outer(phi(K[t]), V[t])  # + φ(k_t) v_tᵀ: [2] ⊗ [2] -> [2, 2]
    z = z + phi(K[t])  # + φ(k_t)
    out_t = (phi(Q[t]) @ S) / (phi(Q[t]) @ z)  # [2] @ [2, 2] / [2] @ [2]
    steps.append(dict(S=S, z=z, out=out_t))

# %% tags=["hide-input"]
step_table(
    {
        "φ(k_t)": [vector(row) for row in phi_K],
        "v_t": [vector(row) for row in V],
        "S_t, row 1": [vector(s["S"][0]) for s in steps],
        "S_t, row 2": [vector(s["S"][1]) for s in steps],
        "z_t": [vector(s["z"]) for s in steps],
        "o_t": [vector(s["out"]) for s in steps],
    },
    index=["t = 1", "t = 2", "t = 3"],
)

# %% [markdown]
# **Token 1.** $\phi(\mathbf k_1)\,\mathbf v_1^\top = (2, 1)^\top (2, 0)$ puts
# {eval}`vector(steps[0]["S"][0])` in the first row of $S_1$ and {eval}`vector(steps[0]["S"][1])`
# in the second; $\mathbf z_1 =$ {eval}`vector(steps[0]["z"])`. The query reads
# $2 \cdot (4, 0) + 1 \cdot (2, 0) = (10, 0)$ and divides by $2 \cdot 2 + 1 \cdot 1 = 5$:
# $\mathbf o_1 =$ {eval}`vector(steps[0]["out"])`, the only value it has seen.
#
# **Token 2.** $(1, 2)^\top (0, 2)$ adds $(0, 2)$ and $(0, 4)$: $S_2$ has rows
# {eval}`vector(steps[1]["S"][0])` and {eval}`vector(steps[1]["S"][1])`, and
# $\mathbf z_2 =$ {eval}`vector(steps[1]["z"])`. The read is $2 \cdot (4, 2) + (2, 4) =
# (10, 8)$ over $2 \cdot 3 + 3 = 9$: $\mathbf o_2 =$ {eval}`vector(steps[1]["out"])`.
#
# **Token 3.** $(2, 2)^\top (1, 1)$ adds 2 to every entry: rows
# {eval}`vector(steps[2]["S"][0])` and {eval}`vector(steps[2]["S"][1])`, $\mathbf z_3 =$
# {eval}`vector(steps[2]["z"])`, and $(16, 14) / 15 =$ {eval}`vector(steps[2]["out"])`, the
# output of {eq}`eq-ch12-linear` over all three keys.
#
# The same rows come from the parallel form, which computes the $n \times n$ table
# $\phi(Q)\phi(K)^\top$, masks it causally and normalises each row (the way to train, with
# every token known), and from `attn_core`'s recurrence:

# %%
by_hand = np.stack([s["out"] for s in steps])  # [3, 2]
parallel = ac.linear_attention(Q, K, V)  # causal: (φ(Q) φ(K)ᵀ ⊙ M) V, each row normalised
recurrent, (S_final, z_final) = ac.linear_attention_recurrent(Q, K, V)
same_digits = bool(np.array_equal(by_hand, parallel) and np.array_equal(by_hand, recurrent))
parallel, same_digits

# %% [markdown]
# Equal to the last digit ({eval}`same_digits`): here every number is a small integer or a
# ratio of two, so both orders of the sums round alike (on random inputs they agree to about
# $10^{-15}$, which the tests of `attn_core` check).
#
# ## What it costs: $O(n\,d^2)$ and a state of fixed size
#
# Each token writes $\phi(\mathbf k_t)\mathbf v_t^\top$ into the state and reads
# $\phi(\mathbf q_t)^\top S_t$: $2\,d_k d_v$ FLOPs each, $4\,n\,d_k d_v$ for $n$ tokens. The
# causal pass of softmax attention costs $4\,n^2 d$ in Chapter 9's count (the scores and the
# weighted sum, every pair counted). Their ratio is $n / d$: for GPT-2's twelve heads of 64,

# %%
gpt2_heads, gpt2_d = 12, 64  # Chapter 9's GPT-2-small heads
lengths = [64, 1024, 8192, 131072]
softmax_flops = [ac.attention_cost(1, gpt2_heads, n, n, gpt2_d).matmul_flops for n in lengths]
linear_flops = [ac.linear_attention_flops(1, gpt2_heads, n, gpt2_d) for n in lengths]
flops_ratios = [s / f for s, f in zip(softmax_flops, linear_flops, strict=True)]
step_table(
    {"softmax FLOPs": softmax_flops, "linear FLOPs": linear_flops, "ratio": flops_ratios},
    index=[f"n = {n:,}" for n in lengths],
    digits=0,
)

# %% [markdown]
# At $n = d =$ {eval}`gpt2_d` the two cost the same; at 128k tokens linear attention needs
# {eval}`grouped(flops_ratios[-1])` times fewer FLOPs. The memory changes more. Chapter 10's
# Llama-3-8B-like model (32 layers, 32 query heads and 8 key-value heads of 128, float16) holds
# a KV cache that grows by the same bytes with every token. Give each of its 32 heads in each
# layer a $128 \times 128$ state instead, and the model holds the same bytes after any number of
# tokens:

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
# million. A decode step reads that state once, $O(d_k d_v)$ per head, where Chapter 10's read
# the whole cache, $O(n\,d)$. (The normalisers add $d_k$ numbers a head, not counted here.)
#
# ## What it forgets (연관 회상)
#
# A state of $d_k \times d_v$ numbers cannot hold what a cache of $n$ keys and values holds.
# What is lost shows in the plainest linear attention, without a feature map or a normaliser
# (as the models of the next sections read their state): $S = \sum_j \mathbf k_j \mathbf
# v_j^\top$. Ask it for key $i$ and it returns
#
# $$
# \mathbf k_i^\top S = \lVert \mathbf k_i \rVert^2\, \mathbf v_i^\top
#   + \sum_{j \ne i} (\mathbf k_i \cdot \mathbf k_j)\, \mathbf v_j^\top .
# $$ (eq-ch12-crosstalk)
#
# With unit keys the first term is the value stored; the second, the crosstalk (간섭), vanishes
# only if key $i$ is orthogonal to every other key. In $d_k$ dimensions at most $d_k$ keys are
# mutually orthogonal: the state holds about $d_k$ associations cleanly, and beyond that every
# read is blurred by the others. The example shows it with $d_k = 2$ and three keys, made unit:

# %%
K_unit = K / np.linalg.norm(K, axis=1, keepdims=True)  # (1, 0), (0, 1), (0.707, 0.707)
S_plain = K_unit.T @ V  # Σ k_j v_jᵀ: [2, 3] @ [3, 2] -> [2, 2]
read_plain = K_unit @ S_plain  # row i: k_iᵀ S, what the state returns for key i
read_plain

# %% [markdown]
# Asked for key 1, the state returns {eval}`vector(read_plain[0])`, not $(2, 0)$: the third
# key leans {eval}`dec(K_unit[2, 0])` towards the first and brings that much of
# $\mathbf v_3 = (1, 1)$. Asked for key 3, it returns {eval}`vector(read_plain[2])` for
# $(1, 1)$.
#
# How fast this grows is measured by the associative-recall task (연관 회상) of Zoology's
# multi-query associative recall, MQAR ([Arora et al., 2024](references.md)): write $N$
# key–value pairs into a memory, then ask for every key and count how often the memory gives
# back its own value. `attn_book.recall` draws random unit keys in $d_k = 16$ dimensions and
# random unit values in $d_v = 64$, eight memories for each $N$, seeded, and counts a recall
# as right when the vector returned is nearer (by cosine) to the right value than to every
# other value written. Three memories: softmax attention over all $N$ pairs (sharp, with its
# scores multiplied by 16, as a trained model's long queries and keys make them), the plain
# sum of {eq}`eq-ch12-crosstalk`, and Katharopoulos et al.'s elu + 1 with its normaliser.

# %%
d_k_recall = 16
pair_counts = (4, 8, 16, 32, 64, 128)
forgetting = recall_sweep(pair_counts, d_k_recall, methods=("softmax", "linear", "linear_elu"))
{method: accuracy.round(2) for method, accuracy in forgetting.accuracy.items()}

# %% tags=["hide-input"]
figures.show(
    plot_recall({f"random keys, d_k = {d_k_recall}": forgetting}, d_k=d_k_recall),
    "fig-recall",
    "Associative recall against the number of pairs stored: the share of queries whose "
    "recalled vector is nearest its own value (8 seeded memories for each $N$; $d_k = 16$, "
    "$d_v = 64$; log axis).",
)

# %% [markdown]
# {eval}`figures.ref("fig-recall")` reads as {eq}`eq-ch12-crosstalk` predicts. Softmax
# attention recalls every pair at every $N$, up to {eval}`pair_counts[-1]`: it keeps them all,
# and its cache grows with $N$. The plain linear state recalls
# {eval}`dec(forgetting.accuracy["linear"][2], 2)` of 16 pairs, as many as $d_k$, then
# {eval}`dec(forgetting.accuracy["linear"][4], 2)` of 64 and
# {eval}`dec(forgetting.accuracy["linear"][5], 2)` of 128: the crosstalk of $N - 1$ random
# keys grows like $\sqrt{N / d_k}$ and buries the value. Its mean cosine with the right value
# falls from the start, {eval}`dec(forgetting.cosine["linear"][0], 2)` at 4 pairs and
# {eval}`dec(forgetting.cosine["linear"][5], 2)` at 128.
#
# The elu + 1 memory recalls only {eval}`dec(forgetting.accuracy["linear_elu"][0], 2)` of
# even 4 pairs. Its features are all positive, so $\phi(\mathbf k_i) \cdot \phi(\mathbf k_j) >
# 0$ for every pair: the crosstalk never cancels, and every read is pulled towards the average
# of all the values. Positive features keep the weights positive, as
# {eq}`eq-ch12-linear` needs, at the cost of recall; the models that ship linear attention
# drop the normaliser and read $S$ directly.
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
# with $S$ now stored as $d_v \times d_k$ (values by keys, as `ac.delta_rule` and the papers
# write it), unit keys, and a writing strength (쓰기 강도) $0 < \beta_t \le 1$ that the model
# computes from each token. With $\beta_t = 1$ and a unit key, $S_t \mathbf k_t = S_{t-1}\mathbf k_t +
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
# {eval}`vector(read_plain[2])`. The price is paid by key 1, which overlaps key 3: it now
# returns {eval}`vector(read_k1_delta)` for $(2, 0)$. With $d_k = 2$, three keys cannot all be
# kept; the delta rule keeps the newest exactly and lets the older ones give way along the
# directions the new key uses.
#
# **A gradient step.** The correction is one step of online least squares (온라인 최소제곱).
# Take the loss $\ell(S) = \tfrac12 \lVert S \mathbf k_t - \mathbf v_t \rVert^2$, how badly the
# state answers the new pair. Its gradient is $\nabla_S \ell = (S \mathbf k_t - \mathbf v_t)\,
# \mathbf k_t^\top$, and one step of gradient descent with learning rate $\beta_t$ from
# $S_{t-1}$ is $S_{t-1} - \beta_t (S_{t-1}\mathbf k_t - \mathbf v_t)\,\mathbf k_t^\top$:
# {eq}`eq-ch12-delta`. Linear attention's write is the same step with the loss
# $-\mathbf v_t^\top S \mathbf k_t$, whose gradient ignores what $S$ already holds
# ([Yang et al., 2024](references.md)).

# %%
S_before, k3, v3 = delta_steps[1]["S"], K_unit[2], V[2]
gradient = np.outer(S_before @ k3 - v3, k3)  # ∇ of ½‖S k − v‖² at S_before: [2, 2]
np.testing.assert_allclose(S_before - beta * gradient, S_delta)  # the step is the rule
loss_before = 0.5 * np.sum((S_before @ k3 - v3) ** 2)
loss_after = 0.5 * np.sum((S_delta @ k3 - v3) ** 2)
loss_before, loss_after

# %% [markdown]
# The loss falls from {eval}`dec(loss_before)` to {eval}`plain(loss_after)`: with a
# unit key and $\beta = 1$ the step lands on the minimum along $\mathbf k_t$. Yang et al.
# showed how to train this recurrence in parallel over the sequence, chunk by chunk, which
# made the delta rule (DeltaNet) practical at the scale of language models.

# %% tags=["hide-input"]
from attn_book.widgets import StateFiller

state_filler = StateFiller()  # three keys, each written twice; the delta rule with β = 1
figures.show(
    state_filler,
    "fig-state-filler",
    "Three memories filled token by token with the same keys and values. Left: the state "
    "$S_t$ of linear attention or of the delta rule ($d_k \\times d_v$; purple below 0, "
    "orange above), or softmax attention's cache, which grows by a key and a value a token. "
    "Right: what the memory returns for the key asked, beside the value written last under "
    "that key, and the delta rule's correction $\\mathbf v_t - S_{t-1} \\mathbf k_t$.",
)

# %% [markdown]
# In {eval}`figures.ref("fig-state-filler")` the same tokens fill each memory:
# {eval}`state_filler.n_pairs` random unit keys in $d_k =$ {eval}`state_filler.d_k` dimensions, each
# written twice, the second time with the value to recall. Try this: with the delta rule, ask with
# $\mathbf k_1$ and step back (◀, the arrow keys on the drawing, or a tap on a token) to the token
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
[{m: a.round(2) for m, a in s.accuracy.items()} for s in (random_keys, rewrites)]

# %% tags=["hide-input"]
figures.show(
    plot_recall({"random keys": random_keys, "every key written twice": rewrites}, d_k=d_k_recall),
    "fig-recall-delta",
    "The delta rule ($\\beta = 1$) against softmax attention and the plain linear sum. Left: "
    "$N$ random keys, each written once. Right: each key written twice, the second value "
    "the one to recall ($d_k = 16$, $d_v = 64$, 8 seeded memories for each $N$).",
)

# %% [markdown]
# {eval}`figures.ref("fig-recall-delta")` does not show the delta rule simply winning.
#
# **Random keys, each written once (left).** The delta rule recalls *fewer* pairs than the
# plain sum: {eval}`dec(random_keys.accuracy["delta"][2], 2)` against
# {eval}`dec(random_keys.accuracy["linear"][2], 2)` at 16 pairs, and
# {eval}`dec(random_keys.accuracy["delta"][4], 2)` against
# {eval}`dec(random_keys.accuracy["linear"][4], 2)` at 64. Each write with $\beta = 1$ makes
# the state exact for the newest key by removing, along that key, what older pairs had stored
# there, as key 1 lost to key 3 above. Random keys always overlap, so every pair is worn down
# by the writes after it, and only the most recent ones stay clear. The plain sum forgets
# nothing on purpose: it blurs all pairs alike, and a blurred value is still the nearest.
#
# **Every key written twice (right).** Now the memory must replace, not just store. Softmax
# attention sees both writes of the key with equal scores and averages the stale and the new
# value: it recalls {eval}`dec(rewrites.accuracy["softmax"][2], 2)` at 16 pairs, about half,
# and its mean cosine is {eval}`dec(rewrites.cosine["softmax"][2], 2)`, near
# $1/\sqrt 2$. The plain sum does the same, blurred: {eval}`dec(rewrites.accuracy["linear"][2], 2)`.
# The delta rule removes the stale value when it writes the new one and recalls
# {eval}`dec(rewrites.accuracy["delta"][0], 2)` of 4 pairs and
# {eval}`dec(rewrites.accuracy["delta"][2], 2)` of 16, about what it recalled with no rewrites
# ({eval}`dec(random_keys.accuracy["delta"][2], 2)`): the stale writes cost it nothing. Its
# capacity is still about $d_k$: beyond 32 pairs it falls below softmax's half
# ({eval}`dec(rewrites.accuracy["delta"][4], 2)` against
# {eval}`dec(rewrites.accuracy["softmax"][4], 2)` at 64). What it adds is the ability to
# overwrite, not room.
#
# ## Gated DeltaNet: a decay that forgets (게이트 델타넷)
#
# The delta rule replaces what a key points to, but never clears the rest of the state. Gated
# DeltaNet (게이트 델타넷) adds a decay (감쇠) $0 < \alpha_t \le 1$, computed from each token like
# $\beta_t$, that shrinks the whole state before the write
# ([Yang, Kautz and Hatamizadeh, 2025](references.md)):
#
# $$
# S_t = \alpha_t\, S_{t-1}\big(I - \beta_t \mathbf k_t \mathbf k_t^\top\big)
#   + \beta_t\, \mathbf v_t \mathbf k_t^\top .
# $$ (eq-ch12-gated)
#
# With $\alpha_t = 1$ this is {eq}`eq-ch12-delta` rearranged. Near 1 the state keeps its
# associations for long; near 0 it starts afresh, as at the start of a new document. One step
# by hand, token 3 again from $S_2$, with $\alpha = 0.9$:

# %%
alpha = 0.9
gated = alpha * S_before @ (np.eye(2) - beta * np.outer(k3, k3)) + beta * np.outer(v3, k3)
_, gated_lib = ac.delta_rule(Q[2:], K_unit[2:], V[2:], beta=[beta], decay=[alpha], state=S_before)
np.testing.assert_allclose(gated_lib, gated)
k_across = np.array([1.0, -1.0]) / np.sqrt(2)  # orthogonal to k3
gated_k3 = gated @ k3  # along k3
before_across, gated_across = S_before @ k_across, gated @ k_across  # across it
gated_k3, before_across, gated_across

# %% [markdown]
# $S_3$ has rows {eval}`vector(gated[0])` and {eval}`vector(gated[1])`. Along $\mathbf k_3$
# the factor $I - \mathbf k_3 \mathbf k_3^\top$ removes the old answer entirely, so the decay
# changes nothing there: the state returns {eval}`vector(gated_k3)`, $\mathbf v_3$. Across
# it, along $(1, -1)/\sqrt 2$, the old state returned {eval}`vector(before_across)` and
# the new one {eval}`vector(gated_across)`, $\alpha$ times as much: what no new key
# touches fades as $\alpha^t$. Qwen3-Next's linear layers are Gated DeltaNet.
#
# ## Hybrids: one full-attention layer in four (하이브리드 모델)
#
# A fixed state cannot recall exactly what it holds no room for, and
# {eval}`figures.ref("fig-recall-delta")` showed that even the delta rule holds about $d_k$
# pairs. Softmax attention recalls every pair but pays with a cache. The models of 2025 take
# both: most layers linear, a few full-attention layers that keep the cache and can look up
# any token exactly. Qwen3-Next interleaves three Gated DeltaNet layers with one
# full-attention layer ([Qwen Team, 2025b](references.md)); Kimi Linear interleaves three
# layers of its Kimi Delta Attention, a gated delta rule with a decay per channel, with one
# layer of multi-head latent attention ([Kimi Team, 2025b](references.md)). Both are 3 : 1.
#
# For Chapter 10's Llama-3-8B-like model, a 3 : 1 hybrid keeps 8 of its 32 layers as they
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
qwen_kv_per_token_kib, qwen_state_mib, qwen_long_gib

# %% [markdown]
# {eval}`plain(qwen_kv_per_token_kib)` KiB a token, {eval}`plain(qwen_state_mib)` MiB of
# state, and {eval}`dec(qwen_long_gib, 2)` GiB at 128k tokens, for a model of 80 billion
# parameters (3 billion of them used for each token, a mixture of experts), ten times the
# Llama-3-8B-like one's. (The Gated DeltaNet layers also keep the last few tokens of their
# query, key and value channels for a short convolution: a fixed cache of tens of KiB a layer,
# not counted here.)
#
# **Mamba-2, the same family.** State-space models (상태 공간 모델) reached the same place from
# the other side. Mamba-2's layer keeps a state $H_t = a_t H_{t-1} + \mathbf x_t
# \mathbf b_t^\top$ and outputs $H_t \mathbf c_t$, with a scalar decay $a_t$ per head and step
# computed from the token; Dao and Gu showed that this is linear attention with $\mathbf c$ as
# the query, $\mathbf b$ as the key, $\mathbf x$ as the value, no normaliser and a scalar
# decay, and that the same outputs come from a masked, attention-like $n \times n$ form, whose
# mask holds the products of the decays. They called it state-space duality (상태 공간 쌍대성)
# ([Dao & Gu, 2024](references.md)). In the terms of this chapter: {eq}`eq-ch12-gated` without
# the correction, $S_t = \alpha_t S_{t-1} + \mathbf v_t \mathbf k_t^\top$. We do not build it.
#
# ## Sparse attention: read only the keys that matter (희소 어텐션)
#
# The other way out keeps softmax attention and every key in the cache, but lets each query
# read only $k$ of them. DeepSeek Sparse Attention, in DeepSeek-V3.2, chooses them with a small
# scorer, the lightning indexer (라이트닝 인덱서), which rates every earlier key $s$ for query
# $t$ with a few small heads $j$ ([DeepSeek-AI, 2025](references.md)):
#
# $$
# I_{t,s} = \sum_j w_{t,j}\, \mathrm{ReLU}\big(\mathbf q_{t,j} \cdot \mathbf k_s\big),
# $$ (eq-ch12-indexer)
#
# then keeps each query's top $k$ (상위 k 선택; 2,048 in DeepSeek-V3.2), and runs attention over those
# alone. By hand on six tokens, an indexer of two heads of width 2, and $k = 3$:

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
# tokens see three keys or fewer and keep them all. Attention then runs with this mask; with
# the identity as values, its output is the weights themselves:

# %%
attn_queries = index_keys  # in this toy each token's attention query is its own key
sparse_weights = ac.scaled_dot_product_attention(
    attn_queries, index_keys, np.eye(6), attn_mask=keep
)  # [6, 6]: values the identity, so the output rows are the weights
sparse_weights[-1].round(3)

# %% [markdown]
# The last token's weights, {eval}`dec(sparse_weights[-1])`, fall on keys 0, 2 and 4 only.
# What does it save? A decode step at 128k tokens, with 128 heads of 128 and DeepSeek-V3.2's
# indexer of 64 heads of 128 (DeepSeek-V3.2's own attention heads are multi-head latent
# attention's, Chapter 11's, wider than this):

# %%
sparse = ac.sparse_attention_cost(1, 128, 1, n_long, 128, 2048, index_heads=64, index_dim=128)
attention_saving = sparse.dense.matmul_flops / sparse.sparse.matmul_flops
read_saving = sparse.dense.input_bytes / sparse.sparse.input_bytes
attention_saving, sparse.flops_ratio, read_saving

# %% [markdown]
# Attention itself needs {eval}`plain(attention_saving)` times fewer FLOPs, $n / k$, and reads
# {eval}`dec(read_saving, 1)` times fewer bytes of the attention's keys and values; the indexer
# still reads its own (small, FP8) key of every token, so the bytes a decode step reads fall by
# far less than that. The indexer still rates all
# {eval}`grouped(n_long)` keys, so with it the step needs {eval}`dec(sparse.flops_ratio, 2)`
# times fewer FLOPs; it grows like $n$ per token, like dense attention, but its heads are
# cheap and DeepSeek runs them in FP8. And the cache is not smaller (it even gains the
# indexer's keys): a key that no query
# picks today may be picked by the next, so every key stays stored. Native Sparse Attention
# ([Yuan et al., 2025](references.md)) selects blocks of keys rather than single keys: each
# query reads compressed summaries of all blocks, the blocks those summaries rate highest, and a
# sliding window, mixed by learnt gates, trained sparse from the start.
#
# ## From the table to the state
#
# The book began with one query and three keys, and a table of scores. [Chapter 9](09_cost.ipynb)
# found that the table is $n \times n$ and learnt to compute it tile by tile without ever
# holding it; the FLOPs stayed $O(n^2 d)$. [Chapter 10](10_generation.ipynb) found that
# generation holds something else, the keys and values of every past token, which grows with
# $n$ and is read whole at every step. This chapter changed the score itself: with
# $\phi(\mathbf q)\cdot\phi(\mathbf k)$ in place of $e^{\mathbf q \cdot \mathbf k}$, the past
# folds into a state of $d_k \times d_v$ numbers, and a token costs the same at position 10 or
# at position a million. The measurement said what that costs: the state holds about $d_k$
# associations, the delta rule lets it overwrite them, and the models that ship it keep a
# quarter of their layers as full attention to look up the rest exactly. Sparse attention
# takes the opposite trade, all keys kept and a few read.
#
# ## Summary
#
# - With $\mathrm{sim}(\mathbf q, \mathbf k) = \phi(\mathbf q) \cdot \phi(\mathbf k)$
#   ($\phi = \mathrm{elu} + 1$), the output regroups as $\phi(\mathbf q)^\top S /
#   \phi(\mathbf q)^\top \mathbf z$ ({eq}`eq-ch12-regrouped`); for the worked example the
#   weights are {eval}`dec(linear_weights)` and the output {eval}`vector(linear_out)`.
# - The causal pass is a recurrence ({eq}`eq-ch12-recurrence`): $S_t = S_{t-1} +
#   \phi(\mathbf k_t)\mathbf v_t^\top$, $\mathbf z_t = \mathbf z_{t-1} + \phi(\mathbf k_t)$; by
#   hand its three rows are those of the masked parallel form.
# - Its cost is $4\,n\,d_k d_v$ FLOPs against $4\,n^2 d$, and its state is fixed:
#   {eval}`plain(state_mib)` MiB for the Llama-3-8B-like shape against a KV cache of
#   {eval}`plain(kv_long_gib)` GiB at 128k tokens.
# - The state holds about $d_k$ associations ({eq}`eq-ch12-crosstalk`): with $d_k = 16$ the
#   plain sum recalled {eval}`dec(forgetting.accuracy["linear"][2], 2)` of 16 pairs and
#   {eval}`dec(forgetting.accuracy["linear"][5], 2)` of 128; softmax attention all of them.
# - The delta rule ({eq}`eq-ch12-delta`) is a gradient step on $\tfrac12\lVert S\mathbf k -
#   \mathbf v\rVert^2$. On random keys written once, with $\beta = 1$, it recalled fewer pairs
#   than the plain sum (a smaller or learnt $\beta$, as the models use, behaves otherwise);
#   with every key rewritten it kept the new values, where softmax and the plain sum averaged
#   old and new. Gated DeltaNet ({eq}`eq-ch12-gated`) adds a decay $\alpha_t$ that forgets.
# - Hybrids keep one full-attention layer in four (Qwen3-Next, Kimi Linear): a quarter of the
#   cache per token, plus a fixed state. Mamba-2 is a linear attention with a scalar decay.
# - Sparse attention keeps every key but reads $k$ of them, chosen by a cheap indexer
#   ({eq}`eq-ch12-indexer`): attention's FLOPs and reads shrink by $n / k$, the cache does
#   not.
#
# ## How long this chapter took

# %% tags=["nbval-ignore-output"]
chapter_seconds = time.perf_counter() - chapter_start
round(chapter_seconds, 1)

# %% [markdown]
# This chapter ran top to bottom in {eval}`dec(chapter_seconds, 1)` seconds on the machine
# that built this page, the recall experiments included.
