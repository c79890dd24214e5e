# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Many heads and masks (멀티헤드 어텐션과 마스크)
#
# The Korean write-up of the Quanta Magazine column (the Quanta write-up,
# [references](references.md)) ends its worked example, which this book follows, with one sentence:
# Transformers run many attention heads in parallel and stack layers, and the representation
# gets richer at every step. This
# chapter takes that sentence apart. Multi-head attention (멀티헤드 어텐션) and masks (마스크)
# are also where practitioners make many of their mistakes, so we follow the shapes at every
# step and name the convention of every API we meet.
#
# **The core of this chapter** is multi-head attention under a mask: project, split into
# heads, attend in each head with its own scale, merge with $W_O$, and hide the keys a query
# may not see. It runs through
# [Heads](07_heads_and_masks.ipynb#heads-several-attentions-on-slices-of-the-features),
# [Why several heads](07_heads_and_masks.ipynb#why-several-heads-one-looks-by-position-one-by-content),
# [Masks](07_heads_and_masks.ipynb#masks-what-a-query-may-not-see) and the
# [live heatmap](07_heads_and_masks.ipynb#live-toggle-the-masks-and-watch-the-rows-renormalise).
# The sections marked *Going further* count what many heads cost, stack layers into the first half of an
# induction circuit, pack several documents into one row, and compare what each API gives a
# row with no visible key; a first reading can skip them, and no core section needs them.
#
# After the core of this chapter you will be able to:
#
# - split queries, keys and values into heads, attend, merge and apply the output projection
#   $W_O$, and say the shape of the arrays at every step on a batch;
# - scale each head by $1/\sqrt{d_\text{head}}$ and explain why $1/\sqrt{d_\text{model}}$ is a
#   silent bug;
# - show on a hand-built example two heads that attend to different things;
# - build causal and padding masks, boolean or additive, and say which way `is_causal=True`
#   aligns its triangle when there are fewer queries than keys.
#
# After the *Going further* sections you will also be able to:
#
# - count what many heads cost against one wide head: the same matrix products, $h$ times the
#   softmax's work and, where the scores are stored, their memory;
# - stack two attention layers with residual connections, say what each token's vector
#   holds after each, and name the circuit that such a stack begins (an induction circuit);
# - say what every API gives for a row whose keys are all masked.
#
# New terms: head, output projection, causal mask, KV cache, padding; in the
# *Going further* sections, layer, residual connection, induction head, packing (each with its
# Korean name where it is introduced).

# %%
import math

import attn_core as ac
import numpy as np
from attn_book import experiments
from attn_book.data import SENTENCE_KO, two_head_example
from attn_book.exercises import ch07_heads_and_masks as ch7
from attn_book.figures import Figures
from attn_book.plots import plot_heatmaps
from attn_book.prose import dec, plain
from attn_book.tables import step_table
from attn_book.widgets import AttentionHeatmap

figures = Figures(chapter=7)
# every random number of this chapter comes from here
rng = np.random.default_rng(0)

# %% [markdown]
# ## Heads: several attentions on slices of the features
#
# A model of width $d_\text{model}$ (the number of features of every token's vector) does not
# compute one attention over all of them. It cuts the projected queries, keys and values
# into $h$ heads (헤드) of $d_\text{head} = d_\text{model}/h$ features each; every head runs
# the scaled dot-product attention of [Chapter 4](04_worked_example.ipynb) on its own slice,
# all heads at once; the heads' outputs are joined back together and multiplied by one more
# matrix, the output projection (출력 투영) $W_O$ ([Vaswani et al., 2017](references.md)):
#
# $$
# \begin{aligned}
# \mathrm{MultiHead}(X) &= \mathrm{Concat}(\mathrm{head}_1, \dots, \mathrm{head}_h)\, W_O, \\
# \mathrm{head}_i &= \mathrm{Attention}(X W_Q^{(i)}, X W_K^{(i)}, X W_V^{(i)}),
# \end{aligned}
# $$ (eq-ch7-multihead)
#
# where $W_Q^{(i)}$ is the $i$-th block of $d_\text{head}$ columns of $W_Q$. Take a batch of
# $B$ sentences of $L$ tokens each, with random embeddings and projections:

# %%
B, L, d_model, n_heads = 2, 5, 8, 2
d_head = d_model // n_heads
# [B, L, d_model]: one vector per token
x = rng.standard_normal((B, L, d_model))
W = rng.standard_normal((4, d_model, d_model)) / math.sqrt(d_model)
w_q, w_k, w_v, w_o = W  # [d_model, d_model] each
print("x", x.shape, " each W", w_q.shape, " d_head =", d_head)

# %% [markdown]
# ### Step 1: project, then split into heads
#
# The projections are the same as for one head; the split is a reshape of the last axis into
# $(h, d_\text{head})$ *followed by* a swap of the token and head axes, so that the heads
# stand beside the batch axis. `ac.split_heads` does both:

# %%
Q = x @ w_q  # [B, L, d_model] @ [d_model, d_model] -> [B, L, d_model]
K = x @ w_k
V = x @ w_v
# reshape to [B, L, h, d_head], swap: [B, h, L, d_head]
Q_h = ac.split_heads(Q, n_heads)
K_h = ac.split_heads(K, n_heads)
V_h = ac.split_heads(V, n_heads)
print("Q  ", Q.shape, "\nQ_h", Q_h.shape)

# %% [markdown]
# We number heads from 1, as {eq}`eq-ch7-multihead` does; numpy counts from 0, so head $i$
# is `Q_h[:, i - 1]`. Head $i$ holds features $(i-1)\,d_\text{head}$ to
# $i\,d_\text{head}-1$ of *every* token (features count from 0):

# %%
# Q_h[:, 1] is head 2: the second slice of features
np.testing.assert_array_equal(Q_h[:, 1], Q[:, :, d_head:])

# %% [markdown]
# ### Step 2: every head attends, scaled by its own width
#
# The scores of each head are dot products of $d_\text{head}$-dimensional vectors, so the
# scale is $1/\sqrt{d_\text{head}}$ ([Chapter 3](03_scaling.ipynb)):

# %%
# [B, h, L, d_head] @ [B, h, d_head, L]
scores = Q_h @ np.swapaxes(K_h, -1, -2) / math.sqrt(d_head)
# [B, h, L, L]: one L × L matrix per sentence and head
weights = ac.softmax(scores, axis=-1)
# [B, h, L, L] @ [B, h, L, d_head] -> [B, h, L, d_head]
heads_out = weights @ V_h
print("scores   ", scores.shape)
print("weights  ", weights.shape)
print("heads_out", heads_out.shape)

# %% [markdown]
# ```{admonition} Aside: attention dropout
# :class: dropdown
#
# In training, many models also drop attention weights at random (attention dropout: each
# weight is set to 0 with probability $p$ and the others are divided by $1 - p$, so a row sums
# to 1 only on average); it is `dropout_p` in PyTorch's `scaled_dot_product_attention`.
# Llama's and Qwen's published configurations set it to 0 (`attention_dropout`), and this book
# leaves it out.
# ```
#
# ### Step 3: merge the heads, then the output projection $W_O$
#
# `ac.merge_heads` undoes the split (swap back, then reshape), so that each token's vector is
# the concatenation of its heads' outputs. Without $W_O$, the first {eval}`d_head` output
# features would come from head 1 only and the rest from head 2 only; $W_O$ mixes them, so
# that every output feature can use what every head found:

# %%
# [B, h, L, d_head] -> [B, L, h·d_head] = [B, L, d_model]
merged = ac.merge_heads(heads_out)
# [B, L, d_model] @ [d_model, d_model] -> [B, L, d_model]
output = merged @ w_o
print("merged", merged.shape, "\noutput", output.shape)

