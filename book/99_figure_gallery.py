# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# (ch-figure-gallery)=
# # Appendix: the interactive figures
#
# The book's interactive figures in one place (the static plots stay in their chapters). Each
# entry names the figure, by its number there, and the section of the chapter where it
# appears. Every one is a small program in your browser:
# drag with the mouse, or Tab to a vector and use the arrow keys. They work on this static page
# with no Python running (the JavaScript recomputes the weights itself), and in JupyterLab, where
# the Python side recomputes them with `attn_core` as well. Figures on one page never share
# state: moving one leaves the others alone.
#
# In code, each figure is an object whose attributes (traits) you can read and set:

# %%
import math
import sys

import attn_core as ac
import numpy as np
from attn_book import experiments
from attn_book.data import SENTENCE_EN, SENTENCE_KO, who_did_what
from attn_book.figures import stored_ref  # "Figure 1.3", as chapter 1's notebook numbers it
from attn_book.prose import dec, plain, vector
from attn_book.widgets import (
    AttentionHeatmap,
    MemoryCalculator,
    QueryPad,
    ScalingExplorer,
    SoftmaxBars,
    StateFiller,
    WindowSinks,
)
from attn_core import training

# %% [markdown]
# ## The query pad (쿼리 패드)
#
# In the chapters: {eval}`stored_ref("01_dot_product", "fig-ch1-pad")` of
# [Chapter 1](01_dot_product.ipynb#try-it-the-query-pad) (dot products and cosines only) and
# {eval}`stored_ref("04_worked_example", "fig-pad")` of
# [Chapter 4](04_worked_example.ipynb#drag-the-query-away-and-come-back).
#
# One query $\mathbf{q}$ (쿼리, black) attends over three keys $\mathbf{k}_j$ (키, the dots)
# with values $\mathbf{v}_j$ (밸류, the squares) in the plane, so $d_k = 2$. The table lists
# each dot product $\mathbf{q}\cdot\mathbf{k}_j$ (내적), the cosine of the angle, the score
# $\mathbf{q}\cdot\mathbf{k}_j/\sqrt{d_k}$ and the softmax weight (가중치); the dashed arrow is
# the output $\mathbf{o} = \sum_j w_j \mathbf{v}_j$, the weighted mix of the values.
# It starts at the worked example of the Quanta write-up (the Korean write-up of the Quanta
# Magazine column that the book follows, [references](references.md)):

# %%
pad = QueryPad()
example_weights, example_output = list(pad.weights), list(pad.output)
pad

# %% [markdown]
# There the weights are {eval}`dec(example_weights)` and the output is
# {eval}`vector(example_output)`.

# %% [markdown]
# Setting the query from code recomputes everything through `attn_core`:

# %%
pad_code = QueryPad(query=(0.3, 0.8))
print("weights:", ", ".join(f"{w:.3f}" for w in pad_code.weights))
print("output: ", ", ".join(f"{o:.3f}" for o in pad_code.output))

# %% [markdown]
# A second pad on the same page, with the scaling switched off and a key that points away from
# the query. Drag either one: the other does not move.

# %%
QueryPad(key_vectors=[[1.0, 0.0], [0.0, 1.0], [-1.0, 0.5]], scaled=False)

# %% [markdown]
# With positions ({eval}`stored_ref("06_positions", "fig-rope-pad")` of
# [Chapter 6](06_positions.ipynb#turn-them-yourself)): the query and the keys stand at positions
# $m$ and $n_j$, and each is turned by its position (RoPE, one radian a step). Move a position
# with its slider and that vector swings round; move every word one place on and no weight
# changes, because the weights depend only on $n - m$.

# %%
QueryPad(query_position=1, key_positions=[0, 1, 2])

# %% [markdown]
# ## Softmax bars (소프트맥스 막대)
#
# In the chapters: {eval}`stored_ref("02_softmax", "fig-ch2-bars")` of
# [Chapter 2](02_softmax.ipynb#try-it-softmax-bars).
#
# Drag a score up or down and watch the weights. The shift slider adds the same constant to
# every score: the weights do not move, because softmax only sees differences.

# %%
SoftmaxBars(scores=(2.0, 1.0, 0.1))

# %%
# e^s overflows a float64 past this s
overflow_at = math.log(sys.float_info.max)

# %% [markdown]
# The naive formula $e^{s_j}/\sum_l e^{s_l}$ overflows to $\infty/\infty$ once a score passes
# $\ln(\text{largest float}) \approx$ {eval}`dec(overflow_at, 0)`, which is why every
# softmax subtracts the maximum first.