# %% [markdown]
# The whole trace: $(B, L, d_\text{model})$ → $(B, h, L, d_\text{head})$ → $(B, h, L, L)$ →
# $(B, h, L, d_\text{head})$ → $(B, L, d_\text{model})$, with $B =$ {eval}`B`, $L =$ {eval}`L`,
# $d_\text{model} =$ {eval}`d_model`, $h =$ {eval}`n_heads` and $d_\text{head} =$
# {eval}`d_head`. `ac.multi_head_attention` is these three steps in one call:

# %%
output_lib, weights_lib = ac.multi_head_attention(x, x, w_q, w_k, w_v, w_o, n_heads)
np.testing.assert_allclose(output_lib, output)
np.testing.assert_allclose(weights_lib, weights)

# %% [markdown]
# Two bugs hide in these steps, and both run without an error. A reshape straight to
# $(B, h, L, d_\text{head})$, with no swap, has the right shape but deals out consecutive runs
# of the flattened features: head 1 gets all the features of the first $L/h$ tokens, and each
# of its rows is a piece of one token instead of a slice of every token (an exercise below). And dividing by
# $\sqrt{d_\text{model}}$ instead of $\sqrt{d_\text{head}}$ makes every head's scores
# $\sqrt{h}$ times too small.
#
# How much that matters, measured on one head of a model with $d_\text{model} = 512$ and 8
# heads: a random query against 16 random keys, every query and key component with standard
# deviation 1 (a fresh head) or 2 (a stand-in for a trained head, whose scores spread wider
# than a fresh one's; the aside below says why 2).
#
# ```{admonition} Aside: why standard deviation 2 stands for a trained head
# :class: dropdown
#
# [Chapter 3](03_scaling.ipynb) gives two ways training gets there: $W_Q$ and $W_K$ grow,
# and queries line up with the keys they should find, so that their components are no
# longer independent. Both widen the gap between the best key's score and the others, so
# both sharpen the softmax; the second does it by shifting the matching key's score up rather
# than by spreading all the scores. Doubling every component models the first way, and gives
# scaled scores with standard deviation $2 \cdot 2 = 4$ instead of 1.
# ```
#
# The table gives the mean, over random queries, of a
# row's largest weight and of its entropy (엔트로피), $-\sum_j w_j \log w_j$ in nats: 0 when
# one key takes everything, $\log S$ when all $S$ keys share equally. The keys are random
# but seeded (the `rng` of the first cell), so a run gives the same numbers:

# %%
n_queries = 500  # each against its own 16 keys
head_stats = {
    std: experiments.head_scale_stats(512, 8, 16, n_queries, rng, std=std) for std in (1.0, 2.0)
}  # std -> (right, bug)
step_table(
    {
        "components' std": ["1", "1", "2", "2"],
        "scale": ["1/√d<sub>head</sub>", "1/√d<sub>model</sub> (bug)"] * 2,
        "largest weight": [s.max_weight[0] for pair in head_stats.values() for s in pair],
        "entropy (nats)": [s.entropy[0] for pair in head_stats.values() for s in pair],
    }
)