# %% [markdown]
# ## The √dₖ scaling explorer (스케일링)
#
# In the chapters: {eval}`stored_ref("03_scaling", "fig-ch3-explorer")` of
# [Chapter 3](03_scaling.ipynb#try-it-the-scaling-explorer).
#
# Random queries and keys with unit-variance entries: the spread of
# $\mathbf{q}\cdot\mathbf{k}$ grows like $\sqrt{d_k}$, the softmax saturates (the largest weight nears 1, the entropy and the gradient
# shrink) — unless the scores are divided by $\sqrt{d_k}$. All the random numbers are drawn in
# Python from a fixed seed; the slider only chooses which precomputed $d_k$ to show.

# %%
ScalingExplorer(d_k=64, seed=0)

# %% [markdown]
# ## Attention heatmaps (어텐션 히트맵)
#
# In the chapters: {eval}`stored_ref("05_projections", "fig-heatmap-ko")` and
# {eval}`stored_ref("05_projections", "fig-heatmap-en")` of
# [Chapter 5](05_projections.ipynb#click-a-word); Chapters 7 and 8's are below.
#
# Every query token (row) against every key token (column), for the sentence "나는 사과를
# 먹었다" of the Korean explainer of queries, keys and values, with toy embeddings and random
# projections. Hover or click a row to list its weights; switch the head, the temperature, the scaling and the
# causal mask (인과 마스크), under which a token sees only itself and the tokens before it.

# %%
heatmap = AttentionHeatmap()
n_heads_shown = heatmap.n_heads
heatmap

# %% [markdown]
# It has {eval}`n_heads_shown` heads; the head control switches between them.

# %% [markdown]
# An English sentence with four heads and the causal mask on:

# %%
AttentionHeatmap(query_tokens=SENTENCE_EN, n_heads=4, causal=True)

# %% [markdown]
# Cross-attention (크로스 어텐션,
# [Chapter 5](05_projections.ipynb#self-attention-and-cross-attention)): the queries come from
# one sentence, the keys from another, so the heatmap need not be square.

# %%
AttentionHeatmap(query_tokens=["I", "ate", "an", "apple"], key_tokens=SENTENCE_KO)

# %% [markdown]
# Padding ({eval}`stored_ref("07_heads_and_masks", "fig-live-masks")` of
# [Chapter 7](07_heads_and_masks.ipynb#live-toggle-the-masks-and-watch-the-rows-renormalise)):
# the sentence padded to five tokens. The
# checkboxes switch the causal and the padding mask; masked cells turn grey, and the rest of
# each row grows so that it still sums to 1.

# %%
AttentionHeatmap(query_tokens=[*SENTENCE_KO, "<pad>", "<pad>"], length=3, causal=True)

# %% [markdown]
# Training ({eval}`stored_ref("08_learning", "fig-ch8-learning")` of
# [Chapter 8](08_learning.ipynb#one-step-of-gradient-descent-written-out)): the attention of
# a sentence the layer never saw, at each recorded step of Chapter 8's training run. Drag the training-step slider back to
# step 0 for the uniform start; the dot on the loss curve follows. The run is Chapter 8's,
# repeated here (a second or two):

# %% tags=["hide-input"]
held_out = [("나는", "사과를", "먹었다"), ("사과를", "나는", "먹었다")]
data = who_did_what(exclude=held_out)  # Chapter 8's training sentences
everything = who_did_what()
x_test = everything.x[everything.tokens.index(held_out[0])]  # [3, D]
d_model, n_words = data.x.shape[-1], len(data.words)
start = training.init_projections(np.random.default_rng(0), d_model, 3, n_words, std=0.1)
recorded = list(range(0, 101, 5)) + list(range(120, 301, 20))
run = experiments.train_self_attention(data.x, data.target, start, 300, 1.0, record=recorded)
states = [(step, x_test @ p["W_Q"], x_test @ p["W_K"]) for step, p in run.snapshots]
AttentionHeatmap(
    query_tokens=list(held_out[0]),
    training_queries=[s[1] for s in states],
    training_keys=[s[2] for s in states],
    training_steps=[s[0] for s in states],
    training_losses=run.losses,
    step=len(states) - 1,
    selected=1,
)