# %%
entropy_uniform = math.log(16)  # 16 keys sharing equally
entropy_fresh, entropy_fresh_bug = (s.entropy[0] for s in head_stats[1.0])
top_trained, top_trained_bug = (s.max_weight[0] for s in head_stats[2.0])
# √d_model / √d_head = √h
too_small_by = math.sqrt(512) / math.sqrt(512 // 8)

# %% [markdown]
# The bug flattens every head, and on a fresh head it is easy to miss. Averaged over the
# {eval}`n_queries` queries, a fresh head attends fairly evenly anyway (uniform weights over
# 16 keys have entropy $\log 16 \approx$ {eval}`dec(entropy_uniform)`), and the bug only
# pushes its entropy from {eval}`dec(entropy_fresh)` to {eval}`dec(entropy_fresh_bug)`. The
# stand-in for a trained head puts {eval}`dec(top_trained)` of its weight on its best key when it is scaled
# right, but only {eval}`dec(top_trained_bug)` with the bug: the scores are
# $\sqrt 8 \approx$ {eval}`dec(too_small_by)` times too small, a temperature that flattens
# every head. It bites when trained weights move between code bases.
#
# ```{admonition} Aside: a model trained from scratch with the bug
# :class: dropdown
#
# A model trained from scratch with the bug can learn it away exactly ($W_Q$ and $W_K$ each
# $h^{1/4}$ times larger), and then only trains from a hotter start (every head's temperature
# $\sqrt h$ times higher, its weights flatter) with a different effective learning rate.
# ([Chapter 8](08_learning.ipynb) shows the mirror case: removing the scale is the same model
# with a larger start and, under gradient descent, a $\sqrt{d_k}$ times larger learning rate
# on $W_Q$ and $W_K$; here the bug is a smaller start and a $\sqrt h$ times smaller one under
# plain gradient descent, or an $h^{1/4}$ times smaller one under Adam, whose steps do not
# depend on the gradient's scale.)
# ```
#
# ## Why several heads: one looks by position, one by content
#
# One head gives every query one set of weights: one way of deciding what matters. Several
# heads let a token look at its neighbours for one purpose and at related words for another,
# at the same time. Trained models do grow such heads; some attend mostly to the previous
# token, or to an adjacent one ([Voita et al., 2019](references.md), in the encoders of
# translation models; language models grow previous-token heads too, [Elhage et al.,
# 2021](references.md)). To see the difference for certain, we build a
# two-head layer by hand. The sentence is "the cat saw the dog"; features 0 to 4 of each
# token say where it is (a one-hot position) and features 5 to 9 what it is (a one-hot word,
# the last one unused). Head 1 reads only the positions, and its query at position $i$ is 8
# times the key at position $i-1$; head 2 reads only the words, and its query is 8 times its
# own key: $W_K = W_V = W_O = I$, and $W_Q$ is block-diagonal. Its position block is 8 times
# a shifted identity (row $i$ to column $i - 1$, and the first row to column 0, itself) and
# fills head 1's columns; its word block is 8 times the identity and fills head 2's:

# %%
example = two_head_example()
tokens = list(example.tokens)
n_features = example.x.shape[1]  # 5 for the position, 5 for the word
mha = (example.w_q, example.w_k, example.w_v, example.w_o, 2)
# weights_2h: [h, L, L], one matrix per head
_, weights_2h = ac.multi_head_attention(example.x, example.x, *mha)
print(example.x.astype(int))  # rows: the, cat, saw, the, dog
print(example.w_q[:5, :5].astype(int))  # head 1's W_Q: row i -> i - 1

# %% tags=["hide-input"]
head_titles = ["head 1: by position", "head 2: by content"]
figures.show(
    plot_heatmaps(
        [
            {"matrix": w, "title": title, "rows": tokens, "cols": tokens}
            for w, title in zip(weights_2h, head_titles, strict=True)
        ]
    ),
    "fig-two-heads",
    "The two heads of the hand-built layer on the same sentence. Head 1 "
    "reads only the position features and puts most of each row on the "
    "previous token (the first *the*, with none before it, on itself); "
    "head 2 reads only the word features and puts most of each row on "
    "the tokens with the same word: both rows of *the* share their "
    "weight between the two *the*s.",
)

# %% [markdown]
# In {eval}`figures.ref("fig-two-heads")`, every token of head 1 but the first looks at the
# token before it: "saw" puts {eval}`dec(weights_2h[0, 2, 1])` on "cat". By hand: the
# matching pair scores 8 and the four other keys score 0; each head is half the features
# wide, so the scale is $1/\sqrt{d_\text{head}}$ with:

# %%
d_head_2h = n_features // 2  # each head's width
match_scaled = 8 / math.sqrt(d_head_2h)  # the matching key's scaled score
match_exp = math.exp(match_scaled)  # the four others give e^0 = 1 each
saw_on_cat = match_exp / (match_exp + 4)
np.testing.assert_allclose(saw_on_cat, weights_2h[0, 2, 1])

# %% [markdown]
# $d_\text{head} =$ {eval}`d_head_2h`, the scaled score is $8/\sqrt 5 \approx$
# {eval}`dec(match_scaled, 2)`, $e^{8/\sqrt 5} \approx$ {eval}`dec(match_exp, 1)`, and
# {eval}`dec(match_exp, 1)` / ({eval}`dec(match_exp, 1)` + 4) = {eval}`dec(saw_on_cat)`, the
# weight of the figure. The first "the" has no token before it; its query
# points at position 0, itself, and it puts {eval}`dec(weights_2h[0, 0, 0])` there. Head 2 ignores positions: the
# second "the" puts {eval}`dec(weights_2h[1, 3, 0])` on the first "the" and
# {eval}`dec(weights_2h[1, 3, 3])` on itself, and the other words mostly on themselves. The
# strongest key of each row says the same in words:

# %%
print("head 1 (by position):", [tokens[j] for j in weights_2h[0].argmax(axis=-1)])
print("head 2 (by content): ", [tokens[j] for j in weights_2h[1].argmax(axis=-1)])

# %% [markdown]
# ## Masks: what a query may not see
#
# A mask removes some keys from a query's softmax. `attn_core` follows
# `torch.nn.functional.scaled_dot_product_attention`: a boolean mask says **True = may
# attend**, and a hidden key's score becomes $-\infty$ before the softmax, so its weight is
# exactly 0 and the remaining weights of the row add up to 1 again.
#
# ### The causal mask: no peeking at the next word
#
# A language model learns to predict every token from the tokens before it. If position $i$
# could attend to position $i+1$, it would read the answer. The causal mask (인과 마스크)
# lets query $i$ see keys $0$ to $i$ only, the lower triangle:

# %%
causal = ac.causal_mask(L)  # [L, L] bool, True = may attend
_, weights_causal = ac.multi_head_attention(example.x, example.x, *mha, is_causal=True)
print(causal.astype(int))

# %% tags=["hide-input"]
figures.show(
    plot_heatmaps(
        [
            {
                "matrix": causal,
                "title": "causal mask",
                "rows": tokens,
                "cols": tokens,
                "digits": 0,
            },
            {
                "matrix": weights_2h[1],
                "title": "head 2, no mask",
                "rows": tokens,
                "cols": tokens,
            },
            {
                "matrix": weights_causal[1],
                "title": "head 2, causal",
                "rows": tokens,
                "cols": tokens,
                "hidden": ~causal,
            },
        ]
    ),
    "fig-causal",
    "The causal mask as a matrix (1 = may attend) and the content head "
    "without and with it; grey cells are masked. The first *the* no "
    "longer sees the second one, and every row renormalises over the "
    "keys it keeps.",
)

# %% [markdown]
# With the mask the first "the" can no longer see the second one: it sees only itself, weight
# {eval}`dec(weights_causal[1, 0, 0])`. The second "the" still finds the first, with
# {eval}`dec(weights_causal[1, 3, 0])`, and shares its row among four keys instead of five
# ({eval}`figures.ref("fig-causal")`). The mask does what it promises: change the last
# token, and no earlier output moves.

# %%
x_changed = example.x.copy()
x_changed[-1] = rng.standard_normal(n_features)  # replace "dog" by a random vector
outputs = [
    ac.multi_head_attention(inputs, inputs, *mha, is_causal=True)[0]
    for inputs in (example.x, x_changed)
]
# positions 0..3 unchanged
np.testing.assert_allclose(outputs[0][:-1], outputs[1][:-1])

# %% [markdown]
# ### Fewer queries than keys: where the triangle starts
#
# `is_causal=True` cuts the lower triangle out of the $L \times S$ scores starting from the
# top-left corner, in `attn_core` as in PyTorch's `scaled_dot_product_attention`: query $i$
# sees keys $0$ to $i$. With $L = S$ that is the causal mask. With fewer queries than keys it
# usually is not what is meant. The classic case is generating text with a cache of keys
# and values (KV cache, KV 캐시): the model has kept the keys and values of the four tokens it
# has read, computes only the new fifth token's query, and attends with $L = 1$ and $S = 5$.
# That query is the *last* position and may see all five keys, but the top-left triangle
# gives it only the first. (Cross-attention, [Chapter 5](05_projections.ipynb)'s decoder queries
# over the encoder's keys, also has $L \ne S$, but nothing in it is causal: only the encoder's
# padding is masked.)

# %%
w_q_position = example.w_q.copy()
w_q_position[5:, 5:] = 0.0  # keep only the position head's query (head 1)
# run as one head of all ten features: the scale is 1/√10, not head 1's 1/√5
q_new = example.x[4:] @ w_q_position  # [1, D]: the query of "dog" alone
k_all = example.x @ example.w_k  # [5, D]: the keys of all five tokens
# [1, D] @ [D, 5] -> [1, 5], top-left: key 0 only
weights_top_left = ac.attention_weights(q_new, k_all, is_causal=True)
# the last query may see every key
weights_all_keys = ac.attention_weights(q_new, k_all)
print("is_causal=True:", weights_top_left.round(3))
print("no mask:       ", weights_all_keys.round(3))

# %% [markdown]
# With `is_causal=True` the new token puts all its weight, {eval}`plain(weights_top_left)`,
# on the first token of the sentence; PyTorch's `scaled_dot_product_attention` gives the same
# (checked against PyTorch 2.13 in the project's tests). The
# right weights are {eval}`dec(weights_all_keys)`: the previous-token head finds "the", the
# token before "dog". (To keep the code short, the cell runs head 1 as one head of all
# {eval}`n_features` features with the word part of $W_Q$ zeroed, so the scale is
# $1/\sqrt{10}$ instead of $1/\sqrt 5$, and "the" gets {eval}`dec(weights_all_keys[0, 3])`
# instead of head 1's {eval}`dec(weights_2h[0, 4, 3])`: the same choice, held less firmly.)
# The top-left triangle runs silently, and every generated token reads only the first one.
# For $L$ new queries at the end of $S$ keys, query $i$ is position $S - L + i$ and may see
# keys $0$ to $S - L + i$: the triangle must be aligned with the *bottom-right* corner,
# the diagonal moved by $S - L$ (PyTorch builds it with
# `torch.nn.attention.bias.causal_lower_right`). Not every library aligns `causal=True` the
# same way: FlashAttention's `flash_attn_func` (flash-attn 2.1 and later) aligns it
# bottom-right when $L \ne S$; [Chapter 10](10_generation.ipynb) tabulates the libraries.

# %%
L_new, S_all = 2, 5
top_left = ac.causal_mask(L_new, S_all)  # what is_causal=True builds
# the diagonal moved right by S - L
all_pairs = np.ones((L_new, S_all), dtype=bool)
bottom_right = np.tril(all_pairs, k=S_all - L_new)
keys_seen = bottom_right.sum(axis=1)  # how many keys each new query sees
print(top_left.astype(int), "\n")
print(bottom_right.astype(int))

# %% [markdown]
# ### Padding masks: a batch of sentences of different lengths
#
# A batch is one array, so shorter sentences are filled up with padding (패딩) tokens to the
# length of the longest. Here the second sentence, "the cat", is padded with three zero
# vectors. `ac.padding_mask(lengths, S)` gives shape $(B, 1, S)$: the 1 broadcasts over the
# queries, and one more axis, `[:, None]`, broadcasts it over the heads.

# %%
lengths = [5, 2]
# [B, L, D]
batch = np.stack([example.x, example.x * (np.arange(L) < 2)[:, None]])
padding = ac.padding_mask(lengths, L)  # [B, 1, S], True = a real token
print(padding.astype(int))
_, weights_unpadded = ac.multi_head_attention(batch, batch, *mha)
_, weights_padded = ac.multi_head_attention(
    batch, batch, *mha, attn_mask=padding[:, None]
)  # mask [B, 1, 1, S] -> weights [B, h, L, S]
# "cat" in sentence 2, head 2: the three pads' share without the mask
padding_share = weights_unpadded[1, 1, 1, 2:].sum()
step_table(
    {
        "no mask": weights_unpadded[1, 1, 1],
        "padding mask": weights_padded[1, 1, 1],
    },
    index=["the", "cat", "pad", "pad", "pad"],
)

# %% [markdown]
# The row is "cat" in the second sentence, head 2. Without the mask the three padding
# tokens take {eval}`dec(padding_share)` of its weight; with it they get
# 0, and "cat" and "the" share the whole 1: "cat" keeps
# {eval}`dec(weights_padded[1, 1, 1, 1])` for itself and gives
# {eval}`dec(weights_padded[1, 1, 1, 0])` to "the".
#
# The mask hides the padding *keys* only. The three padding *queries* of the second sentence
# still attend to "the" and "cat" and get outputs like any token; nothing in attention removes
# them, so the model must drop them itself, for instance from the loss.
#
# ### Boolean and additive masks give the same weights
#
# A float mask is *added* to the scores, in `attn_core` as in
# `torch.nn.functional.scaled_dot_product_attention`: 0 where a key may be seen, $-\infty$
# where it may not. It is the same mask written another way:

# %%
# [B, 1, S]: 0 = may attend, -inf = hidden
additive = np.where(padding, 0.0, -np.inf)
_, weights_additive = ac.multi_head_attention(batch, batch, *mha, attn_mask=additive[:, None])
np.testing.assert_array_equal(weights_additive, weights_padded)

# %% [markdown]
# The trap to remember is the convention:
# `torch.nn.MultiheadAttention`'s boolean masks, `key_padding_mask` and `attn_mask` alike,
# mark the keys to *ignore*, so a mask built for `attn_core` or for
# `scaled_dot_product_attention` must be flipped with `~` before it goes there, and back.
#
# ## Live: toggle the masks and watch the rows renormalise
#
# The heatmap below is the explainer's sentence "나는 사과를 먹었다" (the Korean explainer
# of queries, keys and values, [references](references.md)), three words padded to five,
# with two toy heads of random projections, one shown at a time (the menu switches them).
# Switch the causal mask and the padding mask on and off: masked cells turn grey, and the
# other weights of their row grow so that the row still sums to 1. With the padding mask
# off, the two `<pad>` columns take weight from every word. The temperature slider and the
# scale box are the knobs of [Chapter 2](02_softmax.ipynb) and [Chapter 3](03_scaling.ipynb).

# %%
heatmap = AttentionHeatmap(query_tokens=[*SENTENCE_KO, "<pad>", "<pad>"], length=3, causal=True)
figures.show(
    heatmap,
    "fig-live-masks",
    "The explainer's sentence padded to five tokens, live: rows are queries, "
    "columns keys; the checkboxes switch the causal and the padding mask, "
    "the menu the head.",
)

# %% [markdown]
# The figure computes with `attn_core`; from code, its rows are those of
# `ac.attention_weights` with both masks combined by a logical *and*:

# %%
# [L, L] & [1, L] -> [L, L]
both = ac.causal_mask(L) & ac.padding_mask(3, L)[0]
q_toy, k_toy = (
    np.asarray(heatmap.head_queries[0]),
    np.asarray(heatmap.head_keys[0]),
)
np.testing.assert_allclose(heatmap.weights, ac.attention_weights(q_toy, k_toy, both))

# %% [markdown]
# ## Going further: what many heads cost
#
# Each head computes $L \times L$ dot products of length $d_\text{head}$, so $h$ heads do
# $h \cdot L^2 \cdot d_\text{head} = L^2 d_\text{model}$ multiply-adds for $QK^\top$, exactly
# as many as one head of width $d_\text{model}$; the same holds for the weighted sum of the
# values and for the projections. The softmax is another matter. It works on the scores, one
# exponential per score, and every head has its own $L \times L$ scores: $h$ heads
# exponentiate, scale, shift by the row maximum and divide by the row sum $h$ times as many
# numbers, and, in a kernel that stores the scores as this book's does, hold $h$ times as
# many (fused kernels such as FlashAttention, [Chapter 9](09_cost.ipynb), keep only tiles of
# the scores, and there only the exponentials and passes grow $h$ times). Counted by `ac.attention_cost` for the width of the
# original Transformer, $d_\text{model} = 512$ in 8 heads of $d_\text{head} = 64$ (the
# $d_k = 64$ that the Quanta write-up calls a real model's), on 1024 tokens:

# %%
one_wide = ac.attention_cost(batch=1, heads=1, L=1024, S=1024, d=512)
eight_heads = ac.attention_cost(batch=1, heads=8, L=1024, S=1024, d=64)
layouts = {"1 head of 512": one_wide, "8 heads of 64": eight_heads}
qk_gflop = [c.qk_flops / 1e9 for c in layouts.values()]
exps_millions = [c.softmax_exps / 1e6 for c in layouts.values()]
scores_mb = [c.score_bytes / 1e6 for c in layouts.values()]  # float32
step_table(
    {
        "QKᵀ GFLOP": qk_gflop,
        "weights·V GFLOP": [c.av_flops / 1e9 for c in layouts.values()],
        "exponentials (millions)": exps_millions,
        "scores held (MB)": scores_mb,
    },
    index=list(layouts),
    digits=3,
)

# %% [markdown]
# The matrix products are the same, {eval}`dec(qk_gflop[0])` GFLOP (billions of
# floating-point operations, a multiply-add counting 2) for $QK^\top$ either way. What grows
# 8 times is everything the softmax touches: {eval}`dec(exps_millions[1], 2)` million
# exponentials instead of {eval}`dec(exps_millions[0], 2)` million, each with its share of
# the elementwise passes, and, where the scores are stored, {eval}`dec(scores_mb[1], 1)` MB
# of them instead of {eval}`dec(scores_mb[0], 1)` MB in float32. Those passes are cheap in FLOPs but not in
# time: [Chapter 9](09_cost.ipynb) measures them taking a large share of it, because each
# one streams the whole score matrix through memory.
#
# ## Going further: layers, stacking attention with residual connections
#
# A Transformer stacks layers (층): the output of one attention layer is the input of the
# next. Each layer *adds* its output to its input, $X_{l+1} = X_l + \mathrm{MultiHead}(X_l)$,
# a residual connection (잔차 연결): a token keeps what it had and gains what it gathered.
# Real layers also normalise and pass every token through a feed-forward network of two
# matrices, $d_\text{model} \times d_\text{ff}$ and back; in the original Transformer:

# %%
d_ff = 2048  # the original Transformer's feed-forward width, for d_model = 512
ffn_params = 2 * 512 * d_ff  # two matrices
attention_params = 4 * 512 * 512  # W_Q, W_K, W_V, W_O
ffn_wider_by = d_ff // 512
ffn_share = ffn_params / (ffn_params + attention_params)
# Llama 3 8B: d_model = 4096, a gated feed-forward network (SwiGLU) of three 4096 × 14336
# matrices, 32 query heads and 8 key/value heads of 128 numbers (Chapter 10's grouped-query)
llama_ffn_params = 3 * 4096 * 14336
llama_attention_params = 2 * 4096 * 4096 + 2 * 4096 * 8 * 128  # W_Q, W_O; W_K, W_V
llama_ffn_share = llama_ffn_params / (llama_ffn_params + llama_attention_params)

# %% [markdown]
# The feed-forward network is {eval}`plain(ffn_wider_by)` times as wide as the model and holds
# {eval}`dec(ffn_share, 2)` of the layer's parameters; in today's models the share is larger:
# Llama 3 8B's gated network (SwiGLU, three matrices) beside grouped key and value heads
# ([Chapter 10](10_generation.ipynb); [Grattafiori et al., 2024](references.md)) holds
# {eval}`dec(llama_ffn_share, 2)` of each layer's.
# We leave it and the normalisation out,
# to watch attention alone. Stack the position head of our example twice:


# %%
def layer(x_in):
    """One layer with a residual connection: x + attention(x).

    [L, D] -> [L, D], and the weights [L, L] of its one head.
    """
    out, w = ac.multi_head_attention(
        x_in,
        x_in,
        w_q_position,  # head 1's query alone, from the section on fewer queries
        example.w_k,
        example.w_v,
        example.w_o,
        n_heads=1,
    )
    # [L, D], and the weights [L, L] of its one head
    return x_in + out, w[0]


x1, A1 = layer(example.x)  # after layer 1
x2, A2 = layer(x1)  # after layer 2
match_exp_wide = math.exp(8 / math.sqrt(n_features))  # the matching key, scale 1/√10
np.testing.assert_allclose(A1[2, 1], match_exp_wide / (match_exp_wide + 4))

# %% [markdown]
# To keep the code short, `layer` runs the position head as one head (`n_heads=1`) of all
# {eval}`n_features` features with the content part of $W_Q$ zeroed. The scores are the same,
# but the scale is now $1/\sqrt{10}$, not $1/\sqrt 5$, so in layer 1 "saw" gives the previous
# token $e^{8/\sqrt{10}} / (e^{8/\sqrt{10}} + 4) =$ {eval}`dec(A1[2, 1])` instead of head 1's
# {eval}`dec(weights_2h[0, 2, 1])`: the same choice, held less firmly. The values are the
# tokens' own vectors here ($W_V = W_O = I$), so each layer is linear in its
# input once its weights are known: $X_1 = (I + A_1) X$ and $X_2 = (I + A_2)(I + A_1) X$. Row
# $i$ of $(I + A_2)(I + A_1)$ says how much of each input token is in token $i$'s vector after
# two layers; divided by its sum, it is the share of each:

# %%
holds_1 = np.eye(L) + A1  # [L, L]
holds_2 = (np.eye(L) + A2) @ holds_1
# exactly what the layers computed
np.testing.assert_allclose(x2, holds_2 @ example.x)
share_1 = holds_1 / holds_1.sum(axis=-1, keepdims=True)
share_2 = holds_2 / holds_2.sum(axis=-1, keepdims=True)

# %% tags=["hide-input"]
figures.show(
    plot_heatmaps(
        [
            {
                "matrix": share_1,
                "title": "after layer 1",
                "rows": tokens,
                "cols": tokens,
            },
            {
                "matrix": share_2,
                "title": "after layer 2",
                "rows": tokens,
                "cols": tokens,
            },
        ],
        xlabel="input token",
        ylabel="token's vector",
        value_label="share",
    ),
    "fig-layers",
    "What each token's vector holds after one and after two layers of "
    "the previous-token head, with residual connections: the share of "
    "each input token in it. After one layer a token holds mostly itself "
    "and the token before it; after two, also the token two back (the "
    "softmax's tail gives every token a small share of all the others).",
)

# %% [markdown]
# After one layer, "dog" holds itself ({eval}`dec(share_1[4, 4])`) and the "the" before it
# ({eval}`dec(share_1[4, 3])`); after two it also holds "saw", two tokens back
# ({eval}`dec(share_2[4, 2])`, {eval}`figures.ref("fig-layers")`). It got "saw" mostly
# through the "the", which gathered "saw" in layer 1: in layer 2, "dog" still puts
# {eval}`dec(A2[4, 3])` of its weight on the token before it and only
# {eval}`dec(A2[4, 2])` on "saw" itself. That is the Quanta write-up's "stack layers and the
# representation gets richer" in numbers: each layer lets information travel one more hop,
# and a second-layer head can use what the first layer gathered.
#
# Trained Transformers use exactly that. A previous-token head like our layer 1 is the first
# of the two heads of an induction circuit, found in trained models; the second, in a later
# layer, is what [Elhage et al. (2021)](references.md) and
# [Olsson et al. (2022)](references.md) call the induction head (인덕션 헤드). After layer 1,
# each token's vector also says which
# token came before it. A head in a later layer then takes the current token as its query and
# matches it against those "the token before me was …" parts of the keys: it finds the token
# that *followed* an earlier occurrence of the current one, and copies it forward. After
# "Harry Potter … Harry" it attends to "Potter" and helps predict it next. Our second layer
# looks by position again, so our stack has only the circuit's first head; the induction head
# looks by content, through what the first head wrote.
#
# ## Going further: packing several documents in one row, no padding
#
# Pre-training rarely pads (fine-tuning on short examples often does). It packs (패킹)
# documents back to back into one row, and often (Llama 3, for example, [Grattafiori et al.,
# 2024](references.md)) hides every key outside the query's own document; other pipelines
# leave attention free to cross documents, with only an end-of-text token between them. The
# mask is block-diagonal, one block per document
# (causal inside each block when the model is causal). `ac.document_mask(lengths)` builds
# it; here the two sentences of the
# [padded batch](07_heads_and_masks.ipynb#padding-masks-a-batch-of-sentences-of-different-lengths),
# packed into one row of 7 tokens and attending both ways as in the padded batch:

# %%
packed = np.concatenate([example.x, example.x[:2]])  # [N, D]: "the cat saw the dog", "the cat"
document = ac.document_mask(lengths, causal=False)  # [N, N], True = the same document
print(document.astype(int))
out_packed, _ = ac.multi_head_attention(packed, packed, *mha, attn_mask=document)
out_padded, _ = ac.multi_head_attention(batch, batch, *mha, attn_mask=padding[:, None])
out_real = np.concatenate([out_padded[0], out_padded[1, :2]])  # the batch's 7 real tokens
slots_padded = batch.shape[0] * batch.shape[1]  # B × L token slots, padding included
positions_packed = np.concatenate([np.arange(n) for n in lengths])  # each document from 0
print("positions:", positions_packed)
same = np.allclose(out_packed, out_real, rtol=0, atol=1e-12)
print("the padded batch's outputs, to 1e-12:", same)

# %% [markdown]
# The packed row gives every real token the output the padded batch gave it, to rounding,
# and holds {eval}`plain(packed.shape[0])` tokens where the batch held
# {eval}`plain(slots_padded)`. Each document's positions start again at
# 0 (here the position features of "the cat" are those of a sentence's first two words): a
# model with rotary positions ([Chapter 6](06_positions.ipynb)) is given them as
# `position_ids`, and FlashAttention's variable-length kernels take the documents' boundaries
# (`cu_seqlens`) instead of the $N \times N$ mask.
#
# ## Going further: a fully masked row, and what each API gives
#
# What if a query may see no key at all? It happens with an empty sentence in a batch, or a
# left-padded sentence under a causal mask. Its row of scores is all $-\infty$, and the
# softmax has nothing to share out. Different APIs answer differently. A batch with an empty
# second sentence:

# %%
empty = ac.padding_mask([5, 0], L)  # the second sentence has no real token
_, weights_empty = ac.multi_head_attention(batch, batch, *mha, attn_mask=empty[:, None])
row_attn_core = weights_empty[1, 0, 0]  # attn_core: every weight 0
row_attn_core

# %% [markdown]
# The same row done by hand: a plain softmax over $-\infty$ computes $e^{-\infty - (-\infty)}$,
# which is NaN; and the common trick of filling with $-10^9$ instead of $-\infty$ gives every
# hidden key the same score, hence uniform weights over keys that were all supposed to be
# hidden:

# %%
hidden_row = np.full(L, -np.inf)  # every key masked
with np.errstate(invalid="ignore"):
    # -inf - (-inf) = NaN
    row_plain = np.exp(hidden_row - hidden_row.max())
    row_plain = row_plain / row_plain.sum()
# np.where(mask, scores, -1e9), all masked
row_fill = ac.softmax(np.full(L, -1e9))
with np.errstate(over="ignore"):
    fill_in_float16 = np.float16(-1e9)  # float16 ends near ±65504
print(
    "plain softmax:",
    row_plain,
    "\n-1e9 fill:    ",
    row_fill,
    "\n-1e9 in float16:",
    fill_in_float16,
)

# %% [markdown]
# This chapter does not run PyTorch (where it is installed, Chapter 5 runs it in one optional
# comparison and Chapter 10 in one optional check). Its rows below are what PyTorch 2.13 (2026)
# gives on CPU (`F` is `torch.nn.functional`, `nn` is `torch.nn`): the project's tests make
# each call and fail if a row stops saying what the installed release does. On a GPU,
# `F.scaled_dot_product_attention` picks one of several kernels (listed below), and not every
# kernel gives zeros: such rows have
# come out NaN before ([huggingface/transformers#38690](https://github.com/huggingface/transformers/issues/38690)),
# and still did in a 2026 report, PyTorch 2.13 on an NVIDIA B200, for left-padded rows that
# may see no key ([unslothai/unsloth#9848](https://github.com/unslothai/unsloth/pull/9848)).
# On a GPU, check the row on your own kernel rather than trust this table.
# The other rows are computed above:
#
# | API | a boolean True means | a fully masked row gives |
# |---|---|---|
# | `attn_core` | may attend | zeros: {eval}`plain(row_attn_core)` |
# | `F.scaled_dot_product_attention` | may attend | zeros on CPU (releases before 2.5: NaN; changed in [pytorch/pytorch#133882](https://github.com/pytorch/pytorch/pull/133882)); on a GPU, NaN on some kernels |
# | plain softmax (yours, or `torch.softmax`), $-\infty$ fill | (your code) | NaN: {eval}`plain(row_plain)` |
# | softmax, $-10^9$ fill | (your code) | uniform: {eval}`plain(row_fill)` |
# | softmax, $-10^9$ fill, float16 | (your code) | NaN: $-10^9$ becomes {eval}`plain(fill_in_float16)` |
#
# Both `attn_core` and `F.scaled_dot_product_attention` also take a float mask, which they
# add to the scores. In PyTorch (2.13, checked outside the book), `masked_fill(mask, -1e9)`
# on a float16 tensor does not even get that far: it raises an error, because $-10^9$ does
# not fit in float16.
#
# Zeros are the honest answer: the query gathers nothing, and its output is the zero vector.
# NaN spreads through every later layer and into the loss; uniform weights quietly average
# padding. PyTorch's layer `nn.MultiheadAttention` answers differently depending on how it is
# called: NaN whenever it returns its weights or runs its inference fast path; otherwise zero
# attention, so that the row's output is the output projection's bias (the aside below goes
# through the cases).
#
# ````{admonition} Aside: nn.MultiheadAttention, call by call
# :class: dropdown
#
# | call | a boolean True means | a fully masked row gives |
# |---|---|---|
# | `nn.MultiheadAttention`'s boolean `attn_mask`, `need_weights=True` (the default) | **ignore** | NaN, in the weights and the output |
# | `nn.MultiheadAttention`'s `key_padding_mask`, `need_weights=True` (the default) | **ignore** | NaN, in the weights and the output |
# | the same, `need_weights=False`, training or with autograd on | **ignore** | zeros: it then calls `F.scaled_dot_product_attention`, and the layer returns its output projection's bias |
# | the same with `batch_first=True`, self-attention (query is key is value), `need_weights=False`, `eval()` under `torch.no_grad()` (the inference fast path) | **ignore** | NaN with an even number of heads; zeros with an odd number (one included), which takes no fast path |
# | the same in `eval()` under `torch.no_grad()`, but `batch_first=False` (the default) | **ignore** | zeros: no fast path, it calls `F.scaled_dot_product_attention` |
# | the same in `eval()` under `torch.no_grad()`, but cross-attention (query not key) | **ignore** | zeros: no fast path, it calls `F.scaled_dot_product_attention` |
#
# So a padded batch can train without a NaN (`need_weights=False`) and then produce NaN in
# evaluation, on the fast path, which needs `eval()`, no autograd, `batch_first=True`, the
# same tensor as query, key and value and an even number of heads (among other conditions).
# The same API has a quieter trap: with `need_weights=True` the weights it returns are
# *averaged over the heads*, shape $(B, L, S)$, unless `average_attn_weights=False` gives the
# $(B, h, L, S)$ of this chapter.
# ````
#
# Today PyTorch writes this chapter's masks, and Chapter 6's ALiBi, in two ways.
# `F.scaled_dot_product_attention` takes `is_causal` or an `attn_mask` and picks one of
# several kernels (backends: flash attention, memory-efficient, cuDNN, the plain "math" one)
# by what the inputs allow; `torch.nn.attention.sdpa_kernel(SDPBackend.MATH)` (a context
# manager) restricts the choice, which is how to find out whether a result depends on the
# kernel. FlexAttention ([Dong et al., 2024](references.md); [PyTorch, 2024](references.md)),
# `torch.nn.attention.flex_attention.flex_attention(q, k, v,
# score_mod=..., block_mask=...)`, takes the masks as small Python functions instead of
# matrices: a `score_mod(score, b, h, q_idx, kv_idx)` that returns the changed score (ALiBi
# is `score - slope[h] * (q_idx - kv_idx)`) and a `block_mask` made by `create_block_mask`
# from a `mask_mod(b, h, q_idx, kv_idx)` (the causal mask is `q_idx >= kv_idx`), which lets
# the kernel skip the blocks that are wholly masked.

# %% [markdown]
# ## Summary
#
# - Multi-head attention projects, splits $(B, L, d_\text{model})$ into
#   $(B, h, L, d_\text{head})$ with a reshape *and* a swap, attends in every head with scale
#   $1/\sqrt{d_\text{head}}$, merges back to $(B, L, d_\text{model})$ and applies $W_O$.
# - Heads can attend to different things: on our example, one by position and one by content.
# - Masks: causal for language models, padding for batches; boolean (True = may attend) and
#   additive (0 or $-\infty$) give the same weights. `is_causal=True` aligns its triangle
#   top-left, wrong for new queries after cached keys, which need the bottom-right one.
#   `nn.MultiheadAttention`'s boolean masks, `key_padding_mask` and `attn_mask` alike, mean
#   True = ignore.
# - *Going further:* $h$ heads of $d_\text{head}$ cost the matrix-product FLOPs of one head
#   of $d_\text{model}$; the softmax's exponentials and passes grow $h$ times, and so does the
#   scores' memory in a kernel that stores them (fused kernels keep only tiles).
# - *Going further:* one layer reaches every token, but composes one attention step: with
#   residual connections, a chain of $n$ lookups (say $n$ tokens back through previous-token
#   heads) needs $n$ layers (a single head can look a fixed distance back by position; what
#   needs layers is composing lookups, each using what the last one gathered); a
#   previous-token head in one layer is the first of the two heads of an induction circuit,
#   whose second head, in a later layer, is the induction head.
# - *Going further:* packing puts documents back to back in one row under a block-diagonal
#   document mask; every token gets the output a padded batch gives it, and each document's
#   positions start again at 0.
# - *Going further:* a fully masked row gives zeros in `attn_core` and PyTorch's
#   `scaled_dot_product_attention` (2.13 on CPU; some GPU kernels still give NaN), NaN in a
#   plain softmax and in `nn.MultiheadAttention` whenever it returns its weights or runs its
#   inference fast path, uniform weights with a $-10^9$ fill.
#
# ## Exercises
#
# Each exercise checks your answer on the spot: run the cell and read the one-line verdict.
#
# ```{exercise} Find the bug: splitting into heads
# :label: ex-ch7-bug-heads
#
# The function below should turn $(\dots, n, D)$ into $(\dots, h, n, D/h)$, each of the
# $h$ heads getting its own slice of every position's features ($n$ positions). It returns the right
# shape, but its heads are wrong. Copy it as `fixed_split`, fix it, and run the check.
# ```

# %%
ch7.heads_reshape.show()

# %% [markdown]
# ```{admonition} Hint
# :class: dropdown
#
# Try it on `np.arange(12).reshape(3, 4)` (3 positions, 4 features) with 2 heads. Head 1,
# `[0]` of the result, should hold features 0 and 1 of *every* position. Does it?
# ```


# %%
def fixed_split(x, n_heads):
    raise NotImplementedError  # copy the function above here and fix it


ch7.heads_reshape.check(fixed_split)

# %% [markdown]
# ````{solution} ex-ch7-bug-heads
# :class: dropdown
#
# A reshape keeps the numbers in memory order, so reshaping $(n, D)$ straight to
# $(h, n, d_\text{head})$ puts all the features of the first positions into head 1. Reshape to
# $(n, h, d_\text{head})$, which cuts each position's features into heads, then swap the
# position and head axes:
#
# ```python
# def fixed_split(x, n_heads):
#     *batch, n, D = x.shape
#     x = x.reshape(*batch, n, n_heads, D // n_heads)  # [..., n, h, d_head]
#     return np.swapaxes(x, -2, -3)  # [..., h, n, d_head]
#
#
# ch7.heads_reshape.check(fixed_split)
# ```
# ````

# %% [markdown]
# ```{exercise} Find the bug: scaling each head
# :label: ex-ch7-bug-d-model
#
# The function below splits projected queries and keys into heads and computes each head's
# weights. It runs, its rows sum to 1, yet its heads attend too evenly. Copy it as
# `fixed_head_weights`, fix it, and run the check.
# ```

# %%
ch7.scale_d_model.show()

# %% [markdown]
# ```{admonition} Hint
# :class: dropdown
#
# What is the length of the vectors whose dot products make one head's scores: `q.shape[-1]`,
# or `qh.shape[-1]`?
# ```


# %%
def fixed_head_weights(q, k, n_heads):
    raise NotImplementedError  # copy the function above here and fix it


ch7.scale_d_model.check(fixed_head_weights)

# %% [markdown]
# ````{solution} ex-ch7-bug-d-model
# :class: dropdown
#
# Each head's scores are dot products of $d_\text{head}$-dimensional vectors, so their
# variance is $d_\text{head}$ and the scale is $1/\sqrt{d_\text{head}}$, with
# $d_\text{head} = D/h$:
#
# ```python
# def fixed_head_weights(q, k, n_heads):
#     qh = ac.split_heads(q, n_heads)  # [..., h, n, d_head]
#     kh = ac.split_heads(k, n_heads)  # [..., h, n, d_head]
#     d_head = qh.shape[-1]  # the length each head's vectors have
#     kh_t = np.swapaxes(kh, -1, -2)  # [..., h, d_head, n]
#     scores = qh @ kh_t / math.sqrt(d_head)  # [..., h, n, n]
#     return ac.softmax(scores, axis=-1)
#
#
# ch7.scale_d_model.check(fixed_head_weights)
# ```
# ````

# %% [markdown]
# ```{exercise} Write the function: merge the heads, then $W_O$
# :label: ex-ch7-merge-heads
#
# Write `merge_and_project(heads, w_o)`, step 3 of the section on heads: `heads` are the
# heads' outputs, shape $(\dots, h, L, d_\text{head})$, and `w_o` is $W_O$, shape
# $(h \cdot d_\text{head}, D)$. Join each token's heads in order, head 1 first, into one row
# of $h \cdot d_\text{head}$ features, and multiply by $W_O$: the result is
# $(\dots, L, D)$. Plain NumPy, not `ac.merge_heads`. The check runs it on square and
# non-square $W_O$, on every leading shape and on float32.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Which axis must move before a reshape can join a token's heads? Check it on a small array:
# `np.arange(12).reshape(2, 3, 2)`, two heads of three tokens.
# ```


# %%
def merge_and_project(heads, w_o):
    raise NotImplementedError  # [..., h, L, d_head] -> [..., L, D]


ch7.merge_heads_output.check(merge_and_project)

# %% [markdown]
# ````{solution} ex-ch7-merge-heads
# :class: dropdown
#
# Swap the heads axis with the tokens axis, so that each token's $h$ heads are side by side,
# then reshape them into one row: head $i$'s $d_\text{head}$ numbers become features
# $(i - 1) \cdot d_\text{head}$ to $i \cdot d_\text{head} - 1$ (in the section,
# {eval}`n_heads` heads of {eval}`d_head` made rows of {eval}`d_model`). The product with
# $W_O$ is then the sum over the heads of each head's output times its own block of
# $d_\text{head}$ rows of $W_O$, $\sum_i \text{head}_i W_O^{(i)}$, where $W_O^{(i)}$ is
# rows $(i - 1) \cdot d_\text{head}$ to $i \cdot d_\text{head} - 1$ of $W_O$. A reshape
# without the swap joins consecutive runs of one head's outputs into a row instead, the
# heads joined in another order meet the wrong rows of $W_O$, and $W_O^\top$ runs only when $W_O$ is square, with other numbers.
#
# ```python
# def merge_and_project(heads, w_o):
#     *lead, h, L, d_head = heads.shape
#     by_token = np.swapaxes(heads, -2, -3)  # [..., L, h, d_head]
#     merged = by_token.reshape(*lead, L, h * d_head)  # [..., L, h·d_head]
#     return merged @ w_o  # [..., L, D]
#
#
# ch7.merge_heads_output.check(merge_and_project)
# ```
# ````

# %% [markdown]
# ```{exercise} What grows with the heads, for GPT-2 small
# :label: ex-ch7-heads-cost
#
# GPT-2 small's attention layers have $d_\text{model} = 768$ in $h = 12$ heads. For one
# sequence of $L = S = 1024$ tokens, work out by hand, for one layer: the GFLOP ($10^9$
# FLOPs) of $QK^\top$ over all heads, the number of exponentials the softmax computes (in
# millions), and the MB ($10^6$ bytes) of float32 scores held at once, as
# `[GFLOP, millions, MB]`.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# $d_\text{head} = 768 / 12$. Every head has its own $L \times S$ scores; each score is a dot
# product of $d_\text{head}$ terms (2 FLOPs a term), one exponential, and 4 bytes.
# $1024^2 = 1\,048\,576$.
# ```

# %%
answer = ...  # [GFLOP of QKᵀ, millions of exponentials, MB of scores]
ch7.heads_cost.check(answer)

# %% [markdown]
# ````{solution} ex-ch7-heads-cost
# :class: dropdown
#
# $d_\text{head} = 64$, and the 12 heads hold $12 \cdot 1024^2 = 12\,582\,912$ scores.
# $QK^\top$: $2 \cdot 64$ FLOPs per score, $1.611$ GFLOP, as many as one head of 768 would
# do. The softmax: one exponential per score, $12.583$ million, 12 times one head's. The
# scores: 4 bytes each, $50.332$ MB, 12 times one head's too. `ac.attention_cost` counts
# the same:
#
# ```python
# cost = ac.attention_cost(1, 12, 1024, 1024, 64)
# answer = [cost.qk_flops / 1e9, cost.softmax_exps / 1e6, cost.score_bytes / 1e6]
# ch7.heads_cost.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Design: a head that looks two tokens back
# :label: ex-ch7-design-two-back
#
# Design the query matrix of a head that looks two tokens back. Use the chapter's sentence
# and its one-hot features (`example.x`: positions in features 0 to 4, words in 5 to 9) and
# one head of all ten features with $W_K = I$, as in the layers above. Give the $5 \times 5$
# block of $W_Q$ that acts on the position features (its word part is 0) such that every
# token from the third on puts its largest weight, and at least 0.6, on the token two places
# before it. The check computes the head's weights from your block and judges them.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Row $i$ of the block is the query of position $i$, and its entry in column $j$ is that
# query's score against the key of position $j$. Head 1's block was
# `example.w_q[:5, :5]`; which entries does a look two back need, and how large must they be
# against the scale $1/\sqrt{10}$ and the four other keys?
# ```

# %%
block = ...  # the 5 × 5 position block of W_Q
ch7.two_back_head.check(block)

# %% [markdown]
# ````{solution} ex-ch7-design-two-back
# :class: dropdown
#
# The query of position $i$ must score the key of position $i - 2$: put a number $c$ in row
# $i$, column $i - 2$, that is on the second diagonal below the main one. Then the matching
# key scores $c/\sqrt{10}$ and the four others 0, and the weight is
# $e^{c/\sqrt{10}} / (e^{c/\sqrt{10}} + 4) \ge 0.6$ when
# $c \ge \sqrt{10}\,\ln 6 \approx 5.67$. With $c = 8$, as head 1 used, it is 0.758. The
# first two tokens have nothing two places back; their rows are zero and they spread their
# weight evenly.
#
# ```python
# block = 8 * np.eye(5, k=-2)  # 8 at (i, i - 2), 0 elsewhere
# ch7.two_back_head.check(block)
# ```
# ````

# %% [markdown]
# ```{exercise} A padded key, by hand
# :label: ex-ch7-padding-by-hand
#
# Take the worked example's query $\mathbf q = (1, 0)$ and keys $(1, 0)$, $(0, 1)$, $(1, 1)$, but the
# sentence has only two real tokens: the third key is padding. Give the three weights under
# the padding mask, to three decimals.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# The padding key's weight is exactly 0; the softmax runs over the two real scores,
# $1/\sqrt 2$ and $0$. $e^{0.707} \approx 2.028$.
# ```

# %%
answer = ...  # three weights
ch7.padding_by_hand.check(answer)

# %% [markdown]
# ````{solution} ex-ch7-padding-by-hand
# :class: dropdown
#
# The scaled scores of the real keys are $0.707$ and $0$, so the weights are
# $2.028 / 3.028$ and $1 / 3.028$; the padding key gets 0. Compare with the worked example's
# 0.401, 0.198, 0.401 without the mask: the real keys share the whole 1.
#
# ```python
# e = math.exp(1 / math.sqrt(2))
# answer = [e / (e + 1), 1 / (e + 1), 0.0]
# ch7.padding_by_hand.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} The opposite convention
# :label: ex-ch7-key-padding-mask
#
# A colleague's data loader gives masks in the convention of `torch.nn.MultiheadAttention`'s
# `key_padding_mask`: shape $(\dots, S)$, **True = ignore this key**. Write
# `weights_from_key_padding_mask(q, k, key_padding_mask)` that returns the attention weights
# $(\dots, L, S)$ with `ac.attention_weights`, whose `attn_mask` says True = may attend.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Two things: flip the mask, and give it an axis for the queries so that it broadcasts to
# $(\dots, L, S)$.
# ```


# %%
# your code here
def weights_from_key_padding_mask(q, k, key_padding_mask): ...


ch7.key_padding_weights.check(weights_from_key_padding_mask)

# %% [markdown]
# ````{solution} ex-ch7-key-padding-mask
# :class: dropdown
#
# `~` flips the convention, and `[..., None, :]` adds the query axis:
#
# ```python
# def weights_from_key_padding_mask(q, k, key_padding_mask):
#     # [..., S], True = may attend
#     may_attend = ~np.asarray(key_padding_mask, dtype=bool)
#     mask = may_attend[..., None, :]  # [..., 1, S]
#     return ac.attention_weights(q, k, mask)
#
#
# ch7.key_padding_weights.check(weights_from_key_padding_mask)
# ```
# ````

# %% [markdown]
# ```{exercise} Write the function: several new queries at the end
# :label: ex-ch7-new-queries
#
# A model has the keys and values of $S$ positions and computes the queries of the last $L$
# of them only ($L \le S$: a chunk of a long prompt, or several drafted tokens checked at
# once). Write `attend_new(q, k, v)` with `q` $(\dots, L, d_k)$, `k` $(\dots, S, d_k)$ and `v`
# $(\dots, S, d_v)$ that returns their outputs $(\dots, L, d_v)$ under the causal mask that
# these positions need: build the mask yourself from `np.arange` and pass it to
# `ac.scaled_dot_product_attention` as `attn_mask`.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Query $i$ of the $L$ is which position of the $S$? It may see the keys up to and including
# that position.
# ```


# %%
def attend_new(q, k, v):
    raise NotImplementedError  # [..., L, d_v]


ch7.new_queries_attention.check(attend_new)

# %% [markdown]
# ````{solution} ex-ch7-new-queries
# :class: dropdown
#
# Query $i$ is position $i + S - L$, so it sees keys $j \le i + S - L$: the bottom-right
# triangle of the section above, where the {eval}`L_new` new queries of {eval}`S_all`
# positions see {eval}`plain(keys_seen)` keys. The top-left triangle of
# `is_causal=True`, $j \le i$, is the same only when $L = S$; with no mask at all, only when
# $L = 1$.
#
# ```python
# def attend_new(q, k, v):
#     L, S = q.shape[-2], k.shape[-2]
#     i = np.arange(L)[:, None]  # query i is position i + S - L
#     j = np.arange(S)[None, :]
#     mask = j <= i + S - L  # [L, S], True = may attend
#     return ac.scaled_dot_product_attention(q, k, v, attn_mask=mask)
#
#
# ch7.new_queries_attention.check(attend_new)
# ```
# ````

# %% [markdown]
# ```{exercise} Predict: $-10^4$ in float16
# :label: ex-ch7-float16-fill
#
# Since $-10^9$ does not fit in float16, a float16 code base masks its scores with
# `np.where(mask, scores, -1e4).astype(np.float16)` instead and passes them to a plain softmax (subtract the row's maximum,
# exponentiate, divide by the sum). What does a row whose keys are *all* masked give now:
# `"zeros"`, `"uniform"` or `"NaN"`?
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# The largest float16 number is about 65504. What does `np.float16(-1e4)` become, and what
# is the row's maximum?
# ```

# %%
answer = ...  # "zeros", "uniform" or "NaN"
ch7.float16_fill.check(answer)

# %%
# see it happen: a fully masked float16 row through a plain softmax
no_key = np.zeros(L, dtype=bool)  # every key masked
row16 = np.where(no_key, np.zeros(L, np.float16), -1e4).astype(np.float16)
e16 = np.exp(row16 - row16.max())  # e^0 = 1 for every key
print(row16.dtype, row16.tolist(), "->", e16 / e16.sum())  # tolist: NumPy 1 and 2 print alike

# %% [markdown]
# ````{solution} ex-ch7-float16-fill
# :class: dropdown
#
# $-10^4$ fits in float16, so the row is $-10^4$ everywhere, its maximum is $-10^4$, and
# every key gets $e^{-10^4 - (-10^4)} = e^0 = 1$: uniform weights, the padding averaged as
# with $-10^9$ in float32. A row with at least one real key is fine: the masked keys get
# $e^{-10^4 - m}$, which is 0 in float16. (The `.astype` only makes the type explicit:
# without it NumPy keeps float16 here in any version, since $-10^4$ fits; with $-10^9$
# NumPy 1 would have promoted to float32.)
#
# ```python
# ch7.float16_fill.check("uniform")
# ```
# ````