# %% [markdown]
# A trained model's heads (Chapter 13): the weights of SmolLM2-135M-Instruct's 30 layers of 9
# heads on eight random words said twice. Nothing is recomputed here: the figure holds the
# weights of every layer and head, computed by the model, or read from a stored copy where the
# model file is absent. Slide the layer (or press ←/→ on the heatmap) and pick a head. It opens
# on layer 19, head 7, an induction head: from a word of the second copy it looks at the word
# that followed the same word in the first copy.

# %%
picker = AttentionHeatmap.from_model("induction")
picker

# %% [markdown]
# A longer sequence, the sentence repeated: drag across the rows and the weights keep up.

# %%
long_tokens = [f"{w}{i}" for i, w in enumerate(SENTENCE_EN * 4)][:32]
AttentionHeatmap(query_tokens=long_tokens, n_heads=2, d_model=8)

# %% [markdown]
# ## The memory calculator (메모리)
#
# In the chapters: {eval}`stored_ref("09_cost", "fig-memory")` of
# [Chapter 9](09_cost.ipynb#how-much-memory-long-contexts); Chapter 10's is below.
#
# The bytes that one layer's attention weights take at once, batch × heads × $n^2$ × the bytes
# of one number, on a log axis beside a laptop's and a large GPU's memory. Slide the number of
# tokens $n$ (by doublings), the heads and the batch, or pick another dtype.

# %%
MemoryCalculator()

# %% [markdown]
# With the KV cache ({eval}`stored_ref("10_generation", "fig-kv-memory")` of
# [Chapter 10](10_generation.ipynb#what-the-cache-holds-and-how-much-kv)): a second bar, the
# keys and values that every layer keeps for every token, here for a model shaped like
# Llama 3.1 8B (32 layers, 32 query heads, 8 KV heads of width 128) at 128k tokens in float16.
# Slide the tokens, the layers and the KV heads, or serve a batch.

# %%
MemoryCalculator(
    n=131072, heads=32, dtype="float16", kv_cache=True, layers=32, kv_heads=8, d_head=128
)

# %% [markdown]
# A model's cache as shipped
# ({eval}`stored_ref("11_modern_attention", "fig-cache-as-shipped")` of
# [Chapter 11](11_modern_attention.ipynb) and
# {eval}`stored_ref("12_linear_attention", "fig-hybrid-memory")` of
# [Chapter 12](12_linear_attention.ipynb)): with `kind` "window" (local layers of $W$ tokens
# and global layers), "mla" (a latent and a RoPE key a token and layer, against MHA, GQA and
# MQA) or "hybrid" (linear layers' fixed states and full layers' KV cache), each against the
# plain KV cache of every layer, with the totals at 32k, 128k and 1M tokens. The menu sets a
# published model's shape; the "cache" menu switches the kind.

# %%
MemoryCalculator(
    preset="Gemma 3 27B",
    presets=["Gemma 3 27B", "gpt-oss-120b", "DeepSeek-V3", "Qwen3-Next-80B"],
    n=131072,
)

# %% [markdown]
# ## The sliding window and its ring buffer (링 버퍼)
#
# In the chapters: {eval}`stored_ref("11_modern_attention", "fig-window-ring")` of
# [Chapter 11](11_modern_attention.ipynb), its six words under a sliding window of $W$ keys: the
# bars are the weights of the word $t$, and the boxes are the ring-buffer cache of $W$ slots,
# where word $t$ goes to slot $t \bmod W$ over the word $W$ places back. Slide $t$ (or tap a
# word) to watch the slots fill and wrap; switch on gpt-oss's sink and watch it take a share of
# the row, or the sigmoid gate and watch the output shrink while the weights stay.

# %%
WindowSinks()

# %% [markdown]
# ## The state filler (상태)
#
# Chapter 12's three memories, filled one token at a time with the same keys and values:
# softmax attention's KV cache, which grows by a key and a value a token, and the
# $d_v \times d_k$ states of linear attention and of the delta rule
# ([Chapter 12](12_linear_attention.ipynb)). Step with the buttons, the slider, a tap or a drag
# along the tokens, or the arrow keys on the drawing; switch the memory, the key asked and the
# delta rule's $\beta$. The bars show what the memory returns beside the value written last
# under that key. Here each of three keys is written twice, the second time with the value to
# recall:

# %%
filler = StateFiller()
filler

# %% [markdown]
# Six keys written once each, more than the state's four key dimensions hold apart: even
# linear attention's sum blurs every value with the others.

# %%
StateFiller(n_pairs=6, rewrite=False, method="linear")
